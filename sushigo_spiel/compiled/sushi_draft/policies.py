"""Sushi Draft's random policy and random playouts as kernels.

`random_action` picks uniformly among the legal actions with one uniform, as the random rollout
policy of `solvers.search.rollouts` does (`legal[int(u * len(legal))]`, players in order), so a
playout from the same stream ends in the same position as the Python engine's. Reference:
`rollouts.RandomPolicy` over the readable rules; `tests/test_compiled_sushi_draft.py` compares
whole playouts from one stream.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import seed_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_draft.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_draft.layout import (ACTIONS, ACTOR, ACTOR_CHANCE,
                                                       ACTOR_TERMINAL, PLAYERS)
from sushigo_spiel.compiled.sushi_draft.moves import legal_actions, play
from sushigo_spiel.compiled.sushi_draft.scoring import returns


@njit(inline="always")
def random_action(g, pos, player, rng, legal):
  """A legal action drawn uniformly with one uniform (`legal` is a scratch buffer)."""
  count = legal_actions(g, pos, player, legal)
  return legal[pick_uniformly(count, rng)]


@njit
def playout(g, pos, rng, out):
  """Plays `pos` to the end (chance by its probabilities, every player at random), writing the
  returns to `out`."""
  n = g[PLAYERS]
  legal = np.empty(ACTIONS, dtype=np.int64)
  actions = np.empty(n, dtype=np.int64)
  while pos[ACTOR] != ACTOR_TERMINAL:
    if pos[ACTOR] == ACTOR_CHANCE:
      skip_chance(g, pos, rng)
      continue
    for p in range(n):
      actions[p] = random_action(g, pos, p, rng, legal)
    play(g, pos, actions)
  returns(g, pos, out)


@njit
def playout_many(g, games, seed, out):
  """Plays `games` whole games from the initial position, one stream seeded with `seed` drawn on
  from game to game; writes game i's returns to `out[i]`."""
  rng = np.empty(4, dtype=np.uint64)
  seed_state(rng, seed)
  for game in range(games):
    playout(g, initial_position(g), rng, out[game])
