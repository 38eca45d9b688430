"""The tournament report's plots look as documented: read back from the matplotlib figures.

`test_report_plots.py` checks that the plots show the right numbers; this file checks what a
reader sees besides: figure sizes that grow with the competitors and panels, panels three to a row,
titles and labels word for word, slanted tick labels for long names, the boxes' geometry, the
colours, the legends, the colour bar, the annotation colours and the saving resolution. Every
expected value is worked out here from the documented layout and the records, not read from the
plotting code.
"""

from __future__ import annotations

import math
import pathlib

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.font_manager import FontProperties

from experiments import run_folder
from experiments import stats
from experiments.tournament import summary
from test_report_plots import ORDER, hand_made_records

SMALL_POINTS = FontProperties(size="small").get_size_in_points()
GAMES = ("python_sushi_go(players=2)", "python_sushi_go(players=2,utility=margin)",
         "python_sushi_draft(players=2)")


@pytest.fixture(name="saved")
def saved_figures(monkeypatch) -> dict[str, tuple[object, pathlib.Path, int]]:
  """The figures the plotting code saves, by file name, with the path and resolution asked for."""
  figures = {}
  monkeypatch.setattr(run_folder, "save_figure", lambda fig, path, dpi: figures.__setitem__(
      pathlib.Path(path).name, (fig, pathlib.Path(path), dpi)))
  return figures


def draw(saved: dict, records: list[dict], order: list[str]) -> dict[str, object]:
  """The three plots of `records` in the competitor order `order`, saved under `plots/`."""
  groups = stats.groups(records)
  results = {label: stats.group_stats(group) for label, group in groups.items()}
  folder = pathlib.Path("plots")
  summary.plot_score_distribution(folder / summary.SCORE_PLOT, groups, order)
  summary.plot_win_matrix(folder / summary.WIN_PLOT, results, order)
  summary.plot_ratings(folder / summary.RATINGS_PLOT, results, order)
  for name, (_, path, dpi) in saved.items():
    assert (path, dpi) == (folder / name, 120), f"{name} saved as {path} at {dpi} dpi"
  return {name: fig for name, (fig, _, _) in saved.items()}


def game(index: int, game_string: str, seats: list[str], scores: list[int]) -> dict:
  best = max(scores)
  return {"index": index, "game": game_string, "seats": seats, "scores": scores,
          "winners": [seat for seat, score in enumerate(scores) if score == best]}


def three_games_records(names: list[str]) -> list[dict]:
  """Two-player games of three game strings (so four panels with the overall one). In the first,
  names[0] beats names[1] once in five (a share of exactly 0.2), names[2] beats names[1] three
  times out of three, and names[0] and names[2] never meet; in the others everyone meets."""
  first, second, third = names
  records = []
  for first_wins in [True, False, False, False, False]:
    records.append(game(len(records), GAMES[0], [first, second], [30, 20] if first_wins
                        else [20, 30]))
  for margin in range(3):
    records.append(game(len(records), GAMES[0], [third, second], [40 + margin, 25]))
  for game_string in GAMES[1:]:
    for pair, scores in (((first, second), [31, 30]), ((second, third), [22, 35]),
                         ((third, first), [28, 28]), ((first, third), [33, 21])):
      records.append(game(len(records), game_string, list(pair), scores))
  return records


def is_color(color, name: str) -> bool:
  return np.allclose(to_rgba(color)[:3], to_rgba(name)[:3])


# ----- figure sizes, panels and resolution


@pytest.mark.parametrize("count", [2, 3, 5])
def test_figures_grow_with_the_competitors(saved, count):
  """Score panels are 1.1 inches per competitor plus 1.5 wide, at least 4.5, by 4.5; the win
  matrix 0.9 per competitor plus 1.5 square, at least 3.5, plus 1.2 inches of colour bar; the
  ratings 1.2 per competitor plus 3, at least 6, by 5."""
  names = [f"c{k}" for k in range(count)]
  records = [game(index, GAMES[0], [names[index % count], names[(index + 1) % count]],
                  [20 + index, 30]) for index in range(2 * count)]
  figures = draw(saved, records, names)
  score_width = {2: 4.5, 3: 4.8, 5: 7.0}[count]
  square = {2: 3.5, 3: 4.2, 5: 6.0}[count]
  ratings_width = {2: 6.0, 3: 6.6, 5: 9.0}[count]
  assert np.allclose(figures[summary.SCORE_PLOT].get_size_inches(), (score_width, 4.5))
  assert np.allclose(figures[summary.WIN_PLOT].get_size_inches(), (square + 1.2, square))
  assert np.allclose(figures[summary.RATINGS_PLOT].get_size_inches(), (ratings_width, 5))
  for fig in figures.values():
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"


def test_panels_stand_three_to_a_row(saved):
  """Four groups: two rows of three panels, the last two left empty and hidden; one panel per
  group in the groups' order."""
  figures = draw(saved, three_games_records(["eightchr", "b", "c"]), ["eightchr", "b", "c"])
  labels = [*GAMES, stats.OVERALL]
  score, win = figures[summary.SCORE_PLOT], figures[summary.WIN_PLOT]
  assert np.allclose(score.get_size_inches(), (3 * 4.8, 2 * 4.5))
  assert np.allclose(win.get_size_inches(), (3 * 4.2 + 1.2, 2 * 4.2))
  for fig in (score, win):
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(panels) == 6
    assert [ax.get_visible() for ax in panels] == [True] * 4 + [False] * 2
    assert [ax.get_title() for ax in panels[:4]] == labels
    positions = [ax.get_subplotspec().get_geometry()[:2] for ax in panels]
    assert positions == [(2, 3)] * 6


def test_two_groups_stand_side_by_side(saved):
  records = [game(index, GAMES[index % 2], ["a", "b"], [20 + index, 25]) for index in range(6)]
  figures = draw(saved, records, ["a", "b"])
  assert np.allclose(figures[summary.SCORE_PLOT].get_size_inches(), (3 * 4.5, 4.5))
  assert np.allclose(figures[summary.WIN_PLOT].get_size_inches(), (3 * 3.5 + 1.2, 3.5))
  for name in (summary.SCORE_PLOT, summary.WIN_PLOT):
    panels = [ax for ax in figures[name].axes if ax.get_label() != "<colorbar>"]
    assert [ax.get_subplotspec().get_geometry()[:2] for ax in panels] == [(1, 3)] * 3


# ----- tick labels


@pytest.mark.parametrize("longest, slanted", [("eightchr", False), ("ninechars", True)])
def test_tick_labels_slant_only_for_names_longer_than_eight(saved, longest, slanted):
  """Names of at most 8 characters stand upright and centred; a longer one slants every label
  of the axis by 30 degrees, anchored at its right end under the tick."""
  names = [longest, "b", "c"]
  figures = draw(saved, three_games_records(names), names)
  axes = [figures[summary.SCORE_PLOT].axes[0], figures[summary.WIN_PLOT].axes[0],
          figures[summary.RATINGS_PLOT].axes[0]]
  for ax in axes:
    for label in ax.get_xticklabels():
      if slanted:
        assert (label.get_rotation(), label.get_ha(), label.get_rotation_mode()) == (
            30, "right", "anchor"), label.get_text()
      else:
        assert (label.get_rotation(), label.get_ha(), label.get_rotation_mode()) == (
            0, "center", "default"), label.get_text()
  for label in figures[summary.WIN_PLOT].axes[0].get_yticklabels():
    assert label.get_rotation() == 0


# ----- the score distribution


def test_score_boxes_show_quartiles_range_median_and_mean(saved):
  """Per competitor: a box 0.5 wide from the first to the third quartile, whiskers to the lowest
  and highest score with caps 0.25 wide, an orange median, a green diamond at the mean, no
  outliers drawn apart; the seats as blue dots (size 8, alpha 0.35, above the boxes) within 0.18
  of the tick; a horizontal grid."""
  records = hand_made_records()
  figures = draw(saved, records, ORDER)
  groups = stats.groups(records)
  fig = figures[summary.SCORE_PLOT]
  assert fig.get_suptitle() == "Final scores per competitor"
  for ax, group in zip(fig.axes, groups.values()):
    scores = {}
    for record in group:
      for name, score in zip(record["seats"], record["scores"]):
        scores.setdefault(name, []).append(score)
    names = [name for name in ORDER if name in scores]
    assert len(ax.lines) == 7 * len(names)  # 2 whiskers, 2 caps, box, median, mean; no outliers
    assert len(ax.collections) == len(names)
    for position, name, dots in zip(range(1, len(names) + 1), names, ax.collections):
      values = np.array(scores[name])
      low, q1, q3, high = np.percentile(values, [0, 25, 75, 100])
      mine = [line for line in ax.lines if abs(np.mean(line.get_xdata()) - position) < 0.3]
      box = [line for line in mine if len(line.get_xdata()) == 5]
      assert len(box) == 1
      assert np.isclose(min(box[0].get_xdata()), position - 0.25)
      assert np.isclose(max(box[0].get_xdata()), position + 0.25)
      assert np.allclose(sorted(set(box[0].get_ydata())), [q1, q3])
      flat = [line for line in mine if len(line.get_xdata()) == 2
              and line.get_ydata()[0] == line.get_ydata()[1]]
      caps = [line for line in flat if not is_color(line.get_color(), "tab:orange")]
      assert sorted(cap.get_ydata()[0] for cap in caps) == [low, high]
      for cap in caps:
        assert np.isclose(np.ptp(cap.get_xdata()), 0.25)
      whiskers = sorted(tuple(sorted(line.get_ydata())) for line in mine
                        if len(line.get_xdata()) == 2 and line.get_xdata()[0] == position
                        and line.get_ydata()[0] != line.get_ydata()[1])
      assert np.allclose(whiskers, [(low, q1), (q3, high)])
      mean = [line for line in mine if line.get_marker() == "D"]
      assert len(mean) == 1 and np.allclose(mean[0].get_ydata(), [values.mean()])
      assert is_color(mean[0].get_markerfacecolor(), "tab:green")
      assert is_color(mean[0].get_markeredgecolor(), "tab:green")
      assert len([line for line in flat if is_color(line.get_color(), "tab:orange")]) == 1
      offsets = dots.get_offsets()[:, 0] - position
      assert np.all(np.abs(offsets) <= 0.18) and np.ptp(offsets) > 0.18
      assert list(dots.get_sizes()) == [8] and dots.get_alpha() == 0.35
      assert dots.get_zorder() == 3 and is_color(dots.get_facecolor()[0], "tab:blue")
    assert_horizontal_grid(ax)


def assert_horizontal_grid(ax) -> None:
  assert all(line.get_visible() for line in ax.yaxis.get_gridlines())
  assert not any(line.get_visible() for line in ax.xaxis.get_gridlines())
  assert {line.get_alpha() for line in ax.yaxis.get_gridlines()} == {0.3}


def test_the_jitter_is_the_same_on_every_drawing(saved):
  """The dots' horizontal offsets come from numpy's default_rng(0), drawn afresh in each panel
  in the competitors' order, so a report is redrawn identically."""
  records = hand_made_records()
  fig = draw(saved, records, ORDER)[summary.SCORE_PLOT]
  for ax in fig.axes:
    rng = np.random.default_rng(0)
    for position, dots in enumerate(ax.collections, start=1):
      count = len(dots.get_offsets())
      assert np.allclose(dots.get_offsets()[:, 0], position + rng.uniform(-0.18, 0.18, count))


def test_score_legend_names_the_marks(saved):
  fig = draw(saved, hand_made_records(), ORDER)[summary.SCORE_PLOT]
  (legend,) = fig.legends
  assert [text.get_text() for text in legend.get_texts()] == [
      "one seat", "median (box: quartiles, whiskers: range)", "mean"]
  dot, median, mean = legend.legend_handles
  assert (dot.get_marker(), dot.get_linestyle(), dot.get_alpha()) == ("o", "None", 0.5)
  assert is_color(dot.get_color(), "tab:blue")
  assert (median.get_marker(), median.get_linestyle()) == ("None", "-")
  assert is_color(median.get_color(), "tab:orange")
  assert (mean.get_marker(), mean.get_linestyle()) == ("D", "None")
  assert is_color(mean.get_color(), "tab:green")
  assert_legend_below(legend, columns=3)


def assert_legend_below(legend, columns: int) -> None:
  """A small-print legend centred under the panels, in `columns` columns."""
  assert legend._loc == 8 and legend._outside_loc == "lower"  # pylint: disable=protected-access
  assert legend._ncols == columns  # pylint: disable=protected-access
  assert {text.get_fontsize() for text in legend.get_texts()} == {SMALL_POINTS}


# ----- the win matrix


def test_win_matrix_colours_and_annotations(saved):
  """Red to blue from 0 to 1 (RdBu), a light grey diagonal and unmet pairs; the annotations
  centred, white where the colour is dark (more than 0.3 from a half), "never met" where a pair
  never sat together."""
  names = ["a", "b", "c"]
  records = three_games_records(names)
  fig = draw(saved, records, names)[summary.WIN_PLOT]
  panels = [ax for ax in fig.axes if ax.images]
  first = panels[0]
  image = first.images[0]
  for value in (0.0, 0.2, 0.5, 1.0):
    assert np.allclose(image.get_cmap()(value), matplotlib.colormaps["RdBu"](value))
  assert np.allclose(image.get_cmap().get_bad(), to_rgba("0.9"))
  texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in first.texts}
  shares = {(0, 1): 0.2, (1, 0): 0.8, (1, 2): 0.0, (2, 1): 1.0}
  assert texts[0, 2].get_text() == texts[2, 0].get_text() == "never\nmet"
  for (row, column), text in texts.items():
    assert (text.get_ha(), text.get_va()) == ("center", "center")
    share = shares.get((row, column), math.nan)
    dark = abs(share - 0.5) > 0.3
    assert is_color(text.get_color(), "white" if dark else "black"), (row, column)
  assert is_color(texts[0, 1].get_color(), "black")  # 0.2: exactly 0.3 from a half
  assert is_color(texts[1, 2].get_color(), "white")
  assert is_color(texts[2, 1].get_color(), "white")
  assert texts[0, 1].get_text() == "0.20"


def test_win_matrix_titles_and_colour_bar(saved):
  """One colour bar for every panel, 0.9 of their height, labelled; the figure's title and its
  footnote on significance in small print."""
  names = ["a", "b", "c"]
  fig = draw(saved, three_games_records(names), names)[summary.WIN_PLOT]
  assert fig.get_suptitle() == "Head-to-head win rates (ties count 1/2)"
  footnote = fig._supxlabel  # pylint: disable=protected-access
  assert footnote.get_text() == ("* significant at 0.05 after Holm-Bonferroni (two-sided sign"
                                 " test)")
  assert footnote.get_fontsize() == SMALL_POINTS
  bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
  assert len(bars) == 1
  assert bars[0].get_ylabel() == "share of games won by the row"
  fig.draw_without_rendering()
  panel_height = max(ax.get_position().y1 for ax in fig.axes if ax.images) - min(
      ax.get_position().y0 for ax in fig.axes if ax.images)
  assert bars[0].get_position().height == pytest.approx(0.9 * panel_height, rel=0.02)


# ----- the ratings


@pytest.mark.parametrize("games, columns", [(2, 3), (3, 1)])
def test_ratings_series_spread_over_the_tick(saved, games, columns):
  """m series share 0.6 of a tick, centred: series k at offset (k - (m - 1) / 2) * 0.6 / m; more
  than three series list their legend in one column, fewer in one row."""
  names = ["a", "b", "c"]
  records = [r for r in three_games_records(names) if r["game"] in GAMES[:games]]
  fig = draw(saved, records, names)[summary.RATINGS_PLOT]
  ax = fig.axes[0]
  series = len(ax.containers)
  assert series == games + 1
  for k, container in enumerate(ax.containers):
    data = container.lines[0]
    ticks = [names.index(label.get_text()) for label in ax.get_xticklabels()]
    assert ticks == [0, 1, 2]
    offsets = np.asarray(data.get_xdata(), float) - np.round(data.get_xdata())
    assert np.allclose(offsets, (k - (series - 1) / 2) * 0.6 / series)
  (legend,) = fig.legends
  assert legend.get_title().get_text() == "game"
  assert_legend_below(legend, columns)


def test_ratings_axes_and_marks(saved):
  fig = draw(saved, hand_made_records(), ORDER)[summary.RATINGS_PLOT]
  ax = fig.axes[0]
  assert ax.get_title() == "OpenSkill Plackett-Luce ratings (error bars ±2σ)"
  assert (ax.get_xlabel(), ax.get_ylabel()) == ("competitor", "rating μ")
  for container in ax.containers:
    data, caps, _ = container.lines
    assert (data.get_marker(), data.get_linestyle()) == ("o", "None")
    assert len(caps) == 2 and {cap.get_markersize() for cap in caps} == {8}  # capsize 4
  assert_horizontal_grid(ax)


def test_the_colours_hold_under_another_matplotlib_style(saved):
  """The report names its colours rather than taking the style's: under settings with other
  default colours (a user's matplotlibrc, say) the medians, dots and legend marks keep the colours
  the legend names, and the colour bar keeps the matrix's colour map and range."""
  style = {"lines.color": "red", "boxplot.medianprops.color": "purple",
           "axes.prop_cycle": matplotlib.cycler(color=["black", "yellow", "cyan"]),
           "image.cmap": "viridis"}
  with matplotlib.rc_context(style):
    names = ["a", "b", "c"]
    figures = draw(saved, three_games_records(names), names)
    score = figures[summary.SCORE_PLOT]
    for ax in score.axes[:4]:
      medians = [line for line in ax.lines if len(line.get_xdata()) == 2
                 and line.get_ydata()[0] == line.get_ydata()[1]
                 and np.ptp(line.get_xdata()) == pytest.approx(0.5)]
      assert medians and all(is_color(line.get_color(), "tab:orange") for line in medians)
      assert all(is_color(dots.get_facecolor()[0], "tab:blue") for dots in ax.collections)
    dot, median, mean = score.legends[0].legend_handles
    assert is_color(dot.get_color(), "tab:blue") and is_color(median.get_color(), "tab:orange")
    assert is_color(mean.get_color(), "tab:green")
    win = figures[summary.WIN_PLOT]
    (bar,) = [ax for ax in win.axes if ax.get_label() == "<colorbar>"]
    colorbar = bar._colorbar  # pylint: disable=protected-access
    assert (colorbar.norm.vmin, colorbar.norm.vmax) == (0, 1)
    for value in (0.0, 0.3, 1.0):
      assert np.allclose(colorbar.cmap(value), matplotlib.colormaps["RdBu"](value))
