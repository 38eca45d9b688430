"""A game as the search kernels see it: its compiled core's `GameKernels` (`compiled.interface`)
plus a policy kernel, passed to the kernels as one tuple of first-class functions.

Passing functions keeps one compiled search for every game: the kernels call the game's through
function pointers typed by the signatures below (numba's first-class function types), which numba
caches on disk, unlike a specialisation per function object. The search kernels therefore take the
game as their first argument, a `SearchGame.functions` tuple, and are compiled for `GAME` once.

A game is registered in `GAMES` by its pyspiel short name: the path of its core's class (which
offers `spec` and `kernels`), its policy kernel (`policy_action(spec, pos, player, rng, legal,
policy) -> action`) and the names of the policies that kernel knows. A game missing from `GAMES`
is searched in Python.
"""

from __future__ import annotations

import importlib
import warnings
from typing import NamedTuple

import numba
from numba import types

from sushigo_spiel.compiled.interface import GameKernels

warnings.filterwarnings("ignore", category=numba.NumbaExperimentalFeatureWarning)

SPEC, POSITION, STREAM = types.int64[::1], types.int32[::1], types.uint64[::1]
ACTIONS, VALUES = types.int64[::1], types.float64[::1]
SIGNATURES = GameKernels(
    initial_position=POSITION(SPEC),
    skip_chance=types.void(SPEC, POSITION, STREAM),
    legal_actions=types.int64(SPEC, POSITION, types.int64, ACTIONS),
    play=types.void(SPEC, POSITION, ACTIONS),
    returns=types.void(SPEC, POSITION, VALUES),
    determinize=POSITION(SPEC, POSITION, types.int64, STREAM),
    observation_key=types.int64(SPEC, POSITION, ACTIONS, POSITION, types.int64),
    random_action=types.int64(SPEC, POSITION, types.int64, STREAM, ACTIONS))
POLICY_ACTION = types.int64(SPEC, POSITION, types.int64, STREAM, ACTIONS, types.int64)
GAME = types.Tuple([types.FunctionType(s) for s in (*SIGNATURES, POLICY_ACTION)])

# The positions of the functions in a `SearchGame.functions` tuple.
(INITIAL_POSITION, SKIP_CHANCE, LEGAL_ACTIONS, PLAY, RETURNS, DETERMINIZE, OBSERVATION_KEY,
 RANDOM_ACTION, POLICY) = range(9)


class Registration(NamedTuple):
  core: str  # "module:class" of the game's compiled core
  policy_action: str  # "module:function", the policy kernel
  policies: str  # "module:attribute", a dict of policy name -> code ("random" among them)


GAMES = {
    "python_sushi_go": Registration(
        "sushigo_spiel.compiled.sushi_go.core:CompiledSushiGo",
        "sushigo_spiel.compiled.sushi_go.rollout_policy:policy_action",
        "sushigo_spiel.compiled.sushi_go.policies:POLICIES"),
    "python_sushi_draft": Registration(
        "sushigo_spiel.compiled.sushi_draft.core:CompiledSushiDraft",
        "sushigo_spiel.compiled.sushi_draft.policies:policy_action",
        "sushigo_spiel.compiled.sushi_draft.policies:POLICIES"),
}


def _load(path: str):
  module, _, name = path.partition(":")
  return getattr(importlib.import_module(module), name)


class SearchGame:
  """One game's compiled core bound for the search kernels: `core` (the core object), `spec`,
  `functions` (the tuple the kernels take) and `policies` (policy name -> code)."""

  def __init__(self, short_name: str, rules):
    registration = GAMES[short_name]
    self.core = _load(registration.core)(rules)
    self.spec = self.core.spec
    self.policies = dict(_load(registration.policies))
    self.functions = (*self.core.kernels, _load(registration.policy_action))

  def policy_code(self, name: str) -> int:
    """The code of policy `name`; a ValueError lists those this game's core has."""
    if name not in self.policies:
      raise ValueError(f"policy {name!r} has no compiled kernel for this game; compiled:"
                       f" {', '.join(self.policies)}")
    return self.policies[name]


def has_core(short_name: str) -> bool:
  """Whether the game `short_name` has a compiled core the searches run on."""
  return short_name in GAMES
