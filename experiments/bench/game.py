"""Speed benchmark: random full games of `python_sushi_go` and `python_sushi_draft` beside
OpenSpiel's C++ goofspiel.

Absolute speeds depend on the machine, so the benchmark also plays a yardstick in the same run:
goofspiel with imperfect information, a C++ simultaneous-move card game with explicit chance.
Both are driven through the same Python loop over the pyspiel API, so the ratio of their step rates
measures the cost of the game itself rather than of the machine. Measurements are interleaved
(goofspiel, then each Sushi Go size, then each Sushi Draft size, repeated) so that changes in
machine load touch every game alike, and the medians are reported. Single process, one core. The
targets are Sushi Go's; Sushi Draft is measured beside it, with no target.

A step is one `apply_action` (a chance outcome) or one `apply_actions` (a joint move).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import NoReturn

import pyspiel

import sushigo_spiel
from experiments import file_errors
from solvers import provenance
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import format_table

REFERENCE = "goofspiel(imp_info=True,num_cards=8,players=2)"
MIN_STEP_RATIO = 0.25  # Sushi Go steps/s over goofspiel steps/s
MIN_GAMES_2P = 800  # full 2-player Sushi Go games/s
CLONE_BATCH = 1000  # clones between two looks at the clock


def sushi_go_string(players: int) -> str:
  return f"python_sushi_go(players={players})"


def sushi_draft_string(players: int) -> str:
  return f"python_sushi_draft(players={players})"


def _chance_outcome(state: pyspiel.State, rng: random.Random) -> int:
  """A chance outcome drawn by its probability with one uniform."""
  outcomes, probabilities = zip(*state.chance_outcomes())
  return outcomes[draw_index(probabilities, rng.random)]


def _random_step(state: pyspiel.State, n: int, rng: random.Random) -> bool:
  """One chance outcome by its probability, or one uniform random joint move (returns True)."""
  if state.is_chance_node():
    state.apply_action(_chance_outcome(state, rng))
    return False
  state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(n)])
  return True


def play_random_game(game: pyspiel.Game, rng: random.Random) -> int:
  """Plays one game with uniform random joint moves; returns the number of steps."""
  n = game.num_players()
  state = game.new_initial_state()
  steps = 0
  while not state.is_terminal():  # the timed loop, written out: no call between steps
    if state.is_chance_node():
      state.apply_action(_chance_outcome(state, rng))
    else:
      state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(n)])
    steps += 1
  return steps


def mid_game_state(game: pyspiel.Game, rng: random.Random) -> pyspiel.State:
  """A random state after half of the game's joint moves (`max_game_length() // 2`)."""
  n = game.num_players()
  state = game.new_initial_state()
  moves = 0
  while moves < game.max_game_length() // 2:
    moves += _random_step(state, n, rng)
  return state


def measure_games(game: pyspiel.Game, seconds: float, rng: random.Random) -> dict[str, float]:
  """Games/s and steps/s of random full games played for at least `seconds`."""
  games = steps = 0
  start = time.perf_counter()
  while True:
    steps += play_random_game(game, rng)
    games += 1
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
      return {"games_per_s": games / elapsed, "steps_per_s": steps / elapsed}


def measure_clones(state: pyspiel.State, seconds: float) -> float:
  """Clones/s of `state`, cloned for at least `seconds`."""
  clones = 0
  start = time.perf_counter()
  while True:
    for _ in range(CLONE_BATCH):
      state.clone()
    clones += CLONE_BATCH
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
      return clones / elapsed


def run(seconds: float = 2.0, players: Sequence[int] = (2, 5), repeats: int = 3,
        seed: int = 0, draft_players: Sequence[int] = (3,)) -> dict:
  """Measures goofspiel, Sushi Go for each of `players` and Sushi Draft for each of
  `draft_players`; returns the figures and targets (Sushi Go's only)."""
  labels = {REFERENCE: "goofspiel", **{sushi_go_string(n): f"Sushi Go {n}p" for n in players},
            **{sushi_draft_string(n): f"Sushi Draft {n}p" for n in draft_players}}
  runs = _interleaved_runs(list(labels), seconds, repeats, random.Random(seed))
  results = {}
  for name, label in labels.items():
    results[name] = {key: statistics.median(r[key] for r in runs[name]) for key in runs[name][0]}
    results[name]["steps_per_game"] = results[name]["steps_per_s"] / results[name]["games_per_s"]
    results[name].update(label=label, runs=runs[name])
  return {
      "seconds": seconds,
      "repeats": repeats,
      "seed": seed,
      "versions": {
          "python": platform.python_version(),
          "open_spiel": importlib.metadata.version("open_spiel"),
          "sushigo_spiel": sushigo_spiel.__version__,
      },
      "games": results,
      "targets": _targets(results, players),
  }


def _interleaved_runs(names: list[str], seconds: float, repeats: int,
                      rng: random.Random) -> dict[str, list[dict[str, float]]]:
  """Each game's figures per repeat, measuring every game once in turn in each repeat."""
  games = {name: pyspiel.load_game(name) for name in names}
  mid_states = {name: mid_game_state(game, rng) for name, game in games.items()}
  runs = {name: [] for name in names}
  for _ in range(repeats):
    for name in names:
      figures = measure_games(games[name], seconds, rng)
      figures["clones_per_s"] = measure_clones(mid_states[name], seconds)
      runs[name].append(figures)
  return runs


def _targets(results: dict, players: Sequence[int]) -> list[dict]:
  reference = results[REFERENCE]["steps_per_s"]
  targets = []
  for n in players:
    targets.append(target(f"Sushi Go {n}p steps/s / goofspiel steps/s",
                           results[sushi_go_string(n)]["steps_per_s"] / reference,
                           MIN_STEP_RATIO))
  if 2 in players:
    targets.append(target("Sushi Go 2p full games/s",
                           results[sushi_go_string(2)]["games_per_s"], MIN_GAMES_2P))
  return targets


def target(name: str, value: float, minimum: float) -> dict:
  """A named figure checked against its minimum, as the reports list it."""
  return {"name": name, "value": value, "minimum": minimum, "passed": value >= minimum}


def report(figures: dict) -> str:
  """The figures of `run` as plain-text tables."""
  games = figures["games"]
  lines = ["Uniform random full games through the pyspiel API, chance included; single process,"
           f" one core.\nMedian of {figures['repeats']} interleaved run(s) of"
           f" {figures['seconds']:g} s per game.", ""]
  rows = [("game", "games/s", "steps/s", "steps/game")]
  rows += [(name, f"{g['games_per_s']:,.0f}", f"{g['steps_per_s']:,.0f}",
            f"{g['steps_per_game']:.1f}") for name, g in games.items()]
  lines += format_table(rows)
  lines.append("")
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], _number(t["value"]), f">= {t['minimum']:,g}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  lines += format_table(rows)
  lines.append("")
  clones = "; ".join(f"{g['label']} {g['clones_per_s']:,.0f}" for g in games.values())
  lines.append(f"clone() of a mid-game state, clones/s: {clones}")
  return "\n".join(lines)


def _number(value: float) -> str:
  return f"{value:.3f}" if value < 10 else f"{value:,.0f}"


def check_json_path(error: Callable[[str], NoReturn], path: str | None) -> None:
  """Refuses, through `error` (a parser's or a command's), a --json path that is empty or cannot
  be written, before any measuring."""
  if path == "":
    error("--json is empty; give the path of a file to write the figures to")
  if path is not None:
    try:
      file_errors.check_output_file(path, "--json")
    except file_errors.OutputError as e:
      error(str(e))


def write_json(figures: dict, path: str) -> None:
  """Writes `figures` to `path` with the conditions of the run: the UTC date, the code's commit
  and the machine's one-minute load average at writing (a shared machine slows every figure)."""
  conditions = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "git_commit": provenance.git_commit(), "load_average": os.getloadavg()[0],
                "cores": os.cpu_count()}
  with open(path, "w", encoding="utf-8") as f:
    json.dump({**figures, "conditions": conditions}, f, indent=2)
    f.write("\n")
