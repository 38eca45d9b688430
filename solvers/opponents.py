"""Opponents named as in experiment configs, for the learning environments: a bot name of
`solvers.BOTS` or a dict with `bot` and `params`, one for every opponent seat or one per seat.

  opponent_specs(opponents, count)        the {"bot", "params"} dicts, one per opponent seat
  compiled_opponents(game, opponents)     the compiled policies the batched environment
                                          (`solvers.envs.batched`) plays for them

`SushiGo-v0` plays any bot; the batches play the bots that have a compiled policy: random, greedy
and heuristic (with any of its parameters) in Sushi Go, random in Sushi Draft (`COMPILED`), each
exactly as the bot plays (the heuristic's kernels are `HeuristicBot` to the last bit,
`solvers.policy_kernels.heuristic`).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from solvers import baselines, make_bot
from solvers.search.rollouts import BaselinePolicy

COMPILED_BOTS = ("random", "greedy", "heuristic")  # Sushi Go's
COMPILED = {"python_sushi_go": COMPILED_BOTS, "python_sushi_draft": ("random",)}


def opponent_specs(opponents, count: int) -> list[dict]:
  """Opponents as {"bot", "params"} dicts, one per opponent seat; a ValueError for a bad one."""
  given = [opponents] if isinstance(opponents, (str, dict)) else list(opponents)
  if len(given) == 1:
    given = given * count
  if len(given) != count:
    raise ValueError(f"opponents names {len(given)} bots; allowed: one, or one per opponent seat"
                     f" ({count})")
  specs = []
  for entry in given:
    if isinstance(entry, str):
      entry = {"bot": entry}
    if not isinstance(entry, dict) or set(entry) - {"bot", "params"} or "bot" not in entry:
      raise ValueError(f"opponent {entry!r}; allowed: a bot name, or a dict with 'bot' and"
                       " optional 'params', as in experiment configs")
    specs.append({"bot": entry["bot"], "params": dict(entry.get("params", {}))})
  return specs


def compiled_opponents(game: pyspiel.Game, opponents) -> list[str | tuple[str, np.ndarray]]:
  """The batched environment's `opponents` for bots named as in configs, playing `game`:
  "random", "greedy", or ("heuristic", its parameter array) in Sushi Go, "random" in Sushi Draft.
  A ValueError names the bots allowed for any other."""
  policies, allowed = [], COMPILED[game.get_type().short_name]
  for player, spec in enumerate(opponent_specs(opponents, game.num_players() - 1), start=1):
    if spec["bot"] not in allowed:
      raise ValueError(f"bot {spec['bot']!r} has no compiled policy for the batched environment"
                       f" of {game.get_type().short_name}; allowed: {', '.join(allowed)}"
                       " (SushiGo-v0 plays any bot)")
    bot = make_bot(spec["bot"], game, player, 0, **spec["params"])  # checks the parameters
    if isinstance(bot, baselines.HeuristicBot):
      policies.append(("heuristic", BaselinePolicy(bot).compiled_parameters()))
    else:
      policies.append(spec["bot"])
  return policies
