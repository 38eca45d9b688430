"""Opponent models: the fixed policy a best-responding bot assumes the other players follow.

An `OpponentModel` is an explicit object handed to the bot (as OpenSpiel's `mcts.py` takes an
evaluator), with everything an engine may read:
  policy    (rules, table, player) -> [(action, probability)], read by the Python engines
  compiled  a `CompiledPolicy` playing the same policy in the compiled searches, or None (ISMCTS
            then searches in Python)
  key       names the policy, so what is learnt against it is kept per policy ("": unnamed)
A `CompiledPolicy` names a policy of the game's registered kernel (`kernels.game.GAMES`, default
parameters) when `kernel` is None, else of `kernel` with `parameters` (a CFR blueprint's). Models
are built by `solvers.equilibrium.approximate.opponent_model` (and tests); bots taking a model
refuse anything else (`check_opponent_model`). The rest: docs/equilibrium.md, "Approximate
exploitability of the full game".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from solvers.bot import Policy
from solvers.search.kernels.game import PolicyKernel

PolicyAtTable = Callable[[object, object, int], Policy]  # (rules, table, player) -> policy


@dataclasses.dataclass(frozen=True)
class CompiledPolicy:
  """Policy `name` of `kernel` (None: the game's registered policy kernel) read with
  `parameters` (given exactly when `kernel` is, the kernel's whole parameter array)."""
  name: str
  kernel: PolicyKernel | None = None
  parameters: np.ndarray | None = None

  def __post_init__(self):
    if (self.kernel is None) != (self.parameters is None):
      raise ValueError("a compiled policy gives a kernel and its parameters together; allowed:"
                       " both, or neither (the game's registered kernel and its defaults)")


@dataclasses.dataclass(frozen=True)
class OpponentModel:
  """The policy the other players are assumed to follow (see the module docstring)."""
  policy: PolicyAtTable
  compiled: CompiledPolicy | None = None
  key: str = ""


def check_opponent_model(model) -> None:
  """A ValueError unless `model` is an `OpponentModel` or None."""
  if model is not None and not isinstance(model, OpponentModel):
    raise ValueError(f"opponent_model is {model!r}; allowed: an OpponentModel"
                     " (solvers.search.opponent_model), or None")


def required_opponent_model(model, needs: str) -> None:
  """A ValueError starting with `needs` (what the bot needs it for) when `model` is None, else
  `check_opponent_model`'s."""
  if model is None:
    raise ValueError(f"{needs}: pass opponent_model, an OpponentModel"
                     " (solvers.search.opponent_model)")
  check_opponent_model(model)
