"""The compiled searches from Python: ISMCTS (`ISMCTSSearch`) and PIMC's worlds (`WorldSampler`),
each bound to one game (`game.SearchGame`), its kernels' settings (named, `ismcts.Settings`,
`smmcts.Settings`: the searching seat among them) and one random stream.

numba has no clock, so a time budget is kept here, on the clock the caller gives (wall time, or the
thread's CPU time): iterations (or worlds) run in batches, each sized from the rate measured so
far to end near the deadline, with at least one iteration (or world) in all. A budget of
iterations is exact and, with the stream seeded from the bot's seed, gives bit-identical statistics
in every process; a budget of seconds is not reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from solvers.search.kernels import ismcts, smmcts
from solvers.search.kernels.bandits import UCB1
from solvers.search.kernels.compiling import ensure_compiled
from solvers.search.kernels.game import SearchGame
from solvers.search.kernels.tree import Tree
from sushigo_spiel.compiled.rng import new_state

_FIRST_BATCH = 8
_LAST_SHARE = 0.5  # a timed batch is sized to fill this share of the time left


def run_timed(step: Callable[[int], int], seconds: float, limit: int | None = None,
              clock: Callable[[], float] = time.perf_counter) -> int:
  """Calls `step(count)` (which does up to `count` units of work and returns how many it did)
  until `seconds` have passed on `clock`, or `limit` units are done when `seconds` is 0; returns
  the units done (at least one)."""
  if seconds <= 0:
    done = 0
    while done < limit:
      done += step(limit - done)
    return done
  start = clock()
  deadline = start + seconds
  done = step(_FIRST_BATCH)
  while True:
    now = clock()
    if now >= deadline:
      return done
    rate = done / max(now - start, 1e-9)
    done += step(max(1, int(rate * (deadline - now) * _LAST_SHARE)))


class ISMCTSSearch:
  """ISMCTS on `game` (`ismcts.py`), one tree per player of `owners` (the searcher first), with
  `settings` (`ismcts.Settings`): `search(position, iterations, seconds)` returns the root
  statistics of the searcher (visits, reward sums, availability, learned values and strategy
  sums per action id) after a fresh search."""

  def __init__(self, game: SearchGame, owners: Sequence[int], settings: ismcts.Settings,
               seed: int, clock: Callable[[], float] = time.perf_counter):
    ensure_compiled()
    self.game, self.settings, self.clock = game, settings, clock
    self.owners = np.asarray(owners, dtype=np.int64)
    self.tree = Tree(len(owners), settings.players, settings.actions,
                     settings.selection.kind != UCB1)
    self.rng = new_state(seed)
    self.iterations = 0  # of the last search

  def search(self, position: np.ndarray, iterations: int, seconds: float) -> tuple:
    """Searches from `position` (a simultaneous node); the searcher's root statistics."""
    self.tree.reset()
    self.iterations = run_timed(lambda count: self._batch(position, count), seconds, iterations,
                                self.clock)
    row = self.tree.node_rows[0, self.settings.searcher]
    return tuple(array[row] if len(array) > 1 else np.zeros_like(array[0])
                 for array in self.tree.stats)

  def _batch(self, position: np.ndarray, count: int) -> int:
    done = ismcts.run(self.game.functions, self.game.spec, self.game.margin_spec, position,
                      self.owners, self.settings, self.tree.arrays(), self.rng, count)
    if done < count:  # room for the next iteration; `grow` doubles what is short
      settings = self.settings
      self.tree.grow(len(self.owners), settings.max_depth * settings.players)
    return done


class WorldSampler:
  """PIMC's worlds on `game` with `settings` (`smmcts.Settings`): `sample(position, worlds,
  seconds)` determinizes and solves worlds, returning the sums over worlds of the searcher's
  values and policies per action id, and how many worlds each value was seen in."""

  def __init__(self, game: SearchGame, settings: smmcts.Settings, seed: int,
               clock: Callable[[], float] = time.perf_counter):
    ensure_compiled()
    self.game, self.settings, self.clock = game, settings, clock
    self.tree = Tree(1, settings.players, settings.actions, settings.selection.kind != UCB1,
                     nodes=settings.iterations + 2)
    self.rng = new_state(seed)
    self.worlds = 0  # of the last call

  def sample(self, position: np.ndarray, worlds: int, seconds: float):
    """(value sums, value counts, policy sums), arrays over action ids."""
    actions = self.settings.actions
    sums = (np.zeros(actions), np.zeros(actions, dtype=np.int64), np.zeros(actions))

    def batch(count: int) -> int:
      smmcts.solve_worlds(self.game.functions, self.game.spec, self.game.margin_spec, position,
                          self.settings, self.tree.arrays(), self.rng, count, sums)
      return count

    self.worlds = run_timed(batch, seconds, worlds, self.clock)
    return sums
