"""The batched environment (`solvers.envs.batched.SushiGoBatch`) as a `gymnasium.vector.VectorEnv`,
for code written against Gymnasium's vector API, and `SushiGo-v0`'s vector entry point, whose
opponents are named as in experiment configs (`solvers.opponents.compiled_opponents`: random,
greedy, heuristic with any parameters):

  env = SushiGoVectorEnv(num_envs=1024, opponents="greedy", seed=0, players=3)
  env = gymnasium.make_vec("SushiGo-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                           opponents="heuristic", players=2)
  observations, infos = env.reset(seed=0)
  observations, rewards, terminations, truncations, infos = env.step(actions)

Observations are a dict of two arrays, `observation` (num_envs x the observer tensor's size) and
`action_mask` (num_envs x actions, int8), as in the PettingZoo environments. Games reset in the
step that ends them (`autoreset_mode` SAME_STEP): that step's observation is already the new
game's, and the reward is the finished game's return. Nothing truncates. The arrays are the
batch's own, overwritten by the next step: copy what you keep.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solvers.envs.batched import SushiGoBatch
from solvers.opponents import compiled_opponents
from sushigo_spiel.envs.games import load_game
from sushigo_spiel.envs.spaces import observation_space

# The batch's own keyword arguments; the others are the game's parameters.
BATCH_ARGUMENTS = ("opponents", "seat", "observation_type", "seed")


class SushiGoVectorEnv(VectorEnv):
  """`SushiGoBatch` behind Gymnasium's vector API; arguments as `SushiGoBatch`'s."""

  metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

  def __init__(self, num_envs: int = 1024, **kwargs):
    self.batch = SushiGoBatch(num_envs, **kwargs)
    game_params = {k: v for k, v in kwargs.items() if k not in BATCH_ARGUMENTS}
    game = load_game("python_sushi_go", game_params)
    self.num_envs = num_envs
    self.single_observation_space = observation_space(game, self.batch.observation_size)
    self.single_action_space = gymnasium.spaces.Discrete(self.batch.num_actions)
    self.observation_space = batch_space(self.single_observation_space, num_envs)
    self.action_space = batch_space(self.single_action_space, num_envs)
    self._truncations = np.zeros(num_envs, dtype=bool)

  def reset(self, *, seed: int | None = None, options: dict | None = None):
    del options  # none are defined
    observations, masks = self.batch.reset(seed)
    return {"observation": observations, "action_mask": masks}, {}

  def step(self, actions):
    observations, rewards, dones, masks = self.batch.step(actions)
    return ({"observation": observations, "action_mask": masks}, rewards, dones,
            self._truncations, {})


def make_vector_env(num_envs: int = 1024, opponents="random", **kwargs) -> SushiGoVectorEnv:
  """The batch of `num_envs` Sushi Go games against `opponents`; the other keyword arguments are
  the batch's (`seat`, `observation_type`, `seed`) and the game's parameters."""
  game = load_game("python_sushi_go", {k: v for k, v in kwargs.items()
                                        if k not in BATCH_ARGUMENTS})
  return SushiGoVectorEnv(num_envs, opponents=compiled_opponents(game, opponents), **kwargs)
