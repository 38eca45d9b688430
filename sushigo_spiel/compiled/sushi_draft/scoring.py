"""Sushi Draft's points and returns as kernels (`rules.totals`, `rules.returns`): a player's points
are the values of the chips it took, each chip the next of its pile's order. Reference: the
readable rules (`sushi_draft.rules`), held equal step by step in
`tests/test_compiled_sushi_draft.py` (`tests/lockstep.py`)."""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_draft import views
from sushigo_spiel.compiled.sushi_draft.layout import (ACTOR, ACTOR_TERMINAL, NOBODY, ORDERS_AT,
                                                       PILES, PLAYERS, ROUND, UTILITY)
from sushigo_spiel.compiled.utilities import utilities


@njit(inline="always")
def chip_value(g, pos, pile, taken):
  """The value of a pile's chip after `taken` chips of it were given."""
  return g[views.order_at(g, pile, pos[g[ORDERS_AT] + pile]) + taken]


@njit
def scores(g, pos):
  """Chip points per player so far."""
  points = np.zeros(g[PLAYERS], dtype=np.int64)
  for pile in range(PILES):
    taken = 0
    for round_index in range(pos[ROUND]):
      taker = pos[views.award_at(g, round_index, pile)]
      if taker != NOBODY:
        points[taker] += chip_value(g, pos, pile, taken)
        taken += 1
  return points


@njit
def returns(g, pos, out):
  """Fills `out` with each player's utility by the spec's utility mode (zeros before the end);
  ties for the most points share a win."""
  out[:] = 0.0
  if pos[ACTOR] != ACTOR_TERMINAL:
    return
  points = scores(g, pos)
  utilities(g[UTILITY], points, points == points.max(), out)
