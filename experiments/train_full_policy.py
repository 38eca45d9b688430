"""Trains an outcome-sampling MCCFR policy on the full two-player game, measured as it learns.

The solver runs on `python_sushi_go(players=2,utility=margin)` (margins make the game zero sum)
with an abstraction whose keys do not hold the legal actions (`summary:N` by default, see
`solvers/abstraction.py`). Every `--checkpoint-every` iterations the average policy is saved to
`--out` and plays `--games` games against the heuristic, seats alternated, chance and bots seeded
from `--seed`; each checkpoint's win rate (Wilson interval) and mean margin (t interval) are
printed and appended to `--log` as a JSON line. The file at `--out` ends as the last checkpoint,
with its provenance and the checkpoints in its metadata. Everything but the wall times is
determined by the seed.

  python -m experiments.train_full_policy --abstraction summary:2 --iterations 200000 \\
      --checkpoint-every 40000 --seed 0 --out experiments/results/policies/full_2p_mccfr.npz
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import pyspiel

from experiments import estimates, file_errors, run_lock
from experiments.run_folder import RunError
from experiments.stats import mean_interval, wilson_interval
from solvers import baselines
from solvers.equilibrium import policies as policy_io
from solvers.match import play_match
from sushigo_spiel.drafting.dynamics import margins
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go import scoring

GAME = "python_sushi_go(players=2,utility=margin)"
# The rates of the stored policy's training (experiments/results/policies/full_2p_mccfr.npz, its
# first checkpoint): 25,000 iterations in 104.7 s, 200 games evaluated in 3.8 s.
SECONDS_PER_ITERATION = 104.7 / 25_000
SECONDS_PER_GAME = 3.8 / 200


def evaluate(game: pyspiel.Game, path: str, games: int, seed: int) -> dict:
  """The policy at `path` in one seat against the heuristic in every other, over `games` games,
  the policy's seat going round: its win rate (a tie shares the win) and mean margin (its points
  less the others' mean), each with a 95% interval."""
  n = game.num_players()
  chance = np.random.default_rng(seed)
  seat_margins, wins = [], 0.0
  for index in range(games):
    seat = index % n
    seeds = iter(range(seed + n * index + 1, seed + n * index + n))  # the policy's: seed + n*index
    bots = [policy_io.PolicyBot(game, p, seed=seed + n * index, path=path) if p == seat
            else baselines.HeuristicBot(game, p, seed=next(seeds)) for p in range(n)]
    table = play_match(game, bots, chance).table()
    scores = R.final_scores(game.rules, table)
    winners = scoring.winners(scores, table.puddings)
    seat_margins.append(margins(scores)[seat])
    wins += 1.0 / len(winners) if seat in winners else 0.0
  low, high = wilson_interval(round(wins), games)
  margin = mean_interval(seat_margins)
  return {"games": games, "win_rate": wins / games, "win_low": low, "win_high": high,
          "margin": margin.value, "margin_low": margin.low, "margin_high": margin.high}


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--abstraction", default="summary:2",
                      help="abstraction name (solvers.abstraction.NAMES; default: %(default)s)")
  parser.add_argument("--iterations", type=int, default=200_000,
                      help="total MCCFR iterations (default: %(default)s)")
  parser.add_argument("--checkpoint-every", type=int, default=40_000,
                      help="iterations between evaluations (default: %(default)s)")
  parser.add_argument("--games", type=int, default=200,
                      help="games per evaluation (default: %(default)s)")
  parser.add_argument("--seed", type=int, default=0,
                      help="seed of training and evaluation (default: %(default)s)")
  parser.add_argument("--out", required=True, help="policy file (.npz) to write")
  parser.add_argument("--log", help="JSON lines file for the checkpoints (default: OUT.jsonl)")
  parser.add_argument("--no-progress", action="store_true", help="no progress bar")
  parser.add_argument("--force", action="store_true",
                      help="train afresh over an existing --out (refused without it)")
  args = parser.parse_args(argv)
  if args.iterations < 1 or args.checkpoint_every < 1 or args.games < 2:
    parser.error("--iterations and --checkpoint-every must be 1 or more, and --games 2 or more"
                 " (the margin's interval needs two games)")
  checkpoints = -(-args.iterations // args.checkpoint_every)
  estimates.print_notes([estimates.time_note(estimates.Duration(
      1, "training", args.iterations * SECONDS_PER_ITERATION
      + checkpoints * args.games * SECONDS_PER_GAME, f"{args.iterations:,} iterations and"
      f" {checkpoints:,} evaluations of {args.games:,} games at the stored policy's rates"))])
  try:
    file_errors.check_output_file(args.out, "--out")
    with run_lock.writing_file(args.out, "--out"):
      if os.path.lexists(args.out) and not args.force:
        parser.error(f"{args.out} exists; pass --force to train afresh over it, or choose another"
                     " --out")
      _train(args)
  except (ValueError, RunError) as e:
    parser.error(str(e))


def _train(args: argparse.Namespace) -> None:
  """The training of `main`, holding --out."""
  log_path = args.log or args.out.removesuffix(".npz") + ".jsonl"
  game = pyspiel.load_game(GAME)
  solver = policy_io.make_solver("os-mccfr", game, args.abstraction, seed=args.seed)
  checkpoints = []
  with open(log_path, "w", encoding="utf-8") as log:
    while solver.iterations < args.iterations:
      solver.run(iterations=min(args.checkpoint_every, args.iterations - solver.iterations),
                 progress=not args.no_progress)
      policy = solver.average_policy()
      policy.metadata = {**policy_io.provenance(solver), "checkpoints": checkpoints}
      policy_io.save_policy(args.out, policy)
      start = time.perf_counter()
      result = evaluate(game, args.out, args.games, args.seed)
      checkpoint = {"iterations": solver.iterations, "train_seconds": round(solver.seconds, 1),
                    "keys": solver.num_keys, **result,
                    "eval_seconds": round(time.perf_counter() - start, 1)}
      checkpoints.append(checkpoint)
      log.write(json.dumps(checkpoint) + "\n")
      log.flush()
      print(f"{solver.iterations} it, {solver.seconds:.0f} s, {solver.num_keys} keys: win rate"
            f" {result['win_rate']:.3f} [{result['win_low']:.3f}, {result['win_high']:.3f}],"
            f" margin {result['margin']:+.2f} [{result['margin_low']:+.2f},"
            f" {result['margin_high']:+.2f}] against heuristic", flush=True)
  policy.metadata = {**policy_io.provenance(solver), "checkpoints": checkpoints}
  policy_io.save_policy(args.out, policy)


if __name__ == "__main__":
  main()
