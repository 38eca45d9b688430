"""The Gymnasium spaces every environment of the package shares: one player's observation, the
observer's tensor beside the action mask (PettingZoo's classic convention)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pyspiel


def _tensor_bound(game: pyspiel.Game) -> float:
  """An upper bound of every entry of the game's observer tensors: a count of cards or chips, a
  one-hot, or points."""
  rules = game.rules
  return float(max(rules.score_bounds()[1], sum(getattr(rules, "deck", ())), 1))


def observation_space(game: pyspiel.Game, size: int) -> gymnasium.spaces.Dict:
  """The observation space of one player: the observer's tensor and the action mask."""
  return gymnasium.spaces.Dict({
      "observation": gymnasium.spaces.Box(0.0, _tensor_bound(game), (size,), np.float32),
      "action_mask": gymnasium.spaces.Box(0, 1, (game.num_distinct_actions(),), np.int8),
  })
