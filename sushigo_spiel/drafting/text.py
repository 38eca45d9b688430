"""A game told as text: the turn reveals, round outcomes and results that `sushigo play` prints
and the environments' `render` shows, one implementation for both.

Each game has a `GameText` subclass (`sushi_go/text.py`, `sushi_draft/text.py`), named by its game
class as `text_class`, that says what a reveal, a round's end and the result look like; this base
holds what both games share (tables, hands, the winner line) and `step_text`, the whole text of
one joint move, which the environments render. Every method returns text without a final
newline, to be printed as it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

import pyspiel


class GameText:
  """What is told of one game. `humans` are the seats played by people: their view decides what
  is secret (a game shows every hand and hidden value only when nobody plays); `quiet` leaves out
  what `sushigo play --quiet` leaves out."""

  def __init__(self, game: pyspiel.Game, humans: Collection[int] = (), quiet: bool = False):
    self.rules = game.rules
    self.humans = set(humans)
    self.quiet = quiet

  def reveal(self, picks: list[str], hands: list[list[str]] | None) -> str:
    """The players' picks (action names), beside the hands they came from when given."""
    raise NotImplementedError

  def round_end(self, state: pyspiel.State) -> str:
    """The outcome of the round that has just ended at `state`."""
    raise NotImplementedError

  def result(self, state: pyspiel.State) -> str:
    """The outcome of the game, at its end."""
    raise NotImplementedError

  def step_text(self, before: pyspiel.State, actions: Sequence[int],
                after: pyspiel.State) -> str:
    """One joint move told as `sushigo play` tells it with bots in every seat: the position, the
    picks, and the round's and the game's outcomes when the move ended them."""
    picks = [before.action_to_string(p, a) for p, a in enumerate(actions)]
    parts = [f"\n{position(before)}", self.reveal(picks, before.hands())]
    if len(after.round_records()) > len(before.round_records()):
      parts.append(self.round_end(after))
    if after.is_terminal():
      parts.append(self.result(after))
    return "\n".join(parts)


def header(game: pyspiel.Game, seed: int, humans: Collection[int]) -> str:
  """The game string, the seed, and who plays each seat."""
  seats = ", ".join(f"P{p} {'human' if p in humans else 'bot'}" for p in range(game.num_players()))
  return f"Game: {game}, seed {seed}\nPlayers: {seats}"


def position(state: pyspiel.State) -> str:
  """The first line of the state's string: `Round 1/3, turn 2/9` (Sushi Draft adds `, Eat` or
  `, Keep`)."""
  return str(state).partition("\n")[0]


def hand_string(cards: list[str]) -> str:
  """`Tempura, Sashimi x2` from a hand listed card by card, copies side by side."""
  return ", ".join(name + (f" x{count}" if count > 1 else "")
                   for name, count in ((name, len(list(group)))
                                       for name, group in itertools.groupby(cards)))


def reveal_table(picks: list[str], hands: list[list[str]] | None, verb: str = "plays") -> str:
  """Each player's pick, beside the hand it came from when every hand may be shown."""
  if hands is None:
    rows = [("player", verb)] + [(f"P{p}", pick) for p, pick in enumerate(picks)]
  else:
    rows = [("player", verb, "from hand")] + [
        (f"P{p}", pick, hand_string(hand)) for p, (pick, hand) in enumerate(zip(picks, hands))]
  return indented_table(rows)


def winners_line(totals: list[int], won: list[int], tie_break: str = "") -> str:
  """The winner line; `tie_break` names what set a single winner apart from others as high."""
  best = totals[won[0]]
  if len(won) > 1:
    return f"\nShared win: {', '.join(f'P{p}' for p in won)} with {best} points each"
  tied = totals.count(best) > 1
  return f"\nWinner: P{won[0]} with {best} points" + (f", {tie_break}" if tied else "")


def indented_table(rows: Sequence[Sequence[object]]) -> str:
  """A plain-text table indented by two spaces (see `format_table`)."""
  return "\n".join(f"  {line}" for line in format_table(rows))


def format_table(rows: Sequence[Sequence[object]]) -> list[str]:
  """Lines of a plain-text table; the first row is the header, numeric columns align right."""
  cells = [[str(cell) for cell in row] for row in rows]
  widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
  numeric = [all(_is_number(row[c]) for row in cells[1:]) for c in range(len(widths))]
  return ["  ".join(cell.rjust(w) if right else cell.ljust(w)
                    for cell, w, right in zip(row, widths, numeric)).rstrip()
          for row in cells]


def _is_number(cell: str) -> bool:
  try:
    float(cell.replace(",", ""))
  except ValueError:
    return False
  return True
