"""`SushiGo-v0` (solvers/envs/single_agent.py) against its documented contract, step by step: the
seeding scheme replayed by hand on the PettingZoo environment underneath, opponents seated in the
other seats in order, the defaults, actions outside the action space, and what each rule for
illegal actions returns."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from solvers import make_bot
from solvers.envs.single_agent import SushiGoEnv
from sushigo_spiel.envs.petting_zoo import DraftingParallelEnv

SEEDS_BELOW = 2**63  # each episode's seeds: any int64 seed, drawn from the environment's generator


def lowest_legal(observation) -> int:
  return int(np.flatnonzero(observation["action_mask"])[0])


def by_hand(seed: int, seat: int, opponents: list, **params) -> list[tuple]:
  """The episode docs/rl.md ("Seeding") describes, replayed on the PettingZoo environment: the
  generator seeded by `seed` draws each opponent seat's bot seed in seat order, then the deal's
  seed; the learner plays its lowest legal action. Each step's (observation, reward, done)."""
  rng, _ = gymnasium.utils.seeding.np_random(seed)
  players = DraftingParallelEnv("python_sushi_go", None, "observation", **params)
  others = [p for p in range(players.game.num_players()) if p != seat]
  specs = [{"bot": spec, "params": {}} if isinstance(spec, str) else spec for spec in opponents]
  bots = {p: make_bot(spec["bot"], players.game, p, int(rng.integers(SEEDS_BELOW)),
                      **spec["params"]) for p, spec in zip(others, specs)}
  observations, _ = players.reset(seed=int(rng.integers(SEEDS_BELOW)))
  me = players.possible_agents[seat]
  steps = [(observations[me]["observation"].tolist(), 0.0, False)]
  while players.agents:
    actions = {players.possible_agents[p]: bot.step(players.pyspiel_state())
               for p, bot in bots.items()}
    actions[me] = lowest_legal(observations[me])
    observations, rewards, terminations, _, _ = players.step(actions)
    steps.append((observations[me]["observation"].tolist(), rewards[me], terminations[me]))
  return steps


def played(env: SushiGoEnv, seed: int) -> list[tuple]:
  observation, info = env.reset(seed=seed)
  assert (info["action_mask"] == observation["action_mask"]).all()
  steps, done = [(observation["observation"].tolist(), 0.0, False)], False
  while not done:
    observation, reward, done, truncated, info = env.step(lowest_legal(observation))
    assert not truncated and (info["action_mask"] == observation["action_mask"]).all()
    steps.append((observation["observation"].tolist(), reward, done))
  return steps


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_episodes_follow_the_documented_seeding_and_seating(seat):
  """Three players, two different opponents (one per other seat, in seat order; the heuristic
  with a temperature, so that it draws from its seed): every step is the one replayed by hand,
  for two seeds and each seat of the learner."""
  opponents = ["greedy", {"bot": "heuristic", "params": {"temperature": 2.0}}]
  for seed in (3, 11):
    env = SushiGoEnv(players=3, seat=seat, opponents=opponents, utility="margin")
    assert played(env, seed) == by_hand(seed, seat, opponents, players=3, utility="margin")


def test_the_defaults_are_sushi_go_against_random_bots_from_seat_0():
  env = SushiGoEnv(players=3)
  assert env.game.get_type().short_name == "python_sushi_go" and env.seat == 0
  assert env.agent == "player_0" and env.illegal_action == "lose"
  assert env.opponents == [{"bot": "random", "params": {}}] * 2
  assert played(env, 5) == by_hand(5, 0, ["random", "random"], players=3)


def test_every_seat_of_the_table_and_no_other_is_allowed():
  for seat in range(4):
    env = SushiGoEnv(players=4, seat=seat)
    assert env.agent == f"player_{seat}"
    observation, _ = env.reset(seed=0)
    np.testing.assert_array_equal(observation["observation"],
                                  env.players.pyspiel_state().observation_tensor(seat))
  for seat in (-1, 4, 1.0):
    with pytest.raises(ValueError, match=rf"^seat is {seat!r}; allowed: 0 to 3$"):
      SushiGoEnv(players=4, seat=seat)


def test_a_bad_opponent_is_refused_when_the_environment_is_made():
  with pytest.raises(ValueError, match="unknown parameter"):
    SushiGoEnv(players=3, opponents=["random", {"bot": "heuristic", "params": {"nosuch": 1}}])


@pytest.mark.parametrize("action", [96, 200, -1])
def test_an_action_outside_the_action_space_is_illegal(action):
  """Ids past the action space, and negative ids (not read from the end of the mask), are
  illegal moves under each rule."""
  env = SushiGoEnv(players=2)
  observation, _ = env.reset(seed=0)
  assert env.action_space.n == 96
  legal = np.flatnonzero(observation["action_mask"]).tolist()
  _, reward, terminated, _, info = env.step(action)
  assert (reward, terminated) == (env.game.min_utility(), True)
  assert info["illegal_action"] == f"player_0 cannot play action {action} here; allowed: {legal}"
  env = SushiGoEnv(players=2, illegal_action="random_legal")
  env.reset(seed=0)
  _, _, terminated, _, info = env.step(action)
  assert not terminated
  assert info["illegal_action"].startswith(f"player_0 cannot play action {action} here; allowed:"
                                           f" {legal}; played ")
  assert info["illegal_action"].endswith(" instead, drawn at random")


def test_losing_on_an_illegal_action_returns_the_last_observation_and_its_mask():
  env = SushiGoEnv(players=2, illegal_reward=-7)
  observation, _ = env.reset(seed=0)
  kept = {key: value.copy() for key, value in observation.items()}
  illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
  last, reward, terminated, truncated, info = env.step(illegal)
  assert (reward, terminated, truncated) == (-7.0, True, False)
  assert last.keys() == kept.keys()
  for key, value in kept.items():
    np.testing.assert_array_equal(last[key], value)
  np.testing.assert_array_equal(info["action_mask"], kept["action_mask"])
  assert set(info) == {"illegal_action", "action_mask"}
  assert env.players.agents == []  # no live agent, a list as PettingZoo's API has it
  env.reset(seed=1)  # a new episode leaves what the last one returned as it was
  for key, value in kept.items():
    np.testing.assert_array_equal(last[key], value)


def test_the_action_mask_is_the_observations_as_booleans():
  env = SushiGoEnv(players=2)
  observation, _ = env.reset(seed=2)
  mask = env.action_masks()
  assert mask.dtype == bool
  np.testing.assert_array_equal(mask, observation["action_mask"] == 1)


def test_the_observation_type_is_passed_on():
  env = SushiGoEnv(players=3, seat=1, observation_type="information_state")
  observation, _ = env.reset(seed=0)
  np.testing.assert_array_equal(observation["observation"],
                                env.players.pyspiel_state().information_state_tensor(1))


def test_rendering_is_the_parallel_environments():
  env = SushiGoEnv(players=2, render_mode="ansi")
  assert env.render_mode == "ansi"  # read by Gymnasium's wrappers and checker
  assert env.metadata["render_modes"] == ["human", "ansi"]
  observation, _ = env.reset(seed=0)
  assert env.render() == f"Game: {env.game}"
  env.step(lowest_legal(observation))
  assert env.render() == env.players.render() != f"Game: {env.game}"


def test_calls_out_of_order_are_refused_in_whole_sentences():
  env = SushiGoEnv(players=2)
  with pytest.raises(RuntimeError, match=r"^step\(\) before reset\(\): call reset\(\) first$"):
    env.step(0)
  with pytest.raises(RuntimeError,
                     match=r"^action_masks\(\) before reset\(\): call reset\(\) first$"):
    env.action_masks()
  observation, _ = env.reset(seed=0)
  env.step(int(np.flatnonzero(observation["action_mask"] == 0)[0]))  # "lose": the episode ends
  with pytest.raises(RuntimeError,
                     match=r"^the episode is over: call reset\(\) to start a new one$"):
    env.step(0)
