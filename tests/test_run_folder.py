"""The run folder's bookkeeping, function by function: which files `--force` may remove (the
manifest, checked name by name), and the removal itself (temporary files of stopped writes, the
folders left empty, never the lock or the folder itself). The commands' side of the same rules is
in test_reliability.py."""

from __future__ import annotations

import json

import pytest

from experiments import run_folder
from experiments.run_folder import RunError


def manifest(folder, files) -> None:
  (folder / run_folder.MANIFEST_FILE).write_text(json.dumps({"files": files}))


def test_an_empty_folder_or_one_with_only_a_lock_has_no_run_files(tmp_path):
  assert run_folder.run_files(tmp_path) == []
  (tmp_path / run_folder.LOCK_FILE).write_text("")
  assert run_folder.run_files(tmp_path) == []


def test_the_run_files_are_the_manifests(tmp_path):
  manifest(tmp_path, ["config.toml", "plots/a.png"])
  assert run_folder.run_files(tmp_path) == ["config.toml", "plots/a.png"]


def test_a_folder_of_other_files_has_no_run_files_to_remove(tmp_path):
  (tmp_path / "notes.txt").write_text("mine")
  with pytest.raises(RunError, match=r"holds no run \(no manifest.json\); --force removes only a"
                     r" run's own files, so it refuses a folder of other files: choose a new or"
                     r" empty folder$"):
    run_folder.run_files(tmp_path)


def test_a_run_without_a_manifest_is_named_as_such(tmp_path):
  (tmp_path / run_folder.RESOLVED_FILE).write_text("{}")
  with pytest.raises(RunError, match=r"holds a run written before runs listed their files"
                     r" \(manifest.json\), so --force cannot tell its files from others; remove"
                     r" them yourself, or choose another --out$"):
    run_folder.run_files(tmp_path)


@pytest.mark.parametrize("files", [["../outside.txt"], ["plots/../../x"], ["/etc/passwd"], [""],
                                   [3], ["ok.txt", None], "config.toml", {"a": 1}])
def test_a_manifest_naming_anything_but_files_inside_the_folder_is_refused(tmp_path, files):
  manifest(tmp_path, files)
  with pytest.raises(RunError, match="names inside the folder"):
    run_folder.run_files(tmp_path)


@pytest.mark.parametrize("name", ["plots/a.png", "plots/a..b.png", "summary.csv", "run.lock"])
def test_names_a_run_writes_are_accepted(tmp_path, name):
  manifest(tmp_path, [name])
  assert run_folder.run_files(tmp_path) == [name]


@pytest.mark.parametrize("name", ["a", "a..b", "..a/b", ".hidden", "plots/deep/b.png",
                                  "plots/notes.txt"])
def test_names_inside_the_folder_that_no_run_writes_are_refused(tmp_path, name):
  """An edited manifest cannot make --force remove a file the run did not write."""
  manifest(tmp_path, [name])
  with pytest.raises(RunError, match=f"lists {name!r}, which no run writes"):
    run_folder.run_files(tmp_path)


def test_removing_a_run_takes_its_files_their_temporary_files_and_emptied_folders(tmp_path):
  names = ["config.toml", "plots/a.png", "plots/deep/b.png", "results.jsonl", "gone.txt",
           run_folder.LOCK_FILE]
  for name in names[:4] + [run_folder.LOCK_FILE]:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(name)
  (tmp_path / "results.jsonl.1234.tmp").write_text("torn")
  (tmp_path / "other.jsonl.1234.tmp").write_text("not the run's")
  (tmp_path / "notes.txt").write_text("mine")
  run_folder._remove(tmp_path, names)  # pylint: disable=protected-access
  left = sorted(path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*"))
  assert left == ["notes.txt", "other.jsonl.1234.tmp", run_folder.LOCK_FILE]


def test_removing_a_run_keeps_folders_that_hold_other_files_and_the_folder_itself(tmp_path):
  (tmp_path / "plots").mkdir()
  (tmp_path / "plots" / "a.png").write_text("run")
  (tmp_path / "plots" / "mine.png").write_text("mine")
  (tmp_path / "config.toml").write_text("run")
  run_folder._remove(tmp_path, ["config.toml", "plots/a.png"])  # pylint: disable=protected-access
  assert sorted(path.name for path in tmp_path.rglob("*")) == ["mine.png", "plots"]
  run_folder._remove(tmp_path / "plots", ["mine.png"])  # pylint: disable=protected-access
  assert (tmp_path / "plots").is_dir() and not any((tmp_path / "plots").iterdir())
