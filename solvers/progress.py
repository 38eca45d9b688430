"""Progress bars, in one place: tqdm's bar when stderr is a terminal; anywhere else (a log file, a
pipe, CI) no line per update but one line every `INTERVAL` seconds and a one-line summary at the
end, so that a long run writes a few lines into a log rather than one per game or iteration."""

from __future__ import annotations

import sys
import time
from typing import TextIO

import tqdm

INTERVAL = 30.0  # seconds between two lines of a bar written to a file


def progress(total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0,
             disable: bool = False, smoothing: float = 0.3, file: TextIO | None = None,
             interval: float = INTERVAL):
  """A progress bar over `total` units (None: unknown) named `desc`, counting from `initial`:
  tqdm's on a terminal, else a `LogProgress`; nothing shown if `disable`. Both offer `update(n)`,
  `close()` and use as a context manager."""
  stream = sys.stderr if file is None else file
  if disable or _is_terminal(stream):
    return tqdm.tqdm(total=total, desc=desc, unit=unit, initial=initial, disable=disable,
                     smoothing=smoothing, file=stream)
  return LogProgress(total, desc, unit, initial, stream, interval)


def _is_terminal(stream: TextIO) -> bool:
  try:
    return stream.isatty()
  except (AttributeError, ValueError):  # no isatty, or a closed stream
    return False


class LogProgress:
  """Progress written as whole lines: one every `interval` seconds when updates come, and a
  summary (units done, time, rate) when closed."""

  def __init__(self, total: int | None, desc: str, unit: str, initial: int, stream: TextIO,
               interval: float = INTERVAL, clock=time.monotonic):
    self.total, self.desc, self.unit, self.stream = total, desc, unit, stream
    self.n = self.initial = initial
    self.interval, self.clock = interval, clock
    self.start = self.last = clock()
    self.closed = False

  def update(self, n: int = 1) -> None:
    self.n += n
    now = self.clock()
    if now - self.last >= self.interval:
      self.last = now
      self._write(self._line(now))

  def close(self) -> None:
    if self.closed:
      return
    self.closed = True
    now = self.clock()
    done = self.n - self.initial
    rate = f", {done / (now - self.start):,.1f} {self.unit}/s" if now > self.start and done else ""
    self._write(f"{self._prefix()}{self._count()} in {now - self.start:.0f} s{rate}")

  def _line(self, now: float) -> str:
    done = self.n - self.initial
    rate = f", {done / (now - self.start):,.1f} {self.unit}/s" if now > self.start else ""
    return f"{self._prefix()}{self._count()} after {now - self.start:.0f} s{rate}"

  def _prefix(self) -> str:
    return f"{self.desc}: " if self.desc else ""

  def _count(self) -> str:
    if self.total is None:
      return f"{self.n:,} {self.unit}"
    share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
    return f"{self.n:,}/{self.total:,} {self.unit}{share}"

  def _write(self, line: str) -> None:
    print(line, file=self.stream, flush=True)

  def __enter__(self) -> LogProgress:
    return self

  def __exit__(self, *exc) -> None:
    self.close()
