"""Baseline bots: uniformly random, greedy on immediate points, and a heuristic.

The yardsticks for the other solvers: a solver should beat the heuristic, which beats the greedy
bot, which beats random play. Each is a `solvers.bot.Bot` drawing its move from its policy with
the seed's generator. Random play works on both games; the greedy and heuristic bots value Sushi
Go cards and play `python_sushi_go` only. Their play is fixed, and so is their `objective`: random
takes only "auto"; greedy and heuristic play for points (an estimate of the margin) and take
"auto" or "margin"; "win" is refused, since nothing in them values a tie-break or a safe lead.

The greedy and heuristic bots decide from a `PlayerView` (the game's `knowledge`), so they cannot
read hidden cards. Their compiled twins (`solvers.policy_kernels`), which compiled code plays for
them, are held equal by the differential tests; these play as themselves, so they compile
nothing. The rest: docs/experiments.md, section "Baseline bots".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from solvers.bot import Bot, Policy, resolve_objective
from sushigo_spiel.sushi_go import knowledge, scoring
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.cards import Kind


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


class RandomBot(Bot):
  """Picks uniformly among the legal actions (Chopsticks pairs included); plays both games.
  It plays for nothing: `objective` takes "auto" only."""

  PARAMETERS = {"objective": "auto"}
  OBJECTIVES = ("auto",)
  cheap_policy = True

  def resolved_objective(self) -> str | None:
    """None: uniform play maximises nothing."""
    if self.params["objective"] not in self.OBJECTIVES:
      raise ValueError(f"parameter 'objective' is {self.params['objective']!r}; allowed for"
                       " RandomBot: auto (uniform play maximises nothing)")
    return None

  def policy_at(self, table) -> Policy:
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    return [(action, 1.0 / len(legal)) for action in legal]


class ViewBot(Bot):
  """A Sushi Go bot deciding from its player's `PlayerView`; it plays for points, an estimate of
  the margin, whatever the game's utility: `objective` takes "auto" or "margin"."""

  PARAMETERS = {"objective": "auto"}
  OBJECTIVES = ("auto", "margin")
  GAMES = ("python_sushi_go",)
  cheap_policy = True

  def resolved_objective(self) -> str:
    """"margin", under any utility (see the class docstring)."""
    return resolve_objective(self.params["objective"], "margin", self.OBJECTIVES,
                             type(self).__name__)

  def policy_at(self, table) -> Policy:
    return self.policy(table_view(self.rules, table, self.player_id))

  def policy(self, view: PlayerView) -> Policy:
    raise NotImplementedError


def one_hot_best(values: dict[int, float]) -> Policy:
  """All the probability on the highest value; ties go to the lowest action id."""
  best = max(values, key=lambda action: (values[action], -action))
  return [(action, 1.0 if action == best else 0.0) for action in values]


class GreedyBot(ViewBot):
  """Takes the pick that gains the most points this round if the round ended right now.

  The player's tableau with the pick added is scored by `sushigo_spiel.scoring` against the other
  players' current tableaus, Maki standing included. Puddings count 0 (they score only at the end of
  the game), as do Wasabi, Chopsticks and unfinished sets. Ties go to the lowest action id, which is
  the order of `rules.cards` (the canonical card order), then Chopsticks pairs.
  """


  def policy(self, view: PlayerView) -> Policy:
    tallies = table_tallies(view)
    return one_hot_best({action: immediate_points(view, view.player, view.rules.action_cards(
        action), tallies) for action in view.legal_actions})


def table_tallies(view: PlayerView) -> list[scoring.TableauTally]:
  """Each player's tableau tallied as it lies."""
  return [scoring.tally(view.rules.cards[c] for c in tableau) for tableau in view.tableaus]


def immediate_points(view: PlayerView, player: int, cards: Sequence[int],
                     tallies: Sequence[scoring.TableauTally] | None = None) -> int:
  """Points `player` would score this round with `cards` added, if the round ended now;
  `tallies` are `table_tallies(view)` when the caller has them already."""
  rules = view.rules
  tallies = list(tallies if tallies is not None else table_tallies(view))
  if cards:
    tallies[player] = scoring.tally(rules.cards[c] for c in (*view.tableaus[player], *cards))
  return scoring.round_points(tallies, player, rules.soy_sauce)


class HeuristicBot(ViewBot):
  """A hand-written strategy: each pick is valued in expected points, and the best one is taken.

  The value of a pick is the sum of its cards' values, taken in placement order:
    Tempura, Sashimi  a card that completes a set is worth the set (5 or 10); a card of an
                      unfinished set is worth its share of the set (1/2, or 1/3 per card) times the
                      chance of finding the missing cards in the hands still to come, times
                      `set_weight`. Two cards of one set in a Chopsticks pick are valued once.
    Dumpling          the points it adds now, plus `dumpling_curve` per Dumpling still expected
                      (each later Dumpling is then worth one more point).
    Nigiri            its points; on a free Wasabi, triple its points less `wasabi_patience` times
                      what that Wasabi could add to the best Nigiri still to come (so an Egg does
                      not use up a Wasabi that a Squid is likely to fill).
    Wasabi            what it would add to the best Nigiri expected in the hands to come (twice its
                      points, times the chance of finding one for it behind the free Wasabi already
                      held), times `wasabi_weight`; nothing when a Nigiri goes onto it in the same
                      pick (that Nigiri is tripled instead).
    Maki              the gain in expected Maki points against the visible opponents, times
                      `maki_weight`. The icon difference to each opponent at round end is modelled
                      as normal around today's difference, with a variance that grows with the
                      picks left and with how often Maki are picked (`maki_pace` times the share of
                      Maki among the unseen cards).
    Pudding           the gain in expected end-game Pudding points, modelled in the same way over
                      the picks left in the game (`pudding_pace`), times `pudding_weight`: worth
                      little early in the game, much in the last round.
    Chopsticks        `chopsticks_weight` times the share of the round left, divided by the number
                      already held; nothing once no later turn has two cards. Using Chopsticks
                      costs its value at this point.
    Soy Sauce         (variant) its 4 points when the player would then have at least as many
                      colours as every opponent, halved for each colour short; nothing once a Soy
                      Sauce is held (only one scores). `soy_sauce_lead` colours are added to the
                      player's count first, for the colours its later picks may add.
  Denial: `deny_weight` times what the pick takes away from the next player (who receives this
  hand), in immediate points of the best card left for them.

  The chance of finding a card in a later turn comes from the hand the player will hold then: its
  contents when the player has held it before (less random picks by the players in between), or the
  share of that card among the unseen cards otherwise.

  Ties go to the lowest action id. With `temperature` > 0 the policy is a softmax of the values
  (values divided by the temperature) and the action is sampled from it. The defaults were tuned
  by playing variants of this bot against each other, at 2 and 4 players.
  """

  # The valuation's weights, which the compiled twin reads (`policy_kernels.heuristic.parameters`).
  WEIGHTS = {
      "set_weight": 1.0,
      "dumpling_curve": 0.3,
      "wasabi_weight": 0.6,
      "wasabi_patience": 0.6,
      "maki_weight": 1.0,
      "maki_pace": 1.0,
      "pudding_weight": 1.0,
      "pudding_pace": 0.5,
      "chopsticks_weight": 2.0,
      "deny_weight": 0.3,
      "soy_sauce_lead": 1.0,
      "temperature": 0.0,
  }
  PARAMETERS = {**WEIGHTS, "objective": "auto"}

  @property
  def weights(self) -> dict[str, float]:
    """This bot's `WEIGHTS`, as given."""
    return {name: self.params[name] for name in self.WEIGHTS}

  def policy(self, view: PlayerView) -> Policy:
    valuer = _Valuer(view, self.params)
    values = {action: valuer.action_value(action) for action in view.legal_actions}
    temperature = self.params["temperature"]
    if temperature <= 0:
      return one_hot_best(values)
    top = max(values.values())
    weights = {a: math.exp((v - top) / temperature) for a, v in values.items()}
    total = sum(weights.values())
    return [(a, w / total) for a, w in weights.items()]


def _at_least(probabilities: Sequence[float], count: int) -> float:
  """The chance that at least `count` of independent events with these probabilities happen."""
  if count <= 0:
    return 1.0
  below = [1.0] + [0.0] * (count - 1)  # below[k]: chance of exactly k events so far, k < count
  for p in probabilities:
    below = [below[0] * (1 - p)] + [below[k] * (1 - p) + below[k - 1] * p
                                    for k in range(1, count)]
  return 1.0 - sum(below)


def _survives(copies: int, cards: int, removed: int) -> float:
  """The chance that some of `copies` cards among `cards` survive `removed` random removals."""
  if copies == 0:
    return 0.0
  if removed < copies:
    return 1.0
  return 1.0 - math.comb(cards - copies, removed - copies) / math.comb(cards, removed)


def _normal_above(difference: float, variance: float) -> float:
  """P(X > 0) for X normal with this mean and variance."""
  return 0.5 * (1.0 + math.erf(difference / math.sqrt(2.0 * variance)))


_SETS = {  # set size and points
    Kind.TEMPURA: (scoring.TEMPURA_SET_SIZE, scoring.TEMPURA_SET_POINTS),
    Kind.SASHIMI: (scoring.SASHIMI_SET_SIZE, scoring.SASHIMI_SET_POINTS),
}

# Added to every modelled variance: ties and the last pick still leave some doubt.
_BASE_VARIANCE = 0.25


class _Valuer:
  """Values the picks of one decision for `HeuristicBot` (see its docstring)."""

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
    self._tallies: list[scoring.TableauTally] | None = None  # with the receiver's points now
    self._receiver_now = 0
    self._receiver_best: int | None = None  # the best of them in the hand before the pick

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
        chances.append(_survives(kept_in_hand, size - 1, size - 1 - left))
      elif holder in view.seen_hands:
        chances.append(_survives(view.seen_hands[holder][card], size, size - left))
      else:
        chances.append(1.0 - (1.0 - self.unseen_share[card]) ** left)
    return tuple(chances)

  def chance_of_more(self, card: int, kept_in_hand: int, count: int) -> float:
    return _at_least(self.availability(card, kept_in_hand), count)

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
    chance = _at_least(any_nigiri, free + 1) / max(_at_least(any_nigiri, 1), 1e-9)
    return (scoring.WASABI_MULTIPLIER - 1) * best * chance

  def maki_value(self, icons: int) -> float:
    picks = 2 * self.future_picks + 1  # this player's picks to come, and each opponent's
    variance = self.pace_variance(Kind.MAKI, self.params["maki_pace"]) * picks + _BASE_VARIANCE
    mine = self.maki_icons[self.me]
    gain = self.expected_maki(mine + icons, variance) - self.expected_maki(mine, variance)
    return self.params["maki_weight"] * gain

  def expected_maki(self, mine: int, variance: float) -> float:
    ahead = [_normal_above(mine - icons, variance)
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
    ahead = [_normal_above(mine - count, variance)
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
    if self._receiver_best is None:  # the same for every pick of the decision
      self._receiver_best = max(self.receiver_points(c) for c, n in enumerate(hand) if n)
    for c in cards:
      hand[c] -= 1
    if len(cards) == 2:
      hand[rules.chopsticks] += 1
    left = [self.receiver_points(c) for c, n in enumerate(hand) if n]
    return self._receiver_best - max(left, default=0)

  def receiver_points(self, card: int) -> int:
    """Immediate points `card` would give the next player (who receives this hand)."""
    if card not in self._receiver_points:
      receiver = (self.me + self.rules.direction(self.view.round)) % self.view.num_players
      if self._tallies is None:
        self._tallies = table_tallies(self.view)
        self._receiver_now = immediate_points(self.view, receiver, (), self._tallies)
      self._receiver_points[card] = \
          immediate_points(self.view, receiver, (card,), self._tallies) - self._receiver_now
    return self._receiver_points[card]

