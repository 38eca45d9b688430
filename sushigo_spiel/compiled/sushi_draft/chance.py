"""Sushi Draft's chance nodes as kernels: the chip piles' orders, then each round's deal
(`rules.chance_outcomes`, `apply_chance`, `sample_chance`, `skip_chance`).

Outcomes are those of the pyspiel game: a pile's order by its number among the pile's distinct
orders (all equally likely), then a card type (`deal=card`) or a hand's number (`deal=hand`,
`compiled.hand_ranking`). Sampling uses the uniforms the Python rules use: one an order, one a
card, one a card of a whole hand. Reference: the readable rules (`sushi_draft.rules`),
held equal step by step in `tests/test_compiled_sushi_draft.py` (`tests/lockstep.py`).
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.hand_ranking import deck_deals, hand_outcomes, sample_hand, unrank
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sampling import pick_index, pick_uniformly
from sushigo_spiel.compiled.sushi_draft import views
from sushigo_spiel.compiled.sushi_draft.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                       DEALT, DEAL_BY_HAND,
                                                       DEAL_STEPS, DECK_AT, FULL_DECK_TABLE,
                                                       HAND_SIZE, LOG_EATS_AT, ORDERED,
                                                       ORDERS_AT, ORDER_COUNT_TABLE, PILES,
                                                       POSITION_DTYPE, POSITION_SIZE,
                                                       RANKING_SIZE, TYPES, WAYS_TABLE)


@njit
def initial_position(g):
  """The position before the first chance node."""
  pos = np.zeros(g[POSITION_SIZE], dtype=POSITION_DTYPE)
  pos[ACTOR] = ACTOR_CHANCE
  pos[g[ORDERS_AT]:g[ORDERS_AT] + PILES] = -1
  pos[g[LOG_EATS_AT]:] = -1  # no eat, keep, award or discard yet
  reset_deck(g, pos)
  return pos


@njit(inline="always")
def reset_deck(g, pos):
  """The whole deck back, for a round's deal."""
  for card in range(TYPES):
    pos[g[DECK_AT] + card] = g[g[FULL_DECK_TABLE] + card]


@njit(inline="always")
def _order_count(g, pos):
  """How many distinct orders the pile being ordered has."""
  return g[g[ORDER_COUNT_TABLE] + pos[ORDERED]]


@njit(inline="always")
def _deals_by_hand(g, pos):
  return pos[ORDERED] == PILES and g[DEAL_BY_HAND]


@njit(inline="always")
def _deck(g, pos):
  return pos[g[DECK_AT]:g[DECK_AT] + TYPES]


@njit
def chance_outcomes(g, pos, outcomes, probabilities):
  """Fills `outcomes` and `probabilities` (each at least `Rules.max_chance_outcomes` long) with
  the chance node's outcomes in increasing order and their probabilities; returns how many there
  are."""
  if pos[ORDERED] < PILES:
    count = _order_count(g, pos)
    for order in range(count):
      outcomes[order] = order
      probabilities[order] = 1 / count
    return count
  if g[DEAL_BY_HAND]:
    return hand_outcomes(g, g[WAYS_TABLE], g[HAND_SIZE], g[RANKING_SIZE], _deck(g, pos),
                         outcomes, probabilities)
  total = _deck(g, pos).sum()
  found = 0
  for card in range(TYPES):
    count = pos[g[DECK_AT] + card]
    if count:
      outcomes[found] = card
      probabilities[found] = count / total
      found += 1
  return found


@njit
def is_possible(g, pos, outcome):
  """Whether `outcome` is one of the chance node's outcomes."""
  if pos[ORDERED] < PILES:
    return 0 <= outcome < _order_count(g, pos)
  if g[DEAL_BY_HAND]:
    return deck_deals(g, g[WAYS_TABLE], g[HAND_SIZE], g[RANKING_SIZE], _deck(g, pos), outcome)
  return 0 <= outcome < TYPES and pos[g[DECK_AT] + outcome] > 0


@njit(inline="always")
def apply_chance(g, pos, outcome):
  """Applies one chance outcome (already checked to be possible)."""
  if pos[ORDERED] < PILES:
    pos[g[ORDERS_AT] + pos[ORDERED]] = outcome
    pos[ORDERED] += 1
  elif g[DEAL_BY_HAND]:
    hand = np.zeros(TYPES, dtype=np.int64)
    unrank(g, g[WAYS_TABLE], g[HAND_SIZE], outcome, hand)
    deal_hand(g, pos, hand)
  else:
    deal_card(g, pos, outcome)


@njit(inline="always")
def sample_chance(g, pos, rng):
  """A chance outcome drawn with its probability, with the uniforms `rules.sample_chance` uses."""
  if pos[ORDERED] < PILES:
    return pick_uniformly(_order_count(g, pos), rng)
  if g[DEAL_BY_HAND]:
    return sample_hand(g, g[WAYS_TABLE], g[HAND_SIZE], _deck(g, pos), rng)
  return pick_index(pos, g[DECK_AT], TYPES, rng)


@njit
def skip_chance(g, pos, rng):
  """Samples chance outcomes until a simultaneous node or the end of the game; a `deal=card`
  deal is dealt to its end in one go, with the draws one outcome at a time would make. A called
  kernel, compiled once: inlined, every caller (the playouts, a batch's steps) compiled the deal
  again at each call site."""
  while pos[ACTOR] == ACTOR_CHANCE:
    if _deals_by_hand(g, pos) or pos[ORDERED] < PILES:
      apply_chance(g, pos, sample_chance(g, pos, rng))
    else:
      _deal_rest(g, pos, rng)


@njit(inline="always")
def _deal_rest(g, pos, rng):
  """Deals the rest of a `deal=card` deal, one uniform a card."""
  deck, size = g[DECK_AT], g[HAND_SIZE]
  for step in range(pos[DEALT], g[DEAL_STEPS]):
    card = pick_index(pos, deck, TYPES, rng)
    pos[deck + card] -= 1
    pos[views.hand_at(g, step // size) + card] += 1
  pos[DEALT] = g[DEAL_STEPS]
  pos[ACTOR] = ACTOR_SIMULTANEOUS


@njit(inline="always")
def deal_card(g, pos, card):
  """Deals one card to the hand being dealt (`deal=card`)."""
  pos[views.hand_at(g, pos[DEALT] // g[HAND_SIZE]) + card] += 1
  pos[g[DECK_AT] + card] -= 1
  _dealt_one(g, pos)


@njit(inline="always")
def deal_hand(g, pos, hand):
  """Deals a whole hand (counts per card type) to the next hand to deal (`deal=hand`)."""
  held = views.hand_at(g, pos[DEALT])
  for card in range(TYPES):
    pos[held + card] += hand[card]
    pos[g[DECK_AT] + card] -= hand[card]
  _dealt_one(g, pos)


@njit(inline="always")
def _dealt_one(g, pos):
  pos[DEALT] += 1
  pos[ACTOR] = ACTOR_SIMULTANEOUS if pos[DEALT] == g[DEAL_STEPS] else ACTOR_CHANCE
