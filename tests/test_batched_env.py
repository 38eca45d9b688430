"""The batched environment: its observations are the pyspiel observer's tensors, its steps are the
rules' steps, its seeds replay its games, and bad input is refused with what is allowed."""

from __future__ import annotations

import gymnasium
import numpy as np
import pyspiel
import pytest

import solvers.envs  # noqa: F401  (registers SushiGo-v0)
from solvers import make_bot
from solvers.opponents import compiled_opponents

from solvers.envs.batched import SushiGoBatch
from solvers.policy_kernels.heuristic import PARAMETER_NAMES
from sushigo_spiel.compiled import CompiledSushiGo
from sushigo_spiel.compiled.sushi_go import observation
from sushigo_spiel.drafting.dynamics import SIMULTANEOUS, TERMINAL
from sushigo_spiel.sushi_go import rules as R

VARIANTS = {
    "2p": dict(players=2),
    "5p": dict(players=5),
    "robot": dict(players=2, robot=True),
    "4p-soy-alternate-margin": dict(players=4, soy_sauce=True, pass_direction="alternate",
                                    utility="margin"),
    "3p-chopsticks-deal-hand": dict(players=3, deal="hand", hand_size=4, rounds=2, utility="win",
                                    deck="tempura:5/sashimi:5/wasabi:3/squid:4/chopsticks:3/"
                                    "egg:3/pudding:3"),
}


GAME_3P = pyspiel.load_game("python_sushi_go(players=3)")


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
  return (masks * rng.random(masks.shape)).argmax(axis=1)


@pytest.mark.parametrize("kind", list(observation.KINDS))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_observations_are_the_observers_tensors(variant, kind):
  params = VARIANTS[variant]
  seat = params["players"] - 1
  batch = SushiGoBatch(4, seat=seat, observation_type=kind, seed=1, **params)
  compiled, python_observer = CompiledSushiGo(batch.rules), observation.observer(
      batch.rules, observation.KINDS[kind])
  rng = np.random.default_rng(0)
  observations, masks = batch.reset()
  dones = 0
  for _ in range(45):
    for game in range(batch.num_envs):
      table = compiled.decode(batch.positions()[game])
      python_observer.set_from_table(table, seat)
      np.testing.assert_array_equal(observations[game], python_observer.tensor)
      legal = R.legal_actions(batch.rules, table, seat)
      assert np.flatnonzero(masks[game]).tolist() == legal
    observations, _, done, masks = batch.step(random_legal(masks, rng))
    dones += done.sum()
  assert dones >= batch.num_envs  # every slot went through a reset


@pytest.mark.parametrize("variant", ["2p", "robot", "4p-soy-alternate-margin"])
def test_terminal_observations_are_the_observers_tensors(variant):
  """The kernels also encode the end of a game as the observer does (the environment never
  shows it, since it resets at once)."""
  rules = R.Rules.from_params(**VARIANTS[variant])
  compiled = CompiledSushiGo(rules)
  for kind in observation.KINDS.values():
    offsets, python_observer = observation.piece_offsets(rules, kind), observation.observer(
        rules, kind)
    pos = compiled.initial_position()
    compiled.playout(pos, np.array([1, 2, 3, 4], dtype=np.uint64))
    out = np.zeros(observation.tensor_size(rules, kind), dtype=np.float32)
    for player in range(rules.num_players):
      out[:] = 0
      if kind == observation.OBSERVATION:
        observation.encode_observation(compiled.spec, pos, player, offsets, out)
      else:
        observation.encode_information_state(compiled.spec, pos, player, offsets, out, 0)
      python_observer.set_from_table(compiled.decode(pos), player)
      np.testing.assert_array_equal(out, python_observer.tensor)


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
@pytest.mark.parametrize("params", [dict(players=2), dict(players=3, utility="margin")])
def test_steps_are_the_rules_steps_against_the_baseline_bots(params, bot):
  """Each step plays the learner's action with the Python bots' actions (the rules' next table,
  when no deal follows), and a game's end pays the rules' return."""
  game = pyspiel.load_game("python_sushi_go", params)
  batch = SushiGoBatch(3, opponents=compiled_opponents(game, bot), seed=5, **params)
  compiled, rules = CompiledSushiGo(batch.rules), batch.rules
  bots = [make_bot(bot, game, p) for p in range(rules.num_players)]
  rng = np.random.default_rng(2)
  observations, masks = batch.reset()
  ends = 0
  for _ in range(2 * rules.rounds * (rules.hand_size - 1) + 3):
    actions = random_legal(masks, rng)
    expected = []
    for game_index in range(batch.num_envs):
      table = compiled.decode(batch.positions()[game_index])
      joint = [int(actions[game_index])] + [max(bots[p].policy_at(table), key=lambda e: e[1])[0]
                                            for p in range(1, rules.num_players)]
      expected.append(R.play(rules, table, joint))
    observations, rewards, dones, masks = batch.step(actions)
    for game_index, table in enumerate(expected):
      assert dones[game_index] == (table.actor == TERMINAL)
      if dones[game_index]:
        assert rewards[game_index] == pytest.approx(R.returns(rules, table)[0])
        ends += 1
      else:
        assert rewards[game_index] == 0
        after = compiled.decode(batch.positions()[game_index])
        assert after.results == table.results
        if table.actor == SIMULTANEOUS:
          assert after == table
  assert ends >= batch.num_envs


def test_the_same_seed_replays_the_same_games():
  def run(seed):
    opponents = ["random", {"bot": "heuristic", "params": {"temperature": 1.0}}]  # both draw
    batch = SushiGoBatch(8, opponents=compiled_opponents(GAME_3P, opponents), seed=seed,
                         players=3)
    observations, masks = batch.reset()
    rng, history = np.random.default_rng(0), []
    for _ in range(60):
      observations, rewards, dones, masks = batch.step(random_legal(masks, rng))
      history.append((observations.copy(), rewards.copy(), dones.copy(), masks.copy()))
    return history

  first, again, other = run(3), run(3), run(4)
  for a, b in zip(first, again):
    for x, y in zip(a, b):
      np.testing.assert_array_equal(x, y)
  assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other))


def test_reset_with_a_seed_restarts_the_stream():
  batch = SushiGoBatch(4, seed=0)
  first = batch.reset(seed=9)[0].copy()
  batch.step(batch.reset()[1].argmax(axis=1))
  np.testing.assert_array_equal(batch.reset(seed=9)[0], first)


def test_rewards_follow_the_utility_parameter():
  rng = np.random.default_rng(0)
  for utility, check in (("win", lambda r: set(np.unique(r)) <= {0.0, 0.5, 1.0}),
                         ("margin", lambda r: (r < 0).any() and (r > 0).any())):
    batch = SushiGoBatch(64, seed=1, utility=utility)
    masks = batch.reset()[1]
    paid = []
    for _ in range(27):
      _, rewards, dones, masks = batch.step(random_legal(masks, rng))
      paid += rewards[dones].tolist()
    assert len(paid) == 64 and check(np.array(paid))


def test_the_vector_env_wraps_the_batch():
  from solvers.envs.vector import SushiGoVectorEnv
  env = SushiGoVectorEnv(4, opponents="greedy", seed=0, players=3)
  observations, infos = env.reset(seed=0)
  assert env.observation_space.contains(observations)
  assert (infos["action_mask"] == observations["action_mask"]).all()
  assert (env.action_masks() == observations["action_mask"].astype(bool)).all()
  observations, rewards, terminations, truncations, infos = env.step(
      observations["action_mask"].argmax(axis=1))
  assert env.observation_space.contains(observations)
  assert rewards.shape == terminations.shape == truncations.shape == (4,)
  assert (infos["action_mask"] == observations["action_mask"]).all() and infos["_action_mask"].all()
  assert not infos["illegal_action"].any() and infos["_illegal_action"].all()
  assert (env.action_masks() == observations["action_mask"].astype(bool)).all()


@pytest.mark.parametrize("game", ["python_sushi_go", "python_sushi_draft"])
def test_the_vector_entry_point_runs_unmasked_samples_with_its_defaults(game):
  """A generic library's loop: `action_space.sample()`, no mask. The default rule, "lose", ends
  the games whose samples are illegal with the game's lowest return and starts new ones."""
  env = gymnasium.make_vec("SushiGo-v0", num_envs=16, vectorization_mode="vector_entry_point",
                           game=game, players=3, seed=0)
  env.action_space.seed(0)
  observations, _ = env.reset(seed=0)
  penalty = pyspiel.load_game(game, {"players": 3}).min_utility()
  illegal = 0
  for _ in range(20):
    actions = env.action_space.sample()
    masks = observations["action_mask"].copy()
    observations, rewards, terminations, _, infos = env.step(actions)
    assert env.observation_space.contains(observations)
    expected = masks[np.arange(16), actions] == 0
    assert (infos["illegal_action"] == expected).all()
    assert terminations[expected].all() and (rewards[expected] == penalty).all()
    illegal += expected.sum()
  assert illegal > 0


def test_an_illegal_action_under_lose_ends_that_game_only():
  batch = SushiGoBatch(3, seed=0, players=2, illegal_action="lose", utility="margin")
  masks = batch.reset()[1].copy()
  actions = masks.argmax(axis=1)
  actions[1] = np.flatnonzero(masks[1] == 0)[0]
  _, rewards, dones, _ = batch.step(actions)
  assert batch.illegal().tolist() == [False, True, False]
  assert dones.tolist() == [False, True, False] and rewards[1] == -174.0  # the lowest margin
  table = CompiledSushiGo(batch.rules).decode(batch.positions()[1])
  assert (table.round, table.turn) == (0, 0)  # a new game's first decision
  assert not batch.step(batch.masks().argmax(axis=1))[2].any() and not batch.illegal().any()


def test_random_legal_plays_a_legal_action_drawn_from_the_seed():
  """Against greedy opponents a mid-round step draws nothing but the replacement, so the game
  after it is the game after exactly one of the legal actions, the same for the same seed."""
  def after(seed, action, rule):
    batch = SushiGoBatch(1, opponents="greedy", seed=seed, players=2, illegal_action=rule)
    masks = batch.reset()[1]
    batch.step([action])
    return masks[0].copy(), batch.positions()[0].copy(), batch.illegal()[0]

  drawn = []
  for seed in range(8):
    mask = SushiGoBatch(1, opponents="greedy", seed=seed, players=2).reset()[1][0].copy()
    illegal = int(np.flatnonzero(mask == 0)[0])
    _, position, flagged = after(seed, illegal, "random_legal")
    assert flagged and np.array_equal(after(seed, illegal, "random_legal")[1], position)
    matches = [int(a) for a in np.flatnonzero(mask)
               if np.array_equal(after(seed, int(a), "raise")[1], position)]
    assert len(matches) == 1
    drawn.append(np.flatnonzero(mask).tolist().index(matches[0]))
  assert len(set(drawn)) > 1  # drawn: not always the first (or any fixed) legal action


@pytest.mark.parametrize("kwargs, message", [
    (dict(flavour=1), "python_sushi_go has no parameter 'flavour'; allowed: deal, deck"),
    (dict(players="3"), "parameter 'players' is '3'; allowed: a value of type int"),
    (dict(players=7), "parameter 'players' is 7; allowed: 2 to 5"),
    (dict(opponents="pimc"),
     "opponent 'pimc'; allowed: random, greedy or external by name, or ('heuristic'"),
    (dict(opponents="heuristic"),
     "opponent 'heuristic'; allowed: random, greedy or external by name, or"),
    (dict(opponents=("heuristic", np.zeros(3))), "heuristic parameters array([0., 0., 0.]);"
     " allowed: the finite float64 array of solvers.policy_kernels.heuristic.parameters(values)"),
    (dict(opponents=[("greedy", np.zeros(13))]), "opponent ('greedy', array("),
    (dict(opponents=["random"] * 3), "opponents names 3 polic(ies); allowed: one, or one per"),
    (dict(seat=2), "seat is 2; allowed: 0 to 1"),
    (dict(observation_type="pixels"), "observation_type is 'pixels'; allowed: observation,"),
    (dict(num_envs=0), "num_envs is 0; allowed: a positive integer"),
    (dict(illegal_action="skip"), "illegal_action is 'skip'; allowed: raise, random_legal, lose"),
])
def test_bad_arguments_are_refused(kwargs, message):
  with pytest.raises(ValueError) as error:
    SushiGoBatch(**{"num_envs": 2, **kwargs})
  assert message in str(error.value)


def test_bad_actions_are_refused():
  batch = SushiGoBatch(3, seed=0)
  with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
    batch.step([0, 0, 0])
  masks = batch.reset()[1]
  legal = masks.argmax(axis=1)
  illegal = legal.copy()
  illegal[1] = np.flatnonzero(masks[1] == 0)[0]
  with pytest.raises(ValueError, match=f"action {illegal[1]} of game 1 is not legal there"):
    batch.step(illegal)
  with pytest.raises(ValueError, match="action 96 of game 0 is not legal"):
    batch.step([96, 0, 0])
  with pytest.raises(ValueError, match=r"actions must be 3 integers, one per game; got an array"
                     r" of shape \(2,\)"):
    batch.step(legal[:2])
  with pytest.raises(ValueError, match="dtype float64"):
    batch.step(legal.astype(float))
  batch.step(legal)  # the refused steps changed nothing


def test_bots_named_as_in_configs_become_compiled_policies():
  heuristic, tuned = compiled_opponents(GAME_3P, ["heuristic", {"bot": "heuristic", "params": {
      "deny_weight": 0.5}}])
  assert heuristic[0] == tuned[0] == "heuristic"
  changed = np.flatnonzero(heuristic[1] != tuned[1])
  assert changed.tolist() == [PARAMETER_NAMES.index("deny_weight")] and tuned[1][changed] == 0.5
  assert compiled_opponents(GAME_3P, "greedy") == ["greedy", "greedy"]
  assert compiled_opponents(GAME_3P, {"bot": "random"}) == ["random", "random"]
  with pytest.raises(ValueError, match="bot 'pimc' has no compiled policy for the batched"
                     " environment of python_sushi_go; allowed: random, greedy, heuristic"):
    compiled_opponents(GAME_3P, ["greedy", "pimc"])
  with pytest.raises(ValueError, match="deny"):
    compiled_opponents(GAME_3P, {"bot": "heuristic", "params": {"deny": 1.0}})
  with pytest.raises(ValueError, match="opponents names 3 bots; allowed: one, or one per"):
    compiled_opponents(GAME_3P, ["greedy"] * 3)


@pytest.mark.parametrize("kind", list(observation.KINDS))
@pytest.mark.parametrize("variant", ["2p", "4p-soy-alternate-margin"])
def test_external_seats_observe_as_the_observer_and_play_the_given_actions(variant, kind):
  params = VARIANTS[variant]
  players = params["players"]
  external = [1, players - 1] if players > 2 else [1]
  opponents = ["external"] + ["greedy"] * (players - 3) + ["external"] if players > 2 \
      else "external"
  batch = SushiGoBatch(4, opponents=opponents, seat=0, observation_type=kind, seed=2, **params)
  assert batch.external_seats == external
  game = pyspiel.load_game("python_sushi_go", params)
  greedy = {p: make_bot("greedy", game, p) for p in range(1, players) if p not in external}
  compiled, rules = CompiledSushiGo(batch.rules), batch.rules
  python_observer = observation.observer(rules, observation.KINDS[kind])
  rng = np.random.default_rng(0)
  observations, masks = batch.reset()
  dones = 0
  for _ in range(45):
    chosen = np.stack([random_legal(batch.external_masks()[slot], rng)
                       for slot in range(len(external))], axis=1)
    actions = random_legal(masks, rng)
    expected = []
    for index in range(batch.num_envs):
      table = compiled.decode(batch.positions()[index])
      for slot, seat in enumerate(external):
        python_observer.set_from_table(table, seat)
        np.testing.assert_array_equal(batch.external_observations()[slot, index],
                                      python_observer.tensor)
        assert np.flatnonzero(batch.external_masks()[slot, index]).tolist() == \
            R.legal_actions(rules, table, seat)
      joint = [int(actions[index])] + [
          int(chosen[index, external.index(p)]) if p in external else
          max(greedy[p].policy_at(table), key=lambda e: e[1])[0] for p in range(1, players)]
      expected.append(R.play(rules, table, joint))
    observations, _, done, masks = batch.step(actions, chosen)
    for index, table in enumerate(expected):
      assert done[index] == (table.actor == TERMINAL)
      if not done[index] and table.actor == SIMULTANEOUS:
        assert compiled.decode(batch.positions()[index]) == table
    dones += done.sum()
  assert dones >= batch.num_envs  # every slot went through a reset


def test_external_actions_are_checked():
  batch = SushiGoBatch(3, opponents="external", seed=0)
  masks = batch.reset()[1]
  legal = masks.argmax(axis=1)
  theirs = batch.external_masks()[0].argmax(axis=1)[:, None]
  with pytest.raises(ValueError, match=r"external_actions is None; allowed: 3 x 1 integers, one"
                     r" per game and external seat \[1\]"):
    batch.step(legal)
  wrong = theirs.copy()
  wrong[2, 0] = np.flatnonzero(batch.external_masks()[0, 2] == 0)[0]
  with pytest.raises(ValueError, match=f"external action {wrong[2, 0]} of seat 1 in game 2 is"
                     " not legal there"):
    batch.step(legal, wrong)
  with pytest.raises(ValueError, match=r"external_actions is an array of shape \(3, 1\) and"
                     r" dtype int64; allowed: None \(no seat is external\)"):
    plain = SushiGoBatch(3, seed=0)
    plain.step(plain.reset()[1].argmax(axis=1), theirs)
  batch.step(legal, theirs)


def test_a_step_before_reset_is_refused_with_external_seats_too():
  with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
    SushiGoBatch(2, opponents="external", seed=0).step([0, 0], [[0], [0]])
