"""Tests of the abstractions: keys from the player's information only, the identity partition,
what the canonical key forgets and keeps, the lossy families' sizes, and the lifted policy."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import numpy as np
import pyspiel
import pytest

from solvers.equilibrium import abstraction as A
from solvers.equilibrium.game_tree import GameTree
from support import CH, D, M1, M2, M3, P, SA, SQ, T, W, deal, play, walk

GAMES = [
    "python_sushi_go(players=2)",
    "python_sushi_go(players=3,rounds=2,hand_size=4,deck=tempura:6/sashimi:6/squid:4/wasabi:3/"
    "chopsticks:3/pudding:4)",
    "python_sushi_go(players=2,robot=true,rounds=2,hand_size=5,deck=tempura:8/sashimi:8/squid:4/"
    "wasabi:4/chopsticks:3/maki2:6/pudding:4)",
]
FOUR_CARDS = ("python_sushi_go(players=2,rounds=1,hand_size=4,deal=hand,utility=margin,"
              "deck=tempura:3/sashimi:3/squid:1/wasabi:1)")


def _clones(game, seed: int):
  """Copies of the simultaneous states of one random game."""
  return [s.clone() for s in walk(game.new_initial_state(), random.Random(seed))
          if s.is_simultaneous_node()]


def abstractions(game):
  return [A.Identity(game.dynamics), A.Canonical(), A.Buckets(3), A.Ahead(2),
          A.KMeans(12).fit(game.rules, seed=0, samples=300)]


@pytest.mark.parametrize("game_string", GAMES)
def test_keys_use_only_the_players_information(game_string):
  game = pyspiel.load_game(game_string)
  rules = game.rules
  rng = random.Random(7)
  tested = abstractions(game)
  for state in _clones(game, seed=1) + _clones(game, seed=2)[::2]:
    for player in range(game.num_players()):
      for abstraction in tested:
        key = abstraction.key(rules, state.table(), player)
        for _ in range(2):
          other = state.resample_from_infostate(player, rng.random)
          assert abstraction.key(rules, other.table(), player) == key, abstraction.name


@pytest.mark.parametrize("game_string", GAMES[:2])
def test_identity_partition_is_the_information_state_partition(game_string):
  game = pyspiel.load_game(game_string)
  strings, keys = {}, {}
  for seed in range(4):
    for state in _clones(game, seed):
      for player in range(game.num_players()):
        key = A.Identity(game.dynamics).key(game.rules, state.table(), player)
        string = state.information_state_string(player)
        assert strings.setdefault(key, string) == string
        assert keys.setdefault(string, key) == key


def scripted_game():
  return pyspiel.load_game("python_sushi_go", {
      "players": 2, "rounds": 1, "hand_size": 4, "deck": "tempura:5/sashimi:5"})


def test_canonical_forgets_the_order_of_picks():
  game = scripted_game()
  states = []
  for first, second in ((T, SA), (SA, T)):
    state = game.new_initial_state()
    deal(state, [[T, SA, T, SA], [T, SA, T, SA]])
    play(state, [first, first])
    play(state, [second, second])
    states.append(state)
  a, b = (s.table() for s in states)
  assert a.tableaus != b.tableaus  # placement order differs...
  for player in range(2):
    assert A.Identity(game.dynamics).key(game.rules, a, player) != A.Identity(game.dynamics).key(game.rules, b, player)
    assert A.Canonical().key(game.rules, a, player) == A.Canonical().key(game.rules, b, player)


DEALT_GAMES = {  # the key's three forms: two players, three or more, the robot
    "two players": "python_sushi_go(players=2,rounds=1,hand_size=4,deck=tempura:5/sashimi:5)",
    "three players": "python_sushi_go(players=3,rounds=1,hand_size=4,deal=card,"
                     "deck=tempura:6/sashimi:10)",
    "robot": "python_sushi_go(players=2,robot=true,rounds=1,hand_size=4,deal=card,"
             "deck=tempura:8/sashimi:10)",
}


@pytest.mark.parametrize("name", DEALT_GAMES)
def test_canonical_keeps_what_the_player_was_dealt(name):
  game = pyspiel.load_game(DEALT_GAMES[name])
  tables = []
  for hand in ([T, T, SA, SA], [T, T, T, SA]):
    state = game.new_initial_state()
    others = game.rules.deal_steps // len(hand) - 1  # the other players' hands, the robot's pile
    deal(state, [hand] + [[T, SA, SA, SA]] * others)
    tables.append(state.table())
  assert A.Canonical().key(game.rules, tables[0], 0) != A.Canonical().key(game.rules, tables[1], 0)
  # Player 1 has not seen player 0's hand, and holds the same cards in both.
  assert A.Canonical().key(game.rules, tables[0], 1) == A.Canonical().key(game.rules, tables[1], 1)


def test_canonical_forgets_the_order_of_a_finished_rounds_picks_at_three_players():
  """Only the current round's picks are kept in order: a finished round is public, and what it
  leaves for the future (points, Puddings, the deck left) does not depend on its order."""
  game = pyspiel.load_game("python_sushi_go(players=3,rounds=2,hand_size=3,deal=card,"
                           "deck=tempura:6/sashimi:12)")
  states = []
  for first, second in ((T, SA), (SA, T)):
    state = game.new_initial_state()
    deal(state, [[T, SA, SA]] * 3)
    play(state, [first] * 3)
    play(state, [second] * 3)  # the last card is placed by itself
    deal(state, [[T, SA, SA]] * 3)
    states.append(state)
  a, b = (s.table() for s in states)
  assert a.round == b.round == 1
  for player in range(3):
    assert states[0].information_state_string(player) != states[1].information_state_string(player)
    assert A.Canonical().key(game.rules, a, player) == A.Canonical().key(game.rules, b, player)


def test_canonical_tableau_keeps_wasabi_order_only():
  rules = pyspiel.load_game("python_sushi_go(rounds=1,hand_size=4,deck=tempura:8/squid:6/"
                            "wasabi:4/chopsticks:4/sashimi:4)").rules
  number = {card.name: c for c, card in enumerate(rules.cards)}
  t, sq, w, ch = (number[name] for name in (T, SQ, W, CH))
  assert A.canonical_tableau(rules, (t, sq, ch)) == A.canonical_tableau(rules, (ch, sq, t))
  assert A.canonical_tableau(rules, (w, sq)) != A.canonical_tableau(rules, (sq, w))
  counts, free, on = A.canonical_tableau(rules, (w, sq, w))
  assert (counts[w], counts[sq], free, on) == (2, 1, 1, (sq,))


def test_scoring_summaries_of_a_table_worked_by_hand():
  """The summaries the lossy keys read, on a table built by hand (round 2, turn 2, three players,
  `utility=win`), each figure counted from the tableaus below; then `buckets:3` and `summary:2`
  keys from them (caps, clips and the points buckets as their docstrings say)."""
  game = pyspiel.load_game("python_sushi_go(players=3,rounds=2,hand_size=4,utility=win,"
                           "deck=tempura:4/sashimi:6/dumpling:6/squid:2/wasabi:4/chopsticks:2/"
                           "maki1:2/maki2:2/maki3:4/pudding:5)")
  rules = game.rules
  number = {card.name: c for c, card in enumerate(rules.cards)}

  def hand(*names):
    counts = [0] * rules.num_types
    for name in names:
      counts[number[name]] += 1
    return tuple(counts)

  table = A.R.initial_table(rules)._replace(
      actor=A.R.SIMULTANEOUS, round=1, turn=1,
      hands=(hand(T, SA, M1), hand(SA, D, P), hand(T, T, W)),
      tableaus=(tuple(number[c] for c in (T, W, T, SA, D, T, D, W, CH, M3, M2, P, D, D, D, SA, SA,
                                            SA)),
                tuple(number[c] for c in (M3, M3, P, W, P, SQ)),  # the Wasabi holds the Squid
                tuple(number[c] for c in (M1, P))),
      puddings=(1, 0, 2),  # kept from round 1
      results=(SimpleNamespace(points=(10, 17, 3)),))  # round 1's points
  # Maki icons 5, 6, 1; Puddings (kept plus this round's) 2, 2, 3; points 10, 17, 3.
  expected = [  # tempura, sashimi, dumplings, free wasabi, chopsticks, maki, pudding, points leads
      (3, 4, 5, 2, 1, 5 - 6, 2 - 3, 10 - 17),
      (0, 0, 0, 0, 0, 6 - 5, 2 - 3, 17 - 10),
      (0, 0, 0, 0, 0, 1 - 6, 3 - 2, 3 - 17)]
  buckets = [(1, 1, 3, 2, 1, (-1, -1, -3)),  # dumplings capped at 3; points -7 * 3/10 -> -3
             (0, 0, 0, 0, 0, (1, -1, 2)),  # 7 * 3/10 = 2.1 -> 2
             (0, 0, 0, 0, 0, (-3, 1, -3))]  # -14 * 3/10 -> -5, clipped to -3
  summaries = [(1, 1, 1, 1, 4, 1, 1, -1, -1, -1),  # dumplings up to 4, free Wasabi 0 or 1
               (1, 1, 0, 0, 0, 0, 0, 1, -1, 0),  # points in steps of 10: 7 -> 0, -7 -> -1
               (1, 1, 0, 0, 0, 0, 0, -2, 1, -2)]  # maki lead -5 clipped to -2; -14 -> -2
  for player in range(3):
    f = A.Features(rules, table, player)
    summary = (f.tempura, f.sashimi, f.dumplings, f.free_wasabi, f.chopsticks, f.maki_lead,
               f.pudding_lead, f.points_lead)
    assert summary == expected[player]
    assert A.feature_vector(rules, table, player) == [
        1, 1, *table.hands[player], summary[0] % 2, summary[1] % 3, *summary[2:]]
    capped_hand = tuple(min(c, 3) for c in table.hands[player])
    assert A.Buckets(3).key(rules, table, player) == (
        player, 1, 1, tuple(A.R.legal_actions(rules, table, player)), capped_hand,
        *buckets[player])
    assert A.Summary(2).key(rules, table, player) == summaries[player]
  # Player 0's points lead alone, at the steps' edges: `summary:2` counts steps of 10 points
  # (clipped to -2..2), `buckets:3` steps of 10/3 points (clipped to -3..3).
  for points, step, bucket in (((20, 10, 3), 1, 3), ((3, 40, 0), -2, -3), ((0, 4, 1), -1, -2)):
    scored = table._replace(results=(SimpleNamespace(points=points),))
    assert A.Summary(2).key(rules, scored, 0)[-1] == step
    assert A.Buckets(3).key(rules, scored, 0)[-1][-1] == bucket


def test_with_the_robot_the_summary_says_who_controls_it():
  """The player who controls the robot this turn is the one offered the robot's actions."""
  game = pyspiel.load_game(GAMES[2])
  rules, checked = game.rules, 0
  for state in _clones(game, seed=4):
    table = state.table()
    for player in range(2):
      key = A.Summary(2).key(rules, table, player)
      offered = any(a >= rules.robot_actions for a in state.legal_actions(player))
      assert key[:2] == (table.round, table.turn) and len(key) == 10
      assert key[-1] is offered
      checked += offered
  assert checked > 3


@pytest.fixture(scope="module")
def four_card_tree():
  game = pyspiel.load_game(FOUR_CARDS)
  return game, GameTree(game)


def distinct_keys(abstraction, game, tree):
  keys = {}
  for table, player in zip(tree.infoset_tables, tree.infoset_player):
    key = abstraction.key(game.rules, table, int(player))
    actions = tuple(A.R.legal_actions(game.rules, table, int(player)))
    assert keys.setdefault(key, actions) == actions  # a key fixes the legal actions
  return len(keys)


def test_lossy_abstractions_shrink_with_their_size_knob(four_card_tree):
  game, tree = four_card_tree
  identity = distinct_keys(A.Identity(game.dynamics), game, tree)
  canonical = distinct_keys(A.Canonical(), game, tree)
  buckets = [distinct_keys(A.Buckets(n), game, tree) for n in (1, 2, 4)]
  ahead = [distinct_keys(A.Ahead(n), game, tree) for n in (1, 2, 4)]
  kmeans = [distinct_keys(A.KMeans(k).fit(game.rules, seed=3, samples=400), game, tree)
            for k in (2, 50)]
  assert identity == tree.num_infosets
  assert canonical < identity
  assert buckets[0] < buckets[1] <= buckets[2] <= identity
  assert ahead[0] < ahead[1] <= ahead[2] <= identity
  assert all(b < a for b, a in zip(buckets, ahead))
  assert kmeans[0] < kmeans[1] <= identity


def test_ahead_refines_buckets_with_the_hands_still_to_come(four_card_tree):
  """Every `ahead:N` key lies within one `buckets:N` key, and from the second turn on it holds
  the opponent's hand (with two players, the hand the player passed, less the opponent's pick)."""
  game, tree = four_card_tree
  coarser = {}
  for table, player in zip(tree.infoset_tables, tree.infoset_player):
    player = int(player)
    key = A.Ahead(4).key(game.rules, table, player)
    assert coarser.setdefault(key, A.Buckets(4).key(game.rules, table, player)) == key[:-1]
    expected = ((1 - player, tuple(table.hands[1 - player])),) if table.turn > 0 else ()
    assert key[-1] == expected


def test_positions_with_one_canonical_key_have_the_same_future(four_card_tree):
  """Lossless: from the second turn on, two-player positions of `FOUR_CARDS` hide nothing, and
  any two with one canonical key end with the same returns when both play on the same way (the
  lowest legal action each turn, or the highest)."""
  game, tree = four_card_tree
  rules = game.rules

  def returns_after(table, pick):
    while not A.R.is_terminal(rules, table):
      table = A.R.play(rules, table, [pick(A.R.legal_actions(rules, table, p))
                                      for p in range(rules.num_players)])
    return tuple(A.R.returns(rules, table))

  by_key = {}
  for table, player in zip(tree.infoset_tables, tree.infoset_player):
    if table.turn > 0:
      by_key.setdefault(A.Canonical().key(rules, table, int(player)), []).append(table)
  shared = [tables for tables in by_key.values() if len(tables) > 1]
  assert len(shared) > 100  # the key does merge positions here
  for tables in shared:
    for pick in (min, max):
      assert len({returns_after(table, pick) for table in tables}) == 1


def test_kmeans_with_a_cluster_per_position_tells_every_position_apart(four_card_tree):
  """With at least as many clusters as distinct feature vectors, each position is its own
  cluster's centre, so the key separates positions exactly as their feature vectors do."""
  game, tree = four_card_tree
  kmeans = A.KMeans(10_000).fit(game.rules, seed=3, samples=2000)
  clusters = {}
  for table, player in zip(tree.infoset_tables, tree.infoset_player):
    vector = tuple(A.feature_vector(game.rules, table, int(player)))
    clusters.setdefault(vector, set()).add(kmeans.key(game.rules, table, int(player))[-1])
  assert len(clusters) == len(kmeans.centres)  # random play met every position of the tree
  assert all(len(found) == 1 for found in clusters.values())
  assert len(set().union(*clusters.values())) == len(clusters)


def test_kmeans_rebuilt_from_its_saved_arrays_gives_the_same_keys(four_card_tree):
  """A policy saves `arrays`; the abstraction made again from them, with no fitting, must key
  every position as the fitted one did (another seed would fit other centres)."""
  game, tree = four_card_tree
  fitted = A.make_abstraction("kmeans:6", game, seed=2)
  rebuilt = A.make_abstraction("kmeans:6", game, seed=9, arrays=fitted.arrays)
  again = A.make_abstraction("kmeans:6", game, seed=2)  # the seed decides the fit
  other_seed = A.make_abstraction("kmeans:6", game, seed=9)
  keys = {name: [abstraction.key(game.rules, table, int(player))
                 for table, player in zip(tree.infoset_tables, tree.infoset_player)]
          for name, abstraction in (("fitted", fitted), ("rebuilt", rebuilt), ("again", again),
                                    ("other seed", other_seed))}
  assert keys["rebuilt"] == keys["fitted"] == keys["again"] != keys["other seed"]


def test_kmeans_is_deterministic_for_a_seed(four_card_tree):
  game, _ = four_card_tree
  fits = [A.KMeans(20).fit(game.rules, seed=s, samples=300) for s in (4, 4, 5)]
  np.testing.assert_array_equal(fits[0].centres, fits[1].centres)
  assert fits[0].centres.shape[0] <= 20
  assert not np.array_equal(fits[0].centres, fits[2].centres)


def test_lifted_policy_is_uniform_at_unseen_keys():
  game = scripted_game()
  state = game.new_initial_state()
  deal(state, [[T, SA, T, SA], [T, T, T, SA]])
  policy = A.LiftedPolicy(game, A.Canonical(), {})
  assert policy.action_probabilities(state, 1) == {0: 0.5, 1: 0.5}
  key = A.Canonical().key(game.rules, state.table(), 1)
  policy.strategy[key] = ((0, 1), np.array([0.25, 0.75]))
  assert policy.action_probabilities(state, 1) == {0: 0.25, 1: 0.75}
  turn_based = pyspiel.convert_to_turn_based(game).new_initial_state()
  for action in state.full_history():
    turn_based.apply_action(action.action)
  turn_based.apply_action(0)  # player 0's choice is hidden from player 1
  assert policy.action_probabilities(turn_based) == {0: 0.25, 1: 0.75}


@pytest.mark.parametrize("name", ["kmeans", "buckets:", "buckets:x", "buckets:0", "foo",
                                  "kmeans:0", "identity:2", "ahead:0", "ahead:x"])
def test_unknown_abstraction_names_the_allowed_ones(name):
  game = scripted_game()
  with pytest.raises(ValueError, match=r"allowed: identity, canonical, buckets:N, ahead:N, kmeans:K|must be 1"):
    A.make_abstraction(name, game)


@pytest.mark.parametrize("name, message", [
    ("foo", "unknown abstraction 'foo'; allowed: identity, canonical, buckets:N, ahead:N, kmeans:K,"
            " summary:N (N, K positive integers)"),
    ("buckets:0", "abstraction 'buckets:0': N must be 1 or more"),
    ("ahead:0", "abstraction 'ahead:0': N must be 1 or more"),
    ("summary:0", "abstraction 'summary:0': N must be 1 or more"),
    ("kmeans:0", "abstraction 'kmeans:0': K must be 1 or more"),
])
def test_a_refused_abstraction_is_one_sentence_naming_what_is_allowed(name, message):
  with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
    A.make_abstraction(name, scripted_game())


def test_size_one_is_the_coarsest_of_each_family():
  game = scripted_game()
  for name in ("buckets:1", "ahead:1", "kmeans:1", "summary:1"):
    assert A.make_abstraction(name, game).name == name
  positions = [state.table() for state in _clones(game, seed=5)]
  one_cluster = A.make_abstraction("kmeans:1", game)
  assert len(one_cluster.centres) == 1
  assert {one_cluster.key(game.rules, table, 0)[-1] for table in positions} == {0}


@pytest.mark.parametrize("name", ["canonical", "buckets:2", "ahead:2", "kmeans:3", "summary:2"])
def test_sushi_go_abstractions_refuse_sushi_draft_naming_identity(name):
  draft = pyspiel.load_game("python_sushi_draft")
  message = f"abstraction {name!r} is for python_sushi_go; got {draft} (use 'identity')"
  with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
    A.make_abstraction(name, draft)
  assert A.make_abstraction("identity", draft).name == "identity"
