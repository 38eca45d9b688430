"""The report plots show the figures they claim: read back from the matplotlib figure objects (the
plotted arrays, the bar segments, the tick and axis labels, the annotations), not from pixels.

Each plot is checked against its inputs: the tournament report's score distribution, head-to-head
matrix and ratings (`experiments/tournament/summary.py`) from hand-made records, and the solving
reports' bound, abstraction and convergence plots from hand-made results. Then bugs are planted
one at a time in a copy of the plotting code (a wrong series, a transposed matrix, swapped axes, a
narrowed interval, ...), and each must be caught by the same checks: a check that passes every
planted bug would not be worth its name.
"""

from __future__ import annotations

import inspect
import math
import pathlib

import numpy as np
import pytest
from matplotlib.colors import to_hex

from experiments import run_folder
from experiments import stats
from experiments.solving import abstraction as abstraction_kind
from experiments.solving import approximate as approximate_kind
from experiments.solving import convergence as convergence_kind
from experiments.tournament import summary

ORDER = ["zeta", "alpha", "mid"]  # the config's order, not alphabetical
TWO, THREE = "python_sushi_go(players=2)", "python_sushi_go(players=3)"


def hand_made_records() -> list[dict]:
  """Forty tables of two or three seats; zeta scores ten points more than its dealt score, so the
  head-to-head shares are far from symmetric."""
  rng = np.random.default_rng(7)
  records = []
  for index in range(40):
    game = TWO if index % 2 else THREE
    seats = [str(name) for name in rng.permutation(ORDER)[:2 if game == TWO else 3]]
    scores = [int(rng.integers(20, 50)) + 10 * (name == "zeta") for name in seats]
    winners = [seat for seat, score in enumerate(scores) if score == max(scores)]
    records.append({"index": index, "game": game, "seats": seats, "scores": scores,
                    "winners": winners})
  return records


@pytest.fixture(name="drawn")
def drawn_figures(monkeypatch) -> dict[str, object]:
  """The figures the plotting code saves, by file name, kept instead of written."""
  figures = {}
  monkeypatch.setattr(run_folder, "save_figure",
                      lambda fig, path, dpi: figures.__setitem__(pathlib.Path(path).name, fig))
  return figures


def planted(module, old: str, new: str) -> dict:
  """The namespace of `module` run from its source with `old` (found exactly once) replaced by
  `new`: the plotting code with one bug planted."""
  source = inspect.getsource(module)
  assert source.count(old) == 1, f"{old!r} is not found exactly once in {module.__name__}"
  namespace = {"__name__": module.__name__}
  code = compile(source.replace(old, new), module.__file__, "exec")
  exec(code, namespace)  # pylint: disable=exec-used
  return namespace


def close(a, b) -> bool:
  return np.allclose(np.asarray(a, float), np.asarray(b, float), equal_nan=True)


def tick_texts(labels) -> list[str]:
  return [label.get_text() for label in labels]


def error_bars(container) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
  """x, y and each point's (low, high) of an errorbar container."""
  data_line, _, (bars,) = container.lines
  ends = [(min(s[:, 1]), max(s[:, 1])) for s in map(np.asarray, bars.get_segments())]
  return np.asarray(data_line.get_xdata(), float), np.asarray(data_line.get_ydata(), float), ends


# ----- the tournament report


def seat_scores(records: list[dict]) -> dict[str, list[int]]:
  scores: dict[str, list[int]] = {}
  for record in records:
    for name, score in zip(record["seats"], record["scores"]):
      scores.setdefault(name, []).append(score)
  return scores


def score_distribution_problems(fig, groups: dict[str, list[dict]]) -> list[str]:
  """Each group's panel: titled by its label, one box and one cloud of points per competitor in
  the config's order at ticks 1, 2, ...; the points are its seats' scores, the orange line their
  median, the diamond their mean, the lines' extent their range."""
  problems = []
  axes = [ax for ax in fig.axes if ax.get_visible()]
  if [ax.get_title() for ax in axes] != list(groups):
    problems.append(f"panels {[ax.get_title() for ax in axes]}, not {list(groups)}")
  for ax, records in zip(axes, groups.values()):
    scores = seat_scores(records)
    names = [name for name in ORDER if name in scores]
    if tick_texts(ax.get_xticklabels()) != names or not close(ax.get_xticks(),
                                                              range(1, len(names) + 1)):
      problems.append(f"{ax.get_title()}: ticks {tick_texts(ax.get_xticklabels())}")
    if (ax.get_xlabel(), ax.get_ylabel()) != ("competitor", "final score (points)"):
      problems.append(f"{ax.get_title()}: axes labelled {ax.get_xlabel()!r}, {ax.get_ylabel()!r}")
    points = np.concatenate([c.get_offsets() for c in ax.collections])
    for position, name in enumerate(names, start=1):
      near = lambda x, reach: abs(np.mean(x) - position) <= reach  # noqa: E731
      shown = sorted(points[np.abs(points[:, 0] - position) <= 0.2][:, 1])
      lines = [line for line in ax.lines if near(line.get_xdata(), 0.3)]
      medians = [line.get_ydata() for line in lines if line.get_color() != "none"
                 and to_hex(line.get_color()) == to_hex("tab:orange")]
      means = [line.get_ydata() for line in lines if line.get_marker() == "D"]
      extent = np.concatenate([line.get_ydata() for line in lines if line.get_marker() != "D"])
      expected = scores[name]
      if not close(shown, sorted(expected)):
        problems.append(f"{ax.get_title()}: the points at {name}'s tick are not its scores")
      if len(medians) != 1 or not close(medians[0], [np.median(expected)] * 2):
        problems.append(f"{ax.get_title()}: {name}'s median line {medians}")
      if len(means) != 1 or not close(means[0], [np.mean(expected)]):
        problems.append(f"{ax.get_title()}: {name}'s mean marker {means}")
      if not close([min(extent), max(extent)], [min(expected), max(expected)]):
        problems.append(f"{ax.get_title()}: {name}'s box and whiskers span"
                        f" {min(extent)}..{max(extent)}")
  return problems


def win_matrix_problems(fig, results: dict[str, stats.GroupStats]) -> list[str]:
  """Each group's matrix: row competitor against column opponent in the config's order, the
  colour the row's win share, the text that share to 2 decimals and * when significant, an empty
  diagonal."""
  problems = []
  axes = [ax for ax in fig.axes if ax.images]
  if [ax.get_title() for ax in axes] != list(results):
    problems.append(f"panels {[ax.get_title() for ax in axes]}, not {list(results)}")
  for ax, result in zip(axes, results.values()):
    names = [name for name in ORDER if name in result.summaries]
    if tick_texts(ax.get_xticklabels()) != names or tick_texts(ax.get_yticklabels()) != names:
      problems.append(f"{ax.get_title()}: columns {tick_texts(ax.get_xticklabels())}, rows"
                      f" {tick_texts(ax.get_yticklabels())}")
    if (ax.get_xlabel(), ax.get_ylabel()) != ("opponent (column)", "competitor (row)"):
      problems.append(f"{ax.get_title()}: axes labelled {ax.get_xlabel()!r}, {ax.get_ylabel()!r}")
    expected = [[math.nan if row == column else result.head_to_head[row, column].win_rate
                 for column in names] for row in names]
    shown = np.ma.filled(ax.images[0].get_array().astype(float), np.nan)
    if not close(shown, expected) or ax.images[0].get_clim() != (0, 1):
      problems.append(f"{ax.get_title()}: colours {shown.tolist()}, not {expected}")
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
             for t in ax.texts}
    for i, row in enumerate(names):
      for j, column in enumerate(names):
        pairing = result.head_to_head[row, column] if i != j else None
        want = "" if pairing is None else \
            f"{pairing.win_rate:.2f}" + ("*" if pairing.significant else "")
        if texts.get((i, j)) != want:
          problems.append(f"{ax.get_title()}: cell ({row}, {column}) reads {texts.get((i, j))!r},"
                          f" not {want!r}")
  return problems


def ratings_problems(fig, results: dict[str, stats.GroupStats]) -> list[str]:
  """One series per group, labelled by it; each point at its competitor's tick (the config's
  order), at its rating mu, the bar mu -+ 2 sigma."""
  problems = []
  ax = fig.axes[0]
  if tick_texts(ax.get_xticklabels()) != ORDER:
    problems.append(f"ticks {tick_texts(ax.get_xticklabels())}")
  if [c.get_label() for c in ax.containers] != list(results):
    problems.append(f"series {[c.get_label() for c in ax.containers]}, not {list(results)}")
  for container, result in zip(ax.containers, results.values()):
    names = [name for name in ORDER if name in result.ratings]
    x, y, ends = error_bars(container)
    ratings = [result.ratings[name] for name in names]
    if [round(v) for v in x] != [ORDER.index(name) for name in names] or \
        max(abs(x - np.round(x))) > 0.3:
      problems.append(f"{container.get_label()}: points at x {x.tolist()}")
    if not close(y, [r.mu for r in ratings]):
      problems.append(f"{container.get_label()}: mu {y.tolist()}")
    if not close(ends, [(r.mu - 2 * r.sigma, r.mu + 2 * r.sigma) for r in ratings]):
      problems.append(f"{container.get_label()}: bars {ends}")
  return problems


def tournament_problems(drawn: dict, plots=summary) -> list[str]:
  """Draws the three plots of the hand-made records with `plots` (the module or a namespace with
  a bug planted) and returns what the checks find wrong."""
  plots = vars(plots) if not isinstance(plots, dict) else plots
  groups = stats.groups(hand_made_records())
  results = {label: stats.group_stats(group) for label, group in groups.items()}
  folder = pathlib.Path("plots")
  plots["plot_score_distribution"](folder / summary.SCORE_PLOT, groups, ORDER)
  plots["plot_win_matrix"](folder / summary.WIN_PLOT, results, ORDER)
  plots["plot_ratings"](folder / summary.RATINGS_PLOT, results, ORDER)
  return (score_distribution_problems(drawn[summary.SCORE_PLOT], groups)
          + win_matrix_problems(drawn[summary.WIN_PLOT], results)
          + ratings_problems(drawn[summary.RATINGS_PLOT], results))


def test_the_tournament_plots_show_the_records(drawn):
  results = stats.analyze(hand_made_records())
  assert list(results) == [THREE, TWO, stats.OVERALL]
  marks = [pairing.significant for pairing in results[stats.OVERALL].head_to_head.values()]
  assert any(marks) and not all(marks)  # both kinds of cell are drawn
  assert tournament_problems(drawn) == []


# ----- the solving reports


def bound(value: float, low: float, high: float) -> stats.Estimate:
  return stats.Estimate(value, low, high)


# Two competitors' bounds, listed out of CPU order, with an interval wider above than below (so
# that low and high cannot be swapped unseen), one point without CPU time and one without a bound.
BOUNDS = [
    {"competitor": "cfr", "responder": "lbr_deep", "cpu_seconds_per_game": 2.0,
     "bound": bound(0.8, 0.5, 1.4), "measure": "exploitability"},
    {"competitor": "cfr", "responder": "lbr", "cpu_seconds_per_game": 0.1,
     "bound": bound(0.3, 0.2, 0.6), "measure": "exploitability"},
    {"competitor": "cfr", "responder": "ppo", "cpu_seconds_per_game": None,
     "bound": bound(0.9, 0.1, 1.5), "measure": "exploitability"},
    {"competitor": "heuristic", "responder": "lbr", "cpu_seconds_per_game": 0.2,
     "bound": bound(2.5, 2.0, 3.5), "measure": "exploitability"},
    {"competitor": "heuristic", "responder": "lbr_deep", "cpu_seconds_per_game": 5.0,
     "bound": bound(math.nan, math.nan, math.nan), "measure": "exploitability"},
    {"competitor": "heuristic", "responder": "pimc", "cpu_seconds_per_game": 1.0,
     "bound": bound(4.0, 3.0, 4.5), "measure": "exploitability"},
]


def bounds_problems(fig, entries: list[dict]) -> list[str]:
  """One line per competitor through its timed bounds in order of CPU seconds (log scale), each
  with its interval as the bar and named by its responder."""
  problems = []
  ax = fig.axes[0]
  if (ax.get_xscale(), ax.get_xlabel(), ax.get_ylabel()) != (
      "log", "responder's CPU seconds per paired game", "lower bound on exploitability"):
    problems.append(f"axes {ax.get_xscale()}, {ax.get_xlabel()!r}, {ax.get_ylabel()!r}")
  competitors = list(dict.fromkeys(e["competitor"] for e in entries))
  if [c.get_label() for c in ax.containers] != competitors:
    problems.append(f"series {[c.get_label() for c in ax.containers]}, not {competitors}")
  for container, name in zip(ax.containers, competitors):
    shown = sorted((e for e in entries if e["competitor"] == name and e["cpu_seconds_per_game"]
                    and not math.isnan(e["bound"].value)),
                   key=lambda e: e["cpu_seconds_per_game"])
    x, y, ends = error_bars(container)
    if not close(x, [e["cpu_seconds_per_game"] for e in shown]):
      problems.append(f"{name}: CPU seconds {x.tolist()}")
    if not close(y, [e["bound"].value for e in shown]):
      problems.append(f"{name}: bounds {y.tolist()}")
    if not close(ends, [(e["bound"].low, e["bound"].high) for e in shown]):
      problems.append(f"{name}: intervals {ends}")
  named = sorted((t.get_text(), *map(float, t.xy)) for t in ax.texts)
  expected = sorted((e["responder"], e["cpu_seconds_per_game"], e["bound"].value) for e in entries
                    if e["cpu_seconds_per_game"] and not math.isnan(e["bound"].value))
  if named != expected:
    problems.append(f"points named {named}, not {expected}")
  return problems


# Two families, listed out of size order; exploitability measured beside NashConv (twice it here,
# plus one), so that plotting the wrong one shows.
ABSTRACTIONS = [{"family": family, "abstract_infosets": keys, "exploitability": value,
                 "nash_conv": 2 * value + 1}
                for family, keys, value in (("buckets", 400, 0.5), ("buckets", 40, 1.5),
                                            ("canonical", 900, 0.05), ("buckets", 4000, 0.2),
                                            ("canonical", 90, 0.4))]


def abstraction_problems(fig, entries: list[dict]) -> list[str]:
  problems = []
  ax = fig.axes[0]
  if (ax.get_xscale(), ax.get_yscale(), ax.get_ylabel()) != ("log", "log",
                                                             "exploitability in the real game"):
    problems.append(f"axes {ax.get_xscale()}, {ax.get_yscale()}, {ax.get_ylabel()!r}")
  families = list(dict.fromkeys(e["family"] for e in entries))
  if [line.get_label() for line in ax.lines] != families:
    problems.append(f"lines {[line.get_label() for line in ax.lines]}, not {families}")
  for line, family in zip(ax.lines, families):
    members = sorted((e for e in entries if e["family"] == family),
                     key=lambda e: e["abstract_infosets"])
    if not close(line.get_xydata(), [(e["abstract_infosets"], e["exploitability"])
                                     for e in members]):
      problems.append(f"{family}: points {line.get_xydata().tolist()}")
  return problems


# Two algorithms' checkpoints; the CPU seconds are not the iterations, and one is below the
# 1e-4 s floor that keeps a log axis finite.
CONVERGENCE = [
    {"algorithm": "cfr", "points": [
        {"iterations": 1, "cpu_seconds": 0.0, "nash_conv": 3.0},
        {"iterations": 10, "cpu_seconds": 0.02, "nash_conv": 1.0},
        {"iterations": 100, "cpu_seconds": 0.3, "nash_conv": 0.1}]},
    {"algorithm": "cfr_plus", "points": [
        {"iterations": 1, "cpu_seconds": 0.001, "nash_conv": 2.0},
        {"iterations": 10, "cpu_seconds": 0.05, "nash_conv": 0.4}]},
]


def convergence_problems(fig, entries: list[dict]) -> list[str]:
  problems = []
  by_iterations, by_seconds = fig.axes[:2]
  if (by_iterations.get_xlabel(), by_seconds.get_xlabel(), by_iterations.get_ylabel()) != (
      "iterations", "CPU seconds of solving", "NashConv"):
    problems.append(f"axes labelled {by_iterations.get_xlabel()!r},"
                    f" {by_seconds.get_xlabel()!r}, {by_iterations.get_ylabel()!r}")
  for ax, x_of in ((by_iterations, lambda p: p["iterations"]),
                   (by_seconds, lambda p: max(p["cpu_seconds"], 1e-4))):
    if [line.get_label() for line in ax.lines] != [e["algorithm"] for e in entries]:
      problems.append(f"{ax.get_xlabel()}: lines {[line.get_label() for line in ax.lines]}")
    for line, entry in zip(ax.lines, entries):
      if not close(line.get_xydata(), [(x_of(p), p["nash_conv"]) for p in entry["points"]]):
        problems.append(f"{ax.get_xlabel()}, {entry['algorithm']}: points"
                        f" {line.get_xydata().tolist()}")
  return problems


def solving_problems(drawn: dict, approximate=approximate_kind, abstraction=abstraction_kind,
                     convergence=convergence_kind) -> list[str]:
  """Draws the three solving plots of the hand-made results with the given modules (or
  namespaces with a bug planted) and returns what the checks find wrong."""
  def function(plots, name):
    return (plots if isinstance(plots, dict) else vars(plots))[name]
  function(approximate, "plot_bounds")(pathlib.Path("bounds.png"), "bounds", BOUNDS, "competitor")
  function(abstraction, "_plot")(pathlib.Path("abstraction.png"), "g", ABSTRACTIONS)
  function(convergence, "_plot")(pathlib.Path("convergence.png"), "g", CONVERGENCE)
  return (bounds_problems(drawn["bounds.png"], BOUNDS)
          + abstraction_problems(drawn["abstraction.png"], ABSTRACTIONS)
          + convergence_problems(drawn["convergence.png"], CONVERGENCE))


def test_the_solving_plots_show_the_results(drawn):
  assert solving_problems(drawn) == []


# ----- planted bugs: (module, the code as it is, the code with the bug)

PLANTED = {
    "scores read from the wrong seats": (
        summary, 'zip(record["seats"], record["scores"])',
        'zip(record["seats"], record["scores"][::-1])'),
    "boxes in reverse order": (
        summary, "ax.boxplot([scores[name] for name in names]",
        "ax.boxplot([scores[name] for name in names[::-1]]"),
    "score ticks sorted by name": (
        summary, "_set_xticks(ax, positions, names)", "_set_xticks(ax, positions, sorted(names))"),
    "score axes swapped": (
        summary, 'xlabel="competitor", ylabel="final score (points)"',
        'xlabel="final score (points)", ylabel="competitor"'),
    "win matrix transposed": (
        summary, "rates[names.index(row), names.index(column)]",
        "rates[names.index(column), names.index(row)]"),
    "win matrix texts transposed": (summary, "ax.text(j, i,", "ax.text(i, j,"),
    "significance marks inverted": (
        summary, '("*" if pairing.significant else "")',
        '("*" if not pairing.significant else "")'),
    "ratings' bars one sigma wide": (
        summary, "yerr=[RATING_ERROR_SIGMAS * result.ratings[n].sigma",
        "yerr=[result.ratings[n].sigma"),
    "every ratings series the first group's": (
        summary, "ax.errorbar(xs, [result.ratings[n].mu",
        "ax.errorbar(xs, [next(iter(results.values())).ratings[n].mu"),
    "bound intervals upside down": (
        approximate_kind, """error = np.array([[e["bound"].value - e["bound"].low for e in mine],
                      [e["bound"].high - e["bound"].value for e in mine]])""",
        """error = np.array([[e["bound"].high - e["bound"].value for e in mine],
                      [e["bound"].value - e["bound"].low for e in mine]])"""),
    "bounds in the order listed": (
        approximate_kind, 'key=lambda e: e["cpu_seconds_per_game"])',
        'key=lambda e: entries.index(e))'),
    "points named by competitor": (
        approximate_kind, 'ax.annotate(e["responder"]', 'ax.annotate(e[series]'),
    "NashConv drawn for exploitability": (
        abstraction_kind, '[figures.measure(e)[1] for e in members]',
        '[e["nash_conv"] for e in members]'),
    "CPU axis drawn against iterations": (
        convergence_kind, 'axes[1].plot([max(p["cpu_seconds"], 1e-4) for p in entry["points"]]',
        'axes[1].plot([p["iterations"] for p in entry["points"]]'),
}


@pytest.mark.parametrize("bug", PLANTED)
def test_every_planted_plot_bug_is_caught(bug, drawn):
  module, old, new = PLANTED[bug]
  bugged = planted(module, old, new)
  if module is summary:
    assert tournament_problems(drawn, bugged) != []
  else:
    assert solving_problems(drawn, **{module.__name__.rsplit(".", 1)[1]: bugged}) != []
