"""The game as OpenSpiel sees it: registration, API conformance, round trips, transforms, CFR."""

import collections
import itertools
import math
import pickle
import random

import numpy as np
import pyspiel
import pytest

import sushigo_spiel
from sushigo_spiel.drafting import dynamics as D

from invariants import check_sushi_go_state
from support import card_totals, load, random_playout

REDUCED = "tempura:2/sashimi:2/squid:1/wasabi:1"




def check_invariants(state) -> None:
  """State checker for random_sim_test: cards conserved, equal hand sizes, Puddings kept, and
  `invariants.check_sushi_go_state` (points and returns as the rulebook says)."""
  rules = state.get_game().rules
  assert card_totals(state) == list(rules.deck)
  table = state.table()
  if state.is_simultaneous_node():
    sizes = {sum(hand) for hand in table.hands}
    assert sizes == {rules.hand_size - table.turn}
  puddings = state.puddings()
  assert all(p >= 0 for p in puddings)
  assert sum(puddings) <= sum(c.count for c in rules.cards if c.name == "Pudding")
  check_sushi_go_state(state)


def test_registered_and_loadable():
  game = pyspiel.load_game("python_sushi_go(players=3)")
  assert isinstance(game, sushigo_spiel.SushiGoGame)
  assert game.num_players() == 3
  game_type = game.get_type()
  assert game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
  assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
  assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
  assert "python_sushi_go" in pyspiel.registered_names()


@pytest.mark.parametrize("utility,kind,total", [
    ("score", pyspiel.GameType.Utility.GENERAL_SUM, None),
    ("margin", pyspiel.GameType.Utility.ZERO_SUM, 0.0),
    ("win", pyspiel.GameType.Utility.CONSTANT_SUM, 1.0),
])
def test_declared_utility_matches_mode(utility, kind, total):
  game = load(players=4, utility=utility)
  assert game.get_type().utility == kind
  if total is not None:
    assert game.utility_sum() == total
    state = random_playout(game.new_initial_state(), random.Random(7))
    assert sum(state.returns()) == pytest.approx(total)


def test_pseudo_player_numbers_are_openspiel_ones():
  assert D.CHANCE == pyspiel.PlayerId.CHANCE
  assert D.SIMULTANEOUS == pyspiel.PlayerId.SIMULTANEOUS
  assert D.TERMINAL == pyspiel.PlayerId.TERMINAL


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("utility", ["score", "margin", "win"])
def test_random_sim(players, utility):
  game = load(players=players, utility=utility)
  pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False,
                          state_checker_fn=check_invariants)


@pytest.mark.parametrize("params", [
    dict(players=3, deal="hand", deck="tempura:6/sashimi:6/squid:3/wasabi:3/chopsticks:3/"
         "pudding:6", hand_size=4, rounds=2),
    dict(players=2, deck="chopsticks:4/wasabi:6/egg:4/salmon:4/squid:4/pudding:4", hand_size=6,
         rounds=2),
])
def test_random_sim_reduced_decks(params):
  game = load(**params)
  pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False,
                          state_checker_fn=check_invariants)


@pytest.mark.parametrize("players", [2, 5])
def test_random_sim_turn_based(players):
  game = pyspiel.convert_to_turn_based(load(players=players))
  pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_parameters_from_string_and_dict_agree():
  from_string = pyspiel.load_game(
      "python_sushi_go(players=4,rounds=2,hand_size=5,deck=tempura:20/pudding:20,utility=win)")
  from_dict = pyspiel.load_game("python_sushi_go", {
      "players": 4, "rounds": 2, "hand_size": 5, "deck": "tempura:20/pudding:20",
      "utility": "win"})
  assert str(from_string) == str(from_dict)
  assert from_string.rules == from_dict.rules
  assert pyspiel.load_game(str(from_string)).rules == from_string.rules


def mid_game_state(seed: int, **params):
  game = load(**params)
  rng = random.Random(seed)
  steps = rng.randrange(40, 80)
  counter = itertools.count()
  return random_playout(game.new_initial_state(), rng, stop=lambda s: next(counter) >= steps)


@pytest.mark.parametrize("seed", range(5))
def test_clone_pickle_serialize_round_trips(seed):
  state = mid_game_state(seed, players=3)
  copies = [
      state.clone(),
      pickle.loads(pickle.dumps(state)),
      pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(
          state.get_game(), state))[1],
      state.get_game().deserialize_state(state.serialize()),
  ]
  for copy in copies:
    assert str(copy) == str(state)
    assert copy.history() == state.history()
    for p in range(3):
      assert copy.information_state_string(p) == state.information_state_string(p)
      assert copy.observation_tensor(p) == state.observation_tensor(p)
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    assert random_playout(copy, rng_a).returns() == random_playout(state.clone(), rng_b).returns()
  before = str(state)
  random_playout(copies[0], random.Random(1))
  assert str(state) == before  # the clone is independent


@pytest.mark.parametrize("seed", range(4))
def test_python_queries_match_the_cpp_ones(seed):
  """The state answers some queries in Python for speed; they must equal the C++ answers."""
  game = load(players=2 + seed % 4, deck="standard")
  state, rng = game.new_initial_state(), random.Random(seed)
  while not state.is_terminal():
    for player in list(range(game.num_players())) + [None]:
      args = () if player is None else (player,)
      assert state.legal_actions(*args) == pyspiel.State.legal_actions(state, *args)
    assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
    assert state.is_simultaneous_node() == pyspiel.State.is_simultaneous_node(state)
    random_playout(state, rng, stop=lambda s, n=[0]: (n.__setitem__(0, n[0] + 1) or n[0] > 1))
  assert state.legal_actions() == pyspiel.State.legal_actions(state) == []


def test_flat_joint_actions_decode_like_openspiel():
  state = mid_game_state(3, players=3)
  while not state.is_simultaneous_node():
    random_playout(state, random.Random(0), stop=lambda s: s.is_simultaneous_node())
  legal = [state.legal_actions(p) for p in range(3)]
  flat = state.legal_actions()
  assert flat == list(range(math.prod(len(a) for a in legal)))
  index = 5 % len(flat)
  expected = [legal[0][index % len(legal[0])],
              legal[1][(index // len(legal[0])) % len(legal[1])],
              legal[2][index // (len(legal[0]) * len(legal[1]))]]
  by_flat, by_joint = state.clone(), state.clone()
  by_flat.apply_action(index)
  by_joint.apply_actions(expected)
  assert str(by_flat) == str(by_joint)


@pytest.mark.parametrize("deal", ["card", "hand"])
def test_chance_outcomes_sum_to_one_and_are_sorted(deal):
  game = load(players=3, deal=deal, deck="tempura:8/sashimi:6/egg:5/pudding:5/chopsticks:3",
              hand_size=4, rounds=2)
  state, rng = game.new_initial_state(), random.Random(3)
  seen = 0
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes = state.chance_outcomes()
      assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
      actions = [a for a, _ in outcomes]
      assert actions == sorted(actions) and all(0 <= a < game.max_chance_outcomes() for a in actions)
      seen += 1
    random_playout(state, rng, stop=lambda s, start=len(state.history()):
                   len(s.history()) > start)
  assert seen == game.rules.deal_steps * 2


def deal_distribution(game) -> dict:
  """Exact probability of each first-round deal (hands as count vectors), by enumeration."""
  result = collections.defaultdict(float)
  frontier = [(game.new_initial_state(), 1.0)]
  while frontier:
    state, prob = frontier.pop()
    if not state.is_chance_node():
      result[state.table().hands] += prob
      continue
    for action, p in state.chance_outcomes():
      child = state.clone()
      child.apply_action(action)
      frontier.append((child, prob * p))
  return result


@pytest.mark.parametrize("deck,players,hand_size", [
    ("tempura:3/sashimi:2/squid:2/wasabi:1", 2, 3),
    ("tempura:2/dumpling:2/maki2:2/pudding:3", 3, 2),
])
def test_card_and_hand_deals_give_the_same_distribution(deck, players, hand_size):
  by_card = deal_distribution(load(players=players, deck=deck, hand_size=hand_size, rounds=1))
  by_hand = deal_distribution(load(players=players, deck=deck, hand_size=hand_size, rounds=1,
                                   deal="hand"))
  assert by_card.keys() == by_hand.keys()
  for hands, prob in by_card.items():
    assert by_hand[hands] == pytest.approx(prob, rel=1e-12)
  assert math.fsum(by_card.values()) == pytest.approx(1.0)


def test_hand_deal_outcomes_are_exactly_the_possible_hands():
  """max_chance_outcomes for deal=hand counts every hand the deck can deal, and no more."""
  deck = "tempura:3/sashimi:1/squid:2/pudding:4"
  game = load(players=2, deck=deck, hand_size=3, rounds=1, deal="hand")
  counts = game.rules.deck
  possible = {hand for hand in itertools.product(*(range(c + 1) for c in counts))
              if sum(hand) == 3}
  assert game.max_chance_outcomes() == len(possible)
  ranking = game.rules.hand_ranking
  assert sorted(ranking.rank(h) for h in possible) == list(range(len(possible)))
  assert all(ranking.unrank(ranking.rank(h)) == h for h in possible)
  first = game.new_initial_state()
  assert len(first.chance_outcomes()) == len(possible)


def test_uniform_policy_value_is_the_same_for_both_deals():
  values = []
  for deal in ("card", "hand"):
    game = load(players=2, deck=REDUCED, hand_size=3, rounds=1, deal=deal, utility="score")
    uniform = pyspiel.UniformRandomPolicy(pyspiel.convert_to_turn_based(game))
    values.append(pyspiel.expected_returns(
        pyspiel.convert_to_turn_based(game).new_initial_state(), uniform, -1, True))
  assert values[0] == pytest.approx(values[1], abs=1e-9)


def test_cfr_reaches_a_small_nash_conv_on_a_reduced_deck():
  game = load(players=2, deck=REDUCED, hand_size=3, rounds=1, deal="hand", utility="margin")
  tree = pyspiel.convert_to_cached_tree(pyspiel.convert_to_turn_based(game))
  solver = pyspiel.CFRSolver(tree)
  for _ in range(5):
    solver.evaluate_and_update_policy()
  early = pyspiel.nash_conv(tree, solver.average_policy())
  for _ in range(395):
    solver.evaluate_and_update_policy()
  late = pyspiel.nash_conv(tree, solver.average_policy())
  assert late < 0.02
  assert late < early / 5
  assert pyspiel.exploitability(tree, solver.average_policy()) == pytest.approx(late / 2)


def test_turn_based_information_states_are_perfect_recall():
  """Every turn-based information state has one legal action set (CFR relies on this)."""
  game = pyspiel.convert_to_turn_based(
      load(players=2, deck="tempura:2/squid:1/wasabi:1/chopsticks:2/egg:1/salmon:1",
           hand_size=4, rounds=1, deal="hand"))
  legal_by_infostate = {}
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    if state.is_terminal():
      continue
    if state.is_chance_node():
      actions = [a for a, _ in state.chance_outcomes()]
    else:
      player = state.current_player()
      key = state.information_state_string(player)
      actions = state.legal_actions()
      assert legal_by_infostate.setdefault(key, actions) == actions
      assert len(state.information_state_tensor(player)) == game.information_state_tensor_size()
    for action in actions:
      stack.append(state.child(action))
  assert len(legal_by_infostate) > 50


def test_observation_tensors_have_the_declared_sizes():
  for players in (2, 5):
    game = load(players=players)
    state = mid_game_state(players, players=players)
    for p in range(players):
      assert len(state.observation_tensor(p)) == game.observation_tensor_size()
      assert len(state.information_state_tensor(p)) == game.information_state_tensor_size()
      assert np.all(np.asarray(state.observation_tensor(p)) >= 0)
