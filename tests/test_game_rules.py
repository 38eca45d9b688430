"""Scripted whole-game tests of `python_sushi_go` through the pyspiel API, against docs/rules.md.

Every game here uses a reduced deck made of exactly the cards the test deals (see `deck_for`) and a
small `hand_size`/`rounds`, so every hand is chosen by the test. The expected points are worked out
by hand in the comments from docs/rules.md, never computed with the code under test
(the pure scoring functions are covered by test_scoring.py).

Reading the traces: with hand_size h, on turn t each player picks from the hand it holds, then
passes the rest to the left (player i gives to player i+1 mod n). With two players, P0 plays turns
1, 3, ... from its own dealt hand and turns 2, 4, ... from P1's dealt hand.
"""

from __future__ import annotations

import collections
import random

import pyspiel
import pytest

from sushigo_spiel import score_puddings
from sushigo_spiel.sushi_go import rules as R
from support import (CH, D, EGG, M1, M2, M3, SA, SAL, SQ, P, T, W, action_by_name, deal,
                     legal_names, load, play, random_playout)


# The 12 canonical names of docs/rules.md with their standard counts and the deck codes.
SPEC_COUNTS = {T: 14, SA: 14, D: 14, M1: 6, M2: 12, M3: 8, EGG: 5, SAL: 10, SQ: 5, W: 6, CH: 4,
               P: 10}
CODE = {T: "tempura", SA: "sashimi", D: "dumpling", M1: "maki1", M2: "maki2", M3: "maki3",
        EGG: "egg", SAL: "salmon", SQ: "squid", W: "wasabi", CH: "chopsticks", P: "pudding"}
NIGIRI = (EGG, SAL, SQ)

CHANCE = pyspiel.PlayerId.CHANCE
BAD_INPUT = (ValueError, pyspiel.SpielError)


def deck_for(*hand_groups, extra=()) -> str:
  """The deck string holding exactly the cards of the given hands (lists of lists of names)."""
  counts = collections.Counter(name for hands in hand_groups for hand in hands for name in hand)
  counts.update(extra)
  return "/".join(f"{CODE[name]}:{n}" for name, n in counts.items())


def start(hands, rounds=1, later_rounds=(), utility="score"):
  """A game whose deck is exactly `hands` (+ later rounds' hands), with round 1 dealt."""
  game = load(players=len(hands), hand_size=len(hands[0]), rounds=rounds,
              deck=deck_for(hands, *later_rounds), utility=utility)
  state = game.new_initial_state()
  deal(state, hands)
  return state


def snapshot(state):
  return (str(state), list(state.history()), state.information_state_string(0))


def sorted_hands(state):
  return [sorted(hand) for hand in state.hands()]


def points_of(state, round_index=0):
  return state.round_records()[round_index].points


def assert_rejected(state, apply):
  """`apply(state)` raises and leaves the state as it was."""
  before = snapshot(state)
  with pytest.raises(BAD_INPUT):
    apply(state)
  assert snapshot(state) == before


# --------------------------------------------------------------------------------------------
# Wasabi
# --------------------------------------------------------------------------------------------

def test_wasabi_before_nigiri_triples_and_takes_one_nigiri_only():
  # P0 [W, SQ, T], P1 [T, EGG, SAL].
  # T1: P0 Wasabi, P1 Tempura. P0 now holds [EGG, SAL], P1 holds [SQ, T].
  # T2: P0 Salmon (on the Wasabi), P1 Tempura. P0 receives [SQ], P1 receives [EGG].
  # T3 (automatic): P0 Squid (the Wasabi is taken: not tripled), P1 Egg.
  # P0: Salmon 2*3 = 6 + Squid 3 = 9. P1: Tempura pair 5 + Egg 1 = 6.
  state = start([[W, SQ, T], [T, EGG, SAL]])
  play(state, [W, T])
  assert sorted_hands(state) == [sorted([EGG, SAL]), sorted([SQ, T])]
  play(state, [SAL, T])
  assert state.is_terminal()
  record = state.round_records()[0]
  assert record.tableaus == [[W, SAL, SQ], [T, T, EGG]]
  assert record.points == [9, 6]
  assert record.breakdown[0]["nigiri"] == 9
  assert record.breakdown[1]["nigiri"] == 1
  assert record.breakdown[1]["tempura"] == 5


def test_nigiri_before_wasabi_not_tripled_later_wasabi_takes_later_nigiri():
  # P0 [SAL, SQ, T], P1 [T, W, EGG].
  # T1: P0 Salmon (no Wasabi yet: 2), P1 Tempura. P0 holds [W, EGG], P1 holds [SQ, T].
  # T2: P0 Wasabi, P1 Tempura. P0 receives [SQ], P1 receives [EGG].
  # T3: P0 Squid goes on the Wasabi: 9. P1 Egg: 1.
  # P0: 2 + 0 + 9 = 11. P1: 5 + 1 = 6.
  state = start([[SAL, SQ, T], [T, W, EGG]])
  play(state, [SAL, T])
  play(state, [W, T])
  record = state.round_records()[0]
  assert record.tableaus == [[SAL, W, SQ], [T, T, EGG]]
  assert record.points == [11, 6]
  assert state.returns() == [11.0, 6.0]


def test_unused_wasabi_scores_zero_in_play():
  # P0 [SAL, W], P1 [T, T]. T1: P0 Salmon, P1 Tempura; P0 receives [T], P1 receives [W].
  # P0: Salmon 2 + Tempura 0 = 2. P1: Tempura 0 + Wasabi (unused) 0 = 0.
  state = start([[SAL, W], [T, T]])
  play(state, [SAL, T])
  assert state.round_records()[0].tableaus == [[SAL, T], [T, W]]
  assert points_of(state) == [2, 0]


# --------------------------------------------------------------------------------------------
# Chopsticks
# --------------------------------------------------------------------------------------------

def chopsticks_game():
  # P0 [CH, T, T, SA], P1 [EGG, SAL, SQ, D]. No Wasabi in the deck.
  # T1: P0 Chopsticks, P1 Egg. P0 then holds [SAL, SQ, D], P1 holds [T, T, SA].
  return start([[CH, T, T, SA], [EGG, SAL, SQ, D]])


def test_pair_not_offered_when_chopsticks_taken_this_turn():
  state = chopsticks_game()
  # Chopsticks only in hand at the start of turn 1: single cards only.
  assert sorted(legal_names(state, 0)) == sorted([T, SA, CH])
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, f"{T} + {T}"), action_by_name(s, 1, EGG)]))
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, f"{T} + {SA}"), action_by_name(s, 1, EGG)]))
  play(state, [CH, EGG])
  # Chopsticks are in the tableau at the start of turn 2: P0 may take two cards.
  assert sorted(legal_names(state, 0)) == sorted([
      D, SAL, SQ, f"{D} + {SAL}", f"{D} + {SQ}", f"{SAL} + {SQ}"])
  # P1 has no Chopsticks in its tableau: no pair.
  assert sorted(legal_names(state, 1)) == sorted([T, SA])


def test_chopsticks_go_back_into_the_hand_and_are_passed_on():
  state = chopsticks_game()
  play(state, [CH, EGG])
  # T2: P0 takes Salmon + Squid; Chopsticks return to the hand it passes: [D, CH] goes to P1.
  # P1 plays Tempura and passes [T, SA] to P0.
  play(state, [f"{SAL} + {SQ}", T])
  assert state.tableaus() == [[SAL, SQ], [EGG, T]]  # the used Chopsticks left the tableau
  assert sorted_hands(state) == [sorted([T, SA]), sorted([D, CH])]
  # P1 (no Chopsticks in its tableau) cannot pair; it can take the Chopsticks as a single card.
  assert sorted(legal_names(state, 1)) == sorted([D, CH])
  # T3: P0 Tempura, P1 Dumpling; T4 automatic: P0 Chopsticks, P1 Sashimi.
  play(state, [T, D])
  record = state.round_records()[0]
  assert record.tableaus == [[SAL, SQ, T, CH], [EGG, T, D, SA]]
  # P0: Salmon 2 + Squid 3 = 5 (one Tempura, unused Chopsticks: 0).
  # P1: Egg 1 + Dumpling 1 = 2 (one Tempura, one Sashimi: 0).
  assert record.points == [5, 2]


def test_at_most_one_chopsticks_used_per_turn():
  # P0 [CH, T, T, SA, SA], P1 [CH, D, D, EGG, EGG].
  # T1: P0 Chopsticks, P1 Dumpling. P0 holds [CH, D, EGG, EGG], P1 holds [T, T, SA, SA].
  # T2: P0 Chopsticks (from P1's hand), P1 Tempura. P0 holds [T, SA, SA], P1 [D, EGG, EGG].
  state = start([[CH, T, T, SA, SA], [CH, D, D, EGG, EGG]])
  play(state, [CH, D])
  play(state, [CH, T])
  assert state.tableaus()[0] == [CH, CH]
  # Two Chopsticks in the tableau still allow two cards at most.
  assert all(name.count(" + ") <= 1 for name in legal_names(state, 0))
  assert f"{SA} + {SA}" in legal_names(state, 0)
  # T3: P0 Sashimi + Sashimi, P1 Dumpling. One Chopsticks goes back: P0 passes [T, CH] to P1;
  # P1 passes [EGG, EGG] to P0.
  play(state, [f"{SA} + {SA}", D])
  assert state.tableaus() == [[CH, SA, SA], [D, T, D]]
  assert sorted_hands(state) == [[EGG, EGG], sorted([T, CH])]
  # T4: the second Chopsticks is still there: P0 takes both Eggs; P1 Tempura.
  # Then each hand is the single Chopsticks card, played automatically (T5).
  assert f"{EGG} + {EGG}" in legal_names(state, 0)
  play(state, [f"{EGG} + {EGG}", T])
  assert state.is_terminal()
  record = state.round_records()[0]
  assert record.tableaus == [[SA, SA, EGG, EGG, CH], [D, T, D, T, CH]]
  # P0: two Sashimi 0 + two Eggs 2 = 2. P1: two Dumplings 3 + Tempura pair 5 = 8.
  assert record.points == [2, 8]


def test_no_pair_and_no_decision_on_a_single_card_hand():
  # hand_size 3. P0 [CH, T, T], P1 [SA, SA, D].
  # T1: P0 Chopsticks, P1 Sashimi. P0 holds [SA, D] (pair offered), P1 holds [T, T].
  # T2: P0 Sashimi, P1 Tempura. Hands now hold one card each: the round ends without a
  # decision node (P0's Chopsticks stay unused): P0 gets P1's Tempura, P1 gets P0's Dumpling.
  state = start([[CH, T, T], [SA, SA, D]])
  play(state, [CH, SA])
  assert f"{SA} + {D}" in legal_names(state, 0)
  play(state, [SA, T])
  assert state.is_terminal()
  assert len(state.history()) == 3 * 2 + 2 * 2  # 6 cards dealt, 2 turns of 2 picks
  record = state.round_records()[0]
  assert record.tableaus == [[CH, SA, T], [SA, T, D]]
  assert record.points == [0, 1]  # P1's lone Dumpling


def test_pair_on_the_last_decision_passes_the_chopsticks_as_the_last_card():
  # hand_size 3. P0 [CH, T, T], P1 [SA, SA, D].
  # T1: P0 Chopsticks, P1 Sashimi. T2: P0 takes Sashimi + Dumpling, leaving [CH] for P1;
  # P1 plays Tempura, leaving [T] for P0. T3 automatic: P0 Tempura, P1 Chopsticks.
  state = start([[CH, T, T], [SA, SA, D]])
  play(state, [CH, SA])
  play(state, [f"{SA} + {D}", T])
  assert state.is_terminal()
  record = state.round_records()[0]
  assert record.tableaus == [[SA, D, T], [SA, T, CH]]
  assert record.points == [1, 0]


def wasabi_squid_game():
  # P0 [CH, EGG, T], P1 [W, SQ, T].
  # T1: P0 Chopsticks, P1 Tempura. P0 holds [W, SQ] (no free Wasabi), P1 holds [EGG, T].
  state = start([[CH, EGG, T], [W, SQ, T]])
  play(state, [CH, T])
  return state


def test_both_wasabi_nigiri_orders_offered_without_a_free_wasabi():
  state = wasabi_squid_game()
  assert sorted(legal_names(state, 0)) == sorted([W, SQ, f"{W} + {SQ}", f"{SQ} + {W}"])


def test_wasabi_then_squid_pair_triples_the_squid():
  # T2: P0 Wasabi + Squid Nigiri (the Squid goes on the new Wasabi: 9); P1 Tempura.
  # T3: P0 gets Egg (no free Wasabi: 1); P1 gets Chopsticks.
  # P0: 9 + 1 = 10. P1: Tempura pair 5.
  state = wasabi_squid_game()
  play(state, [f"{W} + {SQ}", T])
  record = state.round_records()[0]
  assert record.tableaus == [[W, SQ, EGG], [T, T, CH]]
  assert record.points == [10, 5]


def test_squid_then_wasabi_pair_leaves_the_wasabi_free_for_a_later_nigiri():
  # T2: P0 Squid Nigiri + Wasabi (Squid 3, the Wasabi stays free); P1 Tempura.
  # T3: P0 gets Egg, which goes on the Wasabi: 3. P0: 3 + 3 = 6. P1: 5.
  state = wasabi_squid_game()
  play(state, [f"{SQ} + {W}", T])
  record = state.round_records()[0]
  assert record.tableaus == [[SQ, W, EGG], [T, T, CH]]
  assert record.points == [6, 5]


def test_with_a_free_wasabi_only_the_canonical_order_is_offered():
  # P0 [W, SQ, W, T], P1 [CH, T, EGG, SAL].
  # T1: P0 Wasabi, P1 Tempura. P0 holds [CH, EGG, SAL], P1 holds [SQ, W, T].
  # T2: P0 Chopsticks, P1 Tempura. P0 holds [SQ, W] with one free Wasabi, P1 holds [EGG, SAL].
  state = start([[W, SQ, W, T], [CH, T, EGG, SAL]])
  play(state, [W, T])
  play(state, [CH, T])
  # Both orders would put the Squid on the free Wasabi and leave one Wasabi free.
  assert sorted(legal_names(state, 0)) == sorted([SQ, W, f"{SQ} + {W}"])
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, f"{W} + {SQ}"), action_by_name(s, 1, EGG)]))
  # T3: P0 Squid + Wasabi (Squid on the first Wasabi: 9), P1 Egg. P0 gets [SAL], P1 gets [CH].
  # T4: P0 Salmon on the second Wasabi: 6. P0: 9 + 6 = 15. P1: Tempura pair 5 + Egg 1 = 6.
  play(state, [f"{SQ} + {W}", EGG])
  record = state.round_records()[0]
  assert record.tableaus == [[W, SQ, W, SAL], [T, T, EGG, CH]]
  assert record.points == [15, 6]


def two_nigiri_game():
  # P0 [W, EGG, SQ, T], P1 [CH, T, D, D].
  # T1: P0 Wasabi, P1 Tempura. P0 holds [CH, D, D], P1 holds [EGG, SQ, T].
  # T2: P0 Chopsticks, P1 Tempura. P0 holds [EGG, SQ] with exactly one free Wasabi.
  state = start([[W, EGG, SQ, T], [CH, T, D, D]])
  play(state, [W, T])
  play(state, [CH, T])
  return state


def test_two_nigiri_with_one_free_wasabi_offer_both_orders():
  state = two_nigiri_game()
  assert sorted(legal_names(state, 0)) == sorted([EGG, SQ, f"{EGG} + {SQ}", f"{SQ} + {EGG}"])


@pytest.mark.parametrize("pair, tableau, points", [
    # Squid first goes on the Wasabi: 9 + Egg 1 + Dumpling 1 = 11.
    (f"{SQ} + {EGG}", [W, SQ, EGG, D], 11),
    # Egg first goes on the Wasabi: 3 + Squid 3 + Dumpling 1 = 7.
    (f"{EGG} + {SQ}", [W, EGG, SQ, D], 7),
])
def test_two_nigiri_pair_the_first_placed_is_tripled(pair, tableau, points):
  state = two_nigiri_game()
  # T3: P0 the pair (passes [CH] to P1), P1 Dumpling (passes [D] to P0). T4 automatic.
  play(state, [pair, D])
  record = state.round_records()[0]
  assert record.tableaus == [tableau, [T, T, D, CH]]
  # P1: Tempura pair 5 + one Dumpling 1 = 6.
  assert record.points == [points, 6]


def test_two_nigiri_without_free_wasabi_only_the_canonical_order():
  # chopsticks_game at turn 2: P0 holds [SAL, SQ, D] with no Wasabi anywhere near; a Wasabi is
  # added to the deck so that reversed Nigiri pairs exist in the action table.
  game = load(players=2, hand_size=4, rounds=1,
              deck=deck_for([[CH, T, T, SA], [EGG, SAL, SQ, D]], extra=[W]))
  state = game.new_initial_state()
  deal(state, [[CH, T, T, SA], [EGG, SAL, SQ, D]])
  play(state, [CH, EGG])
  names = legal_names(state, 0)
  assert f"{SAL} + {SQ}" in names and f"{SQ} + {SAL}" not in names
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, f"{SQ} + {SAL}"), action_by_name(s, 1, T)]))


# --------------------------------------------------------------------------------------------
# Flow: passing, automatic last card, hand sizes
# --------------------------------------------------------------------------------------------

def test_hands_pass_to_the_left_with_three_players():
  # P0 [T, T, T], P1 [SA, SA, SA], P2 [D, D, D]. Player i gives to player i+1 mod 3.
  state = start([[T, T, T], [SA, SA, SA], [D, D, D]])
  play(state, [T, SA, D])
  assert state.hands() == [[D, D], [T, T], [SA, SA]]
  play(state, [D, T, SA])
  # The last cards pass the same way: P0 gets P2's Sashimi, P1 P0's Dumpling, P2 P1's Tempura.
  record = state.round_records()[0]
  assert record.tableaus == [[T, D, SA], [SA, T, D], [D, SA, T]]
  assert record.points == [1, 1, 1]  # one Dumpling each


def test_last_card_is_automatic_and_the_round_scores():
  # hand_size 4, 2 players, 2 rounds. Hands hold 4, 3, 2 cards at the decision nodes; after the
  # third turn the single cards are placed and round 1 is scored without another decision.
  r1 = [[T, T, SA, SA], [D, D, D, D]]
  r2 = [[EGG, EGG, EGG, EGG], [SAL, SAL, SAL, SAL]]
  state = start(r1, rounds=2, later_rounds=[r2])
  sizes = []
  for picks in ([T, D], [D, T], [SA, D]):
    sizes.append([len(h) for h in state.hands()])
    play(state, picks)
  assert sizes == [[4, 4], [3, 3], [2, 2]]
  assert state.is_chance_node()
  records = state.round_records()
  assert len(records) == 1
  # P0: T1 Tempura (own hand), T2 Dumpling (P1's), T3 Sashimi (own), T4 the last of P1's: D.
  # P1: Dumpling (own), Tempura (P0's), Dumpling (own), then the last of P0's hand: Sashimi.
  assert records[0].tableaus == [[T, D, SA, D], [D, T, D, SA]]
  # Each: one Tempura 0, one Sashimi 0, two Dumplings 3 = 3.
  assert records[0].points == [3, 3]
  assert state.scores() == [3, 3]
  assert state.tableaus() == [[], []]


def test_default_hand_sizes_by_player_count():
  # docs/rules.md, Setup and flow: 2 -> 10, 3 -> 9, 4 -> 8, 5 -> 7 cards.
  for players, size in ((2, 10), (3, 9), (4, 8), (5, 7)):
    state = load(players=players).new_initial_state()
    random_playout(state, random.Random(players), stop=lambda s: s.is_simultaneous_node())
    assert [len(h) for h in state.hands()] == [size] * players


def test_standard_deck_through_chance_outcomes():
  # The first chance node draws from the 108-card deck: probability count / 108, named by card.
  state = load().new_initial_state()
  outcomes = {state.action_to_string(CHANCE, a): p for a, p in state.chance_outcomes()}
  assert outcomes == pytest.approx({name: n / 108 for name, n in SPEC_COUNTS.items()})


# --------------------------------------------------------------------------------------------
# Maki (whole games)
# --------------------------------------------------------------------------------------------

def maki_game(picks):
  """hand_size 2: each player is dealt [pick, Wasabi] and plays `pick`; the Wasabi passes on,
  so every tableau is [pick, Wasabi]. There is no Nigiri: Wasabi score 0, points are Maki points."""
  hands = [[pick, W] for pick in picks]
  state = start(hands)
  play(state, picks)
  assert state.is_terminal()
  assert state.round_records()[0].tableaus == hands
  return state


@pytest.mark.parametrize("picks, expected", [
    # Tie for most (3, 3, 1): share 6 -> 3 each; no second place.
    ([M3, M3, M1], [3, 3, 0]),
    # Three-way tie (2, 2, 2): 6 // 3 = 2 each.
    ([M2, M2, M2], [2, 2, 2]),
    # Tie for second (3, 2, 2, 1): 6; 3 // 2 = 1 each; 0.
    ([M3, M2, M2, M1], [6, 1, 1, 0]),
    # Tie for second among three (3, 1, 1, 1): 6; 3 // 3 = 1 each.
    ([M3, M1, M1, M1], [6, 1, 1, 1]),
    # Only one player has icons: 6; the others have none and score nothing (no second place).
    ([M2, W, W], [6, 0, 0]),
    # Nobody has icons: nobody scores.
    ([W, W, W], [0, 0, 0]),
    # Two players 3 vs 1: 6 and 3.
    ([M3, M1], [6, 3]),
])
def test_maki_awards_in_play(picks, expected):
  state = maki_game(picks)
  assert points_of(state) == expected
  assert [b["maki"] for b in state.round_records()[0].breakdown] == expected


def test_maki_icons_summed_across_cards_in_play():
  # P0 [M1, M2, T], P1 [M3, T, T]. T1: P0 Maki 1, P1 Maki 3. P0 holds [T, T], P1 [M2, T].
  # T2: P0 Tempura, P1 Maki 2. P0 gets [T], P1 gets [T].
  # Icons: P0 1, P1 3 + 2 = 5. P0: Maki second 3 + Tempura pair 5 = 8. P1: Maki 6.
  state = start([[M1, M2, T], [M3, T, T]])
  play(state, [M1, M3])
  play(state, [T, M2])
  record = state.round_records()[0]
  assert record.tableaus == [[M1, T, T], [M3, M2, T]]
  assert record.points == [8, 6]


# --------------------------------------------------------------------------------------------
# Dumplings, Tempura, Sashimi in play
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [5, 6, 7])
def test_five_or_more_dumplings_score_fifteen(size):
  # Both hands all Dumplings: every tableau has `size` Dumplings -> 15 (5 or more).
  state = start([[D] * size, [D] * size])
  for _ in range(size - 1):
    play(state, [D, D])
  assert points_of(state) == [15, 15]


def test_tempura_and_sashimi_sets_in_play():
  # P0 [SA, SA, SA, T], P1 [T, T, T, D].
  # T1: P0 Sashimi, P1 Tempura. P0 holds [T, T, D], P1 holds [SA, SA, T].
  # T2: P0 Tempura, P1 Sashimi. P0 holds [SA, T], P1 holds [T, D].
  # T3: P0 Sashimi, P1 Tempura. T4: P0 gets D, P1 gets T.
  # P0 [SA, T, SA, D]: 2 Sashimi 0, 1 Tempura 0, Dumpling 1 = 1.
  # P1 [T, SA, T, T]: 3 Tempura 5, 1 Sashimi 0 = 5.
  state = start([[SA, SA, SA, T], [T, T, T, D]])
  play(state, [SA, T])
  play(state, [T, SA])
  play(state, [SA, T])
  record = state.round_records()[0]
  assert record.tableaus == [[SA, T, SA, D], [T, SA, T, T]]
  assert record.points == [1, 5]


# --------------------------------------------------------------------------------------------
# Pudding, rounds and the deck
# --------------------------------------------------------------------------------------------

def test_puddings_kept_other_cards_discarded_and_deck_carries_over():
  # 2 players, hand_size 2, 2 rounds; deck pudding:2 / tempura:2 / dumpling:4 = 8 cards, the exact
  # size needed. Round 1 deals P0 [P, T], P1 [P, T]: the 4 Dumplings are all that is left.
  game = load(players=2, hand_size=2, rounds=2, deck="pudding:2/tempura:2/dumpling:4")
  state = game.new_initial_state()
  deal(state, [[P, T], [P, T]])
  # T1: P0 Pudding, P1 Tempura. T2: P0 gets P1's Pudding, P1 gets P0's Tempura.
  play(state, [P, T])
  record = state.round_records()[0]
  assert record.tableaus == [[P, P], [T, T]]
  assert record.points == [0, 5]  # Puddings score nothing in the round; Tempura pair 5
  assert state.tableaus() == [[], []]  # the round's cards are gone
  assert state.puddings() == [2, 0]  # but the Puddings stay
  assert state.scores() == [0, 5]
  # Round 2 deals from what round 1 left: only Dumplings.
  while state.is_chance_node():
    outcomes = state.chance_outcomes()
    assert [(state.action_to_string(CHANCE, a), p) for a, p in outcomes] == [(D, 1.0)]
    state.apply_action(outcomes[0][0])
  assert state.hands() == [[D, D], [D, D]]
  play(state, [D, D])
  assert state.is_terminal()
  # Round 2: two Dumplings each = 3 (round-1 Tempura do not score again).
  assert points_of(state, 1) == [3, 3]
  assert state.round_records()[1].tableaus == [[D, D], [D, D]]
  # Puddings 2 vs 0 with 2 players: +6 for P0, no -6 for P1.
  # P0: 0 + 3 + 6 = 9. P1: 5 + 3 + 0 = 8.
  assert state.puddings() == [2, 0]
  assert state.scores() == [9, 8]
  assert state.returns() == [9.0, 8.0]


def test_round_two_draws_from_the_remaining_counts():
  # Deck tempura:3 / sashimi:3 / squid:2 (8 cards) for 2 rounds of 2 cards to 2 players.
  # Round 1 deals [T, T], [SA, SQ]: left are T 1, SA 2, SQ 1 out of 4.
  game = load(players=2, hand_size=2, rounds=2, deck="tempura:3/sashimi:3/squid:2")
  state = game.new_initial_state()
  deal(state, [[T, T], [SA, SQ]])
  play(state, [T, SA])
  assert state.is_chance_node()
  outcomes = {state.action_to_string(CHANCE, a): p for a, p in state.chance_outcomes()}
  assert outcomes == pytest.approx({T: 1 / 4, SA: 2 / 4, SQ: 1 / 4})
  # The remaining 4 cards form round 2 exactly.
  deal(state, [[SA, SQ], [T, SA]])
  assert sorted_hands(state) == [sorted([SA, SQ]), sorted([T, SA])]


def test_puddings_accumulate_over_three_rounds():
  # 3 players, hand_size 2, 3 rounds; every hand is [pick, Wasabi] as in maki_game, so each
  # tableau is [pick, Wasabi]. Puddings: round 1 P0, round 2 P0 and P1, round 3 P1 and P2.
  rounds = [[P, W, W], [P, P, W], [W, P, P]]
  hands = [[[pick, W] for pick in picks] for picks in rounds]
  game = load(players=3, hand_size=2, rounds=3, deck=deck_for(*hands))
  state = game.new_initial_state()
  kept = []
  for picks, round_hands in zip(rounds, hands):
    deal(state, round_hands)
    play(state, picks)
    kept.append(state.puddings())
  assert kept == [[1, 0, 0], [2, 1, 0], [2, 2, 1]]
  # All rounds score 0 (Wasabi without Nigiri, Puddings). Puddings 2, 2, 1: P0 and P1 share +6 -> +3
  # each; P2 has the fewest: -6.
  assert [r.points for r in state.round_records()] == [[0, 0, 0]] * 3
  assert state.returns() == [3.0, 3.0, -6.0]


@pytest.mark.parametrize("picks, expected", [
    # All equal (one each): nobody scores for Pudding.
    ([P, P, P], [0, 0, 0]),
    # All equal at zero.
    ([W, W, W], [0, 0, 0]),
    # 3 players 1, 0, 0: +6; the two with fewest share -6 -> -3 each.
    ([P, W, W], [6, -3, -3]),
    # 3 players 1, 1, 0: +3 each; -6.
    ([P, P, W], [3, 3, -6]),
    # 2 players 1 vs 0: only the +6 is awarded.
    ([P, W], [6, 0]),
    # 4 players 1, 1, 1, 0: 6 // 3 = 2 each; -6.
    ([P, P, P, W], [2, 2, 2, -6]),
    # 4 players 1, 1, 0, 0: +3, +3, -3, -3.
    ([W, P, W, P], [-3, 3, -3, 3]),
])
def test_pudding_at_game_end(picks, expected):
  # maki_game tableaus: [pick, Wasabi], round points 0 for everyone.
  state = maki_game(picks)
  assert points_of(state) == [0] * len(picks)
  assert state.returns() == [float(x) for x in expected]


def pudding_five_players(utility="score"):
  # 5 players, hand_size 2. Hands P0 [P, T], P1 [P, T], P2 [P, T], P3 [T, T], P4 [T, P].
  # Picks P, P, P, T, T; each player then gets the other card of the player to its right:
  # P0 [P, P(from P4)], P1 [P, T], P2 [P, T], P3 [T, T], P4 [T, T].
  hands = [[P, T], [P, T], [P, T], [T, T], [T, P]]
  state = start(hands, utility=utility)
  play(state, [P, P, P, T, T])
  assert state.round_records()[0].tableaus == [[P, P], [P, T], [P, T], [T, T], [T, T]]
  return state


def test_pudding_five_players():
  # Round points: Tempura pairs for P3 and P4: [0, 0, 0, 5, 5].
  # Puddings 2, 1, 1, 0, 0: +6 for P0, nothing for P1, P2, -6 shared by P3, P4 -> -3 each.
  # Totals: 6, 0, 0, 2, 2.
  state = pudding_five_players()
  assert points_of(state) == [0, 0, 0, 5, 5]
  assert state.puddings() == [2, 1, 1, 0, 0]
  assert state.scores() == [6, 0, 0, 2, 2]
  assert state.returns() == [6.0, 0.0, 0.0, 2.0, 2.0]


# --------------------------------------------------------------------------------------------
# Utilities
# --------------------------------------------------------------------------------------------

def test_margin_utility_scripted():
  # Totals 6, 0, 0, 2, 2 (test_pudding_five_players). Margin = own - mean of the other four:
  # P0 6 - 4/4 = 5; P1, P2 0 - 10/4 = -2.5; P3, P4 2 - 8/4 = 0. Sum 0.
  state = pudding_five_players(utility="margin")
  assert state.returns() == pytest.approx([5.0, -2.5, -2.5, 0.0, 0.0])


def test_win_utility_tie_on_points_broken_by_puddings():
  # P0 [P, T], P1 [M3, T]: P0 plays Pudding, P1 Maki 3; the Tempuras pass.
  # P0 [P, T]: 0 + Pudding most (2 players: +6) = 6. P1 [M3, T]: Maki alone 6 = 6.
  # Tied on 6; P0 has more Puddings and wins alone.
  hands = [[P, T], [M3, T]]
  for utility, expected in (("score", [6.0, 6.0]), ("win", [1.0, 0.0]), ("margin", [0.0, 0.0])):
    state = start(hands, utility=utility)
    play(state, [P, M3])
    assert state.returns() == expected, utility


def test_win_utility_full_tie_is_shared():
  # P0 [P, M3], P1 [P, M3]: both play Pudding and receive the other's Maki 3.
  # Maki tie 3 each; Puddings 1 and 1 (equal, nothing). Totals 3, 3, Puddings equal: shared.
  for utility, expected in (("score", [3.0, 3.0]), ("win", [0.5, 0.5])):
    state = start([[P, M3], [P, M3]], utility=utility)
    play(state, [P, P])
    assert state.returns() == expected, utility


def test_win_utility_three_players():
  # maki_game [M3, M3, M1]: points 3, 3, 0, no Puddings: P0 and P1 share the win.
  state = start([[M3, W], [M3, W], [M1, W]], utility="win")
  play(state, [M3, M3, M1])
  assert state.returns() == [0.5, 0.5, 0.0]


def test_returns_zero_before_the_end():
  state = start([[T, T, T], [SA, SA, SA]])
  assert state.returns() == [0.0, 0.0]
  play(state, [T, SA])
  assert state.returns() == [0.0, 0.0]


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_returns_consistent_across_utilities_on_random_games(players, seed):
  by_utility = {}
  for utility in ("score", "margin", "win"):
    state = load(players=players, utility=utility).new_initial_state()
    random_playout(state, random.Random(seed))
    by_utility[utility] = state
  state = by_utility["score"]
  records = state.round_records()
  assert len(records) == 3
  puddings = state.puddings()
  # Puddings are the Puddings of all rounds' tableaus.
  assert puddings == [sum(r.tableaus[p].count(P) for r in records) for p in range(players)]
  bonus = score_puddings(puddings)
  scores = [sum(r.points[p] for r in records) + bonus[p] for p in range(players)]
  for record in records:
    assert [sum(b.values()) for b in record.breakdown] == record.points
  assert state.scores() == scores
  assert state.returns() == [float(s) for s in scores]
  # Same seed, same legal actions: the three games are the same game.
  assert by_utility["margin"].history() == state.history()
  assert by_utility["win"].history() == state.history()
  margin = by_utility["margin"].returns()
  total = sum(scores)
  assert margin == pytest.approx([s - (total - s) / (players - 1) for s in scores])
  assert sum(margin) == pytest.approx(0.0)
  best = max(scores)
  tied = [p for p in range(players) if scores[p] == best]
  most = max(puddings[p] for p in tied)
  won = [p for p in tied if puddings[p] == most]
  assert by_utility["win"].returns() == [1 / len(won) if p in won else 0.0
                                         for p in range(players)]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params, fragments", [
    (dict(deal="x"), ["deal", "'x'", "card", "hand"]),
    (dict(utility="x"), ["utility", "'x'", "score", "margin", "win"]),
    (dict(players=5, deck="tempura:10"), ["deck", "tempura:10", "10 cards", "105"]),
    (dict(deck="tempura:20/tofu:4"), ["deck", "tofu", "allowed", "tempura", "pudding"]),
    (dict(players=1), ["players", "1", "2 to 5"]),
    (dict(players=6), ["players", "6", "2 to 5"]),
    (dict(hand_size=1), ["hand_size", "1", "2 or more"]),
])
def test_bad_parameters_are_explained(params, fragments):
  with pytest.raises(BAD_INPUT) as info:
    load(**params)
  message = str(info.value)
  for fragment in fragments:
    assert fragment in message


def test_bad_parameter_through_a_game_string():
  with pytest.raises(BAD_INPUT, match="deal"):
    pyspiel.load_game("python_sushi_go(deal=x)")


def illegal_setup():
  # P0 [CH, T, SA], P1 [D, D, EGG]: nothing in P0's tableau, so no pair is legal.
  return start([[CH, T, SA], [D, D, EGG]])


def test_card_not_in_hand_rejected_state_unchanged():
  state = illegal_setup()
  egg = action_by_name(state, 0, EGG)
  assert_rejected(state, lambda s: s.apply_actions([egg, action_by_name(s, 1, D)]))
  # Also for the second player.
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, T), action_by_name(s, 1, T)]))


def test_pair_without_chopsticks_rejected_state_unchanged():
  state = illegal_setup()
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, f"{T} + {SA}"), action_by_name(s, 1, D)]))
  assert_rejected(state, lambda s: s.apply_actions(
      [action_by_name(s, 0, T), action_by_name(s, 1, f"{D} + {D}")]))


@pytest.mark.parametrize("bad", [-1, "num_distinct_actions", 10_000])
def test_out_of_range_action_rejected_state_unchanged(bad):
  state = illegal_setup()
  if bad == "num_distinct_actions":
    bad = state.get_game().num_distinct_actions()
  assert_rejected(state, lambda s: s.apply_actions([bad, action_by_name(s, 1, D)]))


def test_wrong_number_of_actions_rejected_state_unchanged():
  state = illegal_setup()
  assert_rejected(state, lambda s: s.apply_actions([action_by_name(s, 0, T)]))


def test_out_of_range_flat_joint_action_rejected_state_unchanged():
  # At a simultaneous node, apply_action takes a flat joint action in
  # range(len(legal_actions())): 3 picks x 2 picks = 6 here. 6 is out of range.
  state = illegal_setup()
  assert len(state.legal_actions()) == 6
  assert_rejected(state, lambda s: s.apply_action(6))
  assert_rejected(state, lambda s: s.apply_action(-5))


def test_flat_joint_action_is_kept_by_resampling():
  # A legal flat joint action (apply_action at a simultaneous node) is a move like apply_actions:
  # a state resampled from P0's information state must be at the same turn with the same
  # tableaus. Flat 0 = P0's first legal pick (Tempura) and P1's first (Tempura).
  state = start([[T, T, SA], [SA, SA, T]])
  state.apply_action(0)
  assert state.tableaus() == [[T], [T]]
  resampled = state.resample_from_infostate(0, random.Random(0).random)
  assert resampled.tableaus() == [[T], [T]]
  assert resampled.information_state_string(0) == state.information_state_string(0)


def test_illegal_chance_outcome_rejected_state_unchanged():
  game = load(players=2, hand_size=2, rounds=1, deck="tempura:4")
  state = game.new_initial_state()
  assert_rejected(state, lambda s: s.apply_action(1))  # only one card type in this deck
  assert_rejected(state, lambda s: s.apply_action(99))
  game = load(players=2, hand_size=2, rounds=1, deck="tempura:3/sashimi:1")
  state = game.new_initial_state()
  state.apply_action(1)  # the only Sashimi
  assert_rejected(state, lambda s: s.apply_action(1))


def test_action_after_the_end_rejected():
  state = start([[T, T], [SA, SA]])
  play(state, [T, SA])
  assert state.is_terminal()
  assert state.legal_actions(0) == []
  assert_rejected(state, lambda s: s.apply_actions([0, 1]))


# --------------------------------------------------------------------------------------------
# Action strings and game sizes
# --------------------------------------------------------------------------------------------

def test_action_strings_standard_game():
  game = load()
  state = game.new_initial_state()
  names = [state.action_to_string(0, a) for a in range(game.num_distinct_actions())]
  singles = [n for n in names if " + " not in n]
  pairs = [n.split(" + ") for n in names if " + " in n]
  assert sorted(singles) == sorted(SPEC_COUNTS)
  assert all(len(p) == 2 and set(p) <= set(SPEC_COUNTS) for p in pairs)
  assert len(set(names)) == len(names)
  # Both orders exist wherever the order can change the score.
  ordered = {tuple(p) for p in pairs}
  for a in NIGIRI:
    assert (a, W) in ordered and (W, a) in ordered
    for b in NIGIRI:
      if a != b:
        assert (a, b) in ordered
  # Every unordered pair (Chopsticks + Chopsticks too: the deck has 4) plus the 6 reversals:
  # 12 singles + 12 * 13 / 2 = 78 + 6 = 96.
  assert {frozenset(p) for p in ordered} == {frozenset((a, b)) for a in SPEC_COUNTS
                                             for b in SPEC_COUNTS}
  assert game.num_distinct_actions() == 96
  # Chance outcomes are card names.
  chance = [state.action_to_string(CHANCE, a) for a in state.legal_actions()]
  assert sorted(chance) == sorted(SPEC_COUNTS)


def test_pair_string_is_placement_order():
  state = wasabi_squid_game()
  action = action_by_name(state, 0, f"{W} + {SQ}")
  assert state.action_to_string(0, action) == "Wasabi + Squid Nigiri"
  state.apply_actions([action, action_by_name(state, 1, T)])
  assert state.round_records()[0].tableaus[0][:2] == [W, SQ]


def test_game_sizes_standard_two_players():
  game = load()
  # 3 rounds of 10 cards, the 10th automatic: 3 * 9 = 27.
  assert game.max_game_length() == 27
  assert game.num_players() == 2
  assert game.max_chance_outcomes() == 12


def test_reduced_deck_without_chopsticks_has_one_action_per_card_type():
  game = load(players=2, hand_size=3, rounds=1, deck="tempura:2/squid:2/wasabi:2")
  assert game.num_distinct_actions() == 3
  assert game.max_chance_outcomes() == 3
  assert game.max_game_length() == 2
  game = load(players=3, hand_size=2, rounds=2, deck="maki1:4/maki2:4/egg:2/pudding:2")
  assert game.num_distinct_actions() == 4
  assert game.max_game_length() == 2


def count_moves(state):
  return sum(1 for e in state.full_history() if e.player != CHANCE) // state.num_players()


def check_random_game(game, seed):
  """Plays a random game checking ids and hand sizes at every node; returns the decisions."""
  rng = random.Random(seed)
  state = game.new_initial_state()
  n = game.num_players()
  hand_size = game.rules.hand_size
  decisions = 0
  sizes_this_round = []
  rounds_done = 0
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes = state.chance_outcomes()
      assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)
      assert sum(p for _, p in outcomes) == pytest.approx(1.0)
      actions, probs = zip(*outcomes)
      state.apply_action(rng.choices(actions, probs)[0])
      continue
    sizes = [len(h) for h in state.hands()]
    assert len(set(sizes)) == 1 and sizes[0] >= 2  # never a decision on a single card
    sizes_this_round.append(sizes[0])
    picks = []
    for p in range(n):
      legal = state.legal_actions(p)
      assert legal and all(0 <= a < game.num_distinct_actions() for a in legal)
      names = [state.action_to_string(p, a) for a in legal]
      if CH not in state.tableaus()[p]:
        assert all(" + " not in name for name in names)
      picks.append(rng.choice(legal))
    state.apply_actions(picks)
    decisions += 1
    if len(state.round_records()) > rounds_done:
      rounds_done += 1
      assert sizes_this_round == list(range(hand_size, 1, -1))
      assert all(len(t) == hand_size for t in state.round_records()[-1].tableaus)
      sizes_this_round = []
  assert rounds_done == game.rules.rounds
  assert count_moves(state) == decisions
  return decisions


@pytest.mark.parametrize("seed", range(4))
def test_standard_two_player_games_have_27_moves(seed):
  game = load()
  assert check_random_game(game, seed) == 27 == game.max_game_length()


@pytest.mark.parametrize("players, seed", [(3, 10), (4, 11), (5, 12), (5, 13)])
def test_standard_games_have_max_game_length_moves(players, seed):
  game = load(players=players)
  # rounds * (hand size - 1): 3 * 8 = 24, 3 * 7 = 21, 3 * 6 = 18.
  expected = {3: 24, 4: 21, 5: 18}[players]
  assert game.max_game_length() == expected
  assert check_random_game(game, seed) == expected


def test_small_deck_with_chopsticks_random_games_stay_in_range():
  # Many Chopsticks and Wasabi so that pairs, reversed pairs and returned Chopsticks all occur.
  game = load(players=3, hand_size=5, rounds=2,
              deck="chopsticks:8/wasabi:6/egg:4/squid:4/salmon:4/pudding:4")
  for seed in range(15):
    assert check_random_game(game, seed) == game.max_game_length() == 8


def test_deal_by_hand_random_games_stay_in_range():
  game = load(players=2, hand_size=3, rounds=2, deck="chopsticks:3/wasabi:3/squid:3/tempura:3",
              deal="hand")
  for seed in range(10):
    assert check_random_game(game, seed) == game.max_game_length() == 4


def test_the_rules_name_the_node_kind_and_the_robots_card():
  from sushigo_spiel.sushi_go import rules as R  # pylint: disable=import-outside-toplevel
  game = load(players=2, robot=True)
  rules, state = game.rules, game.new_initial_state()
  assert R.is_chance(rules, state.table()) and not R.is_terminal(rules, state.table())
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  assert not R.is_chance(rules, state.table()) and not R.is_terminal(rules, state.table())
  for action in state.legal_actions(1):  # the player not controlling the robot gives it nothing
    assert rules.robot_card(action) == -1
  for action in state.legal_actions(0):  # the controller's actions give it a card
    own, robot = state.action_to_string(0, action).split(", robot ")
    assert rules.cards[rules.robot_card(action)].name == robot
    assert [rules.cards[c].name for c in rules.action_cards(action)] == [own]


# ----- the pure rules' helpers, called directly


def test_wasabi_state_names_the_nigiri_on_each_wasabi():
  rules = R.Rules.from_params(players=2)
  index = {card.name: c for c, card in enumerate(rules.cards)}
  wasabi, squid, salmon, egg = (index[name] for name in (W, SQ, SAL, EGG))
  free, on = R.wasabi_state(rules, [wasabi, squid, salmon, wasabi, wasabi, egg])
  assert (free, on) == (1, [squid, egg])


@pytest.mark.parametrize("params", [dict(players=3), dict(players=2, robot=True, hand_size=4)])
def test_skipping_chance_from_midway_through_a_deal_is_dealing_card_by_card(params):
  # The fast path of `skip_chance` must give the table that applying the outcomes drawn one at a
  # time gives, from any point of a card-by-card deal.
  rules = R.Rules.from_params(deal="card", **params)
  for dealt in (0, 1, rules.hand_size + 1):
    stream = random.Random(dealt)
    table = R.initial_table(rules)
    for _ in range(dealt):
      table = R.apply_chance(rules, table, R.sample_chance(rules, table, stream.random))
    assert table.dealt == dealt
    fast, slow = R.skip_chance(rules, table, random.Random(7).random), table
    uniform = random.Random(7).random
    while slow.actor == R.CHANCE:
      slow = R.apply_chance(rules, slow, R.sample_chance(rules, slow, uniform))
    assert fast == slow
    pile = sum(fast.robot.pile) if rules.robot else 0  # the robot's draw moved one into a hand
    assert sum(map(sum, fast.hands)) + pile == rules.dealt_hands * rules.hand_size


def test_the_robots_drawn_card_is_cleared_when_the_turn_is_played():
  rules = R.Rules.from_params(players=2, robot=True, hand_size=4)
  table = R.skip_chance(rules, R.initial_table(rules), random.Random(3).random)
  assert table.robot.drawn >= 0
  drawn = table.robot.drawn
  picks = [R.legal_actions(rules, table, p)[0] for p in range(rules.num_players)]
  after = R.play(rules, table, picks)
  assert after.robot.drawn == -1 and after.log[-1].drawn == drawn
