"""Runs an experiment config into a run folder: reproducible, resumable and parallel.

A run folder holds everything needed to read, check and redo a run:

  config.toml            the config exactly as written
  resolved_config.json   the config with its defaults filled in, the schedule size, `config_hash`
  records.jsonl          one JSON object per game, sorted by index once the run is complete:
                           index, seed ({"entropy", "spawn_key"} of its numpy SeedSequence), game,
                           seats (competitor names by seat), bots (bot, params, seed by seat),
                           scores (ints), returns, rounds (points by round and seat), breakdown
                           (points by round, seat and category), puddings, winners (seats)
  timings.jsonl          index, seconds, worker (host:pid) per game: kept apart from the records,
                           which must not depend on where or how fast a game was played
  provenance.json        one entry per session: versions, git commit, machine, backend, workers,
                           budget kind, wall time
  summary.*, plots/      the report (`experiments.report`), written when the run is complete

Reproducible: game i draws everything from `np.random.SeedSequence(seed, spawn_key=(i,))`; it spawns
the chance stream (a numpy Generator sampling `state.chance_outcomes()`) and then one seed per seat
for `solvers.make_bot`. No game depends on another, so records are identical whatever the backend,
the number of workers or the order in which games finish (a wall-time budget aside).

Resumable: each finished game is appended to records.jsonl as one line, flushed and fsynced (its
timing line is only flushed: timings do not decide what is done). A new session in the same folder
keeps the complete lines, cuts a torn last line and plays only the games missing. A folder holding
a run of a different config (by hash) is refused unless `force`, which starts over.

Parallel: `workers` local processes (spawned fresh, each loading games and bots itself), or Ray
(`backend="ray"`), on an existing cluster at `address` or on a local one started for the run. On a
cluster every node needs this package installed.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import datetime
import functools
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import pathlib
import platform
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator

import numpy as np
import tqdm

import experiments
import solvers
import sushigo_spiel
from experiments import config as config_lib
from solvers.match import play_match
from solvers.provenance import git_commit
from sushigo_spiel.sushi_go import scoring

CONFIG_FILE = "config.toml"
RESOLVED_FILE = "resolved_config.json"
RECORDS_FILE = "records.jsonl"
TIMINGS_FILE = "timings.jsonl"
PROVENANCE_FILE = "provenance.json"
REPORT_FILES = ("summary.csv", "summary.md")
PLOTS_DIR = "plots"
BACKENDS = ("local", "ray")
RUNS_DIR = "runs"

_TASKS_PER_WORKER = 8  # chunks of games per worker: few round trips, yet an even finish
_MAX_CHUNK = 32
_MISMATCHES_SHOWN = 20


class RunError(RuntimeError):
  """A run that cannot start or go on; the message says why and what to do."""


def run(config_path: str | pathlib.Path, out: str | pathlib.Path | None = None, workers: int = 1,
        backend: str = "local", address: str | None = None, force: bool = False,
        quiet: bool = False) -> pathlib.Path:
  """Runs (or resumes) the experiment of `config_path`, then its report; returns the run folder."""
  config = config_lib.load(config_path)
  run_dir = pathlib.Path(out) if out else new_run_dir(config.name)
  prepare(run_dir, config, force)
  if not quiet:
    print(f"Run folder: {run_dir}")
    for note in config.notes():
      print(f"Note: {note}")
  try:
    execute(config, run_dir, workers, backend, address, quiet)
  except KeyboardInterrupt:
    print(f"\nStopped. Run the same command with --out {run_dir} to resume.", file=sys.stderr)
    raise
  except concurrent.futures.process.BrokenProcessPool:
    raise RunError(f"a worker process died; the games it finished are kept in {run_dir}: run the"
                   f" same command with --out {run_dir} to play the rest") from None
  try:
    print(report(run_dir))
  except RunError as e:
    print(f"{e}\nThe records are in {run_dir}.", file=sys.stderr)
  return run_dir


def reproduce(run_dir: str | pathlib.Path, workers: int = 1, quiet: bool = False) -> bool:
  """Replays the run's stored config in a temporary folder; True if every record is identical."""
  run_dir = pathlib.Path(run_dir)
  config = _stored_config(run_dir)
  if config.budget_kind == "seconds" and not quiet:
    print("Note: this run gives bots a wall-time budget (budget.seconds), so its records need"
          " not reproduce exactly.")
  with tempfile.TemporaryDirectory(prefix="sushigo-reproduce-") as temp:
    replay_dir = pathlib.Path(temp)
    prepare(replay_dir, config, force=False)
    execute(config, replay_dir, workers, "local", None, quiet)
    replayed = _records_by_index(replay_dir)
  mismatches = _mismatches(_records_by_index(run_dir), replayed)
  for line in mismatches[:_MISMATCHES_SHOWN]:
    print(line)
  if len(mismatches) > _MISMATCHES_SHOWN:
    print(f"... and {len(mismatches) - _MISMATCHES_SHOWN} more")
  total = config.total_games
  if mismatches:
    print(f"Mismatch: {len(mismatches)} of {total} records differ from {run_dir}.")
  else:
    print(f"Match: all {total} records of {run_dir} reproduced exactly.")
  return not mismatches


def report(run_dir: str | pathlib.Path) -> str:
  """Writes the report of a run folder with `experiments.report`; returns its Markdown tables."""
  run_dir = pathlib.Path(run_dir)
  if not (run_dir / RECORDS_FILE).is_file():
    raise RunError(f"{run_dir}: not a run folder (no {RECORDS_FILE})")
  try:
    from experiments import report as report_lib  # pylint: disable=import-outside-toplevel
  except ImportError as e:
    raise RunError(f"No report: experiments.report cannot be imported ({e}); make it later with"
                   f" `sushigo report {run_dir}`.") from None
  try:
    return report_lib.write_report(run_dir, quiet=True)
  except (OSError, ValueError) as e:
    raise RunError(f"No report: {e}") from None


def prepare(run_dir: pathlib.Path, config: config_lib.Config, force: bool) -> None:
  """Makes `run_dir` ready for `config`: new, or holding a run of the same config (or `force`)."""
  resolved_path = run_dir / RESOLVED_FILE
  if force:
    _clear(run_dir)
  elif resolved_path.is_file():
    stored_hash = _read_json(resolved_path).get("config_hash")
    if stored_hash != config.hash:
      raise RunError(f"{run_dir} holds a run of a different config (hash {stored_hash!s:.12} there,"
                     f" {config.hash:.12} now); use --force to start it over, or another --out")
  elif run_dir.is_dir() and any(run_dir.iterdir()):
    raise RunError(f"{run_dir} is not empty and holds no run (no {RESOLVED_FILE}); choose a new"
                   " or empty folder, or use --force")
  run_dir.mkdir(parents=True, exist_ok=True)
  write_atomically(run_dir / CONFIG_FILE, config.text)
  write_atomically(resolved_path, json.dumps(config.resolved(), indent=2) + "\n")


def execute(config: config_lib.Config, run_dir: pathlib.Path, workers: int = 1,
            backend: str = "local", address: str | None = None, quiet: bool = False) -> None:
  """Plays the games missing from `run_dir`, then sorts its records by index."""
  records_path, timings_path = run_dir / RECORDS_FILE, run_dir / TIMINGS_FILE
  done = set(_records_by_index(run_dir))
  complete_lines(timings_path)  # cuts a torn timing line, so that new lines start clean
  missing = [i for i in range(config.total_games) if i not in done]
  if not quiet and done:
    print(f"Resuming: {len(done)} of {config.total_games} games already recorded.")
  results = _results(config, missing, workers, backend, address)
  session = Session(backend, workers, address, resumed=len(done))
  try:
    with open(records_path, "a", encoding="utf-8") as records, \
        open(timings_path, "a", encoding="utf-8") as timings, \
        tqdm.tqdm(total=config.total_games, initial=len(done), unit="game", disable=quiet,
                  desc=config.name, smoothing=0.05) as progress:
      for record, timing in results:
        append_line(records, record, durable=True)
        append_line(timings, timing, durable=False)
        session.played += 1
        progress.update()
  finally:
    add_provenance(run_dir, config, session)
  _sort_records(records_path)


def play_game(config: config_lib.Config, index: int) -> tuple[dict, dict]:
  """Plays game `index` of the config; returns its record and its timing."""
  start = time.perf_counter()
  matchup = config.matchup(index)
  game = config.loaded_game(matchup.game)
  chance_seed, *seat_seeds = np.random.SeedSequence(config.seed, spawn_key=(index,)).spawn(
      1 + len(matchup.seats))
  bot_seeds = [int(seed.generate_state(1)[0]) for seed in seat_seeds]
  params = [config.bot_params(competitor) for competitor in matchup.seats]
  bots = [solvers.make_bot(competitor.bot, game, seat, bot_seeds[seat], **params[seat])
          for seat, competitor in enumerate(matchup.seats)]
  state = play_match(game, bots, np.random.default_rng(chance_seed))
  scores, puddings = [int(s) for s in state.scores()], state.puddings()
  rounds = state.round_records()
  record = {
      "index": index,
      "seed": {"entropy": config.seed, "spawn_key": [index]},
      "game": matchup.game,
      "seats": [competitor.name for competitor in matchup.seats],
      "bots": [{"bot": competitor.bot, "params": params[seat], "seed": bot_seeds[seat]}
               for seat, competitor in enumerate(matchup.seats)],
      "scores": scores,
      "returns": state.returns(),
      "rounds": [r.points for r in rounds],
      "breakdown": [r.breakdown for r in rounds],
      "puddings": puddings,
      "winners": scoring.winners(scores, puddings),
  }
  timing = {"index": index, "seconds": time.perf_counter() - start, "worker": _worker_name()}
  return record, timing


# ----- backends: each yields (record, timing) pairs as games finish, in any order


def _results(config: config_lib.Config, indices: list[int], workers: int, backend: str,
             address: str | None) -> Iterator[tuple[dict, dict]]:
  if backend == "ray":
    return _ray_results(_import_ray(), config, indices, workers, address)
  if backend != "local":
    raise RunError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
  if workers == 1:
    return (play_game(config, index) for index in indices)
  return _process_results(config, indices, workers)


def _process_results(config: config_lib.Config, indices: list[int],
                     workers: int) -> Iterator[tuple[dict, dict]]:
  methods = multiprocessing.get_all_start_methods()
  context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
  with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
    futures = [pool.submit(_play_chunk, config.text, chunk)
               for chunk in _chunks(indices, workers)]
    try:
      for future in concurrent.futures.as_completed(futures):
        yield from future.result()
    finally:
      for future in futures:
        future.cancel()


def _ray_results(ray, config: config_lib.Config, indices: list[int], workers: int,
                 address: str | None) -> Iterator[tuple[dict, dict]]:
  """Chunks of games as Ray tasks; an already initialised Ray is used as it is."""
  started_here = not ray.is_initialized()
  if started_here:
    if address:
      ray.init(address=address, log_to_driver=False)
    else:
      ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
  try:
    play_chunk = ray.remote(_play_chunk)
    text = ray.put(config.text)
    pending = [play_chunk.remote(text, chunk) for chunk in _chunks(indices, workers)]
    while pending:
      ready, pending = ray.wait(pending, num_returns=1)
      yield from ray.get(ready[0])
  finally:
    if started_here:
      ray.shutdown()


def _import_ray():
  try:
    import ray  # pylint: disable=import-outside-toplevel
  except ImportError:
    raise RunError('the ray backend needs Ray: pip install -e ".[ray]"') from None
  return ray


def _play_chunk(config_text: str, indices: list[int]) -> list[tuple[dict, dict]]:
  """A worker's task: games by index, the config parsed once per worker process."""
  config = _parsed_config(config_text)
  return [play_game(config, index) for index in indices]


@functools.cache
def _parsed_config(config_text: str) -> config_lib.Config:
  return config_lib.parse(config_text)


def _chunks(indices: list[int], workers: int) -> Iterator[list[int]]:
  size = max(1, min(_MAX_CHUNK, len(indices) // (workers * _TASKS_PER_WORKER)))
  for start in range(0, len(indices), size):
    yield indices[start:start + size]


def _worker_name() -> str:
  return f"{socket.gethostname()}:{os.getpid()}"


# ----- the run folder


def new_run_dir(name: str) -> pathlib.Path:
  stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
  run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}"
  suffix = 1
  while run_dir.exists():
    suffix += 1
    run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}-{suffix}"
  return run_dir


def _clear(run_dir: pathlib.Path) -> None:
  """Removes what a run writes, and nothing else."""
  for name in (CONFIG_FILE, RESOLVED_FILE, RECORDS_FILE, TIMINGS_FILE, PROVENANCE_FILE,
               *REPORT_FILES):
    (run_dir / name).unlink(missing_ok=True)
  shutil.rmtree(run_dir / PLOTS_DIR, ignore_errors=True)


def _stored_config(run_dir: pathlib.Path) -> config_lib.Config:
  """The config of a run folder, checked against the hash stored beside it."""
  resolved_path = run_dir / RESOLVED_FILE
  if not resolved_path.is_file():
    raise RunError(f"{run_dir}: not a run folder (no {RESOLVED_FILE})")
  config = config_lib.load(run_dir / CONFIG_FILE)
  stored_hash = _read_json(resolved_path).get("config_hash")
  if stored_hash != config.hash:
    raise RunError(f"{run_dir}: {CONFIG_FILE} does not match the hash in {RESOLVED_FILE}"
                   f" ({config.hash:.12} against {stored_hash!s:.12}); was it edited?")
  return config


def _records_by_index(run_dir: pathlib.Path) -> dict[int, dict]:
  path = run_dir / RECORDS_FILE
  records = {}
  for number, line in enumerate(complete_lines(path), 1):
    try:
      record = json.loads(line)
      records[record["index"]] = record
    except (ValueError, TypeError, KeyError):
      raise RunError(f"{path}, line {number}: not a game record; remove the line (the game is"
                     " then played again) or start over with --force") from None
  return records


def _mismatches(stored: dict[int, dict], replayed: dict[int, dict]) -> list[str]:
  lines = []
  for index in sorted(stored.keys() | replayed.keys()):
    if index not in stored:
      lines.append(f"game {index}: missing from the run folder")
    elif index not in replayed:
      lines.append(f"game {index}: recorded, but not a game of the config")
    elif stored[index] != replayed[index]:
      keys = sorted(k for k in stored[index].keys() | replayed[index].keys()
                    if stored[index].get(k) != replayed[index].get(k))
      lines.append(f"game {index}: {', '.join(keys)} differ")
  return lines


def complete_lines(path: pathlib.Path) -> list[str]:
  """The newline-terminated lines of `path`; a torn last line is cut from the file."""
  if not path.exists():
    return []
  data = path.read_bytes()
  complete = data[:data.rfind(b"\n") + 1]
  if len(complete) < len(data):
    with open(path, "r+b") as f:
      f.truncate(len(complete))
  return complete.decode("utf-8").splitlines()


def append_line(file, entry: dict, durable: bool) -> None:
  """Writes one JSON line; a `durable` one is on disk (fsync) before the next game is written."""
  file.write(json.dumps(entry) + "\n")
  file.flush()
  if durable:
    os.fsync(file.fileno())


def _sort_records(path: pathlib.Path) -> None:
  lines = complete_lines(path)
  lines.sort(key=lambda line: json.loads(line)["index"])
  write_atomically(path, "".join(line + "\n" for line in lines))


def write_atomically(path: pathlib.Path, text: str) -> None:
  temp = path.with_name(path.name + ".tmp")
  with open(temp, "w", encoding="utf-8") as f:
    f.write(text)
    f.flush()
    os.fsync(f.fileno())
  os.replace(temp, path)


def _read_json(path: pathlib.Path) -> dict:
  try:
    return json.loads(path.read_text(encoding="utf-8"))
  except (OSError, ValueError) as e:
    raise RunError(f"{path}: cannot read it: {e}") from None


# ----- provenance


class Session:
  """What one invocation did, for provenance.json."""

  def __init__(self, backend: str, workers: int, address: str | None, resumed: int):
    self.backend, self.workers, self.address = backend, workers, address
    self.resumed, self.played = resumed, 0
    self.started = datetime.datetime.now(datetime.UTC)
    self.clock = time.perf_counter()


def add_provenance(run_dir: pathlib.Path, config: config_lib.Config, session: Session) -> None:
  path = run_dir / PROVENANCE_FILE
  sessions = _read_json(path)["sessions"] if path.is_file() else []
  sessions.append({
      "started": session.started.isoformat(timespec="seconds"),
      "wall_seconds": round(time.perf_counter() - session.clock, 3),
      "games_played": session.played,
      "games_already_recorded": session.resumed,
      "backend": session.backend,
      "workers": session.workers,
      "address": session.address,
      "budget": {"kind": config.budget_kind, **config.budget},
      "package": {"name": "sushigo-spiel", "version": sushigo_spiel.__version__},
      "game": {"name": config_lib.GAME_NAME, "version": sushigo_spiel.__version__,
               "source_sha256": _source_hash(sushigo_spiel)},
      "source_sha256": {module.__name__: _source_hash(module)
                        for module in (solvers, experiments)},
      "git_commit": git_commit(),
      "libraries": _library_versions(session.backend),
      "platform": platform.platform(),
      "machine": platform.machine(),
      "cpu_count": os.cpu_count(),
  })
  write_atomically(path, json.dumps({"config_hash": config.hash, "sessions": sessions},
                                     indent=2) + "\n")


def _source_hash(module) -> str:
  """A fingerprint of a package's Python sources, which a git commit alone misses when edited."""
  digest = hashlib.sha256()
  root = pathlib.Path(module.__file__).parent
  for path in sorted(root.rglob("*.py")):
    digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
  return digest.hexdigest()


def _library_versions(backend: str) -> dict[str, str]:
  versions = {"python": platform.python_version()}
  for name in ("open_spiel", "numpy", "scipy") + (("ray",) if backend == "ray" else ()):
    try:
      versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
      versions[name] = "not installed"
  return versions

