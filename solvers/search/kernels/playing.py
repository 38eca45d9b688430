"""Choosing actions and playing out inside the search kernels, for any game (`game.py`).

`objective` and `reward` turn returns into what the bandits learn: margins (own points less the
others' mean) as rewards in [0, 1], `margin_scale` points of margin to one half, clipped.

`policy_action` is the action of a policy code of the game's policy kernel, mixed with uniform
random play: with probability `epsilon` (one uniform drawn, only when 0 < epsilon) the action is
uniform over the legal ones instead. `playout` plays a position to the end as `PlayoutPolicies`
say: every player by the rollout policy except, when a model is given, the modelled players by
the model's policy.
"""

from __future__ import annotations

from typing import NamedTuple

from sushigo_spiel.compiled.interface import (PLAY, POLICY, POLICY_PARAMETERS, RANDOM_ACTION,
                                              RETURNS, SKIP_CHANCE)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import next_double
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL

NO_POLICY = -1  # no model: every player by the search


class PlayoutPolicies(NamedTuple):
  """How a playout plays: everyone by policy code `rollout` mixed with `epsilon`, except the
  opponents of player `modelled` by policy code `model` when it is not NO_POLICY."""
  rollout: int
  epsilon: float
  model: int
  modelled: int


@njit(inline="always")
def policy_action(game, g, pos, player, rng, legal, policy, epsilon):
  """The action of `policy` for `player`, uniformly random instead with probability `epsilon`."""
  if epsilon > 0.0 and next_double(rng) < epsilon:
    return game[RANDOM_ACTION](g, pos, player, rng, legal)
  return game[POLICY](g, pos, player, rng, legal, policy, game[POLICY_PARAMETERS])


@njit
def playout(game, g, pos, rng, policies, legal, joint, out):
  """Plays `pos` to the end in place as `policies` (`PlayoutPolicies`) say, chance by its
  probabilities, and writes the returns to `out`; `joint` holds one action per player."""
  model = policies.model
  while pos[0] != TERMINAL:
    if pos[0] == CHANCE:
      game[SKIP_CHANCE](g, pos, rng)
      continue
    for p in range(len(joint)):
      if model != NO_POLICY and p != policies.modelled:
        joint[p] = game[POLICY](g, pos, p, rng, legal, model, game[POLICY_PARAMETERS])
      else:
        joint[p] = policy_action(game, g, pos, p, rng, legal, policies.rollout, policies.epsilon)
    game[PLAY](g, pos, joint)
  game[RETURNS](g, pos, out)


@njit(inline="always")
def objective(values, margin):
  """The returns turned into margins in place (own minus the others' mean) when `margin`."""
  if not margin:
    return
  total, others = values.sum(), len(values) - 1
  for p in range(len(values)):
    values[p] = values[p] - (total - values[p]) / others


@njit(inline="always")
def reward(value, win, margin_scale):
  """A value as a reward in [0, 1] (`SMMCTS._reward`)."""
  if win:
    return value
  return min(1.0, max(0.0, 0.5 + value / (2.0 * margin_scale)))
