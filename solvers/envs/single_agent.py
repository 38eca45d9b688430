"""`SushiGo-v0`: one learner against fixed opponents, as a single-agent `gymnasium.Env`.

  env = SushiGoEnv(players=3,
                   opponents=["heuristic", {"bot": "pimc", "params": {"iterations": 20}}])
  observation, info = env.reset(seed=0)
  observation, reward, terminated, truncated, info = env.step(action)

Opponents are named as in experiment configs (a bot name or a dict with `bot` and `params`), one
per other seat or one for all; the learner sits at `seat`. Underneath is the PettingZoo parallel
environment (`sushigo_spiel.envs.petting_zoo`): the same observations (the observer's tensor and
the action mask), rewards (the return by the game's `utility`) and game parameters. `reset(seed)`
seeds the generator of every deal and bot seed: the same seed and actions, the same episodes.
`action_masks()` gives the mask as booleans (MaskablePPO). `illegal_action` (`ILLEGAL_ACTIONS`):
"lose" (default: the episode ends with `illegal_reward`, the game's lowest return), "random_legal"
or "raise"; why "lose": docs/rl.md, "Illegal actions" (the rest: "Seeding", "The environments").
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np

from solvers import make_bot
from solvers.envs.batched import ILLEGAL_ACTIONS, checked_illegal_reward
from solvers.opponents import opponent_specs
from sushigo_spiel.envs.petting_zoo import RENDER_MODES, DraftingParallelEnv

SEED_BOUND = 2**63


class SushiGoEnv(gymnasium.Env):
  """One learner against fixed bots (see the module docstring)."""

  metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

  def __init__(self, game: str = "python_sushi_go", opponents: str | dict | Sequence = "random",
               seat: int = 0, observation_type: str = "observation",
               render_mode: str | None = None, illegal_action: str = "lose",
               illegal_reward: float | None = None, **params):
    if illegal_action not in ILLEGAL_ACTIONS:
      raise ValueError(f"illegal_action is {illegal_action!r}; allowed: "
                       f"{', '.join(ILLEGAL_ACTIONS)}")
    checked_illegal_reward(illegal_reward)
    self.players = DraftingParallelEnv(game, render_mode, observation_type, **params)
    self.game = self.players.game
    n = self.game.num_players()
    if not isinstance(seat, int) or not 0 <= seat < n:
      raise ValueError(f"seat is {seat!r}; allowed: 0 to {n - 1}")
    self.seat, self.agent = seat, self.players.possible_agents[seat]
    self.opponents = opponent_specs(opponents, n - 1)
    for spec, player in zip(self.opponents, self._opponent_seats()):
      make_bot(spec["bot"], self.game, player, 0, **spec["params"])  # refuses a bad spec now
    self.render_mode = render_mode
    self.illegal_action = illegal_action
    self.illegal_reward = float(self.game.min_utility() if illegal_reward is None
                                else illegal_reward)
    self.observation_space = self.players.observation_space(self.agent)
    self.action_space = self.players.action_space(self.agent)
    self._bots = []
    self._observation = None

  def reset(self, *, seed: int | None = None, options: dict | None = None):
    super().reset(seed=seed)
    self._bots = [make_bot(spec["bot"], self.game, player, self._draw_seed(), **spec["params"])
                  for spec, player in zip(self.opponents, self._opponent_seats())]
    observations, infos = self.players.reset(seed=self._draw_seed(), options=options)
    self._observation = observations[self.agent]
    return self._observation, {**infos[self.agent], "action_mask": self._observation["action_mask"]}

  def step(self, action):
    if self._observation is None:
      raise RuntimeError("step() before reset(): call reset() first")
    if not self.players.agents:
      raise RuntimeError("the episode is over: call reset() to start a new one")
    action, extra = self._checked_action(action), {}
    if self.illegal_action != "raise" and not self._is_legal(action):
      if self.illegal_action == "lose":
        return self._end_on_illegal_action(action)
      legal = np.flatnonzero(self._observation["action_mask"])
      played = int(legal[self.np_random.integers(len(legal))])
      extra["illegal_action"] = (f"{self._illegal_message(action)}; played {played} instead,"
                                 " drawn at random")
      action = played
    state = self.players.pyspiel_state()
    actions = {agent: bot.step(state) for agent, bot in zip(self._opponent_agents(), self._bots)}
    actions[self.agent] = action
    observations, rewards, terminations, truncations, infos = self.players.step(actions)
    self._observation = observations[self.agent]
    return (self._observation, rewards[self.agent], terminations[self.agent],
            truncations[self.agent],
            {**infos[self.agent], **extra, "action_mask": self._observation["action_mask"]})

  def render(self) -> str | None:
    return self.players.render()

  def action_masks(self) -> np.ndarray:
    """The legal actions as booleans (the method sb3-contrib's MaskablePPO asks for)."""
    if self._observation is None:
      raise RuntimeError("action_masks() before reset(): call reset() first")
    return self._observation["action_mask"].astype(bool)

  def _checked_action(self, action) -> int:
    """`action` as an int (a 0-d integer array too); anything else is refused whatever the rule,
    being a caller's mistake rather than an illegal move."""
    if isinstance(action, np.ndarray) and action.shape == ():
      action = action[()]
    if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
      raise ValueError(f"action is {action!r}; allowed: an integer action id, 0 to"
                       f" {self.action_space.n - 1}")
    return int(action)

  def _is_legal(self, action: int) -> bool:
    mask = self._observation["action_mask"]
    return 0 <= action < len(mask) and mask[action] == 1

  def _illegal_message(self, action: int) -> str:
    legal = np.flatnonzero(self._observation["action_mask"]).tolist()
    return f"{self.agent} cannot play action {action} here; allowed: {legal}"

  def _end_on_illegal_action(self, action):
    """Ends the episode with `illegal_reward`, naming the action and the legal ones in `info`."""
    self.players.agents = []
    observation = {key: value.copy() for key, value in self._observation.items()}
    return observation, self.illegal_reward, True, False, {
        "illegal_action": self._illegal_message(action),
        "action_mask": observation["action_mask"]}

  def _draw_seed(self) -> int:
    return int(self.np_random.integers(SEED_BOUND))

  def _opponent_seats(self) -> list[int]:
    return [p for p in range(self.game.num_players()) if p != self.seat]

  def _opponent_agents(self) -> list[str]:
    return [self.players.possible_agents[p] for p in self._opponent_seats()]


