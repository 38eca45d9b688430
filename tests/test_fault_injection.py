"""Fault injection on real runs: signals, SIGKILL, two writers at once, Ray under --quiet.

Each test starts `sushigo run ... --workers 2` as a process of its own, injects the fault while
games are being played, and checks what a user on a shared machine relies on: the command ends
(with status 130 for a signal), no process of the run is left (the workers, the forkserver and
multiprocessing's resource tracker), and the same command then resumes the folder to records
identical to those of an uninterrupted run. Marked slow (a few seconds each): CI runs them in a
step of their own (`pytest -m slow`).
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from experiments import run_folder
from experiments import runner
from experiments.cli import main
from support import tournament_config

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not pathlib.Path("/proc").is_dir(), reason="finds processes in /proc"),
]

ROOT = pathlib.Path(__file__).resolve().parents[1]
GAMES = 300
CONFIG = tournament_config("faults", 11, "python_sushi_go(players=2,rounds=1)", GAMES)
EXIT_SECONDS = 20  # the most a signalled run may take to end
ORPHAN_SECONDS = 10  # the most its processes may outlive it


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> pathlib.Path:
  path = tmp_path_factory.mktemp("config") / "faults.toml"
  path.write_text(CONFIG, encoding="utf-8")
  return path


@pytest.fixture(scope="module")
def reference(config_path, tmp_path_factory) -> bytes:
  """The records of an uninterrupted single-process run."""
  run_dir = runner.run(config_path, out=tmp_path_factory.mktemp("reference") / "run", quiet=True)
  return (run_dir / run_folder.RECORDS_FILE).read_bytes()


def start_run(config_path: pathlib.Path, run_dir: pathlib.Path, *options: str) -> subprocess.Popen:
  """`sushigo run CONFIG --out RUN_DIR --workers 2 --quiet`, in a session of its own (so that a
  signal to its process group reaches only it, as Ctrl-C at a terminal does)."""
  return subprocess.Popen(
      [sys.executable, "-m", "experiments.cli", "run", str(config_path), "--out", str(run_dir),
       "--workers", "2", "--quiet", *options],
      cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
      stderr=subprocess.PIPE, text=True, start_new_session=True)


def record_count(run_dir: pathlib.Path) -> int:
  path = run_dir / run_folder.RECORDS_FILE
  return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_for_games(process: subprocess.Popen, run_dir: pathlib.Path, count: int = 20) -> None:
  deadline = time.monotonic() + 120
  while record_count(run_dir) < count:
    assert process.poll() is None, f"the run ended early: {process.stderr.read()}"
    assert time.monotonic() < deadline, "the run played no games"
    time.sleep(0.02)


def descendants(pid: int) -> list[int]:
  """Every process below `pid` (its children, theirs, ...), from /proc."""
  children = collections.defaultdict(list)
  for entry in pathlib.Path("/proc").iterdir():
    if entry.name.isdigit():
      try:
        parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
      except (OSError, IndexError, ValueError):
        continue
      children[parent].append(int(entry.name))
  found, todo = [], list(children[pid])
  while todo:
    child = todo.pop()
    found.append(child)
    todo.extend(children[child])
  return found


def running(pid: int) -> bool:
  """Whether `pid` still runs (a zombie no one has reaped has ended)."""
  try:
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
  except FileNotFoundError:
    return False
  return stat.rsplit(")", 1)[1].split()[0] not in "ZX"


def left_running(pids: list[int]) -> list[int]:
  """The processes of `pids` still running after up to `ORPHAN_SECONDS`."""
  deadline = time.monotonic() + ORPHAN_SECONDS
  while any(map(running, pids)) and time.monotonic() < deadline:
    time.sleep(0.1)
  return [pid for pid in pids if running(pid)]


def send(process: subprocess.Popen, fault: str) -> None:
  """Ctrl-C reaches the whole process group; a scheduler's SIGTERM and a SIGKILL the run only."""
  if fault.startswith("SIGINT"):
    os.killpg(process.pid, signal.SIGINT)
    if fault.startswith("SIGINT twice"):
      # "at once": in practice before the clean stop has said anything, so it stops at once
      time.sleep(0.3 if fault == "SIGINT twice" else 0.02)
      if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
  else:
    process.send_signal(getattr(signal, fault))


@pytest.mark.parametrize("fault", ["SIGINT", "SIGINT twice", "SIGINT twice at once", "SIGTERM",
                                   "SIGKILL"])
def test_a_signalled_run_leaves_no_process_and_resumes_to_identical_records(
    fault, config_path, reference, tmp_path, capsys):
  run_dir = tmp_path / "run"
  process = start_run(config_path, run_dir)
  wait_for_games(process, run_dir)
  processes = descendants(process.pid)
  assert len(processes) >= 3, "expected the workers, the forkserver and the resource tracker"
  started = time.monotonic()
  send(process, fault)
  _, err = process.communicate(timeout=EXIT_SECONDS)
  assert time.monotonic() - started < EXIT_SECONDS
  assert left_running(processes) == []
  if fault == "SIGKILL":
    assert process.returncode == -signal.SIGKILL
  else:
    # A second Ctrl-C may find the process already exiting, after Python has given SIGINT back
    # its default action: the shell then reports the same status, 130.
    assert process.returncode in ((130, -signal.SIGINT) if fault.startswith("SIGINT twice")
                                  else (130,))
    assert "Traceback" not in err
    # Stopped cleanly or at once, the run says which folder the same command resumes.
    assert "Stopped" in err and f"--out {run_dir}" in err
  assert record_count(run_dir) < GAMES, "the run was not interrupted mid-way"

  capsys.readouterr()
  assert main(["run", str(config_path), "--out", str(run_dir), "--quiet", "--workers", "2"]) == 0
  takeover = "ended without releasing it" in capsys.readouterr().err
  # Only a run killed, or stopped at once (skipping its clean-up), leaves its lock. A second
  # Ctrl-C that lands during the clean stop (after its "Stopped.") may come before or after the
  # lock's release, so there either is right.
  stopped_at_once = "Stopped at once" in err
  if fault == "SIGKILL" or (stopped_at_once and "\nStopped. " not in err):
    assert takeover
  elif not stopped_at_once:
    assert not takeover
  assert (run_dir / run_folder.RECORDS_FILE).read_bytes() == reference
  timings = (run_dir / run_folder.TIMINGS_FILE).read_text().splitlines()
  assert sorted(json.loads(line)["index"] for line in timings) == list(range(GAMES))


def test_a_second_writer_is_refused_while_the_first_runs(config_path, tmp_path):
  long_config = tmp_path / "long.toml"
  long_config.write_text(config_path.read_text().replace(f"num_games = {GAMES}",
                                                         "num_games = 100000"))
  run_dir = tmp_path / "run"
  first = start_run(long_config, run_dir)
  wait_for_games(first, run_dir, count=5)
  second = start_run(long_config, run_dir)
  _, err = second.communicate(timeout=60)
  assert second.returncode == 2 and "Traceback" not in err
  assert f"{run_dir} is in use: process {first.pid} on " in err
  assert first.poll() is None, "the first run did not go on"
  first.send_signal(signal.SIGTERM)
  assert first.wait(timeout=EXIT_SECONDS) == 130
  recorded = run_folder.read_results(run_dir, run_folder.GAME_RECORDS, 100000)
  assert len(recorded) == record_count(run_dir)  # each game once


def test_ray_prints_nothing_under_quiet(config_path, tmp_path):
  pytest.importorskip("ray")
  small = tmp_path / "small.toml"
  small.write_text(CONFIG.replace(f"num_games = {GAMES}", "num_games = 4"), encoding="utf-8")
  process = start_run(small, tmp_path / "run", "--backend", "ray")
  _, err = process.communicate(timeout=300)
  assert process.returncode == 0
  assert err == ""
