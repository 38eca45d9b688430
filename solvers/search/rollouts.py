"""Playing games out on the rules' tables: the rollouts of every search solver.

The game's `Dynamics` (its pure rules functions) are called on immutable tables, so a position is
copied by sharing it, where pyspiel states would replay histories and cross into C++ at every
step. Determinization and chance sampling are the game's own (`determinize`, `skip_chance`).
Randomness is a `uniform` callable returning floats in [0, 1), such as `random.Random(seed).random`.

A `RolloutPolicy` is a callable `(rules, table, player, uniform) -> action`: `random` (uniform
over the legal actions, both games), `greedy` and `heuristic` (the baseline bots' policies, Sushi
Go). The baseline policies also name their twin in the compiled core (`compiled_policy`,
`compiled_parameters`), which plays them identically. The rest: docs/search.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from solvers import baselines
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL, Dynamics
from sushigo_spiel.drafting.sampling import Uniform, draw_action

ROLLOUT_POLICIES = ("random", "greedy", "heuristic")

RolloutPolicy = Callable[[object, object, int, Uniform], int]


def rollout(dynamics: Dynamics, rules, table, policies: Sequence[RolloutPolicy],
            uniform: Uniform) -> list[float]:
  """Plays from `table` to the end, chance by its probabilities; returns the utilities."""
  return dynamics.returns(rules, playout(dynamics, rules, table, policies, uniform))


def playout(dynamics: Dynamics, rules, table, policies: Sequence[RolloutPolicy],
            uniform: Uniform):
  """Plays from `table` to the end, chance by its probabilities, `policies[p]` choosing for
  player p; returns the final table."""
  play, skip_chance = dynamics.play, dynamics.skip_chance
  players = range(rules.num_players)
  while table.actor != TERMINAL:
    if table.actor == CHANCE:
      table = skip_chance(rules, table, uniform)
    else:
      table = play(rules, table, [policies[p](rules, table, p, uniform) for p in players])
  return table


class RandomPolicy:
  """Uniform over the legal actions, with one uniform per choice."""

  def __init__(self, dynamics: Dynamics):
    self.legal_actions = dynamics.legal_actions

  def __call__(self, rules, table, player: int, uniform: Uniform) -> int:
    legal = self.legal_actions(rules, table, player)
    return legal[int(uniform() * len(legal))]


class BaselinePolicy:
  """A baseline bot's policy (`baselines.GreedyBot`, `HeuristicBot`) read at a table: its action
  when the policy is pure (no uniform drawn), a draw when it is mixed."""

  def __init__(self, bot: baselines.ViewBot):
    self.bot = bot

  def __call__(self, rules, table, player: int, uniform: Uniform) -> int:
    policy = self.bot.policy(baselines.table_view(rules, table, player))
    best_action, best = max(policy, key=lambda entry: entry[1])
    return best_action if best == 1.0 else draw_action(policy, uniform)

  @property
  def compiled_policy(self) -> str | None:
    """The name of this policy in the compiled policy kernel (`compiled_policy_name`)."""
    return compiled_policy_name(self.bot)

  def compiled_parameters(self) -> np.ndarray:
    """The parameter array the compiled policy kernel plays this policy with: given the same
    stream, `solvers.policy_kernels.sushi_go.policy_action`, `playout` and `playout_many` take the
    actions this policy takes and draw the same uniforms."""
    # Imported here: the compiled core loads numba, which the Python searches do not need.
    from solvers.policy_kernels import heuristic, sushi_go  # pylint: disable=C0415
    if isinstance(self.bot, baselines.HeuristicBot):
      return heuristic.parameters(self.bot.weights)
    if isinstance(self.bot, baselines.GreedyBot):
      return sushi_go.NO_PARAMETERS
    raise ValueError(f"{type(self.bot).__name__} has no compiled policy; allowed: the greedy and"
                     " heuristic bots")


def compiled_policy_name(bot) -> str | None:
  """The name of `bot`'s policy in the compiled searches' policy kernel, read with the parameters
  of `compiled_policy_parameters`: "random" for the random bot, "greedy" for the greedy baseline,
  "heuristic" for the heuristic baseline with its default parameters (the searches hold one
  parameter array); None for any other bot."""
  if type(bot) is baselines.RandomBot:  # pylint: disable=C0123
    return "random"
  if type(bot) is baselines.GreedyBot:  # pylint: disable=C0123 (a subclass may play otherwise)
    return "greedy"
  if type(bot) is baselines.HeuristicBot and \
      bot.weights == baselines.HeuristicBot.WEIGHTS:  # pylint: disable=C0123
    return "heuristic"
  return None


def compiled_policy_parameters(short_name: str) -> np.ndarray | None:
  """The parameter array the compiled searches' policy kernel of game `short_name` reads: the
  heuristic baseline's default parameters for Sushi Go, None for a game whose compiled policies
  read none."""
  if short_name != "python_sushi_go":
    return None
  from solvers.policy_kernels import heuristic  # pylint: disable=C0415
  return heuristic.parameters(baselines.HeuristicBot.WEIGHTS)


def make_rollout_policy(name: str, game: pyspiel.Game) -> RolloutPolicy:
  """The rollout policy `name` (one of `ROLLOUT_POLICIES`) for `game`, a drafting game."""
  if name == "random":
    return RandomPolicy(game.dynamics)
  if name == "greedy":
    return BaselinePolicy(baselines.GreedyBot(game, 0))
  if name == "heuristic":
    return BaselinePolicy(baselines.HeuristicBot(game, 0))
  raise ValueError(f"rollout policy {name!r} is unknown; allowed: {', '.join(ROLLOUT_POLICIES)}")
