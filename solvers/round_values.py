"""The value of a Sushi Go position at the end of the round under way, every seat playing on by its
bot's compiled twin: the value function of the luck of the deal and of AIVAT
(`experiments.tournament.luck`, `experiments.tournament.aivat`).

A bot's reference policy (`reference`) is its twin: random, greedy, the heuristic with its default
parameters, or a CFR blueprint played by `PolicyBot` (sampled or purified); the default heuristic
for any other bot (a search, a heuristic with other parameters). Rounds are played by the baseline
policy kernels (`SushiGoPolicies.round_values`) when no blueprint sits at the table, so that the
baselines' tournaments compile no blueprint or CFR kernel; else by the blueprint policy kernel's
`round_values`, each seat reading its own parameters (`tests/test_aivat.py` checks that the two
play a baselines' table alike, to the last bit).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
import pyspiel

from solvers.baselines import HeuristicBot
from solvers.policy_kernels import heuristic
from solvers.policy_kernels.checked import SushiGoPolicies
from solvers.policy_kernels.sushi_go import BLUEPRINT_POLICIES
from solvers.search.rollouts import compiled_policy_name
from sushigo_spiel.compiled.core import checked_stream

DEFAULT_POLICY = "heuristic"  # the reference policy of a bot without a compiled twin
DETERMINISTIC = ("greedy", "heuristic")  # the references whose round ends need one play


def reference(bot: pyspiel.Bot) -> tuple[str, np.ndarray]:
  """The name of `bot`'s reference policy and the parameter array it reads: the heuristic's
  default parameters, or for a blueprint those followed by its table
  (`blueprint_policy.parameters`)."""
  defaults = heuristic.parameters(HeuristicBot.WEIGHTS)
  # A PolicyBot exists only once its module is imported: a baselines' tournament never imports it
  # (with CFR's modules, a second), and no bot of it can be one.
  policies = sys.modules.get("solvers.equilibrium.policies")
  model = bot.blueprint_model() if policies and isinstance(bot, policies.PolicyBot) else None
  if model is not None:
    from solvers.equilibrium.kernels import blueprint_policy  # pylint: disable=C0415 (compiles CFR's)
    name, blueprint = model
    return name, blueprint_policy.parameters(defaults, blueprint.valuation, blueprint.averages)
  return compiled_policy_name(bot) or DEFAULT_POLICY, defaults


_POLICIES: dict[str, SushiGoPolicies] = {}  # by game string: a tournament's games share one


def policies_of(game: pyspiel.Game) -> SushiGoPolicies:
  """The baseline policy kernels on the compiled core of `game`, made once per game string."""
  key = str(game)
  if key not in _POLICIES:
    _POLICIES[key] = SushiGoPolicies.from_params(**game.get_parameters())
  return _POLICIES[key]


class ReferenceValue:
  """v: each seat's points at the end of the round under way at a position, every seat playing
  on by its bot's reference policy (`reference`), on the compiled core of `game`, drawing from
  the kernel stream `rng`."""

  def __init__(self, game: pyspiel.Game, bots: Sequence[pyspiel.Bot], rng: np.ndarray):
    self.policies = policies_of(game)
    self.core = self.policies.core
    names, params = zip(*(reference(bot) for bot in bots))
    self.names = names
    self.deterministic = all(name in DETERMINISTIC for name in names)
    self.rng = checked_stream(rng)
    self.blueprint_kernel = None
    if any(name in BLUEPRINT_POLICIES for name in names):
      from solvers.equilibrium.kernels import blueprint_policy  # pylint: disable=C0415
      blueprint_policy.ensure_compiled()
      self.blueprint_kernel = blueprint_policy
      self.codes = np.array([blueprint_policy.POLICIES[name] for name in names], dtype=np.int64)
      self.params = np.concatenate(params)
      self.starts = np.cumsum([0] + [len(p) for p in params]).astype(np.int64)
    else:
      self.codes, self.params = self.policies.joint_codes(
          names, heuristic.parameters(HeuristicBot.WEIGHTS))

  def __call__(self, pos: np.ndarray, continuations: int = 1) -> np.ndarray:
    """v at `pos`, the mean of `continuations` plays (one when every reference is
    deterministic)."""
    if continuations < 1:
      raise ValueError(f"continuations = {continuations}; allowed: an integer >= 1")
    plays = 1 if self.deterministic else continuations
    if self.blueprint_kernel is None:
      return self.policies.round_values(pos, self.rng, self.codes, self.params, plays)
    out = np.zeros(self.core.num_players)
    self.blueprint_kernel.round_values(self.core.spec, self.core.checked_position(pos), self.rng,
                                       self.codes, self.params, self.starts, plays, out,
                                       self.blueprint_kernel.PLAYING)
    return out

  def dealt(self, pos: np.ndarray, deals: int) -> np.ndarray:
    """The mean of v over `deals` deals sampled from the chance node `pos`, each position dealt
    valued by one play: E[v(after the deal)], estimated."""
    if deals < 1:
      raise ValueError(f"deals = {deals}; allowed: an integer >= 1")
    if self.blueprint_kernel is None:
      return self.policies.round_values(pos, self.rng, self.codes, self.params, deals, redeal=True)
    total = np.zeros(self.core.num_players)
    for _ in range(deals):
      dealt = pos.copy()
      self.core.skip_chance(dealt, self.rng)
      total += self(dealt)
    return total / deals
