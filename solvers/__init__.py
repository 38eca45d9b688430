"""Solvers for the drafting games: baselines, search (Information-Set MCTS, PIMC) and the
equilibrium side (exact best response, CFR on abstractions, approximate exploitability).

Every bot is a `solvers.bot.Bot`, registered here by name so that experiment configurations can
name bots and their parameters as plain strings and numbers. The registry imports a bot's module
only when that bot is asked for: `make_bot("random", ...)` loads neither scipy nor the CFR stack.

  solvers.bot            the base class every bot shares
  solvers.baselines      random, greedy, heuristic
  solvers.search         selection (bandits), rollouts, ISMCTS, PIMC and its world solvers,
                         matrix games, OpenSpiel's ISMCTS as a reference
  solvers.equilibrium    game trees, exact best response and NashConv, sequence-form LPs, the
                         CFR family and its abstractions, saved policies, approximate
                         exploitability
  solvers.linear_q       a linear action-value model and the bot playing it (trained in the
                         batched environment)
  solvers.learning       masked PPO on the batched core (the `learn` extra) and the bot playing
                         its agents
  solvers.envs           Gymnasium environments against the bots (the `rl` extra)
  solvers.match          one game between bots
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
