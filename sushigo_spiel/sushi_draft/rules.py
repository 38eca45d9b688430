"""Sushi Draft rules as pure functions over small immutable values (no pyspiel here).

Each turn every player eats one card (revealed), then keeps one secretly and passes the rest left;
after each round each sushi pile's top chip goes to whoever ate the most of that type, and a
Dessert chip to whoever ate the most types. As in Sushi Go's rules, `Rules` is a game's fixed
configuration, `Table` everything that changes, and each function returns a new `Table`. What a
player knows, and redrawing what it does not, is in `knowledge.py`.

Cards are numbered as in `cards.CARDS` (five sushi types, then the Wild), even when the `deck`
parameter leaves a type out, so the action table never changes. A hand is a tuple of counts per
card type. With S sushi types, actions are: c < S eats sushi card c; S + c < 2S eats a Wild
declared as type c; 2S + c < 3S + 1 keeps card c (the Wild included). Chip piles are numbered as
the sushi types, then Dessert (docs/variants-and-sushi-draft.md, "Chance, actions, information").
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Sequence
from typing import NamedTuple

from sushigo_spiel.drafting.dynamics import (CHANCE, SIMULTANEOUS, TERMINAL, FrozenRules,
                                             utilities)
from sushigo_spiel.drafting.hand_ranking import HandRanking, check_hand_deal, deal_step
from sushigo_spiel.drafting.parameters import check_common_parameters, parse_items
from sushigo_spiel.drafting.sampling import Uniform, draw_cards, pick_index, pick_uniformly
from sushigo_spiel.sushi_draft.cards import (BY_CODE, CARDS, DEFAULT_CHIPS, DESSERT, NUM_PILES,
                                             NUM_SUSHI, NUM_TYPES, PILE_CODES, PILE_NAMES, WILD)

MAX_PILE = 6  # chips per pile: distinct orderings stay few enough to be chance outcomes
WILD_EAT = NUM_SUSHI  # first "Eat a Wild as ..." action
KEEP = 2 * NUM_SUSHI  # first "Keep ..." action
NUM_ACTIONS = KEEP + NUM_TYPES
NOBODY = -1


class Turn(NamedTuple):
  """One turn: the hands held at its start (by holder), each player's eat and kept card.

  `keeps` is empty while the Keep step is pending and on a round's last turn, which has none."""
  round: int
  hands: tuple[tuple[int, ...], ...]
  eats: tuple[int, ...]
  keeps: tuple[int, ...]


class Chip(NamedTuple):
  pile: int
  player: int
  value: int
  round: int


class RoundResult(NamedTuple):
  eaten: tuple[tuple[int, ...], ...]  # eat actions per player, in order
  awards: tuple[Chip, ...]  # chips given this round, by pile
  discards: tuple[int, ...]  # the card left in each hand at the end (never revealed)


class Table(NamedTuple):
  """Everything that changes in a game. Immutable: a deep copy is the table itself."""
  actor: int  # CHANCE, SIMULTANEOUS or TERMINAL
  keeping: bool  # at a simultaneous node: the Keep step (else the Eat step)
  round: int  # 0-based; equals `rules.rounds` once the game is over
  ordered: int  # chip piles put in order so far (the first chance nodes of the game)
  dealt: int  # deal steps done this round
  turn: int  # turns finished this round
  deck: tuple[int, ...]  # cards not dealt yet this round
  hands: tuple[tuple[int, ...], ...]
  eaten: tuple[tuple[int, ...], ...]  # this round's eat actions per player
  piles: tuple[tuple[int, ...], ...]  # chips left per pile, top first
  chips: tuple[Chip, ...]  # chips given so far, in order
  results: tuple[RoundResult, ...]
  log: tuple[Turn, ...]

  def __deepcopy__(self, memo):
    return self


def parse_deck(spec: str) -> tuple[int, ...]:
  """`"standard"` or `"code:count/code:count/..."` to counts per card type."""
  if spec == "standard":
    return tuple(card.count for card in CARDS)
  counts = [0] * NUM_TYPES
  for code, values in parse_items("deck", spec, BY_CODE, "tuna:8"):
    if len(values) != 1:
      raise ValueError(f"parameter 'deck': {code!r} in {spec!r} needs one count, as in 'tuna:8'")
    counts[BY_CODE[code]] = values[0]
  return tuple(counts)


def parse_chips(spec: str) -> tuple[tuple[int, ...], ...]:
  """`"standard"` or `"tuna:3.4.5/shrimp:2.4.4/..."`: chip values per pile, every pile named."""
  if spec == "standard":
    return DEFAULT_CHIPS
  piles = {}
  for code, values in parse_items("chips", spec, PILE_CODES, "tuna:3.4.5"):
    if not 1 <= len(values) <= MAX_PILE:
      raise ValueError(f"parameter 'chips': {code!r} in {spec!r} has {len(values)} chips;"
                       f" allowed: 1 to {MAX_PILE} values per pile")
    piles[code] = tuple(values)
  missing = [code for code in PILE_CODES if code not in piles]
  if missing:
    raise ValueError(f"parameter 'chips' ({spec!r}) misses the pile(s) {', '.join(missing)};"
                     f" allowed: all of {'/'.join(PILE_CODES)}, or 'standard'")
  return tuple(piles[code] for code in PILE_CODES)


@dataclasses.dataclass(frozen=True)
class Rules(FrozenRules):
  """One game's fixed configuration. Build it with `Rules.from_params`."""
  num_players: int
  rounds: int
  hand_size: int
  deck: tuple[int, ...]
  chips: tuple[tuple[int, ...], ...]
  deal: str
  utility: str
  wild_half: bool

  def __post_init__(self):
    # Plain attributes rather than properties: the dynamics read them at every step.
    derived = {
        "hand_ranking": HandRanking(self.deck, self.hand_size),
        "pile_orders": tuple(sorted(set(itertools.permutations(p))) for p in self.chips),
        "deal_steps": self.num_players * (self.hand_size if self.deal == "card" else 1),
    }
    self._set_derived(derived)

  @classmethod
  def from_params(cls, players: int = 3, rounds: int = 3, hand_size: int = 6,
                  deck: str = "standard", chips: str = "standard", deal: str = "card",
                  utility: str = "score", wild_half: bool = False) -> Rules:
    """Validates game parameters; errors name the parameter, the value and what is allowed."""
    check_common_parameters(players, rounds, deal, utility)
    if hand_size < 2:
      raise ValueError(f"parameter 'hand_size' is {hand_size}; allowed: 2 or more")
    counts = parse_deck(deck)
    if sum(counts) < players * hand_size:
      raise ValueError(
          f"parameter 'deck' ({deck!r}) has {sum(counts)} cards, too few to deal {hand_size}"
          f" cards to {players} players; allowed: a deck of at least {players * hand_size}")
    if counts[WILD] >= hand_size:
      # A first hand of Wilds only could eat nothing: a Wild needs a type already eaten.
      raise ValueError(
          f"parameter 'deck' ({deck!r}) has {counts[WILD]} Wilds; allowed: fewer than"
          f" hand_size ({hand_size})")
    if deal == "hand":
      check_hand_deal(counts, hand_size)
    return cls(players, rounds, hand_size, counts, parse_chips(chips), deal, utility,
               bool(wild_half))

  @property
  def num_distinct_actions(self) -> int:
    return NUM_ACTIONS

  @property
  def max_chance_outcomes(self) -> int:
    deal = NUM_TYPES if self.deal == "card" else self.hand_ranking.size
    return max([deal] + [len(orders) for orders in self.pile_orders])

  @property
  def max_game_length(self) -> int:
    """Simultaneous nodes in a game: an Eat step each turn, a Keep step in all but the last."""
    return self.rounds * (2 * self.hand_size - 3)

  def action_name(self, action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
      raise ValueError(f"action {action} is out of range 0..{NUM_ACTIONS - 1}")
    if action < WILD_EAT:
      return f"Eat {CARDS[action].name}"
    if action < KEEP:
      return f"Eat Wild as {CARDS[action - WILD_EAT].name}"
    return f"Keep {CARDS[action - KEEP].name}"

  def hand_string(self, hand: Sequence[int]) -> str:
    return ", ".join(CARDS[c].name + (f" x{n}" if n > 1 else "")
                     for c, n in enumerate(hand) if n) or "-"

  def score_bounds(self) -> tuple[int, int]:
    """A player's chip total: at most the best `rounds` chips of every pile."""
    return 0, sum(sum(sorted(pile)[-self.rounds:]) for pile in self.chips)


def eaten_card(action: int) -> int:
  """The card an Eat action takes from the hand."""
  return action if action < WILD_EAT else WILD


def eaten_type(action: int) -> int:
  """The sushi type an Eat action counts as (a Wild's declared type)."""
  return action if action < WILD_EAT else action - WILD_EAT


# --------------------------------------------------------------------------------------------
# Dynamics


def initial_table(rules: Rules) -> Table:
  n = rules.num_players
  empty = (0,) * NUM_TYPES
  return Table(CHANCE, False, 0, 0, 0, 0, rules.deck, (empty,) * n, ((),) * n,
               ((),) * NUM_PILES, (), (), ())


def chance_outcomes(rules: Rules, table: Table) -> list[tuple[int, float]]:
  if table.actor != CHANCE:
    raise ValueError("chance outcomes asked at a node that is not a chance node")
  if table.ordered < NUM_PILES:
    orders = rules.pile_orders[table.ordered]
    return [(i, 1 / len(orders)) for i in range(len(orders))]
  if rules.deal == "hand":
    return rules.hand_ranking.outcomes(table.deck)
  total = sum(table.deck)
  return [(c, n / total) for c, n in enumerate(table.deck) if n]


def apply_chance(rules: Rules, table: Table, outcome: int) -> Table:
  """Applies one chance outcome: a pile's order, a card type or a hand number."""
  if table.ordered < NUM_PILES:
    orders = rules.pile_orders[table.ordered]
    if not 0 <= outcome < len(orders):
      raise ValueError(f"chance outcome {outcome} is out of range 0..{len(orders) - 1}"
                       f" for the order of the {PILE_NAMES[table.ordered]} pile")
    piles = table.piles[:table.ordered] + (orders[outcome],) + table.piles[table.ordered + 1:]
    return table._replace(ordered=table.ordered + 1, piles=piles)
  player, hand, deck = deal_step(rules, table.deck, table.dealt, table.hands, outcome)
  hands = table.hands[:player] + (hand,) + table.hands[player + 1:]
  dealt = table.dealt + 1
  return table._replace(actor=CHANCE if dealt < rules.deal_steps else SIMULTANEOUS, dealt=dealt,
                        deck=deck, hands=hands)


def sample_chance(rules: Rules, table: Table, uniform: Uniform) -> int:
  """A chance outcome drawn with its probability in `chance_outcomes`, without listing hands."""
  if table.ordered < NUM_PILES:
    return pick_uniformly(range(len(rules.pile_orders[table.ordered])), uniform)
  if rules.deal == "hand":
    return rules.hand_ranking.rank(draw_cards(list(table.deck), rules.hand_size, uniform))
  return pick_index(table.deck, uniform)


def skip_chance(rules: Rules, table: Table, uniform: Uniform) -> Table:
  """Samples chance outcomes until a simultaneous node or the end of the game."""
  while table.actor == CHANCE:
    table = apply_chance(rules, table, sample_chance(rules, table, uniform))
  return table


def legal_actions(rules: Rules, table: Table, player: int) -> list[int]:
  """Legal actions of `player` at a simultaneous node, in increasing order."""
  hand = table.hands[player]
  if table.keeping:
    return [KEEP + c for c, n in enumerate(hand) if n]
  eats = [c for c in range(NUM_SUSHI) if hand[c]]
  if hand[WILD]:
    eats += [WILD_EAT + t for t in sorted({eaten_type(a) for a in table.eaten[player]})]
  return eats


def play(rules: Rules, table: Table, actions: Sequence[int]) -> Table:
  """Applies one simultaneous step; raises ValueError (table unchanged) on any illegal action."""
  if table.actor != SIMULTANEOUS:
    raise ValueError("no player can act now: this is a chance node or the game is over")
  if len(actions) != rules.num_players:
    raise ValueError(f"expected {rules.num_players} actions, one per player; got {len(actions)}")
  for player, action in enumerate(actions):
    legal = legal_actions(rules, table, player)
    if action not in legal:
      shown = f"{action} ({rules.action_name(action)})" if 0 <= action < NUM_ACTIONS else action
      raise ValueError(
          f"player {player} cannot play action {shown} with hand "
          f"[{rules.hand_string(table.hands[player])}]; legal: "
          + "; ".join(f"{a} ({rules.action_name(a)})" for a in legal))
  return _keep(rules, table, actions) if table.keeping else _eat(rules, table, actions)


def _eat(rules: Rules, table: Table, actions: Sequence[int]) -> Table:
  hands = tuple(_minus(hand, eaten_card(a)) for hand, a in zip(table.hands, actions))
  eaten = tuple(e + (a,) for e, a in zip(table.eaten, actions))
  log = table.log + (Turn(table.round, table.hands, tuple(actions), ()),)
  table = table._replace(hands=hands, eaten=eaten, log=log)
  if sum(hands[0]) > 1:
    return table._replace(keeping=True)
  return _end_round(rules, table)  # the last card in each hand is discarded


def _keep(rules: Rules, table: Table, actions: Sequence[int]) -> Table:
  """Each player sets one card aside, passes the rest left and adds the kept card back."""
  kept = [a - KEEP for a in actions]
  passed = [_minus(hand, k) for hand, k in zip(table.hands, kept)]
  hands = tuple(_plus(passed[p - 1], kept[p]) for p in range(rules.num_players))
  log = table.log[:-1] + (table.log[-1]._replace(keeps=tuple(kept)),)
  return table._replace(keeping=False, turn=table.turn + 1, hands=hands, log=log)


def _minus(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
  return tuple(n - (c == card) for c, n in enumerate(hand))


def _plus(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
  return tuple(n + (c == card) for c, n in enumerate(hand))


def _end_round(rules: Rules, table: Table) -> Table:
  """Gives this round's chips, records the round and starts the next one (or ends the game)."""
  piles, awards = list(table.piles), []
  for pile, counts in enumerate(pile_counts(rules, table.eaten)):
    winner = chip_winner(counts)
    if winner != NOBODY and piles[pile]:
      awards.append(Chip(pile, winner, piles[pile][0], table.round))
      piles[pile] = piles[pile][1:]
  discards = tuple(hand.index(1) for hand in table.hands)
  result = RoundResult(table.eaten, tuple(awards), discards)
  n, next_round = rules.num_players, table.round + 1
  return table._replace(
      actor=TERMINAL if next_round == rules.rounds else CHANCE, keeping=False, round=next_round,
      dealt=0, turn=0, deck=rules.deck, hands=((0,) * NUM_TYPES,) * n, eaten=((),) * n,
      piles=tuple(piles), chips=table.chips + tuple(awards), results=table.results + (result,))


def pile_counts(rules: Rules, eaten: Sequence[Sequence[int]]) -> list[list[int]]:
  """What each player compares for each pile, by pile then player.

  Sushi piles: cards eaten of that type in half cards (a Wild is 2, or 1 with `wild_half`).
  Dessert: the number of different types eaten.
  """
  wild = 1 if rules.wild_half else 2
  counts = [[0] * len(eaten) for _ in range(NUM_PILES)]
  for player, actions in enumerate(eaten):
    for action in actions:
      counts[eaten_type(action)][player] += 2 if action < WILD_EAT else wild
    counts[DESSERT][player] = len({eaten_type(a) for a in actions})
  return counts


def chip_winner(counts: Sequence[int]) -> int:
  """Who takes a chip: the best player not tied with another; NOBODY if none or no count > 0.

  Tied players are passed over, best count first: counts 3, 3, 2, 1 give the chip to the 2.
  """
  ties = collections.Counter(c for c in counts if c > 0)
  for count in sorted(ties, reverse=True):
    if ties[count] == 1:
      return list(counts).index(count)
  return NOBODY


def totals(rules: Rules, table: Table) -> list[int]:
  """Chip points per player so far (hidden information until the end)."""
  points = [0] * rules.num_players
  for chip in table.chips:
    points[chip.player] += chip.value
  return points


def returns(rules: Rules, table: Table) -> list[float]:
  """The utility of a finished game per player (zeros before the end); ties for most share."""
  if table.actor != TERMINAL:
    return [0.0] * rules.num_players
  scores_ = totals(rules, table)
  best = max(scores_)
  return utilities(rules.utility, scores_, [p for p, s in enumerate(scores_) if s == best])

