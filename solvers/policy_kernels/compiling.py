"""Compiling the policy kernels on first use: one `KernelSet` per game, `KERNELS` for the heuristic
and Sushi Go's rollout policies, `SUSHI_DRAFT_KERNELS` for Sushi Draft's random `policy_action`."""

from __future__ import annotations

import pathlib

import numpy as np

import sushigo_spiel
from solvers.policy_kernels import heuristic, sushi_draft, sushi_go
from sushigo_spiel.compiled.interface import POLICY_ACTION
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import chance
from sushigo_spiel.compiled.sushi_draft.core import KERNEL_SET as SUSHI_DRAFT_CORE_KERNELS
from sushigo_spiel.compiled.sushi_go.core import KERNELS as CORE_KERNELS
from sushigo_spiel.compiled.sushi_go.layout import NUM_ACTIONS, build_spec
from sushigo_spiel.sushi_go.rules import Rules


def _exercise() -> None:
  """Calls every kernel the package calls once, with the argument types used, on the standard
  game (`playout_many`, which only tests call, compiles on its first call)."""
  spec = build_spec(Rules.from_params())
  rng = new_state(0)
  pos = chance.initial_position(spec)
  chance.skip_chance(spec, pos, rng)
  legal = np.empty(spec[NUM_ACTIONS], dtype=np.int64)
  params = np.zeros(heuristic.PARAMETERS_SIZE)
  sushi_go.greedy_action(spec, pos, 0, legal)
  heuristic.heuristic_action(spec, pos, 0, params, legal)
  heuristic.heuristic_policy(spec, pos, 0, params, legal, np.empty(len(legal)))
  sushi_go.policy_action(spec, pos, 0, rng, legal, sushi_go.HEURISTIC, params)
  out = np.zeros((1, 2))
  sushi_go.playout(spec, pos, rng, sushi_go.RANDOM, sushi_go.NO_PARAMETERS, out[0],
                   sushi_go.PLAYING)
  sushi_go.play_round(spec, pos, rng, np.zeros(2, dtype=np.int64), params, sushi_go.PLAYING)
  dealt = chance.initial_position(spec)
  sushi_go.round_values(spec, dealt, rng, np.zeros(2, dtype=np.int64), params, 1, True,
                        np.empty(2), sushi_go.PLAYING)


_HERE = pathlib.Path(__file__).resolve().parent
_COMPILED = pathlib.Path(sushigo_spiel.__file__).resolve().parent / "compiled"
KERNELS = KernelSet(
    "baseline policy kernels",
    [_COMPILED / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                           "utilities")] +
    [_COMPILED / "sushi_go" / f"{name}.py" for name in ("chance", "knowledge", "layout", "moves",
                                                        "policies", "scoring", "views")] +
    [_HERE / f"{name}.py" for name in ("heuristic", "sushi_go")],
    _exercise, sushi_go.playout_many, requires=[CORE_KERNELS],
    # Cold compile, CPU seconds, each entry alone (the notice's estimate; `sushigo bench --cold`).
    expected={"policy_action": 14, "play_round": 2, "round_values": 3, "heuristic_action": 16,
              "heuristic_policy": 15, "greedy_action": 3, "playout": 3, "playout_many": 3})


def _exercise_sushi_draft() -> None:
  """Compiles Sushi Draft's policy kernel for the searches' signature (it has no other caller)."""
  sushi_draft.policy_action.compile(POLICY_ACTION)


SUSHI_DRAFT_KERNELS = KernelSet(
    "Sushi Draft policy kernel", [*SUSHI_DRAFT_CORE_KERNELS.sources, _HERE / "sushi_draft.py"],
    _exercise_sushi_draft, sushi_draft.policy_action, requires=[SUSHI_DRAFT_CORE_KERNELS])


def ensure_compiled() -> None:
  """Readies the policy kernels' set once per process; each kernel compiles on its first call."""
  KERNELS.ensure()
