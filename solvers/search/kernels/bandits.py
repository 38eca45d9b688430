"""Decoupled bandits as kernels: `solvers.search.selection` over rows of preallocated arrays.

One bandit is one row (a player at a node) of the tree's statistics: visits, reward sums and
availability counts per action id, plus, for Exp3 and regret matching, the importance-weighted
reward estimates or the cumulative regrets (`learned`) and the sum of the strategies played
(`strategy`). `select` and `update` compute what the Python classes compute, in the same floating
point operations and with the same uniforms (none for UCB1 unless an arm is untried, one for Exp3
and regret matching), so a search driven by the same stream keeps the same statistics (tested).

Progressive bias (Chaslot et al. 2008, "Progressive strategies for Monte-Carlo tree search") adds
`bias / (n_a + 1)` to UCB1's score of the one action a prior policy picks (`favoured`), so early
visits lean towards it and the bonus fades as the arm's own statistics grow.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.rng import next_double
from sushigo_spiel.compiled.sampling import pick_uniformly

UCB1, EXP3, REGRET_MATCHING = 0, 1, 2
SELECTIONS = {"ucb1": UCB1, "exp3": EXP3, "regret_matching": REGRET_MATCHING}
NO_FAVOURED = -1  # `select`'s `favoured` when no arm is (arms are action ids, from 0)


class Selection(NamedTuple):
  """How bandits choose: `kind` (UCB1, EXP3, REGRET_MATCHING), UCB1's exploration `c` and
  progressive `bias`, Exp3's and regret matching's exploration `gamma`."""
  kind: int
  c: float
  gamma: float
  bias: float

  @classmethod
  def named(cls, name: str, c: float, gamma: float, bias: float = 0.0) -> Selection:
    """The selection `name` (of `SELECTIONS`), its numbers as floats."""
    return cls(SELECTIONS[name], float(c), float(gamma), float(bias))


@njit(inline="always")
def clear_row(stats, row):
  """A fresh bandit in `row`."""
  visits, rewards, available, learned, strategy = stats
  visits[row, :] = 0
  rewards[row, :] = 0.0
  available[row, :] = 0
  if learned.shape[0] > 1:
    learned[row, :] = 0.0
    strategy[row, :] = 0.0


@njit
def select(stats, row, arms, count, selection, favoured, probabilities, rng):
  """The arm chosen among `arms[:count]` (the legal actions now) by `selection` (a `Selection`,
  favouring the arm `favoured` under UCB1) and the probability it was chosen with; availability
  counted, Exp3's and regret matching's strategies summed."""
  if selection.kind == UCB1:
    return _select_ucb1(stats, row, arms, count, selection.c, favoured, selection.bias, rng), 1.0
  visits, rewards, available, learned, strategy = stats
  gamma = selection.gamma
  if selection.kind == EXP3:
    eta = gamma / count
    top = learned[row, arms[0]]
    for i in range(1, count):
      top = max(top, learned[row, arms[i]])
    total = 0.0
    for i in range(count):
      probabilities[i] = math.exp(eta * (learned[row, arms[i]] - top))
      total += probabilities[i]
    scale = (1.0 - gamma) / total
    for i in range(count):
      probabilities[i] = probabilities[i] * scale + gamma / count
  else:
    total = 0.0
    for i in range(count):
      regret = learned[row, arms[i]]
      probabilities[i] = regret if regret > 0.0 else 0.0
      total += probabilities[i]
    if total > 0.0:
      scale = (1.0 - gamma) / total
      for i in range(count):
        probabilities[i] = probabilities[i] * scale + gamma / count
    else:
      for i in range(count):
        probabilities[i] = 1.0 / count
  for i in range(count):
    available[row, arms[i]] += 1
    strategy[row, arms[i]] += probabilities[i]
  index = draw_index(probabilities, count, rng)
  return arms[index], probabilities[index]


@njit(inline="always")
def _select_ucb1(stats, row, arms, count, c, favoured, bias, rng):
  """Untried arms first (uniformly among them), then the highest mean + c sqrt(ln m_a / n_a)
  (+ the progressive bias of the favoured arm); ties to the earlier arm."""
  visits, rewards, available, _, _ = stats
  untried = 0
  for i in range(count):
    available[row, arms[i]] += 1
    untried += visits[row, arms[i]] == 0
  if untried:
    target = pick_uniformly(untried, rng)
    for i in range(count):
      if visits[row, arms[i]] == 0:
        if target == 0:
          return arms[i]
        target -= 1
  best, best_score = arms[0], -math.inf
  for i in range(count):
    a = arms[i]
    n = visits[row, a]
    score = rewards[row, a] / n + c * math.sqrt(math.log(available[row, a]) / n)
    if a == favoured:
      score += bias / (n + 1)
    if score > best_score:
      best, best_score = a, score
  return best


@njit(inline="always")
def draw_index(probabilities, count, rng):
  """An index below `count` drawn with `probabilities`, with one uniform, exactly as
  `drafting.sampling.draw_index` (normalised cumulative sums, the first one above the uniform)."""
  total = 0.0
  for i in range(count):
    total += probabilities[i]
  u = next_double(rng)
  cumulative = 0.0
  for i in range(count):
    cumulative += probabilities[i]
    if (cumulative if total == 1.0 else cumulative / total) > u:
      return i
  return count - 1


@njit
def update(stats, row, action, reward, probability, kind, arms, count):
  """Learns `reward` for `action`, chosen with `probability` among `arms[:count]` by a bandit of
  `kind`."""
  visits, rewards, _, learned, _ = stats
  visits[row, action] += 1
  rewards[row, action] += reward
  if kind == EXP3:
    learned[row, action] += reward / probability
  elif kind == REGRET_MATCHING:
    for i in range(count):
      learned[row, arms[i]] -= reward
    learned[row, action] += reward / probability
