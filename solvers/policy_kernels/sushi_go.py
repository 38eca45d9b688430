"""Sushi Go's rollout policies and whole playouts by policy, as kernels.

A rollout policy is a code of `POLICIES` and a float parameter array (`heuristic.parameters`;
random and greedy ignore it, `NO_PARAMETERS` will do). Uniforms drawn per decision: RANDOM one
(`legal[int(u * len(legal))]`, as `solvers.search.rollouts`' random policy, so a playout from the
same stream ends where the Python engine's does); GREEDY none (`baselines.GreedyBot`: the most
points if the round ended now, ties to the lowest action id); HEURISTIC none at temperature 0,
else one from its policy (`rollouts.BaselinePolicy`); HEURISTIC_EPS one, then below the epsilon
(`params[heuristic.EPSILON]`) RANDOM, else HEURISTIC. Players decide in player order from the one
stream. References, held equal at every decision: `baselines.GreedyBot`
(`tests/test_compiled_core.py`) and the heuristic kernels (`tests/test_compiled_heuristic.py`).
`play_round`, `round_values` and `playout` draw random actions and call `play`, `skip_chance` and
`policy_action` through function pointers (`PLAYING`): called directly, each linked their code.
"""

from __future__ import annotations

import numpy as np
from numba import types

from solvers.policy_kernels import heuristic
from solvers.policy_kernels.heuristic import immediate_points
from sushigo_spiel.compiled.interface import (POLICY_ACTION, SIGNATURES, TypedTuple, functions,
                                              pointer)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import next_double, seed_state
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                    ACTOR_TERMINAL, NUM_ACTIONS, PLAYERS)
from sushigo_spiel.compiled.sushi_go.moves import action_picks, legal_actions, play
from sushigo_spiel.compiled.sushi_go.policies import random_action
from sushigo_spiel.compiled.sushi_go.scoring import returns, scores

RANDOM, GREEDY, HEURISTIC, HEURISTIC_EPS = range(4)
POLICIES = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC,
            "heuristic_eps": HEURISTIC_EPS}
# The blueprint policy kernel's policies (`solvers.equilibrium.kernels.blueprint_policy`), coded
# after these; named here so that their callers know them without importing the CFR kernels.
BLUEPRINT_POLICIES = ("blueprint", "blueprint_argmax")
PARAMETERISED = (HEURISTIC, HEURISTIC_EPS)  # the policies that read the parameter array
NO_PARAMETERS = np.zeros(0)


@njit
def greedy_action(g, pos, player, legal):
  """The greedy baseline's action (`legal` is a scratch buffer)."""
  count = legal_actions(g, pos, player, legal)
  picks = np.empty(2, dtype=np.int64)
  best_action, best_points = -1, -1
  for i in range(count):
    action_picks(g, legal[i], picks, 0)
    points = immediate_points(g, pos, player, picks)
    if points > best_points:
      best_action, best_points = legal[i], points
  return best_action


@njit(inline="always")
def policy_action(g, pos, player, rng, legal, policy, params):
  """The action rollout policy `policy` with parameters `params` takes for `player` (`legal` is
  a scratch buffer): the compiled searches' policy kernel (`solvers.search.kernels.game`) for
  their rollouts, priors and opponent models."""
  if policy == GREEDY:
    return greedy_action(g, pos, player, legal)
  # One call of the inlined `random_action` for both policies that use it: one copy to compile.
  if policy == RANDOM or (policy == HEURISTIC_EPS
                          and next_double(rng) < params[heuristic.EPSILON]):
    return random_action(g, pos, player, rng, legal)
  return heuristic.rollout_action(g, pos, player, params, rng, legal)


# A `PLAYING` tuple's entries: the core's `play` and `skip_chance`, and a policy kernel.
PLAY, SKIP_CHANCE, POLICY = range(3)
PLAYING_TYPE = types.Tuple([types.FunctionType(signature) for signature in
                            (SIGNATURES.play, SIGNATURES.skip_chance, POLICY_ACTION)])


def playing(policy_kernel) -> TypedTuple:
  """The function pointers a kernel playing many decisions takes: the core's `play` and
  `skip_chance`, and `policy_kernel` (this module's `policy_action`, or one standing in for it
  with more policies); each compiles on first use."""
  return TypedTuple((pointer(play, SIGNATURES.play), pointer(skip_chance, SIGNATURES.skip_chance),
                     pointer(policy_kernel, POLICY_ACTION)), PLAYING_TYPE)


@njit(inline="always")
def seat_action(g, pos, player, rng, legal, policy, params, kernels):
  """`policy_action`'s action, a random one drawn here (a pointer call would cost a batch against
  random opponents about 6%) and any other by `kernels[POLICY]` (a `playing` tuple)."""
  if policy == RANDOM:
    return random_action(g, pos, player, rng, legal)
  return kernels[POLICY](g, pos, player, rng, legal, policy, params)


@njit
def play_round(g, pos, rng, codes, params, kernels):
  """Plays `pos` in place until the round's decisions are over (the next node is chance or the
  end), seat p by rollout policy `codes[p]` with parameters `params` (`kernels`: `PLAYING`)."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  actions = np.empty(g[PLAYERS], dtype=np.int64)
  while pos[ACTOR] == ACTOR_SIMULTANEOUS:
    for p in range(g[PLAYERS]):
      actions[p] = seat_action(g, pos, p, rng, legal, codes[p], params, kernels)
    kernels[PLAY](g, pos, actions)


@njit
def round_values(g, pos, rng, codes, params, plays, redeal, out, kernels):
  """Writes to `out` each seat's points at the end of the round under way, averaged over `plays`
  plays from `pos`, seat p by rollout policy `codes[p]` with parameters `params` (`kernels`:
  `PLAYING`); with `redeal`, `pos` is a chance node and each play first deals from it at random
  (`skip_chance`). The plays' points are added in order, then divided once, as
  `solvers.round_values` did in Python: one call where it made one kernel call per play."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  actions = np.empty(g[PLAYERS], dtype=np.int64)
  out[:] = 0.0
  for _ in range(plays):
    child = pos.copy()
    if redeal:
      kernels[SKIP_CHANCE](g, child, rng)
    while child[ACTOR] == ACTOR_SIMULTANEOUS:
      for p in range(g[PLAYERS]):
        actions[p] = seat_action(g, child, p, rng, legal, codes[p], params, kernels)
      kernels[PLAY](g, child, actions)
    points = scores(g, child)
    for p in range(len(out)):
      out[p] += points[p]
  for p in range(len(out)):
    out[p] /= plays


@njit
def playout(g, pos, rng, policy, params, out, kernels):
  """Plays `pos` to the end (chance by its probabilities, every player by rollout policy `policy`
  with parameters `params`; `kernels`: `PLAYING`), writing the returns to `out`."""
  codes = np.full(g[PLAYERS], policy, dtype=np.int64)
  while pos[ACTOR] != ACTOR_TERMINAL:
    if pos[ACTOR] == ACTOR_CHANCE:
      kernels[SKIP_CHANCE](g, pos, rng)
    else:
      play_round(g, pos, rng, codes, params, kernels)
  returns(g, pos, out)


@njit
def playout_many(g, games, seed, policy, params, out, kernels):
  """Plays `games` whole games from the initial position, one stream seeded with `seed` drawn on
  from game to game; writes game i's returns to `out[i]`."""
  rng = np.empty(4, dtype=np.uint64)
  seed_state(rng, seed)
  for game in range(games):
    playout(g, initial_position(g), rng, policy, params, out[game], kernels)


# The function pointers the kernels above take, with this module's `policy_action`.
PLAYING = playing(policy_action)


def game_functions(params: np.ndarray = NO_PARAMETERS) -> TypedTuple:
  """Sushi Go's `GAME` tuple (`compiled.interface`): its kernels and this module's policy kernel,
  with the policies' parameters `params`."""
  return functions(CompiledSushiGo.kernels, policy_action, params)
