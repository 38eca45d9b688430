"""Sushi Go as an OpenSpiel Python game: `python_sushi_go`.

Three rounds of simultaneous drafting for 2-5 players, with explicit chance over card types
(`deal=card`) or whole hands (`deal=hand`), never over individual physical cards: cards of a type
are identical, so this is exact and keeps trees small. With Chopsticks in the tableau a player may
pick an ordered pair.

The rules live in `rules.py` and what a player knows in `knowledge.py`, declared together as
`DYNAMICS`; this module is the thin adapter to the pyspiel API (the observer is in `observer.py`).
A state holds two attributes, the shared immutable `Rules` and the current immutable `Table`, so
OpenSpiel's clone (a deep copy of `__dict__`) costs almost nothing. Bad game-string parameters
raise a ValueError naming the parameter, its value and what is allowed.

Every parameter and its default: docs/game.md, "Parameters"; the rulebooks' variants (alternate
passing, Soy Sauce, the two-player robot): docs/variants-and-sushi-draft.md.
"""

from __future__ import annotations


from sushigo_spiel.drafting.adapter import DraftingGame, DraftingState, apply_step, history_steps
from sushigo_spiel.sushi_go import knowledge
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from sushigo_spiel.sushi_go.observer import SushiGoObserver
from sushigo_spiel.sushi_go.text import SushiGoText

_DEFAULT_PARAMS = {
    "players": 2,
    "rounds": 3,
    "hand_size": 0,
    "deck": "standard",
    "deal": "card",
    "utility": "score",
    "pass_direction": "left",
    "soy_sauce": False,
    "soy_sauce_count": R.DEFAULT_SOY_SAUCE_COUNT,
    "robot": False,
}


class SushiGoGame(DraftingGame):
  """A Sushi Go game for one choice of parameters."""

  dynamics = DYNAMICS
  long_name = "Python Sushi Go"
  default_parameters = _DEFAULT_PARAMS


class SushiGoState(DraftingState):
  """A position in a game of Sushi Go."""

  dynamics = DYNAMICS

  def _chance_outcome_name(self, outcome: int) -> str:
    rules, table = self._rules, self._table
    if rules.deal == "hand" and table.dealt < rules.deal_steps:
      return rules.hand_string(rules.hand_ranking.unrank(outcome))
    if outcome >= rules.num_types:  # a card: dealt one at a time, or drawn by the robot
      raise ValueError(f"chance outcome {outcome} is not a card here; allowed: 0.."
                       f"{rules.num_types - 1}")
    return rules.cards[outcome].name

  def resample_from_infostate(self, player: int, sampler) -> SushiGoState:
    """A state `player` cannot tell from this one, with the cards it has not seen redealt.

    Only the current round's deal is redrawn (every card of a finished round has been revealed):
    hands `player` has held keep their contents, and the cards it has not seen are redealt
    uniformly (see `knowledge.resample_deals`); then the picks are replayed, so the history of what
    `player` observed is unchanged.
    `sampler` is a callable returning uniform floats in [0, 1), such as
    `pyspiel.UniformProbabilitySampler` or `random.Random(seed).random`.
    """
    self._check_player(player)
    rules, table = self._rules, self._table
    if self.is_terminal():
      return self.clone()
    deals, draws = knowledge.resampled_round(rules, table, player, sampler)
    turns_per_round = 2 * rules.hand_size if rules.robot else rules.hand_size - 1
    steps = history_steps(self.full_history(), rules.num_players)
    round_start = table.round * (rules.deal_steps + turns_per_round)
    state = self.get_game().new_initial_state()
    for step in steps[:round_start]:
      apply_step(state, step)
    for outcome in knowledge.deal_outcomes(rules, deals)[:table.dealt]:
      state.apply_action(outcome)
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




SushiGoGame.state_class = SushiGoState
SushiGoGame.observer_class = SushiGoObserver
SushiGoGame.text_class = SushiGoText
SushiGoGame.register()
