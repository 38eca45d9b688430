"""The generated blocks of README.md and docs/: every results table and figure, from stored runs.

    python -m experiments.docs            # rewrite every generated block in place
    python -m experiments.docs --check    # rewrite nothing; exit 1 naming the pages that differ

A page holds hand-written prose and blocks marked

    <!-- generated: NAME -->
    ...
    <!-- end generated -->

whose text is `render(NAME)`: a function of BLOCKS, or for `run:FOLDER` the tables of one stored
run, reading only the files under experiments/results/ that `sources(NAME)` names. No game is
played. tests/test_docs.py fails when a page's blocks differ from what the stored runs give.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import lzma
import os
import pathlib
import re
import sys
import textwrap
from collections.abc import Callable

from experiments import stats

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "experiments" / "results"
PAGES = ("README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")))

BEGIN = re.compile(r"<!-- generated: (?P<name>[^ ]+) -->\n")
END = "<!-- end generated -->"


# --- reading stored runs ------------------------------------------------------------------------

def runs(results: pathlib.Path = RESULTS) -> list[str]:
  """Every stored run: a folder of experiments/results/ (or a folder in one) holding a report
  (summary.md), by its path there."""
  return sorted(p.parent.relative_to(results).as_posix()
                for pattern in ("*/summary.md", "*/*/summary.md") for p in results.glob(pattern))


def read_csv(path: pathlib.Path) -> list[dict[str, str]]:
  with path.open(encoding="utf-8", newline="") as f:
    return list(csv.DictReader(f))


def config_path(results: pathlib.Path, run: str) -> pathlib.Path:
  """The run's stored config, or for a run stored with its report alone the config it names."""
  stored = results / run / "config.toml"
  named = ROOT / "experiments" / "configs" / f"{run.replace('-', '_')}.toml"
  return stored if stored.exists() else named


def description(results: pathlib.Path, run: str) -> str:
  """The first sentence of the comment that opens the run's config (the stored one, or where it
  has none the config of experiments/configs/ it was run from), as one line."""
  text = _first_sentence(config_path(results, run))
  named = ROOT / "experiments" / "configs" / f"{run.replace('-', '_')}.toml"
  return text or (_first_sentence(named) if named.exists() else "")


def _first_sentence(path: pathlib.Path) -> str:
  lines = []
  for line in path.read_text(encoding="utf-8").splitlines():
    if not line.startswith("#"):
      break
    text = line.lstrip("#").strip()
    if not text or text.startswith(("sushigo ", "nice ", "(")):
      break
    lines.append(text)
  text, depth = " ".join(lines), 0
  for i, char in enumerate(text):
    depth += {"(": 1, ")": -1}.get(char, 0)
    if depth == 0 and char in ".:" and text[i + 1:i + 2] in (" ", ""):
      return text[:i] + "."
  return text + "." if text and not text.endswith(".") else text


_FOOTNOTE_STARTS = ("A competitor's seats", "Luck-corrected:", "Keys: ")


def run_tables(results: pathlib.Path, run: str, level: int = 4) -> str:
  """A stored run's report (summary.md) under a page's heading: its title dropped, its headings
  moved down to `level`, its standard footnotes (stated once on the results pages) dropped and its
  plots linked from docs/."""
  text = (results / run / "summary.md").read_text(encoding="utf-8")
  paragraphs = text.strip("\n").split("\n\n")
  out, skipping = [], False
  for paragraph in paragraphs:
    if paragraph.startswith("## "):
      skipping = paragraph == "## all games"     # the sum over player counts: not shown
    if skipping or paragraph.startswith("# ") or paragraph.startswith(_FOOTNOTE_STARTS):
      continue
    if paragraph.startswith("## "):
      paragraph = "#" * level + paragraph[2:]
    paragraph = re.sub(r"\]\(plots/", f"](../experiments/results/{run}/plots/", paragraph)
    out.append(paragraph)
  return "\n\n".join(out) + "\n"


def table(markdown: str) -> list[dict[str, str]]:
  """The rows of the first Markdown table in `markdown`, keyed by its header."""
  lines = []
  for line in markdown.strip().splitlines():
    if line.startswith("|"):
      lines.append(line)
    elif lines:
      break
  header = [c.strip() for c in lines[0].strip("|").split("|")]
  return [dict(zip(header, (c.strip() for c in l.strip("|").split("|")))) for l in lines[2:]]


def head_to_head(results: pathlib.Path, run: str, game: str, row: str, column: str) -> str:
  """The head-to-head cell (share of games `row` outscored `column`, p-value) of a stored report."""
  section = _game_section(results, run, game)
  for cells in table(section.split("Head to head (row vs column):", 1)[1]):
    if cells["row \\ column"] == row:
      return cells[column]
  raise KeyError(f"{run}: no head-to-head row {row!r} in {game}")


def _game_section(results: pathlib.Path, run: str, game: str) -> str:
  text = (results / run / "summary.md").read_text(encoding="utf-8")
  return text.split(f"## {game}\n", 1)[1].split("\n## ", 1)[0]


def competitor(results: pathlib.Path, run: str, game: str, name: str) -> dict[str, str]:
  """A competitor's row of a stored tournament report's table for `game` (cells as printed)."""
  for row in table(_game_section(results, run, game)):
    if row["competitor"] == name:
      return row
  raise KeyError(f"{run}: no competitor {name!r} in {game}")


def interval(value: str, low: str, high: str, digits: int = 2, sign: bool = False) -> str:
  form = f"{{:{'+' if sign else ''}.{digits}f}}"
  return f"{form.format(float(value))} [{float(low):.{digits}f}, {float(high):.{digits}f}]"


def signed(cell: str) -> str:
  """A printed figure with its interval, `3.12 [2.45, 3.79]`, with the figure's sign shown."""
  return cell if cell.startswith("-") else "+" + cell


def solving_rows(results: pathlib.Path, run: str) -> list[dict[str, str]]:
  return read_csv(results / run / "results.csv")


def stored_records(results: pathlib.Path, run: str) -> list[dict]:
  """A tournament run's game records: records.jsonl, or as large ones are stored,
  records.jsonl.xz."""
  plain, packed = results / run / "records.jsonl", results / run / "records.jsonl.xz"
  text = plain.read_text(encoding="utf-8") if plain.is_file() else \
      lzma.decompress(packed.read_bytes()).decode("utf-8")
  return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- the blocks ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Block:
  """A generated block: `render(results)` gives its Markdown, from the stored files `sources`."""
  sources: tuple[str, ...]
  render: Callable[[pathlib.Path], str]


TWO = "python_sushi_go(players=2)"
RUN_BOUND = "exploitability-full-blueprint-mean-paired-80"   # the heuristic's tightest bound
FOUR = "python_sushi_go(players=4)"


def _quickstart_output(results: pathlib.Path, game: str = TWO) -> str:
  """One player count's section of the quickstart's stored summary, as the command prints it."""
  section = _game_section(results, "quickstart", game).strip()
  return f"```\n## {game}\n\n{section}\n```\n"


def _share(results, run, game, row, column, games_of=None) -> str:
  cell = head_to_head(results, run, game, row, column)
  games = competitor(results, run, game, games_of or column)["games"]
  return f"{cell.split(' ')[0]} of {games} games"


def _bound(results: pathlib.Path, run: str, competitor_name: str, responder: str) -> str:
  """A lower bound with its interval, as a stored approximate-exploitability report prints it."""
  for row in table((results / run / "summary.md").read_text(encoding="utf-8")):
    if row["competitor"] == competitor_name and row["responder"] == responder:
      return row["lower bound [95% CI]"]
  raise KeyError(f"{run}: no bound for {competitor_name!r} by {responder!r}")


def _exact(results: pathlib.Path, run: str, game: str, name: str, field: str) -> str:
  for row in solving_rows(results, run):
    if row["game"] == game and row["competitor"] == name:
      return f"{float(row[field]):.2f}"
  raise KeyError(f"{run}: no {name!r} on {game}")


def _abstraction(results: pathlib.Path, run: str, abstraction: str) -> tuple[str, str]:
  for row in solving_rows(results, run):
    if row["abstraction"] == abstraction:
      return f"{int(row['abstract_infosets']):,}", f"{float(row['exploitability']):.2g}"
  raise KeyError(f"{run}: no abstraction {abstraction!r}")


def _capabilities(results: pathlib.Path) -> str:
  h = competitor(results, "quickstart", TWO, "heuristic")
  so = competitor(results, "search-strength", TWO, "so_margin")
  keys, level = _abstraction(results, "abstraction-curve-large", "canonical")
  tiny = {name: _exact(results, "exploitability-reduced", "tiny", name, "exploitability")
          for name in ("heuristic", "random")}
  rows = [
      ("Baseline bots: `random`, `greedy`, `heuristic`", "quickstart",
       f"the heuristic's win rate against random and greedy: {h['win rate [Wilson 95%]']};"
       f" mean margin {signed(h['mean margin [95% CI]'])}"),
      ("Search at 10 ms a move: `so_ismcts`, `mo_ismcts`, `pimc`", "search-strength",
       # the heuristic plays only against so_margin: its games are the pair's
       f"SO-ISMCTS outscores the heuristic in"
       f" {_share(results, 'search-strength', TWO, 'so_margin', 'heuristic')};"
       f" margin {signed(so['mean margin [95% CI]'])}"),
      ("Subgame solving at 100 ms a move: `subgame`", "subgame-vs-heuristic",
       "with its defaults, outscores the heuristic in"
       f" {_share(results, 'subgame-vs-heuristic', TWO, 'subgame', 'heuristic')}"),
      ("Exact exploitability of a bot on a reduced game", "exploitability-reduced",
       f"the heuristic on `tiny`: {tiny['heuristic']} points of margin (random: {tiny['random']})"),
      ("Lower bounds on full-game exploitability", RUN_BOUND,
       f"the heuristic: at least {_bound(results, RUN_BOUND, 'heuristic', 'ismcts:10000')}"
       " points of margin a game"),
      ("CFR on abstractions, judged in the real game", "abstraction-curve-large",
       f"lossless keys on `large` ({keys} keys): exploitability {level}"),
  ]
  lines = ["| what | stored run | headline figure (2 players) |", "|---|---|---|"]
  lines += [f"| {what} | [`{run}`](docs/{results_page(results, run)}#{anchor(run)}) | {figure} |"
            for what, run, figure in rows]
  return "\n".join(lines) + "\n"


def negated(cell: str) -> str:
  """`-1.26 [-2.90, 0.38]` as the other side of a two-player game sees it: `+1.26 [-0.38, 2.90]`."""
  value, low, high = (float(x) for x in re.findall(r"-?\d+\.\d+", cell))
  digits = len(cell.split(" ")[0].split(".")[1])
  return interval(str(-value), str(-high), str(-low), digits=digits, sign=True)


def _against_each(results: pathlib.Path, runs_: tuple[str, ...], anchor: str) -> str:
  """The anchor's games against each competitor of two-player anchor runs (each competitor plays
  the anchor only, so its games are the pair's and the anchor's margin is its margin negated)."""
  lines = [f"| run | {anchor} against | games | share outscored, ties half (sign test) |"
           f" {anchor}'s mean margin [95% CI] |", "|---|---|---:|---|---|"]
  for run in runs_:
    for row in table(_game_section(results, run, TWO)):
      if row["competitor"] != anchor:
        lines.append(f"| `{run}` | {row['competitor']} | {row['games']} |"
                     f" {head_to_head(results, run, TWO, anchor, row['competitor'])} |"
                     f" {negated(row['mean margin [95% CI]'])} |")
  return "\n".join(lines) + "\n"


def _four_players(results: pathlib.Path) -> str:
  """The subgame bot and the blueprint alone, each in one seat against three heuristics."""
  lines = ["| against three heuristics (four players) | run | games | mean margin [95% CI] |"
           " win rate [Wilson 95%] | outscores a heuristic seat (sign test) |",
           "|---|---|---:|---|---|---|"]
  for run, name in (("subgame-4p-head-to-head", "subgame"),
                    ("blueprint-rank-4p-head-to-head", "blueprint (4 players), purified"),
                    ("blueprint-rank-4p-head-to-head", "blueprint (4 players)")):
    row = competitor(results, run, FOUR, name)
    share = head_to_head(results, run, FOUR, name, "heuristic")
    lines.append(f"| {name} | `{run}` | {row['games']} | {signed(row['mean margin [95% CI]'])} |"
                 f" {row['win rate [Wilson 95%]']} | {share} |")
  return "\n".join(lines) + "\n"


# The objective runs (experiments/configs/objective_*.toml) by bot, in the order shown; a run not
# stored yet is left out.
OBJECTIVE_RUNS = {"subgame": "objective-subgame", "pimc": "objective-pimc",
                  "so_ismcts": "objective-so-ismcts"}


def _objective(results: pathlib.Path) -> str:
  """Each headline bot playing for the margin and for the win: against the heuristic, and the win
  objective against the margin one, pair by pair from the stored runs' records (a competitor of a
  three-way round robin plays two opponents; its report's row mixes them)."""
  # Imported here: the statistics load scipy, which the other blocks do not need.
  from experiments import stats  # pylint: disable=C0415
  lines = ["| bot | playing for | against | games | win share [Wilson 95%] |"
           " mean margin [95% CI] | outscores it (sign test) |", "|---|---|---|---:|---|---|---|"]
  for bot, run in OBJECTIVE_RUNS.items():
    if not (results / run / "summary.md").is_file():
      continue
    records = stored_records(results, run)
    for objective, opponent in (("margin", "heuristic"), ("win", "heuristic"),
                                ("win", f"{bot} (margin)")):
      name = f"{bot} ({objective})"
      pair = [r for r in records if set(r["seats"]) == {name, opponent}]
      summary = stats.summarize(pair)[name]
      outscored = stats.head_to_head(pair)[(name, opponent)]
      share = (outscored.wins + outscored.ties / 2) / outscored.games
      lines.append(
          f"| {bot} | {objective} | {opponent} | {summary.games} |"
          f" {interval(summary.win_rate.value, summary.win_rate.low, summary.win_rate.high, 3)} |"
          f" {interval(summary.margin.value, summary.margin.low, summary.margin.high, sign=True)}"
          f" | {share:.2f} (p={outscored.p_value:.3f}) |")
  return "\n".join(lines) + "\n"


# The head-to-heads of the blueprints under the subgame bot playing for the win, at two and at four
# players (experiments/configs/objective_win_blueprint*.toml): their competitors, named after their
# blueprint.
WIN_BLUEPRINT_RUN = "objective-win-blueprint"
WIN_BLUEPRINT_RUN_4P = "objective-win-blueprint-4p"
WIN_BLUEPRINTS = ("win blueprint", "margin blueprint")


def _win_blueprint(results: pathlib.Path, run: str) -> str:
  """The subgame bot playing for the win on each blueprint against the same bot on the other: the
  share of the win its seats took (the rulebook's winner, Pudding tie-break included; a win shared
  by k seats is 1/k to each) with its Wilson interval, the games won, shared and lost by its seats
  with the sign test's p-value on the won and lost, the mean margin, and the share of games in
  which its seats' mean score beat the other's, ties half, with its sign test."""
  records = stored_records(results, run)
  summaries, outscored = stats.summarize(records), stats.head_to_head(records)
  seats = records[0]["seats"].count(WIN_BLUEPRINTS[0])
  share = "win share" if seats == 1 else f"win share of its {seats} seats"
  lines = [f"| the subgame bot playing for the win, on | against | games | {share} [Wilson 95%] |"
           " won / shared / lost (sign test) | mean margin [95% CI] | outscores it (sign test) |",
           "|---|---|---:|---|---|---|---|"]
  for name, opponent in (WIN_BLUEPRINTS, WIN_BLUEPRINTS[::-1]):
    won = shared = lost = 0
    for record in records:
      winners = {record["seats"][seat] for seat in record["winners"]}
      won, shared, lost = (won + (winners == {name}), shared + (winners == {name, opponent}),
                           lost + (winners == {opponent}))
    summary, pair = summaries[name], outscored[name, opponent]
    wins = summary.wins * seats  # the summary's share is its seats' mean
    low, high = stats.wilson_interval(round(wins), summary.games)
    lines.append(
        f"| {name} | {opponent} | {summary.games} |"
        f" {interval(wins / summary.games, low, high, 3)} |"
        f" {won} / {shared} / {lost} (p={stats.sign_test(won, lost):.3f}) |"
        f" {interval(summary.margin.value, summary.margin.low, summary.margin.high, sign=True)} |"
        f" {pair.win_rate:.2f} (p={pair.p_value:.3f}) |")
  return "\n".join(lines) + "\n"


def _win_blueprint_block(run: str) -> Block:
  return Block((f"{run}/summary.md", f"{run}/records.jsonl*"),
               lambda results: _win_blueprint(results, run))


def _linear_q_training(results: pathlib.Path) -> str:
  """The learning curve the training printed (`training-output.txt`), without its compile line."""
  lines = (results / "linear-q" / "training-output.txt").read_text(encoding="utf-8").splitlines()
  curve = [line for line in lines if line.startswith(" ")]
  return ("```\n$ python -m experiments.train_linear_q --opponent heuristic --minutes 4 \\\n"
          "      --out experiments/results/linear-q/linear_q.npz\n" + "\n".join(curve) + "\n```\n")


def _linear_q_final(results: pathlib.Path) -> str:
  """The training's last evaluation beside uniform random play on the same deals."""
  lines = (results / "linear-q" / "training-output.txt").read_text(encoding="utf-8").splitlines()
  record = json.loads(lines[-1])
  final, random_play = record["final"], record["random_play_margin"]
  return (f"After {final['steps']:,} steps ({final['seconds']:.0f} s) the greedy agent's margin"
          f" against the heuristic is {interval(final['margin'], final['low'], final['high'])}"
          f" with a win rate of {final['win_rate']:.3f}; uniform random play on the same deals has"
          f" {interval(*random_play)}.\n")


def _curve_rows(points: list[dict[str, str]], opponent: str) -> list[str]:
  """A learning curve's table: about eight of its points and the last."""
  shown = points[::max(1, len(points) // 8)]
  if shown[-1] is not points[-1]:
    shown.append(points[-1])
  return ([f"| iteration | steps | training seconds | mean margin | outscores the {opponent}"
           " [Wilson 95%] |", "|---:|---:|---:|---:|---|"]
          + [f"| {int(p['iteration']):,} | {int(p['steps']):,} | {float(p['seconds']):,.0f} |"
             f" {float(p['mean_margin']):+.2f} | {float(p['win_share']):.3f}"
             f" [{float(p['win_low']):.3f}, {float(p['win_high']):.3f}] |" for p in shown])


def _ppo_curve(results: pathlib.Path) -> str:
  """The PPO training's learning curve against the heuristic: a few points and the last."""
  points = read_csv(results / "ppo-2p" / "checkpoint.curve.csv")
  last = points[-1]
  return ("\n".join(_curve_rows(points, "heuristic")) + f"\n\nEach point: {last['games']} games"
          " against the compiled heuristic, the same deals every time, half in each seat, the"
          " agent playing greedily.\n")


def _ppo_best_response_curve(results: pathlib.Path, name: str) -> str:
  """The full-game PPO responder's learning curve(s) stored in ppo-best-response/`name`, one per
  trained agent."""
  points = read_csv(results / "ppo-best-response" / name)
  parts = []
  for seats in dict.fromkeys(p["seats"] for p in points):
    agent = [p for p in points if p["seats"] == seats]
    title = "One agent for both seats" if seats == "all" else f"The agent of seat {seats}"
    parts.append(f"{title}, against the {agent[-1]['competitor']}:\n\n"
                 + "\n".join(_curve_rows(agent, agent[-1]["competitor"])))
  return ("\n\n".join(parts) + f"\n\nEach point: {points[-1]['games']} games against the"
          " compiled policy, the same deals every time, the agent playing greedily in the seats it"
          " was trained for.\n")


def _ppo_best_response_curve_block(name: str) -> Block:
  """The block of the curve(s) stored in ppo-best-response/`name`."""
  return Block((f"ppo-best-response/{name}",),
               lambda results: _ppo_best_response_curve(results, name))


# Trainings shown side by side: folder, its column's label from its config, its name in the
# verdict.
LEAGUES = (("ppo-league-2p/default", lambda config: f"default league (`{config['opponents']}`)",
            "the default league"),
           ("ppo-league-2p/past", lambda config: f"with past selves (`{config['opponents']}`)",
            "the league with past selves"))


def _update_label(config: dict) -> str:
  epochs = config["epochs"]
  return f"{epochs} epoch{'s' if epochs != 1 else ''} of {config['minibatches']} minibatches"


EPOCHS = (("ppo-league-2p/default", _update_label, "the two-epoch update"),
          ("ppo-epochs-2p/one-epoch", _update_label, "the one-epoch update"))


def _interval_order(point: dict, other: dict) -> int:
  """1 when the Wilson interval of `point`'s share of games lies above `other`'s, -1 below, 0
  when the two overlap (curve points, as read from a curve CSV)."""
  if float(point["win_low"]) > float(other["win_high"]):
    return 1
  if float(point["win_high"]) < float(other["win_low"]):
    return -1
  return 0


def _ppo_side_by_side(results: pathlib.Path, runs) -> str:
  """Two trainings' curves (`runs`, as `LEAGUES`) at the iterations both evaluated, and which is
  ahead at the last of them."""
  from solvers.learning.network import Network  # pylint: disable=import-outside-toplevel
  curves = [{int(p["iteration"]): p for p in read_csv(results / run / "checkpoint.curve.csv")}
            for run, _, _ in runs]
  labels = [label(Network.load(str(results / run / "checkpoint.npz")).metadata["config"])
            for run, label, _ in runs]
  names = [name for _, _, name in runs]
  shared = sorted(set.intersection(*(set(curve) for curve in curves)))
  header = "| iteration | " + " | ".join(
      f"{label}: margin, outscores the heuristic" for label in labels)
  lines = [header + " |", "|---:|" + "---|" * len(runs)]
  for iteration in shared:
    cells = [f"{float(curve[iteration]['mean_margin']):+.2f},"
             f" {float(curve[iteration]['win_share']):.3f}"
             f" [{float(curve[iteration]['win_low']):.3f},"
             f" {float(curve[iteration]['win_high']):.3f}]" for curve in curves]
    lines.append(f"| {iteration:,} | " + " | ".join(cells) + " |")
  first, second = (curve[shared[-1]] for curve in curves)
  order = _interval_order(second, first)
  if order:
    verdict = f"{names[1] if order > 0 else names[0]} is ahead, the intervals apart"
  else:
    ahead = names[1] if float(second["win_share"]) > float(first["win_share"]) else names[0]
    verdict = (f"the intervals overlap: neither is shown better ({ahead} ahead by the point"
               " estimate)")
  return ("\n".join(lines) + f"\n\nAt iteration {shared[-1]:,}, {verdict}. Each point:"
          f" {first['games']} games against the compiled heuristic, the same deals every time,"
          " half in each seat, the agent playing greedily.\n")


UPDATE_RUNS = "ppo-update-2p"  # trainings of one league with updates of different costs
UPDATE_REFERENCE = {"epochs": 2, "minibatches": 4, "hidden": 128}  # the former default update


def _update_setting(config: dict) -> str:
  return f"{_update_label(config)}, hidden {config['hidden']}"


def _ppo_update(results: pathlib.Path) -> str:
  """The trainings of `UPDATE_RUNS` at equal training CPU seconds: each one's last point within
  its reference's training time, beside the reference's first point with as many CPU seconds or
  more. The reference: the same settings without overlap for a training with it, else with the
  update `UPDATE_REFERENCE` (same seed)."""
  from solvers.learning.network import Network  # pylint: disable=import-outside-toplevel
  runs = {}
  for curve in sorted((results / UPDATE_RUNS).glob("*/checkpoint.curve.csv")):
    config = Network.load(str(curve.with_name("checkpoint.npz"))).metadata["config"]
    runs[curve.parent.name] = (config, read_csv(curve))

  def shown(point: dict) -> str:
    return (f"iteration {int(point['iteration']):,} ({float(point['cpu_seconds']):,.0f} CPU s):"
            f" {float(point['win_share']):.3f} [{float(point['win_low']):.3f},"
            f" {float(point['win_high']):.3f}]")

  def reference_of(config: dict) -> str:
    wanted = {**config, "overlap": False} if config.get("overlap") else {**config,
                                                                         **UPDATE_REFERENCE}
    return next(name for name, (other, _) in runs.items() if other == wanted)
  def is_reference(run) -> bool:
    return reference_of(run[1][0]) == run[0]

  lines = ["| update | seed | overlap | training s an iteration: CPU, wall | outscores the"
           " heuristic [Wilson 95%] | beside | with as many CPU s or more | at equal training"
           " time |", "|---|---:|---|---:|---|---|---|---|"]
  for name, (config, points) in sorted(runs.items(), key=lambda run: (not is_reference(run),
                                                                      run[1][0]["seed"])):
    last = points[-1]
    rates = [float(last[clock]) / int(last["iteration"]) for clock in ("cpu_seconds", "seconds")]
    setting = (f"{_update_setting(config)} | {config['seed']} |"
               f" {'on' if config.get('overlap') else 'off'} | {rates[0]:.2f}, {rates[1]:.2f}")
    if reference_of(config) == name:
      lines.append(f"| {setting} | {shown(last)} | — | — | — |")
      continue
    reference_config, reference = runs[reference_of(config)]
    end = float(reference[-1]["cpu_seconds"])
    point = [p for p in points[1:] if float(p["cpu_seconds"]) <= end][-1]
    matched = next(p for p in reference if float(p["cpu_seconds"]) >= float(point["cpu_seconds"]))
    order = _interval_order(point, matched)
    if order:
      verdict = f"{'ahead' if order > 0 else 'behind'}, the intervals apart"
    else:
      ahead = float(point["win_share"]) > float(matched["win_share"])
      verdict = f"intervals overlap, {'ahead' if ahead else 'not ahead'} by the point estimate"
    lines.append(f"| {setting} | {shown(point)} | {_update_setting(reference_config)},"
                 f" overlap off | {shown(matched)} | {verdict} |")
  return ("\n".join(lines) + f"\n\nEach point: {points[-1]['games']} games against the compiled"
          " heuristic, the same deals every time, half in each seat, the agent playing greedily."
          " Training CPU seconds: every thread's, the iterations only (not the evaluations),"
          " compilation included; wall seconds: evaluations included, on a shared machine.\n")


def _ppo_snapshot(results: pathlib.Path) -> str:
  """What the stored snapshot of the PPO agent had trained for."""
  from solvers.learning.network import Network  # pylint: disable=import-outside-toplevel
  meta = Network.load(str(results / "ppo-2p" / "agent-snapshot.npz")).metadata
  return (f"The snapshot: iteration {meta['iteration']:,}, {meta['steps']:,} environment steps,"
          f" {meta['seconds'] / 60:.0f} minutes of training.\n")


def _ppo_best_response(results: pathlib.Path) -> str:
  """The PPO best response's gains beside the exact best response's on the reduced games."""
  files = sorted((results / "ppo-best-response").glob("*.json"),
                 key=lambda path: ("small", "medium", "large").index(path.stem))
  stored = [json.loads(path.read_text("utf-8")) for path in files]
  lines = ["| game | policy | exact gain (sum over seats) | PPO responder's gain | bound / exact |",
           "|---|---|---:|---:|---:|"]
  for row in (row for result in stored for row in result["rows"]):
    ratio = "—" if row["ratio"] is None else f"{row['ratio']:.3f}"
    lines.append(f"| {row['game']} | {row['policy']} | {row['exact']:.4f} |"
                 f" {row['learned']:.4f} | {ratio} |")
  def shown(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())
  if all(result["params"] == stored[0]["params"] for result in stored):
    params = f"Responder parameters: {shown(stored[0]['params'])}."
  else:  # runs stored with other defaults say so, game by game
    params = " ".join(f"Responder parameters on {path.stem}: {shown(result['params'])}."
                      for path, result in zip(files, stored))
  unfinished = [path.stem for path, result in zip(files, stored) if not result["complete"]]
  note = (f" Still running when stored: {', '.join(unfinished)} (rows are written as they"
          " finish)." if unfinished else "")
  short = [f"{row['game']} against {row['policy']}" for result in stored for row in result["rows"]
           if row["ratio"] is None or row["ratio"] < result["target_ratio"]]
  target = min(result["target_ratio"] for result in stored)
  verdict = (f"Under the target (bound / exact >= {target:g}): {'; '.join(short)}." if short else
             f"Every row meets the target, bound / exact >= {target:g}.")
  return "\n".join(lines) + f"\n\n{verdict} {params}{note}\n"


def _ppo_speed(results: pathlib.Path) -> str:
  """The stored `sushigo bench --ppo` figures."""
  figures = json.loads((results / "bench" / "ppo.json").read_text("utf-8"))["ppo"]
  from experiments.bench import learning  # pylint: disable=import-outside-toplevel
  return (f"```\n$ sushigo bench --ppo --seconds {figures['seconds']:g} --repeats"
          f" {figures['repeats']} --players 2 --draft-players 2\n...\n"
          + learning.report(figures) + "\n```\n")


def _cold_start(results: pathlib.Path) -> str:
  """The quickstart's CPU seconds cold and warm and every kernel set's cold compile, as the last
  stored `sushigo bench --cold` runs measured them (`COLD_RUNS`)."""
  quickstart = _cold_run(results, COLD_RUNS[-1][1])
  label, sets = next((label, figures) for label, figures in reversed(_cold_runs(results))
                     if "all_sets" in figures)
  latest = label == COLD_RUNS[-1][0]
  return (f"Cold, compiling included, the quickstart took {quickstart['quickstart_cold']['cpu']:.0f}"
          f" CPU seconds, warm {quickstart['quickstart_warm']['cpu']:.0f}; compiling every kernel"
          f" set cold {'takes' if latest else 'took'} {sets['all_sets']['cpu']:.0f}"
          f"{'' if latest else f' ({label}; not measured since)'} (`sushigo bench --cold`, on the"
          f" development machine's two cores, {_load(quickstart)}; [Speed](docs/speed.md#cold-start"
          ")).\n")


def _load(figures: dict) -> str:
  """How busy the machine was during a stored cold run, as its figures recorded it."""
  if "load_before" not in figures:
    return "shared with other jobs, whose contention inflates CPU seconds"
  return (f"load average {figures['load_before']:.1f} at the start and"
          f" {figures['load_after']:.1f} at the end")


def _rl_speed(results: pathlib.Path) -> str:
  """The learning environments' steps/s as the stored `sushigo bench --rl` run printed them, and
  what its ratios say."""
  from experiments.bench import rl as rl_bench  # the rl extra: PettingZoo and Gymnasium
  figures = json.loads((results / "bench" / "rl" / "figures.json").read_text(encoding="utf-8"))
  rl = figures["rl"]
  heading, rest = rl_bench.report(rl).split("\n", 1)
  rates = rl["steps_per_s"]
  batch = rates[f"batched, {rl_bench.NUM_ENVS} games vs random"]
  summary = ("In the same run the Sushi Go batch against random opponents steps"
             f" {batch / rates['OpenSpiel rl_environment, 1 game']:,.0f} times as fast as"
             " OpenSpiel's `rl_environment` and"
             f" {batch / rates['PettingZoo parallel env, 1 game']:,.0f} times as fast as the"
             " PettingZoo environment, and the Sushi Draft batch steps"
             f" {rl['draft_ratio']:.2f} times as fast as the Sushi Go batch (a Sushi Draft step is"
             " half a turn).")
  return (f"```\n$ sushigo bench --rl --seconds {rl['seconds']:g} --repeats {rl['repeats']}"
          " --players 2 --draft-players 2\n...\n" + textwrap.fill(heading, 100) + "\n" + rest +
          "\n```\n\n" + textwrap.fill(summary, 100) + "\n")


SPEED_RUN = "bench/speed/figures.json"  # `sushigo bench --search --no-compile-times --equilibrium`


def _speed_figures(results: pathlib.Path) -> dict:
  return json.loads((results / SPEED_RUN).read_text(encoding="utf-8"))


def _speed_command(figures: dict) -> str:
  return (f"$ sushigo bench --repeats {figures['repeats']} --seconds {figures['seconds']:g}"
          " --search --no-compile-times --equilibrium")


def _speed_conditions(figures: dict) -> str:
  """When, on which commit and how loaded the machine was when the stored run was written."""
  conditions = figures["conditions"]
  return (f"{conditions['date'][:10]}, commit {conditions['git_commit'][:7]}, on"
          f" {conditions['cores']} cores at load average {conditions['load_average']:.1f}")


def _speed_game(results: pathlib.Path) -> str:
  """The random games' part of the stored speed run, as `sushigo bench` printed it."""
  from experiments.bench import game as game_bench
  figures = _speed_figures(results)
  return (f"The stored run ({_speed_conditions(figures)}):\n\n```\n{_speed_command(figures)}\n"
          f"...\n{game_bench.report(figures)}\n```\n")


def _speed_ratio(results: pathlib.Path) -> str:
  """The stored run's ratios of Sushi Go's steps/s to goofspiel's, against their target."""
  from experiments.bench import game as game_bench
  figures = _speed_figures(results)
  ratios = [t for t in figures["targets"] if "goofspiel" in t["name"]]
  stated = "; ".join(f"{t['name'].split(' steps/s')[0]} {t['value']:.3f}" for t in ratios)
  return textwrap.fill(
      f"In the stored run the ratios were: {stated} (target >= {game_bench.MIN_STEP_RATIO:g});"
      f" goofspiel ran {figures['games'][game_bench.REFERENCE]['steps_per_s']:,.0f} steps/s.",
      100) + "\n"


def _speed_solvers(results: pathlib.Path) -> str:
  """The exact exploitability and CFR+ parts of the stored speed run, as printed."""
  from experiments.bench import cfr as cfr_bench
  from experiments.bench import equilibrium as equilibrium_bench
  figures = _speed_figures(results)["equilibrium"]
  exploitability = equilibrium_bench.EquilibriumBench(
      **{field: figures["exploitability"][field]
         for field in equilibrium_bench.EquilibriumBench._fields})
  cfr = cfr_bench.CFRBench(**{field: figures["cfr"][field] for field in cfr_bench.CFRBench._fields})
  cold = exploitability.ours_cold_seconds / exploitability.ours_single_seconds
  return ("```\n" + equilibrium_bench.report(exploitability) + "\n\n" + cfr_bench.report(cfr)
          + "\n```\n\n" + textwrap.fill(
              f"In this run the cold call cost {cold:.1f} times a warm single call (its cause was"
              " not investigated).", 100) + "\n")


def _speed_search(results: pathlib.Path) -> str:
  """The compiled search part of the stored speed run, as printed, and what its playout rate
  means per game."""
  from experiments.bench import search as search_bench
  figures = _speed_figures(results)
  search = figures["search"]
  playout = 1e6 / search["playouts"]["2"]
  return (f"```\n{_speed_command(figures)}\n...\n{search_bench.report(search)}\n```\n\n"
          + textwrap.fill(
              f"A 2-player playout of the core takes about {playout:.1f} microseconds of CPU time"
              " in this run.", 100) + "\n")


def _cold_run(results: pathlib.Path, stem: str) -> dict:
  """The figures of a stored `sushigo bench --cold` run: STEM-sets.json and STEM-quickstart.json,
  either of which may be missing (a run of `--no-sets` or `--no-quickstart`)."""
  from experiments.bench import cold
  bench = results / "bench" / "cold"
  parts = [bench / f"{stem}-{part}.json" for part in ("sets", "quickstart")]
  return cold.merged("+".join(str(path) for path in parts if path.exists()))


def _cold_runs(results: pathlib.Path) -> list[tuple[str, dict]]:
  return [(label, _cold_run(results, stem)) for label, stem in COLD_RUNS]


# The stored `sushigo bench --cold` runs docs/speed.md compares, a column each: (label, the stem of
# its files STEM-sets.json and STEM-quickstart.json in experiments/results/bench/cold/).
COLD_RUNS = (("every set at once (6d08e44)", "before"), ("first use", "first-use"),
             ("first use, fewer compiles", "after"), ("quiet machine", "quiet"),
             ("second pass, quiet machine", "second"), ("41ac0a1, loaded", "loaded-before"),
             ("third pass, loaded", "third"),
             ("third pass, lighter load", "fourth"), ("a95e69b", "a95e69b"),
             ("fourth pass", "fourth-pass"), ("9a24bce", "9a24bce"), ("fifth pass", "fifth-pass"),
             ("fifth pass, quiet machine", "fifth-quiet"), ("sixth pass", "sixth-pass"))


def _cold_start_comparison(results: pathlib.Path) -> str:
  """Each kernel set's cold compile and the quickstart cold and warm, in every run of
  `COLD_RUNS` (`python -m experiments.bench.cold --compare`)."""
  from experiments.bench import cold
  return cold.comparison(_cold_runs(results)) + "\n"


def _cold_start_targets(results: pathlib.Path) -> str:
  """The targets' table `sushigo bench --cold` printed for the last stored run."""
  from experiments.bench import cold
  return "```\n" + cold.report(_cold_run(results, COLD_RUNS[-1][1])).split("\n\n")[-1] + "\n```\n"


def _run_index(results: pathlib.Path) -> str:
  lines = ["| run | what it measures | report |", "|---|---|---|"]
  for run in runs(results):
    link = f"{results_page(results, run)}#{anchor(run)}"
    lines.append(f"| [`{run}`]({link}) | {description(results, run)} |"
                 f" [summary.md](../experiments/results/{run}/summary.md) |")
  return "\n".join(lines) + "\n"


def _aivat_ratios(results: pathlib.Path) -> str:
  """The variance ratios of the luck-corrected and the AIVAT margins (and the AIVAT score's to the
  luck-corrected one) of every stored head-to-head whose games recorded the AIVAT terms; the
  others named."""
  lines = ["| run | game | competitor | games | margin: luck-corrected / raw | AIVAT / raw |"
           " AIVAT / luck-corrected | score: AIVAT / luck-corrected |",
           "|---|---|---|---:|---:|---:|---:|---:|"]
  without = []
  for run in (run for run in runs(results) if "head-to-head" in run):
    rows = [row for row in read_csv(results / run / "summary.csv")
            if row["game"] != stats.OVERALL and row.get("aivat_margin")]
    if not rows:
      without.append(f"`{run}`")
    for row in rows:
      lines.append(
          f"| `{run}` | `{row['game']}` | {row['competitor']} | {row['games']} |"
          f" {float(row['margin_variance_ratio']):.2f} |"
          f" {float(row['aivat_margin_variance_ratio']):.2f} |"
          f" {float(row['aivat_margin_luck_ratio']):.2f} |"
          f" {float(row['aivat_score_luck_ratio']):.2f} |")
  return "\n".join(lines) + f"\n\nStored head-to-heads without the terms: {', '.join(without)}.\n"


def anchor(run: str) -> str:
  """The anchor of a run's heading on its results page (GitHub drops the slash of a path)."""
  return re.sub(r"[^\w\- ]", "", run.lower())


def results_page(results: pathlib.Path, run: str) -> str:
  """The page of docs/ that shows a run: solving runs (their report's title names the kind, as in
  `# cfr-convergence (convergence)`) on results-equilibrium.md, their full-game bounds on
  results-exploitability.md; the games of CFR policies and the subgame bot on results-blueprint.md,
  the quickstart and the linear Q agent on results.md beside the index, the objective runs on
  results-objective.md, the searchers on results-search.md."""
  title = (results / run / "summary.md").read_text(encoding="utf-8").splitlines()[0]
  if title.endswith(")"):
    full_game = run.startswith(("exploitability-full", "approximate-full"))
    return "results-exploitability.md" if full_game else "results-equilibrium.md"
  if run == "quickstart" or run.startswith(("linear-q", "ppo-")):
    return "results.md"
  if run.startswith("objective-"):
    return "results-objective.md"
  if run.startswith(("blueprint", "cfr-", "subgame")):
    return "results-blueprint.md"
  return "results-search.md"


def _run_block(run: str) -> Block:
  config = os.path.relpath(config_path(RESULTS, run), RESULTS)
  return Block((f"{run}/summary.md", config),  # and, where it has no comment, the named config
               lambda results: f"{description(results, run)}\n\n{run_tables(results, run)}")


BLOCKS: dict[str, Block] = {
    "quickstart-output": Block(("quickstart/summary.md",), _quickstart_output),
    "quickstart-output-4p": Block(("quickstart/summary.md",),
                                  lambda results: _quickstart_output(results, FOUR)),
    "capabilities": Block(
        ("quickstart/summary.md", "search-strength/summary.md", "subgame-vs-heuristic/summary.md",
         "exploitability-reduced/results.csv",
         f"{RUN_BOUND}/summary.md", "abstraction-curve-large/results.csv"),
        _capabilities),
    "run-index": Block(("*/summary.md", "*/config.toml"), _run_index),
    "rl-speed": Block(("bench/rl/figures.json",), _rl_speed),
    "speed-game": Block((SPEED_RUN,), _speed_game),
    "speed-ratio": Block((SPEED_RUN,), _speed_ratio),
    "speed-solvers": Block((SPEED_RUN,), _speed_solvers),
    "speed-search": Block((SPEED_RUN,), _speed_search),
    "cold-start": Block(("bench/cold/*.json",), _cold_start),
    "cold-start-comparison": Block(("bench/cold/*.json",), _cold_start_comparison),
    "cold-start-targets": Block(("bench/cold/*.json",), _cold_start_targets),
    "linear-q-training": Block(("linear-q/training-output.txt",), _linear_q_training),
    "linear-q-final": Block(("linear-q/training-output.txt",), _linear_q_final),
    "ppo-curve": Block(("ppo-2p/checkpoint.curve.csv",), _ppo_curve),
    "ppo-snapshot": Block(("ppo-2p/agent-snapshot.npz",), _ppo_snapshot),
    "ppo-best-response": Block(("ppo-best-response/*.json",), _ppo_best_response),
    "ppo-best-response-curve": _ppo_best_response_curve_block("full-game-curve.csv"),
    "ppo-best-response-blueprint-curve":
        _ppo_best_response_curve_block("full-game-blueprint-curve.csv"),
    "ppo-best-response-blueprint-rank-curve":
        _ppo_best_response_curve_block("full-game-blueprint-rank-curve.csv"),
    "ppo-best-response-information-state-curve":
        _ppo_best_response_curve_block("full-game-information-state-curve.csv"),
    "ppo-speed": Block(("bench/ppo.json",), _ppo_speed),
    "ppo-league": Block(("ppo-league-2p/*/checkpoint.curve.csv",
                         "ppo-league-2p/*/checkpoint.npz"),
                        lambda results: _ppo_side_by_side(results, LEAGUES)),
    "ppo-update": Block((f"{UPDATE_RUNS}/*/checkpoint.curve.csv",
                         f"{UPDATE_RUNS}/*/checkpoint.npz"), _ppo_update),
    "ppo-epochs": Block(("ppo-league-2p/default/checkpoint.*", "ppo-epochs-2p/*/checkpoint.*"),
                        lambda results: _ppo_side_by_side(results, EPOCHS)),
    "subgame-strength": Block(
        ("subgame-vs-heuristic/summary.md", "subgame-head-to-head/summary.md",
         "subgame-vs-searchers/summary.md"),
        lambda results: _against_each(
            results, ("subgame-vs-heuristic", "subgame-head-to-head", "subgame-vs-searchers"),
            "subgame")),
    "aivat-ratios": Block(("*head-to-head*/summary.csv",), _aivat_ratios),
    "objective": Block(("objective-*/summary.md", "objective-*/records.jsonl*"), _objective),
    "objective-win-blueprint": _win_blueprint_block(WIN_BLUEPRINT_RUN),
    "objective-win-blueprint-4p": _win_blueprint_block(WIN_BLUEPRINT_RUN_4P),
    "four-players": Block(
        ("subgame-4p-head-to-head/summary.md", "blueprint-rank-4p-head-to-head/summary.md"),
        _four_players),
}


def _versus(run: str, players: int, anchor: str = "heuristic") -> Block:
  game = f"python_sushi_go(players={players})"

  def render_(results: pathlib.Path) -> str:
    lines = [f"| competitor | games | mean margin [95% CI] | win rate [Wilson 95%] |"
             f" outscores the {anchor} (sign test) |", "|---|---:|---|---|---|"]
    for row in table(_game_section(results, run, game)):
      name = row["competitor"]
      share = "—" if name == anchor else head_to_head(results, run, game, name, anchor)
      lines.append(f"| {name} | {row['games']} | {signed(row['mean margin [95% CI]'])} |"
                   f" {row['win rate [Wilson 95%]']} | {share} |")
    return "\n".join(lines) + "\n"
  return Block((f"{run}/summary.md",), render_)


def block(name: str) -> Block:
  """The block called `name`: one of BLOCKS, `run:FOLDER` for one stored run's tables, or
  `versus:FOLDER:PLAYERS` for each competitor of a run at a player count against the heuristic."""
  if name.startswith("run:"):
    return _run_block(name[len("run:"):])
  if name.startswith("versus:"):
    _, run, players = name.split(":")
    return _versus(run, int(players))
  if name not in BLOCKS:
    raise KeyError(f"no generated block {name!r}; known: {', '.join(BLOCKS)}, run:FOLDER and"
                   " versus:FOLDER:PLAYERS")
  return BLOCKS[name]


def sources(name: str) -> tuple[str, ...]:
  """The stored files (relative to experiments/results/, as glob patterns) that block `name`
  reads."""
  return block(name).sources


def render(name: str, results: pathlib.Path = RESULTS) -> str:
  return block(name).render(results)


# --- pages --------------------------------------------------------------------------------------

def blocks_of(page: str) -> list[tuple[str, str]]:
  """(name, text) of every generated block of a page's Markdown, in order."""
  found = []
  for match in BEGIN.finditer(page):
    rest = page[match.end():]
    if END not in rest:
      raise ValueError(f"generated block {match['name']!r} has no {END!r}")
    found.append((match["name"], rest.split(END, 1)[0]))
  return found


def regenerate(page: str, results: pathlib.Path = RESULTS) -> str:
  """The page with every generated block's text written anew from the stored runs."""
  out, position = [], 0
  for match in BEGIN.finditer(page):
    end = page.index(END, match.end())
    out += [page[position:match.end()], render(match["name"], results)]
    position = end
  out.append(page[position:])
  return "".join(out)


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(prog="python -m experiments.docs", description=__doc__.split(
      "\n")[0])
  parser.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 if a page differs from its regenerated text")
  args = parser.parse_args(argv)
  stale = []
  for name in PAGES:
    path = ROOT / name
    page = path.read_text(encoding="utf-8")
    fresh = regenerate(page)
    if fresh != page:
      stale.append(name)
      if not args.check:
        path.write_text(fresh, encoding="utf-8")
  verb = "differ from the stored runs" if args.check else "rewritten"
  print(f"{len(stale)} page(s) {verb}" + (": " + ", ".join(stale) if stale else ""))
  return 1 if args.check and stale else 0


if __name__ == "__main__":
  sys.exit(main())
