"""No silent wrong answers on the equilibrium side: arrays that are not distributions are refused
with the information set named, and constant-sum games are solved exactly."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from solvers.equilibrium import cfr, sequence_form
from solvers.equilibrium.abstraction import Identity
from solvers.equilibrium.exploitability import exploitability, nash_conv
from solvers.equilibrium.game_tree import GameTree
from sushigo_spiel.reduced_games import reduced_game_string


@pytest.fixture(scope="module", name="tree")
def tiny_tree():
  return GameTree(pyspiel.load_game(reduced_game_string("tiny")))


@pytest.mark.parametrize("make_bad, message", [
    (lambda u: np.zeros_like(u), "sum to 0;"),
    (lambda u: 2 * u, "sum to 2;"),
    (lambda u: np.where(np.arange(u.size) == 0, -0.5, u), "-0.5"),
    (lambda u: np.where(np.arange(u.size) == 3, np.nan, u), "nan"),
])
def test_arrays_that_are_not_distributions_are_refused(tree, make_bad, message):
  with pytest.raises(ValueError, match=f"not a distribution at information set .*{message}"):
    nash_conv(tree, make_bad(tree.uniform_policy()))


def test_the_refusal_shows_the_information_state(tree):
  with pytest.raises(ValueError, match="The information state:\nP0\nR1 T1: hand"):
    nash_conv(tree, np.zeros(tree.num_slots))


def test_a_distribution_within_rounding_is_accepted(tree):
  policy = tree.uniform_policy() * (1 + 1e-9)
  assert nash_conv(tree, policy).nash_conv == pytest.approx(
      nash_conv(tree, tree.uniform_policy()).nash_conv)


def test_a_constant_sum_game_is_solved_as_its_zero_sum_shift():
  """utility=win of the robot game: the LP's equilibrium has no gain for either player, the two
  values sum to 1 (mapped back from the shifted game, whose values sum to 0), and CFR+ converges
  to the same value."""
  game = pyspiel.load_game(reduced_game_string("robot").replace("utility=margin", "utility=win"))
  tree = GameTree(game)
  solution = sequence_form.solve(tree)
  assert sum(solution.values) == pytest.approx(1.0, abs=1e-9)
  assert nash_conv(tree, solution.policy).nash_conv == pytest.approx(0.0, abs=1e-9)
  assert nash_conv(tree, solution.policy).policy_values[0] == pytest.approx(solution.value,
                                                                            abs=1e-9)
  average = cfr.CFRPlus(game, Identity(game.dynamics), tree).run(iterations=2000)
  averaged = average.average_policy_array()
  assert exploitability(tree, averaged) < 2e-3
  assert nash_conv(tree, averaged).policy_values[0] == pytest.approx(solution.value, abs=5e-3)


def test_a_general_sum_game_is_refused_by_the_lp():
  game = pyspiel.load_game(reduced_game_string("three_players"))
  with pytest.raises(ValueError, match="two-player zero-sum or constant-sum game"):
    sequence_form.solve(game)
