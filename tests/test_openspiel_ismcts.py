"""The reference bot around OpenSpiel's Python ISMCTSBot, on the turn-based form of the game."""

import random
import time

import pyspiel
import pytest

import solvers
from support import deal, load, play, play_with_bots, random_playout

SMALL = dict(players=2, rounds=1, hand_size=4,
             deck="tempura:4/sashimi:3/squid:2/wasabi:2/maki2:3/pudding:2")


@pytest.mark.parametrize("players", [2, 3])
def test_plays_legal_moves_and_is_reproducible(players):
  game = pyspiel.load_game("python_sushi_go", {**SMALL, "players": players,
                                                "deck": "tempura:6/sashimi:6/squid:3/maki2:3"})
  def bots():
    return [solvers.make_bot("openspiel_ismcts", game, p, seed=p, iterations=30)
            for p in range(players)]
  first = play_with_bots(game, bots(), seed=4)[1]
  assert first == play_with_bots(game, bots(), seed=4)[1]


def test_runs_on_the_turn_based_form_and_refuses_other_turns():
  game = pyspiel.convert_to_turn_based(pyspiel.load_game("python_sushi_go", SMALL))
  bot = solvers.make_bot("openspiel_ismcts", game, 1, seed=0, iterations=20)
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
  with pytest.raises(ValueError, match="player 0's turn"):
    bot.step(state)
  state.apply_action(state.legal_actions()[0])
  assert bot.step(state) in state.legal_actions()


def test_policy_is_a_distribution_over_legal_actions():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  state = random_playout(game.new_initial_state(), random.Random(2),
                         stop=lambda s: s.is_simultaneous_node())
  bot = solvers.make_bot("openspiel_ismcts", game, 0, seed=1, iterations=50)
  policy, action = bot.step_with_policy(state)
  assert sorted(a for a, _ in policy) == state.legal_actions(0)
  assert abs(sum(p for _, p in policy) - 1.0) < 1e-9 and action in state.legal_actions(0)


def test_never_reads_hidden_cards():
  """Redealing what the player has not seen leaves its choice unchanged, for a fixed seed."""
  game = pyspiel.load_game("python_sushi_go(players=3,rounds=1)")
  rng = random.Random(5)
  checked = 0
  for seed in range(3):
    state = random_playout(game.new_initial_state(), random.Random(seed),
                           stop=lambda s: s.is_simultaneous_node())
    for player in range(3):
      chosen = solvers.make_bot("openspiel_ismcts", game, player, seed=9, iterations=40).step(state)
      other = state.resample_from_infostate(player, rng.random)
      if other.hands() == state.hands():
        continue
      again = solvers.make_bot("openspiel_ismcts", game, player, seed=9, iterations=40).step(other)
      assert again == chosen
      checked += 1
  assert checked >= 5


def test_beats_random_play_on_a_small_deck():
  game = pyspiel.load_game("python_sushi_go", {**SMALL, "utility": "margin"})
  margin = 0.0
  for seed in range(10):
    seat = seed % 2
    bots = [solvers.make_bot("random", game, p, seed=seed) for p in range(2)]
    bots[seat] = solvers.make_bot("openspiel_ismcts", game, seat, seed=seed, iterations=100)
    margin += play_with_bots(game, bots, seed)[0].returns()[seat]
  assert margin > 0


def test_unknown_parameter_is_refused():
  game = pyspiel.load_game("python_sushi_go")
  with pytest.raises(ValueError, match="unknown parameter.*allowed"):
    solvers.make_bot("openspiel_ismcts", game, 0, seed=0, budget=3)


@pytest.mark.parametrize("params", [
    dict(players=2, robot=True, rounds=1, hand_size=3, soy_sauce=True),
    dict(players=3, rounds=1, hand_size=3, pass_direction="right"),
])
def test_searches_the_variants(params):
  game = pyspiel.load_game("python_sushi_go", params)
  bots = [solvers.make_bot("openspiel_ismcts", game, p, seed=p, iterations=15)
          for p in range(game.num_players())]
  assert play_with_bots(game, bots, seed=1)[0].is_terminal()


def test_seconds_budget_bounds_the_time_per_move():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  state = random_playout(game.new_initial_state(), random.Random(3),
                         stop=lambda s: s.is_simultaneous_node())
  bot = solvers.make_bot("openspiel_ismcts", game, 0, seed=0, seconds=0.3, iterations=1)
  start = time.perf_counter()
  policy, action = bot.step_with_policy(state)
  assert 0.3 <= time.perf_counter() - start < 0.9
  assert action in state.legal_actions(0) and sorted(a for a, _ in policy) == \
      state.legal_actions(0)
  with pytest.raises(ValueError, match="'seconds' is -1; allowed"):
    solvers.make_bot("openspiel_ismcts", game, 0, seed=0, seconds=-1)


def test_a_budget_shorter_than_one_simulation_still_gives_a_visited_root():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  state = random_playout(game.new_initial_state(), random.Random(3),
                         stop=lambda s: s.is_simultaneous_node())
  bot = solvers.make_bot("openspiel_ismcts", game, 0, seed=0, seconds=1e-9)
  policy, action = bot.step_with_policy(state)
  assert action in state.legal_actions(0) and abs(sum(p for _, p in policy) - 1) < 1e-9


def test_finds_the_one_winning_pick():
  """As in test_ismcts: Wasabi then Squid with the Chopsticks beats every other pick."""
  game = load(players=2, rounds=1, hand_size=3, deck="egg:14/squid:1/wasabi:1/chopsticks:4")
  state = game.new_initial_state()
  deal(state, [["Chopsticks", "Egg Nigiri", "Egg Nigiri"], ["Chopsticks", "Wasabi",
                                                            "Squid Nigiri"]])
  play(state, ["Chopsticks"] * 2)
  bot = solvers.make_bot("openspiel_ismcts", game, 0, seed=1, iterations=300)
  assert state.action_to_string(0, bot.step(state)) == "Wasabi + Squid Nigiri"
