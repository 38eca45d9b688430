"""`CompiledSushiDraft`: Sushi Draft's compiled core behind the shared `CompiledCore` class, and
its `KernelSet`.

The class adds to the shared checked methods the observation key and random playouts; its
`kernels` (the `compiled.interface` set) are plain `@njit` functions of the spec and a position,
which other compiled code calls directly. The kernels are compiled on the first use in an
environment (numba caches them on disk): that first use says so on stderr, with the time it took;
later loads are silent.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import numpy as np

from sushigo_spiel.compiled.core import CompiledCore, checked_stream
from sushigo_spiel.compiled.interface import game_kernels, play_pointer
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_draft import chance, codec, knowledge, moves, policies, scoring
from sushigo_spiel.compiled.sushi_draft.layout import ACTIONS, build_spec
from sushigo_spiel.drafting.dynamics import SIMULTANEOUS
from sushigo_spiel.sushi_draft.rules import Rules

# --------------------------------------------------------------------------------------------
# Compiling on first use


def _exercise_kernels() -> None:
  """Calls every kernel once, with the argument types the core uses, on a small game dealt by
  hand and on the standard game dealt card by card."""
  for params in (dict(players=2, rounds=1, hand_size=3, deal="hand",
                      deck="tuna:3/shrimp:2/wild:1"), dict()):
    rules = Rules.from_params(**params)
    spec, n, rng = build_spec(rules), rules.num_players, new_state(0)
    pos = chance.initial_position(spec)
    size = rules.max_chance_outcomes
    chance.chance_outcomes(spec, pos, np.empty(size, dtype=np.int64), np.empty(size))
    outcome = chance.sample_chance(spec, pos, rng)
    chance.is_possible(spec, pos, outcome)
    chance.apply_chance(spec, pos, outcome)
    chance.skip_chance(spec, pos, rng)
    knowledge.determinize(spec, pos, 0, rng, play_pointer(moves.play))
    legal = np.empty(ACTIONS, dtype=np.int64)
    moves.legal_actions(spec, pos, 0, legal)
    before = pos.copy()
    actions = np.array([policies.random_action(spec, pos, p, rng, legal) for p in range(n)])
    moves.play(spec, pos, actions)
    knowledge.observation_key(spec, before, actions, pos, 0)
    out = np.zeros((1, n))
    policies.playout(spec, pos, rng, out[0])
    scoring.scores(spec, pos)
    scoring.returns(spec, pos, out[0])
    policies.playout_many(spec, 1, 0, out)


_HERE = pathlib.Path(__file__).resolve().parent
_PACKAGE = _HERE.parent.parent
KERNEL_SET = KernelSet(
    "Sushi Draft core",
    [_HERE.parent / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                              "utilities")] +
    [_HERE / f"{name}.py" for name in ("chance", "knowledge", "layout", "moves", "policies",
                                       "scoring", "views")] +
    [_PACKAGE / "sushi_draft" / f"{name}.py" for name in ("cards", "knowledge", "rules")] +
    [_PACKAGE / "drafting" / f"{name}.py" for name in ("dynamics", "parameters")],
    _exercise_kernels, policies.playout_many)


def ensure_compiled() -> None:
  """Readies the Sushi Draft core's set once per process; each kernel compiles on its first call."""
  KERNEL_SET.ensure()


# --------------------------------------------------------------------------------------------
# The Python-facing class


class CompiledSushiDraft(CompiledCore):
  """The compiled core for one Sushi Draft game (any parameters the pyspiel game accepts)."""

  rules_class = Rules
  build_spec = staticmethod(build_spec)
  kernel_set = KERNEL_SET
  chance, moves, scoring, knowledge, policies, codec = (chance, moves, scoring, knowledge,
                                                        policies, codec)
  kernels = game_kernels(chance, moves, scoring, knowledge, policies)

  def observation_key(self, before: np.ndarray, actions: Sequence[int], after: np.ndarray,
                      player: int) -> int:
    """A 64-bit key of what `player` observes of the step from `before` (a simultaneous node)
    with the joint action `actions` to `after` (`knowledge.observation`)."""
    self.expect_actor(before, SIMULTANEOUS, "an observation")
    self.check_joint(actions)
    return int(knowledge.observation_key(self.spec, before, np.asarray(actions, dtype=np.int64),
                                         self.checked_position(after), self.checked_player(player)))

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
