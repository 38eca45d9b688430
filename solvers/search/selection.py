"""Decoupled bandit statistics for simultaneous-move tree search: one player at one node.

At a simultaneous node every player keeps a bandit of its own and chooses from it alone (decoupled
selection, Lanctot et al. 2013, Lisy et al. 2013). Policies by name: `ucb1` (UCT with availability
counts, Cowling et al. 2012; exploration `c`), `exp3` (Auer et al. 2002) and `regret_matching`
(both with exploration `gamma`); each class states its rule. Rewards must lie in [0, 1]. Each
`select` names the arms available now (an opponent's legal actions differ between
determinizations); Exp3 and regret matching play and learn over those only.

  make_bandit_factory(policy, num_actions, c=..., gamma=...) -> factory; factory() -> Bandit
  bandit.select(arms, rng) -> (action, probability); bandit.update(action, reward, probability)
  bandit.final_policy(kind): "visits" (the most visited arm, ties to the higher mean, then the
      lower id) or "mixed" (the mean strategy; visit frequencies for ucb1); .visits, .mean, .load
Statistics are Python lists (faster than numpy at 10-100 arms), summed in arm order one addition
at a time, as the compiled bandits (`kernels.bandits`) do, so both compute the same doubles.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from sushigo_spiel.drafting.sampling import draw_index

POLICIES = ("ucb1", "exp3", "regret_matching")
FINAL_KINDS = ("visits", "mixed")
Policy = list[tuple[int, float]]


class Bandit:
  """Visit counts, reward sums and availability per action id; subclasses choose the arm."""

  def __init__(self, num_actions: int):
    self._visits = [0] * num_actions
    self._rewards = [0.0] * num_actions
    self._available = [0] * num_actions

  def select(self, arms: Sequence[int], rng) -> tuple[int, float]:
    """An arm among `arms` (the legal action ids now) and its probability; `rng` is any object
    with `random()` in [0, 1)."""
    raise NotImplementedError

  def update(self, action: int, reward: float, probability: float) -> None:
    """Once after each `select`, with its answer and the reward in [0, 1]."""
    self._visits[action] += 1
    self._rewards[action] += reward

  def load(self, visits, rewards, available, learned, strategy) -> None:
    """Takes these statistics (sequences by action id): visits, reward sums, availability, Exp3's
    estimates or the regrets, and the strategy sums (the last two unused by UCB1)."""
    self._visits, self._rewards = [int(v) for v in visits], [float(r) for r in rewards]
    self._available = [int(m) for m in available]
    del learned, strategy

  def visits(self, action: int) -> int:
    return self._visits[action]

  def mean(self, action: int) -> float:
    n = self._visits[action]
    return self._rewards[action] / n if n else 0.0

  def arms(self) -> list[int]:
    """Every action that was available at least once."""
    return [a for a, m in enumerate(self._available) if m]

  def final_policy(self, kind: str) -> Policy:
    if kind == "visits":
      arms = self.arms()
      best = max(arms, key=lambda a: (self._visits[a], self.mean(a), -a))
      return [(a, 1.0 if a == best else 0.0) for a in arms]
    if kind == "mixed":
      return _normalised(self.arms(), self._mixed_weights())
    raise ValueError(f"final policy {kind!r} is unknown; allowed: {', '.join(FINAL_KINDS)}")

  def _mixed_weights(self) -> list[float]:
    return self._visits


class UCB1(Bandit):
  """UCT with availability counts: untried arms first, then mean + c sqrt(ln m_a / n_a)."""

  def __init__(self, num_actions: int, c: float):
    super().__init__(num_actions)
    self.c = c

  def select(self, arms: Sequence[int], rng) -> tuple[int, float]:
    visits, rewards, available = self._visits, self._rewards, self._available
    untried = []
    for a in arms:
      available[a] += 1
      if not visits[a]:
        untried.append(a)
    if untried:
      return untried[int(rng.random() * len(untried))], 1.0
    c, log, sqrt = self.c, math.log, math.sqrt
    best, best_score = arms[0], -math.inf
    for a in arms:
      n = visits[a]
      score = rewards[a] / n + c * sqrt(log(available[a]) / n)
      if score > best_score:
        best, best_score = a, score
    return best, 1.0


class _Sampling(Bandit):
  """A bandit that draws its arm from a distribution over the available arms and keeps the sum
  of those distributions (the mean strategy)."""

  def __init__(self, num_actions: int, gamma: float):
    super().__init__(num_actions)
    self.gamma = gamma
    self._strategy_sum = [0.0] * num_actions

  def _mixed_weights(self) -> list[float]:
    return self._strategy_sum

  def load(self, visits, rewards, available, learned, strategy) -> None:
    super().load(visits, rewards, available, learned, strategy)
    self._strategy_sum = [float(s) for s in strategy]
    self._learned()[:] = [float(x) for x in learned]

  def _learned(self) -> list[float]:
    """Exp3's estimates or the cumulative regrets."""
    raise NotImplementedError

  def _draw(self, arms: Sequence[int], probabilities: list[float], rng) -> tuple[int, float]:
    available, strategy_sum = self._available, self._strategy_sum
    for a, p in zip(arms, probabilities):
      available[a] += 1
      strategy_sum[a] += p
    index = draw_index(probabilities, rng.random)
    return arms[index], probabilities[index]


class Exp3(_Sampling):
  """Exp3 over the available arms: (1 - gamma) softmax(gamma / K * X) + gamma / K."""

  def __init__(self, num_actions: int, gamma: float):
    super().__init__(num_actions, gamma)
    self._estimates = [0.0] * num_actions

  def select(self, arms: Sequence[int], rng) -> tuple[int, float]:
    k, gamma, estimates = len(arms), self.gamma, self._estimates
    eta = gamma / k
    top = max(estimates[a] for a in arms)
    weights = [math.exp(eta * (estimates[a] - top)) for a in arms]
    scale = (1.0 - gamma) / _total(weights)
    return self._draw(arms, [w * scale + gamma / k for w in weights], rng)

  def _learned(self) -> list[float]:
    return self._estimates

  def update(self, action: int, reward: float, probability: float) -> None:
    super().update(action, reward, probability)
    self._estimates[action] += reward / probability


class RegretMatching(_Sampling):
  """Regret matching over the available arms with gamma-uniform exploration; regrets are
  sampled as in outcome sampling: r / p for the arm played, 0 for the others, less r."""

  def __init__(self, num_actions: int, gamma: float):
    super().__init__(num_actions, gamma)
    self._regrets = [0.0] * num_actions
    self._last_arms: Sequence[int] = ()

  def select(self, arms: Sequence[int], rng) -> tuple[int, float]:
    k, gamma, regrets = len(arms), self.gamma, self._regrets
    positive = [r if r > 0.0 else 0.0 for r in (regrets[a] for a in arms)]
    total = _total(positive)
    if total > 0.0:
      scale = (1.0 - gamma) / total
      probabilities = [r * scale + gamma / k for r in positive]
    else:
      probabilities = [1.0 / k] * k
    self._last_arms = arms
    return self._draw(arms, probabilities, rng)

  def _learned(self) -> list[float]:
    return self._regrets

  def update(self, action: int, reward: float, probability: float) -> None:
    super().update(action, reward, probability)
    regrets = self._regrets
    for a in self._last_arms:
      regrets[a] -= reward
    regrets[action] += reward / probability


def _total(values: Sequence[float]) -> float:
  """The sum of `values`, added one at a time in order (Python 3.12's `sum` compensates)."""
  total = 0.0
  for value in values:
    total += value
  return total


def _normalised(arms: list[int], weights: Sequence[float]) -> Policy:
  total = _total([weights[a] for a in arms])
  if total <= 0:
    return [(a, 1.0 / len(arms)) for a in arms]
  return [(a, weights[a] / total) for a in arms]


def make_bandit_factory(policy: str, num_actions: int, c: float = 0.7,
                        gamma: float = 0.1) -> Callable[[], Bandit]:
  """A function that builds a fresh bandit of `policy` over action ids 0..num_actions-1.

  `c` is UCB1's exploration constant (>= 0); `gamma` the exploration of exp3 (0 < gamma <= 1)
  and regret_matching (0 <= gamma <= 1). Raises ValueError naming a bad policy or value.
  """
  if policy == "ucb1":
    if not c >= 0:
      raise ValueError(f"parameter 'c' is {c}; allowed: a number >= 0")
    return functools.partial(UCB1, num_actions, float(c))
  if policy == "exp3":
    if not 0 < gamma <= 1:
      raise ValueError(f"parameter 'gamma' is {gamma} for exp3; allowed: 0 < gamma <= 1")
    return functools.partial(Exp3, num_actions, float(gamma))
  if policy == "regret_matching":
    if not 0 <= gamma <= 1:
      raise ValueError(
          f"parameter 'gamma' is {gamma} for regret_matching; allowed: 0 <= gamma <= 1")
    return functools.partial(RegretMatching, num_actions, float(gamma))
  raise ValueError(f"selection policy {policy!r} is unknown; allowed: {', '.join(POLICIES)}")
