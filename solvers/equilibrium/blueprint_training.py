"""Training the blueprint (`blueprint.CompiledMCCFR`): budgets, workers, progress, checkpoints.

A run is a whole number of chunks (`blueprint.CHUNK` iterations): a budget in iterations is rounded
up, one in seconds stops at a chunk's end. Chunk c draws from its own stream, so a run stopped,
saved (`BlueprintTrainer.save`: the tables with the regrets, time spent and training curve) and
resumed gives the same tables, bit for bit, as one run on. `run` checkpoints every
`checkpoint_seconds` and honours its caller's `stop` between two steps only (where tables and
iteration count agree); a table with a non-finite value (or a negative weight) is never saved.

With W > 1 workers (local processes or Ray), chunks go out in batches of W tasks of `SYNC_CHUNKS`
chunks, each from the same tables; their additions are summed in chunk order, so the tables depend
on the seed and W only, the same on either backend. An initialised Ray is used as it is; otherwise
a local one with W CPUs is started. Why tasks of several chunks, and the rest: docs/blueprint.md,
"Training".
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import time
from collections.abc import Callable

import numpy as np
import pyspiel

from solvers.equilibrium.blueprint import (CHUNK, CompiledMCCFR, load_checkpoint, run_chunks,
                                           save_blueprint)
from solvers.progress import progress as progress_bar

BACKENDS = ("local", "ray")
SYNC_CHUNKS = 8  # chunks in a worker's task between two synchronisations of the tables


class NonFiniteTables(ValueError):
  """Tables that cannot be trained on or saved: a value not finite, or a negative weight."""


class BlueprintTrainer:
  """Runs a `CompiledMCCFR` on a budget, on one or several processes, with a progress bar on
  request; keeps the time it took and a training curve (`history`, points the caller appends), and
  saves them with the solver's tables."""

  def __init__(self, solver: CompiledMCCFR, seconds: float = 0.0, cpu_seconds: float = 0.0,
               history: list[dict] | None = None):
    self.solver = solver
    self.seconds = seconds  # wall time spent in `run`
    self.cpu_seconds = cpu_seconds  # this process's CPU time spent in `run` (not its workers')
    self.history = [] if history is None else history  # a training curve, kept in the metadata

  def run(self, iterations: int | None = None, seconds: float | None = None,
          progress: bool = False, workers: int = 1, backend: str = "local",
          checkpoint: Callable[[], None] | None = None, checkpoint_seconds: float = 60.0,
          stop: Callable[[], bool] | None = None) -> BlueprintTrainer:
    """Runs `iterations` more iterations (rounded up to whole chunks), or whole chunks until
    `seconds` have passed, on `workers` local processes or Ray workers. With `checkpoint`, calls
    it (after `check_finite`, with the time spent counted) whenever `checkpoint_seconds` have
    passed since the last call, between two steps, where tables and counters agree; with `stop`,
    ends early, between two steps, once it returns True."""
    _check_run(iterations, seconds, workers, backend)
    chunks = None if iterations is None else -(-iterations // CHUNK)
    bar = progress_bar(total=None if chunks is None else chunks * CHUNK, unit="it",
                       desc=self.solver.algorithm, disable=not progress)
    start = time.perf_counter()
    marks = [start, time.process_time()]  # when the time spent was last counted
    saved = start

    def count_time() -> None:
      now, cpu = time.perf_counter(), time.process_time()
      self.seconds += now - marks[0]
      self.cpu_seconds += cpu - marks[1]
      marks[:] = now, cpu
    with _batch_runner(backend, workers) as run_batch:
      try:
        done = 0
        while (done < chunks) if chunks is not None else (time.perf_counter() - start < seconds):
          ran = self._step(run_batch, workers, None if chunks is None else chunks - done)
          done += ran
          bar.update(ran * CHUNK)
          if stop is not None and stop():
            break
          if checkpoint is not None and time.perf_counter() - saved >= checkpoint_seconds:
            count_time()
            self.check_finite()
            checkpoint()
            saved = time.perf_counter()
      finally:
        count_time()
        bar.close()
    return self

  def check_finite(self) -> None:
    """A ValueError, before anything is saved, once a table holds a non-finite value (or the
    average or offer weights a negative one): training cannot go on from it."""
    for name, table in zip(("regrets", "average weights", "offer weights"), self.solver.tables):
      bad = ~np.isfinite(table) if name == "regrets" else ~(np.isfinite(table) & (table >= 0))
      if bad.any():
        raise NonFiniteTables(f"training stopped at iteration {self.solver.iterations:,}: its"
                              f" {name} hold {int(bad.sum())} values that are not finite"
                              + ("" if name == "regrets" else " and non-negative")
                              + " (an overflow or a damaged checkpoint); nothing more is saved")

  def _step(self, run_batch, workers: int, left: int | None) -> int:
    """Runs the next chunk in this process, or the next batch of tasks on the workers (at most
    `left` chunks); the number of chunks run."""
    solver = self.solver
    if run_batch is None:
      solver.iterate()
      return 1
    tasks = _batch_tasks(solver.next_chunk, workers, left)
    changes = run_batch(solver.spec, solver.tables,
                        [(first, count, *solver.chunk_settings()) for first, count in tasks])
    ran = sum(count for _, count in tasks)
    solver.add_changes(changes, ran)  # in chunk order: the same sums on any backend
    return ran

  def metadata(self) -> dict:
    """The solver's metadata with the time spent and the training curve."""
    return {**self.solver.metadata(), "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3), "history": self.history}

  def save(self, path: str, checkpoint: bool = True) -> str:
    """`blueprint.save_blueprint` with this trainer's metadata, once `check_finite` passes;
    returns the file's digest."""
    self.check_finite()
    return save_blueprint(self.solver, path, checkpoint, self.metadata())

  @classmethod
  def resume(cls, path: str, game: pyspiel.Game | None = None, algorithm: str | None = None,
             play: str | None = None) -> BlueprintTrainer:
    """The trainer of the checkpoint at `path` (`blueprint.load_checkpoint`), its time spent and
    training curve included, ready to run on."""
    solver, metadata = load_checkpoint(path, game, algorithm, play)
    return cls(solver, metadata["seconds"], metadata["cpu_seconds"],
               list(metadata.get("history", [])))


def _check_run(iterations: int | None, seconds: float | None, workers: int,
               backend: str) -> None:
  """A ValueError naming what is allowed, for the first argument of `run` out of it."""
  if (iterations is None) == (seconds is None):
    raise ValueError("run needs exactly one of iterations and seconds")
  if iterations is not None and iterations < 1:
    raise ValueError(f"iterations is {iterations}; allowed: 1 or more")
  if seconds is not None and not (np.isfinite(seconds) and seconds > 0):
    raise ValueError(f"seconds is {seconds!r}; allowed: a finite number of seconds > 0")
  if workers < 1:
    raise ValueError(f"workers is {workers}; allowed: 1 or more")
  if backend not in BACKENDS:
    raise ValueError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")


def _batch_tasks(first: int, workers: int, left: int | None) -> list[tuple[int, int]]:
  """The (first chunk, chunk count) of each task of the batch starting at chunk `first`:
  `workers` tasks of `SYNC_CHUNKS` chunks, or the `left` chunks of a budget shared among them as
  evenly as they go."""
  size = workers * SYNC_CHUNKS if left is None else min(left, workers * SYNC_CHUNKS)
  counts = [size // workers + (k < size % workers) for k in range(workers)]
  starts = np.cumsum([first] + counts[:-1])
  return [(int(start), count) for start, count in zip(starts, counts) if count]


def _task_changes(spec, regrets, averages, offered, first, count, settings, seed):
  """What chunks `first` to `first + count - 1`, run one after another, add to the tables, as
  (slots, [additions to the regrets, averages and offer weights at them]); `settings` and `seed`
  as `run_chunks` takes them. Every array is copied: Ray's arrive read-only, a type the kernels
  are not compiled for."""
  tables = (regrets, averages, offered)
  new_tables, spec = [table.copy() for table in tables], spec.copy()
  settings = settings._replace(valuation=settings.valuation.copy())
  run_chunks(spec, new_tables, first, count, settings, seed)
  changed = np.flatnonzero(np.logical_or.reduce([new != old
                                                 for new, old in zip(new_tables, tables)]))
  return changed, [new[changed] - old[changed] for new, old in zip(new_tables, tables)]


@contextlib.contextmanager
def _batch_runner(backend: str, workers: int):
  """None for one local process; otherwise a function running a batch of tasks on `workers`
  processes or Ray workers and giving their changes in chunk order."""
  if backend == "local" and workers == 1:
    yield None
  elif backend == "local":
    pool = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"))

    def run_batch(spec, tables, tasks):
      futures = [pool.submit(_task_changes, spec, *tables, *task) for task in tasks]
      return [future.result() for future in futures]
    try:
      yield run_batch
    finally:
      pool.shutdown(cancel_futures=True)
  else:
    yield from _ray_batch_runner(workers)


def _ray_batch_runner(workers: int):
  """The body of `_batch_runner` on Ray, started for the run unless it already is."""
  try:
    import ray  # pylint: disable=import-outside-toplevel
  except ImportError:
    raise ValueError('the ray backend needs Ray: pip install -e ".[ray]"') from None
  started_here = not ray.is_initialized()
  if started_here:
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
  try:
    changes = ray.remote(_task_changes)

    def run_batch(spec, tables, tasks):
      shared = [ray.put(array) for array in (spec, *tables)]
      return ray.get([changes.remote(*shared, *task) for task in tasks])
    yield run_batch
  finally:
    if started_here:
      ray.shutdown()
