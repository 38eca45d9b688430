"""Speed of the reinforcement-learning environments in one run, on `python_sushi_go(players=2)`:
the batched environment (1,024 games on the compiled core, each opponent kind), the PettingZoo
parallel environment and OpenSpiel's `rl_environment` (one game each); and the batched Sushi
Draft environment, as a ratio to the Sushi Go batch against random opponents.

A step is one joint move with the chance that follows it (a batched `step` counts one per game; a
Sushi Draft step is one simultaneous node). Timing: this process's CPU time summed over `step`
and `reset` only, actions chosen outside the timed calls; one core; runs interleaved and repeated,
medians reported. Target: the batch against random opponents at 1,000,000 steps/s or more, the
opponents' decisions shown beside it as added work. Figures: docs/rl.md ("Speed").
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python import rl_environment

from experiments.bench.game import target
from solvers.envs.batched import SushiGoBatch
from solvers.envs.batched_sushi_draft import SushiDraftBatch
from solvers.opponents import COMPILED_BOTS, compiled_opponents
from sushigo_spiel.drafting.text import format_table
from sushigo_spiel.envs import petting_zoo

GAME = "python_sushi_go(players=2)"
DRAFT_GAME = "python_sushi_draft(players=2)"
NUM_ENVS = 1024
MIN_BATCHED_STEPS = 1_000_000
DRAFT_BATCH = f"batched Sushi Draft, {NUM_ENVS} games vs random"


def batched_steps(opponent: str, seconds: float, seed: int = 0) -> float:
  """Steps per second of the batch of `NUM_ENVS` games against bot `opponent`'s compiled
  policy."""
  batch = SushiGoBatch(NUM_ENVS, opponents=compiled_opponents(pyspiel.load_game(GAME), opponent),
                       seed=seed, players=2)
  return _batch_steps(batch, seconds)


def draft_batched_steps(seconds: float, seed: int = 0) -> float:
  """Steps (decisions) per second of the Sushi Draft batch of `NUM_ENVS` games against random
  opponents."""
  return _batch_steps(SushiDraftBatch(NUM_ENVS, opponents="random", seed=seed, players=2), seconds)


def _batch_steps(batch, seconds: float) -> float:
  """Steps per second of a batch, the first legal action of every game at each step."""
  start = time.process_time()
  masks = batch.reset()[1]
  timed, steps = time.process_time() - start, 0
  while timed < seconds:
    actions = masks.argmax(axis=1)
    start = time.process_time()
    masks = batch.step(actions)[3]
    timed += time.process_time() - start
    steps += NUM_ENVS
  return steps / timed


def pettingzoo_steps(seconds: float, seed: int = 0) -> float:
  """Steps per second of the PettingZoo parallel environment, one game after another."""
  env = petting_zoo.parallel_env("python_sushi_go", players=2)
  rng = np.random.default_rng(seed)
  return _one_game_steps(
      reset=lambda: env.reset(seed=int(rng.integers(2**31)))[0],
      choose=lambda observations: {
          agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
          for agent in env.agents},
      apply=lambda actions: env.step(actions)[0],
      over=lambda observations: not env.agents, seconds=seconds)


def rl_environment_steps(seconds: float, seed: int = 0) -> float:
  """Steps per second of OpenSpiel's `rl_environment` on the game (observation tensors)."""
  env = rl_environment.Environment(pyspiel.load_game(GAME), seed=seed,
                                   observation_type=rl_environment.ObservationType.OBSERVATION)
  rng = np.random.default_rng(seed)
  return _one_game_steps(
      reset=env.reset,
      choose=lambda time_step: [int(rng.choice(legal))
                                for legal in time_step.observations["legal_actions"]],
      apply=env.step, over=lambda time_step: time_step.last(), seconds=seconds)


def _one_game_steps(reset: Callable, choose: Callable, apply: Callable, over: Callable,
                    seconds: float) -> float:
  """Steps per second of a one-game environment: `reset()` and `apply(actions)` return what
  `choose` picks actions from and `over` tells the end by; only `reset` and `apply` are timed."""
  start = time.process_time()
  observed = reset()
  timed, steps = time.process_time() - start, 0
  while timed < seconds:
    actions = choose(observed)
    start = time.process_time()
    observed = apply(actions)
    if over(observed):
      observed = reset()
    timed += time.process_time() - start
    steps += 1
  return steps / timed


def run(seconds: float = 2.0, repeats: int = 3, opponents=COMPILED_BOTS) -> dict:
  """Interleaved measurements, `repeats` rounds of `seconds` each; the medians and the target."""
  measures = {f"batched, {NUM_ENVS} games vs {name}": (lambda s, name=name: batched_steps(name, s))
              for name in opponents}
  measures["PettingZoo parallel env, 1 game"] = pettingzoo_steps
  measures["OpenSpiel rl_environment, 1 game"] = rl_environment_steps
  measures[DRAFT_BATCH] = draft_batched_steps
  for name in opponents:
    batched_steps(name, 0.05)  # compiles, warms up
  draft_batched_steps(0.05)
  rates = {name: [] for name in measures}
  for _ in range(repeats):
    for name, measure in measures.items():
      rates[name].append(measure(seconds))
  medians = {name: statistics.median(values) for name, values in rates.items()}
  first = next(iter(medians))
  sushi_go = medians[f"batched, {NUM_ENVS} games vs random"] if "random" in opponents else None
  return {"game": GAME, "draft_game": DRAFT_GAME, "seconds": seconds, "repeats": repeats,
          "steps_per_s": medians,
          "draft_ratio": None if sushi_go is None else medians[DRAFT_BATCH] / sushi_go,
          "targets": [target(f"{first}: steps/s", medians[first], MIN_BATCHED_STEPS)]}


def report(figures: dict) -> str:
  rows = [("environment", "steps/s")]
  rows += [(name, f"{rate:,.0f}") for name, rate in figures["steps_per_s"].items()]
  lines = [f"Environment steps/s on {figures['game']} (Sushi Draft: {figures['draft_game']}): a"
           " step is one joint move with its chance (Sushi Draft: one Eat or Keep step); CPU time"
           " inside step() and reset() only, actions chosen outside; single process, one core."
           f" Median of {figures['repeats']} interleaved run(s) of {figures['seconds']:g} s each.",
           ""]
  lines += format_table(rows) + [""]
  if figures["draft_ratio"] is not None:
    lines += [f"Sushi Draft batch / Sushi Go batch, both vs random, same run:"
              f" {figures['draft_ratio']:.2f}", ""]
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], f"{t['value']:,.0f}", f">= {t['minimum']:,}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  return "\n".join(lines + format_table(rows))
