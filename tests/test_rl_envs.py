"""The PettingZoo and Gymnasium environments: PettingZoo's and Gymnasium's own checkers pass, the
observations are the observer's, rewards follow `utility`, seeds replay episodes, rendering tells
the game as `sushigo play` does, and bad input is refused with what is allowed."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test

import solvers.envs  # noqa: F401  (registers SushiGo-v0)
from solvers.envs.single_agent import SushiGoEnv
from sushigo_spiel.envs import petting_zoo

GAMES = {
    "sushi-go-3p": ("python_sushi_go", dict(players=3)),
    "sushi-go-robot-information-state": ("python_sushi_go", dict(
        players=2, robot=True, observation_type="information_state")),
    "sushi-go-5p-soy-alternate": ("python_sushi_go", dict(players=5, soy_sauce=True,
                                                          pass_direction="alternate")),
    "sushi-draft-3p": ("python_sushi_draft", dict(players=3)),
    "sushi-draft-2p-deal-hand": ("python_sushi_draft", dict(players=2, deal="hand")),
}


def play_out(env, seed: int):
  """Plays a parallel env to its end with random legal actions; the last step's results."""
  rng = np.random.default_rng(seed)
  observations, _ = env.reset(seed=seed)
  while env.agents:
    actions = {agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
               for agent in env.agents}
    observations, rewards, terminations, truncations, infos = env.step(actions)
  return observations, rewards, terminations, truncations


@pytest.mark.parametrize("name", list(GAMES))
def test_pettingzoo_checkers_pass(name):
  game, params = GAMES[name]
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the checkers' advice for non-Box observations
    parallel_api_test(petting_zoo.parallel_env(game, **params), num_cycles=100)
    api_test(petting_zoo.env(game, **params), num_cycles=100)
    seed_test(lambda: petting_zoo.env(game, **params), num_cycles=50)


def test_the_global_state_shows_every_hand():
  env = petting_zoo.parallel_env("python_sushi_go", players=3)
  env.reset(seed=2)
  state = env.pyspiel_state()
  everything = state.get_game().make_py_observer(pyspiel.IIGObservationType(
      perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
  everything.set_from(state, 0)
  np.testing.assert_array_equal(env.state(), everything.tensor)
  hands = everything.dict["hands"]
  assert hands.shape[0] == 3 and (hands.sum(axis=1) == 9).all()  # 9 cards a hand at 3 players


def test_observations_are_the_observers_and_masks_the_legal_actions():
  env = petting_zoo.parallel_env("python_sushi_go", players=3, observation_type="information_state")
  observations, _ = env.reset(seed=3)
  observations, *_ = env.step({agent: int(np.flatnonzero(observations[agent]["action_mask"])[0])
                               for agent in env.agents})
  state = env.pyspiel_state()
  for player, agent in enumerate(env.possible_agents):
    np.testing.assert_array_equal(observations[agent]["observation"],
                                  state.information_state_tensor(player))
    assert np.flatnonzero(observations[agent]["action_mask"]).tolist() == \
        state.legal_actions(player)


@pytest.mark.parametrize("utility", ["score", "margin", "win"])
def test_rewards_are_the_returns_at_the_end(utility):
  env = petting_zoo.parallel_env("python_sushi_go", players=3, rounds=1, utility=utility)
  _, rewards, terminations, truncations = play_out(env, seed=1)
  assert list(rewards.values()) == env.pyspiel_state().returns()
  assert all(terminations.values()) and not any(truncations.values()) and env.agents == []


def test_the_same_seed_replays_the_same_game():
  def game(seed):
    env = petting_zoo.parallel_env("python_sushi_draft", players=3)
    play_out(env, seed)
    return env.pyspiel_state().history()

  assert game(4) == game(4) != game(5)


def test_rendering_tells_each_move_as_sushigo_play(capsys):
  env = petting_zoo.parallel_env("python_sushi_go", players=2, rounds=1, render_mode="human")
  observations, _ = env.reset(seed=0)
  assert capsys.readouterr().out.startswith("Game: python_sushi_go(")
  texts = []
  while env.agents:
    observations, *_ = env.step({agent: int(np.flatnonzero(observations[agent]["action_mask"])[0])
                                 for agent in env.agents})
    texts.append(capsys.readouterr().out)
  assert texts[0].startswith("\nRound 1/1, turn 1/10\n  player  plays")
  assert "from hand" in texts[0]
  last = texts[-1]
  for part in ("last cards, played automatically", "Round 1 scores", "Final scores", "Winner"):
    assert part in last
  ansi = petting_zoo.parallel_env("python_sushi_go", players=2, rounds=1, render_mode="ansi")
  observations, _ = ansi.reset(seed=0)
  for text in texts:
    observations, *_ = ansi.step({a: int(np.flatnonzero(observations[a]["action_mask"])[0])
                                  for a in ansi.agents})
    assert ansi.render() + "\n" == text


def test_pettingzoo_bad_input_is_refused():
  with pytest.raises(ValueError, match="python_sushi_go has no parameter 'colour'; allowed:"):
    petting_zoo.parallel_env("python_sushi_go", colour="red")
  with pytest.raises(ValueError, match="unknown game 'chess'; allowed: python_sushi_go,"):
    petting_zoo.parallel_env("chess")
  with pytest.raises(ValueError, match="render_mode is 'rgb_array'; allowed: None, human, ansi"):
    petting_zoo.parallel_env(render_mode="rgb_array")
  env = petting_zoo.parallel_env("python_sushi_go", players=2)
  with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
    env.step({})
  observations, _ = env.reset(seed=0)
  illegal = int(np.flatnonzero(observations["player_1"]["action_mask"] == 0)[0])
  with pytest.raises(ValueError, match=f"player_1 cannot play action {illegal} here; allowed: "):
    env.step({"player_0": int(np.flatnonzero(observations["player_0"]["action_mask"])[0]),
              "player_1": illegal})
  with pytest.raises(ValueError, match="missing: \\['player_1'\\], not playing: \\['player_7'\\]"):
    env.step({"player_0": 0, "player_7": 0})
  with pytest.raises(ValueError, match="unknown agent 'player_7'"):
    env.action_space("player_7")
  play_out(env, seed=0)
  with pytest.raises(RuntimeError, match=r"the game is over: call reset\(\)"):
    env.step({"player_0": 0, "player_1": 0})


def test_gymnasium_checker_passes_with_the_defaults():
  """`gymnasium.make("SushiGo-v0")` as it comes: the checker steps `action_space.sample()`."""
  env = gymnasium.make("SushiGo-v0")
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # not even a warning
    check_env(env.unwrapped)


@pytest.mark.parametrize("rule", ["lose", "random_legal"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("game", ["python_sushi_go", "python_sushi_draft"])
def test_gymnasium_checker_passes_for_every_game_player_count_and_rule(game, players, rule,
                                                                      capsys):
  """Every rule but "raise", which refuses the unmasked samples the checker steps by design
  (`test_raise_names_the_allowed_actions`)."""
  env = gymnasium.make("SushiGo-v0", game=game, players=players, illegal_action=rule,
                       opponents="random")
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    check_env(env.unwrapped)  # the render check prints the "human" mode's text
  assert "Game: " in capsys.readouterr().out


def test_the_checker_passes_against_search_bots():
  env = gymnasium.make("SushiGo-v0", players=3,
                       opponents=["heuristic", {"bot": "pimc", "params": {"iterations": 2}}])
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("game", ["python_sushi_go", "python_sushi_draft"])
def test_an_episode_playing_action_0_throughout(game):
  """What a learner blind to the mask meets: under "random_legal" whole games, paid their
  returns; under "lose" (the default) the first illegal 0 ends the episode with the penalty."""
  for rule in ("random_legal", "lose"):
    env = SushiGoEnv(game, players=2, illegal_action=rule)
    observation, info = env.reset(seed=4)
    steps, legal_zeros, terminated = 0, 0, False
    while not terminated:
      legal = bool(info["action_mask"][0])
      assert (info["action_mask"] == observation["action_mask"]).all()
      observation, reward, terminated, truncated, info = env.step(0)
      steps, legal_zeros = steps + 1, legal_zeros + legal
      assert not truncated
      if not legal:
        assert "cannot play action 0 here; allowed: " in info["illegal_action"]
        if rule == "lose":
          break
    state = env.players.pyspiel_state()
    if rule == "random_legal":
      assert state.is_terminal() and reward == state.returns()[0]
      assert steps == env.game.rules.max_game_length if game == "python_sushi_draft" else \
          steps > legal_zeros
    else:
      assert terminated and not state.is_terminal() and steps == legal_zeros + 1
      assert reward == env.game.min_utility()


def test_raise_names_the_allowed_actions():
  env = SushiGoEnv(players=2, illegal_action="raise")
  observation, _ = env.reset(seed=0)
  illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
  legal = np.flatnonzero(observation["action_mask"]).tolist()
  state = env.players.pyspiel_state()
  named = "; ".join(f"{a} ({state.action_to_string(0, a)})" for a in legal)
  with pytest.raises(ValueError) as error:
    env.step(illegal)
  assert str(error.value) == f"player_0 cannot play action {illegal} here; allowed: {named}"


def test_random_legal_plays_a_legal_action_drawn_from_the_seed():
  def played(seed):
    env = SushiGoEnv(players=2, illegal_action="random_legal")
    observation, _ = env.reset(seed=seed)
    legal = np.flatnonzero(observation["action_mask"]).tolist()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = len(env.players.pyspiel_state().history())
    _, reward, terminated, _, info = env.step(illegal)
    history = env.players.pyspiel_state().history()
    action = int(info["illegal_action"].split("played ")[1].split()[0])
    assert action in legal and not terminated and reward == 0
    assert history[before] == action  # the learner's part of the joint move (the turn-based form)
    return action, history

  first = [played(seed) for seed in range(6)]
  assert first == [played(seed) for seed in range(6)]  # reproducible from the seed
  assert len({action for action, _ in first}) > 1  # and drawn, not fixed


def test_lose_ends_the_episode_with_the_lowest_return():
  for utility, penalty in (("score", 0.0), ("margin", -174.0), ("win", 0.0)):
    env = SushiGoEnv(players=2, utility=utility)  # "lose" is the default
    assert env.illegal_action == "lose" and env.illegal_reward == penalty == env.game.min_utility()
    observation, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observation, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (penalty, True, False)
    assert info["illegal_action"].startswith(f"player_0 cannot play action {illegal} here")
    with pytest.raises(RuntimeError, match="the episode is over"):
      env.step(int(np.flatnonzero(observation["action_mask"])[0]))
  assert SushiGoEnv(players=2, illegal_reward=-5).illegal_reward == -5.0


def test_gymnasium_env_plays_whole_episodes_reproducibly():
  def episode(seed):
    env = SushiGoEnv(players=2, opponents="greedy", utility="margin")
    observation, _ = env.reset(seed=seed)
    rng, rewards = np.random.default_rng(0), []
    done = False
    while not done:
      assert env.observation_space.contains(observation)
      assert (env.action_masks() == observation["action_mask"].astype(bool)).all()
      action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
      observation, reward, done, truncated, _ = env.step(action)
      rewards.append(reward)
    return rewards, env.players.pyspiel_state().history()

  first = episode(7)
  assert first == episode(7) and first != episode(8)
  assert all(r == 0 for r in first[0][:-1]) and first[0][-1] != 0


def test_gymnasium_bad_input_is_refused():
  env = SushiGoEnv(players=2)
  with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
    env.step(0)
  with pytest.raises(RuntimeError, match=r"action_masks\(\) before reset\(\)"):
    env.action_masks()
  observation, _ = env.reset(seed=0)
  for wrong in (1.5, "3", True, np.array([1])):  # a caller's mistake, not an illegal move
    with pytest.raises(ValueError, match="; allowed: an integer action id, 0 to 95"):
      env.step(wrong)
  legal = int(np.flatnonzero(observation["action_mask"])[0])
  assert not env.step(np.array(legal))[2]  # a 0-d integer array is an integer
  for kwargs, message in [
      (dict(opponents=["random"] * 2), "opponents names 2 bots; allowed: one, or one per"),
      (dict(opponents="nosuch"), "unknown bot 'nosuch'; allowed: random"),
      (dict(opponents={"bot": "heuristic", "params": {"nosuch": 1}}), "unknown parameter"),
      (dict(seat=3), "seat is 3; allowed: 0 to 1"),
      (dict(illegal_action="ignore"), "illegal_action is 'ignore'; allowed: raise, random_legal,"
       " lose"),
      (dict(illegal_reward=float("nan")), "illegal_reward is nan; allowed: a finite number"),
      (dict(illegal_reward="-1"), "illegal_reward is '-1'; allowed: a finite number, or None"),
      (dict(hand_size="ten"), "parameter 'hand_size' is 'ten'; allowed: a value of type int")]:
    with pytest.raises(ValueError, match=message):
      SushiGoEnv(**{"players": 2, **kwargs})


def test_openspiel_observation_matches_the_gymnasium_observation():
  env = SushiGoEnv(players=3, opponents="random", seat=2)
  observation, _ = env.reset(seed=1)
  np.testing.assert_array_equal(observation["observation"],
                                env.players.pyspiel_state().observation_tensor(2))
  assert isinstance(env.players.pyspiel_state(), pyspiel.State)
