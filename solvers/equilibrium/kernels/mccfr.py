"""Monte Carlo CFR walks on Sushi Go's compiled core, with action-centred keys (`features`).

Regrets, average weights and offer weights live in three flat float64 tables (`Tables`) of a
power-of-two size, indexed by an action's key modulo that size (the hashing trick; `occupied`
counts the slots in use). A decision's strategy is regret matching over its legal actions, each
reading its own slot, uniform with no positive regret. Wherever an action's probability is added
to its key's average weight, the same factor goes to its offer weight: average over offer weight
is the key's mean probability when offered, which a blueprint playing `mean` normalises.

Walks (`WALKS`), once per player and iteration: ES (every traverser action, recursively; reduced
games only), PROBE (one traverser action followed, the others valued by a playout; the full game)
and OS (one trajectory, `EPSILON` exploration; `outcome_walk`). With `linear`, iteration t adds t
times its regrets and weights (Linear CFR). All is determined by the stream state passed in. The
game, the heuristic and the regret matching (`STRATEGY`) are called through function pointers
(`iterate`, `policy_weights` build them); why each walk, and offer weights: docs/blueprint.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from solvers.equilibrium.kernels.features import (MAX_FEATURES, VALUATION, action_keys,
                                                   valuation_of)
from solvers.equilibrium.kernels.named_tuples import cached_type
from solvers.policy_kernels.sushi_go import game_functions
from sushigo_spiel.compiled.interface import (ACTIONS, INITIAL_POSITION, LEGAL_ACTIONS, PLAY,
                                              POSITION, RETURNS, SKIP_CHANCE, SPEC, VALUES,
                                              pointer)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import next_double, seed_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go.layout import ACTOR, ACTOR_TERMINAL, NUM_ACTIONS, PLAYERS

ES, PROBE, OUTCOME = 0, 1, 2
WALKS = {"es": ES, "probe": PROBE, "os": OUTCOME}
EPSILON = 0.6  # the traverser's share of uniform exploration in OS (OpenSpiel's default)


@cached_type
class Tables(NamedTuple):
  """The hashed tables, each of the same power-of-two size: regrets, average weights and offer
  weights (float64, updated in place)."""
  regrets: np.ndarray
  averages: np.ndarray
  offered: np.ndarray


class Settings(NamedTuple):
  """A run's settings: the `walk` (ES, PROBE or OUTCOME); `linear` weighting (iteration t counts
  t times) or uniform; the `valuation` of the keys: empty for the `cards` abstraction, the
  heuristic's parameters for `cards+rank`."""
  walk: int
  linear: bool
  valuation: np.ndarray


@njit
def strategy(g, pos, player, regrets, legal, count, slots, probabilities, valuation, scratch):
  """Regret matching for `player` over its `count` legal actions in `legal`: fills `slots` with
  each action's table slot and `probabilities` with its probability."""
  action_keys(g, pos, player, legal, count, valuation, slots, scratch)
  mask, total = len(regrets) - 1, 0.0
  for i in range(count):
    slot = slots[i] & mask
    slots[i] = slot
    regret = regrets[slot]
    probabilities[i] = regret if regret > 0.0 else 0.0
    total += probabilities[i]
  for i in range(count):
    probabilities[i] = probabilities[i] / total if total > 0.0 else 1.0 / count


@njit(inline="always")
def sample(probabilities, count, rng):
  """An index drawn with `probabilities[:count]` (one uniform)."""
  u = next_double(rng)
  for i in range(count - 1):
    u -= probabilities[i]
    if u < 0.0:
      return i
  return count - 1


@njit(inline="always")
def table_strategy(table, keys, count, probabilities):
  """Writes to `probabilities` the strategy of an average-weight table `table` at the actions of
  keys `keys[:count]`: their weights normalised, uniform where they have none."""
  mask, total = len(table) - 1, 0.0
  for i in range(count):
    probabilities[i] = table[keys[i] & mask]
    total += probabilities[i]
  for i in range(count):
    probabilities[i] = probabilities[i] / total if total > 0.0 else 1.0 / count


@njit
def _others(game, g, pos, traverser, tables, weight, rng, joint, valuation, scratch, matching):
  """Samples every player's action but the traverser's into `joint` from its current strategy,
  adding that strategy times `weight` to its average weights and `weight` to its offer weights
  (not when `weight` is 0)."""
  size = g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities = np.empty(size)
  regrets, averages, offered = tables
  for p in range(g[PLAYERS]):
    if p == traverser:
      continue
    count = game[LEGAL_ACTIONS](g, pos, p, legal)
    matching(g, pos, p, regrets, legal, count, slots, probabilities, valuation, scratch)
    if weight > 0.0:
      for i in range(count):
        averages[slots[i]] += weight * probabilities[i]
        offered[slots[i]] += weight
    joint[p] = legal[sample(probabilities, count, rng)]


@njit
def probe(game, g, pos, player, regrets, rng, valuation, scratch, matching):
  """Plays `pos` to the end in place, every player on its current strategy (`regrets`) and chance
  sampled; returns `player`'s utility."""
  n, size = g[PLAYERS], g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities, joint, out = np.empty(size), np.empty(n, dtype=np.int64), np.empty(n)
  while True:
    game[SKIP_CHANCE](g, pos, rng)
    if pos[ACTOR] == ACTOR_TERMINAL:
      break
    for p in range(n):
      count = game[LEGAL_ACTIONS](g, pos, p, legal)
      matching(g, pos, p, regrets, legal, count, slots, probabilities, valuation, scratch)
      joint[p] = legal[sample(probabilities, count, rng)]
    game[PLAY](g, pos, joint)
  game[RETURNS](g, pos, out)
  return out[player]


@njit
def walk(game, g, pos, traverser, tables, weight, rng, kind, valuation, scratch, matching):
  """One walk of `kind` (ES or PROBE) from `pos` for `traverser`, updating the tables; returns
  the traverser's value of `pos` under the current strategies (sampled)."""
  game[SKIP_CHANCE](g, pos, rng)
  n, size = g[PLAYERS], g[NUM_ACTIONS]
  if pos[ACTOR] == ACTOR_TERMINAL:
    out = np.empty(n)
    game[RETURNS](g, pos, out)
    return out[traverser]
  joint = np.zeros(n, dtype=np.int64)
  _others(game, g, pos, traverser, tables, weight, rng, joint, valuation, scratch, matching)
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities, values = np.empty(size), np.empty(size)
  regrets = tables.regrets
  count = game[LEGAL_ACTIONS](g, pos, traverser, legal)
  matching(g, pos, traverser, regrets, legal, count, slots, probabilities, valuation, scratch)
  followed = pick_uniformly(count, rng) if kind == PROBE else -1
  value = 0.0
  for i in range(count):
    child = pos.copy()
    joint[traverser] = legal[i]
    game[PLAY](g, child, joint)
    if kind == ES or i == followed:
      values[i] = walk(game, g, child, traverser, tables, weight, rng, kind, valuation, scratch,
                       matching)
    else:
      values[i] = probe(game, g, child, traverser, regrets, rng, valuation, scratch, matching)
    value += probabilities[i] * values[i]
  for i in range(count):
    regrets[slots[i]] += weight * (values[i] - value)
  return value


# OS (Lanctot et al. 2009): chance and the others sampled on policy, the traverser from its
# strategy mixed with `EPSILON` of uniform (probability q(a)). At each of its decisions on the way
# back up, with v the returned utility below the action a taken, the sampled counterfactual value
# of a is v / q(a), of every other action 0, and of the strategy sigma(a) v / q(a); the regrets add
# their differences divided by Q, the probability of the traverser's own earlier samples (chance's
# and the others' cancel, being sampled on policy). Stochastically weighted averaging: the average
# weights add pi sigma / Q at the traverser's decisions (pi its reach under its strategy), an
# unbiased estimate of the reach-weighted strategy.
@njit
def outcome_walk(game, g, pos, traverser, tables, weight, rng, reach, sampled, valuation, scratch,
                 matching):
  """One OS walk from `pos` (played on in place) for `traverser`, whose strategy reaches `pos`
  with probability `reach` and whose samples did with probability `sampled`, updating the
  tables; returns the traverser's sampled utility weighted by its strategy over its sampling
  probabilities below `pos`."""
  game[SKIP_CHANCE](g, pos, rng)
  n, size = g[PLAYERS], g[NUM_ACTIONS]
  if pos[ACTOR] == ACTOR_TERMINAL:
    out = np.empty(n)
    game[RETURNS](g, pos, out)
    return out[traverser]
  joint = np.zeros(n, dtype=np.int64)
  _others(game, g, pos, traverser, tables, 0.0, rng, joint, valuation, scratch, matching)
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities, sampling = np.empty(size), np.empty(size)
  regrets, averages, offered = tables
  count = game[LEGAL_ACTIONS](g, pos, traverser, legal)
  matching(g, pos, traverser, regrets, legal, count, slots, probabilities, valuation, scratch)
  for i in range(count):
    sampling[i] = EPSILON / count + (1.0 - EPSILON) * probabilities[i]
  taken = sample(sampling, count, rng)
  joint[traverser] = legal[taken]
  game[PLAY](g, pos, joint)
  below = outcome_walk(game, g, pos, traverser, tables, weight, rng, reach * probabilities[taken],
                       sampled * sampling[taken], valuation, scratch, matching)
  taken_value = below / sampling[taken]
  value = probabilities[taken] * taken_value
  for i in range(count):
    regrets[slots[i]] += weight * ((taken_value if i == taken else 0.0) - value) / sampled
    averages[slots[i]] += weight * reach * probabilities[i] / sampled
    offered[slots[i]] += weight * reach / sampled
  return value


def iterate(g, tables, settings, first, count, seed):
  """Runs iterations `first + 1` .. `first + count` (a walk of `settings.walk` per player each) on
  `tables` (a `Tables`) with `settings` (a `Settings`), from one stream seeded with `seed`."""
  _iterate(game_functions(), g, Tables(*tables), int(settings.walk), bool(settings.linear), first,
           count, seed, valuation_of(settings.valuation), STRATEGY)


def policy_weights(g, pos, player, averages, legal, params):
  """The weights of `player`'s `legal` actions (all of them, increasing) at `pos` in the table
  `averages` (unnormalised), read with the keys of the valuation `params` (`Settings.valuation`)."""
  return _policy_weights(g, pos, player, averages, legal, valuation_of(params))


@njit
def _iterate(game, g, tables, kind, linear, first, count, seed, valuation, matching):
  rng = np.zeros(4, dtype=np.uint64)
  seed_state(rng, np.uint64(seed))
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)
  for t in range(first + 1, first + count + 1):
    weight = float(t) if linear else 1.0
    for traverser in range(g[PLAYERS]):
      pos = game[INITIAL_POSITION](g)
      if kind == OUTCOME:
        outcome_walk(game, g, pos, traverser, tables, weight, rng, 1.0, 1.0, valuation, scratch,
                     matching)
      else:
        walk(game, g, pos, traverser, tables, weight, rng, kind, valuation, scratch, matching)


@njit
def _policy_weights(g, pos, player, averages, legal, valuation):
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)
  mask = len(averages) - 1
  keys = np.empty(len(legal), dtype=np.int64)
  action_keys(g, pos, player, legal, len(legal), valuation, keys, scratch)
  out = np.empty(len(legal))
  for i in range(len(legal)):
    out[i] = averages[keys[i] & mask]
  return out


# `strategy` as the function pointer the walks take (`matching`): linked into them, its code (the
# features' keys and the heuristic's valuation) was optimised again at every level of the walks.
STRATEGY_SIGNATURE = types.void(SPEC, POSITION, types.int64, VALUES, ACTIONS, types.int64, ACTIONS,
                                VALUES, VALUATION, ACTIONS)
STRATEGY = pointer(strategy, STRATEGY_SIGNATURE)
