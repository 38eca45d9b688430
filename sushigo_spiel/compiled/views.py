"""Views into a position's blocks and the small facts every kernel asks (whose hand passes where,
who controls the robot), so that offsets are computed in one place (`layout` documents them)."""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.layout import (ALTERNATE, BREAKDOWN_AT, CATEGORIES, DECK_AT,
                                           HAND_SIZE, HANDS_AT, LEFT, LOG_HANDS_AT, LOG_PICKS_AT,
                                           PASS_DIRECTION, PLAYERS, ROUND, ROUND_DECK_AT,
                                           ROUND_PUDDINGS_AT, ROUNDS, TABLEAUS_AT, TURN, TYPES)


@njit
def deck(g, pos):
  return pos[g[DECK_AT]:g[DECK_AT] + g[TYPES]]


@njit
def round_deck(g, pos):
  return pos[g[ROUND_DECK_AT]:g[ROUND_DECK_AT] + g[TYPES]]


@njit
def hands(g, pos, count):
  """The first `count` hands as a (count, T) view: the players' hands, then the robot's pile."""
  types = g[TYPES]
  return pos[g[HANDS_AT]:g[HANDS_AT] + count * types].reshape((count, types))


@njit
def tableaus(g, pos, count):
  """The first `count` tableau rows as a (count, T + 2) view (counts, free Wasabi, Nigiri bonus)."""
  width = g[TYPES] + 2
  return pos[g[TABLEAUS_AT]:g[TABLEAUS_AT] + count * width].reshape((count, width))


@njit
def logged_hands(g, pos, turn_index):
  """The hands turn `turn_index` of the game began with, as an (n, T) view by holder."""
  n, types = g[PLAYERS], g[TYPES]
  start = g[LOG_HANDS_AT] + turn_index * n * types
  return pos[start:start + n * types].reshape((n, types))


@njit
def logged_picks(g, pos, turn_index):
  """The cards placed at turn `turn_index` of the game, as an (n, 2) view (-1 for none)."""
  n = g[PLAYERS]
  start = g[LOG_PICKS_AT] + turn_index * n * 2
  return pos[start:start + n * 2].reshape((n, 2))


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


@njit
def round_breakdowns(g, pos):
  """Every round's points per category, an (R, n, C) view."""
  rounds, n, categories = g[ROUNDS], g[PLAYERS], g[CATEGORIES]
  start = g[BREAKDOWN_AT]
  return pos[start:start + rounds * n * categories].reshape((rounds, n, categories))


@njit
def round_puddings(g, pos):
  """Every round's Puddings played per player, an (R, n) view."""
  rounds, n = g[ROUNDS], g[PLAYERS]
  return pos[g[ROUND_PUDDINGS_AT]:g[ROUND_PUDDINGS_AT] + rounds * n].reshape((rounds, n))
