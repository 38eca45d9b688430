"""The compiled searches (solvers.search.kernels): the same statistics as the readable
Python searches when both draw from one stream, the same results in every process, observation
keys that partition steps as the rules' observations do, and clear refusals."""

import hashlib
import pickle
import random
import subprocess
import sys

import numba
import numpy as np
import pyspiel
import pytest

import solvers
from solvers.equilibrium import approximate
from solvers.search import rollouts, selection, world_solvers
from solvers.search.ismcts import MOISMCTSBot, SOISMCTSBot
from support import load, play_with_bots, random_playout
from solvers.equilibrium.kernels.features import VALUATION, valuation_of
from solvers.policy_kernels.sushi_go import game_functions
from solvers.search.kernels import smmcts
from solvers.search.kernels.bandits import Selection
from solvers.search.kernels.game import SearchGame
from solvers.search.kernels.playing import NO_POLICY, PlayoutPolicies
from solvers.search.kernels.searches import WorldSampler
from sushigo_spiel.compiled import CompiledSushiGo, Xoshiro256
from sushigo_spiel.compiled.interface import GAME
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.sushi_go import knowledge
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS

SMALL = dict(rounds=2, hand_size=4,
             deck="tempura:6/sashimi:6/squid:4/maki2:4/egg:4/pudding:3/chopsticks:3/wasabi:3")


def _table(game, seed: int, turn: int = 0):
  state = random_playout(game.new_initial_state(), random.Random(seed),
                         stop=lambda s: s.is_simultaneous_node() and s.table().turn == turn)
  return state.table()


def _statistics(bandit, actions: int):
  return ([bandit.visits(a) for a in range(actions)],
          [bandit._rewards[a] for a in range(actions)])  # pylint: disable=protected-access


@pytest.mark.parametrize("bot_class", [SOISMCTSBot, MOISMCTSBot], ids=["so", "mo"])
@pytest.mark.parametrize("selection_name, objective", [
    ("ucb1", "utility"), ("exp3", "utility"), ("regret_matching", "utility"), ("ucb1", "margin"),
    ("ucb1", "win")])
@pytest.mark.parametrize("players, turn", [(2, 0), (3, 1)])
def test_compiled_ismcts_keeps_the_python_statistics(bot_class, selection_name, objective,
                                                     players, turn):
  """Driven by one xoshiro stream, the compiled and the Python search visit, reward and choose
  alike: every root statistic is equal, to the last bit."""
  game = load(players=players, **SMALL)
  table = _table(game, seed=players + turn, turn=turn)
  params = dict(iterations=300, selection=selection_name, objective=objective)
  compiled = bot_class(game, 1, 11, engine="compiled", **params)
  python = bot_class(game, 1, 11, engine="python", **params)
  python._search.rng = Xoshiro256(python.stream_seed)  # pylint: disable=protected-access
  actions = game.num_distinct_actions()
  expected = _statistics(python.search_table(table), actions)
  assert sum(expected[0]) == 300
  assert _statistics(compiled.search_table(table), actions) == expected


@pytest.mark.parametrize("rollout", ["greedy", "heuristic"])
def test_compiled_ismcts_with_baseline_rollouts_keeps_the_python_statistics(rollout):
  """The baselines' kernels play the rollouts the Python policies play (the heuristic's with the
  default parameters the bots hand the search), so the statistics stay equal."""
  game = load(players=2, **SMALL)
  table = _table(game, seed=5)
  compiled = SOISMCTSBot(game, 0, 3, engine="compiled", iterations=120, rollout=rollout)
  python = SOISMCTSBot(game, 0, 3, engine="python", iterations=120, rollout=rollout)
  python._search.rng = Xoshiro256(python.stream_seed)  # pylint: disable=protected-access
  actions = game.num_distinct_actions()
  assert _statistics(compiled.search_table(table), actions) == \
      _statistics(python.search_table(table), actions)


def test_a_heuristic_opponent_model_runs_in_the_compiled_search():
  game = load(players=3, **SMALL)
  heuristics = [solvers.make_bot("heuristic", game, p, seed=p) for p in range(3)]
  model = approximate.opponent_model(heuristics)
  assert model.compiled.name == "heuristic"
  bot = SOISMCTSBot(game, 0, 1, opponent_model=model, engine="compiled", iterations=50,
                    prior="heuristic", bias=1.0)
  assert bot.engine == "compiled"
  table = _table(game, seed=2)
  policy = bot.policy_at(table)
  assert [a for a, _ in policy] == R.legal_actions(bot.rules, table, 0)
  tuned = [solvers.make_bot("heuristic", game, p, seed=p, deny_weight=0.5) for p in range(3)]
  tuned_model = approximate.opponent_model(tuned)
  assert tuned_model.compiled is None
  with pytest.raises(ValueError, match="the opponent model has no compiled policy"):
    SOISMCTSBot(game, 0, 1, opponent_model=tuned_model, engine="compiled")
  assert SOISMCTSBot(game, 0, 1, opponent_model=tuned_model).engine == "python"


@pytest.mark.parametrize("utility", ["margin", "win"])
def test_compiled_smmcts_worlds_keep_the_python_values(utility):
  """One world, the same stream: the compiled SM-MCTS gives the Python solver's values (under
  `utility=win` with the margin's tie-break)."""
  game = load(players=2, utility=utility, **SMALL)
  rules, table = game.rules, _table(game, seed=3, turn=1)
  search_game = SearchGame("python_sushi_go", rules)
  settings = smmcts.Settings(
      selection=Selection.named("ucb1", 0.7, 0.1),
      playout=PlayoutPolicies(search_game.policy_code("random"), 0.0, NO_POLICY, 0),
      players=2, searcher=0, iterations=150, from_scores=False, win=utility == "win",
      margin_scale=16.0,
      max_depth=game.max_game_length(), actions=game.num_distinct_actions())
  sampler = WorldSampler(search_game, settings, seed=5)
  value_sums, counts, policy_sums = sampler.sample(search_game.core.encode(table), 1, 0.0)
  stream = Xoshiro256(5)
  world = knowledge.determinize(rules, table, 0, stream.random)
  settings = world_solvers.Settings(
      kind="smmcts", exact_threshold=0, depth=0, rollouts=1, iterations=150,
      rollout_policy=rollouts.RandomPolicy(DYNAMICS),
      bandit_factory=selection.make_bandit_factory("ucb1", game.num_distinct_actions()))
  expected = world_solvers.SMMCTS(rules, settings, stream).solve(world, 0)
  assert {a: value_sums[a] for a in np.flatnonzero(counts)} == pytest.approx(expected.values,
                                                                            abs=1e-12)
  assert {a: policy_sums[a] for a in expected.policy} == pytest.approx(expected.policy)


_IN_A_PROCESS = """
import hashlib, random, sys
sys.path.insert(0, "tests")
import numpy as np
from support import load
from test_compiled_search import SMALL, _table
import solvers
game = load(players=3, **SMALL)
bot = solvers.make_bot("{name}", game, 2, seed=21, iterations=400, selection="exp3")
bandit = bot.search_table(_table(game, seed=8, turn=1))
print(hashlib.sha256(repr((bandit._visits, bandit._rewards)).encode()).hexdigest())
"""


@pytest.mark.parametrize("name", ["so_ismcts", "mo_ismcts"])
def test_a_seed_gives_the_same_statistics_in_another_process(name):
  game = load(players=3, **SMALL)
  bot = solvers.make_bot(name, game, 2, seed=21, iterations=400, selection="exp3")
  assert bot.engine == "compiled"
  bandit = bot.search_table(_table(game, seed=8, turn=1))
  here = hashlib.sha256(repr((bandit._visits, bandit._rewards)).encode()).hexdigest()
  there = subprocess.run([sys.executable, "-c", _IN_A_PROCESS.format(name=name)], check=True,
                         capture_output=True, text=True).stdout.split()[-1]
  assert here == there
  other = solvers.make_bot(name, game, 2, seed=22, iterations=400, selection="exp3")
  assert other.search_table(_table(game, seed=8, turn=1))._visits != bandit._visits


def test_observation_keys_partition_steps_as_observations_do():
  """From one position, many sampled steps: two steps' keys are equal exactly when the player's
  observations are."""
  for params in (dict(players=3, **SMALL), dict(players=2, robot=True, rounds=2, hand_size=3),
                 dict(players=2, rounds=2, hand_size=2, deck="tempura:2/squid:2/egg:2/pudding:2")):
    rules = R.Rules.from_params(**params)
    core = CompiledSushiGo(rules)
    key_kernel = core.kernels.observation_key
    rng, compared = random.Random(1), 0
    for seed in range(6):
      table = _table(pyspiel.load_game("python_sushi_go", params), seed, turn=seed % 2)
      if table.actor in (CHANCE, TERMINAL):
        continue
      seen = {}
      for _ in range(25):
        joint = [rng.choice(R.legal_actions(rules, table, p)) for p in range(rules.num_players)]
        after = R.skip_chance(rules, R.play(rules, table, joint), rng.random)
        for p in range(rules.num_players):
          key = key_kernel(core.spec, core.encode(table), np.array(joint), core.encode(after), p)
          seen.setdefault(p, []).append((knowledge.observation(rules, table, joint, after, p),
                                         key))
      for pairs in seen.values():
        for observation, key in pairs:
          for other_observation, other_key in pairs:
            assert (observation == other_observation) == (key == other_key)
            compared += 1
    assert compared > 1000


def test_priors_and_epsilon_rollouts_beat_random_play():
  game = load(players=2, utility="margin", **SMALL)
  margin = 0.0
  for seed in range(6):
    seat = seed % 2
    bots = [solvers.make_bot("random", game, p, seed=seed) for p in range(2)]
    bots[seat] = solvers.make_bot("so_ismcts", game, seat, seed=seed, iterations=150,
                                  prior="greedy", bias=1.0, rollout="greedy", epsilon=0.3)
    margin += play_with_bots(game, bots, seed)[0].returns()[seat]
  assert margin > 0


@pytest.mark.parametrize("params, message", [
    (dict(c=float("nan")), "'c' of SOISMCTSBot is nan; allowed: a finite number"),
    (dict(gamma=float("inf")), "'gamma' of SOISMCTSBot is inf; allowed: a finite number"),
    (dict(seconds=float("inf")), "'seconds' of SOISMCTSBot is inf; allowed: a finite number"),
    (dict(epsilon=1.5), "'epsilon' is 1.5; allowed: 0 <= epsilon <= 1"),
    (dict(bias=-1), "'bias' is -1; allowed: a number >= 0"),
    (dict(prior="greedy", selection="exp3"), "progressive bias is UCB1's"),
    (dict(prior="smart"), "no kernel for smart"),
    (dict(objective="points"), "'objective' is 'points'; allowed for SOISMCTSBot: auto, margin, win, utility"),
    (dict(clock="sundial"), "'clock' is 'sundial'; allowed: wall, cpu"),
])
def test_bad_search_parameters_are_refused(params, message):
  with pytest.raises(ValueError, match=message):
    solvers.make_bot("so_ismcts", load(players=2), 0, seed=0, engine="compiled", **params)


@pytest.mark.parametrize("objective", ["auto", "win"])
@pytest.mark.parametrize("bot_class", [SOISMCTSBot, MOISMCTSBot], ids=["so", "mo"])
def test_sushi_draft_searches_on_its_core_with_the_python_statistics(bot_class, objective):
  """Sushi Draft's core is registered for the searches: by default the bots search it compiled,
  and on one stream they keep the Python search's statistics to the last bit (playing for the
  win too, with the margin's tie-break)."""
  game = pyspiel.load_game("python_sushi_draft(players=3)")
  assert solvers.make_bot("mo_ismcts", game, 0, seed=0, iterations=20).engine == "compiled"
  state = random_playout(game.new_initial_state(), random.Random(3),
                         stop=lambda s: s.is_simultaneous_node() and s.table().turn == 2)
  compiled = bot_class(game, 1, 11, engine="compiled", iterations=300, objective=objective)
  python = bot_class(game, 1, 11, engine="python", iterations=300, objective=objective)
  python._search.rng = Xoshiro256(python.stream_seed)  # pylint: disable=protected-access
  actions = game.num_distinct_actions()
  expected = _statistics(python.search_table(state.table()), actions)
  assert sum(expected[0]) == 300
  assert _statistics(compiled.search_table(state.table()), actions) == expected


def test_kernel_tuples_carry_the_type_numba_would_give_them():
  """The `GAME` and `VALUATION` tuples are typed once (`interface.TypedTuple`): the type they
  carry is the one numba infers for the same items, they survive pickling, and parameters that
  are not a vector are refused."""
  game = game_functions(np.ones(4, dtype=np.float32))
  valuation = valuation_of(np.ones(3))
  for table, declared in ((game, GAME), (valuation, VALUATION)):
    assert numba.typeof(table) == declared == numba.typeof(tuple(table))
    copy = pickle.loads(pickle.dumps(table))
    assert numba.typeof(copy) == declared and copy[-1].tolist() == table[-1].tolist()
  assert game[-1].dtype == np.float64  # made a float64 vector, as the type says
  with pytest.raises(ValueError, match="allowed: a vector of numbers"):
    game_functions(np.zeros((2, 2)))
