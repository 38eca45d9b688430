"""Solving experiments: CFR convergence, abstraction curves, exact and approximate exploitability.

A solving experiment is a TOML config with `[experiment] kind` naming what it measures, run by
`sushigo run CONFIG` into a run folder with a tournament's guarantees (`experiments.execution`):
checked in full before anything runs, resumable unit by unit, reproducible (wall-clock seconds
aside). Its `[experiment]` is declared below, each kind's parameter table in the kind's module;
a kind that measures competitors reads `[[players]]` as tournaments do. A game a kind solves
exactly has its tree size estimated at the config check (`solvers.equilibrium.tree_size`) and is
refused over the limit, with its estimate and the limit.

A kind is a module ending in a `kind.Kind` (its table, its units, a unit's run, its report); adding
one is adding its module and its line to `KINDS`. The kinds: docs/equilibrium.md, "Solving
experiments"; every key: docs/configs.md.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from experiments import config as config_lib
from experiments import estimates
from experiments import execution
from experiments import run_folder
from experiments.config import ConfigError, key
from experiments.run_folder import Session
from experiments.solving import abstraction, approximate, convergence, exploitability, figures
from experiments.solving import measures
from experiments.solving.kind import SolvingConfig, Unit
from solvers.equilibrium import tree_size
from sushigo_spiel import reduced_games

KINDS = {kind.name: kind for kind in (
    convergence.KIND,
    abstraction.KIND,
    exploitability.KIND,
    approximate.KIND,
)}
RESULTS = run_folder.UNIT_RESULTS
RESULTS_FILE = run_folder.RESULTS_FILE
RESULTS_CSV = run_folder.RESULTS_CSV
SUMMARY_MD = run_folder.SUMMARY_MD

_TIMES = ("seconds", "cpu_seconds")  # the figures of a result that are not reproducible
_DIFFERENCES_SHOWN = 20


# ----- config


GAME_NAMES = ("python_sushi_go", "python_sushi_draft")  # the games a kind may measure


def _games(value: Any, path: str) -> dict[str, str]:
  """Label -> game string of each game: a reduced game's name, or a game string of `GAME_NAMES`
  (which of them a kind measures is checked with the config, `_check_game_names`)."""
  games = {}
  for i, label in enumerate(config_lib.string_list(value, path)):
    if label in reduced_games.REDUCED_GAMES:
      game = reduced_games.REDUCED_GAMES[label].game_string
    elif any(label.startswith(name + "(") or label == name for name in GAME_NAMES):
      game = label
    else:
      raise ConfigError(f"{path}[{i}]: expected a reduced game"
                        f" ({', '.join(reduced_games.REDUCED_GAMES)}) or a"
                        f" {' or '.join(GAME_NAMES)} game string, got {label!r}")
    config_lib.checked_game(game, f"{path}[{i}]")
    games[label] = game
  return games


@dataclasses.dataclass(frozen=True)
class Experiment(config_lib.Experiment):
  """The `[experiment]` of a solving experiment, required; the kind's parameters are in its own
  table, or its `[[players]]`."""
  kind: str = key("what it measures", allowed=tuple(KINDS))
  games: dict[str, str] = key("distinct reduced games by name (`sushigo_spiel.reduced_games`) or"
                              " `python_sushi_go` game strings (kinds exploitability and"
                              " approximate_exploitability: also `python_sushi_draft` ones)",
                              check=_games, value="array of strings")
  max_tree_nodes: int | None = key("the most nodes a game's tree may have, for a machine with the"
                                   " memory; none: `tree_size.MAX_TREE_NODES`", default=None,
                                   minimum=1)
  seeds: int = key("kind exploitability: the seeds each competitor whose play depends on its seed"
                   " (a search bot) is measured with, each a unit of its own; the report gives"
                   " their mean and range. A bot whose policy is a function of the position alone"
                   " is measured once", default=1, minimum=1, resolved_at_default=False)


def load(path: str | pathlib.Path) -> SolvingConfig:
  """Reads and checks a solving config; ConfigError names the key and what is allowed."""
  return config_lib.load(path, parse)


def parse(text: str) -> SolvingConfig:
  """Checks a solving config given as TOML text: its tables, the size of every tree it builds,
  every bot (built once per game) and what its kind checks of the whole."""
  config = read_tables(text)
  _check_game_names(config)
  if config.experiment.seeds > 1 and config.kind is not exploitability.KIND:
    raise ConfigError(f"experiment.seeds: {config.experiment.seeds} seeds for kind"
                      f" {config.kind.name!r}, which reports its own intervals; allowed: seeds > 1"
                      " with kind 'exploitability' only")
  _check_tree_sizes(config)
  config_lib.check_bots(config.players, {label: config.game(label) for label, _ in config.games},
                        lambda competitor: competitor.params)
  config.kind.check(config)
  return config


def read_tables(text: str) -> SolvingConfig:
  """The config of TOML text with its tables checked as declared, nothing built yet (all its
  hash needs)."""
  root = config_lib.parse_toml(text)
  experiment = config_lib.read(Experiment, config_lib.required(root, "experiment", "experiment"),
                               "experiment")
  kind = KINDS[experiment.kind]
  config_lib.check_keys(root, "", ["experiment"] + ([kind.section] if kind.section else []) +
                        (["players"] if kind.takes_players else []))
  section = config_lib.resolved(config_lib.read(
      kind.table, config_lib.required(root, kind.section, kind.section), kind.section)) \
      if kind.section else {}
  players = config_lib.players(config_lib.required(root, "players", "players"), "players") \
      if kind.takes_players else ()
  return SolvingConfig(experiment, kind, section, players, text)


def tree_limit(config: SolvingConfig) -> int:
  """The most nodes a game's tree may have in this experiment."""
  return config.max_tree_nodes or tree_size.MAX_TREE_NODES


def _check_game_names(config: SolvingConfig) -> None:
  """Refuses a game the kind does not measure (`Kind.games`)."""
  for i, (label, _) in enumerate(config.games):
    name = config.game(label).get_type().short_name
    if name not in config.kind.games:
      raise ConfigError(f"experiment.games[{i}]: kind {config.kind.name!r} measures"
                        f" {' and '.join(config.kind.games)} games; {label!r} is a {name} game")


def _check_tree_sizes(config: SolvingConfig) -> None:
  """Refuses a game whose tree the kind builds (exact measures) but which is over the limit."""
  for i, (label, _) in enumerate(config.games):
    if config.kind.needs_tree(config, label):
      try:
        tree_size.check_tree_size(config.game(label), tree_limit(config),
                                  f"{config.kind.name} measures it exactly on its whole tree",
                                  raise_limit="experiment.max_tree_nodes")
      except tree_size.TreeTooLarge as e:
        raise ConfigError(f"experiment.games[{i}]: {e}") from None


# ----- running


def run(config_path: str | pathlib.Path, out: str | pathlib.Path | None = None, workers: int = 1,
        force: bool = False, quiet: bool = False, backend: str = "local",
        address: str | None = None) -> pathlib.Path:
  """Runs (or resumes) a solving experiment on local processes or Ray (`execution`), then writes
  and prints its report; returns the run folder."""
  return execution.run(SOLVING, load(config_path), out, session(workers, backend, address), force,
                       quiet)


def session(workers: int, backend: str = "local", address: str | None = None) -> Session:
  """Solving units give bots no per-move budget."""
  return Session(backend, workers, address, budget={})


def run_unit(config: SolvingConfig, unit: Unit) -> execution.Result:
  """One unit's result line, and its timing line (the wall seconds it took)."""
  start = time.perf_counter()
  seed = int(np.random.SeedSequence(config.seed, spawn_key=(unit["unit"],)).generate_state(1)[0])
  game = config.game(unit["game"])
  if config.kind.needs_tree(config, unit["game"]):
    measures.tree(game, tree_limit(config))  # built once per process, within the config's limit
  result = config.kind.run_unit(config, game, unit, seed)
  return {**unit, **result}, {"unit": unit["unit"], "seconds": time.perf_counter() - start}


def run_numbered_unit(config: SolvingConfig, number: int) -> execution.Result:
  return run_unit(config, config.units()[number])


def reproduce(run_dir: str | pathlib.Path, workers: int = 1) -> bool:
  """Runs the stored config again in a temporary folder; True if every result is identical,
  wall-clock seconds aside."""
  run_dir = pathlib.Path(run_dir)
  config = execution.stored_config(SOLVING, run_dir)
  stored, replayed = execution.replay(SOLVING, config, run_dir, session(workers), quiet=True)
  differing = [unit for unit in sorted(stored.keys() | replayed.keys())
               if without_seconds(stored.get(unit)) != without_seconds(replayed.get(unit))]
  for unit in differing[:_DIFFERENCES_SHOWN]:
    print(f"unit {unit}: differs")
  print(f"Match: all {len(stored)} results reproduced exactly (seconds aside)" if not differing
        else f"Mismatch: {len(differing)} of {len(stored)} results differ")
  return not differing


def without_seconds(value: Any) -> Any:
  """A result (or any part of it) without its wall-clock and CPU seconds."""
  if isinstance(value, dict):
    return {k: without_seconds(v) for k, v in value.items() if k not in _TIMES}
  if isinstance(value, list):
    return [without_seconds(v) for v in value]
  return value


# ----- report


def report(run_dir: str | pathlib.Path) -> str:
  """Writes summary.md, results.csv and plots/ for a solving run; returns the Markdown."""
  run_dir = pathlib.Path(run_dir)
  config = load(run_dir / run_folder.CONFIG_FILE)
  results = list(SOLVING.read(config, run_dir).values())
  missing = len(config.units()) - len(results)
  rows, lines = config.kind.report(config, results, run_dir / run_folder.PLOTS_DIR)
  header = f"# {config.name} ({config.kind.name})\n"
  if missing:
    header += f"\n{missing} unit(s) not run yet: the figures below are partial.\n"
  text = header + "\n" + "\n".join(lines) + "\n"
  run_folder.write_atomically(run_dir / SUMMARY_MD, text)
  run_folder.write_atomically(run_dir / RESULTS_CSV, run_folder.csv_text(rows))
  return text


def report_files(config: SolvingConfig) -> list[str]:
  """The files `report` writes: the summary, the table and the kind's plots, one per game."""
  plots = [f"{run_folder.PLOTS_DIR}/{figures.plot_file(config.kind.plots, label)}"
           for label, _ in config.games
           if config.kind.plots]
  return [SUMMARY_MD, RESULTS_CSV, *plots]


def result_problem(config: SolvingConfig) -> Callable[[int, dict], str | None]:
  """What is wrong with the stored result of unit `number` given `config` (None if nothing): it
  must name the config's unit (game, competitor, seat, games...) as the config lists it, and hold
  the kind's figures in their number (`Kind.result_problem`: a unit of paired games cut short
  would be reported as fewer games)."""
  units = config.units()

  def problem(number: int, result: dict) -> str | None:
    unit = units[number]
    for name, value in unit.items():
      if result.get(name) != value:
        return (f"unit {number} is recorded with {name} {result.get(name)!r}, but the config's"
                f" unit {number} has {value!r}")
    return config.kind.result_problem(unit, result)
  return problem


def sizes(config: SolvingConfig, workers: int) -> tuple[list[estimates.Need], int]:
  """The trees a run's units build, one in each of `workers` processes, and the bytes of its
  results (about `approximate.UNIT_BYTES` / 6 each, as JSON)."""
  needs = []
  for label, _ in config.games:
    if config.kind.needs_tree(config, label):
      size = tree_size.estimate_tree_size(config.game(label))
      needs.append(estimates.Need(
          f"the tree of {label} ({size.nodes:,} nodes, estimated), built in each of {workers}"
          f" worker process{'es' * (workers != 1)}, would take", "of memory",
          size.memory * workers, "fewer workers, a smaller game, or a machine with the memory"))
  count = (approximate.unit_count(config) if config.kind is approximate.KIND
           else len(config.units()))
  return needs, count * approximate.UNIT_BYTES // estimates.IN_MEMORY_FACTOR


# CPU seconds of building a game's tree and best responding on it, per node: `small` (60,374
# nodes) took 2.2 s to build; reading the random bot at every information set and best
# responding to it took 12.1 s in all (`measures.bot_nash_conv`, timed with time.process_time).
TREE_SECONDS_PER_NODE = 12.1 / 60_374


def unit_seconds(config: SolvingConfig) -> tuple[float, str] | None:
  """A unit's seconds on one worker, averaged over the units, calibrated, for the kinds that
  measure competitors: an exact unit walks the tree (`TREE_SECONDS_PER_NODE`) and reads the
  competitor at each information set; a unit of paired games plays, per game, every decision
  of the responder's game and of self-play. Each bot's decision is timed at the first decision
  (`estimates.decision_seconds`, a responder at its full budget). The kinds that train solvers
  (convergence, abstraction) time each solver's iterations and an exact evaluation
  (`measures.iteration_seconds`, `measures.evaluation_seconds`). None for the other kinds."""
  training = {convergence.KIND.name: convergence.unit_seconds,
              abstraction.KIND.name: abstraction.unit_seconds}.get(config.kind.name)
  if training is not None:
    units = config.units()
    total = sum(training(config, config.game(unit["game"]), unit, config.seed) for unit in units)
    return total / len(units), ("calibrated on each solver's iterations and an exact evaluation,"
                                " timed")
  if config.kind not in (exploitability.KIND, approximate.KIND):
    return None
  total, units = 0.0, config.units()
  decisions: dict[tuple[str, str], float] = {}
  for unit in units:
    label, name = unit["game"], unit["competitor"]
    game, competitor = config.game(label), config.competitor(name)
    if (label, name) not in decisions:
      decisions[label, name] = estimates.decision_seconds(competitor.bot, game, competitor.params,
                                                          config.seed)
    if "games" not in unit:
      size = tree_size.estimate_tree_size(game)
      total += size.nodes * TREE_SECONDS_PER_NODE + size.decision_nodes * decisions[label, name]
      continue
    key = (label, name, unit.get("responder", approximate.DEFAULT_RESPONDER))
    if key not in decisions:
      decisions[key] = approximate.responder_seconds(config, game, competitor, key[2])
    seats = game.num_players()
    turns, _ = estimates.decisions_per_game(game, config.seed)
    first, end = unit["games"]
    total += (end - first) * turns * (decisions[key] + (2 * seats - 1) * decisions[label, name])
  return total / len(units), ("calibrated on a few timed decisions of each competitor and"
                              " responder, and the tree's size at a measured cost a node")


SOLVING = execution.Experiment(results=RESULTS, parse=parse, size=lambda c: len(c.units()),
                               play=run_numbered_unit, report=report, report_files=report_files,
                               check=result_problem, sizes=sizes,
                               unit_seconds=unit_seconds)
