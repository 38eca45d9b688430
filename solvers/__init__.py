"""Solvers for the drafting games: baselines, search (ISMCTS, PIMC), the equilibrium side (exact
best response, CFR on abstractions, approximate exploitability) and learned bots.

Every bot is a `solvers.bot.Bot`, registered here by name (`BOTS`, `make_bot`, `bot_parameters`)
so that experiment configs name bots and their parameters as plain strings and numbers. A bot's
module is imported only when that bot is asked for: `make_bot("random", ...)` loads neither scipy
nor the CFR stack. `solvers.envs` (Gymnasium, the `rl` extra) is not imported from here.

The subpackages and modules, one line each: docs/layout.md, section "`solvers/`: bots and exact
solvers"; the bots and their parameters: docs/search.md, section "Bots".
"""

from __future__ import annotations

import importlib

import pyspiel

# Bot name -> "module:class", imported on first use.
BOTS: dict[str, str] = {
    "random": "solvers.baselines:RandomBot",
    "greedy": "solvers.baselines:GreedyBot",
    "heuristic": "solvers.baselines:HeuristicBot",
    "openspiel_ismcts": "solvers.search.openspiel_ismcts:OpenSpielISMCTSBot",
    "so_ismcts": "solvers.search.ismcts:SOISMCTSBot",
    "mo_ismcts": "solvers.search.ismcts:MOISMCTSBot",
    "pimc": "solvers.search.pimc:PIMCBot",
    "policy": "solvers.equilibrium.policies:PolicyBot",
    "subgame": "solvers.equilibrium.subgame:SubgameBot",
    "linear_q": "solvers.linear_q:LinearQBot",
    "ppo": "solvers.learning.network:PPOBot",
}


def bot_class(name: str) -> type[pyspiel.Bot]:
  """The class of bot `name`; a ValueError lists the names allowed."""
  try:
    module, _, cls = BOTS[name].partition(":")
  except KeyError:
    raise ValueError(f"unknown bot {name!r}; allowed: {', '.join(BOTS)}") from None
  return getattr(importlib.import_module(module), cls)


def bot_parameters(name: str) -> dict[str, float]:
  """The parameters bot `name` accepts, with their defaults."""
  return dict(bot_class(name).PARAMETERS)


def make_bot(name: str, game: pyspiel.Game, player: int, seed: int | None = None,
             **params) -> pyspiel.Bot:
  """Bot `name` playing `player` in `game`; raises ValueError for an unknown name or parameter."""
  return bot_class(name)(game, player, seed, **params)
