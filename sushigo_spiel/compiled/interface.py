"""The kernel interface every game's compiled core provides, so compiled search works on both.

Compiled code above the games reaches a game's core only through the kernels of `GameKernels`
(`initial_position`, `skip_chance`, `legal_actions`, `play`, `returns`, `determinize`,
`observation_key`, `random_action`): plain `@njit` functions over the game's int64 `spec` and a
flat int32 position changed in place, `pos[ACTOR]` holding who acts as `drafting.dynamics` numbers
it. `play` is unchecked: callers pass legal actions. `determinize` takes the game's `play` as a
function pointer (`play_pointer`), through which it replays the turns it redraws under. Compiled
code takes a game as one `GAME` tuple (the kernels, a policy kernel and its parameter array) and
calls them through function pointers typed by `SIGNATURES`, so it compiles once for every game.

Each kernel's signature and contract, and why function pointers: docs/layout.md, "The kernel
interface".
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from typing import Callable, NamedTuple

import numba
import numpy as np
from numba import types
from numba.core.types import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address
from numba.extending import typeof_impl

from sushigo_spiel.compiled.jit import KernelSet

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

ACTOR = 0
SPEC, POSITION, STREAM = types.int64[::1], types.int32[::1], types.uint64[::1]
ACTIONS, VALUES = types.int64[::1], types.float64[::1]


class GameKernels(NamedTuple):
  """A game's compiled kernels, by the names of the module docstring."""
  initial_position: Callable
  skip_chance: Callable
  legal_actions: Callable
  play: Callable
  returns: Callable
  determinize: Callable
  observation_key: Callable
  random_action: Callable


def game_kernels(chance, moves, scoring, knowledge, policies) -> GameKernels:
  """A core's `GameKernels` from its kernel modules, which use the same names in every game."""
  return GameKernels(
      initial_position=chance.initial_position, skip_chance=chance.skip_chance,
      legal_actions=moves.legal_actions, play=moves.play, returns=scoring.returns,
      determinize=knowledge.determinize, observation_key=knowledge.observation_key,
      random_action=policies.random_action)


PLAY_SIGNATURE = types.void(SPEC, POSITION, ACTIONS)
PLAY_POINTER = types.FunctionType(PLAY_SIGNATURE)
SIGNATURES = GameKernels(
    initial_position=POSITION(SPEC),
    skip_chance=types.void(SPEC, POSITION, STREAM),
    legal_actions=types.int64(SPEC, POSITION, types.int64, ACTIONS),
    play=PLAY_SIGNATURE,
    returns=types.void(SPEC, POSITION, VALUES),
    determinize=POSITION(SPEC, POSITION, types.int64, STREAM, PLAY_POINTER),
    observation_key=types.int64(SPEC, POSITION, ACTIONS, POSITION, types.int64),
    random_action=types.int64(SPEC, POSITION, types.int64, STREAM, ACTIONS))
POLICY_ACTION = types.int64(SPEC, POSITION, types.int64, STREAM, ACTIONS, types.int64, VALUES)
GAME = types.Tuple([types.FunctionType(s) for s in (*SIGNATURES, POLICY_ACTION)] + [VALUES])

# The positions of the entries of a `GAME` tuple.
(INITIAL_POSITION, SKIP_CHANCE, LEGAL_ACTIONS, PLAY, RETURNS, DETERMINIZE, OBSERVATION_KEY,
 RANDOM_ACTION, POLICY, POLICY_PARAMETERS) = range(10)


def functions(kernels: GameKernels, policy_action: Callable, params) -> TypedTuple:
  """A game's `GAME` tuple: its kernels, its policy kernel (as `pointer`s) and the policies'
  parameters."""
  return TypedTuple((*_pointers(kernels, policy_action), values(params)), GAME)


def play_pointer(play: Callable) -> FunctionPointer:
  """A game's `play` kernel as its `determinize` takes it."""
  return pointer(play, SIGNATURES.play)


@functools.cache
def _pointers(kernels: GameKernels, policy_action: Callable) -> tuple:
  return (*(pointer(kernel, signature) for kernel, signature in zip(kernels, SIGNATURES)),
          pointer(policy_action, POLICY_ACTION))


def values(array) -> np.ndarray:
  """`array` as a contiguous float64 vector (no copy when it is one), the `VALUES` of a typed
  tuple; refused with what is allowed when it has another number of dimensions."""
  result = np.ascontiguousarray(array, dtype=np.float64)
  if result.ndim != 1:
    raise ValueError(f"parameters of shape {result.shape}; allowed: a vector of numbers")
  return result


class TypedTuple(tuple):
  """A tuple of kernel arguments with its numba type given once (`numba_type`): numba types a
  tuple anew at every call, building and interning a tuple type (some 0.1 ms, the most of a
  short kernel call). The caller vouches for the type, as `functions` does for `GAME`."""

  def __new__(cls, items, numba_type):
    self = super().__new__(cls, items)
    self.numba_type = numba_type
    return self

  def __reduce__(self):
    return TypedTuple, (tuple(self), self.numba_type)


@typeof_impl.register(TypedTuple)
def _typeof_typed_tuple(value: TypedTuple, context) -> types.Tuple:
  return value.numba_type


class FunctionPointer(WrapperAddressProtocol):
  """A kernel as a first-class function of one signature, its address looked up once per process:
  numba would look up a kernel passed as such at every call (some 10 microseconds a kernel)."""

  def __init__(self, kernel: Callable, signature):
    self.kernel, self._signature, self._address = kernel, signature, None
    self.numba_type = types.FunctionType(signature)

  def __wrapper_address__(self) -> int:
    if self._address is None:  # compiles or loads the kernel for the signature, as a first call
      kernel_set = KernelSet.owning(self.kernel.py_func.__code__.co_filename)
      with contextlib.nullcontext() if kernel_set is None else kernel_set.first_call():
        self._address = _get_wrapper_address(self.kernel, self._signature)
    return self._address

  def signature(self):
    return self._signature

  def __reduce__(self):  # an address is only good in the process that looked it up
    return pointer, (self.kernel, self._signature)


@typeof_impl.register(FunctionPointer)
def _typeof_pointer(value: FunctionPointer, context) -> types.FunctionType:
  return value.numba_type  # made once: numba's own typing makes a new one at every call


@functools.cache
def pointer(kernel: Callable, signature) -> FunctionPointer:
  """The `FunctionPointer` of `kernel` with `signature` (one per process)."""
  return FunctionPointer(kernel, signature)
