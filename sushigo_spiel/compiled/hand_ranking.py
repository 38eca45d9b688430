"""Numbering whole hands, for `deal=hand` chance outcomes, as kernels both games' cores share.

A hand's number is its rank among every hand of that size the full deck can hold, as
`drafting.hand_ranking.HandRanking` numbers it, from a table of how many ways the remaining card
types can fill the remaining cards. A game's spec holds that table (`hand_ways`, flattened) at an
offset `ways_at`; the kernels take the spec, that offset and the hand size.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sampling import comb, draw_cards

MAX_RANK = 2 ** 63 - 1


def hand_ways(caps, size: int) -> list[list[int]]:
  """`ways[t][r]`: the hands of r cards that card types t.. can make within `caps` (the table
  behind the `deal=hand` outcome numbers, `drafting.hand_ranking`). A ValueError when outcome
  numbers do not fit in 64 bits (nor do OpenSpiel's actions)."""
  ways = [[1] + [0] * size]  # with no type left, only the empty hand
  for cap in reversed(caps):
    after = ways[0]
    ways.insert(0, [sum(after[r - v] for v in range(min(cap, r) + 1)) for r in range(size + 1)])
  if max(max(row) for row in ways) > MAX_RANK:
    raise ValueError(f"deal=hand with hands of {size} cards from this deck numbers more hands"
                     " than 64-bit outcome ids can hold; allowed: deal=card, or smaller hands")
  return ways


@njit
def rank(g, ways_at, size, hand):
  """The outcome number of a hand (`HandRanking.rank`)."""
  index, remaining = 0, size
  for card in range(len(hand)):
    for taken in range(hand[card]):
      index += g[ways_at + (card + 1) * (size + 1) + remaining - taken]
    remaining -= hand[card]
  return index


@njit
def unrank(g, ways_at, size, index, hand):
  """Fills `hand` with the hand numbered `index` (`HandRanking.unrank`)."""
  remaining = size
  for card in range(len(hand)):
    row = ways_at + (card + 1) * (size + 1)
    taken = 0
    while index >= g[row + remaining - taken]:
      index -= g[row + remaining - taken]
      taken += 1
    hand[card] = taken
    remaining -= taken


@njit
def deck_deals(g, ways_at, size, count, deck, number):
  """Whether `deck` can deal the hand numbered `number` (`count` hands are numbered)."""
  if number < 0 or number >= count:
    return False
  hand = np.zeros(len(deck), dtype=np.int64)
  unrank(g, ways_at, size, number, hand)
  return np.all(hand <= deck)


@njit
def hand_outcomes(g, ways_at, size, count, deck, outcomes, probabilities):
  """Every hand `deck` can deal, by number (of `count`), with its multivariate hypergeometric
  chance, written to `outcomes` and `probabilities`; returns how many there are."""
  hand = np.zeros(len(deck), dtype=np.int64)
  total = comb(deck.sum(), size)
  found = 0
  for number in range(count):
    unrank(g, ways_at, size, number, hand)
    if np.all(hand <= deck):
      ways = 1.0
      for card in range(len(hand)):
        ways *= comb(deck[card], hand[card])
      outcomes[found] = number
      probabilities[found] = ways / total
      found += 1
  return found


@njit
def sample_hand(g, ways_at, size, deck, rng):
  """The number of a hand drawn from `deck` (left unchanged), one uniform a card
  (`rules.sample_chance`)."""
  hand = np.zeros(len(deck), dtype=np.int64)
  draw_cards(deck.astype(np.int64), size, rng, hand)
  return rank(g, ways_at, size, hand)
