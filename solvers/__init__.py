"""Solvers for Sushi Go (Information-Set MCTS, CFR on abstractions, PIMC, baselines).

Each solver is a `pyspiel.Bot`, registered by name in `BOTS` and built with `make_bot`, so that
experiment configurations can name bots and their parameters as plain strings and numbers.
"""

from __future__ import annotations

import pyspiel

from solvers import baselines
from solvers.ismcts import MOISMCTSBot, SOISMCTSBot
from solvers.openspiel_ismcts import OpenSpielISMCTSBot
from solvers.pimc import PIMCBot
from solvers.policy_io import PolicyBot

BOTS: dict[str, type[pyspiel.Bot]] = {
    "random": baselines.RandomBot,
    "greedy": baselines.GreedyBot,
    "heuristic": baselines.HeuristicBot,
    "openspiel_ismcts": OpenSpielISMCTSBot,
    "so_ismcts": SOISMCTSBot,
    "mo_ismcts": MOISMCTSBot,
    "pimc": PIMCBot,
    "policy": PolicyBot,
}


def _bot_class(name: str) -> type[pyspiel.Bot]:
  try:
    return BOTS[name]
  except KeyError:
    raise ValueError(f"unknown bot {name!r}; allowed: {', '.join(BOTS)}") from None


def bot_parameters(name: str) -> dict[str, float]:
  """The parameters bot `name` accepts, with their defaults."""
  return dict(_bot_class(name).PARAMETERS)


def make_bot(name: str, game: pyspiel.Game, player: int, seed: int | None = None,
             **params) -> pyspiel.Bot:
  """Bot `name` playing `player` in `game`; raises ValueError for an unknown name or parameter."""
  return _bot_class(name)(game, player, seed, **params)
