"""The identity of a run's input files: the digest of every policy file a run uses is in its resolved
config and provenance; a resume or a reproduce with a changed file is refused, naming the file and
both digests; a run recorded before digests (as the stored ones) still resumes and reproduces."""

from __future__ import annotations

import json
import pathlib

import pytest

from experiments import run_folder
from experiments import runner
from experiments.tournament import config as tournament_config
from experiments.cli import main
from experiments.config import ConfigError
from experiments.run_folder import RunError
from solvers import archives
from solvers.equilibrium import policies as policy_io

TINY = ("python_sushi_go(players=2,rounds=1,hand_size=3,deal=hand,utility=margin,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1)")


def config_for(path) -> str:
  return f"""
[experiment]
name = "inputs"
seed = 3
games = ["{TINY}"]
num_games = 4

[[players]]
name = "cfr"
bot = "policy"
params = {{ path = "{path}" }}

[[players]]
name = "random"
bot = "random"
"""


@pytest.fixture
def run(tmp_path):
  """A finished run of a policy against random, and its policy file's path."""
  policy = tmp_path / "p.npz"
  policy_io.train(TINY, "cfr+", "identity", iterations=5, seed=1, out_path=str(policy),
                  progress=False)
  config = tmp_path / "config.toml"
  config.write_text(config_for(policy))
  run_dir = tmp_path / "run"
  runner.run(config, out=run_dir, quiet=True)
  return config, run_dir, policy


def test_the_digest_of_each_input_file_is_recorded(run):
  _, run_dir, policy = run
  digest = archives.load(policy, "policy file").digest
  resolved = json.loads((run_dir / run_folder.RESOLVED_FILE).read_text())
  assert resolved[run_folder.INPUTS] == {str(policy): digest}
  session, = json.loads((run_dir / run_folder.PROVENANCE_FILE).read_text())["sessions"]
  assert session[run_folder.INPUTS] == {str(policy): digest}


def test_a_changed_input_file_is_refused_at_resume_and_reproduce(run, capsys):
  config, run_dir, policy = run
  before = archives.load(policy, "policy file").digest
  policy_io.train(TINY, "cfr+", "identity", iterations=9, seed=1, out_path=str(policy),
                  progress=False)
  after = archives.load(policy, "policy file").digest
  message = (f"{policy} is not the file this run used: its content digest is {after} now,"
             f" {before} in {run_dir / run_folder.RESOLVED_FILE}")
  with pytest.raises(RunError, match=message):
    runner.run(config, out=run_dir, quiet=True)
  with pytest.raises(RunError, match=message):
    runner.reproduce(run_dir)
  with pytest.raises(SystemExit) as refused:
    main(["reproduce", str(run_dir)])
  assert refused.value.code == 2 and message in capsys.readouterr().err


def test_a_run_recorded_before_digests_resumes_and_reproduces_naming_its_files(run, capsys):
  config, run_dir, policy = run
  resolved_path = run_dir / run_folder.RESOLVED_FILE
  resolved = json.loads(resolved_path.read_text())
  del resolved[run_folder.INPUTS]
  resolved_path.write_text(json.dumps(resolved, indent=2) + "\n")
  assert runner.reproduce(run_dir)
  err = capsys.readouterr().err
  assert "records no digests of its input files" in err and str(policy) in err
  runner.run(config, out=run_dir, quiet=True)  # resumed: its files' digests recorded from now on
  assert str(policy) in json.loads(resolved_path.read_text())[run_folder.INPUTS]


def test_a_damaged_input_file_is_refused_before_any_game(tmp_path):
  policy = tmp_path / "p.npz"
  policy.write_bytes(b"PK\x03\x04 damaged")
  config = tmp_path / "config.toml"
  config.write_text(config_for(policy))
  with pytest.raises(ConfigError, match=f"{policy} is not a valid policy file: its archive is"
                     " damaged"):
    runner.run(config, out=tmp_path / "run", quiet=True)
  assert not (tmp_path / "run" / run_folder.RECORDS_FILE).exists()


def test_a_measure_of_a_policy_file_reports_its_digest(tmp_path, capsys):
  policy = tmp_path / "p.npz"
  policy_io.train("tiny", "cfr+", "identity", iterations=3, seed=1, out_path=str(policy),
                  progress=False)
  figures = tmp_path / "figures.json"
  assert main(["exploitability", "tiny", "--policy", str(policy), "--out", str(tmp_path / "run"),
               "--json", str(figures), "--quiet"]) == 0
  capsys.readouterr()
  assert json.loads(figures.read_text())[run_folder.INPUTS] == {
      str(policy): archives.load(policy, "policy file").digest}


def test_a_damaged_policy_file_given_to_exploitability_is_named_as_policy(tmp_path, capsys):
  policy = tmp_path / "p.npz"
  policy.write_bytes(b"PK\x03\x04 damaged")
  with pytest.raises(SystemExit) as refused:
    main(["exploitability", "tiny", "--policy", str(policy), "--out", str(tmp_path / "run"),
          "--quiet"])
  err = capsys.readouterr().err
  assert refused.value.code == 2 and f"--policy {policy} is not a valid policy file" in err
  assert "--param:" not in err


def test_the_stored_blueprint_a_subgame_bot_reads_by_default_is_an_input(tmp_path, monkeypatch):
  """`path="auto"` (the subgame bot's default) reads a stored blueprint chosen by the game's player
  count and the bot's objective: that file's digest is recorded like a named one."""
  monkeypatch.chdir(pathlib.Path(__file__).resolve().parents[1])
  config = tmp_path / "config.toml"
  config.write_text("""
[experiment]
name = "auto-inputs"
seed = 3
games = ["python_sushi_go(players=2)", "python_sushi_go(players=4)"]
num_games = 4

[[players]]
name = "subgame (win)"
bot = "subgame"
params = { objective = "win" }

[[players]]
name = "random"
bot = "random"
""")
  parsed = tournament_config.load(config)
  expected = [str(pathlib.Path("experiments/results/policies") / name)
              for name in ("blueprint_2p.npz", "blueprint_4p.npz")]
  assert run_folder.input_paths(parsed) == expected
  assert list(run_folder.input_digests(parsed)) == expected
