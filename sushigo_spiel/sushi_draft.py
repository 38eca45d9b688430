"""Sushi Draft as an OpenSpiel Python game: `python_sushi_draft`.

Three rounds of simultaneous drafting with scoring chips, for 3-5 players (the box) or 2 (an
extension of this package). Chance is explicit: at the start one node per chip pile picks its order
(outcomes are the pile's distinct orders, equally likely), then each round deals a fresh shuffle of
every card by card type (`deal=card`) or by whole hand (`deal=hand`). Each turn has two simultaneous
nodes: Eat (revealed; a Wild is eaten as a declared type its owner already ate this round), then
Keep (secret). When a single card is left after eating there is no Keep node: the card is the one
discarded at the round's end.

The rules live in `draft_rules.py`; this module is the pyspiel adapter plus the observer. A state
holds the shared immutable `Rules` and the current immutable `Table`, so clones cost almost nothing.

Game string parameters (all optional):
  players    2-5 (default 3; 2 is an extension, the box says 3-5)
  rounds     number of rounds (default 3)
  hand_size  cards dealt per hand each round (default 6); a round has hand_size - 1 turns
  deck       "standard" (32 cards) or counts such as "tuna:8/shrimp:7/salmon:6/cucumber:5/
             mackerel:4/wild:2"; fewer Wilds than hand_size
  chips      "standard" or every pile's chip values, as in "tuna:3.4.5/shrimp:2.4.4/salmon:2.2.4/
             cucumber:1.3.3/mackerel:1.2.3/dessert:2.3.5" (the standard values, which are
             uncertain: see `draft_cards.DEFAULT_CHIPS`)
  deal       "card" (default) or "hand"
  utility    "score" (chip points, general sum), "margin" (own points minus the mean of the others,
             zero sum) or "win" (1 shared by the players with the most points, constant sum)
  wild_half  false (default) or true: a Wild counts as half a card when comparing counts
"""

from __future__ import annotations

import numpy as np
import pyspiel

from sushigo_spiel import draft_rules as R
from sushigo_spiel.drafting import DraftingGame, DraftingState
from sushigo_spiel.draft_cards import CARDS, NUM_PILES, NUM_SUSHI, NUM_TYPES, PILE_NAMES

_DEFAULT_PARAMS = {
    "players": 3,
    "rounds": 3,
    "hand_size": 6,
    "deck": "standard",
    "chips": "standard",
    "deal": "card",
    "utility": "score",
    "wild_half": False,
}


class SushiDraftGame(DraftingGame):
  """A Sushi Draft game for one choice of parameters."""

  dynamics = R
  short_name = "python_sushi_draft"
  long_name = "Python Sushi Draft"
  default_parameters = _DEFAULT_PARAMS


class SushiDraftState(DraftingState):
  """A position in a game of Sushi Draft."""

  dynamics = R

  def _action_to_string(self, player: int, action: int) -> str:
    rules = self._rules
    if player == pyspiel.PlayerId.CHANCE:
      return chance_string(rules, self._table, action)
    return rules.action_name(action)

  def resample_from_infostate(self, player: int, sampler) -> SushiDraftState:
    """A state `player` cannot tell from this one, with everything it has not seen redrawn.

    Redrawn: the order of the chip values `player` does not hold (exact posterior, see
    `draft_rules.resample_piles`) and, for every round so far, the deal and the other players'
    keeps (consistent with all `player` saw, see `draft_rules.resample_round`). The real eats and
    `player`'s own keeps are then replayed. At the end of the game the state itself is returned.
    `sampler` is a callable returning uniform floats in [0, 1), such as
    `pyspiel.UniformProbabilitySampler` or `random.Random(seed).random`.
    """
    rules, table = self._rules, self._table
    if self.is_terminal():
      return self.clone()
    state = self.get_game().new_initial_state()
    for outcome in R.resample_piles(rules, table, player, sampler):
      state.apply_action(outcome)
    if table.ordered < NUM_PILES:
      return state
    for round_ in range(table.round + 1):
      deal = R.resample_round(rules, table, player, round_, sampler)
      steps = table.dealt if round_ == table.round else rules.deal_steps
      for outcome in _deal_outcomes(rules, deal.hands)[:steps]:
        state.apply_action(outcome)
      turns = [t for t in table.log if t.round == round_]
      for turn, keeps in zip(turns, deal.keeps + [()] * len(turns)):
        state.apply_actions(list(turn.eats))
        if turn.keeps:
          state.apply_actions([R.KEEP + c for c in keeps])
    return state

  def __str__(self) -> str:
    rules, table = self._rules, self._table
    if self.is_terminal():
      return f"Game over. Chip points: {R.totals(rules, table)}"
    lines = [_position(rules, table)]
    for p in range(rules.num_players):
      eaten = ", ".join(rules.action_name(a)[4:] for a in table.eaten[p])
      chips = ", ".join(f"{PILE_NAMES[c.pile]} {c.value}" for c in table.chips if c.player == p)
      lines.append(f"P{p} hand [{rules.hand_string(table.hands[p])}] ate [{eaten}] chips "
                   f"[{chips}]")
    return "\n".join(lines)

  # ----- analysis API

  def eaten(self) -> list[list[str]]:
    """This round's eaten cards per player, as "Tuna Nigiri" or "Wild as Salmon Roll"."""
    return [[self._rules.action_name(a)[4:] for a in actions] for actions in self._table.eaten]

  def hands(self) -> list[list[str]]:
    """Each player's current hand as card names (hidden information: for analysis only)."""
    return [[CARDS[c].name for c, n in enumerate(hand) for _ in range(n)]
            for hand in self._table.hands]

  def round_records(self) -> list[RoundRecord]:
    """One record per finished round: eaten cards, chips awarded (with values), points."""
    return [RoundRecord.from_result(self._rules, r) for r in self._table.results]

  def chips(self) -> list[list[tuple[str, int]]]:
    """Chips held per player as (pile name, value), in the order taken (hidden values)."""
    held = [[] for _ in range(self._rules.num_players)]
    for chip in self._table.chips:
      held[chip.player].append((PILE_NAMES[chip.pile], chip.value))
    return held

  def scores(self) -> list[int]:
    """Chip points per player so far."""
    return R.totals(self._rules, self._table)


def _deal_outcomes(rules: R.Rules, hands) -> list[int]:
  """The chance outcomes that deal `hands` (by player) in the game's deal mode."""
  if rules.deal == "hand":
    return [rules.hand_ranking.rank(hand) for hand in hands]
  return [c for hand in hands for c, k in enumerate(hand) for _ in range(k)]


def chance_string(rules: R.Rules, table: R.Table, outcome: int) -> str:
  if table.ordered < NUM_PILES:
    order = rules.pile_orders[table.ordered][outcome]
    return f"{PILE_NAMES[table.ordered]} chips {'.'.join(map(str, order))}"
  if rules.deal == "card":
    return CARDS[outcome].name
  return rules.hand_string(rules.hand_ranking.unrank(outcome))


def _position(rules: R.Rules, table: R.Table) -> str:
  if table.actor == R.TERMINAL:
    return "Game over"
  if table.ordered < NUM_PILES:
    return "Ordering the chip piles"
  head = f"Round {table.round + 1}/{rules.rounds}"
  if table.actor == R.CHANCE:
    return head + ", dealing"
  return head + f", turn {table.turn + 1}/{rules.hand_size - 1}, " + \
      ("Keep" if table.keeping else "Eat")


class RoundRecord:
  """A finished round: `eaten` (per player, names), `chips` (pile name, player, value) and
  `points` (chip points taken this round per player)."""

  def __init__(self, eaten: list[list[str]], chips: list[tuple[str, int, int]],
               points: list[int]):
    self.eaten = eaten
    self.chips = chips
    self.points = points

  @classmethod
  def from_result(cls, rules: R.Rules, result: R.RoundResult) -> RoundRecord:
    points = [0] * rules.num_players
    for chip in result.awards:
      points[chip.player] += chip.value
    return cls([[rules.action_name(a)[4:] for a in actions] for actions in result.eaten],
               [(PILE_NAMES[c.pile], c.player, c.value) for c in result.awards], points)

  def __repr__(self) -> str:
    return f"RoundRecord(eaten={self.eaten}, chips={self.chips})"


class SushiDraftObserver:
  """Observations and information states, honouring `pyspiel.IIGObservationType`.

  Seats are relative: index 0 is the observing player, 1 the player to its left, and so on.
  With A = 2 x sushi types eat actions, T card types, P chip piles, H = hand_size - 1 turns, the
  pieces (float32) are:
    without perfect recall (the observation):
      round, turn, step     one-hot position (step: Eat, Keep)                     public
      eaten                 n x A this round's eats                                public
      chips                 n x P chips taken per pile                             public
      hand                  T the observer's hand                                  private
      values                P the observer's chip points per pile                  private
      hands, all_values     n x T, n x P (private_info=ALL_PLAYERS only)
    with perfect recall (the information state):
      eats                  rounds x H x n x A every eat                           public
      awards                rounds x P x n who took each pile's chip               public
      hand_history, keeps   rounds x H x T own hand at each turn, own kept card    private
      values                rounds x P own chips' values                           private
      (ALL_PLAYERS: hand_history and keeps rounds x H x n x T; values of every chip)
  The chip piles' remaining orders are in no view: nobody sees them.
  """

  def __init__(self, iig_obs_type, rules: R.Rules, params):
    if params:
      raise ValueError(f"observation parameters are not supported; got {params}")
    self.iig_obs_type = iig_obs_type
    self.rules = rules
    n, t, h, rounds = rules.num_players, NUM_TYPES, rules.hand_size - 1, rules.rounds
    a, piles = 2 * NUM_SUSHI, NUM_PILES
    private = iig_obs_type.private_info
    single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
    every = private == pyspiel.PrivateInfoType.ALL_PLAYERS
    pieces = []
    if iig_obs_type.perfect_recall:
      if iig_obs_type.public_info:
        pieces += [("eats", (rounds, h, n, a)), ("awards", (rounds, piles, n))]
      if single:
        pieces += [("hand_history", (rounds, h, t)), ("keeps", (rounds, h, t)),
                   ("values", (rounds, piles))]
      if every:
        pieces += [("hand_history", (rounds, h, n, t)), ("keeps", (rounds, h, n, t)),
                   ("values", (rounds, piles))]
    else:
      if iig_obs_type.public_info:
        pieces += [("round", (rounds,)), ("turn", (h,)), ("step", (2,)), ("eaten", (n, a)),
                   ("chips", (n, piles))]
      if single:
        pieces += [("hand", (t,)), ("values", (piles,))]
      if every:
        pieces += [("hands", (n, t)), ("all_values", (n, piles))]
    self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
    self.dict = {}
    index = 0
    for name, shape in pieces:
      count = int(np.prod(shape))
      self.dict[name] = self.tensor[index:index + count].reshape(shape)
      index += count

  def _visible(self, player: int, owner: int) -> bool:
    """Whether `owner`'s private cards and chip values are in `player`'s view."""
    private = self.iig_obs_type.private_info
    return private == pyspiel.PrivateInfoType.ALL_PLAYERS or (
        private == pyspiel.PrivateInfoType.SINGLE_PLAYER and owner == player)

  def set_from(self, state: SushiDraftState, player: int) -> None:
    rules, table = self.rules, state._table  # pylint: disable=protected-access
    n = rules.num_players
    seat = {p: (p - player) % n for p in range(n)}
    self.tensor.fill(0)
    d = self.dict
    every = self.iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
    if self.iig_obs_type.perfect_recall:
      for turn, entry in _numbered(table.log):
        for p, action in enumerate(entry.eats):
          if "eats" in d:
            d["eats"][entry.round, turn, seat[p], action] = 1
          if "keeps" in d and self._visible(player, p):
            index = (entry.round, turn, seat[p]) if every else (entry.round, turn)
            d["hand_history"][index] = entry.hands[p]
            if entry.keeps:
              d["keeps"][index + (entry.keeps[p],)] = 1
      for chip in table.chips:
        if "awards" in d:
          d["awards"][chip.round, chip.pile, seat[chip.player]] = 1
        if "values" in d and self._visible(player, chip.player):
          d["values"][chip.round, chip.pile] = chip.value
      if "keeps" in d and table.actor == R.SIMULTANEOUS and not table.keeping:
        for p in range(n):
          if self._visible(player, p):
            index = (table.round, table.turn, seat[p]) if every else (table.round, table.turn)
            d["hand_history"][index] = table.hands[p]
      return
    if "round" in d and table.actor == R.SIMULTANEOUS:
      d["round"][table.round] = 1
      d["turn"][table.turn] = 1
      d["step"][int(table.keeping)] = 1
    if "eaten" in d:
      for p, actions in enumerate(table.eaten):
        for action in actions:
          d["eaten"][seat[p], action] += 1
    for chip in table.chips:
      if "chips" in d:
        d["chips"][seat[chip.player], chip.pile] += 1
      if "values" in d and chip.player == player:
        d["values"][chip.pile] += chip.value
      if "all_values" in d:
        d["all_values"][seat[chip.player], chip.pile] += chip.value
    if table.actor == R.SIMULTANEOUS:
      if "hand" in d:
        d["hand"][:] = table.hands[player]
      if "hands" in d:
        for p in range(n):
          d["hands"][seat[p]] = table.hands[p]

  def string_from(self, state: SushiDraftState, player: int) -> str:
    rules, table = self.rules, state._table  # pylint: disable=protected-access
    if self.iig_obs_type.perfect_recall:
      return self._history_string(rules, table, player)
    public = self.iig_obs_type.public_info
    lines = [_position(rules, table)] if public else []
    for p in range(rules.num_players):
      parts = []
      if public:
        eaten = ", ".join(rules.action_name(a)[4:] for a in table.eaten[p])
        parts.append(f"ate [{eaten}] chips [{self._chips(table.chips, player, p)}]")
      if self._visible(player, p) and table.actor == R.SIMULTANEOUS:
        parts.append(f"hand [{rules.hand_string(table.hands[p])}]")
      if parts:
        lines.append(f"P{p} " + " ".join(parts))
    return "\n".join(lines)

  def _chips(self, chips, player: int, owner: int) -> str:
    """`owner`'s chips by pile, with values when `player` may see them."""
    shown = self._visible(player, owner)
    return ", ".join(PILE_NAMES[c.pile] + (f" {c.value}" if shown else "")
                     for c in chips if c.player == owner)

  def _history_string(self, rules: R.Rules, table: R.Table, player: int) -> str:
    public = self.iig_obs_type.public_info
    single = self.iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    lines = [f"P{player}"] if single else []
    n = rules.num_players
    results = iter(table.results)
    for turn, entry in _numbered(table.log):
      line = f"R{entry.round + 1} T{turn + 1}:"
      for p in range(n):
        if self._visible(player, p):
          line += f" P{p} hand [{rules.hand_string(entry.hands[p])}]"
      if public:
        line += " eats " + " | ".join(
            f"P{p} {rules.action_name(a)[4:]}" for p, a in enumerate(entry.eats))
      for p, kept in enumerate(entry.keeps):
        if self._visible(player, p):
          line += f" P{p} keeps {CARDS[kept].name}"
      lines.append(line)
      if turn == rules.hand_size - 2 and public:
        lines.append(self._awards_line(entry.round, next(results), player))
    if table.actor == R.SIMULTANEOUS and not table.keeping:
      line = f"R{table.round + 1} T{table.turn + 1}:"
      for p in range(n):
        if self._visible(player, p):
          line += f" P{p} hand [{rules.hand_string(table.hands[p])}]"
      lines.append(line)
    return "\n".join(lines)

  def _awards_line(self, round_: int, result: R.RoundResult, player: int) -> str:
    given = {c.pile: c for c in result.awards}
    parts = []
    for pile in range(NUM_PILES):
      chip = given.get(pile)
      if chip is None:
        parts.append(f"{PILE_NAMES[pile]} none")
      else:
        value = f" {chip.value}" if self._visible(player, chip.player) else ""
        parts.append(f"{PILE_NAMES[pile]} P{chip.player}{value}")
    return f"R{round_ + 1} chips: " + " | ".join(parts)


def _numbered(log):
  """The log's turns with their number within their round."""
  counts = {}
  for entry in log:
    turn = counts.get(entry.round, 0)
    counts[entry.round] = turn + 1
    yield turn, entry


SushiDraftGame.state_class = SushiDraftState
SushiDraftGame.observer_class = SushiDraftObserver
SushiDraftGame.register()
