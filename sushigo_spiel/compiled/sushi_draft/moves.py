"""Sushi Draft's moves as kernels: legal actions with the pyspiel game's action ids, the Eat and
Keep steps (passing left with the kept card added back), and the end of a round (chips to the
best player not tied, the discards, the next deal): the counterparts of `rules.legal_actions`
and `rules.play`. Reference: the readable rules (`sushi_draft.rules`), held equal step by step
in `tests/test_compiled_sushi_draft.py` (`tests/lockstep.py`).
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_draft import views
from sushigo_spiel.compiled.sushi_draft.chance import reset_deck
from sushigo_spiel.compiled.sushi_draft.layout import (ACTOR, ACTOR_CHANCE, ACTOR_TERMINAL, DEALT,
                                                       HANDS_AT, KEEPING, NOBODY, PILES, PLAYERS,
                                                       ROUND, ROUNDS, SUSHI, TURN, TYPES,
                                                       WILD_WEIGHT)
from sushigo_spiel.sushi_draft.cards import DESSERT, WILD
from sushigo_spiel.sushi_draft.rules import KEEP, WILD_EAT

# --------------------------------------------------------------------------------------------
# Legal actions


@njit(inline="always")
def legal_actions(g, pos, player, out):
  """Fills `out` with the player's legal actions at a simultaneous node, in increasing order;
  returns how many there are."""
  held = views.hand_at(g, player)
  found = 0
  if pos[KEEPING]:
    for card in range(TYPES):
      if pos[held + card]:
        out[found] = KEEP + card
        found += 1
    return found
  for card in range(SUSHI):
    if pos[held + card]:
      out[found] = card
      found += 1
  if pos[held + WILD]:
    eaten = _types_eaten(g, pos, player)
    for sushi in range(SUSHI):
      if eaten & (1 << sushi):
        out[found] = WILD_EAT + sushi
        found += 1
  return found


@njit(inline="always")
def _types_eaten(g, pos, player):
  """The sushi types `player` ate this round, as bits."""
  eaten, first = 0, views.first_turn(g, pos[ROUND])
  for turn in range(first, first + views.logged_turns(g, pos, pos[ROUND])):
    eaten |= 1 << views.eaten_type(pos[views.logged_eat_at(g, turn, player)])
  return eaten


# --------------------------------------------------------------------------------------------
# Playing a step


@njit(inline="always")
def play(g, pos, actions):
  """Applies one joint action (one legal action per player, in player order)."""
  if pos[KEEPING]:
    _keep(g, pos, actions)
  else:
    _eat(g, pos, actions)


@njit(inline="always")
def _eat(g, pos, actions):
  """Logs the hands and the eats, takes the eaten cards; then the Keep step, or with one card
  left the end of the round."""
  n, turn = g[PLAYERS], views.turn_index(g, pos)
  logged, hands = views.logged_hands_at(g, turn), g[HANDS_AT]
  for i in range(n * TYPES):
    pos[logged + i] = pos[hands + i]
  for p in range(n):
    pos[views.logged_eat_at(g, turn, p)] = actions[p]
    pos[views.hand_at(g, p) + views.eaten_card(actions[p])] -= 1
  if views.turns_per_round(g) - pos[TURN] > 1:
    pos[KEEPING] = 1
  else:
    _end_round(g, pos)


@njit(inline="always")
def _keep(g, pos, actions):
  """Each player sets one card aside, passes the rest left and adds the kept card back."""
  n, turn = g[PLAYERS], views.turn_index(g, pos)
  for p in range(n):
    pos[views.logged_keep_at(g, turn, p)] = actions[p] - KEEP
  last = views.hand_at(g, n - 1)
  for card in range(TYPES):
    carried = pos[last + card] - (actions[n - 1] - KEEP == card)
    for p in range(n - 1, 0, -1):
      held = views.hand_at(g, p) + card
      pos[held] = pos[held - TYPES] - (actions[p - 1] - KEEP == card) + (actions[p] - KEEP == card)
    pos[views.hand_at(g, 0) + card] = carried + (actions[0] - KEEP == card)
  pos[KEEPING] = 0
  pos[TURN] += 1


@njit
def _end_round(g, pos):
  """Gives this round's chips and records the discards; then the next deal or the end."""
  n, round_index = g[PLAYERS], pos[ROUND]
  counts = pile_counts(g, pos)
  for pile in range(PILES):
    winner = chip_winner(counts[pile])
    if winner != NOBODY and chips_taken(g, pos, pile) < views.pile_size(g, pile):
      pos[views.award_at(g, round_index, pile)] = winner
  for p in range(n):  # loops on the few types: `np.argmax` and a slice's fill compile kernels
    held, discard = views.hand_at(g, p), 0
    for card in range(TYPES):  # the first type of the most cards left, as `np.argmax`
      if pos[held + card] > pos[held + discard]:
        discard = card
    pos[views.discard_at(g, round_index, p)] = discard
    for card in range(TYPES):
      pos[held + card] = 0
  pos[ROUND] += 1
  pos[ACTOR] = ACTOR_TERMINAL if pos[ROUND] == g[ROUNDS] else ACTOR_CHANCE
  pos[KEEPING] = pos[DEALT] = pos[TURN] = 0
  reset_deck(g, pos)


@njit
def pile_counts(g, pos):
  """What each player compares for each pile in the round ending now, by pile then player
  (`rules.pile_counts`): sushi eaten of the pile's type in half cards (a Wild weighs the spec's
  `WILD_WEIGHT`), and for Dessert the number of types eaten."""
  n = g[PLAYERS]
  counts = np.zeros((PILES, n), dtype=np.int64)
  first = views.first_turn(g, pos[ROUND])
  for turn in range(first, first + views.turns_per_round(g)):
    for p in range(n):
      action = pos[views.logged_eat_at(g, turn, p)]
      counts[views.eaten_type(action), p] += 2 if action < WILD_EAT else g[WILD_WEIGHT]
  for p in range(n):
    for sushi in range(SUSHI):
      counts[DESSERT, p] += counts[sushi, p] > 0
  return counts


@njit
def chip_winner(counts):
  """Who takes a chip: the player with the best count no other player has; NOBODY if none or no
  count > 0 (`rules.chip_winner`)."""
  winner, best = NOBODY, 0
  for p in range(len(counts)):
    if counts[p] > best and _held_once(counts, counts[p]):
      winner, best = p, counts[p]
  return winner


@njit(inline="always")
def _held_once(counts, count):
  found = 0
  for p in range(len(counts)):
    found += counts[p] == count
  return found == 1


@njit(inline="always")
def chips_taken(g, pos, pile):
  """How many chips of a pile finished rounds gave."""
  taken = 0
  for round_index in range(pos[ROUND]):
    taken += pos[views.award_at(g, round_index, pile)] != NOBODY
  return taken
