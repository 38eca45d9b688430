"""The one import of numba: every kernel module takes `njit` from here.

Kernels are compiled with `cache=True`, so a user compiles them once per environment, not once per
process. Without numba the compiled core cannot run at all, and this module says what to install
rather than leaving a bare ModuleNotFoundError; there is no slow fallback that could change results.
"""

from __future__ import annotations

import functools

try:
  import numba
except ImportError as error:
  raise ImportError(
      "sushigo_spiel.compiled (the compiled game core) needs numba, which is not installed here;"
      " install it with `pip install numba` (version 0.60 or later)") from error

NUMBA_VERSION = numba.__version__
njit = functools.partial(numba.njit, cache=True)


def cache_directory(kernel) -> str:
  """The directory where numba caches `kernel` (beside the source, or under NUMBA_CACHE_DIR)."""
  return kernel._cache._cache_path
