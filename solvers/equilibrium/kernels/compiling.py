"""Compiling the CFR kernels on first use: one `KernelSet`, exercised on the standard game.

The entry kernels that take function pointers (a game's `compiled.interface.GAME` tuple, the
heuristic's `features.VALUATION`) are compiled for their one signature each and then closed to
others: a call with those kernels then converts them to pointers rather than compiling anew for
those very functions (which numba could not cache, and which would compile them into the caller).
"""

from __future__ import annotations

import pathlib

import numpy as np
from numba import types

from solvers.equilibrium.kernels import features, mccfr, subgame
from solvers.policy_kernels import heuristic, sushi_go
from solvers.policy_kernels.compiling import KERNELS as POLICY_KERNELS
from sushigo_spiel.compiled import interface
from sushigo_spiel.compiled.interface import ACTIONS, GAME, POSITION, SPEC, STREAM, VALUES
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import knowledge
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_go.layout import NUM_ACTIONS, build_spec
from sushigo_spiel.compiled.sushi_go.moves import legal_actions, play
from sushigo_spiel.sushi_go.rules import Rules

_INT, _VALUATION = types.int64, features.VALUATION
# The named tuples' numba types: tuples with named fields, typed field by field.
_TABLES = types.NamedUniTuple(VALUES, 3, mccfr.Tables)
_SETTINGS, _STRATEGIES = subgame.SETTINGS_TYPE, subgame.STRATEGIES_TYPE
_SOLVE, _WORLDS = subgame.SOLVE_TYPE, subgame.WORLDS_TYPE
_ENTRIES = {
    mccfr._iterate: types.void(GAME, SPEC, _TABLES, _INT, types.boolean, _INT, _INT, _INT,
                               _VALUATION, types.FunctionType(mccfr.STRATEGY_SIGNATURE)),
    mccfr._policy_weights: VALUES(SPEC, POSITION, _INT, VALUES, ACTIONS, _VALUATION),
    features._ranked_features_of: ACTIONS(SPEC, POSITION, _INT, _VALUATION, _INT),
    subgame._iterate: types.void(GAME, SPEC, _WORLDS, _SOLVE, _INT, _INT,
                                 types.FunctionType(subgame.LEAF_VALUES_SIGNATURE)),
    subgame._leaf_entry: types.void(GAME, SPEC, POSITION, _INT, _SETTINGS, _STRATEGIES, STREAM,
                                    types.float64[:, ::1],
                                    types.FunctionType(subgame.LEAF_VALUES_SIGNATURE)),
}


def _setup() -> None:
  """Compiles the entry kernels taking function pointers for their signatures and closes them."""
  for kernel, signature in _ENTRIES.items():
    kernel.compile(signature)
    kernel.disable_compile()


def _exercise() -> None:
  """Calls every entry the package calls once (with either abstraction) with the argument types
  used (`features_of` and `keys_of`, for tests and inspection, compile on their first call)."""
  spec = build_spec(Rules.from_params(players=2, hand_size=3, rounds=1))
  params = np.ones(heuristic.PARAMETERS_SIZE)
  pos = initial_position(spec)
  skip_chance(spec, pos, new_state(0))
  actions = np.zeros(1, dtype=np.int64)
  for valuation in (np.zeros(0), params):
    tables = mccfr.Tables(np.zeros(256), np.zeros(256), np.zeros(256))
    for walk in mccfr.WALKS.values():
      mccfr.iterate(spec, tables, mccfr.Settings(walk, True, valuation), 0, 1, 0)
    averages = tables.averages
    mccfr.policy_weights(spec, pos, 0, averages, actions, valuation)
    _exercise_subgame(spec, valuation, params)
  features.ranked_features_of(spec, pos, 0, params, 0)


def _exercise_subgame(spec, valuation, params) -> None:
  rng = new_state(0)
  pos = initial_position(spec)
  skip_chance(spec, pos, rng)
  worlds = np.stack([pos, knowledge.determinize(spec, pos, 0, rng,
                                                interface.play_pointer(play))])
  root_keys = np.array([[subgame.root_key(spec, w, p) for p in range(2)] for w in worlds])
  settings = subgame.Settings(searcher=0, root_round=0, stop_turn=99, walk=mccfr.ES, rollouts=1,
                              prior=subgame.BLUEPRINT, rollout_salt=0, open_worlds=1,
                              win=0)
  blueprint = np.zeros(256)
  strategies = subgame.strategies(blueprint, valuation, [subgame.BLUEPRINT, sushi_go.GREEDY])
  tables = subgame.Tables(np.zeros(256), np.zeros(256))
  solve = subgame.Solve(settings, strategies, tables, subgame.new_memo(6, 2, 2), rng)
  subgame.iterate(spec, subgame.Worlds(worlds, np.ones(len(worlds)), root_keys), solve, params, 0,
                  1)
  subgame.root_weights(spec, root_keys[0, 0], tables.averages, np.zeros(1, dtype=np.int64))
  subgame.leaf_values(spec, pos, 0, strategies, params, settings, rng)
  legal = np.zeros(spec[NUM_ACTIONS], dtype=np.int64)
  probabilities = np.zeros(spec[NUM_ACTIONS])
  count = legal_actions(spec, pos, 0, legal)
  subgame.blueprint_strategy(spec, pos, 0, blueprint, valuation, legal, count, probabilities)


_HERE = pathlib.Path(__file__).resolve().parent
KERNELS = KernelSet(
    "CFR kernels",
    [*POLICY_KERNELS.sources, pathlib.Path(interface.__file__).resolve()] +
    [_HERE / f"{name}.py" for name in ("features", "mccfr", "subgame")],
    _exercise, mccfr._iterate, requires=[POLICY_KERNELS], setup=_setup)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) the CFR kernels, once per process."""
  KERNELS.ensure()
