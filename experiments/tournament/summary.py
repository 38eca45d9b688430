"""Report of a tournament run: summary tables and plots, regenerated from the run folder alone.

`write_report` reads `resolved_config.json` and `records.jsonl` from a run folder and writes
`summary.csv` (one row per game string, and `stats.OVERALL`, and competitor: every figure of
`stats.Summary` and the rating), `summary.md` (per game string, the figures the config's
`report.metrics` chooses, the rating and the head-to-head matrix with its p-values) and
`plots/score_distribution.png`, `plots/win_matrix.png`, `plots/ratings.png`. Records are read as a
resumed run reads them (`run_folder.read_results`): a game recorded twice, or not a game of the
config, is refused with its line rather than counted. Nothing comes from the process that played
the games, and plots are drawn on bare matplotlib figures (Agg, no pyplot): no window, no global
state. What each figure means: docs/results.md, "How to read the tables".
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Container, Sequence
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from experiments import run_folder
from experiments import stats
from experiments.run_folder import PLOTS_DIR, RECORDS_FILE, RESOLVED_FILE, SUMMARY_CSV, SUMMARY_MD
from experiments.tournament import config as tournament_config

CSV_COLUMNS = (
    "game", "competitor", "games", "seats",
    "mean_score", "score_ci_low", "score_ci_high",
    "mean_margin", "margin_ci_low", "margin_ci_high",
    "wins", "win_rate", "win_ci_low", "win_ci_high",
    "rating_mu", "rating_sigma", "rating_ordinal",
    "corrected_score", "corrected_score_ci_low", "corrected_score_ci_high", "score_variance_ratio",
    "corrected_margin", "corrected_margin_ci_low", "corrected_margin_ci_high",
    "margin_variance_ratio",
    "aivat_score", "aivat_score_ci_low", "aivat_score_ci_high", "aivat_score_variance_ratio",
    "aivat_score_luck_ratio",
    "aivat_margin", "aivat_margin_ci_low", "aivat_margin_ci_high", "aivat_margin_variance_ratio",
    "aivat_margin_luck_ratio")
METRIC_HEADERS = {
    "score": "mean score [95% CI]",
    "margin": "mean margin [95% CI]",
    "win": "win rate [Wilson 95%]",
}
CORRECTED_HEADERS = {  # the luck-corrected figures, shown after the raw one when the run has them
    "score": "luck-corrected score [95% CI] (var. ratio)",
    "margin": "luck-corrected margin [95% CI] (var. ratio)",
}
AIVAT_HEADERS = {  # the AIVAT figures, shown after the luck-corrected one when the run has them
    "score": "AIVAT score [95% CI] (var. ratio to raw, to luck-corrected)",
    "margin": "AIVAT margin [95% CI] (var. ratio to raw, to luck-corrected)",
}
RATING_ERROR_SIGMAS = 2  # error bars of the ratings plot
DPI = 120
SCORE_PLOT, WIN_PLOT, RATINGS_PLOT = "score_distribution.png", "win_matrix.png", "ratings.png"
REPORT_FILES = (SUMMARY_MD, SUMMARY_CSV,
                *(f"{PLOTS_DIR}/{name}" for name in (SCORE_PLOT, WIN_PLOT, RATINGS_PLOT)))


def write_report(run_dir: pathlib.Path, quiet: bool = False) -> str:
  """Writes the summaries and plots of the run in `run_dir`; prints and returns the Markdown."""
  run_dir = pathlib.Path(run_dir)
  config, records = load_run(run_dir)
  groups = stats.groups(records)
  results = {label: stats.group_stats(group) for label, group in groups.items()}
  order = competitor_order(config, records)
  write_csv(run_dir / SUMMARY_CSV, results, order)
  markdown = markdown_report(config, results, order)
  run_folder.write_atomically(run_dir / SUMMARY_MD, markdown)
  plots = run_dir / PLOTS_DIR
  plots.mkdir(exist_ok=True)
  plot_score_distribution(plots / SCORE_PLOT, groups, order)
  plot_win_matrix(plots / WIN_PLOT, results, order)
  plot_ratings(plots / RATINGS_PLOT, results, order)
  if not quiet:
    print(markdown)
  return markdown


def load_run(run_dir: pathlib.Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
  """The resolved config and the game records of a run folder."""
  for name in (RESOLVED_FILE, RECORDS_FILE):
    if not (run_dir / name).is_file():
      raise FileNotFoundError(f"{run_dir} is not a run folder: {name} is missing")
  config = run_folder.read_json(run_dir / RESOLVED_FILE)
  check = None
  if (run_dir / run_folder.CONFIG_FILE).is_file():  # each record checked against its config
    check = tournament_config.record_problem(run_folder.stored_config(
        run_dir, lambda path: tournament_config.read_tables(path.read_text(encoding="utf-8"))))
  records = list(run_folder.read_results(run_dir, run_folder.GAME_RECORDS,
                                         _total_games(config), check).values())
  if not records:
    raise ValueError(f"{run_dir / RECORDS_FILE} holds no games")
  return config, records


def _total_games(config: dict[str, Any]) -> int:
  """The number of games of a resolved config (older folders lack `schedule`)."""
  experiment = config["experiment"]
  return config.get("schedule", {}).get("total_games",
                                        experiment["num_games"] * len(experiment["games"]))


def competitor_order(config: dict[str, Any], records: Sequence[stats.Record]) -> list[str]:
  """Competitors in the order of the config's players, then any others by name."""
  seated = {name for record in records for name in record["seats"]}
  configured = [player["name"] for player in config["players"] if player["name"] in seated]
  return configured + sorted(seated - set(configured))


def _in_order(order: Sequence[str], present: Container[str]) -> list[str]:
  return [name for name in order if name in present]


# Tables.


def write_csv(path: pathlib.Path, results: dict[str, stats.GroupStats],
              order: Sequence[str]) -> None:
  rows = [CSV_COLUMNS] + [_csv_row(label, result.summaries[name], result.ratings[name])
                          for label, result in results.items()
                          for name in _in_order(order, result.summaries)]
  run_folder.write_atomically(path, run_folder.csv_text(rows, lineterminator="\n"))


def _csv_row(label: str, summary: stats.Summary, rating: stats.Rating) -> list:
  figures = (
      summary.score.value, summary.score.low, summary.score.high,
      summary.margin.value, summary.margin.low, summary.margin.high,
      summary.wins, summary.win_rate.value, summary.win_rate.low, summary.win_rate.high,
      rating.mu, rating.sigma, rating.ordinal)
  corrected = []
  for estimate, ratio in ((summary.corrected_score, summary.score_variance_ratio),
                          (summary.corrected_margin, summary.margin_variance_ratio)):
    corrected += (["", "", "", ""] if estimate is None else
                  [round(figure, 6) for figure in (estimate.value, estimate.low, estimate.high,
                                                    ratio)])
  for estimate, ratios in ((summary.aivat_score, (summary.aivat_score_variance_ratio,
                                                  summary.aivat_score_luck_ratio)),
                           (summary.aivat_margin, (summary.aivat_margin_variance_ratio,
                                                   summary.aivat_margin_luck_ratio))):
    corrected += (["", "", "", "", ""] if estimate is None else
                  [round(figure, 6) for figure in (estimate.value, estimate.low, estimate.high,
                                                    *ratios)])
  return [label, summary.competitor, summary.games, summary.seats] + [
      round(figure, 6) for figure in figures] + corrected


def markdown_report(config: dict[str, Any], results: dict[str, stats.GroupStats],
                    order: Sequence[str]) -> str:
  """The summary and head-to-head tables of every group, then how to read them."""
  experiment = config["experiment"]
  total = sum(result.games for label, result in results.items() if label != stats.OVERALL)
  lines = [f"# {experiment['name']}", "",
           f"{total} games, seed {experiment['seed']}.", ""]
  for label, result in results.items():
    lines += [f"## {label}", "", f"{result.games} games.", ""]
    lines += _summary_table(result, order, config["report"]["metrics"]) + [""]
    lines += _head_to_head_table(result, order) + [""]
  lines += [_NOTES]
  if any(summary.aivat_score is not None for result in results.values()
         for summary in result.summaries.values()):
    lines += [_AIVAT_NOTE]
  return "\n".join(lines) + "\n"


_NOTES = """\
A competitor's seats at one table count as one observation (their mean), so `games` is the sample
size and `seats` the seats held. Margin: a seat's score minus the mean of the other seats. Win rate:
mean share of the win per seat (a win shared by k seats counts 1/k); its Wilson interval uses the
total rounded to whole games. Ratings: OpenSkill Plackett-Luce over the games in order, mu ± sigma.
Head to head: the row's share of the games in which it outscored the column (ties count 1/2), with
the two-sided sign-test p-value; * marks significance at 0.05 after Holm-Bonferroni over the pairs.
Luck-corrected: the figure minus chance's share of it (the luck of the deals, valued by reference
playouts; same expectation, see `experiments.tournament.luck`), with the ratio of its variance to
the raw figure's; shown when every game of the group recorded its luck.
"""
_AIVAT_NOTE = """\
AIVAT: the luck-corrected figure minus the readable bots' decision terms (each draw's value less
its expectation under the bot's own policy, with the luck's value function; same expectation, see
`experiments.tournament.aivat`), with the ratios of its variance to the raw and the luck-corrected
figure's; shown when every game of the group recorded both.
"""


def _summary_table(result: stats.GroupStats, order: Sequence[str],
                   metrics: Sequence[str]) -> list[str]:
  lucky = all(summary.corrected_score is not None for summary in result.summaries.values())
  aivat = all(summary.aivat_score is not None for summary in result.summaries.values())
  shown = {"raw": True, "luck": lucky, "aivat": aivat}
  chosen = [(metric, kind) for metric in METRIC_HEADERS if metric in metrics
            for kind in ("raw", "luck", "aivat")
            if shown[kind] and (kind == "raw" or metric in CORRECTED_HEADERS)]
  headers = {"raw": METRIC_HEADERS, "luck": CORRECTED_HEADERS, "aivat": AIVAT_HEADERS}
  header = (["competitor", "games", "seats"] + [headers[kind][m] for m, kind in chosen] +
            ["rating μ ± σ"])
  rows = []
  for name in _in_order(order, result.summaries):
    summary, rating = result.summaries[name], result.ratings[name]
    cells = {("score", "raw"): _estimate(summary.score, 2),
             ("margin", "raw"): _estimate(summary.margin, 2),
             ("win", "raw"): _estimate(summary.win_rate, 3)}
    if lucky:
      cells["score", "luck"] = (f"{_estimate(summary.corrected_score, 2)}"
                                f" ({summary.score_variance_ratio:.2f})")
      cells["margin", "luck"] = (f"{_estimate(summary.corrected_margin, 2)}"
                                 f" ({summary.margin_variance_ratio:.2f})")
    if aivat:
      cells["score", "aivat"] = (f"{_estimate(summary.aivat_score, 2)}"
                                 f" ({summary.aivat_score_variance_ratio:.2f},"
                                 f" {summary.aivat_score_luck_ratio:.2f})")
      cells["margin", "aivat"] = (f"{_estimate(summary.aivat_margin, 2)}"
                                  f" ({summary.aivat_margin_variance_ratio:.2f},"
                                  f" {summary.aivat_margin_luck_ratio:.2f})")
    rows.append([name, str(summary.games), str(summary.seats)] + [cells[m] for m in chosen] +
                [f"{rating.mu:.1f} ± {rating.sigma:.1f}"])
  return _table(header, rows, right_aligned_from=1)


def _head_to_head_table(result: stats.GroupStats, order: Sequence[str]) -> list[str]:
  names = _in_order(order, result.summaries)
  rows = [[name] + [_pairing(result.head_to_head.get((name, opponent)), name == opponent)
                    for opponent in names]
          for name in names]
  return ["Head to head (row vs column):", ""] + _table(["row \\ column"] + names, rows, 1)


def _pairing(pairing: stats.HeadToHead | None, diagonal: bool) -> str:
  if diagonal:
    return "—"
  if pairing is None:
    return "never met"
  mark = "*" if pairing.significant else ""
  return f"{pairing.win_rate:.2f} (p{_p_value(pairing.p_value)}){mark}"


def _p_value(p: float) -> str:
  return "<0.001" if p < 0.001 else f"={p:.3f}"


def _estimate(estimate: stats.Estimate, digits: int) -> str:
  if math.isnan(estimate.low):
    return f"{estimate.value:.{digits}f} [n/a]"
  return f"{estimate.value:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]],
           right_aligned_from: int) -> list[str]:
  """A Markdown table; columns from `right_aligned_from` on are right-aligned."""
  rule = ["---" if c < right_aligned_from else "---:" for c in range(len(header))]
  return ["| " + " | ".join(cells) + " |" for cells in (header, rule, *rows)]


# Plots.


def plot_score_distribution(path: pathlib.Path, groups: dict[str, list[stats.Record]],
                            order: Sequence[str]) -> None:
  """Box plot of the final scores of every seat per competitor, the seats jittered on top (by
  numpy's default_rng(0), drawn afresh in each panel, so that a report is redrawn identically)."""
  fig, axes = _subplots(len(groups), width=max(4.5, 1.1 * len(order) + 1.5), height=4.5)
  for ax, (label, records) in zip(axes, groups.items()):
    scores = _seat_scores(records)
    names = _in_order(order, scores)
    positions = np.arange(1, len(names) + 1)
    ax.boxplot([scores[name] for name in names], positions=positions, widths=0.5, whis=(0, 100),
               showfliers=False, showmeans=True, medianprops={"color": "tab:orange"},
               meanprops={"marker": "D", "markerfacecolor": "tab:green",
                          "markeredgecolor": "tab:green"})
    jitter = np.random.default_rng(0)
    for position, name in zip(positions, names):
      xs = position + jitter.uniform(-0.18, 0.18, len(scores[name]))
      ax.scatter(xs, scores[name], s=8, alpha=0.35, color="tab:blue", zorder=3)
    _set_xticks(ax, positions, names)
    ax.set(title=label, xlabel="competitor", ylabel="final score (points)")
    ax.grid(axis="y", alpha=0.3)
  fig.legend(handles=[
      Line2D([], [], color="tab:blue", marker="o", linestyle="", alpha=0.5, label="one seat"),
      Line2D([], [], color="tab:orange", label="median (box: quartiles, whiskers: range)"),
      Line2D([], [], color="tab:green", marker="D", linestyle="", label="mean")],
      loc="outside lower center", ncols=3, fontsize="small")
  fig.suptitle("Final scores per competitor")
  _save(fig, path)


def _seat_scores(records: Sequence[stats.Record]) -> dict[str, list[int]]:
  scores: dict[str, list[int]] = {}
  for record in records:
    for name, score in zip(record["seats"], record["scores"]):
      scores.setdefault(name, []).append(score)
  return scores


def plot_win_matrix(path: pathlib.Path, results: dict[str, stats.GroupStats],
                    order: Sequence[str]) -> None:
  """Heatmap of the head-to-head win rates, annotated, significant pairs marked with *."""
  size = max(3.5, 0.9 * len(order) + 1.5)
  fig, axes = _subplots(len(results), width=size, height=size, extra_width=1.2)  # + colorbar
  colormap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.9")  # grey diagonal
  for ax, (label, result) in zip(axes, results.items()):
    names = _in_order(order, result.summaries)
    rates = np.full((len(names), len(names)), np.nan)
    for (row, column), pairing in result.head_to_head.items():
      rates[names.index(row), names.index(column)] = pairing.win_rate
    image = ax.imshow(rates, cmap=colormap, vmin=0, vmax=1)
    for i, row in enumerate(names):
      for j, column in enumerate(names):
        ax.text(j, i, _cell_text(result.head_to_head.get((row, column)), i == j),
                ha="center", va="center",
                color="white" if abs(rates[i, j] - 0.5) > 0.3 else "black")
    _set_xticks(ax, range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    ax.set(title=label, xlabel="opponent (column)", ylabel="competitor (row)")
  fig.colorbar(image, ax=axes, shrink=0.9, label="share of games won by the row")
  fig.suptitle("Head-to-head win rates (ties count 1/2)")
  fig.supxlabel("* significant at 0.05 after Holm-Bonferroni (two-sided sign test)",
                fontsize="small")
  _save(fig, path)


def _cell_text(pairing: stats.HeadToHead | None, diagonal: bool) -> str:
  if diagonal:
    return ""
  if pairing is None:
    return "never\nmet"
  return f"{pairing.win_rate:.2f}" + ("*" if pairing.significant else "")


def plot_ratings(path: pathlib.Path, results: dict[str, stats.GroupStats],
                 order: Sequence[str]) -> None:
  """Rating mu with ±2 sigma error bars per competitor, one series per game string."""
  fig = Figure(figsize=(max(6, 1.2 * len(order) + 3), 5), layout="constrained")
  ax = fig.subplots()
  width = 0.6 / len(results)
  for k, (label, result) in enumerate(results.items()):
    names = _in_order(order, result.ratings)
    xs = np.array([order.index(name) for name in names]) + (k - (len(results) - 1) / 2) * width
    ax.errorbar(xs, [result.ratings[n].mu for n in names],
                yerr=[RATING_ERROR_SIGMAS * result.ratings[n].sigma for n in names],
                fmt="o", capsize=4, label=label)
  _set_xticks(ax, range(len(order)), order)
  ax.set(title=f"OpenSkill Plackett-Luce ratings (error bars ±{RATING_ERROR_SIGMAS}σ)",
         xlabel="competitor", ylabel="rating μ")
  ax.grid(axis="y", alpha=0.3)
  fig.legend(title="game", fontsize="small", loc="outside lower center",
             ncols=1 if len(results) > 3 else len(results))
  _save(fig, path)


def _subplots(count: int, width: float, height: float, extra_width: float = 0):
  """`count` axes of `width` by `height` inches, three to a row, in one figure."""
  columns = min(count, 3)
  rows = math.ceil(count / columns)
  fig = Figure(figsize=(width * columns + extra_width, height * rows), layout="constrained")
  axes = fig.subplots(rows, columns, squeeze=False)
  for ax in axes.flat[count:]:
    ax.set_visible(False)
  return fig, list(axes.flat[:count])


def _set_xticks(ax, positions, names: Sequence[str]) -> None:
  """Labels the x ticks with `names`, slanted when a name is long."""
  if max(map(len, names)) > 8:
    ax.set_xticks(positions, names, rotation=30, ha="right", rotation_mode="anchor")
  else:
    ax.set_xticks(positions, names)


def _save(fig: Figure, path: pathlib.Path) -> None:
  run_folder.save_figure(fig, path, DPI)
