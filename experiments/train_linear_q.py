"""The worked example of the batched environment: Q-learning of a linear agent against a compiled
opponent, in numpy, in a few minutes on one core; then the agent plays in tournaments as the bot
`linear_q` (`solvers.linear_q`).

1,024 games of `python_sushi_go(players=2, utility=margin)` step together (`SushiGoBatch`), the
learner at seat 0 against `--opponent`. Each step the agent takes its best legal action, or with
probability epsilon (decaying linearly to `--final-epsilon`) a random legal one, and moves the
taken action's value towards the one-step Q-learning target by normalized least mean squares (the
learning rate decaying linearly to `FINAL_RATE` of it). Its kernels compute values from the
nonzero features alone, equal to `solvers.linear_q.features` times the weights (tested). Every
`--eval-every` steps the greedy agent plays `--eval-games` games on the same deals: the learning
curve (`learning_curve.csv`, `.png`), random play as the yardstick. The example: docs/rl.md.

  python -m experiments.train_linear_q --opponent heuristic --minutes 4 \
      --out experiments/results/linear-q/linear_q.npz
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import pathlib
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from scipy import stats  # noqa: E402

from experiments import estimates, file_errors, run_lock  # noqa: E402
from experiments.run_folder import RunError  # noqa: E402
from solvers.envs.batched import SushiGoBatch  # noqa: E402
from solvers.linear_q import (POINTS_SCALE, THRESHOLDS, LinearQ, feature_count,  # noqa: E402
                               masked_argmax)
from solvers.opponents import compiled_opponents  # noqa: E402
from solvers.provenance import git_commit, package_version  # noqa: E402
from sushigo_spiel.compiled import jit  # noqa: E402
from sushigo_spiel.compiled.jit import KernelSet, njit  # noqa: E402

GAME_PARAMS = {"players": 2, "utility": "margin"}
REWARD_SCALE = 20.0
FINAL_RATE = 0.05  # the learning rate's last share of its first value
EVAL_SEED = 2026


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
  """A uniformly random legal action per row."""
  return (masks * rng.random(masks.shape)).argmax(axis=1)


def opponents(name: str) -> list:
  """Bot `name` (random, greedy or heuristic) as the batch's compiled opponent."""
  return compiled_opponents(pyspiel.load_game(_game_string()), name)


def evaluate(choose, opponent: str, games: int, seed: int = EVAL_SEED) -> np.ndarray:
  """The learner's margin in `games` games against bot `opponent`, `choose(observations, masks)`
  picking its actions; the same deals for the same seed."""
  env = SushiGoBatch(games, opponents=opponents(opponent), seed=seed, **GAME_PARAMS)
  observations, masks = env.reset()
  margins = np.full(games, np.nan)
  while np.isnan(margins).any():
    observations, rewards, dones, masks = env.step(choose(observations, masks))
    first = dones & np.isnan(margins)
    margins[first] = rewards[first]
  return margins


def interval(values: np.ndarray) -> tuple[float, float, float]:
  """Mean and 95% t interval."""
  mean, half = values.mean(), stats.sem(values) * stats.t.ppf(0.975, len(values) - 1)
  return float(mean), float(mean - half), float(mean + half)


def train(args: argparse.Namespace) -> tuple[LinearQ, list[dict]]:
  """Trains for `args.minutes` of wall time or `args.steps` environment steps, whichever ends
  first; returns the model and the learning curve's points."""
  KERNELS.ensure()
  rng = np.random.default_rng(args.seed)
  env = SushiGoBatch(args.num_envs, opponents=opponents(args.opponent), seed=args.seed,
                     **GAME_PARAMS)
  observations, masks = env.reset()
  previous = np.empty_like(observations)
  actions = np.empty(args.num_envs, dtype=np.int64)
  weights = np.zeros((env.num_actions, feature_count(env.observation_size)))
  curve, steps, start = [], 0, time.perf_counter()
  while steps < args.steps and time.perf_counter() - start < 60 * args.minutes:
    if steps % args.eval_every < args.num_envs:
      curve.append(_curve_point(weights, args, steps, time.perf_counter() - start))
    left = 1 - steps / args.steps
    epsilon = max(args.final_epsilon, args.epsilon * left)
    choose_actions(weights, observations, masks, epsilon, rng.random((args.num_envs, 2)),
                   actions)
    np.copyto(previous, observations)
    observations, rewards, dones, masks = env.step(actions)
    learn(weights, previous, actions, rewards / REWARD_SCALE, dones, observations, masks,
          args.learning_rate * max(FINAL_RATE, left))
    steps += args.num_envs
  curve.append(_curve_point(weights, args, steps, time.perf_counter() - start))
  metadata = {"game": _game_string(), "observation_type": "observation",
              "opponent": args.opponent, "steps": steps, "seed": args.seed,
              "seconds": round(time.perf_counter() - start, 1), "version": package_version(),
              "commit": git_commit(), "arguments": vars(args)}
  return LinearQ(weights, metadata), curve


# --------------------------------------------------------------------------------------------
# The agent's kernels: values from the nonzero counts (`solvers.linear_q.features` spelled out)


@njit
def active_features(observation, indices, values):
  """The nonzero features of `observation` (`solvers.linear_q.features`): writes their indices
  and values to `indices` and `values`; returns how many there are."""
  size, levels = len(observation), len(THRESHOLDS)
  found = 0
  for i in range(size):
    count = observation[i]
    if count == 0:
      continue
    for level in range(levels):
      if count >= THRESHOLDS[level]:
        indices[found], values[found] = i * levels + level, 1.0
        found += 1
    indices[found], values[found] = size * levels + i, count * POINTS_SCALE
    found += 1
  indices[found], values[found] = size * (levels + 1), 1.0
  return found + 1


@njit
def action_value(weights, action, indices, values, count):
  """The value of `action` at the observation whose active features are given."""
  value = 0.0
  for k in range(count):
    value += weights[action, indices[k]] * values[k]
  return value


@njit
def best_legal(weights, observation, mask, indices, values):
  """The legal action of highest value (ties to the lowest id) and its value."""
  count = active_features(observation, indices, values)
  best, best_value = -1, -np.inf
  for action in range(len(mask)):
    if mask[action]:
      value = action_value(weights, action, indices, values, count)
      if value > best_value:
        best, best_value = action, value
  return best, best_value


@njit
def choose_actions(weights, observations, masks, epsilon, uniforms, actions):
  """Per game, epsilon-greedy: below `epsilon` (first uniform) a legal action drawn with the
  second uniform, else the best legal one."""
  indices, values = _feature_buffers(observations.shape[1])
  for game in range(len(observations)):
    if uniforms[game, 0] < epsilon:
      legal = np.flatnonzero(masks[game])
      actions[game] = legal[min(int(uniforms[game, 1] * len(legal)), len(legal) - 1)]
    else:
      actions[game] = best_legal(weights, observations[game], masks[game], indices, values)[0]


@njit
def learn(weights, observations, actions, rewards, dones, next_observations, next_masks, rate):
  """One normalized-LMS step of Q-learning per game, in game order."""
  indices, values = _feature_buffers(observations.shape[1])
  for game in range(len(observations)):
    target = rewards[game]
    if not dones[game]:
      target += best_legal(weights, next_observations[game], next_masks[game], indices,
                           values)[1]
    count = active_features(observations[game], indices, values)
    action = actions[game]
    error = target - action_value(weights, action, indices, values, count)
    step = rate * error / (values[:count] ** 2).sum()
    for k in range(count):
      weights[action, indices[k]] += step * values[k]


@njit
def _feature_buffers(size):
  """Room for the active features of an observation of `size` entries."""
  most = size * (len(THRESHOLDS) + 1) + 1
  return np.empty(most, dtype=np.int64), np.empty(most)


def _exercise_kernels() -> None:
  observations = np.ones((2, 3), dtype=np.float32)
  masks = np.ones((2, 2), dtype=np.int8)
  weights, actions = np.zeros((2, feature_count(3))), np.zeros(2, dtype=np.int64)
  choose_actions(weights, observations, masks, 0.5, np.zeros((2, 2)), actions)
  learn(weights, observations, actions, np.zeros(2, dtype=np.float32), np.zeros(2, dtype=bool),
        observations, masks, 0.1)


KERNELS = KernelSet("linear Q agent", [pathlib.Path(jit.__file__).resolve(),
                                       pathlib.Path(__file__).resolve()],
                    _exercise_kernels, learn)


def _curve_point(weights: np.ndarray, args: argparse.Namespace, steps: int,
                 seconds: float) -> dict:
  model = LinearQ(weights, {})
  margins = evaluate(lambda o, m: masked_argmax(model.values(o), m), args.opponent,
                     args.eval_games)
  mean, low, high = interval(margins)
  point = {"steps": steps, "seconds": round(seconds, 1), "margin": mean, "low": low,
           "high": high, "win_rate": float(np.mean(margins > 0) + 0.5 * np.mean(margins == 0))}
  if not args.quiet:
    print(f"{steps:>12,} steps  {seconds:7.1f} s  margin {mean:7.2f} [{low:.2f}, {high:.2f}]"
          f"  win rate {point['win_rate']:.3f}", flush=True)
  return point


def _game_string() -> str:
  return "python_sushi_go(" + ",".join(f"{k}={v}" for k, v in GAME_PARAMS.items()) + ")"


def write_curve(curve: list[dict], yardstick: tuple[float, float, float], opponent: str,
                folder: pathlib.Path) -> None:
  """The learning curve as CSV and as a plot, uniform random play drawn as the yardstick."""
  with open(folder / "learning_curve.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.DictWriter(f, fieldnames=list(curve[0]))
    writer.writeheader()
    writer.writerows(curve)
  steps = np.array([p["steps"] for p in curve]) / 1e6
  figure, axes = plt.subplots(figsize=(7, 4.2))
  axes.plot(steps, [p["margin"] for p in curve], marker="o", label="linear Q (greedy)")
  axes.fill_between(steps, [p["low"] for p in curve], [p["high"] for p in curve], alpha=0.25,
                    label="95% interval")
  axes.axhline(yardstick[0], color="grey", linestyle="--", label="uniform random play")
  axes.axhline(0, color="black", linewidth=0.8)
  axes.set_xlabel("environment steps (millions)")
  axes.set_ylabel(f"mean margin against {opponent}")
  axes.set_title(f"Linear Q-learning against {opponent}, {_game_string()}", fontsize=9)
  axes.legend(loc="lower right", fontsize=8)
  figure.tight_layout()
  figure.savefig(folder / "learning_curve.png", dpi=120)
  plt.close(figure)


def _check_arguments(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
  """Counts of 1 or more, a finite positive time budget and rates, epsilons in [0, 1]."""
  for name in ("steps", "num_envs", "eval_every", "eval_games"):
    if getattr(args, name) < 1:
      parser.error(f"--{name.replace('_', '-')} is {getattr(args, name)}; allowed: 1 or more")
  for name in ("minutes", "learning_rate"):
    if not (math.isfinite(getattr(args, name)) and getattr(args, name) > 0):
      parser.error(f"--{name.replace('_', '-')} is {getattr(args, name)}; allowed: a finite"
                   " number > 0")
  for name in ("epsilon", "final_epsilon"):
    if not 0 <= getattr(args, name) <= 1:
      parser.error(f"--{name.replace('_', '-')} is {getattr(args, name)}; allowed: 0 to 1")


_MEASURED_ENVS = 16


def _bytes_per_env(args: argparse.Namespace) -> int:
  """The memory one game of the batch takes in training: the batch's own arrays, measured on a
  batch of `_MEASURED_ENVS`, and the training's (the previous observations, the action, two
  uniforms)."""
  batch = SushiGoBatch(_MEASURED_ENVS, opponents=opponents(args.opponent), seed=0, **GAME_PARAMS)
  arrays = sum(value.nbytes for value in vars(batch).values() if isinstance(value, np.ndarray))
  return -(-arrays // _MEASURED_ENVS) + 4 * batch.observation_size + 8 + 16


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
  parser.add_argument("--opponent", default="heuristic", help="the opponent bot: random, greedy or"
                      " heuristic, played by its compiled policy (default: %(default)s)")
  parser.add_argument("--minutes", type=float, default=4.0,
                      help="wall-time budget (default: %(default)s)")
  parser.add_argument("--steps", type=int, default=30_000_000, help="step budget (epsilon"
                      " decays over it; default: %(default)s)")
  parser.add_argument("--num-envs", type=int, default=1024,
                      help="games stepped together (default: %(default)s)")
  parser.add_argument("--learning-rate", type=float, default=0.1,
                      help="the first learning rate (default: %(default)s)")
  parser.add_argument("--epsilon", type=float, default=0.3,
                      help="the first exploration rate (default: %(default)s)")
  parser.add_argument("--final-epsilon", type=float, default=0.02,
                      help="the exploration rate at --steps (default: %(default)s)")
  parser.add_argument("--eval-every", type=int, default=1_000_000,
                      help="steps between evaluations (default: %(default)s)")
  parser.add_argument("--eval-games", type=int, default=2048,
                      help="games per evaluation (default: %(default)s)")
  parser.add_argument("--seed", type=int, default=0,
                      help="seed of the training and of the random yardstick (default:"
                      " %(default)s)")
  parser.add_argument("--out", required=True, help="the model file (.npz)")
  parser.add_argument("--force", action="store_true",
                      help="train afresh over an existing --out (refused without it)")
  parser.add_argument("--quiet", action="store_true", help="no progress lines")
  args = parser.parse_args(argv)
  _check_arguments(args, parser)
  out = pathlib.Path(args.out)
  try:
    estimates.check_memory([estimates.Need(
        f"--num-envs {args.num_envs:,} games in the batch would take", "of memory",
        args.num_envs * _bytes_per_env(args), "fewer --num-envs")])
    file_errors.check_folder(out.parent, f"the folder of --out {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    file_errors.check_output_file(out, "--out")
    with run_lock.writing_file(out, "--out"):
      if os.path.lexists(out) and not args.force:
        parser.error(f"{out} exists; pass --force to train afresh over it, or choose another"
                     " --out")
      model, curve = train(args)
      rng = np.random.default_rng(args.seed)
      yardstick = interval(evaluate(lambda o, m: random_legal(m, rng), args.opponent,
                                    args.eval_games))
      model.metadata["random_play_margin"] = yardstick
      model.save(str(out))
  except (ValueError, RunError) as e:
    parser.error(str(e))
  except OSError as e:
    parser.error(file_errors.describe(e))
  write_curve(curve, yardstick, args.opponent, out.parent)
  print(json.dumps({"final": curve[-1], "random_play_margin": yardstick}))
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
