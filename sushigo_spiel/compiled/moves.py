"""The players' moves as kernels: legal actions with the pyspiel game's action ids, and a turn of
simultaneous play (placing, Chopsticks, the robot's card, passing, the automatic last card, round
scoring): the counterparts of `rules.legal_actions` and `rules.play`.

A turn is played from its picks, the cards each player places in placement order (`play` turns the
actions into picks), so that determinization replays a round's logged picks through the same code.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled import views
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                           ACTOR_TERMINAL, CHOPSTICKS, DEALT, DEALT_HANDS, DRAWN,
                                           FREE_WASABI, HAND_SIZE, K_NIGIRI, KIND_TABLE,
                                           LOG_DRAWN_AT, LOG_ROBOT_AT, NIGIRI_BONUS,
                                           PAIR_ACTION_TABLE, PAIR_ALWAYS, PAIR_CARDS_TABLE,
                                           PAIR_NO_FREE_WASABI, PAIR_ONE_FREE_WASABI,
                                           PAIR_RULE_TABLE, PLAYERS, ROBOT, ROBOT_ACTIONS, ROUND,
                                           ROUNDS, TURN, TYPES, VALUE_TABLE, WASABI)
from sushigo_spiel.compiled.scoring import score_round
from sushigo_spiel.sushi_go.scoring import WASABI_MULTIPLIER

# --------------------------------------------------------------------------------------------
# Legal actions


@njit
def legal_actions(g, pos, player, out):
  """Fills `out` with the player's legal actions at a simultaneous node, in increasing order;
  returns how many there are."""
  hand = views.hands(g, pos, g[PLAYERS])[player]
  if g[ROBOT] and player == views.controller(g, pos):
    return _robot_actions(g, hand, out)
  found = 0
  for card in range(len(hand)):
    if hand[card]:
      out[found] = card
      found += 1
  chopsticks = g[CHOPSTICKS]
  row = views.tableaus(g, pos, g[PLAYERS])[player]
  if chopsticks < 0 or row[chopsticks] == 0:
    return found
  return _pair_actions(g, hand, row[len(hand) + FREE_WASABI], out, found)


@njit
def _robot_actions(g, hand, out):
  """The controller's actions: one card for themselves and one for the robot."""
  types, base = len(hand), g[ROBOT_ACTIONS]
  found = 0
  for own in range(types):
    for given in range(types):
      if hand[own] and hand[given] and (own != given or hand[own] > 1):
        out[found] = base + own * types + given
        found += 1
  return found


@njit
def _pair_actions(g, hand, free_wasabi, out, singles):
  """Appends the Chopsticks pairs the hand allows after the `singles` single picks in `out`."""
  types = len(hand)
  found = singles
  for i in range(singles):
    for j in range(singles):
      a, b = out[i], out[j]
      action = g[g[PAIR_ACTION_TABLE] + a * types + b]
      if action < 0 or (a == b and hand[a] < 2):
        continue
      rule = g[g[PAIR_RULE_TABLE] + action - types]
      if rule == PAIR_ALWAYS or (rule == PAIR_NO_FREE_WASABI and free_wasabi == 0) or \
          (rule == PAIR_ONE_FREE_WASABI and free_wasabi == 1):
        out[found] = action
        found += 1
  return found


# --------------------------------------------------------------------------------------------
# Playing a turn


@njit
def play(g, pos, actions):
  """Applies one joint action (one legal action per player, in player order)."""
  n = g[PLAYERS]
  picks = np.empty((n, 2), dtype=np.int64)
  robot_card = -1
  for p in range(n):
    given = action_picks(g, actions[p], picks[p])
    if given >= 0:
      robot_card = given
  play_picks(g, pos, picks, robot_card)


@njit
def action_picks(g, action, picks):
  """Writes the cards `action` places in the player's tableau into `picks` (two entries, -1 for
  none); returns the card it gives the robot, or -1."""
  types = g[TYPES]
  picks[1] = -1
  if action >= g[ROBOT_ACTIONS]:
    picks[0] = (action - g[ROBOT_ACTIONS]) // types
    return (action - g[ROBOT_ACTIONS]) % types
  if action < types:
    picks[0] = action
  else:
    pair = g[PAIR_CARDS_TABLE] + 2 * (action - types)
    picks[0], picks[1] = g[pair], g[pair + 1]
  return -1


@njit
def play_picks(g, pos, picks, robot_card):
  """Plays one turn from the cards each player places (`picks`, (n, 2)) and the robot's card,
  then the automatic last card and the round's scoring when they follow."""
  _place_turn(g, pos, picks, robot_card)
  size = g[HAND_SIZE]
  if not g[ROBOT] and pos[TURN] == size - 1:
    _place_turn(g, pos, _last_cards(g, pos), -1)
  if pos[TURN] < size:
    pos[ACTOR] = ACTOR_CHANCE if g[ROBOT] else ACTOR_SIMULTANEOUS
  else:
    score_round(g, pos)
    _start_next_round(g, pos)


@njit
def _place_turn(g, pos, picks, robot_card):
  """Logs the turn, moves the picked cards from the hands to the tableaus, passes the hands."""
  n, index = g[PLAYERS], views.turn_index(g, pos)
  hands = views.hands(g, pos, n)
  rows = views.tableaus(g, pos, g[DEALT_HANDS])
  views.logged_hands(g, pos, index)[:, :] = hands
  views.logged_picks(g, pos, index)[:, :] = picks
  chopsticks = g[CHOPSTICKS]
  for p in range(n):
    first, second = picks[p, 0], picks[p, 1]
    hands[p, first] -= 1
    if second >= 0:  # a Chopsticks pair: the Chopsticks go back into the hand
      hands[p, second] -= 1
      hands[p, chopsticks] += 1
      rows[p, chopsticks] -= 1
    place(g, rows[p], first)
    if second >= 0:
      place(g, rows[p], second)
  if g[ROBOT]:
    hands[views.controller(g, pos), robot_card] -= 1
    place(g, rows[n], robot_card)
    pos[g[LOG_DRAWN_AT] + index] = pos[DRAWN]
    pos[g[LOG_ROBOT_AT] + index] = robot_card
    pos[DRAWN] = -1
  _pass_hands(hands, views.direction(g, pos[ROUND]))
  pos[TURN] += 1


@njit
def place(g, row, card):
  """Places `card` on a tableau row: a Nigiri goes onto a free Wasabi if there is one."""
  types = g[TYPES]
  row[card] += 1
  if card == g[WASABI]:
    row[types + FREE_WASABI] += 1
  elif g[g[KIND_TABLE] + card] == K_NIGIRI and row[types + FREE_WASABI] > 0:
    row[types + FREE_WASABI] -= 1
    row[types + NIGIRI_BONUS] += (WASABI_MULTIPLIER - 1) * g[g[VALUE_TABLE] + card]


@njit
def _pass_hands(hands, direction):
  """Player p receives the hand of player p - 1 when passing left (+1), of p + 1 when right."""
  n = len(hands)
  for card in range(hands.shape[1]):
    if direction > 0:
      last = hands[n - 1, card]
      for p in range(n - 1, 0, -1):
        hands[p, card] = hands[p - 1, card]
      hands[0, card] = last
    else:
      first = hands[0, card]
      for p in range(n - 1):
        hands[p, card] = hands[p + 1, card]
      hands[n - 1, card] = first


@njit
def _last_cards(g, pos):
  """The picks of the automatic last turn: each player's single remaining card."""
  hands = views.hands(g, pos, g[PLAYERS])
  picks = np.full((len(hands), 2), -1, dtype=np.int64)
  for p in range(len(hands)):
    picks[p, 0] = np.argmax(hands[p])
  return picks


@njit
def _start_next_round(g, pos):
  """Clears the hands, tableaus and robot's draw; the next round's deal (or the end) follows."""
  everyone = g[DEALT_HANDS]
  pos[ROUND] += 1
  pos[ACTOR] = ACTOR_TERMINAL if pos[ROUND] == g[ROUNDS] else ACTOR_CHANCE
  pos[DEALT] = 0
  pos[TURN] = 0
  pos[DRAWN] = -1
  views.hands(g, pos, everyone)[:, :] = 0
  views.tableaus(g, pos, everyone)[:, :] = 0
  views.round_deck(g, pos)[:] = views.deck(g, pos)
