"""`CompiledSushiGo`: Sushi Go's compiled core behind the shared `CompiledCore` class (checked
methods around the kernels), and its `KernelSet`.

The class adds the greedy and heuristic baselines' choices, the heuristic's policy and playouts by
rollout policy; the kernels themselves (`chance`, `moves`, `knowledge`, `heuristic`, `policies`,
`scoring`) are plain `@njit` functions of the spec and a position, which other compiled code calls
directly.

The kernels are compiled on the first use in an environment (numba caches them on disk): that
first use says so on stderr, with the time it took; later loads are silent.
"""

from __future__ import annotations

import pathlib

import numpy as np

from sushigo_spiel.compiled.core import CompiledCore, checked_stream
from sushigo_spiel.compiled.sushi_go import (chance, codec, heuristic, knowledge, moves, policies,
                                             scoring, views)
from sushigo_spiel.compiled.interface import functions, game_kernels
from sushigo_spiel.compiled.jit import KernelSet
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR_SIMULTANEOUS, MAX_OUTCOMES, NUM_ACTIONS,
                                                    ROBOT, build_spec)
from sushigo_spiel.compiled.rng import new_state
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
    knowledge.determinize(spec, pos, 0, rng)
    if not spec[ROBOT]:
      knowledge.with_deal(spec, pos, np.stack([views.hand(spec, pos, p).astype(np.int64)
                                               for p in range(2)]))
    legal = np.empty(spec[NUM_ACTIONS], dtype=np.int64)
    moves.legal_actions(spec, pos, 0, legal)
    actions = np.array([policies.greedy_action(spec, pos, p, legal) for p in range(2)])
    params = np.zeros(heuristic.PARAMETERS_SIZE)
    heuristic.heuristic_action(spec, pos, 0, params, legal)
    heuristic.heuristic_policy(spec, pos, 0, params, legal, np.empty(len(legal)))
    policies.policy_action(spec, pos, 0, rng, legal, policies.HEURISTIC, params)
    moves.play(spec, pos, actions)
    out = np.zeros((1, 2))
    policies.playout(spec, pos, rng, policies.RANDOM, policies.NO_PARAMETERS, out[0])
    scoring.scores(spec, pos)
    policies.playout_many(spec, 1, 0, policies.GREEDY, policies.NO_PARAMETERS, out)
    policies.playout_many(spec, 1, 0, policies.HEURISTIC_EPS, params, out)


_HERE = pathlib.Path(__file__).resolve().parent
KERNELS = KernelSet(
    "Sushi Go core",
    [_HERE.parent / f"{name}.py" for name in ("hand_ranking", "hashing", "jit", "rng", "sampling",
                                              "utilities")] +
    [_HERE / f"{name}.py" for name in ("chance", "heuristic", "knowledge", "layout", "moves",
                                        "policies", "scoring", "views")],
    _exercise_kernels, policies.playout_many)


def ensure_compiled() -> None:
  """Compiles (or loads from numba's cache) every kernel of the Sushi Go core, once per process."""
  KERNELS.ensure()


class CompiledSushiGo(CompiledCore):
  """The compiled core for one Sushi Go game (any parameters the pyspiel game accepts)."""

  rules_class = Rules
  build_spec = staticmethod(build_spec)
  kernel_set = KERNELS
  chance, moves, scoring, knowledge, policies, codec = (chance, moves, scoring, knowledge,
                                                        policies, codec)
  kernels = game_kernels(chance, moves, scoring, knowledge, policies)

  def greedy_action(self, pos: np.ndarray, player: int) -> int:
    """The greedy baseline's choice (`solvers.baselines.GreedyBot`)."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a greedy action")
    return policies.greedy_action(self.spec, pos, self._player(player), self._legal)

  def heuristic_action(self, pos: np.ndarray, player: int, params: np.ndarray) -> int:
    """The heuristic baseline's choice (`solvers.baselines.HeuristicBot` with the parameters
    `params`, an array of `heuristic.parameters`); its most likely action if the temperature is
    above 0."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a heuristic action")
    return int(heuristic.heuristic_action(self.spec, pos, self._player(player),
                                          checked_parameters(params), self._legal))

  def heuristic_policy(self, pos: np.ndarray, player: int,
                       params: np.ndarray) -> list[tuple[int, float]]:
    """The heuristic baseline's policy, as `HeuristicBot.policy`: (action, probability) over the
    legal actions, increasing."""
    self._expect(pos, ACTOR_SIMULTANEOUS, "a heuristic policy")
    probabilities = np.empty(len(self._legal))
    count = heuristic.heuristic_policy(self.spec, pos, self._player(player),
                                       checked_parameters(params), self._legal, probabilities)
    return list(zip(self._legal[:count].tolist(), probabilities[:count].tolist()))

  def playout(self, pos: np.ndarray, rng: np.ndarray, policy: str = "random",
              params: np.ndarray | None = None) -> np.ndarray:
    """Plays `pos` to the end in place (chance by its probabilities, every player by the rollout
    policy named `policy`, of `policies.POLICIES`; `params` for the heuristic ones); returns the
    returns."""
    code, params = rollout_policy(policy, params)
    out = np.zeros(self.num_players)
    policies.playout(self.spec, self._checked(pos), checked_stream(rng), code, params, out)
    return out

  def playout_many(self, games: int, seed: int, policy: str = "random",
                   params: np.ndarray | None = None) -> np.ndarray:
    """Plays `games` whole games with one stream seeded with `seed`; their returns, by game."""
    self._check_games(games, seed)
    code, params = rollout_policy(policy, params)
    out = np.zeros((games, self.num_players))
    policies.playout_many(self.spec, games, seed, code, params, out)
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
  if name not in policies.POLICIES:
    raise ValueError(f"rollout policy {name!r} is unknown; allowed: {', '.join(policies.POLICIES)}")
  code = policies.POLICIES[name]
  if code in policies.PARAMETERISED:
    return code, checked_parameters(params)
  return code, policies.NO_PARAMETERS


def game_functions(params: np.ndarray = policies.NO_PARAMETERS) -> tuple:
  """Sushi Go's `GAME` tuple (`compiled.interface`): its kernels and policy kernel, with the
  policies' parameters `params`."""
  return functions(CompiledSushiGo.kernels, policies.policy_action, params)
