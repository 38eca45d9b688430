"""`CompiledCore`: the Python-facing class both games' compiled cores share, checked methods
around unchecked kernels.

A game's core (`sushi_go.core.CompiledSushiGo`, `sushi_draft.core.CompiledSushiDraft`) subclasses
it, naming its `Rules` class, its spec builder, its `KernelSet` and its kernel modules, which
offer the same names in both games: `chance` (initial_position, chance_outcomes, is_possible,
apply_chance, sample_chance, skip_chance), `moves` (legal_actions, play), `scoring` (scores,
returns), `knowledge` (determinize), `policies` (random_action) and `codec` (blank_position,
encode, decode).

Every method checks what it is given (the node's actor, the player, the action, the outcome, the
arrays' types and sizes) before a kernel sees it: a kernel trusts its input. Positions are int32
arrays changed in place (copy one with `.copy()`); randomness is a kernel stream state
(`rng.new_state(seed)`), advanced in place. Creating the first core of a game in a process readies
its `jit.KernelSet`; each kernel is compiled, or loaded from numba's cache, on its first call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sushigo_spiel.compiled.interface import ACTOR, play_pointer
from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS


class CompiledCore:
  """The compiled core for one game's `Rules` (any parameters the pyspiel game accepts)."""

  rules_class: type
  build_spec = None  # a staticmethod: the spec of checked `Rules`
  kernel_set = None  # the game's `jit.KernelSet`
  chance = moves = scoring = knowledge = policies = codec = None  # the kernel modules

  def __init__(self, rules):
    self.kernel_set.ensure()
    self.rules = rules
    self.spec = self.build_spec(rules)
    self.num_players = rules.num_players
    self._legal = np.empty(rules.num_distinct_actions, dtype=np.int64)
    self._position = self.codec.blank_position(self.spec)  # the shape and type of a position

  @classmethod
  def from_params(cls, **params):
    """From the game string's parameters, checked by the game's `Rules.from_params`."""
    return cls(cls.rules_class.from_params(**params))

  # ----- positions

  def initial_position(self) -> np.ndarray:
    return self.chance.initial_position(self.spec)

  def actor(self, pos: np.ndarray) -> int:
    """CHANCE, SIMULTANEOUS or TERMINAL (`drafting.dynamics`)."""
    return int(self.checked_position(pos)[ACTOR])

  def encode(self, table) -> np.ndarray:
    """The position of a rules `Table`."""
    return self.codec.encode(self.rules, self.spec, table)

  def decode(self, pos: np.ndarray):
    """The rules `Table` of a position."""
    return self.codec.decode(self.rules, self.spec, self.checked_position(pos))

  # ----- chance

  def chance_outcomes(self, pos: np.ndarray) -> list[tuple[int, float]]:
    self.expect_actor(pos, CHANCE, "chance outcomes")
    size = self.rules.max_chance_outcomes
    outcomes, probabilities = np.empty(size, dtype=np.int64), np.empty(size)
    count = self.chance.chance_outcomes(self.spec, pos, outcomes, probabilities)
    return list(zip(outcomes[:count].tolist(), probabilities[:count].tolist()))

  def apply_chance(self, pos: np.ndarray, outcome: int) -> None:
    """Applies a chance outcome in place; a ValueError if it is not possible here."""
    self.expect_actor(pos, CHANCE, "a chance outcome")
    if not self.chance.is_possible(self.spec, pos, outcome):
      raise ValueError(f"chance outcome {outcome} is not possible at this node")
    self.chance.apply_chance(self.spec, pos, outcome)

  def sample_chance(self, pos: np.ndarray, rng: np.ndarray) -> int:
    self.expect_actor(pos, CHANCE, "a chance outcome")
    return self.chance.sample_chance(self.spec, pos, checked_stream(rng))

  def skip_chance(self, pos: np.ndarray, rng: np.ndarray) -> None:
    """Samples chance outcomes in place until a simultaneous node or the end."""
    self.chance.skip_chance(self.spec, self.checked_position(pos), checked_stream(rng))

  # ----- moves

  def legal_actions(self, pos: np.ndarray, player: int, out: np.ndarray) -> int:
    """Writes the player's legal actions (increasing) into `out` (int64, at least
    `num_distinct_actions` long); returns how many."""
    self.expect_actor(pos, SIMULTANEOUS, "legal actions")
    if out.dtype != np.int64 or len(out) < len(self._legal):
      raise ValueError(f"legal actions need an int64 array of at least {len(self._legal)}"
                       " entries")
    return self.moves.legal_actions(self.spec, pos, self.checked_player(player), out)

  def legal_action_list(self, pos: np.ndarray, player: int) -> list[int]:
    count = self.legal_actions(pos, player, self._legal)
    return self._legal[:count].tolist()

  def play(self, pos: np.ndarray, actions: Sequence[int]) -> None:
    """Plays one joint action in place; a ValueError naming the player if one is illegal."""
    self.expect_actor(pos, SIMULTANEOUS, "a joint action")
    self.check_joint(actions)
    for player, action in enumerate(actions):
      legal = self.legal_action_list(pos, player)
      if action not in legal:
        raise ValueError(f"player {player} cannot play action {action}; legal: {legal}")
    self.moves.play(self.spec, pos, np.asarray(actions, dtype=np.int64))

  def random_action(self, pos: np.ndarray, player: int, rng: np.ndarray) -> int:
    """A legal action drawn uniformly with one uniform (`rollouts.RandomPolicy`)."""
    self.expect_actor(pos, SIMULTANEOUS, "a random action")
    return int(self.policies.random_action(self.spec, pos, self.checked_player(player),
                                           checked_stream(rng), self._legal))

  # ----- outcomes and knowledge

  def returns(self, pos: np.ndarray) -> np.ndarray:
    out = np.zeros(self.num_players)
    self.scoring.returns(self.spec, self.checked_position(pos), out)
    return out

  def scores(self, pos: np.ndarray) -> np.ndarray:
    """Points per player so far (`Dynamics.scores`)."""
    return self.scoring.scores(self.spec, self.checked_position(pos))

  def determinize(self, pos: np.ndarray, player: int, rng: np.ndarray) -> np.ndarray:
    """A new position `player` cannot tell from `pos`, with what it has not seen redrawn."""
    return self.knowledge.determinize(self.spec, self.checked_position(pos),
                                      self.checked_player(player), checked_stream(rng),
                                      play_pointer(self.moves.play))

  # ----- checks, for this class and for checked classes over other kernels on the same core

  def checked_position(self, pos: np.ndarray) -> np.ndarray:
    """`pos` if it is a position of this game; a ValueError else."""
    if not isinstance(pos, np.ndarray) or pos.dtype != self._position.dtype or \
        pos.shape != self._position.shape:
      raise ValueError(f"a position of this game is an {self._position.dtype} array of"
                       f" {len(self._position)} entries (from initial_position, encode or"
                       " determinize)")
    return pos

  def expect_actor(self, pos: np.ndarray, actor: int, what: str) -> None:
    """A ValueError, naming `what` was asked, unless `pos` is a position whose actor is `actor`."""
    if self.checked_position(pos)[ACTOR] != actor:
      raise ValueError(f"{what} asked at a node whose actor is {int(pos[ACTOR])}, not {actor}")

  def checked_player(self, player: int) -> int:
    """`player` if it is one of the game's players; a ValueError else."""
    if not 0 <= player < self.num_players:
      raise ValueError(f"player {player} is out of range 0..{self.num_players - 1}")
    return player

  def check_joint(self, actions: Sequence) -> None:
    """A ValueError unless `actions` holds one entry per player."""
    if len(actions) != self.num_players:
      raise ValueError(f"expected {self.num_players} actions, one per player; got {len(actions)}")

  @staticmethod
  def check_games(games: int, seed: int) -> None:
    """A ValueError unless `games` and `seed` are a playout count and a 64-bit seed."""
    if games < 0 or not 0 <= seed < 2 ** 64:
      raise ValueError(f"games must be >= 0 and seed in 0..2**64 - 1; got {games}, {seed}")


def checked_stream(rng: np.ndarray) -> np.ndarray:
  """`rng` if it is a kernel stream state, else a ValueError."""
  if not isinstance(rng, np.ndarray) or rng.dtype != np.uint64 or rng.shape != (4,):
    raise ValueError("a random stream is a uint64 array of 4 words (compiled.new_state)")
  return rng
