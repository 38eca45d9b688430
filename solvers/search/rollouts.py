"""Playing games out on the rules' tables: the rollouts of every search solver.

Tree search spends its time resampling hidden cards, sampling chance and playing games out. Going
through pyspiel states for that would replay histories and cross into C++ at every step; here the
game's `Dynamics` (its pure rules functions) are called on immutable tables, so a position is
copied by sharing it. Determinization and chance sampling are the game's own
(`dynamics.determinize`, `dynamics.skip_chance`).

Randomness is a `uniform` callable returning floats in [0, 1), such as `random.Random(seed).random`.

A `RolloutPolicy` is a callable `(rules, table, player, uniform) -> action`:
  random     uniform over the legal actions (both games)
  greedy     the greedy baseline bot's policy (Sushi Go)
  heuristic  the heuristic baseline bot's policy (Sushi Go)
The baseline policies also hand themselves to Sushi Go's compiled core (`compiled_policy`), which
plays them identically, uniform for uniform.
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

  def compiled_policy(self) -> tuple[int, np.ndarray]:
    """This policy on Sushi Go's compiled core: the policy code and parameter array that
    `compiled.sushi_go.policies.policy_action(g, pos, player, rng, code, params, legal)`,
    `playout` and `playout_many` take. Given the same stream they take the actions this policy
    takes and draw the same uniforms."""
    # Imported here: the compiled core loads numba, which the Python searches do not need.
    from sushigo_spiel.compiled.sushi_go import heuristic, policies
    if isinstance(self.bot, baselines.HeuristicBot):
      return policies.HEURISTIC, heuristic.parameters(self.bot.params)
    if isinstance(self.bot, baselines.GreedyBot):
      return policies.GREEDY, policies.NO_PARAMETERS
    raise ValueError(f"{type(self.bot).__name__} has no compiled policy; allowed: the greedy and"
                     " heuristic bots")


def make_rollout_policy(name: str, game: pyspiel.Game) -> RolloutPolicy:
  """The rollout policy `name` (one of `ROLLOUT_POLICIES`) for `game`, a drafting game."""
  if name == "random":
    return RandomPolicy(game.dynamics)
  if name == "greedy":
    return BaselinePolicy(baselines.GreedyBot(game, 0))
  if name == "heuristic":
    return BaselinePolicy(baselines.HeuristicBot(game, 0))
  raise ValueError(f"rollout policy {name!r} is unknown; allowed: {', '.join(ROLLOUT_POLICIES)}")
