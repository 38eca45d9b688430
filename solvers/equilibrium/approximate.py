"""Approximate exploitability: an agent best-responding to a fixed policy, on games too large for
an exact best response.

Any agent's gain against a policy is a lower bound on the best response's. The responder is one of
`RESPONDERS` (ismcts, lbr, learned, ppo), each given the policy as its opponent model. In seat s it
plays against the policy in every other seat:

  gain_s  = E[u_s(agent in seat s, policy elsewhere)] - E[u_s(policy everywhere)]
  bound   = sum over seats of gain_s  (a lower bound on NashConv; halved, on exploitability, for
            two-player zero- and constant-sum games, as `exploitability.exploitability`)

Game k of seat s draws its deals and bot seeds from `SeedSequence(seed, spawn_key=(s, k))`, shared
by the agent's and the self-play game (common random numbers). A policy a bot cannot tell cheaply
(`Bot.cheap_policy`) is modelled by the responder's own bandits: a valid, looser bound. Intervals
are the experiment's. The rest: docs/equilibrium.md, "Approximate exploitability of the full game".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import pyspiel

from solvers.bot import Policy
from solvers.equilibrium.learned_best_response import LearnedBestResponseBot
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.equilibrium.policies import PolicyBot
from solvers.learning.best_response import PPOBestResponseBot
from solvers.match import play_match
from solvers.search import rollouts
from solvers.search.ismcts import SOISMCTSBot
from solvers.search.kernels.game import PolicyKernel
from solvers.search.opponent_model import CompiledPolicy, OpponentModel

RESPONDERS = {"ismcts": SOISMCTSBot, "lbr": LocalBestResponseBot,
              "learned": LearnedBestResponseBot, "ppo": PPOBestResponseBot}
READING_RESPONDERS = ("lbr", "learned", "ppo")  # responders that read the policy at any table
BotFactory = Callable[[pyspiel.Game, int, int], pyspiel.Bot]  # (game, player, seed) -> bot


class GainRecord(NamedTuple):
  """Game `index` of `seat`: the agent's return there, and the policy's in self-play."""
  seat: int
  index: int
  agent: float
  self_play: float


class BotsPolicy:
  """The policy of `bots` (one per player) at a table: what each bot tells at it."""

  def __init__(self, bots: Sequence[pyspiel.Bot]):
    self.bots = bots

  def __call__(self, rules, table, player: int) -> Policy:
    del rules
    return self.bots[player].policy_at(table)


def opponent_model(bots: Sequence[pyspiel.Bot]) -> OpponentModel | None:
  """The policy of `bots` (one per player) as an opponent model, when every one of them can tell
  it at any table (`Bot.cheap_policy`); else None. Its compiled policy is the baselines' kernel
  when every bot plays the same one (`rollouts.compiled_policy_name`: random, greedy, the default
  heuristic), or the blueprint policy kernel when every bot plays one CFR blueprint one way, so
  that the best responder's search runs compiled; None otherwise. Its key names each bot's class
  and parameters, so that a learned responder trains once per policy."""
  if not all(getattr(bot, "cheap_policy", False) for bot in bots):
    return None
  key = repr([(type(bot).__name__, sorted(bot.params.items())) for bot in bots])
  names = {rollouts.compiled_policy_name(bot) for bot in bots}
  name = names.pop() if len(names) == 1 else None
  compiled = CompiledPolicy(name) if name else _blueprint_policy(bots)
  return OpponentModel(BotsPolicy(bots), compiled, key)


def _blueprint_policy(bots: Sequence[pyspiel.Bot]) -> CompiledPolicy | None:
  """The blueprint policy kernel playing `bots` when they play one blueprint one way; else None."""
  if not all(isinstance(bot, PolicyBot) for bot in bots):
    return None
  models = [bot.blueprint_model() for bot in bots]
  if not all(models) or len({name for name, _ in models}) > 1:
    return None
  name, policy = models[0]
  if not all(np.array_equal(other.averages, policy.averages) and
             np.array_equal(other.valuation, policy.valuation) for _, other in models[1:]):
    return None
  # Imported here: the compiled kernels load numba, which Sushi Draft's models never need.
  from solvers.equilibrium.kernels import blueprint_policy  # pylint: disable=C0415
  blueprint_policy.ensure_compiled()
  return CompiledPolicy(
      name, PolicyKernel(blueprint_policy.policy_action, blueprint_policy.POLICIES,
                         blueprint_policy.PARAMETERISED),
      blueprint_policy.parameters(rollouts.compiled_policy_parameters("python_sushi_go"),
                                  policy.valuation, policy.averages))


def make_responder(game: pyspiel.Game, seat: int, seed: int, responder: str, params: dict,
                   model: OpponentModel | None, model_in_rollouts: bool = True) -> pyspiel.Bot:
  """The `responder` (one of `RESPONDERS`) in `seat`, with `params`, best responding to `model`;
  a ValueError when it cannot (an unknown name, bad parameters, LBR without a readable policy)."""
  if responder not in RESPONDERS:
    raise ValueError(f"unknown responder {responder!r}; allowed: {', '.join(RESPONDERS)}")
  if responder in READING_RESPONDERS and model is None:
    raise ValueError(f"the {responder} responder needs a policy it can read at any table (a saved"
                     " policy, random, greedy, heuristic); a search bot has none: use ismcts")
  if responder == "lbr":
    return LocalBestResponseBot(game, seat, seed, opponent_model=model, **params)
  if responder == "learned":
    return LearnedBestResponseBot(game, seat, seed, opponent_model=model, policy_key=model.key,
                                  **params)
  if responder == "ppo":
    return PPOBestResponseBot(game, seat, seed, opponent_model=model, policy_key=model.key,
                              **params)
  return SOISMCTSBot(game, seat, seed, opponent_model=model, model_in_rollouts=model_in_rollouts,
                     **params)


def play_gain(game: pyspiel.Game, make_policy: BotFactory, seat: int, index: int, seed: int,
              agent_params: dict, model_in_rollouts: bool = True,
              responder: str = "ismcts") -> GainRecord:
  """One paired game: the agent (`responder` with `agent_params`) in `seat` against the policy,
  and the policy against itself. `model_in_rollouts=False` asks the policy in the agent's tree
  only (see `ISMCTSBot`)."""
  n = game.num_players()
  chance_seed, agent_seed, *seat_seeds = np.random.SeedSequence(
      seed, spawn_key=(seat, index)).spawn(2 + n)
  seeds = [int(s.generate_state(1)[0]) for s in seat_seeds]
  policy_bots = [make_policy(game, p, seeds[p]) for p in range(n)]
  self_play = play_match(game, policy_bots, np.random.default_rng(chance_seed))
  policy_bots = [make_policy(game, p, seeds[p]) for p in range(n)]
  model = opponent_model([make_policy(game, p, seeds[p]) for p in range(n)])
  agent = make_responder(game, seat, int(agent_seed.generate_state(1)[0]), responder,
                         agent_params, model, model_in_rollouts)
  against = play_match(game, [agent if p == seat else policy_bots[p] for p in range(n)],
                       np.random.default_rng(chance_seed))
  return GainRecord(seat, index, against.returns()[seat], self_play.returns()[seat])


def value_sum(game: pyspiel.Game) -> float | None:
  """What every policy's values sum to over the seats: the utility sum of a zero- or
  constant-sum game; None for a general-sum one."""
  utility = game.get_type().utility
  if utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
    return float(game.utility_sum())
  return None


def halves_nash_conv(game: pyspiel.Game) -> bool:
  """Whether exploitability is NashConv / 2 here: two players, zero or constant sum."""
  utility = game.get_type().utility
  return game.num_players() == 2 and utility in (pyspiel.GameType.Utility.ZERO_SUM,
                                                 pyspiel.GameType.Utility.CONSTANT_SUM)

