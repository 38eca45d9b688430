"""Views into a position's blocks and the small facts every kernel asks (whose hand passes where,
who controls the robot), so that offsets are computed in one place (`layout` documents them).

Each row has its offset (`hand_at`: where a hand starts in the position) and its view (`hand`: a
one-dimensional slice). The code played at every step indexes the position at these offsets rather
than through views: a view is an array sharing the position's memory, and making one costs atomic
reference counting. Determinization and scoring, which run less often, use the views. All of these
are inlined into their callers.
"""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.layout import (ALTERNATE, BREAKDOWN_AT, CATEGORIES, DECK_AT,
                                                    HANDS_AT, HAND_SIZE, LEFT, LOG_HANDS_AT,
                                                    LOG_PICKS_AT, PASS_DIRECTION, PLAYERS, ROUND,
                                                    ROUND_DECK_AT, ROUND_PUDDINGS_AT, TABLEAUS_AT,
                                                    TURN, TYPES)


@njit(inline="always")
def deck(g, pos):
  return pos[g[DECK_AT]:g[DECK_AT] + g[TYPES]]


@njit(inline="always")
def round_deck(g, pos):
  return pos[g[ROUND_DECK_AT]:g[ROUND_DECK_AT] + g[TYPES]]


@njit(inline="always")
def copy_counts(g, pos, source_at, target_at):
  """Copies the card counts at `pos[source_at:]` (one per card type) to `pos[target_at:]`, element
  by element: an array-to-slice copy compiles numba's shape check and its message, seconds of
  CPU."""
  for card in range(g[TYPES]):
    pos[target_at + card] = pos[source_at + card]


@njit(inline="always")
def hand_at(g, holder):
  """Where the hand `holder` holds starts (counts per card type); holder n is the robot's pile."""
  return g[HANDS_AT] + holder * g[TYPES]


@njit(inline="always")
def hand(g, pos, holder):
  start = hand_at(g, holder)
  return pos[start:start + g[TYPES]]


@njit(inline="always")
def hands(g, pos, count):
  """The first `count` hands, flat: the players' hands, then the robot's pile."""
  return pos[g[HANDS_AT]:g[HANDS_AT] + count * g[TYPES]]


@njit(inline="always")
def tableau_at(g, row):
  """Where a tableau row starts: counts per card type, free Wasabi, Nigiri bonus; row n is the
  robot's."""
  return g[TABLEAUS_AT] + row * (g[TYPES] + 2)


@njit(inline="always")
def tableau(g, pos, row):
  start = tableau_at(g, row)
  return pos[start:start + g[TYPES] + 2]


@njit(inline="always")
def tableaus(g, pos, count):
  """The first `count` tableau rows, flat."""
  return pos[g[TABLEAUS_AT]:g[TABLEAUS_AT] + count * (g[TYPES] + 2)]


@njit(inline="always")
def logged_hands_at(g, turn_index):
  """Where the hands turn `turn_index` of the game began with start, flat by holder."""
  return g[LOG_HANDS_AT] + turn_index * g[PLAYERS] * g[TYPES]


@njit(inline="always")
def logged_hands(g, pos, turn_index):
  start = logged_hands_at(g, turn_index)
  return pos[start:start + g[PLAYERS] * g[TYPES]]


@njit(inline="always")
def logged_pick_at(g, turn_index, player):
  """Where the cards `player` placed at turn `turn_index` of the game are (two entries, -1 for
  none)."""
  return g[LOG_PICKS_AT] + (turn_index * g[PLAYERS] + player) * 2


@njit(inline="always")
def logged_pick(g, pos, turn_index, player):
  start = logged_pick_at(g, turn_index, player)
  return pos[start:start + 2]


@njit(inline="always")
def round_breakdown_at(g, round_index, player):
  """Where a player's points per category in a round are."""
  return g[BREAKDOWN_AT] + (round_index * g[PLAYERS] + player) * g[CATEGORIES]


@njit(inline="always")
def round_puddings_at(g, round_index):
  """Where the Puddings each player played in a round are."""
  return g[ROUND_PUDDINGS_AT] + round_index * g[PLAYERS]


@njit(inline="always")
def turn_index(g, pos):
  """The game's turn number of the current turn: round * H + turn."""
  return pos[ROUND] * g[HAND_SIZE] + pos[TURN]


@njit(inline="always")
def direction(g, round_index):
  """+1 when hands pass left in this round (player i to i + 1), -1 when right."""
  way = g[PASS_DIRECTION]
  if way == LEFT or (way == ALTERNATE and round_index % 2 == 0):
    return 1
  return -1


@njit(inline="always")
def controller(g, pos):
  """Who controls the robot this turn (`turn_controller`)."""
  return turn_controller(turn_index(g, pos))


@njit(inline="always")
def turn_controller(turn):
  """Who controls the robot at the game's turn `turn` (its index among all the game's turns):
  player 0 first, then alternating across rounds."""
  return turn % 2
