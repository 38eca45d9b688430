"""The PPO learner's throughput beside its environment's, measured in one run: environment steps a
second of training (collection and update, `solvers.learning.ppo.PPOTrainer.iterate`), and the
raw steps a second of the same batches stepped alone (the first legal action, no network), with
random opponents (the environment's own cost) and with the training's league.

A step is one game's decision of the learner with the opponents' answers and chance, as in
`experiments.bench.rl`. Wall and CPU time (`time.process_time`) are reported with the load average
before and after; runs are interleaved and repeated, medians reported. The learner is measured as
configured (collecting in two parts on two threads), in one part (`pipeline=False`, the same
numbers), and with `overlap` (its update waited for), each in a process of its own as a training
runs it, the raw batches and the forward pass in one more (`PROCESSES`). Target: 200,000 steps/s
(wall). The learner's CPU time is split by phase (`PPOTrainer.phase_seconds`), the environment's
into stepping and opponents by the raw runs (league less random), the policy's into the forward
pass (measured alone) and the rest. The network's products at the forward pass's rate and the
environment's CPU time bound the learner on two idle cores (`network_flops`).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import statistics
import time
import traceback

import numpy as np

from experiments.bench.game import target
from sushigo_spiel.drafting.text import format_table

MIN_LEARNER_STEPS = 200_000


def _timed(work, seconds: float, finish=lambda: None) -> tuple[float, float, int]:
  """Runs `work()` (returning its steps) until `seconds` of wall time pass, then `finish()` (which
  waits for work left running): steps per wall second, steps per CPU second, steps."""
  wall, cpu, steps = time.perf_counter(), time.process_time(), 0
  while time.perf_counter() - wall < seconds:
    steps += work()
  finish()
  return (steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu), steps)


def _raw(trainer):
  def work() -> int:
    for batch in trainer.batches:
      external = batch.external_masks().argmax(axis=2).T if batch.external_seats else None
      batch.step(batch.masks().argmax(axis=1), external)
    return trainer.config.num_envs
  return work


def _learner(trainer):
  def work() -> int:
    trainer.iterate()
    return trainer.config.num_envs * trainer.config.rollout_steps
  return work


def _forward(trainer):
  """The learner's forward pass alone on a step's observations, as collection makes it."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  from solvers.learning.network import forward  # pylint: disable=import-outside-toplevel
  passes = jax.jit(lambda params, observations, masks: forward(params, observations, masks, jnp))
  observations = np.concatenate([batch.state()["observations"] for batch in trainer.batches])
  masks = np.concatenate([batch.masks() for batch in trainer.batches])

  def work() -> int:
    np.asarray(passes(trainer.params, observations, masks)[0])
    return trainer.config.num_envs
  return work


LEARNER = "learner (collection + update), league"
ONE_PART = "learner, collection in one part on one thread"
OVERLAPPED = "learner, collection overlapping the update"
LEAGUE = "environment alone, league"
RANDOM = "environment alone, random opponents"
FORWARD = "policy forward pass alone"


def dense_flops_per_step(observation_size: int, num_actions: int, hidden: int,
                         epochs: int) -> int:
  """The floating-point operations (a multiply-add counted as two) of the network's matrix
  products for one environment step: its forward pass as collection makes it, and in each epoch
  of the update its forward pass, the weights' gradients (as many again) and the gradients of the
  two hidden layers' outputs (the input layer's are never needed); `epochs` 0: the forward pass
  alone."""
  widths = [(observation_size, hidden), (hidden, hidden), (hidden, num_actions), (hidden, 1)]
  forward = sum(2 * rows * columns for rows, columns in widths)
  hidden_gradients = sum(2 * rows * columns for rows, columns in widths[1:])
  return forward + epochs * (2 * forward + hidden_gradients)


def network_flops(config: dict) -> tuple[int, int]:
  """The dense products' floating-point operations of a step (`dense_flops_per_step`) for a
  training's config (`PPOConfig` as a dict): collection's forward pass alone, and all of them."""
  import pyspiel  # pylint: disable=import-outside-toplevel
  import sushigo_spiel  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
  game = pyspiel.load_game(config["game"])
  observation_size = (game.information_state_tensor_size()
                      if config["observation_type"] == "information_state"
                      else game.observation_tensor_size())
  sizes = (observation_size, game.num_distinct_actions(), config["hidden"])
  return (dense_flops_per_step(*sizes, epochs=0),
          dense_flops_per_step(*sizes, epochs=config["epochs"]))


# The processes the measures run in, each built once and kept warm: every learner alone, as a
# training runs it, and the raw batches with the forward pass in one more
PROCESSES = {"learner": (LEARNER,), "one part": (ONE_PART,), "overlap": (OVERLAPPED,),
             "environment": (LEAGUE, RANDOM, FORWARD)}
MEASURES = sum(len(names) for names in PROCESSES.values())


def _build(process: str, config) -> tuple:
  """The trainer and the measures of `process` (`PROCESSES`), compiled and warm: the measures by
  name, what waits for a timed run's work left running, and the first iteration's CPU seconds
  (XLA compiling, the batches' kernels already compiled; 0 without a learner)."""
  import jax  # pylint: disable=import-outside-toplevel
  from solvers.learning.ppo import PPOTrainer  # pylint: disable=import-outside-toplevel
  overlap, pipeline = {"learner": (False, True), "one part": (False, False),
                       "overlap": (True, True), "environment": (False, True)}[process]
  trainer = PPOTrainer(dataclasses.replace(config, overlap=overlap), pipeline=pipeline)
  _raw(trainer)()  # compiles the batches' kernels (when not cached), warms up
  if process == "environment":
    alone = PPOTrainer(dataclasses.replace(config, opponents="random"))
    measures = {LEAGUE: _raw(trainer), RANDOM: _raw(alone), FORWARD: _forward(trainer)}
    for work in measures.values():
      work()  # compiles the forward pass, warms up
    return trainer, measures, lambda: None, 0.0
  (name,) = PROCESSES[process]
  cold = time.process_time()
  _learner(trainer)()  # the first iteration compiles the collection and the update (XLA)
  cold = time.process_time() - cold
  finish = lambda: jax.block_until_ready(trainer.params)  # noqa: E731
  finish()
  return trainer, {name: _learner(trainer)}, finish, cold


def _serve(connection, process: str, config) -> None:
  """A measuring process: builds `process`'s measures (`_build`), says it is ready (the first
  iteration's CPU seconds, JAX's devices), then times each measure it is sent as (name, seconds)
  and answers (steps/s wall, steps/s CPU of this process, steps, the trainer's phase seconds
  spent), until sent None. A failure is sent back as its traceback."""
  try:
    import jax  # pylint: disable=import-outside-toplevel
    trainer, measures, finish, cold = _build(process, config)
    connection.send(("ready", (cold, len(jax.devices()))))
    while (request := connection.recv()) is not None:
      name, seconds = request
      before = dict(trainer.phase_seconds)
      timed = _timed(measures[name], seconds, finish)
      connection.send(("timed", (*timed, {phase: trainer.phase_seconds[phase] - before[phase]
                                          for phase in before})))
  except Exception:  # pylint: disable=broad-except
    connection.send(("failed", traceback.format_exc()))
  finally:
    connection.close()


def _answer(connection, process: str):
  """The answer of `process`'s measuring process; its failure raised here."""
  try:
    kind, value = connection.recv()
  except EOFError:
    raise RuntimeError(f"the bench's {process} process ended without answering") from None
  if kind == "failed":
    raise RuntimeError(f"the bench's {process} process failed:\n{value}")
  return value


def run(seconds: float = 5.0, repeats: int = 3, config=None) -> dict:
  """Interleaved measurements of the learner (as configured, collecting in one part, and with
  overlap), the raw batches and the forward pass (`repeats` rounds of `seconds` each) for
  `config` (a `PPOConfig`; default: the default one); the medians, the learner's CPU time split
  by phase, its first iteration's CPU seconds (XLA compiling, the batches' kernels already
  compiled), the load average (1 min) before and after, and the targets. Each learner runs in a
  process of its own, as a training does, and the raw batches with the forward pass in another
  (`PROCESSES`), each built once and warm; this process times them in turn, round by round, and
  builds no trainer."""
  from solvers.learning.ppo import PPOConfig  # pylint: disable=import-outside-toplevel
  config = config or PPOConfig()
  load_before = os.getloadavg()[0]
  context = multiprocessing.get_context("spawn")  # no fork of this process's threads
  connections, workers = {}, []
  try:
    for process in PROCESSES:
      connections[process], child = context.Pipe()
      workers.append(context.Process(target=_serve, args=(child, process, config), daemon=True))
      workers[-1].start()
      child.close()
    ready = {process: _answer(connection, process) for process, connection in connections.items()}
    where = {name: process for process, names in PROCESSES.items() for name in names}
    rates = {name: [] for name in where}
    phases, learner_cpu, learner_steps = {}, 0.0, 0
    for _ in range(repeats):
      for name, process in where.items():
        connections[process].send((name, seconds))
        wall_rate, cpu_rate, steps, spent = _answer(connections[process], process)
        rates[name].append((wall_rate, cpu_rate))
        if name == LEARNER:
          for phase, value in spent.items():
            phases[phase] = phases.get(phase, 0.0) + value
          learner_cpu, learner_steps = learner_cpu + steps / cpu_rate, learner_steps + steps
  finally:
    for connection in connections.values():
      try:
        connection.send(None)
      except OSError:
        pass  # its process has ended already
    for worker in workers:
      worker.join(timeout=30)
      if worker.is_alive():
        worker.terminate()
  medians = {name: (statistics.median(r[0] for r in values),
                    statistics.median(r[1] for r in values)) for name, values in rates.items()}
  per_step = {phase: seconds_ / learner_steps * 1e6 for phase, seconds_ in phases.items()}
  learner, overlapping = medians[LEARNER], medians[OVERLAPPED]
  return {"config": config.__dict__, "devices": ready["overlap"][1], "seconds": seconds,
          "repeats": repeats,
          "load_before": load_before, "load_after": os.getloadavg()[0], "cores": os.cpu_count(),
          "processes": [list(names) for names in PROCESSES.values()],
          "steps_per_s": {name: medians[name] for name in
                          (LEARNER, ONE_PART, OVERLAPPED, LEAGUE, RANDOM)},
          "forward_per_s": medians[FORWARD],
          "cold_iteration_cpu_s": ready["learner"][0],
          "phase_microseconds_per_step": per_step,
          "learner_microseconds_per_step": learner_cpu / learner_steps * 1e6,
          "learner_share_of_environment": learner[0] / medians[LEAGUE][0],
          "learner_share_of_environment_cpu": learner[1] / medians[LEAGUE][1],
          "targets": [target("PPO learner: steps/s (wall)", learner[0], MIN_LEARNER_STEPS),
                      target("PPO learner with overlap: steps/s (wall)", overlapping[0],
                             MIN_LEARNER_STEPS)]}


def _phase_rows(figures: dict) -> list[tuple[str, float]]:
  """The learner's CPU microseconds a step by phase, the environment's and the policy's split by
  the raw measurements of the same run."""
  phases = figures["phase_microseconds_per_step"]
  rates = figures["steps_per_s"]
  opponents = 1e6 / rates[LEAGUE][1] - 1e6 / rates[RANDOM][1]
  forward = 1e6 / figures["forward_per_s"][1]
  rows = [("environment stepping (league less its opponents)", phases["environment"] - opponents),
          ("compiled opponents' actions (league less random, raw)", opponents),
          ("policy forward pass (measured alone)", forward),
          ("sampling and transfers (policy phase less forward)", phases["policy"] - forward),
          ("update (advantages, epochs of minibatches)", phases["update"])]
  rows.append(("Python between phases", figures["learner_microseconds_per_step"] -
               sum(phases.values())))
  return rows


def idle_bounds(figures: dict) -> tuple[float, float, float]:
  """The wall steps/s the measured CPU time allows on two otherwise idle cores, at best: every
  phase split evenly over both cores (collection in two parts, then the update); collection on
  one core and then the update on both; with overlap, the slower of collection and the update
  side by side (the update's share: the overlapped learner's CPU time a step less
  collection's)."""
  phases = figures["phase_microseconds_per_step"]
  update = phases["update"]
  total = figures["learner_microseconds_per_step"]
  collection = total - update
  overlapped_update = 1e6 / figures["steps_per_s"][OVERLAPPED][1] - collection
  return 1e6 / (total / 2), 1e6 / (collection + update / 2), 1e6 / max(collection,
                                                                        overlapped_update)


def report(figures: dict) -> str:
  config = figures["config"]
  lines = [f"PPO on {config['game']}: {config['num_envs']} games x {config['rollout_steps']}"
           f" steps an iteration, {config['epochs']} epoch{'s' * (config['epochs'] != 1)} of"
           f" {config['minibatches']}"
           f" minibatches, hidden {config['hidden']}; league {config['opponents']}. Median of"
           f" {figures['repeats']} interleaved run(s) of {figures['seconds']:g} s each, warm"
           " (compiled)."
           + (" Each learner in a process of its own, as a training runs it, the raw batches and"
              " the forward pass in another." if "processes" in figures else "")
           + (f" Overlap on {figures['devices']} host devices." if "devices" in figures else "")
           + (f" The first, cold iteration (XLA compiling) took"
              f" {figures['cold_iteration_cpu_s']:.1f} CPU s." if "cold_iteration_cpu_s" in
              figures else "")
           + (f" Load average (1 min) at the start {figures['load_before']:.1f}, at the end"
              f" {figures['load_after']:.1f} ({figures['cores']} cores): wall rates are only"
              " meaningful on a quiet machine, CPU rates less disturbed."
              if "load_before" in figures else ""), ""]
  rows = [("measure", "steps/s (wall)", "steps/s (CPU)")]
  rows += [(name, f"{wall:,.0f}", f"{cpu:,.0f}")
           for name, (wall, cpu) in figures["steps_per_s"].items()]
  lines += format_table(rows)
  lines += ["", f"The learner runs at {figures['learner_share_of_environment']:.2f} of its"
            " environment's raw speed (wall)"
            + (f", {figures['learner_share_of_environment_cpu']:.2f} (CPU)." if
               "learner_share_of_environment_cpu" in figures else "."), ""]
  if "phase_microseconds_per_step" in figures:
    total = figures["learner_microseconds_per_step"]
    rows = [("learner phase", "CPU µs a step", "share")]
    rows += [(name, f"{value:.2f}", f"{value / total:.2f}") for name, value in
             _phase_rows(figures)]
    rows.append(("learner, all phases", f"{total:.2f}", "1.00"))
    lines += format_table(rows) + [""]
    bounds = idle_bounds(figures)
    lines += [f"On two idle cores these CPU times bound the learner at {bounds[0]:,.0f} steps/s"
              " (wall; collection and then the update each on both cores), at"
              f" {bounds[1]:,.0f} collecting on one core (then the update on both) and with"
              f" overlap at {bounds[2]:,.0f} (collection on one core while the update runs on"
              " the other).", ""]
    forward, dense = network_flops(config)
    rate = forward * figures["forward_per_s"][1]
    products = dense / rate * 1e6
    environment = figures["phase_microseconds_per_step"]["environment"]
    lines += [f"The network's dense products are {dense:,}"
              " floating-point operations a step (collection's forward pass, the update's"
              " forward and backward passes): at the forward pass's rate"
              f" ({rate / 1e9:.1f} GFLOP a CPU second) {products:.2f} CPU µs a step, with the"
              f" environment's {environment:.2f} a bound of {2e6 / (products + environment):,.0f}"
              " steps/s on two idle cores, whatever sampling, transfers and the update's other"
              " work cost.", ""]
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], f"{t['value']:,.0f}", f">= {t['minimum']:,}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  return "\n".join(lines + format_table(rows))
