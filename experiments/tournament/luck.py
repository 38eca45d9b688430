"""The luck of the deal: a control variate that takes chance's share out of a game's scores.

Sushi Go's only chance events are the deals, one per round. For each deal a tournament records
chance's contribution to each seat's points,

  luck_r = W(after deal r) - E[W(after a deal) | before deal r],

where W(s) is each seat's score at the end of the round that starts at s when every seat plays on
by a fixed reference policy of the compiled core: the bot's own twin when it has one (random,
greedy, or the heuristic with default parameters), the default heuristic for any other bot. The
expectation over the deal is the mean over `playouts` deals sampled from the position before it,
each played to the round's end; W after the deal is exact when every reference is deterministic,
else the mean of `playouts` continuations. A game's `luck` is the sum of its luck_r, by seat; the
corrected score (margin) of a seat is its score (margin) minus its luck (the margin of its luck).

Why the corrected figures stay unbiased (AIVAT, Burch et al. 2018, with terms at chance nodes
only): given everything before deal r, the deal is drawn by the rules' own probabilities whatever
the bots do, and W is fixed by the seating before the game, so E[W(after deal r) | before] is
exactly the expectation the sampled deals estimate: each luck_r has mean zero given the past, and
so does their sum, so E[corrected] = E[raw]. The sampled deals and continuations draw from a stream
of their own (seeded from the game's seed), independent of the game's chance and bots: they add
noise, never bias. The references only decide how much variance is removed: nearly all of it when
the bots at the table play as their references (greedy and heuristic: only the end-of-game Pudding
scoring and the sampling noise remain), less when they do not (the random bot's own draws, a
search's decisions). The full AIVAT would also correct the decisions of bots whose policies are
known as probabilities; this one does not, so what the bots do is left in the figures, untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from solvers.policy_kernels.checked import SushiGoPolicies
from solvers.search.rollouts import compiled_policy_name, compiled_policy_parameters
from sushigo_spiel.compiled.rng import new_state

GAME = "python_sushi_go"  # the game whose deals have a compiled core to value them
DEFAULT_POLICY = "heuristic"  # the reference policy of a bot without a compiled twin


class DealLuck:
  """Chance's share of one game's scores by seat, accumulated deal by deal (`observe_deal`)."""

  def __init__(self, game: pyspiel.Game, bots: Sequence[pyspiel.Bot], seed: int, playouts: int):
    if playouts < 1:
      raise ValueError(f"playouts = {playouts}; allowed: an integer >= 1")
    self.policies = SushiGoPolicies.from_params(**game.get_parameters())
    self.core = self.policies.core
    self.playouts = playouts
    self.rng = new_state(seed)
    self.names = [compiled_policy_name(bot) or DEFAULT_POLICY for bot in bots]
    self.deterministic = "random" not in self.names  # else W after a deal is a mean of playouts
    self.params = compiled_policy_parameters(GAME)
    self.luck = np.zeros(len(bots))

  def observe_deal(self, before: pyspiel.State, after: pyspiel.State) -> None:
    """Adds the luck of the deal that led from `before` to `after` (chance nodes in between)."""
    deal = self.core.encode(before.table())
    expected = self._mean(lambda: self._dealt(deal), self.playouts)
    dealt = self.core.encode(after.table())
    realised = self._mean(dealt.copy, 1 if self.deterministic else self.playouts)
    self.luck += realised - expected

  def _mean(self, start: Callable[[], np.ndarray], playouts: int) -> np.ndarray:
    """The mean of W over `playouts` playouts from the positions `start` makes, summed as they
    finish (no list of them, whatever `playouts`), row after row as `np.mean(axis=0)` adds them,
    so the same bits."""
    total = self._round_end(start())
    for _ in range(playouts - 1):
      total = total + self._round_end(start())
    return total / playouts

  def _dealt(self, deal: np.ndarray) -> np.ndarray:
    pos = deal.copy()
    self.core.skip_chance(pos, self.rng)
    return pos

  def _round_end(self, pos: np.ndarray) -> np.ndarray:
    """W: the scores when every seat plays its reference policy from `pos` to the round's end."""
    self.policies.play_round(pos, self.rng, self.names, self.params)
    return self.core.scores(pos).astype(np.float64)
