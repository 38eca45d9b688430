"""64-bit keys of integer sequences, as kernels: what a game's `observation_key` and the search
trees' child tables hash with.

A key folds values one at a time into a 64-bit state (`fold`: xor, then multiply by an odd
constant) and ends with splitmix64's finaliser (`finish`), so nearby sequences land far apart in
an open-addressing table. Distinct sequences collide with probability about 2**-64 per pair; the
searches treat equal keys under one parent as one child.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit

_START = 0x9E3779B97F4A7C15
_FOLD = 0x100000001B3
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


@njit(inline="always")
def start():
  """The state of an empty sequence."""
  return np.uint64(_START)


@njit(inline="always")
def fold(state, value):
  """The state after one more value (any integer)."""
  return (state ^ np.uint64(np.int64(value))) * np.uint64(_FOLD)


@njit(inline="always")
def finish(state):
  """The key of the folded sequence, as an int64."""
  z = (state ^ (state >> np.uint64(30))) * np.uint64(_MIX1)
  z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
  return np.int64(z ^ (z >> np.uint64(31)))


@njit(inline="always")
def fold_range(state, values, begin, end):
  """The state after `values[begin:end]`."""
  for i in range(begin, end):
    state = fold(state, values[i])
  return state
