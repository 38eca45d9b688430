"""`python_sushi_draft` told as text (`drafting.text`): eats, keeps (secret when a person plays),
the chips each round awards, chip totals and the winner."""

from __future__ import annotations

import pyspiel

from sushigo_spiel.drafting.text import GameText, indented_table, reveal_table, winners_line
from sushigo_spiel.sushi_draft.cards import PILE_NAMES


class SushiDraftText(GameText):
  """Eats, keeps, chips awarded, chip totals."""

  def reveal(self, picks: list[str], hands: list[list[str]] | None) -> str:
    verbs, cards = zip(*(pick.split(" ", 1) for pick in picks))  # all Eat, or all Keep
    if verbs[0] == "Keep" and self.humans:
      cards = ["a card"] * len(picks)
    return reveal_table(list(cards), hands, verbs[0].lower() + "s")

  def round_end(self, state: pyspiel.State) -> str:
    """The round's eaten cards, then each pile's chip: who took it and, if it may be shown, its
    value."""
    records = state.round_records()
    record = records[-1]
    parts = []
    if not self.quiet:
      parts += [f"\nRound {len(records)} eaten (the last cards are discarded unseen)",
                indented_table([("player", "ate")] + [(f"P{p}", ", ".join(cards))
                                                      for p, cards in enumerate(record.eaten)])]
    given = {pile: (player, value) for pile, player, value in record.chips}
    rows = [("pile", "winner", "value")]
    for pile in PILE_NAMES:
      player, value = given.get(pile, (None, None))
      rows.append((pile, "nobody", "-") if player is None else
                  (pile, f"P{player}", value if self._shows(player) else "hidden"))
    parts += [f"\nRound {len(records)} chips", indented_table(rows)]
    return "\n".join(parts)

  def result(self, state: pyspiel.State) -> str:
    """Chips and chip points per player (the totals are public at the end), and the winner(s)."""
    totals = state.scores()
    rows = [("player", "chips", "points")]
    rows += [(f"P{p}", len(chips), total) for p, (chips, total) in
             enumerate(zip(state.chips(), totals))]
    return "\n".join(["\nFinal chip points", indented_table(rows),
                      winners_line(totals,
                                   [p for p, total in enumerate(totals) if total == max(totals)])])

  def _shows(self, player: int) -> bool:
    """Whether `player`'s chip values may be shown: no human plays, or `player` is one."""
    return not self.humans or player in self.humans
