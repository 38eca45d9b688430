"""`sushigo train GAME --algorithm ppo`, the command's own logic, with a stand-in for the trainer
(`solvers.learning.ppo.PPOTrainer`: no JAX training here, `test_ppo.py` trains for real): the
options it refuses, the settings it passes on, --out and --agent, resume and the settings a
checkpoint keeps, what it saves at each checkpoint and at the end, and what it prints."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import os
import re
import sys

import pytest

from experiments import estimates, run_lock, stopping
from experiments.cli import main
from experiments.commands import train_ppo

ppo = pytest.importorskip("solvers.learning.ppo")
GAME = "python_sushi_go(players=2,utility=margin)"
SMALL = ["--ppo", "num_envs=24", "--ppo", "rollout_steps=2", "--ppo", "hidden=8"]


class StandInTrainer:
  """Records how it is run; each iteration adds 1,000 steps and 2 seconds and a curve point."""
  runs: list[dict] = []

  def __init__(self, config):
    self.config, self.iteration, self.steps, self.seconds = config, 0, 0, 0.0
    self.curve = [self._point()]

  def _point(self) -> dict:
    share = 0.25 + 0.05 * self.iteration
    return {"iteration": self.iteration, "steps": self.steps, "seconds": self.seconds,
            "opponent": self.config.eval_opponent, "games": 40, "mean_margin": -2.5,
            "win_share": share, "win_low": share - 0.125, "win_high": share + 0.25,
            "tie_share": 0.0}

  def run(self, iterations, seconds, show_progress, checkpoint, checkpoint_seconds, stop):
    StandInTrainer.runs.append({"iterations": iterations, "seconds": seconds,
                                "show_progress": show_progress,
                                "checkpoint_seconds": checkpoint_seconds})
    for _ in range(iterations or 3):
      self.iteration += 1
      self.steps += 1000
      self.seconds += 2.0
      self.curve.append(self._point())
      checkpoint()
      if stop():
        return

  def save(self, path, agent_path=None):
    state = {"config": dataclasses.asdict(self.config), "iteration": self.iteration,
             "steps": self.steps, "seconds": self.seconds, "curve": self.curve}
    for target in (path, agent_path):
      if target:
        with open(target, "w", encoding="utf-8") as file:
          json.dump(state, file)

  @classmethod
  def resume(cls, path):
    with open(path, encoding="utf-8") as file:
      state = json.load(file)
    trainer = cls(ppo.PPOConfig(**state["config"]))
    trainer.iteration, trainer.steps = state["iteration"], state["steps"]
    trainer.seconds, trainer.curve = state["seconds"], state["curve"]
    return trainer


@pytest.fixture(autouse=True)
def stand_in(monkeypatch):
  StandInTrainer.runs = []
  monkeypatch.setattr(ppo, "PPOTrainer", StandInTrainer)


def train(tmp_path, *extra, game=GAME) -> int:
  return main(["train", game, "--algorithm", "ppo", "--quiet", "--out",
               str(tmp_path / "agent.npz"), *SMALL, *extra])


def refusal(capsys, tmp_path, *extra, game=GAME) -> str:
  with pytest.raises(SystemExit) as refused:
    train(tmp_path, *extra, game=game)
  assert refused.value.code == 2
  err = capsys.readouterr().err
  assert err.startswith("sushigo train: error: ") and err.count("\n") == 1, err
  return err.removeprefix("sushigo train: error: ").removesuffix("\n")


def saved(path) -> dict:
  with open(path, encoding="utf-8") as file:
    return json.load(file)


def test_a_training_saves_the_checkpoint_agent_and_curve_and_says_so(tmp_path, capsys,
                                                                     monkeypatch):
  out, agent = tmp_path / "agent.npz", tmp_path / "alone.npz"
  drawn = []
  monkeypatch.setattr(train_ppo.plt, "close", drawn.append)
  assert train(tmp_path, "--iterations", "3", "--agent", str(agent), "--seed", "7",
               "--checkpoint-seconds", "9.5") == 0
  assert StandInTrainer.runs == [{"iterations": 3, "seconds": None, "show_progress": False,
                                  "checkpoint_seconds": 9.5}]
  state = saved(out)
  assert state == saved(agent) and state["iteration"] == 3
  assert (state["config"]["game"], state["config"]["seed"], state["config"]["num_envs"],
          state["config"]["rollout_steps"], state["config"]["hidden"]) == (GAME, 7, 24, 2, 8)
  assert state["config"]["opponents"] == ppo.PPOConfig.opponents  # the default league
  with open(tmp_path / "agent.curve.csv", newline="", encoding="utf-8") as file:
    assert [row["iteration"] for row in csv.DictReader(file)] == ["0", "1", "2", "3"]
  assert (tmp_path / "agent.curve.png").stat().st_size > 0
  assert len(drawn) == 4  # the curve drawn at each of the 3 checkpoints and at the end
  assert drawn[-1].axes[0].get_title() == f"PPO against heuristic, 40 games a point, {GAME}"
  assert capsys.readouterr().out == (
      f"PPO on {GAME}: 3 iterations, 3,000 steps in 6 s (500 steps/s); against heuristic:"
      f" outscores it in 0.400 of 40 games [0.275, 0.650], mean margin -2.50; saved to {out}"
      f" and {agent}\n")


def test_seconds_progress_and_opponents_are_passed_on(tmp_path, capsys):
  main(["train", "tiny", "--algorithm", "ppo", "--seconds", "4.5", "--out",
        str(tmp_path / "agent.npz"), "--opponents", "random:1", *SMALL])
  assert StandInTrainer.runs == [{"iterations": None, "seconds": 4.5, "show_progress": True,
                                  "checkpoint_seconds": 60.0}]
  state = saved(tmp_path / "agent.npz")
  from sushigo_spiel import reduced_games  # pylint: disable=import-outside-toplevel
  assert state["config"]["game"] == reduced_games.reduced_game_string("tiny")
  assert state["config"]["opponents"] == "random:1"
  printed = capsys.readouterr().out
  assert printed.endswith(f"saved to {tmp_path / 'agent.npz'}\n")  # no agent file named


def test_resume_carries_on_and_keeps_its_settings(tmp_path, capsys):
  out = tmp_path / "agent.npz"
  assert train(tmp_path, "--iterations", "2") == 0
  assert refusal(capsys, tmp_path, "--iterations", "2") == (
      f"{out} (--out) exists; pass --resume to continue its training, or --force to train afresh"
      " over it, or choose another --out")
  assert refusal(capsys, tmp_path, "--iterations", "2", "--resume", "--ppo", "hidden=16") == (
      f"the checkpoint {out} was trained with other settings (hidden 8, not 16); --resume"
      " carries on its own: leave out --ppo and --opponents, and give its game")
  for game, extra in ((GAME, ["--opponents", "random:1"]), ("python_sushi_go(players=2)", [])):
    with pytest.raises(SystemExit):  # without --ppo: the opponents given, or another game
      main(["train", game, "--algorithm", "ppo", "--quiet", "--out", str(out), "--iterations",
            "2", "--resume", *extra])
    differences = "opponents 'heuristic:6,greedy:1,random:1', not 'random:1'" if extra else \
        f"game '{GAME}', not 'python_sushi_go(players=2)'"
    err = capsys.readouterr().err
    assert f"{out} was trained with other settings (" in err and differences in err, err
  # without --ppo, --opponents or another game, a resume carries on with its own settings
  assert main(["train", GAME, "--algorithm", "ppo", "--quiet", "--out", str(out), "--iterations",
               "2", "--resume", "--seed", "5"]) == 0
  state = saved(out)
  assert state["iteration"] == 4 and state["config"]["hidden"] == 8
  assert state["config"]["seed"] == 0
  assert train(tmp_path, "--iterations", "1", "--force") == 0
  assert saved(out)["iteration"] == 1
  capsys.readouterr()
  missing = tmp_path / "none.npz"
  with pytest.raises(SystemExit):
    main(["train", GAME, "--algorithm", "ppo", "--iterations", "1", "--out", str(missing),
          "--resume"])
  assert capsys.readouterr().err.endswith(
      f"error: {missing} (--out) does not exist: --resume continues the checkpoint saved there;"
      " leave out --resume to start a training\n")


@pytest.mark.parametrize("option", [["--abstraction", "cards"], ["--workers", "2"],
                                    ["--backend", "ray"], ["--play", "mean"],
                                    ["--restart-average"]])
def test_options_that_are_not_ppos_are_refused(tmp_path, capsys, option):
  assert refusal(capsys, tmp_path, "--iterations", "1", *option) == (
      "--abstraction, --workers, --backend, --play and --restart-average are not PPO's: leave"
      " them out with --algorithm ppo")
  assert StandInTrainer.runs == []


def test_without_the_learn_extra_the_command_says_what_to_install(tmp_path, capsys, monkeypatch):
  import solvers.learning  # pylint: disable=import-outside-toplevel
  monkeypatch.delattr(solvers.learning, "ppo")
  monkeypatch.setitem(sys.modules, "solvers.learning.ppo", None)  # as if it could not import
  assert refusal(capsys, tmp_path, "--iterations", "1").startswith(
      "--algorithm ppo needs the learn extra (JAX and optax): pip install"
      " 'sushigo-spiel[learn]' (")


def test_bad_paths_and_settings_are_refused_before_training(tmp_path, capsys):
  assert refusal(capsys, tmp_path, "--iterations", "1", "--agent",
                 str(tmp_path / "no" / "a.npz")) == (f"{tmp_path / 'no' / 'a.npz'} (--agent): its"
                                                     f" folder {tmp_path / 'no'} does not exist;"
                                                     " create it first")
  assert refusal(capsys, tmp_path, "--iterations", "1", "--out",
                 str(tmp_path / "no" / "b.npz")) == (f"{tmp_path / 'no' / 'b.npz'} (--out): its"
                                                     f" folder {tmp_path / 'no'} does not exist;"
                                                     " create it first")
  assert refusal(capsys, tmp_path, "--iterations", "1", "--ppo", "nope=1").startswith(
      "PPO setting 'nope=1'; allowed: KEY=VALUE")
  assert StandInTrainer.runs == [] and list(tmp_path.iterdir()) == []


def test_a_memory_shortfall_names_the_settings(tmp_path, capsys, monkeypatch):
  monkeypatch.setattr(train_ppo, "ppo_memory", lambda config: 10**18)
  line = refusal(capsys, tmp_path, "--iterations", "1")
  assert re.fullmatch(r"PPO's 24 games \(--ppo num_envs\), its rollout of 2 steps each and its"
                      r" network of 8 units a layer would take \S+ \S+ of memory; this machine"
                      r" has .+ available; allowed: fewer num_envs, rollout_steps or hidden"
                      r" \(--ppo\), or a machine with the memory", line), line
  assert StandInTrainer.runs == []


def test_memory_is_estimated_with_the_config_given(tmp_path, monkeypatch):
  seen = []
  monkeypatch.setattr(estimates, "check_memory", lambda needs: seen.extend(needs))
  monkeypatch.setattr(train_ppo, "ppo_memory", lambda config: config.num_envs * 1000 + 7)
  assert train(tmp_path, "--iterations", "1") == 0
  (need,) = seen
  assert need.bytes == 24 * 1000 + 7


def test_a_checkpoint_that_cannot_be_saved_is_one_sentence(tmp_path, capsys, monkeypatch):
  def failing(self, path, agent_path=None):
    raise PermissionError(13, "Permission denied")
  monkeypatch.setattr(StandInTrainer, "save", failing)
  assert refusal(capsys, tmp_path, "--iterations", "1") == (
      f"the checkpoint could not be saved to {tmp_path / 'agent.npz'}: Permission denied")


def test_a_checkpoint_held_by_another_training_is_refused(tmp_path, capsys):
  out = tmp_path / "agent.npz"
  with run_lock.writing_file(out, "--out"):
    assert refusal(capsys, tmp_path, "--iterations", "1").startswith(
        f"{out} (--out) is being written by process {os.getpid()}")
  assert StandInTrainer.runs == []


def test_a_training_stopped_by_ctrl_c_saves_and_says_how_to_resume(tmp_path, capsys,
                                                                   monkeypatch):
  out = tmp_path / "agent.npz"
  hint = f"Run the same command with --resume to continue from the last checkpoint in {out}."

  @contextlib.contextmanager
  def stopped_at_once(given):
    assert given == hint
    yield lambda: True
  monkeypatch.setattr(stopping, "deferred_stop", stopped_at_once)
  assert train(tmp_path, "--iterations", "3") == stopping.EXIT_STATUS
  captured = capsys.readouterr()
  assert captured.err == f"Stopped at iteration 1. {hint}\n"
  assert saved(out)["iteration"] == 1 and captured.out.endswith(f"saved to {out}\n")


def test_a_training_with_no_time_yet_reports_a_rate_of_zero(tmp_path, capsys, monkeypatch):
  """Stopped before its first iteration, a training has run 0 seconds: its rate reads 0."""
  monkeypatch.setattr(StandInTrainer, "run", lambda self, *args, **kwargs: None)
  assert train(tmp_path, "--iterations", "1") == 0
  assert f"PPO on {GAME}: 0 iterations, 0 steps in 0 s (0 steps/s); " in capsys.readouterr().out
