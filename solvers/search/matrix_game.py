"""Zero-sum matrix games: the value and optimal (maximin) strategies of both players.

The exact world solvers of Perfect Information Monte Carlo (`world_solvers.py`) meet a
simultaneous move at every node of their search: with two players (or one player against a
coalition) and a zero-sum objective it is a matrix game, and its value is the node's value. Most of
these games are tiny, so the cheap cases are answered directly and only the rest go to a linear
program (scipy's HiGHS):

  one row or one column    the row player's best row / the column player's best column
  a pure saddle point      maximin of the row minima equals minimax of the column maxima
  2 x 2 without a saddle   the closed form (both players mix, each making the other indifferent)
  otherwise                max v  s.t.  x^T A >= v, sum x = 1, x >= 0; the column player's
                           strategy is read from the duals of the `x^T A >= v` constraints

The row player maximises `payoff[i, j]`, the column player minimises it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import optimize


class Solution(NamedTuple):
  """The game value and an optimal mixed strategy of each player (probability arrays)."""
  value: float
  row: np.ndarray
  column: np.ndarray


def solve(payoff) -> Solution:
  """The value and maximin strategies of the zero-sum game with row-player payoffs `payoff`."""
  a = np.asarray(payoff, dtype=float)
  if a.ndim != 2 or a.size == 0:
    raise ValueError(f"payoff must be a non-empty 2-d array; got shape {a.shape}")
  if not np.all(np.isfinite(a)):
    raise ValueError("payoff has entries that are not finite numbers; allowed: finite numbers")
  rows, columns = a.shape
  if rows == 1:
    j = int(np.argmin(a[0]))
    return Solution(float(a[0, j]), _one_hot(0, 1), _one_hot(j, columns))
  if columns == 1:
    i = int(np.argmax(a[:, 0]))
    return Solution(float(a[i, 0]), _one_hot(i, rows), _one_hot(0, 1))
  row_minima, column_maxima = a.min(axis=1), a.max(axis=0)
  i, j = int(np.argmax(row_minima)), int(np.argmin(column_maxima))
  if row_minima[i] == column_maxima[j]:
    return Solution(float(row_minima[i]), _one_hot(i, rows), _one_hot(j, columns))
  if rows == columns == 2:
    return _two_by_two(a)
  return _linear_program(a)


def _one_hot(index: int, size: int) -> np.ndarray:
  strategy = np.zeros(size)
  strategy[index] = 1.0
  return strategy


def _two_by_two(a: np.ndarray) -> Solution:
  """A 2 x 2 game with no saddle point: each player mixes to make the other indifferent."""
  (p, q), (r, s) = a
  denominator = p - q - r + s  # never 0 without a saddle point
  x = (s - r) / denominator
  y = (s - q) / denominator
  return Solution(float((p * s - q * r) / denominator), np.array([x, 1.0 - x]),
                  np.array([y, 1.0 - y]))


def _linear_program(a: np.ndarray) -> Solution:
  rows, columns = a.shape
  # Variables: x (rows), then v. Minimise -v subject to v - x^T A[:, j] <= 0 and sum x = 1.
  cost = np.zeros(rows + 1)
  cost[-1] = -1.0
  upper = np.hstack([-a.T, np.ones((columns, 1))])
  equality = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
  bounds = [(0.0, None)] * rows + [(None, None)]
  result = optimize.linprog(cost, A_ub=upper, b_ub=np.zeros(columns), A_eq=equality,
                            b_eq=[1.0], bounds=bounds, method="highs")
  if result.status != 0:
    raise RuntimeError(f"the matrix game LP failed: {result.message}")
  row = _normalised(result.x[:rows])
  column = _normalised(-result.ineqlin.marginals)
  return Solution(float(result.x[-1]), row, column)


def _normalised(weights: np.ndarray) -> np.ndarray:
  weights = np.clip(weights, 0.0, None)
  return weights / weights.sum()
