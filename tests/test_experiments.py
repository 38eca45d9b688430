"""Tests of the experiment runner: configs, schedule, determinism, resuming, reproducing, the CLI.

Runs use tiny games (two players, one round) so that the whole file stays fast. Determinism is
checked byte for byte on records.jsonl: the same config must give the same file whatever the number
of workers, the backend, or the interruptions along the way.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

import solvers
from experiments import run_folder
from experiments import runner
from experiments import solving
from experiments.tournament import config as config_lib
from experiments.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
TINY = "python_sushi_go(players=2,rounds=1)"
TINY_3P = "python_sushi_go(players=3,rounds=1)"
RECORD_KEYS = {"index", "seed", "game", "seats", "bots", "scores", "returns", "rounds",
               "breakdown", "puddings", "winners"}  # plus "luck" when luck_playouts is set

BASE_CONFIG = f"""
[experiment]
name = "tiny"
seed = 5
games = ["{TINY}", "{TINY_3P}"]
num_games = 12

[[players]]
name = "random"
bot = "random"

[[players]]
name = "greedy"
bot = "greedy"

[[players]]
name = "soft"
bot = "heuristic"
params = {{ temperature = 0.5 }}
"""


def write_config(directory: pathlib.Path, text: str = BASE_CONFIG,
                 name: str = "config.toml") -> pathlib.Path:
  path = directory / name
  path.write_text(text, encoding="utf-8")
  return path


def run_quietly(config_path: pathlib.Path, out: pathlib.Path, **options) -> bytes:
  runner.run(config_path, out=out, quiet=True, **options)
  return (out / run_folder.RECORDS_FILE).read_bytes()


def record_count(run_dir: pathlib.Path) -> int:
  path = run_dir / run_folder.RECORDS_FILE
  return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[pathlib.Path, bytes]:
  """An uninterrupted single-process run of BASE_CONFIG: its folder and its records."""
  directory = tmp_path_factory.mktemp("reference")
  run_dir = directory / "run"
  return run_dir, run_quietly(write_config(directory), run_dir)


# ----- configs


def test_reference_run_writes_every_file_and_full_records(reference):
  run_dir, records = reference
  for name in (run_folder.CONFIG_FILE, run_folder.RESOLVED_FILE, run_folder.TIMINGS_FILE,
               run_folder.PROVENANCE_FILE, "summary.md"):
    assert (run_dir / name).is_file(), name
  assert (run_dir / run_folder.CONFIG_FILE).read_text() == BASE_CONFIG
  lines = [json.loads(line) for line in records.decode().splitlines()]
  assert [r["index"] for r in lines] == list(range(24))
  for record in lines:
    assert set(record) == RECORD_KEYS
    seats = len(record["seats"])
    assert all(isinstance(s, int) for s in record["scores"]) and len(record["scores"]) == seats
    assert record["rounds"] == [[sum(b.values()) for b in record["breakdown"][0]]]
    assert record["seed"] == {"entropy": 5, "spawn_key": [record["index"]]}
    assert set(record["winners"]) <= set(range(seats))
  assert lines[0]["game"] == TINY and lines[12]["game"] == TINY_3P
  assert lines[2]["bots"][1] == {"bot": "heuristic", "params": {"temperature": 0.5},
                                 "seed": lines[2]["bots"][1]["seed"]}
  resolved = json.loads((run_dir / run_folder.RESOLVED_FILE).read_text())
  assert resolved["experiment"]["rotation"] == "all"
  assert resolved["report"]["metrics"] == ["score", "margin", "win"]
  assert resolved["config_hash"] == config_lib.parse(BASE_CONFIG).hash
  session, = json.loads((run_dir / run_folder.PROVENANCE_FILE).read_text())["sessions"]
  assert session["games_played"] == 24 and session["budget"] == {"kind": "none"}
  assert {"open_spiel", "numpy", "scipy", "python"} <= set(session["libraries"])
  timings = (run_dir / run_folder.TIMINGS_FILE).read_text().splitlines()
  assert sorted(json.loads(line)["index"] for line in timings) == list(range(24))


def test_defaults_and_budget_are_resolved():
  config = config_lib.parse(BASE_CONFIG.replace('name = "random"\n', "") +
                            "\n[budget]\nseconds = 1\n")
  assert [p.name for p in config.players] == ["random", "greedy", "soft"]
  assert config.budget == {"seconds": 1.0} and config.budget_kind == "seconds"
  # No baseline bot takes a budget, so none is passed on, and the config says so.
  assert config.bot_params(config.players[2]) == {"temperature": 0.5}
  assert config.notes() == ["budget.seconds: no competitor's bot takes it, so it has no effect"]


def test_a_cpu_clock_budget_reaches_the_search_bots():
  config = config_lib.parse(BASE_CONFIG.replace('bot = "greedy"', 'bot = "so_ismcts"') +
                            "\n[budget]\nseconds = 0.01\nclock = \"cpu\"\n")
  assert config.budget == {"seconds": 0.01, "clock": "cpu"} and config.budget_kind == "seconds"
  searcher, = [p for p in config.players if p.bot == "so_ismcts"]
  assert config.bot_params(searcher) == {"seconds": 0.01, "clock": "cpu"}


def _edit(old: str, new: str) -> str:
  assert old in BASE_CONFIG
  return BASE_CONFIG.replace(old, new, 1)


BAD_CONFIGS = [
    ("not toml", "not valid TOML", "name = \n"),
    ("unknown section", "experimnt: unknown key", BASE_CONFIG + "\n[experimnt]\n"),
    ("unknown key", "experiment.seeds: unknown key; allowed keys of [experiment]",
     _edit("seed = 5", "seeds = 5")),
    ("missing key", "experiment.seed: missing", _edit("seed = 5\n", "")),
    ("negative seed", "experiment.seed: expected an integer >= 0, got -1",
     _edit("seed = 5", "seed = -1")),
    ("string count", "experiment.num_games: expected an integer >= 1, got '12'",
     _edit("num_games = 12", 'num_games = "12"')),
    ("no games", "experiment.num_games: expected an integer >= 1, got 0",
     _edit("num_games = 12", "num_games = 0")),
    ("boolean count", "experiment.num_games: expected an integer >= 1, got True",
     _edit("num_games = 12", "num_games = true")),
    ("bad rotation", "experiment.rotation: expected one of 'all', 'cyclic', 'fixed', got 'random'",
     _edit("num_games = 12", 'num_games = 12\nrotation = "random"')),
    ("fixed seats, wrong seat count",
     f'experiment.rotation: "fixed" seats competitor p in seat p, so every game needs as many seats'
     f' as there are [[players]] (3); {TINY} has 2',
     _edit("num_games = 12", 'num_games = 12\nrotation = "fixed"')),
    ("bad name", "experiment.name: expected a name of letters",
     _edit('name = "tiny"', 'name = "a/b"')),
    ("games not a list", "experiment.games: expected a non-empty array of strings",
     _edit(f'games = ["{TINY}", "{TINY_3P}"]', f'games = "{TINY}"')),
    ("empty games", "experiment.games: expected a non-empty array",
     _edit(f'games = ["{TINY}", "{TINY_3P}"]', "games = []")),
    ("repeated game", "experiment.games[1]: 'python_sushi_go(players=2,rounds=1)' is listed twice",
     _edit(f'"{TINY_3P}"', f'"{TINY}"')),
    ("other game", "experiment.games[1]: expected a python_sushi_go game string",
     _edit(f'"{TINY_3P}"', '"tic_tac_toe"')),
    ("bad game parameter", "experiment.games[1]: 'python_sushi_go(players=9)' cannot be loaded",
     _edit(f'"{TINY_3P}"', '"python_sushi_go(players=9)"')),
    ("unparsable game", "experiment.games[1]: 'python_sushi_go(players=3' is not a game string",
     _edit(f'"{TINY_3P}"', '"python_sushi_go(players=3"')),
    ("two budgets", "budget: set iterations or seconds, not both",
     BASE_CONFIG + "\n[budget]\niterations = 5\nseconds = 1.0\n"),
    ("zero iterations", "budget.iterations: expected an integer >= 1, got 0",
     BASE_CONFIG + "\n[budget]\niterations = 0\n"),
    ("negative seconds", "budget.seconds: expected a finite number > 0, got -0.5",
     BASE_CONFIG + "\n[budget]\nseconds = -0.5\n"),
    ("clock without seconds", "budget.clock says what budget.seconds is measured on",
     BASE_CONFIG + "\n[budget]\niterations = 5\nclock = 'cpu'\n"),
    ("unknown clock", "budget.clock is 'sundial'; allowed: wall, cpu",
     BASE_CONFIG + "\n[budget]\nseconds = 0.5\nclock = 'sundial'\n"),
    ("unknown budget", "budget.minutes: unknown key; allowed keys of [budget]: iterations",
     BASE_CONFIG + "\n[budget]\nminutes = 1\n"),
    ("unknown metric", "report.metrics[1]: expected one of 'score', 'margin', 'win', got 'elo'",
     BASE_CONFIG + '\n[report]\nmetrics = ["win", "elo"]\n'),
    ("no players", "players: missing", BASE_CONFIG[:BASE_CONFIG.index("[[players]]")]),
    ("players as a table", "players: expected one or more [[players]] tables",
     BASE_CONFIG[:BASE_CONFIG.index("[[players]]")] + "[players]\nbot = 'random'\n"),
    ("unknown bot",
     f"players[1].bot: unknown bot 'grredy'; allowed: {', '.join(sorted(solvers.BOTS))}",
     _edit('bot = "greedy"', 'bot = "grredy"')),
    ("missing bot", "players[1].bot: missing", _edit('bot = "greedy"\n', "")),
    ("unknown player key", "players[0].seat: unknown key",
     _edit('bot = "random"', 'bot = "random"\nseat = 1')),
    ("duplicate name", "players[1].name: 'random' is already the name of players[0]",
     _edit('name = "greedy"', 'name = "random"')),
    ("unknown parameter", "players[0].params.depth: unknown parameter of bot 'random'",
     _edit('bot = "random"', 'bot = "random"\nparams = { depth = 2 }')),
    ("wrong parameter type", "players[2].params.temperature: expected a number",
     _edit("temperature = 0.5", 'temperature = "hot"')),
    ("params not a table", "players[2].params: expected a table",
     _edit("params = { temperature = 0.5 }", "params = 3")),
]


@pytest.mark.parametrize("text, message", [(text, message) for _, message, text in BAD_CONFIGS],
                         ids=[case for case, _, _ in BAD_CONFIGS])
def test_bad_config_is_refused_naming_the_key(text, message):
  with pytest.raises(config_lib.ConfigError) as error:
    config_lib.parse(text)
  assert message in str(error.value)


def test_bad_config_on_the_command_line_is_a_clean_error(tmp_path, capsys):
  path = write_config(tmp_path, _edit("num_games = 12", "num_games = -3"))
  with pytest.raises(SystemExit) as exit_info:
    main(["run", str(path), "--out", str(tmp_path / "run")])
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert f"sushigo run: error: {path}: experiment.num_games: expected an integer >= 1" in err
  assert "Traceback" not in err
  assert not (tmp_path / "run").exists()


# ----- schedule


@pytest.mark.parametrize("seats, competitors, rotation, length", [
    (2, 2, "all", 2), (3, 3, "all", 6), (3, 3, "cyclic", 3),
    (2, 3, "all", 6), (3, 4, "cyclic", 12), (2, 5, "cyclic", 20),
    (4, 3, "all", 36), (4, 3, "cyclic", 12), (4, 2, "all", 6), (4, 2, "cyclic", 2),
    (5, 2, "cyclic", 10), (5, 3, "all", 90), (3, 1, "all", 1),
])
def test_schedule_seats_every_competitor_evenly(seats, competitors, rotation, length):
  cycle = config_lib.schedule(seats, competitors, rotation)
  assert len(cycle) == length and len(set(cycle)) == length
  by_seat = [collections.Counter(seating[s] for seating in cycle) for s in range(seats)]
  assert all(counts == by_seat[0] for counts in by_seat)
  assert sorted(by_seat[0]) == list(range(competitors))
  for seating in cycle:
    copies = collections.Counter(seating).values()
    assert max(copies) - min(copies) <= 1 and len(seating) == seats


def test_fixed_rotation_keeps_every_competitor_in_its_seat():
  config = config_lib.parse(_edit(f'games = ["{TINY}", "{TINY_3P}"]', f'games = ["{TINY_3P}"]')
                            .replace("num_games = 12", 'num_games = 4\nrotation = "fixed"'))
  assert config.cycle(TINY_3P) == ((0, 1, 2),)
  assert {tuple(c.name for c in config.matchup(i).seats) for i in range(4)} == {
      ("random", "greedy", "soft")}


def test_anchor_lineups_put_each_competitor_alone_against_the_anchor():
  config = config_lib.parse(_edit("num_games = 12", 'num_games = 12\nanchor = "soft"'))
  assert config.cycle(TINY) == ((0, 2), (2, 0), (1, 2), (2, 1))
  three = config.cycle(TINY_3P)
  assert sorted(three) == sorted([(0, 2, 2), (2, 0, 2), (2, 2, 0), (1, 2, 2), (2, 1, 2), (2, 2, 1)])
  assert config.resolved()["experiment"]["anchor"] == "soft"
  assert "anchor" not in config_lib.parse(BASE_CONFIG).resolved()["experiment"]


@pytest.mark.parametrize("edit, message", [
    ('anchor = "nobody"', 'experiment.anchor: expected the name of a competitor (random, greedy,'
                          ' soft), got \'nobody\''),
    ('anchor = "soft"\nrotation = "fixed"', 'experiment.anchor: an anchor seats every competitor'),
])
def test_bad_anchor_is_refused(edit, message):
  with pytest.raises(config_lib.ConfigError, match=re.escape(message)):
    config_lib.parse(_edit("num_games = 12", "num_games = 12\n" + edit))


def test_game_index_maps_to_game_string_and_seating():
  config = config_lib.parse(BASE_CONFIG)
  two_player = config.cycle(TINY)
  assert [config.matchup(i).game for i in (0, 11, 12, 23)] == [TINY, TINY, TINY_3P, TINY_3P]
  assert [tuple(c.name for c in config.matchup(i).seats) for i in (0, 1, 6)] == [
      ("random", "greedy"), ("greedy", "random"), ("random", "greedy")]
  assert len(two_player) == 6 and config.notes() == []
  unbalanced = config_lib.parse(_edit("num_games = 12", "num_games = 10"))
  assert unbalanced.notes()[0].startswith(
      f"{TINY}: num_games = 10 is not a multiple of its 6 seatings")


# ----- determinism


def test_two_workers_give_identical_records(reference, tmp_path):
  _, records = reference
  assert run_quietly(reference[0] / run_folder.CONFIG_FILE, tmp_path / "run", workers=2) == records
  workers = {json.loads(line)["worker"]
             for line in (tmp_path / "run" / run_folder.TIMINGS_FILE).read_text().splitlines()}
  assert len(workers) == 2


def test_ray_backend_gives_identical_records(reference, tmp_path):
  import ray  # pylint: disable=import-outside-toplevel  (CI installs the ray extra)
  _, records = reference
  ray.init(num_cpus=2, include_dashboard=False)
  try:
    assert run_quietly(reference[0] / run_folder.CONFIG_FILE, tmp_path / "run", backend="ray",
                       workers=2) == records
  finally:
    ray.shutdown()
  session, = json.loads((tmp_path / "run" / run_folder.PROVENANCE_FILE).read_text())["sessions"]
  assert session["backend"] == "ray" and "ray" in session["libraries"]


def test_missing_ray_is_a_clear_error(reference, tmp_path, monkeypatch):
  monkeypatch.setitem(sys.modules, "ray", None)
  with pytest.raises(run_folder.RunError, match=r'pip install -e "\.\[ray\]"'):
    runner.run(reference[0] / run_folder.CONFIG_FILE, out=tmp_path / "run", backend="ray",
               quiet=True)


# ----- resuming

# How long a fresh run process may take to record its first games before a test gives up: the loop
# stops as soon as they are written, and a loaded two-core machine took over a minute.
STARTUP_SECONDS = 300


def test_resume_after_kill_gives_identical_records(tmp_path):
  text = _edit(f'games = ["{TINY}", "{TINY_3P}"]', f'games = ["{TINY}"]').replace(
      "num_games = 12", "num_games = 300")
  config_path = write_config(tmp_path, text)
  interrupted = tmp_path / "interrupted"
  env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
  process = subprocess.Popen(
      [sys.executable, "-m", "experiments.cli", "run", str(config_path), "--out",
       str(interrupted), "--quiet"], env=env, stdout=subprocess.DEVNULL)
  deadline = time.monotonic() + STARTUP_SECONDS
  while record_count(interrupted) < 5 and process.poll() is None and time.monotonic() < deadline:
    time.sleep(0.005)
  process.send_signal(signal.SIGKILL)
  process.wait()
  assert 5 <= record_count(interrupted) < 300, "the run was not interrupted mid-way"
  assert main(["run", str(config_path), "--out", str(interrupted), "--quiet"]) == 0
  whole = run_quietly(config_path, tmp_path / "whole")
  assert (interrupted / run_folder.RECORDS_FILE).read_bytes() == whole
  sessions = json.loads((interrupted / run_folder.PROVENANCE_FILE).read_text())["sessions"]
  assert sessions[-1]["games_already_recorded"] >= 5


def worker_processes(pid: int) -> list[int]:
  """The pool's worker processes below the run process `pid`: its grandchildren, since workers
  are forked by a server process (the forkserver start method) or by the run process's child."""
  children = collections.defaultdict(list)
  for entry in pathlib.Path("/proc").iterdir():
    if not entry.name.isdigit():
      continue
    try:
      stat = (entry / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
      continue
    children[int(stat.rsplit(")", 1)[1].split()[1])].append(int(entry.name))
  return [grandchild for child in children[pid] for grandchild in children[child]]


def test_killed_worker_process_then_rerun_gives_identical_records(tmp_path):
  """A worker process killed mid-run ends the run; the same command then finishes it."""
  text = _edit(f'games = ["{TINY}", "{TINY_3P}"]', f'games = ["{TINY}"]').replace(
      "num_games = 12", "num_games = 400")
  config_path = write_config(tmp_path, text)
  interrupted = tmp_path / "interrupted"
  env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
  process = subprocess.Popen(
      [sys.executable, "-m", "experiments.cli", "run", str(config_path), "--out",
       str(interrupted), "--quiet", "--workers", "2"], env=env, stdout=subprocess.DEVNULL,
      stderr=subprocess.PIPE)
  deadline = time.monotonic() + STARTUP_SECONDS
  while record_count(interrupted) < 5 and process.poll() is None and time.monotonic() < deadline:
    time.sleep(0.005)
  workers = worker_processes(process.pid)
  assert workers, "no worker process found"
  os.kill(workers[0], signal.SIGKILL)
  _, errors = process.communicate(timeout=60)
  assert process.returncode != 0, "the run went on as if nothing had happened"
  assert b"Traceback" not in errors
  assert 5 <= record_count(interrupted) < 400, "the run was not interrupted mid-way"
  assert main(["run", str(config_path), "--out", str(interrupted), "--quiet", "--workers",
               "2"]) == 0
  whole = run_quietly(config_path, tmp_path / "whole")
  assert (interrupted / run_folder.RECORDS_FILE).read_bytes() == whole


def test_torn_last_line_is_ignored(reference, tmp_path):
  reference_dir, records = reference
  run_dir = tmp_path / "run"
  run_dir.mkdir()
  for name in (run_folder.CONFIG_FILE, run_folder.RESOLVED_FILE):
    (run_dir / name).write_bytes((reference_dir / name).read_bytes())
  lines = records.splitlines(keepends=True)
  (run_dir / run_folder.RECORDS_FILE).write_bytes(b"".join(lines[:7]) + lines[7][:40])
  assert run_quietly(run_dir / run_folder.CONFIG_FILE, run_dir) == records
  session, = json.loads((run_dir / run_folder.PROVENANCE_FILE).read_text())["sessions"]
  assert session["games_already_recorded"] == 7 and session["games_played"] == 17


def test_other_config_in_the_same_folder_is_refused_unless_forced(reference, tmp_path, capsys):
  reference_dir, _ = reference
  run_dir = tmp_path / "run"
  run_quietly(reference_dir / run_folder.CONFIG_FILE, run_dir)
  other = write_config(tmp_path, _edit("seed = 5", "seed = 6"), name="other.toml")
  with pytest.raises(SystemExit) as exit_info:
    main(["run", str(other), "--out", str(run_dir), "--quiet"])
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert "holds a run of a different config" in err and "--force" in err
  assert "Traceback" not in err
  assert main(["run", str(other), "--out", str(run_dir), "--quiet", "--force"]) == 0
  records = [json.loads(line)
             for line in (run_dir / run_folder.RECORDS_FILE).read_text().splitlines()]
  assert len(records) == 24 and {r["seed"]["entropy"] for r in records} == {6}
  assert (run_dir / run_folder.CONFIG_FILE).read_text() == other.read_text()
  assert len(json.loads((run_dir / run_folder.PROVENANCE_FILE).read_text())["sessions"]) == 1


def test_non_empty_folder_without_a_run_is_refused(reference, tmp_path):
  (tmp_path / "notes.txt").write_text("mine")
  with pytest.raises(run_folder.RunError, match="is not empty and holds no run"):
    runner.run(reference[0] / run_folder.CONFIG_FILE, out=tmp_path, quiet=True)


# ----- reproducing


def test_reproduce_matches_and_detects_a_tampered_record(reference, tmp_path, capsys):
  reference_dir, records = reference
  run_dir = tmp_path / "run"
  run_dir.mkdir()
  for name in (run_folder.CONFIG_FILE, run_folder.RESOLVED_FILE, run_folder.RECORDS_FILE):
    (run_dir / name).write_bytes((reference_dir / name).read_bytes())
  capsys.readouterr()
  assert main(["reproduce", str(run_dir)]) == 0
  assert "Match: all 24 records" in capsys.readouterr().out

  lines = records.decode().splitlines()
  tampered = json.loads(lines[3])
  tampered["scores"][0] += 1
  lines[3] = json.dumps(tampered)
  (run_dir / run_folder.RECORDS_FILE).write_text("\n".join(lines) + "\n")
  assert main(["reproduce", str(run_dir), "--workers", "2"]) == 1
  out = capsys.readouterr().out
  assert "game 3: scores differ" in out and "Mismatch: 1 of 24 records differ" in out


def test_reproduce_refuses_an_edited_config(reference, tmp_path):
  run_dir = tmp_path / "run"
  run_dir.mkdir()
  (run_dir / run_folder.RESOLVED_FILE).write_bytes(
      (reference[0] / run_folder.RESOLVED_FILE).read_bytes())
  write_config(run_dir, _edit("seed = 5", "seed = 8"))
  with pytest.raises(run_folder.RunError, match="does not match the hash"):
    runner.reproduce(run_dir, quiet=True)


# ----- command line


def test_run_help(capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["run", "--help"])
  assert exit_info.value.code == 0
  out = capsys.readouterr().out
  assert out.startswith("usage: sushigo run")
  for option in ("--out", "--workers", "--backend", "--address", "--force", "--quiet"):
    assert option in out


def test_report_command_prints_the_tables(reference, capsys):
  assert main(["report", str(reference[0])]) == 0
  out = capsys.readouterr().out
  assert TINY in out and "random" in out and "soft" in out


def test_report_of_a_folder_without_records_is_a_clean_error(tmp_path, capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["report", str(tmp_path)])
  assert exit_info.value.code == 2
  assert "not a run folder" in capsys.readouterr().err


def test_example_configs_are_valid():
  for path in sorted((ROOT / "experiments" / "configs").glob("*.toml")):
    if runner.experiment_kind(path) != "tournament":
      assert solving.load(path).units(), path
    else:
      assert config_lib.load(path).notes() == [], path
