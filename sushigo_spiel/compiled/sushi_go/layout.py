"""The flat integer arrays Sushi Go's kernels work on: a game's spec and a position.

A game's `Rules` compile once into a spec, a 1-D int64 array: scalars at the fixed indices named
below (`PLAYERS`, `TYPES`, ...), lookup tables, and the offsets of a position's blocks. A position
is a 1-D int32 array (`POSITION_DTYPE`) holding everything that changes in a game, `Table` for
`Table` (`codec` converts both ways, exactly). Kernels read both through these names, so one
compiled kernel serves every game.

Every block of a position, with its shape: docs/layout.md, "Specs and positions".
"""

from __future__ import annotations

import functools

import numpy as np

from sushigo_spiel.compiled.hand_ranking import hand_ways
from sushigo_spiel.compiled.spec import assemble
from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS, TERMINAL
from sushigo_spiel.drafting.parameters import UTILITIES
from sushigo_spiel.sushi_go.cards import Kind
from sushigo_spiel.sushi_go.rules import PASS_DIRECTIONS, Rules

POSITION_DTYPE = np.int32
ACTOR_CHANCE, ACTOR_SIMULTANEOUS, ACTOR_TERMINAL = CHANCE, SIMULTANEOUS, TERMINAL

# Position header.
ACTOR, ROUND, DEALT, TURN, DRAWN = range(5)
HEADER_SIZE = 5

# Spec scalars.
(PLAYERS, TYPES, HAND_SIZE, ROUNDS, DEAL_BY_HAND, DEAL_STEPS, ROBOT, DEALT_HANDS, UTILITY,
 PASS_DIRECTION, SOY_SAUCE, CHOPSTICKS, WASABI, ROBOT_ACTIONS, NUM_ACTIONS, CATEGORIES,
 RANKING_SIZE, MAX_OUTCOMES,
 # offsets of the spec's tables
 KIND_TABLE, VALUE_TABLE, PAIR_ACTION_TABLE, PAIR_CARDS_TABLE, PAIR_RULE_TABLE, WAYS_TABLE,
 FULL_DECK_TABLE,
 # offsets of a position's blocks
 DECK_AT, ROUND_DECK_AT, HANDS_AT, TABLEAUS_AT, PUDDINGS_AT, LOG_HANDS_AT, LOG_PICKS_AT,
 LOG_DRAWN_AT, LOG_ROBOT_AT, BREAKDOWN_AT, ROUND_PUDDINGS_AT, POSITION_SIZE) = range(37)
SCALARS = 37

# Codes of the spec's scalars.
LEFT, RIGHT, ALTERNATE = (PASS_DIRECTIONS.index(name) for name in ("left", "right", "alternate"))
KIND_CODES = {kind: code for code, kind in enumerate(Kind)}
(K_TEMPURA, K_SASHIMI, K_DUMPLING, K_MAKI, K_NIGIRI, K_WASABI, K_CHOPSTICKS, K_PUDDING,
 K_SOY_SAUCE) = (KIND_CODES[kind] for kind in Kind)
NUM_KINDS = len(Kind)
# When a Chopsticks pair is legal: always, with no free Wasabi, with exactly one (`rules.py`).
PAIR_ALWAYS, PAIR_NO_FREE_WASABI, PAIR_ONE_FREE_WASABI = 0, 1, 2

# A tableau row: counts per card type, then these two at T and T + 1.
FREE_WASABI, NIGIRI_BONUS = 0, 1


def build_spec(rules: Rules) -> np.ndarray:
  """The spec of a game (see the module docstring), from its checked `Rules`: a fresh copy of the
  one built for equal rules (bots that are built per information set ask for it thousands of
  times)."""
  return _spec_of(rules).copy()


@functools.lru_cache(maxsize=64)
def _spec_of(rules: Rules) -> np.ndarray:
  n, types, size, rounds = rules.num_players, rules.num_types, rules.hand_size, rules.rounds
  hands, turns = rules.dealt_hands, rules.rounds * rules.hand_size
  ways = hand_ways(rules.deck, size) if rules.deal == "hand" else [[1]]
  scalars = {
      PLAYERS: n, TYPES: types, HAND_SIZE: size, ROUNDS: rounds,
      DEAL_BY_HAND: rules.deal == "hand", DEAL_STEPS: rules.deal_steps, ROBOT: rules.robot,
      DEALT_HANDS: hands, UTILITY: UTILITIES.index(rules.utility),
      PASS_DIRECTION: PASS_DIRECTIONS.index(rules.pass_direction), SOY_SAUCE: rules.soy_sauce,
      CHOPSTICKS: rules.chopsticks, WASABI: rules.wasabi, ROBOT_ACTIONS: rules.robot_actions,
      NUM_ACTIONS: rules.num_distinct_actions, CATEGORIES: len(rules.categories),
      RANKING_SIZE: ways[0][size] if rules.deal == "hand" else 0,
      MAX_OUTCOMES: rules.max_chance_outcomes,
  }
  pair_actions = np.full((types, types), -1)
  for (a, b), action in rules.pair_actions.items():
    pair_actions[a, b] = action
  tables = [
      (KIND_TABLE, [KIND_CODES[card.kind] for card in rules.cards]),
      (VALUE_TABLE, [card.value for card in rules.cards]),
      (PAIR_ACTION_TABLE, pair_actions.ravel()),
      (PAIR_CARDS_TABLE, [c for pair in rules.pairs for c in pair]),
      (PAIR_RULE_TABLE, rules.pair_rules),
      (WAYS_TABLE, [w for row in ways for w in row]),
      (FULL_DECK_TABLE, rules.deck),
  ]
  blocks = [
      (DECK_AT, types), (ROUND_DECK_AT, types), (HANDS_AT, hands * types),
      (TABLEAUS_AT, hands * (types + 2)), (PUDDINGS_AT, hands),
      (LOG_HANDS_AT, turns * n * types), (LOG_PICKS_AT, turns * n * 2), (LOG_DRAWN_AT, turns),
      (LOG_ROBOT_AT, turns), (BREAKDOWN_AT, rounds * n * len(rules.categories)),
      (ROUND_PUDDINGS_AT, rounds * n),
  ]
  return assemble(SCALARS, scalars, tables, HEADER_SIZE, blocks, POSITION_SIZE)
