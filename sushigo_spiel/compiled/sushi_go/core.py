"""`CompiledSushiGo`: the compiled core behind a small Python class, for one game's `Rules`.

Each method is a thin check-and-call around a kernel; the kernels themselves (`chance`, `moves`,
`knowledge`, `policies`, `scoring`) are plain `@njit` functions of the spec and a position, which
other compiled code calls directly. Positions are int32 arrays (`layout`) changed in place: copy
one with `.copy()`. Randomness is a kernel stream state (`rng.new_state(seed)`), advanced in
place.

The kernels are compiled on the first use in an environment (numba caches them on disk): that
first use says so on stderr, with the time it took; later loads are silent.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import numpy as np

from sushigo_spiel.compiled.sushi_go import chance, codec, knowledge, moves, policies, scoring
from sushigo_spiel.compiled.interface import GameKernels
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_CHANCE, ACTOR_SIMULTANEOUS,
                                                    MAX_OUTCOMES, NUM_ACTIONS, build_spec)
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.sushi_go.rules import Rules


class CompiledSushiGo:
  """The compiled core for one Sushi Go game (any parameters the pyspiel game accepts)."""

  def __init__(self, rules: Rules):
    ensure_compiled()
    self.rules = rules
    self.spec = build_spec(rules)
    self.num_players = rules.num_players
    self._legal = np.empty(self.spec[NUM_ACTIONS], dtype=np.int64)

  @property
  def kernels(self) -> GameKernels:
    """The kernels of `compiled.interface`, for compiled code above the game (search)."""
    return KERNEL_FUNCTIONS

  @classmethod
  def from_params(cls, **params) -> CompiledSushiGo:
    """From the game string's parameters, checked by `Rules.from_params`."""
    return cls(Rules.from_params(**params))

  # ----- positions

  def initial_position(self) -> np.ndarray:
    return chance.initial_position(self.spec)

  def actor(self, pos: np.ndarray) -> int:
    """CHANCE, SIMULTANEOUS or TERMINAL (`drafting.dynamics`)."""
    return int(pos[ACTOR])

  def encode(self, table) -> np.ndarray:
    """The position of a rules `Table`."""
    return codec.encode(self.rules, self.spec, table)

  def decode(self, pos: np.ndarray):
    """The rules `Table` of a position."""
    return codec.decode(self.rules, self.spec, pos)

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
    return chance.sample_chance(self.spec, pos, rng)

  def skip_chance(self, pos: np.ndarray, rng: np.ndarray) -> None:
    """Samples chance outcomes in place until a simultaneous node or the end."""
    chance.skip_chance(self.spec, pos, rng)

  # ----- moves

  def legal_actions(self, pos: np.ndarray, player: int, out: np.ndarray) -> int:
    """Writes the player's legal actions (increasing) into `out` (int64, at least
    `num_distinct_actions` long); returns how many."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "legal actions")
    return moves.legal_actions(self.spec, pos, player, out)

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

  def greedy_action(self, pos: np.ndarray, player: int) -> int:
    """The greedy baseline's choice (`solvers.baselines.GreedyBot`)."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a greedy action")
    return policies.greedy_action(self.spec, pos, player, self._legal)

  # ----- outcomes, determinization, playouts

  def returns(self, pos: np.ndarray) -> np.ndarray:
    out = np.zeros(self.num_players)
    scoring.returns(self.spec, pos, out)
    return out

  def scores(self, pos: np.ndarray) -> np.ndarray:
    """Points per player: finished rounds, plus Pudding points once the game is over."""
    return scoring.scores(self.spec, pos)

  def determinize(self, pos: np.ndarray, player: int, rng: np.ndarray) -> np.ndarray:
    """A new position `player` cannot tell from `pos`, with what it has not seen redealt."""
    return knowledge.determinize(self.spec, pos, player, rng)

  def playout(self, pos: np.ndarray, rng: np.ndarray, policy: str = "random") -> np.ndarray:
    """Plays `pos` to the end in place (chance by its probabilities); returns the returns."""
    out = np.zeros(self.num_players)
    policies.playout(self.spec, pos, rng, policies.POLICIES[policy], out)
    return out

  def playout_many(self, games: int, seed: int, policy: str = "random") -> np.ndarray:
    """Plays `games` whole games with one stream seeded with `seed`; their returns, by game."""
    out = np.zeros((games, self.num_players))
    policies.playout_many(self.spec, games, seed, policies.POLICIES[policy], out)
    return out

  def _expect(self, pos: np.ndarray, actor: int, what: str) -> None:
    if pos[ACTOR] != actor:
      raise ValueError(f"{what} asked at a node whose actor is {int(pos[ACTOR])}, not {actor}")


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
    knowledge.determinize(spec, pos, 0, rng)
    legal = np.empty(spec[NUM_ACTIONS], dtype=np.int64)
    moves.legal_actions(spec, pos, 0, legal)
    actions = np.array([policies.greedy_action(spec, pos, p, legal) for p in range(2)])
    policies.random_action(spec, pos, 0, rng, legal)
    before = pos.copy()
    moves.play(spec, pos, actions)
    knowledge.observation_key(spec, before, actions, pos, 0)
    out = np.zeros((1, 2))
    policies.playout(spec, pos, rng, policies.RANDOM, out[0])
    scoring.scores(spec, pos)
    policies.playout_many(spec, 1, 0, policies.GREEDY, out)


KERNEL_FUNCTIONS = GameKernels(
    initial_position=chance.initial_position, skip_chance=chance.skip_chance,
    legal_actions=moves.legal_actions, play=moves.play, returns=scoring.returns,
    determinize=knowledge.determinize, observation_key=knowledge.observation_key,
    random_action=policies.random_action)

_HERE = pathlib.Path(__file__).resolve().parent
KERNELS = KernelSet(
    "game core",
    [_HERE.parent / f"{name}.py" for name in ("hashing", "jit", "rng", "sampling")] +
    [_HERE / f"{name}.py" for name in ("chance", "knowledge", "layout", "moves", "policies",
                                        "scoring", "views")],
    _exercise_kernels, policies.playout_many)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) every kernel of the game core, once per process."""
  KERNELS.ensure()
