"""The `cards` abstraction of Sushi Go as kernels: one key per (action, what its cards score with).

Keys are action-centred: each legal action gets its own key from the action and the features that
decide what its card (or Chopsticks pair) will score, so what is learnt about "a Sashimi when the
tableau holds two" is shared by every hand that offers one there. An action's features: the cards
left in the hand (up to `STAGES`), the action id, then three numbers per card from what the player
knows, by the card's kind (`card_features`). Neither round nor turn is kept (for Pudding, the
rounds left), so one key gathers the visits of some thirty (round, turn) pairs of the full game.

`cards+rank` adds the action's rank under the heuristic's values (up to `RANKS`) and its shortfall
from the best (bucketed at `GAPS`); the kernels take the heuristic as a `VALUATION` pair
(`valuation_of(params)`), empty for `cards`. The key is the features hashed to 64 bits
(`compiled.hashing`); the tables index it modulo their size (`mccfr`). Robot games are not
covered. The reasoning and the measured trade-offs: docs/blueprint.md.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import types

from solvers.policy_kernels.heuristic import heuristic_values
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.interface import (ACTIONS, POSITION, SPEC, VALUES, TypedTuple, pointer,
                                              values)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.layout import (
    CHOPSTICKS, FREE_WASABI, HAND_SIZE, KIND_TABLE, K_CHOPSTICKS, K_DUMPLING, K_MAKI, K_NIGIRI,
    K_PUDDING, K_SASHIMI, K_SOY_SAUCE, K_TEMPURA, K_WASABI, NUM_ACTIONS, PAIR_CARDS_TABLE, PLAYERS,
    PUDDINGS_AT, ROUND, ROUNDS, TURN, TYPES, VALUE_TABLE)

# `heuristic_values(spec, pos, player, params, legal, values) -> count` and its parameters. Called
# through this pointer, the heuristic is compiled once (in the game's core) rather than into every
# kernel that computes keys, which would add minutes to the first compile.
VALUES_OF = types.int64(SPEC, POSITION, types.int64, VALUES, ACTIONS, VALUES)
VALUATION = types.Tuple((types.FunctionType(VALUES_OF), VALUES))
CARD_FEATURES = 3  # numbers per card
HEADER = 2  # cards left, action
VALUE_FEATURES = 2  # rank and gap, with a valuation
MAX_FEATURES = HEADER + 2 * CARD_FEATURES + VALUE_FEATURES
STAGES = 5  # cards left in the hand, capped
RANKS = 3  # an action's rank by value, capped: 0 (a best action), 1, 2, 3 or lower
GAPS = (0.5, 2.0, 5.0)  # bucket bounds of the points an action's value is short of the best


@njit(inline="always")
def _passed(g, pos, player, card):
  """How many of `card` the hand the player passed at the last turn held (0 at a round's first
  turn): the hand it began that turn with, less the cards it placed, plus returned Chopsticks."""
  if pos[TURN] == 0:
    return 0
  index = views.turn_index(g, pos) - 1
  count = pos[views.logged_hands_at(g, index) + player * g[TYPES] + card]
  pick = views.logged_pick_at(g, index, player)
  first, second = pos[pick], pos[pick + 1]
  count -= (first == card) + (second == card)
  if second >= 0 and card == g[CHOPSTICKS]:
    count += 1
  return count


@njit(inline="always")
def _best_nigiri(g, pos, start, skip):
  """The highest Nigiri value among the card counts at `pos[start:]`, one `skip` card left out."""
  best = 0
  for card in range(g[TYPES]):
    count = pos[start + card] - (card == skip)
    if count > 0 and g[g[KIND_TABLE] + card] == K_NIGIRI:
      best = max(best, g[g[VALUE_TABLE] + card])
  return best


@njit(inline="always")
def _best_passed_nigiri(g, pos, player):
  best = 0
  for card in range(g[TYPES]):
    if g[g[KIND_TABLE] + card] == K_NIGIRI and _passed(g, pos, player, card) > 0:
      best = max(best, g[g[VALUE_TABLE] + card])
  return best


@njit(inline="always")
def _kind_total(g, pos, row, kind, by_value):
  """The cards of `kind` on the tableau row at `pos[row]` (their values summed if `by_value`)."""
  total = 0
  for card in range(g[TYPES]):
    if g[g[KIND_TABLE] + card] == kind:
      total += pos[row + card] * (g[g[VALUE_TABLE] + card] if by_value else 1)
  return total


@njit(inline="always")
def _lead(g, pos, player, kind, by_value, kept):
  """The player's count of `kind` on its tableau (plus its kept Puddings if `kept`) minus the
  highest of the other players'."""
  own, best = 0, -(1 << 30)
  for p in range(g[PLAYERS]):
    value = _kind_total(g, pos, views.tableau_at(g, p), kind, by_value)
    if kept:
      value += pos[g[PUDDINGS_AT] + p]
    if p == player:
      own = value
    else:
      best = max(best, value)
  return own - best


@njit(inline="always")
def _clip(value, bound):
  return max(-bound, min(bound, value))


# A card's three features by its kind, from what the player knows ("passed": the hand it passed at
# the last turn, less what it placed; empty at a round's first turn):
#   Tempura     own Tempura mod 2, other Tempura in hand (up to 2), Tempura in the passed hand (2)
#   Sashimi     own Sashimi mod 3, other Sashimi in hand (up to 2), Sashimi in the passed hand (2)
#   Dumpling    own Dumplings (up to 5), other Dumplings in hand (2), in the passed hand (2)
#   Maki        own Maki icons minus the most of an opponent (-4..4), 0, 0
#   Nigiri      free Wasabi (0 or 1), 0, 0
#   Wasabi      free Wasabi (up to 2), best other Nigiri in hand (value), best in the passed hand
#   Chopsticks  Chopsticks on the tableau (0 or 1), 0, 0
#   Pudding     own Puddings (kept and this round's) minus the most of an opponent (-3..3), rounds
#               left after this one (up to 2), 0
#   Soy Sauce   Soy Sauce on the tableau (0 or 1), colours on the tableau (up to 8), 0
@njit
def card_features(g, pos, player, card, out, at):
  """Writes the three features of `card` for `player` to `out[at:at + 3]` (the table above)."""
  kind, row, held = g[g[KIND_TABLE] + card], views.tableau_at(g, player), views.hand_at(g, player)
  types = g[TYPES]
  own, other = pos[row + card], pos[held + card] - 1
  out[at] = out[at + 1] = out[at + 2] = 0
  if kind == K_TEMPURA or kind == K_SASHIMI or kind == K_DUMPLING:
    own = _kind_total(g, pos, row, kind, False)
    out[at] = own % 2 if kind == K_TEMPURA else (own % 3 if kind == K_SASHIMI else min(own, 5))
    out[at + 1] = min(other, 2)
    out[at + 2] = min(_passed(g, pos, player, card), 2)
  elif kind == K_MAKI:
    out[at] = _clip(_lead(g, pos, player, K_MAKI, True, False), 4)
  elif kind == K_NIGIRI:
    out[at] = min(pos[row + types + FREE_WASABI], 1)
  elif kind == K_WASABI:
    out[at] = min(pos[row + types + FREE_WASABI], 2)
    out[at + 1] = _best_nigiri(g, pos, held, card)
    out[at + 2] = _best_passed_nigiri(g, pos, player)
  elif kind == K_CHOPSTICKS:
    out[at] = min(own, 1)
  elif kind == K_PUDDING:
    out[at] = _clip(_lead(g, pos, player, K_PUDDING, False, True), 3)
    out[at + 1] = min(g[ROUNDS] - 1 - pos[ROUND], 2)
  elif kind == K_SOY_SAUCE:
    out[at] = min(own, 1)
    colours = 0
    seen = 0
    for c in range(types):
      bit = 1 << g[g[KIND_TABLE] + c]
      if pos[row + c] > 0 and not seen & bit:
        seen |= bit
        colours += 1
    out[at + 1] = min(colours, 8)


@njit(inline="always")
def action_features(g, pos, player, action, out):
  """Writes the features of `player`'s legal `action` (a single card or a Chopsticks pair) to
  `out`; returns how many (5 or 8). The cards go round one loop, so `card_features` is called at
  one place with an integer offset (given the constant `HEADER`, numba compiled it twice, once
  for the literal 2)."""
  out[0], out[1] = min(g[HAND_SIZE] - pos[TURN], STAGES), action
  types = g[TYPES]
  pair = g[PAIR_CARDS_TABLE] + 2 * (action - types)
  cards = 1 if action < types else 2
  for i in range(cards):
    card = action if cards == 1 else g[pair + i]
    card_features(g, pos, player, card, out, HEADER + i * CARD_FEATURES)
  return HEADER + cards * CARD_FEATURES


@njit
def features_into(g, pos, player, action, out):
  """`action_features` compiled once, for the callers off the `cards` keys' hot path (inlining
  it there too would add a minute to the first compile)."""
  return action_features(g, pos, player, action, out)


@njit(inline="always")
def _key(features, count):
  return hashing.finish(hashing.fold_range(hashing.start(), features, 0, count))


@njit
def action_key(g, pos, player, action, scratch):
  """The 64-bit key of `action` for `player` (`scratch`: int64[MAX_FEATURES])."""
  return _key(scratch, action_features(g, pos, player, action, scratch))


@njit(inline="always")
def cards_keys(g, pos, player, actions, count, keys, scratch):
  """Writes the `cards` keys of `player`'s first `count` actions `actions` to `keys`."""
  for i in range(count):
    keys[i] = action_key(g, pos, player, actions[i], scratch)


@njit
def action_keys(g, pos, player, legal, count, valuation, keys, scratch):
  """Writes the keys of `player`'s first `count` legal actions `legal` (all of them, increasing,
  as `legal_actions` lists them) to `keys`: the `cards` keys when `valuation` (a `VALUATION`) has
  no parameters, else the `cards+rank` keys."""
  values_of, params = valuation
  if len(params) == 0:
    cards_keys(g, pos, player, legal, count, keys, scratch)
    return
  values = np.empty(count)
  values_of(g, pos, player, params, legal, values)
  ranked_keys(g, pos, player, legal, values, keys, scratch)


@njit
def ranked_keys(g, pos, player, legal, values, keys, scratch):
  """Writes the `cards+rank` keys of `player`'s legal actions `legal` (all of them, increasing),
  whose heuristic values are `values` (as many), to `keys`."""
  best = values.max()
  for i in range(len(values)):
    size = features_into(g, pos, player, legal[i], scratch)
    scratch[size], scratch[size + 1] = value_features(values, i, best)
    keys[i] = _key(scratch, size + VALUE_FEATURES)


@njit(inline="always")
def value_features(values, i, best):
  """The rank of action `i` among `values` (up to `RANKS`) and its gap bucket (0 to 3)."""
  rank = 0
  for j in range(len(values)):
    rank += values[j] > values[i]
  gap, bucket = best - values[i], 0
  while bucket < len(GAPS) and gap > GAPS[bucket]:
    bucket += 1
  return min(rank, RANKS), bucket


def valuation_of(params: np.ndarray) -> TypedTuple:
  """The kernels' `VALUATION` of the heuristic's parameters `params` (empty: the `cards` keys)."""
  return TypedTuple((_heuristic_pointer(), values(params)), VALUATION)


@functools.cache
def _heuristic_pointer():
  return pointer(heuristic_values, VALUES_OF)


def ranked_features_of(g, pos, player, params, action):
  """The `cards+rank` features of a legal action under the heuristic's parameters `params`, as an
  array (for tests and inspection)."""
  return _ranked_features_of(g, pos, player, valuation_of(params), action)


@njit
def _ranked_features_of(g, pos, player, valuation, action):
  values_of, params = valuation
  legal, all_values = np.empty(g[NUM_ACTIONS], dtype=np.int64), np.empty(g[NUM_ACTIONS])
  count = values_of(g, pos, player, params, legal, all_values)
  values = all_values[:count]
  out = np.zeros(MAX_FEATURES, dtype=np.int64)
  size = features_into(g, pos, player, action, out)
  index = np.flatnonzero(legal[:count] == action)[0]
  out[size], out[size + 1] = value_features(values, index, values.max())
  return out[:size + VALUE_FEATURES].copy()


@njit
def features_of(g, pos, player, action):
  """The features of an action as an array (for tests and inspection)."""
  out = np.zeros(MAX_FEATURES, dtype=np.int64)
  return out[:features_into(g, pos, player, action, out)].copy()


@njit
def keys_of(g, pos, player, actions):
  """The keys of `actions` for `player` at `pos`, one per action."""
  out = np.empty(len(actions), dtype=np.int64)
  cards_keys(g, pos, player, actions, len(actions), out, np.zeros(MAX_FEATURES, dtype=np.int64))
  return out
