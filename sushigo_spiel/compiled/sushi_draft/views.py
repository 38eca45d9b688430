"""Where things are in a Sushi Draft position, and the small facts every kernel asks, so that
offsets are computed in one place (`layout` documents the blocks). All inlined into their callers,
which index the position at these offsets rather than through array views (a view costs atomic
reference counting on the paths played at every step).
"""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_draft.layout import (AWARDS_AT, DISCARDS_AT, HANDS_AT,
                                                       HAND_SIZE, KEEPING, LOG_EATS_AT,
                                                       LOG_HANDS_AT, LOG_KEEPS_AT, ORDERS_TABLE,
                                                       ORDER_START_TABLE, PILES, PILE_SIZE_TABLE,
                                                       PLAYERS, ROUND, TURN, TYPES)
from sushigo_spiel.sushi_draft.cards import WILD
from sushigo_spiel.sushi_draft.rules import WILD_EAT


@njit(inline="always")
def hand_at(g, holder):
  """Where the hand `holder` holds starts (counts per card type)."""
  return g[HANDS_AT] + holder * TYPES


@njit(inline="always")
def turns_per_round(g):
  return g[HAND_SIZE] - 1


@njit(inline="always")
def first_turn(g, round_index):
  """The game's turn number of a round's first turn."""
  return round_index * turns_per_round(g)


@njit(inline="always")
def turn_index(g, pos):
  """The game's turn number of the current turn."""
  return first_turn(g, pos[ROUND]) + pos[TURN]


@njit(inline="always")
def logged_turns(g, pos, round_index):
  """How many turns of a round (this one or an earlier one) the log holds."""
  if round_index < pos[ROUND]:
    return turns_per_round(g)
  return pos[TURN] + pos[KEEPING]


@njit(inline="always")
def logged_hands_at(g, turn):
  """Where the hands game turn `turn` began with start, flat by holder."""
  return g[LOG_HANDS_AT] + turn * g[PLAYERS] * TYPES


@njit(inline="always")
def logged_eat_at(g, turn, player):
  return g[LOG_EATS_AT] + turn * g[PLAYERS] + player


@njit(inline="always")
def logged_keep_at(g, turn, player):
  return g[LOG_KEEPS_AT] + turn * g[PLAYERS] + player


@njit(inline="always")
def award_at(g, round_index, pile):
  """Where the taker of a pile's chip at the end of a round is (-1: nobody)."""
  return g[AWARDS_AT] + round_index * PILES + pile


@njit(inline="always")
def discard_at(g, round_index, player):
  return g[DISCARDS_AT] + round_index * g[PLAYERS] + player


@njit(inline="always")
def pile_size(g, pile):
  return g[g[PILE_SIZE_TABLE] + pile]


@njit(inline="always")
def order_at(g, pile, order):
  """Where the chip values of a pile's order (a chance outcome) start in the spec, top first."""
  return g[ORDERS_TABLE] + g[g[ORDER_START_TABLE] + pile] + order * pile_size(g, pile)


@njit(inline="always")
def eaten_card(action):
  """The card an Eat action takes from the hand (`rules.eaten_card`)."""
  return action if action < WILD_EAT else WILD


@njit(inline="always")
def eaten_type(action):
  """The sushi type an Eat action counts as (`rules.eaten_type`)."""
  return action if action < WILD_EAT else action - WILD_EAT
