"""The PPO agent's network, its file, and the bot that plays it; numpy only, so that playing a
trained agent needs neither JAX nor the `learn` extra.

  forward(params, observations, masks, xp)    logits (illegal: MASKED) and values; `xp` is numpy
                                              here and `jax.numpy` in the trainer (one function)
  forward_inputs(params, inputs(observations), masks, xp)    the same in two parts
  Network(params, metadata)                   .save(path), Network.load(path), .policy(...)
  PPOBot(game, player, seed, path=..., play=...)   the bot `ppo`

An agent file is a `solvers.archives` archive of the arrays of `PARAMETER_NAMES` and JSON metadata
(the game it was trained for, its observation type, its training's provenance); a training
checkpoint is an agent file with the optimizer's and environments' state beside it, so it plays
too. The architecture and the rest: docs/ppo.md.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel

from solvers import archives
from solvers.bot import Bot, Policy

WHAT = "PPO agent"
PARAMETER_NAMES = ("hidden_1", "bias_1", "hidden_2", "bias_2", "policy", "policy_bias", "value",
                   "value_bias")
MASKED = -1e9  # the logit of an illegal action: exp() of it minus any legal logit is 0
PLAYS = ("greedy", "sample")


def initial_parameters(observation_size: int, num_actions: int, hidden: int,
                       rng: np.random.Generator) -> dict[str, np.ndarray]:
  """Orthogonal initial weights (gain sqrt(2) for the hidden layers, 0.01 for the policy head,
  1 for the value head, as is usual for PPO), zero biases, float32."""
  sizes = {"hidden_1": (observation_size, hidden, np.sqrt(2)),
           "hidden_2": (hidden, hidden, np.sqrt(2)), "policy": (hidden, num_actions, 0.01),
           "value": (hidden, 1, 1.0)}
  params = {}
  for name, (rows, columns, gain) in sizes.items():
    q, r = np.linalg.qr(rng.standard_normal((max(rows, columns), min(rows, columns))))
    q = q * np.sign(np.diag(r))
    weights = q if rows >= columns else q.T
    params[name] = (gain * weights[:rows, :columns]).astype(np.float32)
    params["bias_1" if name == "hidden_1" else "bias_2" if name == "hidden_2" else
           f"{name}_bias"] = np.zeros(columns, np.float32)
  return {name: params[name] for name in PARAMETER_NAMES}


def forward(params, observations, masks, xp=np):
  """Masked logits (games x actions; illegal actions at `MASKED`) and values (games) of a batch
  of observations, with the array module `xp`."""
  return forward_inputs(params, inputs(observations, xp), masks, xp)


def inputs(observations, xp=np):
  """What the first layer reads: the observations as log(1 + x)."""
  return xp.log1p(observations)


def forward_inputs(params, first_layer_inputs, masks, xp=np):
  """`forward` from `inputs(observations)`, so that a training computes them once a rollout,
  not once an epoch."""
  hidden = xp.tanh(first_layer_inputs @ params["hidden_1"] + params["bias_1"])
  hidden = xp.tanh(hidden @ params["hidden_2"] + params["bias_2"])
  logits = hidden @ params["policy"] + params["policy_bias"]
  logits = xp.where(masks > 0, logits, MASKED)
  return logits, (hidden @ params["value"] + params["value_bias"])[:, 0]


@dataclasses.dataclass
class Network:
  """A trained agent: its parameters (`PARAMETER_NAMES`) and metadata."""
  params: dict[str, np.ndarray]
  metadata: dict

  def save(self, path: str, extra: dict[str, np.ndarray] | None = None) -> str:
    """Writes the agent (and `extra` arrays beside it, a checkpoint's) atomically with its
    digest (`solvers.archives`), after checking it as a load does; returns the digest."""
    arrays = {**{name: np.asarray(self.params[name]) for name in PARAMETER_NAMES},
              **(extra or {})}
    check_agent(archives.Archive(path, WHAT, arrays, self.metadata, "", saving=True))
    return archives.save(path, arrays, self.metadata)

  @classmethod
  def load(cls, path: str) -> Network:
    """The agent saved at `path` (an agent file or a training checkpoint); one ValueError naming
    the path and what is wrong otherwise."""
    archive = archives.load(path, WHAT)
    check_agent(archive)
    return cls({name: archive.arrays[name] for name in PARAMETER_NAMES}, archive.metadata)

  def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The policy's probabilities (games x actions), zero on illegal actions."""
    logits, _ = forward(self.params, observations.astype(np.float32), masks)
    logits = logits - logits.max(axis=1, keepdims=True)
    weights = np.where(masks > 0, np.exp(logits), 0.0)
    return weights / weights.sum(axis=1, keepdims=True)


def check_agent(archive: archives.Archive) -> None:
  """Refuses `archive` unless it holds finite float32 parameters of matching shapes and metadata
  naming the game and observation type the agent reads."""
  arrays = {name: archives.check_array(archive, name, "f", 1 if "bias" in name else 2)
            for name in PARAMETER_NAMES}
  for name, values in arrays.items():
    archives.check_finite(archive, name, values, non_negative=False)
  chain = (("hidden_1", "bias_1"), ("hidden_2", "bias_2"), ("policy", "policy_bias"),
           ("value", "value_bias"))
  for weights, bias in chain:
    if arrays[weights].shape[1] != arrays[bias].shape[0]:
      raise archive.error(f"its {weights!r} and {bias!r} arrays do not fit together")
  for before, after in (("hidden_1", "hidden_2"), ("hidden_2", "policy"), ("hidden_2", "value")):
    if arrays[before].shape[1] != arrays[after].shape[0]:
      raise archive.error(f"its {before!r} and {after!r} arrays do not fit together")
  if arrays["value"].shape[1] != 1:
    raise archive.error("its 'value' array has more than one column")
  for name in ("game", "observation_type"):
    if not isinstance(archive.metadata.get(name), str):
      raise archive.error(f"its metadata names no {name}")


class PPOBot(Bot):
  """Plays a saved PPO agent at its player's observation (the observer's tensor of the type it
  was trained on): `play="greedy"` takes the most probable legal action (ties to the lowest id),
  `play="sample"` draws from the policy."""

  PARAMETERS = {"path": "", "play": "greedy"}
  cheap_policy = True

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    if self.params["play"] not in PLAYS:
      raise ValueError(f"parameter 'play' is {self.params['play']!r}; allowed:"
                       f" {', '.join(PLAYS)}")
    self.network = self.load_saved(Network.load, "agent")
    self.check_trained_for(pyspiel.load_game(self.network.metadata["game"]), "agent")
    reads = self.network.params["hidden_1"].shape[0]
    self.observer = self.game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=self.network.metadata["observation_type"] == "information_state",
        private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    if self.observer.tensor.size != reads or \
        self.network.params["policy"].shape[1] != self.game.num_distinct_actions():
      raise ValueError(f"the agent at {self.params['path']} reads {reads} observation entries"
                       f" and has {self.network.params['policy'].shape[1]} actions; this game's"
                       f" observation has {self.observer.tensor.size} and it has"
                       f" {self.game.num_distinct_actions()} actions")

  def policy_at(self, table) -> Policy:
    self.observer.set_from_table(table, self.player_id)
    mask = np.zeros((1, self.game.num_distinct_actions()), dtype=np.int8)
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    mask[0, legal] = 1
    probabilities = self.network.probabilities(self.observer.tensor[None, :], mask)[0]
    if self.params["play"] == "greedy":
      best = int(np.argmax(probabilities))
      return [(best, 1.0)]
    return [(int(action), float(probabilities[action])) for action in legal]
