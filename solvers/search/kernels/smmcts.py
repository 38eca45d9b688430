"""Simultaneous-move MCTS on determinized worlds, as kernels: PIMC's world solver.

Tested against its reference, `world_solvers.SMMCTS` (decoupled bandits at every node, one node
added and one rollout per iteration, later deals sampled), on one tree (`tree.py`) reset for every
world. A node's children are keyed by the joint action, and by the whole position after it when a
new round's deal followed. Values are the solvers' objective (margin, returns, or the win share
plus `WIN_TIE_BREAK` times the margin), learnt as rewards in [0, 1]: win values as they are,
margins mapped linearly with `margin_scale` points to one half, clipped.

`solve_worlds` samples worlds with the game's `determinize` and adds, per world, the searcher's
value of each visited root action and its mixed root policy (visit frequencies for UCB1, the mean
strategy otherwise) to the caller's sums: PIMC's average over worlds. The rest: docs/search.md,
"Perfect Information Monte Carlo".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.search.kernels import bandits, playing
from solvers.search.kernels import tree as trees
from solvers.search.kernels.playing import objective, reward
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.interface import DETERMINIZE, LEGAL_ACTIONS, PLAY, RETURNS, SKIP_CHANCE
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.utilities import WIN_TIE_BREAK
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL

class Settings(NamedTuple):
  """One sampler's settings: `from_scores` takes margins from the scores (`utility=score`), `win`
  learns the win values (`utility=win`, the module docstring); `iterations` per world."""
  selection: bandits.Selection
  playout: playing.PlayoutPolicies
  players: int
  searcher: int
  iterations: int
  from_scores: bool
  win: bool
  margin_scale: float
  max_depth: int
  actions: int


@njit
def solve_worlds(game, g, margin_g, root, settings, tree, rng, worlds, sums):
  """Samples `worlds` worlds for the searcher at `root` and solves each with
  `settings.iterations` iterations, adding to `sums` (value sums in objective units, value
  counts, policy sums: arrays by action id). `margin_g` is the spec of the game scored by margins
  (`game.SearchGame.margin_spec`), read with `settings.win`."""
  n, actions, depth = settings.players, settings.actions, settings.max_depth
  scratch = (np.empty(actions, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n),
             np.empty(n), np.empty(n), np.empty(actions), np.empty(len(root), dtype=np.int32),
             np.empty((depth, n, 3), dtype=np.int64), np.empty((depth, n)),
             np.empty((depth, n, actions), dtype=np.int64))
  for _ in range(worlds):
    world = game[DETERMINIZE](g, root, settings.searcher, rng, game[PLAY])
    _reset(tree)
    for _ in range(settings.iterations):
      _simulate(game, g, margin_g, world, settings, tree, rng, scratch)
    _add_root(tree, settings, sums)


@njit
def _reset(tree):
  node_rows, _, slot_parent, _, _, used = tree
  node_rows[0, :] = -1
  slot_parent[:] = -1
  used[:] = 0
  used[trees.NODES] = 1


@njit
def _simulate(game, g, margin_g, world, settings, tree, rng, scratch):
  """One iteration from the root (node 0) of `world`; the path is (row, action, count) per step
  and player, with the probabilities and arms of the choices."""
  legal, joint, values, margins, rewards, probabilities, pos, path, path_p, path_arms = scratch
  n, selection = settings.players, settings.selection
  for i in range(len(pos)):  # element by element: a slice copy compiles its shape check
    pos[i] = world[i]
  # The root typed int64, not literal 0, which numba would first compile the tree kernels for.
  node, depth = np.int64(0), 0
  while True:
    for p in range(n):
      row = trees.row(tree, node, p)
      count = game[LEGAL_ACTIONS](g, pos, p, legal)
      action, probability = bandits.select(tree[1], row, legal, count, selection,
                                           np.int64(bandits.NO_FAVOURED), probabilities, rng)
      joint[p] = action
      path[depth, p, 0], path[depth, p, 1], path[depth, p, 2] = row, action, count
      path_p[depth, p] = probability
      for i in range(count):
        path_arms[depth, p, i] = legal[i]
    depth += 1
    key = hashing.fold_range(hashing.start(), joint, 0, n)
    game[PLAY](g, pos, joint)
    if pos[0] == CHANCE:
      game[SKIP_CHANCE](g, pos, rng)
      key = hashing.fold_range(key, pos, 0, len(pos))
    if pos[0] == TERMINAL:
      game[RETURNS](g, pos, values)
      break
    node, created = trees.child(tree, node, hashing.finish(key))
    if created:
      playing.playout(game, g, pos, rng, settings.playout, legal, joint, values)
      break
  objective(values, settings.from_scores)
  if settings.win:  # `pos` is the finished game
    game[RETURNS](margin_g, pos, margins)
    for p in range(n):
      values[p] += WIN_TIE_BREAK * margins[p]
  for p in range(n):
    rewards[p] = reward(values[p], settings.win, settings.margin_scale)
  for step in range(depth):
    for p in range(n):
      bandits.update(tree[1], path[step, p, 0], path[step, p, 1], rewards[p], path_p[step, p],
                     selection.kind, path_arms[step, p], path[step, p, 2])


@njit
def _add_root(tree, settings, sums):
  """Adds the searcher's root values and mixed policy to the sums."""
  value_sums, value_counts, policy_sums = sums
  node_rows, stats, _, _, _, _ = tree
  visits, rewards, available, _, strategy = stats
  row = node_rows[0, settings.searcher]
  ucb1 = settings.selection.kind == bandits.UCB1
  total, arms = 0.0, 0
  for a in range(settings.actions):
    if available[row, a]:
      total += visits[row, a] if ucb1 else strategy[row, a]
      arms += 1
  for a in range(settings.actions):
    if not available[row, a]:
      continue
    weight = visits[row, a] if ucb1 else strategy[row, a]
    policy_sums[a] += weight / total if total > 0 else 1.0 / arms
    if visits[row, a]:
      mean = rewards[row, a] / visits[row, a]
      value_sums[a] += mean if settings.win else (mean - 0.5) * 2.0 * settings.margin_scale
      value_counts[a] += 1
