"""Masked PPO on the batched Sushi Go core (`solvers.envs.batched.SushiGoBatch`), in JAX and optax
(the `learn` extra): against a league of compiled opponents and past selves, or against one fixed
policy, which makes the trained agent a learned best response (`solvers.learning.best_response`).

Contract: illegal actions get probability 0 (their logits are `network.MASKED`); collection is one
jitted call a step for each of two parts of the games, on two threads (one part's games step while
the other's policy step runs; the numbers of one part, `pipeline=False`), and the update one a
iteration; `phase_seconds` sums the CPU seconds of the policy, the environment (compiled opponents
included) and the update. The seed fixes the initial weights, the environments' streams and the
JAX key, and a checkpoint (`save`) holds everything that changes between iterations, so a resumed
training continues with exactly the numbers of an uninterrupted one (same machine and library
versions). With `overlap`, each rollout is collected with the parameters of one iteration before,
on the first of two host devices while the update (decoupled PPO, `make_update`) runs on the
second; one device gives the same numbers. Every `eval_every` iterations the greedy agent plays
`eval_games` games against `eval_opponent` on the same deals: the learning curve (docs/ppo.md).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

try:  # two host devices, for `overlap`; only possible before JAX's first computation
  jax.config.update("jax_num_cpu_devices", 2)
except RuntimeError:
  pass
import numpy as np
import optax
import pyspiel
from scipy import stats

from solvers import archives
from solvers.envs.batched import SushiGoBatch
from solvers.learning.network import (PARAMETER_NAMES, WHAT, Network, forward, forward_inputs,
                                      initial_parameters, inputs)
from solvers.opponents import COMPILED_BOTS, compiled_opponents
from solvers.progress import progress
from solvers.provenance import git_commit, package_version

GAME_NAME = "python_sushi_go"
EVAL_SEED = 2026
OBSERVATION_TYPES = ("observation", "information_state")  # the evaluation games' deals: the same at every point of every curve
PAST = "past"  # the league entry of the learner's past selves
LEAGUE_ENTRIES = (*COMPILED_BOTS, PAST)
PHASES = ("policy", "environment", "update")
_BOOLEANS = {"true": True, "false": False}  # a boolean setting's KEY=VALUE spellings


@dataclasses.dataclass(frozen=True)
class PPOConfig:
  """A training's settings (module docstring); `from_assignments` reads them as KEY=VALUE."""
  game: str = "python_sushi_go(players=2,utility=margin)"
  opponents: str = "heuristic:6,greedy:1,random:1"  # bot:share, ...
  seat: int = -1  # the learner's seat; -1: every seat, the games split evenly
  observation_type: str = "observation"  # or "information_state" (perfect recall)
  num_envs: int = 2048
  rollout_steps: int = 16
  epochs: int = 1  # one epoch of 8: ahead of 2 of 4 at equal training time (docs/ppo.md)
  minibatches: int = 8
  learning_rate: float = 1e-3
  gamma: float = 1.0
  gae_lambda: float = 0.95
  clip: float = 0.2
  value_coef: float = 0.5
  entropy_coef: float = 0.01
  entropy_anneal: int = 0  # iterations over which the entropy coefficient falls to 0; 0: constant
  max_grad_norm: float = 0.5
  hidden: int = 128
  reward_scale: float = 20.0
  eval_every: int = 50
  eval_games: int = 1000
  eval_opponent: str = "heuristic"
  past_every: int = 25  # a snapshot of the learner joins the past selves' pool this often
  past_pool: int = 4  # the pool's size (the newest snapshots)
  overlap: bool = False  # collect with parameters one iteration old while the update runs
  seed: int = 0

  def __post_init__(self):
    positive = ("num_envs", "rollout_steps", "epochs", "minibatches", "hidden", "eval_every",
                "eval_games", "past_every", "past_pool")
    for name in positive:
      value = getattr(self, name)
      if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"PPO setting {name} is {value!r}; allowed: an integer >= 1")
    if not isinstance(self.entropy_anneal, int) or isinstance(self.entropy_anneal, bool) or \
        self.entropy_anneal < 0:
      raise ValueError(f"PPO setting entropy_anneal is {self.entropy_anneal!r}; allowed: an"
                       " integer >= 0 (0: a constant entropy coefficient)")
    for name in ("learning_rate", "clip", "max_grad_norm", "reward_scale"):
      if not (isinstance(getattr(self, name), (int, float)) and 0 < getattr(self, name) < math.inf):
        raise ValueError(f"PPO setting {name} is {getattr(self, name)!r}; allowed: a positive"
                         " finite number")
    for name in ("gamma", "gae_lambda"):
      if not 0 <= getattr(self, name) <= 1:
        raise ValueError(f"PPO setting {name} is {getattr(self, name)!r}; allowed: 0 to 1")
    for name in ("value_coef", "entropy_coef"):
      if not 0 <= getattr(self, name) < math.inf:
        raise ValueError(f"PPO setting {name} is {getattr(self, name)!r}; allowed: a finite"
                         " number >= 0")
    if (self.num_envs * self.rollout_steps) % self.minibatches:
      raise ValueError(f"num_envs x rollout_steps ({self.num_envs * self.rollout_steps}) must"
                       f" split into {self.minibatches} equal minibatches; allowed: a"
                       " minibatches setting that divides it")
    if not isinstance(self.overlap, bool):
      raise ValueError(f"PPO setting overlap is {self.overlap!r}; allowed: true or false")
    if not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
      raise ValueError(f"PPO setting seed is {self.seed!r}; allowed: 0 to 2**32 - 1")
    if self.eval_opponent not in COMPILED_BOTS:
      raise ValueError(f"PPO setting eval_opponent is {self.eval_opponent!r}; allowed:"
                       f" {', '.join(COMPILED_BOTS)}")
    self.league()
    if self.observation_type not in OBSERVATION_TYPES:
      raise ValueError(f"PPO setting observation_type is {self.observation_type!r}; allowed:"
                       f" {', '.join(OBSERVATION_TYPES)}")
    players = self.game_params()["players"]
    if not -1 <= self.seat < players:
      raise ValueError(f"PPO setting seat is {self.seat}; allowed: -1 (every seat) or 0 to"
                       f" {players - 1}")

  def game_params(self) -> dict:
    """The game string's parameters, checked to name a Sushi Go game."""
    try:
      params = dict(pyspiel.game_parameters_from_string(self.game))
    except pyspiel.SpielError:
      params = {}
    if params.pop("name", None) != GAME_NAME:
      raise ValueError(f"PPO game {self.game!r}; allowed: a {GAME_NAME} game string (the batched"
                       " core plays Sushi Go), such as 'python_sushi_go(players=2,utility=margin)'")
    game = pyspiel.load_game(self.game)
    return {**params, "players": game.num_players()}

  def league(self) -> list[tuple[str, float]]:
    """The opponents and their shares of the games, read from `opponents`."""
    league = []
    for entry in self.opponents.split(","):
      name, _, share = entry.strip().partition(":")
      try:
        weight = float(share) if share else 1.0
      except ValueError:
        weight = -1.0
      if name not in LEAGUE_ENTRIES or not 0 < weight < math.inf:
        raise ValueError(f"PPO opponents entry {entry.strip()!r}; allowed: BOT or BOT:SHARE with"
                         f" BOT one of {', '.join(LEAGUE_ENTRIES)} and SHARE a positive number,"
                         " separated by commas")
      league.append((name, weight))
    return league

  @classmethod
  def from_assignments(cls, assignments: Sequence[str], **given) -> PPOConfig:
    """The config with `given` settings and KEY=VALUE `assignments` (each value read as its
    default's type); a ValueError names an unknown key or a value of the wrong type."""
    fields = {field.name: field for field in dataclasses.fields(cls)}
    settings = dict(given)
    for text in assignments:
      key, equals, value = text.partition("=")
      key = key.strip()
      if not equals or key not in fields:
        raise ValueError(f"PPO setting {text!r}; allowed: KEY=VALUE with KEY one of"
                         f" {', '.join(fields)}")
      kind = type(fields[key].default)
      try:
        settings[key] = _BOOLEANS[value.strip().lower()] if kind is bool else kind(value.strip())
      except (KeyError, ValueError):
        allowed = "true or false" if kind is bool else f"a {kind.__name__}"
        raise ValueError(f"PPO setting {key} is {value.strip()!r}; allowed:"
                         f" {allowed}") from None
    return cls(**settings)


# --------------------------------------------------------------------------------------------
# The compiled steps


def _log_probabilities(logits):
  return jax.nn.log_softmax(logits, axis=-1)


def _sample_at(logits, uniforms):
  """One action a row drawn from softmax(logits) by inverse CDF with the row's uniform (`uniforms`:
  games x 1; an action of probability 0 is never drawn), and its log-probability."""
  log_probabilities = _log_probabilities(logits)
  # A parallel prefix sum: XLA's cumsum on CPU costs a quarter more of a collection step.
  cumulative = jax.lax.associative_scan(jnp.add, jnp.exp(log_probabilities), axis=1)
  point = uniforms * cumulative[:, -1:]
  beyond = cumulative > point
  # The first action beyond the point and the most probable one (ties to the lowest id) as
  # minima of action ids, and the action's log-probability as a maximum: what argmax and
  # take_along_axis give, at half their cost on CPU
  ids = jax.lax.broadcasted_iota(jnp.int32, logits.shape, 1)
  count = logits.shape[1]
  first_beyond = jnp.min(jnp.where(beyond, ids, count), axis=-1)
  most_probable = jnp.min(jnp.where(logits == logits.max(axis=-1, keepdims=True), ids, count),
                          axis=-1)
  # Rounding can put the point at the total: the most probable action then.
  actions = jnp.where(beyond[:, -1], first_beyond, most_probable)
  return actions, jnp.max(jnp.where(ids == actions[:, None], log_probabilities, -jnp.inf),
                          axis=-1)


@jax.jit
def sample_actions(params, observations, masks, uniforms):
  """Actions drawn from the masked policy with `uniforms` (games x 1), their log-probabilities
  and the states' values."""
  logits, values = forward(params, observations, masks, jnp)
  actions, log_p = _sample_at(logits, uniforms)
  return actions, log_p, values


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def _rollout_draws(key, steps: int, games: int, past_rows: int):
  """A rollout's uniforms, drawn step after step from `key` as one collection step would draw
  them alone (a key split off a step; with past selves that key split in the learner's and the
  past selves'): the key after them, the learner's uniforms (steps x games x 1) and the past
  selves' (steps x past_rows x 1)."""
  def step(key, _):
    key, step_key = jax.random.split(key)
    if not past_rows:
      return key, (jax.random.uniform(step_key, (games, 1)), jnp.zeros((0, 1)))
    learner_key, past_key = jax.random.split(step_key)
    return key, (jax.random.uniform(learner_key, (games, 1)),
                 jax.random.uniform(past_key, (past_rows, 1)))
  key, (uniforms, past_uniforms) = jax.lax.scan(step, key, None, length=steps)
  return key, uniforms, past_uniforms


@jax.jit
def _collect(params, observations, masks, uniforms):
  """Some games' collection step: actions sampled with `uniforms`, their log-probabilities and
  the states' values, as one array (3 x games), so that one transfer brings them back."""
  actions, log_p, values = sample_actions(params, observations, masks, uniforms)
  return jnp.stack([actions.astype(jnp.float32), log_p, values])


@jax.jit
def _collect_with_past(params, observations, masks, uniforms, past_params, past_observations,
                       past_masks, past_uniforms):
  """`_collect` for the learner, and the past self's sampled actions at its seats."""
  past_logits, _ = forward(past_params, past_observations, past_masks, jnp)
  return (_collect(params, observations, masks, uniforms),
          _sample_at(past_logits, past_uniforms)[0])


@jax.jit
def greedy_actions(params, observations, masks):
  """The most probable legal action of each game (ties to the lowest id)."""
  return jnp.argmax(forward(params, observations, masks, jnp)[0], axis=-1)


def _advantages(rewards, values, dones, last_values, gamma, lam):
  """GAE over a rollout (steps x games): advantages and returns."""
  def back(carry, step):
    advantage, next_value = carry
    reward, value, done = step
    alive = 1.0 - done
    delta = reward + gamma * next_value * alive - value
    advantage = delta + gamma * lam * alive * advantage
    return (advantage, value), advantage
  _, advantages = jax.lax.scan(back, (jnp.zeros_like(last_values), last_values),
                               (rewards, values, dones), reverse=True)
  return advantages, advantages + values


def _loss(params, batch, entropy_coef, config: PPOConfig):
  """PPO's loss on a minibatch; with a seventh member, the weights of decoupled PPO (the proximal
  policy's probability of each action over the behaviour policy's, `make_update`)."""
  first_layer_inputs, masks, actions, old_log_p, advantages, returns, *behaviour_weights = batch
  logits, values = forward_inputs(params, first_layer_inputs, masks, jnp)
  log_probabilities = _log_probabilities(logits)
  log_p = jnp.take_along_axis(log_probabilities, actions[:, None], axis=1)[:, 0]
  advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
  ratio = jnp.exp(log_p - old_log_p)
  surrogate = jnp.minimum(ratio * advantages,
                          jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * advantages)
  if behaviour_weights:
    surrogate = surrogate * behaviour_weights[0]
  probabilities = jnp.exp(log_probabilities)
  entropy = -jnp.sum(jnp.where(masks > 0, probabilities * log_probabilities, 0.0), axis=-1)
  value_loss = jnp.mean((values - returns) ** 2)
  loss = -surrogate.mean() + config.value_coef * value_loss - entropy_coef * entropy.mean()
  return loss, (value_loss, entropy.mean(), jnp.mean(jnp.abs(ratio - 1) > config.clip))


def make_update(config: PPOConfig, optimizer):
  """The jitted update of one iteration: advantages, then `epochs` passes over shuffled
  minibatches with the iteration's entropy coefficient; returns the new parameters and optimizer
  state and the last minibatch's statistics (loss, value loss, entropy, clipped share). With
  `overlap` the rollout was collected by older parameters than those updated: decoupled PPO
  (Hilton et al., 2022) clips the ratio to the parameters at the update's start (the proximal
  policy) and weighs each step by their probability of its action over the collecting one's."""
  def update(params, opt_state, rollout, last_values, key, entropy_coef):
    observations, masks, actions, log_p, values, rewards, dones = rollout
    advantages, returns = _advantages(rewards, values, dones, last_values, config.gamma,
                                      config.gae_lambda)
    # The first layer's inputs once a rollout: the epochs read them, not the observations.
    flat = [x.reshape((-1,) + x.shape[2:]) for x in
            (inputs(observations, jnp), masks, actions, log_p, advantages, returns)]
    size = flat[0].shape[0]
    if config.overlap:
      proximal = jnp.take_along_axis(_log_probabilities(forward_inputs(
          params, flat[0], flat[1], jnp)[0]), flat[2][:, None], axis=1)[:, 0]
      flat = [*flat[:3], proximal, *flat[4:], jnp.exp(proximal - flat[3])]

    def epoch(carry, epoch_key):
      params, opt_state = carry
      order = jax.random.permutation(epoch_key, size).reshape(config.minibatches, -1)

      def minibatch(carry, indices):
        params, opt_state = carry
        batch = [x[indices] for x in flat]
        (loss, stats), grads = jax.value_and_grad(_loss, has_aux=True)(
            params, batch, entropy_coef, config)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), (loss, *stats)
      (params, opt_state), stats = jax.lax.scan(minibatch, (params, opt_state), order)
      return (params, opt_state), stats
    (params, opt_state), stats = jax.lax.scan(epoch, (params, opt_state),
                                              jax.random.split(key, config.epochs))
    return params, opt_state, [s[-1, -1] for s in stats]
  return jax.jit(update)


# --------------------------------------------------------------------------------------------
# The trainer


class PPOTrainer:
  """A PPO training (module docstring): `run` iterates, `save` checkpoints, `resume` reads one
  back. `fixed_opponent` replaces the league by one compiled policy (the batch's opponent spec,
  as `compiled_opponents` gives it) in every opponent seat, and `seat` by the given one: the
  learned best response's setting."""

  def __init__(self, config: PPOConfig, fixed_opponent=None, fixed_label: str = "",
               pipeline: bool = True):
    self.config = config
    self.params_game = config.game_params()
    self.game = pyspiel.load_game(config.game)
    players = self.params_game["players"]
    game_params = {k: v for k, v in self.params_game.items()}
    self.fixed_label, self.fixed_opponent = fixed_label, fixed_opponent
    seats = list(range(players)) if config.seat == -1 else [config.seat]
    if fixed_opponent is not None:
      groups = [(fixed_label or "fixed policy", fixed_opponent, seat, 1.0) for seat in seats]
    else:
      groups = [(name, "external" if name == PAST else compiled_opponents(self.game, name), seat,
                 share / len(seats)) for name, share in config.league() for seat in seats]
    sizes = _split(config.num_envs, [share for *_, share in groups])
    if min(sizes) < 1:
      raise ValueError(f"num_envs {config.num_envs} is too few for {len(groups)} groups of"
                       " games (opponent and seat); allowed: at least one game per group")
    # The first stream makes the initial weights, the same whatever the league
    weights_stream, *streams = np.random.SeedSequence(config.seed).spawn(len(groups) + 1)
    self.groups = [(name, seat, size) for (name, _, seat, _), size in zip(groups, sizes)]
    self.batches = [SushiGoBatch(size, opponents=spec, seat=seat,
                                 observation_type=config.observation_type,
                                 seed=int(stream.generate_state(1, np.uint64)[0]), **game_params)
                    for (_, spec, seat, _), size, stream in zip(groups, sizes, streams)]
    for batch in self.batches:
      batch.reset()
    self.num_actions = self.batches[0].num_actions
    self.observation_size = self.batches[0].observation_size
    init_rng = np.random.default_rng(weights_stream)
    self.params = {k: jnp.asarray(v) for k, v in initial_parameters(
        self.observation_size, self.num_actions, config.hidden, init_rng).items()}
    self.optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm),
                                 optax.adam(config.learning_rate))
    self.opt_state = self.optimizer.init(self.params)
    self.key = jax.random.PRNGKey(config.seed)
    # Training's wall seconds (evaluations included) and CPU seconds of every thread (iterations
    # only; with overlap a few parallel updates' CPU seconds are counted too)
    self.iteration, self.steps, self.seconds, self.cpu_seconds = 0, 0, 0.0, 0.0
    self.curve: list[dict] = []
    self._stats: list = []
    self._update = make_update(config, self.optimizer)
    # The past selves: their batches, the pool (parameters and the iteration each was taken at)
    self.past_batches = [batch for batch in self.batches if batch.external_seats]
    self.past_pool: list[tuple[int, dict]] = [(0, self.params)] if self.past_batches else []
    self.phase_seconds = dict.fromkeys(PHASES, 0.0)
    # Collection on the first device, the update on the last (the same one without overlap); the
    # parameters the next rollout is collected with (one iteration old with overlap)
    self._collection_device, self._update_device = jax.devices()[0], jax.devices()[-1]
    self.collection_params = self.params
    steps, games = config.rollout_steps, config.num_envs
    # Two rollouts with overlap: one is collected while the update in flight reads the other
    self._rollouts = [(np.empty((steps, games, self.observation_size), np.float32),
                       np.empty((steps, games, self.num_actions), np.int8),
                       np.empty((steps, games), np.int32), np.empty((steps, games), np.float32),
                       np.empty((steps, games), np.float32), np.empty((steps, games), np.float32),
                       np.empty((steps, games), np.float32)) for _ in range(1 + config.overlap)]
    self._readers: list = [None] * len(self._rollouts)  # each rollout's update's result
    # Collection in two parts of whole groups, each on a thread of its own (and a host device of
    # its own without overlap), so that one part's games step while the other's policy step
    # runs; one part, on this thread, without `pipeline` or where parts would change the numbers
    sizes = [batch.num_envs for batch in self.batches]
    self._parts = [_Part(groups, self.batches, self.past_batches, self.observation_size)
                   for groups in _halves(sizes)]
    if not pipeline or not all(_same_numbers_in_part(part.rows.size) and (
        part.past_rows.size == 0 or _same_numbers_in_part(part.past_rows.size))
                               for part in self._parts):
      self._parts = [_Part(list(range(len(sizes))), self.batches, self.past_batches,
                           self.observation_size)]
    self._threads = concurrent.futures.ThreadPoolExecutor(len(self._parts))

  # ---- one iteration

  def iterate(self) -> None:
    """Collects one rollout from every group and updates the network once (module docstring);
    with `overlap` the update is left running when this returns."""
    config = self.config
    steps, games = config.rollout_steps, config.num_envs
    slot = self.iteration % len(self._rollouts)
    jax.block_until_ready(self._readers[slot])  # the update that read this rollout has ended
    rollout = self._rollouts[slot]
    playing = self._on_collection(self.collection_params)
    past_params = None
    if self.past_pool:
      self.key, key = jax.random.split(self.key)
      past_params = self._on_collection(
          self.past_pool[int(jax.random.randint(key, (), 0, len(self.past_pool)))][1])
    clock, phases = time.process_time(), self.phase_seconds
    past_rows = sum(part.past_rows.size for part in self._parts)
    self.key, *draws = _rollout_draws(self.key, steps, games, past_rows)
    uniforms, past_uniforms = (np.asarray(x) for x in draws)
    if len(self._parts) == 1:
      environment = self._collect_part(rollout, self._parts[0], playing, past_params, uniforms,
                                       past_uniforms)
    else:
      devices = [self._collection_device] if config.overlap else jax.devices()
      environment = sum(future.result() for future in [self._threads.submit(
          self._collect_part, rollout, part, jax.device_put(playing, device),
          None if past_params is None else jax.device_put(past_params, device), uniforms,
          past_uniforms) for part, device in zip(self._parts, itertools.cycle(devices))])
    now_obs = np.concatenate([batch._observations for batch in self.batches])  # noqa: SLF001
    now_masks = np.concatenate([batch._masks for batch in self.batches])  # noqa: SLF001
    last_values = forward(playing, now_obs, now_masks, jnp)[1]
    now = time.process_time()
    phases["environment"] += environment
    phases["policy"] += now - clock - environment
    clock = now
    self.key, key = jax.random.split(self.key)
    update_inputs = (self.params, self.opt_state, last_values, key)
    if config.overlap:
      update_inputs = jax.device_put(update_inputs, self._update_device)
      self.collection_params = self.params  # the next rollout's, while the update runs
    params, opt_state, last_values, key = update_inputs
    self.params, self.opt_state, self._stats = self._update(
        params, opt_state, rollout, last_values, key, np.float32(self.entropy_coef()))
    self._readers[slot] = self.params
    if not config.overlap:
      jax.block_until_ready(self.params)
      self.collection_params = self.params
    _charge(phases, "update", clock)
    self.iteration += 1
    self.steps += steps * games
    if self.past_pool and self.iteration % config.past_every == 0:
      self.past_pool = [*self.past_pool, (self.iteration, self.params)][-config.past_pool:]

  def _collect_part(self, rollout, part: _Part, playing: dict, past_params: dict | None,
                    uniforms: np.ndarray, past_uniforms: np.ndarray) -> float:
    """Collects `part`'s rollout: every step a jitted policy step (on the device of `playing`),
    then the part's games step; returns this thread's CPU seconds spent stepping games."""
    _, _, actions, _, _, rewards, dones = rollout
    environment = 0.0
    for t in range(self.config.rollout_steps):
      observations, masks = part.record(rollout, t)
      if past_params is None or not part.past_batches:
        collected = np.asarray(_collect(playing, observations, masks, uniforms[t, part.rows]))
        past_actions = None
      else:
        collected, past_actions = (np.asarray(x) for x in _collect_with_past(
            playing, observations, masks, uniforms[t, part.rows], past_params,
            *part.past_inputs(), past_uniforms[t, part.past_rows]))
      part.store(rollout, t, collected)
      clock = time.thread_time()
      taken = 0
      for i in part.groups:
        batch, lo, hi = self.batches[i], part.bounds[i], part.bounds[i + 1]
        external = None
        if batch.external_seats:
          count = batch.num_envs * len(batch.external_seats)
          external = past_actions[taken:taken + count].reshape(len(batch.external_seats), -1).T
          taken += count
        _, reward, done, _ = batch.step(actions[t, lo:hi], external)
        np.divide(reward, self.config.reward_scale, out=rewards[t, lo:hi])
        dones[t, lo:hi] = done
      environment += time.thread_time() - clock
    return environment

  def _on_collection(self, params: dict) -> dict:
    """`params` on the collection device (as they are without overlap)."""
    return jax.device_put(params, self._collection_device) if self.config.overlap else params

  @property
  def last_stats(self) -> dict:
    """The last update's statistics of its last minibatch (waits for it with overlap)."""
    return dict(zip(("loss", "value_loss", "entropy", "clipped"),
                    (float(s) for s in self._stats)))

  def entropy_coef(self) -> float:
    """The entropy coefficient of the next iteration's update (`entropy_anneal`)."""
    anneal = self.config.entropy_anneal
    if not anneal:
      return self.config.entropy_coef
    return self.config.entropy_coef * max(0.0, 1.0 - self.iteration / anneal)

  # ---- the run

  def run(self, iterations: int | None = None, seconds: float | None = None,
          show_progress: bool = True, checkpoint: Callable[[], None] | None = None,
          checkpoint_seconds: float = 60.0, stop: Callable[[], bool] = lambda: False) -> None:
    """Iterates `iterations` more times or for `seconds` more of training, whichever is given,
    evaluating every `eval_every` iterations (and at the start and the end) and calling
    `checkpoint` every `checkpoint_seconds`; stops early, between iterations, when `stop()`."""
    if (iterations is None) == (seconds is None):
      raise ValueError("give iterations or seconds, one of them")
    target = None if iterations is None else self.iteration + iterations
    per_iteration = self.config.rollout_steps * self.config.num_envs
    if not self.curve:
      self.evaluate()
    start, last_save = time.perf_counter(), time.perf_counter()
    begun = self.seconds
    bar = progress(total=None if target is None else target * per_iteration,
                   desc="PPO", unit="step", initial=self.steps, disable=not show_progress)
    with bar:
      while not stop():
        if target is not None and self.iteration >= target:
          break
        if seconds is not None and time.perf_counter() - start >= seconds:
          break
        clock = time.process_time()
        self.iterate()
        evaluating = self.iteration % self.config.eval_every == 0
        if evaluating:  # the update in flight (overlap) is training's, not the evaluation's
          jax.block_until_ready(self.params)
        self.cpu_seconds += time.process_time() - clock
        self.seconds = begun + time.perf_counter() - start
        bar.update(per_iteration)
        if evaluating:
          point = self.evaluate()
          if hasattr(bar, "set_postfix"):
            bar.set_postfix(win=f"{point['win_share']:.3f}", margin=f"{point['mean_margin']:.2f}")
        if checkpoint is not None and time.perf_counter() - last_save >= checkpoint_seconds:
          checkpoint()
          last_save = time.perf_counter()
    if self.curve[-1]["iteration"] != self.iteration:
      clock = time.process_time()
      jax.block_until_ready(self.params)
      self.cpu_seconds += time.process_time() - clock
      self.evaluate()

  def evaluate(self) -> dict:
    """Plays `eval_games` games greedily against `eval_opponent` (the same deals each time);
    appends the point to the curve and returns it."""
    point = {"iteration": self.iteration, "steps": self.steps,
             "seconds": round(self.seconds, 1), "cpu_seconds": round(self.cpu_seconds, 1),
             **evaluate(self.params, self.config, self.config.eval_opponent,
                        self.config.eval_games, self.fixed_opponent)}
    self.curve.append(point)
    return point

  # ---- checkpoints

  def network(self) -> Network:
    """The agent as it stands, with its metadata."""
    return Network({k: np.asarray(v) for k, v in self.params.items()}, self.metadata())

  def metadata(self) -> dict:
    return {"game": str(self.game), "observation_type": self.config.observation_type,
            "algorithm": "ppo", "config": dataclasses.asdict(self.config),
            "fixed_opponent": self.fixed_label, "groups": self.groups,
            "iteration": self.iteration, "steps": self.steps,
            "past_iterations": [iteration for iteration, _ in self.past_pool],
            "seconds": round(self.seconds, 1), "cpu_seconds": round(self.cpu_seconds, 1),
            "curve": self.curve,
            "version": package_version(), "commit": git_commit(),
            "libraries": {"jax": jax.__version__, "optax": optax.__version__,
                          "numpy": np.__version__}}

  def save(self, path: str, agent_path: str | None = None) -> None:
    """The checkpoint at `path` (the agent with Adam's state, the key and every batch's state),
    and, with `agent_path`, the agent alone there; each written atomically."""
    network = self.network()
    extra = {f"optimizer_{i}": np.asarray(leaf)
             for i, leaf in enumerate(jax.tree_util.tree_leaves(self.opt_state))}
    extra["key"] = np.asarray(jax.random.key_data(self.key) if jnp.issubdtype(
        self.key.dtype, jax.dtypes.prng_key) else self.key)
    for i, batch in enumerate(self.batches):
      for name, array in batch.state().items():
        extra[f"batch_{i}_{name}"] = array
    for k, (_, params) in enumerate(self.past_pool):
      for name in PARAMETER_NAMES:
        extra[f"past_{k}_{name}"] = np.asarray(params[name])
    if self.config.overlap:  # the next rollout's parameters, one iteration old
      for name in PARAMETER_NAMES:
        extra[f"collection_{name}"] = np.asarray(self.collection_params[name])
    network.save(path, extra)
    if agent_path is not None:
      Network(network.params, {k: v for k, v in network.metadata.items()}).save(agent_path)

  @classmethod
  def resume(cls, path: str, fixed_opponent=None) -> PPOTrainer:
    """The training checkpointed at `path`, ready to run on; a ValueError names what is wrong
    with the file."""
    archive = archives.load(path, WHAT)
    network = Network.load(path)
    metadata = archive.metadata
    if metadata.get("algorithm") != "ppo" or not isinstance(metadata.get("config"), dict):
      raise archive.error("it is no PPO training checkpoint (an agent file without a training's"
                          " state)")
    try:
      config = PPOConfig(**metadata["config"])
    except TypeError as e:
      raise archive.error(f"its config is not a PPO config ({e})") from None
    trainer = cls(config, fixed_opponent, metadata.get("fixed_opponent", ""))
    leaves, tree = jax.tree_util.tree_flatten(trainer.opt_state)
    try:
      stored = [archive.arrays[f"optimizer_{i}"] for i in range(len(leaves))]
      states = [{name: archive.arrays[f"batch_{i}_{name}"] for name in batch.state()}
                for i, batch in enumerate(trainer.batches)]
      key = archive.arrays["key"]
      pool = [(int(iteration), {name: jnp.asarray(archive.arrays[f"past_{k}_{name}"])
                                for name in PARAMETER_NAMES})
              for k, iteration in enumerate(metadata.get("past_iterations", []))]
      collection = {name: jnp.asarray(archive.arrays[f"collection_{name}"])
                    for name in PARAMETER_NAMES} if config.overlap else None
    except KeyError as e:
      raise archive.error(f"it holds no {e.args[0]!r} array: it is no complete checkpoint"
                          " of this training") from None
    for leaf, value in zip(leaves, stored):
      if np.shape(leaf) != value.shape:
        raise archive.error("its optimizer state does not fit its network")
    trainer.opt_state = jax.tree_util.tree_unflatten(tree, [jnp.asarray(v) for v in stored])
    trainer.params = {k: jnp.asarray(v) for k, v in network.params.items()}
    trainer.collection_params = collection or trainer.params
    for batch, state in zip(trainer.batches, states):
      batch.restore(state)
    trainer.key = jnp.asarray(key, dtype=jnp.uint32)
    if bool(pool) != bool(trainer.past_batches):
      raise archive.error("its pool of past selves does not fit its league")
    trainer.past_pool = pool
    trainer.iteration, trainer.steps = int(metadata["iteration"]), int(metadata["steps"])
    trainer.seconds, trainer.curve = float(metadata["seconds"]), list(metadata["curve"])
    trainer.cpu_seconds = float(metadata.get("cpu_seconds", 0.0))  # older checkpoints: none kept
    return trainer


class _Part:
  """Some groups of a trainer's games, collected together: their rows in the rollout (games)
  and in the past selves' uniforms (every past-self batch in order, seat after seat)."""

  def __init__(self, groups: list[int], batches: list[SushiGoBatch],
               past_batches: list[SushiGoBatch], observation_size: int):
    self.groups, self.batches, self.observation_size = groups, batches, observation_size
    self.bounds = np.cumsum([0] + [batch.num_envs for batch in batches])
    self.rows = np.concatenate([np.arange(self.bounds[i], self.bounds[i + 1]) for i in groups])
    past_sizes = [batch.num_envs * len(batch.external_seats) for batch in past_batches]
    past_bounds = np.cumsum([0] + past_sizes)
    self.past_rows = np.concatenate(
        [np.arange(0)] + [np.arange(past_bounds[k], past_bounds[k + 1])
                          for k, batch in enumerate(past_batches)
                          if any(batch is batches[i] for i in groups)])
    self.past_batches = [batches[i] for i in groups if batches[i].external_seats]

  def record(self, rollout, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Writes the part's observations and masks into step `t` of `rollout`; returns copies of
    them, the part's rows only."""
    observations, masks = rollout[0], rollout[1]
    for i in self.groups:
      lo, hi = self.bounds[i], self.bounds[i + 1]
      observations[t, lo:hi] = self.batches[i]._observations  # noqa: SLF001
      masks[t, lo:hi] = self.batches[i]._masks  # noqa: SLF001
    return observations[t, self.rows], masks[t, self.rows]

  def store(self, rollout, t: int, collected: np.ndarray) -> None:
    """Writes a collection step's actions, log-probabilities and values (3 x the part's games)
    into step `t` of `rollout`."""
    _, _, actions, log_p, values, _, _ = rollout
    actions[t, self.rows], log_p[t, self.rows], values[t, self.rows] = collected

  def past_inputs(self) -> tuple[np.ndarray, np.ndarray]:
    """The past selves' observations and masks in the part's games, batch after batch, seat
    after seat."""
    return (np.concatenate([batch.external_observations().reshape(-1, self.observation_size)
                            for batch in self.past_batches]),
            np.concatenate([batch.external_masks().reshape(-1, batch.num_actions)
                            for batch in self.past_batches]))


def _same_numbers_in_part(rows: int) -> bool:
  """Whether a policy step on `rows` games gives each of them the numbers it gets in a whole
  batch: XLA's CPU products give a row the same numbers in any batch of a multiple of 8 rows from
  128 on, and others elsewhere (tests/test_ppo.py)."""
  return rows % 8 == 0 and rows >= 128


def _halves(sizes: Sequence[int]) -> list[list[int]]:
  """The groups (their indices) in two parts of games as even as whole groups allow (largest
  first, each to the lighter part), each in order; one part when there is one group."""
  parts, loads = [[], []], [0, 0]
  for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
    lighter = int(loads[1] < loads[0])
    parts[lighter].append(i)
    loads[lighter] += sizes[i]
  return [sorted(part) for part in parts if part]


def _charge(phases: dict[str, float], phase: str, since: float) -> float:
  """Adds the CPU seconds from `since` to now to `phase`; returns now."""
  now = time.process_time()
  phases[phase] += now - since
  return now


def _split(total: int, shares: Sequence[float]) -> list[int]:
  """`total` split in proportion to `shares` (largest remainders get the leftovers, first come
  first)."""
  exact = np.array(shares, dtype=float) / sum(shares) * total
  sizes = np.floor(exact).astype(int)
  for i in np.argsort(-(exact - sizes), kind="stable")[:total - sizes.sum()]:
    sizes[i] += 1
  return sizes.tolist()


def evaluate(params, config: PPOConfig, opponent: str, games: int, fixed_opponent=None) -> dict:
  """The greedy agent against compiled bot `opponent` in `games` games (seats split evenly,
  deals from `EVAL_SEED`): mean return (the game's utility), the share of games in which it
  outscores the opponents (margin > 0) with its Wilson 95% interval, and the ties' share. With
  `fixed_opponent` (a batch's opponent spec), against it instead, named by its policy."""
  params_game = {**config.game_params(), "utility": "margin"}
  game = pyspiel.load_game(config.game)
  players = params_game["players"]
  seats = list(range(players)) if config.seat == -1 else [config.seat]
  sizes = _split(games, [1.0] * len(seats))
  streams = np.random.SeedSequence(EVAL_SEED).spawn(len(seats))
  margins = []
  for seat, size, stream in zip(seats, sizes, streams):
    if size == 0:
      continue
    spec = compiled_opponents(game, opponent) if fixed_opponent is None else fixed_opponent
    batch = SushiGoBatch(size, opponents=spec, seat=seat,
                         observation_type=config.observation_type,
                         seed=int(stream.generate_state(1, np.uint64)[0]), **params_game)
    observations, masks = batch.reset()
    finished = np.full(size, np.nan)
    while np.isnan(finished).any():
      actions = np.asarray(greedy_actions(params, observations, masks)).astype(np.int64)
      observations, rewards, dones, masks = batch.step(actions)
      first = dones & np.isnan(finished)
      finished[first] = rewards[first]
    margins.append(finished)
  margins = np.concatenate(margins)
  wins = int((margins > 0).sum())
  interval = stats.binomtest(wins, len(margins)).proportion_ci(method="wilson")
  if fixed_opponent is not None:  # a name, a (name, parameters) pair, or a list of either
    entry = fixed_opponent if isinstance(fixed_opponent, (str, tuple)) else fixed_opponent[0]
    opponent = entry if isinstance(entry, str) else entry[0]
  return {"opponent": opponent,
          "games": len(margins), "mean_margin": float(margins.mean()),
          "win_share": wins / len(margins), "win_low": float(interval.low),
          "win_high": float(interval.high), "tie_share": float((margins == 0).mean())}
