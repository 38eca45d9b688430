"""What a Pudding lead is worth at a round's end, as the `subgame` bot's leaves value it.

The subgame bot (`solvers/equilibrium/subgame.py`) values the end of a round by playouts of
continuation strategies to the end of the game (`round_end_values` there). Within one world the rounds after a round's end
depend on it only through the Puddings, so what those playouts decide, between the leaves of a
solve, is the worth of a Pudding lead. This measures it for pairs of continuations (the
searcher's, the opponent's): positions at the end of round 1 or 2 of two-player Sushi Go reached
by random play, both Pudding counts set to 0, then the searcher given a lead of 1 and of 2; the
worth is the leaf value's gain over the level position, with common random numbers (the same
deals and draws for the three), averaged over positions with a 95% interval.

  python -m experiments.solving.pudding_worth --positions 12 --playouts 64
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel

from solvers.equilibrium.subgame import DEFAULT_BLUEPRINT, round_end_values
from solvers.equilibrium.validation import load_checked_blueprint

GAME = "python_sushi_go(players=2)"
PAIRS = ("blueprint/blueprint", "blueprint/heuristic", "blueprint/greedy",
         "heuristic/heuristic", "greedy/greedy", "random/random")
LEADS = (1, 2)


def round_end(game: pyspiel.Game, rounds: int, seed: int):
  """The table just after `rounds` rounds of random play (before the next deal)."""
  rng = np.random.default_rng(seed)
  state, ended = game.new_initial_state(), 0
  while True:
    while state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(outcomes, p=probabilities)))
    state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
    if state.is_chance_node():
      ended += 1
      if ended == rounds:
        return state.table()


def worths(pair: str, rounds: int, positions: int, playouts: int, blueprint_path: str,
           seed: int = 0) -> np.ndarray:
  """Rows: positions; columns: the worth of each lead in `LEADS` under `pair`
  ("searcher/opponent" continuations)."""
  game = pyspiel.load_game(GAME)
  blueprint = load_checked_blueprint(blueprint_path)
  out = np.empty((positions, len(LEADS)))
  for row in range(positions):
    level = round_end(game, rounds, seed + row)
    values = [round_end_values(game, level._replace(puddings=(lead, 0)), pair, blueprint, playouts,
                               seed=seed + row)[-1, 0]
              for lead in (0,) + LEADS]
    out[row] = np.array(values[1:]) - values[0]
  return out


def main(argv: list[str] | None = None) -> None:
  parser = argparse.ArgumentParser(
      prog="python -m experiments.solving.pudding_worth",
      description=__doc__.split("\n\n")[0],
      epilog="Prints a markdown table: one row per round end and pair of continuations.")
  parser.add_argument("--positions", type=int, default=12, help="round ends per row (default 12)")
  parser.add_argument("--playouts", type=int, default=64,
                      help="playouts per leaf value (default 64)")
  parser.add_argument("--blueprint", default=DEFAULT_BLUEPRINT, help="the blueprint file")
  parser.add_argument("--seed", type=int, default=0, help="first position's seed (default 0)")
  args = parser.parse_args(argv)
  for name in ("positions", "playouts"):
    if getattr(args, name) < 1:
      parser.error(f"--{name} is {getattr(args, name)}; allowed: an integer >= 1")
  print("| after round | searcher / opponent continuation | "
        + " | ".join(f"lead of {lead} [95% CI]" for lead in LEADS) + " |")
  print("|---|---|" + "---|" * len(LEADS))
  for rounds in (1, 2):
    for pair in PAIRS:
      table = worths(pair, rounds, args.positions, args.playouts, args.blueprint, args.seed)
      means = table.mean(axis=0)
      halves = 1.96 * table.std(axis=0, ddof=1) / np.sqrt(len(table)) if len(table) > 1 else \
          np.full(len(LEADS), np.nan)
      cells = " | ".join(f"{m:.2f} [{m - h:.2f}, {m + h:.2f}]" for m, h in zip(means, halves))
      print(f"| {rounds} | {pair.replace('/', ' / ')} | {cells} |", flush=True)


if __name__ == "__main__":
  main()
