"""The exact measures the solving kinds share: CFR solvers on a game's tree, and NashConv.

A game's tree (`solvers.equilibrium.game_tree.GameTree`) is built once per process and shared by
every unit on that game. A policy is judged in the real game, whatever abstraction it was solved
on: its NashConv, the gains of a best response by player, its values, and for two-player zero-sum
games its exploitability (half the NashConv).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyspiel

import solvers
from experiments import config as config_lib
from experiments.config import Competitor, ConfigError
from solvers.equilibrium import abstraction as abstraction_lib
from solvers.equilibrium import approximate
from solvers.equilibrium import exploitability
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from solvers.equilibrium.tree_size import MAX_TREE_NODES
from sushigo_spiel import reduced_games

ALGORITHMS = tuple(policy_io.ALGORITHMS)

_TREES: dict[str, GameTree] = {}  # game string -> its tree, built once per process


CALIBRATION_SECONDS = 0.25  # of a solver's iterations timed to estimate a unit's time
_EVALUATION_SECONDS: dict[str, float] = {}
_ITERATION_SECONDS: dict[tuple[str, str, int], float] = {}


def iteration_seconds(solver) -> float:
  """CPU seconds of one more iteration of `solver` (a `RegretSolver` or a `BlueprintTrainer`),
  calibrated: after a first iteration, which builds what the solver needs, the iterations that
  fit in `CALIBRATION_SECONDS`, timed."""
  def done() -> int:
    return solver.solver.iterations if hasattr(solver, "solver") else solver.iterations
  solver.run(iterations=1)
  before, start = done(), time.process_time()
  solver.run(seconds=CALIBRATION_SECONDS)
  return (time.process_time() - start) / max(1, done() - before)


def algorithm_iteration_seconds(algorithm: str, game: pyspiel.Game, seed: int) -> float:
  """`iteration_seconds` of `algorithm` on `game` unabstracted, timed once a process: an
  iteration walks the same tree (full width) or samples the same histories whatever the
  abstraction, which only merges the tables it writes."""
  key = (algorithm, str(game), seed)
  if key not in _ITERATION_SECONDS:
    _ITERATION_SECONDS[key] = iteration_seconds(make_solver(algorithm, game, "identity", seed))
  return _ITERATION_SECONDS[key]


def evaluation_seconds(game: pyspiel.Game) -> float:
  """CPU seconds of one exact evaluation on `game` (NashConv of a solver's average strategy on
  its tree, the tree built beforehand), timed once a process and game."""
  if str(game) not in _EVALUATION_SECONDS:
    solver = make_solver("cfr+", game, "identity", 0)
    start = time.process_time()
    solver_nash_conv(game, solver)
    _EVALUATION_SECONDS[str(game)] = time.process_time() - start
  return _EVALUATION_SECONDS[str(game)]


def tree(game: pyspiel.Game, max_nodes: int = MAX_TREE_NODES) -> GameTree:
  """The game's tree, built on first use in this process if it has at most `max_nodes` nodes."""
  if str(game) not in _TREES:
    _TREES[str(game)] = GameTree(game, max_nodes)
  return _TREES[str(game)]


def check_abstraction(name: str, path: str) -> str:
  """`name`, the value at `path`, if it names an abstraction (`solvers.equilibrium.abstraction`);
  else ConfigError."""
  try:
    abstraction_lib.make_abstraction(name, config_lib.load_game(
        reduced_games.REDUCED_GAMES["tiny"].game_string), 0)
  except ValueError as e:
    raise ConfigError(f"{path}: {e}") from None
  return name


def make_solver(algorithm: str, game: pyspiel.Game, abstraction: str, seed: int):
  """A solver of `policy_io.ALGORITHMS` on `game` abstracted by `abstraction`; full-width ones
  share the game's tree."""
  cls = policy_io.ALGORITHMS[algorithm]
  abstract = abstraction_lib.make_abstraction(abstraction, game, seed)
  if algorithm in policy_io.FULL_WIDTH:
    return cls(game, abstract, tree=tree(game), seed=seed)
  return cls(game, abstract, seed=seed)


def solver_nash_conv(game: pyspiel.Game, solver) -> dict[str, Any]:
  """`nash_conv` of a solver's average strategy, as a behaviour strategy of the real game."""
  game_tree = tree(game)
  if getattr(solver, "tree", None) is game_tree:
    return nash_conv(game_tree, solver.average_policy_array())
  return nash_conv(game_tree, policy_array(game_tree, solver.average_policy()))


def bot_nash_conv(game: pyspiel.Game, competitor: Competitor, seed: int) -> dict[str, Any]:
  """`nash_conv` of a competitor's bot, read as a policy at every information set."""
  game_tree = tree(game)
  array = exploitability.policy_from_bot(
      game_tree, lambda g, player, bot_seed: solvers.make_bot(competitor.bot, g, player, bot_seed,
                                                              **competitor.params), seed)
  return nash_conv(game_tree, policy_array(game_tree, array))


def nash_conv(game_tree: GameTree, array: np.ndarray) -> dict[str, Any]:
  """NashConv, gains and policy values of a policy array; exploitability where it is half the
  NashConv."""
  result = exploitability.nash_conv(game_tree, array)
  figures = {"nash_conv": float(result.nash_conv), "gains": result.gains.tolist(),
             "policy_values": result.policy_values.tolist()}
  if approximate.halves_nash_conv(game_tree.game):
    figures["exploitability"] = float(result.nash_conv) / 2
  return figures
