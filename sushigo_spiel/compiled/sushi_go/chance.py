"""Dealing: the initial position and the chance nodes, as kernels (`rules.chance_outcomes`,
`apply_chance`, `sample_chance`, `skip_chance`).

Outcomes are those of the pyspiel game: a card type (`deal=card`, and the robot's draw) or a hand's
number (`deal=hand`, numbered by `compiled.hand_ranking` from the spec's ways table).
Sampling uses the uniforms the Python rules use: one a card, one a card of a whole hand.
Reference: the readable rules (`sushi_go.rules`), held equal step by step in
`tests/test_compiled_core.py` (`tests/lockstep.py`).
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                    BREAKDOWN_AT, DEALT, DEAL_BY_HAND, DEAL_STEPS,
                                                    DECK_AT, DRAWN, FULL_DECK_TABLE, HAND_SIZE,
                                                    LOG_PICKS_AT, PLAYERS, POSITION_DTYPE,
                                                    POSITION_SIZE, RANKING_SIZE, ROBOT, TYPES,
                                                    WAYS_TABLE)
from sushigo_spiel.compiled.hand_ranking import (deck_deals, hand_outcomes, sample_hand,
                                                 unrank)
from sushigo_spiel.compiled.sampling import pick_index


@njit
def initial_position(g):
  """The position before the first chance node."""
  pos = np.zeros(g[POSITION_SIZE], dtype=POSITION_DTYPE)
  pos[ACTOR] = ACTOR_CHANCE
  pos[DRAWN] = -1
  pos[g[LOG_PICKS_AT]:g[BREAKDOWN_AT]] = -1  # no pick, draw or robot card logged yet
  deck, round_deck = views.deck(g, pos), views.round_deck(g, pos)
  for card in range(g[TYPES]):  # element by element: a slice copy compiles its shape check's
    deck[card] = round_deck[card] = g[g[FULL_DECK_TABLE] + card]  # message, seconds of CPU
  return pos


@njit
def chance_outcomes(g, pos, outcomes, probabilities):
  """Fills `outcomes` and `probabilities` (each at least `MAX_OUTCOMES` long) with the chance
  node's outcomes in increasing order and their probabilities; returns how many there are."""
  if pos[DEALT] < g[DEAL_STEPS] and g[DEAL_BY_HAND]:
    return hand_outcomes(g, g[WAYS_TABLE], g[HAND_SIZE], g[RANKING_SIZE], views.deck(g, pos),
                         outcomes, probabilities)
  start = _draw_pool_at(g, pos)
  counts = pos[start:start + g[TYPES]]
  total = counts.sum()
  found = 0
  for card in range(len(counts)):
    if counts[card]:
      outcomes[found] = card
      probabilities[found] = counts[card] / total
      found += 1
  return found


@njit
def is_possible(g, pos, outcome):
  """Whether `outcome` is one of the chance node's outcomes."""
  if outcome < 0:
    return False
  if pos[DEALT] < g[DEAL_STEPS] and g[DEAL_BY_HAND]:
    return deck_deals(g, g[WAYS_TABLE], g[HAND_SIZE], g[RANKING_SIZE], views.deck(g, pos), outcome)
  return outcome < g[TYPES] and pos[_draw_pool_at(g, pos) + outcome] > 0


@njit(inline="always")
def _draw_pool_at(g, pos):
  """Where the next card comes from: the deck while dealing, then the robot's pile."""
  if pos[DEALT] < g[DEAL_STEPS]:
    return g[DECK_AT]
  return views.hand_at(g, g[PLAYERS])


@njit(inline="always")
def apply_chance(g, pos, outcome):
  """Applies one chance outcome (already checked to be possible)."""
  if pos[DEALT] == g[DEAL_STEPS]:
    draw_for_robot(g, pos, outcome)
  elif g[DEAL_BY_HAND]:
    hand = np.zeros(g[TYPES], dtype=np.int64)
    unrank(g, g[WAYS_TABLE], g[HAND_SIZE], outcome, hand)
    deal_hand(g, pos, hand)
  else:
    deal_card(g, pos, outcome)


@njit(inline="always")
def sample_chance(g, pos, rng):
  """A chance outcome drawn with its probability, with the uniforms `rules.sample_chance` uses."""
  if pos[DEALT] < g[DEAL_STEPS] and g[DEAL_BY_HAND]:
    return sample_hand(g, g[WAYS_TABLE], g[HAND_SIZE], views.deck(g, pos), rng)
  return pick_index(pos, _draw_pool_at(g, pos), g[TYPES], rng)


@njit
def skip_chance(g, pos, rng):
  """Samples chance outcomes until a simultaneous node or the end of the game; a `deal=card`
  deal is dealt to its end in one go, with the draws one outcome at a time would make (as
  `rules.skip_chance` does)."""
  while pos[ACTOR] == ACTOR_CHANCE:
    if pos[DEALT] < g[DEAL_STEPS] and not g[DEAL_BY_HAND]:
      _deal_rest(g, pos, rng)
    else:
      apply_chance(g, pos, sample_chance(g, pos, rng))


@njit(inline="always")
def _deal_rest(g, pos, rng):
  """Deals the rest of a `deal=card` deal, hand by hand, one uniform a card."""
  size, types, deck = g[HAND_SIZE], g[TYPES], g[DECK_AT]
  while pos[DEALT] < g[DEAL_STEPS]:
    holder = pos[DEALT] // size
    held = views.hand_at(g, holder)
    for _ in range(pos[DEALT], (holder + 1) * size):
      card = pick_index(pos, deck, types, rng)
      pos[deck + card] -= 1
      pos[held + card] += 1
    pos[DEALT] = (holder + 1) * size
  pos[ACTOR] = ACTOR_CHANCE if g[ROBOT] else ACTOR_SIMULTANEOUS


@njit(inline="always")
def deal_card(g, pos, card):
  """Deals one card to the hand being dealt (`deal=card`; the robot's pile is the last hand)."""
  pos[views.hand_at(g, pos[DEALT] // g[HAND_SIZE]) + card] += 1
  pos[g[DECK_AT] + card] -= 1
  _dealt_one(g, pos)


@njit
def deal_hand(g, pos, hand):
  """Deals a whole hand (counts per card type) to the next hand to deal (`deal=hand`)."""
  held, deck = views.hand(g, pos, pos[DEALT]), views.deck(g, pos)
  for card in range(len(hand)):  # element by element, as in `initial_position`
    held[card] += hand[card]
    deck[card] -= hand[card]
  _dealt_one(g, pos)


@njit(inline="always")
def _dealt_one(g, pos):
  pos[DEALT] += 1
  finished = pos[DEALT] == g[DEAL_STEPS] and not g[ROBOT]
  pos[ACTOR] = ACTOR_SIMULTANEOUS if finished else ACTOR_CHANCE


@njit
def draw_for_robot(g, pos, card):
  """The robot's controller draws `card` from the robot's pile into their hand."""
  pos[views.hand_at(g, g[PLAYERS]) + card] -= 1
  pos[views.hand_at(g, views.controller(g, pos)) + card] += 1
  pos[DRAWN] = card
  pos[ACTOR] = ACTOR_SIMULTANEOUS
