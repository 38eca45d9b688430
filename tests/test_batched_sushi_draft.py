"""The batched Sushi Draft environment: its games are the readable rules' games from the same
stream (a replay in Python, slot for slot and draw for draw), its observations are the pyspiel
observer's tensors, its seeds replay its games, and bad input is refused with what is allowed."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.envs.batched_sushi_draft import SushiDraftBatch
from solvers.search import rollouts
from sushigo_spiel.compiled import Xoshiro256
from sushigo_spiel.compiled.sushi_draft import CompiledSushiDraft, codec, observation
from sushigo_spiel.compiled.sushi_draft.layout import build_spec
from sushigo_spiel.drafting.dynamics import TERMINAL
from sushigo_spiel.sushi_draft import rules as R
from sushigo_spiel.sushi_draft.dynamics import DYNAMICS

VARIANTS = {
    "2p": dict(players=2),
    "3p-wild-half-margin": dict(players=3, wild_half=True, utility="margin"),
    "4p-deal-hand": dict(players=4, rounds=2, hand_size=4, deal="hand",
                         deck="tuna:5/shrimp:4/salmon:4/cucumber:3/wild:2"),
    "5p-win": dict(players=5, utility="win"),
}


class PythonBatch:
  """The batch's games replayed on the readable rules: the same slots in the same order, every
  draw (deals, the random opponents' picks) from the same xoshiro stream."""

  def __init__(self, rules: R.Rules, num_envs: int, seat: int, seed: int):
    self.rules, self.seat, self.uniform = rules, seat, Xoshiro256(seed).random
    self.opponent = rollouts.RandomPolicy(DYNAMICS)
    self.tables = [self._new_game() for _ in range(num_envs)]

  def _new_game(self) -> R.Table:
    return R.skip_chance(self.rules, R.initial_table(self.rules), self.uniform)

  def step(self, actions) -> tuple[list[float], list[bool]]:
    rewards, dones = [], []
    for game, table in enumerate(self.tables):
      joint = [int(actions[game]) if p == self.seat else
               self.opponent(self.rules, table, p, self.uniform)
               for p in range(self.rules.num_players)]
      table = R.skip_chance(self.rules, R.play(self.rules, table, joint), self.uniform)
      done = table.actor == TERMINAL
      rewards.append(R.returns(self.rules, table)[self.seat] if done else 0.0)
      dones.append(done)
      self.tables[game] = self._new_game() if done else table
    return rewards, dones


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
  return (masks * rng.random(masks.shape)).argmax(axis=1)


@pytest.mark.parametrize("kind", list(observation.KINDS))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_batch_plays_the_rules_games_from_the_same_seed(variant, kind):
  """Slot for slot, step for step: the same positions, masks, rewards and ends as the readable
  rules replaying the same stream, and the observations are the Python observer's tensors."""
  params = VARIANTS[variant]
  seat = params["players"] - 1
  batch = SushiDraftBatch(3, seat=seat, observation_type=kind, seed=11, **params)
  replay = PythonBatch(batch.rules, 3, seat, 11)
  compiled = CompiledSushiDraft(batch.rules)
  python_observer = observation.observer(batch.rules, observation.KINDS[kind])
  rng = np.random.default_rng(0)
  observations, masks = batch.reset()
  ends = 0
  for _ in range(2 * batch.rules.max_game_length + 3):
    for game, table in enumerate(replay.tables):
      assert compiled.decode(batch.positions()[game]) == table
      python_observer.set_from_table(table, seat)
      np.testing.assert_array_equal(observations[game], python_observer.tensor)
      assert np.flatnonzero(masks[game]).tolist() == R.legal_actions(batch.rules, table, seat)
    actions = random_legal(masks, rng)
    rewards, dones = replay.step(actions)
    observations, batch_rewards, batch_dones, masks = batch.step(actions)
    assert batch_dones.tolist() == dones
    np.testing.assert_allclose(batch_rewards, rewards)
    ends += sum(dones)
  assert ends >= 2 * batch.num_envs  # every slot finished a game and went on in a new one


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), rounds=st.integers(1, 3), hand_size=st.integers(3, 6),
       wild_half=st.booleans(), seed=st.integers(0, 2**32))
def test_every_players_tensors_are_the_observers_at_every_node(players, rounds, hand_size,
                                                               wild_half, seed):
  """Both kernels against the Python observer, for every player, at every node of a random game
  (chance nodes, Eat and Keep steps, the end), in random configurations."""
  rules = R.Rules.from_params(players=players, rounds=rounds, hand_size=hand_size,
                              wild_half=wild_half)
  spec, uniform = build_spec(rules), random.Random(seed).random
  checks = {kind: (observation.observer(rules, kind), observation.piece_offsets(rules, kind),
                   observation.encode_observation if kind == observation.OBSERVATION else
                   observation.encode_information_state) for kind in observation.KINDS.values()}
  table = R.initial_table(rules)
  while True:
    for shown in (table, table := R.skip_chance(rules, table, uniform)):
      pos = codec.encode(rules, spec, shown)
      for python_observer, offsets, encode in checks.values():
        out = np.full(len(python_observer.tensor), 7.0, dtype=np.float32)  # all overwritten
        for player in range(players):
          python_observer.set_from_table(shown, player)
          encode(spec, pos, player, offsets, out)
          np.testing.assert_array_equal(out, python_observer.tensor)
    if table.actor == TERMINAL:
      break
    table = R.play(rules, table, [random.Random(seed + p).choice(R.legal_actions(rules, table, p))
                                  for p in range(players)])


def test_the_same_seed_replays_the_same_games():
  def run(seed):
    batch = SushiDraftBatch(8, seed=seed, players=3, observation_type="information_state")
    masks = batch.reset()[1]
    rng, history = np.random.default_rng(0), []
    for _ in range(40):
      observations, rewards, dones, masks = batch.step(random_legal(masks, rng))
      history.append((observations.copy(), rewards.copy(), dones.copy(), masks.copy()))
    return history

  first, again, other = run(3), run(3), run(4)
  for a, b in zip(first, again):
    for x, y in zip(a, b):
      np.testing.assert_array_equal(x, y)
  assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other))


def test_an_illegal_action_loses_the_game_when_asked():
  batch = SushiDraftBatch(2, seed=0, players=2, illegal_action="lose", utility="margin")
  masks = batch.reset()[1].copy()
  illegal = int(np.flatnonzero(masks[1] == 0)[0])
  _, rewards, dones, _ = batch.step([int(masks[0].argmax()), illegal])
  assert batch.illegal().tolist() == [False, True] and dones.tolist() == [False, True]
  assert rewards[1] == batch.illegal_reward == -53.0  # the game's lowest margin
  table = CompiledSushiDraft(batch.rules).decode(batch.positions()[1])
  assert (table.round, table.turn, table.keeping, table.log) == (0, 0, False, ())  # a new game


@pytest.mark.parametrize("kwargs, message", [
    (dict(flavour=1), "python_sushi_draft has no parameter 'flavour'; allowed: chips, deal"),
    (dict(players=6), "parameter 'players' is 6; allowed: 2 to 5"),
    (dict(opponents="greedy"), "opponent 'greedy'; allowed for Sushi Draft: random"),
    (dict(opponents=["random"] * 3), "opponents names 3 polic(ies); allowed: one, or one per"),
    (dict(seat=2), "seat is 2; allowed: 0 to 1"),
    (dict(observation_type="pixels"), "observation_type is 'pixels'; allowed: observation,"),
    (dict(illegal_action="skip"), "illegal_action is 'skip'; allowed: raise, random_legal, lose"),
    (dict(num_envs=0), "num_envs is 0; allowed: a positive integer"),
    (dict(illegal_reward=float("inf")), "illegal_reward is inf; allowed: a finite number"),
])
def test_bad_arguments_are_refused(kwargs, message):
  with pytest.raises(ValueError) as error:
    SushiDraftBatch(**{"num_envs": 2, "players": 2, **kwargs})
  assert message in str(error.value)


def test_bad_actions_are_refused():
  batch = SushiDraftBatch(2, seed=0, players=2)
  masks = batch.reset()[1]
  illegal = int(np.flatnonzero(masks[0] == 0)[0])
  with pytest.raises(ValueError, match=f"action {illegal} of game 0 is not legal there"):
    batch.step([illegal, int(masks[1].argmax())])
