"""How solving reports show their figures: the measure chosen, numbers in tables, log-log plots.

Plots are drawn on bare matplotlib figures (Agg renderer, no pyplot), as in the tournament report:
reporting opens no window and keeps no global state.
"""

from __future__ import annotations

import math
import pathlib
import re
from collections.abc import Callable

from matplotlib.figure import Figure

from experiments import run_folder

DPI = 120


def measure(entry: dict) -> tuple[str, float]:
  """Exploitability where the game defines it, else NashConv: its name and its value."""
  if "exploitability" in entry:
    return "exploitability", entry["exploitability"]
  return "NashConv", entry["nash_conv"]


def number(value: float | None, digits: int = 4) -> str:
  """A figure for a table: `digits` decimals, or significant digits when it is small; a dash for
  none."""
  if value is None or (isinstance(value, float) and math.isnan(value)):
    return "–"
  return f"{value:.{digits}g}" if abs(value) < 1e-2 and value else f"{value:.{digits}f}"


def log_log(ax, xlabel: str) -> None:
  ax.set_xscale("log")
  ax.set_yscale("log")
  ax.set_xlabel(xlabel)
  ax.grid(True, which="both", alpha=0.3)


def save(fig: Figure, path: pathlib.Path) -> None:
  path.parent.mkdir(parents=True, exist_ok=True)
  fig.tight_layout()
  run_folder.save_figure(fig, path, DPI)


def plot_file(name: str, game: str) -> str:
  """The file name of plot `name` of a game (by its label): a game string's parentheses, commas
  and the like become underscores, so that the name is safe in a path and in a Markdown link."""
  return f"{name}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', game).strip('_')}.png"


def plots_by_game(results: list[dict], plots: pathlib.Path, name: str, title: str,
                  plot: Callable[[pathlib.Path, str, list[dict]], None]) -> list[str]:
  """Draws `plot(path, game, entries)` for the results of each game, in their order, into
  `plots/<name>_<game>.png`; returns the summary's Markdown lines showing them."""
  by_game: dict[str, list[dict]] = {}
  for result in results:
    by_game.setdefault(result["game"], []).append(result)
  lines = []
  for game, entries in by_game.items():
    path = plots / plot_file(name, game)
    plot(path, game, entries)
    lines.append(f"\n![{title} on {game}]({path.parent.name}/{path.name})")
  return lines
