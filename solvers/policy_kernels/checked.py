"""`SushiGoPolicies`: the baselines' and rollout policies' kernels on one Sushi Go core, behind
methods that check what they are given (as `CompiledCore` does for the rules' kernels)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solvers.policy_kernels import heuristic, sushi_go
from solvers.policy_kernels.compiling import ensure_compiled
from sushigo_spiel.compiled.core import checked_stream
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.compiled.sushi_go.layout import ACTOR_CHANCE, ACTOR_SIMULTANEOUS


class SushiGoPolicies:
  """The greedy and heuristic baselines' choices, the heuristic's policy and playouts by rollout
  policy, on `core` (a `CompiledSushiGo`). Making the first one in a process readies the policy
  kernels' set; each kernel is compiled, or loaded from numba's cache, on its first call."""

  def __init__(self, core: CompiledSushiGo):
    ensure_compiled()
    self.core, self.spec = core, core.spec
    self._legal = np.empty(core.rules.num_distinct_actions, dtype=np.int64)

  @classmethod
  def from_params(cls, **params) -> SushiGoPolicies:
    """On the core of the game string's parameters."""
    return cls(CompiledSushiGo.from_params(**params))

  def greedy_action(self, pos: np.ndarray, player: int) -> int:
    """The greedy baseline's choice (`solvers.baselines.GreedyBot`)."""
    self.core.expect_actor(pos, ACTOR_SIMULTANEOUS, "a greedy action")
    return int(sushi_go.greedy_action(self.spec, pos, self.core.checked_player(player), self._legal))

  def heuristic_action(self, pos: np.ndarray, player: int, params: np.ndarray) -> int:
    """The heuristic baseline's choice (`solvers.baselines.HeuristicBot` with the parameters
    `params`, an array of `heuristic.parameters`); its most likely action if the temperature is
    above 0."""
    self.core.expect_actor(pos, ACTOR_SIMULTANEOUS, "a heuristic action")
    return int(heuristic.heuristic_action(self.spec, pos, self.core.checked_player(player),
                                          checked_parameters(params), self._legal))

  def heuristic_policy(self, pos: np.ndarray, player: int,
                       params: np.ndarray) -> list[tuple[int, float]]:
    """The heuristic baseline's policy, as `HeuristicBot.policy`: (action, probability) over the
    legal actions, increasing."""
    self.core.expect_actor(pos, ACTOR_SIMULTANEOUS, "a heuristic policy")
    probabilities = np.empty(len(self._legal))
    count = heuristic.heuristic_policy(self.spec, pos, self.core.checked_player(player),
                                       checked_parameters(params), self._legal, probabilities)
    return list(zip(self._legal[:count].tolist(), probabilities[:count].tolist()))

  def playout(self, pos: np.ndarray, rng: np.ndarray, policy: str = "random",
              params: np.ndarray | None = None) -> np.ndarray:
    """Plays `pos` to the end in place (chance by its probabilities, every player by the rollout
    policy named `policy`, of `sushi_go.POLICIES`; `params` for the heuristic ones); returns the
    returns."""
    code, params = rollout_policy(policy, params)
    out = np.zeros(self.core.num_players)
    sushi_go.playout(self.spec, self.core.checked_position(pos), checked_stream(rng), code, params,
                     out, sushi_go.PLAYING)
    return out

  def play_round(self, pos: np.ndarray, rng: np.ndarray, policies: Sequence[str],
                 params: np.ndarray | None = None) -> None:
    """Plays `pos` in place until the round's decisions are over (the next node is chance or the
    end), seat p by the rollout policy named `policies[p]`; `params` for the heuristic ones."""
    self.play_round_coded(pos, rng, *self.joint_codes(policies, params))

  def joint_codes(self, policies: Sequence[str],
                  params: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' codes of the rollout policies named `policies[p]`, one per seat, and the
    parameter array they read: `play_round_coded`'s arguments, checked once for many rounds."""
    self.core.check_joint(policies)
    codes = np.array([rollout_policy(name, params)[0] for name in policies], dtype=np.int64)
    return codes, sushi_go.NO_PARAMETERS if params is None else checked_parameters(params)

  def play_round_coded(self, pos: np.ndarray, rng: np.ndarray, codes: np.ndarray,
                       params: np.ndarray) -> None:
    """`play_round` with the policies given by `joint_codes`."""
    sushi_go.play_round(self.spec, self.core.checked_position(pos), checked_stream(rng), codes,
                        params, sushi_go.PLAYING)

  def round_values(self, pos: np.ndarray, rng: np.ndarray, codes: np.ndarray,
                   params: np.ndarray, plays: int, redeal: bool = False) -> np.ndarray:
    """Each seat's points at the end of the round under way, averaged over `plays` plays from
    `pos`, seats playing by the policies given by `joint_codes`; with `redeal`, `pos` is a chance
    node and each play first deals from it at random."""
    if plays < 1:
      raise ValueError(f"plays = {plays}; allowed: an integer >= 1")
    if redeal:
      self.core.expect_actor(pos, ACTOR_CHANCE, "a redeal")
    out = np.zeros(self.core.num_players)
    sushi_go.round_values(self.spec, self.core.checked_position(pos), checked_stream(rng), codes,
                          params, plays, redeal, out, sushi_go.PLAYING)
    return out

  def playout_many(self, games: int, seed: int, policy: str = "random",
                   params: np.ndarray | None = None) -> np.ndarray:
    """Plays `games` whole games with one stream seeded with `seed`; their returns, by game."""
    self.core.check_games(games, seed)
    code, params = rollout_policy(policy, params)
    out = np.zeros((games, self.core.num_players))
    sushi_go.playout_many(self.spec, games, seed, code, params, out, sushi_go.PLAYING)
    return out


def checked_parameters(params: np.ndarray) -> np.ndarray:
  """`params` if it is a heuristic parameter array (`heuristic.parameters`); a ValueError else."""
  if not isinstance(params, np.ndarray) or params.shape != (heuristic.PARAMETERS_SIZE,) or \
      params.dtype != np.float64:
    raise ValueError(f"heuristic parameters {params!r}; allowed: the float64 array of"
                     " heuristic.parameters(values)")
  return params


def rollout_policy(name: str, params: np.ndarray | None) -> tuple[int, np.ndarray]:
  """The code of rollout policy `name` and its parameter array; a ValueError for an unknown name
  or a heuristic policy without parameters."""
  if name not in sushi_go.POLICIES:
    raise ValueError(f"rollout policy {name!r} is unknown; allowed: {', '.join(sushi_go.POLICIES)}")
  code = sushi_go.POLICIES[name]
  if code in sushi_go.PARAMETERISED:
    return code, checked_parameters(params)
  return code, sushi_go.NO_PARAMETERS

