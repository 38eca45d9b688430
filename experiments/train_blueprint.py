"""Trains the blueprint (`cards` or `cards+rank` abstraction, MCCFR on the compiled core) on the
full game, measured as it learns, and resumable.

The game is `python_sushi_go(players=N,utility=margin)` (`--utility win`: the win share, recorded
in the file's game string). Every `--segment` seconds the solver is saved to `--out` and its
policy plays `--games` games against the heuristic (`train_full_policy.evaluate`); the point
(iterations, seconds, win rate and mean margin with their intervals) is printed and kept in the
file's metadata as its training curve. `--resume` continues from `--out` up to `--seconds` in all;
an existing `--out` is refused without `--resume` or `--force`; one training holds the file; the
checkpoint is also saved every `--checkpoint-seconds`, and a first Ctrl-C saves at the end of the
step under way; a table that is not finite is never saved. Training is determined by the seed
(and the number of workers). Equilibrium guarantees and the stored blueprints: docs/blueprint.md.

  nice -n 10 python -m experiments.train_blueprint --seconds 3000 --segment 600 \
      --out experiments/results/policies/blueprint_2p.npz
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import pyspiel

from experiments import estimates, file_errors, run_lock, stopping
from experiments.run_folder import RunError
from experiments.train_full_policy import evaluate
from solvers.equilibrium.blueprint import ABSTRACTION, ABSTRACTIONS, PLAYS, CompiledMCCFR
from solvers.equilibrium.blueprint_training import BlueprintTrainer, NonFiniteTables

GAME = "python_sushi_go(players={players},utility={utility})"
UTILITIES = ("margin", "win")  # what the blueprint learns to maximise


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--players", type=int, default=2, choices=range(2, 6),
                      help="players of the game, 2 to 5 (default: %(default)s)")
  parser.add_argument("--utility", default="margin", choices=UTILITIES,
                      help="what the blueprint maximises: the margin or the win share (default:"
                      " %(default)s)")
  parser.add_argument("--algorithm", default="probe-mccfr", help="default: %(default)s")
  parser.add_argument("--abstraction", default=ABSTRACTION, choices=ABSTRACTIONS,
                      help="the blueprint's abstraction (default: %(default)s)")
  parser.add_argument("--play", default="current", choices=PLAYS,
                      help="the strategy the blueprint plays (default: %(default)s)")
  parser.add_argument("--seconds", type=float, required=True, help="training seconds in all")
  parser.add_argument("--segment", type=float, default=600.0,
                      help="training seconds between evaluations (default: %(default)s)")
  parser.add_argument("--games", type=int, default=200,
                      help="games per evaluation (default: %(default)s)")
  parser.add_argument("--seed", type=int, default=0,
                      help="seed of training and evaluation (default: %(default)s)")
  parser.add_argument("--workers", type=int, default=1,
                      help="local training processes (default: %(default)s)")
  parser.add_argument("--out", required=True, help="the checkpoint and policy file (.npz)")
  parser.add_argument("--resume", action="store_true", help="continue from the file at --out")
  parser.add_argument("--force", action="store_true",
                      help="train afresh over an existing --out (refused without it or --resume)")
  parser.add_argument("--checkpoint-seconds", type=float, default=60.0,
                      help="seconds of training between two saves of the checkpoint within a"
                      " segment, so that a killed training loses at most that (default:"
                      " %(default)s)")
  parser.add_argument("--restart-average", action="store_true",
                      help="with --resume: gather the average strategy afresh from now on (the"
                      " regrets carry on); needed to play mean from a file saved without offer"
                      " weights")
  parser.add_argument("--no-progress", action="store_true", help="no progress bar")
  args = parser.parse_args(argv)
  if not (args.seconds > 0 and args.segment > 0 and args.checkpoint_seconds > 0) or \
      args.games < 2 or not math.isfinite(args.seconds + args.segment + args.checkpoint_seconds):
    parser.error("--seconds, --segment and --checkpoint-seconds must be finite and > 0, and"
                 " --games 2 or more (the margin's interval needs two games)")
  if args.force and args.resume:
    parser.error("--force trains afresh over --out, --resume continues it: give one of them")
  if args.workers < 1:
    parser.error(f"--workers is {args.workers}; allowed: 1 or more")
  estimates.print_notes([estimates.workers_note(args.workers)])
  game = pyspiel.load_game(GAME.format(players=args.players, utility=args.utility))
  try:
    estimates.check_blueprint(args.workers, args.out)
    file_errors.check_output_file(args.out, "--out")
    with run_lock.writing_file(args.out, "--out"):
      return _train(args, parser, game)
  except NonFiniteTables as e:
    parser.error(f"{e}: {args.out} keeps its last checkpoint")
  except (ValueError, RunError) as e:
    parser.error(str(e))
  except OSError as e:
    parser.error(f"the checkpoint could not be saved to {args.out}: {e.strerror or e}")


def _train(args: argparse.Namespace, parser: argparse.ArgumentParser, game) -> int:
  """The training of `main`, holding --out."""
  if args.resume:
    if not os.path.lexists(args.out):
      parser.error(f"{args.out} does not exist: --resume continues the checkpoint saved there")
    trainer = BlueprintTrainer.resume(args.out, game, args.algorithm, args.play)
    if args.restart_average:
      trainer.solver.restart_average()
  else:
    if args.restart_average:
      parser.error("--restart-average needs --resume")
    if os.path.lexists(args.out) and not args.force:
      parser.error(f"{args.out} exists; pass --resume to continue it, --force to train afresh"
                   " over it, or choose another --out")
    trainer = BlueprintTrainer(CompiledMCCFR(game, args.algorithm, seed=args.seed, play=args.play,
                                             abstraction=args.abstraction))
  solver = trainer.solver
  solver.check_play()
  hint = "Run the same command with --resume to continue from the last checkpoint."
  with stopping.deferred_stop(hint) as stopped:
    while trainer.seconds < args.seconds:
      trainer.run(seconds=min(args.segment, args.seconds - trainer.seconds),
                  progress=not args.no_progress, workers=args.workers,
                  checkpoint=lambda: trainer.save(args.out),
                  checkpoint_seconds=args.checkpoint_seconds, stop=stopped)
      trainer.save(args.out)
      if stopped():
        print(f"Stopped at iteration {solver.iterations:,}, saved to {args.out}. {hint}",
              file=sys.stderr)
        return stopping.EXIT_STATUS
      start = time.perf_counter()
      result = evaluate(game, args.out, args.games, args.seed)
      point = {"play": solver.play, "iterations": solver.iterations,
               "train_seconds": round(trainer.seconds, 1),
               "train_cpu_seconds": round(trainer.cpu_seconds, 1), "slots": solver.occupied,
               **result, "eval_seconds": round(time.perf_counter() - start, 1)}
      trainer.history.append(point)
      trainer.save(args.out)
      print(f"{solver.iterations:,} it, {trainer.seconds:.0f} s, {solver.occupied:,} slots: win"
            f" rate {result['win_rate']:.3f} [{result['win_low']:.3f}, {result['win_high']:.3f}],"
            f" margin {result['margin']:+.2f} [{result['margin_low']:+.2f},"
            f" {result['margin_high']:+.2f}] against heuristics", flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
