"""Sushi Go as an OpenSpiel Python game: `python_sushi_go`.

Three rounds of simultaneous drafting for 2-5 players. The deal is explicit chance over card types
(`deal=card`, one card at a time) or whole hands (`deal=hand`, one multiset per player), never over
individual physical cards: cards of a type are identical, so this is exact and keeps trees small.
Every player picks at once; with Chopsticks in the tableau a player may pick an ordered pair.

The rules live in `rules.py` (pure functions on immutable values); this module is the thin adapter
to the pyspiel API plus the observer. A state holds two attributes, the shared immutable `Rules` and
the current immutable `Table`, so OpenSpiel's clone (a deep copy of `__dict__`) costs almost nothing.

Game string parameters (all optional):
  players    2-5 (default 2)
  rounds     number of rounds (default 3)
  hand_size  cards per hand; 0 (default) means the rulebook size: 10/9/8/7 for 2/3/4/5 players
  deck       "standard" (108 cards) or a composition such as "tempura:4/sashimi:3/squid:2"
  deal       "card" (default) or "hand"
  utility    "score" (points, general sum), "margin" (own points minus the mean of the others,
             zero sum) or "win" (1 shared by the winners after the Pudding tie-break, constant sum)
  pass_direction  "left" (default: player i passes to i + 1), "right", or "alternate" (the
             rulebooks' variant: rounds 1 and 3 pass left, round 2 right)
  soy_sauce  true adds `soy_sauce_count` (default 4) Soy Sauce cards to the deck: the rulebooks'
             variant, scored by `scoring.soy_sauce_points` (colours are scoring families)
  robot      true (2 players only): the French rulebook's two-player variant. A third hand is
             dealt as the robot's face-down pile; each turn a chance node draws its top card
             into the hand of the player controlling it (player 0 first, then alternating), who
             places one card for themselves and one for the robot ("Tempura, robot Wasabi");
             the robot's tableau competes for Maki and Pudding, and the robot has no return
"""

from __future__ import annotations

import numpy as np
import pyspiel

from sushigo_spiel import rules as R
from sushigo_spiel.drafting import DraftingGame, DraftingState, apply_step, history_steps

_DEFAULT_PARAMS = {
    "players": 2,
    "rounds": 3,
    "hand_size": 0,
    "deck": "standard",
    "deal": "card",
    "utility": "score",
    "pass_direction": "left",
    "soy_sauce": False,
    "soy_sauce_count": 4,
    "robot": False,
}


class SushiGoGame(DraftingGame):
  """A Sushi Go game for one choice of parameters."""

  dynamics = R
  short_name = "python_sushi_go"
  long_name = "Python Sushi Go"
  default_parameters = _DEFAULT_PARAMS


class SushiGoState(DraftingState):
  """A position in a game of Sushi Go."""

  dynamics = R

  def _action_to_string(self, player: int, action: int) -> str:
    rules = self._rules
    if player == pyspiel.PlayerId.CHANCE:
      if rules.deal == "card":
        return rules.cards[action].name
      return rules.hand_string(rules.hand_ranking.unrank(action))
    return rules.action_name(action)

  def resample_from_infostate(self, player: int, sampler) -> SushiGoState:
    """A state `player` cannot tell from this one, with the cards it has not seen redealt.

    Only the current round's deal is redrawn (every card of a finished round has been revealed):
    hands `player` has held keep their contents, and the cards it has not seen are redealt
    uniformly (see `rules.resample_deals`); then the picks are replayed, so the history of what
    `player` observed is unchanged.
    `sampler` is a callable returning uniform floats in [0, 1), such as
    `pyspiel.UniformProbabilitySampler` or `random.Random(seed).random`.
    """
    rules, table = self._rules, self._table
    if self.is_terminal():
      return self.clone()
    if rules.robot:
      deals, draws = R.resample_robot_round(rules, table, player, sampler)
      steps_per_round = rules.deal_steps + 2 * rules.hand_size  # a draw and a pick each turn
    else:
      deals, draws = R.resample_deals(rules, table, player, sampler), []
      steps_per_round = rules.deal_steps + rules.hand_size - 1
    steps = history_steps(self.full_history(), rules.num_players)
    round_start = table.round * steps_per_round
    state = self.get_game().new_initial_state()
    for step in steps[:round_start]:
      apply_step(state, step)
    if rules.deal == "card":
      for hand in deals:
        for card, count in enumerate(hand):
          for _ in range(count):
            state.apply_action(card)
    else:
      for hand in deals[:table.dealt]:
        state.apply_action(rules.hand_ranking.rank(hand))
    picks = steps[round_start + table.dealt:]
    if rules.robot:  # the round's draws, each followed by the real picks of that turn
      picks = [step for draw_, pick in zip(draws, picks[1::2] + [None])
               for step in (draw_, pick) if step is not None]
    for step in picks:
      apply_step(state, step)
    return state

  def __str__(self) -> str:
    rules, table = self._rules, self._table
    if self.is_terminal():
      lines = [f"Game over. Scores: {R.final_scores(rules, table)}; Puddings: "
               f"{list(table.puddings)}"]
    else:
      lines = [f"Round {table.round + 1}/{rules.rounds}, turn {table.turn + 1}/"
               f"{rules.hand_size}" + (" (dealing)" if R.is_chance(rules, table) else "")]
      for p in range(rules.num_players):
        lines.append(f"P{p} hand [{rules.hand_string(table.hands[p])}] tableau "
                     f"[{', '.join(rules.tableau_names(table.tableaus[p]))}] puddings "
                     f"{table.puddings[p]} points {R.totals(table)[p]}")
      if table.robot:
        lines.append(f"Robot pile [{rules.hand_string(table.robot.pile)}] tableau "
                     f"[{', '.join(rules.tableau_names(table.robot.tableau))}] puddings "
                     f"{table.robot.puddings}")
    return "\n".join(lines)

  # ----- analysis API

  def tableaus(self) -> list[list[str]]:
    """The current round's cards per player, names in placement order."""
    return [self._rules.tableau_names(t) for t in self._table.tableaus]

  def hands(self) -> list[list[str]]:
    """Each player's current hand as card names (hidden information: for analysis only)."""
    return [[self._rules.cards[c].name for c, n in enumerate(hand) for _ in range(n)]
            for hand in self._table.hands]

  def round_records(self) -> list[RoundRecord]:
    """One record per finished round: tableaus (names), points and breakdown per player."""
    return [RoundRecord.from_result(self._rules, r) for r in self._table.results]

  def puddings(self) -> list[int]:
    """Pudding counts per player: those kept from finished rounds plus this round's."""
    pudding = next((c for c, card in enumerate(self._rules.cards) if card.name == "Pudding"), -1)
    return [kept + tableau.count(pudding)
            for kept, tableau in zip(self._table.puddings, self._table.tableaus)]

  def robot_tableau(self) -> list[str]:
    """The robot's cards this round (robot variant; empty otherwise), in placement order."""
    robot = self._table.robot
    return self._rules.tableau_names(robot.tableau) if robot else []

  def scores(self) -> list[int]:
    """Points per player: finished rounds, plus Pudding points once the game is over."""
    if self.is_terminal():
      return R.final_scores(self._rules, self._table)
    return R.totals(self._table)


class RoundRecord:
  """A finished round: `tableaus` (card names), `points` and `breakdown`, lists by player, and
  `robot_tableau` in the robot variant (empty otherwise)."""

  def __init__(self, tableaus: list[list[str]], points: list[int],
               breakdown: list[dict[str, int]], robot_tableau: list[str] | None = None):
    self.tableaus = tableaus
    self.points = points
    self.breakdown = breakdown
    self.robot_tableau = robot_tableau or []

  @classmethod
  def from_result(cls, rules: R.Rules, result: R.RoundResult) -> RoundRecord:
    return cls([rules.tableau_names(t) for t in result.tableaus], list(result.points),
               [dict(zip(rules.categories, b)) for b in result.breakdown],
               rules.tableau_names(result.robot_tableau))

  def __repr__(self) -> str:
    return f"RoundRecord(tableaus={self.tableaus}, points={self.points})"


class SushiGoObserver:
  """Observations and information states, honouring `pyspiel.IIGObservationType`.

  Seats are relative: index 0 is the observing player, 1 the player to its left (who receives
  its hand when hands pass left), and so on. Pieces (all counts, as float32):
    without perfect recall (the observation):
      round, turn           one-hot position in the game                           public
      tableaus              n x T cards placed this round                          public
      free_wasabi           n Wasabi without a Nigiri yet                          public
      on_wasabi             n x T Nigiri sitting on a Wasabi, by type              public
      puddings              n Puddings kept from finished rounds                   public
      points                n points from finished rounds                          public
      hand                  T the observer's hand                                  private
      seen_hands            (n-1) x (T+1) other hands the observer has held, with
                            a last column set to 1 when that hand is known         private
      hands                 n x T every hand (private_info=ALL_PLAYERS only)
      robot_tableau, robot_puddings   T and 1, robot variant only                 public
    with perfect recall (the information state), for every round and turn:
      picks                 rounds x H x n x 2 x T the cards each player placed,
                            first and second card (Chopsticks) one-hot              public
      robot_picks           rounds x H x T the card placed for the robot (variant)  public
      hand_history          rounds x H x T the observer's hand at each turn        private
                            (rounds x H x n x T every hand with ALL_PLAYERS)
  """

  def __init__(self, iig_obs_type, rules: R.Rules, params):
    if params:
      raise ValueError(f"observation parameters are not supported; got {params}")
    self.iig_obs_type = iig_obs_type
    self.rules = rules
    n, t, h, rounds = rules.num_players, rules.num_types, rules.hand_size, rules.rounds
    private = iig_obs_type.private_info
    single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
    every = private == pyspiel.PrivateInfoType.ALL_PLAYERS
    pieces = []
    if iig_obs_type.perfect_recall:
      if iig_obs_type.public_info:
        pieces.append(("picks", (rounds, h, n, 2, t)))
        if rules.robot:
          pieces.append(("robot_picks", (rounds, h, t)))
      if single:
        pieces.append(("hand_history", (rounds, h, t)))
      if every:
        pieces.append(("hand_history", (rounds, h, n, t)))
    else:
      if iig_obs_type.public_info:
        if rules.robot:
          pieces += [("robot_tableau", (t,)), ("robot_puddings", (1,))]
        pieces += [("round", (rounds,)), ("turn", (h,)), ("tableaus", (n, t)),
                   ("free_wasabi", (n,)), ("on_wasabi", (n, t)), ("puddings", (n,)),
                   ("points", (n,))]
      if single:
        pieces += [("hand", (t,)), ("seen_hands", (n - 1, t + 1))]
      if every:
        pieces.append(("hands", (n, t)))
    size = sum(int(np.prod(shape)) for _, shape in pieces)
    self.tensor = np.zeros(size, np.float32)
    self.dict = {}
    index = 0
    for name, shape in pieces:
      count = int(np.prod(shape))
      self.dict[name] = self.tensor[index:index + count].reshape(shape)
      index += count

  def set_from(self, state: SushiGoState, player: int) -> None:
    rules, table = self.rules, state._table  # pylint: disable=protected-access
    n = rules.num_players
    seats = [(player + k) % n for k in range(n)]
    self.tensor.fill(0)
    d = self.dict
    if "picks" in d or "hand_history" in d:
      turns_before = {}
      for entry in table.log:
        turn = turns_before.get(entry.round, 0)
        turns_before[entry.round] = turn + 1
        if "picks" in d:
          for k, p in enumerate(seats):
            for slot, card in enumerate(entry.picks[p]):
              d["picks"][entry.round, turn, k, slot, card] = 1
          if entry.robot >= 0:
            d["robot_picks"][entry.round, turn, entry.robot] = 1
        if "hand_history" in d:
          if d["hand_history"].ndim == 3:
            d["hand_history"][entry.round, turn] = entry.hands[player]
          else:
            d["hand_history"][entry.round, turn] = [entry.hands[p] for p in seats]
      if not R.is_terminal(rules, table) and _dealt(rules, table):
        if "hand_history" in d:
          if d["hand_history"].ndim == 3:
            d["hand_history"][table.round, table.turn] = table.hands[player]
          else:
            d["hand_history"][table.round, table.turn] = [table.hands[p] for p in seats]
      return
    playing = not R.is_terminal(rules, table)
    if "round" in d and playing:
      d["round"][table.round] = 1
      d["turn"][table.turn] = 1
    if "tableaus" in d:
      totals = R.totals(table)
      for k, p in enumerate(seats):
        for card in table.tableaus[p]:
          d["tableaus"][k, card] += 1
        free, on = R.wasabi_state(rules, table.tableaus[p])
        d["free_wasabi"][k] = free
        for card in on:
          d["on_wasabi"][k, card] += 1
        d["puddings"][k] = table.puddings[p]
        d["points"][k] = totals[p]
    if "robot_tableau" in d:
      for card in table.robot.tableau:
        d["robot_tableau"][card] += 1
      d["robot_puddings"][0] = table.robot.puddings
    if "hand" in d and playing and _dealt(rules, table):
      d["hand"][:] = table.hands[player]
      for k, p in enumerate(seats[1:]):
        if R.hand_seen(rules, table, player, p):
          d["seen_hands"][k, :-1] = table.hands[p]
          d["seen_hands"][k, -1] = 1
    if "hands" in d and playing:
      for k, p in enumerate(seats):
        d["hands"][k] = table.hands[p]

  def string_from(self, state: SushiGoState, player: int) -> str:
    rules, table = self.rules, state._table  # pylint: disable=protected-access
    obs = self.iig_obs_type
    private = obs.private_info
    if obs.perfect_recall:
      return self._history_string(rules, table, player, private)
    lines = []
    playing = not R.is_terminal(rules, table)
    if obs.public_info:
      if playing:
        lines.append(f"Round {table.round + 1}/{rules.rounds}, turn {table.turn + 1}/"
                     f"{rules.hand_size}" + ("" if _dealt(rules, table) else ", dealing"))
      else:
        lines.append("Game over")
      totals = R.totals(table)
      for p in range(rules.num_players):
        free, _ = R.wasabi_state(rules, table.tableaus[p])
        lines.append(f"P{p} tableau [{', '.join(rules.tableau_names(table.tableaus[p]))}]"
                     f" free Wasabi {free}, Puddings {table.puddings[p]}, points {totals[p]}")
      if table.robot:
        lines.append(f"Robot tableau [{', '.join(rules.tableau_names(table.robot.tableau))}]"
                     f" Puddings {table.robot.puddings}")
    if playing and _dealt(rules, table):
      if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
        lines.append(f"P{player} hand [{rules.hand_string(table.hands[player])}]")
        for p in range(rules.num_players):
          if p != player and R.hand_seen(rules, table, player, p):
            lines.append(f"P{p} hand (seen) [{rules.hand_string(table.hands[p])}]")
      elif private == pyspiel.PrivateInfoType.ALL_PLAYERS:
        for p in range(rules.num_players):
          lines.append(f"P{p} hand [{rules.hand_string(table.hands[p])}]")
    return "\n".join(lines)

  def _history_string(self, rules, table, player, private) -> str:
    single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
    every = private == pyspiel.PrivateInfoType.ALL_PLAYERS
    lines = [f"P{player}"] if single else []
    n = rules.num_players

    def hands_line(hands):
      if single:
        return f" hand [{rules.hand_string(hands[player])}]"
      if every:
        return "".join(f" P{p} hand [{rules.hand_string(hands[p])}]" for p in range(n))
      return ""

    turn_in_round = {}
    for entry in table.log:
      turn = turn_in_round.get(entry.round, 0)
      turn_in_round[entry.round] = turn + 1
      picks = " | ".join(
          f"P{p} {' + '.join(rules.cards[c].name for c in entry.picks[p])}" for p in range(n))
      if entry.robot >= 0:
        picks += f" | robot {rules.cards[entry.robot].name}"
      line = f"R{entry.round + 1} T{turn + 1}:"
      if self.iig_obs_type.public_info:
        line += f"{hands_line(entry.hands)} picks {picks}"
      else:
        line += hands_line(entry.hands)
      lines.append(line)
    if not R.is_terminal(rules, table):
      if _dealt(rules, table):
        lines.append(f"R{table.round + 1} T{table.turn + 1}:{hands_line(table.hands)}")
      else:
        lines.append(f"R{table.round + 1} dealing")
    return "\n".join(lines)


def _dealt(rules: R.Rules, table: R.Table) -> bool:
  return table.dealt >= rules.deal_steps


SushiGoGame.state_class = SushiGoState
SushiGoGame.observer_class = SushiGoObserver
SushiGoGame.register()
