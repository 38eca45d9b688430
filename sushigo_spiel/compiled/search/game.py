"""A game as the search kernels see it: its compiled core's `GameKernels` (`compiled.interface`)
plus a policy kernel and the policies' parameter array, passed to the kernels as one tuple.

Passing functions keeps one compiled search for every game: the kernels call the game's through
function pointers typed by the signatures below (numba's first-class function types), which numba
caches on disk, unlike a specialisation per function object. The search kernels therefore take the
game as their first argument, a `SearchGame.functions` tuple, and are compiled for `GAME` once.

A game is registered in `GAMES` by its pyspiel short name: the path of its core's class (which
offers `spec` and `kernels`), its policy kernel (`policy_action(spec, pos, player, rng, legal,
policy, params) -> action`), the names of the policies that kernel knows, and those of them that
read `params`, a float64 array (Sushi Go's heuristic: `sushi_go.heuristic.parameters`). The array
is the tuple's last entry, given when the search game is made (the bot's layer knows the
heuristic's parameters; the core does not). A game missing from `GAMES` is searched in Python.
"""

from __future__ import annotations

import importlib
import warnings
from typing import NamedTuple

import numba
import numpy as np
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
POLICY_ACTION = types.int64(SPEC, POSITION, types.int64, STREAM, ACTIONS, types.int64, VALUES)
GAME = types.Tuple([types.FunctionType(s) for s in (*SIGNATURES, POLICY_ACTION)] + [VALUES])

# The positions of the entries of a `SearchGame.functions` tuple.
(INITIAL_POSITION, SKIP_CHANCE, LEGAL_ACTIONS, PLAY, RETURNS, DETERMINIZE, OBSERVATION_KEY,
 RANDOM_ACTION, POLICY, POLICY_PARAMETERS) = range(10)


class Registration(NamedTuple):
  core: str  # "module:class" of the game's compiled core
  policy_action: str  # "module:function", the policy kernel
  policies: str  # "module:attribute", a dict of policy name -> code ("random" among them)
  parameterised: tuple = ()  # the names of the policies that read the parameter array


GAMES = {
    "python_sushi_go": Registration(
        "sushigo_spiel.compiled.sushi_go.core:CompiledSushiGo",
        "sushigo_spiel.compiled.sushi_go.policies:policy_action",
        "sushigo_spiel.compiled.sushi_go.policies:POLICIES", ("heuristic", "heuristic_eps")),
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
  `functions` (the tuple the kernels take), `policies` (policy name -> code) and `parameters`
  (the policies' parameter array; None when not given, and then the policies reading it are
  refused)."""

  def __init__(self, short_name: str, rules, parameters: np.ndarray | None = None):
    registration = GAMES[short_name]
    self.core = _load(registration.core)(rules)
    self.spec = self.core.spec
    self.policies = dict(_load(registration.policies))
    self.parameterised = registration.parameterised
    if parameters is not None and (not isinstance(parameters, np.ndarray) or
                                   parameters.dtype != np.float64 or parameters.ndim != 1):
      raise ValueError(f"policy parameters {parameters!r}; allowed: a float64 vector")
    self.parameters = parameters
    self.functions = (*self.core.kernels, _load(registration.policy_action),
                      np.zeros(0) if parameters is None else parameters)

  def policy_code(self, name: str) -> int:
    """The code of policy `name`; a ValueError lists those this game's core has, or says that
    the policy needs the parameters this search game was not given."""
    if name not in self.policies:
      raise ValueError(f"policy {name!r} has no compiled kernel for this game; compiled:"
                       f" {', '.join(self.policies)}")
    if name in self.parameterised and self.parameters is None:
      raise ValueError(f"policy {name!r} reads a parameter array, and this search game was made"
                       " without one (SearchGame(..., parameters))")
    return self.policies[name]


def has_core(short_name: str) -> bool:
  """Whether the game `short_name` has a compiled core the searches run on."""
  return short_name in GAMES
