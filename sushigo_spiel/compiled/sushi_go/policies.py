"""Rollout policies and whole playouts as kernels.

`RANDOM` picks uniformly among the legal actions with one uniform, as the random rollout policy of
`solvers.search.rollouts` does (`legal[int(u * len(legal))]`, players in order), so a playout from
the same stream ends in the same position as the Python engine's. `GREEDY` is the greedy baseline
(`solvers.baselines.GreedyBot`): the pick worth the most points if the round ended now, against
the other players' tableaus, ties to the lowest action id; it draws no uniform.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_TERMINAL, CATEGORIES,
                                                    NUM_ACTIONS, PLAYERS)
from sushigo_spiel.compiled.sushi_go.moves import action_picks, legal_actions, place, play
from sushigo_spiel.compiled.rng import seed_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go.scoring import TALLY_SIZE, returns, round_breakdown, tally

RANDOM, GREEDY = 0, 1
POLICIES = {"random": RANDOM, "greedy": GREEDY}


@njit(inline="always")
def random_action(g, pos, player, rng, legal):
  """A legal action drawn uniformly with one uniform (`legal` is a scratch buffer)."""
  count = legal_actions(g, pos, player, legal)
  return legal[pick_uniformly(count, rng)]


@njit
def greedy_action(g, pos, player, legal):
  """The greedy baseline's action (`legal` is a scratch buffer)."""
  count = legal_actions(g, pos, player, legal)
  picks = np.empty(2, dtype=np.int64)
  best_action, best_points = -1, -1
  for i in range(count):
    action_picks(g, legal[i], picks, 0)
    points = immediate_points(g, pos, player, picks)
    if points > best_points:
      best_action, best_points = legal[i], points
  return best_action


@njit
def immediate_points(g, pos, player, picks):
  """Points `player` would score this round with `picks` added to its tableau (the Chopsticks
  used staying in it), if the round ended now (`baselines.immediate_points`)."""
  n = g[PLAYERS]
  tallies = np.empty((n, TALLY_SIZE), dtype=np.int64)
  for p in range(n):
    tally(g, pos, views.tableau_at(g, p), tallies, p)
  row = views.tableau(g, pos, player).copy()
  for card in picks:
    if card >= 0:
      place(g, row, 0, card)
  tally(g, row, 0, tallies, player)
  breakdown = np.empty((n, g[CATEGORIES]), dtype=np.int64)
  round_breakdown(g, tallies, breakdown)
  return breakdown[player].sum()


@njit
def playout(g, pos, rng, policy, out):
  """Plays `pos` to the end (chance by its probabilities, every player by `policy`), writing the
  returns to `out`."""
  n = g[PLAYERS]
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  actions = np.empty(n, dtype=np.int64)
  while pos[ACTOR] != ACTOR_TERMINAL:
    if pos[ACTOR] == ACTOR_CHANCE:
      skip_chance(g, pos, rng)
      continue
    for p in range(n):
      if policy == RANDOM:
        actions[p] = random_action(g, pos, p, rng, legal)
      else:
        actions[p] = greedy_action(g, pos, p, legal)
    play(g, pos, actions)
  returns(g, pos, out)


@njit
def playout_many(g, games, seed, policy, out):
  """Plays `games` whole games from the initial position, one stream seeded with `seed` drawn on
  from game to game; writes game i's returns to `out[i]`."""
  rng = np.empty(4, dtype=np.uint64)
  seed_state(rng, seed)
  for game in range(games):
    playout(g, initial_position(g), rng, policy, out[game])
