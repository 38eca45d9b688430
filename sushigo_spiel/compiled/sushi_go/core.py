"""`CompiledSushiGo`: Sushi Go's compiled core behind the shared `CompiledCore` class (checked
methods around the kernels), and its `KernelSet`.

The class adds random playouts to the shared checked methods; the kernels themselves (`chance`,
`moves`, `knowledge`, `policies`, `scoring`) are plain `@njit` functions of the spec and a
position, which other compiled code calls directly. The baselines' policies over this core (greedy,
the heuristic) are solver kernels (`solvers.policy_kernels`).

Each kernel is compiled on its first call in an environment (numba caches it on disk): that
first call says so on stderr, with the time it took; later loads are silent.
"""

from __future__ import annotations

import pathlib

import numpy as np

from sushigo_spiel.compiled.core import CompiledCore, checked_stream
from sushigo_spiel.compiled.interface import game_kernels, play_pointer
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import (chance, codec, knowledge, moves, policies, scoring,
                                             views)
from sushigo_spiel.compiled.sushi_go.layout import MAX_OUTCOMES, NUM_ACTIONS, ROBOT, build_spec
from sushigo_spiel.sushi_go.rules import Rules

# --------------------------------------------------------------------------------------------
# Compiling on first use


def _exercise_kernels() -> None:
  """Calls every kernel once, with the argument types the core uses, on a small robot game with
  Chopsticks dealt by hand and on the standard game dealt card by card."""
  for params in (dict(robot=True, hand_size=3, rounds=1, deal="hand",
                      deck="chopsticks:2/wasabi:2/squid:2/maki2:2/pudding:1"), dict()):
    spec = build_spec(Rules.from_params(**params))
    rng = new_state(0)
    pos = chance.initial_position(spec)
    size = spec[MAX_OUTCOMES]
    chance.chance_outcomes(spec, pos, np.empty(size, dtype=np.int64), np.empty(size))
    outcome = chance.sample_chance(spec, pos, rng)
    chance.is_possible(spec, pos, outcome)
    chance.apply_chance(spec, pos, outcome)
    chance.skip_chance(spec, pos, rng)
    knowledge.determinize(spec, pos, 0, rng, play_pointer(moves.play))
    if not spec[ROBOT]:
      knowledge.with_deal(spec, pos, np.stack([views.hand(spec, pos, p).astype(np.int64)
                                               for p in range(2)]), play_pointer(moves.play))
    legal = np.empty(spec[NUM_ACTIONS], dtype=np.int64)
    moves.legal_actions(spec, pos, 0, legal)
    before = pos.copy()
    actions = np.array([policies.random_action(spec, pos, p, rng, legal) for p in range(2)])
    moves.play(spec, pos, actions)
    knowledge.observation_key(spec, before, actions, pos, 0)
    out = np.zeros((1, 2))
    policies.playout(spec, pos, rng, out[0])
    scoring.scores(spec, pos)
    policies.playout_many(spec, 1, 0, out)


_HERE = pathlib.Path(__file__).resolve().parent
_SOURCES = (
    [_HERE.parent / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                              "utilities")] +
    [_HERE / f"{name}.py" for name in ("chance", "knowledge", "layout", "moves", "policies",
                                        "scoring", "views")])
# The kernels both games share (rng, sampling, ...) are compiled under this set's name and lock.
# Cold compile, CPU seconds, each entry alone (the notice's estimate; `sushigo bench --cold`).
_EXPECTED = {"initial_position": 2, "skip_chance": 2, "scores": 1, "returns": 2, "play": 4,
             "legal_actions": 1, "determinize": 7, "playout": 11, "playout_many": 13}
KERNELS = KernelSet("Sushi Go core", _SOURCES, _exercise_kernels, policies.playout_many,
                    owns=_SOURCES, expected=_EXPECTED)


def ensure_compiled() -> None:
  """Readies the Sushi Go core's set once per process; each kernel compiles on its first call."""
  KERNELS.ensure()


class CompiledSushiGo(CompiledCore):
  """The compiled core for one Sushi Go game (any parameters the pyspiel game accepts)."""

  rules_class = Rules
  build_spec = staticmethod(build_spec)
  kernel_set = KERNELS
  chance, moves, scoring, knowledge, policies, codec = (chance, moves, scoring, knowledge,
                                                        policies, codec)
  kernels = game_kernels(chance, moves, scoring, knowledge, policies)

  def playout(self, pos: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """Plays `pos` to the end in place at random (chance by its probabilities); the returns."""
    out = np.zeros(self.num_players)
    policies.playout(self.spec, self.checked_position(pos), checked_stream(rng), out)
    return out

  def playout_many(self, games: int, seed: int) -> np.ndarray:
    """Plays `games` whole random games with one stream seeded with `seed`; their returns, by
    game."""
    self.check_games(games, seed)
    out = np.zeros((games, self.num_players))
    policies.playout_many(self.spec, games, seed, out)
    return out
