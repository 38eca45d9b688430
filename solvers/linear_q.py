"""A linear action-value function over the observer's tensor, and the bot that plays it greedily.

The model: `Q(s, a) = weights[a] . features(observation(s))`, one weight vector per action id.
`features` codes each count x as whether x >= 1, 2, 3 and 4 (a thermometer code, so any function
of a count up to 4 is linear in it), x / 16 for larger values (points), and a constant. The same
function serves training (over the batched environment's arrays) and play, so a bot sees exactly
the features it was trained on. A model file is a `solvers.archives` archive of the weights and
JSON metadata (game string, observation type, training provenance).

  LinearQ(weights, metadata)                 .values(observations), .save(path), LinearQ.load(path)
  LinearQBot(game, player, seed, path=...)   the `linear_q` bot: the legal action of highest
                                             value, ties to the lowest id
The rest: docs/rl.md, "The worked example: linear Q-learning against the heuristic".
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from solvers import archives
from solvers.bot import Bot, Policy

THRESHOLDS = np.arange(1, 5, dtype=np.float32)
POINTS_SCALE = np.float32(1 / 16)


def feature_count(observation_size: int) -> int:
  return observation_size * (len(THRESHOLDS) + 1) + 1


def features(observations: np.ndarray) -> np.ndarray:
  """The features of a batch of observations (games x tensor size) as float32 (games x
  `feature_count`): thermometer codes, the scaled counts, a constant 1."""
  batch = observations.shape[0]
  steps = observations[:, :, None] >= THRESHOLDS
  return np.concatenate([steps.reshape(batch, -1).astype(np.float32),
                         observations * POINTS_SCALE, np.ones((batch, 1), np.float32)], axis=1)


@dataclasses.dataclass
class LinearQ:
  """Action values linear in `features`: `weights` is actions x features."""
  weights: np.ndarray
  metadata: dict

  def values(self, observations: np.ndarray) -> np.ndarray:
    """Q values of every action (games x actions) for a batch of observations."""
    return features(observations) @ self.weights.T

  def save(self, path: str) -> str:
    """Writes the model with the digest of its content (`solvers.archives`), atomically, after
    checking its weights as a load does; returns the digest."""
    arrays = {"weights": np.asarray(self.weights)}
    check_model(archives.Archive(path, WHAT, arrays, self.metadata, "", saving=True))
    return archives.save(path, arrays, self.metadata)

  @classmethod
  def load(cls, path: str) -> LinearQ:
    """The model saved at `path`; one ValueError naming the path and what is wrong if it is no
    valid model file (`solvers.archives`: digest, damage, weights not finite or not a matrix)."""
    archive = archives.load(path, WHAT)
    check_model(archive)
    return cls(archive.arrays["weights"], archive.metadata)


WHAT = "linear Q model"


def check_model(archive: archives.Archive) -> None:
  """Refuses `archive` unless its weights are a finite float matrix and its metadata names the
  game and observation type the model reads."""
  weights = archives.check_array(archive, "weights", "f", 2)
  archives.check_finite(archive, "weights", weights, non_negative=False)
  for name in ("game", "observation_type"):
    if not isinstance(archive.metadata.get(name), str):
      raise archive.error(f"its metadata names no {name}")


def masked_argmax(values: np.ndarray, masks: np.ndarray) -> np.ndarray:
  """Per row, the legal action (mask 1) of highest value, ties to the lowest id."""
  return np.where(masks.astype(bool), values, -np.inf).argmax(axis=1)


class LinearQBot(Bot):
  """Plays a saved `LinearQ` model greedily: the legal action of highest value at its player's
  observation (the observer's tensor of the type it was trained on). It plays for what it was
  trained on (`objective`, as `PolicyBot`'s: `Bot.check_objective_trained`)."""

  PARAMETERS = {"path": "", "objective": "auto"}
  cheap_policy = True

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    self.model = self.load_saved(LinearQ.load, "model")
    trained = pyspiel.load_game(self.model.metadata["game"])
    self.check_trained_for(trained, "model")
    self.check_objective_trained(trained, "model")
    self.observer = self.game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=self.model.metadata["observation_type"] == "information_state",
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))

  def policy_at(self, table) -> Policy:
    self.observer.set_from_table(table, self.player_id)
    mask = np.zeros((1, self.game.num_distinct_actions()), dtype=np.int8)
    mask[0, self.dynamics.legal_actions(self.rules, table, self.player_id)] = 1
    action = masked_argmax(self.model.values(self.observer.tensor[None, :]), mask)[0]
    return [(int(action), 1.0)]
