"""Policies converted between a `GameTree`'s array form and OpenSpiel's policy forms.

The array form is a behaviour strategy: one probability per information set and legal action
(length `tree.num_slots`). `policy_array(tree, policy)` reads one from a numpy array (checked); a
`policy.TabularPolicy` or `pyspiel.TabularPolicy` of the simultaneous or turn-based game; a policy
answering `probabilities(rules, table, player)` (as `abstraction.LiftedPolicy`); or any other
`policy.Policy` (or C++ `pyspiel.Policy` of the turn-based game), asked at a representative state
or table of each information set. Missing actions get 0; probability on an illegal action is
refused, not dropped, and the result must be a distribution everywhere
(`GameTree.check_distributions`), errors naming player, information state and actions
(`validation`). `to_tabular_policy` and `to_pyspiel_tabular_policy` write the turn-based game's
tabular forms; `TreePolicy` is the array as a `policy.Policy` of the simultaneous game.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.validation import check_answer


class TreePolicy(policy_lib.Policy):
  """A behaviour strategy array of a `GameTree` as a `policy.Policy` of the simultaneous game,
  looked up by information state string (a turn-based state's string works too)."""

  def __init__(self, tree: GameTree, policy: np.ndarray):
    super().__init__(tree.game, list(range(tree.num_players)))
    self.tree = tree
    self.array = tree.check_policy(policy)

  def action_probabilities(self, state, player_id=None) -> dict[int, float]:
    player = state.current_player() if player_id is None else player_id
    infoset = self.tree.infoset_index(state.information_state_string(player))
    probabilities = self.tree.infoset_slice(self.array, infoset)
    return dict(zip(self.tree.infoset_actions(infoset), probabilities.tolist()))


def policy_array(tree: GameTree, policy) -> np.ndarray:
  """The behaviour strategy array of `policy` (any form of the module docstring) on `tree`."""
  if isinstance(policy, TreePolicy) and policy.tree is tree:
    return tree.check_distributions(policy.array)
  return tree.check_distributions(_read(tree, policy))


def to_tabular_policy(tree: GameTree, policy: np.ndarray) -> policy_lib.TabularPolicy:
  """A `policy.TabularPolicy` of `convert_to_turn_based(game)` (built over one representative
  state per information set, not by enumerating the game)."""
  policy = tree.check_policy(policy)
  states = {tree.turn_based_string(i): tree.turn_based_state(int(tree.infoset_node[i]))
            for i in range(tree.num_infosets)}
  tabular = policy_lib.TabularPolicy(tree.turn_based_game, states=states)
  for i in range(tree.num_infosets):
    row = tabular.action_probability_array[tabular.state_lookup[tree.turn_based_string(i)]]
    row[:] = 0.0
    row[tree.infoset_actions(i)] = tree.infoset_slice(policy, i)
  return tabular


def to_pyspiel_tabular_policy(tree: GameTree, policy: np.ndarray) -> pyspiel.TabularPolicy:
  """A C++ `pyspiel.TabularPolicy` keyed by the turn-based strings (for `pyspiel.nash_conv`,
  `pyspiel.exploitability` on the turn-based game or its cached tree)."""
  policy = tree.check_policy(policy)
  return pyspiel.TabularPolicy({
      tree.turn_based_string(i): list(zip(tree.infoset_actions(i),
                                          tree.infoset_slice(policy, i).tolist()))
      for i in range(tree.num_infosets)})


def _read(tree: GameTree, policy) -> np.ndarray:
  """The array `policy` gives, not yet checked to be a distribution."""
  if isinstance(policy, np.ndarray):
    return policy
  if isinstance(policy, policy_lib.TabularPolicy):
    return _from_rows(tree, policy.state_lookup, policy.action_probability_array)
  if isinstance(policy, pyspiel.TabularPolicy):
    return _from_table(tree, policy.policy_table())
  if isinstance(policy, policy_lib.Policy) and hasattr(policy, "probabilities"):
    return _ask_at_tables(tree, policy)
  if isinstance(policy, policy_lib.Policy):
    turn_based = policy.game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    return _ask_at_states(tree, policy.action_probabilities, turn_based)
  if isinstance(policy, pyspiel.Policy):  # C++ policies, such as CFRSolver.average_policy()
    return _ask_at_states(tree, lambda state, p: dict(policy.get_state_policy(state, p)), True)
  raise ValueError(f"cannot read a policy from a {type(policy).__name__}; allowed: a numpy"
                   " array, policy.TabularPolicy, pyspiel.TabularPolicy, policy.Policy or"
                   " pyspiel.Policy")


def _ask_at_tables(tree: GameTree, policy) -> np.ndarray:
  """Asks `policy.probabilities(rules, table, player)` at each information set's table."""
  array = np.zeros(tree.num_slots)
  for i in range(tree.num_infosets):
    _write(tree, array, i, policy.probabilities(tree.rules, tree.infoset_tables[i],
                                                int(tree.infoset_player[i])))
  return array


def _ask_at_states(tree: GameTree, probabilities: Callable[[pyspiel.State, int], dict],
                   turn_based: bool) -> np.ndarray:
  """Asks `probabilities(state, player)` at a representative state of every information set."""
  array = np.zeros(tree.num_slots)
  for i in range(tree.num_infosets):
    node, p = int(tree.infoset_node[i]), int(tree.infoset_player[i])
    state = tree.turn_based_state(node) if turn_based else tree.simultaneous_state(node)
    _write(tree, array, i, probabilities(state, p))
  return array


def _from_rows(tree: GameTree, lookup: dict, rows: np.ndarray) -> np.ndarray:
  """The array of a Python `TabularPolicy`'s rows (`lookup`: string -> row)."""
  array = np.zeros(tree.num_slots)
  for i in range(tree.num_infosets):
    row = rows[_entry(tree, lookup, i)]
    _write(tree, array, i, {a: float(p) for a, p in enumerate(row) if p != 0})
  return array


def _from_table(tree: GameTree, table: dict) -> np.ndarray:
  """The array of a C++ `TabularPolicy`'s table (string -> [(action, probability)])."""
  array = np.zeros(tree.num_slots)
  for i in range(tree.num_infosets):
    _write(tree, array, i, dict(_entry(tree, table, i)))
  return array


def _entry(tree: GameTree, mapping, infoset: int):
  """`mapping`'s entry for the information set, under its turn-based or simultaneous string."""
  for key in (tree.turn_based_string(infoset), tree.infoset_string(infoset)):
    if key in mapping:
      return mapping[key]
  raise ValueError(f"the policy has no entry for information set {infoset}:"
                   f" {tree.infoset_string(infoset)!r}")


def _write(tree: GameTree, array: np.ndarray, infoset: int, probabilities: dict) -> None:
  """Writes an answer (action -> probability) into the information set's slots; a PolicyError
  for probability on an action that is not legal there."""
  legal = tree.infoset_actions(infoset)
  if any(a not in legal and p != 0 for a, p in probabilities.items()):
    check_answer(probabilities, legal, int(tree.infoset_player[infoset]),
                 tree.infoset_string(infoset))
  start = tree.infoset_first_slot[infoset]
  for rank, a in enumerate(tree.infoset_actions(infoset)):
    array[start + rank] = probabilities.get(a, 0.0)
