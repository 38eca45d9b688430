"""Training like a run: an existing --out is refused without --resume or --force, one training at a
time holds a checkpoint file, a checkpoint is saved every --checkpoint-seconds (kill -9 loses at
most that) and on Ctrl-C, and the same refusals for `python -m experiments.train_*`."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

from experiments import run_lock
from experiments import train_blueprint, train_full_policy
from experiments.cli import main
from solvers.equilibrium.blueprint_training import BlueprintTrainer

ROOT = pathlib.Path(__file__).resolve().parents[1]
BLUEPRINT = ["train", "tiny", "--algorithm", "es-mccfr", "--abstraction", "cards", "--quiet"]
TABULAR = ["train", "tiny", "--algorithm", "cfr+", "--iterations", "3", "--quiet"]


def error_of(capsys, *argv) -> str:
  with pytest.raises(SystemExit) as refused:
    main(list(argv))
  assert refused.value.code == 2
  return capsys.readouterr().err


@pytest.mark.parametrize("command", [BLUEPRINT + ["--iterations", "50"], TABULAR])
def test_an_existing_out_is_refused_without_resume_or_force(command, tmp_path, capsys):
  out = tmp_path / "p.npz"
  assert main([*command, "--out", str(out)]) == 0
  saved = out.read_bytes()
  err = error_of(capsys, *command, "--out", str(out))
  assert f"{out} (--out) exists; " in err and "pass --force to train afresh over it" in err
  assert out.read_bytes() == saved
  assert main([*command, "--out", str(out), "--force"]) == 0
  assert sorted(p.name for p in tmp_path.iterdir()) == ["p.npz"]  # no lock or temporary file


def test_resume_needs_an_existing_checkpoint_and_excludes_force(tmp_path, capsys):
  out = tmp_path / "b.npz"
  err = error_of(capsys, *BLUEPRINT, "--iterations", "50", "--out", str(out), "--resume")
  assert f"{out} (--out) does not exist: --resume continues the checkpoint" in err
  err = error_of(capsys, *BLUEPRINT, "--iterations", "50", "--out", str(out), "--resume",
                 "--force")
  assert "give one of them" in err


@pytest.mark.parametrize("command", [BLUEPRINT + ["--iterations", "50", "--resume"], TABULAR])
def test_a_second_trainer_on_one_file_is_refused(command, tmp_path, capsys):
  out = tmp_path / "b.npz"
  assert main([*BLUEPRINT, "--iterations", "50", "--out", str(out)]) == 0
  saved = out.read_bytes()
  with run_lock.writing_file(out, "--out"):  # as another training would hold it
    err = error_of(capsys, *command, "--out", str(out),
                   *([] if "--resume" in command else ["--force"]))
  assert f"{out} (--out) is being written by process {os.getpid()}" in err
  assert out.read_bytes() == saved


def test_the_module_trainers_refuse_an_existing_out(tmp_path, capsys):
  out = tmp_path / "b.npz"
  out.write_bytes(b"a file to keep")
  for module, argv in ((train_blueprint, ["--seconds", "1"]),
                       (train_full_policy, ["--iterations", "1"])):
    with pytest.raises(SystemExit) as refused:
      module.main([*argv, "--out", str(out)])
    assert refused.value.code == 2 and f"{out} exists; " in capsys.readouterr().err
  assert out.read_bytes() == b"a file to keep"
  with run_lock.writing_file(out, "--out"):
    with pytest.raises(SystemExit):
      train_blueprint.main(["--seconds", "1", "--out", str(out), "--resume"])
    assert "is being written by process" in capsys.readouterr().err


def _training(out: pathlib.Path, *extra: str) -> subprocess.Popen:
  return subprocess.Popen(
      [sys.executable, "-m", "experiments.cli", *BLUEPRINT[:-1], "--seconds", "120",
       "--checkpoint-seconds", "1", "--out", str(out), *extra],
      cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
      stderr=subprocess.PIPE, text=True)


def _wait_for_checkpoints(out: pathlib.Path, count: int, process: subprocess.Popen) -> None:
  """Waits until the file at `out` was written `count` times more (by its change of inode)."""
  deadline = time.monotonic() + 120
  seen = {out.stat().st_ino} if out.exists() else set()
  count += len(seen)
  while len(seen) < count:
    assert process.poll() is None and time.monotonic() < deadline, process.communicate()
    try:
      seen.add(out.stat().st_ino)
    except FileNotFoundError:
      pass
    time.sleep(0.05)


@pytest.mark.slow
def test_kill_9_loses_at_most_the_checkpoint_interval(tmp_path):
  out = tmp_path / "b.npz"
  process = _training(out)
  _wait_for_checkpoints(out, 3, process)
  process.kill()
  process.communicate()
  trainer = BlueprintTrainer.resume(str(out))
  assert trainer.solver.iterations > 0 and 1.0 <= trainer.seconds
  resumed = _training(out, "--resume")  # takes over the lock the killed training left
  _wait_for_checkpoints(out, 1, resumed)
  resumed.send_signal(signal.SIGINT)
  _, err = resumed.communicate(timeout=60)
  assert resumed.returncode == 130 and f"saved to {out}" in err and "--resume" in err
  assert BlueprintTrainer.resume(str(out)).solver.iterations > trainer.solver.iterations
  assert sorted(p.name for p in tmp_path.iterdir()) == ["b.npz"]


def test_a_tree_too_large_for_the_final_nash_conv_is_refused_before_training(tmp_path, capsys):
  for command in (BLUEPRINT + ["--iterations", "50"], TABULAR):
    err = error_of(capsys, *command, "--max-nodes", "1", "--out", str(tmp_path / "p.npz"))
    assert "its exact NashConv, printed after training, needs its whole tree" in err
    assert "--max-nodes" in err and list(tmp_path.iterdir()) == []


def test_an_empty_game_string_is_refused_like_any_unknown_game(tmp_path, capsys):
  err = error_of(capsys, "train", "", "--iterations", "2", "--out", str(tmp_path / "p.npz"))
  assert "unknown game ''; allowed: a reduced game" in err


def test_a_lock_file_naming_a_live_process_is_called_stale_not_killed(tmp_path, capsys):
  """A lock file that names a running process which does not hold the lock (its id reused, or the
  file copied) is taken over, and the note does not say that process was killed."""
  out = tmp_path / "b.npz"
  lock = tmp_path / ".b.npz.lock"
  lock.write_text(f"1 on {socket.gethostname()}\n")
  with run_lock.writing_file(out, "--out"):
    pass
  err = capsys.readouterr().err
  assert "the entry is stale" in err and "was killed" not in err
  assert not lock.exists()
