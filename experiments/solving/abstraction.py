"""Kind "abstraction": each abstraction's strategy judged in the real game, against its size.

For each game and abstraction, one unit solves the abstracted game and measures the exploitability
(NashConv where that is not defined) of its average policy in the real game, beside the number of
abstract information sets it has: Waugh et al. (2009)'s curve.

  [abstraction]
  algorithm = "cfr+"
  iterations = 500
  abstractions = ["identity", "canonical", "buckets:1", "buckets:3", "kmeans:50", ...]
"""

from __future__ import annotations

import pathlib
from typing import Any

import pyspiel
from matplotlib.figure import Figure

from experiments import config as config_lib
from experiments.solving import figures
from experiments.solving import measures
from experiments.solving.kind import Kind, Report, SolvingConfig, Unit

KEYS = ("algorithm", "iterations", "abstractions")
PLOTS = "abstraction"


def parse_section(section: config_lib.Section) -> dict[str, Any]:
  section.check_keys(KEYS)
  algorithm = section.choice("algorithm", measures.ALGORITHMS)
  abstractions = section.string_list("abstractions")
  for i, abstraction in enumerate(abstractions):
    measures.check_abstraction(abstraction, f"{section.key_path('abstractions')}[{i}]")
  return {"algorithm": algorithm, "abstractions": abstractions,
          "iterations": section.integer("iterations", minimum=1)}


def units(config: SolvingConfig, label: str) -> list[Unit]:
  return [{"game": label, "abstraction": a} for a in config.section["abstractions"]]


def run_unit(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> dict[str, Any]:
  abstraction = unit["abstraction"]
  solver = measures.make_solver(config.section["algorithm"], game, abstraction, seed)
  solver.run(iterations=config.section["iterations"])
  return {"family": abstraction.split(":")[0], "abstract_infosets": len(solver.average_strategy()),
          "iterations": solver.iterations, "seconds": round(solver.seconds, 4),
          **measures.solver_nash_conv(game, solver)}


def report(config: SolvingConfig, results: list[dict], plots: pathlib.Path) -> Report:
  del config
  rows = [["game", "abstraction", "family", "abstract_infosets", "iterations", "seconds",
           "nash_conv", "exploitability"]]
  lines = ["| game | abstraction | abstract information sets | exploitability (NashConv) |",
           "|---|---|---|---|"]
  results = sorted(results, key=lambda r: (r["game"], r["abstract_infosets"]))
  for r in results:
    rows.append([r["game"], r["abstraction"], r["family"], r["abstract_infosets"],
                 r["iterations"], r["seconds"], r["nash_conv"], r.get("exploitability", "")])
    name, value = figures.measure(r)
    lines.append(f"| {r['game']} | {r['abstraction']} | {r['abstract_infosets']:,} |"
                 f" {figures.number(value)} ({name}) |")
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
  figures.log_log(ax, "abstract information sets")
  ax.set_ylabel(figures.measure(entries[0])[0] + " in the real game")
  ax.legend()
  ax.set_title(f"Abstraction size against exploitability, {game}")
  figures.save(fig, path)


KIND = Kind(name="abstraction", takes_players=False, units=units, run_unit=run_unit, report=report,
            section="abstraction", parse_section=parse_section, plots=PLOTS)
