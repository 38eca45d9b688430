"""The `sushigo` command: play Sushi Go at the terminal, measure its speed, or run experiments.

`sushigo play` plays one game of `python_sushi_go` or `python_sushi_draft` between uniform random
bots, with any seats taken by people at the terminal, and prints every turn and the outcome of every
round (Sushi Go: the score breakdown; Sushi Draft: the eaten cards and the chips awarded): a way to
watch the rules at work and to play against the simplest baseline. A human seat is shown only what
that player may know (its observation string); every hand, every kept card and every chip value are
shown only when no human plays. `sushigo bench` runs the speed benchmark of `bench.py`. `sushigo
run`, `reproduce` and `report` play, check and summarise experiments between solvers
(`experiments.runner`); they import the experiment stack only when used, so playing and
benchmarking stay light.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import pathlib
import random
import sys

import pyspiel

from experiments.bench import game as bench
from sushigo_spiel.sushi_go import scoring
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.sushi_draft.cards import PILE_NAMES

# The games `play` knows, each with an example game string (the first is the default).
GAMES = {"python_sushi_go": "python_sushi_go(players=3)",
         "python_sushi_draft": "python_sushi_draft(players=3)"}

_EPILOG = """examples:
  sushigo play                                 three random bots, a fresh seed
  sushigo play --seed 7 --human 0              you are P0 against two bots
  sushigo play --game "python_sushi_go(players=5,rounds=1)" --quiet
  sushigo play --game "python_sushi_draft(players=3)"
  sushigo bench                                speed beside OpenSpiel's C++ goofspiel
  sushigo bench --seconds 1 --players 2 --draft-players 5 --json bench.json
  sushigo bench --search                       ISMCTS iterations/s beside OpenSpiel's ISMCTS
  sushigo bench --equilibrium                  exploitability and CFR+ beside OpenSpiel's C++
  sushigo train small --algorithm cfr+ --abstraction canonical --iterations 500 --out p.npz
  sushigo run experiments/configs/quickstart.toml
  sushigo run CONFIG --out runs/q --workers 2  an experiment; the same command resumes it
  sushigo reproduce runs/q                     replay a run and compare every record
  sushigo report runs/q                        tables and plots of a run folder, again

Run `sushigo COMMAND --help` for the options of each command."""


_PLAY_EPILOG = """examples:
  sushigo play --seed 7                        watch three bots; the same seed, the same game
  sushigo play --human 0 --game "python_sushi_go(players=2)"
  sushigo play --human 0 1                     two people share the terminal, P2 is a bot
  sushigo play --human 0 --game "python_sushi_draft(players=3)"

A human seat sees what its player may know (Sushi Go: its own hand, the hands it has
already held, and the tableaus; Sushi Draft: its hand, every eaten card, who holds which
chips and its own chips' values); it chooses by number. When a human plays, kept cards and
other players' chip values stay secret. End the input (Ctrl-D) to leave the game."""


_RUN_EPILOG = """examples:
  sushigo run experiments/configs/quickstart.toml
  sushigo run experiments/configs/cfr_convergence.toml   a solving experiment ([experiment] kind)
  sushigo run CONFIG --out runs/big --workers 8
  sushigo run CONFIG --out runs/big --backend ray                  a local Ray instance
  sushigo run CONFIG --out runs/big --backend ray --address auto   an existing Ray cluster

The config is checked in full before any game is played (its format: experiments/config.py).
The run folder gets config.toml, resolved_config.json, records.jsonl (one line per game),
timings.jsonl, provenance.json and, once complete, the report (summary.md, summary.csv, plots/).
Records do not depend on --workers or --backend. Run the same command again to resume an
interrupted run; a folder holding another config is refused unless --force.
A config whose [experiment] has a kind (convergence, abstraction, exploitability,
approximate_exploitability) is a solving experiment (its format: experiments/solving.py): its
folder gets results.jsonl (one line per unit of work) and the report summary.md, results.csv,
plots/; it runs on local processes."""


class _Abandoned(Exception):
  """A human player's input ended before the game did."""


def main(argv: list[str] | None = None) -> int:
  """Runs the command in `argv` (default: the process arguments); returns the exit status."""
  args = _parser().parse_args(argv)
  try:
    return args.run(args)
  except KeyboardInterrupt:
    print("\nInterrupted.", file=sys.stderr)
    return 130


def _parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog="sushigo", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EPILOG,
      description="Sushi Go and Sushi Draft as the OpenSpiel games python_sushi_go and\n"
      "python_sushi_draft: play a game at the terminal against random bots (or watch bots\n"
      "play), measure how fast the games run, or run reproducible experiments between solvers.")
  commands = parser.add_subparsers(title="commands", dest="command", required=True)

  play = commands.add_parser(
      "play", help="play one game between random bots and human players",
      formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_PLAY_EPILOG,
      description="Plays one game of python_sushi_go or python_sushi_draft. Seats not given to\n"
      "--human are uniform random bots. Prints every turn and the outcome of every round: the\n"
      "score breakdown (Sushi Go), or the eaten cards and the chips awarded (Sushi Draft).")
  play.add_argument("--game", default=GAMES["python_sushi_go"], metavar="GAME_STRING",
                    help=f"a {' or '.join(GAMES)} game string (default: %(default)s)")
  play.add_argument("--seed", type=int, metavar="N",
                    help="seed of the deal and the bots (default: a fresh one, printed)")
  play.add_argument("--human", type=int, nargs="+", action="extend", default=[], metavar="P",
                    help="seats (0-based) played from the terminal")
  play.add_argument("--quiet", action="store_true",
                    help="print only each round's scores (Sushi Draft: chips) and the result"
                    " (humans still see their view when they choose)")
  play.set_defaults(run=_play, error=play.error)

  speed = commands.add_parser(
      "bench", help="measure random-game speed beside OpenSpiel's C++ goofspiel",
      description="Plays uniform random full games of python_sushi_go, python_sushi_draft and"
      f" the C++ game {bench.REFERENCE} through the same loop, interleaved, and reports the"
      f" medians and the targets (Sushi Go steps/s at least {bench.MIN_STEP_RATIO} of"
      f" goofspiel's; at least {bench.MIN_GAMES_2P} full 2-player games/s). Sushi Draft is"
      " measured beside them, with no target.")
  speed.add_argument("--seconds", type=_positive(float), default=2.0, metavar="S",
                     help="length of each measurement (default: %(default)s)")
  speed.add_argument("--players", type=int, nargs="+", choices=range(2, 6), default=[2, 5],
                     metavar="N", help="Sushi Go player counts, 2 to 5 (default: 2 5)")
  speed.add_argument("--draft-players", type=int, nargs="+", choices=range(2, 6), default=[3],
                     metavar="N", help="Sushi Draft player counts, 2 to 5 (default: 3)")
  speed.add_argument("--repeats", type=_positive(int), default=3, metavar="R",
                     help="rounds of interleaved measurements (default: %(default)s)")
  speed.add_argument("--search", action="store_true",
                     help="also measure the project's ISMCTS iterations/s beside OpenSpiel's"
                     " Python ISMCTS at the opening position (solvers.search_bench)")
  speed.add_argument("--search-players", type=int, nargs="+", choices=range(2, 6),
                     default=[2, 4], metavar="N",
                     help="Sushi Go player counts of --search (default: 2 4)")
  speed.add_argument("--equilibrium", action="store_true",
                     help="also time exact exploitability and a CFR+ iteration on a reduced game"
                     " beside OpenSpiel's C++ on the cached turn-based tree, and OpenSpiel's"
                     " Python nash_conv (solvers.equilibrium_bench, solvers.cfr_bench)")
  speed.add_argument("--equilibrium-game", default="small", metavar="NAME",
                     help="the reduced game of --equilibrium (default: %(default)s)")
  speed.add_argument("--python-game", default="tiny", metavar="NAME",
                     help="the smaller reduced game on which --equilibrium times OpenSpiel's"
                     " Python nash_conv (default: %(default)s)")
  speed.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
  speed.set_defaults(run=_bench, error=speed.error)
  _add_train_command(commands)
  _add_experiment_commands(commands)
  return parser


def _add_train_command(commands) -> None:
  train = commands.add_parser(
      "train", help="train a CFR policy on an abstraction and save it",
      description="Runs a CFR-family solver on a game (a reduced game's name or a python_sushi_go"
      "\ngame string) for a number of iterations or seconds, saves its average policy with its"
      "\nprovenance, and, on a reduced game, prints its exact exploitability. The saved file"
      "\nplays as the bot 'policy' (params = { path = ... }).",
      formatter_class=argparse.RawDescriptionHelpFormatter)
  train.add_argument("game", metavar="GAME", help="a reduced game (tiny, small, ...) or a game"
                     " string")
  train.add_argument("--algorithm", default="cfr+", metavar="NAME",
                     help="cfr, cfr+ or dcfr (full width: reduced games only), es-mccfr or"
                     " os-mccfr (default: %(default)s)")
  train.add_argument("--abstraction", default="identity", metavar="NAME",
                     help="identity, canonical, buckets:N, kmeans:K or summary:N (default:"
                     " %(default)s)")
  budget = train.add_mutually_exclusive_group(required=True)
  budget.add_argument("--iterations", type=_positive(int), metavar="N")
  budget.add_argument("--seconds", type=_positive(float), metavar="S")
  train.add_argument("--seed", type=int, default=0, help="default: %(default)s")
  train.add_argument("--out", required=True, metavar="PATH", help="the policy file (.npz)")
  train.add_argument("--quiet", action="store_true", help="no progress bar")
  train.set_defaults(run=_train, error=train.error)


def _train(args: argparse.Namespace) -> int:
  from solvers.equilibrium import exploitability, policies as policy_io  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.game_tree import GameTree  # pylint: disable=import-outside-toplevel
  from sushigo_spiel import reduced_games  # pylint: disable=import-outside-toplevel
  try:
    policy = policy_io.train(args.game, args.algorithm, args.abstraction, args.iterations,
                             args.seconds, args.seed, args.out, progress=not args.quiet)
  except (ValueError, pyspiel.SpielError) as e:
    args.error(str(e))
  meta = policy.metadata
  print(f"{meta['algorithm']} on {meta['game']}, abstraction {meta['abstraction']}:"
        f" {meta['iterations']:,} iterations in {meta['seconds']:.1f} s, {len(policy.strategy):,}"
        f" keys; saved to {args.out}")
  if args.game in reduced_games.REDUCED_GAMES:
    tree = GameTree(policy.game)
    result = exploitability.nash_conv(tree, tree.policy_array(policy))
    print(f"NashConv in the real game: {result.nash_conv:.6g} (gains by player:"
          f" {', '.join(f'{g:.6g}' for g in result.gains)})")
  return 0


def _add_experiment_commands(commands) -> None:
  experiment = commands.add_parser(
      "run", help="run (or resume) an experiment from a TOML config",
      formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_RUN_EPILOG,
      description="Plays every game of an experiment config into a run folder, then writes and\n"
      "prints its report.")
  experiment.add_argument("config", metavar="CONFIG", help="the experiment's TOML file")
  experiment.add_argument("--out", metavar="DIR",
                          help="the run folder (default: a new runs/<name>-<timestamp>)")
  experiment.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                          help="parallel processes, or Ray CPUs (default: %(default)s)")
  experiment.add_argument("--backend", choices=("local", "ray"), default="local",
                          help="local processes or Ray (default: %(default)s)")
  experiment.add_argument("--address", metavar="ADDR",
                          help="with --backend ray: an existing cluster (default: a local Ray)")
  experiment.add_argument("--force", action="store_true",
                          help="start over in a folder that holds another (or the same) run")
  experiment.add_argument("--quiet", action="store_true", help="no progress bar or notes")
  experiment.set_defaults(run=_run, error=experiment.error)

  replay = commands.add_parser(
      "reproduce", help="replay a run and compare every record",
      description="Replays the config stored in a run folder in a temporary folder and compares\n"
      "every record; exits with status 1 if any differs.")
  replay.add_argument("run_dir", metavar="RUN_DIR", help="a run folder")
  replay.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                      help="parallel processes (default: %(default)s)")
  replay.set_defaults(run=_reproduce, error=replay.error)

  summary = commands.add_parser(
      "report", help="write and print the report of a run folder",
      description="Writes summary.md, summary.csv and plots/ in a run folder, and prints the\n"
      "tables.")
  summary.add_argument("run_dir", metavar="RUN_DIR", help="a run folder")
  summary.set_defaults(run=_report, error=summary.error)


def _positive(kind):
  def parse(text: str):
    try:
      value = kind(text)
    except ValueError:
      value = 0
    if value <= 0:
      raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}")
    return value
  return parse


def _bench(args: argparse.Namespace) -> int:
  if args.equilibrium:
    from sushigo_spiel import reduced_games  # pylint: disable=import-outside-toplevel
    for name in (args.equilibrium_game, args.python_game):
      if name not in reduced_games.REDUCED_GAMES:
        args.error(f"unknown reduced game {name!r}; allowed:"
                   f" {', '.join(reduced_games.REDUCED_GAMES)}")
  players, draft_players = sorted(set(args.players)), sorted(set(args.draft_players))
  count = 1 + len(players) + len(draft_players)
  print(f"Measuring {count} games, {args.repeats} time(s) each: {args.seconds:g} s of games, then"
        f" {args.seconds:g} s of clones (about {count * args.repeats * 2 * args.seconds:.0f} s)",
        flush=True)
  figures = bench.run(seconds=args.seconds, players=players, repeats=args.repeats,
                      draft_players=draft_players)
  print(bench.report(figures))
  if args.search:
    from experiments.bench import search as search_bench  # pylint: disable=import-outside-toplevel
    print(f"\nSearching the opening position, {args.seconds:g} s per bot and player count,"
          f" {args.repeats} time(s)", flush=True)
    figures["search"] = search_bench.run(players=sorted(set(args.search_players)),
                                         seconds=args.seconds, repeats=args.repeats)
    print(search_bench.report(figures["search"]))
  if args.equilibrium:
    figures["equilibrium"] = _bench_equilibrium(args)
  if args.json:
    bench.write_json(figures, args.json)
    print(f"Figures written to {args.json}")
  return 0


def _bench_equilibrium(args: argparse.Namespace) -> dict:
  from experiments.bench import cfr as cfr_bench, equilibrium as equilibrium_bench  # pylint: disable=import-outside-toplevel
  print(f"\nExact exploitability and CFR+ on {args.equilibrium_game}, {args.repeats} time(s)",
        flush=True)
  exploitability = equilibrium_bench.measure(args.equilibrium_game, args.python_game, args.repeats)
  print(equilibrium_bench.report(exploitability) + "\n")
  cfr = cfr_bench.measure(args.equilibrium_game, args.repeats)
  print(cfr_bench.report(cfr))
  return {"exploitability": {**exploitability._asdict(), "cpp_ratio": exploitability.cpp_ratio,
                             "python_speedup": exploitability.python_speedup},
          "cfr": {**cfr._asdict(), "ratio": cfr.ratio}}


def _run(args: argparse.Namespace) -> int:
  if args.address and args.backend != "ray":
    args.error("--address needs --backend ray")
  from experiments import runner, solving  # pylint: disable=import-outside-toplevel
  with _experiment_errors(args):
    if solving.is_solving_config(args.config):
      if args.backend != "local":
        args.error("solving experiments run on local processes: drop --backend")
      solving.run(args.config, out=args.out, workers=args.workers, force=args.force,
                  quiet=args.quiet)
    else:
      runner.run(args.config, out=args.out, workers=args.workers, backend=args.backend,
                 address=args.address, force=args.force, quiet=args.quiet)
  return 0


def _reproduce(args: argparse.Namespace) -> int:
  from experiments import runner, solving  # pylint: disable=import-outside-toplevel
  with _experiment_errors(args):
    if solving.is_solving_config(pathlib.Path(args.run_dir) / runner.CONFIG_FILE):
      return 0 if solving.reproduce(args.run_dir, workers=args.workers) else 1
    return 0 if runner.reproduce(args.run_dir, workers=args.workers) else 1


def _report(args: argparse.Namespace) -> int:
  from experiments import runner, solving  # pylint: disable=import-outside-toplevel
  with _experiment_errors(args):
    if solving.is_solving_config(pathlib.Path(args.run_dir) / runner.CONFIG_FILE):
      print(solving.report(args.run_dir))
    else:
      print(runner.report(args.run_dir))
  return 0


@contextlib.contextmanager
def _experiment_errors(args: argparse.Namespace):
  """Ends a bad config or run folder with its message (no traceback) and exit status 2."""
  from experiments import config, runner  # pylint: disable=import-outside-toplevel
  try:
    yield
  except (config.ConfigError, runner.RunError) as e:
    args.error(str(e))


def _play(args: argparse.Namespace) -> int:
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
      print(f"\nRobot's cards: {', '.join(record.robot_tableau)} (they compete for Maki and Pudding)")
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
  print("\n".join(f"  {line}" for line in bench.format_table(rows)))


if __name__ == "__main__":
  sys.exit(main())
