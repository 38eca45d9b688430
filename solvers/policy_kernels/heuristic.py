"""The heuristic baseline bot as kernels: `solvers.baselines.HeuristicBot`'s action values, choice
and policy at a position, identical to the Python bot's bit for bit.

Reference: `baselines.HeuristicBot` and its `_Valuer` (what each card is worth and why), held equal
at every decision by `tests/test_compiled_heuristic.py`. Both exist on purpose: the Python bot
plays without compiling anything; these kernels play it inside compiled code (rollouts, priors,
opponent models, the luck's reference, the batch's opponents). Identical, not close, so the same
choice wherever values tie (lowest action id): each floating-point operation is done in the
Python bot's order, and CPython's own arithmetic where a kernel would differ (`_c_pow`,
`_python_sum`, `comb`'s exact quotients). A robot controller's action is valued by the card it
keeps. Parameters: a float array, `parameters(values)`, in the order of `PARAMETER_NAMES`, the
last the epsilon of `heuristic_eps`. Kernels: `heuristic_values`, `heuristic_action`,
`heuristic_policy`, `rollout_action`. Why bit for bit: docs/search.md ("Compiled search").
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sampling import comb, draw_index
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.knowledge import hand_seen
from sushigo_spiel.compiled.sushi_go.layout import (CATEGORIES, CHOPSTICKS, DEALT_HANDS, DRAWN,
                                                    FREE_WASABI, HAND_SIZE, KIND_TABLE, K_DUMPLING,
                                                    K_MAKI, K_NIGIRI, K_PUDDING, K_SASHIMI,
                                                    K_SOY_SAUCE, K_TEMPURA, K_WASABI, PLAYERS,
                                                    PUDDINGS_AT, ROBOT, ROUND, ROUNDS, TURN, TYPES,
                                                    VALUE_TABLE)
from sushigo_spiel.compiled.sushi_go.moves import action_picks, legal_actions, place
from sushigo_spiel.compiled.sushi_go.scoring import TALLY_SIZE, round_breakdown, tally
from sushigo_spiel.sushi_go.scoring import (DUMPLING_POINTS, MAKI_AWARDS, PUDDING_AWARD,
                                            SASHIMI_SET_POINTS, SASHIMI_SET_SIZE, SOY_SAUCE_POINTS,
                                            TEMPURA_SET_POINTS, TEMPURA_SET_SIZE,
                                            WASABI_MULTIPLIER)

PARAMETER_NAMES = ("set_weight", "dumpling_curve", "wasabi_weight", "wasabi_patience",
                   "maki_weight", "maki_pace", "pudding_weight", "pudding_pace",
                   "chopsticks_weight", "deny_weight", "soy_sauce_lead", "temperature")
(SET_WEIGHT, DUMPLING_CURVE, WASABI_WEIGHT, WASABI_PATIENCE, MAKI_WEIGHT, MAKI_PACE,
 PUDDING_WEIGHT, PUDDING_PACE, CHOPSTICKS_WEIGHT, DENY_WEIGHT, SOY_SAUCE_LEAD, TEMPERATURE,
 EPSILON) = range(len(PARAMETER_NAMES) + 1)
PARAMETERS_SIZE = EPSILON + 1

# As in `baselines`: added to every modelled variance.
_BASE_VARIANCE = 0.25
_COMPENSATED_SUM = sys.version_info >= (3, 12)


def parameters(values: Mapping[str, float], epsilon: float = 0.0) -> np.ndarray:
  """The kernels' parameter array: `values` (every name of `PARAMETER_NAMES`, as a
  `HeuristicBot`'s `weights`), then `epsilon`, read by the `heuristic_eps` rollout policy only."""
  if set(values) != set(PARAMETER_NAMES):
    raise ValueError(f"heuristic parameters {sorted(values)}; allowed: exactly the names"
                     f" {', '.join(PARAMETER_NAMES)} (HeuristicBot.WEIGHTS)")
  if not 0.0 <= epsilon <= 1.0:
    raise ValueError(f"epsilon is {epsilon}; allowed: a probability, 0 to 1")
  return np.array([float(values[name]) for name in PARAMETER_NAMES] + [float(epsilon)])


# --------------------------------------------------------------------------------------------
# Floating point as CPython computes it


@intrinsic
def _c_pow(typingctx, base, exponent):
  """`base ** exponent` for two floats, as CPython computes it: the C library's `pow`, declared
  `nobuiltin` so that LLVM keeps the call (it would turn `pow(x, 2.0)` into `x * x`)."""
  signature = types.float64(types.float64, types.float64)

  def codegen(context, builder, sig, args):
    double = ir.DoubleType()
    c_pow = cgutils.get_or_insert_function(builder.module, ir.FunctionType(double, [double] * 2),
                                           "pow")
    c_pow.attributes.add("nobuiltin")
    return builder.call(c_pow, args)

  return signature, codegen


@njit
def _python_sum(values):
  """`sum(values)` of floats as the running CPython adds them (left to right before 3.12, Neumaier-compensated from 3.12 on)."""
  total, compensation = 0.0, 0.0
  for x in values:
    added = total + x
    if _COMPENSATED_SUM:
      if abs(total) >= abs(x):
        compensation += (total - added) + x
      else:
        compensation += (x - added) + total
    total = added
  if compensation != 0.0 and math.isfinite(compensation):
    total += compensation
  return total


NO_SKIP = np.int64(-1)  # `_product`'s `skipped` for none (an int64: a literal compiles it again)


@njit
def _product(values, skipped):
  """`math.prod` of `values` but the one at index `skipped` (NO_SKIP: none), from left to
  right."""
  result = 1.0
  for i in range(len(values)):
    if i != skipped:
      result *= values[i]
  return result


# --------------------------------------------------------------------------------------------
# Probabilities (`baselines._at_least`, `_survives`, `_normal_above`)


@njit
def _at_least(probabilities, count):
  """The chance that at least `count` of independent events with these probabilities happen."""
  if count <= 0:
    return 1.0
  below = np.zeros(count)  # below[k]: chance of exactly k events so far, k < count
  below[0] = 1.0
  for p in probabilities:
    for k in range(count - 1, 0, -1):
      below[k] = below[k] * (1 - p) + below[k - 1] * p
    below[0] = below[0] * (1 - p)
  return 1.0 - _python_sum(below)


@njit
def _survives(copies, cards, removed):
  """The chance that some of `copies` cards among `cards` survive `removed` random removals."""
  if copies == 0:
    return 0.0
  if removed < copies:
    return 1.0
  return 1.0 - comb(cards - copies, removed - copies) / comb(cards, removed)


@njit
def _normal_above(difference, variance):
  """P(X > 0) for X normal with this mean and variance."""
  return 0.5 * (1.0 + math.erf(difference / math.sqrt(2.0 * variance)))


# --------------------------------------------------------------------------------------------
# What the player knows, and the caches of one decision


class _Hands(NamedTuple):
  """What `_availability` reads of one decision of player `me`: the hands to come, and its
  cache."""
  me: int
  size: int  # cards in the player's hand
  future_picks: int
  direction: int
  knows: np.ndarray  # by holder: whether the player knows the hand held
  seen: np.ndarray  # [holder][card type]: those hands
  unseen_share: np.ndarray
  availability: np.ndarray  # [card][kept][later turn - 1]
  available: np.ndarray  # [card][kept]: computed


class _View(NamedTuple):
  """One decision of `player`: its `PlayerView` and what `_Valuer` derives from it once (counts,
  the next player's points), with the hands to come. Each function below takes the members it
  reads, not the view: a compiled call takes a reference to every array it is passed, an atomic
  operation each, which cost more than the valuation's arithmetic when every function took the
  whole view."""
  me: int
  round: int
  future_picks: int
  hand: np.ndarray  # counts per card type
  tableau: np.ndarray  # the player's tableau row: counts, free Wasabi, Nigiri bonus
  unseen: np.ndarray
  unseen_total: int
  maki_icons: np.ndarray  # by player
  puddings: np.ndarray  # by player, this round's included
  colours: np.ndarray  # by player, card kinds in the tableau
  nigiri: np.ndarray  # the Nigiri card numbers by decreasing value
  receiver_points: np.ndarray  # by card type (`_receiver_points`)
  best_receiver_points: int  # the best of them in the hand (`_best_receiver_points`)
  hands: _Hands


@njit
def knows_hand(g, pos, player, holder):
  """Whether `player` knows the hand `holder` holds now (`knowledge.hand_seen` of the rules)."""
  if g[ROBOT] and pos[DRAWN] >= 0 and player != holder == views.controller(g, pos):
    return False  # the controller's hand now holds the card it drew from the robot's pile
  dealt_to = (holder - pos[TURN] * views.direction(g, pos[ROUND])) % g[PLAYERS]
  return hand_seen(g, pos, player, dealt_to)


@njit
def unseen_cards(g, pos, player, knows):
  """The cards `player` has not seen (`knowledge.knowledge`'s `unseen`): the deck at the round's
  deal (less every earlier round's tableaus) less its hand, the hands it knows (`knows`, by
  holder) and this round's tableaus, the robot's included."""
  unseen = views.round_deck(g, pos).astype(np.int64) - views.hand(g, pos, player)
  for holder in range(g[PLAYERS]):
    if knows[holder]:
      unseen -= views.hand(g, pos, holder)
  for row in range(g[DEALT_HANDS]):
    unseen -= views.tableau(g, pos, row)[:g[TYPES]]
  return unseen


@njit
def _view(g, pos, player):
  """The `_View` of `player` at the simultaneous node `pos`."""
  n, types = g[PLAYERS], g[TYPES]
  hand = views.hand(g, pos, player).astype(np.int64)
  size = hand.sum()
  knows = np.zeros(n, dtype=np.bool_)
  seen = np.zeros((n, types), dtype=np.int64)
  for holder in range(n):
    if holder != player and knows_hand(g, pos, player, holder):
      knows[holder] = True
      held = views.hand(g, pos, holder)
      for card in range(types):  # element by element: a row copy compiles its shape check's
        seen[holder, card] = held[card]  # message, seconds of CPU
  unseen = unseen_cards(g, pos, player, knows)
  unseen_total = unseen.sum()
  share = np.zeros(types)
  for card in range(types):
    if unseen_total:
      share[card] = unseen[card] / unseen_total
  maki = np.zeros(n, dtype=np.int64)
  puddings, colours = np.zeros_like(maki), np.zeros_like(maki)
  for p in range(n):
    row = views.tableau(g, pos, p)
    # Kinds and flags typed int64 and boolean, not literal: numba compiles a kernel again for
    # each literal argument.
    maki[p] = _kind_total(g, row, np.int64(K_MAKI), np.bool_(True))
    puddings[p] = pos[g[PUDDINGS_AT] + p] + _kind_total(g, row, np.int64(K_PUDDING),
                                                        np.bool_(False))
    colours[p] = _colours(g, row, -1)
  hands = _Hands(player, size, size - 1, views.direction(g, pos[ROUND]), knows, seen, share,
                 np.empty((types, size + 2, max(size - 1, 0))),
                 np.zeros((types, size + 2), dtype=np.bool_))
  receiver_points = _receiver_points(g, pos, player, hand)
  return _View(player, pos[ROUND], size - 1, hand, views.tableau(g, pos, player).astype(np.int64),
               unseen, unseen_total, maki, puddings, colours, _nigiri_by_value(g), receiver_points,
               _best_receiver_points(receiver_points, hand), hands)


@njit
def _kind_total(g, row, kind, by_value):
  """The cards of `kind` in a tableau row, or the sum of their values."""
  total = 0
  for card in range(g[TYPES]):
    if g[g[KIND_TABLE] + card] == kind:
      total += row[card] * (g[g[VALUE_TABLE] + card] if by_value else 1)
  return total


@njit
def _colours(g, row, extra_kind):
  """The card kinds in a tableau row, and `extra_kind` (-1: none)."""
  kinds = 0 if extra_kind < 0 else 1 << extra_kind
  for card in range(g[TYPES]):
    if row[card]:
      kinds |= 1 << g[g[KIND_TABLE] + card]
  count = 0
  while kinds:
    count += kinds & 1
    kinds >>= 1
  return count


@njit
def _nigiri_by_value(g):
  """The Nigiri card numbers, highest value first, equal values in card order (as `sorted`
  orders them for `_Valuer`): an insertion sort, which compiles in a fraction of `np.argsort`'s
  time for the few Nigiri a deck has."""
  cards = np.empty(g[TYPES], dtype=np.int64)
  count = 0
  for card in range(g[TYPES]):
    if g[g[KIND_TABLE] + card] == K_NIGIRI:
      value, at = g[g[VALUE_TABLE] + card], count
      while at > 0 and g[g[VALUE_TABLE] + cards[at - 1]] < value:
        cards[at] = cards[at - 1]
        at -= 1
      cards[at] = card
      count += 1
  return cards[:count]


# --------------------------------------------------------------------------------------------
# The hands to come


@njit
def _availability(g, h, card, kept):
  """For each later turn of the round, the chance the hand held then has a `card`; the player's
  own hand keeps `kept` of them after this pick (`h`: the `_Hands`)."""
  chances = h.availability[card, kept]
  if h.available[card, kept]:
    return chances
  knows, seen, share = h.knows, h.seen[:, card], h.unseen_share[card]  # read once, not a turn
  for later in range(1, h.future_picks + 1):
    holder = (h.me - later * h.direction) % g[PLAYERS]  # who holds the hand we get then
    left = h.size - later  # cards in that hand when it arrives
    if holder == h.me:
      chances[later - 1] = _survives(kept, h.size - 1, h.size - 1 - left)
    elif knows[holder]:
      chances[later - 1] = _survives(seen[holder], h.size, h.size - left)
    else:
      chances[later - 1] = 1.0 - _c_pow(1.0 - share, float(left))
  h.available[card, kept] = True
  return chances


@njit
def _pace_variance(g, unseen, unseen_total, kind, pace):
  """Variance of what one pick adds to a count of `kind` (icons for Maki, cards otherwise), the
  unseen pool's `unseen` cards by type (`unseen_total` in all)."""
  counted, weighted, squared = 0, 0, 0
  for card in range(g[TYPES]):
    if g[g[KIND_TABLE] + card] == kind:
      value = max(g[g[VALUE_TABLE] + card], 1)
      counted += unseen[card]
      weighted += value * unseen[card]
      squared += value * value * unseen[card]
  if not counted:
    return 0.0
  chance = pace * counted / max(1, unseen_total)
  chance = chance if chance < 1.0 else 1.0
  mean, square = weighted / counted, squared / counted
  return chance * square - _c_pow(chance * mean, 2.0)


# --------------------------------------------------------------------------------------------
# Picks


@njit
def heuristic_values(g, pos, player, params, legal, values):
  """Writes the player's legal actions (increasing) to `legal` and their values to `values`;
  returns how many. `pos` is a simultaneous node. An action's value: its cards' values in
  placement order (each by its kind's function, called here, not through a function of the card
  given the view), plus the denial. The view is made and its arrays bound once a decision (each
  reading of a view's member, and each call given the view, inlined or not, takes a reference to
  each of its arrays), the scratch arrays allocated once. A called kernel, not inlined: its
  callers (the policy, the choice, the blueprint's keys, the features' pointer) share one
  compile, and the count it returns is typed once (inlined, the count's first type, the literal
  0 of `legal_actions`, had numba compile the valuation twice)."""
  count = legal_actions(g, pos, player, legal)
  v = _view(g, pos, player)
  me, round_, future_picks, unseen_total = v.me, v.round, v.future_picks, v.unseen_total
  own_hand, own_tableau, receiver_points, h = v.hand, v.tableau, v.receiver_points, v.hands
  nigiri, unseen, maki_icons, puddings, colours = (v.nigiri, v.unseen, v.maki_icons, v.puddings,
                                                   v.colours)
  picks = np.empty(2, dtype=np.int64)
  hand, tableau = np.empty_like(own_hand), np.empty_like(own_tableau)
  for i in range(count):
    action_picks(g, legal[i], picks, 0)
    for card in range(len(hand)):  # element by element: a slice copy compiles a shape check
      hand[card] = own_hand[card]
    for card in range(len(tableau)):
      tableau[card] = own_tableau[card]
    for card in picks:
      if card >= 0:
        hand[card] -= 1
    value = 0.0
    if picks[1] >= 0:
      hand[g[CHOPSTICKS]] += 1
      tableau[g[CHOPSTICKS]] -= 1
      value -= _chopsticks_value(g, params, future_picks, tableau)
    for k in range(2):
      card = picks[k]
      if card < 0:
        break
      following = picks[1] if k == 0 else -1  # the card placed next in the pick (-1: none)
      kind = g[g[KIND_TABLE] + card]
      have = _kind_total(g, tableau, kind, np.bool_(False))
      if kind == K_TEMPURA or kind == K_SASHIMI:
        size = TEMPURA_SET_SIZE if kind == K_TEMPURA else SASHIMI_SET_SIZE
        # The set is valued once, by the last of its cards in this pick.
        if following != card or (have + 1) % size == 0:
          points = TEMPURA_SET_POINTS if kind == K_TEMPURA else SASHIMI_SET_POINTS
          value += _set_value(g, params, h, card, hand, have, size, points)
      elif kind == K_DUMPLING:
        value += _dumpling_value(g, params, h, card, hand, have)
      elif kind == K_NIGIRI:
        value += _nigiri_value(g, params, h, nigiri, card, tableau, hand)
      elif kind == K_WASABI:
        # Followed by a Nigiri, the Nigiri is tripled instead.
        if following < 0 or g[g[KIND_TABLE] + following] != K_NIGIRI:
          free = tableau[g[TYPES] + FREE_WASABI]
          value += params[WASABI_WEIGHT] * _wasabi_option(g, h, nigiri, free, hand)
      elif kind == K_MAKI:
        value += _maki_value(g, params, me, future_picks, unseen, unseen_total, maki_icons,
                             g[g[VALUE_TABLE] + card])
      elif kind == K_PUDDING:
        value += _pudding_value(g, params, me, round_, future_picks, unseen, unseen_total,
                                puddings)
      elif kind == K_SOY_SAUCE:
        value += _soy_sauce_value(g, params, me, colours, card, tableau)
      else:
        value += _chopsticks_value(g, params, future_picks, tableau)
      place(g, tableau, 0, card)
    # The denial: how much the pick lowers the best immediate points of the next player's pick,
    # who receives `hand` (the Chopsticks of a pair back in it).
    denial = v.best_receiver_points - _best_receiver_points(receiver_points, hand)
    values[i] = value + params[DENY_WEIGHT] * denial
  return count


@njit
def _set_value(g, params, h, card, hand, have, size, points):
  missing = size - 1 - have % size  # cards still needed after this one
  if missing == 0:
    return float(points)
  share = (have % size + 1) / size
  chance = _at_least(_availability(g, h, card, hand[card]), missing)
  return params[SET_WEIGHT] * points * share * chance


@njit
def _dumpling_value(g, params, h, card, hand, have):
  last = len(DUMPLING_POINTS) - 1
  now = DUMPLING_POINTS[min(have + 1, last)] - DUMPLING_POINTS[min(have, last)]
  room = max(0, len(DUMPLING_POINTS) - 2 - have)  # later Dumplings that would gain from it
  expected = _python_sum(_availability(g, h, card, hand[card]))
  expected_later = expected if expected < room else float(room)
  return now + params[DUMPLING_CURVE] * expected_later


@njit
def _nigiri_value(g, params, h, nigiri, card, tableau, hand):
  points = g[g[VALUE_TABLE] + card]
  free = tableau[g[TYPES] + FREE_WASABI]
  if not free:
    return float(points)
  spent = _wasabi_option(g, h, nigiri, free - 1, hand)  # what the Wasabi could still triple
  return points * WASABI_MULTIPLIER - params[WASABI_PATIENCE] * spent


@njit
def _wasabi_option(g, h, nigiri, free, hand):
  """What a Wasabi adds to the best Nigiri expected to come (`nigiri`: the Nigiri card numbers by
  decreasing value), behind `free` free Wasabi."""
  if len(nigiri) == 0:
    return 0.0
  best, none_better = 0.0, 1.0
  for c in nigiri:
    chances = _availability(g, h, c, hand[c])
    never = 1.0  # math.prod(1.0 - chances), from left to right
    for t in range(h.future_picks):
      never *= 1.0 - chances[t]
    found = 1.0 - never
    best += g[g[VALUE_TABLE] + c] * found * none_better
    none_better *= 1.0 - found
  any_nigiri = np.empty(h.future_picks)
  for t in range(h.future_picks):
    missing = 1.0
    for c in nigiri:  # each Nigiri's availability, computed in the loop above
      missing *= 1.0 - h.availability[c, hand[c], t]
    any_nigiri[t] = 1.0 - missing
  one = _at_least(any_nigiri, np.int64(1))  # int64, not literal: one compile of _at_least
  chance = _at_least(any_nigiri, free + 1) / (one if one >= 1e-9 else 1e-9)
  return (WASABI_MULTIPLIER - 1) * best * chance


@njit
def _maki_value(g, params, me, future_picks, unseen, unseen_total, maki_icons, icons):
  """The value of `icons` more Maki icons for player `me` (`maki_icons`: by player)."""
  picks = 2 * future_picks + 1  # this player's picks to come, and each opponent's
  variance = _pace_variance(g, unseen, unseen_total, np.int64(K_MAKI), params[MAKI_PACE]) * \
      picks + \
      _BASE_VARIANCE
  mine = maki_icons[me]
  gain = _expected_maki(me, maki_icons, mine + icons, variance) - \
      _expected_maki(me, maki_icons, mine, variance)
  return params[MAKI_WEIGHT] * gain


@njit
def _ahead(me, counts, mine, variance):
  """For each opponent of `me` in player order, the modelled chance that `mine` ends above its
  count."""
  ahead = np.empty(len(counts) - 1)
  for p in range(len(counts)):
    if p != me:
      ahead[p - (p > me)] = _normal_above(mine - counts[p], variance)
  return ahead


@njit
def _expected_maki(me, maki_icons, mine, variance):
  ahead = _ahead(me, maki_icons, mine, variance)
  second = np.empty(len(ahead))
  for j in range(len(ahead)):
    second[j] = (1 - ahead[j]) * _product(ahead, j)
  return MAKI_AWARDS[0] * _product(ahead, NO_SKIP) + MAKI_AWARDS[1] * _python_sum(second)


@njit
def _pudding_value(g, params, me, round_, future_picks, unseen, unseen_total, puddings):
  """The value of one more Pudding for player `me` (`puddings`: by player) in round `round_`."""
  later_rounds = g[ROUNDS] - round_ - 1
  picks = 2 * (future_picks + later_rounds * g[HAND_SIZE]) + 1
  variance = _pace_variance(g, unseen, unseen_total, np.int64(K_PUDDING),
                            params[PUDDING_PACE]) * picks + \
      _BASE_VARIANCE
  mine = puddings[me]
  gain = _expected_pudding(me, puddings, mine + 1, variance) - \
      _expected_pudding(me, puddings, mine, variance)
  return params[PUDDING_WEIGHT] * gain


@njit
def _expected_pudding(me, puddings, mine, variance):
  ahead = _ahead(me, puddings, mine, variance)
  fewest = _product(1 - ahead, NO_SKIP) if len(ahead) > 1 else 0.0
  return PUDDING_AWARD * (_product(ahead, NO_SKIP) - fewest)


@njit
def _soy_sauce_value(g, params, me, player_colours, card, tableau):
  """The value of Soy Sauce `card` on `tableau`, player `me`'s (`player_colours`: by player)."""
  if tableau[card]:
    return 0.0  # only one Soy Sauce scores
  colours = _colours(g, tableau, g[g[KIND_TABLE] + card]) + params[SOY_SAUCE_LEAD]
  rivals = 0
  for p in range(len(player_colours)):
    if p != me:
      rivals = max(rivals, player_colours[p])
  short = rivals - colours
  return SOY_SAUCE_POINTS * _c_pow(0.5, short if short > 0.0 else 0.0)


@njit
def _chopsticks_value(g, params, future_picks, tableau):
  if future_picks < 2:
    return 0.0
  held = tableau[g[CHOPSTICKS]]
  share_left = (future_picks - 1) / max(1, g[HAND_SIZE] - 2)
  return params[CHOPSTICKS_WEIGHT] * share_left / (1 + held)


@njit
def _best_receiver_points(receiver_points, hand):
  """The most immediate points a card of `hand` gives the next player (0 for an empty hand)."""
  best, found = 0, False
  for card in range(len(hand)):
    if hand[card] and (not found or receiver_points[card] > best):
      best, found = receiver_points[card], True
  return best


@njit
def _receiver_points(g, pos, player, hand):
  """By card type, the immediate points the card would give the next player (who receives this
  hand), for the cards of `hand` and the Chopsticks (a pair puts them back into it)."""
  receiver = (player + views.direction(g, pos[ROUND])) % g[PLAYERS]
  tallies = _tallies(g, pos)
  picks = np.full(2, -1, dtype=np.int64)
  row, breakdown = _points_scratch(g, pos, tallies)
  without = _points_with(g, pos, tallies, receiver, picks, row, breakdown)
  points = np.zeros(g[TYPES], dtype=np.int64)
  for card in range(g[TYPES]):
    if hand[card] or card == g[CHOPSTICKS]:
      picks[0] = card
      points[card] = _points_with(g, pos, tallies, receiver, picks, row, breakdown) - without
  return points


@njit(inline="always")
def immediate_points(g, pos, player, picks):
  """Points `player` would score this round with `picks` (card numbers, -1 for none) added to its
  tableau (the Chopsticks used staying in it), if the round ended now: the greedy bot's measure
  and the heuristic's denial (`baselines.immediate_points`)."""
  tallies = _tallies(g, pos)
  return _points_with(g, pos, tallies, player, picks, *_points_scratch(g, pos, tallies))


@njit
def _tallies(g, pos):
  """The players' tableau tallies, by player."""
  tallies = np.empty((g[PLAYERS], TALLY_SIZE), dtype=np.int64)
  for p in range(g[PLAYERS]):
    tally(g, pos, views.tableau_at(g, p), tallies, p)
  return tallies


@njit(inline="always")
def _points_scratch(g, pos, tallies):
  """The scratch arrays of `_points_with`: a tableau row of `pos` and a breakdown of `tallies`."""
  return (np.empty(g[TYPES] + 2, dtype=pos.dtype),
          np.empty((len(tallies), g[CATEGORIES]), dtype=np.int64))


@njit
def _points_with(g, pos, tallies, player, picks, row, breakdown):
  """`immediate_points` against the other players' `tallies` (the player's row is overwritten),
  with the scratch arrays of `_points_scratch`."""
  start = views.tableau_at(g, player)
  for i in range(len(row)):
    row[i] = pos[start + i]
  for i in range(2):
    if picks[i] >= 0:
      place(g, row, 0, picks[i])
  tally(g, row, 0, tallies, player)
  round_breakdown(g, tallies, breakdown)
  points = 0
  for category in range(g[CATEGORIES]):
    points += breakdown[player, category]
  return points


# --------------------------------------------------------------------------------------------
# Choices and policies


@njit
def heuristic_action(g, pos, player, params, legal):
  """The action of highest value, ties to the lowest action id: the bot's choice when its
  temperature is 0, the mode of its softmax otherwise (`legal` is a scratch buffer)."""
  values = np.empty(len(legal))
  count = heuristic_values(g, pos, player, params, legal, values)
  return legal[_first_maximum(values[:count])]


@njit(inline="always")
def heuristic_policy(g, pos, player, params, legal, probabilities):
  """Writes the legal actions to `legal` and the bot's policy to `probabilities`: all on the best
  action at temperature 0, else a softmax of the values over the temperature; returns how many."""
  count = heuristic_values(g, pos, player, params, legal, probabilities)
  policy = probabilities[:count]
  temperature = params[TEMPERATURE]
  if temperature <= 0:
    best = _first_maximum(policy)
    policy[:] = 0.0
    policy[best] = 1.0
    return count
  top = policy[_first_maximum(policy)]
  for i in range(count):
    policy[i] = math.exp((policy[i] - top) / temperature)
  total = _python_sum(policy)
  for i in range(count):
    policy[i] = policy[i] / total
  return count


@njit(inline="always")
def rollout_action(g, pos, player, params, rng, legal):
  """The action `rollouts.BaselinePolicy` takes for the heuristic: its most likely action when
  that has probability 1 (no uniform drawn), else one drawn from the policy with one uniform."""
  probabilities = np.empty(len(legal))
  count = heuristic_policy(g, pos, player, params, legal, probabilities)
  best = _first_maximum(probabilities[:count])
  if probabilities[best] == 1.0:
    return legal[best]
  return legal[draw_index(probabilities[:count], rng)]


@njit
def _first_maximum(values):
  best = 0
  for i in range(1, len(values)):
    if values[i] > values[best]:
      best = i
  return best
