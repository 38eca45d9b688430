"""`SushiGo-v0`'s vector entry point: the compiled batch (`sushigo_spiel.envs.vector`) with its
opponents named as in experiment configs (`solvers.opponents.compiled_opponents`: random, greedy,
heuristic with any parameters).

  gymnasium.make_vec("SushiGo-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                     opponents="heuristic", players=2)
"""

from __future__ import annotations

from solvers.opponents import compiled_opponents
from sushigo_spiel.envs.games import load_game
from sushigo_spiel.envs.vector import BATCH_ARGUMENTS, SushiGoVectorEnv


def make_vector_env(num_envs: int = 1024, opponents="random", **kwargs) -> SushiGoVectorEnv:
  """The batch of `num_envs` Sushi Go games against `opponents`; the other keyword arguments are
  the batch's (`seat`, `observation_type`, `seed`) and the game's parameters."""
  game = load_game("python_sushi_go", {k: v for k, v in kwargs.items()
                                        if k not in BATCH_ARGUMENTS})
  return SushiGoVectorEnv(num_envs, opponents=compiled_opponents(game, opponents), **kwargs)
