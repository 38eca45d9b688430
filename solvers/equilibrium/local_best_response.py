"""Local Best Response: a lower bound on how much a fixed policy can be exploited, for games too
large for an exact best response (Lisy and Bowling 2017).

At each decision the responder plays the action of best expected value against the policy:
  range     K worlds drawn among the positions it cannot tell apart (`determinize`), weighted by
            chance's posterior (`deal_weight`; Sushi Draft: by the policy alone) and by the
            policy's probability of the other players' picks this round in each world
  lookahead an expectimax over the next `depth` turns: the others follow the policy (its support,
            or `branching` joint actions drawn from it), chance sampled
  leaves    the mean of `rollouts` playouts, the responder on `continuation` ("policy" or a
            rollout policy: random, greedy, heuristic)
Returns are its `objective`'s ("auto": the game's own; "margin"; "win"), read in
`bot.responder_game`. The policy is read through `OpponentModel.policy`; every answer is checked to
be a distribution over the legal actions (`validation`). Its gain in paired games is a valid lower
bound whatever its model. The rest: docs/equilibrium.md, "Approximate exploitability".
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, responder_game
from solvers.equilibrium import validation
from solvers.search import rollouts
from solvers.search.opponent_model import OpponentModel, required_opponent_model
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.drafting.sampling import draw_action

CONTINUATIONS = ("policy",) + rollouts.ROLLOUT_POLICIES
_MIN_WEIGHT = 1e-12


class LocalBestResponseBot(Bot):
  """A local best response to the policy `opponent_model` describes (module docstring)."""

  PARAMETERS = {"worlds": 16, "depth": 1, "branching": 16, "rollouts": 4,
                "continuation": "policy", "objective": "auto"}

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               opponent_model: OpponentModel | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    required_opponent_model(opponent_model,
                            "a local best response needs the policy it responds to")
    self._check_params()
    self.model = opponent_model
    self.scoring = responder_game(self.game, self.params["objective"]).rules  # what returns read
    self._answers: dict = {}  # the policy's answers at this decision, by (table, player)
    continuation = self.params["continuation"]
    self._continuation = self._modelled if continuation == "policy" else \
        rollouts.make_rollout_policy(continuation, self.game)
    self._random = random.Random(int(np.random.SeedSequence(seed).generate_state(1)[0]))

  def _check_params(self) -> None:
    p = self.params
    for name, least in (("worlds", 1), ("depth", 1), ("branching", 1), ("rollouts", 1)):
      if not isinstance(p[name], int) or p[name] < least:
        raise ValueError(f"parameter {name!r} is {p[name]!r}; allowed: an integer >= {least}")
    if p["continuation"] not in CONTINUATIONS:
      raise ValueError(f"parameter 'continuation' is {p['continuation']!r}; allowed: "
                       f"{', '.join(CONTINUATIONS)}")

  def policy_at(self, table) -> Policy:
    values = self.action_values(table)
    best = max(values, key=lambda a: (values[a], -a))
    return [(action, float(action == best)) for action in values]

  # ----- values

  def action_values(self, table) -> dict[int, float]:
    """The expected return of each legal action against the policy, over the weighted worlds."""
    rules, dynamics, me = self.rules, self.dynamics, self.player_id
    legal = dynamics.legal_actions(rules, table, me)
    try:
      worlds = self._weighted_worlds(table)
      total = sum(weight for _, weight in worlds)
      values = dict.fromkeys(legal, 0.0)
      for world, weight in worlds:
        for action in legal:
          values[action] += weight / total * self._after_action(world, action,
                                                                self.params["depth"])
    finally:
      self._answers.clear()
    return values

  def _policy(self, rules, table, player: int) -> Policy:
    """The policy at `table` for `player`, asked once a decision: every action of the responder
    and every rollout from one position asks for the same answers again."""
    key = (table, player)
    if key not in self._answers:
      answer = self.model.policy(rules, table, player)
      legal = self.dynamics.legal_actions(rules, table, player)
      if validation.answer_problem(dict(answer), legal):
        validation.check_answer(dict(answer), legal, player,
                                validation.information_state(self.game, table, player),
                                "the policy a local best response answers")
      self._answers[key] = answer
    return self._answers[key]

  def _weighted_worlds(self, table) -> list[tuple[object, float]]:
    """`worlds` determinizations with their posterior weights; when every draw contradicts the
    policy (it never makes the picks seen), the draws count equally."""
    draws = [self.dynamics.determinize(self.rules, table, self.player_id, self._random.random)
             for _ in range(self.params["worlds"])]
    deal_weight = self.dynamics.deal_weight or (lambda rules, world, player: 1.0)
    weights = [self._reach(world) * deal_weight(self.rules, world, self.player_id)
               for world in draws]
    if sum(weights) <= _MIN_WEIGHT:
      weights = [1.0] * len(draws)
    return list(zip(draws, weights))

  def _reach(self, world) -> float:
    """The probability the policy gives to the other players' actions of this round in `world`
    (the game's `round_decisions`)."""
    rules, me = self.rules, self.player_id
    probability = 1.0
    for before, actions in self.dynamics.round_decisions(rules, world):
      for player, action in enumerate(actions):
        if player != me:
          probability *= dict(self._policy(rules, before, player)).get(action, 0.0)
          if probability <= _MIN_WEIGHT:
            return 0.0
    return probability

  def _after_action(self, table, action: int, depth: int) -> float:
    """The responder's expected return when it plays `action` at `table` and the others follow
    the policy, looking `depth - 1` turns further."""
    total = 0.0
    for joint, probability in self._others(table, action):
      child = self.dynamics.play(self.rules, table, joint)
      total += probability * self._value(child, depth - 1)
    return total

  def _value(self, table, depth: int) -> float:
    rules, dynamics = self.rules, self.dynamics
    if table.actor == TERMINAL:
      return dynamics.returns(self.scoring, table)[self.player_id]
    if depth <= 0:
      return self._rollouts(table)
    if table.actor == CHANCE:
      table = dynamics.skip_chance(rules, table, self._random.random)
      if table.actor == TERMINAL:
        return dynamics.returns(self.scoring, table)[self.player_id]
    return max(self._after_action(table, action, depth)
               for action in dynamics.legal_actions(rules, table, self.player_id))

  def _others(self, table, action: int) -> list[tuple[list[int], float]]:
    """Joint actions with the responder's `action` and the others' picks by the policy, with
    their probabilities: the whole support, or `branching` draws from it when larger."""
    me, n = self.player_id, self.rules.num_players
    supports = [[(a, p) for a, p in self._policy(self.rules, table, player) if p > 0]
                if player != me else [(action, 1.0)] for player in range(n)]
    size = math.prod(len(support) for support in supports)
    if size <= self.params["branching"]:
      return [([a for a, _ in combo], math.prod(p for _, p in combo))
              for combo in itertools.product(*supports)]
    draws = self.params["branching"]
    return [([draw_action(support, self._random.random) for support in supports], 1.0 / draws)
            for _ in range(draws)]

  def _rollouts(self, table) -> float:
    policies = [self._continuation if player == self.player_id else self._modelled
                for player in range(self.rules.num_players)]
    count, dynamics = self.params["rollouts"], self.dynamics
    return sum(dynamics.returns(self.scoring, rollouts.playout(
        dynamics, self.rules, table, policies, self._random.random))[self.player_id]
               for _ in range(count)) / count

  def _modelled(self, rules, table, player: int, uniform) -> int:
    return draw_action(self._policy(rules, table, player), uniform)

