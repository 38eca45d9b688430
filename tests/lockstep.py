"""One game through a game's readable rules and its compiled core side by side, from one seed: the
differential check both cores' tests run (`test_compiled_core`, `test_compiled_sushi_draft`).

Both implementations are driven by one random stream (`compiled.rng`: the kernels' xoshiro256**
and its pure-Python twin), so chance draws, random picks and determinizations are compared
exactly: at every step, the legal actions of every player, the chance outcomes and their
probabilities, the sampled outcome, the decoded position against the rules' table, the position
against the encoded table, and the streams' states (the same number of uniforms drawn); at sampled
positions, every player's determinization; at the end, the scores and returns. The rules are
reached through the game's `Dynamics`, the core through its checked class.
"""

from __future__ import annotations

import random

import numpy as np

from sushigo_spiel.compiled import Xoshiro256, new_state
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL

MAX_LISTED_OUTCOMES = 5000  # beyond this (a standard deck dealt by hand) outcomes are not listed


class Lockstep:
  """One game through the rules and the core side by side, from one seed; every player's
  determinization is compared at a `determinize_share` of the positions."""

  def __init__(self, compiled, dynamics, seed: int, determinize_share: float = 0.15):
    self.core, self.dynamics, self.rules, self.seed = compiled, dynamics, compiled.rules, seed
    self.determinize_share = determinize_share
    self.python, self.kernel = Xoshiro256(seed), new_state(seed)
    self.table, self.pos = dynamics.initial_table(self.rules), compiled.initial_position()
    self.steps = 0

  def play(self, one_outcome_at_a_time: bool) -> None:
    """Plays to the end, checking at every step; chance outcome by outcome, or (the rules'
    and the core's `skip_chance`) every chance node up to the next decision at once."""
    sampler = random.Random(-self.seed)
    while True:
      self.check_position()
      if sampler.random() < self.determinize_share:
        self.check_determinizations()
      if self.table.actor == TERMINAL:
        break
      self.step(one_outcome_at_a_time)
    assert self.core.scores(self.pos).tolist() == self.dynamics.scores(self.rules, self.table)
    assert self.core.returns(self.pos).tolist() == self.dynamics.returns(self.rules, self.table)

  def step(self, one_outcome_at_a_time: bool = False) -> None:
    if self.table.actor == CHANCE:
      self.chance_step(one_outcome_at_a_time)
    else:
      self.simultaneous_step()
    self.steps += 1

  def check_position(self) -> None:
    where = (self.seed, self.steps)
    assert self.core.decode(self.pos) == self.table, where
    assert np.array_equal(self.pos, self.core.encode(self.table)), where
    assert np.array_equal(self.kernel, self.python.state()), where

  def check_determinizations(self) -> None:
    for player in range(self.rules.num_players):
      seed = 1_000_003 * self.seed + 31 * self.steps + player
      python, kernel = Xoshiro256(seed), new_state(seed)
      expected = self.dynamics.determinize(self.rules, self.table, player, python.random)
      got = self.core.determinize(self.pos, player, kernel)
      assert self.core.decode(got) == expected, (self.seed, self.steps, player)
      assert np.array_equal(kernel, python.state()), (self.seed, self.steps, player)

  def chance_step(self, one_outcome_at_a_time: bool) -> None:
    rules, table, dynamics = self.rules, self.table, self.dynamics
    if rules.max_chance_outcomes <= MAX_LISTED_OUTCOMES:
      assert self.core.chance_outcomes(self.pos) == dynamics.chance_outcomes(rules, table)
    if one_outcome_at_a_time:
      outcome = dynamics.sample_chance(rules, table, self.python.random)
      assert self.core.sample_chance(self.pos, self.kernel) == outcome
      self.table = dynamics.apply_chance(rules, table, outcome)
      self.core.apply_chance(self.pos, outcome)
    else:
      self.table = dynamics.skip_chance(rules, table, self.python.random)
      self.core.skip_chance(self.pos, self.kernel)

  def simultaneous_step(self) -> None:
    joint = []
    for player in range(self.rules.num_players):
      legal = self.dynamics.legal_actions(self.rules, self.table, player)
      assert self.core.legal_action_list(self.pos, player) == legal, (self.seed, self.steps)
      joint.append(legal[int(self.python.random() * len(legal))])
      assert self.core.random_action(self.pos, player, self.kernel) == joint[-1]
    self.table = self.dynamics.play(self.rules, self.table, joint)
    self.core.play(self.pos, joint)


def play_games(compiled, dynamics, games: int, determinize_share: float = 0.15) -> None:
  """Plays games from seeds 0.. in lockstep, outcome by outcome for even seeds."""
  for seed in range(games):
    Lockstep(compiled, dynamics, seed, determinize_share).play(
        one_outcome_at_a_time=seed % 2 == 0)
