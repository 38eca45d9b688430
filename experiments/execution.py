"""Running an experiment's units of work into its run folder: resumable, parallel and replayable.

Every kind of experiment splits its work into units numbered from 0, each a pure function of the
config and its number (unit i draws from `np.random.SeedSequence(seed, spawn_key=(i,))`), so units
run in any order, on any number of workers and sessions, with the same results (a wall-time budget
aside). A kind provides an `Experiment`; the rest is here, once: `run` holds the folder as its one
writer (`experiments.run_lock`), prepares it (`experiments.run_folder`), runs the missing units and
writes the report; `execute` runs the missing units in this process, on `workers` local processes
(forkserver) or on Ray (`backend="ray"`), appending each result as it arrives and recording the
session's provenance; `replay` runs a stored config again in a temporary folder, for `reproduce`.
A signal stops a run as `experiments.stopping` says, and no worker outlives it. A file error ends
a run with one sentence naming the file; what was recorded stays, and the same command resumes.

The guarantees and how they are tested: docs/experiments.md, "Reproducible, resumable, parallel".
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import dataclasses
import functools
import json
import logging
import multiprocessing
import pathlib
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence


from experiments import config as config_lib
from experiments import estimates
from experiments import file_errors
from experiments import run_folder
from experiments import run_lock
from experiments import stopping
from experiments.run_folder import ResultsFile, RunConfig, RunError, Session
from solvers.progress import progress

BACKENDS = ("local", "ray")

RAY_CONNECT_SECONDS = 10  # how long --address may take to answer
_TASKS_PER_WORKER = 8  # chunks of units per worker: few round trips, yet an even finish
_MAX_CHUNK = 32

Result = tuple[dict, dict]  # a unit's line of the results file, and its line of timings.jsonl


@dataclasses.dataclass(frozen=True)
class Experiment:
  """What running a kind of experiment needs of it. Its functions are module-level, so that worker
  processes can be sent them."""
  results: ResultsFile
  parse: Callable[[str], RunConfig]  # the checked config, from its TOML text
  size: Callable[[RunConfig], int]  # the number of units of a config
  play: Callable[[RunConfig, int], Result]  # runs one unit
  report: Callable[[pathlib.Path], str]  # writes a run folder's report; returns its Markdown
  report_files: Callable[[RunConfig], list[str]]  # the files the report writes (for the manifest)
  # what is wrong with a unit's stored result given the config (None: nothing), if the kind checks
  check: Callable[[RunConfig], Callable[[int, dict], str | None]] | None = None
  # what a run of a config on some workers holds in memory, and the bytes of its results
  # (`experiments.estimates`), if the kind estimates them
  sizes: Callable[[RunConfig, int], tuple[list[estimates.Need], int]] | None = None
  # a unit's seconds on one worker, calibrated, and how ("calibrated on ..."), if the kind can
  unit_seconds: Callable[[RunConfig], tuple[float, str] | None] | None = None

  def read(self, config: RunConfig, run_dir: pathlib.Path) -> dict[int, dict]:
    """The results stored in `run_dir`, each checked against `config` (`run_folder.read_results`)."""
    return run_folder.read_results(run_dir, self.results, self.size(config),
                                   self.check(config) if self.check else None)

  def files(self, config: RunConfig) -> list[str]:
    """Every file a run of `config` writes besides its config files: its manifest."""
    return [self.results.name, run_folder.TIMINGS_FILE, run_folder.PROVENANCE_FILE,
            *self.report_files(config)]

  def load(self, path: str | pathlib.Path) -> RunConfig:
    return config_lib.load(path, self.parse)


def run(experiment: Experiment, config: RunConfig, out: str | pathlib.Path | None,
        session: Session, force: bool, quiet: bool, notes: Sequence[str] = ()) -> pathlib.Path:
  """Runs (or resumes) `config` in the folder `out` (default: a new one), printing `notes` first
  and the report last; returns the run folder."""
  run_dir = pathlib.Path(out) if out else run_folder.new_run_dir(config.name)
  try:
    file_errors.check_folder(run_dir, "--out")
  except file_errors.OutputError as e:
    raise RunError(str(e)) from None
  check_sizes(experiment, config, run_dir, session.workers)
  run_folder.check_destination(run_dir, config, force)
  with _file_errors(run_dir, experiment.results, started=False), run_lock.writing(run_dir):
    run_folder.prepare(run_dir, config, force, experiment.files(config))
    if not quiet:
      print(f"Run folder: {run_dir}")
      for note in notes:
        print(f"Note: {note}")
    with _file_errors(run_dir, experiment.results, started=True):
      _execute_or_stop(experiment, config, run_dir, session, quiet)
      try:
        print(experiment.report(run_dir))
      except RunError as e:  # the run is complete; its report is not, which the exit status says
        raise RunError(f"{e}\nThe records are in {run_dir}; `sushigo report {run_dir}` writes"
                       " the report once that is fixed.") from None
  return run_dir


def check_sizes(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path,
                workers: int) -> None:
  """Refuses, before any unit runs, a run that cannot fit in this machine's memory or on the disk
  under `run_dir` (`experiments.estimates`), and warns when `workers` is more than the cores."""
  estimates.print_notes([estimates.workers_note(workers)])
  if experiment.sizes is None:
    return
  needs, disk = experiment.sizes(config, workers)
  try:
    estimates.check_memory(needs)
    stored = (run_dir / experiment.results.name).stat().st_size \
        if (run_dir / experiment.results.name).is_file() else 0
    estimates.check_disk(f"the {experiment.results.noun}s of this run ({experiment.results.name})",
                         disk - stored, run_dir, "fewer units of work, or --out on a disk with"
                         " the room")
  except estimates.TooLarge as e:
    raise RunError(str(e)) from None


def _duration(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path, missing: int,
              done: int) -> estimates.Duration | None:
  """How long the `missing` units take: at the mean of the folder's stored unit timings when
  it has some, else at the kind's calibrated cost (None when it has none)."""
  if done:
    seconds = []
    for line in run_folder.complete_lines(run_dir / run_folder.TIMINGS_FILE):
      with contextlib.suppress(ValueError, AttributeError, TypeError):
        seconds.append(float(json.loads(line)["seconds"]))
    if seconds:
      return estimates.Duration(missing, experiment.results.noun, sum(seconds) / len(seconds),
                                f"the mean of the {len(seconds):,} stored timings")
  cost = experiment.unit_seconds(config) if experiment.unit_seconds else None
  if cost is None:
    return None
  each, source = cost
  return estimates.Duration(missing, experiment.results.noun, each, source)


def _execute_or_stop(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path,
                     session: Session, quiet: bool) -> None:
  """`execute`, saying how to resume if it is stopped or a worker dies."""
  try:
    execute(experiment, config, run_dir, session, quiet)
  except KeyboardInterrupt:
    print(f"\nStopped. {_resume_hint(run_dir)}", file=sys.stderr)
    raise
  except concurrent.futures.process.BrokenProcessPool:
    raise RunError(f"a worker process died; the {experiment.results.noun}s it finished are kept in"
                   f" {run_dir}: run the same command with --out {run_dir} to play the rest") \
        from None


def _resume_hint(run_dir: pathlib.Path) -> str:
  return f"Run the same command with --out {run_dir} to resume."


@contextlib.contextmanager
def _file_errors(run_dir: pathlib.Path, results: ResultsFile, started: bool) -> Iterator[None]:
  """Ends a file error in one sentence: the file, the reason and, once units ran, how to resume."""
  try:
    yield
  except OSError as e:
    if not started:
      raise RunError(f"cannot write the run folder: {file_errors.describe(e)}") from None
    raise RunError(f"{file_errors.describe(e)}; the {results.noun}s finished so far are kept: run"
                   f" the same command with --out {run_dir} once that is fixed to resume") from None


def execute(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path, session: Session,
            quiet: bool = False) -> None:
  """Runs the units missing from `run_dir` where `session` says, then sorts the results. The
  caller holds the folder (`run_lock.writing`)."""
  results = experiment.results
  results_path, timings_path = run_dir / results.name, run_dir / run_folder.TIMINGS_FILE
  for path in (results_path, timings_path):
    run_folder.cut_torn_line(path)  # so that new lines start clean
  total = experiment.size(config)
  done = experiment.read(config, run_dir)
  run_folder.keep_timings_of(run_dir, results, done)
  missing = [i for i in range(total) if i not in done]
  if not quiet and done:
    print(f"Resuming: {len(done)} of {total} {results.noun}s already {results.kept}.")
  if not quiet and missing:
    estimates.print_notes([estimates.time_note(
        _duration(experiment, config, run_dir, len(missing), len(done)), session.workers)])
  session.resumed = len(done)
  with stopping.on_stop_signals(_resume_hint(run_dir)):
    try:
      with contextlib.closing(_results(experiment, config, missing, session, quiet)) as finished, \
          progress(total=total, initial=len(done), unit=results.noun, disable=quiet,
                   desc=config.name, smoothing=0.05) as bar:
        _append_results(finished, results_path, timings_path, session, bar)
    except BaseException:
      with contextlib.suppress(OSError):  # the error being raised is the one to tell
        run_folder.add_provenance(run_dir, config, session)
      raise
    run_folder.add_provenance(run_dir, config, session)
  run_folder.sort_results(run_dir, results)


def _append_results(finished: Iterator[Result], results_path: pathlib.Path,
                    timings_path: pathlib.Path, session: Session, bar) -> None:
  """Appends each unit's timing line, then its result line (durable), as the units finish."""
  with run_folder.open_for_appending(results_path) as lines, \
      run_folder.open_for_appending(timings_path) as timings:
    for entry, timing in finished:
      with file_errors.naming(timings_path):
        run_folder.append_line(timings, timing, durable=False)  # first: see keep_timings_of
      with file_errors.naming(results_path):
        run_folder.append_line(lines, entry, durable=True)
      session.played += 1
      bar.update()


def stored_config(experiment: Experiment, run_dir: pathlib.Path) -> RunConfig:
  """The config of a run folder, checked against its stored hash."""
  return run_folder.stored_config(run_dir, experiment.load)


def replay(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path, session: Session,
           quiet: bool) -> tuple[dict[int, dict], dict[int, dict]]:
  """Runs `config`, the stored config of `run_dir`, again in a temporary folder; returns the
  stored and the replayed results, by key. The stored ones are read first, under the folder's
  reading lock, so that no run writes them meanwhile."""
  with run_lock.reading(run_dir, "reproduce"):
    stored = experiment.read(config, run_dir)
    resolved_path = run_dir / run_folder.RESOLVED_FILE
    recorded = run_folder.read_json(resolved_path)
  check_replay_inputs(config, resolved_path, recorded)
  check_sizes(experiment, config, pathlib.Path(tempfile.gettempdir()), session.workers)
  with tempfile.TemporaryDirectory(prefix="sushigo-reproduce-") as temp:
    replay_dir = pathlib.Path(temp)
    run_folder.prepare(replay_dir, config)
    execute(experiment, config, replay_dir, session, quiet)
    replayed = run_folder.read_results(replay_dir, experiment.results, experiment.size(config))
  return stored, replayed


def check_replay_inputs(config: RunConfig, resolved_path: pathlib.Path, recorded: dict) -> None:
  """Refuses to replay a run whose input files changed (naming the file and both digests); says
  which files are used unchecked when the run recorded no digests (it ran before they were)."""
  current = run_folder.input_digests(config)
  run_folder.check_inputs(resolved_path, recorded, current,
                          "run the config afresh in another folder")
  if current and run_folder.INPUTS not in recorded:
    print(f"Note: {resolved_path} records no digests of its input files (the run is older than"
          f" them), so the replay uses {', '.join(current)} as they are now, unchecked; a record"
          " that differs may come from a changed file.", file=sys.stderr)


# ----- backends: each yields the results of units as they finish, in any order


def _results(experiment: Experiment, config: RunConfig, indices: list[int], session: Session,
             quiet: bool) -> Iterator[Result]:
  if session.backend == "ray":
    return _ray_results(import_ray(), experiment, config, indices, session, quiet)
  if session.backend != "local":
    raise RunError(f"unknown backend {session.backend!r}; allowed: {', '.join(BACKENDS)}")
  if session.workers == 1:
    return (experiment.play(config, index) for index in indices)
  return _process_results(experiment, config, indices, session.workers)


def _process_results(experiment: Experiment, config: RunConfig, indices: list[int],
                     workers: int) -> Iterator[Result]:
  """Chunks of units on a pool of worker processes. However the loop ends early (a signal, an
  error, the caller closing it), the workers are killed rather than waited for: a unit they were
  running is run again by the next session."""
  methods = multiprocessing.get_all_start_methods()
  context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
  before = set(multiprocessing.active_children())
  pool = concurrent.futures.ProcessPoolExecutor(
      workers, mp_context=context, initializer=stopping.watch_parent,
      initargs=(stopping.parent_identity(),))
  try:
    futures = [pool.submit(_play_chunk, experiment.parse, experiment.play, config.text, chunk)
               for chunk in _chunks(indices, workers)]
    for future in concurrent.futures.as_completed(futures):
      yield from future.result()
  except BaseException:
    stopping.kill_workers(set(multiprocessing.active_children()) - before)
    pool.shutdown(wait=False, cancel_futures=True)
    raise
  pool.shutdown()


def _ray_results(ray, experiment: Experiment, config: RunConfig, indices: list[int],
                 session: Session, quiet: bool) -> Iterator[Result]:
  """Chunks of units as Ray tasks; an already initialised Ray is used as it is."""
  started_here = not ray.is_initialized()
  if started_here:
    start_ray(ray, session, quiet)
  try:
    play_chunk = ray.remote(_play_chunk)
    text = ray.put(config.text)
    pending = [play_chunk.remote(experiment.parse, experiment.play, text, chunk)
               for chunk in _chunks(indices, session.workers)]
    while pending:
      ready, pending = ray.wait(pending, num_returns=1)
      yield from ray.get(ready[0])
  finally:
    if started_here:
      ray.shutdown()


def start_ray(ray, session: Session, quiet: bool) -> None:
  """Connects to the cluster at `session.address`, first checking that something answers there
  (Ray itself retries an address where nothing listens for minutes), or starts a local Ray. With
  `quiet`, Ray's notes and warnings (such as the one on token authentication) are not shown."""
  level = logging.ERROR if quiet else logging.INFO
  if quiet:
    logging.getLogger("ray").setLevel(level)  # some are logged before `logging_level` applies
  if not session.address:
    ray.init(num_cpus=session.workers, include_dashboard=False, log_to_driver=False,
             logging_level=level)
    return
  _check_ray_address(session.address)
  try:
    ray.init(address=session.address, log_to_driver=False, logging_level=level)
  except (ConnectionError, TimeoutError, RuntimeError, ValueError) as e:
    raise RunError(f"--address {session.address}: Ray cannot connect there: {e}") from None


def _check_ray_address(address: str) -> None:
  """RunError unless a TCP connection to `address` ("host:port"; "auto" and "ray://" addresses
  are left to Ray) opens within `RAY_CONNECT_SECONDS`."""
  host, _, port = address.removeprefix("ray://").rpartition(":")
  if address == "auto" or not host or not port.isdigit():
    return
  try:
    socket.create_connection((host, int(port)), timeout=RAY_CONNECT_SECONDS).close()
  except OSError as e:
    raise RunError(f"--address {address}: nothing answers there ({e.strerror or e}); start the"
                   " cluster (ray start --head) or check the address") from None


def import_ray():
  """Ray, an optional dependency: imported only by a run that asks for it."""
  try:
    import ray  # pylint: disable=import-outside-toplevel
  except ImportError:
    raise RunError('the ray backend needs Ray: pip install -e ".[ray]"') from None
  return ray


def _play_chunk(parse: Callable[[str], RunConfig], play: Callable[[RunConfig, int], Result],
                config_text: str, indices: list[int]) -> list[Result]:
  """A worker's task: units by number, the config parsed once per worker process."""
  config = _parsed_config(parse, config_text)
  return [play(config, index) for index in indices]


@functools.cache
def _parsed_config(parse: Callable[[str], RunConfig], config_text: str) -> RunConfig:
  return parse(config_text)


def _chunks(indices: list[int], workers: int) -> Iterator[list[int]]:
  size = max(1, min(_MAX_CHUNK, len(indices) // (workers * _TASKS_PER_WORKER)))
  for start in range(0, len(indices), size):
    yield indices[start:start + size]
