"""A CFR blueprint as a policy of the compiled searches: Sushi Go's policy kernel with two more
policies that read a blueprint's table, so a search models a blueprint's players on the core.

  blueprint         an action drawn from the blueprint's normalised weights (uniform where it has
                    none), as `PolicyBot` with play=sample
  blueprint_argmax  its likeliest action, ties drawn uniformly, as `PolicyBot` with play=argmax

`round_values` plays a position to the round's end many times, each seat by its own policy and
parameters, and averages each seat's points: the value function of AIVAT and the luck of the deal.
It calls the core's `play` and `policy_action` through function pointers (`PLAYING`): called
directly, their code (the heuristic's, the features' and Sushi Go's policies' among it) was linked
and compiled again.
The parameter array (`parameters`): the heuristic's parameters first, then the valuation's length,
the valuation (empty for `cards`) and the table of average weights (a power of two long).
The rest: docs/blueprint.md.
"""

from __future__ import annotations

import pathlib

import numpy as np

from solvers.equilibrium.kernels.compiling import KERNELS as CFR_KERNELS
from solvers.equilibrium.kernels.features import MAX_FEATURES, cards_keys, ranked_keys
from solvers.equilibrium.kernels.mccfr import sample, table_strategy
from solvers.policy_kernels import sushi_go as policies
from solvers.policy_kernels.heuristic import PARAMETERS_SIZE, heuristic_values
from sushigo_spiel.compiled.interface import POLICY_ACTION
from sushigo_spiel.compiled.jit import KernelSet, njit
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_SIMULTANEOUS, NUM_ACTIONS, PLAYERS,
                                                    build_spec)
from sushigo_spiel.compiled.sushi_go.moves import legal_actions
from sushigo_spiel.compiled.sushi_go.scoring import scores
from sushigo_spiel.sushi_go.rules import Rules

BLUEPRINT, BLUEPRINT_ARGMAX = len(policies.POLICIES), len(policies.POLICIES) + 1
POLICIES = {**policies.POLICIES,
            **dict(zip(policies.BLUEPRINT_POLICIES, (BLUEPRINT, BLUEPRINT_ARGMAX)))}
# The names of the policies that read the parameter array: Sushi Go's own, and the blueprint's.
PARAMETERISED = tuple(name for name, code in POLICIES.items()
                      if code in policies.PARAMETERISED or code >= BLUEPRINT)
VALUATION_AT = PARAMETERS_SIZE  # where the valuation's length is, the valuation following


def parameters(heuristic_params: np.ndarray, valuation: np.ndarray,
               table: np.ndarray) -> np.ndarray:
  """The parameter array of the blueprint with table `table` and valuation `valuation` (its
  abstraction's, `mccfr.Settings.valuation`), after the heuristic's parameters
  `heuristic_params` (`heuristic.parameters`, read by the other policies)."""
  if len(heuristic_params) != PARAMETERS_SIZE:
    raise ValueError(f"heuristic parameters of length {len(heuristic_params)}; allowed: an array"
                     f" of heuristic.parameters ({PARAMETERS_SIZE} values)")
  if len(table) == 0 or len(table) & (len(table) - 1):
    raise ValueError(f"a blueprint table of {len(table)} slots; allowed: a power of two")
  return np.concatenate([heuristic_params, [float(len(valuation))], valuation, table])


@njit
def blueprint_probabilities(g, pos, player, params, legal, probabilities):
  """Writes `player`'s legal actions to `legal` and the blueprint's probabilities of them to
  `probabilities` (both `NUM_ACTIONS` long); returns how many."""
  start = VALUATION_AT + 1
  end = start + int(params[VALUATION_AT])
  keys, scratch = np.empty(g[NUM_ACTIONS], dtype=np.int64), np.zeros(MAX_FEATURES, dtype=np.int64)
  if end == start:
    count = legal_actions(g, pos, player, legal)
    cards_keys(g, pos, player, legal, count, keys, scratch)
  else:
    count = heuristic_values(g, pos, player, params[start:end], legal, probabilities)
    ranked_keys(g, pos, player, legal, probabilities[:count], keys, scratch)
  table_strategy(params[end:], keys, count, probabilities)
  return count


@njit
def policy_action(g, pos, player, rng, legal, policy, params):
  """The action of `policy` (a code of `POLICIES`) for `player` with the parameter array `params`
  (`legal` is a scratch buffer): a blueprint policy's, or else Sushi Go's policy kernel's."""
  if policy < BLUEPRINT:
    return policies.policy_action(g, pos, player, rng, legal, policy, params)
  probabilities = np.empty(g[NUM_ACTIONS])
  count = blueprint_probabilities(g, pos, player, params, legal, probabilities)
  if policy == BLUEPRINT:
    return legal[sample(probabilities, count, rng)]
  best, ties = probabilities[:count].max(), 0
  for i in range(count):
    ties += probabilities[i] == best
  pick = pick_uniformly(ties, rng) if ties > 1 else 0
  for i in range(count):
    if probabilities[i] == best:
      if pick == 0:
        return legal[i]
      pick -= 1
  return legal[count - 1]  # not reached: some action has the largest probability


@njit
def round_values(g, pos, rng, codes, params, starts, continuations, out, kernels):
  """Writes to `out` each seat's points at the end of the round under way at `pos` (a decision
  node; else its points now), averaged over `continuations` plays from it: seat p by policy
  `codes[p]` (of `POLICIES`) reading the parameters `params[starts[p]:starts[p + 1]]` (`kernels`:
  `PLAYING`)."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  actions = np.empty(g[PLAYERS], dtype=np.int64)
  out[:] = 0.0
  for _ in range(continuations):
    child = pos.copy()
    while child[ACTOR] == ACTOR_SIMULTANEOUS:
      for p in range(g[PLAYERS]):
        actions[p] = kernels[policies.POLICY](g, child, p, rng, legal, codes[p],
                                              params[starts[p]:starts[p + 1]])
      kernels[policies.PLAY](g, child, actions)
    out += scores(g, child)
  out /= continuations


def _exercise() -> None:
  """Compiles the policy kernel for the searches' signature, and calls it with every code."""
  policy_action.compile(POLICY_ACTION)
  spec = build_spec(Rules.from_params(players=2, hand_size=3, rounds=1))
  rng = new_state(0)
  pos = initial_position(spec)
  skip_chance(spec, pos, rng)
  legal = np.empty(spec[NUM_ACTIONS], dtype=np.int64)
  heuristic_params = np.ones(PARAMETERS_SIZE)
  for valuation in (np.zeros(0), heuristic_params):
    params = parameters(heuristic_params, valuation, np.zeros(16))
    for code in POLICIES.values():
      policy_action(spec, pos, 0, rng, legal, code, params)
    blueprint_probabilities(spec, pos, 0, params, legal, np.empty(spec[NUM_ACTIONS]))
  codes = np.array([POLICIES["heuristic"], BLUEPRINT], dtype=np.int64)
  round_values(spec, pos, rng, codes, np.concatenate([params, params]),
               np.array([0, len(params), 2 * len(params)], dtype=np.int64), 2, np.empty(2),
               PLAYING)


# The function pointers `round_values` takes: the core's, and `policy_action`.
PLAYING = policies.playing(policy_action)


KERNELS = KernelSet(
    "blueprint policy kernel", [*CFR_KERNELS.sources, pathlib.Path(__file__).resolve()],
    _exercise, policy_action, requires=[CFR_KERNELS])


def ensure_compiled() -> None:
  """Readies the blueprint policy kernel's set once per process; it compiles on its first call."""
  KERNELS.ensure()
