"""The one import of numba, and compiling on first use: every kernel module takes `njit` from
here, and every compiled component declares its kernels as a `KernelSet`.

Kernels are compiled with `cache=True`, so a user compiles them once per environment, not once per
process. Without numba the compiled core cannot run at all, and this module says what to install
rather than leaving a bare ModuleNotFoundError; there is no slow fallback that could change results.

Numba checks a cached kernel against its own source file only, not against the kernels it calls
from other files, so after an edit a caller could keep running a stale callee. A `KernelSet`
therefore keys a marker file on the numba version and every source its kernels depend on, and
when the marker is missing (first use, or any source changed) it clears those sources' cached
kernels, compiles everything by exercising it once, says so on stderr with the time it took, and
leaves the marker. Later processes load the cache silently. A source shared with another set whose
marker is present for the same files is left alone: its kernels were compiled from the sources as
they are now, and clearing them would only make every later process compile them again, silently.

Processes compiling at once (a run's workers, or tests on two cores, in a fresh environment) would
clear and write the same cache files under each other, so compiling a set holds that set's lock
file: one process compiles it, the others needing it say they wait, then load what it wrote. A set
first ensures the sets it `requires` (whose kernels it calls, or whose sources it shares), so it
never clears what they have just compiled; sets apart from each other compile at once, on as many
cores.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import pathlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence

try:
  import numba
except ImportError as error:
  raise ImportError(
      "sushigo_spiel.compiled (the compiled game core) needs numba, which is not installed here;"
      " install it with `pip install numba` (version 0.60 or later)") from error

NUMBA_VERSION = numba.__version__
njit = functools.partial(numba.njit, cache=True)
# The locks' stem (a set's lock: its name as a suffix), one per installed copy of the package, so
# that two checkouts never wait for each other.
COMPILE_LOCK = pathlib.Path(tempfile.gettempdir()) / (
    "sushigo-spiel-compile-"
    f"{hashlib.sha256(str(pathlib.Path(__file__).resolve()).encode()).hexdigest()[:16]}.lock")
_held: set[pathlib.Path] = set()  # the lock files this process holds


@contextlib.contextmanager
def compiling_alone(path: pathlib.Path) -> Iterator[None]:
  """Holds the lock file `path` (reentrant within a process), saying so if another process has
  it."""
  if path in _held:
    yield
    return
  with open(path, "a", encoding="utf-8") as lock:
    try:
      fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
      print("sushigo-spiel: waiting for another process compiling the kernels...",
            file=sys.stderr, flush=True)
      fcntl.flock(lock, fcntl.LOCK_EX)
    _held.add(path)
    try:
      yield
    finally:
      _held.discard(path)


def cache_directory(kernel) -> str:
  """The directory where numba caches `kernel` (beside the source, or under NUMBA_CACHE_DIR)."""
  return kernel._cache._cache_path


class KernelSet:
  """One compiled component: its `name` (for the notice), the `sources` its kernels are compiled
  from (every file whose code or constants they use, shared ones included), `exercise`, which
  calls every kernel once with the argument types used, one of its kernels, beside whose cache
  the marker lives, and the sets it `requires`, ensured before it."""

  declared: list[KernelSet] = []

  def __init__(self, name: str, sources: Sequence[pathlib.Path], exercise: Callable[[], None],
               anchor: Callable, requires: Sequence[KernelSet] = ()):
    self.name, self.sources, self.exercise, self.anchor = name, tuple(sources), exercise, anchor
    self.requires = tuple(requires)
    self._ready = False
    KernelSet.declared.append(self)

  def ensure(self) -> None:
    """Compiles (or loads from numba's cache) every kernel of the set, once per process."""
    if self._ready:
      return
    for required in self.requires:
      required.ensure()
    marker = self._marker()
    if marker.exists():
      self._run_exercise()
    else:
      with compiling_alone(COMPILE_LOCK.with_suffix(f".{self._slug()}.lock")):
        if marker.exists():  # another process compiled the set while this one waited
          self._run_exercise()
        else:
          self._compile(marker)
    self._ready = True

  def _compile(self, marker: pathlib.Path) -> None:
    self._clear_cache(marker.parent)
    print(f"sushigo-spiel: compiling the {self.name} (first use, once per environment)...",
          end="", file=sys.stderr, flush=True)
    start = time.perf_counter()
    self._run_exercise()
    print(f" done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    marker.touch()

  def _run_exercise(self) -> None:
    try:
      self.exercise()
    except Exception as error:
      raise RuntimeError(
          f"compiling the {self.name} with numba {NUMBA_VERSION} failed ({error}); the compiled"
          " core needs a working numba 0.60 or later: `pip install --upgrade numba`") from error

  def _marker(self) -> pathlib.Path:
    stamps = [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in self.sources]
    digest = hashlib.sha256(" ".join([NUMBA_VERSION, *stamps]).encode()).hexdigest()[:16]
    cache_dir = pathlib.Path(cache_directory(self.anchor))
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir / f"sushigo-{self._slug()}-{digest}.compiled"

  def _slug(self) -> str:
    return self.name.replace(" ", "-")

  def _clear_cache(self, marker_dir: pathlib.Path) -> None:
    """Removes the set's old markers and the cached kernels of its sources, except those of
    sources another set has compiled as they are now."""
    for path in marker_dir.glob(f"sushigo-{self._slug()}-*.compiled"):
      path.unlink()
    certified = {source for other in KernelSet.declared
                 if other is not self and other._marker().exists() for source in other.sources}
    for source in set(self.sources) - certified:
      for directory in _cache_directories(source):
        for path in directory.glob(f"{source.stem}.*"):
          if path.suffix in (".nbi", ".nbc"):
            path.unlink()


def _cache_directories(source: pathlib.Path) -> set[pathlib.Path]:
  """Where numba caches the kernels defined in `source` (read off those kernels, since numba
  chooses the place: beside the source, or under NUMBA_CACHE_DIR)."""
  module = next((m for m in list(sys.modules.values())
                 if getattr(m, "__file__", None) and pathlib.Path(m.__file__) == source), None)
  if module is None:
    return set()
  return {pathlib.Path(cache_directory(value)) for value in vars(module).values()
          if isinstance(value, numba.core.registry.CPUDispatcher)
          and pathlib.Path(value.py_func.__code__.co_filename) == source}
