"""The batched environments (`SushiGoBatch`, `SushiDraftBatch`) as a `gymnasium.vector.VectorEnv`,
and `SushiGo-v0`'s vector entry point, whose opponents are named as in experiment configs
(`solvers.opponents.compiled_opponents`: random, greedy, heuristic; random for Sushi Draft):

  env = SushiGoVectorEnv(num_envs=1024, opponents="greedy", seed=0, players=3)
  observations, infos = env.reset(seed=0)
  observations, rewards, terminations, truncations, infos = env.step(actions)

Observations are a dict of `observation` (num_envs x the observer tensor) and `action_mask`
(num_envs x actions, int8); a step's info `illegal_action` says which games' actions were outside
their masks (Gymnasium's vector-info convention). `illegal_action` is as in `SushiGo-v0`, with the
same default "lose". Games reset in the step that ends them (`AutoresetMode.SAME_STEP`: that
step's observation is the new game's, the reward the finished game's); nothing truncates. The
arrays are the batch's own, overwritten by the next step: copy what you keep.
The rest: docs/rl.md, sections "Observations and actions" and "Rewards and episodes".
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from solvers.envs.batched import SushiGoBatch
from solvers.envs.batched_sushi_draft import SushiDraftBatch
from solvers.opponents import compiled_opponents
from sushigo_spiel.envs.games import load_game
from sushigo_spiel.envs.spaces import observation_space

# The batch's own keyword arguments; the others are the game's parameters.
BATCH_ARGUMENTS = ("opponents", "seat", "observation_type", "seed", "illegal_action",
                   "illegal_reward")
BATCHES = {"python_sushi_go": SushiGoBatch, "python_sushi_draft": SushiDraftBatch}


class SushiGoVectorEnv(VectorEnv):
  """A game's batch behind Gymnasium's vector API; `game` one of `BATCHES`, the other arguments as
  the batch's, except that `illegal_action` defaults to "lose"."""

  metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

  def __init__(self, num_envs: int = 1024, game: str = "python_sushi_go",
               illegal_action: str = "lose", **kwargs):
    if game not in BATCHES:
      raise ValueError(f"game is {game!r}; allowed: {', '.join(BATCHES)}")
    self.batch = BATCHES[game](num_envs, illegal_action=illegal_action, **kwargs)
    game_params = {k: v for k, v in kwargs.items() if k not in BATCH_ARGUMENTS}
    pyspiel_game = load_game(game, game_params)
    self.num_envs = num_envs
    self.single_observation_space = observation_space(pyspiel_game, self.batch.observation_size)
    self.single_action_space = gymnasium.spaces.Discrete(self.batch.num_actions)
    self.observation_space = batch_space(self.single_observation_space, num_envs)
    self.action_space = batch_space(self.single_action_space, num_envs)
    self._truncations = np.zeros(num_envs, dtype=bool)
    self._everyone = np.ones(num_envs, dtype=bool)

  def reset(self, *, seed: int | None = None, options: dict | None = None):
    del options  # none are defined
    observations, masks = self.batch.reset(seed)
    return {"observation": observations, "action_mask": masks}, {
        "action_mask": masks, "_action_mask": self._everyone}

  def step(self, actions):
    observations, rewards, dones, masks = self.batch.step(actions)
    return ({"observation": observations, "action_mask": masks}, rewards, dones,
            self._truncations, {"action_mask": masks, "_action_mask": self._everyone,
                                "illegal_action": self.batch.illegal(),
                                "_illegal_action": self._everyone})

  def action_masks(self) -> np.ndarray:
    """The legal actions of every game's next decision, num_envs x actions booleans (the method
    sb3-contrib's MaskablePPO asks for)."""
    return self.batch.masks().astype(bool)


def make_vector_env(num_envs: int = 1024, opponents="random", game: str = "python_sushi_go",
                    **kwargs) -> SushiGoVectorEnv:
  """The batch of `num_envs` games of `game` against `opponents`; the other keyword arguments are
  the batch's (`seat`, `observation_type`, `seed`, `illegal_action`, `illegal_reward`) and the
  game's parameters."""
  if game not in BATCHES:
    raise ValueError(f"game is {game!r}; allowed: {', '.join(BATCHES)}")
  pyspiel_game = load_game(game, {k: v for k, v in kwargs.items() if k not in BATCH_ARGUMENTS})
  return SushiGoVectorEnv(num_envs, game=game,
                          opponents=compiled_opponents(pyspiel_game, opponents), **kwargs)
