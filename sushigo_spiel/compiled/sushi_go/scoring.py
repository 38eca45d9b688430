"""Scoring as kernels: a tableau's tally, a round's points per category, Pudding, returns.

The counterparts of `sushi_go.scoring` (the award constants are read from there): a tableau is a
tableau row (counts per card type, free Wasabi, extra Nigiri points from Wasabi), so a tally needs
no placement order. A card's colour is its kind, as in `scoring.soy_sauce_points`.

Tallies and breakdowns are rows of small 2-D arrays, one row per tableau; the helpers are inlined
into their callers and index by row, so a round is scored with two allocations and no array views.
Reference: `sushi_go.scoring` and `rules.returns`, held equal step by step in
`tests/test_compiled_core.py` (`tests/lockstep.py`).
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.utilities import utilities
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_TERMINAL, CATEGORIES, DEALT_HANDS,
                                                    KIND_TABLE, K_DUMPLING, K_MAKI, K_NIGIRI,
                                                    K_PUDDING, K_SASHIMI, K_SOY_SAUCE, K_TEMPURA,
                                                    NIGIRI_BONUS, NUM_KINDS, PLAYERS,
                                                    PUDDINGS_AT, ROUND, SOY_SAUCE, TYPES,
                                                    UTILITY, VALUE_TABLE)
from sushigo_spiel.sushi_go.scoring import (DUMPLING_POINTS, MAKI_AWARDS, PUDDING_AWARD,
                                            SASHIMI_SET_POINTS, SASHIMI_SET_SIZE, SOY_SAUCE_POINTS,
                                            TEMPURA_SET_POINTS, TEMPURA_SET_SIZE)

# A tally's fields (`scoring.TableauTally`).
TEMPURA, SASHIMI, DUMPLING, MAKI, NIGIRI, PUDDINGS, SOY_SAUCES, COLOURS = range(8)
TALLY_SIZE = 8
# Per card kind, the tally field its cards count in (-1: none); Maki and Nigiri count their value.
_FIELD_OF_KIND = np.full(NUM_KINDS, -1, dtype=np.int64)
for _kind, _field in ((K_TEMPURA, TEMPURA), (K_SASHIMI, SASHIMI), (K_DUMPLING, DUMPLING),
                      (K_MAKI, MAKI), (K_NIGIRI, NIGIRI), (K_PUDDING, PUDDINGS),
                      (K_SOY_SAUCE, SOY_SAUCES)):
  _FIELD_OF_KIND[_kind] = _field
_DUMPLING_POINTS = np.array(DUMPLING_POINTS, dtype=np.int64)


@njit(inline="always")
def tally(g, rows, row, tallies, t):
  """Fills row `t` of `tallies` from the tableau row starting at `rows[row]`."""
  types = g[TYPES]
  tallies[t, :] = 0
  colours = 0
  for card in range(types):
    count = rows[row + card]
    if count == 0:
      continue
    kind = g[g[KIND_TABLE] + card]
    colours |= 1 << kind
    field = _FIELD_OF_KIND[kind]
    if field == MAKI or field == NIGIRI:
      tallies[t, field] += count * g[g[VALUE_TABLE] + card]
    elif field >= 0:
      tallies[t, field] += count
  tallies[t, NIGIRI] += rows[row + types + NIGIRI_BONUS]
  while colours:
    tallies[t, COLOURS] += colours & 1
    colours >>= 1


@njit(inline="always")
def round_breakdown(g, tallies, out):
  """Fills `out` (one row per tally, `CATEGORIES` columns) with each tableau's round points by
  category; every tally competes for Maki and for Soy Sauce (the robot's too, when given)."""
  _maki_points(tallies, out)
  most_colours = 0
  for p in range(len(tallies)):
    most_colours = max(most_colours, tallies[p, COLOURS])
  for p in range(len(tallies)):
    out[p, 1] = (tallies[p, TEMPURA] // TEMPURA_SET_SIZE) * TEMPURA_SET_POINTS
    out[p, 2] = (tallies[p, SASHIMI] // SASHIMI_SET_SIZE) * SASHIMI_SET_POINTS
    out[p, 3] = _DUMPLING_POINTS[min(tallies[p, DUMPLING], len(_DUMPLING_POINTS) - 1)]
    out[p, 4] = tallies[p, NIGIRI]
    if g[SOY_SAUCE]:
      won = tallies[p, SOY_SAUCES] > 0 and tallies[p, COLOURS] == most_colours
      out[p, 5] = SOY_SAUCE_POINTS if won else 0


@njit(inline="always")
def _maki_points(tallies, out):
  """Column 0 of `out`: 6 shared by the most icons; 3 shared by the second most unless the most
  was tied. No icon, no points."""
  most, second, first_count, second_count = 0, 0, 0, 0
  for p in range(len(tallies)):
    most = max(most, tallies[p, MAKI])
  for p in range(len(tallies)):
    if second < tallies[p, MAKI] < most:
      second = tallies[p, MAKI]
  for p in range(len(tallies)):
    first_count += most > 0 and tallies[p, MAKI] == most
    second_count += second > 0 and tallies[p, MAKI] == second
  for p in range(len(tallies)):
    out[p, 0] = 0
    if most > 0 and tallies[p, MAKI] == most:
      out[p, 0] = MAKI_AWARDS[0] // first_count
    elif first_count == 1 and second > 0 and tallies[p, MAKI] == second:
      out[p, 0] = MAKI_AWARDS[1] // second_count


@njit
def score_round(g, pos):
  """Scores the round ending now: writes its breakdown and Puddings, keeps the Puddings."""
  n, everyone, round_index = g[PLAYERS], g[DEALT_HANDS], pos[ROUND]
  tallies = np.empty((everyone, TALLY_SIZE), dtype=np.int64)
  for p in range(everyone):
    tally(g, pos, views.tableau_at(g, p), tallies, p)
  breakdown = np.empty((everyone, g[CATEGORIES]), dtype=np.int64)
  round_breakdown(g, tallies, breakdown)
  for p in range(n):
    recorded = views.round_breakdown_at(g, round_index, p)
    for category in range(g[CATEGORIES]):
      pos[recorded + category] = breakdown[p, category]
    pos[views.round_puddings_at(g, round_index) + p] = tallies[p, PUDDINGS]
  for p in range(everyone):
    pos[g[PUDDINGS_AT] + p] += tallies[p, PUDDINGS]


@njit(inline="always")
def _final_scores(g, pos, points):
  """Fills `points` (int64, one per player) with the points so far: finished rounds, plus Pudding
  points once the game is over (the robot's Puddings compete like a player's)."""
  n, categories = g[PLAYERS], g[CATEGORIES]
  points[:] = 0
  for r in range(pos[ROUND]):
    for p in range(n):
      recorded = views.round_breakdown_at(g, r, p)
      for category in range(categories):
        points[p] += pos[recorded + category]
  if pos[ACTOR] == ACTOR_TERMINAL:
    _add_pudding_points(pos, g[PUDDINGS_AT], g[DEALT_HANDS], points)


@njit(inline="always")
def _add_pudding_points(counts, start, count, points):
  """Adds the end-of-game Pudding points (`scoring.score_puddings`) of the `count` Pudding
  counts at `counts[start]` to the players' `points` (the robot, last, has none)."""
  most, fewest = counts[start], counts[start]
  for p in range(count):
    most, fewest = max(most, counts[start + p]), min(fewest, counts[start + p])
  if most == fewest:
    return
  most_count, fewest_count = 0, 0
  for p in range(count):
    most_count += counts[start + p] == most
    fewest_count += counts[start + p] == fewest
  for p in range(len(points)):
    if counts[start + p] == most:
      points[p] += PUDDING_AWARD // most_count
    elif count > 2 and counts[start + p] == fewest:
      points[p] -= PUDDING_AWARD // fewest_count


@njit
def scores(g, pos):
  """Points per player: finished rounds, plus Pudding points once the game is over."""
  points = np.empty(g[PLAYERS], dtype=np.int64)
  _final_scores(g, pos, points)
  return points


@njit
def returns(g, pos, out):
  """Fills `out` with each player's utility by the spec's utility mode (zeros before the end)."""
  out[:] = 0.0
  if pos[ACTOR] != ACTOR_TERMINAL:
    return
  final = scores(g, pos)
  winners = np.empty(len(final), dtype=np.bool_)
  for p in range(len(final)):
    winners[p] = _wins(final, pos, g[PUDDINGS_AT], p)
  utilities(g[UTILITY], final, winners, out)


@njit(inline="always")
def _wins(final, puddings, start, player):
  """Whether `player` wins: highest total, ties broken by more Puddings (then shared)."""
  best, most = final.max(), -1
  for p in range(len(final)):
    if final[p] == best:
      most = max(most, puddings[start + p])
  return final[player] == best and puddings[start + player] == most
