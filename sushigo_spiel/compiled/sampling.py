"""The sampling primitives of `drafting.sampling` as kernels, consuming the same uniforms: one per
`pick_index`, one per card of `draw_cards`, one per `pick_uniformly`, one per `draw_index`. Given
the same stream they draw what the Python functions draw (the differential tests check this through
the rules and the bots' policies)."""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import next_double


@njit(inline="always")
def pick_index(values, start, length, rng):
  """An index below `length` drawn with probability proportional to the counts
  `values[start:start + length]`, with one uniform."""
  total = 0
  for index in range(length):
    total += values[start + index]
  target = min(int(next_double(rng) * total), total - 1)
  for index in range(length):
    if target < values[start + index]:
      return index
    target -= values[start + index]
  return -1  # unreachable with a positive total: the rules never draw from an empty pool


@njit
def draw_cards(pool, size, rng, drawn):
  """Draws `size` cards without replacement from `pool` (counts, decremented), adding them to
  `drawn`; one uniform per card."""
  for _ in range(size):
    card = pick_index(pool, 0, len(pool), rng)
    pool[card] -= 1
    drawn[card] += 1


@njit(inline="always")
def pick_uniformly(count, rng):
  """An index below `count`, each equally likely, with one uniform."""
  return min(int(next_double(rng) * count), count - 1)


@njit
def comb(n, k):
  """The binomial coefficient as a double: exact while the products stay below 2**53 (any real
  deck), so probabilities divide exactly as the Python rules' integers do."""
  result = 1.0
  for i in range(k):
    result = result * (n - i) / (i + 1)
  return result


@njit
def draw_index(probabilities, rng):
  """An index drawn with these probabilities with one uniform, as `drafting.sampling.draw_index`
  computes it: the first whose cumulative probability (normalised unless the total is 1) exceeds
  the uniform."""
  cumulative = np.empty(len(probabilities))
  total = 0.0
  for i in range(len(probabilities)):
    total += probabilities[i]
    cumulative[i] = total
  u = next_double(rng)
  if total != 1.0:
    cumulative /= total
  return np.searchsorted(cumulative, u, side="right")
