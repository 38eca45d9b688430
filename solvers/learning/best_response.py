"""A learned best response by PPO: the trainer of `solvers.learning.ppo` in one seat against a fixed
policy in every other seat, then played greedily (Timbers et al. 2022, with PPO as the learner);
the responder `ppo` of approximate exploitability (`solvers.equilibrium.approximate`).

The fixed policy must be one the batched core plays exactly: the baselines' compiled policies
(random, greedy, heuristic) or one CFR blueprint's (`kernels.blueprint_policy`). The agent reads
the information-state tensor by default, as an exact best response does; played, it takes the most
probable legal action (ties to the lowest id), so its paired gain is a lower bound on the policy's
exploitability. Its rewards are its `objective` ("auto": the game's own returns; "margin"; "win"),
in `bot.responder_game`, divided by `REWARD_SCALES`. Training draws everything from
`training_seed`, never an evaluation game's stream; an agent is kept per (game, seat, policy,
parameters) in the process, and with `one_agent` one agent trains in every seat at once.
The rest: docs/ppo.md, "A learned best response".
"""

from __future__ import annotations

import collections

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, responder_game
from solvers.learning.network import Network
from solvers.opponents import COMPILED_BOTS, compiled_opponents
from solvers.policy_kernels.sushi_go import BLUEPRINT_POLICIES
from solvers.search.opponent_model import OpponentModel, required_opponent_model

_KEPT = 16  # trained agents kept per process
REWARD_SCALES = {"score": 20.0, "margin": 20.0, "win": 1.0}  # the rewards' divisor, by utility
_AGENTS: collections.OrderedDict = collections.OrderedDict()


class PPOBestResponseBot(Bot):
  """Plays the PPO agent trained against the policy `opponent_model` describes (module
  docstring); trains on its first move, or takes the agent trained with the same game, seat,
  policy and parameters in this process."""

  # Monte Carlo returns (gae_lambda 1) and a wider network than the league's agent: in trials on
  # `small` against greedy (seat 0), the league's settings stalled near 0.7 of the exact gain,
  # however long they trained. A strong entropy bonus (0.2, against the league's 0.01) keeps the
  # agent exploring against a deterministic policy instead of settling on its first good line;
  # with 150 iterations these defaults find 0.9 of the exact gain or more on the reduced games,
  # but on `large` against the heuristic, which takes longer (its validation trains for 400
  # iterations: experiments/ppo_best_response.py, experiments/results/ppo-best-response).
  PARAMETERS = {"iterations": 150, "training_seed": 0, "num_envs": 512, "rollout_steps": 8,
                "epochs": 4, "minibatches": 8, "learning_rate": 1e-3, "entropy_coef": 0.2,
                "anneal_entropy": False, "gae_lambda": 1.0, "hidden": 256,
                "observation_type": "information_state", "one_agent": False, "objective": "auto"}

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               opponent_model: OpponentModel | None = None, policy_key: str = "", **params):
    super().__init__(game, player_id, seed, **params)
    required_opponent_model(opponent_model,
                            "a learned best response needs the policy it trains against")
    compiled = opponent_model.compiled
    baseline = compiled is not None and compiled.kernel is None and compiled.name in COMPILED_BOTS
    if not baseline and (compiled is None or compiled.name not in BLUEPRINT_POLICIES):
      raise ValueError("the ppo responder trains against the policy in the batched core, which"
                       f" plays {', '.join(COMPILED_BOTS)} (the baselines with their default"
                       " parameters) and CFR blueprints; this policy is none of them: use the"
                       " learned or lbr responder")
    if not isinstance(self.params["iterations"], int) or self.params["iterations"] < 1:
      raise ValueError(f"parameter 'iterations' is {self.params['iterations']!r}; allowed: an"
                       " integer >= 1")
    for name in ("one_agent", "anneal_entropy"):
      if not isinstance(self.params[name], bool):
        raise ValueError(f"parameter {name!r} is {self.params[name]!r}; allowed: true or false")
    self.opponent = compiled.name
    # The batch's opponent spec: a baseline by name, a blueprint with its parameter array.
    self.opponent_spec = compiled.name if baseline else (compiled.name, compiled.parameters)
    self.policy_key = policy_key or compiled.name
    self._network: Network | None = None
    self._observer = None

  def config(self):
    """The trainer's settings for this seat and policy."""
    from solvers.learning.ppo import PPOConfig  # pylint: disable=C0415 (JAX: on demand)
    p = self.params
    game = responder_game(self.game, p["objective"])
    return PPOConfig(game=str(game), seat=self._trained_seat(), num_envs=int(p["num_envs"]),
                     rollout_steps=int(p["rollout_steps"]), epochs=int(p["epochs"]),
                     minibatches=int(p["minibatches"]), learning_rate=p["learning_rate"],
                     entropy_coef=p["entropy_coef"],
                     entropy_anneal=p["iterations"] if p["anneal_entropy"] else 0,
                     gae_lambda=p["gae_lambda"],
                     hidden=int(p["hidden"]), reward_scale=REWARD_SCALES[game.rules.utility],
                     observation_type=p["observation_type"], seed=int(p["training_seed"]),
                     eval_opponent=self.opponent if self.opponent in COMPILED_BOTS else
                     PPOConfig.eval_opponent, eval_every=max(1, p["iterations"] // 10),
                     eval_games=500)

  def trained(self) -> Network:
    """The agent, trained on first use (or taken from this process's cache)."""
    if self._network is None:
      key = (str(self.game), self._trained_seat(), self.policy_key,
             tuple(sorted(self.params.items())))
      if key not in _AGENTS:
        _AGENTS[key] = self.train()
        if len(_AGENTS) > _KEPT:
          _AGENTS.popitem(last=False)
      _AGENTS.move_to_end(key)
      self._network = _AGENTS[key]
    return self._network

  def _trained_seat(self) -> int:
    """The trainer's seat: this bot's, or -1 (every seat) for one agent."""
    return -1 if self.params["one_agent"] else self.player_id

  def train(self, show_progress: bool = False) -> Network:
    """Trains a fresh agent against the policy for `iterations` PPO iterations."""
    from solvers.learning.ppo import PPOTrainer  # pylint: disable=C0415 (JAX: on demand)
    opponent = compiled_opponents(self.game, self.opponent) if isinstance(
        self.opponent_spec, str) else self.opponent_spec
    trainer = PPOTrainer(self.config(), opponent, self.policy_key)
    trainer.run(iterations=self.params["iterations"], show_progress=show_progress)
    return trainer.network()

  def policy_at(self, table) -> Policy:
    network = self.trained()
    if self._observer is None:
      self._observer = self.game.make_py_observer(pyspiel.IIGObservationType(
          perfect_recall=network.metadata["observation_type"] == "information_state",
          private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    self._observer.set_from_table(table, self.player_id)
    mask = np.zeros((1, self.game.num_distinct_actions()), dtype=np.int8)
    mask[0, self.dynamics.legal_actions(self.rules, table, self.player_id)] = 1
    probabilities = network.probabilities(self._observer.tensor[None, :], mask)[0]
    return [(int(np.argmax(probabilities)), 1.0)]
