"""Outcome-sampling MCCFR's average strategy against its exact expectation.

One outcome-sampling walk for a traverser adds, at each of the traverser's decisions h on the
sampled trajectory, pi(h) sigma(h, a) / q(h) to the average weight of each action a, where
sigma is the current strategy (regret matching), pi(h) the traverser's reach under sigma and q(h)
the probability of the traverser's own samples on the way to h (sigma mixed with uniform
exploration). Chance and the other players are sampled on policy, so the walk reaches h with
probability (chance and others' reach) x q(h), and the expected addition is

    E[added to a's average weight at h] = pi_sigma(h) sigma(h, a)

the reach of h under sigma for everybody, times sigma: the reach-weighted strategy that the
average strategy is made of (the offer weights of the compiled kernel: pi_sigma(h)). A walk that
drops the importance weight 1 / q(h) adds in expectation (chance and others' reach) x q(h) x
sigma(h, a) instead, which differs wherever the traverser's strategy is not its sampling
distribution: from a player's second decision on (at its first, q and pi are both 1, which is
why a one-decision game cannot tell the two apart).

The test enumerates `tiny`'s tree for the exact expectation, under a fixed, far from uniform
strategy (random regrets), and compares it with the mean additions of many walks from those
regrets, for the compiled kernel (`kernels/mccfr.py`, walk "os") and the Python solver
(`mccfr.OutcomeSamplingMCCFR`), within a few standard errors of the mean.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest

from solvers.equilibrium import abstraction as A
from solvers.equilibrium import mccfr
from solvers.equilibrium.blueprint import valuation
from solvers.equilibrium.kernels import mccfr as kernels
from solvers.equilibrium.kernels.compiling import ensure_compiled
from solvers.equilibrium.kernels.features import MAX_FEATURES, action_keys, valuation_of
from solvers.policy_kernels.sushi_go import game_functions
from sushigo_spiel.compiled.rng import seed_state
from sushigo_spiel.compiled.sushi_go import codec
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.reduced_games import load_reduced

WALKS = 8000  # walks of the compiled kernel
PYTHON_WALKS = 3000  # walks of the Python solver
STANDARD_ERRORS = 5.0  # allowed distance of a mean from its expectation
TABLE_BITS = 12


def expected_additions(game, strategy, traverser: int):
  """`strategy(table, player) -> (actions, cells, probabilities)` followed by everyone: by cell,
  the exact expected addition of one walk to its average weight (pi_sigma(h) sigma(h, a)) and to
  its offer weight (pi_sigma(h)), summed over the traverser's decisions h."""
  rules, dynamics, n = game.rules, game.dynamics, game.num_players()
  averages, offers = defaultdict(float), defaultdict(float)

  def visit(table, reach: float):
    if table.actor == TERMINAL:
      return
    if table.actor == CHANCE:
      for outcome, p in dynamics.chance_outcomes(rules, table):
        visit(dynamics.apply_chance(rules, table, outcome), reach * p)
      return
    strategies = [strategy(table, p) for p in range(n)]
    _, cells, probabilities = strategies[traverser]
    for cell, p in zip(cells, probabilities):
      averages[cell] += reach * p
      offers[cell] += reach
    for joint in itertools.product(*[range(len(s[0])) for s in strategies]):
      p = math.prod(strategies[player][2][i] for player, i in enumerate(joint))
      if p > 0:
        visit(dynamics.play(rules, table, [strategies[player][0][i]
                                           for player, i in enumerate(joint)]), reach * p)

  visit(dynamics.initial_table(rules), 1.0)
  return averages, offers


def _regret_matching(regrets: np.ndarray) -> np.ndarray:
  positive = np.maximum(regrets, 0.0)
  total = positive.sum()
  return positive / total if total > 0 else np.full(len(regrets), 1.0 / len(regrets))


def assert_means_match(samples: np.ndarray, expected: np.ndarray) -> None:
  """`samples` (walks x cells) have means within `STANDARD_ERRORS` standard errors of
  `expected`."""
  means = samples.mean(axis=0)
  errors = samples.std(axis=0, ddof=1) / math.sqrt(len(samples))
  distance = np.abs(means - expected)
  worst = int(np.argmax(distance / (errors + 1e-12)))
  assert np.all(distance <= STANDARD_ERRORS * errors + 1e-12), (
      f"cell {worst}: mean {means[worst]:.5f} +- {errors[worst]:.5f}, exact {expected[worst]:.5f}")


# ----- the compiled kernel


@pytest.fixture(scope="module")
def compiled_setting():
  """`tiny`, its spec, the `cards` keys' valuation, and regrets drawn at random (seeded)."""
  ensure_compiled()
  game = load_reduced("tiny")
  spec = build_spec(game.rules)
  regrets = np.random.default_rng(3).normal(size=1 << TABLE_BITS)
  return game, spec, valuation_of(valuation("cards")), regrets


def _compiled_strategy(game, spec, values, regrets):
  mask = len(regrets) - 1
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)

  def strategy(table, player):
    legal = np.array(game.dynamics.legal_actions(game.rules, table, player), dtype=np.int64)
    keys = np.empty(len(legal), dtype=np.int64)
    action_keys(spec, codec.encode(game.rules, spec, table), player, legal, len(legal), values,
                keys, scratch)
    slots = keys & mask
    return legal.tolist(), slots.tolist(), _regret_matching(regrets[slots]).tolist()

  return strategy


@pytest.mark.parametrize("traverser", [0, 1])
def test_compiled_outcome_sampling_adds_the_reach_weighted_strategy(compiled_setting, traverser):
  game, spec, values, regrets = compiled_setting
  averages, offers = expected_additions(game, _compiled_strategy(game, spec, values, regrets),
                                        traverser)
  slots = np.array(sorted(averages), dtype=np.int64)
  functions = game_functions()
  rng = np.zeros(4, dtype=np.uint64)
  seed_state(rng, np.uint64(11 + traverser))
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)
  walked_regrets, walked_averages, walked_offers = (np.empty_like(regrets), np.zeros_like(regrets),
                                                    np.zeros_like(regrets))
  samples = np.empty((WALKS, 2 * len(slots)))
  for k in range(WALKS):
    walked_regrets[:] = regrets  # every walk from the same strategy
    walked_averages[slots] = walked_offers[slots] = 0.0
    pos = CompiledSushiGo.kernels.initial_position(spec)
    tables = kernels.Tables(walked_regrets, walked_averages, walked_offers)
    kernels.outcome_walk(functions, spec, pos, traverser, tables, 1.0, rng, 1.0, 1.0, values,
                         scratch, kernels.STRATEGY)
    samples[k, :len(slots)] = walked_averages[slots]
    samples[k, len(slots):] = walked_offers[slots]
  expected = np.array([averages[s] for s in slots] + [offers[s] for s in slots])
  # The strategy is far from uniform, so from its sampling distribution, somewhere.
  assert np.ptp([averages[s] / offers[s] for s in slots]) > 0.5
  assert_means_match(samples, expected)


# ----- the Python solver


def _python_solver(traverser: int):
  """An OutcomeSamplingMCCFR on `tiny` with identity keys, every key met in the tree given random
  regrets (seeded) when first asked, and its strategy function (cells named by their ids)."""
  game = load_reduced("tiny")
  solver = mccfr.OutcomeSamplingMCCFR(game, A.Identity(game.dynamics), seed=21 + traverser)
  rng = np.random.default_rng(5)

  def strategy(table, player):
    actions, cells = solver._node(table, player)  # pylint: disable=protected-access
    if all(cell[0] == 0.0 for cell in cells):
      for cell in cells:
        cell[0] = float(rng.normal())
    probabilities = _regret_matching(np.array([cell[0] for cell in cells]))
    return actions, [id(cell) for cell in cells], probabilities.tolist()

  return game, solver, strategy


@pytest.mark.parametrize("traverser", [0, 1])
def test_python_outcome_sampling_adds_the_reach_weighted_strategy(traverser):
  game, solver, strategy = _python_solver(traverser)
  averages, _ = expected_additions(game, strategy, traverser)
  cells = {id(cell): cell for entry in solver._entries.values()  # pylint: disable=W0212
           for cell in entry.values()}
  regrets = {key: cell[0] for key, cell in cells.items()}
  order = sorted(averages)
  samples = np.empty((PYTHON_WALKS, len(order)))
  start = game.dynamics.initial_table(game.rules)
  for k in range(PYTHON_WALKS):
    for key, cell in cells.items():
      cell[0], cell[1] = regrets[key], 0.0
    solver._walk(start, traverser)  # pylint: disable=protected-access
    samples[k] = [cells[c][1] for c in order]
  assert_means_match(samples, np.array([averages[c] for c in order]))
