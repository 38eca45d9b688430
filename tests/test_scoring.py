"""Tests of the pure Sushi Go scoring functions against docs/rules.md.

Every expected number is worked out by hand from docs/rules.md (and the Italian/French/German rulebooks
it states) in the comments, never computed with the code under test. None of the rulebooks has a
worked full-round example; the only rulebook examples are Maki (5, 3, 3, 2 -> 6, 1, 1, 0) and
Pudding (4, 3, 0, 0 -> +6, 0, -3, -3), both tested below.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sushigo_spiel.sushi_go import cards
from sushigo_spiel.sushi_go import scoring
from support import CH, D, EGG, M1, M2, M3, SA, SAL, SQ, P, T, W
from sushigo_spiel.sushi_go.scoring import (
    maki_points,
    round_breakdown,
    score_puddings,
    score_round,
    tally,
    winners,
)

# No example database: the tests leave no .hypothesis folder behind; no deadline: no flaky timing.
PROPERTY = settings(max_examples=200, deadline=None, database=None)


# The 12 canonical names of docs/rules.md, written out here rather than read from cards.py.
SPEC_NAMES = (T, SA, D, M1, M2, M3, EGG, SAL, SQ, W, CH, P)
NIGIRI = (EGG, SAL, SQ)
NO_MAKI_NAMES = tuple(n for n in SPEC_NAMES if n not in (M1, M2, M3))


def solo(tableau):
  """Round points of one tableau scored against an opponent with an empty tableau.

  The opponent has no maki icon, so if `tableau` has no maki either, the result is just the
  tableau's own sets, dumplings and nigiri.
  """
  return score_round([list(tableau), []])[0]


def tallies_of(tableaus):
  return [tally(cards.card_named(n) for n in t) for t in tableaus]


# --------------------------------------------------------------------------------------------
# The card table (docs/rules.md, "Cards (108)")
# --------------------------------------------------------------------------------------------

def test_card_table_matches_spec():
  # The card table of docs/rules.md: name -> (count, maki icons or nigiri value).
  expected = {
      T: (14, 0), SA: (14, 0), D: (14, 0),
      M1: (6, 1), M2: (12, 2), M3: (8, 3),
      EGG: (5, 1), SAL: (10, 2), SQ: (5, 3),
      W: (6, 0), CH: (4, 0), P: (10, 0),
      "Soy Sauce": (0, 0),  # not in the 108 cards: the Soy Sauce variant adds its own
  }
  got = {c.name: (c.count, c.value) for c in cards.CARDS}
  assert got == expected
  # 14*3 + 6+12+8 + 5+10+5 + 6 + 4 + 10 = 42 + 26 + 20 + 20 = 108
  assert cards.STANDARD_DECK_SIZE == 108


def test_hand_sizes_match_spec():
  # 2 -> 10, 3 -> 9, 4 -> 8, 5 -> 7 cards.
  assert cards.HAND_SIZE_BY_PLAYERS == {2: 10, 3: 9, 4: 8, 5: 7}


# --------------------------------------------------------------------------------------------
# Tempura: 5 per pair
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, points", [
    (0, 0),   # no tempura
    (1, 0),   # a single tempura is worth nothing
    (2, 5),   # one pair
    (3, 5),   # one pair + a lone one
    (4, 10),  # two pairs
    (5, 10),  # two pairs + a lone one
    (6, 15),  # three pairs
])
def test_tempura_pairs(n, points):
  assert solo([T] * n) == points


# --------------------------------------------------------------------------------------------
# Sashimi: 10 per set of 3
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, points", [
    (1, 0),   # a single sashimi
    (2, 0),   # an incomplete set
    (3, 10),  # one set
    (4, 10),  # one set + 1
    (5, 10),  # one set + 2
    (6, 20),  # two sets
    (7, 20),  # two sets + 1
    (9, 30),  # three sets
])
def test_sashimi_sets(n, points):
  assert solo([SA] * n) == points


# --------------------------------------------------------------------------------------------
# Dumpling: 1 / 3 / 6 / 10 / 15 for 1 / 2 / 3 / 4 / 5+
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, points", [
    (0, 0),
    (1, 1),
    (2, 3),
    (3, 6),
    (4, 10),
    (5, 15),
    (6, 15),  # 5 or more: still 15
    (7, 15),
    (10, 15),
])
def test_dumplings(n, points):
  assert solo([D] * n) == points


def test_sets_count_in_any_order():
  # T, SA, T, D, SA, D, SA: tempura 2 -> 5, sashimi 3 -> 10, dumpling 2 -> 3; total 18.
  assert solo([T, SA, T, D, SA, D, SA]) == 18


# --------------------------------------------------------------------------------------------
# Nigiri and Wasabi
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("nigiri, points", [(EGG, 1), (SAL, 2), (SQ, 3)])
def test_nigiri_values(nigiri, points):
  assert solo([nigiri]) == points


@pytest.mark.parametrize("nigiri, points", [(EGG, 3), (SAL, 6), (SQ, 9)])
def test_wasabi_then_nigiri_triples(nigiri, points):
  # 1*3 = 3, 2*3 = 6, 3*3 = 9
  assert solo([W, nigiri]) == points


def test_wasabi_triples_a_later_nigiri_not_just_the_next_card():
  # Wasabi, Tempura, Dumpling, Squid: the Squid still goes onto the free Wasabi -> 9;
  # tempura 1 -> 0; dumpling 1 -> 1. Total 10.
  assert solo([W, T, D, SQ]) == 10


@pytest.mark.parametrize("nigiri, points", [(EGG, 1), (SAL, 2), (SQ, 3)])
def test_nigiri_before_wasabi_not_tripled(nigiri, points):
  # The Nigiri was placed first; the later Wasabi stays free and scores 0.
  assert solo([nigiri, W]) == points


def test_wasabi_placed_after_a_nigiri_stays_free_for_a_later_one():
  # Squid (3, no Wasabi yet), Wasabi, Egg (on the Wasabi: 1*3 = 3). Total 6.
  assert solo([SQ, W, EGG]) == 6


def test_one_nigiri_per_wasabi():
  # Wasabi, Squid, Salmon: the Squid takes the Wasabi (9); the Salmon has no free Wasabi (2). 11.
  assert solo([W, SQ, SAL]) == 9 + 2


def test_one_nigiri_per_wasabi_low_value_first():
  # Wasabi, Egg, Squid: the Egg takes the Wasabi (3); the Squid scores plain (3). 6, not 10.
  assert solo([W, EGG, SQ]) == 3 + 3


def test_two_wasabis_then_two_nigiri_both_tripled():
  # Wasabi, Wasabi, Salmon (6), Squid (9) -> 15.
  assert solo([W, W, SAL, SQ]) == 15


def test_interleaved_wasabis():
  # Wasabi, Egg (3), Wasabi, Squid (9), Salmon (no free Wasabi: 2) -> 14.
  assert solo([W, EGG, W, SQ, SAL]) == 14


def test_three_wasabis_two_nigiri():
  # Wasabi x3, Egg (3), Squid (9): the third Wasabi stays unused (0) -> 12.
  assert solo([W, W, W, EGG, SQ]) == 12


def test_unused_wasabi_scores_zero():
  assert solo([W]) == 0
  assert solo([W, W, W]) == 0


def test_chopsticks_score_zero():
  assert solo([CH]) == 0
  assert solo([CH, CH, CH, CH]) == 0


def test_chopsticks_between_wasabi_and_nigiri_change_nothing():
  # Wasabi, Chopsticks, Salmon: Salmon on the Wasabi -> 6; Chopsticks 0.
  assert solo([W, CH, SAL]) == 6


def test_pudding_scores_zero_in_the_round():
  assert solo([P]) == 0
  assert solo([P, P, P, P, P]) == 0
  # Puddings do not count as icons for Maki either: the other player's single Maki Roll 1 wins.
  # [5 Puddings] vs [Maki Roll 1] -> 0 and 6.
  assert score_round([[P] * 5, [M1]]) == [0, 6]


def test_pudding_does_not_take_a_wasabi():
  # Wasabi, Pudding, Squid: the Squid still lands on the Wasabi -> 9.
  assert solo([W, P, SQ]) == 9


def test_empty_tableaus_score_zero():
  assert score_round([[], []]) == [0, 0]
  assert score_round([[]] * 5) == [0, 0, 0, 0, 0]


# --------------------------------------------------------------------------------------------
# Maki
# --------------------------------------------------------------------------------------------

def test_maki_rulebook_example_from_cards():
  # Chris 5 icons (Maki 3 + Maki 2), Phil 3 (Maki 3), Amy 3 (Maki 1 x3), Lisa 2 (Maki 2).
  # Chris most: 6. Phil and Amy tie for second: 3 // 2 = 1 each. Lisa: 0.
  tableaus = [[M3, M2], [M3], [M1, M1, M1], [M2]]
  assert score_round(tableaus) == [6, 1, 1, 0]


def test_maki_rulebook_example_icons():
  assert maki_points([5, 3, 3, 2]) == [6, 1, 1, 0]


def test_maki_icons_are_counted_not_cards():
  # Player 0: three Maki Roll 1 cards = 3 icons; player 1: Maki Roll 3 + Maki Roll 1 = 4 icons
  # from only two cards. Player 1 leads (6), player 0 is second (3).
  assert score_round([[M1, M1, M1], [M3, M1]]) == [3, 6]


@pytest.mark.parametrize("icons, expected", [
    # Two tie for most: 6 // 2 = 3 each; no second place even though a 2 and a 1 exist.
    ([4, 4, 2, 1], [3, 3, 0, 0]),
    # Three tie for most: 6 // 3 = 2 each; no second place.
    ([3, 3, 3, 1], [2, 2, 2, 0]),
    # Four tie for most: 6 // 4 = 1 each (remainder 2 dropped); no second place.
    ([2, 2, 2, 2], [1, 1, 1, 1]),
    ([2, 2, 2, 2, 1], [1, 1, 1, 1, 0]),
    # Five tie for most: 6 // 5 = 1 each (remainder 1 dropped).
    ([1, 1, 1, 1, 1], [1, 1, 1, 1, 1]),
    # Two players tie: 3 each.
    ([6, 6], [3, 3]),
])
def test_maki_tie_for_first_means_no_second(icons, expected):
  assert maki_points(icons) == expected


@pytest.mark.parametrize("icons, expected", [
    # Single leader (6); two tie for second: 3 // 2 = 1 each.
    ([7, 2, 2], [6, 1, 1]),
    # Single leader; three tie for second: 3 // 3 = 1 each.
    ([5, 2, 2, 2, 0], [6, 1, 1, 1, 0]),
    # Single leader; four tie for second: 3 // 4 = 0 each.
    ([5, 2, 2, 2, 2], [6, 0, 0, 0, 0]),
    # Single leader, single second; third and fourth get nothing.
    ([9, 4, 3, 1], [6, 3, 0, 0]),
])
def test_maki_single_leader_and_second_place(icons, expected):
  assert maki_points(icons) == expected


@pytest.mark.parametrize("icons, expected", [
    ([3, 0], [6, 0]),
    ([0, 0, 4], [0, 0, 6]),
    ([0, 1, 0, 0, 0], [0, 6, 0, 0, 0]),
])
def test_maki_only_one_player_has_icons(icons, expected):
  # Players with no icon are not "second": they score nothing.
  assert maki_points(icons) == expected


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_maki_nobody_has_icons(n):
  assert maki_points([0] * n) == [0] * n


def test_maki_two_players_3_vs_1():
  # 3 icons most (6); 1 icon second (3).
  assert maki_points([3, 1]) == [6, 3]
  assert score_round([[M3], [M1]]) == [6, 3]


def test_maki_ties_from_cards():
  # Icons: [M2, M1] = 3, [M3] = 3, [M1, M1] = 2, [] = 0 -> tie for most: 3, 3; no second: 0, 0.
  assert score_round([[M2, M1], [M3], [M1, M1], []]) == [3, 3, 0, 0]
  # Only player 2 has maki: 6 for them, 0 for the others (even though they have other cards).
  assert score_round([[T], [SA], [M2], [P]]) == [0, 0, 6, 0]
  # Nobody has maki.
  assert score_round([[T, T], [D], [EGG]]) == [5, 1, 1]


# --------------------------------------------------------------------------------------------
# Pudding (end of game)
# --------------------------------------------------------------------------------------------

def test_pudding_rulebook_example():
  # Chris 4 (most: +6), Phil 3 (0), Lisa and Amy 0 (tie for least: -6 // 2 = -3 each).
  assert score_puddings([4, 3, 0, 0]) == [6, 0, -3, -3]


@pytest.mark.parametrize("counts", [
    [0, 0], [3, 3], [0, 0, 0], [2, 2, 2], [0, 0, 0, 0], [1, 1, 1, 1], [0] * 5, [4] * 5,
])
def test_pudding_all_equal_scores_nothing(counts):
  assert score_puddings(counts) == [0] * len(counts)


@pytest.mark.parametrize("counts, expected", [
    ([3, 1], [6, 0]),  # most +6; with 2 players nobody loses points
    ([1, 3], [0, 6]),
    ([1, 0], [6, 0]),  # zero puddings still no -6 with 2 players
    ([2, 2], [0, 0]),  # all equal
    ([0, 0], [0, 0]),
])
def test_pudding_two_players_only_the_plus_six(counts, expected):
  assert score_puddings(counts) == expected


@pytest.mark.parametrize("counts, expected", [
    # 3 players: 2 most (+6); 1 and 1 tie for least: -6 // 2 = -3 each.
    ([2, 1, 1], [6, -3, -3]),
    # 3 players: 3 and 3 tie for most: +3 each; 0 least: -6.
    ([3, 3, 0], [3, 3, -6]),
    # 3 players, one each of most / middle / least.
    ([1, 5, 3], [-6, 6, 0]),
    # 4 players: two tie for most (+3 each), two tie for least (-3 each).
    ([2, 2, 0, 0], [3, 3, -3, -3]),
    # 4 players: three tie for most (6 // 3 = +2 each), one least (-6).
    ([2, 2, 2, 0], [2, 2, 2, -6]),
    # 5 players: 3, 3 most (+3 each); 1 middle (0); 0, 0 least (-3 each).
    ([3, 3, 1, 0, 0], [3, 3, 0, -3, -3]),
    # 5 players: four tie for most (6 // 4 = +1, remainder dropped); 1 least: -6.
    ([2, 2, 2, 2, 1], [1, 1, 1, 1, -6]),
    # 5 players: 5 most (+6); four tie for least: 6 // 4 = 1 -> -1 each, remainder dropped.
    ([5, 0, 0, 0, 0], [6, -1, -1, -1, -1]),
    # 5 players: one of each.
    ([4, 3, 2, 1, 0], [6, 0, 0, 0, -6]),
])
def test_pudding_three_to_five_players(counts, expected):
  assert score_puddings(counts) == expected


# --------------------------------------------------------------------------------------------
# Winners
# --------------------------------------------------------------------------------------------

def test_winner_is_highest_total():
  # 50 beats 40 even though player 1 has far more puddings.
  assert winners([50, 40], [0, 9]) == [0]
  assert winners([30, 41, 40, 12], [1, 1, 1, 1]) == [1]


def test_tie_goes_to_more_puddings():
  # Players 1 and 2 tie on 42; player 2 has more puddings (3 > 1). Player 0 has the most puddings
  # but a lower total, so it does not matter.
  assert winners([40, 42, 42], [5, 1, 3]) == [2]


def test_tie_after_puddings_is_shared():
  # Players 0 and 1 tie on 42 and on 2 puddings: both win; player 2 (lower total) does not.
  assert winners([42, 42, 30], [2, 2, 5]) == [0, 1]
  # Everyone equal on everything: everyone wins.
  assert winners([10, 10, 10, 10, 10], [0, 0, 0, 0, 0]) == [0, 1, 2, 3, 4]


def test_tie_three_way_puddings_split_two_one():
  # Three tie on 35; puddings 2, 4, 4 -> players 1 and 2 share the win.
  assert winners([35, 35, 35, 20], [2, 4, 4, 9]) == [1, 2]


# --------------------------------------------------------------------------------------------
# A realistic round (3 players, 9 cards each, all categories) and a whole game
# --------------------------------------------------------------------------------------------

ROUND_1 = [
    # P0: tempura 3 -> 5; Wasabi then Squid -> 9; Maki 3 icons; dumpling 1 -> 1; Pudding 0;
    #     Chopsticks 0. Non-maki: 15.
    [T, T, T, W, SQ, M3, D, P, CH],
    # P1: sashimi 3 -> 10; Salmon before the Wasabi -> 2; Egg on the Wasabi -> 3; Maki 2+2 = 4
    #     icons; dumpling 1 -> 1. Non-maki: 16.
    [SA, SA, SA, SAL, W, EGG, M2, M2, D],
    # P2: dumpling 3 -> 6; Maki 1+2 = 3 icons; tempura 1 -> 0; sashimi 1 -> 0; unused Wasabi 0;
    #     Pudding 0. Non-maki: 6.
    [D, D, D, M1, M2, T, SA, W, P],
]
# Maki icons 3, 4, 3: P1 most (6); P0 and P2 tie for second (3 // 2 = 1 each).
# P0 15 + 1 = 16; P1 16 + 6 = 22; P2 6 + 1 = 7.
ROUND_1_POINTS = [16, 22, 7]

ROUND_2 = [
    # P0: Maki 1 icon; Egg 1; Pudding x2 0; tempura 2 -> 5; sashimi 2 -> 0; dumpling 1 -> 1.
    #     Non-maki: 7.
    [M1, EGG, P, P, T, T, SA, SA, D],
    # P1: two Wasabis, Squid 9 + Salmon 6 = 15; Chopsticks 0; dumpling 2 -> 3; Maki 3+3 = 6.
    #     Non-maki: 18.
    [W, W, SQ, SAL, CH, D, D, M3, M3],
    # P2: Pudding 0; sashimi 6 -> 20; Maki 1 icon; tempura 1 -> 0. Non-maki: 20.
    [P, SA, SA, SA, SA, SA, SA, M1, T],
]
# Maki icons 1, 6, 1: P1 most (6); P0 and P2 tie for second (1 each).
# P0 7 + 1 = 8; P1 18 + 6 = 24; P2 20 + 1 = 21.
ROUND_2_POINTS = [8, 24, 21]

ROUND_3 = [
    # P0: Pudding x2; dumpling 1 -> 1; Maki 2 icons; Salmon before the Wasabi -> 2; unused Wasabi;
    #     tempura 2 -> 5; sashimi 1 -> 0. Non-maki: 8.
    [P, P, D, M2, SAL, W, T, T, SA],
    # P1: tempura 4 -> 10; Egg 1 + Squid 3 = 4; Chopsticks x2 0; Maki 1 icon. Non-maki: 14.
    [T, T, T, T, EGG, SQ, CH, CH, M1],
    # P2: dumpling 5 -> 15; Maki 3 icons; Pudding; Egg 1; tempura 1 -> 0. Non-maki: 16.
    [D, D, D, D, D, M3, P, EGG, T],
]
# Maki icons 2, 1, 3: P2 most (6), P0 second (3), P1 0.
# P0 8 + 3 = 11; P1 14 + 0 = 14; P2 16 + 6 = 22.
ROUND_3_POINTS = [11, 14, 22]


def test_realistic_round_three_players():
  assert score_round(ROUND_1) == ROUND_1_POINTS


def test_realistic_round_breakdown():
  breakdown = round_breakdown(tallies_of(ROUND_1))
  assert list(scoring.CATEGORIES) == ["maki", "tempura", "sashimi", "dumpling", "nigiri"]
  assert breakdown == [
      {"maki": 1, "tempura": 5, "sashimi": 0, "dumpling": 1, "nigiri": 9},
      {"maki": 6, "tempura": 0, "sashimi": 10, "dumpling": 1, "nigiri": 5},
      {"maki": 1, "tempura": 0, "sashimi": 0, "dumpling": 6, "nigiri": 0},
  ]
  assert [sum(b.values()) for b in breakdown] == ROUND_1_POINTS


def test_round_points_of_one_player_are_its_row_of_the_breakdown():
  # Each player's points of the rows above, asked for alone.
  assert [scoring.round_points(tallies_of(ROUND_1), p) for p in range(3)] == ROUND_1_POINTS


def test_realistic_round_tally():
  t0, t1, t2 = tallies_of(ROUND_1)
  # Colours (scoring families): P0 Tempura, Wasabi, Nigiri, Maki, Dumpling, Pudding, Chopsticks
  # = 7; P1 Sashimi, Nigiri, Wasabi, Maki, Dumpling = 5; P2 Dumpling, Maki, Tempura, Sashimi,
  # Wasabi, Pudding = 6.
  assert t0 == scoring.TableauTally(
      tempura=3, sashimi=0, dumpling=1, maki_icons=3, nigiri_points=9, puddings=1, colours=7)
  assert t1 == scoring.TableauTally(
      tempura=0, sashimi=3, dumpling=1, maki_icons=4, nigiri_points=5, puddings=0, colours=5)
  assert t2 == scoring.TableauTally(
      tempura=1, sashimi=1, dumpling=3, maki_icons=3, nigiri_points=0, puddings=1, colours=6)


def test_realistic_rounds_two_and_three():
  assert score_round(ROUND_2) == ROUND_2_POINTS
  assert score_round(ROUND_3) == ROUND_3_POINTS


def test_realistic_whole_game():
  # The three rounds use 81 cards, each within its deck count (e.g. Tempura 4 + 3 + 7 = 14,
  # Dumpling 5 + 3 + 6 = 14, Wasabi 3 + 2 + 1 = 6, Chopsticks 1 + 1 + 2 = 4).
  rounds = [ROUND_1, ROUND_2, ROUND_3]
  totals = [0, 0, 0]
  for tableaus in rounds:
    for p, pts in enumerate(score_round(tableaus)):
      totals[p] += pts
  # P0 16 + 8 + 11 = 35; P1 22 + 24 + 14 = 60; P2 7 + 21 + 22 = 50.
  assert totals == [35, 60, 50]
  # Puddings kept over the rounds: P0 1 + 2 + 2 = 5; P1 0; P2 1 + 1 + 1 = 3.
  puddings = [sum(t.count(P) for t in (r[p] for r in rounds)) for p in range(3)]
  assert puddings == [5, 0, 3]
  # Most (P0) +6; least (P1, zero) -6; P2 0.
  assert score_puddings(puddings) == [6, -6, 0]
  final = [t + d for t, d in zip(totals, score_puddings(puddings))]
  # 41, 54, 50: P1 wins.
  assert final == [41, 54, 50]
  assert winners(final, puddings) == [1]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["Unagi", "Maki Roll 4", "Tuna Nigiri", ""])
def test_unknown_card_name_raises_value_error_naming_it(bad):
  with pytest.raises(ValueError) as excinfo:
    score_round([[T, bad], [SA]])
  assert repr(bad) in str(excinfo.value) or f'"{bad}"' in str(excinfo.value)


def test_unknown_card_name_in_a_later_tableau():
  with pytest.raises(ValueError, match="Sea Urchin"):
    score_round([[T, T], [SA], [D, "Sea Urchin"]])


# --------------------------------------------------------------------------------------------
# Properties (hypothesis), each implied by the rules
# --------------------------------------------------------------------------------------------

tableau_st = st.lists(st.sampled_from(SPEC_NAMES), min_size=0, max_size=10)
tableaus_st = st.lists(tableau_st, min_size=2, max_size=5)
no_maki_tableau_st = st.lists(st.sampled_from(NO_MAKI_NAMES), min_size=0, max_size=10)


@PROPERTY
@given(tableaus_st)
def test_prop_round_points_are_non_negative_ints(tableaus):
  # No round rule takes points away: only Pudding (end of game) does.
  points = score_round(tableaus)
  assert len(points) == len(tableaus)
  for x in points:
    assert type(x) is int
    assert x >= 0


@PROPERTY
@given(st.data())
def test_prop_permuting_players_permutes_scores(data):
  tableaus = data.draw(tableaus_st)
  perm = data.draw(st.permutations(range(len(tableaus))))
  points = score_round(tableaus)
  permuted = score_round([tableaus[i] for i in perm])
  assert permuted == [points[i] for i in perm]


@PROPERTY
@given(tableaus_st, st.data())
def test_prop_pudding_and_chopsticks_do_not_change_round_points(tableaus, data):
  # Both score 0 in the round, hold no icons and take no Wasabi, wherever they are placed.
  player = data.draw(st.integers(0, len(tableaus) - 1))
  card = data.draw(st.sampled_from([P, CH]))
  where = data.draw(st.integers(0, len(tableaus[player])))
  changed = [list(t) for t in tableaus]
  changed[player].insert(where, card)
  assert score_round(changed) == score_round(tableaus)


@PROPERTY
@given(st.lists(st.lists(st.sampled_from([n for n in SPEC_NAMES if n != W]), max_size=10),
                min_size=2, max_size=5), st.randoms(use_true_random=False))
def test_prop_without_wasabi_order_does_not_matter(tableaus, rnd):
  # Placement order matters only for Wasabi.
  shuffled = [list(t) for t in tableaus]
  for t in shuffled:
    rnd.shuffle(t)
  assert score_round(shuffled) == score_round(tableaus)


@PROPERTY
@given(tableaus_st, st.data())
def test_prop_adding_a_non_maki_card_never_lowers_own_and_leaves_others(tableaus, data):
  # A non-maki card changes no icon count, so others' Maki points (and all their other points)
  # stay; for the owner every category is non-decreasing in its cards, a new Wasabi at the end is
  # free and scores 0, a new Nigiri scores at least its face value.
  player = data.draw(st.integers(0, len(tableaus) - 1))
  card = data.draw(st.sampled_from(NO_MAKI_NAMES))
  before = score_round(tableaus)
  changed = [list(t) for t in tableaus]
  changed[player].append(card)
  after = score_round(changed)
  assert after[player] >= before[player]
  assert [x for p, x in enumerate(after) if p != player] == \
      [x for p, x in enumerate(before) if p != player]


@PROPERTY
@given(no_maki_tableau_st, st.lists(tableau_st, min_size=1, max_size=4))
def test_prop_non_maki_points_do_not_depend_on_others(mine, others):
  # Without maki, my points are only my own sets, dumplings and nigiri: the same whoever sits at
  # the table (others' maki cannot give me second place: I have no icon).
  alone = score_round([mine, []])[0]
  assert score_round([mine] + others)[0] == alone
  assert score_round(others + [mine])[-1] == alone


@PROPERTY
@given(st.lists(st.lists(st.sampled_from([M1, M2, M3]), max_size=10), min_size=2, max_size=5))
def test_prop_maki_only_round(tableaus):
  points = score_round(tableaus)
  icons = [sum(int(n[-1]) for n in t) for t in tableaus]
  if max(icons) == 0:
    assert points == [0] * len(tableaus)
    return
  # Total handed out: first place k*(6//k) in {6, 4, 5} for k = 1..3, 4, 5 tied, plus second place
  # j*(3//j) in {0, 2, 3} -> between 4 and 9.
  assert 4 <= sum(points) <= 9
  for p, q in [(p, q) for p in range(len(icons)) for q in range(len(icons))]:
    if icons[p] == 0:
      assert points[p] == 0
    if icons[p] > icons[q]:
      assert points[p] >= points[q]
    if icons[p] == icons[q]:
      assert points[p] == points[q]
  # Every player with the most icons scores (6 split at most 5 ways is at least 1).
  for p, n in enumerate(icons):
    if n == max(icons):
      assert points[p] >= 1


@PROPERTY
@given(st.lists(st.integers(0, 30), min_size=2, max_size=5))
def test_prop_maki_points_structure(icons):
  points = maki_points(icons)
  assert len(points) == len(icons)
  assert all(type(x) is int for x in points)
  assert all(0 <= x <= 6 for x in points)
  assert sum(points) <= 9
  top = max(icons)
  for p, n in enumerate(icons):
    if n == 0:
      assert points[p] == 0
  if top > 0:
    leaders = [p for p, n in enumerate(icons) if n == top]
    for p in leaders:
      assert points[p] == 6 // len(leaders)
    if len(leaders) > 1:
      # No second place: everyone else scores 0.
      assert all(points[p] == 0 for p in range(len(icons)) if p not in leaders)


@PROPERTY
@given(st.lists(st.integers(0, 10), min_size=2, max_size=5))
def test_prop_pudding_points(counts):
  points = score_puddings(counts)
  n = len(counts)
  assert len(points) == n
  assert all(type(x) is int for x in points)
  assert all(-6 <= x <= 6 for x in points)
  assert -6 <= sum(points) <= 6
  if len(set(counts)) == 1:
    assert points == [0] * n
    return
  top, low = max(counts), min(counts)
  most = [p for p, c in enumerate(counts) if c == top]
  fewest = [p for p, c in enumerate(counts) if c == low]
  # The most share +6 (at most 4 of 5 can tie when not all equal: each gets >= 1).
  for p in most:
    assert points[p] == 6 // len(most) >= 1
  if n == 2:
    # Only the +6: total is exactly 6, nobody negative.
    assert sum(points) == 6
    assert all(x >= 0 for x in points)
  else:
    for p in fewest:
      assert points[p] == -(6 // len(fewest)) <= -1
    # + k*(6//k) in {6, 6, 6, 4} and - j*(6//j) likewise: the sum is within [-2, 2].
    assert -2 <= sum(points) <= 2
  for p, c in enumerate(counts):
    if low < c < top:
      assert points[p] == 0
  # More puddings never means fewer pudding points.
  for p in range(n):
    for q in range(n):
      if counts[p] > counts[q]:
        assert points[p] >= points[q]


@PROPERTY
@given(st.data())
def test_prop_pudding_symmetry(data):
  counts = data.draw(st.lists(st.integers(0, 10), min_size=2, max_size=5))
  perm = data.draw(st.permutations(range(len(counts))))
  points = score_puddings(counts)
  assert score_puddings([counts[i] for i in perm]) == [points[i] for i in perm]


@PROPERTY
@given(st.data())
def test_prop_winners(data):
  n = data.draw(st.integers(2, 5))
  totals = data.draw(st.lists(st.integers(-12, 60), min_size=n, max_size=n))
  puddings = data.draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))
  won = winners(totals, puddings)
  best = max(totals)
  tied = [p for p in range(n) if totals[p] == best]
  most = max(puddings[p] for p in tied)
  # Exactly the highest-total players with the most puddings among them, in player order.
  assert won == [p for p in tied if puddings[p] == most]
  assert won  # someone always wins


# Wasabi's share of the Nigiri points (the replays' breakdown names it)


@pytest.mark.parametrize("tableau, points", [
    ([W, SQ], 6),            # Squid 3 tripled to 9: Wasabi adds 6
    ([SQ, W], 0),            # the Wasabi came after the Squid: nothing to triple
    ([W, EGG, SAL], 2),      # the Egg (1) takes the Wasabi, tripled to 3: +2; the Salmon is plain
    ([W, W, SAL, SQ], 10),   # Salmon 2 -> 6 (+4), Squid 3 -> 9 (+6)
    ([T, D, M1], 0),         # no Nigiri, no Wasabi
])
def test_wasabi_points_worked_by_hand(tableau, points):
  assert scoring.wasabi_points(cards.card_named(n) for n in tableau) == points


@PROPERTY
@given(tableaus_st)
def test_nigiri_points_are_face_values_plus_wasabi_points(tableaus):
  for tableau in tableaus:
    placed = [cards.card_named(n) for n in tableau]
    faces = sum({EGG: 1, SAL: 2, SQ: 3}.get(n, 0) for n in tableau)  # docs/rules.md values
    assert tally(placed).nigiri_points == faces + scoring.wasabi_points(placed)
