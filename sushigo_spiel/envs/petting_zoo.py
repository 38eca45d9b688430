"""Both games as PettingZoo environments: a `ParallelEnv` (every player picks at once, the games'
own form) and an AEC environment (PettingZoo's conversion of it, players acting in turn).

`parallel_env(game, **params)` and `env(game, **params)` take the game's name and any parameter of
its game string as keyword arguments. Agents are `player_0` to `player_{n-1}`, seat for seat. Each
observation is a dict: `observation`, the player's tensor from the game's observer, and
`action_mask`, int8 ones at the legal pyspiel action ids. Rewards are the returns by the game's
`utility`, paid when the game ends (every agent terminates at once; nothing truncates). The same
`reset(seed=...)` and the same actions give the same game.

Observation types, rendering, seeding and bad input: docs/rl.md, "The environments" onwards.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pyspiel
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from sushigo_spiel.envs.games import load_game
from sushigo_spiel.envs.spaces import observation_space

OBSERVATION_TYPES = ("observation", "information_state")
RENDER_MODES = ("human", "ansi")


def parallel_env(game: str = "python_sushi_go", **kwargs) -> DraftingParallelEnv:
  """The parallel environment of `game` (`render_mode`, `observation_type` and the game's
  parameters as keyword arguments)."""
  return DraftingParallelEnv(game, **kwargs)


def env(game: str = "python_sushi_go", **kwargs) -> AECEnv:
  """The AEC environment of `game`: the parallel one through PettingZoo's `parallel_to_aec`."""
  return parallel_to_aec(DraftingParallelEnv(game, **kwargs))


class DraftingParallelEnv(ParallelEnv):
  """One drafting game as a PettingZoo `ParallelEnv` (see the module docstring)."""

  metadata = {"name": "sushigo_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True}

  def __init__(self, game: str = "python_sushi_go", render_mode: str | None = None,
               observation_type: str = "observation", **params):
    if render_mode is not None and render_mode not in RENDER_MODES:
      raise ValueError(f"render_mode is {render_mode!r}; allowed: None, {', '.join(RENDER_MODES)}")
    if observation_type not in OBSERVATION_TYPES:
      raise ValueError(f"observation_type is {observation_type!r}; allowed: "
                       f"{', '.join(OBSERVATION_TYPES)}")
    self.game = load_game(game, params)
    self.render_mode = render_mode
    self.observation_type = observation_type
    self.possible_agents = [f"player_{p}" for p in range(self.game.num_players())]
    self.agents = []
    self._observer = self.game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=observation_type == "information_state",
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    self._global_observer = self.game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    self._text = self.game.text_class(self.game)
    self._observation_space = observation_space(self.game, len(self._observer.tensor))
    self.state_space = observation_space(
        self.game, len(self._global_observer.tensor))["observation"]
    self._action_space = gymnasium.spaces.Discrete(self.game.num_distinct_actions())
    self._rng = np.random.default_rng()
    self._state = None
    self._last_text = ""

  def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
    self._seat(agent)
    return self._observation_space

  def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
    self._seat(agent)
    return self._action_space

  def reset(self, seed: int | None = None, options: dict | None = None):
    """A new game, dealt up to the first decision; the generator reseeded when `seed` is given."""
    del options  # none are defined
    if seed is not None:
      self._rng = np.random.default_rng(seed)
    self._state = self.game.new_initial_state()
    self._skip_chance()
    self.agents = self.possible_agents[:]
    self._last_text = f"Game: {self.game}"
    if self.render_mode == "human":
      self.render()
    return self._observations(), {agent: {} for agent in self.agents}

  def step(self, actions: dict):
    """One joint move: an action for every agent still playing."""
    if self._state is None:
      raise RuntimeError("step() before reset(): call reset() first")
    if not self.agents:
      raise RuntimeError("the game is over: call reset() to start a new one")
    joint = self._joint_action(actions)
    before = self._state.clone() if self.render_mode else None
    self._state.apply_actions(joint)
    self._skip_chance()
    if self.render_mode:
      self._last_text = self._text.step_text(before, joint, self._state)
      if self.render_mode == "human":
        self.render()
    over = self._state.is_terminal()
    agents = self.agents
    returns = self._state.returns() if over else [0.0] * len(agents)
    observations = self._observations()
    rewards = {agent: float(returns[self._seat(agent)]) for agent in agents}
    if over:
      self.agents = []
    return (observations, rewards, dict.fromkeys(agents, over), dict.fromkeys(agents, False),
            {agent: {} for agent in agents})

  def render(self) -> str | None:
    """The last move as `sushigo play` tells it (the game string after a reset): printed in
    "human" mode, returned in "ansi" mode."""
    if self.render_mode is None:
      gymnasium.logger.warn("render() called without a render_mode; allowed: "
                            f"{', '.join(RENDER_MODES)} (e.g. parallel_env(render_mode='ansi'))")
      return None
    if self.render_mode == "ansi":
      return self._last_text
    print(self._last_text)
    return None

  def close(self) -> None:
    """Nothing to release."""

  def state(self) -> np.ndarray:
    """The global state, for centralized critics: the observer's tensor with every player's hand
    (`private_info` ALL_PLAYERS), seats numbered from player 0."""
    self._global_observer.set_from(self.pyspiel_state(), 0)
    return self._global_observer.tensor.copy()

  def pyspiel_state(self) -> pyspiel.State:
    """The pyspiel state of the game being played (shared: clone it before changing it)."""
    if self._state is None:
      raise RuntimeError("no game yet: call reset() first")
    return self._state

  def _seat(self, agent: str) -> int:
    try:
      return self.possible_agents.index(agent)
    except ValueError:
      raise ValueError(f"unknown agent {agent!r}; allowed: {', '.join(self.possible_agents)}") \
          from None

  def _joint_action(self, actions: dict) -> list[int]:
    """The actions in seat order; a ValueError names a missing, unknown or illegal action."""
    missing = [agent for agent in self.agents if agent not in actions]
    extra = [agent for agent in actions if agent not in self.agents]
    if missing or extra:
      raise ValueError(f"step() needs one action per agent playing ({', '.join(self.agents)});"
                       f" missing: {missing or 'none'}, not playing: {extra or 'none'}")
    joint = []
    for agent in self.agents:
      player, action = self._seat(agent), actions[agent]
      legal = self._state.legal_actions(player)
      integer = isinstance(action, (int, np.integer)) and not isinstance(action, bool)
      if not integer or action not in legal:
        names = "; ".join(f"{a} ({self._state.action_to_string(player, a)})" for a in legal)
        shown = int(action) if integer else repr(action)
        raise ValueError(f"{agent} cannot play action {shown} here; allowed: {names}")
      joint.append(int(action))
    return joint

  def _skip_chance(self) -> None:
    """Samples chance outcomes from the generator up to a decision or the end."""
    dynamics, rules = self.game.dynamics, self.game.rules
    while self._state.is_chance_node():
      self._state.apply_action(dynamics.sample_chance(rules, self._state.table(),
                                                      self._rng.random))

  def _observations(self) -> dict:
    return {agent: self._observe(p) for p, agent in enumerate(self.possible_agents)
            if agent in self.agents}

  def _observe(self, player: int) -> dict:
    self._observer.set_from(self._state, player)
    mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
    mask[self._state.legal_actions(player)] = 1
    return {"observation": self._observer.tensor.copy(), "action_mask": mask}
