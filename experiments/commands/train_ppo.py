"""`sushigo train GAME --algorithm ppo`: masked PPO on the batched core (`solvers.learning.ppo`,
the `learn` extra), checkpointed, resumable, with a learning curve against the heuristic.

As for a blueprint, everything is checked before training starts: the game (a Sushi Go game
string or a reduced Sushi Go game's name), the settings (`--ppo KEY=VALUE`, `--opponents`), that
--out and --agent can be written, and that --out is not there already (unless --resume or
--force). --out is the checkpoint, held by this training alone (`run_lock.writing_file`), saved
atomically every --checkpoint-seconds and at the end; a first Ctrl-C stops after the iteration
under way and saves. Beside it, `NAME.curve.csv` and `NAME.curve.png` hold the learning curve,
rewritten at every save; --agent, if given, receives the agent alone (what the bot `ppo` plays)
at every save too.
"""

from __future__ import annotations

import argparse
import csv
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

from experiments import estimates, file_errors, run_lock, stopping  # noqa: E402
from experiments.run_folder import RunError  # noqa: E402
from solvers.envs.batched import SushiGoBatch  # noqa: E402
from solvers.opponents import compiled_opponents  # noqa: E402
from sushigo_spiel import reduced_games  # noqa: E402

CURVE_FIELDS = ("iteration", "steps", "seconds", "cpu_seconds", "opponent", "games", "mean_margin",
                "win_share", "win_low", "win_high", "tie_share")


def curve_paths(out: str | os.PathLike) -> tuple[pathlib.Path, pathlib.Path]:
  """The learning curve's CSV and PNG beside the checkpoint `out`."""
  out = pathlib.Path(out)
  stem = out.with_suffix("")
  return stem.with_name(stem.name + ".curve.csv"), stem.with_name(stem.name + ".curve.png")


def train_ppo(args: argparse.Namespace) -> int:
  """Trains (or resumes) a PPO agent; see the module docstring."""
  try:
    from solvers.learning import ppo  # pylint: disable=import-outside-toplevel
  except ImportError as e:
    args.error(f"--algorithm ppo needs the learn extra (JAX and optax): pip install"
               f" 'sushigo-spiel[learn]' ({e})")
  if args.abstraction != "identity" or args.workers != 1 or args.backend != "local" or \
      args.play or args.restart_average:
    args.error("--abstraction, --workers, --backend, --play and --restart-average are not"
               " PPO's: leave them out with --algorithm ppo")
  game = reduced_games.reduced_game_string(args.game) if args.game in \
      reduced_games.REDUCED_GAMES else args.game
  hint = f"Run the same command with --resume to continue from the last checkpoint in {args.out}."
  try:
    settings = {"game": game, "seed": args.seed}
    if args.opponents:
      settings["opponents"] = args.opponents
    config = ppo.PPOConfig.from_assignments(args.ppo, **settings)
    file_errors.check_output_file(args.out, "--out")
    if args.agent:
      file_errors.check_output_file(args.agent, "--agent")
    with run_lock.writing_file(args.out, "--out"):
      if args.resume:
        if not os.path.lexists(args.out):
          raise ValueError(f"{args.out} (--out) does not exist: --resume continues the checkpoint"
                           " saved there; leave out --resume to start a training")
        trainer = ppo.PPOTrainer.resume(args.out)
        if trainer.config != config and (args.ppo or args.opponents or
                                         trainer.config.game != config.game):
          raise ValueError(f"the checkpoint {args.out} was trained with other settings"
                           f" ({_differences(trainer.config, config)}); --resume carries on its"
                           " own: leave out --ppo and --opponents, and give its game")
      else:
        if os.path.lexists(args.out) and not args.force:
          raise ValueError(f"{args.out} (--out) exists; pass --resume to continue its training,"
                           " or --force to train afresh over it, or choose another --out")
        estimates.check_memory([estimates.Need(
            f"PPO's {config.num_envs:,} games (--ppo num_envs), its rollout of"
            f" {config.rollout_steps:,} steps each and its network of {config.hidden:,} units a"
            " layer would take", "of memory", ppo_memory(config), "fewer num_envs,"
            " rollout_steps or hidden (--ppo), or a machine with the memory")])
        trainer = ppo.PPOTrainer(config)

      def save() -> None:
        trainer.save(args.out, args.agent)
        write_curve(trainer.curve, args.out, trainer.config.game)
      with stopping.deferred_stop(hint) as stopped:
        trainer.run(args.iterations, args.seconds, show_progress=not args.quiet,
                    checkpoint=save, checkpoint_seconds=args.checkpoint_seconds, stop=stopped)
      save()
  except (ValueError, RunError) as e:
    args.error(str(e))
  except OSError as e:
    args.error(f"the checkpoint could not be saved to {args.out}: {e.strerror or e}")
  last = trainer.curve[-1]
  rate = trainer.steps / trainer.seconds if trainer.seconds else 0.0
  print(f"PPO on {trainer.config.game}: {trainer.iteration:,} iterations, {trainer.steps:,}"
        f" steps in {trainer.seconds:.0f} s ({rate:,.0f} steps/s); against"
        f" {last['opponent']}: outscores it in {last['win_share']:.3f} of {last['games']} games"
        f" [{last['win_low']:.3f}, {last['win_high']:.3f}], mean margin"
        f" {last['mean_margin']:.2f}; saved to {args.out}"
        + (f" and {args.agent}" if args.agent else ""))
  if stopped():
    print(f"Stopped at iteration {trainer.iteration:,}. {hint}", file=sys.stderr)
    return stopping.EXIT_STATUS
  return 0


_MEASURED_ENVS = 16


def ppo_memory(config) -> int:
  """What a PPO training of `config` holds: its games' arrays (measured on a batch of
  `_MEASURED_ENVS`), each iteration the rollout's arrays (per step of a game: the observation
  as float32, the action mask, the action and four float32 figures) twice over, once as
  collected and once as the update's device arrays (with `overlap`, two rollouts at once), and
  its network of two hidden layers."""
  opponents = compiled_opponents(pyspiel.load_game(config.game), "random")
  batch = SushiGoBatch(_MEASURED_ENVS, opponents=opponents, seed=0,
                       observation_type=config.observation_type, **config.game_params())
  per_env = -(-sum(value.nbytes for value in vars(batch).values()
                   if isinstance(value, np.ndarray)) // _MEASURED_ENVS)
  per_step = 4 * batch.observation_size + batch.num_actions + 4 + 4 * 4
  hidden, inputs = config.hidden, batch.observation_size
  weights = inputs * hidden + hidden * hidden + hidden * (batch.num_actions + 1)
  # the network: its initial draw (float64) and its QR factors, then float32 weights, gradients
  # and Adam's two moments
  network = 3 * 8 * max(inputs, hidden) * hidden + 4 * 4 * weights
  rollouts = 2 * (1 + config.overlap)
  return config.num_envs * (per_env + rollouts * config.rollout_steps * per_step) + network


def _differences(stored, given) -> str:
  import dataclasses  # pylint: disable=import-outside-toplevel
  a, b = dataclasses.asdict(stored), dataclasses.asdict(given)
  return ", ".join(f"{key} {a[key]!r}, not {b[key]!r}" for key in a if a[key] != b[key])


def write_curve(curve: list[dict], out: str | os.PathLike, game: str) -> None:
  """The learning curve as CSV and as a plot (share of games won with its Wilson interval, and
  the mean margin), beside the checkpoint `out`; each file written atomically."""
  csv_path, png_path = curve_paths(out)
  partial = csv_path.with_name(csv_path.name + ".partial")
  with open(partial, "w", newline="", encoding="utf-8") as f:
    writer = csv.DictWriter(f, fieldnames=CURVE_FIELDS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(curve)
  os.replace(partial, csv_path)
  steps = [point["steps"] / 1e6 for point in curve]
  figure, (wins, margins) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
  wins.plot(steps, [p["win_share"] for p in curve], marker=".", label="PPO agent (greedy)")
  wins.fill_between(steps, [p["win_low"] for p in curve], [p["win_high"] for p in curve],
                    alpha=0.25, label="Wilson 95% interval")
  wins.axhline(0.5, color="black", linewidth=0.8)
  wins.set_ylabel(f"share of games outscoring {curve[-1]['opponent']}")
  wins.legend(loc="lower right", fontsize=8)
  margins.plot(steps, [p["mean_margin"] for p in curve], marker=".")
  margins.axhline(0, color="black", linewidth=0.8)
  margins.set_ylabel("mean margin")
  margins.set_xlabel("environment steps (millions)")
  wins.set_title(f"PPO against {curve[-1]['opponent']}, {curve[-1]['games']} games a point,"
                 f" {game}", fontsize=8)
  figure.tight_layout()
  partial = png_path.with_name(png_path.name + ".partial.png")
  figure.savefig(partial, dpi=110)
  plt.close(figure)
  os.replace(partial, png_path)
