"""A learned best response: an agent trained against a fixed policy, then played greedily (as in
Timbers et al. 2022, "Approximate exploitability: learning a best response").

Training plays `games` games on the rules' tables, the agent in its seat and the policy (read
through `OpponentModel.policy`) elsewhere. The agent is a linear action-value model over its
observation (`solvers.linear_q`), learned by one-step Q-learning with normalized least-mean-squares
steps (rate = learning_rate / |features(s)|^2), exploring epsilon-greedily, epsilon and rate
decaying linearly to `FINAL_EPSILON` and `FINAL_RATE` of their first values. Its return is its
`objective` ("auto": the game's own returns; "margin"; "win"), read in `bot.responder_game`.
Played, it takes the legal action of highest value (ties to the lowest id): a fixed strategy, so
its paired gain is a lower bound on the policy's exploitability like any responder's.

Training streams use `spawn_key=(TRAINING_STREAM, seat)`, never an evaluation game's; the same
parameters give the same weights bit for bit, trained once per (game, seat, policy, parameters)
in the process (`trained_model`). The rest: docs/equilibrium.md, "Approximate exploitability".
"""

from __future__ import annotations

import collections
import random

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, responder_game
from solvers.linear_q import LinearQ, feature_count, features
from solvers.search.opponent_model import OpponentModel, required_opponent_model
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.drafting.sampling import draw_action

TRAINING_STREAM = 2**31 - 1  # the first spawn key of training streams; evaluation's is a seat
FINAL_EPSILON = 0.02
FINAL_RATE = 0.05  # the learning rate's last share of its first value
_KEPT_MODELS = 16  # trained models kept per process


class LearnedBestResponseBot(Bot):
  """Plays the linear Q model trained against the policy `opponent_model` describes (module
  docstring); trains on its first move, or takes the model trained with the same game, seat,
  policy and parameters in this process. `policy_key` names the policy in that cache; without it
  nothing is cached."""

  PARAMETERS = {"games": 20_000, "training_seed": 0, "learning_rate": 0.1, "epsilon": 0.3,
                "objective": "auto"}

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               opponent_model: OpponentModel | None = None, policy_key: str = "", **params):
    super().__init__(game, player_id, seed, **params)
    required_opponent_model(opponent_model,
                            "a learned best response needs the policy it trains against")
    p = self.params
    if not isinstance(p["games"], int) or p["games"] < 1:
      raise ValueError(f"parameter 'games' is {p['games']!r}; allowed: an integer >= 1")
    if not isinstance(p["training_seed"], int) or p["training_seed"] < 0:
      raise ValueError(f"parameter 'training_seed' is {p['training_seed']!r}; allowed: an"
                       " integer >= 0")
    if not 0 < p["learning_rate"] <= 1:
      raise ValueError(f"parameter 'learning_rate' is {p['learning_rate']!r}; allowed: a number"
                       " in (0, 1]")
    if not 0 <= p["epsilon"] <= 1:
      raise ValueError(f"parameter 'epsilon' is {p['epsilon']!r}; allowed: a number in [0, 1]")
    self.model = opponent_model
    self.policy_key = policy_key
    self.observer = self.game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    self._trained: LinearQ | None = None

  def policy_at(self, table) -> Policy:
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    values = self.trained().weights[legal] @ self._features(table)
    best = legal[int(np.argmax(values))]  # legal actions ascend: ties go to the lowest id
    return [(action, float(action == best)) for action in legal]

  def trained(self) -> LinearQ:
    """The model, trained on first use: taken from the process's cache when the policy is named
    (`policy_key`), trained afresh otherwise."""
    if self._trained is None:
      if not self.policy_key:
        self._trained = self.train()
      else:
        key = (str(self.game), self.player_id, self.policy_key,
               tuple(sorted(self.params.items())))
        self._trained = trained_model(key, self.train)
    return self._trained

  def train(self) -> LinearQ:
    """Trains a fresh model against the policy (module docstring)."""
    rules, dynamics, me = self.rules, self.dynamics, self.player_id
    scoring = responder_game(self.game, self.params["objective"]).rules
    games, rate0, epsilon0 = (self.params[k] for k in ("games", "learning_rate", "epsilon"))
    stream = np.random.SeedSequence(self.params["training_seed"],
                                    spawn_key=(TRAINING_STREAM, me))
    uniform = random.Random(int(stream.generate_state(1)[0])).random
    weights = np.zeros((self.game.num_distinct_actions(),
                        feature_count(self.observer.tensor.size)))
    players = range(rules.num_players)
    for game in range(games):
      left = 1 - game / games
      epsilon, rate = max(FINAL_EPSILON, epsilon0 * left), rate0 * max(FINAL_RATE, left)
      previous = None  # (features, action) of the agent's last decision
      table = dynamics.initial_table(rules)
      while table.actor != TERMINAL:
        if table.actor == CHANCE:
          table = dynamics.skip_chance(rules, table, uniform)
          continue
        now = self._features(table)
        legal = dynamics.legal_actions(rules, table, me)
        values = weights[legal] @ now
        if previous is not None:
          _step(weights, *previous, float(values.max()), rate)
        action = legal[int(uniform() * len(legal))] if uniform() < epsilon else \
            legal[int(np.argmax(values))]
        previous = (now, action)
        table = dynamics.play(rules, table, [
            action if p == me else draw_action(self.model.policy(rules, table, p), uniform)
            for p in players])
      _step(weights, *previous, dynamics.returns(scoring, table)[me], rate)
    return LinearQ(weights, {"game": str(self.game), "observation_type": "observation",
                             "seat": me, "policy": self.policy_key, **self.params})

  def _features(self, table) -> np.ndarray:
    self.observer.set_from_table(table, self.player_id)
    return features(self.observer.tensor[None, :])[0].astype(np.float64)


def _step(weights: np.ndarray, feature_row: np.ndarray, action: int, target: float,
          rate: float) -> None:
  """One normalized least-mean-squares step of `action`'s value towards `target`."""
  error = target - weights[action] @ feature_row
  weights[action] += rate * error / (feature_row @ feature_row) * feature_row


_MODELS: collections.OrderedDict = collections.OrderedDict()


def trained_model(key, train) -> LinearQ:
  """The model trained under `key` in this process, else `train()`, kept for the next asker
  (the `_KEPT_MODELS` most recent)."""
  if key in _MODELS:
    _MODELS.move_to_end(key)
    return _MODELS[key]
  model = _MODELS[key] = train()
  if len(_MODELS) > _KEPT_MODELS:
    _MODELS.popitem(last=False)
  return model
