"""Statistics of an experiment run as pure functions over its game records.

A record is one finished game as a tournament writes it to `records.jsonl`: `index`, `game`,
`seats` (competitor names by seat), `scores` and `winners` (seats that won after the Pudding
tie-break), and optionally `luck` and `decisions`. Every figure is computed per game string and
over all of them together, with one competitor in one game as the unit of observation (its seats
at that table averaged, so the observations are independent games): mean score and margin, win
rate (shares of k-way wins count 1/k) with a Wilson interval, luck-corrected and AIVAT figures with
their variance ratios when every record holds the terms, head to head with sign tests and
Holm-Bonferroni, and OpenSkill Plackett-Luce ratings. Everything is deterministic: records are
taken in index order and competitors in name order.

Each figure's exact definition: docs/results.md, "How to read the tables" and the paragraph after.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.stats
from openskill.models import PlackettLuce

from sushigo_spiel.drafting.dynamics import margins

Record = Mapping[str, Any]

CONFIDENCE = 0.95
ALPHA = 0.05  # family-wise error rate of the Holm-Bonferroni head-to-head flags
OVERALL = "all games"  # the group label of figures over every game string of a run
ORDINAL_SIGMAS = 3  # conservative rating: mu - 3 sigma


@dataclasses.dataclass(frozen=True)
class Estimate:
  """A point estimate with a confidence interval (NaN bounds when the sample is too small)."""
  value: float
  low: float
  high: float


@dataclasses.dataclass(frozen=True)
class Outcome:
  """One competitor in one game, its seats averaged."""
  seats: int
  score: float
  margin: float
  win_share: float
  luck: float | None = None  # chance's share of the score (None: the record holds no luck)
  luck_margin: float | None = None  # the margin of the seats' lucks
  decisions: float | None = None  # the AIVAT decision terms (None: the record holds none)
  decisions_margin: float | None = None  # the margin of the seats' decision terms


@dataclasses.dataclass(frozen=True)
class Summary:
  """One competitor's figures over a group of games."""
  competitor: str
  games: int
  seats: int
  score: Estimate
  margin: Estimate
  wins: float  # total win share
  win_rate: Estimate
  corrected_score: Estimate | None = None  # None unless every game holds its luck
  corrected_margin: Estimate | None = None
  score_variance_ratio: float = math.nan  # corrected variance / raw variance
  margin_variance_ratio: float = math.nan
  aivat_score: Estimate | None = None  # None unless every game holds its luck and decisions
  aivat_margin: Estimate | None = None
  aivat_score_variance_ratio: float = math.nan  # AIVAT variance / raw variance
  aivat_margin_variance_ratio: float = math.nan
  aivat_score_luck_ratio: float = math.nan  # AIVAT variance / luck-corrected variance
  aivat_margin_luck_ratio: float = math.nan


@dataclasses.dataclass(frozen=True)
class HeadToHead:
  """How often `competitor` outscored `opponent` over the games where both sat."""
  competitor: str
  opponent: str
  games: int
  wins: int
  ties: int
  losses: int
  p_value: float  # two-sided sign test on the decisive games
  adjusted_p_value: float  # Holm-Bonferroni over every pair of the group
  significant: bool  # adjusted_p_value <= ALPHA

  @property
  def win_rate(self) -> float:
    return (self.wins + self.ties / 2) / self.games


@dataclasses.dataclass(frozen=True)
class Rating:
  mu: float
  sigma: float

  @property
  def ordinal(self) -> float:
    return self.mu - ORDINAL_SIGMAS * self.sigma


@dataclasses.dataclass(frozen=True)
class GroupStats:
  """Every figure of one group of games (one game string, or `OVERALL`)."""
  games: int
  summaries: dict[str, Summary]
  head_to_head: dict[tuple[str, str], HeadToHead]  # both orders of every pair that met
  ratings: dict[str, Rating]


def seat_win_shares(num_seats: int, winners: Sequence[int]) -> list[float]:
  """1/k for each of the k winning seats, 0 for the others."""
  return [1 / len(winners) if seat in winners else 0.0 for seat in range(num_seats)]


def outcomes(record: Record) -> dict[str, Outcome]:
  """Each competitor's seats at one table averaged into one `Outcome`, by competitor name."""
  scores = record["scores"]
  seat_margins = margins(scores)
  shares = seat_win_shares(len(scores), record["winners"])
  luck, decisions = record.get("luck"), record.get("decisions")
  luck_margins = None if luck is None else margins(luck)
  decisions_margins = None if decisions is None else margins(decisions)
  seats_of: dict[str, list[int]] = {}
  for seat, name in enumerate(record["seats"]):
    seats_of.setdefault(name, []).append(seat)
  return {
      name: Outcome(
          seats=len(seats),
          score=float(np.mean([scores[s] for s in seats])),
          margin=float(np.mean([seat_margins[s] for s in seats])),
          win_share=float(np.mean([shares[s] for s in seats])),
          luck=None if luck is None else float(np.mean([luck[s] for s in seats])),
          luck_margin=None if luck is None else float(np.mean([luck_margins[s] for s in seats])),
          decisions=None if decisions is None else float(np.mean([decisions[s] for s in seats])),
          decisions_margin=None if decisions is None else float(
              np.mean([decisions_margins[s] for s in seats])))
      for name, seats in sorted(seats_of.items())}


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
  """The sample mean with its Student t confidence interval."""
  mean = float(np.mean(values))
  if len(values) < 2:
    return Estimate(mean, math.nan, math.nan)
  sem = float(scipy.stats.sem(values))
  if sem == 0:
    return Estimate(mean, mean, mean)
  low, high = scipy.stats.t.interval(confidence, df=len(values) - 1, loc=mean, scale=sem)
  return Estimate(mean, float(low), float(high))


def wilson_interval(successes: int, trials: int,
                    confidence: float = CONFIDENCE) -> tuple[float, float]:
  """The Wilson score interval of a binomial proportion."""
  interval = scipy.stats.binomtest(successes, trials).proportion_ci(confidence, method="wilson")
  return float(interval.low), float(interval.high)


def summarize(records: Iterable[Record]) -> dict[str, Summary]:
  """Games, seats, mean score and margin, and win rate of every competitor, by name."""
  by_competitor: dict[str, list[Outcome]] = {}
  for record in records:
    for name, outcome in outcomes(record).items():
      by_competitor.setdefault(name, []).append(outcome)
  return {name: _summary(name, by_competitor[name]) for name in sorted(by_competitor)}


def _summary(name: str, games: list[Outcome]) -> Summary:
  wins = sum(outcome.win_share for outcome in games)
  low, high = wilson_interval(round(wins), len(games))
  corrected = {}
  if all(outcome.luck is not None for outcome in games):
    for figure, luck, decisions in (("score", "luck", "decisions"),
                                    ("margin", "luck_margin", "decisions_margin")):
      raw = np.array([getattr(outcome, figure) for outcome in games])
      values = raw - np.array([getattr(outcome, luck) for outcome in games])
      corrected[f"corrected_{figure}"] = mean_interval(values)
      corrected[f"{figure}_variance_ratio"] = variance_ratio(values, raw)
      if all(outcome.decisions is not None for outcome in games):
        aivat = values - np.array([getattr(outcome, decisions) for outcome in games])
        corrected[f"aivat_{figure}"] = mean_interval(aivat)
        corrected[f"aivat_{figure}_variance_ratio"] = variance_ratio(aivat, raw)
        corrected[f"aivat_{figure}_luck_ratio"] = variance_ratio(aivat, values)
  return Summary(
      competitor=name,
      games=len(games),
      seats=sum(outcome.seats for outcome in games),
      score=mean_interval([outcome.score for outcome in games]),
      margin=mean_interval([outcome.margin for outcome in games]),
      wins=wins,
      win_rate=Estimate(wins / len(games), low, high),
      **corrected)


def variance_ratio(corrected: np.ndarray, raw: np.ndarray) -> float:
  """The sample variance of `corrected` over that of `raw` (NaN when undefined)."""
  if len(raw) < 2 or np.var(raw) == 0:
    return math.nan
  return float(np.var(corrected, ddof=1) / np.var(raw, ddof=1))


def holm(p_values: Sequence[float]) -> list[float]:
  """Holm-Bonferroni adjusted p-values, in the order given."""
  m = len(p_values)
  adjusted, running_max = [0.0] * m, 0.0
  for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
    running_max = max(running_max, min(1.0, (m - rank) * p_values[i]))
    adjusted[i] = running_max
  return adjusted


def head_to_head(records: Iterable[Record]) -> dict[tuple[str, str], HeadToHead]:
  """Pairwise score comparisons of every pair of competitors that met, in both orders."""
  tallies: dict[tuple[str, str], list[int]] = {}  # (a, b) with a < b: [a wins, ties, b wins]
  for record in records:
    scores = {name: outcome.score for name, outcome in outcomes(record).items()}
    for a, b in itertools.combinations(sorted(scores), 2):
      tally = tallies.setdefault((a, b), [0, 0, 0])
      tally[1 + (scores[a] < scores[b]) - (scores[a] > scores[b])] += 1
  pairs = sorted(tallies)
  p_values = [sign_test(wins, losses) for wins, _, losses in (tallies[p] for p in pairs)]
  result = {}
  for (a, b), p_value, adjusted in zip(pairs, p_values, holm(p_values)):
    wins, ties, losses = tallies[a, b]
    common = dict(games=wins + ties + losses, ties=ties, p_value=p_value,
                  adjusted_p_value=adjusted, significant=adjusted <= ALPHA)
    result[a, b] = HeadToHead(competitor=a, opponent=b, wins=wins, losses=losses, **common)
    result[b, a] = HeadToHead(competitor=b, opponent=a, wins=losses, losses=wins, **common)
  return dict(sorted(result.items()))


def sign_test(wins: int, losses: int) -> float:
  """Two-sided binomial test of wins against losses at even odds (1 without decisive games)."""
  if wins + losses == 0:
    return 1.0
  return float(scipy.stats.binomtest(wins, wins + losses).pvalue)


def ratings(records: Iterable[Record]) -> dict[str, Rating]:
  """OpenSkill Plackett-Luce ratings after every game in index order, by competitor name."""
  model = PlackettLuce()
  current = {}
  for record in sorted(records, key=lambda record: record["index"]):
    table = outcomes(record)
    for name in table:
      current.setdefault(name, model.rating(name=name))
    if len(table) < 2:
      continue
    names = list(table)
    rated = model.rate([[current[name]] for name in names],
                       scores=[table[name].score for name in names])
    current.update((name, team[0]) for name, team in zip(names, rated))
  return {name: Rating(current[name].mu, current[name].sigma) for name in sorted(current)}


def game_strings(records: Iterable[Record]) -> list[str]:
  """The game strings of a run in the order they first appear by game index."""
  ordered = sorted(records, key=lambda record: record["index"])
  return list(dict.fromkeys(record["game"] for record in ordered))


def group_stats(records: Sequence[Record]) -> GroupStats:
  """Every figure over one group of records."""
  return GroupStats(
      games=len(records),
      summaries=summarize(records),
      head_to_head=head_to_head(records),
      ratings=ratings(records))


def groups(records: Iterable[Record]) -> dict[str, list[Record]]:
  """Records in index order per game string, plus `OVERALL` when there are several game strings."""
  ordered = sorted(records, key=lambda record: record["index"])
  by_game = {game: [r for r in ordered if r["game"] == game] for game in game_strings(ordered)}
  if len(by_game) > 1:
    by_game[OVERALL] = ordered
  return by_game


def analyze(records: Iterable[Record]) -> dict[str, GroupStats]:
  """`group_stats` of every group of `groups`, by group label."""
  return {label: group_stats(group) for label, group in groups(records).items()}
