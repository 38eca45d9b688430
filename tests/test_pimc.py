"""Tests for Perfect Information Monte Carlo (solvers/pimc.py) and its world solvers
(solvers/world_solvers.py).

Brute-force references are computed here from pyspiel states, with matrix games solved by a linear
program written in this file (the column player's side, unlike `solvers/matrix_game.py`), not by
the code under test.
"""

import itertools
import random
import time

import numpy as np
import pyspiel
import pytest
from scipy import optimize

from solvers.search import rollouts, selection, world_solvers
from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from solvers.search.pimc import PIMCBot
from experiments.bench.search import opening, worlds_per_second
from strength import games_won, wilson_lower_bound
from support import EGG, SQ, W, T, SAL, action_by_name, deal, load, play_with_bots, walk

SMALL = {"rounds": 1, "hand_size": 3,
         "deck": "tempura:4/sashimi:3/dumpling:3/maki2:3/salmon:2/squid:2/wasabi:2/chopsticks:2"
                 "/pudding:3"}


def zero_sum_value(payoff) -> float:
  """The value of a zero-sum matrix game for the row player: the least u such that some column
  mixture y holds every row to payoff @ y <= u."""
  payoff = np.asarray(payoff, dtype=float)
  rows, columns = payoff.shape
  cost = np.r_[np.zeros(columns), 1.0]
  result = optimize.linprog(
      cost, A_ub=np.hstack([payoff, -np.ones((rows, 1))]), b_ub=np.zeros(rows),
      A_eq=np.r_[np.ones(columns), 0.0][None, :], b_eq=[1.0],
      bounds=[(0, None)] * columns + [(None, None)], method="highs")
  assert result.status == 0
  return result.fun


def brute_force_value(state, player: int) -> float:
  """The minimax value of the rest of a two-player zero-sum round (no chance inside it), by
  walking pyspiel states: each simultaneous node is a matrix game solved by OpenSpiel's LP."""
  if not state.is_simultaneous_node():
    return state.returns()[player]
  rows, columns = state.legal_actions(player), state.legal_actions(1 - player)
  payoff = []
  for mine in rows:
    line = []
    for theirs in columns:
      child = state.clone()
      child.apply_actions([mine, theirs] if player == 0 else [theirs, mine])
      line.append(brute_force_value(child, player))
    payoff.append(line)
  return zero_sum_value(payoff)


def settings(kind: str, game, **changes) -> world_solvers.Settings:
  defaults = world_solvers.Settings(
      kind=kind, exact_threshold=10, depth=0, rollouts=2, iterations=100,
      rollout_policy=rollouts.RandomPolicy(DYNAMICS),
      bandit_factory=selection.make_bandit_factory("ucb1", game.num_distinct_actions()))
  return defaults._replace(**changes)


def random_decision(game, seed: int):
  """The first simultaneous node of a random deal."""
  rng = random.Random(seed)
  return next(s for s in walk(game.new_initial_state(), rng) if s.is_simultaneous_node())


@pytest.mark.parametrize("hand_size,seed", [(2, 0), (2, 1), (2, 2), (3, 3), (3, 4)])
def test_exact_solver_equals_brute_force(hand_size, seed):
  game = load(players=2, rounds=1, hand_size=hand_size, utility="margin",
              deck="tempura:3/egg:2/salmon:2/squid:2/wasabi:2/maki3:2/dumpling:3")
  state = random_decision(game, seed)
  result = world_solvers.solve_world(game.rules, state.table(), 0, settings("exact", game),
                                     np.random.default_rng(0))
  value = sum(result.policy[a] * result.values[a] for a in result.values)
  assert value == pytest.approx(brute_force_value(state, 0), abs=1e-6)
  # Against the opponent's optimal strategy no action beats the game value.
  assert max(result.values.values()) == pytest.approx(value, abs=1e-6)


def test_exact_solver_in_the_last_round_of_a_longer_game():
  game = load(players=2, rounds=2, hand_size=2, utility="margin",
              deck="tempura:3/egg:2/salmon:2/squid:2/wasabi:2/pudding:3")
  rng = random.Random(5)
  state = next(s for s in walk(game.new_initial_state(), rng)
               if s.is_simultaneous_node() and s.table().round == 1)
  for player in (0, 1):
    result = world_solvers.solve_world(game.rules, state.table(), player,
                                       settings("exact", game), np.random.default_rng(0))
    value = sum(result.policy[a] * result.values[a] for a in result.values)
    assert value == pytest.approx(brute_force_value(state, player), abs=1e-6)


def test_pure_equilibrium_of_a_prisoners_dilemma_and_matching_pennies():
  # values[a0, a1, player]: defecting (1) is dominant for both.
  dilemma = np.array([[[3, 3], [0, 5]], [[5, 0], [1, 1]]], dtype=float)
  assert world_solvers._pure_equilibrium(dilemma) == (1, 1)
  # No pure equilibrium: the search stops after its 10 * 2 sweeps with the last profile. Worked
  # by hand: both players' uniform-mean start is action 0, so (0, 0); in each sweep player 0
  # then player 1 switch to their best reply: sweep 1 ends at (0, 1), sweep 2 passes through
  # (1, 1) to (1, 0), sweep 3 through (0, 0) to (0, 1), and so on: an even sweep ends at (1, 0).
  pennies = np.array([[[1, -1], [-1, 1]], [[-1, 1], [1, -1]]], dtype=float)
  profile = world_solvers._pure_equilibrium(pennies)
  assert profile == (1, 0)
  # Player 1 moved last, so it is on its best reply; player 0 is not (no equilibrium exists).
  assert pennies[profile[0], profile[1], 1] == pennies[profile[0], :, 1].max()
  assert pennies[profile[0], profile[1], 0] < pennies[:, profile[1], 0].max()


def obvious_position(players: int):
  """Player 0 holds Squid, Egg, Egg; everyone else three Eggs; one round. Taking the Squid is
  worth 3 points instead of 1, and passing Eggs only gives the next player an Egg."""
  game = load(players=players, rounds=1, hand_size=3, utility="margin",
              deck=f"squid:1/egg:{3 * players - 1}")
  state = game.new_initial_state()
  deal(state, [[SQ, EGG, EGG]] + [[EGG, EGG, EGG]] * (players - 1))
  return game, state


# Every world solver at every player count it accepts: `exact` is for two players, `maxn` for
# three or more (the refusals are tested below).
SOLVERS_BY_PLAYERS = [(players, solver) for players in (2, 3, 4, 5)
                      for solver in ("auto", "smmcts", "paranoid", "exact", "maxn")
                      if not (solver == "exact" and players != 2)
                      and not (solver == "maxn" and players == 2)]


@pytest.mark.parametrize("players,solver", SOLVERS_BY_PLAYERS)
def test_every_solver_finds_the_obvious_pick(players, solver):
  game, state = obvious_position(players)
  bot = PIMCBot(game, 0, seed=1, worlds=2, iterations=40, world_solver=solver)
  assert bot.step(state) == action_by_name(state, 0, SQ)


def test_a_wasabi_is_kept_for_the_squid_to_come():
  # Squid on the Wasabi and then the Salmon make 11 points; Salmon on it and then the Squid 9,
  # and leaving the Squid gives it to the opponent's free Wasabi. Tree search and SM-MCTS agree.
  game = load(players=2, rounds=1, hand_size=3, utility="margin", deck="wasabi:2/squid:1/salmon:3")
  state = game.new_initial_state()
  deal(state, [[W, SQ, SAL], [W, SAL, SAL]])
  state.apply_actions([action_by_name(state, 0, W), action_by_name(state, 1, W)])
  # Hands have passed: player 1 holds Squid and Salmon, with a free Wasabi in its tableau.
  for solver in ("exact", "smmcts"):
    bot = PIMCBot(game, 1, seed=2, worlds=2, iterations=40, world_solver=solver)
    assert bot.step(state) == action_by_name(state, 1, SQ)


@pytest.mark.parametrize("players", [2, 4])
def test_same_seed_same_decisions(players):
  game = load(players=players, **SMALL)
  state = random_decision(game, 7)
  for params in ({"world_solver": "smmcts"}, {}, {"final": "policy"}):
    first = PIMCBot(game, 1, seed=11, worlds=3, iterations=30, **params)
    second = PIMCBot(game, 1, seed=11, worlds=3, iterations=30, **params)
    assert [first.step_with_policy(state) for _ in range(3)] == \
        [second.step_with_policy(state) for _ in range(3)]


@pytest.mark.parametrize("players", [2, 3])
def test_hidden_cards_do_not_change_the_decision(players):
  # Redealing what player 0 has not seen must not change its policy for a fixed seed: the bot
  # reads only its player's information.
  game = load(players=players, **{**SMALL, "hand_size": 4})
  state = random_decision(game, 9)
  redealt = [state.resample_from_infostate(0, random.Random(k).random) for k in range(3)]
  assert any(r.table().hands != state.table().hands for r in redealt)
  for params in ({"world_solver": "smmcts"}, {}):
    policies = [PIMCBot(game, 0, seed=5, worlds=3, iterations=30, **params).get_policy(s)
                for s in [state] + redealt]
    assert all(policy == policies[0] for policy in policies)


@pytest.mark.parametrize("players,solvers", [
    (2, ["exact", "paranoid", "smmcts"]),
    (3, ["maxn", "paranoid", "smmcts"]),
    (4, ["maxn", "paranoid"]),
    (5, ["maxn", "smmcts"]),
])
def test_every_solver_plays_legal_games(players, solvers):
  game = load(players=players, **SMALL)
  for solver in solvers:
    bots = [PIMCBot(game, p, seed=p, worlds=2, iterations=20, rollouts=1, world_solver=solver)
            for p in range(players)]
    state, actions = play_with_bots(game, bots, seed=players)
    assert state.is_terminal() and len(actions) == 2


@pytest.mark.parametrize("players", [2, 3])
def test_turn_based_form(players):
  game = pyspiel.convert_to_turn_based(load(players=players, **SMALL))
  bots = [PIMCBot(game, p, seed=p, worlds=2, iterations=20) for p in range(players)]
  state, rng = game.new_initial_state(), random.Random(3)
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(outcomes, probabilities)[0])
    else:
      player = state.current_player()
      action = bots[player].step(state)
      assert action in state.legal_actions()
      with pytest.raises(ValueError, match="has no move here"):
        bots[(player + 1) % players].step(state)
      state.apply_action(action)


def test_variants_and_standard_deck():
  # A standard two-player game with the pass-both-ways and Soy Sauce variants under the win
  # utility (SM-MCTS, then the exact solver); whole-hand deals on a small deck with 3 players;
  # and a robot game, whose tree search meets the robot's draws as chance nodes.
  games = [load(players=2, rounds=2, pass_direction="alternate", soy_sauce=True, utility="win"),
           load(players=3, deal="hand", **{**SMALL, "rounds": 2}),
           load(players=2, rounds=1, robot=True, hand_size=3)]
  for seed, game in enumerate(games):
    bots = [PIMCBot(game, p, seed=p, worlds=1, iterations=10, rollouts=1)
            for p in range(game.num_players())]
    assert play_with_bots(game, bots, seed=seed)[0].is_terminal()


def test_time_budget_samples_worlds_until_the_time_is_up():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  state = opening(game, 0)
  bot = PIMCBot(game, 0, 0, seconds=0.3, iterations=20)
  start = time.perf_counter()
  bot.get_policy(state)
  assert bot.worlds_searched >= 2 and time.perf_counter() - start >= 0.3
  assert worlds_per_second(game, state, 0.1, 0, iterations=20) > 0


@pytest.mark.parametrize("params,message", [
    ({"world_solver": "minimax"}, "world_solver"),
    ({"final": "best"}, "final"),
    ({"worlds": 0}, "worlds"),
    ({"exact_threshold": -2}, "exact_threshold"),
    ({"rollout": "smart"}, "rollout policy"),
    ({"selection": "ucb2"}, "selection policy"),
    ({"colour": 1}, "unknown parameter"),
])
def test_bad_parameters_are_refused(params, message):
  with pytest.raises(ValueError, match=message):
    PIMCBot(load(players=2), 0, **params)


def test_solver_and_player_count_must_agree():
  with pytest.raises(ValueError, match="'exact' needs 2 players"):
    PIMCBot(load(players=3), 0, world_solver="exact")
  with pytest.raises(ValueError, match="'maxn' needs 3 or more"):
    PIMCBot(load(players=2), 0, world_solver="maxn")


# --------------------------------------------------------------------------------------------
# Strategy fusion on a constructed position

FUSION_DECK = "tempura:2/salmon:2/egg:1/wasabi:1"


def fusion_game():
  return load(players=2, rounds=1, hand_size=2, utility="margin", deck=FUSION_DECK)


def chance_leaves(state, probability=1.0):
  """Every deal of a `deal=card` game with its probability, by walking the chance nodes."""
  if not state.is_chance_node():
    yield state, probability
    return
  for outcome, p in state.chance_outcomes():
    child = state.clone()
    child.apply_action(outcome)
    yield from chance_leaves(child, probability * p)


def test_strategy_fusion_picks_a_worse_move():
  """Player 0 holds Tempura and Wasabi; the four unseen cards (Tempura, Egg, Salmon, Salmon)
  give player 1 one of four hands. Each player keeps one card and gets the other's second card.

  Worked by hand, player 0's margin (rows: keep Tempura, keep Wasabi; columns: player 1's pick):
    player 1 holds  probability  matrix              world value   PIMC's action values
    Salmon, Salmon  1/6          T: 0    W: 4        4 (W)         T 0,  W 4
    Egg, Salmon     2/6          [[1, -1], [5, 1]]   1 (W, S)      T -1, W 1
    Tempura, Salmon 2/6          [[2, 3], [1, -2]]   2 (T, T)      T 2,  W 1
    Tempura, Egg    1/6          [[1, 4], [-2, -1]]  1 (T, T)      T 1,  W -2
  PIMC averages T 0.5, W 1.0 and keeps the Wasabi. But in a world where player 0 keeps the
  Tempura, player 1's pick is the best reply to Tempura; player 0 cannot tell the worlds apart, so
  it cannot keep the Tempura in some and the Wasabi in others (strategy fusion). Committed to one
  card, against replies by player 1's own hand, Tempura guarantees (0 - 2 + 4 + 1) / 6 = 0.5 and
  Wasabi (4 + 2 - 4 - 2) / 6 = 0. The test checks the hand computation, then the true game: with
  player 0's choice for this hand fixed, the value of the whole game (every deal, both players
  seeing only their own hand) is lower with the Wasabi, by a brute-force normal-form LP.
  """
  game = fusion_game()
  rules = game.rules
  leaves = list(chance_leaves(game.new_initial_state()))
  tempura, wasabi = action_by_name(leaves[0][0], 0, T), action_by_name(leaves[0][0], 0, W)
  my_hand = tuple(int(card in (tempura, wasabi)) for card in range(len(rules.cards)))

  # PIMC's averaged values, with every world weighted by its probability.
  worlds = [(s, p) for s, p in leaves if s.table().hands[0] == my_hand]
  total = sum(p for _, p in worlds)
  pimc = dict.fromkeys((tempura, wasabi), 0.0)
  guaranteed = dict.fromkeys((tempura, wasabi), 0.0)
  for state, p in worlds:
    result = world_solvers.solve_world(rules, state.table(), 0, settings("exact", game),
                                       np.random.default_rng(0))
    for action in pimc:
      pimc[action] += p / total * result.values[action]
      guaranteed[action] += p / total * min(
          margin_after(state, action, reply) for reply in state.legal_actions(1))
  assert pimc[tempura] == pytest.approx(0.5) and pimc[wasabi] == pytest.approx(1.0)
  assert guaranteed[tempura] == pytest.approx(0.5) and guaranteed[wasabi] == pytest.approx(0.0)

  # The sampling bot makes the same choice.
  state = worlds[0][0]
  bot = PIMCBot(game, 0, seed=0, worlds=300, world_solver="exact")
  assert bot.step(state) == wasabi

  # The whole game, as a normal form: a pure strategy picks one card for each hand a player may
  # hold. Fixing player 0's pick for this hand, the game value is lower with the Wasabi.
  values = {action: restricted_game_value(leaves, my_hand, action) for action in pimc}
  assert values[wasabi] < values[tempura] - 0.05


def margin_after(state, mine: int, theirs: int) -> float:
  child = state.clone()
  child.apply_actions([mine, theirs])
  return child.returns()[0]


def restricted_game_value(leaves, fixed_hand, fixed_action) -> float:
  """The value for player 0 of the one-pick game over every deal, player 0 being bound to
  `fixed_action` when it holds `fixed_hand` (normal form solved by `zero_sum_value`)."""
  hands = [sorted({s.table().hands[p] for s, _ in leaves}) for p in (0, 1)]
  # Without Chopsticks in the deck, the legal picks are the cards in hand.
  picks = [[[card for card, count in enumerate(hand) if count] for hand in hands[p]]
           for p in (0, 1)]
  strategies = [list(itertools.product(*picks[p])) for p in (0, 1)]
  strategies[0] = [s for s in strategies[0] if s[hands[0].index(fixed_hand)] == fixed_action]
  payoff = np.zeros([len(strategies[0]), len(strategies[1])])
  for state, p in leaves:
    h0, h1 = (hands[q].index(state.table().hands[q]) for q in (0, 1))
    table = {}
    for i, s0 in enumerate(strategies[0]):
      for j, s1 in enumerate(strategies[1]):
        key = (s0[h0], s1[h1])
        if key not in table:
          table[key] = margin_after(state, *key)
        payoff[i, j] += p * table[key]
  return zero_sum_value(payoff)


def test_pimc_plays_sushi_draft_with_compiled_worlds_and_beats_random_play():
  """Sushi Draft's worlds are solved by the compiled SM-MCTS: 40 seeded 3-player games against
  two random bots, won outright clearly more often than chance (1/3)."""
  game = pyspiel.load_game("python_sushi_draft(players=3)")
  bot = PIMCBot(game, 0, 0, worlds=4, iterations=50)
  assert bot.settings.kind == "smmcts" and bot.sampler is not None
  wins = games_won(game, ("pimc", dict(worlds=4, iterations=50)), [("random", {})], 40, seed=5)
  assert wilson_lower_bound(wins, 40) > 1 / 3


@pytest.mark.parametrize("params, message", [
    (dict(engine="python"), "python_sushi_draft's worlds are solved in the compiled core only"),
    (dict(world_solver="exact"), "allowed in python_sushi_draft: smmcts"),
])
def test_pimc_refuses_tree_solvers_and_the_python_engine_in_sushi_draft(params, message):
  with pytest.raises(ValueError, match=message):
    PIMCBot(pyspiel.load_game("python_sushi_draft(players=3)"), 0, 0, **params)
