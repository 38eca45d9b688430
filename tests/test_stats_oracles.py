"""The run statistics held against figures worked out here, by hand or by the textbook formula,
on small hand-built records (the fields `experiments.stats` reads from records.jsonl)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments import stats


def record(index: int, seats, scores, winners, game: str = "g1") -> dict:
  return {"index": index, "game": game, "seats": list(seats), "scores": list(scores),
          "winners": list(winners)}


def textbook_holm(p_values):
  """Holm's step-down adjustment: the k-th smallest p-value times (m - k + 1), capped at 1, made
  non-decreasing along the sorted order."""
  m = len(p_values)
  order = sorted(range(m), key=lambda i: p_values[i])
  adjusted = [0.0] * m
  for k, i in enumerate(order):
    adjusted[i] = max([min(1.0, (m - j) * p_values[order[j]]) for j in range(k + 1)])
  return adjusted


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_holm_is_the_textbook_adjustment(p_values):
  assert stats.holm(p_values) == pytest.approx(textbook_holm(p_values))


def test_holm_caps_at_one_and_keeps_the_order_given():
  assert stats.holm([0.7, 0.01, 0.6]) == pytest.approx([1.0, 0.03, 1.0])  # 2 * 0.6 capped


RECORDS = [
    record(0, ["a", "b"], [30, 20], [0]),
    record(1, ["b", "a"], [25, 25], [0, 1]),
    record(2, ["a", "c"], [10, 40], [1]),
    record(3, ["c", "b", "b"], [12, 15, 9], [1], game="g2"),
]


def test_summaries_by_hand():
  summary = stats.summarize(RECORDS)
  assert list(summary) == ["a", "b", "c"]
  a, b = summary["a"], summary["b"]
  assert (a.competitor, a.games, a.seats) == ("a", 3, 3)
  assert a.score.value == pytest.approx((30 + 25 + 10) / 3)
  assert a.wins == pytest.approx(1 + 0.5 + 0)
  assert a.win_rate.value == pytest.approx(1.5 / 3)
  # b: two seats in game 3 (15 and 9, margins 15 - 10.5 and 9 - 13.5), averaged into one game.
  assert (b.competitor, b.games, b.seats) == ("b", 3, 4)
  assert b.score.value == pytest.approx((20 + 25 + 12) / 3)
  assert b.margin.value == pytest.approx((-10 + 0 + (4.5 - 4.5) / 2) / 3)
  assert b.wins == pytest.approx(0 + 0.5 + 0.5)


def test_head_to_head_by_hand():
  h2h = stats.head_to_head(RECORDS)
  assert set(h2h) == {("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")}
  for (me, other), result in h2h.items():
    assert (result.competitor, result.opponent) == (me, other)
    mirror = h2h[other, me]
    assert (result.wins, result.ties, result.losses) == (mirror.losses, mirror.ties, mirror.wins)
    assert result.significant == (result.adjusted_p_value <= stats.ALPHA)
  ab = h2h["a", "b"]
  assert (ab.games, ab.wins, ab.ties, ab.losses) == (2, 1, 1, 0)
  assert ab.p_value == 1.0  # one decisive game: a two-sided sign test cannot reject
  bc = h2h["b", "c"]  # b's mean 12 against c's 12: a tie, no decisive game
  assert (bc.wins, bc.ties, bc.losses, bc.p_value) == (0, 1, 0, 1.0)
  assert h2h["b", "a"].win_rate == pytest.approx(0.25)


def test_a_one_sided_record_is_significant():
  records = [record(i, ["a", "b"], [40, 10], [0]) for i in range(12)]
  result = stats.head_to_head(records)["a", "b"]
  assert result.p_value == pytest.approx(2 * 0.5 ** 12)
  assert result.significant and not stats.head_to_head(records[:5])["a", "b"].significant


def test_ratings_move_with_two_competitors_and_after_a_one_competitor_game():
  records = [record(0, ["a", "a"], [5, 9], [1])] + \
      [record(i, ["a", "b"], [30, 10], [0]) for i in range(1, 4)]
  rated = stats.ratings(records)
  assert rated["a"].mu > rated["b"].mu
  assert rated["a"].ordinal == pytest.approx(rated["a"].mu - 3 * rated["a"].sigma)
  fresh = stats.ratings(records[:1])["a"]
  assert rated["a"].mu != fresh.mu


def test_groups_hold_their_own_game_strings_and_all_of_them_together():
  grouped = stats.groups(RECORDS)
  assert list(grouped) == ["g1", "g2", stats.OVERALL]
  assert [r["index"] for r in grouped["g1"]] == [0, 1, 2]
  assert [r["index"] for r in grouped["g2"]] == [3]
  assert [r["index"] for r in grouped[stats.OVERALL]] == [0, 1, 2, 3]
  assert list(stats.groups(RECORDS[:3])) == ["g1"]
  analysed = stats.analyze(RECORDS)
  assert analysed["g2"].games == 1 and analysed[stats.OVERALL].games == 4
  assert set(itertools.chain(*analysed["g2"].head_to_head)) == {"b", "c"}


def test_mean_interval_of_two_values_is_the_student_t_interval():
  # Mean 2, standard error 1, one degree of freedom: t(0.975, 1) = 12.7062.
  estimate = stats.mean_interval([1.0, 3.0])
  assert estimate.value == 2.0
  assert (estimate.low, estimate.high) == pytest.approx((2 - 12.7062, 2 + 12.7062), abs=1e-3)
  single = stats.mean_interval([4.0])
  assert single.value == 4.0 and single.low != single.low  # NaN: no interval from one game
  assert stats.mean_interval([5.0, 5.0, 5.0]) == stats.Estimate(5.0, 5.0, 5.0)


@pytest.mark.parametrize("successes,trials,confidence", [(5, 10, 0.95), (9, 10, 0.8), (0, 4, 0.9)])
def test_wilson_interval_is_the_textbook_one(successes, trials, confidence):
  z = {0.95: 1.959964, 0.8: 1.281552, 0.9: 1.644854}[confidence]
  p = successes / trials
  centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
  half = z / (1 + z * z / trials) * (p * (1 - p) / trials + z * z / (4 * trials ** 2)) ** 0.5
  assert stats.wilson_interval(successes, trials, confidence) == \
      pytest.approx((centre - half, centre + half), abs=1e-5)
