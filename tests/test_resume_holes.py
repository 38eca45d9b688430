"""Resuming a run folder whose records have holes: games missing at the start, in the middle, in
several places, with the survivors out of order. The same `sushigo run CONFIG --out DIR` must play
exactly the missing games and leave records.jsonl identical, byte for byte, to an uninterrupted
run's (docs/experiments.md, "Resume"), with one timing line per game.

Deterministic: the holes are cut by hand in a copy of a finished folder, not by killing a process.
The games are tiny (one round, two and three players, random and greedy bots).
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from experiments.cli import main

GAMES = ("python_sushi_go(players=2,rounds=1)", "python_sushi_go(players=3,rounds=1)")
NUM_GAMES = 12  # per game string
TOTAL = NUM_GAMES * len(GAMES)
CONFIG = f"""
[experiment]
name = "holes"
seed = 11
games = {json.dumps(list(GAMES))}
num_games = {NUM_GAMES}
rotation = "cyclic"

[[players]]
name = "random"
bot = "random"

[[players]]
name = "greedy"
bot = "greedy"
"""


def run(config: pathlib.Path, out: pathlib.Path) -> None:
  assert main(["run", str(config), "--out", str(out), "--quiet"]) in (0, None)


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path]:
  """The config and an uninterrupted run of it."""
  directory = tmp_path_factory.mktemp("whole")
  config = directory / "holes.toml"
  config.write_text(CONFIG, encoding="utf-8")
  run(config, directory / "run")
  return config, directory / "run"


def lines_of(path: pathlib.Path) -> list[str]:
  return path.read_text(encoding="utf-8").splitlines(keepends=True)


def index_of(line: str) -> int:
  return json.loads(line)["index"]


def with_holes(whole_run: pathlib.Path, destination: pathlib.Path, missing: set[int],
               shuffle: bool = False) -> pathlib.Path:
  """A copy of the finished run with the records (and timings) of `missing` games removed, the
  others reversed when `shuffle` (as workers that finish out of order leave them)."""
  shutil.copytree(whole_run, destination)
  for name in ("records.jsonl", "timings.jsonl"):
    kept = [line for line in lines_of(destination / name) if index_of(line) not in missing]
    if shuffle:
      kept.reverse()
    (destination / name).write_text("".join(kept), encoding="utf-8")
  return destination


HOLES = {
    "start": {0, 1, 2},
    "middle": {9, 10, 11, 12, 13},
    "several": {0, 4, 11, 12, 17, 23},
    "every_other": set(range(0, TOTAL, 2)),
    "all_but_the_last": set(range(TOTAL - 1)),
}


@pytest.mark.parametrize("shuffle", [False, True], ids=["in_order", "shuffled"])
@pytest.mark.parametrize("holes", HOLES.values(), ids=HOLES.keys())
def test_resuming_fills_the_holes_to_the_uninterrupted_records(whole, tmp_path, holes, shuffle):
  config, whole_run = whole
  folder = with_holes(whole_run, tmp_path / "run", holes, shuffle)
  run(config, folder)
  assert (folder / "records.jsonl").read_bytes() == (whole_run / "records.jsonl").read_bytes()
  timings = sorted(index_of(line) for line in lines_of(folder / "timings.jsonl"))
  assert timings == list(range(TOTAL))


@pytest.mark.parametrize("holes", HOLES.values(), ids=HOLES.keys())
def test_resuming_plays_exactly_the_missing_games(whole, tmp_path, holes):
  config, whole_run = whole
  folder = with_holes(whole_run, tmp_path / "run", holes)
  run(config, folder)
  sessions = json.loads((folder / "provenance.json").read_text())["sessions"]
  assert len(sessions) == 2
  assert sessions[-1]["games_already_recorded"] == TOTAL - len(holes)
  assert sessions[-1]["games_played"] == len(holes)


def test_a_folder_with_every_record_plays_nothing_more(whole, tmp_path):
  config, whole_run = whole
  folder = with_holes(whole_run, tmp_path / "run", set(), shuffle=True)
  run(config, folder)
  assert (folder / "records.jsonl").read_bytes() == (whole_run / "records.jsonl").read_bytes()
  session = json.loads((folder / "provenance.json").read_text())["sessions"][-1]
  assert (session["games_already_recorded"], session["games_played"]) == (TOTAL, 0)


def test_the_uninterrupted_run_is_what_the_holes_are_cut_from(whole):
  """The reference itself: every game once, in index order, and the holes are real gaps."""
  _, whole_run = whole
  assert [index_of(line) for line in lines_of(whole_run / "records.jsonl")] == list(range(TOTAL))
  assert all(holes and max(holes) < TOTAL for holes in HOLES.values())
  assert any(min(holes) > 0 and max(holes) < TOTAL - 1 for holes in HOLES.values())


def test_holes_beside_a_torn_last_line_and_stale_timings(whole, tmp_path):
  """Holes in the middle, the last record torn part-way, and the timings of the missing games
  left behind (a session stopped between a game's timing line and its record): the resumed
  folder still has the uninterrupted records and one timing line per game."""
  config, whole_run = whole
  folder = tmp_path / "run"
  shutil.copytree(whole_run, folder)
  holes = {5, 6, 14}
  records = lines_of(folder / "records.jsonl")
  kept = [line for line in records if index_of(line) not in holes]
  (folder / "records.jsonl").write_text("".join(kept[:-1]) + kept[-1][:30], encoding="utf-8")
  run(config, folder)
  assert (folder / "records.jsonl").read_bytes() == (whole_run / "records.jsonl").read_bytes()
  timings = sorted(index_of(line) for line in lines_of(folder / "timings.jsonl"))
  assert timings == list(range(TOTAL))
  session = json.loads((folder / "provenance.json").read_text())["sessions"][-1]
  assert (session["games_already_recorded"], session["games_played"]) == (
      TOTAL - len(holes) - 1, len(holes) + 1)
