"""The players' moves as kernels: legal actions with the pyspiel game's action ids, and a turn of
simultaneous play (placing, Chopsticks, the robot's card, passing, the automatic last card, round
scoring): the counterparts of `rules.legal_actions` and `rules.play`.

A turn is played from its picks, the cards each player places in placement order, written to the
turn's log entry (`play` writes them from the actions; `logged_action` reads an action back, so
that determinization replays a round's logged turns through `play` itself). Reference: the
readable rules (`sushi_go.rules`), held equal step by step in `tests/test_compiled_core.py`
(`tests/lockstep.py`).
"""

from __future__ import annotations

from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                    ACTOR_TERMINAL, CHOPSTICKS, DEALT, DEALT_HANDS,
                                                    DECK_AT, DRAWN, FREE_WASABI, HAND_SIZE,
                                                    KIND_TABLE, K_NIGIRI, LOG_DRAWN_AT,
                                                    LOG_ROBOT_AT, NIGIRI_BONUS, PAIR_ACTION_TABLE,
                                                    PAIR_ALWAYS, PAIR_CARDS_TABLE,
                                                    PAIR_NO_FREE_WASABI, PAIR_ONE_FREE_WASABI,
                                                    PAIR_RULE_TABLE, PLAYERS, ROBOT, ROBOT_ACTIONS,
                                                    ROUND, ROUNDS, ROUND_DECK_AT, TURN, TYPES,
                                                    VALUE_TABLE, WASABI)
from sushigo_spiel.compiled.sushi_go.scoring import score_round
from sushigo_spiel.sushi_go.scoring import WASABI_MULTIPLIER

# --------------------------------------------------------------------------------------------
# Legal actions


@njit(inline="always")
def legal_actions(g, pos, player, out):
  """Fills `out` with the player's legal actions at a simultaneous node, in increasing order;
  returns how many there are."""
  held, types = views.hand_at(g, player), g[TYPES]
  if g[ROBOT] and player == views.controller(g, pos):
    return _robot_actions(g, pos, held, out)
  found = 0
  for card in range(types):
    if pos[held + card]:
      out[found] = card
      found += 1
  chopsticks, row = g[CHOPSTICKS], views.tableau_at(g, player)
  if chopsticks < 0 or pos[row + chopsticks] == 0:
    return found
  return _pair_actions(g, pos, held, pos[row + types + FREE_WASABI], out, found)


@njit(inline="always")
def _robot_actions(g, pos, held, out):
  """The controller's actions: one card for themselves and one for the robot."""
  types, base = g[TYPES], g[ROBOT_ACTIONS]
  found = 0
  for own in range(types):
    for given in range(types):
      if pos[held + own] and pos[held + given] and (own != given or pos[held + own] > 1):
        out[found] = base + own * types + given
        found += 1
  return found


@njit(inline="always")
def _pair_actions(g, pos, held, free_wasabi, out, singles):
  """Appends the Chopsticks pairs the hand allows after the `singles` single picks in `out`."""
  types = g[TYPES]
  found = singles
  for i in range(singles):
    for j in range(singles):
      a, b = out[i], out[j]
      action = g[g[PAIR_ACTION_TABLE] + a * types + b]
      if action < 0 or (a == b and pos[held + a] < 2):
        continue
      rule = g[g[PAIR_RULE_TABLE] + action - types]
      if rule == PAIR_ALWAYS or (rule == PAIR_NO_FREE_WASABI and free_wasabi == 0) or \
          (rule == PAIR_ONE_FREE_WASABI and free_wasabi == 1):
        out[found] = action
        found += 1
  return found


# --------------------------------------------------------------------------------------------
# Playing a turn


@njit(inline="always")
def play(g, pos, actions):
  """Applies one joint action (one legal action per player, in player order)."""
  index = views.turn_index(g, pos)
  robot_card = -1
  for p in range(g[PLAYERS]):
    given = action_picks(g, actions[p], pos, views.logged_pick_at(g, index, p))
    if given >= 0:
      robot_card = given
  play_logged_picks(g, pos, robot_card)


@njit(inline="always")
def action_picks(g, action, picks, at):
  """Writes the cards `action` places in the player's tableau to `picks[at]` and `picks[at + 1]`
  (-1 for none); returns the card it gives the robot, or -1."""
  types = g[TYPES]
  picks[at + 1] = -1
  if action >= g[ROBOT_ACTIONS]:
    picks[at] = (action - g[ROBOT_ACTIONS]) // types
    return (action - g[ROBOT_ACTIONS]) % types
  if action < types:
    picks[at] = action
  else:
    pair = g[PAIR_CARDS_TABLE] + 2 * (action - types)
    picks[at], picks[at + 1] = g[pair], g[pair + 1]
  return -1


@njit(inline="always")
def logged_action(g, pos, turn_index, player):
  """The action `player` took at turn `turn_index` of the game, from its logged picks (and the
  robot's logged card when it controlled the robot): the inverse of `action_picks`."""
  pick = views.logged_pick_at(g, turn_index, player)
  first, second = pos[pick], pos[pick + 1]
  if g[ROBOT] and player == views.turn_controller(turn_index):
    return g[ROBOT_ACTIONS] + first * g[TYPES] + pos[g[LOG_ROBOT_AT] + turn_index]
  if second < 0:
    return first
  return g[g[PAIR_ACTION_TABLE] + first * g[TYPES] + second]


@njit(inline="always")
def play_logged_picks(g, pos, robot_card):
  """Plays the current turn from the picks already written to its log entry (and the robot's
  card), then the automatic last card and the round's scoring when they follow. The last card's
  turn goes round the same loop: one inlined copy of `_place_turn`, not two, for every kernel
  that inlines `play` to copy."""
  size = g[HAND_SIZE]
  while True:
    _place_turn(g, pos, robot_card)
    if g[ROBOT] or pos[TURN] != size - 1:
      break
    _log_last_cards(g, pos)
    robot_card = -1
  if pos[TURN] < size:
    pos[ACTOR] = ACTOR_CHANCE if g[ROBOT] else ACTOR_SIMULTANEOUS
  else:
    score_round(g, pos)
    _start_next_round(g, pos)


@njit(inline="always")
def _place_turn(g, pos, robot_card):
  """Logs the hands, moves the logged picks from the hands to the tableaus, passes the hands."""
  n, types, index, chopsticks = g[PLAYERS], g[TYPES], views.turn_index(g, pos), g[CHOPSTICKS]
  hands, logged = views.hand_at(g, 0), views.logged_hands_at(g, index)
  for i in range(n * types):
    pos[logged + i] = pos[hands + i]
  for p in range(n):
    pick = views.logged_pick_at(g, index, p)
    first, second = pos[pick], pos[pick + 1]
    held, row = views.hand_at(g, p), views.tableau_at(g, p)
    pos[held + first] -= 1
    if second >= 0:  # a Chopsticks pair: the Chopsticks go back into the hand
      pos[held + second] -= 1
      pos[held + chopsticks] += 1
      pos[row + chopsticks] -= 1
    place(g, pos, row, first)
    if second >= 0:
      place(g, pos, row, second)
  if g[ROBOT]:
    pos[views.hand_at(g, views.controller(g, pos)) + robot_card] -= 1
    place(g, pos, views.tableau_at(g, n), robot_card)
    pos[g[LOG_DRAWN_AT] + index] = pos[DRAWN]
    pos[g[LOG_ROBOT_AT] + index] = robot_card
    pos[DRAWN] = -1
  _pass_hands(pos, hands, n, types, views.direction(g, pos[ROUND]))
  pos[TURN] += 1


@njit(inline="always")
def place(g, rows, row, card):
  """Places `card` on the tableau row starting at `rows[row]`: a Nigiri goes onto a free Wasabi
  if there is one."""
  types = g[TYPES]
  rows[row + card] += 1
  if card == g[WASABI]:
    rows[row + types + FREE_WASABI] += 1
  elif g[g[KIND_TABLE] + card] == K_NIGIRI and rows[row + types + FREE_WASABI] > 0:
    rows[row + types + FREE_WASABI] -= 1
    rows[row + types + NIGIRI_BONUS] += (WASABI_MULTIPLIER - 1) * g[g[VALUE_TABLE] + card]


@njit(inline="always")
def _pass_hands(pos, hands, n, types, direction):
  """Player p receives the hand of player p - 1 when passing left (+1), of p + 1 when right;
  the players' hands start at `hands`."""
  last = hands + (n - 1) * types
  for card in range(types):
    if direction > 0:
      kept = pos[last + card]
      for at in range(last + card, hands + card, -types):
        pos[at] = pos[at - types]
      pos[hands + card] = kept
    else:
      kept = pos[hands + card]
      for at in range(hands + card, last + card, types):
        pos[at] = pos[at + types]
      pos[last + card] = kept


@njit(inline="always")
def _log_last_cards(g, pos):
  """Logs the picks of the automatic last turn: each player's single remaining card."""
  index = views.turn_index(g, pos)
  for p in range(g[PLAYERS]):
    pick = views.logged_pick_at(g, index, p)
    hand, card = views.hand(g, pos, p), 0
    while hand[card] == 0:  # the one card left (a loop: `np.argmax` compiles a kernel of its own)
      card += 1
    pos[pick] = card
    pos[pick + 1] = -1


@njit
def _start_next_round(g, pos):
  """Moves on to the next round's deal, or to the end of the game."""
  pos[ROUND] += 1
  clear_round(g, pos)
  if pos[ROUND] == g[ROUNDS]:
    pos[ACTOR] = ACTOR_TERMINAL
  views.copy_counts(g, pos, g[DECK_AT], g[ROUND_DECK_AT])


@njit
def clear_round(g, pos):
  """A round before its deal: no hand, no tableau, no robot's draw, a chance node next."""
  everyone = g[DEALT_HANDS]
  pos[ACTOR] = ACTOR_CHANCE
  pos[DEALT] = 0
  pos[TURN] = 0
  pos[DRAWN] = -1
  views.hands(g, pos, everyone)[:] = 0
  views.tableaus(g, pos, everyone)[:] = 0
