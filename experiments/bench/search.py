"""Search speed, in one interleaved run (`sushigo bench --search`): the compiled core's playouts
beside OpenSpiel's C++ goofspiel, the ISMCTS bots beside OpenSpiel's Python ISMCTS, PIMC beside
its Python engine, MCCFR compiled beside Python, blueprint training on N workers, and the kernels'
cold and warm compile times.

Rates are per CPU second of this process (`time.process_time`), so other work on a shared machine
counts less, except the training scaling, timed in wall seconds on N idle cores; each is measured
in turn, `repeats` times, medians reported. The searches start at the opening position after a
seeded deal, player 0 searching with random rollouts; a compile is timed in a fresh interpreter
with an empty (cold) or filled (warm) kernel cache. What each row measures, its targets and the
figures: docs/speed.md ("Compiled search").
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

import pyspiel

import solvers
from experiments.bench import game as bench
from experiments.bench.playouts import core_rate
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.blueprint import ABSTRACTION, CompiledMCCFR
from solvers.equilibrium.blueprint_training import BlueprintTrainer
from solvers.search.pimc import PIMCBot
from sushigo_spiel.compiled import CompiledSushiGo
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import format_table
from sushigo_spiel.reduced_games import load_reduced

REFERENCE = "openspiel_ismcts"
SEARCHERS = ("so_ismcts", "mo_ismcts")
MIN_PLAYOUTS = 100_000  # core random 2-player games per second
MIN_ITERATIONS = {2: 30_000, 4: 20_000}  # compiled ISMCTS iterations/s at the opening
MIN_RATIO = 50.0  # compiled ISMCTS iterations/s over OpenSpiel's Python ISMCTS, same position
MIN_PIMC_RATIO = 10.0  # compiled PIMC worlds/s over the Python engine's
MIN_MCCFR_RATIO = 10.0  # compiled ES- and OS-MCCFR iterations/s over the Python solver's, same game
MCCFR_GAME = "large"
FULL_GAME = "python_sushi_go(players=2,utility=margin)"
_COMPILE = ("from solvers.policy_kernels.compiling import KERNELS as policies;"
            " from solvers.search.kernels.compiling import KERNELS as search;"
            " policies.compile_all(); search.compile_all()")


def opening(game: pyspiel.Game, seed: int) -> pyspiel.State:
  """The first simultaneous node of `game`, the deal drawn with `seed`."""
  rng, state = random.Random(seed), game.new_initial_state()
  while state.is_chance_node():
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(outcomes[draw_index(probabilities, rng.random)])
  return state


def iterations_per_second(name: str, game: pyspiel.Game, state: pyspiel.State,
                          seconds: float, seed: int) -> float:
  """Iterations per CPU second of bot `name` searching `state` for player 0 for `seconds`."""
  bot = solvers.make_bot(name, game, 0, seed=seed, seconds=seconds)
  start = time.process_time()
  if name == REFERENCE:
    bot.step(state)
    iterations = bot.last_search_visits()
  else:
    root = bot.search(state)
    iterations = sum(root.visits(a) for a in root.arms())
  return iterations / (time.process_time() - start)


def worlds_per_second(game: pyspiel.Game, state: pyspiel.State, seconds: float, seed: int,
                      engine: str | None = None, **params) -> float:
  """Worlds per CPU second of PIMC (default parameters, overridden by `params`; `engine` as
  `PIMCBot` takes it) deciding at `state` for player 0, sampling worlds for `seconds`."""
  if seconds <= 0:
    raise ValueError(f"seconds is {seconds}; allowed: a number > 0")
  bot = PIMCBot(game, 0, seed, engine=engine, seconds=seconds, **params)
  start = time.process_time()
  bot.get_policy(state)
  return bot.worlds_searched / (time.process_time() - start)


def compile_seconds(cold: bool) -> float:
  """Wall seconds a fresh interpreter takes to compile (`cold`: into an empty cache) or load the
  game core and the search kernels, less its start-up without them."""
  def timed(code: str, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return time.perf_counter() - start

  env = dict(os.environ)
  with tempfile.TemporaryDirectory() as cache:
    if cold:
      env["NUMBA_CACHE_DIR"] = cache
    base = timed("import solvers.search.kernels.searches", env)
    return timed(_COMPILE, env) - base


def speeds(players: int, seconds: float, repeats: int, seed: int) -> dict:
  """Median rates at the opening of `python_sushi_go(players=...)`, interleaved."""
  game = pyspiel.load_game(bench.sushi_go_string(players))
  state = opening(game, seed)
  runs = {name: [] for name in (REFERENCE, *SEARCHERS, "pimc", "pimc_python")}
  for name in SEARCHERS:  # their first searches compile their kernels (on first use): not timed
    iterations_per_second(name, game, state, seconds, seed)
  worlds_per_second(game, state, seconds, seed)
  for repeat in range(repeats):
    for name in (REFERENCE, *SEARCHERS):
      runs[name].append(iterations_per_second(name, game, state, seconds, seed + repeat))
    runs["pimc"].append(worlds_per_second(game, state, seconds, seed + repeat))
    runs["pimc_python"].append(worlds_per_second(game, state, seconds, seed + repeat, "python"))
  return {"players": players, "medians": {k: statistics.median(v) for k, v in runs.items()},
          "runs": runs}


def playout_speeds(seconds: float, repeats: int, seed: int) -> dict:
  """Core playouts/s at 2 and 5 players and goofspiel's games/s, medians of interleaved runs."""
  goofspiel = pyspiel.load_game(bench.REFERENCE)
  runs = {"goofspiel": [], 2: [], 5: []}
  cores = {players: CompiledSushiGo.from_params(players=players) for players in (2, 5)}
  for core in cores.values():
    core.playout_many(1, seed)  # compiles the playouts on first use: not timed
  for repeat in range(repeats):
    rng = random.Random(seed + repeat)
    start = time.process_time()
    games = bench.measure_games(goofspiel, seconds, rng)["games_per_s"]
    runs["goofspiel"].append(games * seconds / (time.process_time() - start))
    for players in (2, 5):
      runs[players].append(core_rate(cores[players], games=20_000, repeats=1).median)
  return {str(k): statistics.median(v) for k, v in runs.items()}


def mccfr_speeds(seconds: float, repeats: int, seed: int) -> dict:
  """MCCFR iterations per CPU second (module docstring), medians of interleaved runs."""
  reduced, full = load_reduced(MCCFR_GAME), pyspiel.load_game(FULL_GAME)
  solvers_by_name = {
      "es": lambda s: CompiledMCCFR(reduced, "es-mccfr", s, table_bits=16),
      "es_python": lambda s: policy_io.make_solver("es-mccfr", reduced, "identity", s),
      "probe_full": lambda s: CompiledMCCFR(full, "probe-mccfr", s),
      "os_full": lambda s: CompiledMCCFR(full, "os-mccfr", s),
      "os_python_full": lambda s: policy_io.make_solver("os-mccfr", full, "summary:1", s),
  }
  runs = {name: [] for name in solvers_by_name}
  for make in solvers_by_name.values():
    solver = make(seed)
    if isinstance(solver, CompiledMCCFR):
      solver.iterate()  # compiles the walks on first use: not timed
  for repeat in range(repeats):
    for name, make in solvers_by_name.items():
      runs[name].append(_iterations_per_cpu_second(make(seed + repeat), seconds))
  return {name: statistics.median(rates) for name, rates in runs.items()}


def _iterations_per_cpu_second(solver, seconds: float) -> float:
  """Runs `solver` (a Python one, or a compiled one through its trainer) for `seconds`."""
  if isinstance(solver, CompiledMCCFR):
    timed = BlueprintTrainer(solver).run(seconds=seconds)
  else:
    timed = solver.run(seconds=seconds)
  return solver.iterations / timed.cpu_seconds


def training_scaling(workers: int, iterations: int, seed: int, game: str = FULL_GAME,
                     abstraction: str = ABSTRACTION) -> dict:
  """Blueprint training's wall-clock rate on 1 and on `workers` processes (module docstring)."""
  full = pyspiel.load_game(game)
  BlueprintTrainer(CompiledMCCFR(full, "probe-mccfr", seed, abstraction=abstraction)).run(
      iterations=1, workers=workers)  # start-up paid
  rates = {}
  for count in (1, workers):
    solver = CompiledMCCFR(full, "probe-mccfr", seed, abstraction=abstraction)
    start = time.perf_counter()
    BlueprintTrainer(solver).run(iterations=iterations, workers=count)
    rates[count] = solver.iterations / (time.perf_counter() - start)
  return {"game": game, "abstraction": abstraction, "iterations": iterations, "workers": workers,
          "one_worker": rates[1], "all_workers": rates[workers],
          "per_worker": rates[workers] / workers, "speed_up": rates[workers] / rates[1]}


def report_scaling(figures: dict) -> str:
  """The figures of `training_scaling` as one paragraph."""
  return (f"blueprint training (probe-mccfr, {figures['abstraction']}, {figures['game']}),"
          f" {figures['iterations']:,}"
          f" iterations, wall clock: 1 process {figures['one_worker']:,.0f} it/s;"
          f" {figures['workers']} processes {figures['all_workers']:,.0f} it/s"
          f" ({figures['per_worker']:,.0f} per worker), {figures['speed_up']:.2f} times one's")


def run(players: Sequence[int] = (2, 4), seconds: float = 1.0, repeats: int = 3, seed: int = 0,
        compile_times: bool = True) -> dict:
  """Every figure of the module docstring, with the targets."""
  playouts = playout_speeds(seconds, repeats, seed)
  searches = [speeds(n, seconds, repeats, seed) for n in players]
  targets = [bench.target("core 2p random playouts/s", playouts["2"], MIN_PLAYOUTS)]
  for s in searches:
    medians = s["medians"]
    for name in SEARCHERS:
      if s["players"] in MIN_ITERATIONS:
        targets.append(bench.target(f"{name} {s['players']}p iterations/s", medians[name],
                                    MIN_ITERATIONS[s["players"]]))
      targets.append(bench.target(f"{name} {s['players']}p / {REFERENCE}",
                                  medians[name] / medians[REFERENCE], MIN_RATIO))
    targets.append(bench.target(f"pimc {s['players']}p worlds/s / python engine",
                                medians["pimc"] / medians["pimc_python"], MIN_PIMC_RATIO))
  mccfr = mccfr_speeds(seconds, repeats, seed)
  targets.append(bench.target(f"es-mccfr {MCCFR_GAME} compiled / python",
                              mccfr["es"] / mccfr["es_python"], MIN_MCCFR_RATIO))
  targets.append(bench.target("os-mccfr full 2p compiled / python",
                              mccfr["os_full"] / mccfr["os_python_full"], MIN_MCCFR_RATIO))
  figures = {"seconds": seconds, "repeats": repeats, "seed": seed, "playouts": playouts,
             "speeds": searches, "mccfr": mccfr, "targets": targets}
  if compile_times:
    figures["compile_seconds"] = {"cold": compile_seconds(True), "warm": compile_seconds(False)}
  return figures


def report(figures: dict) -> str:
  """The figures of `run` as plain-text tables."""
  playouts = figures["playouts"]
  lines = [f"Per CPU second, medians of {figures['repeats']} interleaved run(s) of"
           f" {figures['seconds']:g} s each; single process, one core.", "",
           f"random playouts, full games/s: core 2p {playouts['2']:,.0f}, core 5p"
           f" {playouts['5']:,.0f}; goofspiel (C++, through pyspiel) {playouts['goofspiel']:,.0f}",
           ""]
  names = (REFERENCE, *SEARCHERS)
  rows = [("game", *names, "pimc worlds/s", "pimc python")]
  rows += [(f"Sushi Go {s['players']}p", *(f"{s['medians'][n]:,.0f}" for n in names),
            f"{s['medians']['pimc']:,.1f}", f"{s['medians']['pimc_python']:,.1f}")
           for s in figures["speeds"]]
  lines += ["ISMCTS iterations/s and PIMC worlds/s at the opening, player 0, random rollouts"]
  lines += format_table(rows)
  mccfr = figures["mccfr"]
  lines += ["", f"MCCFR iterations/s: es-mccfr on {MCCFR_GAME}: compiled (cards)"
            f" {mccfr['es']:,.0f}, python (identity) {mccfr['es_python']:,.0f}; full 2p game:"
            f" compiled probe-mccfr (cards) {mccfr['probe_full']:,.1f}, compiled os-mccfr (cards)"
            f" {mccfr['os_full']:,.0f}, python os-mccfr (summary:1)"
            f" {mccfr['os_python_full']:,.1f}"]
  if "compile_seconds" in figures:
    times = figures["compile_seconds"]
    lines += ["", f"compiling the game core and search kernels: cold {times['cold']:.1f} s"
              f" (empty cache), warm {times['warm']:.2f} s (from the cache)"]
  lines.append("")
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], f"{t['value']:,.2f}", f">= {t['minimum']:,g}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  lines += format_table(rows)
  return "\n".join(lines)
