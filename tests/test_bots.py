"""The baseline bots and their registry: legal full games, choices on hand-built positions, no
reading of hidden cards, reproducibility, the turn-based view, and their order of strength.

Hand-built positions are two-player games whose hands are dealt by name (`support.deal`); after a
scripted first turn, player 0 holds what player 1 was dealt, less player 1's pick.
"""

from __future__ import annotations

import collections
import random

import numpy as np
import scipy.stats
import pyspiel
import pytest

import solvers
from solvers.baselines import table_view
from sushigo_spiel.drafting.adapter import simultaneous_state
from sushigo_spiel.sushi_go import SushiGoState
from invariants import check_state
from strength import games_won, wilson_lower_bound
from support import (CH, D, EGG, M1, M2, M3, SA, SAL, SQ, P, T, W, action_by_name, deal, load,
                     play, walk)

BOT_NAMES = ("random", "greedy", "heuristic")

REDUCED_DECKS = [
    dict(players=3, deck="tempura:20/sashimi:10/pudding:10", hand_size=4, rounds=2),
    dict(players=2, deck="squid:10/egg:5/wasabi:6/chopsticks:8/maki3:8", hand_size=6),
    dict(players=4, deck="chopsticks:10/wasabi:10/salmon:20/tempura:20", hand_size=3, rounds=2,
         deal="hand"),
    dict(players=5, deck="dumpling:80/maki1:15/pudding:15", utility="win"),
    dict(players=2, deck="chopsticks:4/pudding:4", hand_size=2, rounds=1),
    dict(players=3, deck="maki1:10/maki2:10/salmon:20/dumpling:20", hand_size=5, utility="margin"),
]


def play_game(game, bots, seed: int) -> pyspiel.State:
  """Plays a full game (simultaneous or turn-based), checking that every bot move is legal."""
  rng = np.random.default_rng(seed)
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probs = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(outcomes, p=probs)))
    elif state.is_simultaneous_node():
      actions = [bot.step(state) for bot in bots]
      for player, action in enumerate(actions):
        assert action in state.legal_actions(player)
      state.apply_actions(actions)
    else:
      action = bots[state.current_player()].step(state)
      assert action in state.legal_actions()
      state.apply_action(action)
  check_state(simultaneous_state(state))  # the game under a turn-based one, or the game itself
  return state


def make_bots(game, names, seed: int = 0, **params):
  return [solvers.make_bot(names[p % len(names)], game, p, seed + p, **params)
          for p in range(game.num_players())]


def decision_states(game, seed: int, every: int = 1):
  """Copies of the simultaneous nodes of a random game (every `every`-th one)."""
  nodes = [s.clone() for s in walk(game.new_initial_state(), random.Random(seed))
           if s.is_simultaneous_node()]
  return nodes[::every]


# --------------------------------------------------------------------------------------------
# Full games
# --------------------------------------------------------------------------------------------

# Whole games with a claim: the bot under test, moving from seat to seat, wins more often than
# chance against weaker bots (a Wilson bound over seeded games, see `strength`). Greedy play beats
# random play less often outright, so it is measured against the opponents' mean score.
CLAIMS = [("heuristic", "random", True, 100), ("heuristic", "greedy", True, 100),
          ("greedy", "random", False, 200)]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("name,opponent,outright,games", CLAIMS)
def test_full_games_are_won_more_often_than_chance(name, opponent, outright, games, players):
  game = load(players=players)
  wins = games_won(game, (name, {}), [(opponent, {})], games, seed=players, outright=outright)
  bar = 1 / players if outright else 0.5
  assert wilson_lower_bound(wins, games) > bar, wins


@pytest.mark.parametrize("players", [2, 4])
def test_random_bot_is_uniform_over_the_legal_actions(players):
  game = load(players=players, deck="tempura:12/chopsticks:12/wasabi:12/squid:12/pudding:12"
              "/maki2:12/salmon:12", hand_size=6)
  state = next(s for s in decision_states(game, seed=players) if len(s.legal_actions(0)) >= 4)
  legal = state.legal_actions(0)
  bot = solvers.make_bot("random", game, 0, seed=players)
  draws = 100 * len(legal)
  counts = collections.Counter(bot.step(state) for _ in range(draws))
  assert set(counts) == set(legal)
  chi_square = sum((counts[a] - 100) ** 2 / 100 for a in legal)
  assert chi_square < scipy.stats.chi2.ppf(0.999, len(legal) - 1), counts


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_mixed_table_with_evaluate_bots(players):
  # Seats cycle random, greedy, heuristic: in most of 60 seeded games OpenSpiel's evaluate_bots
  # sees a greedy or heuristic seat outscore every random seat (a Wilson bound above 1/2).
  game = load(players=players)
  better = 0
  for seed in range(60):
    returns = pyspiel.evaluate_bots(game.new_initial_state(),
                                    make_bots(game, BOT_NAMES, seed=10 * seed), seed)
    assert len(returns) == players
    random_seats = range(0, players, len(BOT_NAMES))
    better += max(r for p, r in enumerate(returns) if p not in random_seats) > \
        max(returns[p] for p in random_seats)
  assert wilson_lower_bound(better, 60) > 0.5, better


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("name", BOT_NAMES)
def test_full_games_turn_based(name, players):
  game = pyspiel.convert_to_turn_based(load(players=players))
  play_game(game, make_bots(game, [name]), seed=3)


def test_turn_based_games_match_simultaneous_games():
  game = load(players=3)
  turn_based = pyspiel.convert_to_turn_based(game)
  for seed in range(2):
    simultaneous = pyspiel.evaluate_bots(game.new_initial_state(), make_bots(game, BOT_NAMES),
                                         seed)
    turns = pyspiel.evaluate_bots(turn_based.new_initial_state(),
                                  make_bots(turn_based, BOT_NAMES), seed)
    assert simultaneous == turns


@pytest.mark.parametrize("params", REDUCED_DECKS)
def test_reduced_decks(params):
  game = load(**params)
  for current in (game, pyspiel.convert_to_turn_based(game)):
    for seed in range(2):
      play_game(current, make_bots(current, BOT_NAMES, seed), seed)


def test_heuristic_with_temperature_plays_legally():
  game = load(players=4)
  play_game(game, make_bots(game, ["heuristic"], temperature=1.0), seed=5)


# --------------------------------------------------------------------------------------------
# Reproducibility, policies and hidden information
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", BOT_NAMES)
def test_same_seed_same_actions(name):
  game = load(players=3)
  states = decision_states(game, seed=1)
  first = [solvers.make_bot(name, game, 1, seed=42).step(s) for s in states]
  second = [solvers.make_bot(name, game, 1, seed=42).step(s) for s in states]
  assert first == second


def test_random_bot_depends_on_its_seed_only():
  game = load(players=2)
  states = decision_states(game, seed=2)
  runs = {seed: [solvers.make_bot("random", game, 0, seed=seed).step(s) for s in states]
          for seed in (1, 2)}
  assert runs[1] != runs[2]
  np.random.seed(0)  # global numpy state must not matter
  random.seed(0)
  assert [solvers.make_bot("random", game, 0, seed=1).step(s) for s in states] == runs[1]


@pytest.mark.parametrize("name,params", [("random", {}), ("greedy", {}), ("heuristic", {}),
                                         ("heuristic", {"temperature": 0.5})])
def test_policy_sums_to_one_over_legal_actions(name, params):
  game = load(players=3, deck="tempura:10/chopsticks:10/wasabi:10/squid:10/pudding:10/maki2:10",
              hand_size=5)
  for state in decision_states(game, seed=4):
    for player in range(3):
      bot = solvers.make_bot(name, game, player, seed=0, **params)
      policy, action = bot.step_with_policy(state)
      actions, probs = zip(*policy)
      assert sorted(actions) == state.legal_actions(player)
      assert sum(probs) == pytest.approx(1.0)
      assert min(probs) >= 0
      assert dict(policy)[action] > 0
      assert bot.provides_policy()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_bots_never_read_hidden_hands(players):
  """Redealing what a player has not seen leaves every bot's choice for that player unchanged."""
  game = load(players=players)
  rng = random.Random(players)
  params = [("random", {}), ("greedy", {}), ("heuristic", {}), ("heuristic", {"temperature": 2})]
  for state in decision_states(game, seed=players, every=2):
    for player in range(players):
      others = [state.resample_from_infostate(player, rng.random) for _ in range(2)]
      for name, extra in params:
        chosen = {solvers.make_bot(name, game, player, 9, **extra).step(s)
                  for s in [state, *others]}
        assert len(chosen) == 1, (name, player, str(state))


def test_player_view_counts_unseen_cards():
  game = load(players=3)
  for state in decision_states(game, seed=8, every=4):
    table = state.table()
    for player in range(3):
      view = table_view(game.rules, table, player)
      hidden = list(table.deck)
      for holder, hand in enumerate(table.hands):
        if holder != player and holder not in view.seen_hands:
          hidden = [a + b for a, b in zip(hidden, hand)]
      assert list(view.unseen) == hidden
      assert view.hand == table.hands[player]


# --------------------------------------------------------------------------------------------
# The turn-based view
# --------------------------------------------------------------------------------------------

def turn_based_nodes(game, seed: int):
  """The player nodes of a random turn-based game."""
  rng = random.Random(seed)
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probs = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(outcomes, probs)[0])
    else:
      yield state
      state.apply_action(rng.choice(state.legal_actions()))


def test_simultaneous_state_rebuilds_the_underlying_state():
  game = pyspiel.convert_to_turn_based(
      load(players=3, deck="tempura:20/chopsticks:10/wasabi:10/squid:20", hand_size=4, rounds=2))
  checked = 0
  for state in turn_based_nodes(game, seed=0):
    view = simultaneous_state(state)
    assert isinstance(view, SushiGoState)
    assert view.table() == state.simultaneous_game_state().table()
    assert view.is_simultaneous_node()
    checked += 1
  assert checked == 2 * 3 * 3


def test_simultaneous_state_leaves_out_the_choices_of_this_turn():
  game = pyspiel.convert_to_turn_based(load(players=3))
  for state in turn_based_nodes(game, seed=1):
    view = simultaneous_state(state)
    waiting = state.current_player()  # players 0 .. waiting - 1 have chosen this turn
    assert view.history() == state.history()[:len(state.history()) - waiting]


def test_simultaneous_state_of_a_simultaneous_state_is_itself():
  state = load(players=2).new_initial_state()
  assert simultaneous_state(state) is state


@pytest.mark.parametrize("name", BOT_NAMES)
def test_turn_based_choices_match_simultaneous_choices(name):
  game = load(players=3)
  turn_based = pyspiel.convert_to_turn_based(game)
  for state in turn_based_nodes(turn_based, seed=2):
    player = state.current_player()
    chosen = solvers.make_bot(name, turn_based, player, 5).step(state)
    underlying = state.simultaneous_game_state().clone()
    assert chosen == solvers.make_bot(name, game, player, 5).step(underlying)


def test_bot_refuses_to_move_out_of_turn():
  game = pyspiel.convert_to_turn_based(load(players=2))
  state = next(turn_based_nodes(game, seed=3))
  bot = solvers.make_bot("greedy", game, 1 - state.current_player(), 0)
  with pytest.raises(ValueError, match="has no move here"):
    bot.step(state)
  with pytest.raises(ValueError, match="has no move here"):
    solvers.make_bot("greedy", game, 0, 0).step(game.new_initial_state())


# --------------------------------------------------------------------------------------------
# Greedy choices on hand-built positions
# --------------------------------------------------------------------------------------------

def second_turn(first_hand, second_hand, first_picks, **params):
  """Player 0 to move at turn 2, having placed `first_picks[0]` and received `second_hand` less
  `first_picks[1]`."""
  game = load(players=2, hand_size=len(first_hand), **params)
  state = game.new_initial_state()
  deal(state, [first_hand, second_hand])
  play(state, first_picks)
  return game, state


def choice(name, game, state, player=0, **params) -> str:
  return state.action_to_string(player, solvers.make_bot(name, game, player, 0, **params).step(
      state))


def test_greedy_takes_the_second_tempura():
  game, state = second_turn([T, D, D, D], [T, SAL, D, EGG], [T, EGG])
  assert choice("greedy", game, state) == T


def test_greedy_takes_the_third_sashimi():
  game = load(players=2, hand_size=6)
  state = game.new_initial_state()
  deal(state, [[SA, D, D, D, D, D], [SA, SA, SQ, SQ, D, EGG]])
  play(state, [SA, EGG])
  play(state, [SA, D])  # player 0 places the second Sashimi, from player 1's hand
  play(state, [D, SQ])
  assert state.hands()[0] == [SA, D, SQ]
  assert choice("greedy", game, state) == SA


def test_greedy_puts_the_squid_on_a_free_wasabi():
  game, state = second_turn([W, D, D, D], [SQ, SAL, EGG, M3], [W, M3])
  assert choice("greedy", game, state) == SQ


def test_greedy_takes_maki_when_it_wins_the_race():
  game, state = second_turn([D, D, D, D], [M2, M3, SAL, EGG], [D, M2])
  assert state.tableaus()[1] == [M2]
  assert choice("greedy", game, state) == M3  # 6 points for the most icons, beats Salmon


def test_greedy_breaks_ties_by_lowest_action():
  game = load(players=2, hand_size=4)
  state = game.new_initial_state()
  deal(state, [[EGG, D, T, SA], [T, T, T, T]])
  dumpling, egg = (action_by_name(state, 0, name) for name in (D, EGG))
  assert dumpling < egg
  policy, action = solvers.make_bot("greedy", game, 0, 0).step_with_policy(state)
  assert action == dumpling  # Dumpling and Egg Nigiri both score 1
  assert dict(policy)[dumpling] == 1.0


def test_greedy_uses_chopsticks_for_wasabi_and_squid():
  game, state = second_turn([CH, D, D, D], [W, SQ, EGG, T], [CH, T])
  assert choice("greedy", game, state) == f"{W} + {SQ}"


# --------------------------------------------------------------------------------------------
# Heuristic choices on hand-built positions
# --------------------------------------------------------------------------------------------

def test_heuristic_takes_wasabi_early_when_nigiri_are_plentiful():
  opening = [[W, EGG, D, D, T, T, T, T, T, T], [T] * 10]
  choices = {}
  for deck in ("wasabi:6/egg:10/salmon:20/squid:20/tempura:20/dumpling:20",
               "wasabi:6/egg:3/tempura:50/dumpling:50"):
    game = load(players=2, deck=deck)
    state = game.new_initial_state()
    deal(state, opening)
    choices[deck] = (choice("heuristic", game, state), choice("greedy", game, state))
  (plentiful, greedy_plentiful), (scarce, greedy_scarce) = choices.values()
  assert plentiful == W and scarce != W
  assert greedy_plentiful == greedy_scarce == D


def test_heuristic_keeps_a_free_wasabi_for_a_better_nigiri():
  game, state = second_turn([W] + [SQ] * 5 + [D] * 4, [T, EGG] + [D] * 8, [W, T],
                            deck="wasabi:6/egg:10/squid:30/dumpling:30/tempura:30")
  assert choice("greedy", game, state) == EGG  # 3 points now
  assert choice("heuristic", game, state) == D  # the Squid come back with player 0's hand


def test_heuristic_values_pudding_more_in_the_last_round():
  choices = []
  for rounds in (1, 3):
    game = load(players=4, rounds=rounds)
    state = game.new_initial_state()
    deal(state, [[P, SAL, T, D, M1, M1, EGG, EGG], [T] * 8, [D] * 8, [SA] * 8])
    choices.append(choice("heuristic", game, state))
  assert choices == [P, T]


def test_heuristic_takes_chopsticks_early_only():
  game = load(players=2)
  state = game.new_initial_state()
  deal(state, [[CH, EGG, EGG, EGG, M1, M1, M1, M1, M1, M1], [T] * 10])
  assert choice("heuristic", game, state) == CH
  game = load(players=2, hand_size=2)
  state = game.new_initial_state()
  deal(state, [[CH, EGG], [T, T]])
  assert choice("heuristic", game, state) == EGG


def test_heuristic_completes_sets_when_the_odds_are_good():
  game, state = second_turn([SA, D, D, D], [SA, SA, SAL, EGG], [SA, EGG])
  assert choice("heuristic", game, state) == SA  # the third Sashimi is still in this hand
  game, state = second_turn([SA, D, D, D], [SA, SAL, EGG, EGG], [SA, EGG])
  assert choice("heuristic", game, state) == SAL  # no third Sashimi is likely to come


def test_heuristic_parameters_change_its_choices():
  opening = [[W, EGG, D, D, T, T, T, T, T, T], [SA] * 10]
  game = load(players=2)
  state = game.new_initial_state()
  deal(state, opening)
  assert choice("heuristic", game, state) == W
  assert choice("heuristic", game, state, wasabi_weight=0.0) != W


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

def test_registry_names_and_parameters():
  search_and_learned = {"openspiel_ismcts", "so_ismcts", "mo_ismcts", "pimc", "policy",
                        "linear_q", "ppo", "subgame"}
  assert set(solvers.BOTS) == set(BOT_NAMES) | search_and_learned
  assert solvers.bot_parameters("random") == {"objective": "auto"}
  heuristic = solvers.bot_parameters("heuristic")
  assert heuristic["temperature"] == 0.0 and "wasabi_weight" in heuristic
  heuristic["temperature"] = 9
  assert solvers.bot_parameters("heuristic")["temperature"] == 0.0
  bot = solvers.make_bot("heuristic", load(), 1, 3, maki_weight=2.0)
  assert isinstance(bot, pyspiel.Bot) and bot.player_id == 1


def test_make_bot_rejects_an_unknown_name():
  with pytest.raises(ValueError, match=r"unknown bot 'minimax'.*random, greedy, heuristic"):
    solvers.make_bot("minimax", load(), 0, 0)
  with pytest.raises(ValueError, match="unknown bot 'x'"):
    solvers.bot_parameters("x")


def test_make_bot_rejects_an_unknown_parameter():
  with pytest.raises(ValueError, match=r"unknown parameter\(s\) wasabi .*'wasabi_weight': 0.6"):
    solvers.make_bot("heuristic", load(), 0, 0, wasabi=1.0)
  with pytest.raises(ValueError,
                     match=r"unknown parameter\(s\) depth .*allowed .*: \{'objective': 'auto'\}"):
    solvers.make_bot("greedy", load(), 0, 0, depth=2)


# --------------------------------------------------------------------------------------------
# Strength
# --------------------------------------------------------------------------------------------

def mean_score_margin(stronger: str, weaker: str, deals: int) -> float:
  """Mean score of `stronger` minus `weaker` over two-player games, each deal played twice with
  the seats swapped."""
  game = load(players=2)
  margins = []
  for seed in range(deals):
    for seats in ((stronger, weaker), (weaker, stronger)):
      bots = [solvers.make_bot(name, game, p, seed) for p, name in enumerate(seats)]
      scores = play_game(game, bots, seed).scores()
      margins.append(scores[seats.index(stronger)] - scores[seats.index(weaker)])
  return float(np.mean(margins)), float(np.std(margins) / np.sqrt(len(margins)))


@pytest.mark.parametrize("stronger,weaker", [("greedy", "random"), ("heuristic", "greedy")])
def test_strength_order(stronger, weaker):
  margin, error = mean_score_margin(stronger, weaker, deals=100)
  assert margin > 4 * error and margin > 3


@pytest.mark.parametrize("policy", [[], [(0, 0.5)], [(0, 1.5), (1, -0.5)], [(0, float("nan"))]])
def test_a_policy_that_is_not_a_distribution_is_refused(policy):
  class Broken(solvers.bot_class("random")):
    def policy_at(self, table):
      return policy
  game = load(players=2)
  state = decision_states(game, seed=1, every=1)[0]
  with pytest.raises(ValueError, match="Broken gave the policy .* not a distribution"):
    Broken(game, 0, 1).step(state)
