"""Strength claims over many seeded games (marked `slow`: `pytest -m slow`, a CI step of its own).

Each claim is a Wilson bound over a fixed set of seeded games (see `strength`): the search bots at
a small budget beat random play, the heuristic beats greedy play in the rule variants too, and
random whole games score as the rulebook says over many more examples than the default run.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from invariants import check_state
from strength import games_won, wilson_lower_bound
from support import load, random_playout

pytestmark = pytest.mark.slow

SMALL_DECK = ("tempura:8/sashimi:6/dumpling:6/maki2:6/salmon:4/squid:3/wasabi:4/chopsticks:4"
              "/pudding:5")


@pytest.mark.parametrize("name,params,players", [
    ("so_ismcts", {"iterations": 100}, 2),
    ("mo_ismcts", {"iterations": 100}, 3),
    ("pimc", {"worlds": 4, "iterations": 40}, 2),
    ("pimc", {"worlds": 3, "iterations": 30}, 3),
])
def test_search_bots_at_a_small_budget_beat_random_play(name, params, players):
  game = load(players=players, hand_size=5, rounds=2, deck=SMALL_DECK)
  wins = games_won(game, (name, params), [("random", {})], games=60, seed=11)
  assert wilson_lower_bound(wins, 60) > 1 / players, wins


def test_so_ismcts_at_ten_milliseconds_of_iterations_outscores_the_heuristic():
  """The strength result of docs/search.md on a smaller, seeded sample: SO-ISMCTS with its
  default (margin) objective, at 500 iterations a move (the median of what the compiled search
  does in 10 ms of CPU time over the moves of 2-player games against the heuristic), outscores the
  heuristic in more than half of 2-player games."""
  game = load(players=2)
  wins = games_won(game, ("so_ismcts", {"iterations": 500}), [("heuristic", {})], games=150,
                   seed=7)
  assert wilson_lower_bound(wins, 150) > 0.5, wins


@pytest.mark.first
def test_the_subgame_bot_with_its_defaults_outscores_the_heuristic():
  """The subgame headline of the results pages on a smaller sample: `make_bot("subgame", game, p,
  seed, seconds=0.1, clock="cpu")`, nothing else given, outscores the heuristic in most 2-player
  games (the stored run subgame-vs-heuristic measures the share over 300 games). A CPU-time
  budget is not bit-reproducible, so the claim is a bound far below the measured share: at the
  stored share (0.937), 40 games miss it about once in 7,000 runs."""
  game = load(players=2)
  wins = games_won(game, ("subgame", {"seconds": 0.1, "clock": "cpu"}), [("heuristic", {})],
                   games=40, seed=13)
  assert wilson_lower_bound(wins, 40) > 0.5, wins


@pytest.mark.parametrize("variant", [
    {"players": 3, "pass_direction": "alternate"},
    {"players": 4, "soy_sauce": True},
    {"players": 2, "robot": True},
    {"players": 5, "utility": "win"},
])
def test_heuristic_beats_greedy_play_in_the_variants(variant):
  game = load(**variant)
  wins = games_won(game, ("heuristic", {}), [("greedy", {})], games=300, seed=5)
  assert wilson_lower_bound(wins, 300) > 1 / game.num_players(), wins


def test_a_soft_heuristic_still_beats_random_play():
  game = load(players=4)
  wins = games_won(game, ("heuristic", {"temperature": 0.5}), [("random", {})], games=200, seed=2)
  assert wilson_lower_bound(wins, 200) > 0.25, wins


@settings(max_examples=2000, deadline=None, derandomize=True, database=None)
@given(players=st.sampled_from([2, 3, 4, 5]), soy_sauce=st.booleans(),
       pass_direction=st.sampled_from(["left", "right", "alternate"]),
       utility=st.sampled_from(["score", "margin", "win"]), seed=st.integers(0, 2**32 - 1))
def test_many_random_games_score_as_the_rulebook_says(players, soy_sauce, pass_direction,
                                                      utility, seed):
  game = load(players=players, soy_sauce=soy_sauce, pass_direction=pass_direction,
              utility=utility)
  check_state(random_playout(game.new_initial_state(), random.Random(seed)))
