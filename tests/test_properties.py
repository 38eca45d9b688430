"""Property tests (hypothesis) over random games: invariants that hold at every step.

Games: 2-5 players, any utility, the standard game or a small deck (3 cards a hand, 2 rounds) dealt
card by card or hand by hand; the play is random from a seed chosen by hypothesis. The examples are
derandomized (the same every run) and no example database is written.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pyspiel
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.observation import make_observation

from invariants import check_final_scores, check_round_records
from support import card_totals, load, random_playout, walk
from sushigo_spiel.sushi_go import rules as R

CHANCE = int(pyspiel.PlayerId.CHANCE)
SMALL_DECK = ("tempura:5/sashimi:4/dumpling:4/maki2:4/salmon:3/squid:2/wasabi:3/chopsticks:4"
              "/pudding:4")
VARIANTS = (
    {},
    {"hand_size": 3, "rounds": 2, "deck": SMALL_DECK},
    {"hand_size": 3, "rounds": 2, "deck": SMALL_DECK, "deal": "hand"},
    {"pass_direction": "alternate"},
    {"hand_size": 3, "rounds": 2, "deck": SMALL_DECK, "pass_direction": "right"},
    {"soy_sauce": True, "soy_sauce_count": 6},
    {"robot": True, "hand_size": 4, "soy_sauce": True},  # two players, whatever `players` says
)
UTILITIES = ("score", "margin", "win")


def examples(n: int):
  return settings(max_examples=n, deadline=None, derandomize=True, database=None)


@functools.lru_cache(maxsize=None)
def make_game(players: int, utility: str, variant: int):
  params = VARIANTS[variant]
  return load(players=2 if params.get("robot") else players, utility=utility, **params)


# Separate arguments (rather than one tuple) give hypothesis's derandomized generation more
# varied examples.
GAMES = dict(players=st.sampled_from([2, 3, 4, 5]), utility=st.sampled_from(UTILITIES),
             variant=st.sampled_from(range(len(VARIANTS))), seed=st.integers(0, 2**32 - 1))






def round_starts(state) -> list[int]:
  """Indices in the history where each round's deal begins (so far)."""
  game = state.get_game()
  n = game.num_players()
  probe, starts, pending = game.new_initial_state(), [], []
  history = state.full_history()
  for i, entry in enumerate(history):
    if probe.is_chance_node() and probe.table().dealt == 0:
      starts.append(i)
    if entry.player < 0:  # a chance outcome (or a flat joint action)
      probe.apply_action(entry.action)
    else:
      pending.append(entry.action)
      if len(pending) == n:
        probe.apply_actions(pending)
        pending = []
  if probe.is_chance_node() and probe.table().dealt == 0:
    starts.append(len(history))
  return starts


# --------------------------------------------------------------------------------------------
# Cards, hands, Puddings, points
# --------------------------------------------------------------------------------------------

@examples(200)
@given(**GAMES)
def test_cards_are_conserved_at_every_step(players, utility, variant, seed):
  game = make_game(players, utility, variant)
  deck = list(game.rules.deck)
  for state in walk(game.new_initial_state(), random.Random(seed), include_end=True):
    assert card_totals(state) == deck


@examples(200)
@given(**GAMES)
def test_hand_sizes_are_equal_and_shrink_by_one_per_turn(players, utility, variant, seed):
  game = make_game(players, utility, variant)
  size = game.rules.hand_size
  previous = None  # (round, hand size) at the previous decision node
  decisions = 0
  for state in walk(game.new_initial_state(), random.Random(seed), include_end=True):
    if not state.is_simultaneous_node():
      continue
    decisions += 1
    sizes = [len(hand) for hand in state.hands()]
    table = state.table()
    if table.robot:  # the controller holds the card it drew from the robot's pile
      sizes[R.controller(game.rules, table)] -= 1
    sizes = set(sizes)
    assert len(sizes) == 1, state.hands()
    current = (state.table().round, sizes.pop())
    if previous is not None and previous[0] == current[0]:
      assert current[1] == previous[1] - 1
    else:
      assert current[1] == size  # a fresh deal
    assert len(state.legal_actions(0)) >= 1
    previous = current
  # Every turn but the last (automatic) one of each round is a decision (every turn with the
  # robot, whose controller always has two cards to place).
  assert decisions == game.rules.rounds * (size if game.rules.robot else size - 1)


@examples(200)
@given(**GAMES)
def test_puddings_are_kept(players, utility, variant, seed):
  game = make_game(players, utility, variant)
  previous = [0] * game.num_players()
  for state in walk(game.new_initial_state(), random.Random(seed), include_end=True):
    puddings = state.puddings()
    assert all(now >= before for now, before in zip(puddings, previous)), (previous, puddings)
    previous = puddings
  played = [sum(t.count("Pudding") for r in state.round_records() for t in [r.tableaus[p]])
            for p in range(game.num_players())]
  assert state.puddings() == played


@examples(200)
@given(**GAMES)
def test_round_points_are_non_negative(players, utility, variant, seed):
  game = make_game(players, utility, variant)
  rounds = 0
  for state in walk(game.new_initial_state(), random.Random(seed), include_end=True):
    records = state.round_records()
    assert len(records) in (rounds, rounds + 1)
    rounds = len(records)
    for record in records:
      assert len(record.points) == game.num_players()
      assert all(isinstance(p, int) and p >= 0 for p in record.points), record.points
  assert rounds == game.rules.rounds


@examples(300)
@given(**GAMES)
def test_returns_are_the_rulebooks_for_the_cards_played(players, utility, variant, seed):
  # Held against `rulebook` (written from docs/rules.md), not against the game's own round records:
  # returns rebuilt from `round_records()` agree with any scoring mistake.
  game = make_game(players, utility, variant)
  state = random_playout(game.new_initial_state(), random.Random(seed))
  assert state.is_terminal()
  check_round_records(state)
  check_final_scores(state)
  assert game.min_utility() <= min(state.returns()) <= max(state.returns()) <= game.max_utility()
  if utility == "margin":
    assert abs(sum(state.returns())) < 1e-9
  if utility == "win":
    assert abs(sum(state.returns()) - 1.0) < 1e-9


# --------------------------------------------------------------------------------------------
# Information

def sample_nodes(game, rng: random.Random):
  """(state, player) pairs along a random game: every player at every decision node, and one
  player at about one chance node in ten."""
  for state in walk(game.new_initial_state(), rng, include_end=True):
    if state.is_simultaneous_node():
      for player in range(game.num_players()):
        yield state, player
    elif state.is_chance_node() and rng.random() < 0.1:
      yield state, rng.randrange(game.num_players())

# --------------------------------------------------------------------------------------------

@examples(100)
@given(**GAMES)
def test_histories_differing_only_in_unseen_cards_share_the_info_state(players, utility, variant,
                                                                        seed):
  game = make_game(players, utility, variant)
  public = make_observation(game, pyspiel.IIGObservationType(
      perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
  rng = random.Random(seed)
  for state, player in sample_nodes(game, rng):
    other = state.resample_from_infostate(player, random.Random(rng.random()).random)
    # The two histories: same length, same joint actions, the same deals in finished rounds;
    # they can differ only in this round's deal.
    start = round_starts(state)[-1]
    assert len(other.history()) == len(state.history())
    assert other.history()[:start] == state.history()[:start]
    is_chance = [e.player == CHANCE for e in state.full_history()]
    assert is_chance == [e.player == CHANCE for e in other.full_history()]
    assert [a for a, c in zip(other.history(), is_chance) if not c] == \
        [a for a, c in zip(state.history(), is_chance) if not c]
    assert other.information_state_string(player) == state.information_state_string(player)
    assert other.observation_string(player) == state.observation_string(player)
    assert public.string_from(other, player) == public.string_from(state, player)


@examples(100)
@given(**GAMES, spiel_sampler=st.booleans())
def test_resample_keeps_the_information_state(players, utility, variant, seed, spiel_sampler):
  game = make_game(players, utility, variant)
  rng = random.Random(seed)
  sampler = pyspiel.UniformProbabilitySampler(0., 1.) if spiel_sampler else \
      random.Random(seed + 1).random
  deck = list(game.rules.deck)
  for state, player in sample_nodes(game, rng):
    other = state.resample_from_infostate(player, sampler)
    assert other.current_player() == state.current_player()
    assert other.information_state_string(player) == state.information_state_string(player)
    np.testing.assert_array_equal(other.information_state_tensor(player),
                                  state.information_state_tensor(player))
    np.testing.assert_array_equal(other.observation_tensor(player),
                                  state.observation_tensor(player))
    if state.is_simultaneous_node():
      assert other.legal_actions(player) == state.legal_actions(player)
      assert other.hands()[player] == state.hands()[player]
    assert card_totals(other) == deck
    assert random_playout(other, random.Random(seed)).is_terminal()


@examples(150)
@given(**GAMES)
def test_clone_is_equal_and_independent(players, utility, variant, seed):
  game = make_game(players, utility, variant)
  rng = random.Random(seed)
  for state in walk(game.new_initial_state(), rng, include_end=True):
    if rng.random() > 0.15 and not state.is_terminal():
      continue
    before = (str(state), state.history(), [state.information_state_string(p)
                                            for p in range(game.num_players())])
    clone = state.clone()
    assert (str(clone), clone.history(),
            [clone.information_state_string(p) for p in range(game.num_players())]) == before
    assert clone.is_terminal() == state.is_terminal()
    assert clone.returns() == state.returns()
    if state.is_terminal():
      break
    # Play a whole round on the clone: the original does not move.
    round_ = clone.table().round
    random_playout(clone, random.Random(seed + 2),
                   stop=lambda s: s.table().round > round_)
    assert clone.history() != state.history()
    after = (str(state), state.history(), [state.information_state_string(p)
                                           for p in range(game.num_players())])
    assert after == before
