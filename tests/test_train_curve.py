"""The PPO training command's learning curve, written beside the checkpoint: its file names, the CSV
read back field by field, and the plot read back from the matplotlib figure (series, interval,
reference lines, labels, legend, size and resolution); and the sentence naming the settings a
resumed checkpoint differs in. No training here: the curve is made by hand."""

from __future__ import annotations

import csv
import dataclasses
import math
import pathlib
import struct

import numpy as np
import pytest

from experiments.commands import train_ppo

FIELDS = ["iteration", "steps", "seconds", "cpu_seconds", "opponent", "games", "mean_margin",
          "win_share", "win_low", "win_high", "tie_share"]
CURVE = [  # three points, with an extra key the CSV leaves out
    {"iteration": 0, "steps": 0, "seconds": 0.0, "cpu_seconds": 0.0,
     "opponent": "heuristic", "games": 40,
     "mean_margin": -12.5, "win_share": 0.1, "win_low": 0.04, "win_high": 0.23, "tie_share": 0.0,
     "return": -1.0},
    {"iteration": 5, "steps": 2_500_000, "seconds": 61.2, "cpu_seconds": 118.7,
     "opponent": "heuristic", "games": 40,
     "mean_margin": -1.25, "win_share": 0.45, "win_low": 0.3, "win_high": 0.6, "tie_share": 0.05,
     "return": 0.0},
    {"iteration": 9, "steps": 4_000_000, "seconds": 99.9, "cpu_seconds": 190.3,
     "opponent": "heuristic", "games": 40,
     "mean_margin": 3.5, "win_share": 0.7, "win_low": 0.55, "win_high": 0.82, "tie_share": 0.025,
     "return": 1.0},
]
GAME = "python_sushi_go(players=2,utility=margin)"


@pytest.mark.parametrize("out, csv_name, png_name", [
    ("run/agent.npz", "agent.curve.csv", "agent.curve.png"),
    ("run/agent", "agent.curve.csv", "agent.curve.png"),
    ("run/v1.2.npz", "v1.2.curve.csv", "v1.2.curve.png"),
])
def test_the_curve_files_stand_beside_the_checkpoint(out, csv_name, png_name):
  """NAME.curve.csv and NAME.curve.png in the checkpoint's folder, NAME its file name without its
  last suffix."""
  assert train_ppo.curve_paths(out) == (pathlib.Path("run", csv_name), pathlib.Path("run",
                                                                                    png_name))
  assert train_ppo.curve_paths(pathlib.Path(out)) == train_ppo.curve_paths(out)


@pytest.fixture(name="drawn")
def drawn_figure(monkeypatch) -> list:
  """The figures `write_curve` draws, kept when it closes them."""
  figures = []
  close = train_ppo.plt.close
  monkeypatch.setattr(train_ppo.plt, "close", lambda figure: figures.append(figure)
                      or close(figure))
  return figures


def png_size(path: pathlib.Path) -> tuple[int, int]:
  """Width and height in pixels, from the PNG header."""
  header = path.read_bytes()[:24]
  assert header[:8] == b"\x89PNG\r\n\x1a\n"
  return struct.unpack(">II", header[16:24])


def test_the_curve_is_written_as_csv_and_drawn(tmp_path, drawn):
  out = tmp_path / "agent.npz"
  train_ppo.write_curve(CURVE, out, GAME)
  csv_path, png_path = train_ppo.curve_paths(out)
  assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.curve.csv", "agent.curve.png"]
  with open(csv_path, newline="", encoding="utf-8") as file:
    lines = file.read().split("\r\n")
  assert lines[0] == ",".join(FIELDS) and lines[-1] == "" and len(lines) == 5
  with open(csv_path, newline="", encoding="utf-8") as file:
    rows = list(csv.DictReader(file))
  assert rows == [{field: str(point[field]) for field in FIELDS} for point in CURVE]
  assert png_size(png_path) == (7 * 110, 6 * 110)  # 7 by 6 inches at 110 dpi

  (figure,) = drawn
  wins, margins = figure.axes
  millions = [0.0, 2.5, 4.0]
  assert wins.get_shared_x_axes().joined(wins, margins)
  assert wins.get_subplotspec().get_geometry()[:2] == (2, 1)
  share_line, half = wins.lines
  assert np.allclose(share_line.get_xydata(), list(zip(millions, [0.1, 0.45, 0.7])))
  assert share_line.get_marker() == "." and share_line.get_label() == "PPO agent (greedy)"
  assert np.allclose(half.get_ydata(), [0.5, 0.5]) and half.get_color() == "black"
  assert half.get_linewidth() == 0.8
  (band,) = wins.collections
  vertices = band.get_paths()[0].vertices
  lows = {(round(x, 6), round(y, 6)) for x, y in vertices}
  for x, low, high in zip(millions, [0.04, 0.3, 0.55], [0.23, 0.6, 0.82]):
    assert (round(x, 6), low) in lows and (round(x, 6), high) in lows
  assert band.get_alpha() == 0.25 and band.get_label() == "Wilson 95% interval"
  assert wins.get_ylabel() == "share of games outscoring heuristic"
  assert wins.get_title() == f"PPO against heuristic, 40 games a point, {GAME}"
  assert wins.title.get_fontsize() == 8
  legend = wins.get_legend()
  assert [t.get_text() for t in legend.get_texts()] == ["PPO agent (greedy)",
                                                        "Wilson 95% interval"]
  assert legend._loc == 4 and {t.get_fontsize() for t in legend.get_texts()} == {8}  # lower right
  margin_line, zero = margins.lines
  assert np.allclose(margin_line.get_xydata(), list(zip(millions, [-12.5, -1.25, 3.5])))
  assert margin_line.get_marker() == "."
  assert np.allclose(zero.get_ydata(), [0, 0]) and zero.get_color() == "black"
  assert zero.get_linewidth() == 0.8
  assert (margins.get_ylabel(), margins.get_xlabel()) == ("mean margin",
                                                         "environment steps (millions)")
  assert figure.get_layout_engine() is not None  # laid out tightly, labels not cut


def test_a_rewritten_curve_replaces_the_files(tmp_path, drawn):
  out = tmp_path / "agent.npz"
  train_ppo.write_curve(CURVE, out, GAME)
  train_ppo.write_curve(CURVE[:1], out, GAME)
  with open(train_ppo.curve_paths(out)[0], newline="", encoding="utf-8") as file:
    assert len(list(csv.DictReader(file))) == 1
  assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.curve.csv", "agent.curve.png"]


@dataclasses.dataclass
class Settings:
  game: str
  hidden: int
  seed: int


def test_a_resumed_checkpoint_names_each_setting_it_differs_in():
  stored, given = Settings("tiny", 16, 0), Settings("small", 32, 0)
  assert train_ppo._differences(stored, given) == (  # pylint: disable=protected-access
      "game 'tiny', not 'small', hidden 16, not 32")
  assert train_ppo._differences(stored, stored) == ""  # pylint: disable=protected-access


@pytest.mark.parametrize("game_string, observation_type, params", [
    (GAME, "observation", {"utility": "margin"}),
    ("python_sushi_go(players=3)", "information_state", {"players": 3})])
def test_the_memory_estimate_counts_games_rollouts_and_network(game_string, observation_type,
                                                               params):
  """`ppo_memory` as its docstring counts it, each part checked by how the total moves: per game,
  the arrays of a real batch of 16 games over 16 (rounded up) and the rollout's steps twice over (observation as float32, mask, action, four float32 figures); the
  network's two hidden layers in float64 (draw and QR factors, three arrays of the larger width by
  the hidden width) and float32 weights, gradients and two Adam moments."""
  ppo = pytest.importorskip("solvers.learning.ppo")
  from solvers.envs.batched import SushiGoBatch  # pylint: disable=import-outside-toplevel
  from solvers.opponents import compiled_opponents  # pylint: disable=import-outside-toplevel
  import pyspiel  # pylint: disable=import-outside-toplevel

  def memory(**settings) -> int:
    return train_ppo.ppo_memory(ppo.PPOConfig.from_assignments(
        [f"{key}={value}" for key, value in settings.items()], game=game_string, seed=0,
        observation_type=observation_type))

  game = pyspiel.load_game(game_string)
  batch = SushiGoBatch(16, opponents=compiled_opponents(game, "random"), seed=0,
                       observation_type=observation_type, **params)
  per_game = math.ceil(sum(v.nbytes for v in vars(batch).values() if isinstance(v, np.ndarray))
                       / 16)
  inputs, actions = batch.observation_size, batch.num_actions
  per_step = 4 * inputs + actions + 4 + 4 * 4
  base = {"num_envs": 32, "rollout_steps": 4, "hidden": 16}
  games_part = memory(**{**base, "num_envs": 80}) - memory(**base)
  assert games_part == 48 * (per_game + 2 * 4 * per_step)
  steps_part = memory(**{**base, "rollout_steps": 10}) - memory(**base)
  assert steps_part == 32 * 2 * 6 * per_step

  def network(hidden: int) -> int:
    weights = inputs * hidden + hidden * hidden + hidden * (actions + 1)
    return 3 * 8 * max(inputs, hidden) * hidden + 4 * 4 * weights
  for hidden in (16, 2 * inputs):
    assert memory(**base) - network(16) == memory(**{**base, "hidden": hidden}) - network(hidden)
  assert memory(**base) == 32 * (per_game + 2 * 4 * per_step) + network(16)
