"""Kind "convergence": how fast each CFR variant's average policy becomes unexploitable.

For each game and algorithm, one unit runs the solver and measures the exploitability (NashConv
where that is not defined) of its average policy at log-spaced checkpoints, against iterations and
against CPU seconds of solving (solving only, not evaluating; CPU time of the process rather than
wall time, so that a loaded machine does not bend the curves; both are recorded).

Its table, `[convergence]`, is declared below (`Convergence`).
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

import numpy as np
import pyspiel
from matplotlib.figure import Figure

from experiments import config as config_lib
from experiments.config import ConfigError, key
from experiments.solving import figures
from experiments.solving import measures
from experiments.solving.kind import Kind, Report, SolvingConfig, Unit

PLOTS = "convergence"
DEFAULT_CHECKPOINTS = 12


def _abstraction(value: Any, path: str) -> str:
  return measures.check_abstraction(config_lib.string(value, path), path)


def _count_or_table(value: Any, path: str) -> int | dict[str, Any]:
  return dict(value) if isinstance(value, dict) else config_lib.integer(value, path, minimum=1)


@dataclasses.dataclass(frozen=True)
class Convergence:
  """Of kind "convergence", required: the CFR variants and how long each runs."""
  algorithms: tuple[str, ...] = key("the solvers compared", allowed=measures.ALGORITHMS)
  abstraction: str = key("the abstraction they solve (`solvers.equilibrium.abstraction`)",
                         default="identity", check=_abstraction)
  iterations: int | dict[str, int] = key("per algorithm: an integer >= 1, or a table such as"
                                         " `{ cfr = 1000, os-mccfr = 200000 }`",
                                         check=_count_or_table)
  checkpoints: int = key("evaluations, log-spaced up to iterations",
                         default=DEFAULT_CHECKPOINTS, minimum=1)

  def cross_check(self, path: str) -> Convergence:
    """Iterations by algorithm: one integer for all, or a table with one for each."""
    iterations, where = self.iterations, f"{path}.iterations"
    if not isinstance(iterations, dict):
      return dataclasses.replace(self, iterations={a: iterations for a in self.algorithms})
    config_lib.check_keys(iterations, where, self.algorithms)
    missing = [a for a in self.algorithms if a not in iterations]
    if missing:
      raise ConfigError(f"{where}: no iterations for {', '.join(missing)}; give an integer for"
                        " every algorithm, or one integer for all")
    return dataclasses.replace(self, iterations={
        a: config_lib.integer(iterations[a], f"{where}.{a}", minimum=1) for a in self.algorithms})


def units(config: SolvingConfig, label: str) -> list[Unit]:
  return [{"game": label, "algorithm": a} for a in config.section["algorithms"]]


def run_unit(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> dict[str, Any]:
  algorithm = unit["algorithm"]
  solver = measures.make_solver(algorithm, game, config.section["abstraction"], seed)
  total = config.section["iterations"][algorithm]
  marks = np.unique(np.geomspace(1, total, config.section["checkpoints"]).round().astype(int))
  points = []
  for mark in marks:
    solver.run(iterations=int(mark) - solver.iterations)
    measured = measures.solver_nash_conv(game, solver)
    points.append({"iterations": int(mark), "seconds": round(solver.seconds, 4),
                   "cpu_seconds": round(solver.cpu_seconds, 4),
                   **{k: measured[k] for k in ("nash_conv", "exploitability") if k in measured}})
  return {"abstraction": config.section["abstraction"], "points": points}


def unit_seconds(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> float:
  """A unit's CPU seconds, estimated: its iterations at the solver's calibrated rate and an
  exact evaluation at each checkpoint."""
  algorithm = unit["algorithm"]
  total = config.section["iterations"][algorithm]
  marks = np.unique(np.geomspace(1, total, config.section["checkpoints"]).round().astype(int))
  return (total * measures.algorithm_iteration_seconds(algorithm, game, seed)
          + len(marks) * measures.evaluation_seconds(game))


def report(config: SolvingConfig, results: list[dict], plots: pathlib.Path) -> Report:
  del config
  rows = [["game", "algorithm", "abstraction", "iterations", "seconds", "cpu_seconds",
           "nash_conv", "exploitability"]]
  lines = ["| game | algorithm | iterations | CPU seconds | final exploitability (NashConv) |",
           "|---|---|---|---|---|"]
  results = sorted(results, key=lambda r: r["unit"])
  for r in results:
    for point in r["points"]:
      rows.append([r["game"], r["algorithm"], r["abstraction"], point["iterations"],
                   point["seconds"], point["cpu_seconds"], point["nash_conv"],
                   point.get("exploitability", "")])
    last = r["points"][-1]
    name, value = figures.measure(last)
    lines.append(f"| {r['game']} | {r['algorithm']} | {last['iterations']} |"
                 f" {last['cpu_seconds']:.2f} | {figures.number(value)} ({name}) |")
  return rows, lines + figures.plots_by_game(results, plots, PLOTS, "Convergence", _plot)


def _plot(path: pathlib.Path, game: str, entries: list[dict]) -> None:
  """The measure against iterations and against CPU seconds, one line per algorithm."""
  fig = Figure(figsize=(10, 4))
  axes = fig.subplots(1, 2, sharey=True)
  for entry in entries:
    measured = [figures.measure(p)[1] for p in entry["points"]]
    axes[0].plot([p["iterations"] for p in entry["points"]], measured, marker=".",
                 label=entry["algorithm"])
    axes[1].plot([max(p["cpu_seconds"], 1e-4) for p in entry["points"]], measured, marker=".",
                 label=entry["algorithm"])
  name = figures.measure(entries[0]["points"][0])[0]
  for ax, xlabel in zip(axes, ("iterations", "CPU seconds of solving")):
    figures.log_log(ax, xlabel)
  axes[0].set_ylabel(name)
  axes[1].legend()
  fig.suptitle(f"{name} of the average policy on {game}")
  figures.save(fig, path)


KIND = Kind(name="convergence", takes_players=False, units=units, run_unit=run_unit, report=report,
            section="convergence", table=Convergence, plots=PLOTS)
