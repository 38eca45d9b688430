"""The game's scoring held against `rulebook`, the second scorer written from docs/rules.md.

Three layers, so that one scoring mistake fails many tests: the scorer's own worked examples
(those of docs/rules.md and by hand), random tableaus given to `scoring.py` directly, and random
whole games of both drafting games, whose round records, scores and returns must be what the
rulebook says of the cards each player placed or ate. Hypothesis examples are derandomized (the same every
run) and no example database is written.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulebook
from invariants import check_final_scores, check_round_records, check_sushi_draft_state
from support import CH, D, EGG, M1, M2, M3, P, SA, SAL, SQ, T, W, load, random_playout
from sushigo_spiel.sushi_go import scoring
from sushigo_spiel.sushi_go.cards import card_named

SOY = "Soy Sauce"
NAMES = (T, SA, D, M1, M2, M3, EGG, SAL, SQ, W, CH, P, SOY)
DRAFT_TYPES = ("Tuna Nigiri", "Shrimp & Avocado Roll", "Salmon Roll", "Cucumber Maki",
               "Mackerel Temaki")


def examples(n: int):
  return settings(max_examples=n, deadline=None, derandomize=True, database=None)


# --------------------------------------------------------------------------------------------
# The second scorer on the worked examples of docs/rules.md and on hand-counted tableaus

@pytest.mark.parametrize("icons,points", [
    ([5, 3, 3, 2], [6, 1, 1, 0]),  # docs/rules.md's example
    ([4, 4, 1], [3, 3, 0]),  # a tie for most: no second place
    ([4, 1, 1, 1], [6, 1, 1, 1]),
    ([0, 0], [0, 0]),
    ([2, 0, 0], [6, 0, 0]),  # no icon, no points, even in second place
    ([3, 3, 3, 3, 3], [1, 1, 1, 1, 1]),
])
def test_rulebook_maki(icons, points):
  assert rulebook.maki_points(icons) == points
  assert scoring.maki_points(icons) == points


@pytest.mark.parametrize("counts,points", [
    ([4, 3, 0, 0], [6, 0, -3, -3]),  # docs/rules.md's example
    ([2, 2, 2], [0, 0, 0]),
    ([3, 0], [6, 0]),  # two players: no -6
    ([1, 1, 0], [3, 3, -6]),
    ([5, 1, 1, 1, 1], [6, -1, -1, -1, -1]),
])
def test_rulebook_puddings(counts, points):
  assert rulebook.pudding_points(counts) == points
  assert scoring.score_puddings(counts) == points


@pytest.mark.parametrize("tableau,points", [
    ([D] * 4, 10), ([D] * 5, 15), ([D] * 7, 15), ([D] * 3, 6), ([D], 1),
    ([T, T, T], 5), ([SA] * 5, 10), ([SA] * 6, 20),
    ([W, SQ], 9), ([SQ, W], 3), ([W, W, EGG, SAL, SQ], 3 + 6 + 3),
    ([W, EGG, W, SQ], 3 + 9), ([CH, W], 0), ([P, P], 0),
])
def test_rulebook_single_tableau(tableau, points):
  # Alone at the table a tableau has no Maki; these hold no Maki.
  assert rulebook.round_points([tableau, []]) == [points, 0]
  assert scoring.score_round([tableau, []]) == [points, 0]


def test_rulebook_winner_tie_breaks_on_puddings_then_shares():
  assert rulebook.winners([30, 30, 20], [1, 2, 5]) == [1]
  assert rulebook.winners([30, 30, 20], [2, 2, 5]) == [0, 1]
  assert rulebook.winners([10, 31], [9, 0]) == [1]


def test_rulebook_soy_sauce_needs_the_most_colours_at_the_table():
  richest = [SOY, T, D, M1]  # 4 colours
  assert rulebook.soy_sauce_points([richest, [SOY, T, SA], [T, SA, D, EGG, W]]) == [0, 0, 0]
  assert rulebook.soy_sauce_points([richest, [SOY, SA, SQ, P], [T]]) == [4, 4, 0]
  assert rulebook.soy_sauce_points([[SOY, SOY, M1, M2, M3], [T]]) == [4, 0]  # Maki share a colour


# --------------------------------------------------------------------------------------------
# scoring.py against the second scorer on random tableaus

@st.composite
def tables(draw, min_tableaus=2, max_tableaus=6):
  """Tableaus of one round: a few card names drawn from a small palette, so that sets, ties and
  Wasabi orders come up often."""
  palette = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
  count = draw(st.integers(min_tableaus, max_tableaus))
  return [draw(st.lists(st.sampled_from(palette), max_size=12)) for _ in range(count)]


def tallies_of(tableaus):
  return [scoring.tally(card_named(name) for name in tableau) for tableau in tableaus]


@examples(600)
@given(tableaus=tables())
def test_round_points_match_the_rulebook(tableaus):
  assert scoring.score_round(tableaus) == rulebook.round_points(tableaus, soy_sauce=True)


@examples(400)
@given(tableaus=tables(), soy_sauce=st.booleans())
def test_round_categories_match_the_rulebook(tableaus, soy_sauce):
  breakdown = scoring.round_breakdown(tallies_of(tableaus), soy_sauce)
  assert breakdown == rulebook.round_categories(tableaus, soy_sauce)


@examples(200)
@given(tableaus=tables(min_tableaus=1, max_tableaus=1))
def test_tally_counts_every_card(tableaus):
  tableau, = tableaus
  counts = Counter(tableau)
  assert scoring.tally(card_named(name) for name in tableau) == (
      counts[T], counts[SA], counts[D], sum(rulebook.MAKI_ICONS.get(n, 0) for n in tableau),
      rulebook.nigiri_points(tableau), counts[P], counts[SOY],
      len({rulebook.COLOUR[name] for name in tableau}))


@examples(300)
@given(counts=st.lists(st.integers(0, 6), min_size=2, max_size=6))
def test_pudding_points_match_the_rulebook(counts):
  assert scoring.score_puddings(counts) == rulebook.pudding_points(counts)


@examples(300)
@given(icons=st.lists(st.integers(0, 8), min_size=2, max_size=6))
def test_maki_points_match_the_rulebook(icons):
  assert scoring.maki_points(icons) == rulebook.maki_points(icons)


@examples(300)
@given(totals=st.lists(st.integers(0, 4), min_size=2, max_size=5), data=st.data())
def test_winners_match_the_rulebook(totals, data):
  puddings = data.draw(st.lists(st.integers(0, 2), min_size=len(totals), max_size=len(totals)))
  assert scoring.winners(totals, puddings) == rulebook.winners(totals, puddings)


# --------------------------------------------------------------------------------------------
# Whole games of Sushi Go against the second scorer

SMALL_DECK = ("tempura:5/sashimi:4/dumpling:6/maki1:2/maki2:3/maki3:2/egg:2/salmon:3/squid:2"
              "/wasabi:3/chopsticks:4/pudding:4")
VARIANTS = (
    {},
    {"hand_size": 4, "rounds": 2, "deck": SMALL_DECK},
    {"hand_size": 4, "rounds": 2, "deck": SMALL_DECK, "deal": "hand"},
    {"pass_direction": "alternate"},
    {"soy_sauce": True, "soy_sauce_count": 6},
    {"robot": True, "hand_size": 4, "soy_sauce": True},  # two players, whatever `players` says
    {"deck": "dumpling:50/tempura:20/sashimi:20/pudding:20", "hand_size": 7},
)
UTILITIES = ("score", "margin", "win")


@functools.lru_cache(maxsize=None)
def sushi_go(players: int, utility: str, variant: int):
  params = VARIANTS[variant]
  return load(players=2 if params.get("robot") else players, utility=utility, **params)


GAMES = dict(players=st.sampled_from([2, 3, 4, 5]), utility=st.sampled_from(UTILITIES),
             variant=st.sampled_from(range(len(VARIANTS))), seed=st.integers(0, 2**32 - 1))


@examples(250)
@given(**GAMES)
def test_random_games_score_as_the_rulebook_says(players, utility, variant, seed):
  state = random_playout(sushi_go(players, utility, variant).new_initial_state(),
                         random.Random(seed))
  check_round_records(state)
  check_final_scores(state)


@examples(60)
@given(**GAMES)
def test_points_so_far_are_the_finished_rounds_at_every_round(players, utility, variant, seed):
  game = sushi_go(players, utility, variant)
  state, rng = game.new_initial_state(), random.Random(seed)
  while not state.is_terminal():
    done = len(state.round_records())
    random_playout(state, rng, stop=lambda s, done=done: len(s.round_records()) > done)
    check_round_records(state)
    if not state.is_terminal():
      assert state.returns() == [0.0] * game.num_players()
      assert state.scores() == [sum(r.points[p] for r in state.round_records())
                                for p in range(game.num_players())]
  check_final_scores(state)


# --------------------------------------------------------------------------------------------
# Whole games of Sushi Draft: who takes each chip

DRAFT_VARIANTS = (
    {},
    {"wild_half": True},
    {"deck": "tuna:9/shrimp:8/wild:3", "hand_size": 4},
    {"deck": "tuna:12/salmon:11/wild:2", "hand_size": 5, "wild_half": True, "deal": "hand"},
)


@functools.lru_cache(maxsize=None)
def sushi_draft(players: int, utility: str, variant: int):
  return pyspiel.load_game("python_sushi_draft", {"players": players, "utility": utility,
                                                  **DRAFT_VARIANTS[variant]})


@examples(200)
@given(players=st.sampled_from([2, 3, 4, 5]), utility=st.sampled_from(UTILITIES),
       variant=st.sampled_from(range(len(DRAFT_VARIANTS))), seed=st.integers(0, 2**32 - 1))
def test_draft_chips_go_where_the_rulebook_says(players, utility, variant, seed):
  game = sushi_draft(players, utility, variant)
  wild_half = bool(DRAFT_VARIANTS[variant].get("wild_half"))
  state = random_playout(game.new_initial_state(), random.Random(seed))
  records = state.round_records()
  assert len(records) == game.rules.rounds
  scores = [0] * players
  taken_per_pile = {}
  for record in records:
    counts = rulebook.draft_counts(record.eaten, DRAFT_TYPES, wild_half)
    expected = []
    for pile, pile_counts in counts.items():
      taker = rulebook.chip_taker(pile_counts)
      chips_left = len(game.rules.chips[list(counts).index(pile)]) - taken_per_pile.get(pile, 0)
      if taker is not None and chips_left:
        expected.append((pile, taker))
        taken_per_pile[pile] = taken_per_pile.get(pile, 0) + 1
    assert [(pile, player) for pile, player, _ in record.chips] == expected, record
    for _, player, value in record.chips:
      scores[player] += value
    assert record.points == [sum(v for _, p, v in record.chips if p == q) for q in range(players)]
  assert state.scores() == scores
  # Each pile gives its chips top first, in the order its chance outcome dealt it.
  orders = pile_orders(game, state)
  for pile in orders:
    given_out = [v for r in records for name, _, v in r.chips if name == pile]
    assert given_out == orders[pile][:len(given_out)], (pile, orders[pile], given_out)
  check_sushi_draft_state(state)


def pile_orders(game, state) -> dict[str, list[int]]:
  """Each chip pile's values, top first, read from the names of the game's first chance
  outcomes ("Tuna Nigiri chips 3.4.5")."""
  replay, orders = game.new_initial_state(), {}
  for entry in state.full_history():
    name = replay.action_to_string(entry.player, entry.action)
    if " chips " not in name:
      break
    pile, _, values = name.rpartition(" chips ")
    orders[pile] = [int(v) for v in values.split(".")]
    replay.apply_action(entry.action)
  assert list(orders) == list(DRAFT_TYPES) + ["Dessert"]
  return orders
