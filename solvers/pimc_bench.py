"""PIMC speed for the benchmark: worlds solved per second on a game's opening position.

The opening position (the first pick of a `python_sushi_go` game with the given number of players,
hands dealt from a fixed seed) is searched by `PIMCBot` with its default parameters, except that
worlds are sampled for `seconds` of wall time; the rate is the number of worlds sampled and solved
in that time. At the opening every hand is larger than the tree solvers' threshold, so each world is
one SM-MCTS search of `iterations` iterations.
"""

from __future__ import annotations

import random
import time

import pyspiel

import sushigo_spiel  # noqa: F401  (registers the game)
from solvers.pimc import PIMCBot


def opening_state(players: int, seed: int = 0) -> pyspiel.State:
  """The first simultaneous node of a `python_sushi_go` game, dealt from `seed`."""
  game = pyspiel.load_game("python_sushi_go", {"players": players})
  state, rng = game.new_initial_state(), random.Random(seed)
  while state.is_chance_node():
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(rng.choices(outcomes, probabilities)[0])
  return state


def pimc_speed(players: int, seconds: float, seed: int = 0, **params) -> dict:
  """Worlds/s of `PIMCBot` (default parameters, overridden by `params`) at the opening."""
  if seconds <= 0:
    raise ValueError(f"seconds is {seconds}; allowed: a number > 0")
  state = opening_state(players, seed)
  bot = PIMCBot(state.get_game(), 0, seed, seconds=seconds, **params)
  start = time.perf_counter()
  bot.get_policy(state)
  elapsed = time.perf_counter() - start
  return {"players": players, "worlds": bot.worlds_searched, "seconds": elapsed,
          "worlds_per_second": bot.worlds_searched / elapsed,
          "iterations_per_world": bot.settings.iterations}
