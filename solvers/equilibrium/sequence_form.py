"""The exact value and an equilibrium of a two-player zero- or constant-sum game: the sequence-form
linear program (Koller, Megiddo and von Stengel 1996) over the array tree, solved by scipy's HiGHS.

A constant-sum game (`utility=win`: the two returns sum to 1) is solved as the zero-sum game of
its returns less half the constant, which has the same equilibria; its values are mapped back.
Unlike OpenSpiel's `sequence_form_lp` (cvxpy, pyspiel states), the program is built from a
`GameTree` with sparse matrices (the program: beside `_solve_for`). The behaviour strategy is
x(slot) / x(parent sequence), uniform where the parent has plan 0. An LP that fails raises.

  solve(game_or_tree) -> SequenceFormSolution(value, policy, values)

The rest: docs/equilibrium.md, "Exact exploitability".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyspiel
from scipy import optimize, sparse

from solvers.equilibrium.exploitability import as_tree
from solvers.equilibrium.game_tree import GameTree


class SequenceFormSolution(NamedTuple):
  value: float  # player 0's equilibrium value (player 1's is the game's utility sum less it)
  policy: np.ndarray  # an equilibrium behaviour strategy for both players (slot array)
  values: tuple[float, float]  # each player's LP optimum, a check: they sum to the utility sum


def sequences(tree: GameTree) -> tuple[np.ndarray, np.ndarray, list[int]]:
  """Sequence numbering: per slot its sequence number within its player (1, 2, ...; 0 is the
  empty sequence); per node and player the player's last sequence on the way ([num_nodes, 2]);
  and each player's number of sequences."""
  seq_of_slot = np.zeros(tree.num_slots, np.int64)
  counts = []
  for p in range(tree.num_players):
    mine = tree.slot_player == p
    seq_of_slot[mine] = np.arange(1, mine.sum() + 1)
    counts.append(int(mine.sum()) + 1)
  node_seq = np.zeros((tree.num_nodes, tree.num_players), np.int64)
  for d in range(1, tree.num_levels):
    level = slice(tree.level_starts[d], tree.level_starts[d + 1])
    node_seq[level] = node_seq[tree.parent[level]]
    for p in range(tree.num_players):
      own = np.flatnonzero(tree.parent_player[level] == p) + tree.level_starts[d]
      node_seq[own, p] = seq_of_slot[tree.edge_slot[own]]
  return seq_of_slot, node_seq, counts


def _constraints(tree: GameTree, player: int, seq_of_slot, node_seq, count: int):
  """E (rows: the empty sequence, then each of the player's information sets) and e."""
  infosets = np.flatnonzero(tree.infoset_player == player)
  rows = [0]
  cols = [0]
  data = [1.0]
  for row, i in enumerate(infosets, start=1):
    start = tree.infoset_first_slot[i]
    slots = range(start, start + tree.infoset_num_actions[i])
    rows += [row] * (len(slots) + 1)
    cols += [int(node_seq[tree.infoset_node[i], player])] + seq_of_slot[slots].tolist()
    data += [-1.0] + [1.0] * len(slots)
  matrix = sparse.csr_matrix((data, (rows, cols)), shape=(len(infosets) + 1, count))
  rhs = np.zeros(len(infosets) + 1)
  rhs[0] = 1.0
  return matrix, rhs


# A realization plan x gives each sequence of the player (the empty one, or an information set and
# action: its last choice on the way) the product of its own probabilities along it: E x = e,
# x >= 0. With A[s0, s1] player 0's chance-weighted utility over the terminals the pair reaches,
# player 0 solves  max v[0]  s.t.  E x = e, x >= 0, F^T v <= A^T x  (the dual of the opponent's
# best response min_y x^T A y, F y = f, y >= 0); player 1 the same with roles and signs exchanged.
def _solve_for(player, payoff, constraints, counts):
  """Player `player` maximises its payoff x^T A y against the other's best response."""
  (e_mine, rhs_mine), (f_other, _) = constraints[player], constraints[1 - player]
  a = payoff if player == 0 else -payoff.T  # rows: this player's sequences
  n_x, n_v = counts[player], f_other.shape[0]
  objective = np.zeros(n_x + n_v)
  objective[n_x] = -1.0  # maximise v[0]
  a_ub = sparse.hstack([-a.T, f_other.T]).tocsc()
  a_eq = sparse.hstack([e_mine, sparse.csr_matrix((e_mine.shape[0], n_v))]).tocsc()
  bounds = [(0, None)] * n_x + [(None, None)] * n_v
  result = optimize.linprog(objective, A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), A_eq=a_eq,
                            b_eq=rhs_mine, bounds=bounds, method="highs")
  if result.status != 0:
    raise RuntimeError(f"the sequence-form LP of player {player} failed: {result.message}")
  return -result.fun, result.x[:n_x]


def solve(game_or_tree) -> SequenceFormSolution:
  """Game value and an equilibrium of a two-player zero-sum game (`utility=margin`) or
  constant-sum game (`utility=win`)."""
  tree = as_tree(game_or_tree)
  utility = tree.game.get_type().utility
  if tree.num_players != 2 or utility not in (pyspiel.GameType.Utility.ZERO_SUM,
                                              pyspiel.GameType.Utility.CONSTANT_SUM):
    raise ValueError("the sequence-form LP needs a two-player zero-sum or constant-sum game"
                     f" (utility=margin or win); got {tree.num_players} players,"
                     f" {utility.name} utility (utility=score is general sum)")
  half = tree.game.utility_sum() / 2 if utility == pyspiel.GameType.Utility.CONSTANT_SUM else 0.0
  seq_of_slot, node_seq, counts = sequences(tree)
  terminals = tree.terminal_nodes
  chance_reach = tree.reach_probabilities(np.ones(tree.num_slots))[terminals]
  payoff = sparse.csr_matrix(
      (chance_reach * (tree.returns[terminals, 0] - half),
       (node_seq[terminals, 0], node_seq[terminals, 1])), shape=tuple(counts))
  constraints = [_constraints(tree, p, seq_of_slot, node_seq, counts[p]) for p in range(2)]
  policy = np.zeros(tree.num_slots)
  values = []
  for p in range(2):
    value, plan = _solve_for(p, payoff, constraints, counts)
    values.append(value + half)
    mine = np.flatnonzero(tree.slot_player == p)
    infosets = tree.slot_infoset[mine]
    parent_plan = plan[node_seq[tree.infoset_node[infosets], p]]
    behaviour = np.divide(plan[seq_of_slot[mine]], parent_plan, out=np.zeros(mine.size),
                          where=parent_plan > 1e-12).clip(0.0, None)
    totals = np.bincount(infosets, weights=behaviour, minlength=tree.num_infosets)[infosets]
    uniform = 1.0 / tree.infoset_num_actions[infosets]
    policy[mine] = np.where(totals > 1e-12, behaviour / np.where(totals > 1e-12, totals, 1.0),
                            uniform)
  return SequenceFormSolution(values[0], policy, (values[0], values[1]))
