"""Information-Set MCTS as kernels: whole iterations over a preallocated tree (`tree.py`).

Tested against its reference, `solvers.search.ismcts_engines.PythonISMCTS` (the algorithm, and
docs/search.md): the same iteration, determinize, descend one tree of information sets per owner,
expand, play out (`playing.py`), back every bandit on the path up (`bandits.py`), with uniforms
drawn in the reference's order, so that both keep the same statistics from one stream.

`run` does up to `iterations` iterations and returns how many it did: fewer when the tree has no
room for the next one, for Python to grow it (numba has no clock: `searches.py` times batches).
The game is the first argument (`game.py`); the settings are one `Settings`, a NamedTuple of
scalars (and of `bandits.Selection`, `playing.PlayoutPolicies`), chosen over a record array:
numba passes it by value, its fields typed once, where a record array is read through memory
(the ISMCTS bots' iterations/s before and after: docs/speed.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.search.kernels import bandits, playing
from solvers.search.kernels import tree as trees
from sushigo_spiel.compiled.interface import (DETERMINIZE, LEGAL_ACTIONS, OBSERVATION_KEY, PLAY,
                                              POLICY, POLICY_PARAMETERS, RETURNS, SKIP_CHANCE)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.drafting.dynamics import TERMINAL

NO_POLICY = playing.NO_POLICY


class Settings(NamedTuple):
  """One search's settings. `prior` and `model` are policy codes or NO_POLICY; with `margin` the
  bandits learn margins (`playing.reward`, taken from the scores when `from_scores`), else the
  utility less `offset` times `scale`, plus `tie_break` times the margin (the win objective's
  `compiled.utilities.WIN_TIE_BREAK`, 0 otherwise)."""
  selection: bandits.Selection
  playout: playing.PlayoutPolicies
  players: int
  searcher: int
  prior: int
  model: int
  margin: bool
  from_scores: bool
  offset: float
  scale: float
  margin_scale: float
  tie_break: float
  max_depth: int
  actions: int


@njit
def run(game, g, margin_g, root, owners, settings, tree, rng, iterations):
  """Up to `iterations` iterations from `root` (a position at a simultaneous node); returns how
  many were done. `owners[t]` is the owner of tree t, the searcher first; `margin_g` is the spec
  of the game scored by margins (`game.SearchGame.margin_spec`), read when `settings.tie_break`."""
  n, depth = settings.players, settings.max_depth
  scratch = _scratch(n, depth, settings.actions, len(root))
  for done in range(iterations):
    if not trees.has_room(tree, len(owners), depth * n):
      return done
    _iterate(game, g, margin_g, root, owners, settings, tree, rng, scratch)
  return iterations


@njit
def _scratch(players, depth, actions, size):
  """The buffers one iteration works in: legal actions (and the prior's), the joint action, the
  position before a step, utilities, margins, and the path (row, player, action, probability,
  arms)."""
  return (np.empty(actions, dtype=np.int64), np.empty(actions, dtype=np.int64),
          np.empty(players, dtype=np.int64), np.empty(size, dtype=np.int32),
          np.empty(players), np.zeros(players), np.empty(actions),
          np.empty((depth * players, 4), dtype=np.int64), np.empty(depth * players),
          np.empty((depth * players, actions), dtype=np.int64))


@njit
def _iterate(game, g, margin_g, root, owners, settings, tree, rng, scratch):
  legal, spare, joint, before, utilities, margins, probabilities, path, path_p, path_arms = \
      scratch
  n, me, model, prior = settings.players, settings.searcher, settings.model, settings.prior
  selection = settings.selection
  nodes = np.arange(len(owners))
  world = game[DETERMINIZE](g, root, me, rng, game[PLAY])
  steps = 0
  while True:
    for p in range(n):
      if model != NO_POLICY and p != me:
        joint[p] = game[POLICY](g, world, p, rng, spare, model, game[POLICY_PARAMETERS])
        continue
      node = nodes[_tree_of(owners, p)]
      row = trees.row(tree, node, p)
      count = game[LEGAL_ACTIONS](g, world, p, legal)
      favoured = np.int64(bandits.NO_FAVOURED)  # int64 from the start: no compile of select for -1
      if prior != NO_POLICY:
        favoured = game[POLICY](g, world, p, rng, spare, prior, game[POLICY_PARAMETERS])
      action, probability = bandits.select(tree[1], row, legal, count, selection, favoured,
                                           probabilities, rng)
      joint[p] = action
      path[steps, 0], path[steps, 1], path[steps, 2], path[steps, 3] = row, p, action, count
      for i in range(count):  # element by element: a slice copy compiles its shape check
        path_arms[steps, i] = legal[i]
      path_p[steps] = probability
      steps += 1
    for i in range(len(world)):
      before[i] = world[i]
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
      playing.playout(game, g, world, rng, settings.playout, spare, joint, utilities)
      break
  if settings.margin:
    playing.objective(utilities, settings.from_scores)
  elif settings.tie_break:
    game[RETURNS](margin_g, world, margins)  # `world` is the finished game
  for step in range(steps):
    row, p, action, count = path[step, 0], path[step, 1], path[step, 2], path[step, 3]
    reward = (playing.reward(utilities[p], False, settings.margin_scale) if settings.margin
              else (utilities[p] - settings.offset) * settings.scale +
              settings.tie_break * margins[p])
    bandits.update(tree[1], row, action, reward, path_p[step], selection.kind, path_arms[step],
                   count)


@njit(inline="always")
def _tree_of(owners, player):
  """The tree `player` chooses in: its own when it owns one, else the searcher's."""
  for t in range(len(owners)):
    if owners[t] == player:
      return t
  return 0
