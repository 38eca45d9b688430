"""Tests for solvers/matrix_game.py: known games, and random games against brute force."""

import itertools

import numpy as np
import pytest

from solvers.search import matrix_game


def check_optimal(payoff, solution, tolerance=1e-7):
  """The certificate of optimality: the row strategy guarantees at least the value against every
  column, and the column strategy concedes at most the value against every row."""
  payoff = np.asarray(payoff, dtype=float)
  assert solution.row.sum() == pytest.approx(1.0) and solution.row.min() >= 0
  assert solution.column.sum() == pytest.approx(1.0) and solution.column.min() >= 0
  assert (solution.row @ payoff).min() >= solution.value - tolerance
  assert (payoff @ solution.column).max() <= solution.value + tolerance


def test_matching_pennies():
  solution = matrix_game.solve([[1, -1], [-1, 1]])
  assert solution.value == pytest.approx(0.0)
  np.testing.assert_allclose(solution.row, [0.5, 0.5])
  np.testing.assert_allclose(solution.column, [0.5, 0.5])


def test_rock_paper_scissors():
  payoff = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
  solution = matrix_game.solve(payoff)
  assert solution.value == pytest.approx(0.0, abs=1e-9)
  np.testing.assert_allclose(solution.row, [1 / 3] * 3, atol=1e-7)
  np.testing.assert_allclose(solution.column, [1 / 3] * 3, atol=1e-7)


def test_biased_rock_paper_scissors():
  # Rock beating scissors pays 2. By hand (each column leaves the row player v): r = 3v,
  # p = 5v, s = 4v, so v = 1/12 and the row player mixes (1/4, 5/12, 1/3).
  payoff = [[0, -1, 2], [1, 0, -1], [-1, 1, 0]]
  solution = matrix_game.solve(payoff)
  check_optimal(payoff, solution)
  assert solution.value == pytest.approx(1 / 12)
  np.testing.assert_allclose(solution.row, [1 / 4, 5 / 12, 1 / 3], atol=1e-7)


def test_dominated_strategies_get_no_weight():
  # Row 2 is dominated by row 0; column 2 by column 1 (for the minimiser). The rest is a 2 x 2
  # game with value (3*3 - 0*0) / (3 + 3) = 1.5.
  payoff = [[3, 0, 4], [0, 3, 5], [2, -1, 3]]
  solution = matrix_game.solve(payoff)
  check_optimal(payoff, solution)
  assert solution.value == pytest.approx(1.5)
  assert solution.row[2] == pytest.approx(0.0)
  assert solution.column[2] == pytest.approx(0.0)


def test_saddle_point_and_single_row_or_column():
  assert matrix_game.solve([[4, 2], [3, 1]]).value == 2  # row 0, column 1
  single_row = matrix_game.solve([[5, -2, 7]])
  assert single_row.value == -2 and single_row.column.tolist() == [0, 1, 0]
  single_column = matrix_game.solve([[5], [-2], [7]])
  assert single_column.value == 7 and single_column.row.tolist() == [0, 0, 1]


def brute_force_value(payoff, steps=600):
  """max over a grid of row mixtures of the worst column (2-row games): the maximin value to
  within the grid's resolution."""
  payoff = np.asarray(payoff, dtype=float)
  grid = np.linspace(0.0, 1.0, steps + 1)
  mixtures = np.stack([grid, 1.0 - grid], axis=1)
  return (mixtures @ payoff).min(axis=1).max()


@pytest.mark.parametrize("seed", range(12))
def test_random_games_against_brute_force(seed):
  rng = np.random.default_rng(seed)
  columns = int(rng.integers(2, 6))
  payoff = rng.integers(-5, 6, size=(2, columns)).astype(float)
  solution = matrix_game.solve(payoff)
  check_optimal(payoff, solution)
  # The grid value is a lower bound that the exact value exceeds by at most the grid step times
  # the largest payoff difference.
  grid_value = brute_force_value(payoff)
  assert grid_value <= solution.value + 1e-9
  assert solution.value - grid_value <= 10 / 600 + 1e-9


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (5, 5), (6, 2)])
def test_larger_random_games_are_optimal(shape):
  rng = np.random.default_rng(sum(shape))
  payoff = rng.normal(size=shape)
  check_optimal(payoff, matrix_game.solve(payoff))


def test_pure_strategies_never_beat_the_value():
  # For a 3 x 3 game, no pure row guarantees more than the value, no pure column less.
  rng = np.random.default_rng(7)
  payoff = rng.integers(-3, 4, size=(3, 3))
  value = matrix_game.solve(payoff).value
  for i, j in itertools.product(range(3), range(3)):
    assert payoff[i].min() <= value + 1e-9
    assert payoff[:, j].max() >= value - 1e-9


@pytest.mark.parametrize("bad", [[], [[]], [1, 2], [[1, np.nan]]])
def test_bad_payoffs_are_refused(bad):
  with pytest.raises(ValueError, match="payoff"):
    matrix_game.solve(bad)
