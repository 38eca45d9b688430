"""Monte Carlo CFR (Lanctot et al. 2009) walking the rules' tables: external and outcome sampling.

No pyspiel state and no game tree is built: each iteration walks the game's tables through its
`Dynamics`, chance is sampled (a whole hand at once with `deal=hand`), and regrets live per
abstract key. At a simultaneous turn each player chooses without seeing the others' choices, so
the players' samples at a node are independent.

- External sampling: the traverser's actions all tried, the others' and chance's sampled, their
  average strategies given their current strategy where visited (simple averaging, as OpenSpiel).
  An iteration grows as the product of hand sizes: reduced games only.
- Outcome sampling: one trajectory per player and iteration, the traverser mixing `exploration`
  uniform play, regrets importance-weighted (OpenSpiel's formulation, baseline 0): the full game.

Both are deterministic for a fixed seed. The rest: docs/equilibrium.md, "CFR on abstractions".
"""

from __future__ import annotations

import numpy as np
import pyspiel

from solvers.equilibrium.abstraction import Abstraction
from solvers.equilibrium.cfr import RegretSolver, regret_matching
from sushigo_spiel.drafting.dynamics import TERMINAL
from sushigo_spiel.drafting.sampling import draw_index


class MCCFRSolver(RegretSolver):
  """Shared part of the sampling solvers: one entry per abstract key, mapping each action met
  there to its cell `[regret, average]`, created on first visit.

  With keys that fix the legal action set, an entry holds exactly those actions. With keys that do
  not (`Abstraction.fixed_actions`), an entry gathers every action legal at any position of its
  key, and each visit regret-matches over the actions legal at that position only (restricted
  regret matching): the others get no probability and their cells are left as they are.
  """

  def __init__(self, game: pyspiel.Game, abstraction: Abstraction, seed: int | None = 0):
    super().__init__(game, abstraction, seed)
    self._rng = np.random.default_rng(seed)
    self._entries: dict = {}

  @property
  def num_keys(self) -> int:
    return len(self._entries)

  def _node(self, table, player: int) -> tuple[list[int], list[list[float]]]:
    """The legal actions of `player` at `table` and their cells under the player's key."""
    actions = self.dynamics.legal_actions(self.rules, table, player)
    key = self.abstraction.key(self.rules, table, player)
    entry = self._entries.get(key)
    if entry is None:
      entry = self._entries[key] = {}
    cells = []
    for action in actions:
      cell = entry.get(action)
      if cell is None:
        cell = entry[action] = [0.0, 0.0]
      cells.append(cell)
    return actions, cells

  def _sample(self, probabilities: list[float]) -> int:
    """An index drawn with `probabilities` (one uniform from the generator)."""
    return draw_index(probabilities, self._rng.random)

  def iteration(self) -> None:
    for player in range(self.rules.num_players):
      self._walk(self.dynamics.initial_table(self.rules), player)

  def _walk(self, table, player: int) -> float:
    raise NotImplementedError

  def _others_sampled(self, table, traverser: int, average: bool) -> list[int]:
    """A joint action with every player but the traverser sampled from its current strategy, in
    player order (adding that strategy to its average when `average`); the traverser's entry is
    left at 0 for the caller."""
    joint = [0] * self.rules.num_players
    for player in range(self.rules.num_players):
      if player == traverser:
        continue
      actions, cells = self._node(table, player)
      strategy = regret_matching([cell[0] for cell in cells])
      if average:
        for cell, p in zip(cells, strategy):
          cell[1] += p
      joint[player] = actions[self._sample(strategy)]
    return joint

  def _past_chance(self, table):
    """`table` with chance sampled until someone decides or the game ends."""
    return self.dynamics.skip_chance(self.rules, table, self._rng.random)

  def average_strategy(self):
    """Key -> (actions, average probabilities); with `fixed_actions` keys, actions that never got
    any average weight are left out (the lifted policy gives them nothing anyway)."""
    strategy = {}
    for key, entry in self._entries.items():
      actions = sorted(entry)
      average = [entry[action][1] for action in actions]
      total = sum(average)
      if total <= 0:
        strategy[key] = (tuple(actions), np.full(len(actions), 1.0 / len(actions)))
        continue
      if self.abstraction.fixed_actions:
        actions, average = zip(*[(a, w) for a, w in zip(actions, average) if w > 0])
      strategy[key] = (tuple(actions), np.array(average) / total)
    return strategy


class ExternalSamplingMCCFR(MCCFRSolver):
  """External-sampling MCCFR: the traverser's actions enumerated, all else sampled."""

  algorithm = "es-mccfr"

  def _walk(self, table, traverser):
    rules = self.rules
    table = self._past_chance(table)
    if table.actor == TERMINAL:
      return self.dynamics.returns(rules, table)[traverser]
    joint = self._others_sampled(table, traverser, average=True)
    actions, cells = self._node(table, traverser)
    strategy = regret_matching([cell[0] for cell in cells])
    values = []
    for action in actions:
      joint[traverser] = action
      values.append(self._walk(self.dynamics.play(rules, table, joint), traverser))
    value = sum(p * v for p, v in zip(strategy, values))
    for cell, v in zip(cells, values):
      cell[0] += v - value
    return value


class OutcomeSamplingMCCFR(MCCFRSolver):
  """Outcome-sampling MCCFR: one sampled trajectory per traverser, importance-weighted regrets."""

  algorithm = "os-mccfr"

  def __init__(self, game, abstraction, seed=0, exploration: float = 0.6):
    super().__init__(game, abstraction, seed)
    if not 0 < exploration <= 1:
      raise ValueError(f"exploration is {exploration}; allowed: 0 < exploration <= 1")
    self.exploration = exploration

  def _walk(self, table, traverser):
    return self._episode(table, traverser, 1.0, 1.0)

  def _episode(self, table, traverser, my_reach, sample_reach):
    """The traverser's sampled utility. Chance and the other players sample on-policy, so their
    probabilities are the same in the others' reach and in the sampling reach and cancel out of
    the importance weight; only the traverser's own sampling is tracked."""
    rules = self.rules
    table = self._past_chance(table)
    if table.actor == TERMINAL:
      return self.dynamics.returns(rules, table)[traverser]
    joint = self._others_sampled(table, traverser, average=False)
    actions, cells = self._node(table, traverser)
    strategy = regret_matching([cell[0] for cell in cells])
    explore = self.exploration / len(actions)
    sampling = [explore + (1 - self.exploration) * p for p in strategy]
    chosen = self._sample(sampling)
    joint[traverser] = actions[chosen]
    child = self._episode(self.dynamics.play(rules, table, joint), traverser,
                          my_reach * strategy[chosen],
                          sample_reach * sampling[chosen])
    chosen_value = child / sampling[chosen]
    value = strategy[chosen] * chosen_value
    for i, (cell, p) in enumerate(zip(cells, strategy)):
      cell[0] += ((chosen_value if i == chosen else 0.0) - value) / sample_reach
      cell[1] += my_reach * p / sample_reach
    return value
