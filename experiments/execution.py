"""Running an experiment's units of work into its run folder: resumable, parallel and replayable.

Every kind of experiment splits its work into units numbered from 0 (a tournament's games, a
solving experiment's units), each a pure function of the config and its number: unit i draws its
randomness from `np.random.SeedSequence(seed, spawn_key=(i,))`. So the units can run in any order,
on any number of workers, across any number of sessions, and give the same results (a wall-time
budget aside). What a kind provides is an `Experiment`; the rest is here, once:

- `run` prepares the run folder (`experiments.run_folder`), runs the units missing from it, and
  writes the report;
- `execute` runs the missing units, appending each result as it arrives, and records the session's
  provenance: in this process, on `workers` local processes (spawned fresh, each parsing the config
  once), or on Ray (`backend="ray"`, on an existing cluster at `address` or on a local one started
  for the run; on a cluster every node needs this package installed);
- `replay` runs a run folder's stored config again in a temporary folder, for `reproduce`.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import dataclasses
import functools
import multiprocessing
import pathlib
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence

import tqdm

from experiments import config as config_lib
from experiments import run_folder
from experiments.run_folder import ResultsFile, RunConfig, RunError, Session

BACKENDS = ("local", "ray")

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

  def load(self, path: str | pathlib.Path) -> RunConfig:
    return config_lib.load(path, self.parse)


def run(experiment: Experiment, config: RunConfig, out: str | pathlib.Path | None,
        session: Session, force: bool, quiet: bool, notes: Sequence[str] = ()) -> pathlib.Path:
  """Runs (or resumes) `config` in the folder `out` (default: a new one), printing `notes` first
  and the report last; returns the run folder."""
  run_dir = pathlib.Path(out) if out else run_folder.new_run_dir(config.name)
  run_folder.prepare(run_dir, config, force)
  if not quiet:
    print(f"Run folder: {run_dir}")
    for note in notes:
      print(f"Note: {note}")
  try:
    execute(experiment, config, run_dir, session, quiet)
  except KeyboardInterrupt:
    print(f"\nStopped. Run the same command with --out {run_dir} to resume.", file=sys.stderr)
    raise
  except concurrent.futures.process.BrokenProcessPool:
    raise RunError(f"a worker process died; the {experiment.results.noun}s it finished are kept in"
                   f" {run_dir}: run the same command with --out {run_dir} to play the rest") \
        from None
  try:
    print(experiment.report(run_dir))
  except RunError as e:
    print(f"{e}\nThe records are in {run_dir}.", file=sys.stderr)
  return run_dir


def execute(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path, session: Session,
            quiet: bool = False) -> None:
  """Runs the units missing from `run_dir` where `session` says, then sorts the results."""
  results = experiment.results
  done = run_folder.read_results(run_dir, results)
  timings_path = run_dir / run_folder.TIMINGS_FILE
  run_folder.complete_lines(timings_path)  # cuts a torn timing line, so that new lines start clean
  total = experiment.size(config)
  missing = [i for i in range(total) if i not in done]
  if not quiet and done:
    print(f"Resuming: {len(done)} of {total} {results.noun}s already {results.kept}.")
  finished = _results(experiment, config, missing, session)
  session.resumed = len(done)
  try:
    with open(run_dir / results.name, "a", encoding="utf-8") as lines, \
        open(timings_path, "a", encoding="utf-8") as timings, \
        tqdm.tqdm(total=total, initial=len(done), unit=results.noun, disable=quiet,
                  desc=config.name, smoothing=0.05) as progress:
      for entry, timing in finished:
        run_folder.append_line(lines, entry, durable=True)
        run_folder.append_line(timings, timing, durable=False)
        session.played += 1
        progress.update()
  finally:
    run_folder.add_provenance(run_dir, config, session)
  run_folder.sort_results(run_dir, results)


def stored_config(experiment: Experiment, run_dir: pathlib.Path) -> RunConfig:
  """The config of a run folder, checked against its stored hash."""
  return run_folder.stored_config(run_dir, experiment.load)


def replay(experiment: Experiment, config: RunConfig, run_dir: pathlib.Path, session: Session,
           quiet: bool) -> tuple[dict[int, dict], dict[int, dict]]:
  """Runs `config`, the stored config of `run_dir`, again in a temporary folder; returns the
  stored and the replayed results, by key."""
  with tempfile.TemporaryDirectory(prefix="sushigo-reproduce-") as temp:
    replay_dir = pathlib.Path(temp)
    run_folder.prepare(replay_dir, config, force=False)
    execute(experiment, config, replay_dir, session, quiet)
    replayed = run_folder.read_results(replay_dir, experiment.results)
  return run_folder.read_results(run_dir, experiment.results), replayed


# ----- backends: each yields the results of units as they finish, in any order


def _results(experiment: Experiment, config: RunConfig, indices: list[int],
             session: Session) -> Iterator[Result]:
  if session.backend == "ray":
    return _ray_results(_import_ray(), experiment, config, indices, session)
  if session.backend != "local":
    raise RunError(f"unknown backend {session.backend!r}; allowed: {', '.join(BACKENDS)}")
  if session.workers == 1:
    return (experiment.play(config, index) for index in indices)
  return _process_results(experiment, config, indices, session.workers)


def _process_results(experiment: Experiment, config: RunConfig, indices: list[int],
                     workers: int) -> Iterator[Result]:
  methods = multiprocessing.get_all_start_methods()
  context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
  with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
    futures = [pool.submit(_play_chunk, experiment.parse, experiment.play, config.text, chunk)
               for chunk in _chunks(indices, workers)]
    try:
      for future in concurrent.futures.as_completed(futures):
        yield from future.result()
    finally:
      for future in futures:
        future.cancel()


def _ray_results(ray, experiment: Experiment, config: RunConfig, indices: list[int],
                 session: Session) -> Iterator[Result]:
  """Chunks of units as Ray tasks; an already initialised Ray is used as it is."""
  started_here = not ray.is_initialized()
  if started_here:
    if session.address:
      ray.init(address=session.address, log_to_driver=False)
    else:
      ray.init(num_cpus=session.workers, include_dashboard=False, log_to_driver=False)
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


def _import_ray():
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
