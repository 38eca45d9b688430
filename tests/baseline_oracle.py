"""The greedy and heuristic baselines in readable Python: the oracle their kernels are held to.

`solvers.baselines.GreedyBot` and `HeuristicBot` play through the compiled policy kernels
(`solvers.policy_kernels`); this module is what those kernels compute, written as plain Python over
a `PlayerView` built from `knowledge.knowledge`. It is the bots' implementation as it played the
stored runs, moved here when the bots went compiled. `test_compiled_heuristic` compares every
value, policy and choice of the heuristic with it at every decision of many games (and the helpers
`at_least`, `survives`, `normal_above` on random input); `test_compiled_core` the greedy choice.
`HeuristicBot`'s docstring says what each card is worth and why.

  table_view(rules, table, player)    what a player knows at a simultaneous node, as a PlayerView
  greedy_policy(view)                 GreedyBot's policy
  heuristic_policy(view, params)      HeuristicBot's policy with parameters `params`
  Valuer(view, params).action_value   the heuristic's value of one action
  HeuristicOracle(params)             heuristic_policy asked as the bots are asked by
                                      `rollouts.BaselinePolicy` (`player_policy`)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from sushigo_spiel.sushi_go import knowledge, scoring
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.cards import Kind

Policy = list[tuple[int, float]]


class PlayerView(NamedTuple):
  """What `player` knows at a simultaneous node of `python_sushi_go`. Cards are numbered as in
  `rules.cards`; `seen_hands` and `unseen` come from `knowledge.knowledge`."""
  rules: R.Rules
  player: int
  round: int
  turn: int
  hand: tuple[int, ...]  # counts per card type
  tableaus: tuple[tuple[int, ...], ...]  # this round, placement order, by player
  puddings: tuple[int, ...]  # kept from finished rounds, by player
  points: tuple[int, ...]  # from finished rounds, by player
  seen_hands: Mapping[int, tuple[int, ...]]  # holder -> counts, for hands `player` has held
  unseen: tuple[int, ...]  # the deck's composition less every card `player` has seen
  legal_actions: tuple[int, ...]

  @property
  def num_players(self) -> int:
    return self.rules.num_players

  @property
  def hand_cards(self) -> int:
    return sum(self.hand)


def table_view(rules: R.Rules, table: R.Table, player: int) -> PlayerView:
  """The view of `player` at a simultaneous node given as a rules table."""
  knows = knowledge.knowledge(rules, table, player)
  return PlayerView(rules, player, table.round, table.turn, knows.hand, table.tableaus,
                    table.puddings, tuple(R.totals(table)), dict(knows.seen), knows.unseen,
                    tuple(R.legal_actions(rules, table, player)))


def one_hot_best(values: dict[int, float]) -> Policy:
  """All the probability on the highest value; ties go to the lowest action id."""
  best = max(values, key=lambda action: (values[action], -action))
  return [(action, 1.0 if action == best else 0.0) for action in values]


def greedy_policy(view: PlayerView) -> Policy:
  """The pick that gains the most points this round if the round ended now."""
  return one_hot_best({action: immediate_points(view, view.player, view.rules.action_cards(
      action)) for action in view.legal_actions})


def immediate_points(view: PlayerView, player: int, cards: Sequence[int]) -> int:
  """Points `player` would score this round with `cards` added, if the round ended now."""
  rules = view.rules
  tallies = [scoring.tally(rules.cards[c] for c in tableau) for tableau in view.tableaus]
  tallies[player] = scoring.tally(rules.cards[c] for c in (*view.tableaus[player], *cards))
  return sum(scoring.round_breakdown(tallies, rules.soy_sauce)[player].values())


def heuristic_policy(view: PlayerView, params: dict[str, float]) -> Policy:
  """The best pick by `Valuer`'s values, or their softmax at a temperature above 0."""
  valuer = Valuer(view, params)
  values = {action: valuer.action_value(action) for action in view.legal_actions}
  temperature = params["temperature"]
  if temperature <= 0:
    return one_hot_best(values)
  top = max(values.values())
  weights = {a: math.exp((v - top) / temperature) for a, v in values.items()}
  total = sum(weights.values())
  return [(a, w / total) for a, w in weights.items()]


class HeuristicOracle(NamedTuple):
  """`heuristic_policy` with parameters `params` (a `HeuristicBot`'s `params`), asked as
  `CompiledBaseline.player_policy` is, so that `rollouts.BaselinePolicy` plays it."""
  params: dict[str, float]

  def player_policy(self, rules: R.Rules, table: R.Table, player: int) -> Policy:
    return heuristic_policy(table_view(rules, table, player), self.params)


def at_least(probabilities: Sequence[float], count: int) -> float:
  """The chance that at least `count` of independent events with these probabilities happen."""
  if count <= 0:
    return 1.0
  below = [1.0] + [0.0] * (count - 1)  # below[k]: chance of exactly k events so far, k < count
  for p in probabilities:
    below = [below[0] * (1 - p)] + [below[k] * (1 - p) + below[k - 1] * p
                                    for k in range(1, count)]
  return 1.0 - sum(below)


def survives(copies: int, cards: int, removed: int) -> float:
  """The chance that some of `copies` cards among `cards` survive `removed` random removals."""
  if copies == 0:
    return 0.0
  if removed < copies:
    return 1.0
  return 1.0 - math.comb(cards - copies, removed - copies) / math.comb(cards, removed)


def normal_above(difference: float, variance: float) -> float:
  """P(X > 0) for X normal with this mean and variance."""
  return 0.5 * (1.0 + math.erf(difference / math.sqrt(2.0 * variance)))


_SETS = {  # set size and points
    Kind.TEMPURA: (scoring.TEMPURA_SET_SIZE, scoring.TEMPURA_SET_POINTS),
    Kind.SASHIMI: (scoring.SASHIMI_SET_SIZE, scoring.SASHIMI_SET_POINTS),
}

# Added to every modelled variance: ties and the last pick still leave some doubt.
_BASE_VARIANCE = 0.25


class Valuer:
  """Values the picks of one decision for the heuristic (see `HeuristicBot`'s docstring)."""

  def __init__(self, view: PlayerView, params: dict[str, float]):
    self.view, self.params, self.rules = view, params, view.rules
    self.me = view.player
    self.future_picks = view.hand_cards - 1
    unseen_total = sum(view.unseen)
    self.unseen_share = [u / unseen_total if unseen_total else 0.0 for u in view.unseen]
    self.maki_icons = [sum(self.rules.cards[c].value for c in t if self.rules.kinds[c] is Kind.MAKI)
                       for t in view.tableaus]
    self.puddings = [kept + sum(self.rules.kinds[c] is Kind.PUDDING for c in t)
                     for kept, t in zip(view.puddings, view.tableaus)]
    self._availability: dict[tuple[int, int], tuple[float, ...]] = {}
    self._receiver_points: dict[int, int] = {}

  # ----- the hands to come

  def availability(self, card: int, kept_in_hand: int) -> tuple[float, ...]:
    """For each later turn of the round, the chance the hand held then has a `card`.

    `kept_in_hand` is how many `card` the player's own hand keeps after this pick.
    """
    key = (card, kept_in_hand)
    if key not in self._availability:
      self._availability[key] = self._compute_availability(card, kept_in_hand)
    return self._availability[key]

  def _compute_availability(self, card: int, kept_in_hand: int) -> tuple[float, ...]:
    view, n, size = self.view, self.view.num_players, self.view.hand_cards
    chances = []
    direction = self.rules.direction(view.round)
    for later in range(1, self.future_picks + 1):
      holder = (self.me - later * direction) % n  # who holds now the hand we get `later` turns on
      left = size - later  # cards in that hand when it arrives
      if holder == self.me:
        chances.append(survives(kept_in_hand, size - 1, size - 1 - left))
      elif holder in view.seen_hands:
        chances.append(survives(view.seen_hands[holder][card], size, size - left))
      else:
        chances.append(1.0 - (1.0 - self.unseen_share[card]) ** left)
    return tuple(chances)

  def chance_of_more(self, card: int, kept_in_hand: int, count: int) -> float:
    return at_least(self.availability(card, kept_in_hand), count)

  def pace_variance(self, kind: Kind, pace: float) -> float:
    """Variance of what one pick adds to a count of `kind` (icons for Maki, cards otherwise)."""
    values = [self.rules.cards[c].value or 1 for c, k in enumerate(self.rules.kinds) if k is kind]
    counts = [self.view.unseen[c] for c, k in enumerate(self.rules.kinds) if k is kind]
    if not sum(counts):
      return 0.0
    chance = min(1.0, pace * sum(counts) / max(1, sum(self.view.unseen)))
    mean = sum(v * n for v, n in zip(values, counts)) / sum(counts)
    square = sum(v * v * n for v, n in zip(values, counts)) / sum(counts)
    return chance * square - (chance * mean) ** 2

  # ----- picks

  def action_value(self, action: int) -> float:
    rules = self.rules
    cards = rules.action_cards(action)
    hand = list(self.view.hand)
    for c in cards:
      hand[c] -= 1
    tableau = list(self.view.tableaus[self.me])
    value = 0.0
    if len(cards) == 2:
      hand[rules.chopsticks] += 1
      tableau.remove(rules.chopsticks)
      value -= self.chopsticks_value(tableau)
    for i, card in enumerate(cards):
      value += self.card_value(card, tableau, hand, cards[i + 1:])
      tableau.append(card)
    return value + self.params["deny_weight"] * self.denial(cards)

  def card_value(self, card: int, tableau: list[int], hand: list[int],
                 following: Sequence[int]) -> float:
    """The value of placing `card` on `tableau`, with `following` placed next in the same pick."""
    kind, rules = self.rules.kinds[card], self.rules
    have = sum(rules.kinds[c] is kind for c in tableau)
    if kind in _SETS:
      if card in following and (have + 1) % _SETS[kind][0]:
        return 0.0  # the set is valued once, by the last of its cards in this pick
      return self.set_value(card, hand, have, *_SETS[kind])
    if kind is Kind.DUMPLING:
      return self.dumpling_value(card, hand, have)
    if kind is Kind.NIGIRI:
      return self.nigiri_value(card, tableau, hand)
    if kind is Kind.WASABI:
      if any(c in rules.nigiri for c in following):
        return 0.0  # the Nigiri that follows is tripled instead
      free = R.wasabi_state(rules, tableau)[0]
      return self.params["wasabi_weight"] * self.wasabi_option(free, hand)
    if kind is Kind.MAKI:
      return self.maki_value(rules.cards[card].value)
    if kind is Kind.PUDDING:
      return self.pudding_value()
    if kind is Kind.SOY_SAUCE:
      return self.soy_sauce_value(card, tableau)
    return self.chopsticks_value(tableau)

  def set_value(self, card: int, hand: list[int], have: int, size: int, points: int) -> float:
    missing = size - 1 - have % size  # cards still needed after this one
    if missing == 0:
      return float(points)
    share = (have % size + 1) / size
    chance = self.chance_of_more(card, hand[card], missing)
    return self.params["set_weight"] * points * share * chance

  def dumpling_value(self, card: int, hand: list[int], have: int) -> float:
    steps = scoring.DUMPLING_POINTS
    now = steps[min(have + 1, len(steps) - 1)] - steps[min(have, len(steps) - 1)]
    room = max(0, len(steps) - 2 - have)  # later Dumplings that would each gain a point from it
    expected_later = min(room, sum(self.availability(card, hand[card])))
    return now + self.params["dumpling_curve"] * expected_later

  def nigiri_value(self, card: int, tableau: list[int], hand: list[int]) -> float:
    points = self.rules.cards[card].value
    free = R.wasabi_state(self.rules, tableau)[0]
    if not free:
      return points
    spent = self.wasabi_option(free - 1, hand)  # what the Wasabi could still triple
    return points * scoring.WASABI_MULTIPLIER - self.params["wasabi_patience"] * spent

  def wasabi_option(self, free: int, hand: list[int]) -> float:
    """What a Wasabi adds to the best Nigiri expected to come, behind `free` free Wasabi."""
    rules = self.rules
    nigiri = sorted(rules.nigiri, key=lambda c: -rules.cards[c].value)
    if not nigiri:
      return 0.0
    found = {c: 1.0 - math.prod(1.0 - p for p in self.availability(c, hand[c])) for c in nigiri}
    best, none_better = 0.0, 1.0
    for c in nigiri:
      best += rules.cards[c].value * found[c] * none_better
      none_better *= 1.0 - found[c]
    any_nigiri = [1.0 - math.prod(1.0 - self.availability(c, hand[c])[t] for c in nigiri)
                  for t in range(self.future_picks)]
    chance = at_least(any_nigiri, free + 1) / max(at_least(any_nigiri, 1), 1e-9)
    return (scoring.WASABI_MULTIPLIER - 1) * best * chance

  def maki_value(self, icons: int) -> float:
    picks = 2 * self.future_picks + 1  # this player's picks to come, and each opponent's
    variance = self.pace_variance(Kind.MAKI, self.params["maki_pace"]) * picks + _BASE_VARIANCE
    mine = self.maki_icons[self.me]
    gain = self.expected_maki(mine + icons, variance) - self.expected_maki(mine, variance)
    return self.params["maki_weight"] * gain

  def expected_maki(self, mine: int, variance: float) -> float:
    ahead = [normal_above(mine - icons, variance)
             for p, icons in enumerate(self.maki_icons) if p != self.me]
    first = math.prod(ahead)
    second = sum((1 - behind) * math.prod(ahead[:j] + ahead[j + 1:])
                 for j, behind in enumerate(ahead))
    return scoring.MAKI_AWARDS[0] * first + scoring.MAKI_AWARDS[1] * second

  def pudding_value(self) -> float:
    later_rounds = self.rules.rounds - self.view.round - 1
    picks = 2 * (self.future_picks + later_rounds * self.rules.hand_size) + 1
    variance = self.pace_variance(Kind.PUDDING, self.params["pudding_pace"]) * picks + \
        _BASE_VARIANCE
    mine = self.puddings[self.me]
    gain = self.expected_pudding(mine + 1, variance) - self.expected_pudding(mine, variance)
    return self.params["pudding_weight"] * gain

  def expected_pudding(self, mine: int, variance: float) -> float:
    ahead = [normal_above(mine - count, variance)
             for p, count in enumerate(self.puddings) if p != self.me]
    most = math.prod(ahead)
    fewest = math.prod(1 - a for a in ahead) if len(ahead) > 1 else 0.0
    return scoring.PUDDING_AWARD * (most - fewest)

  def soy_sauce_value(self, card: int, tableau: list[int]) -> float:
    kinds = self.rules.kinds
    if card in tableau:
      return 0.0
    colours = len({kinds[c] for c in tableau} | {kinds[card]}) + self.params["soy_sauce_lead"]
    rivals = max(len({kinds[c] for c in t})
                 for p, t in enumerate(self.view.tableaus) if p != self.me)
    return scoring.SOY_SAUCE_POINTS * 0.5 ** max(0.0, rivals - colours)

  def chopsticks_value(self, tableau: list[int]) -> float:
    if self.future_picks < 2:
      return 0.0
    held = tableau.count(self.rules.chopsticks)
    share_left = (self.future_picks - 1) / max(1, self.rules.hand_size - 2)
    return self.params["chopsticks_weight"] * share_left / (1 + held)

  def denial(self, cards: Sequence[int]) -> float:
    """How much the pick lowers the best immediate points of the next player's pick."""
    rules, view = self.rules, self.view
    hand = list(view.hand)
    best_before = max(self.receiver_points(c) for c, n in enumerate(hand) if n)
    for c in cards:
      hand[c] -= 1
    if len(cards) == 2:
      hand[rules.chopsticks] += 1
    left = [self.receiver_points(c) for c, n in enumerate(hand) if n]
    return best_before - max(left, default=0)

  def receiver_points(self, card: int) -> int:
    """Immediate points `card` would give the next player (who receives this hand)."""
    if card not in self._receiver_points:
      receiver = (self.me + self.rules.direction(self.view.round)) % self.view.num_players
      self._receiver_points[card] = immediate_points(self.view, receiver, (card,)) - \
          immediate_points(self.view, receiver, ())
    return self._receiver_points[card]
