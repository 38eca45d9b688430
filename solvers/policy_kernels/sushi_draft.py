"""Sushi Draft's rollout policies as a kernel: the game has one, random, which reads no
parameters."""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_draft.policies import random_action

RANDOM = 0
POLICIES = {"random": RANDOM}  # the policy codes the searches' rollouts may name


@njit
def policy_action(g, pos, player, rng, legal, policy, params):
  """The compiled searches' policy kernel (`solvers.search.kernels.game`): a uniform legal
  action."""
  return random_action(g, pos, player, rng, legal)
