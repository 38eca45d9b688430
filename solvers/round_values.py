"""The value of a Sushi Go position at the end of the round under way, every seat playing on by its
bot's compiled twin: the value function of the luck of the deal and of AIVAT
(`experiments.tournament.luck`, `experiments.tournament.aivat`).

A bot's reference policy (`reference`) is its twin in the blueprint policy kernel
(`solvers.equilibrium.kernels.blueprint_policy`): random, greedy, the heuristic with its default
parameters, or a CFR blueprint played by `PolicyBot` (sampled or purified); the default heuristic
for any other bot (a search, a heuristic with other parameters). Rounds are played in
`blueprint_policy.round_values`, each seat reading its own parameters.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from solvers.baselines import HeuristicBot
from solvers.equilibrium.kernels import blueprint_policy
from solvers.equilibrium.policies import PolicyBot
from solvers.policy_kernels import heuristic
from solvers.search.rollouts import compiled_policy_name
from sushigo_spiel.compiled.core import checked_stream
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo

DEFAULT_POLICY = "heuristic"  # the reference policy of a bot without a compiled twin
DETERMINISTIC = ("greedy", "heuristic")  # the references whose round ends need one play


def reference(bot: pyspiel.Bot) -> tuple[str, np.ndarray]:
  """The reference policy of `bot` in the blueprint policy kernel (`blueprint_policy.POLICIES`)
  and the parameter array it reads: its twin (random, greedy, the default heuristic, a blueprint
  sampled or purified), else the default heuristic."""
  defaults = heuristic.parameters(HeuristicBot.PARAMETERS)
  model = bot.blueprint_model() if isinstance(bot, PolicyBot) else None
  if model is not None:
    name, blueprint = model
    return name, blueprint_policy.parameters(defaults, blueprint.valuation, blueprint.averages)
  return compiled_policy_name(bot) or DEFAULT_POLICY, defaults


class ReferenceValue:
  """v: each seat's points at the end of the round under way at a position, every seat playing
  on by its bot's reference policy (`reference`), on the compiled core of `game`."""

  def __init__(self, game: pyspiel.Game, bots: Sequence[pyspiel.Bot], rng: np.ndarray):
    blueprint_policy.ensure_compiled()
    self.core = CompiledSushiGo.from_params(**game.get_parameters())
    names, params = zip(*(reference(bot) for bot in bots))
    self.names = names
    self.deterministic = all(name in DETERMINISTIC for name in names)
    self.codes = np.array([blueprint_policy.POLICIES[name] for name in names], dtype=np.int64)
    self.params = np.concatenate(params)
    self.starts = np.cumsum([0] + [len(p) for p in params]).astype(np.int64)
    self.rng = rng

  def __call__(self, pos: np.ndarray, continuations: int = 1) -> np.ndarray:
    """v at `pos`, the mean of `continuations` plays (one when every reference is
    deterministic)."""
    if continuations < 1:
      raise ValueError(f"continuations = {continuations}; allowed: an integer >= 1")
    out = np.zeros(self.core.num_players)
    blueprint_policy.round_values(self.core.spec, self.core.checked_position(pos),
                                  checked_stream(self.rng),
                                  self.codes, self.params, self.starts,
                                  1 if self.deterministic else continuations, out)
    return out
