"""Tests of the run statistics (`experiments.stats`) and the report built on them.

Intervals and tests are checked against hand-computed values and scipy; the pairwise matrix,
margins and ratings on small hand-built records; the report on a synthetic run folder.
"""

from __future__ import annotations

import json
import math
import random

import pytest
import scipy.stats

from experiments.tournament import summary as report
from experiments import stats
from sushigo_spiel.drafting.dynamics import margins

THREE_PLAYERS = "python_sushi_go(players=3)"
FOUR_PLAYERS = "python_sushi_go(players=4)"


def record(index, seats, scores, winners=None, game=THREE_PLAYERS):
  """A game record with the fields the statistics read; by default the top scores win."""
  if winners is None:
    winners = [seat for seat, score in enumerate(scores) if score == max(scores)]
  return {"index": index, "seed": index, "game": game, "seats": list(seats),
          "scores": list(scores), "winners": winners}


# Intervals.


def test_mean_interval_is_the_student_t_interval():
  # mean 3, sample sd sqrt(2.5), sem sqrt(0.5), t(0.975, df=4) = 2.7764451
  estimate = stats.mean_interval([1, 2, 3, 4, 5])
  half_width = 2.7764451051977987 * math.sqrt(0.5)
  assert estimate.value == 3
  assert estimate.low == pytest.approx(3 - half_width)
  assert estimate.high == pytest.approx(3 + half_width)
  assert estimate.low == pytest.approx(1.036757, abs=1e-6)


def test_mean_interval_of_too_small_or_constant_samples():
  single = stats.mean_interval([7])
  assert single.value == 7 and math.isnan(single.low) and math.isnan(single.high)
  assert stats.mean_interval([4, 4, 4]) == stats.Estimate(4, 4, 4)


def test_wilson_interval_of_seven_in_ten():
  low, high = stats.wilson_interval(7, 10)
  assert low == pytest.approx(0.3968, abs=1e-4)
  assert high == pytest.approx(0.8922, abs=1e-4)


# Margins, win shares and several seats.


def test_margins_with_two_seats():
  assert margins([10, 4]) == [6, -6]


def test_margins_with_four_seats():
  assert margins([10, 4, 6, 8]) == pytest.approx([4, -4, -4 / 3, 4 / 3])


def test_shared_wins_split_evenly():
  assert stats.seat_win_shares(3, [0, 2]) == [0.5, 0.0, 0.5]


def test_a_competitor_in_several_seats_is_averaged_over_them():
  table = stats.outcomes(record(0, ["A", "B", "A", "B"], [10, 4, 6, 8], winners=[0]))
  assert list(table) == ["A", "B"]
  assert table["A"] == stats.Outcome(seats=2, score=8, margin=pytest.approx(4 / 3), win_share=0.5)
  assert table["B"] == stats.Outcome(seats=2, score=6, margin=pytest.approx(-4 / 3), win_share=0)


def test_summary_counts_games_seats_and_shared_wins():
  records = [
      record(0, ["A", "B", "C"], [30, 30, 10]),  # A and B share the win
      record(1, ["A", "B", "A"], [40, 20, 10]),  # A holds two seats, one of them wins
      record(2, ["B", "C", "A"], [25, 20, 15]),
  ]
  summary = stats.summarize(records)["A"]
  assert (summary.games, summary.seats) == (3, 4)
  assert summary.wins == pytest.approx(0.5 + 0.5 + 0)
  assert summary.win_rate.value == pytest.approx(1 / 3)
  assert (summary.win_rate.low, summary.win_rate.high) == pytest.approx(
      stats.wilson_interval(1, 3))
  assert summary.score.value == pytest.approx((30 + 25 + 15) / 3)


# Head to head.


HEAD_TO_HEAD_RECORDS = [
    record(0, ["A", "B", "C"], [30, 20, 10]),
    record(1, ["B", "C", "A"], [20, 10, 30]),
    record(2, ["C", "A", "B"], [10, 25, 25]),  # A and B tie
    record(3, ["A", "B", "C"], [35, 15, 5]),
    record(4, ["B", "A", "C"], [40, 20, 30]),
    record(5, ["A", "B"], [12, 10], game="python_sushi_go(players=2)"),
]


def test_head_to_head_counts_ties_as_half():
  pairing = stats.head_to_head(HEAD_TO_HEAD_RECORDS)["A", "B"]
  assert (pairing.games, pairing.wins, pairing.ties, pairing.losses) == (6, 4, 1, 1)
  assert pairing.win_rate == pytest.approx(4.5 / 6)
  reverse = stats.head_to_head(HEAD_TO_HEAD_RECORDS)["B", "A"]
  assert reverse.win_rate == pytest.approx(1.5 / 6)


def test_head_to_head_p_values_are_the_binomial_test_of_decisive_games():
  matrix = stats.head_to_head(HEAD_TO_HEAD_RECORDS)
  assert matrix["A", "B"].p_value == pytest.approx(scipy.stats.binomtest(4, 5).pvalue)
  assert matrix["A", "C"].p_value == pytest.approx(scipy.stats.binomtest(4, 5).pvalue)
  assert matrix["B", "C"].p_value == pytest.approx(scipy.stats.binomtest(5, 5).pvalue)
  assert matrix["C", "B"].p_value == matrix["B", "C"].p_value


def test_head_to_head_is_adjusted_by_holm_over_the_pairs():
  matrix = stats.head_to_head(HEAD_TO_HEAD_RECORDS)
  raw = [matrix[pair].p_value for pair in (("A", "B"), ("A", "C"), ("B", "C"))]
  expected = stats.holm(raw)
  assert [matrix[pair].adjusted_p_value for pair in (("A", "B"), ("A", "C"), ("B", "C"))] == (
      expected)
  assert not any(pairing.significant for pairing in matrix.values())


def test_holm_on_known_p_values():
  assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
  assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_clear_dominance_is_significant():
  records = [record(i, ["A", "B"], [20, 10]) for i in range(12)]
  pairing = stats.head_to_head(records)["A", "B"]
  assert pairing.win_rate == 1
  assert pairing.significant


# Ratings.


def test_ratings_put_a_dominant_competitor_first():
  rng = random.Random(0)
  records = []
  for index in range(30):
    seats = rng.sample(["strong", "middle", "weak"], 3)
    strength = {"strong": 40, "middle": 25, "weak": 10}
    records.append(record(index, seats, [strength[name] + rng.randint(-8, 8) for name in seats]))
  ratings = stats.ratings(records)
  by_ordinal = sorted(ratings, key=lambda name: ratings[name].ordinal, reverse=True)
  assert by_ordinal[0] == "strong"
  assert ratings["strong"].mu > ratings["middle"].mu > ratings["weak"].mu
  assert ratings["strong"].ordinal == ratings["strong"].mu - 3 * ratings["strong"].sigma


def test_ratings_skip_games_of_one_competitor_and_follow_index_order():
  mirror = record(0, ["A", "A"], [30, 10])
  prior = stats.ratings([mirror])["A"]
  assert (prior.mu, prior.sigma) == pytest.approx((25, 25 / 3))
  games = [record(2, ["A", "B"], [10, 20]), record(1, ["A", "B"], [20, 10])]
  assert stats.ratings(games) == stats.ratings(list(reversed(games)))


def test_overall_group_only_with_several_game_strings():
  one = [record(0, ["A", "B", "C"], [3, 2, 1])]
  assert list(stats.analyze(one)) == [THREE_PLAYERS]
  two = one + [record(1, ["A", "B", "C", "A"], [3, 2, 1, 0], game=FOUR_PLAYERS)]
  assert list(stats.analyze(two)) == [THREE_PLAYERS, FOUR_PLAYERS, stats.OVERALL]


# The report.


COMPETITORS = ("greedy", "random", "first_card")


def synthetic_run(run_dir):
  """A run folder of 3- and 4-player games between three bots of clearly different strength."""
  rng = random.Random(1)
  strength = {"greedy": 38, "random": 30, "first_card": 26}
  lines = []
  for index in range(60):
    game = THREE_PLAYERS if index % 2 == 0 else FOUR_PLAYERS
    seats = [COMPETITORS[(index + seat) % 3] for seat in range(3 if index % 2 == 0 else 4)]
    scores = [strength[name] + rng.randint(-10, 10) for name in seats]
    lines.append(json.dumps(record(index, seats, scores, game=game)))
  (run_dir / "records.jsonl").write_text("\n".join(lines) + "\n")
  config = {
      "experiment": {"name": "synthetic", "seed": 1, "games": [THREE_PLAYERS, FOUR_PLAYERS],
                     "num_games": 60, "rotation": True},
      "budget": {},
      "report": {"metrics": ["score", "margin", "win"]},
      "players": [{"name": name, "bot": name, "params": {}} for name in COMPETITORS],
  }
  (run_dir / "resolved_config.json").write_text(json.dumps(config))
  return run_dir


def test_report_writes_every_file(tmp_path, capsys):
  markdown = report.write_report(synthetic_run(tmp_path))
  assert capsys.readouterr().out.strip() == markdown.strip()
  for name in ("score_distribution.png", "win_matrix.png", "ratings.png"):
    png = (tmp_path / "plots" / name).read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
  assert (tmp_path / "summary.md").read_text() == markdown
  for name in COMPETITORS:
    assert name in markdown
  for label in (THREE_PLAYERS, FOUR_PLAYERS, stats.OVERALL):
    assert f"## {label}" in markdown
  csv_lines = (tmp_path / "summary.csv").read_text().splitlines()
  assert csv_lines[0].startswith("game,competitor,games,seats,mean_score")
  assert len(csv_lines) == 1 + 3 * 3


def test_report_is_deterministic_and_quiet(tmp_path, capsys):
  run_dir = synthetic_run(tmp_path)
  first = report.write_report(run_dir, quiet=True)
  csv_text = (run_dir / "summary.csv").read_text()
  pngs = {png.name: png.read_bytes() for png in (run_dir / "plots").iterdir()}
  second = report.write_report(run_dir, quiet=True)
  assert capsys.readouterr().out == ""
  assert first == second == (run_dir / "summary.md").read_text()
  assert (run_dir / "summary.csv").read_text() == csv_text
  assert {png.name: png.read_bytes() for png in (run_dir / "plots").iterdir()} == pngs


def test_report_shows_only_the_chosen_metrics(tmp_path):
  run_dir = synthetic_run(tmp_path)
  config = json.loads((run_dir / "resolved_config.json").read_text())
  config["report"]["metrics"] = ["win"]
  (run_dir / "resolved_config.json").write_text(json.dumps(config))
  markdown = report.write_report(run_dir, quiet=True)
  assert "win rate [Wilson 95%]" in markdown
  assert "mean score" not in markdown and "mean margin" not in markdown


@pytest.mark.parametrize("missing", ["records.jsonl", "resolved_config.json"])
def test_report_names_the_missing_file(tmp_path, missing):
  (synthetic_run(tmp_path) / missing).unlink()
  with pytest.raises(FileNotFoundError, match=missing):
    report.write_report(tmp_path, quiet=True)
