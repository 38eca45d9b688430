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
from sushigo_spiel.compiled.sushi_go.moves import legal_actions
from sushigo_spiel.sushi_go.rules import Rules

_INT, _VALUATION = types.int64, features.VALUATION
_ENTRIES = {
    mccfr._iterate: types.void(GAME, SPEC, VALUES, VALUES, VALUES, _INT, _INT, _INT, types.boolean,
                               _INT, _VALUATION),
    mccfr._policy_weights: VALUES(SPEC, POSITION, _INT, VALUES, ACTIONS, _VALUATION),
    features._ranked_features_of: ACTIONS(SPEC, POSITION, _INT, _VALUATION, _INT),
    subgame._iterate: types.void(GAME, SPEC, types.int32[:, ::1], VALUES, types.int64[:, ::1],
                                 VALUES, VALUES, VALUES, _VALUATION, ACTIONS, ACTIONS,
                                 types.float64[:, :, ::1], ACTIONS, ACTIONS, _INT, _INT, STREAM),
    subgame._leaf_entry: types.void(GAME, SPEC, POSITION, _INT, ACTIONS, VALUES, _VALUATION,
                                    ACTIONS, STREAM, types.float64[:, ::1]),
    subgame._blueprint_entry: types.void(SPEC, POSITION, _INT, VALUES, _VALUATION, ACTIONS, _INT,
                                         VALUES),
}


def _setup() -> None:
  """Compiles the entry kernels taking function pointers for their signatures and closes them."""
  for kernel, signature in _ENTRIES.items():
    kernel.compile(signature)
    kernel.disable_compile()


def _exercise() -> None:
  """Calls every entry once (with either abstraction) with the argument types used."""
  spec = build_spec(Rules.from_params(players=2, hand_size=3, rounds=1))
  params = np.ones(heuristic.PARAMETERS_SIZE)
  pos = initial_position(spec)
  skip_chance(spec, pos, new_state(0))
  actions = np.zeros(1, dtype=np.int64)
  for valuation in (np.zeros(0), params):
    regrets, averages, offered = np.zeros(256), np.zeros(256), np.zeros(256)
    for walk in mccfr.WALKS.values():
      mccfr.iterate(spec, regrets, averages, offered, 0, 1, walk, True, 0, valuation)
    mccfr.policy_weights(spec, pos, 0, averages, actions, valuation)
    _exercise_subgame(spec, valuation, params)
  features.ranked_features_of(spec, pos, 0, params, 0)
  features.features_of(spec, pos, 0, 0)
  features.keys_of(spec, pos, 0, actions)


def _exercise_subgame(spec, valuation, params) -> None:
  rng = new_state(0)
  pos = initial_position(spec)
  skip_chance(spec, pos, rng)
  worlds = np.stack([pos, knowledge.determinize(spec, pos, 0, rng)])
  root_keys = np.array([[subgame.root_key(spec, w, p) for p in range(2)] for w in worlds])
  settings = np.zeros(subgame.SETTINGS, dtype=np.int64)
  settings[subgame.STOP_TURN], settings[subgame.ROLLOUTS] = 99, 1
  settings[subgame.OPEN_WORLDS] = 1
  tables = np.zeros(256), np.zeros(256), np.zeros(256)
  memo_keys, memo_values = np.zeros(64, dtype=np.int64), np.zeros((64, 2, 2))
  continuations = np.array([subgame.BLUEPRINT, sushi_go.GREEDY], dtype=np.int64)
  subgame.iterate(spec, worlds, np.ones(len(worlds)), root_keys, *tables, valuation, continuations,
                  params, memo_keys, memo_values, np.zeros(1, dtype=np.int64), settings, 0, 1, rng)
  subgame.root_weights(spec, root_keys[0, 0], tables[1], np.zeros(1, dtype=np.int64))
  subgame.leaf_values(spec, pos, 0, continuations, tables[2], valuation, params, settings, rng)
  legal = np.zeros(spec[NUM_ACTIONS], dtype=np.int64)
  probabilities = np.zeros(spec[NUM_ACTIONS])
  count = legal_actions(spec, pos, 0, legal)
  subgame.blueprint_strategy(spec, pos, 0, tables[2], valuation, legal, count, probabilities)


_HERE = pathlib.Path(__file__).resolve().parent
KERNELS = KernelSet(
    "CFR kernels",
    [*POLICY_KERNELS.sources, pathlib.Path(interface.__file__).resolve()] +
    [_HERE / f"{name}.py" for name in ("features", "mccfr", "subgame")],
    _exercise, mccfr._iterate, requires=[POLICY_KERNELS], setup=_setup)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) the CFR kernels, once per process."""
  KERNELS.ensure()
