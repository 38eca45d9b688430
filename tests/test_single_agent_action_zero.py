"""Action 0 through the single-agent environment (`SushiGoEnv`, solvers/envs/single_agent.py):
the lowest action id is an action like any other, legal exactly when the mask says so, under every
rule for illegal actions ("raise" leaves the check to the game layer, "lose" and "random_legal"
check the mask themselves). Played from fixed seeds, so the states where action 0 is legal are the same on
every run.
"""

from __future__ import annotations

import numpy as np
import pytest

from solvers.envs.single_agent import SushiGoEnv

PLAYERS = 2
SEEDS = range(40)


def first_seed(seat: int, legal: bool) -> int:
  """The first seed of SEEDS whose first observation at `seat` has action 0 legal (or not)."""
  for seed in SEEDS:
    observation, _ = SushiGoEnv(players=PLAYERS, seat=seat).reset(seed=seed)
    if bool(observation["action_mask"][0]) == legal:
      return seed
  raise AssertionError(f"no seed of {SEEDS} has action 0 {'legal' if legal else 'illegal'}")


def step_each(seed: int, seat: int, action):
  """The first step of `action` from `seed` in a "raise", a "lose" and a "random_legal"
  environment."""
  results = []
  for handling in ("raise", "lose", "random_legal"):
    env = SushiGoEnv(players=PLAYERS, opponents="greedy", seat=seat, illegal_action=handling)
    observation, _ = env.reset(seed=seed)
    assert observation["action_mask"][0] == 1 and env.action_masks()[0]
    results.append((env, env.step(action)))
  return results


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("action", [0, np.int64(0)], ids=["int", "numpy_int"])
def test_a_legal_action_zero_is_played(seat, action):
  (raising, raised), *checking = step_each(first_seed(seat, legal=True), seat, action)
  for env, (observation, reward, terminated, truncated, info) in checking:
    assert "illegal_action" not in info, info
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.players.agents, "the episode ended on a legal move"
    # The same move as where the game layer checks it: the same table afterwards.
    assert env.players.pyspiel_state().history() == raising.players.pyspiel_state().history()
    np.testing.assert_array_equal(observation["observation"], raised[0]["observation"])
    np.testing.assert_array_equal(observation["action_mask"], raised[0]["action_mask"])


def test_an_illegal_action_zero_ends_a_losing_episode():
  env = SushiGoEnv(players=PLAYERS, illegal_action="lose", illegal_reward=-3)
  observation, _ = env.reset(seed=first_seed(0, legal=False))
  assert observation["action_mask"][0] == 0 and not env.action_masks()[0]
  _, reward, terminated, _, info = env.step(0)
  assert (reward, terminated) == (-3.0, True)
  assert info["illegal_action"].startswith("player_0 cannot play action 0 here")


def lowest_legal_episode(seed: int, handling: str) -> tuple[list[float], list[int], object]:
  """A whole episode of the learner always playing its lowest legal action."""
  env = SushiGoEnv(players=PLAYERS, opponents="random", illegal_action=handling)
  observation, _ = env.reset(seed=seed)
  rewards, actions, done = [], [], False
  while not done:
    action = int(np.flatnonzero(observation["action_mask"])[0])
    observation, reward, done, _, info = env.step(action)
    assert "illegal_action" not in info, info
    rewards.append(reward)
    actions.append(action)
  return rewards, actions, env.players.pyspiel_state()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_lowest_legal_action_plays_whole_episodes(seed):
  rewards, actions, state = lowest_legal_episode(seed, "lose")
  assert state.is_terminal()
  assert rewards[-1] == state.returns()[0] and all(r == 0 for r in rewards[:-1])
  assert (rewards, actions) == lowest_legal_episode(seed, "raise")[:2] == \
      lowest_legal_episode(seed, "random_legal")[:2]


def test_the_episodes_do_play_action_zero():
  """The episodes above are a test of action 0: it is the lowest legal action somewhere in them."""
  assert any(0 in lowest_legal_episode(seed, "raise")[1] for seed in (0, 1, 2))
