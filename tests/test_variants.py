"""The rulebooks' Sushi Go variants, parameters of `python_sushi_go`: passing both ways."""

import random

import pyspiel
import pytest

from sushigo_spiel import rules as R
from support import D, EGG, P, SA, SQ, T, W, deal, load, play, random_playout, walk

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
  table = state._table  # pylint: disable=protected-access
  assert R.hand_seen(rules, table, 0, 2)
  assert not R.hand_seen(rules, table, 0, 1)
  assert "P2 hand (seen) [Tempura x2]" in state.observation_string(0)
  assert "P1 hand (seen)" not in state.observation_string(0)


@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.parametrize("direction", ["right", "alternate"])
def test_random_sim(players, direction):
  game = load(players=players, pass_direction=direction)
  pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_resample_keeps_every_view_in_rounds_passing_right(players):
  game = load(players=players, pass_direction="alternate", hand_size=4,
              deck="tempura:14/sashimi:14/chopsticks:8/squid:8/wasabi:8/pudding:8")
  rng = random.Random(players)
  checked = 0
  for state in walk(game.new_initial_state(), rng):
    if not state.is_simultaneous_node() or state._table.round != 1:  # pylint: disable=protected-access
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
