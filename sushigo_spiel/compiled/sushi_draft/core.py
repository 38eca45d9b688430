"""`CompiledSushiDraft`: Sushi Draft's compiled core behind a small Python class, for one game's
`Rules`.

Each method checks its input and calls a kernel; the kernels themselves (`chance`, `moves`,
`scoring`, `knowledge`, `policies`) are plain `@njit` functions of the spec and a position, which
other compiled code calls directly through `kernels` (the `compiled.interface` set). Positions
are int32 arrays (`layout`) changed in place: copy one with `.copy()`. Randomness is a kernel
stream state (`rng.new_state(seed)`), advanced in place.

The kernels are compiled on the first use in an environment (numba caches them on disk): that
first use says so on stderr, with the time it took; later loads are silent.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import numpy as np

from sushigo_spiel.compiled.interface import GameKernels
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_draft import chance, codec, knowledge, moves, policies, scoring
from sushigo_spiel.compiled.sushi_draft.layout import (ACTIONS, ACTOR, ACTOR_CHANCE,
                                                       ACTOR_SIMULTANEOUS, MAX_OUTCOMES,
                                                       POSITION_DTYPE, POSITION_SIZE, build_spec)
from sushigo_spiel.sushi_draft.rules import Rules

KERNELS = GameKernels(
    initial_position=chance.initial_position, skip_chance=chance.skip_chance,
    legal_actions=moves.legal_actions, play=moves.play, returns=scoring.returns,
    determinize=knowledge.determinize, observation_key=knowledge.observation_key,
    random_action=policies.random_action)


class CompiledSushiDraft:
  """The compiled core for one Sushi Draft game (any parameters the pyspiel game accepts)."""

  kernels = KERNELS

  def __init__(self, rules: Rules):
    ensure_compiled()
    self.rules = rules
    self.spec = build_spec(rules)
    self.num_players = rules.num_players
    self._legal = np.empty(ACTIONS, dtype=np.int64)

  @classmethod
  def from_params(cls, **params) -> CompiledSushiDraft:
    """From the game string's parameters, checked by `Rules.from_params`."""
    return cls(Rules.from_params(**params))

  # ----- positions

  def initial_position(self) -> np.ndarray:
    return chance.initial_position(self.spec)

  def actor(self, pos: np.ndarray) -> int:
    """CHANCE, SIMULTANEOUS or TERMINAL (`drafting.dynamics`)."""
    return int(self._checked(pos)[ACTOR])

  def encode(self, table) -> np.ndarray:
    """The position of a rules `Table`."""
    return codec.encode(self.rules, self.spec, table)

  def decode(self, pos: np.ndarray):
    """The rules `Table` of a position."""
    return codec.decode(self.rules, self.spec, self._checked(pos))

  # ----- chance

  def chance_outcomes(self, pos: np.ndarray) -> list[tuple[int, float]]:
    self._expect(pos, ACTOR_CHANCE, "chance outcomes")
    size = self.spec[MAX_OUTCOMES]
    outcomes, probabilities = np.empty(size, dtype=np.int64), np.empty(size)
    count = chance.chance_outcomes(self.spec, pos, outcomes, probabilities)
    return list(zip(outcomes[:count].tolist(), probabilities[:count].tolist()))

  def apply_chance(self, pos: np.ndarray, outcome: int) -> None:
    """Applies a chance outcome in place; a ValueError if it is not possible here."""
    self._expect(pos, ACTOR_CHANCE, "a chance outcome")
    if not chance.is_possible(self.spec, pos, outcome):
      raise ValueError(f"chance outcome {outcome} is not possible at this node")
    chance.apply_chance(self.spec, pos, outcome)

  def sample_chance(self, pos: np.ndarray, rng: np.ndarray) -> int:
    self._expect(pos, ACTOR_CHANCE, "a chance outcome")
    return chance.sample_chance(self.spec, pos, self._stream(rng))

  def skip_chance(self, pos: np.ndarray, rng: np.ndarray) -> None:
    """Samples chance outcomes in place until a simultaneous node or the end."""
    chance.skip_chance(self.spec, self._checked(pos), self._stream(rng))

  # ----- moves

  def legal_actions(self, pos: np.ndarray, player: int, out: np.ndarray) -> int:
    """Writes the player's legal actions (increasing) into `out` (int64, at least
    `num_distinct_actions` long); returns how many."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "legal actions")
    if out.dtype != np.int64 or len(out) < ACTIONS:
      raise ValueError(f"legal actions need an int64 array of at least {ACTIONS} entries")
    return moves.legal_actions(self.spec, pos, self._player(player), out)

  def legal_action_list(self, pos: np.ndarray, player: int) -> list[int]:
    count = self.legal_actions(pos, player, self._legal)
    return self._legal[:count].tolist()

  def play(self, pos: np.ndarray, actions: Sequence[int]) -> None:
    """Plays one joint action in place; a ValueError naming the player if one is illegal."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a joint action")
    if len(actions) != self.num_players:
      raise ValueError(f"expected {self.num_players} actions, one per player; got {len(actions)}")
    for player, action in enumerate(actions):
      legal = self.legal_action_list(pos, player)
      if action not in legal:
        raise ValueError(f"player {player} cannot play action {action}; legal: {legal}")
    moves.play(self.spec, pos, np.asarray(actions, dtype=np.int64))

  def random_action(self, pos: np.ndarray, player: int, rng: np.ndarray) -> int:
    """A legal action drawn uniformly with one uniform (`rollouts.RandomPolicy`)."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a random action")
    return int(policies.random_action(self.spec, pos, self._player(player), self._stream(rng),
                                      self._legal))

  # ----- outcomes, knowledge, playouts

  def returns(self, pos: np.ndarray) -> np.ndarray:
    out = np.zeros(self.num_players)
    scoring.returns(self.spec, self._checked(pos), out)
    return out

  def scores(self, pos: np.ndarray) -> np.ndarray:
    """Chip points per player so far (`rules.totals`)."""
    return scoring.totals(self.spec, self._checked(pos))

  def determinize(self, pos: np.ndarray, player: int, rng: np.ndarray) -> np.ndarray:
    """A new position `player` cannot tell from `pos`, with what it has not seen redrawn."""
    return knowledge.determinize(self.spec, self._checked(pos), self._player(player),
                                 self._stream(rng))

  def observation_key(self, before: np.ndarray, actions: Sequence[int], after: np.ndarray,
                      player: int) -> int:
    """A 64-bit key of what `player` observes of the step from `before` (a simultaneous node)
    with the joint action `actions` to `after` (`knowledge.observation`)."""
    self._expect(before, ACTOR_SIMULTANEOUS, "an observation")
    if len(actions) != self.num_players:
      raise ValueError(f"expected {self.num_players} actions, one per player; got {len(actions)}")
    return int(knowledge.observation_key(self.spec, before, np.asarray(actions, dtype=np.int64),
                                         self._checked(after), self._player(player)))

  def playout(self, pos: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """Plays `pos` to the end in place at random (chance by its probabilities); the returns."""
    out = np.zeros(self.num_players)
    policies.playout(self.spec, self._checked(pos), self._stream(rng), out)
    return out

  def playout_many(self, games: int, seed: int) -> np.ndarray:
    """Plays `games` whole random games with one stream seeded with `seed`; their returns, by
    game."""
    if games < 0 or not 0 <= seed < 2 ** 64:
      raise ValueError(f"games must be >= 0 and seed in 0..2**64 - 1; got {games}, {seed}")
    out = np.zeros((games, self.num_players))
    policies.playout_many(self.spec, games, seed, out)
    return out

  # ----- checks

  def _checked(self, pos: np.ndarray) -> np.ndarray:
    if not isinstance(pos, np.ndarray) or pos.dtype != POSITION_DTYPE or \
        pos.shape != (self.spec[POSITION_SIZE],):
      raise ValueError(f"a position of this game is an int32 array of {self.spec[POSITION_SIZE]}"
                       " entries (from initial_position, encode or determinize)")
    return pos

  def _expect(self, pos: np.ndarray, actor: int, what: str) -> None:
    if self._checked(pos)[ACTOR] != actor:
      raise ValueError(f"{what} asked at a node whose actor is {int(pos[ACTOR])}, not {actor}")

  def _player(self, player: int) -> int:
    if not 0 <= player < self.num_players:
      raise ValueError(f"player {player} is out of range 0..{self.num_players - 1}")
    return player

  @staticmethod
  def _stream(rng: np.ndarray) -> np.ndarray:
    if not isinstance(rng, np.ndarray) or rng.dtype != np.uint64 or rng.shape != (4,):
      raise ValueError("a random stream is a uint64 array of 4 words (compiled.new_state)")
    return rng


# --------------------------------------------------------------------------------------------
# Compiling on first use


def _exercise_kernels() -> None:
  """Calls every kernel once, with the argument types the core uses, on a small game dealt by
  hand and on the standard game dealt card by card."""
  for params in (dict(players=2, rounds=1, hand_size=3, deal="hand",
                      deck="tuna:3/shrimp:2/wild:1"), dict()):
    spec = build_spec(Rules.from_params(**params))
    n, rng = params.get("players", 3), new_state(0)
    pos = chance.initial_position(spec)
    size = spec[MAX_OUTCOMES]
    chance.chance_outcomes(spec, pos, np.empty(size, dtype=np.int64), np.empty(size))
    outcome = chance.sample_chance(spec, pos, rng)
    chance.is_possible(spec, pos, outcome)
    chance.apply_chance(spec, pos, outcome)
    chance.skip_chance(spec, pos, rng)
    knowledge.determinize(spec, pos, 0, rng)
    legal = np.empty(ACTIONS, dtype=np.int64)
    moves.legal_actions(spec, pos, 0, legal)
    before = pos.copy()
    actions = np.array([policies.random_action(spec, pos, p, rng, legal) for p in range(n)])
    moves.play(spec, pos, actions)
    knowledge.observation_key(spec, before, actions, pos, 0)
    out = np.zeros((1, n))
    policies.playout(spec, pos, rng, out[0])
    scoring.totals(spec, pos)
    scoring.returns(spec, pos, out[0])
    policies.playout_many(spec, 1, 0, out)


_HERE = pathlib.Path(__file__).resolve().parent
_PACKAGE = _HERE.parent.parent
KERNEL_SET = KernelSet(
    "Sushi Draft core",
    [_HERE.parent / f"{name}.py" for name in ("hand_ranking", "jit", "rng", "sampling",
                                              "utilities")] +
    [_HERE / f"{name}.py" for name in ("chance", "knowledge", "layout", "moves", "policies",
                                       "scoring", "views")] +
    [_PACKAGE / "sushi_draft" / f"{name}.py" for name in ("cards", "knowledge", "rules")] +
    [_PACKAGE / "drafting" / f"{name}.py" for name in ("dynamics", "parameters")],
    _exercise_kernels, policies.playout_many)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) every kernel of the Sushi Draft core, once per
  process."""
  KERNEL_SET.ensure()
