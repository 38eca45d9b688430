"""The policy kernel the compiled searches call for Sushi Go's rollouts, priors and opponent
models: one action for one player, chosen by a policy code of `policies.POLICIES`.

`random` draws one uniform (as `policies.random_action`), `greedy` none (the greedy baseline,
`policies.greedy_action`). The heuristic baseline joins here when its kernel lands.
"""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.policies import GREEDY, greedy_action, random_action


@njit
def policy_action(g, pos, player, rng, legal, policy):
  """The action of policy `policy` for `player` (`legal` is a scratch buffer)."""
  if policy == GREEDY:
    return greedy_action(g, pos, player, legal)
  return random_action(g, pos, player, rng, legal)
