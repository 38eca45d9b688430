"""An independent oracle of the run reports: every cell of summary.md and summary.csv (and of a
solving run's summary.md and results.csv) recomputed from the records alone, with numpy and scipy
written out here from the definitions in docs/experiments.md and the notes of the reports, never
from `experiments.stats` or the report modules.

Checked on the stored quickstart (its records, rerun from `experiments/configs/quickstart.toml`,
are kept compressed in tests/data/quickstart: `test_quickstart_records_are_the_configs_own`,
marked slow, plays the config again and compares), on stored tournaments with more than two
competitors, and on stored approximate-exploitability runs. Each report is also regenerated with
`sushigo report` on a copy of the run folder, and the oracle is held against the regenerated files
too, so a fault in the report code fails here even where the stored files predate it.

Figures are compared to the precision they are printed with (half a unit of the last printed
digit); everything else (names, order, counts, "never met", significance marks) exactly.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import locale
import lzma
import math
import pathlib
import re
import shutil

import numpy as np
import pyspiel
import pytest
import scipy.stats
from openskill.models import PlackettLuce

import sushigo_spiel  # noqa: F401  (registers python_sushi_go, for the solving runs' game types)
from experiments.cli import main
from experiments.run_folder import RunError
from experiments.tournament import summary

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
QUICKSTART_DATA = pathlib.Path(__file__).resolve().parent / "data" / "quickstart"
CONFIDENCE = 0.95
ALPHA = 0.05
OVERALL = "all games"

# Tournaments: the quickstart (3 competitors, 2 and 4 players, with the luck of the deal), a
# round robin of 4 search bots at 2 and 4 players (non-significant pairs), 4 competitors around an
# anchor (pairs that never met), a 2-competitor 4-player run whose stored report is current, and
# a 2- and 4-player run with the AIVAT terms.
# Not subgame-head-to-head: its records.jsonl.xz are those of the run before the rerun of commit
# cc8214d (no `continuations` in the subgame bot's recorded params), so they do not give its
# stored summary; the records of that rerun were not stored.
TOURNAMENTS = ("quickstart", "search-round-robin", "cfr-head-to-head", "subgame-4p-head-to-head",
               "blueprint-head-to-head")
# Stored reports written by the current report code (the others predate the luck columns and the
# note on them, which `sushigo report` now adds; their figures are checked cell by cell above).
CURRENT_REPORTS = {"quickstart": ("summary.md",),
                   "subgame-4p-head-to-head": ("summary.md", "summary.csv"),
                   "blueprint-head-to-head": ("summary.md", "summary.csv")}
# Solving runs (approximate exploitability): four responders; a baseline with the paired
# differences (the results page's difference from returns alone); and exact gains on reduced
# games beside the bounds, with units that recorded no CPU seconds.
SOLVING = ("exploitability-full-heuristic", "exploitability-full-blueprint-mean-paired-80",
           "approximate-validation")


# ----- reading run folders


def read_records(run_dir: pathlib.Path) -> list[dict]:
  path = run_dir / "records.jsonl"
  text = path.read_text() if path.exists() else lzma.open(
      run_dir / "records.jsonl.xz", "rt", encoding="utf-8").read()
  return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_jsonl(path: pathlib.Path) -> list[dict]:
  return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def stored_dir(name: str) -> pathlib.Path:
  return RESULTS / name


def copy_run(name: str, destination: pathlib.Path) -> pathlib.Path:
  """A copy of a stored run folder with its records decompressed; the quickstart's from
  tests/data, beside the stored summary.md."""
  if name == "quickstart":
    shutil.copytree(QUICKSTART_DATA, destination)
    shutil.copy(stored_dir(name) / "summary.md", destination / "summary.md")
  else:
    shutil.copytree(stored_dir(name), destination)
  packed = destination / "records.jsonl.xz"
  if packed.exists():
    (destination / "records.jsonl").write_text(lzma.open(packed, "rt", encoding="utf-8").read())
  return destination


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> dict[str, pathlib.Path]:
  """Each run of TOURNAMENTS and SOLVING copied and reported again by `sushigo report`."""
  folders = {}
  base = tmp_path_factory.mktemp("reports")
  for name in TOURNAMENTS + SOLVING:
    folder = copy_run(name, base / name)
    for report in ("summary.md", "summary.csv", "results.csv"):
      (folder / report).unlink(missing_ok=True)
    assert main(["report", str(folder)]) == 0
    folders[name] = folder
  return folders


@pytest.fixture(autouse=True)
def at_the_root(monkeypatch):
  """Policy paths in the solving configs are relative to the repository's root."""
  monkeypatch.chdir(ROOT)


def report_dir(name: str, source: str, regenerated_dirs) -> pathlib.Path:
  return stored_dir(name) if source == "stored" else regenerated_dirs[name]


# ----- the oracle: definitions of docs/experiments.md and the report notes


def t_interval(values) -> tuple[float, float, float]:
  """Sample mean with its Student t interval at CONFIDENCE (NaN bounds below two values; the mean
  itself when the values do not vary)."""
  values = np.asarray(values, dtype=float)
  mean = float(values.sum() / len(values))
  if len(values) < 2:
    return mean, math.nan, math.nan
  sd = math.sqrt(float(((values - mean) ** 2).sum()) / (len(values) - 1))
  if sd == 0:
    return mean, mean, mean
  half = scipy.stats.t.ppf(0.5 + CONFIDENCE / 2, len(values) - 1) * sd / math.sqrt(len(values))
  return mean, mean - half, mean + half


def sample_variance(values) -> float:
  values = np.asarray(values, dtype=float)
  return float(((values - values.mean()) ** 2).sum()) / (len(values) - 1)


def wilson(successes: int, trials: int) -> tuple[float, float]:
  """The Wilson score interval (no continuity correction)."""
  z = scipy.stats.norm.ppf(0.5 + CONFIDENCE / 2)
  p = successes / trials
  denominator = 1 + z * z / trials
  centre = (p + z * z / (2 * trials)) / denominator
  half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
  return max(0.0, centre - half), min(1.0, centre + half)


def whole_games(total: float) -> int:
  """A win total rounded to whole games for the Wilson interval. The notes say "rounded to whole
  games" and leave a tie open; the reports round it half to even, which the stored runs pin down
  (search-round-robin's mo_ismcts over all games: 76.5 wins count 76, while 37.5 count 38)."""
  floor = math.floor(total)
  if total - floor == 0.5:
    return floor if floor % 2 == 0 else floor + 1
  return floor + (total - floor > 0.5)


def sign_test(wins: int, losses: int) -> float:
  """Two-sided exact binomial test at even odds on the decisive games (1 without any)."""
  n = wins + losses
  if n == 0:
    return 1.0
  return min(1.0, 2 * float(scipy.stats.binom.cdf(min(wins, losses), n, 0.5)))


def holm(p_values: list[float]) -> list[float]:
  order = sorted(range(len(p_values)), key=lambda i: p_values[i])
  adjusted, running = [0.0] * len(p_values), 0.0
  for rank, i in enumerate(order):
    running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
    adjusted[i] = running
  return adjusted


def seat_margins(values) -> list[float]:
  """Each seat's figure minus the mean of the other seats'."""
  total = sum(values)
  return [v - (total - v) / (len(values) - 1) for v in values]


def table_outcomes(record: dict) -> dict[str, dict]:
  """Each competitor at one table: its seats, and the means over them of score, margin, win share
  (1/k for each of k winners) and, when recorded, luck and the margin of the luck."""
  scores, winners = record["scores"], record["winners"]
  margins = seat_margins(scores)
  luck, decisions = record.get("luck"), record.get("decisions")
  luck_margins = seat_margins(luck) if luck is not None else None
  decisions_margins = seat_margins(decisions) if decisions is not None else None
  seats_of: dict[str, list[int]] = {}
  for seat, name in enumerate(record["seats"]):
    seats_of.setdefault(name, []).append(seat)

  def over(seats: list[int], values) -> float | None:
    return None if values is None else sum(values[s] for s in seats) / len(seats)

  shares = [1 / len(winners) if seat in winners else 0.0 for seat in range(len(scores))]
  return {name: {"seats": len(seats), "score": over(seats, scores),
                 "margin": over(seats, margins), "win": over(seats, shares),
                 "luck": over(seats, luck), "luck_margin": over(seats, luck_margins),
                 "decisions": over(seats, decisions),
                 "decisions_margin": over(seats, decisions_margins)}
          for name, seats in seats_of.items()}


def competitor_figures(outcomes: list[dict]) -> dict:
  wins = sum(o["win"] for o in outcomes)
  games = len(outcomes)
  figures = {
      "games": games, "seats": sum(o["seats"] for o in outcomes),
      "score": t_interval([o["score"] for o in outcomes]),
      "margin": t_interval([o["margin"] for o in outcomes]),
      "wins": wins, "win": (wins / games, *wilson(whole_games(wins), games)),
      "corrected_score": None, "corrected_margin": None,
      "score_variance_ratio": math.nan, "margin_variance_ratio": math.nan,
      "aivat_score": None, "aivat_margin": None}

  def ratio(values, raw):
    return (sample_variance(values) / sample_variance(raw)
            if games >= 2 and sample_variance(raw) > 0 else math.nan)

  if all(o["luck"] is not None for o in outcomes):
    for figure, luck in (("score", "luck"), ("margin", "luck_margin")):
      raw = [o[figure] for o in outcomes]
      corrected = [o[figure] - o[luck] for o in outcomes]
      figures[f"corrected_{figure}"] = t_interval(corrected)
      figures[f"{figure}_variance_ratio"] = ratio(corrected, raw)
      if all(o["decisions"] is not None for o in outcomes):
        decisions = "decisions" if figure == "score" else "decisions_margin"
        aivat = [o[figure] - o[luck] - o[decisions] for o in outcomes]
        figures[f"aivat_{figure}"] = t_interval(aivat)
        figures[f"aivat_{figure}_variance_ratio"] = ratio(aivat, raw)
        figures[f"aivat_{figure}_luck_ratio"] = ratio(aivat, corrected)
  return figures


def head_to_head(records: list[dict]) -> dict[tuple[str, str], dict]:
  """For every pair that met, both ways: the row's share of the games where it outscored the
  column (ties 1/2), the sign-test p-value, and Holm's mark over the group's pairs."""
  tallies: dict[tuple[str, str], list[int]] = {}
  for record in records:
    score = {name: o["score"] for name, o in table_outcomes(record).items()}
    for a, b in itertools.combinations(sorted(score), 2):
      tally = tallies.setdefault((a, b), [0, 0, 0])  # a ahead, level, b ahead
      tally[0 if score[a] > score[b] else 1 if score[a] == score[b] else 2] += 1
  pairs = sorted(tallies)
  p_values = [sign_test(tallies[p][0], tallies[p][2]) for p in pairs]
  result = {}
  for (a, b), p, adjusted in zip(pairs, p_values, holm(p_values)):
    ahead, level, behind = tallies[a, b]
    games = ahead + level + behind
    for row, column, share in ((a, b, (ahead + level / 2) / games),
                               (b, a, (behind + level / 2) / games)):
      result[row, column] = {"share": share, "p": p, "significant": adjusted <= ALPHA}
  return result


def ratings(records: list[dict]) -> dict[str, tuple[float, float]]:
  """OpenSkill Plackett-Luce, game by game in index order, each competitor one team ranked by its
  score (equal scores share a rank); a table of one competitor rates nothing."""
  model = PlackettLuce()
  current = {}
  for record in sorted(records, key=lambda r: r["index"]):
    outcome = table_outcomes(record)
    names = sorted(outcome)
    for name in names:
      current.setdefault(name, model.rating(name=name))
    if len(names) < 2:
      continue
    ranks = [1 + sum(outcome[other]["score"] > outcome[name]["score"] for other in names)
             for name in names]
    rated = model.rate([[current[name]] for name in names], ranks=ranks)
    current.update((name, team[0]) for name, team in zip(names, rated))
  return {name: (rating.mu, rating.sigma) for name, rating in current.items()}


def tournament_oracle(config: dict, records: list[dict]) -> dict:
  """Every figure of a tournament's report, by group label in report order."""
  records = sorted(records, key=lambda r: r["index"])
  labels = list(dict.fromkeys(r["game"] for r in records))
  groups = {label: [r for r in records if r["game"] == label] for label in labels}
  if len(groups) > 1:
    groups[OVERALL] = records
  seated = {name for r in records for name in r["seats"]}
  configured = [p["name"] for p in config["players"] if p["name"] in seated]
  order = configured + sorted(seated - set(configured))
  result = {}
  for label, group in groups.items():
    by_competitor: dict[str, list[dict]] = {}
    for record in group:
      for name, outcome in table_outcomes(record).items():
        by_competitor.setdefault(name, []).append(outcome)
    result[label] = {
        "games": len(group),
        "order": [name for name in order if name in by_competitor],
        "figures": {name: competitor_figures(o) for name, o in by_competitor.items()},
        "head_to_head": head_to_head(group),
        "ratings": ratings(group)}
  return result


# ----- comparing to the printed precision


def tolerance(digits: int) -> float:
  return 0.5 * 10.0 ** -digits + 1e-9


def assert_number(printed: str, value: float, digits: int, where: str) -> None:
  if math.isnan(value):
    assert printed == "nan", f"{where}: printed {printed!r}, expected nan"
    return
  assert abs(float(printed) - value) <= tolerance(digits), \
      f"{where}: printed {printed}, the oracle gives {value:.{digits + 4}f}"


def assert_printed(printed: str, value: float, digits: int, where: str) -> None:
  """A figure of summary.md: printed with exactly `digits` decimals ("nan" if undefined), within
  half a unit of the last of them of `value`."""
  assert printed == "nan" or re.fullmatch(rf"-?\d+\.\d{{{digits}}}", printed), \
      f"{where}: {printed!r} is not printed with {digits} decimals"
  assert_number(printed, value, digits, where)


ESTIMATE = re.compile(r"^(\S+) \[(?:(\S+), (\S+)|n/a)\](?: \((\S+?)(?:, (\S+))?\))?$")


def assert_estimate(cell: str, estimate, digits: int, where: str, ratio: float | None = None,
                    second_ratio: float | None = None):
  """A cell "value [low, high]" (or "value [n/a]"), with " (ratio)" when `ratio` is given, and
  " (ratio, second ratio)" when `second_ratio` is too."""
  match = ESTIMATE.match(cell)
  assert match, f"{where}: {cell!r} is not an estimate"
  value, low, high = estimate
  assert_printed(match[1], value, digits, where)
  if math.isnan(low):
    assert match[2] is None, f"{where}: {cell!r} has bounds, the oracle has none"
  else:
    assert match[2] is not None, f"{where}: {cell!r} has no bounds"
    assert_printed(match[2], low, digits, where + " (low)")
    assert_printed(match[3], high, digits, where + " (high)")
  if ratio is None:
    assert match[4] is None, f"{where}: {cell!r} has a variance ratio"
  else:
    assert match[4] is not None, f"{where}: {cell!r} has no variance ratio"
    assert_printed(match[4], ratio, 2, where + " (variance ratio)")
  if second_ratio is None:
    assert match[5] is None, f"{where}: {cell!r} has a second variance ratio"
  else:
    assert match[5] is not None, f"{where}: {cell!r} has no second variance ratio"
    assert_printed(match[5], second_ratio, 2, where + " (variance ratio to luck-corrected)")


def markdown_tables(lines: list[str]) -> list[list[list[str]]]:
  """The Markdown tables among `lines`: rows of cells, the rule row left out."""
  tables, current = [], None
  for line in lines + [""]:
    if line.startswith("|"):
      if current is None:
        current = []
        tables.append(current)
      if not re.fullmatch(r"[|:\s-]+", line):  # the rule row
        current.append([cell.strip() for cell in line.strip()[1:-1].split(" | ")])
    else:
      current = None
  return tables


def markdown_sections(text: str) -> tuple[list[str], dict[str, list[str]]]:
  """The lines before the first "## " heading, and each section's lines by its label."""
  head, sections, current = [], {}, None
  for line in text.splitlines():
    if line.startswith("## "):
      current = sections.setdefault(line[3:], [])
    elif current is None:
      head.append(line)
    else:
      current.append(line)
  return head, sections


METRIC_HEADERS = {"score": "mean score [95% CI]", "margin": "mean margin [95% CI]",
                  "win": "win rate [Wilson 95%]"}
CORRECTED_HEADERS = {"score": "luck-corrected score [95% CI] (var. ratio)",
                     "margin": "luck-corrected margin [95% CI] (var. ratio)"}
AIVAT_HEADERS = {"score": "AIVAT score [95% CI] (var. ratio to raw, to luck-corrected)",
                 "margin": "AIVAT margin [95% CI] (var. ratio to raw, to luck-corrected)"}
RATING_HEADER = "rating μ ± σ"


def expected_header(metrics: list[str], lucky: bool, aivat: bool) -> list[str]:
  header = ["competitor", "games", "seats"]
  for metric in ("score", "margin", "win"):
    if metric in metrics:
      header.append(METRIC_HEADERS[metric])
      if lucky and metric in CORRECTED_HEADERS:
        header.append(CORRECTED_HEADERS[metric])
      if aivat and metric in AIVAT_HEADERS:
        header.append(AIVAT_HEADERS[metric])
  return header + [RATING_HEADER]


# ----- tournaments: summary.md


@pytest.fixture(scope="module")
def oracles() -> dict[str, dict]:
  """The oracle's figures of each run of TOURNAMENTS, from its records and resolved config."""
  result = {}
  for name in TOURNAMENTS:
    source = QUICKSTART_DATA if name == "quickstart" else stored_dir(name)
    config = json.loads((source / "resolved_config.json").read_text())
    result[name] = (config, tournament_oracle(config, read_records(source)))
  return result


SOURCES = ("stored", "regenerated")


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("run", TOURNAMENTS)
def test_summary_md_heading_and_group_sizes(run, source, oracles, regenerated):
  config, oracle = oracles[run]
  check_heading_and_group_sizes((report_dir(run, source, regenerated) / "summary.md").read_text(),
                                config, oracle)


def check_heading_and_group_sizes(text: str, config: dict, oracle: dict) -> None:
  head, sections = markdown_sections(text)
  total = sum(group["games"] for label, group in oracle.items() if label != OVERALL)
  assert head[:3] == [f"# {config['experiment']['name']}", "",
                      f"{total} games, seed {config['experiment']['seed']}."]
  assert list(sections) == list(oracle)
  for label, lines in sections.items():
    assert lines[1] == f"{oracle[label]['games']} games.", label


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("run", TOURNAMENTS)
def test_summary_md_tables_cell_by_cell(run, source, oracles, regenerated):
  config, oracle = oracles[run]
  check_summary_tables((report_dir(run, source, regenerated) / "summary.md").read_text(), config,
                       oracle, run)


def check_summary_tables(text: str, config: dict, oracle: dict, run: str) -> None:
  _, sections = markdown_sections(text)
  for label, group in oracle.items():
    table = markdown_tables(sections[label])[0]
    lucky = all(f["corrected_score"] is not None for f in group["figures"].values())
    aivat = all(f["aivat_score"] is not None for f in group["figures"].values())
    assert table[0] == expected_header(config["report"]["metrics"], lucky, aivat), label
    assert [row[0] for row in table[1:]] == group["order"], label
    for row in table[1:]:
      cells, figures = dict(zip(table[0], row)), group["figures"][row[0]]
      where = f"{run}, {label}, {row[0]}"
      assert (cells["games"], cells["seats"]) == (str(figures["games"]), str(figures["seats"]))
      for metric, digits in (("score", 2), ("margin", 2), ("win", 3)):
        if METRIC_HEADERS[metric] in cells:
          assert_estimate(cells[METRIC_HEADERS[metric]], figures[metric], digits,
                          f"{where}, {metric}")
        if CORRECTED_HEADERS.get(metric) in cells:
          assert_estimate(cells[CORRECTED_HEADERS[metric]], figures[f"corrected_{metric}"], 2,
                          f"{where}, corrected {metric}",
                          ratio=figures[f"{metric}_variance_ratio"])
        if AIVAT_HEADERS.get(metric) in cells:
          assert_estimate(cells[AIVAT_HEADERS[metric]], figures[f"aivat_{metric}"], 2,
                          f"{where}, AIVAT {metric}",
                          ratio=figures[f"aivat_{metric}_variance_ratio"],
                          second_ratio=figures[f"aivat_{metric}_luck_ratio"])
      mu, sigma = cells[RATING_HEADER].split(" ± ")
      assert_printed(mu, group["ratings"][row[0]][0], 1, f"{where}, rating mu")
      assert_printed(sigma, group["ratings"][row[0]][1], 1, f"{where}, rating sigma")


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("run", TOURNAMENTS)
def test_head_to_head_md_cell_by_cell(run, source, oracles, regenerated):
  _, oracle = oracles[run]
  check_head_to_head_tables((report_dir(run, source, regenerated) / "summary.md").read_text(),
                            oracle, run)


def check_head_to_head_tables(text: str, oracle: dict, run: str) -> None:
  _, sections = markdown_sections(text)
  for label, group in oracle.items():
    lines = sections[label]
    assert "Head to head (row vs column):" in lines
    table = markdown_tables(lines)[1]
    names = group["order"]
    assert table[0] == ["row \\ column"] + names, label
    assert [row[0] for row in table[1:]] == names, label
    for row in table[1:]:
      for column, cell in zip(names, row[1:]):
        where = f"{run}, {label}, {row[0]} vs {column}"
        pairing = group["head_to_head"].get((row[0], column))
        if row[0] == column:
          assert cell == "—", where
        elif pairing is None:
          assert cell == "never met", where
        else:
          match = re.fullmatch(r"(\S+) \(p(<0\.001|=\S+)\)(\*?)", cell)
          assert match, f"{where}: {cell!r}"
          assert_printed(match[1], pairing["share"], 2, where)
          if match[2] == "<0.001":
            assert pairing["p"] < 0.001, f"{where}: p = {pairing['p']}"
          else:
            assert pairing["p"] >= 0.001, where
            assert_printed(match[2][1:], pairing["p"], 3, f"{where}, p-value")
          assert (match[3] == "*") == pairing["significant"], f"{where}: Holm mark"


def test_the_oracle_sees_what_the_quickstart_is_about(oracles):
  """The quickstart exercises the branches the other runs do not: luck, and shared seats."""
  _, oracle = oracles["quickstart"]
  four = oracle["python_sushi_go(players=4)"]
  assert all(f["corrected_margin"] is not None for f in four["figures"].values())
  assert all(f["seats"] > f["games"] for f in four["figures"].values())
  _, robin = oracles["search-round-robin"]
  assert any(not p["significant"] for p in robin[OVERALL]["head_to_head"].values())
  _, anchored = oracles["cfr-head-to-head"]
  pairs = anchored["python_sushi_go(players=2)"]["head_to_head"]
  names = anchored["python_sushi_go(players=2)"]["order"]
  assert len(pairs) < len(names) * (len(names) - 1)  # some pairs never met


# ----- tournaments: summary.csv


CSV_BASE = ["game", "competitor", "games", "seats", "mean_score", "score_ci_low", "score_ci_high",
            "mean_margin", "margin_ci_low", "margin_ci_high", "wins", "win_rate", "win_ci_low",
            "win_ci_high", "rating_mu", "rating_sigma", "rating_ordinal"]
CSV_CORRECTED = ["corrected_score", "corrected_score_ci_low", "corrected_score_ci_high",
                 "score_variance_ratio", "corrected_margin", "corrected_margin_ci_low",
                 "corrected_margin_ci_high", "margin_variance_ratio"]
CSV_AIVAT = ["aivat_score", "aivat_score_ci_low", "aivat_score_ci_high",
             "aivat_score_variance_ratio", "aivat_score_luck_ratio", "aivat_margin",
             "aivat_margin_ci_low", "aivat_margin_ci_high", "aivat_margin_variance_ratio",
             "aivat_margin_luck_ratio"]
CSV_DIGITS = 6


def csv_expectations(figures: dict, rating: tuple[float, float]) -> dict[str, float | None]:
  mu, sigma = rating
  expected = dict(zip(CSV_BASE[4:], (*figures["score"], *figures["margin"], figures["wins"],
                                     *figures["win"], mu, sigma, mu - 3 * sigma)))
  for figure in ("score", "margin"):
    corrected = figures[f"corrected_{figure}"]
    names = [n for n in CSV_CORRECTED if figure in n]
    values = (None,) * 4 if corrected is None else (*corrected,
                                                    figures[f"{figure}_variance_ratio"])
    expected.update(zip(names, values))
    aivat = figures[f"aivat_{figure}"]
    names = [n for n in CSV_AIVAT if figure in n]
    values = (None,) * 5 if aivat is None else (*aivat, figures[f"aivat_{figure}_variance_ratio"],
                                                figures[f"aivat_{figure}_luck_ratio"])
    expected.update(zip(names, values))
  return expected


CSV_CASES = [(run, "regenerated") for run in TOURNAMENTS] + [
    (run, "stored") for run in TOURNAMENTS if (stored_dir(run) / "summary.csv").exists()]


@pytest.mark.parametrize("run, source", CSV_CASES)
def test_summary_csv_cell_by_cell(run, source, oracles, regenerated):
  _, oracle = oracles[run]
  check_summary_csv(report_dir(run, source, regenerated) / "summary.csv", oracle, run,
                    current=source == "regenerated")


def check_summary_csv(path: pathlib.Path, oracle: dict, run: str, current: bool) -> None:
  """The cells of a summary.csv; `current` when it was written by the current report code (older
  reports lack the luck columns, or the AIVAT ones)."""
  with path.open(newline="", encoding="utf-8") as file:
    rows = list(csv.reader(file))
  header = rows[0]
  assert header[:len(CSV_BASE)] == CSV_BASE
  assert header[len(CSV_BASE):] in ([], CSV_CORRECTED, CSV_CORRECTED + CSV_AIVAT)
  if current:
    assert header == CSV_BASE + CSV_CORRECTED + CSV_AIVAT
    assert b"\r" not in path.read_bytes(), f"{run}: lines end in \\n alone"
    for row in rows[1:]:
      for column, cell in zip(header[4:], row[4:]):
        assert cell == "" or float(cell) == round(float(cell), CSV_DIGITS), \
            f"{run}, {row[0]}, {row[1]}, {column}: {cell} is not rounded to {CSV_DIGITS} digits"
  expected_keys = [(label, name) for label, group in oracle.items() for name in group["order"]]
  assert [(row[0], row[1]) for row in rows[1:]] == expected_keys
  for row in rows[1:]:
    cells = dict(zip(header, row))
    group = oracle[cells["game"]]
    figures = group["figures"][cells["competitor"]]
    where = f"{run}, {cells['game']}, {cells['competitor']}"
    assert (cells["games"], cells["seats"]) == (str(figures["games"]), str(figures["seats"]))
    for column, value in csv_expectations(figures,
                                          group["ratings"][cells["competitor"]]).items():
      if column not in cells:
        continue
      if value is None:
        assert cells[column] == "", f"{where}, {column}: {cells[column]!r}"
      else:
        assert_number(cells[column], value, CSV_DIGITS, f"{where}, {column}")


# ----- regenerating


@pytest.mark.parametrize("run, report", [(run, report) for run, reports in CURRENT_REPORTS.items()
                                         for report in reports]
                         + [(run, report) for run in SOLVING
                            for report in ("summary.md", "results.csv")])
def test_regenerated_report_equals_the_stored_one(run, report, regenerated):
  assert (regenerated[run] / report).read_bytes() == (stored_dir(run) / report).read_bytes()


# Every STRIDE-th record of each tournament (by index): samples of 60 to 240 games whose reports
# take a second to write, so the report code can be judged by many quick runs (its mutation tests).
# Prime strides, so that a sample meets every seating of the schedule's cycles.
SAMPLE_STRIDES = {"quickstart": 17, "search-round-robin": 1, "cfr-head-to-head": 19,
                  "subgame-4p-head-to-head": 5, "blueprint-head-to-head": 7}


def write_records(folder: pathlib.Path, records: list[dict]) -> None:
  (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def sampled_run(name: str, destination: pathlib.Path) -> tuple[dict, list[dict]]:
  """A run folder at `destination` holding the config of the stored run `name` and a sample of its
  records (a run with the other games not played yet); its resolved config and the sample."""
  source = QUICKSTART_DATA if name == "quickstart" else stored_dir(name)
  destination.mkdir()
  for file in ("config.toml", "resolved_config.json"):
    shutil.copy(source / file, destination / file)
  sample = [r for r in read_records(source) if r["index"] % SAMPLE_STRIDES[name] == 0]
  write_records(destination, sample)
  return json.loads((source / "resolved_config.json").read_text()), sample


@pytest.mark.parametrize("run", TOURNAMENTS)
def test_a_sample_of_each_tournament_is_reported_cell_by_cell(run, tmp_path, capsys):
  """The report of a sample of a tournament's records against the oracle of that sample: headings,
  group sizes, every cell of summary.md's tables and of summary.csv. The report is printed (unless
  quiet), and written again alike over the first (its plots folder then exists)."""
  config, sample = sampled_run(run, tmp_path / run)
  oracle = tournament_oracle(config, sample)
  printed = summary.write_report(tmp_path / run)
  text = (tmp_path / run / "summary.md").read_text()
  assert printed == text and capsys.readouterr().out == text + "\n"
  csv_bytes = (tmp_path / run / "summary.csv").read_bytes()
  assert summary.write_report(tmp_path / run, quiet=True) == text
  assert capsys.readouterr().out == ""
  assert (tmp_path / run / "summary.csv").read_bytes() == csv_bytes
  check_heading_and_group_sizes(text, config, oracle)
  check_summary_tables(text, config, oracle, f"{run} (sample)")
  check_head_to_head_tables(text, oracle, f"{run} (sample)")
  check_summary_csv(tmp_path / run / "summary.csv", oracle, f"{run} (sample)", current=True)


def layout(text: str) -> list[str]:
  """A report's lines with every number masked and every table row but the rule row (the columns'
  alignment) reduced to its cell count: what stays the same whatever the figures."""
  return [line if re.fullmatch(r"[|:\s-]+", line)  # a table's rule row: its alignments
          else f"| {len(line.split(' | '))} cells" if line.startswith("|")
          else re.sub(r"\d+", "#", line) for line in text.split("\n")]


@pytest.mark.parametrize("run", [run for run, reports in CURRENT_REPORTS.items()
                                 if "summary.md" in reports])
def test_a_sampled_report_is_laid_out_as_the_stored_one(run, tmp_path):
  """Headings, blank lines, table shapes and the notes (the AIVAT note only where a group recorded
  the decision terms) of a sample's report are those of the stored report of the whole run."""
  sampled_run(run, tmp_path / run)
  text = summary.write_report(tmp_path / run, quiet=True)
  assert layout(text) == layout((stored_dir(run) / "summary.md").read_text())
  assert ("AIVAT: the luck-corrected figure" in text) == (run == "blueprint-head-to-head")


def test_a_sampled_run_without_its_config_file_or_schedule_is_reported_alike(tmp_path):
  """Older run folders: without config.toml (records then unchecked) or without the resolved
  config's schedule (the games counted from num_games and games), the report is the same."""
  sampled_run("quickstart", tmp_path / "whole")
  expected = summary.write_report(tmp_path / "whole", quiet=True)
  sampled_run("quickstart", tmp_path / "no-config")
  (tmp_path / "no-config" / "config.toml").unlink()
  assert summary.write_report(tmp_path / "no-config", quiet=True) == expected
  resolved = tmp_path / "no-schedule" / "resolved_config.json"
  sampled_run("quickstart", tmp_path / "no-schedule")
  older = json.loads(resolved.read_text())
  experiment = older["experiment"]
  assert older.pop("schedule")["total_games"] == experiment["num_games"] * len(experiment["games"])
  resolved.write_text(json.dumps(older))
  assert summary.write_report(tmp_path / "no-schedule", quiet=True) == expected


def test_a_config_in_utf_8_is_read_alike_under_an_ascii_locale(tmp_path):
  """The run folder's files are UTF-8 whatever the locale: a config.toml holding other than ASCII
  (a comment here) is reported the same where the locale's encoding is ASCII (LC_CTYPE C)."""
  folder = tmp_path / "run"
  sampled_run("quickstart", folder)
  config = folder / "config.toml"
  config.write_text("# Sushi Go, 寿司 (a café's tournament)\n" + config.read_text(encoding="utf-8"),
                    encoding="utf-8")
  expected = summary.write_report(folder, quiet=True)
  previous = locale.setlocale(locale.LC_CTYPE)
  try:
    locale.setlocale(locale.LC_CTYPE, "C")
    assert locale.getencoding() == "ANSI_X3.4-1968"  # ASCII: the file's first line is not
    assert summary.write_report(folder, quiet=True) == expected
  finally:
    locale.setlocale(locale.LC_CTYPE, previous)


def test_a_record_the_config_does_not_play_is_refused(tmp_path):
  folder = tmp_path / "run"
  _, sample = sampled_run("quickstart", folder)
  sample[3]["seats"] = sample[3]["seats"][::-1]
  write_records(folder, sample)
  with pytest.raises(RunError, match=f"^{re.escape(str(folder / 'records.jsonl'))}, line 4: game"
                     f" {sample[3]['index']} is recorded with seats "):
    summary.write_report(folder, quiet=True)


@pytest.mark.parametrize("missing", ["resolved_config.json", "records.jsonl"])
def test_a_folder_without_a_runs_files_is_refused(missing, tmp_path):
  sampled_run("quickstart", tmp_path / "run")
  (tmp_path / "run" / missing).unlink()
  with pytest.raises(FileNotFoundError,
                     match=f"^{re.escape(str(tmp_path / 'run'))} is not a run folder: {missing}"
                           " is missing$"):
    summary.write_report(tmp_path / "run", quiet=True)


def test_a_run_without_games_is_refused(tmp_path):
  sampled_run("quickstart", tmp_path / "run")
  write_records(tmp_path / "run", [])
  with pytest.raises(ValueError, match=f"^{re.escape(str(tmp_path / 'run' / 'records.jsonl'))}"
                                       " holds no games$"):
    summary.write_report(tmp_path / "run", quiet=True)


@pytest.mark.slow
def test_quickstart_records_are_the_configs_own(tmp_path):
  """The records kept in tests/data/quickstart are what the quickstart config plays (about two
  minutes of games on one core, more on a first compile)."""
  assert (QUICKSTART_DATA / "config.toml").read_bytes() == \
      (ROOT / "experiments" / "configs" / "quickstart.toml").read_bytes()
  out = tmp_path / "quickstart"
  assert main(["run", str(ROOT / "experiments" / "configs" / "quickstart.toml"), "--out",
               str(out), "--quiet"]) in (0, None)
  assert read_records(out) == read_records(QUICKSTART_DATA)
  assert (out / "summary.md").read_bytes() == (stored_dir("quickstart") / "summary.md").read_bytes()


# ----- solving runs: approximate exploitability


def game_sums(game_string: str) -> tuple[bool, float | None, int]:
  """Whether exploitability is NashConv / 2 (two players, zero or constant sum), the utility sum
  of a zero- or constant-sum game (else None), and the number of seats."""
  game = pyspiel.load_game(game_string)
  utility = game.get_type().utility
  constant = utility in (pyspiel.GameType.Utility.ZERO_SUM,
                         pyspiel.GameType.Utility.CONSTANT_SUM)
  return (constant and game.num_players() == 2, float(game.utility_sum()) if constant else None,
          game.num_players())


def normal_bound(by_seat: list[list[float]], halve: bool) -> tuple[float, float, float]:
  """The sum of the seats' mean gains, with a normal interval from their independent variances;
  halved for exploitability."""
  if any(len(values) < 2 for values in by_seat):
    return math.nan, math.nan, math.nan
  mean = sum(sum(values) / len(values) for values in by_seat)
  half = scipy.stats.norm.ppf(0.5 + CONFIDENCE / 2) * math.sqrt(
      sum(sample_variance(values) / len(values) for values in by_seat))
  scale = 0.5 if halve else 1.0
  return scale * mean, scale * (mean - half), scale * (mean + half)


DEFAULT_RESPONDER = "ismcts"  # the responder of a config's `agent` table; its units name none


def solving_oracle(config: dict, results: list[dict]) -> dict:
  """The bounds, gains by seat, exact figures and baseline differences of an approximate-
  exploitability run, by the definitions of experiments/solving/approximate.py's docstring."""
  section = config["section"]
  responders = section.get("responders") or {
      DEFAULT_RESPONDER: {"responder": DEFAULT_RESPONDER, "params": section["agent"]}}

  def plays(table, competitor):
    return competitor in table.get("against", [competitor])

  entries, differences = [], []
  for label, game_string in config["experiment"]["games"].items():
    halve, total, seats = game_sums(game_string)

    def played(competitor, responder, label=label):
      return [r for r in results if r["game"] == label and r["competitor"] == competitor
              and not r.get("exact") and r.get("responder", DEFAULT_RESPONDER) == responder]

    def per_game(competitor, responder):
      return {(r["seat"], k): pair for r in played(competitor, responder)
              for k, pair in enumerate(zip(r["agent"], r["self_play"]), r["games"][0])}

    for player in config["players"]:
      exact = next((r for r in results if r["game"] == label and r.get("exact")
                    and r["competitor"] == player["name"]), None)
      for responder, table in responders.items():
        if not plays(table, player["name"]):
          continue
        units = played(player["name"], responder)
        gains = [[a - s for r in units if r["seat"] == seat
                  for a, s in zip(r["agent"], r["self_play"])] for seat in range(seats)]
        # The responder's returns less the policy's exact value, or less an equal share of the
        # value sum of a zero- or constant-sum game.
        known = [[a - exact["policy_values"][seat] for r in units if r["seat"] == seat
                  for a in r["agent"]] for seat in range(seats)] if exact else None
        returns = [[a - total / seats for r in units if r["seat"] == seat for a in r["agent"]]
                   for seat in range(seats)] if total is not None else None
        games = sum(len(g) for g in gains)
        timed = all("cpu_seconds" in r for r in units) and units and games
        entries.append({
            "game": label, "competitor": player["name"], "responder": responder,
            "bound": normal_bound(gains, halve),
            "known_value": normal_bound(known, halve) if known else None,
            "value_sum": normal_bound(returns, halve) if returns else None,
            "gains": [t_interval(g) for g in gains], "games": [len(g) for g in gains],
            "exact": None if exact is None else exact.get("exploitability", exact["nash_conv"]),
            "exact_gains": None if exact is None else exact["gains"],
            "cpu": sum(r["cpu_seconds"] for r in units) / games if timed else None})
    baseline = section.get("baseline")
    for player in config["players"]:
      if baseline is None or player["name"] == baseline:
        continue
      for responder, table in responders.items():
        if not (plays(table, player["name"]) and plays(table, baseline)):
          continue
        mine, theirs = per_game(player["name"], responder), per_game(baseline, responder)
        both = sorted(mine.keys() & theirs.keys())
        paired = [[(mine[g][0] - mine[g][1]) - (theirs[g][0] - theirs[g][1]) for g in both
                   if g[0] == seat] for seat in range(seats)]
        alone = [[mine[g][0] - theirs[g][0] for g in both if g[0] == seat]
                 for seat in range(seats)]
        differences.append({"game": label, "competitor": player["name"], "responder": responder,
                            "paired": normal_bound(paired, halve),
                            "alone": normal_bound(alone, halve) if total is not None else None,
                            "games": len(both)})
  return {"entries": entries, "differences": differences}


def solving_digits(value: float, digits: int) -> int:
  """The decimals a solving report prints: `digits` decimals, or `digits` significant digits for
  a non-zero value below 0.01 in size."""
  if value and abs(value) < 1e-2:
    return digits - 1 - math.floor(math.log10(abs(value)))
  return digits


def assert_solving_number(printed: str, value: float, digits: int, where: str) -> None:
  assert_number(printed, value, solving_digits(value, digits), where)


def assert_solving_estimate(cell: str, estimate, where: str) -> None:
  match = re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", cell)
  assert match, f"{where}: {cell!r}"
  for printed, value, part in zip(match.groups(), estimate, ("value", "low", "high")):
    assert_solving_number(printed, value, 3, f"{where} ({part})")


SOLVING_HEADER = ["game", "competitor", "responder", "lower bound [95% CI]", "exact",
                  "bound / exact", "with the exact policy value [95% CI]",
                  "with the known value sum [95% CI]", "gain by seat [95% CI]", "games",
                  "CPU s / game"]
DIFFERENCE_HEADER = ["game", "competitor", "responder", "difference, paired gains [95% CI]",
                     "difference, returns alone [95% CI]", "games"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("run", SOLVING)
def test_solving_summary_md_cell_by_cell(run, source, regenerated):
  config = json.loads((stored_dir(run) / "resolved_config.json").read_text())
  oracle = solving_oracle(config, read_jsonl(stored_dir(run) / "results.jsonl"))
  text = (report_dir(run, source, regenerated) / "summary.md").read_text()
  lines = text.splitlines()
  assert lines[0] == f"# {config['experiment']['name']} ({config['experiment']['kind']})"
  tables = markdown_tables(lines)
  assert tables[0][0] == SOLVING_HEADER
  assert [row[:3] for row in tables[0][1:]] == [
      [e["game"], e["competitor"], e["responder"]] for e in oracle["entries"]]
  for row, entry in zip(tables[0][1:], oracle["entries"]):
    cells = dict(zip(SOLVING_HEADER, row))
    where = f"{run}, {entry['competitor']}, {entry['responder']}"
    assert_solving_estimate(cells["lower bound [95% CI]"], entry["bound"], f"{where}, bound")
    if entry["exact"] is None:
      for column in ("exact", "bound / exact", "with the exact policy value [95% CI]"):
        assert cells[column] == "–", f"{where}, {column}"
    else:
      assert_solving_number(cells["exact"], entry["exact"], 4, f"{where}, exact")
      assert_solving_number(cells["bound / exact"], entry["bound"][0] / entry["exact"], 2,
                            f"{where}, bound / exact")
      match = re.fullmatch(r"(\S+ \[\S+, \S+\]), (\S+) of exact",
                           cells["with the exact policy value [95% CI]"])
      assert match, f"{where}: {cells['with the exact policy value [95% CI]']!r}"
      assert_solving_estimate(match[1], entry["known_value"], f"{where}, exact policy value")
      assert_solving_number(match[2], entry["known_value"][0] / entry["exact"], 2,
                            f"{where}, exact policy value's share of exact")
    if entry["value_sum"] is None:
      assert cells["with the known value sum [95% CI]"] == "–"
    else:
      assert_solving_estimate(cells["with the known value sum [95% CI]"], entry["value_sum"],
                              f"{where}, known value sum")
    seat_cells = cells["gain by seat [95% CI]"].split("; ")
    assert len(seat_cells) == len(entry["gains"]), where
    for seat, (cell, gain) in enumerate(zip(seat_cells, entry["gains"])):
      assert_solving_estimate(cell, gain, f"{where}, gain of seat {seat}")
    assert cells["games"] == str(sum(entry["games"]))
    if entry["cpu"] is None:
      assert cells["CPU s / game"] == "–", where
    else:
      assert_solving_number(cells["CPU s / game"], entry["cpu"], 3, f"{where}, CPU s / game")
  if not oracle["differences"]:
    assert len(tables) == 1
    return
  assert tables[1][0] == DIFFERENCE_HEADER
  assert len(tables[1]) - 1 == len(oracle["differences"])
  for row, difference in zip(tables[1][1:], oracle["differences"]):
    where = f"{run}, {difference['competitor']} less the baseline"
    assert row[:3] == [difference["game"], difference["competitor"], difference["responder"]]
    assert_solving_estimate(row[3], difference["paired"], f"{where}, paired gains")
    assert_solving_estimate(row[4], difference["alone"], f"{where}, returns alone")
    assert row[5] == str(difference["games"])


def test_the_published_difference_is_the_oracles():
  """The results page's headline difference (generated from the stored report): the purified
  mean blueprint's bound less the heuristic's, from the responder's returns alone and from the
  paired gains."""
  run = "exploitability-full-blueprint-mean-paired-80"
  config = json.loads((stored_dir(run) / "resolved_config.json").read_text())
  difference, = solving_oracle(config, read_jsonl(stored_dir(run) / "results.jsonl"))[
      "differences"]
  page = (ROOT / "docs" / "results-exploitability.md").read_text()
  for estimate in (difference["alone"], difference["paired"]):
    value, low, high = (f"{x:.3f}" for x in estimate)
    assert f"{value} [{low}, {high}]" in page


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("run", SOLVING)
def test_solving_results_csv_cell_by_cell(run, source, regenerated):
  config = json.loads((stored_dir(run) / "resolved_config.json").read_text())
  oracle = solving_oracle(config, read_jsonl(stored_dir(run) / "results.jsonl"))
  text = (report_dir(run, source, regenerated) / "results.csv").read_text(encoding="utf-8")
  rows = list(csv.reader(io.StringIO(text, newline="")))
  assert rows[0] == ["game", "competitor", "responder", "seat", "gain", "gain_low", "gain_high",
                     "games", "exact_gain", "cpu_seconds_per_game"]
  expected = [(e, seat) for e in oracle["entries"] for seat in range(len(e["gains"]))]
  assert len(rows) - 1 == len(expected)
  for row, (entry, seat) in zip(rows[1:], expected):
    where = f"{run}, {entry['competitor']}, {entry['responder']}, seat {seat}"
    assert row[:4] == [entry["game"], entry["competitor"], entry["responder"], str(seat)], where
    for printed, value in zip(row[4:7], entry["gains"][seat]):
      assert float(printed) == pytest.approx(value, rel=1e-12, abs=1e-12), where
    assert row[7] == str(entry["games"][seat]), where
    if entry["exact_gains"] is None:
      assert row[8] == "", where
    else:
      assert float(row[8]) == pytest.approx(entry["exact_gains"][seat], rel=1e-12), where
    if entry["cpu"] is None:
      assert row[9] == "", where
    else:
      assert float(row[9]) == pytest.approx(entry["cpu"], rel=1e-12), where
