"""`sushigo play`: one game of Sushi Go or Sushi Draft at the terminal, bots and people seated.

It plays one game of `python_sushi_go` or `python_sushi_draft` between uniform random bots, with any
seats taken by people at the terminal, and prints every turn and the outcome of every round (Sushi
Go: the score breakdown; Sushi Draft: the eaten cards and the chips awarded): a way to watch the
rules at work and to play against the simplest baseline. A human seat is shown only what that
player may know (its observation string); every hand, every kept card and every chip value are
shown only when no human plays. With --web, one person plays any bot in the browser instead
(`experiments.viewer.play_server`).
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import random

import pyspiel

import solvers
from experiments import config
from experiments import estimates
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import header, indented_table, position

# The games `play` knows, each with an example game string (the first is the default).
GAMES = {"python_sushi_go": "python_sushi_go(players=3)",
         "python_sushi_draft": "python_sushi_draft(players=3)"}
_ANSWER_SHOWN = 20  # characters of a wrong answer echoed back
WEB_TURN_SECONDS = 5.0  # bots' turns estimated to take longer get a note before the server starts
WEB_TURN_LIMIT = 3600.0  # and those estimated to take longer than this are refused


class _Abandoned(Exception):
  """A human player's input ended before the game did."""


def play(args: argparse.Namespace) -> int:
  game = _load_game(args.game, args.error)
  humans = set(args.human)
  bad = sorted(p for p in humans if not 0 <= p < game.num_players())
  if bad:
    args.error(f"--human {' '.join(map(str, bad))}: seats are 0 to {game.num_players() - 1}")
  seed = random.SystemRandom().randrange(1_000_000) if args.seed is None else args.seed
  if args.web:
    return _play_web(args, seed)
  given = [option for option, value in (("--port", args.port), ("--bot", args.bot),
                                        ("--param", args.param), ("--records", args.records))
           if value]
  if given:
    args.error(f"{', '.join(given)}: options of the game in the browser; add --web")
  try:
    _play_game(game, seed, humans, args.quiet)
  except _Abandoned:
    print("\nEnd of input: game abandoned.")
    return 1
  return 0


def _play_web(args: argparse.Namespace, seed: int) -> int:
  """Serves a game against `--bot` on 127.0.0.1 until Ctrl-C."""
  from experiments.viewer import play_server  # pylint: disable=import-outside-toplevel
  if len(args.human) > 1:
    args.error(f"--human {' '.join(map(str, args.human))}: the browser game seats one person;"
               " give one seat")
  bot = args.bot or "random"
  if bot not in solvers.BOTS:
    args.error(f"--bot {bot!r}: unknown bot; allowed: {', '.join(sorted(solvers.BOTS))}")
  params = {}
  for text in args.param:
    try:
      name, value = config.assignment(text)
    except ValueError as e:
      args.error(f"--param {e}")
    params[name] = value
  records = pathlib.Path(args.records or "web-games.jsonl").resolve()
  _check_web_sizes(args, bot, params, seed)
  try:
    session = play_server.Session(args.game, bot, params, seed, (args.human or [0])[0], records)
    server = play_server.serve(session, args.port or 0)
  except ValueError as e:
    args.error(f"--bot {bot} {' '.join(args.param)}: {e}")
  except OSError as e:
    args.error(f"--port {args.port}: {e.strerror or e}")
  host, port = server.server_address[:2]
  print(f"Game: {args.game}, seed {seed}, you are P{session.current.human}, the other seats"
        f" {bot}\nOpen http://{host}:{port}/ in a browser; finished games are saved to"
        f" {records} when you ask. Ctrl-C stops the server.", flush=True)
  try:
    server.serve_forever()
  except KeyboardInterrupt:
    print("\nStopped.")
  finally:
    server.server_close()
  return 0


def _check_web_sizes(args: argparse.Namespace, bot: str, params: dict, seed: int) -> None:
  """Refuses, before the server starts, bots whose search trees cannot fit together in memory
  (each bot seat keeps its own) or whose turn would outlast `WEB_TURN_LIMIT`, and notes how long
  the person waits for the bots each turn when that is long (each bot's decision timed under a
  scaled-down budget and scaled)."""
  game = pyspiel.load_game(args.game)
  seats = game.num_players() - 1
  option = f"--bot {bot}{''.join(' --param ' + text for text in args.param)}"
  try:
    need = estimates.bot_memory(bot, game, params, f"{option}, at {seats} seat(s),")
    estimates.check_memory([dataclasses.replace(need, bytes=need.bytes * seats)])
    wait = seats * estimates.decision_seconds(bot, game, params, seed)
  except estimates.TooLarge as e:
    args.error(str(e))
  except ValueError as e:
    args.error(f"{option}: {e}")
  if wait > WEB_TURN_LIMIT:
    args.error(f"{option}: each turn the bots would take about {estimates.format_seconds(wait)}"
               f" together ({seats} seat(s), calibrated on a few timed decisions under a"
               " scaled-down budget); allowed: a budget whose turn takes at most"
               f" {estimates.format_seconds(WEB_TURN_LIMIT)} (a person waits for it)")
  if wait >= WEB_TURN_SECONDS:
    estimates.print_notes([f"each turn the bots take about {estimates.format_seconds(wait)}"
                           f" together ({seats} seat(s), calibrated on a few timed decisions"
                           " under a scaled-down budget)"])


def _load_game(game_string: str, error) -> pyspiel.Game:
  """Loads a game string of one of `GAMES`; any problem ends in `error` with a clear message."""
  try:
    name = config.game_name(game_string)
  except ValueError as e:
    error(f"--game {game_string!r} is not a game string ({e}); allowed: {' or '.join(GAMES)}"
          f" game strings, as in {' or '.join(map(repr, GAMES.values()))}")
  if name not in GAMES:
    error(f"--game {game_string!r}: this command plays {' or '.join(GAMES)} only, as in"
          f" {' or '.join(map(repr, GAMES.values()))}; got game {name!r}")
  try:
    game = pyspiel.load_game(game_string)
    config.check_deal(game)
  except (pyspiel.SpielError, ValueError) as e:
    error(f"--game {game_string!r}: {e}")
  return game


def _play_game(game: pyspiel.Game, seed: int, humans: set[int], quiet: bool) -> None:
  """Plays and prints one game; raises `_Abandoned` if a human's input ends."""
  n = game.num_players()
  text = game.text_class(game, humans, quiet)
  # Bots draw from their own stream, so the deal does not depend on which seats are human.
  chance_rng = random.Random(seed)
  bot_rng = random.Random(chance_rng.getrandbits(64))
  print(header(game, seed, humans))
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[draw_index(probabilities, chance_rng.random)])
      continue
    rounds_done = len(state.round_records())
    if not quiet:
      print(f"\n{position(state)}")
    hands = state.hands()
    actions = [_human_action(state, p) if p in humans else bot_rng.choice(state.legal_actions(p))
               for p in range(n)]
    if not quiet:
      picks = [state.action_to_string(p, a) for p, a in enumerate(actions)]
      if humans:
        print()
      print(text.reveal(picks, None if humans else hands))
    state.apply_actions(actions)
    if len(state.round_records()) > rounds_done:
      print(text.round_end(state))
  print(text.result(state))


def _human_action(state: pyspiel.State, player: int) -> int:
  """Shows `player` its view and its legal actions, and reads a choice from standard input."""
  legal = state.legal_actions(player)
  names = [state.action_to_string(player, action) for action in legal]
  print(f"\nP{player}, your view:")
  print("\n".join(f"  {line}" for line in state.observation_string(player).splitlines()))
  if len(legal) == 1:
    print(f"P{player} plays {names[0]}, the only choice.")
    return legal[0]
  print(indented_table([("choice", "action")] + [(i, name) for i, name in enumerate(names, 1)]))
  while True:
    try:
      answer = input(f"P{player}, your choice (1-{len(legal)}): ").strip()
    except EOFError:
      raise _Abandoned from None
    choice = _choice_number(answer, len(legal))
    if choice is not None:
      return legal[choice - 1]
    shown = answer if len(answer) <= _ANSWER_SHOWN else answer[:_ANSWER_SHOWN] + "..."
    print(f"{shown!r} is not a choice: enter a number from 1 to {len(legal)}.")


def _choice_number(answer: str, count: int) -> int | None:
  """The number typed, if it is one of the choices 1 to `count`; None otherwise (a number too long
  to be a choice is not converted: Python refuses to convert numbers of thousands of digits)."""
  digits = answer.lstrip("0")
  if not answer.isdecimal() or len(digits) > len(str(count)):
    return None
  number = int(digits or "0")
  return number if 1 <= number <= count else None

