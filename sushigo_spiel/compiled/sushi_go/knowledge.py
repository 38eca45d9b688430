"""Determinization as a kernel: a position the player cannot tell from this one, with the cards it
has not seen redealt, drawn exactly as `knowledge.determinize` (and so `resample_from_infostate`)
draws them: the same uniforms in the same order, hand by hand.

`observation_key` is the 64-bit key of `knowledge.observation`, what a player observes of one step:
the search trees' child key.

The redrawn deal (`_resample_deals`, or `_resample_robot_round` for the robot variant) replaces the
current round's deal, and the round is rebuilt from its start with the round's logged picks (and
the robot's draws), turn by turn through the core's `play`, passed as a function pointer: its code
is compiled once, for its own pointer, not again into the determinization.

Reference: `sushi_go.knowledge`, held equal draw for draw in `tests/test_compiled_core.py`
(`tests/lockstep.py`), in distribution in `tests/test_compiled_determinization.py`; the keys are
checked against the observations in `tests/test_compiled_search.py`.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.chance import deal_card, deal_hand, draw_for_robot
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                    ACTOR_TERMINAL, CHOPSTICKS, DEALT, DEALT_HANDS,
                                                    DEAL_BY_HAND, DEAL_STEPS, DECK_AT, DRAWN,
                                                    HAND_SIZE, LOG_DRAWN_AT, PLAYERS,
                                                    ROBOT, ROUND, ROUND_DECK_AT, TURN, TYPES)
from sushigo_spiel.compiled.sushi_go.moves import clear_round, logged_action
from sushigo_spiel.compiled.sampling import draw_cards, pick_index


@njit
def determinize(g, pos, player, rng, play):
  """A new position `player` cannot tell from `pos`, what it has not seen redrawn from `rng`; the
  round is replayed through `play` (the core's `moves.play`, as a function pointer)."""
  result = pos.copy()
  if pos[ACTOR] == ACTOR_TERMINAL:
    return result
  draws = np.full(g[HAND_SIZE], -1, dtype=np.int64)
  if g[ROBOT]:
    deals = _resample_robot_round(g, pos, player, rng, draws)
  else:
    deals = _resample_deals(g, pos, player, rng)
  _rebuild_round(g, result, deals, draws, play)
  return result


@njit
def with_deal(g, pos, deals, play):
  """`pos`, at a round's first turn, with this round's hands dealt as `deals` (a row of card
  counts per player) and the rest of the round's deck left in the deck (no robot); `play` as
  `determinize` takes it."""
  result = pos.copy()
  _rebuild_round(g, result, deals, np.full(g[HAND_SIZE], -1, dtype=np.int64), play)
  return result


@njit
def observation_key(g, before, actions, after, player):
  """The key of what `player` observes of the step from `before` (the joint action `actions`,
  then chance up to `after`), as `knowledge.observation` has it: every pick, its hand at `after`,
  and when `after` starts a round (or ends the game) the picks of the round just scored, from
  which its tableaus (with their automatic last cards) follow. Keys of two steps from one position
  are equal exactly when the observations are (up to 64-bit collisions)."""
  state = hashing.fold_range(hashing.start(), actions, 0, g[PLAYERS])
  held = views.hand_at(g, player)
  state = hashing.fold_range(state, after, held, held + g[TYPES])
  if after[TURN] == 0 and after[ROUND] > 0:
    scored = views.logged_pick_at(g, (after[ROUND] - 1) * g[HAND_SIZE], 0)
    state = hashing.fold_range(state, after, scored, scored + g[HAND_SIZE] * g[PLAYERS] * 2)
  return hashing.finish(state)


@njit
def is_dealt(g, pos):
  """Whether this round's hands are in the players' hands (the deal is over, the game is not)."""
  return pos[DEALT] >= g[DEAL_STEPS] and pos[ACTOR] != ACTOR_TERMINAL


@njit
def holder(g, round_index, dealt_to, turn):
  """Who holds, at `turn` of a round, the hand dealt to `dealt_to`."""
  return (dealt_to + turn * views.direction(g, round_index)) % g[PLAYERS]


@njit
def hand_seen(g, pos, player, dealt_to):
  """Whether `player` has held the hand dealt to `dealt_to` (without the robot variant)."""
  if not is_dealt(g, pos):
    return False
  turns_to_reach_player = (player - dealt_to) * views.direction(g, pos[ROUND]) % g[PLAYERS]
  return turns_to_reach_player <= pos[TURN]


@njit
def _resample_deals(g, pos, player, rng):
  """This round's deal by player dealt to, the hands `player` has not held redrawn around the
  cards known to be in them (`knowledge.resample_deals`)."""
  n, turn, round_index = g[PLAYERS], pos[TURN], pos[ROUND]
  first_turn = round_index * g[HAND_SIZE]
  dealt = views.logged_hands(g, pos, first_turn) if turn else views.hands(g, pos, n)
  deals = dealt.astype(np.int64).reshape((n, g[TYPES]))
  current = np.empty_like(deals)
  known = np.zeros_like(deals)
  pool = views.deck(g, pos).astype(np.int64)
  for k in range(n):  # rows copied element by element: a row copy compiles its shape check
    hand = views.hand(g, pos, holder(g, round_index, k, turn))
    for card in range(len(hand)):
      current[k, card] = hand[card]
    if not hand_seen(g, pos, player, k):
      cards = _known_cards(g, pos, k)
      for card in range(len(cards)):
        known[k, card] = cards[card]
      pool += current[k] - known[k]
  for k in range(n):
    if not hand_seen(g, pos, player, k):
      drawn = known[k].copy()
      draw_cards(pool, current[k].sum() - known[k].sum(), rng, drawn)
      for card in range(len(drawn)):  # `deals[k] +=` stores the row back: a row copy
        deals[k, card] += drawn[card] - current[k, card]
  return deals


@njit
def _known_cards(g, pos, dealt_to):
  """Cards that must be in the hand dealt to `dealt_to`: Chopsticks returned to it that later
  picks cannot explain (`knowledge._known_cards`)."""
  change = np.zeros(g[TYPES], dtype=np.int64)
  needed = np.zeros(g[TYPES], dtype=np.int64)
  round_index = pos[ROUND]
  first_turn = round_index * g[HAND_SIZE]
  for turn in range(pos[TURN]):
    picks = views.logged_pick(g, pos, first_turn + turn, holder(g, round_index, dealt_to, turn))
    for card in picks:
      if card >= 0:
        change[card] -= 1
        needed[card] = max(needed[card], -change[card])
    if picks[1] >= 0:
      change[g[CHOPSTICKS]] += 1
  return np.maximum(0, needed + change)


@njit
def _resample_robot_round(g, pos, player, rng, draws):
  """The robot variant's deal (both hands and the robot's pile, as dealt) with what `player` has
  not seen redrawn, and the robot's draws so far written to `draws`
  (`knowledge.resample_robot_round`)."""
  everyone, turn, types = g[DEALT_HANDS], pos[TURN], g[TYPES]
  pool = views.deck(g, pos).astype(np.int64)
  deals = np.zeros((everyone, types), dtype=np.int64)
  if pos[DEALT] < g[DEAL_STEPS]:  # nobody has seen any of this round's cards yet
    for k in range(everyone):
      pool += views.hand(g, pos, k)
    for k in range(everyone):
      draw_cards(pool, views.hand(g, pos, k).sum(), rng, deals[k])
    return deals
  other = 1 - player
  first_turn = pos[ROUND] * g[HAND_SIZE]
  count = turn + (pos[DRAWN] >= 0)
  for t in range(turn):  # element by element: a slice copy compiles its shape check
    draws[t] = pos[g[LOG_DRAWN_AT] + first_turn + t]
  draws[turn] = pos[DRAWN]
  dealt = views.logged_hands(g, pos, first_turn) if turn else views.hands(g, pos, 2)
  for k in range(2):
    for card in range(types):
      deals[k, card] = dealt[k * types + card]
  if count:
    deals[first_turn % 2, draws[0]] -= 1  # drawn at the first turn
  pile = views.hand(g, pos, 2)
  pool += pile
  if pos[DRAWN] >= 0 and views.controller(g, pos) == other:
    pool[pos[DRAWN]] += 1
    draws[count - 1] = pick_index(pool, 0, len(pool), rng)
    pool[draws[count - 1]] -= 1
  if turn == 0:
    pool += deals[other]
    deals[other] = 0
    draw_cards(pool, g[HAND_SIZE], rng, deals[other])
  draw_cards(pool, pile.sum(), rng, deals[2])
  for card in draws[:count]:
    deals[2, card] += 1
  return deals


@njit
def _rebuild_round(g, pos, deals, draws, play):
  """Replays the current round from its start with `deals` (by hand dealt) and the robot's
  `draws`: the deal as far as it went, then the logged picks, as joint actions through `play`."""
  dealt, turns, drawn = pos[DEALT], pos[TURN], pos[DRAWN]
  _restart_round(g, pos)
  if dealt == g[DEAL_STEPS]:
    for k in range(len(deals)):
      deal_hand(g, pos, deals[k])
    pos[DEALT] = dealt
    pos[ACTOR] = ACTOR_CHANCE if g[ROBOT] else ACTOR_SIMULTANEOUS
  else:
    _deal_first(g, pos, deals, dealt)
  first_turn = pos[ROUND] * g[HAND_SIZE]
  actions = np.empty(g[PLAYERS], dtype=np.int64)
  for turn in range(turns):
    if g[ROBOT]:
      draw_for_robot(g, pos, draws[turn])
    for p in range(g[PLAYERS]):
      actions[p] = logged_action(g, pos, first_turn + turn, p)
    play(g, pos, actions)
  if drawn >= 0:  # this turn's draw, before the picks
    draw_for_robot(g, pos, draws[turns])


@njit
def _restart_round(g, pos):
  """The position at the start of the current round, before its deal (the log kept)."""
  clear_round(g, pos)
  views.copy_counts(g, pos, g[ROUND_DECK_AT], g[DECK_AT])


@njit
def _deal_first(g, pos, deals, steps):
  """The first `steps` deal outcomes that deal `deals`: whole hands, or card by card with each
  hand's cards in card order (`hand_ranking.deal_outcomes`)."""
  done = 0
  for k in range(len(deals)):
    if g[DEAL_BY_HAND]:
      if done == steps:
        return
      deal_hand(g, pos, deals[k])
      done += 1
      continue
    for card in range(g[TYPES]):
      for _ in range(deals[k, card]):
        if done == steps:
          return
        deal_card(g, pos, card)
        done += 1
