"""Misuse and faults end in a clear refusal or a clean result, never in a silently wrong one.

One section per kind of fault: a second writer on a run folder, a results file with a game twice
or a game the config does not have, --force in a folder that holds no run, work too large for
memory, numbers that are not finite, file errors, and the small refusals (policy files, typed
answers, game names). The fault-injection runs in real processes (signals, SIGKILL) are in
test_fault_injection.py.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import pathlib
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pyspiel
import pytest

import solvers
import sushigo_spiel  # noqa: F401  (registers the games)
from experiments import run_folder
from experiments import run_lock
from experiments import runner
from experiments import solving
from experiments.cli import main
from experiments.config import ConfigError
from experiments.run_folder import RunError
from experiments.tournament import config as tournament_lib
from solvers.equilibrium import policies
from support import tournament_config
from solvers.equilibrium import tree_size
from solvers.equilibrium.game_tree import GameTree
from sushigo_spiel import reduced_games

ROOT = pathlib.Path(__file__).resolve().parents[1]
FULL_GAME = "python_sushi_go(players=2)"
TOURNAMENT = tournament_config("reliability", 3, "python_sushi_go(players=2,rounds=1)", 10)
CONVERGENCE = """
[experiment]
name = "sizes"
kind = "convergence"
seed = 1
games = {games}
{extra}
[convergence]
algorithms = ["cfr+"]
iterations = 2
"""


def write(directory: pathlib.Path, text: str, name: str = "config.toml") -> pathlib.Path:
  path = directory / name
  path.write_text(text, encoding="utf-8")
  return path


def records(run_dir: pathlib.Path) -> list[str]:
  return (run_dir / run_folder.RECORDS_FILE).read_text().splitlines()


def error_of(capsys, *argv: str) -> str:
  """The message of a command that must end with exit status 2, and no traceback."""
  with pytest.raises(SystemExit) as exit_info:
    main(list(argv))
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert "Traceback" not in err
  return err


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> pathlib.Path:
  """A complete tournament run folder, to copy and spoil."""
  directory = tmp_path_factory.mktemp("finished")
  return runner.run(write(directory, TOURNAMENT), out=directory / "run", quiet=True)


@pytest.fixture()
def copy(finished, tmp_path) -> pathlib.Path:
  """A copy of the finished run, as a fresh folder."""
  run_dir = tmp_path / "copy"
  run_dir.mkdir()
  for path in finished.rglob("*"):
    if path.is_file():
      target = run_dir / path.relative_to(finished)
      target.parent.mkdir(exist_ok=True)
      target.write_bytes(path.read_bytes())
  return run_dir


# ----- one writer


def test_a_second_writer_is_refused_with_the_holders_process_id(copy):
  with run_lock.writing(copy):
    assert f"{os.getpid()} on " in (copy / run_folder.LOCK_FILE).read_text()
    with pytest.raises(RunError, match=f"in use: process {os.getpid()} on .* is running in it"):
      runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)
  assert (copy / run_folder.LOCK_FILE).read_text() == ""  # released, and cleared
  runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)


def test_report_and_reproduce_refuse_a_folder_being_written(copy):
  with run_lock.writing(copy):
    with pytest.raises(RunError, match=f"being written by process {os.getpid()}.*report it"):
      runner.report(copy)
    with pytest.raises(RunError, match=f"being written by process {os.getpid()}.*reproduce it"):
      runner.reproduce(copy, quiet=True)


def test_a_writer_is_refused_while_a_report_reads(copy):
  with run_lock.reading(copy, "report"):
    with pytest.raises(RunError, match="a report or reproduce is reading it"):
      runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)


def test_a_stale_lock_is_taken_over_in_one_line(copy, capsys):
  (copy / run_folder.LOCK_FILE).write_text("4194999 on elsewhere\n")
  runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)
  err = capsys.readouterr().err
  assert err.count("\n") == 1
  assert "named process 4194999 on elsewhere, which ended without releasing it" in err
  assert "takes it over" in err
  assert (copy / run_folder.LOCK_FILE).read_text() == ""


# ----- every result once, and only results of the config


def _spoil(run_dir: pathlib.Path, how: str) -> None:
  lines = records(run_dir)
  if how == "duplicate":
    lines.insert(6, lines[2])
  else:
    entry = json.loads(lines[4])
    entry["index"] = {"outside": 10, "negative": -1, "text": "4", "boolean": True}[how]
    lines[4] = json.dumps(entry)
  (run_dir / run_folder.RECORDS_FILE).write_text("\n".join(lines) + "\n")


MESSAGES = {
    "duplicate": r"records.jsonl, line 7: game 2 is recorded twice \(also on line 3\)",
    "outside": r"records.jsonl, line 5: game 10 is not one of the config's 10 games \(0 to 9\)",
    "negative": r"records.jsonl, line 5: game -1 is not one of the config's 10 games",
    "text": r"records.jsonl, line 5: not a game record",
    "boolean": r"records.jsonl, line 5: not a game record",
}


@pytest.mark.parametrize("how", MESSAGES)
def test_resume_report_and_reproduce_refuse_a_result_twice_or_outside_the_config(copy, how):
  _spoil(copy, how)
  spoiled = (copy / run_folder.RECORDS_FILE).read_bytes()
  with pytest.raises(RunError, match=MESSAGES[how]):
    runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)
  with pytest.raises(RunError, match=MESSAGES[how]):
    runner.report(copy)
  with pytest.raises(RunError, match=MESSAGES[how]):
    runner.reproduce(copy, quiet=True)
  assert (copy / run_folder.RECORDS_FILE).read_bytes() == spoiled  # nothing was changed


def test_reproduce_names_the_games_missing_from_the_folder(copy, capsys):
  lines = records(copy)
  (copy / run_folder.RECORDS_FILE).write_text("\n".join(lines[:3] + lines[4:]) + "\n")
  assert main(["reproduce", str(copy)]) == 1
  out = capsys.readouterr().out
  assert "game 3: missing from the run folder" in out and "Mismatch: 1 of 10" in out


def test_a_solving_result_twice_is_refused(tmp_path):
  config = write(tmp_path, CONVERGENCE.format(games='["tiny"]', extra=""))
  run_dir = solving.run(config, out=tmp_path / "run", quiet=True)
  path = run_dir / run_folder.RESULTS_FILE
  path.write_text(path.read_text() * 2)
  with pytest.raises(RunError, match="results.jsonl, line 2: unit 0 is recorded twice"):
    runner.report(run_dir)


def test_a_timing_left_without_its_record_is_dropped_on_resume(copy):
  """A run stopped between a game's timing line and its record line leaves one timing too many."""
  lines = records(copy)
  (copy / run_folder.RECORDS_FILE).write_text("\n".join(lines[:-1]) + "\n")
  runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)
  timings = [json.loads(line)["index"]
             for line in (copy / run_folder.TIMINGS_FILE).read_text().splitlines()]
  assert sorted(timings) == list(range(10))


# ----- --force removes only what a run wrote


def test_force_refuses_a_folder_that_holds_no_run_and_deletes_nothing(tmp_path, capsys):
  folder = tmp_path / "mine"
  (folder / "plots").mkdir(parents=True)
  mine = {"config.toml": "my notes", "summary.md": "my summary", "plots/figure.png": "png",
          "records.jsonl": "{}\n"}
  for name, text in mine.items():
    (folder / name).write_text(text)
  err = error_of(capsys, "run", str(write(tmp_path, TOURNAMENT)), "--out", str(folder), "--force",
                 "--quiet")
  assert "holds no run (no manifest.json); --force removes only a run's own files" in err
  assert {name: (folder / name).read_text() for name in mine} == mine
  assert not (folder / run_folder.LOCK_FILE).exists()


def test_force_removes_the_runs_files_and_keeps_the_users(copy, tmp_path):
  (copy / "notes.txt").write_text("mine")
  (copy / "plots" / "mine.png").write_text("mine")
  other = write(tmp_path, TOURNAMENT.replace("seed = 3", "seed = 4"), name="other.toml")
  runner.run(other, out=copy, force=True, quiet=True)
  assert (copy / "notes.txt").read_text() == "mine"
  assert (copy / "plots" / "mine.png").read_text() == "mine"
  assert {json.loads(line)["seed"]["entropy"] for line in records(copy)} == {4}


@pytest.mark.parametrize("kind", ["tournament", "convergence"])
def test_the_manifest_lists_every_file_a_run_writes(tmp_path, kind):
  text = TOURNAMENT if kind == "tournament" else CONVERGENCE.format(games='["tiny"]', extra="")
  run_dir = runner.run(write(tmp_path, text), out=tmp_path / "run", quiet=True)
  written = {path.relative_to(run_dir).as_posix() for path in run_dir.rglob("*") if path.is_file()}
  manifest = json.loads((run_dir / run_folder.MANIFEST_FILE).read_text())["files"]
  assert written == set(manifest)


def test_force_refuses_a_run_without_a_manifest(copy, tmp_path):
  (copy / run_folder.MANIFEST_FILE).unlink()
  other = write(tmp_path, TOURNAMENT.replace("seed = 3", "seed = 4"), name="other.toml")
  with pytest.raises(RunError, match="written before runs listed their files"):
    runner.run(other, out=copy, force=True, quiet=True)
  runner.run(copy / run_folder.CONFIG_FILE, out=copy, quiet=True)  # resuming it lists them
  assert run_folder.RECORDS_FILE in json.loads((copy / run_folder.MANIFEST_FILE).read_text())[
      "files"]


def test_a_manifest_naming_a_file_outside_the_folder_is_refused(copy, tmp_path):
  outside = tmp_path / "outside.txt"
  outside.write_text("keep")
  (copy / run_folder.MANIFEST_FILE).write_text(json.dumps({"files": ["../outside.txt"]}))
  with pytest.raises(RunError, match="names inside the folder"):
    runner.run(copy / run_folder.CONFIG_FILE, out=copy, force=True, quiet=True)
  assert outside.read_text() == "keep"


# ----- sizes estimated before anything is built


@pytest.mark.parametrize("name", ["tiny", "robot", "three_players", "draft", "small"])
def test_the_tree_size_estimate_is_close_to_the_true_size(name):
  game = reduced_games.load_reduced(name)
  estimate = tree_size.estimate_tree_nodes(game)
  assert abs(estimate / GameTree(game).num_nodes - 1) < 0.15


def test_full_width_cfr_on_the_full_game_is_refused_at_once():
  start = time.perf_counter()
  with pytest.raises(tree_size.TreeTooLarge,
                     match=r"full-width cfr\+ builds its whole tree, which would have about .*e\+"
                     r".* nodes \(estimated\), more than the limit of 4,000,000"):
    policies.train(FULL_GAME, "cfr+", iterations=2, progress=False)
  assert time.perf_counter() - start < 20


def test_external_sampling_on_the_full_game_is_refused_and_outcome_sampling_is_not():
  game = pyspiel.load_game(FULL_GAME)
  with pytest.raises(tree_size.TreeTooLarge, match="es-mccfr visits every action sequence"):
    policies.make_solver("es-mccfr", game)
  assert policies.make_solver("os-mccfr", game).algorithm == "os-mccfr"


def test_train_on_the_full_game_is_refused_with_the_estimate_and_the_limit(capsys, tmp_path):
  err = error_of(capsys, "train", FULL_GAME, "--algorithm", "cfr", "--iterations", "2", "--out",
                 str(tmp_path / "p.npz"))
  assert "more than the limit of 4,000,000" in err and "--max-nodes" in err
  err = error_of(capsys, "train", "tiny", "--iterations", "2", "--max-nodes", "100", "--out",
                 str(tmp_path / "p.npz"))
  assert "more than the limit of 100 " in err
  assert not (tmp_path / "p.npz").exists()


@pytest.mark.parametrize("kind, table", [
    ("convergence", '[convergence]\nalgorithms = ["os-mccfr"]\niterations = 2'),
    ("abstraction",
     '[abstraction]\nalgorithm = "cfr+"\niterations = 2\nabstractions = ["identity"]'),
    ("exploitability", '[[players]]\nbot = "random"')])
def test_exact_solving_kinds_refuse_the_full_game_at_the_config_check(kind, table):
  text = textwrap.dedent(f"""
      [experiment]
      name = "sizes"
      kind = "{kind}"
      seed = 1
      games = ["tiny", "{FULL_GAME}"]
      """) + table + "\n"
  with pytest.raises(ConfigError, match=r"experiment.games\[1\]: .* more than the limit of"
                     r" 4,000,000 .*experiment.max_tree_nodes"):
    solving.parse(text)


def test_max_tree_nodes_sets_the_limit_and_stays_out_of_the_hash_when_unset():
  base = CONVERGENCE.format(games='["tiny"]', extra="")
  with pytest.raises(ConfigError, match="more than the limit of 100 "):
    solving.parse(CONVERGENCE.format(games='["tiny"]', extra="max_tree_nodes = 100"))
  raised = solving.parse(CONVERGENCE.format(games='["tiny"]', extra="max_tree_nodes = 1000"))
  assert raised.resolved()["experiment"]["max_tree_nodes"] == 1000
  assert "max_tree_nodes" not in solving.parse(base).resolved()["experiment"]


def test_a_tree_stops_building_at_the_limit_should_the_estimate_fall_short(monkeypatch):
  monkeypatch.setattr("solvers.equilibrium.game_tree.check_tree_size", lambda game, limit: 0)
  with pytest.raises(tree_size.TreeTooLarge, match="its tree has more than 301 nodes, over the"
                     " limit of 300"):
    GameTree(reduced_games.load_reduced("tiny"), max_nodes=300)


def test_a_tree_with_a_deal_too_large_to_list_is_refused_before_building():
  game = pyspiel.load_game("python_sushi_go(deal=hand,hand_size=20,rounds=1)")
  with pytest.raises(tree_size.TreeTooLarge, match="cannot be built: .* 62,682,858 outcomes"):
    GameTree(game)


def test_a_deal_too_large_to_list_is_refused_by_the_config_check_and_by_play(capsys):
  """Every game would refuse to list such a deal: the run refuses it before the first game."""
  game = "python_sushi_go(deal=hand,hand_size=20,rounds=1)"
  with pytest.raises(ConfigError, match=r"experiment.games\[0\]: .* cannot be played: .*"
                     "62,682,858 outcomes"):
    tournament_lib.parse(tournament_config("reliability", 3, game, 10))
  assert "62,682,858 outcomes" in error_of(capsys, "play", "--game", game, "--quiet")


# ----- numbers that are not finite


@pytest.mark.parametrize("bot, param, value", [
    ("heuristic", "temperature", "nan"), ("heuristic", "set_weight", "nan"),
    ("heuristic", "deny_weight", "inf"), ("so_ismcts", "seconds", "inf"),
    ("so_ismcts", "c", "-inf")])
def test_parameters_that_are_not_finite_are_refused_at_the_config_check(bot, param, value):
  text = tournament_config("reliability", 3, "python_sushi_go(players=2,rounds=1)", 10,
                           f'{{ bot = "{bot}", params = {{ {param} = {value} }} }}')
  with pytest.raises(ConfigError, match=rf"players\[1\].params.{param}: expected a finite number,"
                     rf" got {value}"):
    tournament_lib.parse(text)


@pytest.mark.parametrize("budget", ["seconds = inf", "seconds = nan", "seconds = -inf"])
def test_a_budget_that_is_not_finite_is_refused(budget):
  with pytest.raises(ConfigError, match="budget.seconds: expected a finite number > 0"):
    tournament_lib.parse(TOURNAMENT + f"\n[budget]\n{budget}\n")


def test_an_agent_parameter_that_is_not_finite_is_refused():
  text = textwrap.dedent("""
      [experiment]
      name = "approximate"
      kind = "approximate_exploitability"
      seed = 1
      games = ["tiny"]

      [approximate]
      num_games = 2
      agent = { c = nan }

      [[players]]
      bot = "random"
      """)
  with pytest.raises(ConfigError, match="approximate.agent.c: expected a finite number"):
    solving.parse(text)


@pytest.mark.parametrize("value", [math.nan, math.inf, "0.5", None])
def test_make_bot_refuses_a_numeric_parameter_that_is_not_a_finite_number(value):
  game = pyspiel.load_game("python_sushi_go(players=2)")
  with pytest.raises(ValueError, match="parameter 'temperature' of HeuristicBot is .*; allowed: a"
                     " finite number"):
    solvers.make_bot("heuristic", game, 0, 0, temperature=value)


@pytest.mark.parametrize("command", [["bench", "--seconds"], ["train", "tiny", "--out", "p.npz",
                                                             "--seconds"]])
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_seconds_that_are_not_a_finite_positive_number_are_refused(capsys, command, value):
  assert f"expected a finite positive float, got '{value}'" in error_of(capsys, *command, value)


def test_a_solver_refuses_seconds_that_are_not_finite():
  solver = policies.make_solver("os-mccfr", reduced_games.load_reduced("tiny"))
  with pytest.raises(ValueError, match="seconds is nan; allowed: a finite number of seconds > 0"):
    solver.run(seconds=math.nan)


def test_a_ray_address_where_nothing_listens_is_refused_at_once(capsys, tmp_path):
  pytest.importorskip("ray")
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
  start = time.monotonic()
  err = error_of(capsys, "run", str(write(tmp_path, TOURNAMENT)), "--out", str(tmp_path / "run"),
                 "--backend", "ray", "--address", f"127.0.0.1:{port}", "--quiet")
  assert f"--address 127.0.0.1:{port}: nothing answers there" in err
  assert time.monotonic() - start < 15


# ----- file errors: one sentence, before the work


def test_an_out_that_is_a_file_or_below_one_is_refused(capsys, tmp_path):
  config = write(tmp_path, TOURNAMENT)
  err = error_of(capsys, "run", str(config), "--out", str(config), "--quiet")
  assert f"{config} (--out) is a file, not a folder" in err
  err = error_of(capsys, "run", str(config), "--out", str(config / "run"), "--quiet")
  assert f"{config / 'run'} (--out) is below {config}, which is a file" in err


def test_a_run_folder_that_cannot_be_created_is_one_sentence(capsys, tmp_path, monkeypatch):
  def refuse(self, *args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied", str(self))
  monkeypatch.setattr(pathlib.Path, "mkdir", refuse)
  err = error_of(capsys, "run", str(write(tmp_path, TOURNAMENT)), "--out", str(tmp_path / "run"),
                 "--quiet")
  assert f"cannot write the run folder: {tmp_path / 'run'}: Permission denied" in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs a user that file permissions apply to")
def test_a_read_only_folder_is_one_sentence(capsys, tmp_path):
  folder = tmp_path / "read_only"
  folder.mkdir()
  folder.chmod(0o555)
  try:
    err = error_of(capsys, "run", str(write(tmp_path, TOURNAMENT)), "--out", str(folder / "run"),
                   "--quiet")
    assert "Permission denied" in err and str(folder) in err
    err = error_of(capsys, "train", "tiny", "--iterations", "2", "--out", str(folder / "p.npz"))
    assert f"cannot write in {folder}" in err
  finally:
    folder.chmod(0o755)


def test_a_full_disk_is_one_sentence_keeps_the_games_and_leaves_nothing_half_written(
    finished, tmp_path, monkeypatch, capsys):
  real_fsync, calls = os.fsync, []

  def fsync_until_full(fd):
    calls.append(fd)
    if len(calls) > 8:  # the manifest, the two config files, then five games
      raise OSError(errno.ENOSPC, "No space left on device")
    real_fsync(fd)
  monkeypatch.setattr(os, "fsync", fsync_until_full)
  run_dir = tmp_path / "run"
  err = error_of(capsys, "run", str(finished / run_folder.CONFIG_FILE), "--out", str(run_dir),
                 "--quiet")
  assert f"{run_dir / run_folder.RECORDS_FILE}: No space left on device; the games finished so" \
      " far are kept" in err
  assert err.count("\n") <= 5  # the usage lines and one sentence
  assert not list(run_dir.glob("*.tmp")) and not (run_dir / run_folder.PROVENANCE_FILE).exists()
  monkeypatch.setattr(os, "fsync", real_fsync)
  runner.run(finished / run_folder.CONFIG_FILE, out=run_dir, quiet=True)
  assert records(run_dir) == records(finished)


def test_a_failed_atomic_write_names_the_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
  def full(fd):
    raise OSError(errno.ENOSPC, "No space left on device")
  monkeypatch.setattr(os, "fsync", full)
  target = tmp_path / "provenance.json"
  with pytest.raises(OSError, match=f"No space left on device: '{target}'"):
    run_folder.write_atomically(target, "{}")
  assert list(tmp_path.iterdir()) == []


def test_train_checks_its_out_path_before_training(capsys, tmp_path, monkeypatch):
  monkeypatch.setattr(policies, "train", lambda *a, **k: pytest.fail("trained anyway"))
  err = error_of(capsys, "train", "tiny", "--iterations", "2", "--out",
                 str(tmp_path / "nodir" / "t.npz"))
  assert f"{tmp_path / 'nodir' / 't.npz'} (--out): its folder {tmp_path / 'nodir'} does not exist"\
      in err
  assert f"{tmp_path} (--out) is a folder" in error_of(capsys, "train", "tiny", "--iterations", "2",
                                                       "--out", str(tmp_path))


def test_bench_checks_its_json_path_before_measuring(capsys, tmp_path, monkeypatch):
  monkeypatch.setattr("experiments.bench.game.run", lambda **k: pytest.fail("measured anyway"))
  err = error_of(capsys, "bench", "--json", str(tmp_path / "nodir" / "b.json"))
  assert "(--json): its folder" in err and "does not exist" in err


# ----- small refusals


def test_a_text_file_as_a_policy_is_refused_naming_it(tmp_path):
  text = tmp_path / "notes.txt"
  text.write_text("not a policy")
  with pytest.raises(ValueError, match=f"{text} is not a valid policy file: it is not a numpy"
                     r" .npz archive \(it does not begin as a zip file\)"):
    policies.load_policy(str(text))
  game = pyspiel.load_game("python_sushi_go(players=2)")
  with pytest.raises(ValueError, match="is not a valid policy file"):
    solvers.make_bot("policy", game, 0, 0, path=str(text))


def test_train_names_the_reduced_games_for_an_unknown_game(capsys, tmp_path):
  err = error_of(capsys, "train", "nosuchgame", "--iterations", "2", "--out",
                 str(tmp_path / "p.npz"))
  assert "unknown game 'nosuchgame'; allowed: a reduced game (tiny, small" in err
  assert "python_sushi_go or python_sushi_draft" in err
  assert "goofspiel" not in err  # not OpenSpiel's list of every game


def test_a_number_of_thousands_of_digits_is_not_a_choice(capsys, monkeypatch):
  monkeypatch.setattr("sys.stdin", io.StringIO("9" * 5000 + "\n" + "1\n" * 9))
  assert main(["play", "--seed", "2", "--human", "0", "--game",
               "python_sushi_go(players=2,rounds=1)", "--quiet"]) == 0
  out = capsys.readouterr().out
  assert "'99999999999999999999...' is not a choice" in out


@pytest.mark.parametrize("game_string", ["python_sushi_go(players=2)",
                                         "python_sushi_draft(players=2)"])
def test_resampling_for_a_player_that_does_not_exist_is_refused(game_string):
  state = pyspiel.load_game(game_string).new_initial_state()
  with pytest.raises(ValueError, match="player 7 does not exist"):
    state.resample_from_infostate(7, pyspiel.UniformProbabilitySampler(0, 1, 0))


# ----- a second signal stops at once


@pytest.mark.skipif(not pathlib.Path("/proc").is_dir(), reason="reads /proc")
def test_a_second_signal_exits_at_once_and_kills_the_workers(tmp_path):
  """The first signal starts a clean stop; if that stop hangs, the second ends the process and its
  workers at once."""
  script = textwrap.dedent("""
      import multiprocessing, sys, time
      from experiments import stopping

      if __name__ == "__main__":
        worker = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(60,))
        with stopping.on_stop_signals("Run it again with --out there to resume."):
          worker.start()
          try:  # the pid inside: the signal may come as soon as it is read
            print(worker.pid, flush=True)
            time.sleep(60)
          except KeyboardInterrupt:
            print("stopping", flush=True)
            time.sleep(60)  # a clean stop that hangs
      """)
  path = write(tmp_path, script, name="hang.py")
  process = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
  worker = int(process.stdout.readline())
  process.send_signal(signal.SIGINT)
  assert process.stdout.readline().strip() == "stopping"
  start = time.monotonic()
  process.send_signal(signal.SIGTERM)
  _, err = process.communicate(timeout=20)
  assert process.returncode == 130 and time.monotonic() - start < 10
  assert "Stopped at once. Run it again with --out there to resume." in err
  assert gone(worker)


def gone(pid: int) -> bool:
  """Whether process `pid` has ended (a zombie that no one reaps has ended too)."""
  try:
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
  except FileNotFoundError:
    return True
  return stat.rsplit(")", 1)[1].split()[0] in "ZX"


def test_a_policy_that_cannot_be_saved_leaves_no_half_written_file(capsys, tmp_path, monkeypatch):
  def full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
  monkeypatch.setattr(policies.np, "savez_compressed", full)
  err = error_of(capsys, "train", "tiny", "--iterations", "2", "--quiet", "--out",
                 str(tmp_path / "p.npz"))
  assert f"the policy could not be saved to {tmp_path / 'p.npz'}: No space left on device" in err
  assert list(tmp_path.iterdir()) == []
