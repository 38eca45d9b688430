"""`sushigo play`: one game of Sushi Go or Sushi Draft at the terminal, bots and people seated.

It plays one game of `python_sushi_go` or `python_sushi_draft` between uniform random bots, with any
seats taken by people at the terminal, and prints every turn and the outcome of every round (Sushi
Go: the score breakdown; Sushi Draft: the eaten cards and the chips awarded): a way to watch the
rules at work and to play against the simplest baseline. A human seat is shown only what that
player may know (its observation string); every hand, every kept card and every chip value are
shown only when no human plays.
"""

from __future__ import annotations

import argparse
import itertools
import random

import pyspiel

from experiments.bench.game import format_table
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.sushi_draft.cards import PILE_NAMES
from sushigo_spiel.sushi_go import scoring

# The games `play` knows, each with an example game string (the first is the default).
GAMES = {"python_sushi_go": "python_sushi_go(players=3)",
         "python_sushi_draft": "python_sushi_draft(players=3)"}


class _Abandoned(Exception):
  """A human player's input ended before the game did."""


def play(args: argparse.Namespace) -> int:
  game = _load_game(args.game, args.error)
  humans = set(args.human)
  bad = sorted(p for p in humans if not 0 <= p < game.num_players())
  if bad:
    args.error(f"--human {' '.join(map(str, bad))}: seats are 0 to {game.num_players() - 1}")
  seed = random.SystemRandom().randrange(1_000_000) if args.seed is None else args.seed
  try:
    _play_game(game, seed, humans, args.quiet)
  except _Abandoned:
    print("\nEnd of input: game abandoned.")
    return 1
  return 0


def _load_game(game_string: str, error) -> pyspiel.Game:
  """Loads a game string of one of `GAMES`; any problem ends in `error` with a clear message."""
  try:
    name = pyspiel.game_parameters_from_string(game_string)["name"]
  except pyspiel.SpielError as e:
    error(f"--game {game_string!r}: {e}")
  if name not in GAMES:
    error(f"--game {game_string!r}: this command plays {' or '.join(GAMES)} only, as in"
          f" {' or '.join(map(repr, GAMES.values()))}; got game {name!r}")
  try:
    return pyspiel.load_game(game_string)
  except (pyspiel.SpielError, ValueError) as e:
    error(f"--game {game_string!r}: {e}")


def _play_game(game: pyspiel.Game, seed: int, humans: set[int], quiet: bool) -> None:
  """Plays and prints one game; raises `_Abandoned` if a human's input ends."""
  n = game.num_players()
  printer = _PRINTERS[game.get_type().short_name](game, humans, quiet)
  # Bots draw from their own stream, so the deal does not depend on which seats are human.
  chance_rng = random.Random(seed)
  bot_rng = random.Random(chance_rng.getrandbits(64))
  seats = ", ".join(f"P{p} {'human' if p in humans else 'bot'}" for p in range(n))
  print(f"Game: {game}, seed {seed}\nPlayers: {seats}")
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[draw_index(probabilities, chance_rng.random)])
      continue
    rounds_done = len(state.round_records())
    if not quiet:
      print(f"\n{_position(state)}")
    hands = state.hands()
    actions = [_human_action(state, p) if p in humans else bot_rng.choice(state.legal_actions(p))
               for p in range(n)]
    if not quiet:
      picks = [state.action_to_string(p, a) for p, a in enumerate(actions)]
      if humans:
        print()
      printer.reveal(picks, None if humans else hands)
    state.apply_actions(actions)
    if len(state.round_records()) > rounds_done:
      printer.round_end(state)
  printer.result(state)


def _position(state: pyspiel.State) -> str:
  """The first line of the state's string: `Round 1/3, turn 2/9` (Sushi Draft adds `, Eat` or
  `, Keep`)."""
  return str(state).partition("\n")[0]


def _hand_string(cards: list[str]) -> str:
  """`Tempura, Sashimi x2` from a hand listed card by card, copies side by side."""
  return ", ".join(name + (f" x{count}" if count > 1 else "")
                   for name, count in ((name, len(list(group)))
                                       for name, group in itertools.groupby(cards)))


def _print_reveal(picks: list[str], hands: list[list[str]] | None, verb: str = "plays") -> None:
  """Each player's pick, beside the hand it came from when every hand may be shown."""
  if hands is None:
    rows = [("player", verb)] + [(f"P{p}", pick) for p, pick in enumerate(picks)]
  else:
    rows = [("player", verb, "from hand")] + [
        (f"P{p}", pick, _hand_string(hand)) for p, (pick, hand) in enumerate(zip(picks, hands))]
  _print_table(rows)


def _human_action(state: pyspiel.State, player: int) -> int:
  """Shows `player` its view and its legal actions, and reads a choice from standard input."""
  legal = state.legal_actions(player)
  names = [state.action_to_string(player, action) for action in legal]
  print(f"\nP{player}, your view:")
  print("\n".join(f"  {line}" for line in state.observation_string(player).splitlines()))
  if len(legal) == 1:
    print(f"P{player} plays {names[0]}, the only choice.")
    return legal[0]
  _print_table([("choice", "action")] + [(i, name) for i, name in enumerate(names, 1)])
  while True:
    try:
      answer = input(f"P{player}, your choice (1-{len(legal)}): ").strip()
    except EOFError:
      raise _Abandoned from None
    if answer.isdecimal() and 1 <= int(answer) <= len(legal):
      return legal[int(answer) - 1]
    print(f"{answer!r} is not a choice: enter a number from 1 to {len(legal)}.")


class _Printer:
  """What `play` prints of a game besides its turn headers: reveals, round ends and the result."""

  def __init__(self, game: pyspiel.Game, humans: set[int], quiet: bool):
    self.rules = game.rules
    self.humans = humans
    self.quiet = quiet


class _SushiGoPrinter(_Printer):
  """`python_sushi_go`: picks, last cards, score breakdowns, Puddings."""

  def reveal(self, picks: list[str], hands: list[list[str]] | None) -> None:
    _print_reveal(picks, hands)

  def round_end(self, state: pyspiel.State) -> None:
    """The cards played automatically, then the round's points by player and category."""
    records = state.round_records()
    record = records[-1]
    if not self.quiet and not self.rules.robot:  # with the robot every turn is a decision
      hand_size = self.rules.hand_size
      print(f"\nRound {len(records)}/{self.rules.rounds}, turn {hand_size}/{hand_size}:"
            " last cards, played automatically")
      _print_reveal([tableau[-1] for tableau in record.tableaus], None)
    if record.robot_tableau:
      print(f"\nRobot's cards: {', '.join(record.robot_tableau)}"
            " (they compete for Maki and Pudding)")
    print(f"\nRound {len(records)} scores")
    categories = tuple(record.breakdown[0])  # the game's categories, Soy Sauce included if played
    rows = [("player",) + categories + ("round", "total")]
    for p, (breakdown, points) in enumerate(zip(record.breakdown, record.points)):
      total = sum(r.points[p] for r in records)
      rows.append((f"P{p}",) + tuple(breakdown[c] for c in categories) + (points, total))
    _print_table(rows)

  def result(self, state: pyspiel.State) -> None:
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
    print("\nFinal scores")
    _print_table(rows)
    _print_winners(totals, scoring.winners(totals, puddings), "most Puddings among the tied")


class _SushiDraftPrinter(_Printer):
  """`python_sushi_draft`: eats, keeps (secret when a human plays), chips awarded, chip totals."""

  def reveal(self, picks: list[str], hands: list[list[str]] | None) -> None:
    verbs, cards = zip(*(pick.split(" ", 1) for pick in picks))  # all Eat, or all Keep
    if verbs[0] == "Keep" and self.humans:
      cards = ["a card"] * len(picks)
    _print_reveal(list(cards), hands, verbs[0].lower() + "s")

  def round_end(self, state: pyspiel.State) -> None:
    """The round's eaten cards, then each pile's chip: who took it and, if it may be shown, its
    value."""
    records = state.round_records()
    record = records[-1]
    if not self.quiet:
      print(f"\nRound {len(records)} eaten (the last cards are discarded unseen)")
      _print_table([("player", "ate")] + [(f"P{p}", ", ".join(cards))
                                          for p, cards in enumerate(record.eaten)])
    given = {pile: (player, value) for pile, player, value in record.chips}
    rows = [("pile", "winner", "value")]
    for pile in PILE_NAMES:
      player, value = given.get(pile, (None, None))
      rows.append((pile, "nobody", "-") if player is None else
                  (pile, f"P{player}", value if self._shows(player) else "hidden"))
    print(f"\nRound {len(records)} chips")
    _print_table(rows)

  def result(self, state: pyspiel.State) -> None:
    """Chips and chip points per player (the totals are public at the end), and the winner(s)."""
    totals = state.scores()
    rows = [("player", "chips", "points")]
    rows += [(f"P{p}", len(chips), total) for p, (chips, total) in
             enumerate(zip(state.chips(), totals))]
    print("\nFinal chip points")
    _print_table(rows)
    _print_winners(totals, [p for p, total in enumerate(totals) if total == max(totals)])

  def _shows(self, player: int) -> bool:
    """Whether `player`'s chip values may be shown: no human plays, or `player` is one."""
    return not self.humans or player in self.humans


_PRINTERS = {"python_sushi_go": _SushiGoPrinter, "python_sushi_draft": _SushiDraftPrinter}


def _print_winners(totals: list[int], won: list[int], tie_break: str = "") -> None:
  """The winner line; `tie_break` names what set a single winner apart from others as high."""
  best = totals[won[0]]
  if len(won) > 1:
    print(f"\nShared win: {', '.join(f'P{p}' for p in won)} with {best} points each")
  else:
    tied = totals.count(best) > 1
    print(f"\nWinner: P{won[0]} with {best} points" + (f", {tie_break}" if tied else ""))


def _print_table(rows) -> None:
  print("\n".join(f"  {line}" for line in format_table(rows)))
