"""Solving experiments: CFR convergence, abstraction curves, exact and approximate exploitability.

A solving experiment is a TOML config like a tournament's (`experiments/config.py`), with
`[experiment] kind` naming what it measures, and is run by the same `sushigo run CONFIG` into a
run folder with the same guarantees: checked in full before anything runs, resumable (each unit of
work is one fsynced line of results.jsonl; a new session runs only the missing units), and
reproducible (every unit draws its randomness from `SeedSequence(seed, spawn_key=(unit,))`;
wall-clock seconds are recorded but, like every timing, not reproducible).

  [experiment]
  name = "convergence"
  kind = "convergence"          # "convergence", "abstraction", "exploitability" or
                                # "approximate_exploitability"
  seed = 2026
  games = ["small", "pudding"]  # reduced games by name (`sushigo_spiel.reduced_games`) or
                                # python_sushi_go game strings

  kind = "convergence": exploitability of each CFR variant's average policy at log-spaced
  checkpoints, against iterations and CPU seconds (solving only, not evaluating; CPU time of the
  process rather than wall time, so that a loaded machine does not bend the curves; both are
  recorded).
    [convergence]
    algorithms = ["cfr", "cfr+", "dcfr", "es-mccfr", "os-mccfr"]
    abstraction = "identity"    # optional (default "identity")
    iterations = 1000           # per algorithm: an integer, or a table such as
                                # { cfr = 1000, os-mccfr = 200000 }
    checkpoints = 12            # optional (default 12): evaluations, log-spaced up to iterations

  kind = "abstraction": each abstraction's strategy judged in the real game, against the number of
  abstract information sets it has (Waugh et al. 2009's curve).
    [abstraction]
    algorithm = "cfr+"
    iterations = 500
    abstractions = ["identity", "canonical", "buckets:1", "buckets:3", "kmeans:50", ...]

  kind = "exploitability": the exact NashConv (and exploitability for two-player zero-sum games)
  of each competitor's policy, read at every information set of a reduced game.
    [[players]]                 # as in tournaments: name, bot, params
  kind = "approximate_exploitability": a lower bound from a best-responding ISMCTS agent
  (`solvers/approximate_exploitability.py`) for each competitor, with a 95% interval; where the
  game is small enough (`exact = true`), the exact gain beside it.
    [approximate]
    num_games = 200             # paired games per seat
    agent = { iterations = 300, rollout = "random" }   # the agent's ISMCTS parameters
    model_in_rollouts = true    # optional: the policy also plays the opponents in the agent's
                                # rollouts (false: in its tree only; much cheaper for slow bots)
    exact = false               # optional: also compute the exact best-response gain (reduced
                                # games only)
    [[players]]

The run folder holds config.toml, resolved_config.json, results.jsonl, timings.jsonl,
provenance.json, and the report: summary.md, results.csv and plots/.
"""

from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import json
import math
import pathlib
import sys
import time
import tomllib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel
import scipy.stats
import tqdm

from experiments import config as config_lib
from experiments import runner
from experiments import stats
from solvers.equilibrium import approximate
from sushigo_spiel import reduced_games

KINDS = ("convergence", "abstraction", "exploitability", "approximate_exploitability")
RESULTS_FILE = "results.jsonl"
RESULTS_CSV = "results.csv"
SUMMARY_MD = "summary.md"
DEFAULT_CHECKPOINTS = 12
_SECTION = {"convergence": "convergence", "abstraction": "abstraction",
            "exploitability": None, "approximate_exploitability": "approximate"}
_SECTION_KEYS = {
    "convergence": ("algorithms", "abstraction", "iterations", "checkpoints"),
    "abstraction": ("algorithm", "iterations", "abstractions"),
    "approximate": ("num_games", "agent", "model_in_rollouts", "exact"),
}
_EXPERIMENT_KEYS = ("name", "kind", "seed", "games")
_GAMES_PER_UNIT = 10  # paired games of one seat per unit of an approximate experiment


def is_solving_config(path: str | pathlib.Path) -> bool:
  """Whether the TOML at `path` names a solving `kind` (else it is a tournament)."""
  try:
    data = tomllib.loads(pathlib.Path(path).read_text(encoding="utf-8"))
  except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
    return False  # the tournament loader reports the error
  experiment = data.get("experiment")
  return isinstance(experiment, dict) and experiment.get("kind", "tournament") != "tournament"


@dataclasses.dataclass(frozen=True)
class SolvingConfig:
  name: str
  kind: str
  seed: int
  games: tuple[tuple[str, str], ...]  # (label, game string)
  section: dict[str, Any]
  players: tuple[config_lib.Competitor, ...]
  text: str

  def units(self) -> list[dict[str, Any]]:
    """The units of work, in order; each is one line of results.jsonl when done."""
    units = []
    for label, _ in self.games:
      if self.kind == "convergence":
        units += [{"game": label, "algorithm": a} for a in self.section["algorithms"]]
      elif self.kind == "abstraction":
        units += [{"game": label, "abstraction": a} for a in self.section["abstractions"]]
      elif self.kind == "exploitability":
        units += [{"game": label, "competitor": p.name} for p in self.players]
      else:
        units += self._approximate_units(label)
    return [{"unit": i, **unit} for i, unit in enumerate(units)]

  def _approximate_units(self, label: str) -> list[dict[str, Any]]:
    units = []
    seats = self.game(label).num_players()
    for competitor in self.players:
      if self.section["exact"] and label in reduced_games.REDUCED_GAMES:
        units.append({"game": label, "competitor": competitor.name, "exact": True})
      for seat in range(seats):
        for first in range(0, self.section["num_games"], _GAMES_PER_UNIT):
          last = min(first + _GAMES_PER_UNIT, self.section["num_games"])
          units.append({"game": label, "competitor": competitor.name, "seat": seat,
                        "games": [first, last]})
    return units

  def game(self, label: str) -> pyspiel.Game:
    return config_lib._load_game(dict(self.games)[label])

  def competitor(self, name: str) -> config_lib.Competitor:
    return next(p for p in self.players if p.name == name)

  def resolved(self) -> dict[str, Any]:
    resolved = {
        "experiment": {"name": self.name, "kind": self.kind, "seed": self.seed,
                       "games": {label: game for label, game in self.games}},
        "section": self.section,
        "players": [dataclasses.asdict(p) for p in self.players],
        "units": len(self.units()),
    }
    return {**resolved, "config_hash": config_lib._hash(resolved)}

  @property
  def hash(self) -> str:
    return self.resolved()["config_hash"]

  budget_kind = "none"  # read by the runner's provenance: solving units have no per-move budget
  budget: dict = dataclasses.field(default_factory=dict)


# ----- config


def load(path: str | pathlib.Path) -> SolvingConfig:
  """Reads and checks a solving config; ConfigError names the key and what is allowed."""
  try:
    text = pathlib.Path(path).read_text(encoding="utf-8")
  except (OSError, UnicodeDecodeError) as e:
    raise config_lib.ConfigError(f"{path}: cannot read the config: {e}") from None
  try:
    return parse(text)
  except config_lib.ConfigError as e:
    raise config_lib.ConfigError(f"{path}: {e}") from None


def parse(text: str) -> SolvingConfig:
  c = config_lib
  try:
    data = tomllib.loads(text)
  except tomllib.TOMLDecodeError as e:
    raise c.ConfigError(f"not valid TOML: {e}") from None
  experiment = c._table(data, "experiment", required=True)
  c._check_keys(experiment, "experiment", _EXPERIMENT_KEYS)
  kind = c._choice(c._required(experiment, "experiment.kind"), "experiment.kind", KINDS)
  section_name = _SECTION[kind]
  allowed = ["experiment"] + ([section_name] if section_name else [])
  allowed += ["players"] if kind in ("exploitability", "approximate_exploitability") else []
  c._check_keys(data, "", allowed)
  section = _section(kind, c._table(data, section_name, required=True)) if section_name else {}
  players = c._players(c._required(data, "players")) if "players" in allowed else ()
  config = SolvingConfig(
      name=c._experiment_name(c._required(experiment, "experiment.name")),
      kind=kind,
      seed=c._integer(c._required(experiment, "experiment.seed"), "experiment.seed", minimum=0),
      games=_games(c._required(experiment, "experiment.games")),
      section=section, players=players, text=text)
  _check_players(config)
  return config


def _games(value: Any) -> tuple[tuple[str, str], ...]:
  labels = config_lib._string_list(value, "experiment.games")
  games = []
  for i, label in enumerate(labels):
    game = reduced_games.REDUCED_GAMES[label].game_string \
        if label in reduced_games.REDUCED_GAMES else label
    if label not in reduced_games.REDUCED_GAMES and not game.startswith(config_lib.GAME_NAME + "("):
      raise config_lib.ConfigError(
          f"experiment.games[{i}]: expected a reduced game"
          f" ({', '.join(reduced_games.REDUCED_GAMES)}) or a {config_lib.GAME_NAME} game string,"
          f" got {label!r}")
    try:
      config_lib._load_game(game)
    except (pyspiel.SpielError, ValueError) as e:
      raise config_lib.ConfigError(f"experiment.games[{i}]: {game!r} cannot be loaded: {e}") \
          from None
    games.append((label, game))
  return tuple(games)


def _section(kind: str, table: dict) -> dict[str, Any]:
  from solvers.equilibrium import abstraction as abstraction_lib  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import policies as policy_io  # pylint: disable=import-outside-toplevel
  c, name = config_lib, _SECTION[kind]
  c._check_keys(table, name, _SECTION_KEYS[name])
  if kind == "convergence":
    algorithms = c._string_list(c._required(table, f"{name}.algorithms"), f"{name}.algorithms")
    for i, algorithm in enumerate(algorithms):
      c._choice(algorithm, f"{name}.algorithms[{i}]", tuple(policy_io.ALGORITHMS))
    abstraction = c._string(table.get("abstraction", "identity"), f"{name}.abstraction")
    _check_abstraction(abstraction, f"{name}.abstraction", abstraction_lib)
    iterations = _iterations(c._required(table, f"{name}.iterations"), algorithms)
    checkpoints = c._integer(table.get("checkpoints", DEFAULT_CHECKPOINTS),
                             f"{name}.checkpoints", minimum=1)
    return {"algorithms": algorithms, "abstraction": abstraction, "iterations": iterations,
            "checkpoints": checkpoints}
  if kind == "abstraction":
    algorithm = c._choice(c._required(table, f"{name}.algorithm"), f"{name}.algorithm",
                          tuple(policy_io.ALGORITHMS))
    abstractions = c._string_list(c._required(table, f"{name}.abstractions"),
                                  f"{name}.abstractions")
    for i, abstraction in enumerate(abstractions):
      _check_abstraction(abstraction, f"{name}.abstractions[{i}]", abstraction_lib)
    return {"algorithm": algorithm, "abstractions": abstractions,
            "iterations": c._integer(c._required(table, f"{name}.iterations"),
                                     f"{name}.iterations", minimum=1)}
  agent = table.get("agent", {})
  if not isinstance(agent, dict):
    raise c.ConfigError(f"{name}.agent: expected a table of ISMCTS parameters, got {agent!r}")
  from solvers.search.ismcts import SOISMCTSBot  # pylint: disable=import-outside-toplevel
  for key, value in agent.items():
    if key not in SOISMCTSBot.PARAMETERS:
      raise c.ConfigError(f"{name}.agent.{key}: unknown parameter; allowed:"
                          f" {', '.join(SOISMCTSBot.PARAMETERS)}")
    c._check_param_value(value, SOISMCTSBot.PARAMETERS[key], f"{name}.agent.{key}")
  flags = {key: table.get(key, default) for key, default in
           (("exact", False), ("model_in_rollouts", True))}
  for key, value in flags.items():
    if not isinstance(value, bool):
      raise c.ConfigError(f"{name}.{key}: expected true or false, got {value!r}")
  return {"num_games": c._integer(c._required(table, f"{name}.num_games"), f"{name}.num_games",
                                  minimum=2),
          "agent": dict(agent), **flags}


def _check_abstraction(name: str, path: str, abstraction_lib) -> None:
  try:
    abstraction_lib.make_abstraction(name, pyspiel.load_game(
        reduced_games.REDUCED_GAMES["tiny"].game_string), 0)
  except ValueError as e:
    raise config_lib.ConfigError(f"{path}: {e}") from None


def _iterations(value: Any, algorithms: list[str]) -> dict[str, int]:
  path = "convergence.iterations"
  if isinstance(value, dict):
    config_lib._check_keys(value, path, algorithms)
    missing = [a for a in algorithms if a not in value]
    if missing:
      raise config_lib.ConfigError(f"{path}: no iterations for {', '.join(missing)}; give an"
                                   " integer for every algorithm, or one integer for all")
    return {a: config_lib._integer(value[a], f"{path}.{a}", minimum=1) for a in algorithms}
  count = config_lib._integer(value, path, minimum=1)
  return {a: count for a in algorithms}


def _check_players(config: SolvingConfig) -> None:
  import solvers  # pylint: disable=import-outside-toplevel
  for p, competitor in enumerate(config.players):
    for label, _ in config.games:
      try:
        solvers.make_bot(competitor.bot, config.game(label), 0, 0, **competitor.params)
      except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise config_lib.ConfigError(f"players[{p}].params: bot {competitor.bot!r} refuses"
                                     f" {competitor.params} for {label}: {e}") from None


# ----- running


def run(config_path: str | pathlib.Path, out: str | pathlib.Path | None = None, workers: int = 1,
        force: bool = False, quiet: bool = False) -> pathlib.Path:
  """Runs (or resumes) a solving experiment, then writes and prints its report."""
  config = load(config_path)
  run_dir = pathlib.Path(out) if out else runner.new_run_dir(config.name)
  if force:
    for name in (RESULTS_FILE, RESULTS_CSV, SUMMARY_MD):
      (run_dir / name).unlink(missing_ok=True)
  runner.prepare(run_dir, config, force)
  if not quiet:
    print(f"Run folder: {run_dir}")
  try:
    execute(config, run_dir, workers, quiet)
  except KeyboardInterrupt:
    print(f"\nStopped. Run the same command with --out {run_dir} to resume.", file=sys.stderr)
    raise
  print(report(run_dir))
  return run_dir


def execute(config: SolvingConfig, run_dir: pathlib.Path, workers: int = 1,
            quiet: bool = False) -> None:
  """Runs the units missing from `run_dir`."""
  path = run_dir / RESULTS_FILE
  done = {json.loads(line)["unit"] for line in runner.complete_lines(path)}
  units = [u for u in config.units() if u["unit"] not in done]
  if not quiet and done:
    print(f"Resuming: {len(done)} of {len(done) + len(units)} units already done.")
  session = runner.Session("local", workers, None, resumed=len(done))
  try:
    with open(path, "a", encoding="utf-8") as results, \
        open(run_dir / runner.TIMINGS_FILE, "a", encoding="utf-8") as timings, \
        tqdm.tqdm(total=len(done) + len(units), initial=len(done), unit="unit", disable=quiet,
                  desc=config.name) as progress:
      for result, seconds in _results(config, units, workers):
        runner.append_line(results, result, durable=True)
        runner.append_line(timings, {"unit": result["unit"], "seconds": seconds}, durable=False)
        session.played += 1
        progress.update()
  finally:
    runner.add_provenance(run_dir, config, session)


def _results(config: SolvingConfig, units: list[dict],
             workers: int) -> Iterator[tuple[dict, float]]:
  if workers == 1:
    for unit in units:
      yield run_unit(config, unit)
    return
  with concurrent.futures.ProcessPoolExecutor(workers) as pool:
    futures = [pool.submit(_run_unit_from_text, config.text, unit) for unit in units]
    for future in concurrent.futures.as_completed(futures):
      yield future.result()


def _run_unit_from_text(text: str, unit: dict) -> tuple[dict, float]:
  return run_unit(parse(text), unit)


def run_unit(config: SolvingConfig, unit: dict) -> tuple[dict, float]:
  """One unit's result line, and the wall seconds it took."""
  start = time.perf_counter()
  seed = int(np.random.SeedSequence(config.seed, spawn_key=(unit["unit"],)).generate_state(1)[0])
  game = config.game(unit["game"])
  if config.kind == "convergence":
    result = _convergence(config, game, unit["algorithm"], seed)
  elif config.kind == "abstraction":
    result = _abstraction(config, game, unit["abstraction"], seed)
  elif config.kind == "exploitability" or unit.get("exact"):
    result = _exact(game, config.competitor(unit["competitor"]), seed)
  else:
    result = _approximate(config, game, unit)
  return {**unit, **result}, time.perf_counter() - start


_TREES: dict = {}  # game string -> GameTree, built once per process


def _tree(game: pyspiel.Game):
  from solvers.equilibrium.game_tree import GameTree  # pylint: disable=import-outside-toplevel
  if str(game) not in _TREES:
    _TREES[str(game)] = GameTree(game)
  return _TREES[str(game)]


def _solver(algorithm: str, game: pyspiel.Game, abstraction: str, seed: int):
  from solvers.equilibrium import abstraction as abstraction_lib  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import policies as policy_io  # pylint: disable=import-outside-toplevel
  cls = policy_io.ALGORITHMS[algorithm]
  abstract = abstraction_lib.make_abstraction(abstraction, game, seed)
  if algorithm in policy_io.FULL_WIDTH:
    return cls(game, abstract, tree=_tree(game), seed=seed)
  return cls(game, abstract, seed=seed)


def _policy_array(tree, solver) -> np.ndarray:
  """The solver's average strategy as a behaviour strategy of the true game's tree."""
  if getattr(solver, "tree", None) is tree:
    return solver.average_policy_array()
  return tree.policy_array(solver.average_policy())


def _nash_conv(tree, array: np.ndarray) -> dict[str, Any]:
  from solvers.equilibrium import exploitability  # pylint: disable=import-outside-toplevel
  result = exploitability.nash_conv(tree, array)
  figures = {"nash_conv": float(result.nash_conv), "gains": result.gains.tolist(),
             "policy_values": result.policy_values.tolist()}
  if approximate.halves_nash_conv(tree.game):
    figures["exploitability"] = float(result.nash_conv) / 2
  return figures


def _convergence(config: SolvingConfig, game, algorithm: str, seed: int) -> dict[str, Any]:
  tree = _tree(game)
  solver = _solver(algorithm, game, config.section["abstraction"], seed)
  total = config.section["iterations"][algorithm]
  marks = np.unique(np.geomspace(1, total, config.section["checkpoints"]).round().astype(int))
  points = []
  for mark in marks:
    solver.run(iterations=int(mark) - solver.iterations)
    figures = _nash_conv(tree, _policy_array(tree, solver))
    points.append({"iterations": int(mark), "seconds": round(solver.seconds, 4),
                   "cpu_seconds": round(solver.cpu_seconds, 4),
                   **{k: figures[k] for k in ("nash_conv", "exploitability") if k in figures}})
  return {"abstraction": config.section["abstraction"], "points": points}


def _abstraction(config: SolvingConfig, game, abstraction: str, seed: int) -> dict[str, Any]:
  tree = _tree(game)
  solver = _solver(config.section["algorithm"], game, abstraction, seed)
  solver.run(iterations=config.section["iterations"])
  figures = _nash_conv(tree, _policy_array(tree, solver))
  return {"family": abstraction.split(":")[0], "abstract_infosets": len(solver.average_strategy()),
          "iterations": solver.iterations, "seconds": round(solver.seconds, 4), **figures}


def _exact(game, competitor: config_lib.Competitor, seed: int) -> dict[str, Any]:
  import solvers  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import exploitability  # pylint: disable=import-outside-toplevel
  tree = _tree(game)
  array = exploitability.policy_from_bot(
      tree, lambda g, player: solvers.make_bot(competitor.bot, g, player, seed,
                                               **competitor.params))
  return _nash_conv(tree, tree.policy_array(array))


def _approximate(config: SolvingConfig, game, unit: dict) -> dict[str, Any]:
  import solvers  # pylint: disable=import-outside-toplevel
  competitor = config.competitor(unit["competitor"])

  def make_policy(g, player, seed):
    return solvers.make_bot(competitor.bot, g, player, seed, **competitor.params)

  pairs = [approximate.play_gain(game, make_policy, unit["seat"], k, config.seed,
                                 config.section["agent"], config.section["model_in_rollouts"])
           for k in range(*unit["games"])]
  return {"agent": [p.agent for p in pairs], "self_play": [p.self_play for p in pairs]}


def reproduce(run_dir: str | pathlib.Path, workers: int = 1) -> bool:
  """Runs the stored config again in a temporary folder; True if every result is identical,
  wall-clock seconds aside."""
  import tempfile  # pylint: disable=import-outside-toplevel
  run_dir = pathlib.Path(run_dir)
  stored = _results_by_unit(run_dir)
  with tempfile.TemporaryDirectory() as temp:
    replay_dir = pathlib.Path(temp) / "replay"
    config = load(run_dir / runner.CONFIG_FILE)
    runner.prepare(replay_dir, config, force=False)
    execute(config, replay_dir, workers, quiet=True)
    replayed = _results_by_unit(replay_dir)
  differing = [unit for unit in sorted(stored.keys() | replayed.keys())
               if _without_seconds(stored.get(unit)) != _without_seconds(replayed.get(unit))]
  for unit in differing[:20]:
    print(f"unit {unit}: differs")
  print(f"Match: all {len(stored)} results reproduced exactly (seconds aside)" if not differing
        else f"Mismatch: {len(differing)} of {len(stored)} results differ")
  return not differing


def _results_by_unit(run_dir: pathlib.Path) -> dict[int, dict]:
  return {r["unit"]: r for r in (json.loads(line) for line in
                                 runner.complete_lines(run_dir / RESULTS_FILE))}


def _without_seconds(value):
  if isinstance(value, dict):
    return {k: _without_seconds(v) for k, v in value.items()
            if k not in ("seconds", "cpu_seconds")}
  if isinstance(value, list):
    return [_without_seconds(v) for v in value]
  return value


# ----- report


def report(run_dir: str | pathlib.Path) -> str:
  """Writes summary.md, results.csv and plots/ for a solving run; returns the Markdown."""
  run_dir = pathlib.Path(run_dir)
  config = load(run_dir / runner.CONFIG_FILE)
  results = [json.loads(line) for line in runner.complete_lines(run_dir / RESULTS_FILE)]
  missing = len(config.units()) - len({r["unit"] for r in results})
  rows, lines = _REPORTS[config.kind](config, results, run_dir / runner.PLOTS_DIR)
  header = f"# {config.name} ({config.kind})\n"
  if missing:
    header += f"\n{missing} unit(s) not run yet: the figures below are partial.\n"
  text = header + "\n" + "\n".join(lines) + "\n"
  runner.write_atomically(run_dir / SUMMARY_MD, text)
  with open(run_dir / RESULTS_CSV, "w", encoding="utf-8", newline="") as f:
    writer = csv.writer(f)
    writer.writerows(rows)
  return text


def _figure(value: float | None, digits: int = 4) -> str:
  if value is None or (isinstance(value, float) and math.isnan(value)):
    return "–"
  return f"{value:.{digits}g}" if abs(value) < 1e-2 and value else f"{value:.{digits}f}"


def _measure(entry: dict) -> tuple[str, float]:
  """Exploitability where the game defines it, else NashConv."""
  if "exploitability" in entry:
    return "exploitability", entry["exploitability"]
  return "NashConv", entry["nash_conv"]


def _convergence_report(config, results, plots: pathlib.Path):
  rows = [["game", "algorithm", "abstraction", "iterations", "seconds", "cpu_seconds",
           "nash_conv", "exploitability"]]
  lines = ["| game | algorithm | iterations | CPU seconds | final exploitability (NashConv) |",
           "|---|---|---|---|---|"]
  series = {}
  for r in sorted(results, key=lambda r: r["unit"]):
    for point in r["points"]:
      rows.append([r["game"], r["algorithm"], r["abstraction"], point["iterations"],
                   point["seconds"], point["cpu_seconds"], point["nash_conv"],
                   point.get("exploitability", "")])
    last = r["points"][-1]
    name, value = _measure(last)
    lines.append(f"| {r['game']} | {r['algorithm']} | {last['iterations']} |"
                 f" {last['cpu_seconds']:.2f} | {_figure(value)} ({name}) |")
    series.setdefault(r["game"], []).append(r)
  for game, entries in series.items():
    path = plots / f"convergence_{game}.png"
    _plot_convergence(path, game, entries)
    lines.append(f"\n![Convergence on {game}]({path.parent.name}/{path.name})")
  return rows, lines


def _plot_convergence(path: pathlib.Path, game: str, entries: list[dict]) -> None:
  fig, axes = _pyplot().subplots(1, 2, figsize=(10, 4), sharey=True)
  for entry in entries:
    measure = [_measure(p)[1] for p in entry["points"]]
    axes[0].plot([p["iterations"] for p in entry["points"]], measure, marker=".",
                 label=entry["algorithm"])
    axes[1].plot([max(p["cpu_seconds"], 1e-4) for p in entry["points"]], measure, marker=".",
                 label=entry["algorithm"])
  name = _measure(entries[0]["points"][0])[0]
  for ax, xlabel in zip(axes, ("iterations", "CPU seconds of solving")):
    _log_log(ax, xlabel)
  axes[0].set_ylabel(name)
  axes[1].legend()
  fig.suptitle(f"{name} of the average policy on {game}")
  _save(fig, path)


def _abstraction_report(config, results, plots: pathlib.Path):
  rows = [["game", "abstraction", "family", "abstract_infosets", "iterations", "seconds",
           "nash_conv", "exploitability"]]
  lines = ["| game | abstraction | abstract information sets | exploitability (NashConv) |",
           "|---|---|---|---|"]
  by_game = {}
  for r in sorted(results, key=lambda r: (r["game"], r["abstract_infosets"])):
    rows.append([r["game"], r["abstraction"], r["family"], r["abstract_infosets"],
                 r["iterations"], r["seconds"], r["nash_conv"], r.get("exploitability", "")])
    name, value = _measure(r)
    lines.append(f"| {r['game']} | {r['abstraction']} | {r['abstract_infosets']:,} |"
                 f" {_figure(value)} ({name}) |")
    by_game.setdefault(r["game"], []).append(r)
  for game, entries in by_game.items():
    path = plots / f"abstraction_{game}.png"
    _plot_abstraction(path, game, entries)
    lines.append(f"\n![Abstractions on {game}]({path.parent.name}/{path.name})")
  return rows, lines


def _plot_abstraction(path: pathlib.Path, game: str, entries: list[dict]) -> None:
  fig, ax = _pyplot().subplots(figsize=(6, 4))
  families = {}
  for entry in entries:
    families.setdefault(entry["family"], []).append(entry)
  for family, members in families.items():
    members.sort(key=lambda e: e["abstract_infosets"])
    ax.plot([e["abstract_infosets"] for e in members], [_measure(e)[1] for e in members],
            marker="o", label=family)
  _log_log(ax, "abstract information sets")
  ax.set_ylabel(_measure(entries[0])[0] + " in the real game")
  ax.legend()
  ax.set_title(f"Abstraction size against exploitability, {game}")
  _save(fig, path)


def _exploitability_report(config, results, plots: pathlib.Path):
  del plots
  rows = [["game", "competitor", "nash_conv", "exploitability", "gains", "policy_values"]]
  lines = ["| game | competitor | exploitability | NashConv | best-response gain by seat |",
           "|---|---|---|---|---|"]
  for r in sorted(results, key=lambda r: r["unit"]):
    rows.append([r["game"], r["competitor"], r["nash_conv"], r.get("exploitability", ""),
                 " ".join(f"{g:.6g}" for g in r["gains"]),
                 " ".join(f"{v:.6g}" for v in r["policy_values"])])
    lines.append(f"| {r['game']} | {r['competitor']} | {_figure(r.get('exploitability'))} |"
                 f" {_figure(r['nash_conv'])} | {', '.join(_figure(g) for g in r['gains'])} |")
  return rows, lines


def _approximate_report(config, results, plots: pathlib.Path):
  del plots
  rows = [["game", "competitor", "seat", "gain", "gain_low", "gain_high", "games",
           "exact_gain"]]
  lines = ["| game | competitor | lower bound [95% CI] | exact | gain by seat [95% CI] | games |",
           "|---|---|---|---|---|---|"]
  for label, _ in config.games:
    game = config.game(label)
    seats = game.num_players()
    for competitor in config.players:
      mine = [r for r in results if r["game"] == label and r["competitor"] == competitor.name]
      exact = next((r for r in mine if r.get("exact")), None)
      by_seat = [[a - s for r in mine if r.get("seat") == seat
                  for a, s in zip(r["agent"], r["self_play"])] for seat in range(seats)]
      gains = [stats.mean_interval(d) if len(d) >= 2 else None for d in by_seat]
      bound = _bound(by_seat, approximate.halves_nash_conv(game))
      for seat, gain in enumerate(gains):
        figures = (gain.value, gain.low, gain.high) if gain else (math.nan,) * 3
        rows.append([label, competitor.name, seat, *figures,
                     len(by_seat[seat]), exact["gains"][seat] if exact else ""])
      exact_text = _figure(_measure(exact)[1]) if exact else "–"
      seat_text = "; ".join(f"{_figure(g.value, 3)} [{_figure(g.low, 3)}, {_figure(g.high, 3)}]"
                            for g in gains if g is not None)
      lines.append(f"| {label} | {competitor.name} |"
                   f" {_figure(bound.value, 3)} [{_figure(bound.low, 3)}, {_figure(bound.high, 3)}]"
                   f" | {exact_text} | {seat_text} | {sum(len(d) for d in by_seat)} |")
  return rows, lines


def _bound(by_seat: list[list[float]], halve: bool) -> stats.Estimate:
  """The sum of the seats' mean gains (halved for two-player zero-sum exploitability), with a
  normal interval from the seats' independent variances."""
  if any(len(d) < 2 for d in by_seat):
    return stats.Estimate(math.nan, math.nan, math.nan)
  mean = sum(float(np.mean(d)) for d in by_seat)
  half_width = scipy.stats.norm.ppf(0.5 + stats.CONFIDENCE / 2) * math.sqrt(
      sum(float(np.var(d, ddof=1)) / len(d) for d in by_seat))
  scale = 0.5 if halve else 1.0
  return stats.Estimate(scale * mean, scale * (mean - half_width), scale * (mean + half_width))


_REPORTS = {"convergence": _convergence_report, "abstraction": _abstraction_report,
            "exploitability": _exploitability_report,
            "approximate_exploitability": _approximate_report}


def _pyplot():
  import matplotlib  # pylint: disable=import-outside-toplevel
  matplotlib.use("Agg")
  from matplotlib import pyplot  # pylint: disable=import-outside-toplevel
  return pyplot


def _log_log(ax, xlabel: str) -> None:
  ax.set_xscale("log")
  ax.set_yscale("log")
  ax.set_xlabel(xlabel)
  ax.grid(True, which="both", alpha=0.3)


def _save(fig, path: pathlib.Path) -> None:
  path.parent.mkdir(parents=True, exist_ok=True)
  fig.tight_layout()
  fig.savefig(path, dpi=120)
  _pyplot().close(fig)
