"""Counterfactual regret minimisation on abstractions: the shared base and the full-width solvers.

Every solver here and in `mccfr.py` is a `RegretSolver`: it keeps regrets and average strategies per
abstract key (`abstraction.py`), runs for a number of iterations or seconds,
and hands back its average strategy lifted to a policy of the real game (`LiftedPolicy`), where it
is judged.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable

import numpy as np
import pyspiel

from solvers.equilibrium.abstraction import Abstraction, Identity, LiftedPolicy
from solvers.equilibrium.game_tree import GameTree
from solvers.progress import progress as progress_bar
from sushigo_spiel.drafting.adapter import DraftingGame


class RegretSolver:
  """The base of the CFR family: the game, the abstraction, the iteration count, the run loop and
  the average strategy per abstract key."""

  algorithm = ""

  def __init__(self, game: pyspiel.Game, abstraction: Abstraction, seed: int | None = None):
    if not isinstance(game, DraftingGame):
      raise ValueError(f"the CFR solvers need a drafting game (python_sushi_go or"
                       f" python_sushi_draft); got {game}")
    abstraction.check_game(game)
    self.game = game
    self.rules, self.dynamics = game.rules, game.dynamics
    self.abstraction = abstraction
    self.seed = seed
    self.iterations = 0
    self.seconds = 0.0  # wall time spent in `run`
    self.cpu_seconds = 0.0  # this process's CPU time spent in `run`: steady on a loaded machine

  def iteration(self) -> None:
    raise NotImplementedError

  def average_strategy(self) -> dict[Hashable, tuple[tuple[int, ...], np.ndarray]]:
    """Abstract key -> (legal actions, average probabilities)."""
    raise NotImplementedError

  def run(self, iterations: int | None = None, seconds: float | None = None,
          progress: bool = False) -> RegretSolver:
    """Runs `iterations` iterations, or as many as fit in `seconds`, with a progress bar on
    request."""
    if (iterations is None) == (seconds is None):
      raise ValueError("run needs exactly one of iterations and seconds")
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
      raise ValueError(f"seconds is {seconds!r}; allowed: a finite number of seconds > 0")
    bar = None
    if progress:
      bar = progress_bar(total=iterations, unit="it", desc=self.algorithm)
    start, cpu_start = time.perf_counter(), time.process_time()
    done = 0
    while (done < iterations) if iterations is not None else \
        (time.perf_counter() - start < seconds):
      self.iteration()
      self.iterations += 1
      done += 1
      if bar is not None:
        bar.update()
    self.seconds += time.perf_counter() - start
    self.cpu_seconds += time.process_time() - cpu_start
    if bar is not None:
      bar.close()
    return self

  def average_policy(self) -> LiftedPolicy:
    return LiftedPolicy(self.game, self.abstraction, self.average_strategy())


def regret_matching(regrets: list[float]) -> list[float]:
  """Probabilities proportional to the positive regrets; uniform when none is positive."""
  positive = [r if r > 0 else 0.0 for r in regrets]
  total = sum(positive)
  if total <= 0:
    return [1.0 / len(regrets)] * len(regrets)
  return [r / total for r in positive]


class CFRSolver(RegretSolver):
  """Full-width CFR on the array tree (`solvers/game_tree.py`), vectorised with numpy.

  The variants are flags, as on OpenSpiel's `_CFRSolverBase`:
    alternating      update one player after the other, each pass seeing the policy the previous
                     player's update left (OpenSpiel's choice), or all players from one pass
    regret_floor     regret matching+ (cumulative regrets floored at zero after each update)
    averaging_power  the average strategy weights iteration t's contribution by t ** power:
                     0 plain CFR, 1 linear (CFR+), 2 DCFR's gamma
    discount         (alpha, beta) of Discounted CFR: after iteration t's update, positive
                     cumulative regrets are multiplied by t^alpha / (t^alpha + 1), negative ones
                     by t^beta / (t^beta + 1) (Brown and Sandholm 2019)
  A pass computes every node's reach per player and chance depth by depth, then the player's
  expected values bottom up; regrets and average-strategy sums of all information sets mapping to
  one abstract key are added into that key's slots with `np.bincount`.
  """

  algorithm = "cfr"

  def __init__(self, game: pyspiel.Game, abstraction: Abstraction, tree: GameTree | None = None,
               *, alternating: bool = True, regret_floor: bool = False,
               averaging_power: float = 0.0, discount: tuple[float, float] | None = None,
               seed: int | None = None):
    super().__init__(game, abstraction, seed)
    self.tree = tree = tree if tree is not None else GameTree(game)
    self.alternating = alternating
    self.regret_floor = regret_floor
    self.averaging_power = averaging_power
    self.discount = discount
    self._map_abstraction()
    n = self.rules.num_players
    edges = np.flatnonzero(tree.edge_slot >= 0)
    self._edges, self._edge_players = edges, tree.parent_player[edges]
    self._edge_slots = tree.edge_slot[edges]
    self._player_edges = [edges[self._edge_players == p] for p in range(n)]
    self._other_columns = [[q for q in range(n + 1) if q != p] for p in range(n)]
    self._levels = []
    for d in range(tree.num_levels - 1):
      start, stop, end = (int(x) for x in tree.level_starts[d:d + 3])
      inner = np.flatnonzero(tree.num_children[start:stop])
      self._levels.append((start, stop, end, tree.parent[stop:end], inner,
                           tree.first_child[start + inner] - stop))
    self.regrets = np.zeros(self.num_abstract_slots)
    self.policy_sums = np.zeros(self.num_abstract_slots)
    self.current = self._regret_matching()

  def _map_abstraction(self) -> None:
    """Abstract key per information set, the abstract slots, and each tree slot's abstract slot."""
    tree, rules = self.tree, self.rules
    if isinstance(self.abstraction, Identity):
      self.keys = None  # the information sets themselves; keys are made on export
      of_infoset = np.arange(tree.num_infosets)
    else:
      ids, self.keys = {}, []
      of_infoset = np.empty(tree.num_infosets, np.int64)
      for i, table in enumerate(tree.infoset_tables):
        key = self.abstraction.key(rules, table, int(tree.infoset_player[i]))
        if key not in ids:
          ids[key] = len(self.keys)
          self.keys.append(key)
        of_infoset[i] = ids[key]
    num_abstract = int(of_infoset.max()) + 1
    first = np.full(num_abstract, -1)
    first[of_infoset[::-1]] = np.arange(tree.num_infosets)[::-1]
    self._first_infoset = first
    self.abstract_num_actions = tree.infoset_num_actions[first]
    for i in range(tree.num_infosets):
      if tree.infoset_actions(i) != tree.infoset_actions(int(first[of_infoset[i]])):
        raise ValueError(f"abstraction {self.abstraction.name!r} maps information sets with"
                         f" different legal actions to one key: {self.keys[of_infoset[i]]}")
    abstract_first = np.concatenate([[0], np.cumsum(self.abstract_num_actions)[:-1]])
    rank = np.arange(tree.num_slots) - tree.infoset_first_slot[tree.slot_infoset]
    self.slot_abstract = abstract_first[of_infoset[tree.slot_infoset]] + rank
    self.num_abstract_slots = int(self.abstract_num_actions.sum())
    self._abstract_set = np.repeat(np.arange(num_abstract), self.abstract_num_actions)
    self._abstract_first = abstract_first
    self._abstract_slot_player = tree.infoset_player[first][self._abstract_set]

  def _regret_matching(self) -> np.ndarray:
    """The current strategy per tree slot, by regret matching on the abstract slots."""
    positive = np.maximum(self.regrets, 0.0)
    sums = np.bincount(self._abstract_set, positive)[self._abstract_set]
    uniform = 1.0 / self.abstract_num_actions[self._abstract_set]
    matched = np.where(sums > 0, positive / np.where(sums > 0, sums, 1.0), uniform)
    return matched[self.slot_abstract]

  def _reach_and_values(self, players):
    """Reach per node of each player and of chance ([nodes, n + 1]), and the expected values
    of `players` ([nodes, len(players)]) under the current strategy."""
    tree, n = self.tree, self.rules.num_players
    probabilities = self.current[self._edge_slots]
    weights = np.ones((tree.num_nodes, n + 1))
    weights[:, n] = tree.chance_prob
    weights[self._edges, self._edge_players] = probabilities
    edge_weight = tree.chance_prob.copy()
    edge_weight[self._edges] = probabilities
    reach = np.empty_like(weights)
    reach[0] = 1.0
    for start, stop, end, parents, _, _ in self._levels:
      reach[stop:end] = reach[parents] * weights[stop:end]
    values = tree.returns[:, players].copy()
    for start, stop, end, _, inner, offsets in reversed(self._levels):
      if inner.size:
        weighted = values[stop:end] * edge_weight[stop:end, None]
        values[start + inner] = np.add.reduceat(weighted, offsets, axis=0)
    return reach, values

  def iteration(self) -> None:
    t = self.iterations + 1
    n = self.rules.num_players
    if self.alternating:
      for p in range(n):
        reach, values = self._reach_and_values([p])
        self._update(p, reach, values[:, 0], t)
        self.current = self._regret_matching()
    else:
      reach, values = self._reach_and_values(list(range(n)))
      for p in range(n):
        self._update(p, reach, values[:, p], t)
      self.current = self._regret_matching()

  def _update(self, player: int, reach: np.ndarray, values: np.ndarray, t: int) -> None:
    edges = self._player_edges[player]
    parents = self.tree.parent[edges]
    others = np.prod(reach[parents][:, self._other_columns[player]], axis=1)
    slots = self.slot_abstract[self.tree.edge_slot[edges]]
    size = self.num_abstract_slots
    self.regrets += np.bincount(slots, others * (values[edges] - values[parents]), size)
    own = reach[parents, player] * self.current[self.tree.edge_slot[edges]]
    self.policy_sums += np.bincount(slots, own * float(t) ** self.averaging_power, size)
    mine = self._abstract_slot_player == player
    if self.regret_floor:
      self.regrets[mine] = np.maximum(self.regrets[mine], 0.0)
    if self.discount is not None:
      alpha, beta = self.discount
      r = self.regrets[mine]
      self.regrets[mine] = r * np.where(r >= 0, t ** alpha / (t ** alpha + 1),
                                        t ** beta / (t ** beta + 1))

  def average_abstract(self) -> np.ndarray:
    """The average strategy on the abstract slots (uniform where nothing was accumulated)."""
    sums = np.bincount(self._abstract_set, self.policy_sums)[self._abstract_set]
    uniform = 1.0 / self.abstract_num_actions[self._abstract_set]
    return np.where(sums > 0, self.policy_sums / np.where(sums > 0, sums, 1.0), uniform)

  def average_policy_array(self) -> np.ndarray:
    """The average strategy as a behaviour strategy of the tree (one entry per tree slot)."""
    return self.average_abstract()[self.slot_abstract]

  def average_strategy(self):
    average, tree = self.average_abstract(), self.tree
    strategy = {}
    for a, i in enumerate(self._first_infoset):
      if self.keys is None:
        key = self.abstraction.key(self.rules, tree.infoset_tables[i], int(tree.infoset_player[i]))
      else:
        key = self.keys[a]
      start = self._abstract_first[a]
      strategy[key] = (tuple(tree.infoset_actions(int(i))),
                       average[start:start + self.abstract_num_actions[a]].copy())
    return strategy


class CFR(CFRSolver):
  """Vanilla CFR with alternating updates (as OpenSpiel's `CFRSolver`)."""

  algorithm = "cfr"


class CFRPlus(CFRSolver):
  """CFR+: regret matching+, alternating updates, linear averaging (as `CFRPlusSolver`)."""

  algorithm = "cfr+"

  def __init__(self, game, abstraction, tree=None, seed=None):
    super().__init__(game, abstraction, tree, regret_floor=True, averaging_power=1.0, seed=seed)


class DiscountedCFR(CFRSolver):
  """Discounted CFR, DCFR(alpha=1.5, beta=0, gamma=2) by default (as OpenSpiel's `DCFRSolver`)."""

  algorithm = "dcfr"

  def __init__(self, game, abstraction, tree=None, seed=None, alpha: float = 1.5,
               beta: float = 0.0, gamma: float = 2.0):
    super().__init__(game, abstraction, tree, averaging_power=gamma, discount=(alpha, beta),
                     seed=seed)
