"""A batched Sushi Draft environment on the compiled core: N games stepped together in one kernel
call, as `solvers.envs.batched.SushiGoBatch` steps Sushi Go's (the same arguments, returns,
auto-reset, illegal-action rules and seeding; see that module's docstring).

  batch = SushiDraftBatch(num_envs=1024, opponents="random", seed=0, players=3)
  obs, masks = batch.reset()
  obs, rewards, dones, masks = batch.step(actions)       # actions: int, one per game

A decision is one simultaneous node of the game: an Eat step or a Keep step, so a turn takes two
steps. Opponents are Sushi Draft's compiled policies (`solvers.policy_kernels.sushi_draft`): the
game has one, `random` (a uniform legal action; there is no Sushi Draft heuristic). Observations
are the pyspiel observer's tensors, written by `compiled.sushi_draft.observation`.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import numpy as np

from solvers.envs.batched import LEARNER, LOSE, RAISE, DraftingBatch, learner_seat
from solvers.policy_kernels.compiling import SUSHI_DRAFT_KERNELS as POLICY_KERNELS
from solvers.policy_kernels.sushi_draft import POLICIES, policy_action
from sushigo_spiel.compiled.jit import KernelSet, njit
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_draft import observation
from sushigo_spiel.compiled.sushi_draft.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_draft.layout import (ACTIONS, ACTOR, ACTOR_TERMINAL, PLAYERS,
                                                       build_spec)
from sushigo_spiel.compiled.sushi_draft.moves import legal_actions, play
from sushigo_spiel.compiled.sushi_draft.scoring import returns
from sushigo_spiel.sushi_draft.rules import Rules

OPPONENTS = POLICIES


class SushiDraftBatch(DraftingBatch):
  """`num_envs` games of `python_sushi_draft(**params)`, one learner against compiled opponents
  (see the module docstring)."""

  game = "python_sushi_draft"
  observation = observation
  build_spec = staticmethod(build_spec)
  initial_position = staticmethod(initial_position)

  @property
  def kernel_set(self) -> KernelSet:
    return KERNELS  # declared below the kernels

  def __init__(self, num_envs: int = 1024, opponents: str | Sequence[str] = "random",
               seat: int = 0, observation_type: str = "observation", seed: int | None = None,
               illegal_action: str = "raise", illegal_reward: float | None = None, **params):
    super().__init__(num_envs, opponents, seat, observation_type, seed, illegal_action,
                     illegal_reward, params)

  def _seat_policies(self, opponents) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's policy code, LEARNER at the learner's seat, and a parameter row per seat (the
    policy kernel's argument; Sushi Draft's policies read none)."""
    players = self.num_players
    given = [opponents] if isinstance(opponents, str) else list(opponents)
    if len(given) == 1:
      given = given * (players - 1)
    if len(given) != players - 1:
      raise ValueError(f"opponents names {len(given)} polic(ies); allowed: one, or one per"
                       f" opponent seat ({players - 1})")
    codes = []
    for name in given:
      if not isinstance(name, str) or name not in OPPONENTS:
        raise ValueError(f"opponent {name!r}; allowed for Sushi Draft: {', '.join(OPPONENTS)}")
      codes.append(OPPONENTS[name])
    codes.insert(self.seat, LEARNER)
    return np.array(codes, dtype=np.int64), np.zeros((players, 1))

  def _reset_games(self):
    reset_games(self.spec, self._positions, self._start, self._rng, self.seat, self._kind,
                self._offsets, self._observations, self._masks)

  def _step_games(self, actions):
    step_games(self.spec, self._positions, actions, self.seat_policies, self.seat_parameters,
               self._rng, self._start, self._kind, self._offsets, self._observations,
               self._masks, self._rewards, self._dones, self._rule, self.illegal_reward,
               self._illegal)


# --------------------------------------------------------------------------------------------
# Kernels


@njit
def reset_games(g, positions, start, rng, seat, kind, offsets, observations, masks):
  """Starts a new game in every slot and observes its first decision."""
  legal = np.empty(ACTIONS, dtype=np.int64)
  for i in range(len(positions)):
    _new_game(g, positions[i], start, rng)
    _observe(g, positions[i], seat, kind, offsets, observations, masks, i, legal)


@njit
def step_games(g, positions, actions, seat_policies, seat_parameters, rng, start, kind, offsets,
               observations, masks, rewards, dones, rule, penalty, illegal):
  """One learner decision in every game, as `batched.step_games` for Sushi Go. A game lost to an
  illegal action and a game ended restart at one call of `_new_game`, and every game is observed
  at one call of `_observe`: each inlined once."""
  n = g[PLAYERS]
  legal = np.empty(ACTIONS, dtype=np.int64)
  joint = np.empty(n, dtype=np.int64)
  utilities = np.empty(n)
  seat = learner_seat(seat_policies)
  for i in range(len(positions)):
    pos = positions[i]
    rewards[i], dones[i] = 0.0, False
    action = actions[i]
    illegal[i] = action < 0 or action >= ACTIONS or masks[i, action] == 0
    if illegal[i] and rule == LOSE:
      rewards[i], dones[i] = penalty, True
    else:
      if illegal[i]:
        action = legal[pick_uniformly(legal_actions(g, pos, seat, legal), rng)]
      for p in range(n):
        joint[p] = action if p == seat else \
            policy_action(g, pos, p, rng, legal, seat_policies[p], seat_parameters[p])
      play(g, pos, joint)
      skip_chance(g, pos, rng)
      if pos[ACTOR] == ACTOR_TERMINAL:
        returns(g, pos, utilities)
        rewards[i], dones[i] = utilities[seat], True
    if dones[i]:
      _new_game(g, pos, start, rng)
    _observe(g, pos, seat, kind, offsets, observations, masks, i, legal)


@njit(inline="always")
def _new_game(g, pos, start, rng):
  """A new game in `pos`, its chip piles ordered and its first hands dealt."""
  for at in range(len(pos)):  # element by element: a slice copy compiles its shape check
    pos[at] = start[at]
  skip_chance(g, pos, rng)


@njit(inline="always")
def _observe(g, pos, seat, kind, offsets, observations, masks, i, legal):
  """Writes slot `i`'s observation (of `kind`) and legal-action mask for the learner."""
  if kind == observation.OBSERVATION:
    observation.encode_observation(g, pos, seat, offsets, observations[i])
  else:
    observation.encode_information_state(g, pos, seat, offsets, observations[i])
  masks[i, :] = 0
  for j in range(legal_actions(g, pos, seat, legal)):
    masks[i, legal[j]] = 1


# --------------------------------------------------------------------------------------------
# Compiling on first use


def _exercise_kernels() -> None:
  """Resets and steps a small batch of each observation kind once."""
  rules = Rules.from_params(players=2)
  spec = build_spec(rules)
  start = initial_position(spec)
  for kind in observation.KINDS.values():
    offsets = observation.piece_offsets(rules, kind)
    positions = np.empty((2, len(start)), dtype=start.dtype)
    observations = np.zeros((2, observation.tensor_size(rules, kind)), dtype=np.float32)
    masks = np.zeros((2, ACTIONS), dtype=np.int8)
    rng = new_state(0)
    reset_games(spec, positions, start, rng, 0, kind, offsets, observations, masks)
    actions = np.array([np.flatnonzero(row)[0] for row in masks], dtype=np.int64)
    step_games(spec, positions, actions, np.array([LEARNER, OPPONENTS["random"]]),
               np.zeros((2, 1)), rng, start, kind, offsets, observations, masks,
               np.zeros(2, dtype=np.float32), np.zeros(2, dtype=bool), RAISE, 0.0,
               np.zeros(2, dtype=bool))


_OBSERVATION = pathlib.Path(observation.__file__).resolve()
_HERE = pathlib.Path(__file__).resolve()
_SHARED = _HERE.parent / "batched.py"  # LEARNER, the illegal-action codes and learner_seat
KERNELS = KernelSet(
    "Sushi Draft batched environment", [*POLICY_KERNELS.sources, _OBSERVATION, _SHARED, _HERE],
    _exercise_kernels, step_games, requires=[POLICY_KERNELS], owns=[_OBSERVATION, _HERE])
