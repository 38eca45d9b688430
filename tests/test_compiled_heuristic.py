"""The compiled heuristic (`solvers/policy_kernels/heuristic.py`) is `baselines.HeuristicBot`,
decision for decision.

Games are played on the rules' tables from a seed, each player taking the heuristic's choice or a
uniformly random action: never, half of the time or always, by game (so that the positions the bot
reaches come up, and odd ones too: a Soy Sauce the bot would have taken at once, late in a round).
At every decision of every player, for several parameter sets of the bot, the kernels are compared
with the Python bot: the legal actions, every action's value, the policy and the chosen action,
all exactly (the kernels do every floating-point operation in the bot's order, so they agree to
the last bit, and the choice agrees wherever values tie); and what the player knows (the hands it
knows and the unseen pool) against `knowledge.knowledge`. The arithmetic helpers are compared with
CPython's on random inputs, rollouts with the heuristic policies with the Python rollouts on one
random stream. `test_the_compiled_heuristic_is_the_python_bot` plays 30 games per configuration;
the `slow` one 40 more.
"""

from __future__ import annotations

import functools
import random

import numba
import numpy as np
import pyspiel
import pytest

from solvers import baselines
from solvers.policy_kernels import heuristic
from solvers.policy_kernels import sushi_go as policies
from solvers.policy_kernels.checked import SushiGoPolicies
from solvers.search import rollouts
from sushigo_spiel.compiled import CompiledSushiGo, Xoshiro256, new_state
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.sushi_go import knowledge
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from test_compiled_core import CHOPSTICKS_DECK

# Small enough for deal=hand; CHOPSTICKS_DECK makes reversed Chopsticks pairs legal.
SMALL_DECK = "chopsticks:3/wasabi:3/egg:2/salmon:2/squid:3/tempura:3/maki2:3/pudding:3/dumpling:2"

CONFIGS = {
    "2p": dict(players=2),
    "3p": dict(players=3),
    "4p": dict(players=4),
    "5p": dict(players=5),
    "3p-soy": dict(players=3, soy_sauce=True),
    "5p-soy-alternate": dict(players=5, soy_sauce=True, pass_direction="alternate"),
    "4p-right": dict(players=4, pass_direction="right"),
    "2p-alternate": dict(players=2, pass_direction="alternate"),
    "robot": dict(robot=True),
    "robot-soy-alternate": dict(robot=True, soy_sauce=True, pass_direction="alternate"),
    "3p-chopsticks": dict(players=3, hand_size=6, rounds=2, deck=CHOPSTICKS_DECK),
    "2p-hand-small": dict(players=2, deal="hand", hand_size=5, rounds=2, deck=SMALL_DECK),
    "4p-hand-small-soy": dict(players=4, deal="hand", hand_size=3, rounds=2, deck=SMALL_DECK,
                              soy_sauce=True, soy_sauce_count=2),
    "robot-hand-small": dict(robot=True, deal="hand", hand_size=4, rounds=2, deck=SMALL_DECK),
}
PARAMETER_SETS = {
    "default": {},
    "softmax": dict(temperature=0.5),
    "tuned, hot": dict(temperature=4.0, set_weight=0.8, dumpling_curve=0.45, wasabi_weight=0.9,
                       wasabi_patience=0.3, maki_weight=1.3, maki_pace=1.7, pudding_weight=0.6,
                       pudding_pace=0.9, chopsticks_weight=1.1, deny_weight=0.55,
                       soy_sauce_lead=0.4),
    "weights at 0": {name: 0.0 for name in baselines.HeuristicBot.WEIGHTS},
}
RANDOM_SHARES = (0.0, 0.5, 1.0)  # of the decisions where a game goes on with a random action


@functools.cache
def _core(name: str) -> CompiledSushiGo:
  return CompiledSushiGo.from_params(**CONFIGS[name])


def _bot(params: dict, game_params: dict, **overrides) -> baselines.HeuristicBot:
  game = pyspiel.load_game("python_sushi_go", game_params)
  return baselines.HeuristicBot(game, 0, **{**params, **overrides})


def decisions(compiled: CompiledSushiGo, seed: int):
  """Yields (position, table, player) at every decision of a seeded game (the game goes on with
  the heuristic's choices and random actions)."""
  rules = compiled.rules
  rng = random.Random(seed)
  random_share = RANDOM_SHARES[seed % len(RANDOM_SHARES)]
  params = heuristic.parameters(baselines.HeuristicBot.WEIGHTS)
  kernels = SushiGoPolicies(compiled)
  table = R.initial_table(rules)
  while table.actor != TERMINAL:
    if table.actor == CHANCE:
      table = R.skip_chance(rules, table, rng.random)
      continue
    pos = compiled.encode(table)
    joint = []
    for player in range(rules.num_players):
      yield pos, table, player
      legal = R.legal_actions(rules, table, player)
      joint.append(rng.choice(legal) if rng.random() < random_share
                   else kernels.heuristic_action(pos, player, params))
    table = R.play(rules, table, joint)


class Checker:
  """Compares the kernels with the Python bot at decisions, for every parameter set."""

  def __init__(self, compiled: CompiledSushiGo, game_params: dict):
    self.core, self.kernels, self.rules = compiled, SushiGoPolicies(compiled), compiled.rules
    self.bots = [_bot(params, game_params) for params in PARAMETER_SETS.values()]
    self.arrays = [heuristic.parameters(bot.weights) for bot in self.bots]
    size = self.rules.num_distinct_actions
    self.legal, self.values = np.empty(size, dtype=np.int64), np.empty(size)

  def check(self, pos: np.ndarray, table: R.Table, player: int) -> None:
    view = baselines.table_view(self.rules, table, player)
    self.check_knowledge(pos, table, player)
    for bot, params in zip(self.bots, self.arrays):
      valuer = baselines._Valuer(view, bot.params)
      expected = [valuer.action_value(action) for action in view.legal_actions]
      assert self.compiled_values(pos, player, params) == (list(view.legal_actions), expected)
      assert self.kernels.heuristic_policy(pos, player, params) == bot.policy(view)
      best = baselines.one_hot_best(dict(zip(view.legal_actions, expected)))
      assert self.kernels.heuristic_action(pos, player, params) == max(best, key=lambda e: e[1])[0]

  def compiled_values(self, pos: np.ndarray, player: int, params: np.ndarray):
    count = heuristic.heuristic_values(self.core.spec, pos, player, params, self.legal,
                                       self.values)
    return self.legal[:count].tolist(), self.values[:count].tolist()

  def check_knowledge(self, pos: np.ndarray, table: R.Table, player: int) -> None:
    knows = knowledge.knowledge(self.rules, table, player)
    spec = self.core.spec
    holders = [h for h in range(self.rules.num_players)
               if h != player and heuristic.knows_hand(spec, pos, player, h)]
    assert holders == [holder for holder, _ in knows.seen]
    known = np.isin(np.arange(self.rules.num_players), holders)
    assert heuristic.unseen_cards(spec, pos, player, known).tolist() == list(knows.unseen)


FAST_GAMES = 30  # games 0..29 per configuration in the default run; the slow run checks 30..69


def _compare_games(compiled: CompiledSushiGo, name: str, seeds: range) -> int:
  checker = Checker(compiled, CONFIGS[name])
  count = 0
  for seed in seeds:
    for pos, table, player in decisions(compiled, seed):
      checker.check(pos, table, player)
      count += 1
  return count


@pytest.mark.parametrize("name", CONFIGS)
def test_the_compiled_heuristic_is_the_python_bot(name):
  assert _compare_games(_core(name), name, range(FAST_GAMES)) > 60


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGS)
def test_the_compiled_heuristic_is_the_python_bot_in_70_games_per_configuration(name):
  """The games after the default run's, so that the two runs together compare 70."""
  assert _compare_games(_core(name), name, range(FAST_GAMES, 70)) > 80


@pytest.mark.parametrize("name", ["2p", "5p-soy-alternate", "robot", "3p-chopsticks"])
def test_every_term_of_the_valuation_is_compared(name):
  # Changing any one parameter on the compiled side alone changes some compared value, so the
  # positions played above reach every term the parameters weigh.
  compiled = _core(name)
  checker = Checker(compiled, CONFIGS[name])
  changed = {}
  samples = [decision for seed in range(8) for decision in decisions(compiled, seed)]
  for index, parameter in enumerate(heuristic.PARAMETER_NAMES[:heuristic.TEMPERATURE]):
    params = heuristic.parameters(baselines.HeuristicBot.WEIGHTS)
    params[index] -= 0.5
    default = heuristic.parameters(baselines.HeuristicBot.WEIGHTS)
    changed[parameter] = any(checker.compiled_values(pos, player, params)
                             != checker.compiled_values(pos, player, default)
                             for pos, _, player in samples)
  expected = {parameter: True for parameter in changed}
  if not compiled.rules.soy_sauce:
    expected["soy_sauce_lead"] = False
  assert changed == expected


@numba.njit
def _squares(bases, out):
  for i in range(len(bases)):
    out[i] = heuristic._c_pow(bases[i], 2.0)


def test_the_arithmetic_is_cpythons():
  rng = random.Random(3)
  bases = [rng.random() * 3 for _ in range(20_000)]
  assert sum(x ** 2 != x * x for x in bases) > 5  # the case `_c_pow` is for
  squares = np.empty(len(bases))
  _squares(np.array(bases), squares)
  assert squares.tolist() == [x ** 2 for x in bases]
  for _ in range(2000):
    values = [rng.random() * 10 ** rng.randint(-8, 8) for _ in range(rng.randint(0, 9))]
    assert heuristic._python_sum(np.array(values, dtype=np.float64)) == sum(values)
    probabilities, count = [v % 1.0 for v in values], rng.randint(0, 4)
    assert heuristic._at_least(np.array(probabilities, dtype=np.float64), count) == \
        baselines._at_least(probabilities, count)
    difference, variance = rng.randint(-12, 12), rng.uniform(0.25, 40)
    assert heuristic._normal_above(difference, variance) == \
        baselines._normal_above(difference, variance)
  for cards in range(12):
    for copies in range(cards + 1):
      for removed in range(cards + 1):
        assert heuristic._survives(copies, cards, removed) == \
            baselines._survives(copies, cards, removed)


# --------------------------------------------------------------------------------------------
# Rollouts


class EpsilonHeuristic:
  """The `heuristic_eps` rollout policy in Python: one uniform, below epsilon a random action,
  else the heuristic's."""

  def __init__(self, game: pyspiel.Game, epsilon: float):
    self.random = rollouts.RandomPolicy(DYNAMICS)
    self.heuristic = rollouts.make_rollout_policy("heuristic", game)
    self.epsilon = epsilon

  def __call__(self, rules, table, player: int, uniform) -> int:
    if uniform() < self.epsilon:
      return self.random(rules, table, player, uniform)
    return self.heuristic(rules, table, player, uniform)


@pytest.mark.parametrize("game_params", [dict(players=2), dict(players=4, soy_sauce=True),
                                         dict(robot=True, pass_direction="alternate")])
@pytest.mark.parametrize("policy", ["heuristic", "softmax", "heuristic_eps"])
def test_heuristic_playouts_are_the_python_rollouts(game_params, policy):
  compiled = CompiledSushiGo.from_params(**game_params)
  game = pyspiel.load_game("python_sushi_go", game_params)
  if policy == "heuristic_eps":
    python_policy = EpsilonHeuristic(game, 0.3)
    params = heuristic.parameters(baselines.HeuristicBot.WEIGHTS, epsilon=0.3)
  else:
    bot = _bot(PARAMETER_SETS["softmax" if policy == "softmax" else "default"], game_params)
    python_policy = rollouts.BaselinePolicy(bot)
    params = heuristic.parameters(bot.weights)
  rules, games, stream = compiled.rules, 12, Xoshiro256(11)
  expected = [rollouts.rollout(DYNAMICS, rules, R.initial_table(rules),
                               [python_policy] * rules.num_players, stream.random)
              for _ in range(games)]
  code = "heuristic_eps" if policy == "heuristic_eps" else "heuristic"
  assert SushiGoPolicies(compiled).playout_many(games, 11, code, params).tolist() == expected


def test_make_rollout_policy_hands_out_the_compiled_policy():
  game_params = dict(players=3, soy_sauce=True)
  compiled = CompiledSushiGo.from_params(**game_params)
  game = pyspiel.load_game("python_sushi_go", game_params)
  rules = compiled.rules
  for name, code in (("heuristic", policies.HEURISTIC), ("greedy", policies.GREEDY)):
    python_policy = rollouts.make_rollout_policy(name, game)
    assert python_policy.compiled_policy == name
    compiled_code, params = policies.POLICIES[name], python_policy.compiled_parameters()
    assert compiled_code == code
    stream = Xoshiro256(5)
    expected = [rollouts.rollout(DYNAMICS, rules, R.initial_table(rules),
                                 [python_policy] * rules.num_players, stream.random)
                for _ in range(6)]
    out = np.zeros((6, rules.num_players))
    policies.playout_many(compiled.spec, 6, 5, compiled_code, params, out, policies.PLAYING)
    assert out.tolist() == expected
  with pytest.raises(ValueError, match="no compiled policy"):
    rollouts.BaselinePolicy(baselines.RandomBot(game, 0)).compiled_parameters()
  tuned = baselines.HeuristicBot(game, 0, deny_weight=0.5)
  assert rollouts.BaselinePolicy(tuned).compiled_policy is None  # the searches' array: defaults


def test_a_pure_heuristic_draws_no_uniform_and_a_mixed_one_draws_one_per_decision():
  compiled = CompiledSushiGo.from_params(players=2)
  params = heuristic.parameters(baselines.HeuristicBot.WEIGHTS)
  pos = compiled.initial_position()
  rng = new_state(2)
  compiled.skip_chance(pos, rng)
  legal = np.empty(compiled.rules.num_distinct_actions, dtype=np.int64)
  for temperature, draws in ((0.0, 0), (1.0, 1)):
    params[heuristic.TEMPERATURE] = temperature
    stream = rng.copy()
    heuristic.rollout_action(compiled.spec, pos, 0, params, stream, legal)
    python = Xoshiro256(0)
    python.words = rng.tolist()
    for _ in range(draws):
      python.random()
    assert stream.tolist() == python.state().tolist()


@pytest.mark.parametrize("players", [2, 4])
def test_round_values_are_the_plays_of_play_round_added_in_order(players):
  # The luck's values in one call: the same stream, the same points, the same last bit as one
  # play_round and one scores call per play, a redeal by skip_chance first when asked.
  kernels = SushiGoPolicies.from_params(players=players)
  core = kernels.core
  codes, params = kernels.joint_codes(["heuristic", "random", "greedy", "heuristic"][:players],
                                      heuristic.parameters(baselines.HeuristicBot.WEIGHTS))
  rng = new_state(4)
  before = core.initial_position()
  dealt = before.copy()
  core.skip_chance(dealt, rng)
  for pos, redeal in ((dealt, False), (before, True)):
    stream, total = rng.copy(), np.zeros(players)
    for _ in range(5):
      child = pos.copy()
      if redeal:
        core.skip_chance(child, stream)
      kernels.play_round_coded(child, stream, codes, params)
      total += core.scores(child)
    kernel_stream = rng.copy()
    values = kernels.round_values(pos, kernel_stream, codes, params, 5, redeal)
    assert values.tolist() == (total / 5).tolist() and values.any()
    assert kernel_stream.tolist() == stream.tolist()
  with pytest.raises(ValueError, match="plays = 0"):
    kernels.round_values(dealt, rng, codes, params, 0)
  with pytest.raises(ValueError, match="a redeal asked at a node whose actor"):
    kernels.round_values(dealt, rng, codes, params, 1, redeal=True)


# --------------------------------------------------------------------------------------------
# Parameters and checked input


def test_the_parameter_array_follows_the_bots_parameters():
  assert heuristic.PARAMETER_NAMES == tuple(baselines.HeuristicBot.WEIGHTS)
  params = heuristic.parameters({**baselines.HeuristicBot.WEIGHTS, "deny_weight": 0.7}, 0.2)
  assert params[heuristic.DENY_WEIGHT] == 0.7 and params[heuristic.EPSILON] == 0.2
  assert len(params) == heuristic.PARAMETERS_SIZE
  with pytest.raises(ValueError, match="exactly the names"):
    heuristic.parameters({"set_weight": 1.0})
  with pytest.raises(ValueError, match="epsilon is 1.5"):
    heuristic.parameters(baselines.HeuristicBot.WEIGHTS, 1.5)


def test_the_core_checks_where_and_with_what_the_heuristic_is_asked():
  kernels = SushiGoPolicies.from_params(players=2)
  params = heuristic.parameters(baselines.HeuristicBot.WEIGHTS)
  pos = kernels.core.initial_position()
  with pytest.raises(ValueError, match="actor is -1"):
    kernels.heuristic_action(pos, 0, params)
  kernels.core.skip_chance(pos, new_state(0))
  with pytest.raises(ValueError, match="heuristic.parameters"):
    kernels.heuristic_policy(pos, 0, params[:-1])
  with pytest.raises(ValueError, match="heuristic.parameters"):
    kernels.playout(pos, new_state(0), "heuristic")
  with pytest.raises(ValueError, match="rollout policy 'smart' is unknown"):
    kernels.playout(pos, new_state(0), "smart")
  with pytest.raises(ValueError, match="expected 2 actions, one per player"):
    kernels.play_round(pos, new_state(0), ["greedy"])
