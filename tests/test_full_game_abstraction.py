"""Tests of the abstraction without action sets in its keys (`summary:N`): keys from the player's
information only and shared by different hands, restricted regret matching in the sampling
solvers and in the lifted policy, policy files, determinism, and exploitability on a reduced game
against the identity."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from solvers.equilibrium import abstraction as A
from solvers.equilibrium import exploitability
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.cfr import regret_matching
from solvers.equilibrium.mccfr import OutcomeSamplingMCCFR
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.reduced_games import reduced_game_string
from support import SA, SQ, T, W, deal, play_with_bots, walk

FULL = "python_sushi_go(players=2,utility=margin)"
ROBOT = ("python_sushi_go(players=2,robot=true,rounds=2,hand_size=5,deck=tempura:8/sashimi:8/"
         "squid:4/wasabi:4/chopsticks:3/maki2:6/pudding:4)")
SCRIPTED = "python_sushi_go(players=2,rounds=1,hand_size=4,deck=tempura:5/sashimi:5/squid:2/wasabi:2)"


@pytest.mark.parametrize("game_string", [FULL, ROBOT])
def test_key_is_unchanged_by_redealing_unseen_cards(game_string):
  game = pyspiel.load_game(game_string)
  rng = random.Random(3)
  abstraction = A.make_abstraction("summary:2", game)
  checked = 0
  for seed in (1, 2):
    for state in walk(game.new_initial_state(), random.Random(seed)):
      if not state.is_simultaneous_node():
        continue
      for player in range(2):
        key = abstraction.key(game.rules, state.table(), player)
        for _ in range(2):
          other = state.resample_from_infostate(player, rng.random)
          assert abstraction.key(game.rules, other.table(), player) == key
          checked += 1
  assert checked > 20


def scripted_states():
  """Two first-turn positions of player 0 with different hands (so different legal actions)."""
  game = pyspiel.load_game(SCRIPTED)
  states = []
  for hand in ([T, T, SA, SQ], [T, W, SA, SA]):
    state = game.new_initial_state()
    deal(state, [hand, [T, SA, SA, T]])
    states.append(state)
  return game, states


def test_key_is_shared_by_hands_and_lead_knob_coarsens_it():
  game, (a, b) = scripted_states()
  assert a.legal_actions(0) != b.legal_actions(0)
  summary = A.make_abstraction("summary:1", game)
  assert summary.fixed_actions and summary.name == "summary:1"
  assert summary.key(game.rules, a.table(), 0) == summary.key(game.rules, b.table(), 0)
  # Both seats of a symmetric game share keys: player 1 holds a third hand in the same position.
  assert summary.key(game.rules, a.table(), 1) == summary.key(game.rules, a.table(), 0)
  rules = pyspiel.load_game(FULL).rules
  counts = {}
  for n in (1, 3):
    keys = set()
    for seed in range(6):
      for state in walk(pyspiel.load_game(FULL).new_initial_state(), random.Random(seed)):
        if state.is_simultaneous_node():
          keys.update(A.Summary(n).key(rules, state.table(), p) for p in range(2))
    counts[n] = len(keys)
  assert counts[1] < counts[3]


def test_lifted_policy_restricts_to_legal_actions_and_renormalises():
  game, (a, b) = scripted_states()
  summary = A.make_abstraction("summary:2", game)
  number = {card.name: c for c, card in enumerate(game.rules.cards)}
  t, sa, sq, w = (number[name] for name in (T, SA, SQ, W))
  key = summary.key(game.rules, a.table(), 0)
  policy = A.LiftedPolicy(game, summary, {key: ((t, sq, w), np.array([0.2, 0.5, 0.3]))})
  # Hand a holds Tempura, Sashimi and Squid: the Wasabi's 0.3 is dropped, the rest renormalised.
  probabilities = policy.action_probabilities(a, 0)
  assert set(probabilities) == set(a.legal_actions(0)) == {t, sa, sq}
  assert probabilities[sa] == 0.0
  assert probabilities[t] == pytest.approx(0.2 / 0.7)
  assert probabilities[sq] == pytest.approx(0.5 / 0.7)
  assert sum(probabilities.values()) == pytest.approx(1.0)
  # Hand b holds Tempura, Wasabi, Sashimi: only the Tempura and the Wasabi have mass.
  assert policy.action_probabilities(b, 0) == pytest.approx({t: 0.4, w: 0.6, sa: 0.0})
  # No mass on any legal action: uniform over the legal actions.
  policy.strategy[key] = ((sq,), np.array([1.0]))
  assert policy.action_probabilities(b, 0) == pytest.approx({t: 1 / 3, w: 1 / 3, sa: 1 / 3})


def test_solver_regret_matches_over_legal_actions_only():
  game, (a, b) = scripted_states()
  solver = OutcomeSamplingMCCFR(game, A.make_abstraction("summary:2", game), seed=4)
  solver.run(iterations=200)
  rules, table = game.rules, b.table()
  key = solver.abstraction.key(rules, table, 0)
  entry = solver._entries[key]
  legal = R.legal_actions(rules, table, 0)
  assert set(entry) > set(legal)  # the key gathered actions from other hands (Squid here)
  actions, cells = solver._node(table, 0)
  assert actions == legal
  strategy = regret_matching([cell[0] for cell in cells])
  assert len(strategy) == len(legal) and sum(strategy) == pytest.approx(1.0)
  others = {action: list(cell) for action, cell in entry.items() if action not in legal}
  before = {action: list(entry[action]) for action in legal}
  for _ in range(20):
    solver._episode(table, 0, 1.0, 1.0)
  assert {action: entry[action] for action in others} == others  # illegal here: untouched
  assert any(entry[action] != before[action] for action in legal)


def test_full_width_cfr_refuses_it():
  game = pyspiel.load_game(reduced_game_string("tiny"))
  with pytest.raises(ValueError, match="does not fix the legal actions"):
    policy_io.make_solver("cfr+", game, "summary:2")
  with pytest.raises(ValueError, match="N must be 1 or more"):
    A.make_abstraction("summary:0", game)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  """A summary:2 policy trained on the full game with a few hundred iterations, saved."""
  path = str(tmp_path_factory.mktemp("full") / "summary.npz")
  policy = policy_io.train(FULL, "os-mccfr", "summary:2", iterations=150, seed=5, out_path=path,
                           progress=False)
  return path, policy


def test_save_load_round_trip_is_exact(trained):
  path, policy = trained
  loaded = policy_io.load_policy(path)
  assert loaded.abstraction.name == "summary:2" and loaded.abstraction.fixed_actions
  assert loaded.metadata == policy.metadata
  assert loaded.strategy.keys() == policy.strategy.keys()
  for key, (actions, probabilities) in policy.strategy.items():
    assert loaded.strategy[key][0] == actions
    np.testing.assert_array_equal(loaded.strategy[key][1], probabilities)
  for state in walk(policy.game.new_initial_state(), random.Random(8)):
    if state.is_simultaneous_node():
      assert loaded.action_probabilities(state, 1) == policy.action_probabilities(state, 1)


def test_policy_bot_plays_the_full_game_scored_by_points(trained):
  path, _ = trained
  game = pyspiel.load_game("python_sushi_go(players=2)")  # utility=score: the same rules
  bots = [policy_io.PolicyBot(game, p, seed=p, path=path) for p in range(2)]
  state, _ = play_with_bots(game, bots, seed=2)
  assert state.is_terminal()
  with pytest.raises(ValueError, match="was trained for"):
    policy_io.PolicyBot(pyspiel.load_game("python_sushi_go(players=3)"), 0, path=path)


def test_mccfr_is_deterministic_for_a_seed():
  game = pyspiel.load_game(FULL)
  runs = [policy_io.make_solver("os-mccfr", game, "summary:2", seed=s).run(iterations=40)
          for s in (7, 7, 8)]
  strategies = [run.average_strategy() for run in runs]
  assert strategies[0].keys() == strategies[1].keys()
  for key, (actions, probabilities) in strategies[0].items():
    assert strategies[1][key][0] == actions
    np.testing.assert_array_equal(strategies[1][key][1], probabilities)
  assert strategies[0].keys() != strategies[2].keys()


@pytest.mark.parametrize("algorithm,iterations", [("os-mccfr", 3000), ("es-mccfr", 300)])
def test_exploitability_on_a_reduced_game_is_no_better_than_the_identitys(algorithm, iterations):
  game = pyspiel.load_game(reduced_game_string("tiny"))
  figures = {}
  for name in ("summary:2", "identity"):
    policy = policy_io.train("tiny", algorithm, name, iterations=iterations, seed=1,
                             progress=False)
    figures[name] = exploitability.exploitability(game, policy)
  assert all(np.isfinite(value) and value >= 0 for value in figures.values())
  # The identity is lossless and converges; the summary forgets the hand, so it cannot do better.
  assert figures["identity"] <= figures["summary:2"]
