"""One writer per run folder: an advisory file lock, held for as long as a run writes the folder.

A run takes an exclusive `fcntl.flock` on `run.lock` inside the folder before it reads or changes
anything there, writes its process id and host into the file, and holds the lock until it ends; a
second writer is refused with the holder's process id, and a lock left by a killed run is taken
over with a one-line note. Readers (`sushigo report`, `sushigo reproduce`) take the lock shared,
without waiting: any number read at once, and none reads while a run writes. A training holds its
checkpoint file the same way (`writing_file`, through `.NAME.lock` beside it). The lock is
advisory: it keeps `sushigo` processes apart, not an editor or `rm`.

Why one writer, and how it is tested: docs/experiments.md, "Reliability".
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pathlib
import socket
import sys
import time
from collections.abc import Callable, Iterator

from experiments.run_folder import LOCK_FILE, RunError

_HOLDER_READS = 5  # tries to read the holder of a lock just taken, which may not have written yet
_HOLDER_WAIT = 0.05  # seconds between those tries


@contextlib.contextmanager
def writing(run_dir: pathlib.Path) -> Iterator[None]:
  """Holds `run_dir` (created if missing) for writing; RunError, naming the process that writes it,
  if another run holds it (or a report or reproduce is reading it)."""
  run_dir.mkdir(parents=True, exist_ok=True)
  with _holding(run_dir / LOCK_FILE, lambda holder: (
      f"{run_dir} is in use: " + (f"process {holder} is running in it" if holder else
                                  "a report or reproduce is reading it")
      + "; wait until it ends, or choose another --out")):
    yield


@contextlib.contextmanager
def writing_file(path: str | os.PathLike, option: str) -> Iterator[None]:
  """Holds the file `path` (a checkpoint that a training rewrites) for writing, through the lock
  file `.NAME.lock` beside it (the file itself is replaced at each save, so it cannot carry the
  lock), removed when released; RunError, naming the process that holds it, if another holds it.
  `option` names the command-line option of `path` in the message."""
  path = pathlib.Path(path)
  with _holding(path.with_name(f".{path.name}.lock"), lambda holder: (
      f"{path} ({option}) is being written by process {holder or '(unknown)'}; wait until it"
      f" ends, or choose another {option}"), remove=True):
    yield


@contextlib.contextmanager
def _holding(path: pathlib.Path, busy: Callable[[str], str],
             remove: bool = False) -> Iterator[None]:
  """Holds the lock file `path` exclusively, naming this process in it; RunError(busy(holder))
  if another process holds it. With `remove`, the lock file is removed on release (while still
  held), and a lock taken on a file that was removed meanwhile is taken again on the new one."""
  while True:
    lock = open(path, "a+", encoding="utf-8")  # pylint: disable=consider-using-with
    try:
      if not _try_lock(lock, fcntl.LOCK_EX):
        raise RunError(busy(_holder(lock)))
      if remove and not _same_file(lock, path):
        lock.close()  # its holder removed it on release: lock the file there now
        continue
    except BaseException:
      lock.close()
      raise
    break
  with lock:
    _announce_takeover(path, _holder(lock, tries=1))
    _write_holder(lock, f"{os.getpid()} on {socket.gethostname()}")
    try:
      yield
    finally:
      if remove:
        with contextlib.suppress(OSError):
          path.unlink()
      else:
        _write_holder(lock, "")


def _same_file(lock, path: pathlib.Path) -> bool:
  try:
    return os.path.samestat(os.fstat(lock.fileno()), os.stat(path))
  except OSError:
    return False


@contextlib.contextmanager
def reading(run_dir: pathlib.Path, verb: str) -> Iterator[None]:
  """Holds `run_dir` for reading (shared with other readers); RunError, naming the writer, while a
  run writes it. `verb` says what the reader does ("report", "reproduce") in the message. A folder
  without a lock file (an older run, or no run at all) is read as it is."""
  path = run_dir / LOCK_FILE
  try:
    lock = open(path, "r", encoding="utf-8")  # pylint: disable=consider-using-with
  except FileNotFoundError:
    yield
    return
  with lock:
    if not _try_lock(lock, fcntl.LOCK_SH):
      raise RunError(f"{run_dir} is being written by process {_holder(lock) or '(unknown)'}; {verb}"
                     " it once that run has ended, or stop that run first")
    try:
      yield
    finally:
      fcntl.flock(lock, fcntl.LOCK_UN)


def _try_lock(lock, kind: int) -> bool:
  try:
    fcntl.flock(lock, kind | fcntl.LOCK_NB)
  except BlockingIOError:
    return False
  return True


def _holder(lock, tries: int = _HOLDER_READS) -> str:
  """The process named in the lock file ("pid on host"), or "" if none is."""
  for attempt in range(tries):
    lock.seek(0)
    holder = lock.read().strip()
    if holder or attempt == tries - 1:
      return holder
    time.sleep(_HOLDER_WAIT)
  return ""


def _write_holder(lock, holder: str) -> None:
  lock.seek(0)
  lock.truncate()
  lock.write(holder + "\n" if holder else "")
  lock.flush()


def _announce_takeover(path: pathlib.Path, previous: str) -> None:
  """Says that the lock file named a process that does not hold it. That process ended without
  releasing it (it was killed), unless a live process on this host has its id now: then the
  entry is stale (the id reused, or the file copied or edited), and the note says so."""
  if not previous:
    return
  pid, _, host = previous.partition(" on ")
  alive = host == socket.gethostname() and pid.isdigit() and _running(int(pid))
  why = ("which does not hold it: the entry is stale (that process id now belongs to a running"
         " process, or the file was copied or edited)" if alive else
         "which ended without releasing it (it was killed)")
  print(f"Note: {path} named process {previous}, {why}; this run takes it over.", file=sys.stderr)


def _running(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True
  return True
