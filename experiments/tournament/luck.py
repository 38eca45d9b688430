"""The luck of the deal: a control variate that takes chance's share out of a game's scores.

Sushi Go's only chance events are the deals, one per round. For each deal a tournament records
chance's contribution to each seat's points,

  luck_r = v(after deal r) - E[v(after a deal) | before deal r],

where v (`solvers.round_values.ReferenceValue`) is each seat's score at the end of the round under way when every seat
plays on by a fixed reference policy of the compiled core: the bot's own twin when it has one
(random, greedy, the heuristic with default parameters, or a CFR blueprint played by `PolicyBot`,
sampled or purified), the default heuristic for any other bot. The expectation over the deal is
exact when the deal has at most `playouts` outcomes (tiny games), else the mean over `playouts`
deals sampled from the position before it, each played to the round's end once; v after the deal is
exact when every reference is deterministic (greedy, heuristic), else the mean of `playouts`
continuations. A game's `luck` is the sum of its luck_r, by seat; the corrected score (margin) of a
seat is its score (margin) minus its luck (the margin of its luck).

Why the corrected figures stay unbiased (AIVAT, Burch et al. 2018, with terms at chance nodes
only): given everything before deal r, the deal is drawn by the rules' own probabilities whatever
the bots do, and v is fixed by the seating before the game, so E[v(after deal r) | before] is
exactly the expectation the sampled deals estimate: each luck_r has mean zero given the past, and
so does their sum, so E[corrected] = E[raw]. The sampled deals and continuations draw from a stream
of their own (seeded from the game's seed), independent of the game's chance and bots: they add
noise, never bias. The references only decide how much variance is removed: nearly all of it when
the bots at the table play as their references (greedy and heuristic: only the end-of-game Pudding
scoring and the sampling noise remain), less when they do not (the random bot's and a blueprint's
own draws, a search's decisions). The full AIVAT (`experiments.tournament.aivat`) adds terms for
the draws of the bots whose policies can be read, with this same v.
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
