"""A batched Sushi Go environment on the compiled core: N games stepped together in one kernel call.

One learner sits at `seat` of every game; the other seats are compiled policies (`opponents`:
`random`, `greedy`, (`heuristic` | `heuristic_eps`, parameters), (`blueprint` |
`blueprint_argmax`, parameters); `solvers.opponents.compiled_opponents` builds them from bot names)
or `"external"` seats the caller plays (`external_observations()`, `external_masks()`,
`step(actions, external_actions)`). A step plays the joint action, samples chance up to the
learner's next decision, pays the learner's return by the game's `utility` at the step ending a
game (whose observation and mask are already the next game's: auto-reset), and writes
observations (the pyspiel observer's tensor) and masks into arrays allocated once: the returned
arrays are overwritten by the next call. An action outside its mask follows `illegal_action`
("raise" by default, "random_legal", "lose"; `illegal()` tells which). The deals and draws are one
stream seeded at construction or `reset(seed=...)`: the same seed and actions give the same games.
`DraftingBatch` holds what both games' batches share. Usage and speed: docs/rl.md.
"""

from __future__ import annotations

import math
import numbers
import pathlib
from collections.abc import Sequence

import numpy as np

from solvers.policy_kernels import heuristic
from solvers.policy_kernels import sushi_go as policies
from solvers.policy_kernels.compiling import KERNELS as POLICY_KERNELS
from solvers.policy_kernels.sushi_go import BLUEPRINT_POLICIES, POLICIES, policy_action
from sushigo_spiel.compiled.jit import KernelSet, njit
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go import observation
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_TERMINAL, NUM_ACTIONS, PLAYERS,
                                                    build_spec)
from sushigo_spiel.compiled.sushi_go.moves import legal_actions
from sushigo_spiel.compiled.sushi_go.scoring import returns
from sushigo_spiel.envs.games import load_game
from sushigo_spiel.sushi_go.rules import Rules

# The opponents' compiled policies by name, and those that take a parameter array; LEARNER marks
# the learning player's seat, EXTERNAL a seat whose actions the caller gives.
OPPONENTS = POLICIES
PARAMETERISED = tuple(name for name, code in POLICIES.items() if code in policies.PARAMETERISED)
LEARNER = -1
EXTERNAL = -2
# What a step does with an action outside a game's mask (see the module docstring), by code.
RAISE, RANDOM_LEGAL, LOSE = range(3)
ILLEGAL_ACTIONS = {"raise": RAISE, "random_legal": RANDOM_LEGAL, "lose": LOSE}


class DraftingBatch:
  """What the games' batches share (see the module docstring): a subclass names its `game`, its
  kernels' `kernel_set`, its `observation` kernels module and its `build_spec` and
  `initial_position`, and implements `_seat_policies`, `_reset_games` and `_step_games`."""

  game: str

  def __init__(self, num_envs: int, opponents, seat: int, observation_type: str,
               seed: int | None, illegal_action: str, illegal_reward: float | None, params: dict):
    pyspiel_game = load_game(self.game, params)
    self.kernel_set.ensure()
    if not isinstance(num_envs, int) or num_envs < 1:
      raise ValueError(f"num_envs is {num_envs!r}; allowed: a positive integer")
    rules = pyspiel_game.rules
    self.rules, self.spec = rules, self.build_spec(rules)
    self.num_envs, self.num_players = num_envs, rules.num_players
    self.num_actions = rules.num_distinct_actions
    self.seat = _checked_seat(seat, rules.num_players)
    self.seat_policies, self.seat_parameters = self._seat_policies(opponents)
    self.observation_type = _checked_observation_type(observation_type, self.observation.KINDS)
    self._kind = self.observation.KINDS[observation_type]
    self._offsets = self.observation.piece_offsets(rules, self._kind)
    self.observation_size = self.observation.tensor_size(rules, self._kind)
    if illegal_action not in ILLEGAL_ACTIONS:
      raise ValueError(f"illegal_action is {illegal_action!r}; allowed: "
                       f"{', '.join(ILLEGAL_ACTIONS)}")
    checked_illegal_reward(illegal_reward)
    self.illegal_action = illegal_action
    self._rule = ILLEGAL_ACTIONS[illegal_action]
    self.illegal_reward = float(pyspiel_game.min_utility() if illegal_reward is None
                                else illegal_reward)
    self._start = self.initial_position(self.spec)
    self._positions = np.empty((num_envs, len(self._start)), dtype=self._start.dtype)
    self._observations = np.zeros((num_envs, self.observation_size), dtype=np.float32)
    self._masks = np.zeros((num_envs, self.num_actions), dtype=np.int8)
    self._rewards = np.zeros(num_envs, dtype=np.float32)
    self._dones = np.zeros(num_envs, dtype=bool)
    self._illegal = np.zeros(num_envs, dtype=bool)
    self._rng = new_state(_fresh_seed() if seed is None else _checked_seed(seed))
    self._started = False

  def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """New games in every slot (the stream reseeded when `seed` is given); the observations and
    masks of their first decisions."""
    if seed is not None:
      self._rng = new_state(_checked_seed(seed))
    self._reset_games()
    self._illegal[:] = False
    self._started = True
    return self._observations, self._masks

  def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One decision of the learner in every game: `actions` holds one action per game, legal
    unless `illegal_action` says otherwise. Returns observations, rewards, dones and masks (see
    the module docstring)."""
    if not self._started:
      raise RuntimeError("step() before reset(): call reset() first")
    self._step_games(self._checked_actions(actions))
    return self._observations, self._rewards, self._dones, self._masks

  def masks(self) -> np.ndarray:
    """The legal-action masks of every game's next decision (what the last step or reset
    returned)."""
    return self._masks

  def illegal(self) -> np.ndarray:
    """Which games' actions at the last step were outside their masks (all False after a reset,
    and always under "raise", which refuses them)."""
    return self._illegal

  def state(self) -> dict[str, np.ndarray]:
    """Copies of everything the next steps depend on (the games, the observations and masks, the
    random stream): `restore` returns the batch to this point, so a checkpointed learner resumes
    with the same games it would have played."""
    if not self._started:
      raise RuntimeError("state() before reset(): call reset() first")
    return {name: member.copy() for name, member in self._members().items()}

  def restore(self, state: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Returns the batch to a `state()` of a batch built with the same arguments; the
    observations and masks there. A ValueError names a member of the wrong shape or dtype."""
    for name, mine in self._members().items():
      given = np.asarray(state.get(name)) if name in state else None
      if given is None or given.shape != mine.shape or given.dtype != mine.dtype:
        raise ValueError(f"batch state member {name!r} is"
                         f" {'missing' if given is None else f'{given.dtype}{list(given.shape)}'};"
                         f" allowed: {mine.dtype}{list(mine.shape)}, as state() of a batch built"
                         " with the same arguments")
      mine[...] = given
    self._started = True
    return self._observations, self._masks

  def _members(self) -> dict[str, np.ndarray]:
    """The arrays `state` copies and `restore` writes back."""
    return {"positions": self._positions, "observations": self._observations,
            "masks": self._masks, "rng": self._rng}

  def positions(self) -> np.ndarray:
    """The games' positions (the game's `compiled.<game>.layout`), one row per game: for tests
    and analysis (the compiled core's `decode` turns a row into the rules' `Table`)."""
    return self._positions

  def _checked_actions(self, actions) -> np.ndarray:
    array = np.asarray(actions)
    if array.shape != (self.num_envs,) or not np.issubdtype(array.dtype, np.integer):
      raise ValueError(f"actions must be {self.num_envs} integers, one per game; got an array of"
                       f" shape {array.shape} and dtype {array.dtype}")
    array = array.astype(np.int64, copy=False)
    if self._rule != RAISE:
      return array
    outside = (array < 0) | (array >= self.num_actions)
    illegal = outside.copy()
    illegal[~outside] = self._masks[np.flatnonzero(~outside), array[~outside]] == 0
    if illegal.any():
      game = int(np.flatnonzero(illegal)[0])
      raise ValueError(f"action {int(array[game])} of game {game} is not legal there (and"
                       f" {int(illegal.sum()) - 1} other game(s) have an illegal action); allowed"
                       f" in game {game}: {np.flatnonzero(self._masks[game]).tolist()}, the"
                       " mask's ones")
    return array


class SushiGoBatch(DraftingBatch):
  """`num_envs` games of `python_sushi_go(**params)`, one learner against compiled opponents (see
  the module docstring)."""

  game = "python_sushi_go"
  observation = observation
  build_spec = staticmethod(build_spec)
  initial_position = staticmethod(initial_position)

  @property
  def kernel_set(self) -> KernelSet:
    return KERNELS  # declared below the kernels

  def __init__(self, num_envs: int = 1024, opponents: str | tuple | Sequence = "random",
               seat: int = 0, observation_type: str = "observation", seed: int | None = None,
               illegal_action: str = "raise", illegal_reward: float | None = None, **params):
    super().__init__(num_envs, opponents, seat, observation_type, seed, illegal_action,
                     illegal_reward, params)
    self._written = np.zeros(num_envs, dtype=np.int64)
    self.external_seats = [int(p) for p in np.flatnonzero(self.seat_policies == EXTERNAL)]
    external = len(self.external_seats)
    self._external_slots = np.full(self.num_players, -1, dtype=np.int64)
    self._external_slots[self.external_seats] = np.arange(external)
    self._external_actions = np.zeros((num_envs, external), dtype=np.int64)
    self._external_written = np.zeros((external, num_envs), dtype=np.int64)
    self._external_observations = np.zeros((external, num_envs, self.observation_size),
                                           dtype=np.float32)
    self._external_masks = np.zeros((external, num_envs, self.num_actions), dtype=np.int8)

  def step(self, actions, external_actions=None):
    """As `DraftingBatch.step`, with `external_actions` (games x external seats, each legal in
    its seat's mask) when an opponent seat is external (module docstring)."""
    if self._started and (self.external_seats or external_actions is not None):
      self._external_actions[...] = self._checked_external_actions(external_actions)
    return super().step(actions)

  def external_observations(self) -> np.ndarray:
    """The external seats' observations of their next decisions (seats x games x entries)."""
    return self._external_observations

  def external_masks(self) -> np.ndarray:
    """The external seats' legal-action masks (seats x games x actions)."""
    return self._external_masks

  def _checked_external_actions(self, external_actions) -> np.ndarray:
    shape = (self.num_envs, len(self.external_seats))
    array = None if external_actions is None else np.asarray(external_actions)
    if not self.external_seats or array is None or array.shape != shape or \
        not np.issubdtype(array.dtype, np.integer):
      given = "None" if array is None else \
          f"an array of shape {array.shape} and dtype {array.dtype}"
      allowed = "None (no seat is external)" if not self.external_seats else \
          f"{shape[0]} x {shape[1]} integers, one per game and external seat {self.external_seats}"
      raise ValueError(f"external_actions is {given}; allowed: {allowed}")
    for slot, seat in enumerate(self.external_seats):
      column = array[:, slot]
      inside = (column >= 0) & (column < self.num_actions)
      legal = inside.copy()
      legal[inside] = self._external_masks[slot, np.flatnonzero(inside), column[inside]] == 1
      if not legal.all():
        game = int(np.flatnonzero(~legal)[0])
        allowed = np.flatnonzero(self._external_masks[slot, game]).tolist()
        raise ValueError(f"external action {int(column[game])} of seat {seat} in game {game} is"
                         f" not legal there; allowed: {allowed}, the external mask's ones")
    return array

  def _seat_policies(self, opponents):
    codes, rows, self._kernels = _seat_policies(opponents, self.seat, self.num_players)
    return codes, rows

  def _members(self) -> dict[str, np.ndarray]:
    members = {**super()._members(), "written": self._written}
    if self.external_seats:
      members.update(external_written=self._external_written,
                     external_observations=self._external_observations,
                     external_masks=self._external_masks)
    return members

  def _external(self) -> tuple:
    return (self._external_slots, self._external_written, self._external_observations,
            self._external_masks)

  def _reset_games(self):
    reset_games(self.spec, self._positions, self._start, self._rng, self.seat, self._kind,
                self._offsets, self._written, self._observations, self._masks, *self._external())

  def _step_games(self, actions):
    step_games(self.spec, self._positions, actions, self.seat_policies, self.seat_parameters,
               self._kernels, self._rng, self._start, self._kind, self._offsets, self._written,
               self._observations, self._masks, self._rewards, self._dones, self._rule,
               self.illegal_reward, self._illegal, self._external_actions, *self._external())


def checked_illegal_reward(value) -> None:
  """Refuses an `illegal_reward` that is neither None (the game's lowest return) nor a finite
  number."""
  if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real) or
                            not math.isfinite(value)):
    raise ValueError(f"illegal_reward is {value!r}; allowed: a finite number, or None for the"
                     " game's lowest return")


def _checked_seat(seat: int, players: int) -> int:
  if not isinstance(seat, int) or not 0 <= seat < players:
    raise ValueError(f"seat is {seat!r}; allowed: 0 to {players - 1}")
  return seat


def _seat_policies(opponents, seat: int, players: int) -> tuple[np.ndarray, np.ndarray, object]:
  """Each seat's policy code, LEARNER at the learner's seat; each seat's parameter array (one
  row per seat, zeros where the policy takes none, shorter arrays padded with zeros); and the
  kernels playing them (`policies.playing` of a policy kernel): Sushi Go's, or the blueprint
  policy kernel when a seat plays a blueprint."""
  given = [opponents] if isinstance(opponents, (str, tuple)) else list(opponents)
  if len(given) == 1:
    given = given * (players - 1)
  if len(given) != players - 1:
    raise ValueError(f"opponents names {len(given)} polic(ies); allowed: one, or one per"
                     f" opponent seat ({players - 1})")
  codes, rows, kernel = [], [], policy_action
  for entry in given:
    name, values = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
    if name == "external" and values is None:
      codes.append(EXTERNAL)
      rows.append(np.zeros(heuristic.PARAMETERS_SIZE))
      continue
    if name in BLUEPRINT_POLICIES and values is not None:
      # Imported here: the CFR kernels' modules, which only a blueprint opponent needs.
      from solvers.equilibrium.kernels import blueprint_policy  # pylint: disable=C0415
      blueprint_policy.ensure_compiled()
      codes.append(blueprint_policy.POLICIES[name])
      rows.append(_checked_parameters(values, blueprint=True))
      kernel = blueprint_policy.policy_action
      continue
    if not isinstance(name, str) or name not in OPPONENTS or \
        (values is None) != (name not in PARAMETERISED):
      plain = [known for known in OPPONENTS if known not in PARAMETERISED]
      raise ValueError(f"opponent {entry!r}; allowed: {', '.join(plain)} or external by name, or"
                       f" ({' or '.join(map(repr, PARAMETERISED))}, parameters) with the array of"
                       " solvers.policy_kernels.heuristic.parameters(values), or"
                       f" ({' or '.join(map(repr, BLUEPRINT_POLICIES))}, parameters) with the"
                       " array of solvers.equilibrium.kernels.blueprint_policy.parameters;"
                       " solvers.opponents.compiled_opponents names bots as experiment configs do")
    codes.append(OPPONENTS[name])
    rows.append(np.zeros(heuristic.PARAMETERS_SIZE) if values is None else
                _checked_parameters(values))
  codes.insert(seat, LEARNER)
  rows.insert(seat, np.zeros(heuristic.PARAMETERS_SIZE))
  blueprint_lengths = {len(row) for code, row in zip(codes, rows) if code not in
                       (*OPPONENTS.values(), LEARNER, EXTERNAL)}
  if len(blueprint_lengths) > 1:
    raise ValueError(f"blueprint opponents with parameter arrays of {sorted(blueprint_lengths)}"
                     " entries; allowed: blueprints of one table size in one batch")
  width = max(len(row) for row in rows)
  padded = np.zeros((players, width))
  for p, row in enumerate(rows):
    padded[p, :len(row)] = row
  return np.array(codes, dtype=np.int64), padded, policies.playing(kernel)


def _checked_parameters(values, blueprint: bool = False) -> np.ndarray:
  """`values`, a heuristic's parameter array, or with `blueprint` a blueprint's (longer)."""
  if blueprint:
    if not isinstance(values, np.ndarray) or values.ndim != 1 or \
        len(values) <= heuristic.PARAMETERS_SIZE or values.dtype != np.float64 or \
        not np.isfinite(values).all():
      raise ValueError(f"blueprint parameters {values!r}; allowed: the finite float64 array of"
                       " solvers.equilibrium.kernels.blueprint_policy.parameters")
    return values
  if not isinstance(values, np.ndarray) or values.shape != (heuristic.PARAMETERS_SIZE,) or \
      values.dtype != np.float64 or not np.isfinite(values).all():
    raise ValueError(f"heuristic parameters {values!r}; allowed: the finite float64 array of"
                     " solvers.policy_kernels.heuristic.parameters(values)")
  return values


def _checked_observation_type(name: str, kinds) -> str:
  if name not in kinds:
    raise ValueError(f"observation_type is {name!r}; allowed: {', '.join(kinds)}")
  return name


def _checked_seed(seed: int) -> int:
  if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**64:
    raise ValueError(f"seed is {seed!r}; allowed: an integer from 0 to 2**64 - 1")
  return int(seed)


def _fresh_seed() -> int:
  return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


# --------------------------------------------------------------------------------------------
# Kernels


@njit
def reset_games(g, positions, start, rng, seat, kind, offsets, written, observations, masks,
                external_slots, external_written, external_observations, external_masks):
  """Starts a new game in every slot and observes its first decision (the learner's and the
  external seats')."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  for i in range(len(positions)):
    _new_game(g, positions[i], start, rng, i, written, observations)
    _observe(g, positions[i], seat, kind, offsets, written, observations, masks, i, legal)
    _observe_external(g, positions[i], kind, offsets, external_slots, external_written,
                      external_observations, external_masks, i, legal, True)


@njit(nogil=True)
def step_games(g, positions, actions, seat_policies, seat_parameters, kernels, rng, start, kind,
               offsets, written, observations, masks, rewards, dones, rule, penalty, illegal,
               external_actions, external_slots, external_written, external_observations,
               external_masks):
  """One learner decision in every game (see the module docstring), the opponents' actions by
  `policies.seat_action` with `kernels` (a `playing` tuple of Sushi Go's policy kernel or the
  blueprint's, which draw random actions alike), the joint action played by its `play`; an
  action outside a game's mask is played by `rule` (RANDOM_LEGAL, LOSE) and marked in
  `illegal`; an EXTERNAL seat plays its column of `external_actions`. A game lost
  to an illegal action and a game ended restart at one call of `_new_game`, and every game is
  observed at one call of each observing kernel. It releases the GIL: batches step on several
  threads at once."""
  n = g[PLAYERS]
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  joint = np.empty(n, dtype=np.int64)
  utilities = np.empty(n)
  seat = learner_seat(seat_policies)
  for i in range(len(positions)):
    pos = positions[i]
    rewards[i], dones[i] = 0.0, False
    action = actions[i]
    illegal[i] = action < 0 or action >= g[NUM_ACTIONS] or masks[i, action] == 0
    if illegal[i] and rule == LOSE:
      rewards[i], dones[i] = penalty, True
    else:
      if illegal[i]:
        action = legal[pick_uniformly(legal_actions(g, pos, seat, legal), rng)]
      for p in range(n):
        if p == seat:
          joint[p] = action
        elif seat_policies[p] == EXTERNAL:
          joint[p] = external_actions[i, external_slots[p]]
        else:
          joint[p] = policies.seat_action(g, pos, p, rng, legal, seat_policies[p],
                                          seat_parameters[p], kernels)
      kernels[policies.PLAY](g, pos, joint)
      skip_chance(g, pos, rng)
      if pos[ACTOR] == ACTOR_TERMINAL:
        returns(g, pos, utilities)
        rewards[i], dones[i] = utilities[seat], True
    if dones[i]:
      _new_game(g, pos, start, rng, i, written, observations)
    _observe(g, pos, seat, kind, offsets, written, observations, masks, i, legal)
    _observe_external(g, pos, kind, offsets, external_slots, external_written,
                      external_observations, external_masks, i, legal, dones[i])


@njit
def learner_seat(seat_policies):
  """The seat whose policy is LEARNER. A kernel: numba types a seat found in the caller's loop
  first as the literal 0 it starts from, and compiled the observation kernels for it too."""
  seat = 0
  for p in range(len(seat_policies)):
    if seat_policies[p] == LEARNER:
      seat = p
  return seat


@njit(inline="always")
def _new_game(g, pos, start, rng, i, written, observations):
  """A new game in slot `i`, dealt up to its first decision; its information state cleared."""
  for at in range(len(pos)):  # element by element: a slice copy compiles its shape check
    pos[at] = start[at]
  skip_chance(g, pos, rng)
  written[i] = 0
  observations[i, :] = 0


@njit
def _observe(g, pos, seat, kind, offsets, written, observations, masks, i, legal):
  """Writes slot `i`'s observation (of `kind`) and legal-action mask for the player at `seat`.
  A called kernel, compiled once: inlined, each caller typed its body (the legal actions
  included) again for the learner and again for the external seats."""
  if kind == observation.OBSERVATION:
    observation.encode_observation(g, pos, seat, offsets, observations[i])
  else:
    written[i] = observation.encode_information_state(g, pos, seat, offsets, observations[i],
                                                      written[i])
  masks[i, :] = 0
  for j in range(legal_actions(g, pos, seat, legal)):
    masks[i, legal[j]] = 1


@njit(inline="always")
def _observe_external(g, pos, kind, offsets, external_slots, external_written,
                      external_observations, external_masks, i, legal, fresh):
  """Writes slot `i`'s observation and mask for every external seat; `fresh`: a new game starts
  there, whose information states are cleared first (as `_new_game` does the learner's)."""
  for p in range(len(external_slots)):
    slot = external_slots[p]
    if slot < 0:
      continue
    if fresh:
      external_written[slot, i] = 0
      external_observations[slot, i, :] = 0
    _observe(g, pos, p, kind, offsets, external_written[slot], external_observations[slot],
             external_masks[slot], i, legal)


# --------------------------------------------------------------------------------------------
# Compiling on first use


def _exercise_kernels() -> None:
  """Resets and steps a small batch of each observation kind once, on the robot variant (which
  exercises every piece of both tensors), the opponent a compiled policy for one kind and
  external for the other."""
  rules = Rules.from_params(players=2, robot=True)
  spec = build_spec(rules)
  start = initial_position(spec)
  for kind in observation.KINDS.values():
    size = observation.tensor_size(rules, kind)
    offsets = observation.piece_offsets(rules, kind)
    positions = np.empty((2, len(start)), dtype=start.dtype)
    written = np.zeros(2, dtype=np.int64)
    observations = np.zeros((2, size), dtype=np.float32)
    masks = np.zeros((2, rules.num_distinct_actions), dtype=np.int8)
    external = int(kind == observation.OBSERVATION)
    slots = np.array([-1, 0 if external else -1], dtype=np.int64)
    external_written = np.zeros((external, 2), dtype=np.int64)
    external_observations = np.zeros((external, 2, size), dtype=np.float32)
    external_masks = np.zeros((external, 2, rules.num_distinct_actions), dtype=np.int8)
    rng = new_state(0)
    reset_games(spec, positions, start, rng, 0, kind, offsets, written, observations, masks,
                slots, external_written, external_observations, external_masks)
    actions = np.array([np.flatnonzero(row)[0] for row in masks], dtype=np.int64)
    external_actions = np.array([[np.flatnonzero(row)[0]] for row in external_masks[0]] if
                                external else np.zeros((2, 0)), dtype=np.int64)
    step_games(spec, positions, actions,
               np.array([LEARNER, EXTERNAL if external else OPPONENTS["heuristic"]]),
               np.zeros((2, heuristic.PARAMETERS_SIZE)), policies.PLAYING,
               rng, start, kind, offsets, written,
               observations, masks, np.zeros(2, dtype=np.float32), np.zeros(2, dtype=bool),
               RAISE, 0.0, np.zeros(2, dtype=bool), external_actions, slots, external_written,
               external_observations, external_masks)
    observation.encode_observation(spec, positions[0], 1, observation.piece_offsets(
        rules, observation.OBSERVATION), np.zeros(observation.tensor_size(
            rules, observation.OBSERVATION), dtype=np.float32))
    observation.encode_information_state(spec, positions[0], 1, observation.piece_offsets(
        rules, observation.INFORMATION_STATE), np.zeros(observation.tensor_size(
            rules, observation.INFORMATION_STATE), dtype=np.float32), 0)


_HERE = pathlib.Path(__file__).resolve()
KERNELS = KernelSet(
    "batched environment",
    [*POLICY_KERNELS.sources, pathlib.Path(observation.__file__).resolve(), _HERE],
    _exercise_kernels, step_games, requires=[POLICY_KERNELS],
    owns=[pathlib.Path(observation.__file__).resolve(), _HERE])
