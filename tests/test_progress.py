"""Progress bars: tqdm's on a terminal; into a file or pipe, a line every `INTERVAL` seconds and a
one-line summary, never a line per update."""

from __future__ import annotations

import io

import tqdm

from solvers import progress


class _Clock:
  def __init__(self):
    self.now = 0.0

  def __call__(self) -> float:
    return self.now


class _Terminal(io.StringIO):
  def isatty(self) -> bool:
    return True


def test_into_a_file_a_line_every_interval_and_a_summary():
  out, clock = io.StringIO(), _Clock()
  bar = progress.LogProgress(total=1000, desc="quickstart", unit="game", initial=0, stream=out,
                             interval=30.0, clock=clock)
  with bar:
    for _ in range(1000):
      clock.now += 0.1  # 100 s in all: lines at 30, 60 and 90 s
      bar.update()
  lines = out.getvalue().splitlines()
  assert len(lines) == 4
  assert lines[0] == "quickstart: 300/1,000 game (30%) after 30 s, 10.0 game/s"
  assert lines[-1] == "quickstart: 1,000/1,000 game (100%) in 100 s, 10.0 game/s"


def test_the_factory_writes_no_line_per_update_off_a_terminal():
  out = io.StringIO()
  with progress.progress(total=5000, desc="run", unit="it", file=out) as bar:
    for _ in range(5000):
      bar.update()
  assert isinstance(bar, progress.LogProgress)
  assert out.getvalue().count("\n") == 1 and "\r" not in out.getvalue()
  assert out.getvalue().startswith("run: 5,000/5,000 it (100%) in ")


def test_on_a_terminal_it_is_tqdm_and_disabled_writes_nothing():
  terminal = _Terminal()
  with progress.progress(total=3, desc="run", file=terminal) as bar:
    bar.update(3)
  assert isinstance(bar, tqdm.tqdm) and "3/3" in terminal.getvalue()
  quiet = io.StringIO()
  with progress.progress(total=3, file=quiet, disable=True) as bar:
    bar.update(3)
  assert quiet.getvalue() == ""


def test_resumed_runs_count_from_where_they_were_and_rates_count_this_session():
  out, clock = io.StringIO(), _Clock()
  with progress.LogProgress(total=100, desc="", unit="game", initial=60, stream=out,
                            clock=clock) as bar:
    clock.now = 4.0
    bar.update(40)
  assert out.getvalue() == "100/100 game (100%) in 4 s, 10.0 game/s\n"
