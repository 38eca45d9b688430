"""The rulebooks' Sushi Go variants, parameters of `python_sushi_go`: passing both ways, Soy Sauce."""

import random

import pyspiel
import pytest

import solvers
from sushigo_spiel.sushi_go import cards
from sushigo_spiel.sushi_go import knowledge
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go import scoring
from sushigo_spiel.sushi_go.scoring import score_round
from invariants import check_sushi_go_state
from support import (D, EGG, M1, M2, M3, P, SA, SQ, T, W, deal, legal_names, load, play,
                     play_with_bots, random_playout, walk)

SOY = "Soy Sauce"
BASELINES = ("random", "greedy", "heuristic")  # search bots have their own tests

@pytest.mark.parametrize("direction,expected", [
    ("left", [[T, EGG], [D, SQ], [SA, W]]),   # player p receives the hand of p - 1
    ("right", [[SA, W], [T, EGG], [D, SQ]]),  # player p receives the hand of p + 1
])
def test_hands_pass_in_the_chosen_direction(direction, expected):
  game = load(players=3, rounds=1, hand_size=3, pass_direction=direction,
              deck="tempura:1/sashimi:1/dumpling:1/egg:1/squid:1/wasabi:1/pudding:3")
  state = game.new_initial_state()
  deal(state, [[P, SQ, D], [P, SA, W], [P, T, EGG]])
  play(state, [P, P, P])
  assert state.hands() == expected


def test_alternate_passes_left_in_rounds_one_and_three_and_right_in_round_two():
  """Player 0 is dealt a Sashimi hand, player 1 Tempura and player 2 Pudding in each round."""
  game = load(players=3, rounds=3, hand_size=3, pass_direction="alternate",
              deck="tempura:9/sashimi:9/pudding:9")
  state = game.new_initial_state()
  receivers = []
  for _ in range(3):
    deal(state, [[SA] * 3, [T] * 3, [P] * 3])
    play(state, [SA, T, P])
    receivers.append([hand[0] for hand in state.hands()])
    play(state, [state.hands()[p][0] for p in range(3)])
  assert receivers == [[P, SA, T], [T, P, SA], [P, SA, T]]


def test_alternate_round_two_scores_as_passed():
  """Round 2 passes right: player 0 ends with what player 1 passed it, and is scored on it."""
  game = load(players=2, rounds=2, hand_size=2, pass_direction="alternate",
              deck="tempura:4/sashimi:4")
  state = game.new_initial_state()
  deal(state, [[T, T], [SA, SA]])
  play(state, [T, SA])  # round 1: 0 keeps T, receives SA; 1 keeps SA, receives T
  deal(state, [[T, T], [SA, SA]])
  play(state, [T, SA])  # with 2 players left and right are the same neighbour
  tableaus = [r.tableaus for r in state.round_records()]
  assert tableaus == [[[T, SA], [SA, T]], [[T, SA], [SA, T]]]


def test_seen_hands_follow_the_direction_of_the_round():
  """In a round passing right, player 0 has seen the hand player 2 holds after one turn."""
  game = load(players=3, rounds=2, hand_size=3, pass_direction="alternate",
              deck="tempura:6/sashimi:6/pudding:6")
  state = game.new_initial_state()
  deal(state, [[T, T, T], [SA, SA, SA], [P, P, P]])
  play(state, [T, SA, P])
  play(state, [state.hands()[p][0] for p in range(3)])
  deal(state, [[T, T, T], [SA, SA, SA], [P, P, P]])
  play(state, [T, SA, P])  # round 2 passes right: player 2 now holds player 0's hand
  rules = game.rules
  table = state.table()
  assert knowledge.hand_seen(rules, table, 0, 2)
  assert not knowledge.hand_seen(rules, table, 0, 1)
  assert "P2 hand (seen) [Tempura x2]" in state.observation_string(0)
  assert "P1 hand (seen)" not in state.observation_string(0)


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("direction", ["right", "alternate"])
def test_random_sim(players, direction):
  game = load(players=players, pass_direction=direction)
  pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False,
                          state_checker_fn=check_sushi_go_state)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_resample_keeps_every_view_in_rounds_passing_right(players):
  game = load(players=players, pass_direction="alternate", hand_size=4,
              deck="tempura:14/sashimi:14/chopsticks:8/squid:8/wasabi:8/pudding:8")
  rng = random.Random(players)
  checked = 0
  for state in walk(game.new_initial_state(), rng):
    if not state.is_simultaneous_node() or state.table().round != 1:
      continue
    for p in range(players):
      other = state.resample_from_infostate(p, random.Random(rng.random()).random)
      assert other.information_state_string(p) == state.information_state_string(p)
      assert other.observation_tensor(p) == state.observation_tensor(p)
      assert other.legal_actions(p) == state.legal_actions(p)
      random_playout(other, random.Random(1))
      checked += 1
  assert checked >= players * 3


def test_bad_direction_is_refused():
  with pytest.raises(ValueError, match="parameter 'pass_direction' is 'up'; allowed: left, right,"
                     " alternate"):
    load(pass_direction="up")


# ----- Soy Sauce


def test_soy_sauce_scores_for_the_most_colours_at_the_table():
  # P0: Soy, Tempura, Sashimi, Dumpling = 4 colours, the most: 4, plus 1 Dumpling = 5.
  # P1: Tempura x2 (5), Maki Roll 1 (6, only Maki) = 2 colours, no Soy Sauce: 11.
  assert score_round([[SOY, T, SA, D], [T, T, M1]]) == [5, 11]


def test_one_players_round_points_count_its_soy_sauce_in_the_variant_only():
  # The tableaus above: P0's Soy Sauce scores its 4 in the variant only (else its Dumpling's 1).
  tallies = [scoring.tally(cards.card_named(name) for name in tableau)
             for tableau in ([SOY, T, SA, D], [T, T, M1])]
  assert [scoring.round_points(tallies, p, soy_sauce=True) for p in range(2)] == [5, 11]
  assert [scoring.round_points(tallies, p) for p in range(2)] == [1, 11]


def test_soy_sauce_needs_the_most_colours_even_against_players_without_one():
  # P0: Soy, Tempura = 2 colours. P1: Tempura, Sashimi, Dumpling = 3 colours (1 point).
  assert score_round([[SOY, T], [T, SA, D]]) == [0, 1]


def test_tied_soy_sauce_holders_all_score_and_only_one_soy_sauce_counts():
  # P0: Soy x2, Egg = 2 colours; P1: Soy, Pudding = 2 colours; P2: Tempura = 1 colour.
  # P0 and P1 tie for most: 4 each (P0's second Soy Sauce scores nothing); Egg 1.
  assert score_round([[SOY, SOY, EGG], [SOY, P], [T]]) == [5, 4, 0]


def test_colours_are_scoring_families():
  """Three Maki Rolls are one colour, three Nigiri one colour; Wasabi is a colour of its own."""
  maki = scoring.tally([R.BY_CODE[c] for c in ("maki1", "maki2", "maki3")])
  nigiri = scoring.tally([R.BY_CODE[c] for c in ("egg", "salmon", "squid")])
  with_wasabi = scoring.tally([R.BY_CODE[c] for c in ("wasabi", "squid", "soy")])
  assert (maki.colours, nigiri.colours, with_wasabi.colours) == (1, 1, 3)
  # P0: Maki x3 + Soy = 2 colours; P1: Wasabi + Squid = 2 colours: tie, P0 holds the Soy Sauce.
  # P0: 6 icons, only Maki: 6 + 4 = 10; P1: Squid on Wasabi 9.
  assert score_round([[M1, M2, M3, SOY], [W, SQ]]) == [10, 9]


def test_soy_sauce_joins_the_deck_and_the_round_breakdown():
  game = load(players=2, soy_sauce=True)
  assert sum(game.rules.deck) == 112
  assert game.rules.cards[-1].name == SOY and game.rules.deck[-1] == 4
  assert sum(load(players=2, soy_sauce=True, soy_sauce_count=1).rules.deck) == 109
  assert SOY not in [c.name for c in load(players=2).rules.cards]
  state = random_playout(game.new_initial_state(), random.Random(3))
  for record in state.round_records():
    assert list(record.breakdown[0]) == list(scoring.CATEGORIES) + ["soy_sauce"]
    assert [sum(b.values()) for b in record.breakdown] == record.points
  assert "soy_sauce" not in random_playout(
      load(players=2).new_initial_state(), random.Random(3)).round_records()[0].breakdown[0]


def test_soy_sauce_in_a_scripted_round():
  game = load(players=2, rounds=1, hand_size=3, soy_sauce=True, soy_sauce_count=1,
              deck="tempura:2/sashimi:1/squid:1/egg:1")
  state = game.new_initial_state()
  deal(state, [[SOY, T, SA], [T, SQ, EGG]])
  play(state, [SOY, T])   # P0 Soy; P1 Tempura; hands swap
  play(state, [SQ, SA])   # P0 Squid from P1's hand; P1 Sashimi from P0's hand
  # Last cards: P0 gets P1's leftover (Tempura), P1 gets P0's leftover (Egg).
  # P0: Soy, Squid, Tempura = 3 colours; P1: Tempura, Sashimi, Egg = 3 colours: a tie, and P0
  # holds the Soy Sauce: 3 (Squid) + 0 (one Tempura) + 4 = 7. P1: 1 (Egg), no set: 1.
  assert state.tableaus() == [[], []]
  assert state.round_records()[0].tableaus == [[SOY, SQ, T], [T, SA, EGG]]
  assert state.round_records()[0].points == [7, 1]
  assert state.round_records()[0].breakdown[0]["soy_sauce"] == 4
  assert state.returns() == [7.0, 1.0]


@pytest.mark.parametrize("params,message", [
    (dict(soy_sauce=True, soy_sauce_count=0), "parameter 'soy_sauce_count' is 0; allowed: 1 or more"),
    (dict(deck="tempura:30/soy:4"), "parameter 'deck' ('tempura:30/soy:4') lists Soy Sauce"),
])
def test_soy_sauce_bad_input(params, message):
  with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
    load(**params)


@pytest.mark.parametrize("players", [2, 4])
def test_soy_sauce_random_sim(players):
  pyspiel.random_sim_test(load(players=players, soy_sauce=True, pass_direction="alternate"),
                          num_sims=2, serialize=True, verbose=False,
                          state_checker_fn=check_sushi_go_state)


@pytest.mark.parametrize("bot", BASELINES)
def test_bots_play_the_variants(bot):
  game = load(players=3, soy_sauce=True, pass_direction="alternate")
  bots = [solvers.make_bot(bot, game, p, seed=p) for p in range(3)]
  state, _ = play_with_bots(game, bots, seed=0)
  assert len(state.round_records()) == 3


# ----- the two-player robot variant

ROBOT_DECK = "maki3:1/maki1:1/tempura:2/pudding:2"


def robot_game(**params):
  return load(players=2, rounds=1, hand_size=2, robot=True, deck=ROBOT_DECK, **params)


def draw_for_robot(state, name: str) -> None:
  assert state.is_chance_node()
  card = next(a for a, _ in state.chance_outcomes() if state.action_to_string(-1, a) == name)
  state.apply_action(card)


@pytest.mark.parametrize("robot_gets,expected_returns,expected_robot", [
    # P0 keeps Maki Roll 3 (3 icons, first: 6) and gives the robot Tempura; P1 takes 1 icon
    # (second: 3). Puddings: P0 1, P1 0, robot 1: P0 and the robot share +6 (3 each), P1 has
    # the fewest (-6): the robot makes it a three-way Pudding count.
    ("Maki Roll 3, robot Tempura", [9.0, -3.0], [T, P]),
    # The robot gets Maki Roll 3 and wins the Maki (its 6 points go nowhere); P1 is second (3).
    ("Tempura, robot Maki Roll 3", [3.0, -3.0], [M3, P]),
])
def test_robot_round(robot_gets, expected_returns, expected_robot):
  state = robot_game().new_initial_state()
  deal(state, [[T, M1], [T, P], [M3, P]])  # player 0, player 1, then the robot's pile
  draw_for_robot(state, M3)  # player 0 controls the first turn and draws the top card
  assert state.hands() == [[T, M1, M3], [T, P]]
  assert legal_names(state, 1) == [T, P]
  assert all(", robot " in name for name in legal_names(state, 0))
  assert len(legal_names(state, 0)) == 6  # own card and robot card, three distinct cards
  play(state, [robot_gets, T])
  draw_for_robot(state, P)  # player 1 controls the second turn
  own_card = M1 if state.hands()[1] == [M1, P] else T
  play(state, [P, f"{own_card}, robot Pudding"])
  assert state.is_terminal()
  assert state.round_records()[0].robot_tableau == expected_robot
  assert state.returns() == expected_returns


def test_robot_control_alternates_across_rounds():
  game = load(players=2, rounds=2, hand_size=3, robot=True,
              deck="tempura:6/sashimi:6/dumpling:6")
  rules = game.rules
  state = game.new_initial_state()
  controllers = []
  while not state.is_terminal():
    if state.is_simultaneous_node():
      controllers.append(R.controller(rules, state.table()))
    random_playout(state, random.Random(len(controllers)),
                   stop=lambda s, start=len(state.history()): len(s.history()) > start)
  assert controllers == [0, 1, 0, 1, 0, 1]
  assert game.max_game_length() == 6  # every turn is a decision for the controller


def test_the_drawn_card_is_hidden_from_the_other_player():
  state = robot_game().new_initial_state()
  deal(state, [[T, M1], [T, P], [M3, P]])
  draw_for_robot(state, M3)
  assert M3 not in state.observation_string(1) and M3 not in state.information_state_string(1)
  assert M3 in state.observation_string(0)
  for seed in range(20):
    other = state.resample_from_infostate(1, random.Random(seed).random)
    assert other.observation_tensor(1) == state.observation_tensor(1)
    assert other.information_state_string(1) == state.information_state_string(1)


@pytest.mark.parametrize("deal_mode", ["card", "hand"])
def test_robot_resample_keeps_every_view(deal_mode):
  game = load(players=2, robot=True, deal=deal_mode, hand_size=4, rounds=2,
              deck="tempura:6/sashimi:6/squid:4/wasabi:4/chopsticks:4/pudding:6/maki2:6")
  changed = 0
  for seed in range(2):
    for state in walk(game.new_initial_state(), random.Random(seed)):
      for p in range(2):
        other = state.resample_from_infostate(p, random.Random(seed * 7 + p).random)
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.information_state_tensor(p) == state.information_state_tensor(p)
        assert other.observation_tensor(p) == state.observation_tensor(p)
        if state.is_simultaneous_node():
          assert other.legal_actions(p) == state.legal_actions(p)
        changed += str(other) != str(state)
        random_playout(other, random.Random(1))
  assert changed > 20  # hidden cards really are redrawn


def test_robot_random_sim_and_turn_based():
  game = load(players=2, robot=True)
  assert game.rules.hand_size == 9  # dealt as for three players
  pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False,
                          state_checker_fn=check_sushi_go_state)
  pyspiel.random_sim_test(pyspiel.convert_to_turn_based(game), num_sims=1, serialize=False,
                          verbose=False)


@pytest.mark.parametrize("bot", BASELINES)
def test_bots_control_the_robot(bot):
  game = load(players=2, robot=True, soy_sauce=True)
  bots = [solvers.make_bot(bot, game, p, seed=p) for p in range(2)]
  state, _ = play_with_bots(game, bots, seed=0)
  assert len(state.round_records()[0].robot_tableau) == 9


@pytest.mark.parametrize("params,message", [
    (dict(players=3, robot=True), "parameter 'robot' is true with players=3; allowed: robot=true"
     " with players=2 only"),
    (dict(players=2, robot=True, deck="tempura:40"), "too few to deal 3 round\\(s\\) of 9 cards"
     " to 3 hands"),
])
def test_robot_bad_input(params, message):
  with pytest.raises(ValueError, match=message):
    load(**params)


@pytest.mark.parametrize("params", [
    dict(players=3, pass_direction="alternate", soy_sauce=True),
    dict(players=2, robot=True, soy_sauce=True, soy_sauce_count=2),
])
def test_variant_round_trips_and_resampling(params):
  import pickle  # pylint: disable=import-outside-toplevel
  game = load(**params)
  for seed in range(3):
    rng = random.Random(seed)
    steps = rng.randrange(40, 120)
    state = random_playout(game.new_initial_state(), rng,
                           stop=lambda s, n=[0]: (n.__setitem__(0, n[0] + 1) or n[0] > steps))
    copies = [state.clone(), pickle.loads(pickle.dumps(state)),
              game.deserialize_state(state.serialize()),
              pyspiel.load_game(str(game)).deserialize_state(state.serialize())]
    for copy in copies:
      assert str(copy) == str(state) and copy.history() == state.history()
      for p in range(game.num_players()):
        assert copy.information_state_string(p) == state.information_state_string(p)
    for p in range(game.num_players()):
      other = state.resample_from_infostate(p, random.Random(seed).random)
      assert other.information_state_string(p) == state.information_state_string(p)
      assert other.observation_tensor(p) == state.observation_tensor(p)
