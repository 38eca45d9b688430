"""No silent wrong answers on the equilibrium side: arrays that are not distributions are refused
with the information set named, and constant-sum games are solved exactly."""

from __future__ import annotations

import copy
import math
import pathlib
import re

import numpy as np
import pyspiel
import pytest

import solvers
from experiments.cli import main
from solvers.equilibrium import approximate, cfr, policies, sequence_form, validation
from solvers.equilibrium.abstraction import Identity
from solvers.equilibrium.exploitability import exploitability, nash_conv
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import to_tabular_policy
from sushigo_spiel.reduced_games import reduced_game_string

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", name="tree")
def tiny_tree():
  return GameTree(pyspiel.load_game(reduced_game_string("tiny")))


@pytest.mark.parametrize("make_bad, message", [
    (lambda u: np.zeros_like(u), "summing to 0;"),
    (lambda u: 2 * u, "summing to 2;"),
    (lambda u: np.where(np.arange(u.size) == 0, -0.5, u), "-0.5"),
    (lambda u: np.where(np.arange(u.size) == 3, np.nan, u), "nan"),
])
def test_arrays_that_are_not_distributions_are_refused(tree, make_bad, message):
  with pytest.raises(ValueError, match=f"not a distribution over the legal actions of player .*"
                     f"{message}"):
    nash_conv(tree, make_bad(tree.uniform_policy()))


def test_the_refusal_shows_the_information_state_on_one_line(tree):
  with pytest.raises(ValueError, match=r"player 0 at information state 'P0\\nR1 T1: hand") as e:
    nash_conv(tree, np.zeros(tree.num_slots))
  assert "\n" not in str(e.value)


def test_a_distribution_within_rounding_is_accepted(tree):
  """Within 1e-9 of summing to 1 (the tolerance of `validation`): accepted; 1e-7 off: refused."""
  policy = tree.uniform_policy() * (1 + 1e-10)
  assert nash_conv(tree, policy).nash_conv == pytest.approx(
      nash_conv(tree, tree.uniform_policy()).nash_conv)
  with pytest.raises(ValueError, match="summing to 1.0000001"):
    nash_conv(tree, tree.uniform_policy() * (1 + 1e-7))


def test_a_constant_sum_game_is_solved_as_its_zero_sum_shift():
  """utility=win of the robot game: the LP's equilibrium has no gain for either player, the two
  values sum to 1 (mapped back from the shifted game, whose values sum to 0), and CFR+ converges
  to the same value."""
  game = pyspiel.load_game(reduced_game_string("robot").replace("utility=margin", "utility=win"))
  tree = GameTree(game)
  solution = sequence_form.solve(tree)
  assert sum(solution.values) == pytest.approx(1.0, abs=1e-9)
  assert nash_conv(tree, solution.policy).nash_conv == pytest.approx(0.0, abs=1e-9)
  assert nash_conv(tree, solution.policy).policy_values[0] == pytest.approx(solution.value,
                                                                            abs=1e-9)
  average = cfr.CFRPlus(game, Identity(game.dynamics), tree).run(iterations=2000)
  averaged = average.average_policy_array()
  assert exploitability(tree, averaged) < 2e-3
  assert nash_conv(tree, averaged).policy_values[0] == pytest.approx(solution.value, abs=5e-3)


def test_a_general_sum_game_is_refused_by_the_lp():
  game = pyspiel.load_game(reduced_game_string("three_players"))
  with pytest.raises(ValueError, match="two-player zero-sum or constant-sum game"):
    sequence_form.solve(game)


# ----- every policy is checked at the door: each silent case of the past, refused by name


def _trained_tiny(tmp_path):
  """A CFR+ policy of tiny, its file, and the first key of player 0 (the root's information set:
  actions [1, 2, 3])."""
  path = tmp_path / "good.npz"
  policy = policies.train("tiny", "cfr+", "identity", iterations=3, out_path=str(path),
                          progress=False)
  key = next(k for k, (actions, _) in policy.strategy.items() if actions == (1, 2, 3))
  return policy, key


def _saved_with(tmp_path, policy, key, actions, probabilities, name="bad.npz"):
  changed = copy.copy(policy)
  changed.strategy = {**policy.strategy, key: (tuple(actions), np.array(probabilities, float))}
  path = tmp_path / name
  policies.save_policy(str(path), changed)
  return str(path)


def test_mass_on_an_illegal_action_in_a_file_is_refused_by_nash_conv(tmp_path, tree):
  """Before: the illegal action's 1.0 was dropped and the file measured as if unmodified."""
  policy, key = _trained_tiny(tmp_path)
  actions, probabilities = policy.strategy[key]
  path = _saved_with(tmp_path, policy, key, actions + (0,), list(probabilities) + [1.0])
  with pytest.raises(validation.PolicyError, match=r"player 0 at information state 'P0\\nR1 T1:"
                     r" hand \[Sashimi, Squid Nigiri, Wasabi\]': probability \{0: 1\} on"
                     r" action\(s\) \[0\], not legal there"):
    nash_conv(tree, policies.load_policy(path))
  with pytest.raises(validation.PolicyError, match=r"bad.npz: .*player 0 at information state"
                     r" 'P0\\nR1 T1: .*on action\(s\) \[0\], not legal there"):
    validation.load_checked_policy(path)


def test_a_tabular_row_with_mass_on_an_illegal_action_is_refused(tree):
  """Before: the row was read at its legal actions alone, uniform, and measured as uniform."""
  tabular = to_tabular_policy(tree, tree.uniform_policy())
  string = tree.turn_based_string(0)
  tabular.action_probability_array[tabular.state_lookup[string], 0] += 1.0
  for check in (lambda: nash_conv(tree, tabular), lambda: validation.validate_policy(
      tree.turn_based_game, tabular)):
    with pytest.raises(validation.PolicyError, match=r"player 0 at information state '(Current"
                       r" player: 0\\n)?P0\\nR1 T1: .*probability \{0: 1\} on action\(s\) \[0\]"):
      check()


def test_a_policy_bot_refuses_a_file_that_moves_mass_to_an_illegal_action(tmp_path, tree):
  """Before: the legal entries [1, 2] and the illegal 0 summed to 1, and 40 games were played.
  Now the file is refused when the bot loads it (tiny's tree is read whole at load); on a game
  too large for that, at the first decision where the key is met."""
  policy, key = _trained_tiny(tmp_path)
  actions, probabilities = policy.strategy[key]
  path = _saved_with(tmp_path, policy, key, actions[:2] + (0,), probabilities)
  with pytest.raises(validation.PolicyError, match=r"bad.npz: .*player 0 at information state"
                     r" 'P0\\nR1 T1: .*on action\(s\) \[0\], not legal there"):
    solvers.make_bot("policy", tree.game, 0, 0, path=path)
  bot = solvers.make_bot("policy", tree.game, 0, 0, path=_saved_with(
      tmp_path, policy, key, actions, probabilities, "good_again.npz"))
  bot.lifted = policies.load_policy(path)  # as if the file were too large to read whole at load
  with pytest.raises(validation.PolicyError, match=r"player 0 at information state 'P0\\nR1 T1:"
                     r" .*\[0\], not legal there"):
    bot.step(tree.representative_state(0))


def test_approximate_exploitability_refuses_the_file(tmp_path, capsys):
  policy, key = _trained_tiny(tmp_path)
  actions, probabilities = policy.strategy[key]
  path = _saved_with(tmp_path, policy, key, actions[:2] + (0,), probabilities)
  with pytest.raises(SystemExit) as exit_info:
    main(["exploitability", "tiny", "--policy", path, "--approximate", "--responder",
          "lbr:worlds=2", "--games", "2", "--out", str(tmp_path / "run"), "--quiet"])
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and "Traceback" not in err
  assert "not legal there" in err and "player 0 at information state 'P0\\nR1 T1:" in err


def test_a_policy_bot_checks_every_key_at_load(tmp_path, tree):
  """Before: nothing was checked at load. A NaN at a key of the last turn is refused by name: by
  its information state where the game's tree is small enough to read whole at load (tiny), by
  its key otherwise (every key is checked, reached or not)."""
  policy, _ = _trained_tiny(tmp_path)
  last_turn = next(i for i in range(tree.num_infosets - 1, -1, -1)
                   if len(tree.infoset_actions(i)) > 1)
  player = int(tree.infoset_player[last_turn])
  key = policy.abstraction.key(tree.rules, tree.infoset_tables[last_turn], player)
  actions, _ = policy.strategy[key]
  path = _saved_with(tmp_path, policy, key, actions, [math.nan] * len(actions))
  state = re.escape(repr(tree.infoset_string(last_turn))[:-1])
  with pytest.raises(validation.PolicyError, match=rf"not a distribution over the legal actions"
                     rf" of player {player} at information state {state}.* have probabilities"
                     r" \{\d: nan"):
    solvers.make_bot("policy", tree.game, player, 0, path=path)
  with pytest.raises(validation.PolicyError, match=r"not a distribution at abstract key .*have"
                     r" probabilities \{\d: nan"):
    validation.validate_policy(tree.game, policies.load_policy(path))


def test_lbr_refuses_a_nan_policy_rather_than_failing_on_an_index(tmp_path):
  """Before: LBR drew from a NaN distribution deep in its rollouts: IndexError."""
  game = pyspiel.load_game(reduced_game_string("tiny"))
  policy, _ = _trained_tiny(tmp_path)
  bots = [solvers.make_bot("policy", game, p, 0, path=str(tmp_path / "good.npz"))
          for p in range(2)]
  poisoned = copy.copy(policy)
  poisoned.strategy = {k: (a, np.full(len(a), math.nan)) for k, (a, _) in policy.strategy.items()}
  for bot in bots:
    bot.lifted = poisoned  # a policy that got past the door some other way
  responder = approximate.make_responder(game, 0, 0, "lbr", {"worlds": 2, "rollouts": 1},
                                         approximate.opponent_model(bots))
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  with pytest.raises(validation.PolicyError, match=r"not a distribution over the legal actions of"
                     r" player 1 at information state 'P1\\n.* have probabilities \{0: nan"):
    responder.step(state)


def test_a_blueprint_with_negated_weights_is_refused(tmp_path):
  """Before: the file loaded silently; played as its average (`play = average`), every weight
  negative, none positive, it played uniform at every decision. Refused whichever table it plays
  (this one plays its regrets)."""
  source = ROOT / "experiments/results/policies/blueprint_2p.npz"
  with np.load(source) as data:
    arrays = {name: data[name] for name in data.files}
  arrays["average_values"] = -arrays["average_values"]
  path = tmp_path / "negated.npz"
  np.savez_compressed(path, **arrays)
  with pytest.raises(validation.PolicyError, match=r"negated.npz: the blueprint.s average weight"
                     r" table has \d+ weight\(s\) that are negative or not finite"
                     r" \(slot: weight \d+: -"):
    validation.load_checked_policy(str(path))
  game = pyspiel.load_game("python_sushi_go(players=2)")
  for bot in ("policy", "subgame"):
    with pytest.raises(validation.PolicyError, match="negative or not finite"):
      solvers.make_bot(bot, game, 0, 0, path=str(path))


def test_stored_policy_files_pass_the_door():
  for name in ("small_cfr_plus_3.npz", "blueprint_2p.npz"):
    validation.load_checked_policy(str(ROOT / "experiments/results/policies" / name))
