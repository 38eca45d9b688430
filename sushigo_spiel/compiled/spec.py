"""A game's spec, the int64 array its kernels read the game from, as both cores lay it out:
scalars at fixed indices, then lookup tables (each scalar index of a table holding where the table
starts), and the offsets of a position's blocks after the position's header. `assemble` builds
one; `block_views` and `nested_tuples` read a position's blocks by it, for the codecs."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np


def assemble(scalar_count: int, scalars: Mapping[int, int],
             tables: Iterable[tuple[int, Iterable[int]]], header_size: int,
             blocks: Iterable[tuple[int, int]], position_size: int) -> np.ndarray:
  """The spec: `scalars` by index, each of `tables` (index, values) appended with its start at
  its index, and each of `blocks` (index, length) placed after `header_size` with its offset at
  its index; the position's size at index `position_size`."""
  values = [0] * scalar_count
  for name, value in scalars.items():
    values[name] = int(value)
  for name, table in tables:
    values[name] = len(values)
    values.extend(int(v) for v in table)
  at = header_size
  for name, length in blocks:
    values[name] = at
    at += length
  values[position_size] = at
  return np.array(values, dtype=np.int64)


def block_views(spec: np.ndarray, pos: np.ndarray, shapes: Mapping[int, tuple[int, ...]]
                ) -> dict[int, np.ndarray]:
  """Each block of a position as a numpy view of its shape in `shapes`, by the spec index of its
  offset."""
  views = {}
  for name, shape in shapes.items():
    start = int(spec[name])
    views[name] = pos[start:start + math.prod(shape)].reshape(shape)
  return views


def nested_tuples(block: np.ndarray):
  """A block as nested tuples of Python ints."""
  return tuple(map(nested_tuples, block)) if block.ndim > 1 else tuple(block.tolist())
