"""Drawing at random for the readable code: the rules' deals, determinization and resampling, and
the Python solvers' draws from a policy (`draw_action`), go through these functions.

Randomness is passed in as `uniform`, a callable returning floats in [0, 1) (such as
`random.Random(seed).random`, `numpy.random.Generator.random` or
`pyspiel.UniformProbabilitySampler`), never taken from global state. Each function consumes a
documented number of uniforms, so the same stream gives the same draws wherever it is used.
The compiled kernels draw from their own stream with their twin of these functions
(`sushigo_spiel.compiled.sampling`, tested draw for draw). A few callers draw an index or a seed
straight from their own seeded generator instead: the random walks that size game trees
(`tree_size`) and sample abstraction features, SM-MCTS's choice among untried actions
(`selection`), the subgame bot's resampling of its root worlds and its playout salt, the
environments' seeds, the conformance check's random play, and the experiments' own random play
(benchmarks, `sushigo play`'s bots, the Pudding-worth positions).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

Uniform = Callable[[], float]


def pick_index(counts: Sequence[int], uniform: Uniform) -> int:
  """An index drawn with probability proportional to `counts` (non-negative integers), with one
  uniform."""
  total = sum(counts)
  target = min(int(uniform() * total), total - 1)
  for index, count in enumerate(counts):
    if target < count:
      return index
    target -= count
  raise ValueError(f"cannot draw from empty counts {list(counts)}")


def draw_cards(pool: list[int], size: int, uniform: Uniform) -> list[int]:
  """Draws `size` cards uniformly without replacement from `pool` (counts per type), removing
  them from `pool`; returns the counts drawn. One uniform per card."""
  drawn = [0] * len(pool)
  for _ in range(size):
    card = pick_index(pool, uniform)
    pool[card] -= 1
    drawn[card] += 1
  return drawn


def draw_index(probabilities: Sequence[float], uniform: Uniform) -> int:
  """An index drawn with the given probabilities, with one uniform.

  The index is the first whose normalised cumulative probability exceeds the uniform, exactly as
  `numpy.random.Generator.choice(len(p), p=p)` computes it: with `uniform = generator.random` both
  give the same index from the same generator state (tested), so bots and match loops that draw
  with a numpy Generator and searchers that draw with a `random.Random` share this one function.
  """
  cumulative, total = [], 0.0
  for probability in probabilities:
    total += probability
    cumulative.append(total)
  u = uniform()
  if total != 1.0:
    cumulative = [c / total for c in cumulative]
  return bisect.bisect_right(cumulative, u)


def draw_action(policy: Sequence[tuple[int, float]], uniform: Uniform) -> int:
  """An action drawn from `policy`, a sequence of (action, probability), by `draw_index`."""
  return policy[draw_index([probability for _, probability in policy], uniform)][0]


def pick_uniformly(items: Sequence, uniform: Uniform):
  """One of `items`, each equally likely, with one uniform."""
  return items[min(int(uniform() * len(items)), len(items) - 1)]
