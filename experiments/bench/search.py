"""Search speed: the project's ISMCTS beside OpenSpiel's Python ISMCTS, and PIMC's worlds/s, at
the same position.

Iterations per second at the opening position of a game (the first pick of the first round, after
a seeded deal), for `so_ismcts` and `mo_ismcts` (UCB1, random rollouts on the table engine) and
`openspiel_ismcts` (OpenSpiel's `ISMCTSBot`, UCT with random rollouts, on the turn-based form).
Each bot searches the position for `seconds` of wall time; its iterations are read from the root
of its search. PIMC (default parameters) samples and solves worlds for the same time; at the
opening every hand is larger than its tree solvers' threshold, so each world is one SM-MCTS search
of `iterations` (200) iterations. The bots are measured in turn, `repeats` times (interleaved, so a
change in machine load touches all alike), and the medians are reported with the ratio to
OpenSpiel's. Single process, one core. `sushigo bench --search` prints this.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence

import pyspiel

import solvers
from solvers.search.pimc import PIMCBot
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import format_table
from experiments.bench import game as bench

REFERENCE = "openspiel_ismcts"
SEARCHERS = ("so_ismcts", "mo_ismcts")
MIN_RATIO = 5.0  # the project's ISMCTS iterations/s over OpenSpiel's, same position


def opening(game: pyspiel.Game, seed: int) -> pyspiel.State:
  """The first simultaneous node of `game`, the deal drawn with `seed`."""
  rng, state = random.Random(seed), game.new_initial_state()
  while state.is_chance_node():
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(outcomes[draw_index(probabilities, rng.random)])
  return state


def iterations_per_second(name: str, game: pyspiel.Game, state: pyspiel.State,
                          seconds: float, seed: int) -> float:
  """Iterations/s of bot `name` searching `state` for player 0 for `seconds` of wall time."""
  bot = solvers.make_bot(name, game, 0, seed=seed, seconds=seconds)
  start = time.perf_counter()
  if name == REFERENCE:
    bot.step(state)
    iterations = bot.last_search_visits()
  else:
    root = bot.search(state)
    iterations = sum(root.visits(a) for a in root.arms())
  return iterations / (time.perf_counter() - start)


def worlds_per_second(game: pyspiel.Game, state: pyspiel.State, seconds: float, seed: int,
                      **params) -> float:
  """Worlds/s of PIMC (default parameters, overridden by `params`) deciding at `state` for
  player 0, sampling worlds for `seconds` of wall time."""
  if seconds <= 0:
    raise ValueError(f"seconds is {seconds}; allowed: a number > 0")
  bot = PIMCBot(game, 0, seed, seconds=seconds, **params)
  start = time.perf_counter()
  bot.get_policy(state)
  return bot.worlds_searched / (time.perf_counter() - start)


def ismcts_speed(players: int, seconds: float = 1.0, repeats: int = 3, seed: int = 0) -> dict:
  """Median iterations/s of each searcher and of OpenSpiel's ISMCTS, and PIMC's worlds/s, at the
  opening position of `python_sushi_go(players=...)`; the ratios to OpenSpiel's."""
  game = pyspiel.load_game(bench.sushi_go_string(players))
  state = opening(game, seed)
  names = (REFERENCE,) + SEARCHERS
  runs = {name: [] for name in names}
  worlds = []
  for repeat in range(repeats):
    for name in names:
      runs[name].append(iterations_per_second(name, game, state, seconds, seed + repeat))
    worlds.append(worlds_per_second(game, state, seconds, seed + repeat))
  medians = {name: statistics.median(values) for name, values in runs.items()}
  return {
      "game": str(game),
      "players": players,
      "seconds": seconds,
      "repeats": repeats,
      "iterations_per_s": medians,
      "ratios": {name: medians[name] / medians[REFERENCE] for name in SEARCHERS},
      "pimc_worlds_per_s": statistics.median(worlds),
      "runs": {**runs, "pimc_worlds": worlds},
  }


def run(players: Sequence[int] = (2, 4), seconds: float = 1.0, repeats: int = 3,
        seed: int = 0) -> dict:
  """`ismcts_speed` for each player count, with the targets (ratio at least `MIN_RATIO`)."""
  speeds = [ismcts_speed(n, seconds, repeats, seed) for n in players]
  targets = [bench.target(
      f"{name} {s['players']}p iterations/s / {REFERENCE}'s", s["ratios"][name], MIN_RATIO)
      for s in speeds for name in SEARCHERS]
  return {"seconds": seconds, "repeats": repeats, "seed": seed, "speeds": speeds,
          "targets": targets}


def report(figures: dict) -> str:
  """The figures of `run` as plain-text tables."""
  lines = ["ISMCTS iterations/s and PIMC worlds/s at the opening position, player 0 searching,"
           f" random rollouts; median of {figures['repeats']} interleaved run(s) of"
           f" {figures['seconds']:g} s per bot; single process, one core.", ""]
  rows = [("game", *((REFERENCE,) + SEARCHERS), "pimc worlds/s")]
  rows += [(f"Sushi Go {s['players']}p",
            *(f"{s['iterations_per_s'][name]:,.0f}" for name in (REFERENCE,) + SEARCHERS),
            f"{s['pimc_worlds_per_s']:,.1f}")
           for s in figures["speeds"]]
  lines += format_table(rows)
  lines.append("")
  rows = [("target", "value", "minimum", "result")]
  rows += [(t["name"], f"{t['value']:.2f}", f">= {t['minimum']:g}",
            "PASS" if t["passed"] else "BELOW") for t in figures["targets"]]
  lines += format_table(rows)
  return "\n".join(lines)
