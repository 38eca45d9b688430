"""The linear Q agent: its kernels compute `features . weights`, its learning step is normalized
least mean squares, the bot plays the saved model's best legal action, and the training script
writes the model and its learning curve."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest

import sushigo_spiel  # noqa: F401  (registers the games)
from experiments import train_linear_q as training
from solvers import make_bot
from solvers.linear_q import LinearQ, feature_count, features, masked_argmax
from solvers.match import play_match


def observations(rng, games=6, size=11):
  counts = rng.integers(0, 7, (games, size)).astype(np.float32)
  counts[:, -1] = rng.integers(0, 80, games)  # points
  return counts * (rng.random((games, size)) < 0.6)


def test_kernel_values_are_features_times_weights():
  rng = np.random.default_rng(0)
  x = observations(rng)
  weights = rng.normal(size=(5, feature_count(x.shape[1])))
  dense = features(x) @ weights.T
  indices, values = np.empty(100, dtype=np.int64), np.empty(100)
  for game in range(len(x)):
    count = training.active_features(x[game], indices, values)
    for action in range(5):
      assert training.action_value(weights, action, indices, values, count) == \
          pytest.approx(dense[game, action])
  masks = (rng.random((len(x), 5)) < 0.5).astype(np.int8)
  masks[:, 2] = 1
  actions = np.empty(len(x), dtype=np.int64)
  training.choose_actions(weights, x, masks, 0.0, np.zeros((len(x), 2)), actions)
  np.testing.assert_array_equal(actions, masked_argmax(dense, masks))


def test_a_learning_step_closes_the_error_by_the_rate():
  rng = np.random.default_rng(1)
  x = observations(rng, games=1)
  weights = rng.normal(size=(3, feature_count(x.shape[1])))
  action, reward = np.array([1]), np.array([2.5], dtype=np.float32)
  before = reward[0] - (features(x) @ weights.T)[0, 1]
  training.learn(weights, x, action, reward, np.array([True]), x, np.ones((1, 3), np.int8), 0.25)
  after = reward[0] - (features(x) @ weights.T)[0, 1]
  assert after == pytest.approx(0.75 * before)


def test_the_bot_plays_the_models_best_legal_action(tmp_path):
  game = pyspiel.load_game("python_sushi_go(players=2)")
  size = game.observation_tensor_size()
  weights = np.random.default_rng(2).normal(size=(game.num_distinct_actions(),
                                                   feature_count(size)))
  path = str(tmp_path / "model.npz")
  LinearQ(weights, {"game": "python_sushi_go(players=2,utility=margin)",
                    "observation_type": "observation"}).save(path)
  bots = [make_bot("linear_q", game, 0, path=path), make_bot("random", game, 1, seed=0)]
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  observation = np.array(state.observation_tensor(0), dtype=np.float32)[None, :]
  values = (features(observation) @ weights.T)[0]
  legal = state.legal_actions(0)
  assert bots[0].step(state) == max(legal, key=lambda a: (values[a], -a))
  assert play_match(game, bots, np.random.default_rng(0)).is_terminal()
  with pytest.raises(ValueError, match="was trained for python_sushi_go"):
    make_bot("linear_q", pyspiel.load_game("python_sushi_go(players=3)"), 0, path=path)
  with pytest.raises(ValueError, match="needs parameter 'path'"):
    make_bot("linear_q", game, 0)


def test_the_training_script_writes_the_model_and_its_curve(tmp_path):
  out = tmp_path / "agent" / "linear_q.npz"
  assert training.main(["--opponent", "greedy", "--steps", "8192", "--num-envs", "256",
                        "--eval-every", "4096", "--eval-games", "64", "--quiet",
                        "--out", str(out)]) == 0
  model = LinearQ.load(str(out))
  assert model.metadata["steps"] == 8192 and model.metadata["opponent"] == "greedy"
  assert np.abs(model.weights).sum() > 0
  rows = (tmp_path / "agent" / "learning_curve.csv").read_text().splitlines()
  assert rows[0].startswith("steps,seconds,margin,low,high,win_rate") and len(rows) == 4
  assert (tmp_path / "agent" / "learning_curve.png").stat().st_size > 10_000
  assert json.loads(json.dumps(model.metadata))["game"].startswith("python_sushi_go(")
