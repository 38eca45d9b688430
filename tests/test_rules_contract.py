"""What the rules modules of both games promise at their edges: default parameters, the action
table, the score bounds, the robot's draw and the exact words of their refusals.

The messages are compared whole (not by a fragment), since a user reads all of them: what was
wrong and what is allowed.
"""

from __future__ import annotations

import random
import re

import pyspiel
import pytest

import sushigo_spiel  # noqa: F401  (registers the games)
from support import CH, SQ, W, deal, load, random_playout, walk
from sushigo_spiel.sushi_draft import rules as DR
from sushigo_spiel.sushi_go import rules as R

CHANCE = int(pyspiel.PlayerId.CHANCE)


def refused(call, message: str):
  """`call()` raises ValueError with exactly `message`."""
  with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
    call()


def test_rules_defaults_are_the_game_defaults():
  assert R.Rules.from_params() == load().rules
  assert DR.Rules.from_params() == pyspiel.load_game("python_sushi_draft").rules


@pytest.mark.parametrize("params", [
    {"players": 2}, {"players": 5, "soy_sauce": True}, {"players": 2, "robot": True},
    {"players": 3, "hand_size": 4, "deck": "chopsticks:12/squid:1/wasabi:12/egg:12"},
    {"players": 2, "hand_size": 2, "rounds": 1, "deck": "chopsticks:4/pudding:4"},
    {"players": 2, "hand_size": 3, "rounds": 1, "deck": "chopsticks:2/squid:6/tempura:6"},
])
def test_every_action_names_cards_the_deck_can_supply(params):
  rules = load(**params).rules
  deck = {card.name: count for card, count in zip(rules.cards, rules.deck)}
  for action in range(rules.num_distinct_actions):
    own, _, robot = rules.action_name(action).partition(", robot ")
    picked = own.split(" + ")
    needed = picked + ([CH] if len(picked) == 2 else []) + ([robot] if robot else [])
    for name in set(needed):
      assert needed.count(name) <= deck[name], (action, rules.action_name(action))
  with pytest.raises(ValueError, match="out of range"):
    rules.action_name(rules.num_distinct_actions)


def test_chopsticks_pairs_exist_whatever_the_card_numbers():
  # Chopsticks as card number 0 (a deck of Chopsticks and Puddings) still make pairs.
  rules = load(players=2, hand_size=3, rounds=1, deck="chopsticks:6/pudding:6").rules
  assert rules.cards[0].name == CH
  names = {rules.action_name(a) for a in range(rules.num_distinct_actions)}
  assert {"Chopsticks + Pudding", "Pudding + Pudding", "Chopsticks + Chopsticks"} <= names


def test_the_action_table_follows_from_the_deck_whatever_the_hand_size():
  """The action table ("follows from the deck", `_derive`) is one for every hand size of two
  cards or more, so a game's action space does not change with its hand size (even at two cards,
  where no pair is ever legal, the Chopsticks being played on the first turn and the last card
  being taken for the player)."""
  deck = "tempura:4/squid:4/wasabi:4/chopsticks:4"
  tables = {size: load(players=2, hand_size=size, rounds=1, deck=deck).rules
            for size in (2, 3, 4)}
  assert tables[3].pairs
  for size in (2, 4):
    assert tables[size].pairs == tables[3].pairs, size
    assert tables[size].num_distinct_actions == tables[3].num_distinct_actions, size


@pytest.mark.parametrize("params,bounds", [
    ({"players": 2}, (0, 3 * (5 * 10 + 6) + 6)),
    ({"players": 3}, (-6, 3 * (5 * 9 + 6) + 6)),
    ({"players": 2, "robot": True}, (-6, 3 * (5 * 9 + 6) + 6)),  # three tableaus: -6 is possible
    ({"players": 5, "rounds": 1, "hand_size": 4}, (-6, 1 * (5 * 4 + 6) + 6)),
])
def test_score_bounds_follow_their_documented_formula(params, bounds):
  # Documented: no card averages more than 5 points, Maki add 6 a round, Puddings 6 at the end;
  # the -6 of the fewest Puddings needs three tableaus.
  game = load(**params)
  assert game.rules.score_bounds() == bounds
  assert (game.min_utility(), game.max_utility()) == bounds


def test_the_robot_is_drawn_for_only_from_its_pile():
  game = load(players=2, robot=True, hand_size=3, rounds=1,
              deck="tempura:3/squid:3/wasabi:3")
  state = game.new_initial_state()
  deal(state, [["Tempura"] * 3, [SQ] * 3, [W] * 3])
  assert state.chance_outcomes() == [(game.rules.cards.index(
      next(c for c in game.rules.cards if c.name == W)), 1.0)]
  refused(lambda: R.apply_chance(game.rules, state.table(), 0),
          "chance outcome 0 is not a card of the robot's pile; allowed: [2]")
  refused(lambda: R.apply_chance(game.rules, state.table(), 3),
          "chance outcome 3 is not a card of the robot's pile; allowed: [2]")


def test_the_robots_drawn_card_is_minus_one_before_each_draw():
  """`Robot.drawn` is -1 before the draw (as its docstring and the compiled layout say, which the
  codec copies as it is) and the drawn card from the draw to the turn's end, every round."""
  game = load(players=2, robot=True)
  for seed in range(3):
    seen_before = seen_after = 0
    for state in walk(game.new_initial_state(), random.Random(seed)):
      table = state.table()
      if state.is_chance_node():
        assert table.robot.drawn == -1, (seed, table.round, table.turn)
        seen_before += 1
      else:
        assert 0 <= table.robot.drawn < game.rules.num_types, (seed, table.round, table.turn)
        seen_after += 1
    assert seen_before and seen_after


@pytest.mark.parametrize("params", [{"players": 3}, {"players": 2, "robot": True},
                                    {"players": 2, "soy_sauce": True}])
def test_each_round_result_names_its_categories_and_counts_its_puddings(params):
  """A finished round's `RoundResult`: `breakdown` has one value per `Rules.categories` (Soy Sauce
  only with the variant), and `puddings` the Puddings each player played that round."""
  game = load(**params)
  rules = game.rules
  pudding = next(c for c, card in enumerate(rules.cards) if card.name == "Pudding")
  assert ("soy_sauce" in rules.categories) == bool(params.get("soy_sauce"))
  state = random_playout(game.new_initial_state(), random.Random(5))
  results = state.table().results
  assert len(results) == rules.rounds
  for result in results:
    assert all(len(points) == len(rules.categories) for points in result.breakdown)
    assert result.puddings == tuple(tableau.count(pudding) for tableau in result.tableaus)
  assert any(sum(result.puddings) for result in results)


def test_an_illegal_robot_move_is_refused_naming_the_legal_ones():
  game = load(players=2, robot=True, hand_size=3, rounds=1, deck="tempura:3/squid:3/wasabi:3")
  state = game.new_initial_state()
  deal(state, [["Tempura"] * 3, [SQ] * 3, [W] * 3])
  state.apply_action(2)  # player 0, the controller, draws the robot's Wasabi
  table, rules = state.table(), game.rules
  legal = R.legal_actions(rules, table, 0)
  shown = "; ".join(f"{a} ({rules.action_name(a)})" for a in legal)
  refused(lambda: R.play(rules, table, [0, 1]),
          f"player 0 cannot play action 0 (Tempura) with hand [Tempura x3, Wasabi]; legal: {shown}")
  squid = rules.cards.index(next(c for c in rules.cards if c.name == SQ))
  refused(lambda: R.play(rules, table, [legal[0], 0]),
          "player 1 cannot play action 0 (Tempura) with hand [Squid Nigiri x3]; legal: "
          f"{squid} (Squid Nigiri)")
  refused(lambda: R.play(rules, table, [legal[0], -5]),
          "player 1 cannot play action -5 with hand [Squid Nigiri x3]; legal: "
          f"{squid} (Squid Nigiri)")


def test_the_rules_refuse_steps_at_the_wrong_node():
  game = load(players=2)
  rules, table = game.rules, game.new_initial_state().table()
  refused(lambda: R.play(rules, table, [0, 0]),
          "no player can pick now: this is a chance node or the game is over")
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  refused(lambda: R.chance_outcomes(rules, state.table()),
          "chance outcomes asked at a node that is not a chance node")
  refused(lambda: R.play(rules, state.table(), [0]),
          "expected 2 actions, one per player; got 1")


def test_a_hand_deal_outcome_is_checked_against_the_range_and_the_deck():
  game = load(players=2, deal="hand", hand_size=2, rounds=1, deck="tempura:2/squid:2")
  rules, table = game.rules, game.new_initial_state().table()
  size = rules.hand_ranking.size
  outcomes = [o for o, _ in R.chance_outcomes(rules, table)]
  assert outcomes == list(range(size))  # every hand of two from Tempura and Squid can be dealt
  assert R.apply_chance(rules, table, 0).hands[0] == rules.hand_ranking.unrank(0)
  refused(lambda: R.apply_chance(rules, table, size),
          f"chance outcome {size} is out of range 0..{size - 1}")
  two_tempura = next(o for o in outcomes if rules.hand_ranking.unrank(o) == (2, 0))
  after = R.apply_chance(rules, table, two_tempura)
  assert after.deck == (0, 2)
  refused(lambda: R.apply_chance(rules, after, two_tempura),
          f"chance outcome {two_tempura} (Tempura x2) is not in the deck")


def test_hands_are_written_with_counts():
  rules = load(players=2).rules
  hand = [0] * rules.num_types
  assert rules.hand_string(hand) == "-"
  hand[0], hand[8] = 1, 3
  assert rules.hand_string(hand) == "Tempura, Squid Nigiri x3"


@pytest.mark.parametrize("spec,message", [
    ("tempura:1.2", "parameter 'deck': 'tempura' in 'tempura:1.2' needs one count, as in"
                    " 'tempura:4'"),
    ("soy:3", "parameter 'deck' ('soy:3') lists Soy Sauce; allowed: the other cards, since Soy"
              " Sauce joins the deck with soy_sauce=true and soy_sauce_count"),
])
def test_bad_decks_are_refused_in_full(spec, message):
  refused(lambda: R.Rules.from_params(deck=spec), message)


def test_soy_sauce_counts_are_refused_in_full():
  refused(lambda: R.Rules.from_params(soy_sauce_count=3),
          "parameter 'soy_sauce_count' is 3 with soy_sauce=false; allowed: soy_sauce_count only"
          " with soy_sauce=true")
  assert R.Rules.from_params(soy_sauce=True, soy_sauce_count=999).deck[-1] == 999
  refused(lambda: R.Rules.from_params(soy_sauce=True, soy_sauce_count=1000),
          "parameter 'soy_sauce_count' is 1000; allowed: 1 or more, up to 999")


# ----- Sushi Draft


def draft(**params):
  return pyspiel.load_game("python_sushi_draft", params)


def test_draft_refuses_steps_at_the_wrong_node():
  game = draft(players=3)
  rules, state = game.rules, game.new_initial_state()
  refused(lambda: DR.play(rules, state.table(), [0, 0, 0]),
          "no player can act now: this is a chance node or the game is over")
  orders = len(rules.pile_orders[0])
  refused(lambda: DR.apply_chance(rules, state.table(), orders),
          f"chance outcome {orders} is out of range 0..{orders - 1} for the order of the Tuna"
          " Nigiri pile")
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  refused(lambda: DR.chance_outcomes(rules, state.table()),
          "chance outcomes asked at a node that is not a chance node")
  refused(lambda: DR.play(rules, state.table(), [0]),
          "expected 3 actions, one per player; got 1")
  hand = state.table().hands[1]
  legal = DR.legal_actions(rules, state.table(), 1)
  bad = next(a for a in range(DR.KEEP) if a not in legal)
  refused(lambda: DR.play(rules, state.table(), [legal[0], bad, legal[0]]),
          f"player 1 cannot play action {bad} ({rules.action_name(bad)}) with hand "
          f"[{rules.hand_string(hand)}]; legal: "
          + "; ".join(f"{a} ({rules.action_name(a)})" for a in legal))
  refused(lambda: rules.action_name(DR.NUM_ACTIONS),
          f"action {DR.NUM_ACTIONS} is out of range 0..{DR.NUM_ACTIONS - 1}")


def test_draft_deals_are_checked_against_the_range_and_the_deck():
  game = draft(players=2, hand_size=2, deck="tuna:2/shrimp:2")
  rules, state = game.rules, game.new_initial_state()
  while state.table().ordered < len(rules.chips):
    state.apply_action(0)
  refused(lambda: DR.apply_chance(rules, state.table(), 4),
          "chance outcome 4 is not a card left in the deck; allowed: [0, 1]")
  hands = draft(players=2, hand_size=2, deck="tuna:2/shrimp:2", deal="hand")
  state = hands.new_initial_state()
  while state.table().ordered < len(rules.chips):
    state.apply_action(0)
  size = hands.rules.hand_ranking.size
  refused(lambda: DR.apply_chance(hands.rules, state.table(), size),
          f"chance outcome {size} is out of range 0..{size - 1}")
  two_tuna = next(o for o in range(size) if hands.rules.hand_ranking.unrank(o)[0] == 2)
  after = DR.apply_chance(hands.rules, state.table(), two_tuna)
  refused(lambda: DR.apply_chance(hands.rules, after, two_tuna),
          f"chance outcome {two_tuna} (Tuna Nigiri x2) is not in the deck")
  assert hands.rules.hand_string([0] * 6) == "-"
  assert hands.rules.hand_string([1, 0, 0, 0, 0, 2]) == "Tuna Nigiri, Wild x2"


def test_the_dynamics_scores_are_the_states():
  from sushigo_spiel.sushi_go.dynamics import DYNAMICS  # pylint: disable=import-outside-toplevel
  game = load(players=3, rounds=2, hand_size=4, deck="tempura:8/pudding:8/maki2:8/squid:8")
  state, rng = game.new_initial_state(), random.Random(3)
  while not state.is_terminal():
    assert DYNAMICS.scores(game.rules, state.table()) == state.scores()
    if state.is_chance_node():
      state.apply_action(rng.choice(state.legal_actions()))
    else:
      state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(3)])
  assert DYNAMICS.scores(game.rules, state.table()) == state.scores()
  assert state.scores() != [0, 0, 0]
