"""Depth-limited subgame solving for Sushi Go (2 to 5 players) as kernels: Monte Carlo CFR over the
rest of the current round (or its next turns) from a set of root worlds, with leaf values from
continuation strategies (Brown, Sandholm and Amos 2018).

The root is a chance node over the caller's `Worlds`, each with an importance weight; the others
walk only the first `settings.open_worlds`, the searcher also its private worlds beyond them. A
leaf is the round's end, the game's end or `settings.stop_turn`. Each player's value is its margin
(points less the others' mean), or with `settings.win` its win share less 1/n plus `WIN_TIE_BREAK`
times its margin. Information sets are real, not per world; regrets and average weights live in
hashed tables as in `mccfr`. Leaf values are the margin so far plus the mean of
`settings.rollouts` playouts of the `Strategies`' continuations (memoised in `Memo`; common random
numbers with `settings.rollout_salt` >= 0). Walks ES or PROBE, Linear CFR, regret matching falling
back to the prior. One `Solve` holds `Settings`, `Strategies`, `Tables`, `Memo` and the stream;
callees are reached through function pointers, compiled once. The method, and why each choice:
docs/subgame.md (belief, root, leaves, walks).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from solvers.equilibrium.kernels.features import (MAX_FEATURES, VALUATION, action_keys,
                                                   valuation_of)
from solvers.equilibrium.kernels.named_tuples import cached_type
from solvers.equilibrium.kernels.mccfr import ES, PROBE, sample, table_strategy
from solvers.policy_kernels.sushi_go import game_functions
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.interface import (ACTIONS, GAME, LEGAL_ACTIONS, PLAY, POLICY,
                                              POLICY_PARAMETERS, POSITION, SKIP_CHANCE, SPEC,
                                              STREAM, VALUES, FunctionPointer, pointer)
from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import seed_state
from sushigo_spiel.compiled.sampling import pick_uniformly
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_SIMULTANEOUS, ACTOR_TERMINAL,
                                                    HAND_SIZE, NUM_ACTIONS, PLAYERS, PUDDINGS_AT,
                                                    ROUND, TURN, TYPES)
from sushigo_spiel.compiled.sushi_go.scoring import returns, scores
from sushigo_spiel.compiled.utilities import WIN_TIE_BREAK

BLUEPRINT = -1  # the continuation (and prior) code of the blueprint's policy
UNIFORM = -2  # the prior code of the uniform strategy
_LEAF_MARK = 0x1EAF  # folded into a key: the opponent's choice of continuation
_ROUND_END_MARK = 0xE0D


@cached_type
class Settings(NamedTuple):
  """A solve's settings (integers): the `searcher`, its round (`root_round`), the turn where
  leaves begin (`stop_turn`), the `walk` (`mccfr.ES` or `mccfr.PROBE`), `rollouts` per leaf
  estimate, the `prior` (BLUEPRINT or UNIFORM), the salt of the leaves' common random numbers
  (`rollout_salt`, < 0: none), how many of the first root worlds every player walks
  (`open_worlds`; the rest are the searcher's private worlds), and the objective (`win`: 1 for
  the win value, on a spec with `utility=win`; 0 for the margin)."""
  searcher: int
  root_round: int
  stop_turn: int
  walk: int
  rollouts: int
  prior: int
  rollout_salt: int
  open_worlds: int
  win: int

  def typed(self) -> Settings:
    """The same settings as Python integers, the one type the kernels are compiled for."""
    return Settings(*(int(value) for value in self))


@cached_type
class Strategies(NamedTuple):
  """The strategies a solve reads: the blueprint's table (`blueprint`, its average weights) and
  the keys of its abstraction (`valuation`, a `features.VALUATION`), the leaves' `continuations`
  (codes, the searcher's first), and how the blueprint's probabilities are read
  (`blueprint_strategy`, the pointer `BLUEPRINT_STRATEGY`). Built by `strategies`."""
  blueprint: np.ndarray
  valuation: np.ndarray
  continuations: np.ndarray
  blueprint_strategy: FunctionPointer


@cached_type
class Tables(NamedTuple):
  """A solve's hashed tables, of one power-of-two size: regrets and average weights."""
  regrets: np.ndarray
  averages: np.ndarray


@cached_type
class Memo(NamedTuple):
  """The leaf estimates memoised in a solve: open-addressing `keys` (0: empty; a power of two of
  them), their `values` [slot, continuation, player], and how many are `used` (one count)."""
  keys: np.ndarray
  values: np.ndarray
  used: np.ndarray


@cached_type
class Worlds(NamedTuple):
  """The subgame's root: the worlds' `positions` (rows), their `weights`, and each player's key at
  each (`keys[w, p]`, `root_key`)."""
  positions: np.ndarray
  weights: np.ndarray
  keys: np.ndarray


@cached_type
class Solve(NamedTuple):
  """Everything a solve's walks read and write but the worlds: its settings, the strategies it
  reads, its tables and memo, and its random stream (`rng`, consumed in place)."""
  settings: Settings
  strategies: Strategies
  tables: Tables
  memo: Memo
  rng: np.ndarray


# The signatures of `_blueprint_strategy` and `_leaf_values`, by which the walks call them through
# function pointers (`BLUEPRINT_STRATEGY`, `LEAF_VALUES`); the named tuples' numba types, typed
# field by field.
BLUEPRINT_STRATEGY_SIGNATURE = types.void(SPEC, POSITION, types.int64, VALUES, VALUATION, ACTIONS,
                                          types.int64, VALUES, ACTIONS)
SETTINGS_TYPE = types.NamedUniTuple(types.int64, len(Settings._fields), Settings)
STRATEGIES_TYPE = types.NamedTuple(
    (VALUES, VALUATION, ACTIONS, types.FunctionType(BLUEPRINT_STRATEGY_SIGNATURE)), Strategies)
SOLVE_TYPE = types.NamedTuple(
    (SETTINGS_TYPE, STRATEGIES_TYPE, types.NamedUniTuple(VALUES, 2, Tables),
     types.NamedTuple((ACTIONS, types.float64[:, :, ::1], ACTIONS), Memo), STREAM), Solve)
WORLDS_TYPE = types.NamedTuple((types.int32[:, ::1], VALUES, types.int64[:, ::1]), Worlds)
LEAF_VALUES_SIGNATURE = types.void(GAME, SPEC, POSITION, types.int64, types.int64, SOLVE_TYPE,
                                   ACTIONS, types.float64[:, ::1])


def new_memo(bits: int, continuations: int, players: int) -> Memo:
  """An empty memo of 2**bits slots for `continuations` continuations and `players` players."""
  return Memo(np.zeros(1 << bits, dtype=np.int64), np.zeros((1 << bits, continuations, players)),
              np.zeros(1, dtype=np.int64))


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
  return pos[ACTOR] != ACTOR_SIMULTANEOUS or pos[ROUND] != settings.root_round or \
      pos[TURN] >= settings.stop_turn


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
def _values(g, pos, win, out):
  """Every player's value at `pos`: its margin (`_margins`), or with `win` its win share less
  1/n plus `WIN_TIE_BREAK` times its margin at the game's end (the spec's utility must be win)
  and 0 before it."""
  _margins(g, pos, out)
  if not win:
    return
  if pos[ACTOR] != ACTOR_TERMINAL:
    out[:] = 0.0
    return
  shares = np.empty(g[PLAYERS])
  returns(g, pos, shares)
  for p in range(g[PLAYERS]):
    out[p] = shares[p] - 1.0 / g[PLAYERS] + WIN_TIE_BREAK * out[p]


@njit(inline="always")
def _history_step(history, joint, n):
  for p in range(n):
    history = _mix(history, joint[p])
  return history


@njit
def _blueprint_strategy(g, pos, player, blueprint, valuation, legal, count, probabilities, scratch):
  """The blueprint's probabilities (its weights normalised; uniform where it has none), read with
  the keys of its abstraction (`valuation`, a `features.VALUATION`)."""
  keys = np.empty(count, dtype=np.int64)
  action_keys(g, pos, player, legal, count, valuation, keys, scratch)
  table_strategy(blueprint, keys, count, probabilities)


@njit
def _strategy(g, pos, player, key, solve, prior, legal, count, slots, probabilities, scratch):
  """Regret matching at `player`'s information set `key` over its legal actions (slots written
  to `slots`) on the solve's regrets, the prior where no regret is positive."""
  regrets, strategies = solve.tables.regrets, solve.strategies
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
    strategies.blueprint_strategy(g, pos, player, strategies.blueprint, strategies.valuation,
                                  legal, count, probabilities, scratch)
  else:
    for i in range(count):
      probabilities[i] = 1.0 / count


@njit
def _continuation_action(game, g, pos, player, code, strategies, rng, legal, probabilities,
                         scratch):
  if code == BLUEPRINT:
    count = game[LEGAL_ACTIONS](g, pos, player, legal)
    strategies.blueprint_strategy(g, pos, player, strategies.blueprint, strategies.valuation,
                                  legal, count, probabilities, scratch)
    return legal[sample(probabilities, count, rng)]
  return game[POLICY](g, pos, player, rng, legal, code, game[POLICY_PARAMETERS])


@njit
def _playout_values(game, g, pos, searcher, own, other, strategies, win, rng, scratch, out):
  """Every player's final value (`_values`, in `out`) after playing `pos` (in place) to the end,
  the searcher on continuation `own`, the others on `other`, chance sampled."""
  legal = np.empty(g[NUM_ACTIONS], dtype=np.int64)
  probabilities = np.empty(g[NUM_ACTIONS])
  joint = np.empty(g[PLAYERS], dtype=np.int64)
  while True:
    game[SKIP_CHANCE](g, pos, rng)
    if pos[ACTOR] == ACTOR_TERMINAL:
      _values(g, pos, win, out)
      return
    joint[searcher] = _continuation_action(game, g, pos, searcher, own, strategies, rng, legal,
                                           probabilities, scratch)
    for p in range(g[PLAYERS]):
      if p != searcher:
        joint[p] = _continuation_action(game, g, pos, p, other, strategies, rng, legal,
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
def _leaf_values(game, g, pos, world, history, solve, scratch, out):
  """Every player's value of the leaf `pos` for each continuation j of the searcher's opponents,
  in `out[j, player]`."""
  settings, strategies, memo = solve.settings, solve.strategies, solve.memo
  continuations = strategies.continuations
  searcher, n = settings.searcher, g[PLAYERS]
  now = np.empty(n)
  _values(g, pos, settings.win, now)
  if pos[ACTOR] == ACTOR_TERMINAL:
    for j in range(len(continuations)):
      for p in range(n):  # element by element: a row copy compiles its shape check
        out[j, p] = now[p]
    return
  if pos[ROUND] != settings.root_round:  # a round's end: the rest depends on the Puddings
    state = hashing.fold(hashing.fold(hashing.start(), _ROUND_END_MARK), world)
    state = hashing.fold(state, pos[ROUND])
    for p in range(n):
      state = hashing.fold(state, pos[g[PUDDINGS_AT] + p])
    if settings.win:  # who wins depends on the scores so far too
      points = scores(g, pos)
      for p in range(n):
        state = hashing.fold(state, points[p])
    key = hashing.finish(state)
  else:
    key = _mix(_mix(history, world), _LEAF_MARK)
  key = key if key != 0 else 1
  slot = _memo_slot(memo.keys, memo.used, key)
  if slot >= 0 and memo.keys[slot] == key:
    for j in range(len(continuations)):
      for p in range(n):
        out[j, p] = now[p] + memo.values[slot, j, p]
    return
  rollouts, salt = settings.rollouts, settings.rollout_salt
  stream = solve.rng if salt < 0 else np.empty(4, dtype=np.uint64)
  final = np.empty(n)
  for j in range(len(continuations)):
    out[j, :] = 0.0
    for r in range(rollouts):
      if salt >= 0:
        seed_state(stream, np.uint64(_mix(_mix(salt, world), r)))
      _playout_values(game, g, pos.copy(), searcher, continuations[0], continuations[j],
                      strategies, settings.win, stream, scratch, final)
      for p in range(n):
        out[j, p] += final[p] - now[p]
    for p in range(n):
      out[j, p] /= rollouts
      if slot >= 0:
        memo.values[slot, j, p] = out[j, p]
      out[j, p] += now[p]
  if slot >= 0:
    memo.keys[slot] = key
    memo.used[0] += 1


@njit
def _leaf(game, g, pos, world, keys, history, traverser, update, weight, solve, scratch,
          leaf_values):
  """The traverser's value of the leaf `pos`. With several continuations (two players only) the
  opponent of the searcher chooses one at its information set: regrets updated when it traverses
  and `update` is set, its choice sampled (and averaged when `update`) otherwise."""
  searcher = solve.settings.searcher
  regrets, averages = solve.tables
  count = len(solve.strategies.continuations)
  both = np.empty((count, g[PLAYERS]))
  leaf_values(game, g, pos, world, history, solve, scratch, both)
  if count == 1 or pos[ACTOR] == ACTOR_TERMINAL:
    return both[0, traverser]
  sign = 1.0 if traverser == searcher else -1.0
  values = both[:, searcher].copy()
  chooser = 1 - searcher
  key = _mix(keys[chooser], _LEAF_MARK)
  choices = np.arange(count)
  slots, probabilities = np.empty(count, dtype=np.int64), np.empty(count)
  _strategy(g, pos, chooser, key, solve, np.int64(UNIFORM), choices, count, slots, probabilities,
            scratch)  # the prior typed int64, not as the literal UNIFORM: one compile of _strategy
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
  return sign * values[sample(probabilities, count, solve.rng)]


@njit
def _probe(game, g, pos, world, keys, history, traverser, solve, scratch, leaf_values):
  """Plays `pos` (in place) to a leaf on the current strategies; the traverser's value there."""
  size = g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  n = g[PLAYERS]
  probabilities, joint = np.empty(size), np.empty(n, dtype=np.int64)
  keys = keys.copy()
  settings, rng = solve.settings, solve.rng
  prior = settings.prior
  while not _is_leaf(g, pos, settings):
    for p in range(n):
      count = game[LEGAL_ACTIONS](g, pos, p, legal)
      _strategy(g, pos, p, keys[p], solve, prior, legal, count, slots, probabilities, scratch)
      joint[p] = legal[sample(probabilities, count, rng)]
    game[PLAY](g, pos, joint)
    history = _history_step(history, joint, n)
    for p in range(n):
      keys[p] = _step_key(g, keys[p], joint, pos, p)
  return _leaf(game, g, pos, world, keys, history, traverser, np.bool_(False), 0.0, solve,
               scratch, leaf_values)  # typed boolean, not literal: one compile for both callers


@njit
def _walk(game, g, pos, world, keys, history, traverser, weight, solve, scratch, leaf_values):
  """One walk (ES or PROBE, `settings.walk`) from `pos` for `traverser`, updating the tables;
  returns the traverser's value of `pos` under the current strategies (sampled)."""
  settings = solve.settings
  if _is_leaf(g, pos, settings):
    return _leaf(game, g, pos, world, keys, history, traverser, np.bool_(True), weight, solve,
                 scratch, leaf_values)  # typed boolean, not literal, as in _probe
  size, prior, n = g[NUM_ACTIONS], settings.prior, g[PLAYERS]
  regrets, averages = solve.tables
  rng = solve.rng
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities, values = np.empty(size), np.empty(size)
  joint = np.empty(n, dtype=np.int64)
  for other in range(n):
    if other == traverser:
      continue
    count = game[LEGAL_ACTIONS](g, pos, other, legal)
    _strategy(g, pos, other, keys[other], solve, prior, legal, count, slots, probabilities,
              scratch)
    for i in range(count):
      averages[slots[i]] += weight * probabilities[i]
    joint[other] = legal[sample(probabilities, count, rng)]
  count = game[LEGAL_ACTIONS](g, pos, traverser, legal)
  _strategy(g, pos, traverser, keys[traverser], solve, prior, legal, count, slots, probabilities,
            scratch)
  followed = pick_uniformly(count, rng) if settings.walk == PROBE else -1
  child_keys = np.empty(n, dtype=np.int64)
  value = 0.0
  for i in range(count):
    child = pos.copy()
    joint[traverser] = legal[i]
    game[PLAY](g, child, joint)
    child_history = _history_step(history, joint, n)
    for p in range(n):
      child_keys[p] = _step_key(g, keys[p], joint, child, p)
    if settings.walk == ES or i == followed:
      values[i] = _walk(game, g, child, world, child_keys, child_history, traverser, weight,
                        solve, scratch, leaf_values)
    else:
      values[i] = _probe(game, g, child, world, child_keys, child_history, traverser, solve,
                         scratch, leaf_values)
    value += probabilities[i] * values[i]
  for i in range(count):
    regrets[slots[i]] += weight * (values[i] - value)
  return value


def strategies(blueprint, blueprint_params, continuations) -> Strategies:
  """The `Strategies` of a blueprint with table `blueprint` and the heuristic's parameters of its
  abstraction `blueprint_params` (`mccfr.Settings.valuation`), and of the leaves'
  `continuations` (codes)."""
  return Strategies(blueprint, valuation_of(blueprint_params),
                    np.asarray(continuations, dtype=np.int64), BLUEPRINT_STRATEGY)


def iterate(g, worlds, solve, params, first, count):
  """Iterations `first + 1` .. `first + count` of the subgame's MCCFR on `solve` (a `Solve`):
  for each player as the traverser, a world drawn uniformly from the first
  `solve.settings.open_worlds` of `worlds` (a `Worlds`), or for the searcher from the others (its
  private worlds) in half of its walks when there are any, and one walk from it, weighted by t
  times the world's weight. `params` are the continuations' policies' parameters."""
  _iterate(game_functions(params), g, worlds, _typed(solve), first, count, LEAF_VALUES)


def blueprint_strategy(g, pos, player, blueprint, blueprint_params, legal, count, probabilities):
  """The blueprint's probabilities of the `count` legal actions `legal` as the subgame reads them
  (its prior and continuation), in `probabilities` (for tests and inspection)."""
  _blueprint_strategy(g, pos, player, blueprint, valuation_of(blueprint_params), legal, count,
                      probabilities, np.zeros(MAX_FEATURES, dtype=np.int64))


def leaf_values(g, pos, world, strategies, params, settings, rng):
  """Every player's value (`out[j, player]`) of the leaf `pos` of world number `world` for each
  continuation j (of `strategies`, a `Strategies`) of the searcher's (`settings.searcher`)
  opponents, estimated afresh with `settings` (a `Settings`) and the stream `rng`."""
  out = np.empty((len(strategies.continuations), g[PLAYERS]))
  _leaf_entry(game_functions(params), g, pos, world, settings.typed(), strategies, rng, out,
              LEAF_VALUES)
  return out


def _typed(solve: Solve) -> Solve:
  """`solve` with its settings as the kernels are compiled for them (`Settings.typed`)."""
  return solve._replace(settings=solve.settings.typed())


@njit
def _leaf_entry(game, g, pos, world, settings, strategies, rng, out, leaf_values):
  n, continuations = g[PLAYERS], len(strategies.continuations)
  memo = Memo(np.zeros(2, dtype=np.int64), np.zeros((2, continuations, n)),
              np.ones(1, dtype=np.int64))  # half full: nothing memoised
  solve = Solve(settings, strategies, Tables(np.zeros(0), np.zeros(0)), memo, rng)
  leaf_values(game, g, pos, world, np.int64(0), solve, np.zeros(MAX_FEATURES, dtype=np.int64),
              out)


@njit
def _iterate(game, g, worlds, solve, first, count, leaf_values):
  scratch = np.zeros(MAX_FEATURES, dtype=np.int64)
  settings, rng = solve.settings, solve.rng
  searcher, shared = settings.searcher, settings.open_worlds
  positions, root_keys = worlds.positions, worlds.keys
  size = g[NUM_ACTIONS]
  legal, slots = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
  probabilities = np.empty(size)
  for t in range(first + 1, first + count + 1):
    for traverser in range(g[PLAYERS]):
      private = traverser == searcher and shared < len(positions) and pick_uniformly(2, rng) == 0
      if private:
        world = shared + pick_uniformly(len(positions) - shared, rng)
      else:
        world = pick_uniformly(shared, rng)
      weight = float(t) * worlds.weights[world]
      pos = positions[world].copy()
      if private:  # no other player walks these worlds: the searcher's root average is kept here
        actions = game[LEGAL_ACTIONS](g, pos, searcher, legal)
        _strategy(g, pos, searcher, root_keys[world, searcher], solve, settings.prior, legal,
                  actions, slots, probabilities, scratch)
        for i in range(actions):
          solve.tables.averages[slots[i]] += weight * probabilities[i]
      _walk(game, g, pos, world, root_keys[world].copy(), np.int64(world), traverser, weight,
            solve, scratch, leaf_values)


@njit
def root_weights(g, key, table, legal):
  """The weights of `legal` at the information set `key` in `table` (regrets or averages)."""
  mask = len(table) - 1
  out = np.empty(len(legal))
  for i in range(len(legal)):
    out[i] = table[_mix(key, legal[i]) & mask]
  return out


# `_leaf_values` as the function pointer the walks take: linked into them, its code (the leaves'
# playouts, their policies' and the blueprint's) was optimised again at every level of the walk.
LEAF_VALUES = pointer(_leaf_values, LEAF_VALUES_SIGNATURE)
# `_blueprint_strategy` as the function pointer `Strategies` carry: linked, its code (the features'
# keys) was optimised again in the regret matching, the continuations and every level above them.
BLUEPRINT_STRATEGY = pointer(_blueprint_strategy, BLUEPRINT_STRATEGY_SIGNATURE)
