"""`sushigo bench`: the speed benchmarks of `experiments.bench`, printed and optionally saved.

The --json path is checked before the first measurement, so that minutes of measuring are not lost
to a missing folder at the end."""

from __future__ import annotations

import argparse
import dataclasses
import math

import pyspiel

from experiments import estimates
from experiments import file_errors
from experiments.bench import cfr as cfr_bench
from experiments.bench import cold as cold_bench
from experiments.bench import equilibrium as equilibrium_bench
from experiments.bench import game as game_bench
from experiments.bench import learning as learning_bench
from experiments.bench import search as search_bench
from solvers.equilibrium import blueprint
from solvers.opponents import COMPILED_BOTS
from sushigo_spiel import reduced_games

# Iterations per CPU second of the fastest compiled searcher, rounded up from the fastest rate
# `sushigo bench --search` has measured (so_ismcts and mo_ismcts, 2 players; the stored run is
# experiments/results/bench/speed/), and of OpenSpiel's ISMCTS, rounded up likewise: what a
# time-budgeted search's tree can grow to.
MAX_ITERATIONS_PER_SECOND = 100_000
REFERENCE_ITERATIONS_PER_SECOND = 1_000


def bench(args: argparse.Namespace) -> int:
  if args.training_workers:
    estimates.print_notes([estimates.workers_note(args.training_workers, "--training-workers")])
  if args.equilibrium:
    for name in (args.equilibrium_game, args.python_game):
      if name not in reduced_games.REDUCED_GAMES:
        args.error(f"unknown reduced game {name!r}; allowed:"
                   f" {', '.join(reduced_games.REDUCED_GAMES)}")
  if args.training_abstraction is None:
    args.training_abstraction = blueprint.ABSTRACTION
  if args.training_abstraction not in blueprint.ABSTRACTIONS:
    args.error(f"--training-abstraction {args.training_abstraction!r}: unknown; allowed:"
               f" {', '.join(blueprint.ABSTRACTIONS)}")
  _check_sizes(args)
  game_bench.check_json_path(args.error, args.json)
  if args.cold:
    print("Compiling every kernel set, then the quickstart cold and warm, each in a fresh process"
          " with an empty kernel cache (some minutes)", flush=True)
    figures = cold_bench.run()
    print(cold_bench.report(figures))
    _write_figures(args, figures)
    return 0
  players, draft_players = sorted(set(args.players)), sorted(set(args.draft_players))
  count = 1 + len(players) + len(draft_players)
  print(f"Measuring {count} games, {args.repeats} time(s) each: {args.seconds:g} s of games, then"
        f" {args.seconds:g} s of clones (about {count * args.repeats * 2 * args.seconds:.0f} s)",
        flush=True)
  figures = game_bench.run(seconds=args.seconds, players=players, repeats=args.repeats,
                           draft_players=draft_players)
  print(game_bench.report(figures))
  if args.search:
    print(f"\nCore playouts, then searching the opening position, {args.seconds:g} s per bot"
          f" and player count, {args.repeats} time(s)"
          + ("" if args.no_compile_times else "; then compiling cold and warm"), flush=True)
    figures["search"] = search_bench.run(players=sorted(set(args.search_players)),
                                         seconds=args.seconds, repeats=args.repeats,
                                         compile_times=not args.no_compile_times)
    print(search_bench.report(figures["search"]))
  if args.training_workers:
    print(f"\nBlueprint training on 1 and {args.training_workers} processes,"
          f" {args.training_iterations:,} iterations each", flush=True)
    figures["training_scaling"] = search_bench.training_scaling(
        args.training_workers, args.training_iterations, seed=0,
        abstraction=args.training_abstraction)
    print(search_bench.report_scaling(figures["training_scaling"]))
  if args.equilibrium:
    figures["equilibrium"] = _equilibrium(args)
  if args.rl:
    figures["rl"] = _rl(args)
  if args.ppo:
    figures["ppo"] = _ppo(args)
  _write_figures(args, figures)
  return 0


def _check_sizes(args: argparse.Namespace) -> None:
  """Refuses, before the first measurement, search trees that cannot fit (a search given
  --seconds grows its tree at its rate), and notes the time the measurements take when long."""
  try:
    estimates.check_memory(search_trees(args) if args.search else [])
  except estimates.TooLarge as e:
    args.error(str(e))
  estimates.print_notes([estimates.time_note(duration(args))])


def search_trees(args: argparse.Namespace) -> list[estimates.Need]:
  """The tree each searcher of --search grows in --seconds at the opening of the largest player
  count, at `MAX_ITERATIONS_PER_SECOND` (`REFERENCE_ITERATIONS_PER_SECOND` for OpenSpiel's)."""
  game = pyspiel.load_game(game_bench.sushi_go_string(max(args.search_players)))
  needs = []
  for name, rate in [*((searcher, MAX_ITERATIONS_PER_SECOND) for searcher in
                       search_bench.SEARCHERS),
                     (search_bench.REFERENCE, REFERENCE_ITERATIONS_PER_SECOND)]:
    iterations = min(max(1, math.ceil(rate * args.seconds)), 2**62 - 1)
    need = estimates.bot_memory(name, game, {"iterations": iterations},
                                f"--search --seconds {args.seconds:g}: {name}")
    needs.append(dataclasses.replace(need, allowed="a smaller --seconds, or a machine with the"
                                     " memory"))
  return needs


def duration(args: argparse.Namespace) -> estimates.Duration:
  """The timed measurements the options ask for, each lasting --seconds by design (compiling
  and the training's fixed iterations aside)."""
  games = 2 * (1 + len(set(args.players)) + len(set(args.draft_players))) * args.repeats
  if args.cold:
    games = 0
  searches = 0
  if args.search and not args.cold:
    players = len(set(args.search_players))
    searches = args.repeats + players * (4 + 6 * args.repeats) + 5 * args.repeats
  rl = (len(COMPILED_BOTS) + 3) * args.repeats if args.rl and not args.cold else 0
  ppo = learning_bench.MEASURES * args.repeats if args.ppo and not args.cold else 0
  return estimates.Duration(games + searches + rl + ppo, "timed measurement", args.seconds,
                            "each lasts --seconds")


def _write_figures(args: argparse.Namespace, figures: dict) -> None:
  """Writes `figures` to --json, if given; a one-line refusal when it cannot be written."""
  if not args.json:
    return
  try:
    game_bench.write_json(figures, args.json)
  except OSError as e:
    args.error(f"the figures could not be saved: {file_errors.describe(e)}")
  print(f"Figures written to {args.json}")


def _equilibrium(args: argparse.Namespace) -> dict:
  print(f"\nExact exploitability and CFR+ on {args.equilibrium_game}, {args.repeats} time(s)",
        flush=True)
  exploitability = equilibrium_bench.measure(args.equilibrium_game, args.python_game, args.repeats)
  print(equilibrium_bench.report(exploitability) + "\n")
  cfr = cfr_bench.measure(args.equilibrium_game, args.repeats)
  print(cfr_bench.report(cfr))
  return {"exploitability": {**exploitability._asdict(), "cpp_ratio": exploitability.cpp_ratio,
                             "python_speedup": exploitability.python_speedup},
          "cfr": {**cfr._asdict(), "ratio": cfr.ratio}}


def _ppo(args: argparse.Namespace) -> dict:
  print(f"\nThe PPO learner beside its environment, {args.seconds:g} s each, {args.repeats}"
        " time(s)", flush=True)
  figures = learning_bench.run(seconds=args.seconds, repeats=args.repeats)  # the learn extra
  print(learning_bench.report(figures))
  return figures


def _rl(args: argparse.Namespace) -> dict:
  from experiments.bench import rl as rl_bench  # the rl extra: PettingZoo and Gymnasium
  print(f"\nStepping the RL environments, {args.seconds:g} s each, {args.repeats} time(s)",
        flush=True)
  figures = rl_bench.run(seconds=args.seconds, repeats=args.repeats)
  print(rl_bench.report(figures))
  return figures
