"""Views into a position's blocks and the small facts every kernel asks (whose hand passes where,
who controls the robot), so that offsets are computed in one place (`layout` documents them).

Views are one-dimensional slices, rows of a block or whole blocks flat: slicing costs nothing in
compiled code, where reshaping costs a library call, so kernels index rows rather than 2-D views.
"""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit_inline as njit
from sushigo_spiel.compiled.layout import (ALTERNATE, BREAKDOWN_AT, CATEGORIES, DECK_AT,
                                           HAND_SIZE, HANDS_AT, LEFT, LOG_HANDS_AT, LOG_PICKS_AT,
                                           PASS_DIRECTION, PLAYERS, ROUND, ROUND_DECK_AT,
                                           ROUND_PUDDINGS_AT, TABLEAUS_AT, TURN, TYPES)


@njit
def deck(g, pos):
  return pos[g[DECK_AT]:g[DECK_AT] + g[TYPES]]


@njit
def round_deck(g, pos):
  return pos[g[ROUND_DECK_AT]:g[ROUND_DECK_AT] + g[TYPES]]


@njit
def hand(g, pos, holder):
  """The hand `holder` holds (counts per card type); holder n is the robot's pile."""
  start = g[HANDS_AT] + holder * g[TYPES]
  return pos[start:start + g[TYPES]]


@njit
def hands(g, pos, count):
  """The first `count` hands, flat: the players' hands, then the robot's pile."""
  return pos[g[HANDS_AT]:g[HANDS_AT] + count * g[TYPES]]


@njit
def tableau(g, pos, row):
  """A tableau row: counts per card type, free Wasabi, Nigiri bonus; row n is the robot's."""
  width = g[TYPES] + 2
  start = g[TABLEAUS_AT] + row * width
  return pos[start:start + width]


@njit
def tableaus(g, pos, count):
  """The first `count` tableau rows, flat."""
  return pos[g[TABLEAUS_AT]:g[TABLEAUS_AT] + count * (g[TYPES] + 2)]


@njit
def logged_hands(g, pos, turn_index):
  """The hands turn `turn_index` of the game began with, flat by holder."""
  size = g[PLAYERS] * g[TYPES]
  start = g[LOG_HANDS_AT] + turn_index * size
  return pos[start:start + size]


@njit
def logged_hand(g, pos, turn_index, holder):
  """The hand `holder` began turn `turn_index` of the game with."""
  start = g[LOG_HANDS_AT] + (turn_index * g[PLAYERS] + holder) * g[TYPES]
  return pos[start:start + g[TYPES]]


@njit
def logged_pick(g, pos, turn_index, player):
  """The cards `player` placed at turn `turn_index` of the game (two entries, -1 for none)."""
  start = g[LOG_PICKS_AT] + (turn_index * g[PLAYERS] + player) * 2
  return pos[start:start + 2]


@njit
def round_breakdown(g, pos, round_index, player):
  """A player's points per category in a round."""
  start = g[BREAKDOWN_AT] + (round_index * g[PLAYERS] + player) * g[CATEGORIES]
  return pos[start:start + g[CATEGORIES]]


@njit
def round_puddings(g, pos, round_index):
  """The Puddings each player played in a round."""
  start = g[ROUND_PUDDINGS_AT] + round_index * g[PLAYERS]
  return pos[start:start + g[PLAYERS]]


@njit
def turn_index(g, pos):
  """The game's turn number of the current turn: round * H + turn."""
  return pos[ROUND] * g[HAND_SIZE] + pos[TURN]


@njit
def direction(g, round_index):
  """+1 when hands pass left in this round (player i to i + 1), -1 when right."""
  way = g[PASS_DIRECTION]
  if way == LEFT or (way == ALTERNATE and round_index % 2 == 0):
    return 1
  return -1


@njit
def controller(g, pos):
  """Who controls the robot this turn (player 0 first, then alternating across rounds)."""
  return turn_index(g, pos) % 2
