"""Random playouts per second, a compiled core beside the Python engine, measured in one run: the
timing both games' benchmarks (`sushi_go.bench`, `sushi_draft.bench`) share.

A playout is a whole game from the initial position, chance by its probabilities and every player
uniformly at random among its legal actions. A core plays many in one kernel call; the Python
engine is `solvers.search.rollouts.playout` with random policies, passed in by the caller (the game
layer does not import the solvers).

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


def core_rate(compiled, games: int = 20_000, repeats: int = 7) -> Rate:
  """A compiled core's random playouts per second (`playout_many(games, seed)`)."""
  return measure(lambda seed: compiled.playout_many(games, seed), games, repeats)


def python_rate(dynamics, rules, playout: Callable, random_policy: Callable, games: int = 300,
                repeats: int = 5) -> Rate:
  """The Python engine's random playouts per second: `playout(dynamics, rules, table, policies,
  uniform)` with `random_policy(dynamics)` for every player, uniforms from `random.Random`."""
  policies = [random_policy(dynamics)] * rules.num_players
  table = dynamics.initial_table(rules)

  def play_games(seed):
    uniform = random.Random(seed).random
    for _ in range(games):
      playout(dynamics, rules, table, policies, uniform)

  return measure(play_games, games, repeats)


def report(title: str, compiled_class, dynamics, playout: Callable, random_policy: Callable,
           players, file=sys.stdout) -> None:
  """Prints random full games per second of a game's standard parameters with each player
  count, for its compiled core (`compiled_class.from_params`) and the Python engine, and their
  ratio."""
  print(f"random playouts of {title}, full games per second on one core\n"
        "(CPU time, after compiling; best and median of repeats)", file=file)
  print(f"{'players':>7}  {'core best':>10}  {'median':>10}  {'python best':>11}  {'median':>8}"
        f"  {'ratio':>6}", file=file)
  for count in players:
    compiled = compiled_class.from_params(players=count)
    core = core_rate(compiled)
    python = python_rate(dynamics, compiled.rules, playout, random_policy)
    print(f"{count:>7}  {core.best:>10,.0f}  {core.median:>10,.0f}  {python.best:>11,.0f}"
          f"  {python.median:>8,.0f}  {core.median / python.median:>5.0f}x", file=file)
