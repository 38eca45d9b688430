"""Stopping a run: once cleanly, twice at once, and never leaving worker processes behind.

While units run, SIGINT (Ctrl-C) and SIGTERM (a job scheduler, `timeout`, `kill`) are handled alike
(`on_stop_signals`): the first raises KeyboardInterrupt in the main thread, so the run stops its
workers, records its session in provenance.json and says how to resume; a second kills the workers
and exits at once with status 130, the records still whole (each an fsynced line; a torn last line
is cut by the next session). Workers ignore SIGINT, since only the parent decides what stops, and
each watches its parent (`watch_parent`, the pool's initializer): if the parent is killed, the
worker exits within `WATCH_SECONDS`, and the forkserver and resource tracker end with them.

How this is tested in real processes: docs/experiments.md, "Reliability" ("Signals").
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_STATUS = 130  # the shell's status of a process ended by SIGINT
WATCH_SECONDS = 0.5  # how often a worker checks that its parent is alive


RESUME_HINT = "Run the same command to resume."

_received: list[int] = []  # the stop signals received while `on_stop_signals` is in force
_installed: list[bool] = []  # whether it is (a nested use leaves the outer one in force)
_hint = [RESUME_HINT]  # what stopping at once tells the user: the innermost use's `resume_hint`


@contextlib.contextmanager
def on_stop_signals(resume_hint: str = RESUME_HINT) -> Iterator[None]:
  """While inside: the first SIGINT or SIGTERM raises KeyboardInterrupt; the next one, inside or
  after (while the process exits), kills this process's worker processes and exits at once,
  saying `resume_hint` (a run names its folder there). Nested uses count the signals as one, and
  the innermost hint is said. Outside the main thread, signals are left as they are (Python
  delivers them to the main thread only)."""
  outer_hint, _hint[0] = _hint[0], resume_hint
  try:
    if _installed or threading.current_thread() is not threading.main_thread():
      yield
      return
    _received.clear()
    previous = {signum: signal.signal(signum, _stop) for signum in STOP_SIGNALS}
    _installed.append(True)
    try:
      yield
    finally:
      _installed.clear()
      if not _received:  # once stopping, a further signal ends the process, even while it exits
        for signum, handler in previous.items():
          signal.signal(signum, handler)
  finally:
    if not _received:  # once stopping, the hint stays the innermost one's while the process exits
      _hint[0] = outer_hint


@contextlib.contextmanager
def deferred_stop(resume_hint: str = RESUME_HINT) -> Iterator[Callable[[], bool]]:
  """While inside: the first SIGINT or SIGTERM only sets a flag, which the callable yielded
  reports, so that work that cannot be cut anywhere (a training step, whose tables and counters
  must agree) stops at its next whole step and saves; the next signal stops at once, as
  `on_stop_signals` does, saying `resume_hint`. Outside the main thread, signals are left as they
  are and the callable stays False."""
  received: list[int] = []
  if threading.current_thread() is not threading.main_thread():
    yield lambda: False
    return
  outer_hint, _hint[0] = _hint[0], resume_hint

  def note(signum, frame) -> None:
    del frame
    received.append(signum)
    if len(received) > 1:
      stop_at_once()
  previous = {signum: signal.signal(signum, note) for signum in STOP_SIGNALS}
  try:
    yield lambda: bool(received)
  finally:
    for signum, handler in previous.items():
      signal.signal(signum, handler)
    _hint[0] = outer_hint


def _stop(signum, frame) -> None:
  del frame
  _received.append(signum)
  if len(_received) == 1:
    raise KeyboardInterrupt
  stop_at_once()


def stop_at_once() -> None:
  """Kills this process's worker processes and exits with `EXIT_STATUS`, skipping all clean-up."""
  kill_workers(multiprocessing.active_children())
  print(f"\nStopped at once. {_hint[0]}", file=sys.stderr, flush=True)
  os._exit(EXIT_STATUS)  # pylint: disable=protected-access


def kill_workers(workers) -> None:
  """Kills the given `multiprocessing` processes (SIGKILL) and waits for them to end."""
  for worker in workers:
    with contextlib.suppress(OSError, ValueError):
      worker.kill()
  for worker in workers:
    with contextlib.suppress(OSError, ValueError, AssertionError):
      worker.join(timeout=5)


# ----- in each worker


def parent_identity() -> tuple[int, str | None]:
  """This process's id and start time, for `watch_parent` in its workers."""
  return os.getpid(), _start_time(os.getpid())


def watch_parent(parent: tuple[int, str | None]) -> None:
  """A worker's initializer: ignores SIGINT, and exits when the parent process `parent` (from
  `parent_identity`) is gone."""
  signal.signal(signal.SIGINT, signal.SIG_IGN)
  threading.Thread(target=_watch, args=parent, name="parent-watch", daemon=True).start()


def _watch(pid: int, start: str | None) -> None:
  while _alive(pid, start):
    time.sleep(WATCH_SECONDS)
  os._exit(1)  # pylint: disable=protected-access


def _alive(pid: int, start: str | None) -> bool:
  """Whether process `pid`, started at `start`, still runs (not a zombie, not a new process that
  reuses its id)."""
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    pass
  stat = _stat_fields(pid)
  if stat is None:
    return start is None  # no /proc: os.kill is all there is
  state, started = stat[0], stat[19]
  return state not in "ZX" and started == start


def _start_time(pid: int) -> str | None:
  stat = _stat_fields(pid)
  return stat[19] if stat else None


def _stat_fields(pid: int) -> list[str] | None:
  """The fields of /proc/PID/stat after the command name (state first), or None without /proc."""
  try:
    text = pathlib.Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
  except OSError:
    return None
  return text.rsplit(")", 1)[1].split()
