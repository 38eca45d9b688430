"""The run folder of an experiment: its files, written so that a run survives being stopped.

A run folder holds everything needed to read, check and redo a run, whatever its kind:

  config.toml            the config exactly as written
  resolved_config.json   the config with its defaults filled in, its size, and `config_hash`
  records.jsonl          one JSON line per unit of work, sorted by unit once the run is complete:
                           a tournament's games (`experiments.tournament`)
  results.jsonl          the same for a solving experiment's units (`experiments.solving`)
  timings.jsonl          the seconds of every unit: kept apart from the results, which must not
                           depend on where or how fast a unit ran
  provenance.json        one entry per session: versions, git commit, source hashes, machine,
                           backend, workers, budget, wall time
  summary.md, summary.csv (tournaments) or results.csv (solving), plots/
                         the report, rebuilt from the folder alone

Durable: each finished unit is one line, flushed and fsynced before the next is written (its timing
line is only flushed: timings do not decide what is done), and whole files are replaced atomically.
Reading keeps the complete lines and cuts a torn last line, so a session stopped at any point
leaves a folder the next session resumes (`experiments.execution`). A folder holding a run of a
different config (by hash) is refused unless `force`, which starts over.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import importlib.metadata
import json
import os
import pathlib
import platform
import shutil
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import experiments
import solvers
import sushigo_spiel
from experiments.config import GAME_NAME
from solvers.provenance import git_commit, package_version

CONFIG_FILE = "config.toml"
RESOLVED_FILE = "resolved_config.json"
RECORDS_FILE = "records.jsonl"
RESULTS_FILE = "results.jsonl"
TIMINGS_FILE = "timings.jsonl"
PROVENANCE_FILE = "provenance.json"
SUMMARY_MD = "summary.md"
SUMMARY_CSV = "summary.csv"
RESULTS_CSV = "results.csv"
PLOTS_DIR = "plots"
RUNS_DIR = "runs"
# Everything a run writes, which `force` removes (and nothing else).
RUN_FILES = (CONFIG_FILE, RESOLVED_FILE, RECORDS_FILE, RESULTS_FILE, TIMINGS_FILE,
             PROVENANCE_FILE, SUMMARY_MD, SUMMARY_CSV, RESULTS_CSV)

_Config = TypeVar("_Config", bound="RunConfig")


class RunError(RuntimeError):
  """A run that cannot start or go on; the message says why and what to do."""


class RunConfig(Protocol):
  """What a run folder needs of a checked config, of any kind."""
  name: str
  text: str  # the TOML exactly as written

  @property
  def hash(self) -> str: ...

  def resolved(self) -> dict[str, Any]: ...


@dataclasses.dataclass(frozen=True)
class ResultsFile:
  """The results of a kind of experiment: `name` holds one JSON line per `noun`, numbered by its
  `key` from 0; `kept` and `again` say, in messages, what a resumed run keeps and redoes."""
  name: str
  key: str
  noun: str
  kept: str
  again: str


def new_run_dir(name: str) -> pathlib.Path:
  """A new folder `runs/<name>-<timestamp>` (with a suffix if that exists)."""
  stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
  run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}"
  suffix = 1
  while run_dir.exists():
    suffix += 1
    run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}-{suffix}"
  return run_dir


def prepare(run_dir: pathlib.Path, config: RunConfig, force: bool) -> None:
  """Makes `run_dir` ready for `config`: new, or holding a run of the same config (or `force`)."""
  resolved_path = run_dir / RESOLVED_FILE
  if force:
    _clear(run_dir)
  elif resolved_path.is_file():
    stored_hash = read_json(resolved_path).get("config_hash")
    if stored_hash != config.hash:
      raise RunError(f"{run_dir} holds a run of a different config (hash {stored_hash!s:.12} there,"
                     f" {config.hash:.12} now); use --force to start it over, or another --out")
  elif run_dir.is_dir() and any(run_dir.iterdir()):
    raise RunError(f"{run_dir} is not empty and holds no run (no {RESOLVED_FILE}); choose a new"
                   " or empty folder, or use --force")
  run_dir.mkdir(parents=True, exist_ok=True)
  write_atomically(run_dir / CONFIG_FILE, config.text)
  write_atomically(resolved_path, json.dumps(config.resolved(), indent=2) + "\n")


def _clear(run_dir: pathlib.Path) -> None:
  for name in RUN_FILES:
    (run_dir / name).unlink(missing_ok=True)
  shutil.rmtree(run_dir / PLOTS_DIR, ignore_errors=True)


def stored_config(run_dir: pathlib.Path, load: Callable[[pathlib.Path], _Config]) -> _Config:
  """The config of a run folder, read with `load` and checked against the hash stored beside it."""
  resolved_path = run_dir / RESOLVED_FILE
  if not resolved_path.is_file():
    raise RunError(f"{run_dir}: not a run folder (no {RESOLVED_FILE})")
  config = load(run_dir / CONFIG_FILE)
  stored_hash = read_json(resolved_path).get("config_hash")
  if stored_hash != config.hash:
    raise RunError(f"{run_dir}: {CONFIG_FILE} does not match the hash in {RESOLVED_FILE}"
                   f" ({config.hash:.12} against {stored_hash!s:.12}); was it edited?")
  return config


def read_results(run_dir: pathlib.Path, results: ResultsFile) -> dict[int, dict]:
  """The complete result lines of a run folder by their key (a torn last line is cut)."""
  path = run_dir / results.name
  entries = {}
  for number, line in enumerate(complete_lines(path), 1):
    try:
      entry = json.loads(line)
      entries[entry[results.key]] = entry
    except (ValueError, TypeError, KeyError):
      raise RunError(f"{path}, line {number}: not a {results.noun} record; remove the line (the"
                     f" {results.noun} is then {results.again}) or start over with --force") \
          from None
  return entries


def sort_results(run_dir: pathlib.Path, results: ResultsFile) -> None:
  """Rewrites the results in the order of their key, whatever order they finished in."""
  path = run_dir / results.name
  lines = complete_lines(path)
  lines.sort(key=lambda line: json.loads(line)[results.key])
  write_atomically(path, "".join(line + "\n" for line in lines))


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
  """Writes one JSON line; a `durable` one is on disk (fsync) before the next is written."""
  file.write(json.dumps(entry) + "\n")
  file.flush()
  if durable:
    os.fsync(file.fileno())


def write_atomically(path: pathlib.Path, text: str) -> None:
  """Replaces `path` with `text` in one step: a reader sees the old file or the new, never part."""
  temp = path.with_name(path.name + ".tmp")
  with open(temp, "w", encoding="utf-8") as f:
    f.write(text)
    f.flush()
    os.fsync(f.fileno())
  os.replace(temp, path)


def read_json(path: pathlib.Path) -> dict:
  try:
    return json.loads(path.read_text(encoding="utf-8"))
  except (OSError, ValueError) as e:
    raise RunError(f"{path}: cannot read it: {e}") from None


# ----- provenance


@dataclasses.dataclass
class Session:
  """What one invocation did, for provenance.json: where it ran, the per-move budget its bots
  were given (none for solving units), and how many units it found done and ran."""
  backend: str
  workers: int
  address: str | None
  budget: dict[str, int | float]
  resumed: int = 0
  played: int = 0
  started: datetime.datetime = dataclasses.field(
      default_factory=lambda: datetime.datetime.now(datetime.UTC))
  clock: float = dataclasses.field(default_factory=time.perf_counter)


def add_provenance(run_dir: pathlib.Path, config: RunConfig, session: Session) -> None:
  """Appends the session to provenance.json, with what the code and the machine were."""
  path = run_dir / PROVENANCE_FILE
  sessions = read_json(path)["sessions"] if path.is_file() else []
  sessions.append({
      "started": session.started.isoformat(timespec="seconds"),
      "wall_seconds": round(time.perf_counter() - session.clock, 3),
      "games_played": session.played,
      "games_already_recorded": session.resumed,
      "backend": session.backend,
      "workers": session.workers,
      "address": session.address,
      "budget": {"kind": next(iter(session.budget), "none"), **session.budget},
      "package": {"name": "sushigo-spiel", "version": package_version()},
      "game": {"name": GAME_NAME, "version": sushigo_spiel.__version__,
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
