"""What a kind of solving experiment is made of, and the checked config it is given.

A kind (`convergence`, `abstraction`, ...) is one module of this package ending in a `Kind`: how it
reads its own table of the config, how it splits the work on one game into units, how it runs a
unit, and how it reports the results. Everything else (the shared keys of the config, numbering
and seeding the units, running them resumably in parallel, reproducing and writing the report
files) is done once, by `experiments.solving`, for every kind.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable
from typing import Any

import pyspiel

from experiments import config as config_lib
from experiments.config import Competitor

Unit = dict[str, Any]  # what a unit does ("game" and the kind's keys); its result adds to it
Report = tuple[list[list], list[str]]  # rows of results.csv (header first), lines of summary.md


@dataclasses.dataclass(frozen=True)
class Kind:
  """One kind of solving experiment:

  - `takes_players`: whether it measures the `[[players]]` competitors;
  - `units(config, label)`: the units of work on one game (by its label), in order;
  - `run_unit(config, game, unit, seed)`: the figures of one unit, added to its line;
  - `report(config, results, plots)`: the rows of results.csv and the lines of summary.md, with
    any plots drawn into the folder `plots`;
  - `section`, `table`: the name of the table of its parameters, if it has one, and its
    declaration (`experiments.config`), resolved into the plain dict `SolvingConfig.section`;
  - `plots`: the name its report gives its plots, `plots/<plots>_<game label>.png`, if it draws any;
  - `needs_tree(config, label)`: whether its units build the whole tree of the game (exact
    measures), so that the game's size is checked with the config;
  - `check(config)`: any check of the whole config (its table against its players), a
    ConfigError when it fails;
  - `games`: the games (short names) it measures;
  - `result_problem(unit, result)`: what is wrong with a unit's stored figures (their number and
    types), None if nothing, checked at resume, report and reproduce.
  """
  name: str
  takes_players: bool
  units: Callable[[SolvingConfig, str], list[Unit]]
  run_unit: Callable[[SolvingConfig, pyspiel.Game, Unit, int], dict[str, Any]]
  report: Callable[[SolvingConfig, list[dict], pathlib.Path], Report]
  section: str | None = None
  table: type | None = None
  plots: str | None = None
  needs_tree: Callable[[SolvingConfig, str], bool] = lambda config, label: True
  check: Callable[[SolvingConfig], None] = lambda config: None
  result_problem: Callable[[Unit, dict], str | None] = lambda unit, result: None
  games: tuple[str, ...] = ("python_sushi_go",)


@dataclasses.dataclass(frozen=True)
class SolvingConfig:
  """A checked solving config: its `[experiment]` table (`experiments.solving.Experiment`), its
  kind, the kind's table resolved (plain data, as hashed), its competitors, and `text`, the TOML
  exactly as written."""
  experiment: Any
  kind: Kind
  section: dict[str, Any]
  players: tuple[Competitor, ...]
  text: str

  name = property(lambda self: self.experiment.name)
  seed = property(lambda self: self.experiment.seed)
  max_tree_nodes = property(lambda self: self.experiment.max_tree_nodes)

  @property
  def games(self) -> tuple[tuple[str, str], ...]:
    """(label, game string) of each game."""
    return tuple(self.experiment.games.items())

  def units(self) -> list[Unit]:
    """The units of work, in order, numbered; each is one line of results.jsonl when done."""
    units = [unit for label, _ in self.games for unit in self.kind.units(self, label)]
    return [{"unit": i, **unit} for i, unit in enumerate(units)]

  def game(self, label: str) -> pyspiel.Game:
    return config_lib.load_game(dict(self.games)[label])

  def competitor(self, name: str) -> Competitor:
    return next(p for p in self.players if p.name == name)

  def resolved(self) -> dict[str, Any]:
    """The config with every default filled in, its number of units, and `config_hash`."""
    resolved = {
        "experiment": config_lib.resolved(self.experiment),
        "section": self.section,
        "players": [config_lib.resolved(p) for p in self.players],
        "units": len(self.units()),
    }
    return {**resolved, "config_hash": config_lib.config_hash(resolved)}

  @property
  def hash(self) -> str:
    return self.resolved()["config_hash"]
