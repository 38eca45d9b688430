"""Compiling the search kernels on first use: one `KernelSet` for ISMCTS and the SM-MCTS world
solver, each compiled for the game tuple type `game.GAME` (so once for every game) and the
argument types the searches pass."""

from __future__ import annotations

import pathlib

import numba
import numpy as np
from numba import types

import sushigo_spiel
from solvers.search.kernels import ismcts, smmcts
from solvers.search.kernels.bandits import Selection
from solvers.search.kernels.playing import NO_POLICY, PlayoutPolicies
from solvers.search.kernels.tree import Tree
from sushigo_spiel.compiled.interface import GAME
from sushigo_spiel.compiled.jit import KernelSet


def _signature(result, *example):
  """A signature taking the game tuple first, then arguments typed like `example`."""
  return result(GAME, *(numba.typeof(value) for value in example))


def _compile() -> None:
  """Compiles the entry kernels for their one signature each, then closes them to others: a call
  with a game's functions then converts them to function pointers rather than compiling anew for
  those very functions (which numba could not cache)."""
  spec, position, rng = np.zeros(1, np.int64), np.zeros(1, np.int32), np.zeros(4, np.uint64)
  arrays = Tree(1, 2, 2, True, nodes=2).arrays()
  owners, sums = np.zeros(1, np.int64), (np.zeros(1), np.zeros(1, np.int64), np.zeros(1))
  selection, playout = Selection(0, 0.0, 0.0, 0.0), PlayoutPolicies(0, 0.0, NO_POLICY, 0)
  ismcts_settings = ismcts.Settings(selection, playout, 2, 0, NO_POLICY, NO_POLICY, False, False,
                                    0.0, 1.0, 1.0, 0.0, 1, 2)
  smmcts_settings = smmcts.Settings(selection, playout, 2, 0, 1, False, False, 1.0, 1, 2)
  ismcts.run.compile(_signature(types.int64, spec, spec, position, owners, ismcts_settings,
                                arrays, rng, 1))
  smmcts.solve_worlds.compile(_signature(types.void, spec, spec, position, smmcts_settings, arrays,
                                         rng, 1, sums))
  for kernel in (ismcts.run, smmcts.solve_worlds):
    kernel.disable_compile()


def _compiled_by_setup() -> None:
  """Nothing: `_compile`, the set's setup, compiles every kernel of the set."""


_HERE = pathlib.Path(__file__).resolve().parent
_COMPILED = pathlib.Path(sushigo_spiel.__file__).resolve().parent / "compiled"
KERNELS = KernelSet(
    "search kernels",
    [_COMPILED / f"{name}.py" for name in ("hashing", "interface", "jit", "rng", "sampling",
                                           "utilities")] +
    [_HERE / f"{name}.py" for name in ("bandits", "game", "ismcts", "playing", "smmcts", "tree")],
    _compiled_by_setup, ismcts.run, setup=_compile)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) the search kernels, once per process."""
  KERNELS.ensure()
