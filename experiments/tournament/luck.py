"""The luck of the deal: a control variate that takes chance's share out of a game's scores.

For each deal r a tournament records, by seat, luck_r = v(after deal r) - E[v(after a deal) |
before deal r], where v (`solvers.round_values.ReferenceValue`) is the seat's score at the end of
the round when every seat plays on by a fixed reference policy (the bot's compiled twin, else the
default heuristic). The expectation is exact when the deal has at most `playouts` outcomes, else
the mean over `playouts` sampled deals; v after the deal is exact for deterministic references,
else a mean of `playouts` continuations. A game's `luck` is the sum of its luck_r; corrected
figures are the raw ones minus the luck. Each luck_r has mean zero given the past (AIVAT with terms
at chance nodes only), and the samples draw from a stream of their own seeded from the game's
seed, so the corrected figures are unbiased: sampling adds noise, never bias.
Definitions and why: docs/experiments.md ("Less noise: the luck of the deal").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from solvers.round_values import ReferenceValue
from sushigo_spiel.compiled.rng import new_state

GAME = "python_sushi_go"  # the game whose deals have a compiled core to value them


class DealLuck:
  """Chance's share of one game's scores by seat, accumulated deal by deal (`observe_deal`)."""

  def __init__(self, game: pyspiel.Game, bots: Sequence[pyspiel.Bot], seed: int, playouts: int):
    if playouts < 1:
      raise ValueError(f"playouts = {playouts}; allowed: an integer >= 1")
    if game.get_type().short_name != GAME:
      raise ValueError(f"the luck of the deal is valued on {GAME}'s compiled core; got {game}")
    self.rng = new_state(seed)
    self.value = ReferenceValue(game, bots, self.rng)
    self.core = self.value.core
    self.playouts = playouts
    self.luck = np.zeros(len(bots))

  def observe_deal(self, before: pyspiel.State, after: pyspiel.State) -> None:
    """Adds the luck of the deal that led from `before` to `after` (chance nodes in between)."""
    expected = self.expected_deal(before)
    realised = self.value(self.core.encode(after.table()), self.playouts)
    self.luck += realised - expected

  def expected_deal(self, before: pyspiel.State) -> np.ndarray:
    """E[v(after the deal)] from the chance node `before`: exact when the deal has at most
    `playouts` outcomes, else the mean over `playouts` sampled deals played on once each."""
    outcomes = self.deal_outcomes(before)
    if outcomes is not None:
      return sum(p * self.value(dealt, self.playouts) for p, dealt in outcomes)
    return self.value.dealt(self.core.encode(before.table()), self.playouts)

  def deal_outcomes(self, before: pyspiel.State) -> list[tuple[float, np.ndarray]] | None:
    """Every position the deal from `before` can lead to, with its probability; None when there
    are more than `playouts` of them (the enumeration stops there). It walks the game's own
    states: a full game's deal, always sampled, compiles no chance kernel but `skip_chance`."""
    frontier, dealt = [(1.0, before, None)], []  # a node is its parent and the outcome taken
    while frontier:
      probability, parent, outcome = frontier.pop()
      node = parent if outcome is None else parent.child(outcome)
      if not node.is_chance_node():
        dealt.append((probability, self.core.encode(node.table())))
        continue
      outcomes = node.chance_outcomes()
      if len(frontier) + len(outcomes) + len(dealt) > self.playouts:
        return None
      frontier.extend((probability * p, node, outcome) for outcome, p in outcomes)
    return dealt
