"""A game as the search kernels see it: its `GAME` tuple (`compiled.interface`: its compiled core's
kernels, a policy kernel and the policies' parameter array), which the search kernels take as
their first argument, so that they are compiled for `GAME` once for every game.

A game is registered in `GAMES` by its pyspiel short name: the path of its core's class (which
offers `spec` and `kernels`), its policy kernel (`policy_action(spec, pos, player, rng, legal,
policy, params) -> action`, of `solvers.policy_kernels`), the names of the policies that kernel
knows, the `KernelSet` compiling it, and the policies that read `params`, a float64 array (Sushi
Go's heuristic: `solvers.policy_kernels.heuristic.parameters`). The array is the tuple's last
entry, given when the search game is made. A game missing from `GAMES` is searched in Python.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Callable, NamedTuple

import numpy as np

from sushigo_spiel.compiled.interface import functions


class Registration(NamedTuple):
  core: str  # "module:class" of the game's compiled core
  policy_action: str  # "module:function", the policy kernel
  policies: str  # "module:attribute", a dict of policy name -> code ("random" among them)
  kernel_set: str  # "module:attribute", the `KernelSet` compiling the policy kernel
  parameterised: tuple = ()  # the names of the policies that read the parameter array


GAMES = {
    "python_sushi_go": Registration(
        "sushigo_spiel.compiled.sushi_go.core:CompiledSushiGo",
        "solvers.policy_kernels.sushi_go:policy_action",
        "solvers.policy_kernels.sushi_go:POLICIES", "solvers.policy_kernels.compiling:KERNELS",
        ("heuristic", "heuristic_eps")),
    "python_sushi_draft": Registration(
        "sushigo_spiel.compiled.sushi_draft.core:CompiledSushiDraft",
        "solvers.policy_kernels.sushi_draft:policy_action",
        "solvers.policy_kernels.sushi_draft:POLICIES",
        "solvers.policy_kernels.compiling:SUSHI_DRAFT_KERNELS"),
}


class PolicyKernel(NamedTuple):
  """A policy kernel standing in for a game's registered one: a superset of its policies, reading
  a parameter array that starts as the registered kernel's does (a CFR blueprint's,
  `solvers.equilibrium.kernels.blueprint_policy`, which a best responder's search models its
  opponents with: `solvers.search.opponent_model.CompiledPolicy`)."""
  policy_action: Callable
  policies: dict  # policy name -> code
  parameterised: tuple  # the names of the policies that read the parameter array


def _load(path: str):
  module, _, name = path.partition(":")
  return getattr(importlib.import_module(module), name)


class SearchGame:
  """One game's compiled core bound for the search kernels: `core` (the core object), `spec`,
  `margin_spec` (the spec of the same game scored by margins, from which a search playing for the
  win reads a finished game's margins: `compiled.utilities.WIN_TIE_BREAK`), `functions` (the
  tuple the kernels take), `policies` (policy name -> code) and `parameters` (the policies'
  parameter array; None when not given, and then the policies reading it are refused).
  `policy_kernel` replaces the game's registered policy kernel."""

  def __init__(self, short_name: str, rules, parameters: np.ndarray | None = None,
               policy_kernel: PolicyKernel | None = None):
    registration = GAMES[short_name]
    core_class = _load(registration.core)
    self.core = core_class(rules)
    _load(registration.kernel_set).ensure()
    self.spec = self.core.spec
    self.margin_spec = self.spec if rules.utility == "margin" else \
        core_class(dataclasses.replace(rules, utility="margin")).spec
    if policy_kernel is None:
      policy_kernel = PolicyKernel(_load(registration.policy_action),
                                   dict(_load(registration.policies)), registration.parameterised)
    self.policies = dict(policy_kernel.policies)
    self.parameterised = policy_kernel.parameterised
    if parameters is not None and (not isinstance(parameters, np.ndarray) or
                                   parameters.dtype != np.float64 or parameters.ndim != 1):
      raise ValueError(f"policy parameters {parameters!r}; allowed: a float64 vector")
    self.parameters = parameters
    self.functions = functions(self.core.kernels, policy_kernel.policy_action,
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


def policy_names(short_name: str, policy_kernel: PolicyKernel | None = None) -> set[str]:
  """The policies a search game of `short_name` (with `policy_kernel`, or the registered one)
  knows, found without building its core or compiling any kernel."""
  if policy_kernel is not None:
    return set(policy_kernel.policies)
  return set(_load(GAMES[short_name].policies))
