"""`python_sushi_go` told as text (`drafting.text`): picks, the last cards played automatically,
score breakdowns by category, Puddings and the winner."""

from __future__ import annotations

import pyspiel

from sushigo_spiel.drafting.text import GameText, indented_table, reveal_table, winners_line
from sushigo_spiel.sushi_go import scoring


class SushiGoText(GameText):
  """Picks, last cards, score breakdowns, Puddings."""

  def reveal(self, picks: list[str], hands: list[list[str]] | None) -> str:
    return reveal_table(picks, hands)

  def round_end(self, state: pyspiel.State) -> str:
    """The cards played automatically, then the round's points by player and category."""
    records = state.round_records()
    record = records[-1]
    parts = []
    if not self.quiet and not self.rules.robot:  # with the robot every turn is a decision
      hand_size = self.rules.hand_size
      parts += [f"\nRound {len(records)}/{self.rules.rounds}, turn {hand_size}/{hand_size}:"
                " last cards, played automatically",
                reveal_table([tableau[-1] for tableau in record.tableaus], None)]
    if record.robot_tableau:
      parts.append(f"\nRobot's cards: {', '.join(record.robot_tableau)}"
                   " (they compete for Maki and Pudding)")
    categories = tuple(record.breakdown[0])  # the game's categories, Soy Sauce included if played
    rows = [("player",) + categories + ("round", "total")]
    for p, (breakdown, points) in enumerate(zip(record.breakdown, record.points)):
      total = sum(r.points[p] for r in records)
      rows.append((f"P{p}",) + tuple(breakdown[c] for c in categories) + (points, total))
    parts += [f"\nRound {len(records)} scores", indented_table(rows)]
    return "\n".join(parts)

  def result(self, state: pyspiel.State) -> str:
    """Pudding counts and points, totals and the winner(s)."""
    puddings = state.puddings()
    totals = state.scores()
    rows = [("player", "rounds", "puddings", "pudding points", "total")]
    for p, (count, total) in enumerate(zip(puddings, totals)):
      rounds = sum(r.points[p] for r in state.round_records())
      rows.append((f"P{p}", rounds, count, total - rounds, total))
    robot = state.table().robot
    if robot:
      rows.append(("robot", "-", robot.puddings, "-", "-"))
    return "\n".join(["\nFinal scores", indented_table(rows),
                      winners_line(totals, scoring.winners(totals, puddings),
                                   "most Puddings among the tied")])
