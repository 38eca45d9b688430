"""Information-Set MCTS as kernels: whole iterations over a preallocated tree (`tree.py`).

The algorithm of `solvers.search.ismcts` (Cowling, Powley & Whitehouse 2012): every iteration
determinizes the root position for the searching player, descends one tree of information sets per
observer (SO-ISMCTS: the searching player's only; MO-ISMCTS: one per player), every player choosing
from its own bandit at its tree's node (decoupled selection, `bandits.py`), moves each tree to the
child keyed by what its owner observes (`observation_key`), samples chance, stops at the first new
node, plays out (`playing.py`) and backs every bandit on the path up with its player's utility
scaled to [0, 1] (or its margin, `MARGIN`). Uniforms are drawn in the order of the Python search,
so with random rollouts and no prior both keep the same statistics from the same stream (tested).

`run` does up to `iterations` iterations and returns how many it did: fewer when the tree has no
room for the next one, for Python to grow it (numba has no clock: the bot times batches of
iterations from Python). The game is the first argument (`game.py`); the settings are packed in
two arrays, indexed by the names below.
"""

from __future__ import annotations

import numpy as np

from solvers.search.kernels import bandits, playing
from solvers.search.kernels import tree as trees
from sushigo_spiel.compiled.interface import (DETERMINIZE, LEGAL_ACTIONS, OBSERVATION_KEY, PLAY,
                                              POLICY, POLICY_PARAMETERS, RETURNS, SKIP_CHANCE)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.drafting.dynamics import TERMINAL

# Integer settings.
# MARGIN: learn margins (`playing.reward`, turning scores into margins when TO_MARGIN) rather
# than the utility scaled by its bounds (OFFSET, SCALE).
(PLAYERS, SEARCHER, TREES, SELECTION, MODEL, MODEL_IN_ROLLOUTS, ROLLOUT, PRIOR, MAX_DEPTH,
 MARGIN, TO_MARGIN, ACTIONS) = range(12)
INT_SETTINGS = 12
# Real settings.
C, GAMMA, EPSILON, BIAS, OFFSET, SCALE, MARGIN_SCALE = range(7)
REAL_SETTINGS = 7


@njit
def run(game, g, root, owners, ints, reals, tree, rng, iterations):
  """Up to `iterations` iterations from `root` (a position at a simultaneous node); returns how
  many were done. `owners[t]` is the owner of tree t, the searcher first."""
  n, depth = ints[PLAYERS], ints[MAX_DEPTH]
  scratch = _scratch(n, depth, ints[ACTIONS], len(root))
  for done in range(iterations):
    if not trees.has_room(tree, len(owners), depth * n):
      return done
    _iterate(game, g, root, owners, ints, reals, tree, rng, scratch)
  return iterations


@njit
def _scratch(players, depth, actions, size):
  """The buffers one iteration works in: legal actions (and the prior's), the joint action, the
  position before a step, utilities, and the path (row, player, action, probability, arms)."""
  return (np.empty(actions, dtype=np.int64), np.empty(actions, dtype=np.int64),
          np.empty(players, dtype=np.int64), np.empty(size, dtype=np.int32),
          np.empty(players), np.empty(actions),
          np.empty((depth * players, 4), dtype=np.int64), np.empty(depth * players),
          np.empty((depth * players, actions), dtype=np.int64))


@njit
def _iterate(game, g, root, owners, ints, reals, tree, rng, scratch):
  legal, spare, joint, before, utilities, probabilities, path, path_p, path_arms = scratch
  n, me, model = ints[PLAYERS], ints[SEARCHER], ints[MODEL]
  nodes = np.arange(len(owners))
  world = game[DETERMINIZE](g, root, me, rng)
  steps = 0
  while True:
    for p in range(n):
      if model != playing.NO_POLICY and p != me:
        joint[p] = game[POLICY](g, world, p, rng, spare, model, game[POLICY_PARAMETERS])
        continue
      node = nodes[_tree_of(owners, p)]
      row = trees.row(tree, node, p)
      count = game[LEGAL_ACTIONS](g, world, p, legal)
      favoured = -1
      if ints[PRIOR] != playing.NO_POLICY:
        favoured = game[POLICY](g, world, p, rng, spare, ints[PRIOR],
                                  game[POLICY_PARAMETERS])
      action, probability = bandits.select(
          tree[1], row, legal, count, ints[SELECTION], reals[C], reals[GAMMA], favoured,
          reals[BIAS], probabilities, rng)
      joint[p] = action
      path[steps, 0], path[steps, 1], path[steps, 2], path[steps, 3] = row, p, action, count
      path_arms[steps, :count] = legal[:count]
      path_p[steps] = probability
      steps += 1
    before[:] = world
    game[PLAY](g, world, joint)
    game[SKIP_CHANCE](g, world, rng)
    if world[0] == TERMINAL:
      game[RETURNS](g, world, utilities)
      break
    expanded = False
    for t in range(len(owners)):
      nodes[t], created = trees.child(tree, nodes[t],
                                      game[OBSERVATION_KEY](g, before, joint, world, owners[t]))
      expanded |= created
    if expanded:
      playing.playout(game, g, world, rng, n, ints[ROLLOUT], reals[EPSILON],
                      model if ints[MODEL_IN_ROLLOUTS] else playing.NO_POLICY, me, spare, joint,
                      utilities)
      break
  if ints[MARGIN]:
    playing.objective(utilities, ints[TO_MARGIN])
  for step in range(steps):
    row, p, action, count = path[step, 0], path[step, 1], path[step, 2], path[step, 3]
    reward = (playing.reward(utilities[p], False, reals[MARGIN_SCALE]) if ints[MARGIN]
              else (utilities[p] - reals[OFFSET]) * reals[SCALE])
    bandits.update(tree[1], row, action, reward, path_p[step], ints[SELECTION], path_arms[step],
                   count)


@njit(inline="always")
def _tree_of(owners, player):
  """The tree `player` chooses in: its own when it owns one, else the searcher's."""
  for t in range(len(owners)):
    if owners[t] == player:
      return t
  return 0
