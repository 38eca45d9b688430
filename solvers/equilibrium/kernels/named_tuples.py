"""NamedTuple kernel arguments, typed once per kind rather than at every call.

Numba types a kernel's arguments at every call: an exact tuple of arrays and scalars in C, from a
fingerprint it caches, but a NamedTuple in Python, field by field, building its tuple type anew
(some 0.1 ms for a subgame solve's nested tuples, more than the rest of a short kernel call).
`cached_type(cls)` registers a typeof for the NamedTuple class `cls` that keys the type on a
fingerprint of the fields: each array's dtype, dimensions, layout, writeability and alignment,
each scalar's Python type (integers only within int64), nested NamedTuples field by field, and
the type a `compiled.interface.TypedTuple` or `FunctionPointer` carries. A fingerprint is typed
the ordinary way the first time it is seen in a process; the same fingerprint always gives the
same type, so no call is typed differently than numba would type it.
"""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.core.typing.typeof import typeof_impl

from sushigo_spiel.compiled.interface import FunctionPointer, TypedTuple

_INT64 = (-(1 << 63), 1 << 63)


def _fingerprint(value):
  """What numba's type of `value` depends on, hashable; None where it is not worked out here."""
  if isinstance(value, np.ndarray):
    return value.dtype, value.ndim, value.flags.num  # the flags: layout, writeable, aligned
  kind = type(value)
  if kind is int:
    return int if _INT64[0] <= value < _INT64[1] else None
  if kind is TypedTuple or kind is FunctionPointer:
    return value.numba_type
  if kind in (bool, float) or isinstance(value, np.generic):
    return kind
  if isinstance(value, tuple) and kind is not tuple and hasattr(kind, "_fields"):
    fields = tuple(_fingerprint(field) for field in value)
    return None if None in fields else (kind, fields)
  return None


def cached_type(cls: type) -> type:
  """Registers the cached typeof for the NamedTuple class `cls`; returns `cls` (a decorator)."""
  cache = {}

  @typeof_impl.register(cls)
  def _typeof(value, context):
    key = _fingerprint(value)
    known = cache.get(key) if key is not None else None
    if known is None:
      fields = [typeof_impl(field, context) for field in value]
      if any(field is None for field in fields):
        return None
      known = types.BaseTuple.from_types(fields, cls)
      if key is not None:
        cache[key] = known
    return known

  return cls
