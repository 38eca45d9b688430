"""Sushi Go rules as pure functions over small immutable values (no pyspiel here).

`Rules` is one game's fixed configuration (players, rounds, hand size, deck, deal granularity,
utility) with its action table. `Table` is everything that changes during a game. Each function
takes a `Table` and returns a new one, so a state is cloned by sharing it: this is what makes tree
search over the OpenSpiel adapter (`game.py`) cheap.

Cards are numbered by their position in `Rules.cards`, the card types present in the deck in the
canonical order of `cards.CARDS`. A hand is a tuple of counts per card type; a tableau is a tuple of
card numbers in placement order (order matters only for Wasabi). Action `c` < T picks card type
`c`; numbers from T up are Chopsticks pairs, reversed pairs listed only where the order can change
the score (docs/game.md, "Actions").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

from sushigo_spiel.drafting.dynamics import (CHANCE, SIMULTANEOUS, TERMINAL, FrozenRules,
                                             utilities)
from sushigo_spiel.drafting.hand_ranking import HandRanking, check_hand_deal, deal_step
from sushigo_spiel.drafting.parameters import MAX_COUNT, check_common_parameters, parse_items
from sushigo_spiel.drafting.sampling import Uniform, draw_cards, pick_index
from sushigo_spiel.sushi_go import scoring
from sushigo_spiel.sushi_go.cards import BY_CODE, CARDS, HAND_SIZE_BY_PLAYERS, SOY_SAUCE, Card, Kind

PASS_DIRECTIONS = ("left", "right", "alternate")
DEFAULT_SOY_SAUCE_COUNT = 4  # the cards the Soy Sauce variant adds

# When a reversed Chopsticks pair is legal (see the module docstring).
_ALWAYS, _NO_FREE_WASABI, _ONE_FREE_WASABI = 0, 1, 2


class Turn(NamedTuple):
  """One turn as it happened: the hands held at its start (by holder, after the robot's draw)
  and each player's cards; with the robot, the card drawn and the card played for it."""
  round: int
  hands: tuple[tuple[int, ...], ...]
  picks: tuple[tuple[int, ...], ...]
  drawn: int = -1
  robot: int = -1


class Robot(NamedTuple):
  """The robot of the two-player variant: its face-down pile (counts), this round's tableau, the
  Puddings it kept, and the card drawn from its pile this turn (-1 before the draw)."""
  pile: tuple[int, ...]
  tableau: tuple[int, ...]
  puddings: int
  drawn: int


class RoundResult(NamedTuple):
  tableaus: tuple[tuple[int, ...], ...]
  points: tuple[int, ...]
  breakdown: tuple[tuple[int, ...], ...]  # per player, points per category (`Rules.categories`)
  puddings: tuple[int, ...]  # Puddings played this round
  robot_tableau: tuple[int, ...] = ()


class Table(NamedTuple):
  """Everything that changes in a game. Immutable: a deep copy is the table itself."""
  actor: int  # CHANCE, SIMULTANEOUS or TERMINAL: follows from the rest, kept for speed
  round: int  # 0-based; equals `rules.rounds` once the game is over
  dealt: int  # deal steps done this round (cards for deal=card, hands for deal=hand)
  turn: int  # turns played this round
  deck: tuple[int, ...]
  hands: tuple[tuple[int, ...], ...]
  tableaus: tuple[tuple[int, ...], ...]
  puddings: tuple[int, ...]  # Puddings kept from finished rounds
  results: tuple[RoundResult, ...]
  log: tuple[Turn, ...]
  robot: Robot | None  # the two-player robot variant only

  def __deepcopy__(self, memo):
    return self


def parse_deck(spec: str) -> dict[str, int]:
  """`"standard"` or `"code:count/code:count/..."` to counts by card code (all codes present)."""
  if spec == "standard":
    return {card.code: card.count for card in CARDS}
  counts = {card.code: 0 for card in CARDS}
  for code, values in parse_items("deck", spec, BY_CODE, "tempura:4"):
    if len(values) != 1:
      raise ValueError(f"parameter 'deck': {code!r} in {spec!r} needs one count, as in"
                       " 'tempura:4'")
    counts[code] = values[0]
  return counts


@dataclasses.dataclass(frozen=True)
class Rules(FrozenRules):
  """One game's fixed configuration and action table. Build it with `Rules.from_params`."""
  num_players: int
  rounds: int
  hand_size: int
  cards: tuple[Card, ...]
  deck: tuple[int, ...]
  deal: str
  utility: str
  pass_direction: str = "left"
  soy_sauce: bool = False
  robot: bool = False

  def __post_init__(self):
    derived = _derive(self.cards, self.deck, self.hand_size)
    # Plain attributes rather than properties: the dynamics read them at every step.
    derived["num_types"] = len(self.cards)
    derived["robot_actions"] = len(self.cards) + len(derived["pairs"])  # first robot action
    derived["num_distinct_actions"] = derived["robot_actions"] + (
        len(self.cards) ** 2 if self.robot else 0)
    derived["dealt_hands"] = self.num_players + self.robot
    derived["deal_steps"] = derived["dealt_hands"] * (
        self.hand_size if self.deal == "card" else 1)
    derived["categories"] = scoring.CATEGORIES + (
        (scoring.SOY_SAUCE_CATEGORY,) if self.soy_sauce else ())
    self._set_derived(derived)

  @classmethod
  def from_params(cls, players: int = 2, rounds: int = 3, hand_size: int = 0,
                  deck: str = "standard", deal: str = "card", utility: str = "score",
                  pass_direction: str = "left", soy_sauce: bool = False,
                  soy_sauce_count: int = DEFAULT_SOY_SAUCE_COUNT, robot: bool = False) -> Rules:
    """Validates game parameters; errors name the parameter, the value and what is allowed."""
    check_common_parameters(players, rounds, deal, utility)
    if pass_direction not in PASS_DIRECTIONS:
      raise ValueError(f"parameter 'pass_direction' is {pass_direction!r}; allowed: "
                       f"{', '.join(PASS_DIRECTIONS)}")
    counts = parse_deck(deck)
    if counts[SOY_SAUCE.code]:
      raise ValueError(f"parameter 'deck' ({deck!r}) lists Soy Sauce; allowed: the other cards,"
                       " since Soy Sauce joins the deck with soy_sauce=true and soy_sauce_count")
    if soy_sauce:
      if not 1 <= soy_sauce_count <= MAX_COUNT:
        raise ValueError(f"parameter 'soy_sauce_count' is {soy_sauce_count}; allowed: 1 or more,"
                         f" up to {MAX_COUNT}")
      counts[SOY_SAUCE.code] = soy_sauce_count
    elif soy_sauce_count != DEFAULT_SOY_SAUCE_COUNT:
      raise ValueError(f"parameter 'soy_sauce_count' is {soy_sauce_count} with soy_sauce=false;"
                       " allowed: soy_sauce_count only with soy_sauce=true")
    if robot and players != 2:
      raise ValueError(f"parameter 'robot' is true with players={players}; allowed: robot=true"
                       " with players=2 only (the two-player variant)")
    hands = players + bool(robot)  # the robot's pile is dealt as a third hand
    size = hand_size or HAND_SIZE_BY_PLAYERS[hands]
    if size < 2:
      raise ValueError(
          f"parameter 'hand_size' is {hand_size}; allowed: 2 or more (0 means the rulebook size"
          f" for {hands} hands, here {HAND_SIZE_BY_PLAYERS[hands]})")
    needed = hands * size * rounds
    total = sum(counts.values())
    if total < needed:
      raise ValueError(
          f"parameter 'deck' ({deck!r}) has {total} cards, too few to deal {rounds} round(s) of"
          f" {size} cards to {hands} hands; allowed: a deck of at least {needed} cards")
    present = tuple(card for card in CARDS if counts[card.code])
    if deal == "hand":
      check_hand_deal([counts[c.code] for c in present], size)
    return cls(players, rounds, size, present, tuple(counts[c.code] for c in present), deal,
               utility, pass_direction, soy_sauce, bool(robot))

  def direction(self, round_index: int) -> int:
    """+1 when hands pass left (player i to i + 1) in this round (0-based), -1 when right.

    `alternate` passes left in rounds 1 and 3 and right in round 2 (odd rounds left, even right).
    """
    if self.pass_direction == "alternate":
      return 1 if round_index % 2 == 0 else -1
    return 1 if self.pass_direction == "left" else -1

  @property
  def max_chance_outcomes(self) -> int:
    return self.num_types if self.deal == "card" else max(self.hand_ranking.size, self.num_types)

  @property
  def max_game_length(self) -> int:
    """Simultaneous decisions in a game: every turn but the last (automatic) one of each round;
    with the robot every turn, since its controller always has two cards to place."""
    return self.rounds * (self.hand_size if self.robot else self.hand_size - 1)

  def action_cards(self, action: int) -> tuple[int, ...]:
    """The card numbers an action places in the player's own tableau, in placement order."""
    if action < len(self.cards):
      return (action,)
    if action >= self.robot_actions:
      return ((action - self.robot_actions) // len(self.cards),)
    return self.pairs[action - len(self.cards)]

  def robot_card(self, action: int) -> int:
    """The card a robot controller's action gives the robot (-1 for other actions)."""
    if action < self.robot_actions:
      return -1
    return (action - self.robot_actions) % len(self.cards)

  def action_name(self, action: int) -> str:
    if not 0 <= action < self.num_distinct_actions:
      raise ValueError(f"action {action} is out of range 0..{self.num_distinct_actions - 1}")
    own = " + ".join(self.cards[c].name for c in self.action_cards(action))
    if action >= self.robot_actions:
      return f"{own}, robot {self.cards[self.robot_card(action)].name}"
    return own

  def hand_string(self, hand: Sequence[int]) -> str:
    return ", ".join(f"{self.cards[c].name}" + (f" x{n}" if n > 1 else "")
                     for c, n in enumerate(hand) if n) or "-"

  def tableau_names(self, tableau: Sequence[int]) -> list[str]:
    return [self.cards[c].name for c in tableau]

  def score_bounds(self) -> tuple[int, int]:
    """Bounds on a player's total: no card averages more than 5 points, Maki add 6 a round."""
    low = -scoring.PUDDING_AWARD if self.num_players + self.robot > 2 else 0
    return low, self.rounds * (5 * self.hand_size + scoring.MAKI_AWARDS[0]) + \
        scoring.PUDDING_AWARD


def _derive(cards: tuple[Card, ...], deck: tuple[int, ...], hand_size: int) -> dict:
  """The action table and card lookups that follow from the deck."""
  kinds = tuple(card.kind for card in cards)
  number = {kind: kinds.index(kind) if kind in kinds else -1 for kind in Kind}
  chopsticks = number[Kind.CHOPSTICKS]
  nigiri = {c for c, kind in enumerate(kinds) if kind is Kind.NIGIRI}
  wasabi = number[Kind.WASABI]
  pairs, pair_rules = [], []
  if chopsticks >= 0 and hand_size >= 2:
    for a in range(len(cards)):
      for b in range(len(cards)):
        if a <= b:
          rule = _ALWAYS
        elif {a, b} <= nigiri and wasabi >= 0:
          rule = _ONE_FREE_WASABI
        elif wasabi in (a, b) and (nigiri & {a, b}):
          rule = _NO_FREE_WASABI
        else:
          continue
        needed = [0] * len(cards)
        for c in (a, b, chopsticks):
          needed[c] += 1
        if all(n <= have for n, have in zip(needed, deck)):
          pairs.append((a, b))
          pair_rules.append(rule)
  return {
      "kinds": kinds,
      "chopsticks": chopsticks,
      "wasabi": wasabi,
      "nigiri": frozenset(nigiri),
      "pairs": tuple(pairs),
      "pair_rules": tuple(pair_rules),
      "pair_actions": {pair: len(cards) + i for i, pair in enumerate(pairs)},
      "hand_ranking": HandRanking(deck, hand_size),
  }


# --------------------------------------------------------------------------------------------
# Dynamics


def initial_table(rules: Rules) -> Table:
  n = rules.num_players
  return Table(CHANCE, 0, 0, 0, rules.deck, ((0,) * rules.num_types,) * n, ((),) * n, (0,) * n,
               (), (), _new_robot(rules, 0))


def _new_robot(rules: Rules, puddings: int) -> Robot | None:
  return Robot((0,) * rules.num_types, (), puddings, -1) if rules.robot else None


def controller(rules: Rules, table: Table) -> int:
  """Who controls the robot this turn: player 0 first, then each turn the other player, the
  alternation carrying on from one round to the next."""
  return (table.round * rules.hand_size + table.turn) % 2


def is_terminal(rules: Rules, table: Table) -> bool:
  return table.actor == TERMINAL


def is_chance(rules: Rules, table: Table) -> bool:
  return table.actor == CHANCE


def chance_outcomes(rules: Rules, table: Table) -> list[tuple[int, float]]:
  if table.actor != CHANCE:
    raise ValueError("chance outcomes asked at a node that is not a chance node")
  deck = table.deck if table.dealt < rules.deal_steps else table.robot.pile
  if rules.deal == "hand" and table.dealt < rules.deal_steps:
    return rules.hand_ranking.outcomes(deck)
  total = sum(deck)
  return [(c, n / total) for c, n in enumerate(deck) if n]


def apply_chance(rules: Rules, table: Table, outcome: int) -> Table:
  """Applies one chance outcome: a card type (deal=card, or the robot's draw) or a hand number
  (deal=hand)."""
  if table.dealt == rules.deal_steps:
    return _draw_for_robot(rules, table, outcome)
  hands, robot = table.hands, table.robot
  dealt_hands = hands + ((robot.pile,) if robot else ())  # the robot's pile is dealt last
  player, hand, deck = deal_step(rules, table.deck, table.dealt, dealt_hands, outcome)
  if player == rules.num_players:
    robot = robot._replace(pile=hand)
  else:
    hands = hands[:player] + (hand,) + hands[player + 1:]
  dealt = table.dealt + 1
  actor = CHANCE if dealt < rules.deal_steps or rules.robot else SIMULTANEOUS
  return Table(actor, table.round, dealt, table.turn, deck, hands, table.tableaus,
               table.puddings, table.results, table.log, robot)


def sample_chance(rules: Rules, table: Table, uniform: Uniform) -> int:
  """A chance outcome drawn with its probability in `chance_outcomes`.

  A `deal=hand` outcome is drawn card by card without replacement (multivariate hypergeometric,
  as the outcome probabilities), which avoids listing every possible hand.
  """
  if table.dealt == rules.deal_steps:  # the robot's controller draws from its pile
    return pick_index(table.robot.pile, uniform)
  if rules.deal == "hand":
    return rules.hand_ranking.rank(draw_cards(list(table.deck), rules.hand_size, uniform))
  return pick_index(table.deck, uniform)


def skip_chance(rules: Rules, table: Table, uniform: Uniform) -> Table:
  """Samples chance outcomes until a simultaneous node or the end of the game."""
  while table.actor == CHANCE:
    if rules.deal == "card" and table.dealt < rules.deal_steps:
      table = _deal_cards(rules, table, uniform)
    else:
      table = apply_chance(rules, table, sample_chance(rules, table, uniform))
  return table


def _deal_cards(rules: Rules, table: Table, uniform: Uniform) -> Table:
  """The rest of a `deal=card` deal at once: the table `apply_chance` reaches with the outcomes
  `sample_chance` draws, one card at a time from the same `uniform` stream."""
  deck = list(table.deck)
  hands = [list(hand) for hand in table.hands] + ([list(table.robot.pile)] if rules.robot else [])
  size = rules.hand_size
  for step in range(table.dealt, rules.deal_steps):
    card = pick_index(deck, uniform)
    deck[card] -= 1
    hands[step // size][card] += 1
  robot = table.robot._replace(pile=tuple(hands.pop())) if rules.robot else None
  return table._replace(actor=CHANCE if rules.robot else SIMULTANEOUS, dealt=rules.deal_steps,
                        deck=tuple(deck), hands=tuple([tuple(hand) for hand in hands]),
                        robot=robot)


def _draw_for_robot(rules: Rules, table: Table, card: int) -> Table:
  """The robot's controller draws the top card of the robot's pile into their hand."""
  pile = list(table.robot.pile)
  if not 0 <= card < len(pile) or not pile[card]:
    raise ValueError(f"chance outcome {card} is not a card of the robot's pile; allowed: "
                     f"{[c for c, n in enumerate(pile) if n]}")
  pile[card] -= 1
  player = controller(rules, table)
  hands = list(table.hands)
  hand = list(hands[player])
  hand[card] += 1
  hands[player] = tuple(hand)
  robot = table.robot._replace(pile=tuple(pile), drawn=card)
  return table._replace(actor=SIMULTANEOUS, hands=tuple(hands), robot=robot)


def wasabi_state(rules: Rules, tableau: Sequence[int]) -> tuple[int, list[int]]:
  """Free Wasabi count and the Nigiri sitting on a Wasabi, from a tableau in placement order."""
  free, on = 0, []
  wasabi, nigiri = rules.wasabi, rules.nigiri
  for c in tableau:
    if c == wasabi:
      free += 1
    elif free and c in nigiri:
      free -= 1
      on.append(c)
  return free, on


def legal_actions(rules: Rules, table: Table, player: int) -> list[int]:
  """Legal picks of `player` at a simultaneous node, in increasing order."""
  hand = table.hands[player]
  singles = [c for c, n in enumerate(hand) if n]
  if rules.robot and player == controller(rules, table):
    # One card for themselves and one for the robot (Chopsticks are not used on such a turn).
    t, base = rules.num_types, rules.robot_actions
    return [base + own * t + given for own in singles for given in singles
            if own != given or hand[own] > 1]
  tableau = table.tableaus[player]
  if rules.chopsticks not in tableau:
    return singles
  free = wasabi_state(rules, tableau)[0]
  pair_actions, pair_rules, offset = rules.pair_actions, rules.pair_rules, rules.num_types
  pairs = []
  for a in singles:
    for b in singles:
      action = pair_actions.get((a, b))
      if action is None or (a == b and hand[a] < 2):
        continue
      rule = pair_rules[action - offset]
      if rule == _ALWAYS or (rule == _NO_FREE_WASABI and free == 0) or \
          (rule == _ONE_FREE_WASABI and free == 1):
        pairs.append(action)
  return singles + pairs


def _illegal(rules: Rules, table: Table, player: int, action: int) -> ValueError:
  legal = legal_actions(rules, table, player)
  shown = f"{action} ({rules.action_name(action)})" \
      if 0 <= action < rules.num_distinct_actions else action
  return ValueError(
      f"player {player} cannot play action {shown} with hand "
      f"[{rules.hand_string(table.hands[player])}]; legal: "
      + "; ".join(f"{a} ({rules.action_name(a)})" for a in legal))


def play(rules: Rules, table: Table, actions: Sequence[int]) -> Table:
  """Applies one simultaneous turn; raises ValueError (table unchanged) on any illegal pick."""
  if table.actor != SIMULTANEOUS:
    raise ValueError("no player can pick now: this is a chance node or the game is over")
  if len(actions) != rules.num_players:
    raise ValueError(f"expected {rules.num_players} actions, one per player; got {len(actions)}")
  num_types, chopsticks = rules.num_types, rules.chopsticks
  picks, kept, tableaus = [], [], []
  robot_card = -1
  ruling = controller(rules, table) if rules.robot else -1
  for player, action in enumerate(actions):
    hand, tableau = list(table.hands[player]), table.tableaus[player]
    if player == ruling:
      if action not in legal_actions(rules, table, player):
        raise _illegal(rules, table, player, action)
      cards, robot_card = rules.action_cards(action), rules.robot_card(action)
      hand[cards[0]] -= 1
      hand[robot_card] -= 1
    elif 0 <= action < num_types and hand[action]:
      cards = (action,)
      hand[action] -= 1
    elif num_types <= action < rules.robot_actions and \
        action in legal_actions(rules, table, player):
      cards = rules.pairs[action - num_types]
      hand[cards[0]] -= 1
      hand[cards[1]] -= 1
      hand[chopsticks] += 1
      used = tableau.index(chopsticks)
      tableau = tableau[:used] + tableau[used + 1:]
    else:
      raise _illegal(rules, table, player, action)
    picks.append(cards)
    kept.append(tuple(hand))
    tableaus.append(tableau + cards)
  robot = table.robot
  if robot is None:
    log = table.log + (Turn(table.round, table.hands, tuple(picks)),)
  else:
    log = table.log + (Turn(table.round, table.hands, tuple(picks), robot.drawn, robot_card),)
    robot = robot._replace(tableau=robot.tableau + (robot_card,), drawn=-1)
  if rules.direction(table.round) > 0:
    passed = tuple(kept[-1:] + kept[:-1])  # player p receives the hand of player p - 1
  else:
    passed = tuple(kept[1:] + kept[:1])
  turn = table.turn + 1
  if robot is not None:
    if turn < rules.hand_size:
      return Table(CHANCE, table.round, table.dealt, turn, table.deck, passed, tuple(tableaus),
                   table.puddings, table.results, log, robot)
    return _score_round(rules, table, tuple(tableaus), log, robot)
  if rules.hand_size - turn > 1:
    return Table(SIMULTANEOUS, table.round, table.dealt, turn, table.deck, passed,
                 tuple(tableaus), table.puddings, table.results, log, None)
  return _end_round(rules, table, passed, tableaus, log)


def turn_actions(rules: Rules, table: Table, turn: Turn) -> list[int]:
  """The joint action that placed `turn.picks` at `table` (the table before that turn)."""
  ruling = controller(rules, table) if rules.robot else -1
  actions = []
  for player, picks in enumerate(turn.picks):
    if player == ruling:
      actions.append(rules.robot_actions + picks[0] * rules.num_types + turn.robot)
    elif len(picks) == 1:
      actions.append(picks[0])
    else:
      actions.append(rules.pair_actions[picks])
  return actions


def _end_round(rules: Rules, table: Table, last_hands, tableaus, log) -> Table:
  """Places each player's single remaining card, then scores the round."""
  picks = tuple([(hand.index(1),) for hand in last_hands])
  tableaus = tuple([t + p for t, p in zip(tableaus, picks)])
  log = log + (Turn(table.round, last_hands, picks),)
  return _score_round(rules, table, tableaus, log, None)


def _score_round(rules: Rules, table: Table, tableaus, log, robot: Robot | None) -> Table:
  """Scores the round (the robot's tableau competing for Maki) and starts the next one."""
  cards = rules.cards
  tallies = [scoring.tally([cards[c] for c in tableau]) for tableau in tableaus]
  if robot is not None:
    robot_tally = scoring.tally([cards[c] for c in robot.tableau])
    everyone = scoring.round_breakdown(tallies + [robot_tally], rules.soy_sauce)
    breakdown = tuple([tuple(b.values()) for b in everyone[:rules.num_players]])
    robot_tableau, robot = robot.tableau, _new_robot(rules, robot.puddings + robot_tally.puddings)
  else:
    breakdown = tuple([tuple(b.values())
                       for b in scoring.round_breakdown(tallies, rules.soy_sauce)])
    robot_tableau = ()
  puddings = tuple([t.puddings for t in tallies])
  result = RoundResult(tableaus, tuple([sum(b) for b in breakdown]), breakdown, puddings,
                       robot_tableau)
  n = rules.num_players
  next_round = table.round + 1
  return Table(TERMINAL if next_round == rules.rounds else CHANCE, next_round, 0, 0, table.deck,
               ((0,) * rules.num_types,) * n, ((),) * n,
               tuple([a + b for a, b in zip(table.puddings, puddings)]),
               table.results + (result,), log, robot)


def totals(table: Table) -> list[int]:
  """Points so far per player: finished rounds, plus Pudding points once the game is over."""
  points = [sum(r.points[p] for r in table.results) for p in range(len(table.puddings))]
  return points


def final_scores(rules: Rules, table: Table) -> list[int]:
  """Totals with Pudding points; the robot's Puddings compete like a player's."""
  counts = list(table.puddings) + ([table.robot.puddings] if table.robot else [])
  pudding = scoring.score_puddings(counts)
  return [t + p for t, p in zip(totals(table), pudding)]


def returns(rules: Rules, table: Table) -> list[float]:
  """The utility of a finished game per player (zeros before the end)."""
  if not is_terminal(rules, table):
    return [0.0] * rules.num_players
  final = final_scores(rules, table)
  return utilities(rules.utility, final, scoring.winners(final, table.puddings))


def scores(rules: Rules, table: Table) -> list[int]:
  """Points per player: finished rounds, plus Pudding points once the game is over."""
  return final_scores(rules, table) if is_terminal(rules, table) else totals(table)

