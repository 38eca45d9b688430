"""Reports written whole or not at all, and a run whose report failed exits non-zero."""

from __future__ import annotations

import dataclasses
import errno
import os

import pytest

from experiments import run_folder
from experiments import tournament
from experiments.cli import main
from experiments.run_folder import RunError
from support import TINY_TOURNAMENT as CONFIG
from support import finished_run


@pytest.fixture
def finished(tmp_path):
  return finished_run(tmp_path)


def test_a_full_disk_while_reporting_leaves_every_old_file_whole(finished, monkeypatch, capsys):
  """The disk fills at the n-th file the report writes (summary.md, summary.csv, each plot): the
  command exits with the reason, and every file is the old one, whole, with no temporary left."""
  _, run_dir = finished
  capsys.readouterr()
  files = sorted(p for p in run_dir.rglob("*") if p.is_file() and p.name != run_folder.LOCK_FILE)
  before = {path: path.read_bytes() for path in files}
  real_fsync = os.fsync
  for failing in range(1, 5):
    calls = []

    def fsync(fd):
      calls.append(fd)
      if len(calls) == failing:
        raise OSError(errno.ENOSPC, "No space left on device")
      return real_fsync(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(SystemExit) as failed:
      main(["report", str(run_dir)])
    monkeypatch.undo()
    assert failed.value.code == 2 and "No space left on device" in capsys.readouterr().err
    for path, data in before.items():
      assert path.read_bytes() == data, path
    assert not [p for p in run_dir.rglob("*.tmp")]


def test_a_run_whose_report_failed_exits_non_zero(finished, monkeypatch, capsys):
  config, run_dir = finished
  capsys.readouterr()

  def failing(run_dir):
    raise RunError("the report could not be made")
  monkeypatch.setattr(tournament, "TOURNAMENT",
                      dataclasses.replace(tournament.TOURNAMENT, report=failing))
  with pytest.raises(SystemExit) as failed:
    main(["run", str(config), "--out", str(run_dir), "--quiet"])
  err = capsys.readouterr().err
  assert failed.value.code == 2 and "the report could not be made" in err
  assert f"`sushigo report {run_dir}` writes the report once that is fixed" in err


def test_force_never_deletes_through_a_symbolic_link_or_a_name_no_run_writes(finished, tmp_path,
                                                                            capsys):
  config, run_dir = finished
  capsys.readouterr()
  outside = tmp_path / "outside"
  outside.mkdir()
  plots = sorted((run_dir / run_folder.PLOTS_DIR).iterdir())
  for plot in plots:
    (outside / plot.name).write_bytes(b"not the run's")
    plot.unlink()
  (run_dir / run_folder.PLOTS_DIR).rmdir()
  (run_dir / run_folder.PLOTS_DIR).symlink_to(outside, target_is_directory=True)
  other = CONFIG.replace("num_games = 2", "num_games = 4")
  config.write_text(other)
  with pytest.raises(SystemExit) as refused:
    main(["run", str(config), "--out", str(run_dir), "--quiet", "--force"])
  assert refused.value.code == 2 and "is a symbolic link" in capsys.readouterr().err
  run_folder._remove(run_dir, [f"{run_folder.PLOTS_DIR}/{plot.name}" for plot in plots])
  assert all((outside / plot.name).read_bytes() == b"not the run's" for plot in plots)
  (run_dir / run_folder.PLOTS_DIR).unlink()
  assert main(["run", str(config), "--out", str(run_dir), "--quiet", "--force"]) == 0
  manifest = run_dir / run_folder.MANIFEST_FILE
  manifest.write_text('{"files": ["config.toml", "mydata.csv"]}')
  (run_dir / "mydata.csv").write_text("keep me")
  with pytest.raises(SystemExit) as refused:
    main(["run", str(config), "--out", str(run_dir), "--quiet", "--force"])
  assert refused.value.code == 2
  assert "lists 'mydata.csv', which no run writes" in capsys.readouterr().err
  assert (run_dir / "mydata.csv").read_text() == "keep me"


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe", b"[1, 2]", b'{"sessions": 3}'])
def test_a_corrupt_provenance_is_refused_before_any_game_is_played(finished, capsys, content):
  config, run_dir = finished
  capsys.readouterr()
  config.write_text(CONFIG)  # the same config: a resume
  records = run_dir / run_folder.RECORDS_FILE
  lines = records.read_text().splitlines(keepends=True)
  records.write_text(lines[0])  # one game left to play
  (run_dir / run_folder.PROVENANCE_FILE).write_bytes(content)
  with pytest.raises(SystemExit) as refused:
    main(["run", str(config), "--out", str(run_dir), "--quiet"])
  err = capsys.readouterr().err
  assert refused.value.code == 2 and f"{run_dir / run_folder.PROVENANCE_FILE}:" in err
  assert "the records are intact" in err.lower() and records.read_text() == lines[0]
