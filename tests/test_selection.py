"""Decoupled bandits: each policy's rule worked out by hand, and convergence where theory says."""

import math
import random

import pytest

from solvers.search.selection import make_bandit_factory


class FixedDraw:
  """An `rng` whose `random()` always answers `u`."""

  def __init__(self, u):
    self.u = u

  def random(self):
    return self.u


def test_ucb1_tries_every_available_arm_first_then_follows_the_bound():
  bandit = make_bandit_factory("ucb1", 6, c=1.0)()
  rng = random.Random(0)
  tried = set()
  for _ in range(3):
    action, _ = bandit.select([1, 2, 4], rng)
    assert action not in tried
    tried.add(action)
    bandit.update(action, {1: 0.2, 2: 0.5, 4: 0.4}[action], 1.0)
  assert tried == {1, 2, 4}
  # Arm 5 becomes available: it is untried, so it comes first.
  assert bandit.select([1, 5], rng)[0] == 5
  bandit.update(5, 0.0, 1.0)
  # Availability now: arm 1 four times, arm 2 three, arm 4 three; one visit each.
  # Scores: 0.2 + sqrt(ln 5), 0.5 + sqrt(ln 4), 0.4 + sqrt(ln 4).
  scores = {1: 0.2 + math.sqrt(math.log(5)), 2: 0.5 + math.sqrt(math.log(4)),
            4: 0.4 + math.sqrt(math.log(4))}
  assert bandit.select([1, 2, 4], rng)[0] == max(scores, key=scores.get) == 2


def test_exp3_probabilities_are_worked_out_over_the_available_arms():
  gamma = 0.3
  bandit = make_bandit_factory("exp3", 5, gamma=gamma)()
  assert bandit.select([0, 3], FixedDraw(0.9)) == (3, 0.5)  # uniform before any reward
  bandit.update(3, 0.6, 0.5)  # estimate of arm 3: 0.6 / 0.5 = 1.2
  eta = gamma / 3
  weights = {0: 1.0, 2: 1.0, 3: math.exp(eta * 1.2)}
  expected = {a: (1 - gamma) * w / sum(weights.values()) + gamma / 3 for a, w in weights.items()}
  action, probability = bandit.select([0, 2, 3], FixedDraw(0.999))
  assert action == 3 and probability == pytest.approx(expected[3])
  action, probability = bandit.select([0, 2, 3], FixedDraw(0.0))
  assert action == 0 and probability == pytest.approx(expected[0])
  # The mean strategy sums the distributions played: arm 0 got 0.5 then twice expected[0].
  mixed = dict(bandit.final_policy("mixed"))
  total = 0.5 + 0.5 + 2 * sum(expected.values())
  assert mixed[0] == pytest.approx((0.5 + 2 * expected[0]) / total)
  assert set(mixed) == {0, 2, 3}


def test_regret_matching_regrets_are_worked_out_by_hand():
  gamma = 0.2
  bandit = make_bandit_factory("regret_matching", 4, gamma=gamma)()
  action, probability = bandit.select([0, 1, 2], FixedDraw(0.5))
  assert (action, probability) == (1, pytest.approx(1 / 3))
  bandit.update(1, 0.3, 1 / 3)
  # Regrets: arm 1 gets 0.3 / (1/3) - 0.3 = 0.6; arms 0 and 2 get -0.3.
  # Regret matching: all on arm 1, mixed with gamma / 3 exploration.
  action, probability = bandit.select([0, 1, 2], FixedDraw(0.0))
  assert action == 0 and probability == pytest.approx(gamma / 3)
  bandit.update(0, 0.9, gamma / 3)
  # Regrets now: arm 0: -0.3 + 0.9 / (gamma / 3) - 0.9 = 12.3; arm 1: 0.6 - 0.9 = -0.3.
  action, probability = bandit.select([0, 1, 2], FixedDraw(0.0))
  assert action == 0 and probability == pytest.approx(1 - gamma + gamma / 3)
  # Arm 3 was never available: it gets no probability and no regret.
  assert 3 not in dict(bandit.final_policy("mixed"))


@pytest.mark.parametrize("policy", ["ucb1", "exp3", "regret_matching"])
def test_every_policy_finds_the_best_arm_of_a_bernoulli_bandit(policy):
  means = {0: 0.3, 2: 0.7, 5: 0.5}
  bandit = make_bandit_factory(policy, 6)()
  rng = random.Random(1)
  for _ in range(3000):
    action, probability = bandit.select(list(means), rng)
    bandit.update(action, float(rng.random() < means[action]), probability)
  assert dict(bandit.final_policy("visits")) == {0: 0.0, 2: 1.0, 5: 0.0}
  assert max(bandit.final_policy("mixed"), key=lambda ap: ap[1])[0] == 2


@pytest.mark.parametrize("policy", ["exp3", "regret_matching"])
def test_decoupled_self_play_approaches_the_equilibrium_of_a_matrix_game(policy):
  """A 2x2 zero-sum game with a unique mixed equilibrium: the row player's payoffs are
  [[1, 0], [0.2, 0.6]] (in [0, 1], the column player gets 1 minus them), so the row player plays
  its first row with probability (0.6 - 0.2) / (1 + 0.6 - 0.2) = 2/7 and the column player its
  first column with probability 0.6 / 1.4 = 3/7."""
  payoff = [[1.0, 0.0], [0.2, 0.6]]
  row, column = (make_bandit_factory(policy, 2, gamma=0.05)() for _ in range(2))
  rng = random.Random(3)
  for _ in range(60000):
    a, pa = row.select([0, 1], rng)
    b, pb = column.select([0, 1], rng)
    row.update(a, payoff[a][b], pa)
    column.update(b, 1.0 - payoff[a][b], pb)
  assert dict(row.final_policy("mixed"))[0] == pytest.approx(2 / 7, abs=0.05)
  assert dict(column.final_policy("mixed"))[0] == pytest.approx(3 / 7, abs=0.05)


def test_visits_policy_breaks_ties_by_mean_then_lowest_action():
  bandit = make_bandit_factory("ucb1", 4)()
  rng = random.Random(0)
  for _ in range(3):
    action, _ = bandit.select([1, 2, 3], rng)
    bandit.update(action, {1: 0.1}.get(action, 0.9), 1.0)
  assert dict(bandit.final_policy("visits")) == {1: 0.0, 2: 1.0, 3: 0.0}
  assert bandit.visits(2) == 1 and bandit.mean(1) == pytest.approx(0.1)


@pytest.mark.parametrize("policy, params, message", [
    ("thompson", {}, "selection policy 'thompson' is unknown; allowed: ucb1, exp3"),
    ("ucb1", {"c": -1}, "parameter 'c' is -1; allowed"),
    ("exp3", {"gamma": 0}, "parameter 'gamma' is 0 for exp3; allowed: 0 < gamma <= 1"),
    ("regret_matching", {"gamma": 1.5}, "'gamma' is 1.5 for regret_matching"),
])
def test_bad_policy_or_value_is_refused(policy, params, message):
  with pytest.raises(ValueError, match=message):
    make_bandit_factory(policy, 3, **params)


def test_unknown_final_policy_is_refused():
  bandit = make_bandit_factory("exp3", 3)()
  with pytest.raises(ValueError, match="final policy 'best' is unknown; allowed: visits, mixed"):
    bandit.final_policy("best")
