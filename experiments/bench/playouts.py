"""Random playouts per second of a compiled core (`playout_many`): a whole game from the initial
position, chance by its probabilities and every player uniformly at random among its legal
actions, many in one kernel call.

Timing: CPU time of this process (`time.process_time`), so that other work on the machine counts
less; after compiling and a warm-up call; the best and the median of `repeats` repeats.
"""

from __future__ import annotations

import statistics
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

