"""The blueprint: Monte Carlo CFR on Sushi Go's compiled core with action-centred abstractions.

Two abstractions (`ABSTRACTIONS`, kernels in `solvers.equilibrium.kernels.features`): `cards`, each
action keyed by what its cards score with, and `cards+rank`, which adds the action's rank and gap
under the heuristic baseline's values. A `cards+rank` file stores the heuristic's parameters it
was trained with (`valuation`), so it plays the same whatever the heuristic's defaults become.

`CompiledMCCFR` drives the kernels of `solvers.equilibrium.kernels` (the abstraction, the walks and
their weighting are documented there): it owns the regret, average and offer-weight tables, runs
iterations in chunks with a progress bar, saves and resumes checkpoints, and runs on several local
processes.

Chunks and streams. Iterations run in chunks of `CHUNK` iterations; chunk c (iterations
c * CHUNK + 1 onwards) draws from one stream seeded from (seed, c). A budget in seconds stops at a
chunk's end, so a run is a whole number of chunks, and one that is stopped, saved and resumed
continues exactly as it would have without stopping (same tables, bit for bit).

Workers. With `workers` W > 1, chunks are dealt out in batches of W tasks of `SYNC_CHUNKS`
consecutive chunks each: every worker process starts from the same tables, runs its task's chunks
one after another on its own copy, and returns what it added; the additions are summed in chunk
order. This is W-fold parallel MCCFR whose workers synchronise once a task (the tasks of a batch
do not see each other's updates), so its tables differ from a single process's, but they are
determined by the seed and W, and the result has the same shape (the same tables, keys and
policy). Tasks of several chunks keep the cost of shipping the tables (three arrays of 2**20
doubles by default) small beside the work: with one chunk a task, two workers ran the full game
only 1.2 times as fast as one. On Ray (`backend="ray"`, for a cluster) the tasks of a batch are
Ray tasks and everything else is the same, so W > 1 Ray workers give the tables of W local
processes, bit for bit. An initialised Ray is
used as it is (the `sushigo train` command connects to `--address`); otherwise a local one with W
CPUs is started for the run.

Files (`save`, `load_blueprint`): a compressed numpy archive with the non-zero slots of the average
and offer-weight tables (and of the regret table in a checkpoint), the table size, and JSON
metadata (game, abstraction, walk, weighting, iterations, the iterations the average and offer
weights start after, seed, times, package version, git commit, and any training curve). A
checkpoint is a policy file that also holds the regrets; `sushigo train --resume` continues from
one. Files saved before offer weights were kept hold none: they play their average or current
strategy as before, and resuming one gathers offer weights from then on, so it plays `mean` only
once its average is restarted.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import time

import numpy as np
import pyspiel
import tqdm
from open_spiel.python import policy as policy_lib

from solvers.baselines import HeuristicBot
from solvers.equilibrium.kernels import mccfr
from solvers.equilibrium.kernels.compiling import ensure_compiled
from solvers.equilibrium.tree_size import MAX_TREE_NODES, check_walk_size
from solvers.policy_kernels import heuristic
from solvers.provenance import git_commit, package_version
from sushigo_spiel.compiled.sushi_go import codec
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.drafting.adapter import simultaneous_state

ABSTRACTION = "cards"  # the default
ABSTRACTIONS = ("cards", "cards+rank")
ALGORITHMS = {"es-mccfr": "es", "probe-mccfr": "probe", "os-mccfr": "os"}  # algorithm name -> walk
WEIGHTINGS = ("linear", "uniform")
PLAYS = ("average", "mean", "current")  # the strategy a blueprint plays
BACKENDS = ("local", "ray")
CHUNK = 50
SYNC_CHUNKS = 8  # chunks in a worker's task between two synchronisations of the tables
DEFAULT_TABLE_BITS = 20


def check_game(game: pyspiel.Game) -> None:
  """A ValueError unless the blueprint abstractions read `game` (Sushi Go without the robot)."""
  if game.get_type().short_name != "python_sushi_go" or game.rules.robot:
    raise ValueError(f"abstractions {', '.join(ABSTRACTIONS)} are for python_sushi_go without the"
                     f" robot; got {game}")


def valuation(abstraction: str) -> np.ndarray:
  """The kernels' `valuation` of `abstraction`: empty for `cards`, the heuristic baseline's
  parameters (its defaults) for `cards+rank`."""
  if abstraction not in ABSTRACTIONS:
    raise ValueError(f"unknown abstraction {abstraction!r} for the compiled blueprint; allowed:"
                     f" {', '.join(ABSTRACTIONS)}")
  if abstraction == "cards":
    return np.zeros(0)
  return heuristic.parameters(HeuristicBot.PARAMETERS)


def _chunk_seed(seed: int, chunk: int) -> int:
  """The stream seed of chunk `chunk` (below 2**63, as the kernels take it)."""
  state = np.random.SeedSequence([seed, chunk]).generate_state(1, np.uint64)[0]
  return int(state >> np.uint64(1))


def _run_chunk(spec, tables, chunk, walk, linear, seed, values):
  """Runs chunk `chunk` on `tables` (regrets, averages, offer weights) in place (`values`: the
  abstraction's valuation)."""
  ensure_compiled()
  mccfr.iterate(spec, *tables, chunk * CHUNK, CHUNK, walk, linear, _chunk_seed(seed, chunk),
                values)


def _task_additions(spec, regrets, averages, offered, first, count, walk, linear, seed, values):
  """What chunks `first` to `first + count - 1`, run one after another, add to the tables, as
  (slots, [additions to the regrets, averages and offer weights at them]). Every array is copied:
  Ray's arrive read-only, a type the kernels are not compiled for."""
  tables = (regrets, averages, offered)
  new_tables, spec, values = [table.copy() for table in tables], spec.copy(), values.copy()
  for chunk in range(first, first + count):
    _run_chunk(spec, new_tables, chunk, walk, linear, seed, values)
  changed = np.flatnonzero(np.logical_or.reduce([new != old
                                                 for new, old in zip(new_tables, tables)]))
  return changed, [new[changed] - old[changed] for new, old in zip(new_tables, tables)]


@contextlib.contextmanager
def _batch_runner(backend: str, workers: int):
  """None for one local process; otherwise a function running a batch of tasks on `workers`
  processes or Ray workers and giving their additions in chunk order."""
  if backend == "local" and workers == 1:
    yield None
  elif backend == "local":
    pool = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"))

    def run_batch(spec, tables, tasks):
      futures = [pool.submit(_task_additions, spec, *tables, *task) for task in tasks]
      return [future.result() for future in futures]
    try:
      yield run_batch
    finally:
      pool.shutdown(cancel_futures=True)
  else:
    yield from _ray_batch_runner(workers)


def _ray_batch_runner(workers: int):
  try:
    import ray  # pylint: disable=import-outside-toplevel
  except ImportError:
    raise ValueError('the ray backend needs Ray: pip install -e ".[ray]"') from None
  started_here = not ray.is_initialized()
  if started_here:
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
  try:
    additions = ray.remote(_task_additions)

    def run_batch(spec, tables, tasks):
      shared = [ray.put(array) for array in (spec, *tables)]
      return ray.get([additions.remote(*shared, *task) for task in tasks])
    yield run_batch
  finally:
    if started_here:
      ray.shutdown()


def _batch_tasks(first: int, workers: int, left: int | None) -> list[tuple[int, int]]:
  """The (first chunk, chunk count) of each task of the batch starting at chunk `first`:
  `workers` tasks of `SYNC_CHUNKS` chunks, or the `left` chunks of a budget shared among them as
  evenly as they go."""
  size = workers * SYNC_CHUNKS if left is None else min(left, workers * SYNC_CHUNKS)
  counts = [size // workers + (k < size % workers) for k in range(workers)]
  starts = np.cumsum([first] + counts[:-1])
  return [(int(start), count) for start, count in zip(starts, counts) if count]


class CompiledMCCFR:
  """MCCFR (`algorithm`: es-mccfr, probe-mccfr or os-mccfr) with an action-centred abstraction
  (`cards` or `cards+rank`) on the compiled core; `weighting` linear (Linear CFR) or uniform;
  tables of 2**table_bits slots. `play` names the strategy its policy plays: the average strategy
  (what CFR's guarantees are about; its raw weights normalised at a decision), `mean` (the average
  with each key's weight divided by its offer weight: its mean probability when offered, free of
  the bias of keys shared across decisions, `mccfr`), or the current one (regret matching on the
  last regrets), which Pluribus played beyond its first betting round and which, on the full game,
  plays far better than the average of a short run (docs/equilibrium.md)."""

  def __init__(self, game: pyspiel.Game, algorithm: str = "probe-mccfr", seed: int = 0,
               weighting: str = "linear", table_bits: int = DEFAULT_TABLE_BITS,
               max_nodes: int = MAX_TREE_NODES, raise_limit: str = "max_nodes",
               play: str = "average", abstraction: str = ABSTRACTION):
    check_game(game)
    self.abstraction, self.valuation = abstraction, valuation(abstraction)
    if play not in PLAYS:
      raise ValueError(f"unknown play {play!r}; allowed: {', '.join(PLAYS)}")
    if algorithm not in ALGORITHMS:
      raise ValueError(f"unknown algorithm {algorithm!r} for abstraction {abstraction!r};"
                       f" allowed: {', '.join(ALGORITHMS)}")
    if weighting not in WEIGHTINGS:
      raise ValueError(f"unknown weighting {weighting!r}; allowed: {', '.join(WEIGHTINGS)}")
    if not 8 <= table_bits <= 28:
      raise ValueError(f"table_bits is {table_bits}; allowed: 8 to 28")
    if not 0 <= seed < 2 ** 63:
      raise ValueError(f"seed is {seed}; allowed: 0 to 2**63 - 1")
    if algorithm == "es-mccfr":
      check_walk_size(game, max_nodes, raise_limit)
    ensure_compiled()
    self.game, self.rules = game, game.rules
    self.spec = build_spec(game.rules)
    self.algorithm, self.walk = algorithm, mccfr.WALKS[ALGORITHMS[algorithm]]
    self.seed, self.weighting, self.play = seed, weighting, play
    self.regrets = np.zeros(1 << table_bits)
    self.averages = np.zeros(1 << table_bits)
    self.offered = np.zeros(1 << table_bits)  # offer weights (`mccfr`): the averages' divisors
    self.iterations = 0
    self.average_since = 0  # the iteration after which the average weights were gathered
    self.offered_since = 0  # the same for the offer weights (later if resumed from an old file)
    self.seconds = 0.0  # wall time spent in `run`
    self.cpu_seconds = 0.0  # this process's CPU time spent in `run` (workers' not counted)
    self.history: list[dict] = []  # a training curve, kept in the metadata

  @property
  def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The regrets, average weights and offer weights, as the kernels take them."""
    return self.regrets, self.averages, self.offered

  @property
  def occupied(self) -> int:
    """Slots of the average table in use (keys met at someone's decision, up to collisions)."""
    return int(np.count_nonzero(self.averages))

  def run(self, iterations: int | None = None, seconds: float | None = None,
          progress: bool = False, workers: int = 1, backend: str = "local") -> CompiledMCCFR:
    """Runs `iterations` more iterations (rounded up to whole chunks of `CHUNK`), or whole chunks
    until `seconds` have passed, on `workers` local processes or Ray workers; a tqdm bar on
    request."""
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
    chunks = None if iterations is None else -(-iterations // CHUNK)
    bar = tqdm.tqdm(total=None if chunks is None else chunks * CHUNK, unit="it",
                    desc=self.algorithm, disable=not progress)
    start, cpu_start = time.perf_counter(), time.process_time()
    linear = self.weighting == "linear"
    with _batch_runner(backend, workers) as run_batch:
      try:
        done = 0
        while (done < chunks) if chunks is not None else (time.perf_counter() - start < seconds):
          first = self.iterations // CHUNK
          if run_batch is None:
            batch = 1
            _run_chunk(self.spec, self.tables, first, self.walk, linear, self.seed,
                       self.valuation)
          else:
            tasks = _batch_tasks(first, workers, None if chunks is None else chunks - done)
            batch = sum(count for _, count in tasks)
            for slots, additions in run_batch(self.spec, self.tables, [
                (start, count, self.walk, linear, self.seed, self.valuation)
                for start, count in tasks]):
              for table, added in zip(self.tables, additions):
                table[slots] += added  # in chunk order: the same sums on any backend
          self.iterations += batch * CHUNK
          done += batch
          bar.update(batch * CHUNK)
      finally:
        self.seconds += time.perf_counter() - start
        self.cpu_seconds += time.process_time() - cpu_start
        bar.close()
    return self

  def metadata(self) -> dict:
    return {
        "game": str(self.game), "abstraction": self.abstraction, "algorithm": self.algorithm,
        "weighting": self.weighting, "play": self.play, "iterations": self.iterations,
        "average_since": self.average_since, "offered_since": self.offered_since,
        "seed": self.seed,
        "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3),
        "occupied_slots": self.occupied, "table_slots": len(self.averages),
        "package_version": package_version(), "git_commit": git_commit() or "unknown",
        "history": self.history,
    }

  def restart_average(self) -> None:
    """Drops the average and offer weights gathered so far: the average strategy is gathered
    afresh from the next iteration on (the regrets carry on)."""
    self.averages[:] = 0.0
    self.offered[:] = 0.0
    self.average_since = self.offered_since = self.iterations

  def check_play(self) -> None:
    """A ValueError when playing `mean` while the offer weights cover fewer iterations than the
    average weights (resumed from a file saved without them): checked before a long training,
    it saves finding out at its end."""
    if self.play == "mean" and self.offered_since != self.average_since:
      raise ValueError(f"offer weights were gathered after iteration {self.offered_since}, the"
                       f" average weights after {self.average_since}: their mean is not defined;"
                       " restart the average (restart_average; --restart-average) or play"
                       " average or current")

  def policy(self) -> BlueprintPolicy:
    """The strategy of `play` (a ValueError for a `mean` that is not defined, `check_play`)."""
    self.check_play()
    return BlueprintPolicy(self.game, strategy_weights(self.play, *self.tables), self.metadata(),
                           self.valuation)

  def save(self, path: str, checkpoint: bool = True) -> None:
    """Writes the policy (and, as a checkpoint, the regrets) to `path` through a temporary file
    beside it: a failed write leaves no half-written file. A ValueError for a `mean` play that
    is not defined (`check_play`)."""
    self.check_play()
    used = np.flatnonzero(self.averages)
    offered = np.flatnonzero(self.offered)
    arrays = {"average_slots": used, "average_values": self.averages[used],
              "offered_slots": offered, "offered_values": self.offered[offered]}
    if checkpoint or self.play == "current":
      held = np.flatnonzero(self.regrets)
      arrays.update(regret_slots=held, regret_values=self.regrets[held])
    temp = f"{path}.{os.getpid()}.tmp"
    try:
      with open(temp, "wb") as file:
        np.savez_compressed(file, table_slots=np.array(len(self.averages)),
                            metadata=np.array(json.dumps(self.metadata())),
                            valuation=self.valuation, **arrays)
      os.replace(temp, path)
    except BaseException:
      with contextlib.suppress(OSError):
        os.remove(temp)
      raise

  @classmethod
  def resume(cls, path: str, game: pyspiel.Game | None = None, algorithm: str | None = None,
             play: str | None = None) -> CompiledMCCFR:
    """The solver saved at `path` (a checkpoint), ready to run on, playing `play` (default: the
    checkpoint's). A ValueError if the file holds no regrets, or was trained on another game or
    algorithm than the given ones, or for an unknown play. A checkpoint saved before offer
    weights were kept gathers them from its last iteration on (`offered_since`)."""
    data, metadata = _open(path)
    with data:
      if "regret_slots" not in data.files:
        raise ValueError(f"{path} is a policy without regrets, not a checkpoint; cannot resume")
      saved_game = pyspiel.load_game(metadata["game"])
      if game is not None and str(game) != str(saved_game):
        raise ValueError(f"the checkpoint {path} was trained on {saved_game}, not {game}")
      if algorithm is not None and algorithm != metadata["algorithm"]:
        raise ValueError(f"the checkpoint {path} was trained with {metadata['algorithm']},"
                         f" not {algorithm}")
      bits = int(data["table_slots"]).bit_length() - 1
      solver = cls(saved_game, metadata["algorithm"], metadata["seed"], metadata["weighting"],
                   bits, play=play or metadata.get("play", "average"),
                   abstraction=metadata["abstraction"])
      solver.valuation = _stored_valuation(data)
      solver.regrets[data["regret_slots"]] = data["regret_values"]
      solver.averages[data["average_slots"]] = data["average_values"]
      solver.iterations = metadata["iterations"]
      solver.average_since = metadata.get("average_since", 0)
      if "offered_slots" in data.files:
        solver.offered[data["offered_slots"]] = data["offered_values"]
        solver.offered_since = metadata["offered_since"]
      else:
        solver.offered_since = solver.iterations
    solver.seconds, solver.cpu_seconds = metadata["seconds"], metadata["cpu_seconds"]
    solver.history = list(metadata.get("history", []))
    return solver


def _open(path: str):
  """The open archive at `path` and its metadata, or a ValueError naming the path."""
  data = np.load(path, allow_pickle=False)
  if not isinstance(data, np.lib.npyio.NpzFile) or "metadata" not in data.files or \
      "average_slots" not in data.files:
    raise ValueError(f"{path} is not a blueprint file saved by `sushigo train`")
  metadata = json.loads(str(data["metadata"]))
  if metadata.get("abstraction") not in ABSTRACTIONS:
    raise ValueError(f"{path} is not a blueprint file (abstraction"
                     f" {metadata.get('abstraction')!r})")
  return data, metadata


def _stored_valuation(data) -> np.ndarray:
  """The valuation a blueprint file was trained with (empty in files saved before `cards+rank`,
  which are all `cards`)."""
  return data["valuation"] if "valuation" in data.files else np.zeros(0)


def is_blueprint_file(path: str) -> bool:
  """Whether `path` is a blueprint file (rather than a policy file of `policies.py`)."""
  with np.load(path, allow_pickle=False) as data:
    return "average_slots" in data.files


def mean_weights(averages: np.ndarray, offered: np.ndarray) -> np.ndarray:
  """Each slot's average weight over its offer weight (`mccfr`'s offer weights): the mean
  probability of its action when offered; 0 where it was never offered."""
  return np.divide(averages, offered, out=np.zeros_like(averages), where=offered > 0)


def strategy_weights(play: str, regrets: np.ndarray, averages: np.ndarray,
                     offered: np.ndarray) -> np.ndarray:
  """The table a blueprint playing `play` (one of `PLAYS`) reads, a fresh array: the positive
  regrets, the average weights, or the mean weights."""
  if play == "current":
    return np.maximum(regrets, 0.0)
  if play == "mean":
    return mean_weights(averages, offered)
  return averages.copy()


def load_blueprint(path: str) -> BlueprintPolicy:
  """The blueprint policy saved at `path`: the strategy it was trained to play (`play`: its
  average strategy, its mean one, or its current one)."""
  data, metadata = _open(path)
  with data:
    tables = [np.zeros(int(data["table_slots"])) for _ in range(3)]
    for name, table in zip(("regret", "average", "offered"), tables):
      if f"{name}_slots" in data.files:  # a policy file holds no regrets, an old one no offers
        table[data[f"{name}_slots"]] = data[f"{name}_values"]
    values = _stored_valuation(data)
  return BlueprintPolicy(pyspiel.load_game(metadata["game"]),
                         strategy_weights(metadata.get("play", "average"), *tables), metadata,
                         values)


class BlueprintPolicy(policy_lib.Policy):
  """A `cards` blueprint as a policy of the game (either form): at a position, each legal
  action's weight (average weight, or positive regret for the current strategy) read from its
  key's slot, normalised; uniform where none has weight. Answers at tables too
  (`probabilities`), as `LiftedPolicy` does, so `GameTree.policy_array` and `PolicyBot` read
  it."""

  def __init__(self, game: pyspiel.Game, averages: np.ndarray, metadata: dict | None = None,
               values: np.ndarray | None = None):
    super().__init__(game, list(range(game.num_players())))
    check_game(game)
    ensure_compiled()
    self.rules, self.legal_actions = game.rules, game.dynamics.legal_actions
    self.spec = build_spec(game.rules)
    self.averages = averages
    self.metadata = dict(metadata or {})
    self.valuation = np.zeros(0) if values is None else values

  def for_game(self, game: pyspiel.Game) -> BlueprintPolicy:
    """The same blueprint (table, valuation and metadata) read as a policy of `game`."""
    return BlueprintPolicy(game, self.averages, self.metadata, self.valuation)

  def action_probabilities(self, state, player_id=None):
    player = state.current_player() if player_id is None else player_id
    return self.probabilities(self.rules, simultaneous_state(state).table(), player)

  def probabilities(self, rules, table, player: int) -> dict[int, float]:
    legal = self.legal_actions(rules, table, player)
    pos = codec.encode(self.rules, self.spec, table)
    weights = mccfr.policy_weights(self.spec, pos, player, self.averages,
                                   np.asarray(legal, dtype=np.int64), self.valuation)
    total = weights.sum()
    if total <= 0:
      return {action: 1.0 / len(legal) for action in legal}
    return {action: w / total for action, w in zip(legal, weights.tolist())}
