"""The `sushigo` command: play Sushi Go at the terminal, measure its speed, or run experiments.

`sushigo play` plays one game between random bots and people at the terminal; `sushigo bench` runs
the speed benchmarks of `experiments.bench`; `sushigo train` trains and saves a CFR policy;
`sushigo run`, `reproduce` and `report` play, check and summarise experiments between solvers
(`experiments.runner`). This module parses the command line; what each command does is a module
of `experiments.commands`, loaded only when that command runs, so that `sushigo --help` and
playing a game stay quick.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys

import pyspiel

from experiments import stopping
from experiments.bench import cold as cold_bench
from experiments.bench import game as bench
from experiments.commands.play import GAMES
from solvers.equilibrium.tree_size import MAX_TREE_NODES, parse_bytes

DEFAULT_MEMORY = "4GB"  # of `sushigo exploitability`: `large`, the largest reduced game, fits

# The one deferred import of the command line: the function that runs each command, as
# "module:function". Its modules load the solvers, the experiment stack and matplotlib (about
# 1.5 s of imports), which parsing the command line, and `--help`, do not need.
COMMANDS = {
    "play": "experiments.commands.play:play",
    "bench": "experiments.commands.bench:bench",
    "train": "experiments.commands.train:train",
    "exploitability": "experiments.commands.exploitability:exploitability",
    "run": "experiments.commands.experiment:run",
    "reproduce": "experiments.commands.experiment:reproduce",
    "report": "experiments.commands.experiment:report",
    "compile": "experiments.commands.compile:compile_command",
}

_EPILOG = """examples:
  sushigo play                                 three random bots, a fresh seed
  sushigo play --seed 7 --human 0              you are P0 against two bots
  sushigo play --game "python_sushi_go(players=5,rounds=1)" --quiet
  sushigo play --game "python_sushi_draft(players=3)"
  sushigo bench                                speed beside OpenSpiel's C++ goofspiel
  sushigo bench --seconds 1 --players 2 --draft-players 5 --json bench.json
  sushigo bench --search                       ISMCTS iterations/s beside OpenSpiel's ISMCTS
  sushigo bench --equilibrium                  exploitability and CFR+ beside OpenSpiel's C++
  sushigo bench --rl                           the batched, PettingZoo and OpenSpiel RL envs
  sushigo bench --ppo                          the PPO learner's steps/s beside its env's
  sushigo bench --training-workers 2           blueprint training's speed-up on 2 processes
  sushigo bench --cold                         compiling from nothing, and the quickstart cold
  sushigo compile                              every kernel set now, on every core (once)
  sushigo train small --algorithm cfr+ --abstraction canonical --iterations 500 --out p.npz
  sushigo train small --algorithm probe-mccfr --abstraction cards --seconds 60 --out b.npz
  sushigo train small --algorithm probe-mccfr --abstraction cards --seconds 60 --out b.npz --resume
  sushigo train small --algorithm probe-mccfr --abstraction cards --seconds 60 --out b.npz --resume \
      --restart-average --play mean
  sushigo train "python_sushi_go(players=2,utility=margin)" --algorithm ppo --seconds 600 \
      --out ppo/checkpoint.npz --agent ppo/agent.npz     (the learn extra; --resume continues)
  sushigo exploitability tiny --bot greedy     exact NashConv and gains: the tree fits --memory
  sushigo exploitability "python_sushi_go(players=2,utility=margin)" --bot greedy   lower bounds
  sushigo run experiments/configs/quickstart.toml
  sushigo run CONFIG --out runs/q --workers 2  an experiment; the same command resumes it
  sushigo reproduce runs/q                     replay a run and compare every record
  sushigo report runs/q                        tables and plots of a run folder, again
  sushigo report runs/q --html                 the same, and report.html with game replays
  sushigo report --docs                        README and docs/ figures from the stored runs

Run `sushigo COMMAND --help` for the options of each command."""


_PLAY_EPILOG = """examples:
  sushigo play --seed 7                        watch three bots; the same seed, the same game
  sushigo play --human 0 --game "python_sushi_go(players=2)"
  sushigo play --human 0 1                     two people share the terminal, P2 is a bot
  sushigo play --human 0 --game "python_sushi_draft(players=3)"
  sushigo play --web --bot heuristic --game "python_sushi_go(players=2)"   in the browser

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

The config is checked in full before any game is played (its format:
experiments/tournament/config.py). The run folder gets config.toml, resolved_config.json,
records.jsonl (one line per game), timings.jsonl, provenance.json and, once complete, the report
(summary.md, summary.csv, plots/), and manifest.json, the list of the run's files. Records do not
depend on --workers or --backend. Run the same command again to resume an interrupted run; a
folder holding another config is refused unless --force, which removes the run's files and no
other. One run writes a folder at a time (run.lock). Ctrl-C or SIGTERM stops a run cleanly, a
second one at once.
A config whose [experiment] has a kind (convergence, abstraction, exploitability,
approximate_exploitability) is a solving experiment (its format: experiments/solving/): its
folder gets results.jsonl (one line per unit of work) and the report summary.md, results.csv,
plots/."""


_EXPLOITABILITY_EPILOG = """examples:
  sushigo exploitability small --bot heuristic
  sushigo exploitability three_players --bot so_ismcts --param iterations=200
  sushigo exploitability small --policy p.npz
  sushigo exploitability small --bot greedy --approximate --responder ismcts:iterations=3000
  sushigo exploitability "python_sushi_go(players=2,utility=margin)" --bot heuristic \
      --responder lbr:worlds=8,rollouts=1 --games 200 --workers 2 --json heuristic.json
  sushigo exploitability "python_sushi_go(players=2,utility=margin)" --bot random \
      --responder ismcts:iterations=100 --responder ismcts:iterations=10000
  sushigo exploitability small --bot random --approximate --responder learned:games=3000
  sushigo exploitability small --bot greedy --approximate --responder ppo:iterations=200
  sushigo exploitability small --bot greedy --memory 10MB      bounds: small's tree is over 10 MB
  sushigo exploitability "python_sushi_draft(players=2,rounds=1,hand_size=3,deal=hand)" \
      --policy draft.npz                       exact on a Sushi Draft game string

Responders (--responder KIND[:KEY=VALUE,...], repeatable; each gives its own bound):
  ismcts  Information-Set MCTS searching against the policy (parameters of so_ismcts:
          iterations, c, rollout, ...); on the compiled core when the policy is random or greedy
  lbr     Local Best Response (parameters worlds, depth, branching, rollouts, continuation);
          needs a policy it can read at any table, so not a search bot
  learned a linear Q agent trained against the policy on training games of its own, then
          played greedily (parameters games, training_seed, learning_rate, epsilon); needs a
          policy it can read at any table; trains once per seat
  ppo     masked PPO on the batched core trained against the policy, played greedily
          (parameters iterations, training_seed, num_envs, rollout_steps, epochs, minibatches,
          learning_rate, entropy_coef, anneal_entropy, gae_lambda, hidden, observation_type;
          the learn extra);
          against random, greedy or heuristic, which the core plays exactly; trains once per seat
Default: ismcts:iterations=1000 and, where the policy can be read, lbr:worlds=8,rollouts=1.

Exploitability is NashConv / 2 in two-player zero-sum games (utility=margin, the reduced
games' utility); elsewhere NashConv and each player's gain are reported. A bound is the
responders' mean gain over the policy's own self-play in the same deals (common random
numbers), seat by seat, with a 95% interval; it is a valid lower bound however weak the
responder, and tight only when the responder is strong: compare responders of growing budget.

The run folder (--out, default runs/exploitability-<time>) holds the config, results.jsonl and
the report (summary.md, results.csv, plots/bound_<game>.png); the same command resumes it, and
`sushigo reproduce` replays it. Records do not depend on --workers or --backend."""


# What a command may raise for input it refuses (a file that is no policy, a policy that is no
# distribution, a game the rules refuse, a file that cannot be read): one line, exit status 2.
# An OverflowError is a number too large for a compiled kernel's integers.
USER_ERRORS = (ValueError, OSError, OverflowError, pyspiel.SpielError)


def main(argv: list[str] | None = None) -> int:
  """Runs the command in `argv` (default: the process arguments); returns the exit status.

  Every refusal is one line on stderr, "sushigo COMMAND: error: ...", and exit status 2: the
  parser's, the commands' own (`args.error`), and the errors of `USER_ERRORS` raised on the way;
  --debug raises these instead, with their traceback."""
  args = _parser().parse_args(argv)
  with stopping.on_stop_signals():
    try:
      return _command(args.command)(args)
    except KeyboardInterrupt:
      print("\nInterrupted.", file=sys.stderr)
      return stopping.EXIT_STATUS
    except USER_ERRORS as e:
      if args.debug:
        raise
      args.error(str(e) or type(e).__name__)
  return 2  # not reached: `error` exits


def one_line(message: str) -> str:
  """`message` on one line: its line breaks as " / " (an information state keeps its own
  escaped form, so this only joins a message's sentences)."""
  return " / ".join(line.strip() for line in message.strip().splitlines() if line.strip())


class _Parser(argparse.ArgumentParser):
  """An argument parser whose refusals are one line on stderr and exit status 2 (argparse prints
  the usage first; `sushigo COMMAND --help` shows it)."""

  def error(self, message: str):
    self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def _parser() -> argparse.ArgumentParser:
  parser = _Parser(
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
  play.add_argument("--web", action="store_true",
                    help="play in the browser instead: a local server on 127.0.0.1, you at the"
                    " first --human seat (default 0), --bot in every other seat")
  play.add_argument("--port", type=_count, metavar="N",
                    help="with --web: the port to serve on (default: a free one, printed)")
  play.add_argument("--bot", metavar="NAME",
                    help="with --web: the bot in the other seats (default: random)")
  play.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="with --web: a parameter of --bot (repeatable)")
  play.add_argument("--records", metavar="FILE",
                    help="with --web: where saved games are appended as records (default:"
                    " web-games.jsonl); `sushigo report FILE --html` replays them")
  play.set_defaults(error=play.error)

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
                     help="also measure the compiled core's playouts, ISMCTS iterations/s beside"
                     " OpenSpiel's Python ISMCTS, PIMC worlds/s beside its Python engine, and the"
                     " kernels' compile times (experiments.bench.search)")
  speed.add_argument("--no-compile-times", action="store_true",
                     help="with --search: skip the cold and warm compile times (a cold compile"
                     " takes minutes)")
  speed.add_argument("--search-players", type=int, nargs="+", choices=range(2, 6),
                     default=[2, 4], metavar="N",
                     help="Sushi Go player counts of --search (default: 2 4)")
  speed.add_argument("--training-workers", type=_positive(int), metavar="N",
                     help="also time blueprint training (probe-mccfr on the full two-player game)"
                     " on 1 and on N worker processes, in wall-clock iterations/s: the scaling"
                     " figure (needs N idle cores; experiments.bench.search)")
  speed.add_argument("--training-iterations", type=_positive(int), default=16_000,
                     metavar="I", help="iterations of each --training-workers run (default:"
                     " %(default)s, about a minute on one core)")
  speed.add_argument("--training-abstraction", metavar="NAME",
                     help="the blueprint abstraction of --training-workers, cards or cards+rank"
                     " (default: training's, cards; cards+rank runs some 20 times fewer iterations"
                     " a second)")
  speed.add_argument("--equilibrium", action="store_true",
                     help="also time exact exploitability and a CFR+ iteration on a reduced game"
                     " beside OpenSpiel's C++ on the cached turn-based tree, and OpenSpiel's"
                     " Python nash_conv (experiments.bench.equilibrium, experiments.bench.cfr)")
  speed.add_argument("--equilibrium-game", default="small", metavar="NAME",
                     help="the reduced game of --equilibrium (default: %(default)s)")
  speed.add_argument("--python-game", default="tiny", metavar="NAME",
                     help="the smaller reduced game on which --equilibrium times OpenSpiel's"
                     " Python nash_conv (default: %(default)s)")
  speed.add_argument("--rl", action="store_true",
                     help="also measure environment steps/s: the batched environment (1,024"
                     " games on the compiled core, target 1,000,000 steps/s against random"
                     " opponents), the PettingZoo parallel env and OpenSpiel's rl_environment"
                     " (experiments.bench.rl; needs the rl extra)")
  speed.add_argument("--ppo", action="store_true",
                     help="also measure the PPO learner's steps/s (collection and update) beside"
                     " its environment's raw steps/s, target 200,000 (experiments.bench.learning;"
                     " needs the learn extra)")
  speed.add_argument("--cold", action="store_true",
                     help="instead, what a fresh install pays: in a temporary copy with an empty"
                     " kernel cache, every kernel set's compile, then the quickstart cold and"
                     f" warm, in CPU and wall seconds, against the targets (quickstart <="
                     f" {cold_bench.MAX_QUICKSTART:g} CPU s, every set <= {cold_bench.MAX_ALL_SETS:g}"
                     " CPU s; experiments.bench.cold; some minutes)")
  speed.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
  speed.set_defaults(error=speed.error)
  _add_train_command(commands)
  _add_exploitability_command(commands)
  _add_experiment_commands(commands)
  _add_compile_command(commands)
  for command in commands.choices.values():
    command.add_argument("--debug", action="store_true",
                         help="on an error, raise it with its traceback instead of one line")
  return parser


def _add_train_command(commands) -> None:
  train = commands.add_parser(
      "train", help="train a CFR policy on an abstraction and save it",
      description="Runs a CFR-family solver on a game (a reduced game's name or a python_sushi_go"
      "\ngame string) for a number of iterations or seconds, saves its average policy with its"
      "\nprovenance, and, on a reduced game, prints its exact exploitability. The saved file"
      "\nplays as the bot 'policy' (params = { path = ... }). With --algorithm ppo it trains a"
      "\nPPO agent on the batched core instead (the learn extra), checkpointed at --out, with its"
      "\nlearning curve against the heuristic beside it; the agent plays as the bot 'ppo'.",
      formatter_class=argparse.RawDescriptionHelpFormatter)
  train.add_argument("game", metavar="GAME", help="a reduced game (tiny, small, ...) or a game"
                     " string")
  train.add_argument("--algorithm", default="cfr+", metavar="NAME",
                     help="cfr, cfr+ or dcfr (full width: reduced games only), es-mccfr or"
                     " os-mccfr; with --abstraction cards or cards+rank: es-mccfr, probe-mccfr or"
                     " os-mccfr, on the compiled core; or ppo (masked PPO on the batched core,"
                     " Sushi Go game strings) (default: %(default)s)")
  train.add_argument("--opponents", metavar="BOT:SHARE,...",
                     help="with --algorithm ppo: the league the agent trains against, compiled"
                     " bots (random, greedy, heuristic) and past (the agent's past selves) with"
                     " their shares of the games (default: heuristic:6,greedy:1,random:1)")
  train.add_argument("--ppo", action="append", default=[], metavar="KEY=VALUE",
                     help="with --algorithm ppo: a training setting (num_envs, rollout_steps,"
                     " epochs, minibatches, learning_rate, entropy_coef, entropy_anneal,"
                     " hidden, overlap=true|false, eval_every, eval_games, ...:"
                     " solvers.learning.ppo.PPOConfig); repeatable")
  train.add_argument("--agent", metavar="PATH",
                     help="with --algorithm ppo: also save the agent alone (what the bot 'ppo'"
                     " plays) to PATH at every checkpoint")
  train.add_argument("--abstraction", default="identity", metavar="NAME",
                     help="identity, canonical, buckets:N, kmeans:K, summary:N, or cards or"
                     " cards+rank (the blueprint's action-centred keys, compiled; cards+rank adds"
                     " each action's rank under the heuristic's values) (default: %(default)s)")
  train.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                     help="local training processes, with a blueprint abstraction (default:"
                     " %(default)s)")
  train.add_argument("--backend", choices=("local", "ray"), default="local",
                     help="with a blueprint abstraction: local processes or Ray workers (default:"
                     " %(default)s)")
  train.add_argument("--address", metavar="ADDR",
                     help="with --backend ray: an existing cluster (default: a local Ray)")
  train.add_argument("--resume", action="store_true",
                     help="with a blueprint abstraction or ppo: continue the checkpoint at --out for"
                     " --iterations or --seconds more")
  train.add_argument("--play", metavar="NAME",
                     help="with a blueprint abstraction: the strategy the saved blueprint plays:"
                     " average (its average weights normalised at a decision), mean (each key's"
                     " mean probability when offered) or current (regret matching on the last"
                     " regrets) (default: average, or with --resume the checkpoint's)")
  train.add_argument("--force", action="store_true",
                     help="train afresh over an existing --out (without it, and without --resume,"
                     " an existing --out is refused)")
  train.add_argument("--checkpoint-seconds", type=_positive(float), default=60.0, metavar="S",
                     help="with a blueprint abstraction or ppo: save the checkpoint at --out every S"
                     " seconds of training, so that a killed training loses at most S seconds"
                     " (default: %(default)s)")
  train.add_argument("--restart-average", action="store_true",
                     help="with --resume: gather the average strategy afresh from now on (the"
                     " regrets carry on); needed to play mean from a checkpoint saved without"
                     " offer weights")
  budget = train.add_mutually_exclusive_group(required=True)
  budget.add_argument("--iterations", type=_positive(int), metavar="N")
  budget.add_argument("--seconds", type=_positive(float), metavar="S")
  train.add_argument("--seed", type=int, default=0, help="default: %(default)s")
  train.add_argument("--out", required=True, metavar="PATH", help="the policy file (.npz)")
  train.add_argument("--max-nodes", type=_positive(int), default=MAX_TREE_NODES, metavar="N",
                     help="refuse a game whose tree (full width) or whose tree per iteration"
                     " (es-mccfr) has more nodes, estimated before training (default: %(default)s,"
                     " about 7 GB)")
  train.add_argument("--quiet", action="store_true", help="no progress bar")
  train.set_defaults(error=train.error)


def _add_exploitability_command(commands) -> None:
  measure = commands.add_parser(
      "exploitability", help="exact or approximate exploitability of a bot or a saved policy",
      formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EXPLOITABILITY_EPILOG,
      description="Measures how much a policy (a bot with its parameters, or a policy file saved"
      "\nby sushigo train) can be exploited. The game's tree is estimated first (histories,"
      "\nnodes, information sets, memory). Where it fits --memory: exact NashConv, exploitability"
      "\nand each player's best-response gain, on the whole game tree. Elsewhere (or with"
      "\n--approximate): lower bounds from best responders playing paired games against the"
      "\npolicy, with 95% intervals. The command prints which it does and why.")
  measure.add_argument("game", metavar="GAME", help="a reduced game (tiny, small, medium, large,"
                       " ...) or a python_sushi_go or python_sushi_draft game string")
  policy = measure.add_mutually_exclusive_group(required=True)
  policy.add_argument("--bot", metavar="NAME", help="the bot to measure (random, greedy,"
                      " heuristic, so_ismcts, mo_ismcts, pimc, ...)")
  policy.add_argument("--policy", metavar="PATH", help="a policy file saved by sushigo train")
  measure.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                       help="a parameter of --bot (repeatable), e.g. iterations=200")
  measure.add_argument("--memory", type=_memory, default=DEFAULT_MEMORY, metavar="SIZE",
                       help="the memory the exact measure may take to build the game's tree,"
                       " such as 4GB or 512MB: a game whose tree is estimated within it is"
                       " measured exactly, any other gets lower bounds (default: %(default)s)")
  measure.add_argument("--approximate", action="store_true",
                       help="lower bounds even where the tree fits --memory (the exact figures"
                       " are then computed beside them)")
  measure.add_argument("--responder", action="append", default=[], metavar="SPEC",
                       help="a best responder, KIND[:KEY=VALUE,...] (repeatable; see below)")
  measure.add_argument("--games", type=_positive(int), default=100, metavar="N",
                       help="paired games per seat and responder (default: %(default)s)")
  measure.add_argument("--model-in-tree-only", action="store_true",
                       help="the ismcts responder asks the policy in its tree only and plays"
                       " its rollouts by its rollout policy (cheaper against slow policies)")
  measure.add_argument("--seed", type=int, default=0, help="default: %(default)s")
  measure.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                       help="parallel processes, or Ray CPUs (default: %(default)s)")
  measure.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="local processes or Ray (default: %(default)s)")
  measure.add_argument("--address", metavar="ADDR",
                       help="with --backend ray: an existing cluster (default: a local Ray)")
  measure.add_argument("--out", metavar="DIR",
                       help="the run folder (default: a new runs/exploitability-<time>)")
  measure.add_argument("--force", action="store_true",
                       help="start over in a folder that holds another run")
  measure.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
  measure.add_argument("--quiet", action="store_true", help="no progress bar or notes")
  measure.set_defaults(error=measure.error)


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
                          help="start over in a folder that holds another (or the same) run,"
                          " removing the files of its manifest (no other file)")
  experiment.add_argument("--quiet", action="store_true", help="no progress bar or notes")
  experiment.set_defaults(error=experiment.error)

  replay = commands.add_parser(
      "reproduce", help="replay a run and compare every record",
      description="Replays the config stored in a run folder in a temporary folder and compares\n"
      "every record; exits with status 1 if any differs.")
  replay.add_argument("run_dir", metavar="RUN_DIR", help="a run folder")
  replay.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                      help="parallel processes (default: %(default)s)")
  replay.set_defaults(error=replay.error)

  summary = commands.add_parser(
      "report", help="write and print the report of a run folder",
      description="Writes summary.md, summary.csv and plots/ in a run folder, and prints the\n"
      "tables. With --docs, rewrites instead the generated blocks of README.md and docs/ from\n"
      "the stored runs in experiments/results/ (python -m experiments.docs).")
  summary.add_argument("run_dir", metavar="RUN_DIR", nargs="?", help="a run folder")
  summary.add_argument("--docs", action="store_true",
                       help="regenerate every results table and figure of README.md and docs/")
  summary.add_argument("--check", action="store_true",
                       help="with --docs: write nothing, exit 1 if a page differs from the runs")
  summary.add_argument("--html", action="store_true",
                       help="also write report.html: the report, its plots and replays of the"
                       " games in one self-contained file that opens offline")
  summary.add_argument("--replays", type=_count, default=None, metavar="N",
                       help="with --html: games replayed per game string, the first by index"
                       " (default: 20)")
  summary.add_argument("--game", type=_count, action="append", default=[], metavar="I",
                       help="with --html: replay game I as well (repeatable)")
  summary.set_defaults(error=summary.error)


def _add_compile_command(commands) -> None:
  from experiments.commands.compile import default_jobs
  compile_parser = commands.add_parser(
      "compile", help="compile kernel sets now, on every core, instead of on first use",
      description="Compiles the kernel sets named (default: all) into numba's cache, each in a\n"
      "worker process once the sets it requires are compiled. Kernels otherwise compile on\n"
      "their first call, once per environment; this pays it up front, on every core.")
  compile_parser.add_argument("sets", nargs="*", metavar="SET",
                              help="kernel sets to compile, as --list names them (default: all)")
  compile_parser.add_argument("--jobs", type=_positive(int), default=default_jobs(), metavar="N",
                              help="worker processes (default: the cores available, here"
                              " %(default)s)")
  compile_parser.add_argument("--list", action="store_true",
                              help="list the kernel sets and what each requires, and exit")
  compile_parser.set_defaults(error=compile_parser.error)


def _memory(text: str) -> int:
  """A memory size (`tree_size.parse_bytes`) for argparse."""
  try:
    return parse_bytes(text)
  except ValueError as e:
    raise argparse.ArgumentTypeError(str(e)) from None


def _count(text: str) -> int:
  """A whole number >= 0 for argparse."""
  if not text.strip().isdecimal():
    raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
  return int(text)


def _positive(kind):
  """A parser of positive finite numbers of type `kind` (nan, inf and 0 are refused)."""
  def parse(text: str):
    try:
      value = kind(text)
    except ValueError:
      value = 0
    if not math.isfinite(value) or value <= 0:
      raise argparse.ArgumentTypeError(f"expected a finite positive {kind.__name__}, got {text!r}")
    return value
  return parse




def _command(name: str):
  """The function that runs command `name` (see `COMMANDS`)."""
  module, function = COMMANDS[name].split(":")
  return getattr(importlib.import_module(module), function)


if __name__ == "__main__":
  sys.exit(main())
