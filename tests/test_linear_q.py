"""The linear Q agent: its kernels compute `features . weights`, its learning step is normalized
least mean squares, the bot plays the saved model's best legal action, and the training script
writes the model and its learning curve."""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import types

import numba
import numpy as np
import pyspiel
import pytest
import scipy.stats
from PIL import Image

import sushigo_spiel  # noqa: F401  (registers the games)
from experiments import estimates, run_lock
from experiments import train_linear_q as training
from solvers import make_bot
from solvers.linear_q import LinearQ, feature_count, features, masked_argmax
from solvers.match import play_match
from solvers.opponents import compiled_opponents
from solvers.provenance import git_commit, package_version
from support import FlushedOnly


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


def refusal(capsys, argv) -> str:
  """The last line of stderr of a refused `training.main(argv)` (status 2)."""
  with pytest.raises(SystemExit) as refused:
    training.main(argv)
  assert refused.value.code == 2
  return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("option, message", [
    (["--steps", "0"], "--steps is 0; allowed: 1 or more"),
    (["--num-envs", "-1"], "--num-envs is -1; allowed: 1 or more"),
    (["--eval-every", "0"], "--eval-every is 0; allowed: 1 or more"),
    (["--eval-games", "0"], "--eval-games is 0; allowed: 1 or more"),
    (["--minutes", "0"], "--minutes is 0.0; allowed: a finite number > 0"),
    (["--minutes", "inf"], "--minutes is inf; allowed: a finite number > 0"),
    (["--learning-rate", "nan"], "--learning-rate is nan; allowed: a finite number > 0"),
    (["--epsilon", "1.5"], "--epsilon is 1.5; allowed: 0 to 1"),
    (["--final-epsilon", "-0.1"], "--final-epsilon is -0.1; allowed: 0 to 1")])
def test_the_training_script_refuses_settings_out_of_range(tmp_path, capsys, option, message):
  assert refusal(capsys, [*option, "--out", str(tmp_path / "m.npz")]).endswith(f"error: {message}")
  assert list(tmp_path.iterdir()) == []


def test_the_training_script_refuses_an_existing_out_after_checking_the_rest(tmp_path, capsys):
  """The bounds are allowed (epsilons 0 and 1, counts of 1); an existing --out is refused without
  --force, kept as it was."""
  out = tmp_path / "m.npz"
  out.write_bytes(b"kept")
  for bounds in (["--epsilon", "0", "--final-epsilon", "1"],
                 ["--epsilon", "1", "--final-epsilon", "0", "--steps", "1", "--num-envs", "1",
                  "--eval-every", "1", "--eval-games", "1"]):
    assert refusal(capsys, [*bounds, "--out", str(out)]).endswith(
        f"error: {out} exists; pass --force to train afresh over it, or choose another --out")
  assert out.read_bytes() == b"kept"


def test_an_out_that_is_a_folder_or_held_is_refused_naming_the_option(tmp_path, capsys):
  assert refusal(capsys, ["--out", str(tmp_path)]).endswith(
      f"error: {tmp_path} (--out) is a folder; give the path of a file")
  out = tmp_path / "m.npz"
  with run_lock.writing_file(out, "--out"):
    assert f"{out} (--out) is being written by process" in refusal(capsys, ["--out", str(out)])
  assert not out.exists()


def test_the_evaluation_plays_the_opponent_named():
  """The learner (here uniform random play, the same draws for both) against the random bot and
  against the heuristic: the heuristic wins more. Each game gives the learner's margin, below 0
  in a game lost (its points alone never are)."""
  def margins(opponent):
    rng = np.random.default_rng(0)
    return training.evaluate(lambda o, m: training.random_legal(m, rng), opponent, 40)
  against_random = margins("random")
  assert margins("heuristic").mean() < against_random.mean() - 5
  assert (against_random < 0).any() and (against_random > 0).any()


def test_a_batch_that_cannot_fit_is_refused_before_it_is_built(tmp_path, capsys, monkeypatch):
  """The batch's memory: per game, the arrays of a batch (measured on 16 games) and the
  training's own (previous observations as float32, the action, two uniforms)."""
  monkeypatch.setattr(estimates, "available_memory", lambda: 1000)
  batch = training.SushiGoBatch(16, opponents=training.opponents("random"), seed=0,
                                players=2, utility="margin")
  arrays = sum(value.nbytes for value in vars(batch).values() if isinstance(value, np.ndarray))
  each = -(-arrays // 16) + 4 * batch.observation_size + 8 + 16
  out = tmp_path / "folder" / "m.npz"
  assert refusal(capsys, ["--opponent", "random", "--num-envs", "3000", "--out", str(out)]) \
      .endswith(f"error: --num-envs 3,000 games in the batch would take"
                f" {estimates.format_bytes(3000 * each)} of memory; this machine has 1000 bytes"
                " available; allowed: fewer --num-envs")
  assert list(tmp_path.iterdir()) == []


def test_the_training_script_prints_and_saves_one_curve(tmp_path, capsys):
  """Not quiet, each point is printed as it is measured; the model's metadata, the CSV and the
  final JSON line hold the same curve, and the yardstick is uniform random play's margin over the
  same deals, with its t interval."""
  out = tmp_path / "deep" / "er" / "m.npz"
  assert training.main(["--opponent", "random", "--steps", "600", "--num-envs", "200",
                        "--eval-every", "400", "--eval-games", "30", "--seed", "3",
                        "--out", str(out)]) == 0
  printed = capsys.readouterr().out.splitlines()
  model = LinearQ.load(str(out))
  with open(out.parent / "learning_curve.csv", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
  final = json.loads(printed[-1])
  assert [int(row["steps"]) for row in rows] == [0, 400, 600]
  assert final["final"] == {key: pytest.approx(float(value)) if key != "steps" else int(value)
                            for key, value in rows[-1].items()}
  points = printed[:-1]
  assert len(points) == 3
  for line, row in zip(points, rows):
    assert re.fullmatch(
        rf" *{int(row['steps']):,} steps +[\d.]+ s  margin +{float(row['margin']):.2f}"
        rf" \[{float(row['low']):.2f}, {float(row['high']):.2f}\]  win rate"
        rf" {float(row['win_rate']):.3f}", line), line
  rng = np.random.default_rng(3)
  margins = training.evaluate(lambda o, m: training.random_legal(m, rng), "random", 30)
  mean, half = margins.mean(), scipy.stats.sem(margins) * scipy.stats.t.ppf(0.975, 29)
  assert final["random_play_margin"] == pytest.approx([mean, mean - half, mean + half])
  assert model.metadata["random_play_margin"] == pytest.approx(final["random_play_margin"])
  assert model.metadata["steps"] == 600 and model.metadata["seed"] == 3
  assert model.metadata["opponent"] == "random" and model.metadata["arguments"]["num_envs"] == 200
  assert model.metadata["game"] == "python_sushi_go(players=2,utility=margin)"
  assert model.metadata["observation_type"] == "observation"
  margin = float(rows[0]["margin"])
  win_rate = float(rows[0]["win_rate"])
  assert float(rows[0]["low"]) < margin < float(rows[0]["high"]) and 0 <= win_rate <= 1


def test_each_point_of_the_curve_is_flushed_as_it_is_measured(tmp_path, monkeypatch):
  """Also: the curve is drawn against the opponent trained against."""
  stdout, drawn, write_curve = FlushedOnly(), [], training.write_curve
  monkeypatch.setattr(sys, "stdout", stdout)
  monkeypatch.setattr(training, "write_curve",
                      lambda *args: drawn.append(args[2]) or write_curve(*args))
  assert training.main(["--opponent", "random", "--steps", "4", "--num-envs", "2",
                        "--eval-every", "2", "--eval-games", "2", "--out",
                        str(tmp_path / "m.npz")]) == 0
  shown = stdout.shown.splitlines()
  assert [line.split()[0] for line in shown] == ["0", "2", "4"], stdout.shown
  assert all(re.search(r"  win rate [\d.]+$", line) for line in shown)
  assert drawn == ["random"]


def test_a_curve_point_holds_the_evaluations_interval_and_win_rate(monkeypatch):
  """A tie counts half a win; the seconds are kept to a tenth."""
  margins = np.array([1.0, 0.0, 0.0, -2.0])
  monkeypatch.setattr(training, "evaluate", lambda choose, opponent, games: margins)
  args = argparse.Namespace(opponent="random", eval_games=4, quiet=True)
  mean, low, high = training.interval(margins)
  assert training._curve_point(np.zeros((1, 1)), args, 7, 1.27) == {
      "steps": 7, "seconds": 1.3, "margin": mean, "low": low, "high": high, "win_rate": 0.5}


def test_the_curve_plot_draws_the_points_their_interval_and_the_yardstick(tmp_path, monkeypatch):
  curve = [{"steps": 0, "seconds": 0.0, "margin": -3.0, "low": -4.0, "high": -2.0, "win_rate": 0.2},
           {"steps": 2_000_000, "seconds": 9.5, "margin": 1.5, "low": 1.0, "high": 2.5,
            "win_rate": 0.6}]
  figures, close = [], training.plt.close
  monkeypatch.setattr(training.plt, "close", lambda figure: figures.append(figure))
  training.write_curve(curve, (-5.0, -6.0, -4.0), "greedy", tmp_path)
  [figure] = figures
  [axes] = figure.axes
  assert tuple(figure.get_size_inches()) == (7, 4.2)
  assert axes.get_title() == f"Linear Q-learning against greedy, {training._game_string()}"
  assert axes.title.get_fontsize() == 9
  assert axes.get_xlabel() == "environment steps (millions)"
  assert axes.get_ylabel() == "mean margin against greedy"
  legend = axes.get_legend()
  assert [t.get_text() for t in legend.get_texts()] == [
      "linear Q (greedy)", "95% interval", "uniform random play"]
  assert legend._loc == 4 and legend.get_texts()[0].get_fontsize() == 8  # lower right
  points, yardstick, zero = axes.lines
  assert list(points.get_xdata()) == [0, 2] and list(points.get_ydata()) == [-3.0, 1.5]
  assert points.get_marker() == "o"
  assert list(yardstick.get_ydata()) == [-5.0, -5.0] and yardstick.get_linestyle() == "--"
  assert yardstick.get_color() == "grey"
  assert list(zero.get_ydata()) == [0, 0] and zero.get_color() == "black"
  assert zero.get_linewidth() == 0.8
  [band] = axes.collections
  assert band.get_alpha() == 0.25
  vertices = band.get_paths()[0].vertices
  assert {tuple(v) for v in vertices} >= {(0, -4.0), (2, 1.0), (2, 2.5), (0, -2.0)}
  close(figure)
  with open(tmp_path / "learning_curve.csv", encoding="utf-8") as f:
    assert [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)] == curve
  with Image.open(tmp_path / "learning_curve.png") as png:  # 7 x 4.2 inches at 120 dots each
    assert png.size == (840, 504)
    assert [round(dots) for dots in png.info["dpi"]] == [120, 120]  # stored as dots per metre


def test_an_out_whose_folder_cannot_be_made_is_refused_in_one_sentence(tmp_path, capsys):
  file = tmp_path / "file"
  file.write_bytes(b"kept")
  out = file / "m.npz"
  assert refusal(capsys, ["--out", str(out)]).endswith(
      f"error: {file} (the folder of --out {out}) is a file, not a folder; choose a folder")
  out = file / "below" / "m.npz"
  assert refusal(capsys, ["--out", str(out)]).endswith(
      f"error: {out.parent} (the folder of --out {out}) is below {file}, which is a file, not a"
      " folder; choose another path")
  assert file.read_bytes() == b"kept"


def test_the_evaluation_plays_the_same_deals_for_the_same_seed():
  """Margins of `games` games, one each; the same seed deals alike, another seed otherwise; the
  learner's actions are its own (a learner always taking its first legal card differs from one
  taking its last)."""
  first = lambda o, m: m.argmax(axis=1)  # noqa: E731
  last = lambda o, m: m.shape[1] - 1 - m[:, ::-1].argmax(axis=1)  # noqa: E731
  margins = training.evaluate(first, "greedy", 40, seed=5)
  assert margins.shape == (40,) and not np.isnan(margins).any()
  np.testing.assert_array_equal(margins, training.evaluate(first, "greedy", 40, seed=5))
  assert not np.array_equal(margins, training.evaluate(first, "greedy", 40, seed=6))
  assert not np.array_equal(margins, training.evaluate(last, "greedy", 40, seed=5))
  np.testing.assert_array_equal(training.evaluate(first, "greedy", 40),
                                training.evaluate(first, "greedy", 40, seed=2026))


def test_a_random_legal_action_is_uniform_over_the_legal_ones():
  masks = np.zeros((4000, 5), dtype=np.int8)
  masks[:, [1, 3, 4]] = 1
  actions = training.random_legal(masks, np.random.default_rng(0))
  counts = np.bincount(actions, minlength=5)
  assert counts[[0, 2]].sum() == 0 and all(abs(counts[a] - 4000 / 3) < 150 for a in (1, 3, 4))


def test_the_interval_is_the_mean_and_its_t_interval():
  values = np.array([1.0, 4.0, 2.0, 7.0])
  half = values.std(ddof=1) / 2 * 3.182446305284263  # t(0.975, 3)
  assert training.interval(values) == pytest.approx((3.5, 3.5 - half, 3.5 + half))


def test_the_training_scripts_help_names_each_option_and_its_default(capsys):
  with pytest.raises(SystemExit) as shown:
    training.main(["--help"])
  assert shown.value.code == 0
  text = " ".join(capsys.readouterr().out.split())  # the wrapping depends on the terminal
  usage, separator, options = text.partition(
      " The worked example of the batched environment: Q-learning of a linear agent against a"
      " compiled opponent, in numpy, in a few minutes on one core; then the agent plays in"
      " tournaments as the bot `linear_q` (`solvers.linear_q`). options: ")
  assert usage.startswith("usage: ") and separator, text
  assert "[--seed SEED] --out OUT [--force]" in usage
  assert options == (
      "-h, --help show this help message and exit"
      " --opponent OPPONENT the opponent bot: random, greedy or heuristic, played by its compiled"
      " policy (default: heuristic)"
      " --minutes MINUTES wall-time budget (default: 4.0)"
      " --steps STEPS step budget (epsilon decays over it; default: 30000000)"
      " --num-envs NUM_ENVS games stepped together (default: 1024)"
      " --learning-rate LEARNING_RATE the first learning rate (default: 0.1)"
      " --epsilon EPSILON the first exploration rate (default: 0.3)"
      " --final-epsilon FINAL_EPSILON the exploration rate at --steps (default: 0.02)"
      " --eval-every EVAL_EVERY steps between evaluations (default: 1000000)"
      " --eval-games EVAL_GAMES games per evaluation (default: 2048)"
      " --seed SEED seed of the training and of the random yardstick (default: 0)"
      " --out OUT the model file (.npz)"
      " --force train afresh over an existing --out (refused without it)"
      " --quiet no progress lines")


def test_the_training_script_refuses_a_missing_out(capsys):
  assert refusal(capsys, ["--steps", "1"]).endswith(
      "error: the following arguments are required: --out")


def test_a_curve_of_one_point_is_written_and_read_back_as_written(tmp_path):
  """A training stopped by its time before its first step has one point: its CSV holds that
  point under the header of its keys, read back with the csv module from a file opened as the
  curve is written (UTF-8, the csv module's own line ends)."""
  point = {"steps": 0, "seconds": 0.0, "margin": -1.25, "low": -2.5, "high": 0.0,
           "win_rate": 0.375}
  training.write_curve([point], (-3.0, -4.0, -2.0), "random", tmp_path)
  with open(tmp_path / "learning_curve.csv", newline="", encoding="utf-8") as f:
    assert [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)] == [point]
  assert (tmp_path / "learning_curve.csv").read_bytes() == (
      b"steps,seconds,margin,low,high,win_rate\r\n0,0.0,-1.25,-2.5,0.0,0.375\r\n")


def bytes_of_arrays(batch) -> int:
  return sum(value.nbytes for value in vars(batch).values() if isinstance(value, np.ndarray))


@pytest.mark.parametrize("players", [2, 3])
def test_the_memory_of_a_game_is_its_share_of_a_measured_batch_and_the_trainings_arrays(
    monkeypatch, players):
  """Per game: the arrays of a batch of 16 games of the game trained (GAME_PARAMS, here also
  with 3 players), rounded up, and the training's own (previous observations as float32, the
  action as int64, two float64 uniforms); the same for every opponent, and never below what a
  batch of 64 games and its training arrays take."""
  params = {"players": players, "utility": "margin"}
  monkeypatch.setattr(training, "GAME_PARAMS", params)
  game = f"python_sushi_go(players={players},utility=margin)"
  for opponent in ("random", "heuristic"):
    bots = compiled_opponents(pyspiel.load_game(game), opponent)
    measured = training.SushiGoBatch(16, opponents=bots, seed=0, **params)
    training_arrays = 4 * measured.observation_size + 8 + 2 * 8
    each = -(-bytes_of_arrays(measured) // 16) + training_arrays
    assert training._bytes_per_env(argparse.Namespace(opponent=opponent)) == each
    larger = training.SushiGoBatch(64, opponents=bots, seed=1, **params)
    assert 64 * each >= bytes_of_arrays(larger) + 64 * training_arrays


def test_an_unknown_opponent_is_refused_before_the_out_folder_is_made(tmp_path, capsys):
  message = refusal(capsys, ["--opponent", "nobody", "--out", str(tmp_path / "new" / "m.npz")])
  assert "error: bot 'nobody'" in message
  assert list(tmp_path.iterdir()) == []


def test_the_kernels_are_exercised_with_the_argument_types_training_passes(monkeypatch):
  """`_exercise_kernels` (the cold compile of `KERNELS.compile_all`) calls each kernel once, with
  arguments a training could pass (one game per row throughout, weights of the masks' actions
  and the observations' features, epsilon in [0, 1], a positive rate) and of the numba types a
  training passes: so what it compiles is what training runs."""
  calls = {"choose_actions": [], "learn": []}

  def recording(name, check):
    kernel = getattr(training, name)

    def record(*args):
      check(*args)
      calls[name].append(tuple(str(numba.typeof(arg)) for arg in args))
      return kernel(*args)
    return record

  def check_choice(weights, observations, masks, epsilon, uniforms, actions):
    games = len(observations)
    assert len(masks) == len(uniforms) == len(actions) == games and uniforms.shape[1] == 2
    assert weights.shape == (masks.shape[1], feature_count(observations.shape[1]))
    assert 0 <= epsilon <= 1

  def check_learning(weights, observations, actions, rewards, dones, next_observations,
                     next_masks, rate):
    games = len(observations)
    assert len(actions) == len(rewards) == len(dones) == len(next_masks) == games
    assert next_observations.shape == observations.shape
    assert weights.shape == (next_masks.shape[1], feature_count(observations.shape[1]))
    assert rate > 0

  monkeypatch.setattr(training, "choose_actions", recording("choose_actions", check_choice))
  monkeypatch.setattr(training, "learn", recording("learn", check_learning))
  training._exercise_kernels()
  exercised = {name: set(types_) for name, types_ in calls.items()}
  assert all(len(types_) == 1 for types_ in calls.values()), calls
  for name in calls:
    calls[name].clear()
  monkeypatch.setattr(training, "_curve_point", lambda *args: {})
  training.train(argparse.Namespace(seed=0, num_envs=3, opponent="random", steps=6, minutes=1.0,
                                    eval_every=6, epsilon=0.5, final_epsilon=0.1,
                                    learning_rate=0.1, quiet=True))
  assert {name: set(types_) for name, types_ in calls.items()} == exercised


class StandInClock:
  """The training's clock, moved on by hand from an arbitrary start."""

  def __init__(self):
    self.now = 100.0

  def perf_counter(self) -> float:
    return self.now


def replayed_training(args) -> dict[int, np.ndarray]:
  """The weights at each step count of a training replayed from the module docstring, in
  numpy: epsilon-greedy on the dense features (the random action the second uniform's share of
  the legal ones), each game's normalized-LMS step towards reward / REWARD_SCALE plus the next
  position's best legal value, game after game, under epsilon and a rate decaying linearly over
  --steps (the rate to FINAL_RATE of its first value)."""
  rng = np.random.default_rng(args.seed)
  env = training.SushiGoBatch(args.num_envs, opponents=training.opponents(args.opponent),
                              seed=args.seed, players=2, utility="margin")
  observations, masks = (array.copy() for array in env.reset())  # the batch reuses its arrays
  weights = np.zeros((env.num_actions, feature_count(env.observation_size)))
  snapshots, steps = {}, 0
  for _ in range(args.iterations):
    snapshots[steps] = weights.copy()
    left = 1 - steps / args.steps
    epsilon = max(args.final_epsilon, args.epsilon * left)
    rate = args.learning_rate * max(training.FINAL_RATE, left)
    uniforms = rng.random((args.num_envs, 2))
    actions = masked_argmax(features(observations) @ weights.T, masks)
    for game in range(args.num_envs):
      if uniforms[game, 0] < epsilon:
        legal = np.flatnonzero(masks[game])
        actions[game] = legal[min(int(uniforms[game, 1] * len(legal)), len(legal) - 1)]
    next_observations, rewards, dones, next_masks = env.step(actions)
    for game in range(args.num_envs):
      target = rewards[game] / training.REWARD_SCALE
      if not dones[game]:
        values = features(next_observations[game:game + 1])[0].astype(float) @ weights.T
        target += values[next_masks[game] == 1].max()
      x = features(observations[game:game + 1])[0].astype(float)
      error = target - weights[actions[game]] @ x
      weights[actions[game]] += rate * error / (x @ x) * x
    observations, masks = next_observations.copy(), next_masks.copy()
    steps += args.num_envs
  snapshots[steps] = weights
  return snapshots


def evaluations(iterations: int) -> list[tuple[int, float]]:
  """(steps, seconds) of each evaluation of a training of `iterations` steps of 4 games,
  evaluated every 8 steps, on the stand-in clock: before an even step k, k steps and k / 2
  evaluations have taken k + k / 8 seconds; then the last evaluation."""
  return [(4 * k, 1.125 * k) for k in range(0, iterations, 2)] + \
      [(4 * iterations, iterations + 0.25 * -(-iterations // 2))]


@pytest.mark.parametrize("minutes, budget, iterations, seconds", [
    # 45 s: stopped by the time when the clock reads 45.0 (40 steps and 20 evaluations), epsilon
    # 0.6 decaying to 0.5 and held there; 45.25 s with the last evaluation, kept to a tenth
    (0.75, 200, 40, 45.2),
    # 161 steps: stopped by the steps at 164, the last rate FINAL_RATE of the first
    (2.0, 161, 41, 46.5)])
def test_the_training_is_epsilon_greedy_normalized_lms_q_learning_within_its_budgets(
    monkeypatch, minutes, budget, iterations, seconds):
  """The weights at every evaluation equal those of the training replayed in numpy (the games
  end, with the first rewards, within 30 steps), the evaluations come every --eval-every steps
  and at the end, with the seconds since the start (an environment step takes 1 s on a stand-in
  clock, an evaluation a quarter), and the model's metadata holds the training's provenance."""
  clock, evaluated = StandInClock(), []

  class TimedBatch(training.SushiGoBatch):
    def step(self, actions, external_actions=None):
      clock.now += 1.0
      return super().step(actions, external_actions)

  def curve_point(weights, args_given, steps, elapsed):
    assert args_given is args
    evaluated.append((steps, elapsed, weights.copy()))
    clock.now += 0.25
    return {"steps": steps}

  monkeypatch.setattr(training, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
  monkeypatch.setattr(training, "SushiGoBatch", TimedBatch)
  monkeypatch.setattr(training, "_curve_point", curve_point)
  args = argparse.Namespace(seed=4, num_envs=4, opponent="greedy", steps=budget, minutes=minutes,
                            eval_every=8, epsilon=0.6, final_epsilon=0.5, learning_rate=0.3,
                            quiet=True)
  model, curve = training.train(args)
  monkeypatch.undo()
  replayed = replayed_training(argparse.Namespace(**vars(args), iterations=iterations))
  points = evaluations(iterations)
  assert [(steps, elapsed) for steps, elapsed, _ in evaluated] == points
  assert curve == [{"steps": steps} for steps, _ in points]
  for steps, _, weights in evaluated:
    np.testing.assert_allclose(weights, replayed[steps], rtol=1e-9, atol=1e-12)
  np.testing.assert_allclose(model.weights, replayed[4 * iterations], rtol=1e-9, atol=1e-12)
  assert np.abs(model.weights).sum() > 0
  assert model.metadata == {
      "game": "python_sushi_go(players=2,utility=margin)", "observation_type": "observation",
      "opponent": "greedy", "steps": 4 * iterations, "seed": 4, "seconds": seconds,
      "version": package_version(), "commit": git_commit(), "arguments": vars(args)}
