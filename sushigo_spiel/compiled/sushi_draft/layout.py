"""The flat integer arrays Sushi Draft's kernels work on: a game's spec and a position.

A game's `Rules` compile once into a spec, a 1-D int64 array: scalars at the fixed indices named
below (`PLAYERS`, `HAND_SIZE`, ...), lookup tables (the full deck, the hand-ranking table of
`deal=hand`, every distinct order of every chip pile, as `Rules.pile_orders`) and the offsets of a
position's blocks (`compiled.spec`). A position is a 1-D int32 array (`POSITION_DTYPE`) holding
everything that changes in a game, `Table` for `Table` (`codec` converts both ways, exactly).

Every block of a position, with its shape: docs/layout.md, "Specs and positions".
"""

from __future__ import annotations

import itertools

import numpy as np

from sushigo_spiel.compiled.hand_ranking import hand_ways
from sushigo_spiel.compiled.spec import assemble
from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS, TERMINAL
from sushigo_spiel.drafting.parameters import UTILITIES
from sushigo_spiel.sushi_draft.cards import NUM_PILES, NUM_SUSHI, NUM_TYPES
from sushigo_spiel.sushi_draft.rules import NUM_ACTIONS, Rules

POSITION_DTYPE = np.int32
ACTOR_CHANCE, ACTOR_SIMULTANEOUS, ACTOR_TERMINAL = CHANCE, SIMULTANEOUS, TERMINAL
TYPES, SUSHI, PILES, ACTIONS = NUM_TYPES, NUM_SUSHI, NUM_PILES, NUM_ACTIONS

# Position header.
ACTOR, KEEPING, ROUND, ORDERED, DEALT, TURN = range(6)
HEADER_SIZE = 6

# Spec scalars.
(PLAYERS, HAND_SIZE, ROUNDS, DEAL_BY_HAND, DEAL_STEPS, UTILITY, WILD_WEIGHT, RANKING_SIZE,
 # offsets of the spec's tables
 FULL_DECK_TABLE, WAYS_TABLE, PILE_SIZE_TABLE, ORDER_COUNT_TABLE, ORDER_START_TABLE,
 ORDERS_TABLE,
 # offsets of a position's blocks
 DECK_AT, HANDS_AT, ORDERS_AT, LOG_HANDS_AT, LOG_EATS_AT, LOG_KEEPS_AT, AWARDS_AT, DISCARDS_AT,
 POSITION_SIZE) = range(23)
SCALARS = 23

NOBODY = -1


def build_spec(rules: Rules) -> np.ndarray:
  """The spec of a game (see the module docstring), from its checked `Rules`."""
  n, size, rounds = rules.num_players, rules.hand_size, rules.rounds
  turns = rounds * (size - 1)
  ways = hand_ways(rules.deck, size) if rules.deal == "hand" else [[1]]
  scalars = {
      PLAYERS: n, HAND_SIZE: size, ROUNDS: rounds, DEAL_BY_HAND: rules.deal == "hand",
      DEAL_STEPS: rules.deal_steps, UTILITY: UTILITIES.index(rules.utility),
      WILD_WEIGHT: 1 if rules.wild_half else 2,
      RANKING_SIZE: ways[0][size] if rules.deal == "hand" else 0,
  }
  starts = itertools.accumulate((len(orders) * len(orders[0]) for orders in rules.pile_orders),
                                initial=0)
  tables = [
      (FULL_DECK_TABLE, rules.deck),
      (WAYS_TABLE, [w for row in ways for w in row]),
      (PILE_SIZE_TABLE, [len(pile) for pile in rules.chips]),
      (ORDER_COUNT_TABLE, [len(orders) for orders in rules.pile_orders]),
      (ORDER_START_TABLE, list(starts)[:PILES]),
      (ORDERS_TABLE, [value for orders in rules.pile_orders for order in orders
                      for value in order]),
  ]
  blocks = [
      (DECK_AT, TYPES), (HANDS_AT, n * TYPES), (ORDERS_AT, PILES),
      (LOG_HANDS_AT, turns * n * TYPES), (LOG_EATS_AT, turns * n), (LOG_KEEPS_AT, turns * n),
      (AWARDS_AT, rounds * PILES), (DISCARDS_AT, rounds * n),
  ]
  return assemble(SCALARS, scalars, tables, HEADER_SIZE, blocks, POSITION_SIZE)
