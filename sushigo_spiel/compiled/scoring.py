"""Scoring as kernels: a tableau's tally, a round's points per category, Pudding, returns.

The counterparts of `sushi_go.scoring` (the award constants are read from there): a tableau is a
tableau row (counts per card type, free Wasabi, extra Nigiri points from Wasabi), so a tally needs
no placement order. A card's colour is its kind, as in `scoring.soy_sauce_points`.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled import views
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.layout import (ACTOR, ACTOR_TERMINAL, CATEGORIES, DEALT_HANDS,
                                           K_DUMPLING, K_MAKI, K_NIGIRI, K_PUDDING, K_SASHIMI,
                                           K_SOY_SAUCE, K_TEMPURA, KIND_TABLE, MARGIN,
                                           NIGIRI_BONUS, NUM_KINDS, PLAYERS, PUDDINGS_AT, ROUND, SCORE,
                                           SOY_SAUCE, TYPES, UTILITY, VALUE_TABLE)
from sushigo_spiel.sushi_go.scoring import (DUMPLING_POINTS, MAKI_AWARDS, PUDDING_AWARD,
                                            SASHIMI_SET_POINTS, SASHIMI_SET_SIZE,
                                            SOY_SAUCE_POINTS, TEMPURA_SET_POINTS,
                                            TEMPURA_SET_SIZE)

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


@njit
def tally(g, row, out):
  """Fills `out` (a tally) from a tableau row."""
  types = g[TYPES]
  out[:] = 0
  colours = 0
  for card in range(types):
    count = row[card]
    if count == 0:
      continue
    kind = g[g[KIND_TABLE] + card]
    colours |= 1 << kind
    field = _FIELD_OF_KIND[kind]
    if field == MAKI or field == NIGIRI:
      out[field] += count * g[g[VALUE_TABLE] + card]
    elif field >= 0:
      out[field] += count
  out[NIGIRI] += row[types + NIGIRI_BONUS]
  while colours:
    out[COLOURS] += colours & 1
    colours >>= 1


@njit
def round_breakdown(g, tallies, out):
  """Fills `out` (one row per tally, `CATEGORIES` columns) with each tableau's round points by
  category; every tally competes for Maki and for Soy Sauce (the robot's too, when given)."""
  maki = _maki_points(tallies[:, MAKI])
  most_colours = tallies[:, COLOURS].max()
  for p in range(len(tallies)):
    t = tallies[p]
    out[p, 0] = maki[p]
    out[p, 1] = (t[TEMPURA] // TEMPURA_SET_SIZE) * TEMPURA_SET_POINTS
    out[p, 2] = (t[SASHIMI] // SASHIMI_SET_SIZE) * SASHIMI_SET_POINTS
    out[p, 3] = _DUMPLING_POINTS[min(t[DUMPLING], len(_DUMPLING_POINTS) - 1)]
    out[p, 4] = t[NIGIRI]
    if g[SOY_SAUCE]:
      won = t[SOY_SAUCES] > 0 and t[COLOURS] == most_colours
      out[p, 5] = SOY_SAUCE_POINTS if won else 0


@njit
def _maki_points(icons):
  """6 shared by the most icons; 3 shared by the second most unless the most was tied."""
  points = np.zeros(len(icons), dtype=np.int64)
  most = icons.max()
  if most <= 0:
    return points
  second, first_count, second_count = 0, 0, 0
  for n in icons:
    if second < n < most:
      second = n
  for n in icons:
    first_count += n == most
    second_count += n == second
  for p in range(len(icons)):
    if icons[p] == most:
      points[p] = MAKI_AWARDS[0] // first_count
    elif first_count == 1 and second > 0 and icons[p] == second:
      points[p] = MAKI_AWARDS[1] // second_count
  return points


@njit
def score_round(g, pos):
  """Scores the round ending now: writes its breakdown and Puddings, keeps the Puddings."""
  n, everyone, round_index = g[PLAYERS], g[DEALT_HANDS], pos[ROUND]
  tallies = np.empty((everyone, TALLY_SIZE), dtype=np.int64)
  for p in range(everyone):
    tally(g, views.tableau(g, pos, p), tallies[p])
  breakdown = np.empty((everyone, g[CATEGORIES]), dtype=np.int64)
  round_breakdown(g, tallies, breakdown)
  for p in range(n):
    views.round_breakdown(g, pos, round_index, p)[:] = breakdown[p]
  views.round_puddings(g, pos, round_index)[:] = tallies[:n, PUDDINGS]
  pos[g[PUDDINGS_AT]:g[PUDDINGS_AT] + everyone] += tallies[:, PUDDINGS]


@njit
def totals(g, pos):
  """Points per player from the finished rounds."""
  n = g[PLAYERS]
  points = np.zeros(n, dtype=np.int64)
  for r in range(pos[ROUND]):
    for p in range(n):
      points[p] += views.round_breakdown(g, pos, r, p).sum()
  return points


@njit
def pudding_points(counts):
  """End-of-game Pudding points (`scoring.score_puddings`)."""
  points = np.zeros(len(counts), dtype=np.int64)
  most, fewest = counts.max(), counts.min()
  if most == fewest:
    return points
  most_count, fewest_count = np.sum(counts == most), np.sum(counts == fewest)
  for p in range(len(counts)):
    if counts[p] == most:
      points[p] += PUDDING_AWARD // most_count
    elif len(counts) > 2 and counts[p] == fewest:
      points[p] -= PUDDING_AWARD // fewest_count
  return points


@njit
def scores(g, pos):
  """Points per player: finished rounds, plus Pudding points once the game is over (the robot's
  Puddings compete like a player's)."""
  points = totals(g, pos)
  if pos[ACTOR] == ACTOR_TERMINAL:
    counts = pos[g[PUDDINGS_AT]:g[PUDDINGS_AT] + g[DEALT_HANDS]]
    points += pudding_points(counts)[:g[PLAYERS]]
  return points


@njit
def returns(g, pos, out):
  """Fills `out` with each player's utility by the spec's utility mode (zeros before the end)."""
  out[:] = 0.0
  if pos[ACTOR] != ACTOR_TERMINAL:
    return
  final = scores(g, pos)
  utility, n = g[UTILITY], g[PLAYERS]
  total = final.sum()
  if utility == SCORE:
    out[:] = final
  elif utility == MARGIN:
    for p in range(n):
      out[p] = final[p] - (total - final[p]) / (n - 1)
  else:
    winners = _winners(final, pos[g[PUDDINGS_AT]:g[PUDDINGS_AT] + n])
    out[winners] = 1.0 / winners.sum()


@njit
def _winners(final, puddings):
  """Whether each player wins: highest total, ties broken by more Puddings, then shared."""
  tied = final == final.max()
  most = puddings[tied].max()
  return tied & (puddings == most)
