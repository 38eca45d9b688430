"""Compiling the CFR kernels on first use: one `KernelSet`, exercised on the standard game."""

from __future__ import annotations

import pathlib

import numpy as np

from sushigo_spiel.compiled.cfr import features, mccfr
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.sushi_go.chance import initial_position
from sushigo_spiel.compiled.sushi_go.core import ensure_compiled as ensure_core
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.sushi_go.rules import Rules


def _exercise() -> None:
  """Calls every entry kernel once with the argument types used."""
  ensure_core()
  spec = build_spec(Rules.from_params(players=2, hand_size=3, rounds=1))
  regrets, averages = np.zeros(256), np.zeros(256)
  for walk in mccfr.WALKS.values():
    mccfr.iterate(spec, regrets, averages, 0, 1, walk, True, 0)
  pos = initial_position(spec)
  actions = np.zeros(1, dtype=np.int64)
  mccfr.policy_weights(spec, pos, 0, averages, actions)
  features.features_of(spec, pos, 0, 0)
  features.keys_of(spec, pos, 0, actions)


_HERE = pathlib.Path(__file__).resolve().parent
_COMPILED = _HERE.parent
_SUSHI_GO = _COMPILED / "sushi_go"
KERNELS = KernelSet(
    "CFR kernels",
    [_COMPILED / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                            "utilities")] +
    [_SUSHI_GO / f"{name}.py" for name in ("chance", "layout", "moves", "scoring", "views")] +
    [_HERE / f"{name}.py" for name in ("features", "mccfr")],
    _exercise, mccfr.iterate)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) the CFR kernels, once per process."""
  KERNELS.ensure()
