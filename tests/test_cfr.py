"""Tests of the CFR solvers: convergence, equality with OpenSpiel's solvers, MCCFR determinism, and
the lossless abstraction's exploitability against the identity's."""

from __future__ import annotations

import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as openspiel_cfr
from open_spiel.python.algorithms import discounted_cfr

import sushigo_spiel  # noqa: F401  (registers the game)
from solvers.equilibrium import abstraction as A
from experiments.bench import cfr as cfr_bench
from solvers.equilibrium import cfr, mccfr
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.exploitability import nash_conv
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from sushigo_spiel.reduced_games import reduced_game_string

# One round of three cards each: 385 turn-based histories, 136 information sets.
TINY = ("python_sushi_go(players=2,rounds=1,hand_size=3,deal=hand,utility=margin,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1)")
# Four cards each: the same position is reached by picks in different orders.
FOUR_CARDS = ("python_sushi_go(players=2,rounds=1,hand_size=4,deal=hand,utility=margin,"
              "deck=tempura:3/sashimi:3/squid:1/wasabi:1)")
# Two rounds of two cards: the second round starts from many first rounds.
TWO_ROUNDS = ("python_sushi_go(players=2,rounds=2,hand_size=2,deal=hand,utility=margin,"
              "deck=tempura:3/sashimi:3/squid:1/wasabi:1)")


@pytest.fixture(scope="module")
def tiny():
  game = pyspiel.load_game(TINY)
  return game, GameTree(game)


def test_cfr_plus_reaches_nash_conv_below_1e3(tiny):
  game, tree = tiny
  solver = cfr.CFRPlus(game, A.Identity(game.dynamics), tree).run(iterations=1000)
  assert nash_conv(tree, solver.average_policy_array()).nash_conv < 1e-3
  uniform = nash_conv(tree, tree.uniform_policy()).nash_conv
  assert uniform > 1.0  # the bound above is not met by doing nothing


@pytest.mark.parametrize("ours, theirs", [
    (cfr.CFR, openspiel_cfr.CFRSolver),
    (cfr.CFRPlus, openspiel_cfr.CFRPlusSolver),
    (cfr.DiscountedCFR, discounted_cfr.DCFRSolver),
])
def test_average_policy_equals_openspiel_after_same_iterations(tiny, ours, theirs):
  game, tree = tiny
  solver = ours(game, A.Identity(game.dynamics), tree)
  reference = theirs(tree.turn_based_game)
  for _ in range(12):
    solver.run(iterations=1)
    reference.evaluate_and_update_policy()
  expected = policy_array(tree, reference.average_policy())
  np.testing.assert_allclose(solver.average_policy_array(), expected, atol=1e-12)


def test_simultaneous_updates_equal_openspiel(tiny):
  game, tree = tiny
  solver = cfr.CFRSolver(game, A.Identity(game.dynamics), tree, alternating=False)
  reference = openspiel_cfr._CFRSolver(  # pylint: disable=protected-access
      tree.turn_based_game, alternating_updates=False, linear_averaging=False,
      regret_matching_plus=False)
  for _ in range(12):
    solver.run(iterations=1)
    reference.evaluate_and_update_policy()
  np.testing.assert_allclose(solver.average_policy_array(),
                             policy_array(tree, reference.average_policy()), atol=1e-12)


def test_lifted_policy_equals_tree_policy(tiny):
  game, tree = tiny
  solver = cfr.CFRPlus(game, A.make_abstraction("canonical", game), tree)
  solver.run(iterations=30)
  lifted = policy_array(tree, solver.average_policy())
  np.testing.assert_allclose(lifted, solver.average_policy_array(), atol=1e-12)


def test_lifted_policy_reads_the_same_at_tables_and_at_states(tiny):
  game, tree = tiny
  solver = mccfr.OutcomeSamplingMCCFR(game, A.make_abstraction("buckets:2", game), seed=4)
  solver.run(iterations=200)
  lifted = solver.average_policy()

  class AtStatesOnly(policy_lib.Policy):
    def action_probabilities(self, state, player_id=None):
      return lifted.action_probabilities(state, player_id)

  np.testing.assert_allclose(policy_array(tree, lifted),
                             policy_array(tree, AtStatesOnly(game, [0, 1])), atol=1e-12)


@pytest.mark.parametrize("game_string, iterations", [(FOUR_CARDS, 1500), (TWO_ROUNDS, 300)])
def test_lossless_abstraction_matches_identity_at_convergence(game_string, iterations):
  game = pyspiel.load_game(game_string)
  tree = GameTree(game)
  results = {}
  for name in ("identity", "canonical", "buckets:1"):
    solver = cfr.CFRPlus(game, A.make_abstraction(name, game), tree)
    solver.run(iterations=iterations)
    results[name] = (len(solver.abstract_num_actions),
                     nash_conv(tree, solver.average_policy_array()).nash_conv)
  identity_keys, identity_gap = results["identity"]
  canonical_keys, canonical_gap = results["canonical"]
  assert canonical_keys < identity_keys * 0.6  # the abstraction does merge information sets
  assert identity_gap < 3e-3 and canonical_gap < 3e-3
  assert abs(canonical_gap - identity_gap) < 2e-3
  assert results["buckets:1"][1] > 0.05  # a lossy abstraction stays exploitable


def test_abstraction_with_mixed_legal_actions_is_refused(tiny):
  game, tree = tiny

  class OneKey(A.Abstraction):
    name = "one"

    def key(self, rules, table, player):
      return 0

  with pytest.raises(ValueError, match="different legal actions"):
    cfr.CFR(game, OneKey(), tree)


@pytest.mark.parametrize("solver_class", [mccfr.ExternalSamplingMCCFR,
                                          mccfr.OutcomeSamplingMCCFR])
def test_mccfr_is_deterministic_for_a_seed(tiny, solver_class):
  game, _ = tiny
  abstraction = A.make_abstraction("canonical", game)
  runs = [solver_class(game, abstraction, seed=seed).run(iterations=200).average_strategy()
          for seed in (5, 5, 6)]
  assert runs[0].keys() == runs[1].keys()
  for key, (actions, probabilities) in runs[0].items():
    assert runs[1][key][0] == actions
    np.testing.assert_array_equal(runs[1][key][1], probabilities)
  assert any(not np.array_equal(runs[2][k][1], p) for k, (_, p) in runs[0].items()
             if k in runs[2])


@pytest.mark.parametrize("solver_class, iterations, bound", [
    (mccfr.ExternalSamplingMCCFR, 1500, 0.2),
    (mccfr.OutcomeSamplingMCCFR, 6000, 1.5),
])
def test_mccfr_approaches_equilibrium(tiny, solver_class, iterations, bound):
  game, tree = tiny
  solver = solver_class(game, A.Identity(game.dynamics), seed=0).run(iterations=iterations)
  tree_keys = {A.Identity(game.dynamics).key(game.rules, table, int(player))
               for table, player in zip(tree.infoset_tables, tree.infoset_player)}
  assert len(tree_keys) == tree.num_infosets
  keys = set(solver.average_strategy())
  assert keys <= tree_keys and len(keys) > 0.9 * len(tree_keys)
  uniform = nash_conv(tree, tree.uniform_policy()).nash_conv
  gap = nash_conv(tree, policy_array(tree, solver.average_policy())).nash_conv
  assert gap < bound < uniform


def test_outcome_sampling_runs_on_the_full_game():
  game = pyspiel.load_game("python_sushi_go(players=3)")
  solver = mccfr.OutcomeSamplingMCCFR(game, A.make_abstraction("buckets:2", game), seed=1)
  solver.run(iterations=3)
  strategy = solver.average_strategy()
  # Three traversals of 3 rounds x 8 decisions, for 3 players each.
  assert 3 * 8 * 3 <= len(strategy) <= 3 * 3 * 3 * 8 * 3
  for actions, probabilities in strategy.values():
    assert len(actions) == len(probabilities)
    assert probabilities.sum() == pytest.approx(1.0)


def test_run_needs_one_budget(tiny):
  game, tree = tiny
  solver = cfr.CFR(game, A.Identity(game.dynamics), tree)
  with pytest.raises(ValueError, match="exactly one"):
    solver.run()
  with pytest.raises(ValueError, match="exactly one"):
    solver.run(iterations=2, seconds=1.0)
  solver.run(seconds=0.05)
  assert solver.iterations >= 1


def test_unknown_algorithm_names_the_allowed_ones(tiny):
  game, _ = tiny
  with pytest.raises(ValueError, match=r"unknown algorithm 'cfr-x'; allowed: cfr, cfr\+, dcfr"):
    policy_io.make_solver("cfr-x", game)


def test_bench_times_both_solvers_on_the_same_game():
  bench = cfr_bench.measure("tiny", repeats=1, min_seconds=0.01)
  assert bench.ours_seconds > 0 and bench.cpp_seconds > 0
  assert bench.ratio == pytest.approx(bench.ours_seconds / bench.cpp_seconds)
  assert bench.result == ("PASS" if bench.ratio <= 2 else "BELOW")
  assert bench.policy_difference < 1e-9  # no regret ties in this game: the same iterates
  assert bench.exploitabilities[0] == pytest.approx(bench.exploitabilities[1], abs=1e-12)
  assert "ours / C++" in cfr_bench.report(bench)


def test_three_player_average_policy_equals_openspiel():
  """The general-sum three-player game, where the claim "OpenSpiel's policy" is also made."""
  game = pyspiel.load_game(reduced_game_string("three_players"))
  tree = GameTree(game)
  solver = cfr.CFRPlus(game, A.Identity(game.dynamics), tree)
  reference = openspiel_cfr.CFRPlusSolver(tree.turn_based_game)
  for _ in range(12):
    solver.run(iterations=1)
    reference.evaluate_and_update_policy()
  expected = policy_array(tree, reference.average_policy())
  np.testing.assert_allclose(solver.average_policy_array(), expected, atol=1e-12)


def test_bench_command_writes_its_figures_as_json(tmp_path, capsys):
  path = tmp_path / "cfr.json"
  cfr_bench.main(["--game", "tiny", "--repeats", "1", "--json", str(path)])
  assert "ours / C++" in capsys.readouterr().out
  figures = json.loads(path.read_text(encoding="utf-8"))
  assert figures["cfr"]["ratio"] == pytest.approx(figures["cfr"]["ours_seconds"] /
                                                  figures["cfr"]["cpp_seconds"])
  assert figures["cfr"]["game"] == reduced_game_string("tiny")
  assert set(figures["conditions"]) == {"date", "git_commit", "load_average", "cores"}
  with pytest.raises(SystemExit):
    cfr_bench.main(["--game", "tiny", "--json", str(tmp_path / "missing" / "cfr.json")])
  assert "its folder" in capsys.readouterr().err
