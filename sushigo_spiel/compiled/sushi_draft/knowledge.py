"""What a Sushi Draft player knows, as kernels: determinization and the observation key.

`determinize` draws a position the player cannot tell from this one exactly as
`knowledge.determinize` (and so `resample_from_infostate`) draws it, consuming the same uniforms in
the same order: the piles' orders around the chips the player holds (`resample_piles`), then for
every round so far a deal and the hidden keeps (`resample_round`: cards the player has not seen
start as blanks and take a type when an eat or the cards the player received need one, an attempt
that contradicts an observation is drawn again), replayed from the start of the game with the real
eats and the player's own keeps through the kernels that played them (the core's `play` passed as
a function pointer: its code is compiled once, for its own pointer, not again into this one).

`observation_key` hashes what `knowledge.observation` holds, field by field, into 64 bits.

Reference: `sushi_draft.knowledge`, held equal draw for draw (and the keys against the
observations) in `tests/test_compiled_sushi_draft.py` (`tests/lockstep.py`).
"""

from __future__ import annotations

import inspect

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.rng import next_double
from sushigo_spiel.compiled.sampling import draw_cards, pick_index, pick_uniformly
from sushigo_spiel.compiled.sushi_draft import views
from sushigo_spiel.compiled.sushi_draft.chance import (apply_chance, deal_card, deal_hand,
                                                       initial_position)
from sushigo_spiel.compiled.sushi_draft.layout import (ACTOR, ACTOR_SIMULTANEOUS, ACTOR_TERMINAL,
                                                       DEALT, DEAL_BY_HAND, DEAL_STEPS,
                                                       FULL_DECK_TABLE, HAND_SIZE, KEEPING,
                                                       NOBODY, ORDERED, ORDERS_AT,
                                                       ORDER_COUNT_TABLE, PILES, PLAYERS, ROUND,
                                                       TYPES)
from sushigo_spiel.compiled.sushi_draft.scoring import chip_value
from sushigo_spiel.sushi_draft.knowledge import resample_round
from sushigo_spiel.sushi_draft.rules import KEEP, MAX_PILE

BLANK = -1  # a card whose type is not drawn yet
ATTEMPTS = inspect.signature(resample_round).parameters["attempts"].default

# --------------------------------------------------------------------------------------------
# Determinization


@njit
def determinize(g, pos, player, rng, play):
  """A new position `player` cannot tell from `pos`, what it has not seen redrawn from `rng`; the
  rounds are replayed through `play` (the core's `moves.play`, as a function pointer)."""
  if pos[ACTOR] == ACTOR_TERMINAL:
    return pos.copy()
  orders = _resample_piles(g, pos, player, rng)
  result = initial_position(g)
  for pile in range(pos[ORDERED]):
    apply_chance(g, result, orders[pile])
  if pos[ORDERED] < PILES:
    return result
  n = g[PLAYERS]
  hands = np.zeros((n, TYPES), dtype=np.int64)
  keeps = np.zeros((views.turns_per_round(g), n), dtype=np.int64)
  for round_index in range(pos[ROUND] + 1):
    _resample_round(g, pos, player, round_index, rng, hands, keeps)
    steps = pos[DEALT] if round_index == pos[ROUND] else g[DEAL_STEPS]
    _deal_first(g, result, hands, steps)
    _replay_round(g, pos, round_index, keeps, result, play)
  return result


@njit
def _resample_piles(g, pos, player, rng):
  """Each ordered pile's order redrawn (`knowledge.resample_piles`): the values of the chips
  `player` took stay in place, the others are shuffled over the other places."""
  orders = np.zeros(PILES, dtype=np.int64)
  free = np.empty(MAX_PILE, dtype=np.int64)
  for pile in range(pos[ORDERED]):
    size = views.pile_size(g, pile)
    start = views.order_at(g, pile, pos[g[ORDERS_AT] + pile])
    order = g[start:start + size].copy()
    count, taken = 0, 0
    for round_index in range(pos[ROUND]):
      taker = pos[views.award_at(g, round_index, pile)]
      if taker != NOBODY:
        if taker != player:
          free[count] = taken
          count += 1
        taken += 1
    for place in range(taken, size):
      free[count] = place
      count += 1
    values = order[free[:count]]
    for i in range(count):
      order[free[i]] = _take(values, count - i, pick_uniformly(count - i, rng))
    orders[pile] = _order_number(g, pile, order)
  return orders


@njit(inline="always")
def _take(values, length, index):
  """Removes and returns `values[index]` of the first `length` values (`list.pop`)."""
  value = values[index]
  for i in range(index, length - 1):
    values[i] = values[i + 1]
  return value


@njit
def _order_number(g, pile, order):
  """The chance outcome of a pile's order: its number among the pile's distinct orders."""
  size = len(order)
  for number in range(g[g[ORDER_COUNT_TABLE] + pile]):
    start = views.order_at(g, pile, number)
    if np.all(g[start:start + size] == order):
      return number
  return -1  # unreachable: `order` is a reordering of the pile


@njit
def _deal_first(g, pos, hands, steps):
  """The first `steps` deal outcomes that deal `hands`: whole hands, or card by card with each
  hand's cards in card order (`hand_ranking.deal_outcomes`)."""
  done = 0
  for k in range(len(hands)):
    if g[DEAL_BY_HAND]:
      if done == steps:
        return
      deal_hand(g, pos, hands[k])
      done += 1
      continue
    for card in range(TYPES):
      for _ in range(hands[k, card]):
        if done == steps:
          return
        deal_card(g, pos, card)
        done += 1


@njit
def _replay_round(g, pos, round_index, keeps, result, play):
  """Plays the logged turns of a round of `pos` on `result` through `play`: the real eats, and
  the keeps `keeps` (kept card types, by turn and player) where the turn had a Keep step."""
  n, first = g[PLAYERS], views.first_turn(g, round_index)
  actions = np.empty(n, dtype=np.int64)
  for turn in range(views.logged_turns(g, pos, round_index)):
    steps = 2 if pos[views.logged_keep_at(g, first + turn, 0)] >= 0 else 1
    for step in range(steps):
      for p in range(n):
        actions[p] = KEEP + keeps[turn, p] if step else pos[views.logged_eat_at(g, first + turn, p)]
      play(g, result, actions)


@njit
def _resample_round(g, pos, player, round_index, rng, hands, keeps):
  """Fills `hands` (by player dealt to) and `keeps` (by turn with a Keep step, then player) with
  a deal of a round and hidden keeps `player` cannot tell from the real ones
  (`knowledge.resample_round`); a deal not yet finished is drawn afresh."""
  hands[:] = 0
  if round_index == pos[ROUND] and pos[DEALT] < g[DEAL_STEPS]:
    pool = g[g[FULL_DECK_TABLE]:g[FULL_DECK_TABLE] + TYPES].copy()
    for k in range(g[PLAYERS]):
      draw_cards(pool, g[HAND_SIZE], rng, hands[k])
    return
  for _ in range(ATTEMPTS):
    if _try_round(g, pos, player, round_index, rng, hands, keeps):
      return
  raise RuntimeError("no consistent deal found for a round in the attempts resample_round makes")


@njit
def _try_round(g, pos, player, round_index, rng, hands, keeps):
  """One attempt of `_resample_round` (`knowledge._try_round`): False as soon as a random choice
  contradicts an observation. Cards are numbered by the hand dealt (player p's are p * H to
  p * H + H - 1); `kinds` holds each card's type or BLANK, `held` each hand's cards in the order
  the Python lists keep them, `pool` the unseen cards not placed yet."""
  n, size = g[PLAYERS], g[HAND_SIZE]
  first, turns = views.first_turn(g, round_index), views.logged_turns(g, pos, round_index)
  own = _hand_seen(g, pos, player, first, np.int64(0), turns)  # typed int64, not literal 0
  kinds = np.full(n * size, BLANK, dtype=np.int64)
  held = np.arange(n * size).reshape((n, size))
  count = np.full(n, size, dtype=np.int64)
  card_id = player * size
  for card in range(TYPES):
    for _ in range(own[card]):
      kinds[card_id] = card
      card_id += 1
  pool = g[g[FULL_DECK_TABLE]:g[FULL_DECK_TABLE] + TYPES] - own
  kept = np.empty((max(turns, 1), n), dtype=np.int64)
  kept_turns = 0
  for turn in range(turns):
    for p in range(n):
      eaten = views.eaten_card(pos[views.logged_eat_at(g, first + turn, p)])
      if not _eat(held[p], count[p], eaten, kinds, pool, rng):
        return False
      count[p] -= 1
    if pos[views.logged_keep_at(g, first + turn, 0)] < 0:
      continue
    seen_next = _hand_seen(g, pos, player, first, turn + 1, turns)
    if not _keep(g, pos, player, first + turn, held, count, seen_next, kinds, pool, rng,
                 kept[kept_turns]):
      return False
    _pass(held, count[0], kept[kept_turns])
    kept_turns += 1
  for card_id in range(n * size):
    if kinds[card_id] == BLANK:
      kinds[card_id] = pick_index(pool, 0, TYPES, rng)
      pool[kinds[card_id]] -= 1
  for card_id in range(n * size):
    hands[card_id // size, kinds[card_id]] += 1
  for turn in range(kept_turns):
    for p in range(n):
      keeps[turn, p] = kinds[kept[turn, p]]
  return True


@njit
def _hand_seen(g, pos, player, first, turn, turns):
  """The hand `player` held at the start of a round's `turn` (its current hand after the
  logged turns)."""
  if turn < turns:
    start = views.logged_hands_at(g, first + turn) + player * TYPES
  else:
    start = views.hand_at(g, player)
  return pos[start:start + TYPES].astype(np.int64)


@njit
def _eat(hand, count, eaten, kinds, pool, rng):
  """Takes a card of type `eaten` out of `hand` (its first `count` cards): a known one or a
  blank that takes the type, chosen as `knowledge._try_round` chooses; False if none can be."""
  known, blanks = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
  known_count, blank_count = 0, 0
  for i in range(count):
    if kinds[hand[i]] == eaten:
      known[known_count] = hand[i]
      known_count += 1
    elif kinds[hand[i]] == BLANK:
      blanks[blank_count] = hand[i]
      blank_count += 1
  weight = pool[eaten] / max(1, pool.sum())
  can_blank = blank_count > 0 and pool[eaten] > 0
  if known_count == 0 and not can_blank:
    return False
  use_blank = can_blank and \
      next_double(rng) * (known_count + weight * blank_count) >= known_count
  if use_blank:
    chosen = blanks[pick_uniformly(blank_count, rng)]
    kinds[chosen] = eaten
    pool[eaten] -= 1
  else:
    chosen = known[pick_uniformly(known_count, rng)]
  _remove(hand, count, chosen)
  return True


@njit(inline="always")
def _remove(hand, count, card_id):
  """Removes `card_id` from the first `count` entries of `hand`, keeping the others' order."""
  at = 0
  while hand[at] != card_id:
    at += 1
  _take(hand, count, at)


@njit
def _keep(g, pos, player, turn, held, count, seen_next, kinds, pool, rng, kept):
  """Each player's kept card for a game turn, in `kept` (`knowledge._try_round`): `player`'s a
  card of its real keep, its right neighbour's one that leaves exactly the cards `player`
  received (blanks taking the missing types), the others' any; False if the neighbour has none."""
  n = g[PLAYERS]
  for p in range(n):
    hand, length = held[p], count[p]
    if p == player:
      own = pos[views.logged_keep_at(g, turn, player)]
      kept[p] = _pick_of_kind(hand, length, own, kinds, rng)
    elif (p + 1) % n == player:
      received = seen_next.copy()
      received[pos[views.logged_keep_at(g, turn, player)]] -= 1
      options = np.empty(length, dtype=np.int64)
      option_count = 0
      for i in range(length):
        if _can_pass(hand, length, hand[i], kinds, received, pool):
          options[option_count] = hand[i]
          option_count += 1
      if option_count == 0:
        return False
      kept[p] = options[pick_uniformly(option_count, rng)]
      _fill_passed(hand, length, kept[p], kinds, received, pool, rng)
    else:
      kept[p] = hand[pick_uniformly(length, rng)]
  return True


@njit(inline="always")
def _pick_of_kind(hand, length, kind, kinds, rng):
  """One of the cards of type `kind` in the hand, each equally likely."""
  options = np.empty(length, dtype=np.int64)
  found = 0
  for i in range(length):
    if kinds[hand[i]] == kind:
      options[found] = hand[i]
      found += 1
  return options[pick_uniformly(found, rng)]


@njit
def _missing(hand, length, keep, kinds, received):
  """The types `received` needs beyond the known cards the hand passes when keeping `keep`, and
  how many blanks it passes."""
  missing = received.copy()
  blanks = 0
  for i in range(length):
    if hand[i] == keep:
      continue
    if kinds[hand[i]] == BLANK:
      blanks += 1
    else:
      missing[kinds[hand[i]]] -= 1
  return missing, blanks


@njit
def _can_pass(hand, length, keep, kinds, received, pool):
  """Whether keeping `keep` can pass exactly `received`, blanks taking types from `pool`."""
  missing, blanks = _missing(hand, length, keep, kinds, received)
  return missing.min() >= 0 and missing.sum() == blanks and np.all(missing <= pool)


@njit
def _fill_passed(hand, length, keep, kinds, received, pool, rng):
  """Gives the blanks the hand passes the types `received` still misses, each drawn uniformly
  among the missing cards in type order."""
  missing, _ = _missing(hand, length, keep, kinds, received)
  needed = np.empty(missing.sum(), dtype=np.int64)
  at = 0
  for card in range(TYPES):
    for _ in range(missing[card]):
      needed[at] = card
      at += 1
  for i in range(length):
    if hand[i] != keep and kinds[hand[i]] == BLANK:
      kind = _take(needed, at, pick_uniformly(at, rng))
      at -= 1
      kinds[hand[i]] = kind
      pool[kind] -= 1


@njit
def _pass(held, length, kept):
  """Every hand less its kept card goes left; each player's kept card joins the hand it
  receives, last."""
  n = len(held)
  passed = np.empty((n, length - 1), dtype=np.int64)
  for p in range(n):
    at = 0
    for i in range(length):
      if held[p, i] != kept[p]:
        passed[p, at] = held[p, i]
        at += 1
  for p in range(n):  # element by element: a slice copy compiles its shape check
    for i in range(length - 1):
      held[p, i] = passed[p - 1, i]
    held[p, length - 1] = kept[p]


# --------------------------------------------------------------------------------------------
# Observation key


@njit
def observation_key(g, before, actions, after, player):
  """A 64-bit key of `knowledge.observation(rules, before, actions, after, player)`: the step's
  kind and the actions seen (its own keep, or every eat), every chip given by `after` (round,
  pile, taker, and the value when the player took it), and the hand it holds at an Eat step."""
  h = hashing.fold(hashing.start(), before[KEEPING])
  if before[KEEPING]:
    h = hashing.fold(h, actions[player])
  else:
    for p in range(g[PLAYERS]):
      h = hashing.fold(h, actions[p])
  h = _fold_chips(g, after, player, h)
  eating = after[ACTOR] == ACTOR_SIMULTANEOUS and not after[KEEPING]
  h = hashing.fold(h, 1 if eating else 0)
  if eating:
    for card in range(TYPES):
      h = hashing.fold(h, after[views.hand_at(g, player) + card])
  return hashing.finish(h)


@njit(inline="always")
def _fold_chips(g, pos, player, h):
  """`h` followed by the number of chips given, then each (round, pile, taker, value if the
  player took it, else -1), in the order the rules give them."""
  taken = np.zeros(PILES, dtype=np.int64)
  for round_index in range(pos[ROUND]):
    for pile in range(PILES):
      taken[pile] += pos[views.award_at(g, round_index, pile)] != NOBODY
  h = hashing.fold(h, taken.sum())
  taken[:] = 0
  for round_index in range(pos[ROUND]):
    for pile in range(PILES):
      taker = pos[views.award_at(g, round_index, pile)]
      if taker == NOBODY:
        continue
      value = chip_value(g, pos, pile, taken[pile]) if taker == player else -1
      taken[pile] += 1
      h = hashing.fold(hashing.fold(hashing.fold(hashing.fold(h, round_index), pile), taker),
                       value)
  return h
