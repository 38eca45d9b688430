"""The array game tree against OpenSpiel's own turn-based form of the same games, walked state by
state: same nodes, same information sets (by string), same legal actions, chance probabilities
and returns; and the vectorised passes against plain recursion over pyspiel states."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib

import sushigo_spiel  # noqa: F401  (registers the games)
from solvers.equilibrium.game_tree import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE, GameTree
from solvers.equilibrium.tree_policies import (TreePolicy, policy_array, to_pyspiel_tabular_policy,
                                              to_tabular_policy)

WASABI = ("python_sushi_go(players=2,rounds=1,hand_size=3,"
          "deck=tempura:2/sashimi:2/squid:1/wasabi:1,deal=hand,utility=margin)")
CHOPSTICKS = ("python_sushi_go(players=2,rounds=1,hand_size=3,"
              "deck=chopsticks:1/wasabi:1/squid:1/egg:1/maki2:1/tempura:1,deal=hand)")
TWO_ROUNDS = ("python_sushi_go(players=2,rounds=2,hand_size=2,"
              "deck=pudding:2/maki2:2/tempura:2/salmon:1/wasabi:1,deal=hand,utility=win)")
THREE_PLAYERS = ("python_sushi_go(players=3,rounds=1,hand_size=2,"
                 "deck=tempura:2/maki1:2/sashimi:2,deal=card,utility=margin)")
ROBOT = ("python_sushi_go(players=2,rounds=1,hand_size=2,robot=true,"
         "deck=tempura:2/sashimi:2/squid:1/wasabi:1,deal=hand,utility=margin)")
DRAFT = ("python_sushi_draft(players=2,rounds=1,hand_size=3,deal=hand,"
         "deck=tuna:2/shrimp:2/salmon:2,chips=tuna:3/shrimp:2/salmon:1.2/cucumber:1/"
         "mackerel:1/dessert:2)")
GAMES = [WASABI, CHOPSTICKS, TWO_ROUNDS, THREE_PLAYERS, ROBOT, DRAFT]

_TREES = {}


def tree_of(game_string: str) -> GameTree:
  if game_string not in _TREES:
    _TREES[game_string] = GameTree(pyspiel.load_game(game_string))
  return _TREES[game_string]


def walk_turn_based(game: pyspiel.Game):
  """Breadth-first walk of `convert_to_turn_based(game)`, children in legal-action order: yields
  (state, parent index, action, chance probability)."""
  root = pyspiel.convert_to_turn_based(game).new_initial_state()
  level = [(root, -1, -1, 1.0)]
  index = 0
  while level:
    next_level = []
    for state, parent, action, prob in level:
      yield state, parent, action, prob
      if state.is_chance_node():
        next_level += [(state.child(a), index, a, p) for a, p in state.chance_outcomes()]
      elif not state.is_terminal():
        next_level += [(state.child(a), index, a, 1.0) for a in state.legal_actions()]
      index += 1
    level = next_level


@pytest.mark.parametrize("game_string", GAMES)
def test_tree_equals_openspiel_turn_based_walk(game_string):
  tree = tree_of(game_string)
  strings = {}
  count = 0
  for node, (state, parent, action, prob) in enumerate(walk_turn_based(tree.game)):
    count += 1
    assert tree.parent[node] == parent
    assert tree.action[node] == max(action, -1)
    assert tree.chance_prob[node] == pytest.approx(prob, abs=1e-15)
    if state.is_terminal():
      assert tree.kind[node] == TERMINAL_NODE
      np.testing.assert_array_equal(tree.returns[node], state.returns())
    elif state.is_chance_node():
      assert tree.kind[node] == CHANCE_NODE
    else:
      assert tree.kind[node] == DECISION_NODE
      player = state.current_player()
      assert tree.player[node] == player
      infoset = int(tree.infoset[node])
      assert tree.infoset_player[infoset] == player
      assert tree.infoset_actions(infoset) == state.legal_actions()
      key = state.information_state_string()
      assert tree.turn_based_string(infoset) == key
      # One information set per string: the tree's partition is OpenSpiel's.
      assert strings.setdefault(key, infoset) == infoset
  assert count == tree.num_nodes
  assert len(strings) == tree.num_infosets
  assert tree.num_infosets_per_player == tuple(
      int(np.sum(tree.infoset_player == p)) for p in range(tree.num_players))


@pytest.mark.parametrize("game_string", GAMES)
def test_layout_children_levels_and_slots(game_string):
  tree = tree_of(game_string)
  for v in range(tree.num_nodes):
    children = range(tree.first_child[v], tree.first_child[v] + tree.num_children[v])
    assert all(tree.parent[c] == v and tree.depth[c] == tree.depth[v] + 1 for c in children)
  for d in range(tree.num_levels):
    assert set(tree.depth[tree.level_starts[d]:tree.level_starts[d + 1]]) == {d}
  decision = np.flatnonzero(tree.kind == DECISION_NODE)
  assert np.all(tree.depth[decision] == tree.infoset_depth[tree.infoset[decision]])
  assert np.all(np.diff(tree.infoset_depth) >= 0)
  for e in np.flatnonzero(tree.edge_slot >= 0):
    slot = tree.edge_slot[e]
    assert tree.slot_infoset[slot] == tree.infoset[tree.parent[e]]
    assert tree.slot_action[slot] == tree.action[e]


@pytest.mark.parametrize("game_string", [WASABI, THREE_PLAYERS, ROBOT, DRAFT])
def test_representative_states_and_simultaneous_strings(game_string):
  tree = tree_of(game_string)
  for i in range(tree.num_infosets):
    state = tree.representative_state(i)
    player = int(tree.infoset_player[i])
    assert state.is_simultaneous_node()
    assert state.information_state_string(player) == tree.infoset_string(i)
    assert state.legal_actions(player) == tree.infoset_actions(i)
    assert tree.infoset_index(tree.infoset_string(i)) == i
    assert tree.infoset_index(tree.turn_based_string(i)) == i


def _random_policy(tree: GameTree, seed: int) -> np.ndarray:
  raw = np.random.default_rng(seed).random(tree.num_slots) + 0.05
  totals = np.bincount(tree.slot_infoset, weights=raw)
  return raw / totals[tree.slot_infoset]


def _recursive_values(state, tree: GameTree, policy: np.ndarray) -> np.ndarray:
  """Expected returns by recursion over pyspiel states of the simultaneous game."""
  if state.is_terminal():
    return np.array(state.returns())
  if state.is_chance_node():
    return sum(p * _recursive_values(state.child(a), tree, policy)
               for a, p in state.chance_outcomes())
  per_player = []
  for p in range(tree.num_players):
    infoset = tree.infoset_index(state.information_state_string(p))
    start = tree.infoset_first_slot[infoset]
    per_player.append(list(zip(tree.infoset_actions(infoset),
                               policy[start:start + tree.infoset_num_actions[infoset]])))
  total = 0.0
  for joint in np.ndindex(*[len(choices) for choices in per_player]):
    prob = np.prod([per_player[p][k][1] for p, k in enumerate(joint)])
    child = state.clone()
    child.apply_actions([per_player[p][k][0] for p, k in enumerate(joint)])
    total = total + prob * _recursive_values(child, tree, policy)
  return total


@pytest.mark.parametrize("game_string", [WASABI, TWO_ROUNDS, THREE_PLAYERS, ROBOT])
def test_expected_values_equal_recursion(game_string):
  tree = tree_of(game_string)
  for policy in (tree.uniform_policy(), _random_policy(tree, 3)):
    expected = _recursive_values(tree.game.new_initial_state(), tree, policy)
    np.testing.assert_allclose(tree.policy_values(policy), expected, atol=1e-12)


def test_reach_probabilities():
  tree = tree_of(CHOPSTICKS)
  policy = _random_policy(tree, 1)
  reach = tree.reach_probabilities(policy)
  assert reach[tree.terminal_nodes].sum() == pytest.approx(1.0, abs=1e-12)
  # Excluding a player: its own choices count 1, so its reach at each of its own decision nodes
  # summed over an information set's actions is that node's reach.
  others = tree.reach_probabilities(policy, players=[1])
  node = int(tree.infoset_node[0])
  children = slice(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
  np.testing.assert_allclose(others[children], others[node])
  chance_only = tree.reach_probabilities(policy, players=[])
  depth_one = slice(tree.level_starts[1], tree.level_starts[2])
  np.testing.assert_allclose(chance_only[depth_one], tree.chance_prob[depth_one])


@pytest.mark.parametrize("game_string", [WASABI, ROBOT])
def test_policy_round_trips(game_string):
  tree = tree_of(game_string)
  policy = _random_policy(tree, 7)
  tabular = to_tabular_policy(tree, policy)
  np.testing.assert_allclose(policy_array(tree, tabular), policy)
  np.testing.assert_allclose(policy_array(tree, to_pyspiel_tabular_policy(tree, policy)), policy)
  as_policy = TreePolicy(tree, policy)
  np.testing.assert_allclose(policy_array(tree, as_policy), policy)
  # The turn-based game's uniform TabularPolicy, built by OpenSpiel enumerating the game.
  uniform = policy_lib.TabularPolicy(tree.turn_based_game)
  assert len(uniform.state_lookup) == tree.num_infosets
  np.testing.assert_allclose(policy_array(tree, uniform), tree.uniform_policy())
  # The simultaneous game's uniform TabularPolicy, keyed by the simultaneous strings.
  np.testing.assert_allclose(policy_array(tree, policy_lib.TabularPolicy(tree.game)),
                             tree.uniform_policy())


def test_bad_inputs_are_refused():
  tree = tree_of(WASABI)
  with pytest.raises(ValueError, match="shape"):
    policy_array(tree, np.ones(3))
  with pytest.raises(ValueError, match="shape"):
    TreePolicy(tree, np.ones(3))
  with pytest.raises(ValueError, match="allowed: a numpy array"):
    policy_array(tree, {"not": "a policy"})
  with pytest.raises(ValueError, match="no information set"):
    tree.infoset_index("P0\nnothing")
  with pytest.raises(ValueError, match="python_sushi_go"):
    GameTree(pyspiel.load_game("kuhn_poker"))
