"""Compiling the CFR kernels on first use: one `KernelSet`, exercised on the standard game."""

from __future__ import annotations

import pathlib

import numpy as np

from sushigo_spiel.compiled.cfr import features, mccfr, subgame
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import knowledge, policies
from sushigo_spiel.compiled.sushi_go.chance import initial_position, skip_chance
from sushigo_spiel.compiled.sushi_go.core import ensure_compiled as ensure_core
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.sushi_go.rules import Rules


def _exercise() -> None:
  """Calls every entry kernel once with the argument types used."""
  ensure_core()
  spec = build_spec(Rules.from_params(players=2, hand_size=3, rounds=1))
  regrets, averages = np.zeros(256), np.zeros(256)
  for walk in mccfr.WALKS.values():
    mccfr.iterate(spec, regrets, averages, 0, 1, walk, True, 0, np.zeros(0))
  pos = initial_position(spec)
  actions = np.zeros(1, dtype=np.int64)
  mccfr.policy_weights(spec, pos, 0, averages, actions, np.zeros(0))
  features.features_of(spec, pos, 0, 0)
  features.keys_of(spec, pos, 0, actions)
  _exercise_subgame(spec)


def _exercise_subgame(spec) -> None:
  rng = new_state(0)
  pos = initial_position(spec)
  skip_chance(spec, pos, rng)
  worlds = np.stack([pos, knowledge.determinize(spec, pos, 0, rng)])
  root_keys = np.array([[subgame.root_key(spec, w, p) for p in range(2)] for w in worlds])
  settings = np.zeros(subgame.SETTINGS, dtype=np.int64)
  settings[subgame.STOP_TURN], settings[subgame.ROLLOUTS] = 99, 1
  tables = np.zeros(256), np.zeros(256), np.zeros(256)
  memo_keys, memo_values = np.zeros(64, dtype=np.int64), np.zeros((64, 2))
  continuations = np.array([subgame.BLUEPRINT, policies.GREEDY], dtype=np.int64)
  subgame.iterate(spec, worlds, root_keys, *tables, np.zeros(0), continuations, np.zeros(0),
                  memo_keys, memo_values, np.zeros(1, dtype=np.int64), settings, 0, 1, rng)
  subgame.root_weights(spec, root_keys[0, 0], tables[1], np.zeros(1, dtype=np.int64))


_HERE = pathlib.Path(__file__).resolve().parent
_COMPILED = _HERE.parent
_SUSHI_GO = _COMPILED / "sushi_go"
KERNELS = KernelSet(
    "CFR kernels",
    [_COMPILED / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                            "utilities")] +
    [_SUSHI_GO / f"{name}.py" for name in ("chance", "heuristic", "knowledge", "layout", "moves",
                                           "policies", "scoring", "views")] +
    [_HERE / f"{name}.py" for name in ("features", "mccfr", "subgame")],
    _exercise, mccfr.iterate)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) the CFR kernels, once per process."""
  KERNELS.ensure()
