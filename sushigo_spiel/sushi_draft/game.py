"""Sushi Draft as an OpenSpiel Python game: `python_sushi_draft`.

Three rounds of simultaneous drafting with scoring chips, for 3-5 players (the box) or 2 (an
extension of this package). Chance is explicit: first one node per chip pile picks its order (the
pile's distinct orders, equally likely), then each round deals by card type (`deal=card`) or by
whole hand (`deal=hand`). Each turn is an Eat node (revealed; a Wild is eaten as a declared type
its owner already ate this round), then a Keep node (secret), except when one card is left after
eating: that card is discarded at the round's end.

The rules live in `rules.py` and what a player knows in `knowledge.py`, declared together as
`DYNAMICS`; this module is the pyspiel adapter (the observer is in `observer.py`). A state holds the
shared immutable `Rules` and the current immutable `Table`, so clones cost almost nothing.

Every parameter and its default (the standard chip values are uncertain, see `cards.DEFAULT_CHIPS`):
docs/variants-and-sushi-draft.md, "Parameters".
"""

from __future__ import annotations


from sushigo_spiel.drafting.adapter import DraftingGame, DraftingState, apply_step
from sushigo_spiel.sushi_draft import knowledge
from sushigo_spiel.sushi_draft import rules as R
from sushigo_spiel.sushi_draft.cards import CARDS, NUM_PILES, PILE_NAMES
from sushigo_spiel.sushi_draft.dynamics import DYNAMICS
from sushigo_spiel.sushi_draft.observer import SushiDraftObserver, position
from sushigo_spiel.sushi_draft.text import SushiDraftText

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

  dynamics = DYNAMICS
  long_name = "Python Sushi Draft"
  default_parameters = _DEFAULT_PARAMS


class SushiDraftState(DraftingState):
  """A position in a game of Sushi Draft."""

  dynamics = DYNAMICS

  def _chance_outcome_name(self, outcome: int) -> str:
    return chance_string(self._rules, self._table, outcome)

  def resample_from_infostate(self, player: int, sampler) -> SushiDraftState:
    """A state `player` cannot tell from this one, with everything it has not seen redrawn.

    Redrawn (`knowledge.resampled_steps`): the order of the chip values `player` does not hold
    (exact posterior) and, for every round so far, the deal and the other players' keeps
    (consistent with all `player` saw); the real eats and `player`'s own keeps are replayed. At
    the end of the game the state itself is returned.
    `sampler` is a callable returning uniform floats in [0, 1), such as
    `pyspiel.UniformProbabilitySampler` or `random.Random(seed).random`.
    """
    self._check_player(player)
    if self.is_terminal():
      return self.clone()
    state = self.get_game().new_initial_state()
    for step in knowledge.resampled_steps(self._rules, self._table, player, sampler):
      apply_step(state, step)
    return state

  def __str__(self) -> str:
    rules, table = self._rules, self._table
    if self.is_terminal():
      return f"Game over. Chip points: {R.totals(rules, table)}"
    lines = [position(rules, table)]
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


def chance_string(rules: R.Rules, table: R.Table, outcome: int) -> str:
  """The name of chance outcome `outcome` at `table`: a pile's order, a card or a hand."""
  if table.ordered < NUM_PILES:
    orders = rules.pile_orders[table.ordered]
    if outcome >= len(orders):
      raise ValueError(f"chance outcome {outcome} is not an order of the"
                       f" {PILE_NAMES[table.ordered]} pile; allowed: 0..{len(orders) - 1}")
    return f"{PILE_NAMES[table.ordered]} chips {'.'.join(map(str, orders[outcome]))}"
  if rules.deal == "card":
    if outcome >= len(CARDS):
      raise ValueError(f"chance outcome {outcome} is not a card; allowed: 0..{len(CARDS) - 1}")
    return CARDS[outcome].name
  return rules.hand_string(rules.hand_ranking.unrank(outcome))


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


SushiDraftGame.state_class = SushiDraftState
SushiDraftGame.observer_class = SushiDraftObserver
SushiDraftGame.text_class = SushiDraftText
SushiDraftGame.register()
