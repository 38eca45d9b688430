"""Tests of policies on disk and the policy bot: exact round trips, provenance, games played in
both forms, and a bot that decides from its player's information only."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from solvers.equilibrium import policies as policy_io
from support import play_with_bots, walk

TINY = ("python_sushi_go(players=2,rounds=1,hand_size=3,deal=hand,utility=margin,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1)")
THREE_PLAYERS = ("python_sushi_go(players=3,rounds=2,hand_size=3,deck=tempura:6/sashimi:6/"
                 "squid:3/wasabi:3/chopsticks:3/pudding:3)")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
  """Policies trained and saved once: (path, policy) by (algorithm, abstraction)."""
  folder = tmp_path_factory.mktemp("policies")
  runs = {("cfr+", "identity"): (TINY, 50), ("es-mccfr", "kmeans:6"): (TINY, 100),
          ("os-mccfr", "buckets:2"): (THREE_PLAYERS, 300), ("dcfr", "canonical"): (TINY, 30)}
  result = {}
  for (algorithm, abstraction), (game, iterations) in runs.items():
    path = str(folder / f"{algorithm}-{abstraction.replace(':', '')}.npz")
    policy = policy_io.train(game, algorithm, abstraction, iterations=iterations, seed=2,
                             out_path=path, progress=False)
    result[algorithm, abstraction] = (path, policy)
  return result


def test_save_load_round_trip_is_exact(saved):
  for (algorithm, abstraction), (path, policy) in saved.items():
    loaded = policy_io.load_policy(path)
    assert loaded.strategy.keys() == policy.strategy.keys()
    for key, (actions, probabilities) in policy.strategy.items():
      assert loaded.strategy[key][0] == actions
      np.testing.assert_array_equal(loaded.strategy[key][1], probabilities)
    assert loaded.metadata == policy.metadata
    assert loaded.abstraction.name == abstraction
    for name, array in policy.abstraction.arrays.items():
      np.testing.assert_array_equal(loaded.abstraction.arrays[name], array)
    assert str(loaded.game) == str(policy.game)


def test_loaded_policy_answers_as_the_trained_one(saved):
  path, policy = saved["es-mccfr", "kmeans:6"]
  loaded = policy_io.load_policy(path)
  for state in walk(policy.game.new_initial_state(), random.Random(3)):
    if state.is_simultaneous_node():
      for player in range(2):
        assert loaded.action_probabilities(state, player) == \
            policy.action_probabilities(state, player)


def test_provenance_is_recorded(saved):
  path, _ = saved["cfr+", "identity"]
  metadata = policy_io.load_policy(path).metadata
  assert metadata["algorithm"] == "cfr+"
  assert metadata["abstraction"] == "identity"
  assert metadata["iterations"] == 50
  assert metadata["seed"] == 2
  assert metadata["seconds"] >= 0
  assert str(pyspiel.load_game(metadata["game"])) == str(pyspiel.load_game(TINY))
  assert metadata["package_version"] and metadata["git_commit"]


@pytest.mark.parametrize("run", [("cfr+", "identity"), ("os-mccfr", "buckets:2")])
def test_bot_plays_whole_games_in_both_forms(saved, run):
  path, policy = saved[run]
  game = pyspiel.load_game(str(policy.game))
  bots = [policy_io.PolicyBot(game, p, seed=p, path=path) for p in range(game.num_players())]
  state, _ = play_with_bots(game, bots, seed=1)
  assert state.is_terminal()
  turn_based = pyspiel.convert_to_turn_based(game)
  bots = [policy_io.PolicyBot(turn_based, p, seed=p, path=path)
          for p in range(game.num_players())]
  returns = pyspiel.evaluate_bots(turn_based.new_initial_state(), bots, 4)
  assert len(returns) == game.num_players()


def test_bot_follows_the_policy(saved):
  path, policy = saved["cfr+", "identity"]
  game = pyspiel.load_game(str(policy.game))
  state = next(s for s in walk(game.new_initial_state(), random.Random(0))
               if s.is_simultaneous_node())
  expected = policy.action_probabilities(state, 1)
  bot = policy_io.PolicyBot(game, 1, seed=0, path=path)
  assert dict(bot.step_with_policy(state)[0]) == expected
  counts = {}
  for _ in range(400):
    action = bot.step(state)
    counts[action] = counts.get(action, 0) + 1
  for action, p in expected.items():
    assert counts.get(action, 0) / 400 == pytest.approx(p, abs=0.08)


def test_bot_decides_from_its_players_information_only(saved):
  path, policy = saved["os-mccfr", "buckets:2"]
  game = pyspiel.load_game(str(policy.game))
  rng = random.Random(5)
  checked = 0
  for state in walk(game.new_initial_state(), random.Random(2)):
    if not state.is_simultaneous_node():
      continue
    for player in range(game.num_players()):
      chosen = policy_io.PolicyBot(game, player, seed=9, path=path).step(state)
      for _ in range(3):
        other = state.resample_from_infostate(player, rng.random)
        assert policy_io.PolicyBot(game, player, seed=9, path=path).step(other) == chosen
        checked += 1
  assert checked > 0


def test_bot_refuses_a_missing_file_or_another_game(saved, tmp_path):
  game = pyspiel.load_game(TINY)
  with pytest.raises(ValueError, match="needs parameter 'path'"):
    policy_io.PolicyBot(game, 0, path=str(tmp_path / "none.npz"))
  with pytest.raises(ValueError, match="unknown parameter"):
    policy_io.PolicyBot(game, 0, depth=3)
  path, _ = saved["os-mccfr", "buckets:2"]
  with pytest.raises(ValueError, match="was trained for"):
    policy_io.PolicyBot(game, 0, path=path)


def test_train_refuses_unknown_names():
  with pytest.raises(ValueError, match="unknown algorithm"):
    policy_io.train(TINY, "fictitious", iterations=1, progress=False)
  with pytest.raises(ValueError, match="unknown abstraction"):
    policy_io.train(TINY, "cfr", "clusters:3", iterations=1, progress=False)


def test_train_takes_a_reduced_game_name(tmp_path):
  policy = policy_io.train("tiny", "cfr", iterations=2, progress=False)
  assert str(policy.game) == str(pyspiel.load_game(TINY))


def test_keys_are_parsed_as_literal_eval_reads_them(saved):
  """The fast reading of integer-and-tuple keys gives what `ast.literal_eval` gives, on every
  saved abstraction's keys and on hand-made ones; other keys go through `ast.literal_eval`."""
  import ast  # pylint: disable=import-outside-toplevel
  texts = [repr(key) for _, policy in saved.values() for key in policy.strategy]
  texts += [repr(key) for key in [(), (1,), ((),), (-3, (0, (1,), ()), -12), ((-1,), 7)]]
  assert policy_io.parse_keys(texts) == [ast.literal_eval(text) for text in texts]
  assert all(isinstance(key, tuple) for key in policy_io.parse_keys(texts))
  mixed = texts + [repr((0, "hand", True, None, 2.5))]
  assert policy_io.parse_keys(mixed) == [ast.literal_eval(text) for text in mixed]
