"""Numbering the hands a deck can deal, for `deal=hand` chance outcomes.

A hand is a count vector (cards per type); dealing a whole hand is one chance outcome whose number
is the hand's rank among every hand of that size the full deck can hold.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

# The most outcomes a chance node lists: a list of a million (outcome, probability) pairs takes
# about 100 MB; more is refused with the count (sampling needs no list: see `sample_chance`).
MAX_LISTED_OUTCOMES = 1_000_000
MAX_OUTCOME_ID = 2**31 - 1  # OpenSpiel's actions are C++ ints


def check_hand_deal(caps: Sequence[int], size: int) -> None:
  """Refuses `deal=hand` when the hands of `size` cards of the deck are too many to number as
  OpenSpiel actions."""
  count = HandRanking(caps, size).size
  if count > MAX_OUTCOME_ID:
    raise ValueError(f"parameter 'deal' is 'hand' with hands of {size} cards: the deck can deal"
                     f" {count:.3e} different hands, more than OpenSpiel's action ids hold"
                     f" ({MAX_OUTCOME_ID:,}); allowed: deal=card, or a smaller hand_size or deck")


class HandRanking:
  """Numbers every multiset of `size` cards that the deck can hold (the `deal=hand` outcomes).

  Outcome numbers follow the lexicographic order of the count vectors, computed from a table of how
  many ways the remaining types can fill the remaining cards (the combinatorial number system).
  """

  def __init__(self, caps: Sequence[int], size: int):
    self.caps = tuple(caps)
    self.hand_size = size
    ways = [[1] + [0] * size]  # ways[k][r]: hands of r cards from the last k types
    for cap in reversed(self.caps):
      below = list(itertools.accumulate(ways[0]))
      ways.insert(0, [below[r] - (below[r - cap - 1] if r > cap else 0) for r in range(size + 1)])
    self._ways = ways
    self.size = ways[0][size]

  def rank(self, hand: Sequence[int]) -> int:
    index, remaining = 0, self.hand_size
    for t, count in enumerate(hand):
      for v in range(count):
        index += self._ways[t + 1][remaining - v]
      remaining -= count
    return index

  def unrank(self, index: int) -> tuple[int, ...]:
    hand, remaining = [], self.hand_size
    for t in range(len(self.caps)):
      v = 0
      while index >= self._ways[t + 1][remaining - v]:
        index -= self._ways[t + 1][remaining - v]
        v += 1
      hand.append(v)
      remaining -= v
    return tuple(hand)

  def outcomes(self, deck: Sequence[int]) -> list[tuple[int, float]]:
    """Every hand the deck can deal now, with its multivariate hypergeometric probability; a
    ValueError, before any work, when there are more than `MAX_LISTED_OUTCOMES`."""
    count = HandRanking(deck, self.hand_size).size
    if count > MAX_LISTED_OUTCOMES:
      raise ValueError(
          f"this deal=hand chance node has {count:,} outcomes (every hand of {self.hand_size} cards"
          f" the deck can deal), more than the {MAX_LISTED_OUTCOMES:,} a chance node lists; allowed:"
          " deal=card, a smaller hand_size or deck, or sampling the deal (sample_chance)")
    total = math.comb(sum(deck), self.hand_size)
    result = []
    for hand in _bounded_compositions(tuple(deck), self.hand_size):
      ways = math.prod(math.comb(n, k) for n, k in zip(deck, hand))
      result.append((self.rank(hand), ways / total))
    return result

  def __deepcopy__(self, memo):
    return self


def _bounded_compositions(caps: tuple[int, ...], size: int):
  """Count vectors with entries within `caps` summing to `size`, in lexicographic order."""
  if len(caps) == 1:
    if size <= caps[0]:
      yield (size,)
    return
  rest = sum(caps[1:])
  for v in range(max(0, size - rest), min(caps[0], size) + 1):
    for tail in _bounded_compositions(caps[1:], size - v):
      yield (v,) + tail


def deal_step(rules, deck: Sequence[int], dealt: int, hands: Sequence[Sequence[int]],
              outcome: int) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
  """One step of a deal: the hand `outcome` goes to, that hand afterwards, and the deck.

  With `deal=card` the outcome is a card for the hand being dealt (hands are dealt one after the
  other, `rules.hand_size` cards each); with `deal=hand` it is a whole hand's number. `hands` are
  the hands dealt so far, in dealing order. A ValueError says when the deck cannot deal it.
  """
  if rules.deal == "card":
    if not 0 <= outcome < len(deck) or not deck[outcome]:
      raise ValueError(f"chance outcome {outcome} is not a card left in the deck; allowed: "
                       f"{[c for c, n in enumerate(deck) if n]}")
    receiver = dealt // rules.hand_size
    hand = tuple(n + (c == outcome) for c, n in enumerate(hands[receiver]))
    return receiver, hand, tuple(n - (c == outcome) for c, n in enumerate(deck))
  if not 0 <= outcome < rules.hand_ranking.size:
    raise ValueError(f"chance outcome {outcome} is out of range 0..{rules.hand_ranking.size - 1}")
  hand = rules.hand_ranking.unrank(outcome)
  if any(k > n for k, n in zip(hand, deck)):
    raise ValueError(f"chance outcome {outcome} ({rules.hand_string(hand)}) is not in the deck")
  return dealt, hand, tuple(n - k for n, k in zip(deck, hand))


def deal_outcomes(rules, hands: Sequence[Sequence[int]]) -> list[int]:
  """The chance outcomes that deal `hands` (count vectors, in dealing order) under `rules.deal`:
  card types one card at a time (`card`), or one hand number per hand (`hand`)."""
  if rules.deal == "hand":
    return [rules.hand_ranking.rank(hand) for hand in hands]
  return [card for hand in hands for card, count in enumerate(hand) for _ in range(count)]
