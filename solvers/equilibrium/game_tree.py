"""The whole game tree of a small drafting game as numpy arrays, for exact solvers.

`GameTree` walks the game once, through its pure rules functions (`Dynamics`), and stores the tree
in flat arrays (listed in its docstring), so best response, NashConv, CFR and sequence-form passes
are a few numpy operations per depth on behaviour strategies given as one probability per
information set and legal action (`tree_policies` converts OpenSpiel policies).
`simultaneous_state(node)` and `turn_based_state(node)` rebuild states.

The tree is that of `pyspiel.convert_to_turn_based(game)` (players act in turn, unseen by the
others; a single legal action still gets its node), so results compare exactly with OpenSpiel's
algorithms there. A tree is built only within `max_nodes` (`tree_size`): a game estimated over it
is refused before the walk, and the walk stops at it. The rest: docs/equilibrium.md, "Reduced
games" and "Exact exploitability".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from solvers.equilibrium import validation
from solvers.equilibrium.tree_size import MAX_TREE_NODES, TreeTooLarge, check_tree_size
from sushigo_spiel.drafting.adapter import DraftingGame
from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS, TERMINAL

CHANCE_NODE, DECISION_NODE, TERMINAL_NODE = 0, 1, 2
_TURN_BASED_PREFIX = "Current player: {}\n"


class _Builder:
  """Walks a game breadth first through its dynamics, filling the lists `GameTree` keeps.

  A level entry is (table, actions chosen earlier in this turn, parent node, action into the
  node, chance probability, slot). Within a turn the players choose one after another (the
  turn-based form); the joint action is played when the last player has chosen.
  """

  def __init__(self, game: DraftingGame, max_nodes: int):
    self.game, self.max_nodes = game, max_nodes
    self.rules, self.dynamics, self.num_players = game.rules, game.dynamics, game.num_players()
    self.kind, self.player, self.infoset, self.depth, self.parent = [], [], [], [], []
    self.first_child, self.num_children, self.action, self.chance_prob, self.edge_slot = \
        [], [], [], [], []
    self.terminal_nodes, self.terminal_returns = [], []
    self.infoset_ids: dict = {}
    self.inf_player, self.inf_depth, self.inf_node, self.inf_first_slot, self.inf_tables = \
        [], [], [], [], []
    self.slot_action, self.slot_infoset = [], []
    self.level_starts = [0]
    self.histories = 0

  def walk(self) -> None:
    level = [(self.dynamics.initial_table(self.rules), (), -1, -1, 1.0, -1)]
    d = 0
    while level:
      next_level = []
      next_first = self.level_starts[-1] + len(level)
      per_table = {}  # id(table) -> (legal actions, infoset) of the player acting there
      for table, partial, up, act, prob, slot in level:
        if next_first + len(next_level) > self.max_nodes:
          self._refuse(next_first + len(next_level))
        node = len(self.kind)
        self.parent.append(up)
        self.action.append(act)
        self.chance_prob.append(prob)
        self.edge_slot.append(slot)
        self.depth.append(d)
        self.first_child.append(next_first + len(next_level))
        if not partial:
          self.histories += 1
        if table.actor == TERMINAL:
          self._terminal(node, table)
        elif table.actor == CHANCE:
          self._chance(node, table, next_level)
        else:
          assert table.actor == SIMULTANEOUS
          self._decision(node, d, table, partial, next_level, per_table)
      self.level_starts.append(self.level_starts[-1] + len(level))
      level = next_level
      d += 1

  def _refuse(self, nodes: int) -> None:
    raise TreeTooLarge(f"{self.game}: its tree has more than {nodes:,} nodes, over the limit of"
                       f" {self.max_nodes:,} (the estimate made before building it fell short);"
                       " allowed: a smaller game, or a higher limit on a machine with the memory"
                       " for it")

  def _terminal(self, node: int, table) -> None:
    self.kind.append(TERMINAL_NODE)
    self.player.append(TERMINAL)
    self.infoset.append(-1)
    self.num_children.append(0)
    self.terminal_nodes.append(node)
    self.terminal_returns.append(self.dynamics.returns(self.rules, table))

  def _chance(self, node: int, table, next_level: list) -> None:
    self.kind.append(CHANCE_NODE)
    self.player.append(CHANCE)
    self.infoset.append(-1)
    outcomes = self.dynamics.chance_outcomes(self.rules, table)
    self.num_children.append(len(outcomes))
    for outcome, p in outcomes:
      next_level.append((self.dynamics.apply_chance(self.rules, table, outcome), (), node,
                         outcome, p, -1))

  def _decision(self, node: int, d: int, table, partial: tuple, next_level: list,
                per_table: dict) -> None:
    mover = len(partial)
    cached = per_table.get(id(table))
    if cached is None:
      legal = self.dynamics.legal_actions(self.rules, table, mover)
      cached = per_table[id(table)] = (legal, self._infoset_index(node, d, table, mover, legal))
    legal, index = cached
    self.kind.append(DECISION_NODE)
    self.player.append(mover)
    self.infoset.append(index)
    self.num_children.append(len(legal))
    base = self.inf_first_slot[index]
    last = mover == self.num_players - 1
    for rank, a in enumerate(legal):
      chosen = partial + (a,)
      child = self.dynamics.play(self.rules, table, list(chosen)) if last else table
      next_level.append((child, () if last else chosen, node, a, 1.0, base + rank))

  def _infoset_index(self, node: int, d: int, table, mover: int, legal: list[int]) -> int:
    """The information set of `mover` at `table`, new or met before (at the same depth)."""
    key = (mover, self.dynamics.infoset_key(self.rules, table, mover))
    index = self.infoset_ids.get(key)
    if index is None:
      index = self.infoset_ids[key] = len(self.inf_player)
      self.inf_player.append(mover)
      self.inf_depth.append(d)
      self.inf_node.append(node)
      self.inf_first_slot.append(len(self.slot_action))
      self.inf_tables.append(table)
      self.slot_action.extend(legal)
      self.slot_infoset.extend([index] * len(legal))
    elif self.inf_depth[index] != d:
      raise AssertionError(f"information set {index} spans depths {self.inf_depth[index]} and {d}")
    return index


class GameTree:
  """The arrays of one game's turn-based tree.

  Nodes (arrays of length `num_nodes`, index 0 is the root)
    Ordered by depth (breadth first), so the nodes of depth d are
    `level_starts[d]:level_starts[d+1]` and the children of a node are contiguous:
    `first_child[v] : first_child[v] + num_children[v]`.
    kind          CHANCE_NODE, DECISION_NODE or TERMINAL_NODE
    player        the acting player; CHANCE (-1) at chance nodes, TERMINAL (-4) at ends
    infoset       information-set index at decision nodes, -1 elsewhere
    depth, parent (-1 at the root), first_child, num_children
    returns       [num_nodes, num_players] utilities at terminal nodes, zero elsewhere
    An edge is named by its child node, so per-edge arrays are node arrays too:
    action        the action (chance outcome, or the player's action) leading into the node
    chance_prob   its probability when the parent is a chance node, else 1
    edge_slot     its slot (see below) when the parent is a decision node, else -1

  Information sets (arrays of length `num_infosets`, ordered by depth, then by first visit)
    All nodes of an information set have the same depth (checked while building), so passes that
    go depth by depth handle whole information sets at once.
    infoset_player, infoset_depth, infoset_node (a representative node)
    infoset_level_starts, slot_level_starts: the information sets (slots) of depth d are
    `infoset_level_starts[d]:infoset_level_starts[d+1]` (likewise for slots)
    infoset_first_slot, infoset_num_actions: the information set's slots. A slot is one legal
    action of one information set; slots of an information set are contiguous, actions increasing.
    slot_action, slot_infoset, slot_player (arrays of length `num_slots`)
    infoset_actions(i)        the legal actions, in order
    infoset_tables[i]         the `Table` of a representative node, with `rules`: what the player
                              knows is a function of it (for features of an abstraction)
    infoset_string(i)         the simultaneous game's information state string for the player
    turn_based_string(i)      the string `convert_to_turn_based(game)` gives at that node
    infoset_index(string)     the inverse (either string)
    num_infosets_per_player, num_histories (nodes of the simultaneous game), num_terminals

  Information sets are keyed, while building, by the game's `infoset_key` (what the player has
  seen, as a tuple), the same partition as the information state string (tested), which is built
  only when asked for.
  """

  def __init__(self, game: pyspiel.Game, max_nodes: int = MAX_TREE_NODES):
    if not isinstance(game, DraftingGame):
      raise ValueError(f"GameTree needs a drafting game (python_sushi_go or python_sushi_draft);"
                       f" got {game}")
    check_tree_size(game, max_nodes)
    self.game = game
    self.rules = game.rules
    self.num_players = game.num_players()
    self._observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    self._turn_based_game = None
    self._strings = None
    self._string_index = None
    builder = _Builder(game, max_nodes)
    builder.walk()
    self._store(builder)

  def _store(self, b: _Builder) -> None:
    """Keeps the builder's lists as arrays, with the derived lookups the passes use."""
    n = self.num_players
    self.kind = np.array(b.kind, np.int8)
    self.player = np.array(b.player, np.int32)
    self.infoset = np.array(b.infoset, np.int64)
    self.depth = np.array(b.depth, np.int32)
    self.parent = np.array(b.parent, np.int64)
    self.first_child = np.array(b.first_child, np.int64)
    self.num_children = np.array(b.num_children, np.int64)
    self.action = np.array(b.action, np.int64)
    self.chance_prob = np.array(b.chance_prob, np.float64)
    self.edge_slot = np.array(b.edge_slot, np.int64)
    self.level_starts = np.array(b.level_starts, np.int64)
    self.num_nodes = len(b.kind)
    self.num_levels = len(b.level_starts) - 1
    self.num_histories = b.histories
    self.terminal_nodes = np.array(b.terminal_nodes, np.int64)
    self.num_terminals = len(b.terminal_nodes)
    self.returns = np.zeros((self.num_nodes, n))
    self.returns[self.terminal_nodes] = np.array(b.terminal_returns, np.float64).reshape(-1, n)
    self.infoset_player = np.array(b.inf_player, np.int32)
    self.infoset_depth = np.array(b.inf_depth, np.int32)
    self.infoset_node = np.array(b.inf_node, np.int64)
    self.infoset_first_slot = np.array(b.inf_first_slot, np.int64)
    self.infoset_tables = b.inf_tables
    self.num_infosets = len(b.inf_player)
    self.slot_action = np.array(b.slot_action, np.int64)
    self.slot_infoset = np.array(b.slot_infoset, np.int64)
    self.num_slots = len(b.slot_action)
    self.infoset_num_actions = np.diff(np.append(self.infoset_first_slot, self.num_slots))
    self.slot_player = self.infoset_player[self.slot_infoset]
    self.num_infosets_per_player = tuple(
        int(np.sum(self.infoset_player == p)) for p in range(n))
    self.parent_kind = np.where(self.parent >= 0, self.kind[np.maximum(self.parent, 0)], -1)
    self.parent_player = np.where(self.parent >= 0, self.player[np.maximum(self.parent, 0)],
                                  TERMINAL)
    self._decision_edges = np.flatnonzero(self.edge_slot >= 0)
    self.infoset_level_starts = np.searchsorted(self.infoset_depth,
                                                np.arange(self.num_levels + 1))
    self.slot_level_starts = np.append(self.infoset_first_slot, self.num_slots)[
        self.infoset_level_starts]

  # ----- information sets

  def infoset_actions(self, infoset: int) -> list[int]:
    start = self.infoset_first_slot[infoset]
    return self.slot_action[start:start + self.infoset_num_actions[infoset]].tolist()

  def infoset_string(self, infoset: int) -> str:
    """The simultaneous game's information state string of the information set's player."""
    if self._strings is not None:
      return self._strings[infoset]
    return self._observer.string_from_table(self.infoset_tables[infoset],
                                      int(self.infoset_player[infoset]))

  def turn_based_string(self, infoset: int) -> str:
    """The information state string `convert_to_turn_based(game)` gives its player there."""
    return _TURN_BASED_PREFIX.format(self.infoset_player[infoset]) + self.infoset_string(infoset)

  @property
  def infoset_strings(self) -> list[str]:
    if self._strings is None:
      self._strings = [self.infoset_string(i) for i in range(self.num_infosets)]
    return self._strings

  def infoset_index(self, string: str) -> int:
    """The information set whose simultaneous or turn-based string is `string`."""
    if self._string_index is None:
      index = {}
      for i, s in enumerate(self.infoset_strings):
        index[s] = i
        index[_TURN_BASED_PREFIX.format(self.infoset_player[i]) + s] = i
      self._string_index = index
    try:
      return self._string_index[string]
    except KeyError:
      raise ValueError(f"no information set of this tree has the string {string!r}") from None

  # ----- states

  @property
  def turn_based_game(self) -> pyspiel.Game:
    if self._turn_based_game is None:
      self._turn_based_game = pyspiel.convert_to_turn_based(self.game)
    return self._turn_based_game

  def path(self, node: int) -> list[int]:
    """The nodes from the root to `node`, both included."""
    nodes = [node]
    while self.parent[nodes[-1]] >= 0:
      nodes.append(int(self.parent[nodes[-1]]))
    return nodes[::-1]

  def simultaneous_state(self, node: int) -> pyspiel.State:
    """The simultaneous game's state at `node`; at a decision node of a player after the first,
    the state before the turn (the earlier choices of the turn are not part of it)."""
    state = self.game.new_initial_state()
    joint = []
    for child in self.path(node)[1:]:
      if self.parent_kind[child] == CHANCE_NODE:
        state.apply_action(int(self.action[child]))
      else:
        joint.append(int(self.action[child]))
        if len(joint) == self.num_players:
          state.apply_actions(joint)
          joint = []
    return state

  def turn_based_state(self, node: int) -> pyspiel.State:
    state = self.turn_based_game.new_initial_state()
    for child in self.path(node)[1:]:
      state.apply_action(int(self.action[child]))
    return state

  def representative_state(self, infoset: int) -> pyspiel.State:
    """A state of the simultaneous game in the information set (for its player)."""
    return self.simultaneous_state(int(self.infoset_node[infoset]))

  # ----- passes over behaviour strategies (arrays of length num_slots)

  def uniform_policy(self) -> np.ndarray:
    return 1.0 / self.infoset_num_actions[self.slot_infoset]

  def check_policy(self, policy: np.ndarray) -> np.ndarray:
    policy = np.asarray(policy, np.float64)
    if policy.shape != (self.num_slots,):
      raise ValueError(f"a policy array needs shape ({self.num_slots},), one probability per"
                       f" information set and action; got {policy.shape}")
    return policy

  def check_distributions(self, policy: np.ndarray, tolerance: float = 1e-9) -> np.ndarray:
    """`policy` if it is a distribution over the legal actions at every information set (finite,
    non-negative, summing to 1 within `tolerance`); else a `validation.PolicyError` naming the
    first information set where it is not: its player, its information state string, and its
    actions and probabilities."""
    policy = self.check_policy(policy)
    sums = np.add.reduceat(policy, self.infoset_first_slot) if self.num_slots else policy
    bad_slots = ~np.isfinite(policy) | (policy < 0)
    bad = ~(np.abs(sums - 1.0) <= tolerance)
    bad[self.slot_infoset[bad_slots]] = True
    if bad.any():
      infoset = int(np.flatnonzero(bad)[0])
      given = dict(zip(self.infoset_actions(infoset),
                       self.infoset_slice(policy, infoset).tolist()))
      problem = validation.answer_problem(given, list(given)) or f"probabilities {given}"
      raise validation.PolicyError(
          f"the policy is not a distribution over the legal actions of player"
          f" {self.infoset_player[infoset]} at information state"
          f" {self.infoset_string(infoset)!r} (information set {infoset}; {int(bad.sum())} such"
          f" sets in all): {problem}; {validation.ALLOWED}")
    return policy

  def edge_probabilities(self, policy: np.ndarray, players: Sequence[int] | None = None,
                         chance: bool = True) -> np.ndarray:
    """Per edge (child node): its chance probability, or its policy probability when the acting
    player is in `players` (default all); 1 for the edges left out (and the root)."""
    policy = self.check_policy(policy)
    weights = self.chance_prob.copy() if chance else np.ones(self.num_nodes)
    edges = self._decision_edges
    if players is not None:
      edges = edges[np.isin(self.parent_player[edges], list(players))]
    weights[edges] = policy[self.edge_slot[edges]]
    return weights

  def reach_probabilities(self, policy: np.ndarray, players: Sequence[int] | None = None,
                          chance: bool = True) -> np.ndarray:
    """Per node: the product of the edge probabilities (as in `edge_probabilities`) on its path."""
    return self.reach_from_edges(self.edge_probabilities(policy, players, chance))

  def reach_from_edges(self, weights: np.ndarray) -> np.ndarray:
    reach = np.empty(self.num_nodes)
    reach[0] = weights[0]
    for d in range(1, self.num_levels):
      level = slice(self.level_starts[d], self.level_starts[d + 1])
      reach[level] = reach[self.parent[level]] * weights[level]
    return reach

  def level_sums(self, values: np.ndarray, d: int) -> np.ndarray:
    """Sums of `values` (indexed by the nodes of depth d + 1, any trailing shape) over the
    children of each node of depth d (zero for nodes without children)."""
    start, stop = self.level_starts[d], self.level_starts[d + 1]
    sums = np.zeros((stop - start,) + values.shape[1:])
    inner = np.flatnonzero(self.num_children[start:stop])
    if inner.size:
      offsets = self.first_child[start + inner] - self.level_starts[d + 1]
      sums[inner] = np.add.reduceat(values, offsets, axis=0)
    return sums

  def expected_values(self, policy: np.ndarray) -> np.ndarray:
    """[num_nodes, num_players]: each node's expected returns when everyone follows `policy`."""
    weights = self.edge_probabilities(policy)
    values = self.returns.copy()
    for d in range(self.num_levels - 2, -1, -1):
      below = slice(self.level_starts[d + 1], self.level_starts[d + 2])
      start, stop = self.level_starts[d], self.level_starts[d + 1]
      inner = self.num_children[start:stop] > 0
      sums = self.level_sums(values[below] * weights[below, None], d)
      values[start:stop][inner] = sums[inner]
    return values

  def policy_values(self, policy: np.ndarray) -> np.ndarray:
    """Each player's expected return when everyone follows `policy`."""
    return self.expected_values(policy)[0]

  def infoset_slice(self, policy: np.ndarray, infoset: int) -> np.ndarray:
    """The information set's part of a policy array: its actions' probabilities, in order."""
    start = self.infoset_first_slot[infoset]
    return policy[start:start + self.infoset_num_actions[infoset]]
