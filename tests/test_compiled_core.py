"""Sushi Go's compiled core plays the games of the readable rules, step for step.

Each game is played through both in lockstep (`lockstep`: one random stream drives both, and
every step is compared, the decoded position against the rules' table with round points, Puddings
and the log included; every player's determinization at 15% of the positions, 1% in the 400-game
run).
`test_core_plays_the_rules_games` runs 50 games per configuration; the `slow` one 400.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from solvers import baselines
from solvers.policy_kernels.checked import SushiGoPolicies
from solvers.search import rollouts
from sushigo_spiel.compiled import CompiledSushiGo, Xoshiro256, new_state
from sushigo_spiel.compiled.sushi_go import moves, views
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from lockstep import Lockstep, play_games

# Chopsticks with Wasabi and every Nigiri, so reversed pairs are legal, plus Maki and Pudding.
CHOPSTICKS_DECK = ("chopsticks:4/wasabi:4/egg:3/salmon:3/squid:3/tempura:4/sashimi:4/dumpling:4"
                   "/maki1:2/maki2:3/maki3:2/pudding:5")
# Small enough for deal=hand to list every hand at a chance node.
SMALL_DECK = "chopsticks:3/wasabi:3/egg:2/salmon:2/squid:3/tempura:3/maki2:3/pudding:3"

CONFIGS = {
    "2p-standard": dict(players=2),
    "3p-standard-alternate-margin": dict(players=3, pass_direction="alternate", utility="margin"),
    "4p-standard-right-win": dict(players=4, pass_direction="right", utility="win"),
    "5p-standard-soy-alternate": dict(players=5, soy_sauce=True, pass_direction="alternate"),
    "2p-chopsticks-win": dict(players=2, hand_size=6, deck=CHOPSTICKS_DECK, utility="win"),
    "3p-chopsticks-soy-right-margin": dict(players=3, hand_size=5, rounds=2, deck=CHOPSTICKS_DECK,
                                           soy_sauce=True, soy_sauce_count=3,
                                           pass_direction="right", utility="margin"),
    "4p-chopsticks-alternate": dict(players=4, hand_size=4, rounds=2, deck=CHOPSTICKS_DECK,
                                    pass_direction="alternate"),
    "5p-chopsticks-soy-win": dict(players=5, hand_size=3, rounds=2, deck=CHOPSTICKS_DECK,
                                  soy_sauce=True, utility="win"),
    "2p-hand-margin": dict(players=2, deal="hand", hand_size=4, rounds=2, deck=SMALL_DECK,
                           utility="margin"),
    "3p-hand-soy-alternate": dict(players=3, deal="hand", hand_size=3, rounds=2, deck=SMALL_DECK,
                                  soy_sauce=True, soy_sauce_count=2, pass_direction="alternate"),
    "4p-hand-right-win": dict(players=4, deal="hand", hand_size=3, rounds=1, deck=SMALL_DECK,
                              pass_direction="right", utility="win"),
    "5p-hand-margin": dict(players=5, deal="hand", hand_size=2, rounds=2, deck=SMALL_DECK,
                           utility="margin"),
    "2p-standard-hand": dict(players=2, deal="hand"),
    "robot-standard": dict(robot=True),
    "robot-chopsticks-soy-alternate-win": dict(robot=True, hand_size=4, deck=CHOPSTICKS_DECK,
                                               soy_sauce=True, pass_direction="alternate",
                                               utility="win"),
    "robot-hand-margin": dict(robot=True, deal="hand", hand_size=3, rounds=2, deck=SMALL_DECK,
                              utility="margin"),
}


@pytest.fixture(scope="module")
def cores():
  return {}


def _core(cores, name: str) -> CompiledSushiGo:
  if name not in cores:
    cores[name] = CompiledSushiGo.from_params(**CONFIGS[name])
  return cores[name]


@pytest.mark.parametrize("name", CONFIGS)
def test_core_plays_the_rules_games(cores, name):
  play_games(_core(cores, name), DYNAMICS, 50)


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGS)
def test_core_plays_the_rules_games_400_per_configuration(cores, name):
  # Determinizations at 1% of the positions here (hundreds per configuration): the 50-game run
  # compares them at 15%, and their distribution is checked exactly on its own.
  play_games(_core(cores, name), DYNAMICS, 400, determinize_share=0.01)


def test_the_configurations_reach_what_they_are_for(cores):
  # Reversed Chopsticks pairs, robot actions and Soy Sauce all occur in the games played above.
  compiled = _core(cores, "2p-chopsticks-win")
  reversed_pairs = {a for (x, y), a in compiled.rules.pair_actions.items() if x > y}
  robot = _core(cores, "robot-chopsticks-soy-alternate-win")
  seen, robot_seen, soy_points = set(), set(), 0
  for seed in range(50):
    for lockstep, found in ((Lockstep(compiled, DYNAMICS, seed), seen),
                            (Lockstep(robot, DYNAMICS, seed), robot_seen)):
      while lockstep.table.actor != TERMINAL:
        if lockstep.table.actor == CHANCE:
          lockstep.chance_step(False)
        else:
          for p in range(lockstep.rules.num_players):
            found.update(R.legal_actions(lockstep.rules, lockstep.table, p))
          lockstep.simultaneous_step()
      if lockstep.rules.soy_sauce:
        soy_points += sum(b[-1] for r in lockstep.table.results for b in r.breakdown)
  assert seen & reversed_pairs
  assert max(robot_seen) >= robot.rules.robot_actions and soy_points > 0


@pytest.mark.parametrize("name", ["2p-chopsticks-win", "robot-chopsticks-soy-alternate-win"])
def test_logged_action_reads_back_every_joint_action_played(cores, name):
  # Determinization replays a round through `play` from the actions its log gives back.
  compiled = _core(cores, name)
  spec, n, kernels = compiled.spec, compiled.num_players, compiled.kernels
  rng, legal = new_state(3), np.empty(compiled.rules.num_distinct_actions, dtype=np.int64)
  played = set()
  for _ in range(20):
    pos = kernels.initial_position(spec)
    kernels.skip_chance(spec, pos, rng)
    while pos[0] != TERMINAL:
      actions = np.array([kernels.random_action(spec, pos, p, rng, legal) for p in range(n)])
      turn = views.turn_index(spec, pos)
      kernels.play(spec, pos, actions)
      assert [moves.logged_action(spec, pos, turn, p) for p in range(n)] == actions.tolist()
      played.update(actions.tolist())
      kernels.skip_chance(spec, pos, rng)
  # Chopsticks pairs (after the single cards' ids), and the robot's actions where it plays.
  first_special = compiled.rules.robot_actions if compiled.rules.robot else compiled.rules.num_types
  assert max(played) >= first_special


# --------------------------------------------------------------------------------------------
# Playouts and the greedy policy


@pytest.mark.parametrize("params", [dict(players=2), dict(players=5, soy_sauce=True),
                                    dict(robot=True, utility="win"),
                                    dict(players=3, deck=CHOPSTICKS_DECK, hand_size=4,
                                         deal="hand", utility="margin")])
def test_playout_many_plays_the_python_engines_random_playouts(params):
  compiled = CompiledSushiGo.from_params(**params)
  rules, games = compiled.rules, 100
  stream = Xoshiro256(7)
  policy = rollouts.RandomPolicy(DYNAMICS)
  expected = [rollouts.rollout(DYNAMICS, rules, R.initial_table(rules),
                               [policy] * rules.num_players, stream.random)
              for _ in range(games)]
  assert compiled.playout_many(games, 7).tolist() == expected


@pytest.mark.parametrize("params", [dict(players=2), dict(players=4, soy_sauce=True),
                                    dict(players=3, hand_size=6, rounds=2, deck=CHOPSTICKS_DECK),
                                    dict(robot=True, soy_sauce=True)])
def test_greedy_action_is_the_greedy_bots_choice_at_every_decision(params):
  compiled = CompiledSushiGo.from_params(**params)
  game = pyspiel.load_game("python_sushi_go", params)
  bot, rules = baselines.GreedyBot(game, 0), compiled.rules
  kernels = SushiGoPolicies(compiled)
  decisions = 0
  for seed in range(40):
    lockstep = Lockstep(compiled, DYNAMICS, seed)
    while lockstep.table.actor != TERMINAL:
      if lockstep.table.actor == CHANCE:
        lockstep.chance_step(False)
        continue
      for player in range(rules.num_players):
        policy = bot.policy(baselines.table_view(rules, lockstep.table, player))
        best = next(action for action, probability in policy if probability == 1.0)
        assert kernels.greedy_action(lockstep.pos, player) == best, (seed, player)
        decisions += 1
      lockstep.simultaneous_step()
  assert decisions > 500


def test_a_greedy_playout_ends_the_game():
  compiled = CompiledSushiGo.from_params(players=3, soy_sauce=True)
  pos = compiled.initial_position()
  returns = SushiGoPolicies(compiled).playout(pos, new_state(3), policy="greedy")
  assert compiled.actor(pos) == TERMINAL
  assert returns.tolist() == compiled.returns(pos).tolist() != [0.0, 0.0, 0.0]


# --------------------------------------------------------------------------------------------
# The random stream


def test_the_stream_is_xoshiro256_starstar():
  # The reference outputs of xoshiro256** from the state (1, 2, 3, 4), as doubles.
  stream = Xoshiro256(0)
  stream.words = [1, 2, 3, 4]
  outputs = [11520, 0, 1509978240, 1215971899390074240]
  assert [stream.random() for _ in outputs] == [(x >> 11) * 2.0 ** -53 for x in outputs]


def test_the_kernel_stream_and_the_python_stream_agree():
  from sushigo_spiel.compiled.rng import next_double
  for seed in (0, 1, 2 ** 64 - 1):
    python, kernel = Xoshiro256(seed), new_state(seed)
    assert [python.random() for _ in range(1000)] == [next_double(kernel) for _ in range(1000)]
    assert np.array_equal(kernel, python.state())


# --------------------------------------------------------------------------------------------
# Checked input and errors


def test_parameters_are_checked_by_the_rules_before_the_core_sees_them():
  with pytest.raises(ValueError, match="parameter 'players'"):
    CompiledSushiGo.from_params(players=6)
  with pytest.raises(ValueError, match="parameter 'robot'"):
    CompiledSushiGo.from_params(players=3, robot=True)


def test_illegal_actions_and_impossible_outcomes_raise():
  compiled = CompiledSushiGo.from_params(players=2, deck="tempura:10/sashimi:50")
  pos = compiled.initial_position()
  with pytest.raises(ValueError, match="not possible"):
    compiled.apply_chance(pos, 5)
  with pytest.raises(ValueError, match="actor is -1"):
    compiled.play(pos, [0, 0])
  compiled.skip_chance(pos, new_state(0))
  legal = compiled.legal_action_list(pos, 0)
  with pytest.raises(ValueError, match="player 1 cannot play action 7"):
    compiled.play(pos, [legal[0], 7])
  with pytest.raises(ValueError, match="expected 2 actions"):
    compiled.play(pos, [legal[0]])


def test_impossible_hands_raise_when_dealing_by_hand():
  compiled = CompiledSushiGo.from_params(players=2, rounds=1, hand_size=2, deal="hand",
                                         deck="tempura:3/sashimi:3")
  pos = compiled.initial_position()
  two_tempura = compiled.rules.hand_ranking.rank((2, 0))
  compiled.apply_chance(pos, two_tempura)
  for impossible in (two_tempura, compiled.rules.hand_ranking.size, -1):
    with pytest.raises(ValueError, match="not possible"):
      compiled.apply_chance(pos, impossible)
