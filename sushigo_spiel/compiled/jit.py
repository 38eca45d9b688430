"""The one import of numba, and compiling on first use: every kernel module takes `njit` from
here, and every compiled component declares its kernels as a `KernelSet`.

Contract: a kernel compiles (or loads from numba's cache, `cache=True`) when Python first calls
it, with that call's argument types, once per environment; a compile says so on stderr (the
kernel, its usual time, that it happens once, then the time it took), a load is silent. A
`KernelSet` keys a marker on the numba version and every source its kernels depend on, and clears
those sources' cached kernels when the marker is missing, so the cache never runs a stale callee.
Processes compiling at once wait on the set's lock file and load what one of them compiled. A set
readies the sets it `requires` first; its `exercise` calls every kernel the package calls once
(the cold benchmark, `KernelSet.compile_all`), and its `setup` compiles function-pointer entry
kernels for their one signature. Why each of these: docs/layout.md ("Compiling on first use").
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import pathlib
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

try:
  import numba
except ImportError as error:
  raise ImportError(
      "sushigo_spiel.compiled (the compiled game core) needs numba, which is not installed here;"
      " install it with `pip install numba` (version 0.60 or later)") from error
from numba.core import event as numba_event

NUMBA_VERSION = numba.__version__
# The locks' stem (a set's lock: its name as a suffix), one per installed copy of the package, so
# that two checkouts never wait for each other.
COMPILE_LOCK = pathlib.Path(tempfile.gettempdir()) / (
    "sushigo-spiel-compile-"
    f"{hashlib.sha256(str(pathlib.Path(__file__).resolve()).encode()).hexdigest()[:16]}.lock")
_held: set[pathlib.Path] = set()  # the lock files this process holds


def njit(function: Callable | None = None, **options):
  """`numba.njit` with `cache=True`, compiled on its first call from Python under its set's lock
  (`KernelSet.owning` its source file) and with a notice when it compiles."""
  if function is None:
    return lambda f: njit(f, **options)
  dispatcher = numba.njit(function, cache=True, **options)
  first_call = dispatcher._compile_for_args  # numba's own: loads or compiles for the call's types

  def compile_for_args(*args, **kws):
    # Numba calls this (an instance attribute shadows its method) only when no compiled version
    # matches a call from Python: once per process and argument types.
    kernel_set = KernelSet.owning(function.__code__.co_filename)
    if kernel_set is None:
      return first_call(*args, **kws)
    with kernel_set.first_call():
      return first_call(*args, **kws)

  dispatcher._compile_for_args = compile_for_args
  return dispatcher


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


class _Notices(numba_event.Listener):
  """Says on stderr when numba compiles (not loads) a kernel called from Python: the outermost
  compile of each first call (`KernelSet.compiling`); the kernels it calls compile inside it."""

  def __init__(self):
    self.local = threading.local()

  def on_start(self, event) -> None:
    state = self.local
    depth = getattr(state, "depth", 0)
    state.depth = depth + 1
    calling = getattr(state, "calling", None)
    if depth == 0 and calling is not None:
      kernel_set, name = calling[0], event.data["dispatcher"].py_func.__name__
      state.start = time.perf_counter()
      print(f"sushigo-spiel: compiling {name} of the {kernel_set.name}"
            f" ({kernel_set.expectation(name)}; first use, once per environment)...", end="",
            file=sys.stderr, flush=True)
      state.noticed = True

  def on_end(self, event) -> None:
    state = self.local
    state.depth -= 1
    if state.depth == 0 and getattr(state, "noticed", False):
      state.noticed = False
      print(f" done in {time.perf_counter() - state.start:.1f} s", file=sys.stderr, flush=True)


_NOTICES = _Notices()
numba_event.register("numba:compile", _NOTICES)


class KernelSet:
  """One compiled component: its `name` (for the notice), the `sources` its kernels are compiled
  from (every file whose code or constants they use, shared ones included), `exercise`, which
  calls every kernel the package calls once with the argument types used (kernels only tests
  or inspection call compile on their first call), one of its kernels, beside whose cache
  the marker lives, the sets it `requires`, readied before it, the source files whose kernels it
  `owns` (default: its sources in the anchor's folder that no set it requires owns), `expected`:
  a kernel's name -> the CPU seconds its cold compile takes (the notice's estimate), and `setup`,
  compiling its entries that take function pointers (run once per process when the set is first
  readied)."""

  declared: list[KernelSet] = []

  def __init__(self, name: str, sources: Sequence[pathlib.Path], exercise: Callable[[], None],
               anchor: Callable, requires: Sequence[KernelSet] = (),
               owns: Sequence[pathlib.Path] | None = None,
               expected: Mapping[str, float] | None = None,
               setup: Callable[[], None] | None = None):
    self.name, self.sources, self.exercise, self.anchor = name, tuple(sources), exercise, anchor
    self.requires = tuple(requires)
    if owns is None:  # the sources beside the anchor's
      py_func = getattr(anchor, "py_func", None)
      home = None if py_func is None else pathlib.Path(py_func.__code__.co_filename).parent
      taken = {path for required in self.requires for path in required._owned_below()}
      owns = [path for path in self.sources
              if pathlib.Path(path).parent == home and pathlib.Path(path).resolve() not in taken]
    self.owns = frozenset(pathlib.Path(path).resolve() for path in owns)
    self.expected = dict(expected or {})
    self.setup = setup
    self._ready = False
    KernelSet.declared.append(self)

  def _owned_below(self) -> set[pathlib.Path]:
    """The files this set and the sets it requires own."""
    return set(self.owns).union(*(required._owned_below() for required in self.requires))

  @classmethod
  def owning(cls, filename: str) -> KernelSet | None:
    """The set whose kernels are those defined in `filename` (the last declared, if several)."""
    path = pathlib.Path(filename).resolve()
    for kernel_set in reversed(cls.declared):
      if path in kernel_set.owns:
        return kernel_set
    return None

  def expectation(self, name: str) -> str:
    seconds = self.expected.get(name)
    if seconds is None:
      return "usually under a minute"
    return f"about {max(1, round(seconds))} s of CPU"

  def ensure(self) -> None:
    """Readies the set once per process: clears the cache of its sources if they changed since
    it was last readied in this environment (the marker), then runs its `setup`. Its kernels are
    compiled, or loaded from numba's cache, as they are first called."""
    if self._ready:
      return
    for required in self.requires:
      required.ensure()
    marker = self._marker()
    if not marker.exists():
      with compiling_alone(self._lock()):
        if not marker.exists():  # else another process readied the set while this one waited
          self._clear_cache(marker.parent)
          marker.touch()
    if self.setup is not None:
      with self.compiling():
        self.setup()
    self._ready = True

  @contextlib.contextmanager
  def first_call(self) -> Iterator[None]:
    """Readies the set (`ensure`), then holds its lock while numba loads or compiles what a first
    call from Python needs, saying so when it compiles; a compile failure is said to be numba's,
    with what to install."""
    self.ensure()
    with self.compiling():
      yield

  @contextlib.contextmanager
  def compiling(self) -> Iterator[None]:
    """Holds the set's lock while numba loads or compiles kernels of it, saying so when it
    compiles; a compile failure is said to be numba's, with what to install."""
    state = _NOTICES.local
    outer = getattr(state, "calling", None)
    state.calling = (self,) if outer is None else outer
    try:
      with compiling_alone(self._lock()):
        yield
    except numba.core.errors.NumbaError as error:
      raise RuntimeError(
          f"compiling the {self.name} with numba {NUMBA_VERSION} failed ({error}); the"
          " compiled core needs a working numba 0.60 or later: `pip install --upgrade numba`"
      ) from error
    finally:
      state.calling = outer

  def compile_all(self) -> None:
    """Readies the set and compiles (or loads) every kernel of it, by its `exercise`."""
    self.ensure()
    with self.compiling():
      self.exercise()

  def _lock(self) -> pathlib.Path:
    return COMPILE_LOCK.with_suffix(f".{self.slug}.lock")

  def _marker(self) -> pathlib.Path:
    stamps = [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in self.sources]
    digest = hashlib.sha256(" ".join([NUMBA_VERSION, *stamps]).encode()).hexdigest()[:16]
    cache_dir = pathlib.Path(cache_directory(self.anchor))
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir / f"sushigo-{self.slug}-{digest}.compiled"

  @property
  def slug(self) -> str:
    """The set's name with dashes for spaces: its files' and `sushigo compile`'s name for it."""
    return self.name.replace(" ", "-")

  def _clear_cache(self, marker_dir: pathlib.Path) -> None:
    """Removes the set's old markers and the cached kernels of its sources, except those of a
    source that another set with its marker lists together with every source of the set owning
    it (this set if none): compiled from the sources as they are now."""
    for path in marker_dir.glob(f"sushigo-{self.slug}-*.compiled"):
      path.unlink()
    current = [set(other.sources) for other in KernelSet.declared
               if other is not self and other._marker().exists()]
    for source in self.sources:
      dependencies = set((KernelSet.owning(str(source)) or self).sources)
      if any(source in other and dependencies <= other for other in current):
        continue
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
