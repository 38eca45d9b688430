"""Depth-limited subgame solving for Sushi Go (2 to 5 players) as kernels: Monte Carlo CFR over
the rest of the current round (or its next turns) from a set of root worlds, with leaf values from
continuation strategies (Brown, Sandholm and Amos 2018, "Depth-limited solving for
imperfect-information games").

The subgame. Its root is a chance node over `worlds`, positions drawn by the caller, world w with
weight `world_weights[w]`: an importance weight that multiplies what a walk from it adds to the
tables. The other players walk only the first `settings[OPEN_WORLDS]` worlds; when there are more,
the searcher walks those in half of its walks and the rest, its private worlds, in the other half.
The caller's use: the searcher's true hand in the private worlds, which the others must not learn
against, and beside them hands that the others think it may hold. As no other player walks the
private worlds, where the searcher's average strategy is otherwise added, the searcher's walks
there add its current strategy at the root to the root's average. Below it the players choose
simultaneously, turn after turn, until a leaf: the end of the round, the end of the game, or the
turn `stop_turn` of the round. Each player's value is its margin: its points minus the mean of the
other players' (with two players, the zero-sum difference of the two scores).

Information sets are real, not per world: a player's key at the root is its player number and the
hands it has held this round in that world (the searcher's is then the same in every world, the
others' tell worlds apart by the hands they hold), and each step folds in what the player
observes of it (`compiled.sushi_go.knowledge.observation_key`'s content within a round: every pick
and its new hand). Regrets and average weights live in flat hashed tables as in `mccfr` (slot:
the key and the action hashed, modulo the table size).

Leaves. At the end of the game the values are exact. Elsewhere, with two players, the opponent of
the searcher chooses, at an information set of its own (its key at the leaf), one of the
`continuations` (codes: the blueprint, or a compiled policy of `solvers.policy_kernels.sushi_go`); the
searcher then plays the first continuation and the opponent the chosen one to the end of the game.
With more players (general sum, where an opponent's choice is not a choice against the searcher)
there is one continuation, which every player plays. A leaf's values for continuation j are the
margins so far plus the means over `rollouts` playouts of what they gain after the leaf, memoised
in an open-addressing table: at a round's end per (world, round, Puddings), since the rounds after
it depend on the rest only through the Puddings (the deck is fixed in a world); in mid-round per
(world, path). With one continuation there is no choice.
With a salt (`settings[ROLLOUT_SALT]` >= 0) the playouts use common random numbers: playout r of
every leaf of a world, for every continuation, draws from one stream seeded by (salt, world, r).
Leaves that differ only in a few cards then see the same deals and (where the continuations
agree) the same play after them, so the differences between their values, which are what the
regrets compare, lose most of the deals' noise: between two round ends that differ in Puddings,
what is left is the Puddings' worth.

Walks: external sampling (ES: every action of the traverser, the others sampled) or probes (PROBE:
one action of the traverser followed, the others valued by a playout on the current strategies to
a leaf, as `mccfr.PROBE`). Regret matching with no positive regret plays the prior: the uniform
strategy or the blueprint's (any strategy there keeps regret matching's bound). Iteration t adds
its regrets and average weights times t (Linear CFR). Each player's objective is its own margin.

The kernels call the game's kernels, the continuations' policy kernel (`compiled.interface.GAME`)
and the heuristic of the blueprint's `cards+rank` keys (`features.VALUATION`) through function
pointers, which the entry points build from parameter arrays: none of them is compiled again into
every kernel here.
"""

from __future__ import annotations

import numpy as np

from solvers.equilibrium.kernels.features import MAX_FEATURES, action_keys, valuation_of
from solvers.equilibrium.kernels.mccfr import ES, PROBE, sample, table_strategy
from solvers.policy_kernels.sushi_go import game_functions
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.interface import (LEGAL_ACTIONS, PLAY, POLICY, POLICY_PARAMETERS,
                                              SKIP_CHANCE)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import seed_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_SIMULTANEOUS, ACTOR_TERMINAL,
                                                    HAND_SIZE, NUM_ACTIONS, PLAYERS, PUDDINGS_AT,
                                                    ROUND, TURN, TYPES)
from sushigo_spiel.compiled.sushi_go.scoring import scores

BLUEPRINT = -1  # the continuation (and prior) code of the blueprint's policy
UNIFORM = -2  # the prior code of the uniform strategy
# `settings`: the searcher, its round, the turn where leaves begin, the walk, rollouts per leaf
# estimate, the prior, the salt of the leaves' common random numbers (< 0: none), and how many of
# the first root worlds every player walks (the rest are the searcher's private worlds).
SEARCHER, ROOT_ROUND, STOP_TURN, WALK, ROLLOUTS, PRIOR, ROLLOUT_SALT, OPEN_WORLDS = range(8)
SETTINGS = 8
_LEAF_MARK = 0x1EAF  # folded into a key: the opponent's choice of continuation
_ROUND_END_MARK = 0xE0D


@njit(inline="always")
def _mix(key, value):
  return hashing.finish(hashing.fold(hashing.fold(hashing.start(), key), value))


@njit
def root_key(g, pos, player):
  """`player`'s information-set key at `pos`: its number and the hands it held this round."""
  state = hashing.fold(hashing.start(), player)
  types, first = g[TYPES], pos[ROUND] * g[HAND_SIZE]
  for turn in range(pos[TURN]):
    logged = views.logged_hands_at(g, first + turn) + player * types
    state = hashing.fold_range(state, pos, logged, logged + types)
  held = views.hand_at(g, player)
  return hashing.finish(hashing.fold_range(state, pos, held, held + types))


@njit(inline="always")
def _step_key(g, key, joint, after, player):
  """The key after a step: every pick and the player's new hand folded in."""
  state = hashing.fold_range(hashing.fold(hashing.start(), key), joint, 0, g[PLAYERS])
  held = views.hand_at(g, player)
  return hashing.finish(hashing.fold_range(state, after, held, held + g[TYPES]))


@njit(inline="always")
def _is_leaf(g, pos, settings):
  return pos[ACTOR] != ACTOR_SIMULTANEOUS or pos[ROUND] != settings[ROOT_ROUND] or \
      pos[TURN] >= settings[STOP_TURN]


@njit(inline="always")
def _margins(g, pos, out):
  """Every player's margin at `pos`: its points minus the mean of the others' (two players: the
  difference of the two scores, exactly)."""
  points = scores(g, pos)
  n = g[PLAYERS]
  if n == 2:
    out[0], out[1] = float(points[0] - points[1]), float(points[1] - points[0])
    return
  total = 0.0
  for p in range(n):
    total += points[p]
  for p in range(n):
    out[p] = points[p] - (total - points[p]) / (n - 1)


@njit(inline="always")
def _history_step(history, joint, n):
  for p in range(n):
    history = _mix(history, joint[p])
  return history


@njit
def _blueprint_strategy(g, pos, player, blueprint, valuation, legal, count, probabilities, scratch):
  """The blueprint's probabilities (its weights normalised; uniform where it has none), read with
  the keys of its abstraction (`mccfr.iterate`'s `valuation`)."""
  keys = np.empty(count, dtype=np.int64)
  action_keys(g, pos, player, legal, count, valuation, keys, scratch)
  table_strategy(blueprint, keys, count, probabilities)


@njit
def _strategy(g, pos, player, key, regrets, blueprint, valuation, prior, legal, count, slots,
              probabilities, scratch):
  """Regret matching at `player`'s information set `key` over its legal actions (slots written
  to `slots`), the prior where no regret is positive."""
  mask = len(regrets) - 1
  total = 0.0
  for i in range(count):
    slot = _mix(key, legal[i]) & mask
    slots[i] = slot
    regret = regrets[slot]
    probabilities[i] = regret if regret > 0.0 else 0.0
    total += probabilities[i]
  if total > 0.0:
    for i in range(count):
      probabilities[i] /= total
  elif prior == BLUEPRINT:
    _blueprint_strategy(g, pos, player, blueprint, valuation, legal, count, probabilities, scratch)
  else:
    for i in range(count):
      probabilities[i] = 1.0 / count


@njit
def _continuation_action(game, g, pos, player, code, blueprint, valuation, rng, legal,
                         probabilities, scratch):
  if code == BLUEPRINT:
    count = game[LEGAL_ACTIONS](g, pos, player, legal)
    _blueprint_strategy(g, pos, player, blueprint, valuation, legal, count, probabilities, scratch)
    return legal[sample(probabilities, count, rng)]
  return game[POLICY](g, pos, player, rng, legal, code, game[POLICY_PARAMETERS])


@njit
def _playout_margins(game, g, pos, searcher, own, other, blueprint, valuation, rng, scratch, out):
  """Every player's final margin (in `out`) after playing `pos` (in place) to the end, the
  searcher on continuation `own`, the others on `other`, chance sampled."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  probabilities = np.empty(g[NUM_ACTIONS])
  joint = np.empty(g[PLAYERS], dtype=np.int64)
  while True:
    game[SKIP_CHANCE](g, pos, rng)
    if pos[ACTOR] == ACTOR_TERMINAL:
      _margins(g, pos, out)
      return
    joint[searcher] = _continuation_action(game, g, pos, searcher, own, blueprint, valuation,
                                           rng, legal, probabilities, scratch)
    for p in range(g[PLAYERS]):
      if p != searcher:
        joint[p] = _continuation_action(game, g, pos, p, other, blueprint, valuation, rng, legal,
                                        probabilities, scratch)
    game[PLAY](g, pos, joint)


@njit
def _memo_slot(memo_keys, memo_used, key):
  """The memo slot of `key`: where it is, or an empty slot to put it (-1: the table is half
  full, and the value is then estimated afresh)."""
  mask = len(memo_keys) - 1
  slot = key & mask
  while memo_keys[slot] != 0:
    if memo_keys[slot] == key:
      return slot
    slot = (slot + 1) & mask
  if 2 * memo_used[0] >= len(memo_keys):
    return -1
  return slot


@njit
def _leaf_values(game, g, pos, world, history, continuations, blueprint, valuation, memo_keys,
                 memo_values, memo_used, settings, rng, scratch, out):
  """Every player's value of the leaf `pos` for each continuation j of the searcher's opponents,
  in `out[j, player]`."""
  searcher, n = settings[SEARCHER], g[PLAYERS]
  now = np.empty(n)
  _margins(g, pos, now)
  if pos[ACTOR] == ACTOR_TERMINAL:
    for j in range(len(continuations)):
      out[j, :] = now
    return
  if pos[ROUND] != settings[ROOT_ROUND]:  # a round's end: the rest depends on the Puddings
    state = hashing.fold(hashing.fold(hashing.start(), _ROUND_END_MARK), world)
    state = hashing.fold(state, pos[ROUND])
    for p in range(n):
      state = hashing.fold(state, pos[g[PUDDINGS_AT] + p])
    key = hashing.finish(state)
  else:
    key = _mix(_mix(history, world), _LEAF_MARK)
  key = key if key != 0 else 1
  slot = _memo_slot(memo_keys, memo_used, key)
  if slot >= 0 and memo_keys[slot] == key:
    for j in range(len(continuations)):
      for p in range(n):
        out[j, p] = now[p] + memo_values[slot, j, p]
    return
  rollouts, salt = settings[ROLLOUTS], settings[ROLLOUT_SALT]
  stream = rng if salt < 0 else np.empty(4, dtype=np.uint64)
  final = np.empty(n)
  for j in range(len(continuations)):
    out[j, :] = 0.0
    for r in range(rollouts):
      if salt >= 0:
        seed_state(stream, np.uint64(_mix(_mix(salt, world), r)))
      _playout_margins(game, g, pos.copy(), searcher, continuations[0], continuations[j],
                       blueprint, valuation, stream, scratch, final)
      for p in range(n):
        out[j, p] += final[p] - now[p]
    for p in range(n):
      out[j, p] /= rollouts
      if slot >= 0:
        memo_values[slot, j, p] = out[j, p]
      out[j, p] += now[p]
  if slot >= 0:
    memo_keys[slot] = key
    memo_used[0] += 1


@njit
def _leaf(game, g, pos, world, keys, history, traverser, update, weight, regrets, averages,
          blueprint, valuation, continuations, memo_keys, memo_values, memo_used, settings, rng,
          scratch):
  """The traverser's value of the leaf `pos`. With several continuations (two players only) the
  opponent of the searcher chooses one at its information set: regrets updated when it traverses
  and `update` is set, its choice sampled (and averaged when `update`) otherwise."""
  searcher = settings[SEARCHER]
  count = len(continuations)
  both = np.empty((count, g[PLAYERS]))
  _leaf_values(game, g, pos, world, history, continuations, blueprint, valuation, memo_keys,
               memo_values, memo_used, settings, rng, scratch, both)
  if count == 1 or pos[ACTOR] == ACTOR_TERMINAL:
    return both[0, traverser]
  sign = 1.0 if traverser == searcher else -1.0
  values = both[:, searcher].copy()
  chooser = 1 - searcher
  key = _mix(keys[chooser], _LEAF_MARK)
  choices = np.arange(count)
  slots, probabilities = np.empty(count, dtype=np.int64), np.empty(count)
  _strategy(g, pos, chooser, key, regrets, blueprint, valuation, UNIFORM, choices, count, slots,
            probabilities, scratch)
  if traverser == chooser and update:
    value = 0.0
    for j in range(count):
      value -= probabilities[j] * values[j]
    for j in range(count):
      regrets[slots[j]] += weight * (-values[j] - value)
    return value
  if update:
    for j in range(count):
      averages[slots[j]] += weight * probabilities[j]
  return sign * values[sample(probabilities, count, rng)]


@njit
def _probe(game, g, pos, world, keys, history, traverser, regrets, blueprint, valuation,
           continuations, memo_keys, memo_values, memo_used, settings, rng, scratch):
  """Plays `pos` (in place) to a leaf on the current strategies; the traverser's value there."""
  size = g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  n = g[PLAYERS]
  probabilities, joint = np.empty(size), np.empty(n, dtype=np.int64)
  keys = keys.copy()
  prior = settings[PRIOR]
  while not _is_leaf(g, pos, settings):
    for p in range(n):
      count = game[LEGAL_ACTIONS](g, pos, p, legal)
      _strategy(g, pos, p, keys[p], regrets, blueprint, valuation, prior, legal, count, slots,
                probabilities, scratch)
      joint[p] = legal[sample(probabilities, count, rng)]
    game[PLAY](g, pos, joint)
    history = _history_step(history, joint, n)
    for p in range(n):
      keys[p] = _step_key(g, keys[p], joint, pos, p)
  return _leaf(game, g, pos, world, keys, history, traverser, False, 0.0, regrets, regrets,
               blueprint, valuation, continuations, memo_keys, memo_values, memo_used, settings,
               rng, scratch)


@njit
def _walk(game, g, pos, world, keys, history, traverser, weight, regrets, averages, blueprint,
          valuation, continuations, memo_keys, memo_values, memo_used, settings, rng, scratch):
  """One walk (ES or PROBE, `settings[WALK]`) from `pos` for `traverser`, updating the tables;
  returns the traverser's value of `pos` under the current strategies (sampled)."""
  if _is_leaf(g, pos, settings):
    return _leaf(game, g, pos, world, keys, history, traverser, True, weight, regrets, averages,
                 blueprint, valuation, continuations, memo_keys, memo_values, memo_used,
                 settings, rng, scratch)
  size, prior, n = g[NUM_ACTIONS], settings[PRIOR], g[PLAYERS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities, values = np.empty(size), np.empty(size)
  joint = np.empty(n, dtype=np.int64)
  for other in range(n):
    if other == traverser:
      continue
    count = game[LEGAL_ACTIONS](g, pos, other, legal)
    _strategy(g, pos, other, keys[other], regrets, blueprint, valuation, prior, legal, count,
              slots, probabilities, scratch)
    for i in range(count):
      averages[slots[i]] += weight * probabilities[i]
    joint[other] = legal[sample(probabilities, count, rng)]
  count = game[LEGAL_ACTIONS](g, pos, traverser, legal)
  _strategy(g, pos, traverser, keys[traverser], regrets, blueprint, valuation, prior, legal, count,
            slots, probabilities, scratch)
  followed = pick_uniformly(count, rng) if settings[WALK] == PROBE else -1
  child_keys = np.empty(n, dtype=np.int64)
  value = 0.0
  for i in range(count):
    child = pos.copy()
    joint[traverser] = legal[i]
    game[PLAY](g, child, joint)
    child_history = _history_step(history, joint, n)
    for p in range(n):
      child_keys[p] = _step_key(g, keys[p], joint, child, p)
    if settings[WALK] == ES or i == followed:
      values[i] = _walk(game, g, child, world, child_keys, child_history, traverser, weight,
                        regrets, averages, blueprint, valuation, continuations, memo_keys,
                        memo_values, memo_used, settings, rng, scratch)
    else:
      values[i] = _probe(game, g, child, world, child_keys, child_history, traverser, regrets,
                         blueprint, valuation, continuations, memo_keys, memo_values,
                         memo_used, settings, rng, scratch)
    value += probabilities[i] * values[i]
  for i in range(count):
    regrets[slots[i]] += weight * (values[i] - value)
  return value


def iterate(g, worlds, world_weights, root_keys, regrets, averages, blueprint, blueprint_params,
            continuations, params, memo_keys, memo_values, memo_used, settings, first, count, rng):
  """Iterations `first + 1` .. `first + count` of the subgame's MCCFR: for each player as the
  traverser, a world drawn uniformly from the first `settings[OPEN_WORLDS]` of `worlds` (rows:
  positions), or for the searcher from the others (its private worlds) in half of its walks when
  there are any, and one walk from it, weighted by t times the world's weight (`world_weights`).
  `root_keys[w, p]` is player p's key at world w's root; `blueprint` and `blueprint_params` are
  the blueprint's table and the heuristic's parameters of its abstraction (`mccfr.iterate`);
  `params` are those of the continuations' policies."""
  _iterate(game_functions(params), g, worlds, world_weights, root_keys, regrets, averages,
           blueprint, valuation_of(blueprint_params), continuations, memo_keys, memo_values,
           memo_used, settings, first, count, rng)


def blueprint_strategy(g, pos, player, blueprint, blueprint_params, legal, count, probabilities):
  """The blueprint's probabilities of the `count` legal actions `legal` as the subgame reads them
  (its prior and continuation), in `probabilities` (for tests and inspection)."""
  _blueprint_entry(g, pos, player, blueprint, valuation_of(blueprint_params), legal, count,
                   probabilities)


def leaf_values(g, pos, world, continuations, blueprint, blueprint_params, params, settings, rng):
  """Every player's value (`out[j, player]`) of the leaf `pos` of world number `world` for each
  continuation j of the searcher's (`settings[SEARCHER]`) opponents, estimated afresh (for tests
  and inspection)."""
  out = np.empty((len(continuations), g[PLAYERS]))
  _leaf_entry(game_functions(params), g, pos, world, continuations, blueprint,
              valuation_of(blueprint_params), settings, rng, out)
  return out


@njit
def _leaf_entry(game, g, pos, world, continuations, blueprint, valuation, settings, rng, out):
  memo_keys = np.zeros(2, dtype=np.int64)
  memo_used = np.ones(1, dtype=np.int64)  # half full: nothing memoised
  _leaf_values(game, g, pos, world, np.int64(0), continuations, blueprint, valuation, memo_keys,
               np.zeros((2, len(continuations), g[PLAYERS])), memo_used, settings, rng,
               np.zeros(MAX_FEATURES, dtype=np.int64), out)


@njit
def _blueprint_entry(g, pos, player, blueprint, valuation, legal, count, probabilities):
  _blueprint_strategy(g, pos, player, blueprint, valuation, legal, count, probabilities,
                      np.zeros(MAX_FEATURES, dtype=np.int64))


@njit
def _iterate(game, g, worlds, world_weights, root_keys, regrets, averages, blueprint, valuation,
             continuations, memo_keys, memo_values, memo_used, settings, first, count, rng):
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)
  searcher, shared = settings[SEARCHER], settings[OPEN_WORLDS]
  size = g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities = np.empty(size)
  for t in range(first + 1, first + count + 1):
    for traverser in range(g[PLAYERS]):
      private = traverser == searcher and shared < len(worlds) and pick_uniformly(2, rng) == 0
      if private:
        world = shared + pick_uniformly(len(worlds) - shared, rng)
      else:
        world = pick_uniformly(shared, rng)
      weight = float(t) * world_weights[world]
      pos = worlds[world].copy()
      if private:  # no other player walks these worlds: the searcher's root average is kept here
        actions = game[LEGAL_ACTIONS](g, pos, searcher, legal)
        _strategy(g, pos, searcher, root_keys[world, searcher], regrets, blueprint, valuation,
                  settings[PRIOR], legal, actions, slots, probabilities, scratch)
        for i in range(actions):
          averages[slots[i]] += weight * probabilities[i]
      _walk(game, g, pos, world, root_keys[world].copy(), np.int64(world), traverser, weight,
            regrets, averages, blueprint, valuation, continuations, memo_keys, memo_values,
            memo_used, settings, rng, scratch)


@njit
def root_weights(g, key, table, legal):
  """The weights of `legal` at the information set `key` in `table` (regrets or averages)."""
  mask = len(table) - 1
  out = np.empty(len(legal))
  for i in range(len(legal)):
    out[i] = table[_mix(key, legal[i]) & mask]
  return out
