"""One random stream, implemented twice: xoshiro256** seeded through splitmix64.

The kernels draw from a state of four 64-bit words (`numpy.uint64[4]`, made by `new_state`) with
`next_double`; `Xoshiro256` is the same generator in pure Python, whose `random` method returns the
same doubles, so the readable rules (which take any `uniform` callable) and the kernels can be
driven by one stream and compared draw for draw. A double is the top 53 bits of the output scaled
to [0, 1), as numpy and most generators make it.

The generator is Blackman and Vigna's xoshiro256** (2018); splitmix64 spreads a seed over the state.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_DOUBLE_UNIT = 2.0 ** -53

# --------------------------------------------------------------------------------------------
# Kernels


@njit(inline="always")
def _rotl(x, k):
  return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always")
def splitmix64(x):
  """The splitmix64 output after the counter `x` (uint64): a bijective mix of 64 bits, also the
  step of the cores' 64-bit hashes."""
  z = x + np.uint64(_GOLDEN)
  z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
  z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
  return z ^ (z >> np.uint64(31))


@njit
def seed_state(state, seed):
  """Fills `state` (uint64[4]) from `seed` with four splitmix64 outputs."""
  x = np.uint64(seed)
  for i in range(4):
    state[i] = splitmix64(x)
    x += np.uint64(_GOLDEN)


@njit(inline="always")
def next_double(state):
  """The next double in [0, 1) of the stream in `state` (advanced in place)."""
  result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
  t = state[1] << np.uint64(17)
  state[2] ^= state[0]
  state[3] ^= state[1]
  state[1] ^= state[2]
  state[0] ^= state[3]
  state[2] ^= t
  state[3] = _rotl(state[3], 45)
  return (result >> np.uint64(11)) * _DOUBLE_UNIT


def new_state(seed: int) -> np.ndarray:
  """A kernel stream state (uint64[4]) seeded with `seed` (a non-negative integer < 2**64)."""
  state = np.zeros(4, dtype=np.uint64)
  seed_state(state, np.uint64(seed))
  return state


# --------------------------------------------------------------------------------------------
# The same stream in Python


def _rotl_py(x: int, k: int) -> int:
  return ((x << k) | (x >> (64 - k))) & _MASK


class Xoshiro256:
  """The kernels' generator in pure Python: `Xoshiro256(seed).random` is a `uniform` callable
  returning the doubles `next_double` returns from `new_state(seed)`."""

  def __init__(self, seed: int):
    x, self.words = seed & _MASK, []
    for _ in range(4):
      x = (x + _GOLDEN) & _MASK
      z = ((x ^ (x >> 30)) * _MIX1) & _MASK
      z = ((z ^ (z >> 27)) * _MIX2) & _MASK
      self.words.append(z ^ (z >> 31))

  def random(self) -> float:
    s0, s1, s2, s3 = self.words
    result = (_rotl_py((s1 * 5) & _MASK, 7) * 9) & _MASK
    t = (s1 << 17) & _MASK
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    self.words = [s0, s1, s2, _rotl_py(s3, 45)]
    return (result >> 11) * _DOUBLE_UNIT

  def state(self) -> np.ndarray:
    """The state as a kernel stream state (uint64[4]), to continue the stream in the kernels."""
    return np.array(self.words, dtype=np.uint64)
