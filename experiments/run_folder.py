"""The run folder of an experiment: its files, written so that a run survives being stopped.

A run folder holds everything needed to read, check and redo a run, whatever its kind: the config
as written and resolved (with `config_hash` and the `input_files` digests), one line per unit of
work in records.jsonl or results.jsonl, timings.jsonl, provenance.json, the report, manifest.json
and run.lock. Each finished unit is one line, flushed and fsynced before the next; whole files are
replaced atomically; a writer cuts a torn last line before it appends and readers skip it, so a
session stopped at any point leaves a folder the next resumes. Refused, naming the line or file: a
result line that is not a unit of the config or repeats one, a folder holding another config's run
(unless `force`, which removes only the files in the run's manifest), and a resume whose input
files changed. A run from before digests has its files' digests recorded on resume, and
`sushigo reproduce` names the files it could not check.

Each file and each guarantee: docs/experiments.md, "Run folders" and "Reliability".
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import glob
import hashlib
import importlib.metadata
import io
import json
import os
import pathlib
import platform
import re
import secrets
import time
from collections.abc import Callable, Container, Sequence
from typing import Any, Protocol, TypeVar

import experiments
import solvers
import sushigo_spiel
from experiments.config import GAME_NAME
from solvers import archives
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
REPORT_HTML = "report.html"  # written by `sushigo report --html` only, then listed
PLOTS_DIR = "plots"
MANIFEST_FILE = "manifest.json"
LOCK_FILE = "run.lock"
INPUTS = "input_files"  # the key of resolved_config.json holding the input files' digests
RUNS_DIR = "runs"

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


# The results of the two families of experiments: a tournament's games, a solving experiment's
# units.
GAME_RECORDS = ResultsFile(RECORDS_FILE, key="index", noun="game", kept="recorded",
                           again="played again")
UNIT_RESULTS = ResultsFile(RESULTS_FILE, key="unit", noun="unit", kept="done", again="run again")


def new_run_dir(name: str) -> pathlib.Path:
  """A new folder `runs/<name>-<timestamp>` (with a suffix if that exists)."""
  stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
  run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}"
  suffix = 1
  while run_dir.exists():
    suffix += 1
    run_dir = pathlib.Path(RUNS_DIR) / f"{name}-{stamp}-{suffix}"
  return run_dir


def check_destination(run_dir: pathlib.Path, config: RunConfig, force: bool) -> None:
  """Refuses a folder that a run of `config` may not use, before anything is written there: one
  holding a run of another config (unless `force`), or files but no run."""
  if run_dir.exists() and not run_dir.is_dir():
    raise RunError(f"{run_dir} is a file, not a folder; choose a folder for --out")
  if not run_dir.is_dir():
    return
  if (run_dir / PLOTS_DIR).is_symlink():
    raise RunError(f"{run_dir / PLOTS_DIR} is a symbolic link: a run writes (and --force removes)"
                   " its plots inside its folder only; remove the link, or choose another --out")
  resolved_path = run_dir / RESOLVED_FILE
  if force:
    run_files(run_dir)
  elif resolved_path.is_file():
    stored = read_json(resolved_path)
    stored_hash = stored.get("config_hash")
    if stored_hash != config.hash:
      raise RunError(f"{run_dir} holds a run of a different config (hash {stored_hash!s:.12} there,"
                     f" {config.hash:.12} now); use --force to start it over, or another --out")
    check_inputs(resolved_path, stored, input_digests(config),
                 "use --force to start the run over, or another --out")
    read_provenance(run_dir)  # before any game is played: a session is appended to it at the end
  elif not _preparation_cut_short(run_dir):
    raise RunError(f"{run_dir} is not empty and holds no run (no {RESOLVED_FILE}); choose a new"
                   " or empty folder")


def _preparation_cut_short(run_dir: pathlib.Path) -> bool:
  """Whether the folder holds only what `prepare` writes before `RESOLVED_FILE` (nothing at all
  included), the manifest first, so a config.toml without it is someone else's."""
  names = {path.name for path in _user_files(run_dir)}
  return all(_preparation_file(name) for name in names) and (
      MANIFEST_FILE in names or CONFIG_FILE not in names)


def _preparation_file(name: str) -> bool:
  """Whether `name` is one `prepare` writes before `RESOLVED_FILE` (or a temporary file of one,
  `write_file_atomically`'s): a folder holding only these is a preparation cut short (a kill),
  which the next run prepares again."""
  return _PREPARATION.fullmatch(name) is not None


_PREPARATION = re.compile(rf"({re.escape(MANIFEST_FILE)}|{re.escape(CONFIG_FILE)}|"
                          rf"{re.escape(RESOLVED_FILE)})(\.[0-9]+\.[0-9a-f]{{8}}\.tmp)?")


def prepare(run_dir: pathlib.Path, config: RunConfig, force: bool = False,
            files: Sequence[str] = ()) -> None:
  """Makes `run_dir` ready for `config`: new, empty, or holding a run of the same config (or, with
  `force`, any run, whose files are removed). `files` are the files the run will write besides
  the config files, listed in the manifest before any is written."""
  check_destination(run_dir, config, force)
  if force:
    _remove(run_dir, run_files(run_dir))
  run_dir.mkdir(parents=True, exist_ok=True)
  if not (run_dir / RESOLVED_FILE).is_file():  # the temporary files of a preparation cut short
    for path in run_dir.iterdir():
      if path.name.endswith(".tmp") and _preparation_file(path.name):
        path.unlink()
  listed = [CONFIG_FILE, RESOLVED_FILE, MANIFEST_FILE, LOCK_FILE, *files]
  write_atomically(run_dir / MANIFEST_FILE, json.dumps(
      {"files": sorted(set(listed) | set(_manifest(run_dir) or ()))}, indent=2) + "\n")
  write_atomically(run_dir / CONFIG_FILE, config.text)
  inputs = input_digests(config)
  write_atomically(run_dir / RESOLVED_FILE, json.dumps(
      {**config.resolved(), **({INPUTS: inputs} if inputs else {})}, indent=2) + "\n")


def input_paths(config: RunConfig) -> list[str]:
  """The files the config names as a bot's (or any table's) `path`, in order, each once. A value
  that names no file (a bot's own sentinel; a missing file, which the bot refuses) is left out."""
  paths: list[str] = []

  def walk(value: Any) -> None:
    if isinstance(value, dict):
      for key, item in value.items():
        if key == "path" and isinstance(item, str) and os.path.isfile(item) and \
            item not in paths:
          paths.append(item)
        else:
          walk(item)
    elif isinstance(value, list):
      for item in value:
        walk(item)
  resolved = config.resolved()
  walk(resolved)
  for path in _stored_blueprints(resolved):
    if path not in paths:
      paths.append(path)
  return paths


def _stored_blueprints(resolved: dict) -> list[str]:
  """The stored blueprints the config's `subgame` players read through `path="auto"` (their
  default) in its games: the file depends on the game's player count and the bot's objective."""
  players = [p for p in resolved.get("players", [])
             if p.get("bot") == "subgame" and p.get("params", {}).get("path", "auto") == "auto"]
  if not players:
    return []
  import pyspiel  # pylint: disable=C0415 (only configs with a subgame bot need it)
  from solvers.bot import resolve_objective  # pylint: disable=C0415
  from solvers.equilibrium.subgame import default_blueprint  # pylint: disable=C0415
  paths = []
  for game_string in resolved.get("experiment", {}).get("games", []):
    try:
      game = pyspiel.load_game(game_string)
      utility = game.get_parameters().get("utility", "score")
      for player in players:
        objective = resolve_objective(player.get("params", {}).get("objective", "auto"), utility)
        paths.append(default_blueprint(game.num_players(), objective))
    except (ValueError, pyspiel.SpielError):
      continue  # a game or an objective the bot refuses, in its own words, when it is built
  # Relative to the working folder where the file lies under it, as configs write paths, so that
  # the digests' keys are the same in every clone.
  return [os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
          for path in paths if os.path.isfile(path)]


def input_digests(config: RunConfig) -> dict[str, str]:
  """The content digest (`solvers.archives`) of every input file of the config, by its path as
  the config writes it; RunError naming a file that is missing or no valid file."""
  digests = {}
  for path in input_paths(config):
    try:
      digests[path] = archives.load(path, "policy file").digest
    except ValueError as e:
      raise RunError(f"the config's input {e}") from None
  return digests


def check_inputs(resolved_path: pathlib.Path, stored: dict, current: dict[str, str],
                 remedy: str) -> None:
  """Refuses (RunError) input files whose digests differ from those recorded in `stored` (the
  run's resolved config, read from `resolved_path`), naming the file and both digests; a run
  that recorded none (begun before digests were recorded) is not checked."""
  recorded = stored.get(INPUTS)
  if recorded is None:
    return
  if not isinstance(recorded, dict):
    raise RunError(f"{resolved_path}: {INPUTS} is not a table of paths and digests; was it edited?")
  for path, digest in current.items():
    if recorded.get(path) != digest:
      raise RunError(f"{path} is not the file this run used: its content digest is {digest} now,"
                     f" {recorded.get(path)} in {resolved_path}; results of the two would mix."
                     f" Restore that file, or {remedy}")


def run_files(run_dir: pathlib.Path) -> list[str]:
  """The files the run in `run_dir` wrote, from its manifest; RunError if the folder holds files
  but no manifest, since nothing then tells the run's files from others."""
  listed = _manifest(run_dir)
  if listed is not None:
    return listed
  if (run_dir / RESOLVED_FILE).is_file():
    raise RunError(f"{run_dir} holds a run written before runs listed their files"
                   f" ({MANIFEST_FILE}), so --force cannot tell its files from others; remove them"
                   " yourself, or choose another --out")
  if _user_files(run_dir):
    raise RunError(f"{run_dir} holds no run (no {MANIFEST_FILE}); --force removes only a run's"
                   " own files, so it refuses a folder of other files: choose a new or empty"
                   " folder")
  return []


def list_in_manifest(run_dir: pathlib.Path, name: str) -> None:
  """Adds file `name`, written after the run by a report, to the run's manifest (if it has one),
  so that --force removes it with the run's other files."""
  listed = _manifest(run_dir)
  if listed is not None and name not in listed:
    write_atomically(run_dir / MANIFEST_FILE,
                     json.dumps({"files": sorted({*listed, name})}, indent=2) + "\n")


def _manifest(run_dir: pathlib.Path) -> list[str] | None:
  path = run_dir / MANIFEST_FILE
  if not path.is_file():
    return None
  files = read_json(path).get("files")
  if not isinstance(files, list) or not all(_inside(f) for f in files):
    raise RunError(f"{path}: expected {{\"files\": [names inside the folder]}}; was it edited?")
  foreign = [name for name in files if not _run_file_name(name)]
  if foreign:
    raise RunError(f"{path} lists {', '.join(map(repr, foreign[:3]))}, which no run writes (a"
                   f" run writes {', '.join(_RUN_FILES)} and {PLOTS_DIR}/*.png); was it edited?"
                   " --force removes only a run's own files: remove the folder yourself, or"
                   " choose another --out")
  return files


_RUN_FILES = (CONFIG_FILE, RESOLVED_FILE, RECORDS_FILE, RESULTS_FILE, TIMINGS_FILE, PROVENANCE_FILE,
              SUMMARY_MD, SUMMARY_CSV, RESULTS_CSV, REPORT_HTML, MANIFEST_FILE, LOCK_FILE)


def _run_file_name(name: str) -> bool:
  """Whether `name` is one a run writes: its files, or a plot in its plots folder."""
  parts = pathlib.PurePath(name).parts
  return name in _RUN_FILES or (len(parts) == 2 and parts[0] == PLOTS_DIR
                                and parts[1].endswith(".png"))


def _inside(name: Any) -> bool:
  """Whether `name` is a relative path that stays inside the folder."""
  return isinstance(name, str) and bool(name) and not pathlib.PurePath(name).is_absolute() \
      and ".." not in pathlib.PurePath(name).parts


def _user_files(run_dir: pathlib.Path) -> list[pathlib.Path]:
  """What the folder holds besides a lock file (which a refused run may have left)."""
  return [path for path in run_dir.iterdir() if path.name != LOCK_FILE]


def _remove(run_dir: pathlib.Path, names: Sequence[str]) -> None:
  """Removes the listed files of a run (not its lock, held by the caller) with any temporary file
  of theirs left by a stopped write, then any folder of them left empty."""
  for name in names:
    if name != LOCK_FILE:
      path = run_dir / name
      if not _through_folders(run_dir, path):
        continue  # a symbolic link on the way out of the folder: nothing there is the run's
      for temp in path.parent.glob(f"{glob.escape(path.name)}.*.tmp"):
        _remove_regular(temp)
      _remove_regular(path)
  for folder in sorted({(run_dir / name).parent for name in names}, reverse=True):
    if folder != run_dir and _through_folders(run_dir, folder) and folder.is_dir() and \
        not any(folder.iterdir()):
      folder.rmdir()


def _through_folders(run_dir: pathlib.Path, path: pathlib.Path) -> bool:
  """Whether every folder between `run_dir` and `path` (`path` too, if it is a folder) is a real
  folder, not a symbolic link, which could lead outside the run folder."""
  for folder in [path, *path.parents]:
    if folder == run_dir:
      return True
    if folder != path and folder.is_symlink():
      return False
    if folder == path and folder.is_symlink() and folder.is_dir():
      return False
  return False


def _remove_regular(path: pathlib.Path) -> None:
  """Removes `path` if it is a regular file or a symbolic link (the link, never its target)."""
  if path.is_symlink() or path.is_file():
    path.unlink(missing_ok=True)


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


def read_results(run_dir: pathlib.Path, results: ResultsFile, total: int,
                 check: Callable[[int, dict], str | None] | None = None) -> dict[int, dict]:
  """The complete result lines of a run folder by their key, which must be a unit of the config
  (0 to `total` - 1) recorded once and, with `check`, what the config makes of that unit (`check`
  returns what is wrong with an entry, or None); RunError naming the line otherwise. A torn last
  line is skipped."""
  path = run_dir / results.name
  entries, line_of = {}, {}
  for number, line in enumerate(complete_lines(path), 1):
    where = f"{path}, line {number}"
    entry, key = _keyed_entry(line, results, where)
    if not 0 <= key < total:
      raise RunError(f"{where}: {results.noun} {key} is not one of the config's {total}"
                     f" {results.noun}s (0 to {total - 1}); remove the line, or start over with"
                     " --force")
    problem = check(key, entry) if check is not None else None
    if problem:
      raise RunError(f"{where}: {problem}; remove the line (the {results.noun} is then"
                     f" {results.again}), or start over with --force")
    if key in entries:
      raise RunError(f"{where}: {results.noun} {key} is recorded twice (also on line"
                     f" {line_of[key]}); remove one of the two lines (`sushigo reproduce` then"
                     " checks the one kept), or start over with --force")
    entries[key], line_of[key] = entry, number
  return entries


def _keyed_entry(line: str, results: ResultsFile, where: str) -> tuple[dict, int]:
  """The result of a line and its key, an integer; RunError if the line is not a result."""
  try:
    entry = json.loads(line)
    key = entry[results.key]
  except (ValueError, TypeError, KeyError):
    key = None
  if isinstance(key, bool) or not isinstance(key, int):
    raise RunError(f"{where}: not a {results.noun} record; remove the line (the {results.noun} is"
                   f" then {results.again}) or start over with --force")
  return entry, key


def sort_results(run_dir: pathlib.Path, results: ResultsFile) -> None:
  """Rewrites the results in the order of their key, whatever order they finished in."""
  path = run_dir / results.name
  lines = complete_lines(path)
  lines.sort(key=lambda line: json.loads(line)[results.key])
  write_atomically(path, "".join(line + "\n" for line in lines))


def keep_timings_of(run_dir: pathlib.Path, results: ResultsFile, done: Container[int]) -> None:
  """Keeps one timing line per unit done: a session stopped between a unit's timing line and its
  result line left a timing of a unit that is run again."""
  path = run_dir / TIMINGS_FILE
  lines, kept, seen = complete_lines(path), [], set()
  for line in lines:
    try:
      key = json.loads(line).get(results.key)
    except (ValueError, AttributeError):
      continue
    if key in done and key not in seen:
      seen.add(key)
      kept.append(line)
  if kept != lines or not _ends_complete(path):
    write_atomically(path, "".join(line + "\n" for line in kept))


def complete_lines(path: pathlib.Path) -> list[str]:
  """The newline-terminated lines of `path` (a torn last line is left out, and left in place)."""
  if not path.exists():
    return []
  data = path.read_bytes()
  lines = data[:data.rfind(b"\n") + 1].split(b"\n")[:-1]
  try:
    return [line.decode("utf-8") for line in lines]
  except UnicodeDecodeError:
    number = next(n for n, line in enumerate(lines, 1) if not _is_utf8(line))
    raise RunError(f"{path}, line {number}: not UTF-8 text; remove the line (what it recorded is"
                   " then done again), or start over with --force") from None


def _is_utf8(data: bytes) -> bool:
  try:
    data.decode("utf-8")
  except UnicodeDecodeError:
    return False
  return True


def cut_torn_line(path: pathlib.Path) -> None:
  """Cuts a torn last line off `path`, so that the lines a writer appends start clean."""
  if not _ends_complete(path):
    data = path.read_bytes()
    with open(path, "r+b") as f:
      f.truncate(data.rfind(b"\n") + 1)


def _ends_complete(path: pathlib.Path) -> bool:
  if not path.exists() or path.stat().st_size == 0:
    return True
  with open(path, "rb") as f:
    f.seek(-1, os.SEEK_END)
    return f.read(1) == b"\n"


def open_for_appending(path: pathlib.Path):
  """`path` opened to append lines, unbuffered: a line is written by `append_line` or not at all
  buffered, so that closing the file after a failed write (a full disk) cannot fail again."""
  return open(path, "ab", buffering=0)  # pylint: disable=consider-using-with


def append_line(file, entry: dict, durable: bool) -> None:
  """Writes one JSON line to a file from `open_for_appending`; a `durable` one is on disk (fsync)
  before the next is written."""
  data = memoryview((json.dumps(entry) + "\n").encode("utf-8"))
  while data:
    data = data[file.write(data):]
  if durable:
    os.fsync(file.fileno())


def write_atomically(path: pathlib.Path, text: str) -> None:
  """Replaces `path` with `text` (UTF-8) in one step: a reader sees the old file or the new, never
  part (`write_file_atomically`)."""
  data = text.encode("utf-8")
  write_file_atomically(path, lambda file: file.write(data))


def write_file_atomically(path: pathlib.Path, write: Callable[[Any], Any]) -> None:
  """Replaces `path` in one step with what `write` writes to the binary file it is given: a
  reader sees the old file or the new, never part. It goes to a temporary file of its own beside
  it first (so that concurrent writers do not mix), synced to the disk, and is removed if
  anything fails, such as a full disk; an OSError then names `path`."""
  temp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
  try:
    with open(temp, "xb") as f:
      write(f)
      f.flush()
      os.fsync(f.fileno())
    os.replace(temp, path)
  except BaseException as e:
    temp.unlink(missing_ok=True)
    if isinstance(e, OSError):
      raise OSError(e.errno, e.strerror, str(path)) from None
    raise


def save_figure(fig, path: pathlib.Path, dpi: int) -> None:
  """Saves the matplotlib figure `fig` to `path` atomically (`write_file_atomically`), in the
  format its suffix names."""
  write_file_atomically(path, lambda file: fig.savefig(file, dpi=dpi,
                                                       format=path.suffix.lstrip(".")))


def csv_text(rows, lineterminator: str = "\r\n") -> str:
  """`rows` as the text `csv.writer` writes, for `write_atomically`."""
  buffer = io.StringIO(newline="")
  csv.writer(buffer, lineterminator=lineterminator).writerows(rows)
  return buffer.getvalue()


def read_json(path: pathlib.Path) -> dict:
  """The JSON object in `path`; RunError naming the file if it cannot be read or holds no object
  (invalid UTF-8 or JSON included)."""
  try:
    data = json.loads(path.read_text(encoding="utf-8"))
  except (OSError, ValueError) as e:
    raise RunError(f"{path}: cannot read it: {e}") from None
  if not isinstance(data, dict):
    raise RunError(f"{path}: cannot read it: it holds a JSON {type(data).__name__}, not an object")
  return data


# ----- provenance


@dataclasses.dataclass
class Session:
  """What one invocation did, for provenance.json: where it ran, the per-move budget its bots
  were given (none for solving units), how many units it found done and ran, and the code it
  ran, taken when it started (the sources may be edited while a long run goes on)."""
  backend: str
  workers: int
  address: str | None
  budget: dict[str, int | float]
  resumed: int = 0
  played: int = 0
  started: datetime.datetime = dataclasses.field(
      default_factory=lambda: datetime.datetime.now(datetime.UTC))
  clock: float = dataclasses.field(default_factory=time.perf_counter)
  code: dict = dataclasses.field(default_factory=lambda: _code_fingerprint())


def read_provenance(run_dir: pathlib.Path) -> list[dict]:
  """The sessions recorded in the folder's provenance.json (none if it has none); RunError naming
  the file if it cannot be read or is not `{"config_hash": ..., "sessions": [...]}`."""
  path = run_dir / PROVENANCE_FILE
  if not path.is_file():
    return []
  remedy = ("the records are intact: restore the file, or remove it (the sessions it held are"
            " then lost), and run again")
  try:
    sessions = read_json(path).get("sessions")
  except RunError as e:
    raise RunError(f"{e}; {remedy}") from None
  if not isinstance(sessions, list) or not all(isinstance(s, dict) for s in sessions):
    raise RunError(f"{path}: expected {{\"config_hash\": ..., \"sessions\": [...]}}; was it"
                   f" edited? {remedy[0].upper()}{remedy[1:]}")
  return sessions


def add_provenance(run_dir: pathlib.Path, config: RunConfig, session: Session) -> None:
  """Appends the session to provenance.json, with what the code and the machine were."""
  path = run_dir / PROVENANCE_FILE
  sessions = read_provenance(run_dir)
  sessions.append({
      "started": session.started.isoformat(timespec="seconds"),
      "wall_seconds": round(time.perf_counter() - session.clock, 3),
      "games_played": session.played,
      "games_already_recorded": session.resumed,
      "backend": session.backend,
      "workers": session.workers,
      "address": session.address,
      "budget": {"kind": next(iter(session.budget), "none"), **session.budget},
      INPUTS: read_json(run_dir / RESOLVED_FILE).get(INPUTS, {})
              if (run_dir / RESOLVED_FILE).is_file() else {},
      **session.code,
      "libraries": _library_versions(session.backend),
      "platform": platform.platform(),
      "machine": platform.machine(),
      "cpu_count": os.cpu_count(),
  })
  write_atomically(path, json.dumps({"config_hash": config.hash, "sessions": sessions},
                                     indent=2) + "\n")


def _code_fingerprint() -> dict:
  """The package's version, the sources' fingerprints and the git commit, as they are now."""
  return {
      "package": {"name": "sushigo-spiel", "version": package_version()},
      "game": {"name": GAME_NAME, "version": sushigo_spiel.__version__,
               "source_sha256": _source_hash(sushigo_spiel)},
      "source_sha256": {module.__name__: _source_hash(module)
                        for module in (solvers, experiments)},
      "git_commit": git_commit(),
  }


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
