"""Kind "abstraction": each abstraction's strategy judged in the real game, against its size.

For each game and abstraction, one unit solves the abstracted game and measures the exploitability
(NashConv where that is not defined) of its average policy in the real game, beside the number of
keys it has: Waugh et al. (2009)'s curve.

Its table, `[abstraction]`, is declared below (`Abstraction`). The abstractions of
`solvers.equilibrium.abstraction` key information sets and are solved by `algorithm`. The
blueprint's action-centred abstractions (`cards`, `cards+rank`) key each legal action by its
context, so they have no abstract information sets and only sampled solvers on the compiled core:
they are trained by compiled external-sampling MCCFR (linear averaging) for
`blueprint_iterations`, and their size is the number of keys met (slots in use).
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

import pyspiel
from matplotlib.figure import Figure

from experiments import config as config_lib
from experiments.config import key
from experiments.solving import figures
from experiments.solving import measures
from experiments.solving.kind import Kind, Report, SolvingConfig, Unit
from solvers.equilibrium import blueprint
from solvers.equilibrium.blueprint_training import BlueprintTrainer
from solvers.equilibrium.tree_policies import policy_array

PLOTS = "abstraction"
BLUEPRINT_ALGORITHM = "es-mccfr"
BLUEPRINT_TABLE_BITS = 18  # 262,144 slots: far more than the reduced games' action keys


def _abstractions(value: Any, path: str) -> tuple[str, ...]:
  abstractions = config_lib.string_list(value, path)
  for i, abstraction in enumerate(abstractions):
    if abstraction in blueprint.ABSTRACTIONS:
      continue
    try:
      measures.check_abstraction(abstraction, f"{path}[{i}]")
    except config_lib.ConfigError as e:
      raise config_lib.ConfigError(f"{e}; or an action-centred one:"
                                   f" {', '.join(blueprint.ABSTRACTIONS)}") from None
  return tuple(abstractions)


@dataclasses.dataclass(frozen=True)
class Abstraction:
  """Of kind "abstraction", required: the abstractions compared, and how they are solved."""
  algorithm: str = key("the solver of the information-set abstractions",
                       allowed=measures.ALGORITHMS)
  iterations: int = key("its iterations", minimum=1)
  abstractions: tuple[str, ...] = key("abstractions of `solvers.equilibrium.abstraction`"
                                      ' (`"identity"`, `"buckets:1"`, `"kmeans:50"`, ...) or'
                                      ' action-centred ones (`"cards"`, `"cards+rank"`)',
                                      check=_abstractions)
  blueprint_iterations: int = key("compiled es-mccfr iterations of the action-centred ones",
                                  default=1000, minimum=1)


def units(config: SolvingConfig, label: str) -> list[Unit]:
  return [{"game": label, "abstraction": a} for a in config.section["abstractions"]]


def run_unit(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> dict[str, Any]:
  abstraction = unit["abstraction"]
  if abstraction in blueprint.ABSTRACTIONS:
    return _run_action_centred(config, game, abstraction, seed)
  solver = measures.make_solver(config.section["algorithm"], game, abstraction, seed)
  solver.run(iterations=config.section["iterations"])
  return {"family": abstraction.split(":")[0], "algorithm": config.section["algorithm"],
          "abstract_infosets": len(solver.average_strategy()),
          "iterations": solver.iterations, "seconds": round(solver.seconds, 4),
          **measures.solver_nash_conv(game, solver)}


def unit_seconds(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> float:
  """A unit's CPU seconds, estimated: its iterations at the solver's calibrated rate and one
  exact evaluation."""
  abstraction = unit["abstraction"]
  if abstraction in blueprint.ABSTRACTIONS:
    solver = BlueprintTrainer(blueprint.CompiledMCCFR(
        game, BLUEPRINT_ALGORITHM, seed=seed, abstraction=abstraction,
        table_bits=BLUEPRINT_TABLE_BITS))
    return (config.section["blueprint_iterations"] * measures.iteration_seconds(solver)
            + measures.evaluation_seconds(game))
  return (config.section["iterations"] * measures.algorithm_iteration_seconds(
      config.section["algorithm"], game, seed) + measures.evaluation_seconds(game))


def _run_action_centred(config: SolvingConfig, game: pyspiel.Game, abstraction: str,
                        seed: int) -> dict[str, Any]:
  """A blueprint abstraction's unit: compiled es-mccfr, its keys met, its policy's NashConv."""
  trainer = BlueprintTrainer(blueprint.CompiledMCCFR(
      game, BLUEPRINT_ALGORITHM, seed=seed, abstraction=abstraction,
      table_bits=BLUEPRINT_TABLE_BITS)).run(iterations=config.section["blueprint_iterations"])
  solver = trainer.solver
  game_tree = measures.tree(game)
  return {"family": abstraction, "algorithm": BLUEPRINT_ALGORITHM,
          "abstract_infosets": solver.occupied, "iterations": solver.iterations,
          "seconds": round(trainer.seconds, 4),
          **measures.nash_conv(game_tree, policy_array(game_tree, solver.policy()))}


def report(config: SolvingConfig, results: list[dict], plots: pathlib.Path) -> Report:
  rows = [["game", "abstraction", "family", "algorithm", "abstract_infosets", "iterations",
           "seconds", "nash_conv", "exploitability"]]
  lines = ["Keys: abstract information sets, or for the action-centred `cards` and `cards+rank`"
           " the action keys met in training.", "",
           "| game | abstraction | keys | algorithm, iterations | exploitability (NashConv) |",
           "|---|---|---|---|---|"]
  results = sorted(results, key=lambda r: (r["game"], r["abstract_infosets"]))
  for r in results:
    algorithm = r.get("algorithm", config.section["algorithm"])
    rows.append([r["game"], r["abstraction"], r["family"], algorithm, r["abstract_infosets"],
                 r["iterations"], r["seconds"], r["nash_conv"], r.get("exploitability", "")])
    name, value = figures.measure(r)
    lines.append(f"| {r['game']} | {r['abstraction']} | {r['abstract_infosets']:,} |"
                 f" {algorithm}, {r['iterations']:,} | {figures.number(value)} ({name}) |")
  return rows, lines + figures.plots_by_game(results, plots, PLOTS, "Abstractions", _plot)


def _plot(path: pathlib.Path, game: str, entries: list[dict]) -> None:
  """The measure against abstract information sets, one line per abstraction family."""
  fig = Figure(figsize=(6, 4))
  ax = fig.subplots()
  families = {}
  for entry in entries:
    families.setdefault(entry["family"], []).append(entry)
  for family, members in families.items():
    members.sort(key=lambda e: e["abstract_infosets"])
    ax.plot([e["abstract_infosets"] for e in members], [figures.measure(e)[1] for e in members],
            marker="o", label=family)
  figures.log_log(ax, "keys (abstract information sets, or action keys)")
  ax.set_ylabel(figures.measure(entries[0])[0] + " in the real game")
  ax.legend()
  ax.set_title(f"Abstraction size against exploitability, {game}")
  figures.save(fig, path)


KIND = Kind(name="abstraction", takes_players=False, units=units, run_unit=run_unit, report=report,
            section="abstraction", table=Abstraction, plots=PLOTS)
