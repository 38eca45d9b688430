"""The PPO learner's throughput beside its environment's, measured in one run: environment steps a
second of training (collection and update, `solvers.learning.ppo.PPOTrainer.iterate`), and the
raw steps a second of the same batches stepped alone (the first legal action, no network), with
random opponents (the environment's own cost) and with the training's league.

A step is one game's decision of the learner with the opponents' answers and chance, as in
`experiments.bench.rl`. Both wall time and CPU time (`time.process_time`, all threads of this
process: JAX's update runs on both cores) are reported, since the machine may be shared. Runs
are interleaved and repeated; medians are reported. Target: the learner at 200,000 steps/s (wall)
or more.
"""

from __future__ import annotations

import statistics
import time

from experiments.bench.game import target
from sushigo_spiel.drafting.text import format_table

MIN_LEARNER_STEPS = 200_000


def _timed(work, seconds: float) -> tuple[float, float, int]:
  """Runs `work()` (returning its steps) until `seconds` of wall time pass: steps per wall
  second, steps per CPU second, steps."""
  wall, cpu, steps = time.perf_counter(), time.process_time(), 0
  while time.perf_counter() - wall < seconds:
    steps += work()
  return (steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu), steps)


def _raw(trainer):
  def work() -> int:
    for batch in trainer.batches:
      batch.step(batch.state()["masks"].argmax(axis=1))
    return trainer.config.num_envs
  return work


def _learner(trainer):
  def work() -> int:
    trainer.iterate()
    return trainer.config.num_envs * trainer.config.rollout_steps
  return work


def run(seconds: float = 5.0, repeats: int = 3, config=None) -> dict:
  """Interleaved measurements of the learner and the raw batches (`repeats` rounds of `seconds`
  each) for `config` (a `PPOConfig`; default: the default one); the medians and the target."""
  # JAX is imported here, so that `report` (which the docs' generator calls) does without it.
  from solvers.learning.ppo import PPOConfig, PPOTrainer  # pylint: disable=C0415
  config = config or PPOConfig()
  league = PPOTrainer(config)
  alone = PPOTrainer(PPOConfig(**{**config.__dict__, "opponents": "random"}))
  measures = {"learner (collection + update), league": _learner(league),
              "environment alone, league": _raw(league),
              "environment alone, random opponents": _raw(alone)}
  for work in measures.values():
    work()  # compiles, warms up
  rates = {name: [] for name in measures}
  for _ in range(repeats):
    for name, work in measures.items():
      rates[name].append(_timed(work, seconds)[:2])
  medians = {name: (statistics.median(r[0] for r in values),
                    statistics.median(r[1] for r in values)) for name, values in rates.items()}
  learner = medians["learner (collection + update), league"][0]
  return {"config": config.__dict__, "seconds": seconds, "repeats": repeats,
          "steps_per_s": medians,
          "learner_share_of_environment": learner / medians["environment alone, league"][0],
          "targets": [target("PPO learner: steps/s (wall)", learner, MIN_LEARNER_STEPS)]}


def report(figures: dict) -> str:
  config = figures["config"]
  lines = [f"PPO on {config['game']}: {config['num_envs']} games x {config['rollout_steps']}"
           f" steps an iteration, {config['epochs']} epochs of {config['minibatches']}"
           f" minibatches, hidden {config['hidden']}; league {config['opponents']}. Median of"
           f" {figures['repeats']} interleaved run(s) of {figures['seconds']:g} s each.", ""]
  rows = [("measure", "steps/s (wall)", "steps/s (CPU)")]
  rows += [(name, f"{wall:,.0f}", f"{cpu:,.0f}")
           for name, (wall, cpu) in figures["steps_per_s"].items()]
  lines += format_table(rows)
  lines += ["", f"The learner runs at {figures['learner_share_of_environment']:.2f} of its"
            " environment's raw speed (wall).", ""]
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], f"{t['value']:,.0f}", f">= {t['minimum']:,}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  return "\n".join(lines + format_table(rows))
