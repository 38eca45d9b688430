"""Bad input to the games gets a clear error naming what was wrong and what is allowed."""

from __future__ import annotations

import pyspiel
import pytest

import sushigo_spiel  # noqa: F401  (registers the games)

GAMES = ["python_sushi_go(players=2)", "python_sushi_draft(players=3)"]


@pytest.mark.parametrize("game_string", GAMES)
def test_a_player_that_does_not_exist_is_refused(game_string):
  game = pyspiel.load_game(game_string)
  state = game.new_initial_state()
  n = game.num_players()
  with pytest.raises(ValueError, match=f"player {n + 3} does not exist; allowed: 0..{n - 1}"):
    state.legal_actions(n + 3)
  with pytest.raises(ValueError, match="player 99 does not exist"):
    state.action_to_string(99, 0)
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  with pytest.raises(ValueError, match=f"player {n} does not exist"):
    state.legal_actions(n)


@pytest.mark.parametrize("game_string", GAMES + ["python_sushi_go(deal=hand,players=3)"])
def test_chance_outcomes_out_of_range_are_refused(game_string):
  game = pyspiel.load_game(game_string)
  state = game.new_initial_state()
  limit = game.max_chance_outcomes()
  with pytest.raises(ValueError, match=f"chance outcome {10**7} is out of range 0..{limit - 1}"):
    state.action_to_string(pyspiel.PlayerId.CHANCE, 10**7)
  assert state.action_to_string(pyspiel.PlayerId.CHANCE, state.legal_actions()[0])


def test_a_chance_outcome_is_named_only_where_it_can_happen():
  state = pyspiel.load_game("python_sushi_draft(players=3,chips=tuna:5/shrimp:2.4.4/salmon:2.2.4/"
                            "cucumber:1.3.3/mackerel:1.2.3/dessert:2.3.5)").new_initial_state()
  assert state.legal_actions() == [0]  # one chip: one order
  with pytest.raises(ValueError, match="3 is not an order of the Tuna Nigiri pile; allowed: 0..0"):
    state.action_to_string(pyspiel.PlayerId.CHANCE, 3)


@pytest.mark.parametrize("game_string, message", [
    ("python_sushi_go(deck=tempura:2/tempura:4)", "'tempura' is repeated in 'tempura:2/tempura:4'"),
    ("python_sushi_go(deck=tempura:100000000000000000000)", "allowed: 0 to 999"),
    ("python_sushi_go(soy_sauce_count=3)", "'soy_sauce_count' is 3 with soy_sauce=false"),
    ("python_sushi_go(soy_sauce=true,soy_sauce_count=5000)", "'soy_sauce_count' is 5000"),
    ("python_sushi_draft(chips=tuna:1/tuna:2)", "'tuna' is repeated"),
    ("python_sushi_draft(chips=tuna:1000/shrimp:1/salmon:1/cucumber:1/mackerel:1/dessert:1)",
     "has 1000; allowed: 0 to 999"),
    ("python_sushi_draft(deck=tuna:8/tuna:1/wild:1)", "'tuna' is repeated"),
    ("python_sushi_go(deal=hand,rounds=1,hand_size=2000,"
     "deck=tempura:999/sashimi:999/dumpling:999/maki2:999/salmon:999)",
     "more than OpenSpiel's action ids hold"),
])
def test_bad_parameters_are_refused(game_string, message):
  with pytest.raises(ValueError, match=message):
    pyspiel.load_game(game_string)


def test_a_deal_too_large_to_list_is_refused_before_listing():
  state = pyspiel.load_game("python_sushi_go(deal=hand,hand_size=20,rounds=1)").new_initial_state()
  with pytest.raises(ValueError, match="has 62,682,858 outcomes .* more than the 1,000,000"):
    state.chance_outcomes()
  rules = state.get_game().rules
  assert sum(state.get_game().dynamics.sample_chance(rules, state.table(), lambda: 0.5)
             for _ in range(3)) >= 0  # sampling the deal needs no list


def test_a_malformed_deck_names_the_parameter_and_shows_a_well_formed_item():
  with pytest.raises(ValueError, match=r"parameter 'deck': unknown code 'eel' .*as in 'tempura:4'"):
    pyspiel.load_game("python_sushi_go(deck=eel:3)")
  with pytest.raises(ValueError, match=r"parameter 'deck': 'tempura' .*as in 'tempura:4'"):
    pyspiel.load_game("python_sushi_go(deck=tempura)")


def test_an_action_beyond_the_last_is_refused_with_the_range():
  from sushigo_spiel.sushi_go import rules as R
  rules = R.Rules.from_params(players=2)
  last = rules.num_distinct_actions - 1
  with pytest.raises(ValueError, match=rf"action {last + 1} is out of range 0\.\.{last}$"):
    rules.action_name(last + 1)
  state = pyspiel.load_game("python_sushi_go(players=2)").new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  with pytest.raises(ValueError, match=rf"player 0 cannot play action {last + 1} with hand"):
    state.apply_actions([last + 1, state.legal_actions(1)[0]])
