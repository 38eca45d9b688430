"""Sushi Draft's compiled core plays the games of the readable rules, step for step.

Each game is played through both in lockstep (`lockstep`: one random stream drives both, and
every step is compared: legal actions, chance outcomes and their probabilities, the sampled
outcome, the decoded position against the rules' table with piles, chips, round results and the
log, the uniforms drawn; at sampled positions every player's determinization, `knowledge.
determinize`, whose steps `resample_from_infostate` replays, rejected attempts included; at the
end the chip points and returns). `test_core_plays_the_rules_games` runs 20 games per
configuration, the `slow` one 300. Then the observation key, playouts, the kernel interface and
checked input.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from solvers.search import rollouts
from sushigo_spiel.compiled import Xoshiro256, new_state
from sushigo_spiel.compiled.interface import GameKernels, play_pointer
from sushigo_spiel.compiled.sushi_draft import CompiledSushiDraft
from sushigo_spiel.drafting.dynamics import TERMINAL
from sushigo_spiel.sushi_draft import knowledge
from sushigo_spiel.sushi_draft import rules as R
from sushigo_spiel.sushi_draft.dynamics import DYNAMICS
from lockstep import play_games

# Reduced decks: none or one Wild, as many Wilds as the rules allow, small enough to list every
# hand of a deal=hand chance node.
NO_WILDS = "tuna:6/shrimp:6/salmon:5/cucumber:4/mackerel:4"
ONE_WILD = "tuna:4/shrimp:4/salmon:3/cucumber:3/mackerel:1/wild:1"
WILD_HEAVY = "tuna:4/shrimp:3/salmon:2/wild:4"  # hand_size 5: the most Wilds allowed
SMALL = "tuna:3/shrimp:3/salmon:2/cucumber:2/wild:2"
SMALL_ONE_WILD = "tuna:3/shrimp:3/salmon:2/cucumber:2/wild:1"  # for hands of two cards
# Custom chips: one chip a pile; then piles of 1 to 6 chips, one of six distinct values.
ONE_CHIP = "tuna:5/shrimp:4/salmon:3/cucumber:2/mackerel:1/dessert:3"
LONG_PILES = "tuna:1.2.3.4.5.6/shrimp:2.2.3/salmon:1.1/cucumber:4/mackerel:3.3.3.1/dessert:1.2.5.5"

CONFIGS = {
    "2p-standard": dict(players=2),
    "3p-standard-wild-half-margin": dict(players=3, wild_half=True, utility="margin"),
    "4p-standard-win": dict(players=4, utility="win"),
    "5p-standard-wild-half": dict(players=5, wild_half=True),
    "3p-no-wilds-one-chip-piles": dict(players=3, rounds=4, deck=NO_WILDS, chips=ONE_CHIP),
    "2p-wild-heavy-wild-half-win": dict(players=2, hand_size=5, deck=WILD_HEAVY, wild_half=True,
                                        utility="win"),
    "4p-long-piles-margin": dict(players=4, rounds=5, hand_size=4, chips=LONG_PILES,
                                 utility="margin"),
    "5p-one-wild-wild-half-win": dict(players=5, rounds=2, hand_size=3, deck=ONE_WILD,
                                      wild_half=True, utility="win"),
    "2p-hand-wild-half": dict(players=2, deal="hand", rounds=2, hand_size=3, deck=SMALL,
                              wild_half=True),
    "3p-hand-one-chip-margin": dict(players=3, deal="hand", rounds=3, hand_size=3, deck=SMALL,
                                    chips=ONE_CHIP, utility="margin"),
    "4p-hand-win": dict(players=4, deal="hand", rounds=2, hand_size=3, deck=SMALL,
                        utility="win"),
    "5p-hand-two-cards": dict(players=5, deal="hand", rounds=3, hand_size=2,
                              deck=SMALL_ONE_WILD),
    "3p-standard-hand-wild-half": dict(players=3, deal="hand", wild_half=True),
}
# Of the positions, where every player's determinization is compared: the rules' rejection
# sampler is slow in Python (it is nine tenths of the slow run' time at a share of 0.1), so the
# long run compares a few hundred positions per configuration and the fast run more often; the
# distribution itself is checked exactly against resample_from_infostate.
DETERMINIZE_SHARE, FAST_DETERMINIZE_SHARE = 0.005, 0.04
FAST_GAMES = 20


@pytest.fixture(scope="module")
def cores():
  return {}


def _core(cores, name: str) -> CompiledSushiDraft:
  if name not in cores:
    cores[name] = CompiledSushiDraft.from_params(**CONFIGS[name])
  return cores[name]


@pytest.mark.parametrize("name", CONFIGS)
def test_core_plays_the_rules_games(cores, name):
  play_games(_core(cores, name), DYNAMICS, FAST_GAMES, FAST_DETERMINIZE_SHARE)


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGS)
def test_core_plays_the_rules_games_300_per_configuration(cores, name):
  play_games(_core(cores, name), DYNAMICS, 300, DETERMINIZE_SHARE)


def _random_games(rules: R.Rules, games: int, visit=None):
  """The final tables of random games through the rules, `visit(table)` called at every
  decision."""
  finals = []
  for seed in range(games):
    uniform, table = random.Random(seed).random, R.initial_table(rules)
    while (table := R.skip_chance(rules, table, uniform)).actor != TERMINAL:
      if visit:
        visit(table)
      table = R.play(rules, table, [rollouts.RandomPolicy(DYNAMICS)(rules, table, p, uniform)
                                    for p in range(rules.num_players)])
    finals.append(table)
  return finals


def test_the_configurations_reach_what_they_are_for(cores, monkeypatch):
  # Wilds are eaten as each sushi type; a chip is passed over a tie to the next player; a pile
  # runs out before a round's winner takes its chip; the determinizations redraw attempts that
  # contradicted an observation (the rejection loop the kernels must follow draw for draw).
  wild_heavy = _core(cores, "2p-wild-heavy-wild-half-win").rules
  wild_types = {a - R.WILD_EAT for table in _random_games(wild_heavy, 30)
                for result in table.results for eats in result.eaten for a in eats
                if a >= R.WILD_EAT}
  assert len(wild_types) >= 3
  one_chip = _core(cores, "3p-no-wilds-one-chip-piles").rules
  passed_over = run_out = 0
  for table in _random_games(one_chip, 30):
    for result in table.results:
      for pile, counts in enumerate(R.pile_counts(one_chip, result.eaten)):
        winner = R.chip_winner(counts)
        passed_over += winner != R.NOBODY and counts[winner] < max(counts)
        run_out += winner != R.NOBODY and pile not in [chip.pile for chip in result.awards]
  assert passed_over and run_out
  failed = []
  try_round = knowledge._try_round
  monkeypatch.setattr(knowledge, "_try_round",
                      lambda *args: try_round(*args) or failed.append(1))
  standard = _core(cores, "4p-standard-win").rules
  _random_games(standard, 3, lambda table: [knowledge.determinize(
      standard, table, p, random.Random(p).random) for p in range(4)])
  assert failed


# --------------------------------------------------------------------------------------------
# The observation key


def _observations(compiled: CompiledSushiDraft, games: int):
  """(observation, key) pairs of every player, for a random joint action at every decision of
  random games, played from the real table and from each player's determinization of it (where
  observations are often equal), to the next table and on to the next decision."""
  rules, found = compiled.rules, []
  players = range(rules.num_players)
  for seed in range(games):
    uniform, table = random.Random(seed).random, R.initial_table(rules)
    while (table := R.skip_chance(rules, table, uniform)).actor != TERMINAL:
      joint = [rollouts.RandomPolicy(DYNAMICS)(rules, table, p, uniform) for p in players]
      worlds = [table] + [knowledge.determinize(rules, table, p, uniform) for p in players]
      for world in worlds:
        if any(a not in R.legal_actions(rules, world, p) for p, a in zip(players, joint)):
          continue
        played = R.play(rules, world, joint)
        for after in (played, R.skip_chance(rules, played, uniform)):
          before_pos, after_pos = compiled.encode(world), compiled.encode(after)
          found += [(knowledge.observation(rules, world, joint, after, p),
                     compiled.observation_key(before_pos, joint, after_pos, p)) for p in players]
      table = R.play(rules, table, joint)
  return found


@pytest.mark.parametrize("params", [
    dict(players=2, rounds=2, hand_size=3, deck="tuna:3/shrimp:3/wild:1"),
    dict(players=3, rounds=2, hand_size=4, deck=SMALL, chips=ONE_CHIP),
])
def test_observation_keys_are_equal_exactly_when_observations_are(params):
  compiled = CompiledSushiDraft.from_params(**params)
  pairs = _observations(compiled, 40)
  keys_of, observations_of = {}, {}
  for observation, key in pairs:
    keys_of.setdefault(observation, set()).add(key)
    observations_of.setdefault(key, set()).add(observation)
  assert all(len(keys) == 1 for keys in keys_of.values())
  assert all(len(observations) == 1 for observations in observations_of.values())
  assert len(keys_of) < len(pairs) / 2  # many equal observations were met
  assert len(keys_of) > 100


# --------------------------------------------------------------------------------------------
# Playouts and the kernel interface


@pytest.mark.parametrize("params", [dict(players=3), dict(players=5, wild_half=True),
                                    dict(players=2, deal="hand", hand_size=3, deck=SMALL,
                                         utility="win")])
def test_playout_many_plays_the_python_engines_random_playouts(params):
  compiled = CompiledSushiDraft.from_params(**params)
  rules, games = compiled.rules, 100
  stream = Xoshiro256(7)
  policy = rollouts.RandomPolicy(DYNAMICS)
  expected = [rollouts.rollout(DYNAMICS, rules, R.initial_table(rules),
                               [policy] * rules.num_players, stream.random)
              for _ in range(games)]
  assert compiled.playout_many(games, 7).tolist() == expected


def test_the_kernels_play_a_game_through_the_interface():
  compiled = CompiledSushiDraft.from_params(players=4, utility="margin")
  kernels, spec = compiled.kernels, compiled.spec
  assert isinstance(kernels, GameKernels)
  rng, legal = new_state(5), np.empty(compiled.rules.num_distinct_actions, dtype=np.int64)
  pos = kernels.initial_position(spec)
  table, stream = R.initial_table(compiled.rules), Xoshiro256(5)
  while pos[0] != TERMINAL:
    kernels.skip_chance(spec, pos, rng)
    table = R.skip_chance(compiled.rules, table, stream.random)
    if pos[0] == TERMINAL:
      break
    world = kernels.determinize(spec, pos, 1, rng, play_pointer(kernels.play))
    knowledge.determinize(compiled.rules, table, 1, stream.random)
    assert world.shape == pos.shape
    actions = np.array([kernels.random_action(spec, pos, p, rng, legal) for p in range(4)])
    for p in range(4):
      count = kernels.legal_actions(spec, pos, p, legal)
      assert actions[p] in legal[:count]
    joint = [R.legal_actions(compiled.rules, table, p)[int(stream.random() * count)]
             for p, count in enumerate(len(R.legal_actions(compiled.rules, table, p))
                                       for p in range(4))]
    assert joint == actions.tolist()
    before = pos.copy()
    kernels.play(spec, pos, actions)
    table = R.play(compiled.rules, table, joint)
    assert kernels.observation_key(spec, before, actions, pos, 0) == \
        compiled.observation_key(before, joint, pos, 0)
  out = np.zeros(4)
  kernels.returns(spec, pos, out)
  assert out.tolist() == R.returns(compiled.rules, table) and abs(out.sum()) < 1e-9


# --------------------------------------------------------------------------------------------
# Checked input and errors


def test_parameters_are_checked_by_the_rules_before_the_core_sees_them():
  with pytest.raises(ValueError, match="parameter 'players'"):
    CompiledSushiDraft.from_params(players=6)
  with pytest.raises(ValueError, match="parameter 'deck'"):
    CompiledSushiDraft.from_params(hand_size=2, deck="tuna:8/wild:2")


def test_illegal_actions_impossible_outcomes_and_bad_arrays_raise():
  compiled = CompiledSushiDraft.from_params(players=2, chips=ONE_CHIP)
  pos = compiled.initial_position()
  with pytest.raises(ValueError, match="not possible"):
    compiled.apply_chance(pos, 1)  # a one-chip pile has one order
  with pytest.raises(ValueError, match="actor is -1"):
    compiled.play(pos, [0, 0])
  compiled.skip_chance(pos, new_state(0))
  legal = compiled.legal_action_list(pos, 0)
  wild_as_mackerel = R.WILD_EAT + 4
  with pytest.raises(ValueError, match=f"player 1 cannot play action {wild_as_mackerel}"):
    compiled.play(pos, [legal[0], wild_as_mackerel])
  with pytest.raises(ValueError, match="expected 2 actions"):
    compiled.play(pos, [legal[0]])
  with pytest.raises(ValueError, match="player 2 is out of range"):
    compiled.determinize(pos, 2, new_state(0))
  with pytest.raises(ValueError, match="int32 array"):
    compiled.returns(pos.astype(np.int64))
  with pytest.raises(ValueError, match="uint64 array of 4 words"):
    compiled.determinize(pos, 0, np.zeros(4, dtype=np.int64))


def test_impossible_hands_raise_when_dealing_by_hand():
  compiled = CompiledSushiDraft.from_params(players=2, rounds=1, hand_size=2, deal="hand",
                                            deck="tuna:3/shrimp:1", chips=ONE_CHIP)
  pos = compiled.initial_position()
  for _ in range(R.NUM_PILES):
    compiled.apply_chance(pos, 0)
  ranking = compiled.rules.hand_ranking
  compiled.apply_chance(pos, ranking.rank((1, 1, 0, 0, 0, 0)))
  for impossible in (ranking.rank((1, 1, 0, 0, 0, 0)), ranking.size, -1):
    with pytest.raises(ValueError, match="not possible"):
      compiled.apply_chance(pos, impossible)


# --------------------------------------------------------------------------------------------
# Determinization against the pyspiel state's resample_from_infostate


@pytest.mark.parametrize("params", [
    dict(players=3, rounds=2, hand_size=4, deck=SMALL, chips=LONG_PILES),
    dict(players=2, rounds=2, hand_size=3, deal="hand", deck=SMALL, wild_half=True),
])
def test_determinization_is_resample_from_infostate_draw_for_draw(params):
  # Fed the same stream, the core's determinization is the state resample_from_infostate
  # returns, at every node of random games: the same distribution, sample for sample.
  game = pyspiel.load_game("python_sushi_draft", params)
  compiled = CompiledSushiDraft(game.rules)
  compared = 0
  for seed in range(15):
    state, rng = game.new_initial_state(), random.Random(seed)
    while not state.is_terminal():
      pos = compiled.encode(state.table())
      for player in range(game.num_players()):
        stream_seed = 97 * seed + 7 * compared + player
        python, kernel = Xoshiro256(stream_seed), new_state(stream_seed)
        expected = state.resample_from_infostate(player, python.random).table()
        assert compiled.decode(compiled.determinize(pos, player, kernel)) == expected
        assert np.array_equal(kernel, python.state())
      compared += 1
      if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(outcomes, probabilities)[0])
      else:
        state.apply_actions([rng.choice(state.legal_actions(p))
                             for p in range(game.num_players())])
  assert compared > 200
