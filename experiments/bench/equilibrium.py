"""Speed of the exact exploitability against OpenSpiel's, on the same reduced game in the same run.

The uniform policy's exploitability, timed three ways: ours (`solvers.exploitability` on a
`GameTree` built once; cold, single calls, and per call with the garbage collector paused, the
figure the target is set on), OpenSpiel's C++ `pyspiel.exploitability` on the cached turn-based
tree (cold, then warm: the anchor) and OpenSpiel's Python `nash_conv` (by default on a smaller
game, ours timed again there). `measure_sizes` (`--sizes`) tabulates the reduced games: histories,
information sets, tree build, NashConv and sequence-form LP times. Targets: ours no slower than 2x
the warm C++ time, at least 20x faster than OpenSpiel's Python; medians over `repeats`
interleaved runs, a fast computation repeated to fill 0.2 s. Method and figures: docs/speed.md
("Solvers").

  python -m solvers.equilibrium_bench [--game small] [--python-game tiny] [--repeats 3]
  python -m solvers.equilibrium_bench --sizes [NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
from collections.abc import Callable
from typing import NamedTuple

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability

from experiments.bench import game as game_bench
from solvers.equilibrium import sequence_form
from solvers.equilibrium.exploitability import exploitability, nash_conv
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import to_pyspiel_tabular_policy
from sushigo_spiel.reduced_games import REDUCED_GAMES, load_reduced, reduced_game_string

MAX_CPP_RATIO = 2.0
MIN_PYTHON_SPEEDUP = 20.0
_SINGLE_CALLS = 5  # single calls timed per run


class EquilibriumBench(NamedTuple):
  game: str
  python_game: str
  tree_build_seconds: float
  ours_seconds: float  # per call, back to back, collector paused: median of runs
  ours_cold_seconds: float  # the first call on the tree, after OpenSpiel's first C++ call
  ours_single_seconds: float  # median of single calls, collector on
  cpp_cold_seconds: float
  cpp_warm_seconds: float
  python_seconds: float
  ours_on_python_game_seconds: float
  values: tuple[float, float, float]  # exploitability: ours, C++, Python (game of Python run)

  @property
  def cpp_ratio(self) -> float:
    """Ours over the warm C++ time (target at most 2)."""
    return self.ours_seconds / self.cpp_warm_seconds

  @property
  def build_ratio(self) -> float:
    """Ours with the tree build over the cold C++ call that fills its cache (no target)."""
    return (self.tree_build_seconds + self.ours_seconds) / self.cpp_cold_seconds

  @property
  def python_speedup(self) -> float:
    """OpenSpiel's Python time over ours on the same game (target at least 20)."""
    return self.python_seconds / self.ours_on_python_game_seconds


def _timed(function: Callable[[], float]) -> tuple[float, float]:
  """Seconds and result of one call, with the cyclic garbage collector paused as `timeit` does
  (the trees hold millions of small objects, so a collection landing inside a short timing
  would measure the heap rather than the computation)."""
  gc.collect()
  gc.disable()
  try:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value
  finally:
    gc.enable()


def _single(function: Callable[[], float]) -> float:
  """Seconds of one call as a user makes it: the garbage collector left on."""
  start = time.perf_counter()
  function()
  return time.perf_counter() - start


def _per_call(function: Callable[[], float], min_seconds: float = 0.2) -> tuple[float, float]:
  """Seconds per call and result, calling a fast function enough times to fill `min_seconds`
  (so one preemption by another process cannot dominate a sub-millisecond timing)."""
  seconds, value = _timed(function)
  if seconds >= min_seconds:
    return seconds, value
  number = math.ceil(min_seconds / max(seconds, 1e-6))
  total, _ = _timed(lambda: [function() for _ in range(number)])
  return total / number, value


def measure(game: str = "small", python_game: str = "tiny", repeats: int = 3) -> EquilibriumBench:
  """Times the three exploitability computations (see the module docstring)."""
  if repeats < 1:
    raise ValueError(f"repeats is {repeats}; allowed: 1 or more")
  main_game = load_reduced(game)
  build, tree = _timed(lambda: GameTree(main_game))
  uniform = tree.uniform_policy()
  cached = pyspiel.convert_to_cached_tree(pyspiel.convert_to_turn_based(main_game))
  cpp_policy = to_pyspiel_tabular_policy(tree, uniform)
  cold, cpp_value = _timed(lambda: pyspiel.exploitability(cached, cpp_policy))
  ours_cold = _single(lambda: exploitability(tree, uniform))
  small_game = load_reduced(python_game)
  small_tree = GameTree(small_game)
  small_uniform = small_tree.uniform_policy()
  python_policy = policy_lib.UniformRandomPolicy(small_game)
  ours, single, warm, python, ours_small = [], [], [], [], []
  values = {}
  for _ in range(repeats):
    seconds, values["ours"] = _per_call(lambda: exploitability(tree, uniform))
    ours.append(seconds)
    single += [_single(lambda: exploitability(tree, uniform)) for _ in range(_SINGLE_CALLS)]
    warm.append(_per_call(lambda: pyspiel.exploitability(cached, cpp_policy))[0])
    seconds, values["python"] = _per_call(
        lambda: os_exploitability.nash_conv(small_game, python_policy) / 2)
    python.append(seconds)
    seconds, values["ours_small"] = _per_call(lambda: exploitability(small_tree, small_uniform))
    ours_small.append(seconds)
  if abs(values["ours"] - cpp_value) > 1e-9 or abs(values["ours_small"] - values["python"]) > 1e-9:
    raise RuntimeError(f"the exploitabilities disagree: {values}, C++ {cpp_value}")
  return EquilibriumBench(
      reduced_game_string(game), reduced_game_string(python_game), build,
      statistics.median(ours), ours_cold, statistics.median(single), cold, statistics.median(warm), statistics.median(python),
      statistics.median(ours_small), (values["ours"], cpp_value, values["python"]))


def report(bench: EquilibriumBench) -> str:
  """The timings, ratios and PASS/BELOW against the targets, as text."""
  lines = [
      "Exploitability of the uniform policy; median of interleaved runs.",
      f"game: {bench.game}",
      f"  tree build (once)                  {bench.tree_build_seconds:9.3f} s",
      f"  ours, per call (gc paused)         {bench.ours_seconds:9.4f} s"
      f"   exploitability {bench.values[0]:.6f}",
      f"  ours, single call (gc on)          {bench.ours_single_seconds:9.4f} s warm median,"
      f" {bench.ours_cold_seconds:.4f} s cold (the first, after OpenSpiel's first call)",
      f"  pyspiel.exploitability, cached tree {bench.cpp_warm_seconds:8.4f} s warm,"
      f" {bench.cpp_cold_seconds:.3f} s cold (first call fills the cache)",
      f"python game: {bench.python_game}",
      f"  ours                               {bench.ours_on_python_game_seconds:9.4f} s",
      f"  OpenSpiel Python nash_conv / 2     {bench.python_seconds:9.4f} s"
      f"   exploitability {bench.values[2]:.6f}",
      "",
      f"ours with the tree build / C++ cold {bench.build_ratio:8.3f}  (no target)",
      "",
      "target                               value  limit   result",
      f"ours / C++ warm                   {bench.cpp_ratio:8.3f}  <= {MAX_CPP_RATIO:g}    "
      f"{'PASS' if bench.cpp_ratio <= MAX_CPP_RATIO else 'BELOW'}",
      f"OpenSpiel Python / ours           {bench.python_speedup:8.1f}  >= {MIN_PYTHON_SPEEDUP:g}   "
      f"{'PASS' if bench.python_speedup >= MIN_PYTHON_SPEEDUP else 'BELOW'}",
  ]
  return "\n".join(lines)


class ReducedGameSize(NamedTuple):
  name: str
  histories: int
  nodes: int  # of the turn-based tree
  infosets: tuple[int, ...]  # per player
  build_seconds: float
  exploitability_seconds: float  # NashConv of the uniform policy
  lp_seconds: float | None  # the sequence-form LP, two-player zero-sum games only


def measure_sizes(names=None) -> list[ReducedGameSize]:
  """Size, tree build time, NashConv time and LP time of each reduced game (all by default)."""
  rows = []
  for name in names or REDUCED_GAMES:
    game = load_reduced(name)
    build, tree = _timed(lambda: GameTree(game))  # pylint: disable=cell-var-from-loop
    uniform = tree.uniform_policy()
    seconds, _ = _per_call(lambda: nash_conv(tree, uniform))  # pylint: disable=cell-var-from-loop
    lp = None
    if tree.num_players == 2 and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM:
      lp, _ = _timed(lambda: sequence_form.solve(tree))  # pylint: disable=cell-var-from-loop
    rows.append(ReducedGameSize(name, tree.num_histories, tree.num_nodes,
                                tree.num_infosets_per_player, build, seconds, lp))
  return rows


def sizes_report(rows: list[ReducedGameSize]) -> str:
  lines = ["| name | histories | turn-based nodes | information sets per player | tree build |"
           " NashConv | sequence-form LP |", "|---|---:|---:|---|---:|---:|---:|"]
  for r in rows:
    lp = f"{r.lp_seconds:.2f} s" if r.lp_seconds is not None else "-"
    lines.append(f"| `{r.name}` | {r.histories:,} | {r.nodes:,} | "
                 f"{' / '.join(f'{n:,}' for n in r.infosets)} | {r.build_seconds:.2f} s | "
                 f"{r.exploitability_seconds * 1000:.1f} ms | {lp} |")
  return "\n".join(lines)


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="small", help="reduced game for ours vs C++")
  parser.add_argument("--python-game", default="tiny",
                      help="reduced game for ours vs OpenSpiel's Python nash_conv")
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--sizes", nargs="*", metavar="NAME",
                      help="instead, the table of reduced games (all, or those named): sizes,"
                      " tree build, NashConv and LP times")
  parser.add_argument("--json", metavar="PATH",
                      help="also write the exploitability figures to PATH as JSON")
  args = parser.parse_args(argv)
  if args.sizes is not None:
    if args.json:
      parser.error("--json writes the exploitability figures; --sizes has none to write")
    print(sizes_report(measure_sizes(args.sizes)))
    return
  game_bench.check_json_path(parser.error, args.json)
  bench = measure(args.game, args.python_game, args.repeats)
  print(report(bench))
  if args.json:
    game_bench.write_json({"exploitability": {**bench._asdict(), "cpp_ratio": bench.cpp_ratio,
                                              "python_speedup": bench.python_speedup}}, args.json)


if __name__ == "__main__":
  main()
