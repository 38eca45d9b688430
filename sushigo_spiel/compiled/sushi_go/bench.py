"""Random playouts per second: the compiled core beside the Python engine, measured in one run.

A playout is a whole game from the initial position, chance by its probabilities and every player
uniformly at random among its legal actions. The core plays `games` of them in one kernel call
(`CompiledSushiGo.playout_many`); the Python engine is `solvers.search.rollouts.playout` with
random policies, passed in by the caller (`report(rollouts.playout, rollouts.RandomPolicy)`):
the game layer does not import the solvers.

Timing: CPU time of this process (`time.process_time`), so that other work on the machine counts
less; after compiling and a warm-up call; the best and the median of `repeats` repeats.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import NamedTuple

from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS


class Rate(NamedTuple):
  """Games per second: the best and the median repeat."""
  best: float
  median: float


def measure(play_games: Callable[[int], object], games: int, repeats: int) -> Rate:
  """Games per second of `play_games(seed)`, which plays `games` games, over `repeats` seeds."""
  play_games(repeats)  # warm-up
  rates = []
  for seed in range(repeats):
    start = time.process_time()
    play_games(seed)
    rates.append(games / (time.process_time() - start))
  return Rate(max(rates), statistics.median(rates))


def core_rate(players: int, games: int = 20_000, repeats: int = 7) -> Rate:
  """The core's random playouts per second for the standard game with `players` players."""
  compiled = CompiledSushiGo.from_params(players=players)
  return measure(lambda seed: compiled.playout_many(games, seed), games, repeats)


def python_rate(players: int, playout: Callable, random_policy: Callable, games: int = 300,
                repeats: int = 5) -> Rate:
  """The Python engine's random playouts per second: `playout(dynamics, rules, table, policies,
  uniform)` with `random_policy(dynamics)` for every player, uniforms from `random.Random`."""
  rules = R.Rules.from_params(players=players)
  policies = [random_policy(DYNAMICS)] * players
  table = R.initial_table(rules)

  def play_games(seed):
    uniform = random.Random(seed).random
    for _ in range(games):
      playout(DYNAMICS, rules, table, policies, uniform)

  return measure(play_games, games, repeats)


def report(playout: Callable, random_policy: Callable, players=(2, 5), file=sys.stdout) -> None:
  """Prints random full games per second for the core and the Python engine, and their ratio."""
  print("random playouts of the standard game, full games per second on one core\n"
        "(CPU time, after compiling; best and median of repeats)", file=file)
  print(f"{'players':>7}  {'core best':>10}  {'median':>10}  {'python best':>11}  {'median':>8}"
        f"  {'ratio':>6}", file=file)
  for count in players:
    core, python = core_rate(count), python_rate(count, playout, random_policy)
    print(f"{count:>7}  {core.best:>10,.0f}  {core.median:>10,.0f}  {python.best:>11,.0f}"
          f"  {python.median:>8,.0f}  {core.median / python.median:>5.0f}x", file=file)
