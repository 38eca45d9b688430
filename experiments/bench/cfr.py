"""Speed of one full-width CFR+ iteration beside OpenSpiel's C++ `CFRPlusSolver`, same game and run.

  ours  `solvers.cfr.CFRPlus` (identity abstraction) on a `GameTree` built once
  C++   `pyspiel.CFRPlusSolver` on `convert_to_cached_tree(convert_to_turn_based(game))`; its first
        iteration fills the cache from the Python game and is reported apart ("cold")

Both run the same iterations in interleaved blocks (garbage collector paused, as `timeit`; a fast
block repeated to fill 0.2 s); median seconds per iteration compared, target ours no slower than
2x C++. Where two regrets tie at exactly zero, summation order decides (OpenSpiel can hold 1e-20
where ours holds 0), so the report gives the largest policy difference and both average
policies' exploitability rather than requiring equality. Method and figures: docs/speed.md
("Solvers").

  python -m solvers.cfr_bench [--game small] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pyspiel

from experiments.bench import game as game_bench
from solvers.equilibrium.abstraction import Identity
from solvers.equilibrium.cfr import CFRPlus
from solvers.equilibrium.exploitability import exploitability
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from sushigo_spiel.reduced_games import load_reduced, reduced_game_string

MAX_CPP_RATIO = 2.0


class CFRBench(NamedTuple):
  game: str
  tree_build_seconds: float
  ours_seconds: float  # per iteration
  cpp_cold_seconds: float  # the first C++ iteration, which fills the cached tree
  cpp_seconds: float  # per iteration, warm
  iterations: int  # run by each solver
  policy_difference: float  # largest difference of the two average policies at the end
  exploitabilities: tuple[float, float]  # of the average policies at the end: ours, C++

  @property
  def ratio(self) -> float:
    """Ours over C++ per iteration (target at most 2)."""
    return self.ours_seconds / self.cpp_seconds

  @property
  def result(self) -> str:
    return "PASS" if self.ratio <= MAX_CPP_RATIO else "BELOW"


def _timed(function: Callable[[], object]) -> float:
  gc.collect()
  gc.disable()
  try:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start
  finally:
    gc.enable()


def measure(game: str = "small", repeats: int = 3, min_seconds: float = 0.2) -> CFRBench:
  """Times CFR+ iterations of both solvers on reduced game `game` (see the module docstring)."""
  if repeats < 1:
    raise ValueError(f"repeats is {repeats}; allowed: 1 or more")
  pyspiel_game = load_reduced(game)
  tree = None

  def build():
    nonlocal tree
    tree = GameTree(pyspiel_game)

  build_seconds = _timed(build)
  ours = CFRPlus(pyspiel_game, Identity(pyspiel_game.dynamics), tree)
  cpp = pyspiel.CFRPlusSolver(
      pyspiel.convert_to_cached_tree(pyspiel.convert_to_turn_based(pyspiel_game)))
  cold = _timed(cpp.evaluate_and_update_policy)
  ours.run(iterations=1)  # the same iteration count on both sides
  first = _timed(lambda: ours.run(iterations=1))
  cpp.evaluate_and_update_policy()
  block = max(1, math.ceil(min_seconds / max(first, 1e-6)))
  ours_times, cpp_times = [], []
  for _ in range(repeats):
    ours_times.append(_timed(lambda: ours.run(iterations=block)) / block)
    cpp_times.append(_timed(lambda: [cpp.evaluate_and_update_policy() for _ in range(block)])
                     / block)
  averages = ours.average_policy_array(), policy_array(tree, cpp.average_policy())
  return CFRBench(reduced_game_string(game), build_seconds, statistics.median(ours_times), cold,
                  statistics.median(cpp_times), ours.iterations,
                  float(np.abs(averages[0] - averages[1]).max()),
                  tuple(exploitability(tree, average) for average in averages))


def report(bench: CFRBench) -> str:
  """The timings, the ratio and PASS/BELOW against the target, as text."""
  return "\n".join([
      f"CFR+ iteration (identity abstraction); median of interleaved blocks; {bench.iterations}"
      " iterations each.",
      f"game: {bench.game}",
      f"  tree build (once)                  {bench.tree_build_seconds:9.3f} s",
      f"  ours                               {bench.ours_seconds * 1000:9.3f} ms / iteration",
      f"  pyspiel.CFRPlusSolver, cached tree {bench.cpp_seconds * 1000:9.3f} ms / iteration,"
      f" first iteration {bench.cpp_cold_seconds:.3f} s (fills the cache)",
      f"  exploitability of the average policies: ours {bench.exploitabilities[0]:.6f},"
      f" C++ {bench.exploitabilities[1]:.6f} (largest policy difference"
      f" {bench.policy_difference:.1e})",
      "",
      "target                               value  limit   result",
      f"ours / C++                        {bench.ratio:8.3f}  <= {MAX_CPP_RATIO:g}    "
      f"{bench.result}",
  ])


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--game", default="small", help="reduced game (sushigo_spiel.reduced_games)")
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
  args = parser.parse_args(argv)
  game_bench.check_json_path(parser.error, args.json)
  bench = measure(args.game, args.repeats)
  print(report(bench))
  if args.json:
    game_bench.write_json({"cfr": {**bench._asdict(), "ratio": bench.ratio}}, args.json)


if __name__ == "__main__":
  main()
