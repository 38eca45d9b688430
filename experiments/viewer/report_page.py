"""The HTML report of a run folder (`sushigo report RUN --html`): one self-contained file.

report.html holds the run's summary.md as HTML tables, its plots (PNG, inlined as data URLs), the
list of its games (a tournament's records) and, for some of them, a replay rebuilt from the
record (`experiments.viewer.replay`): the first `replays` games of each game string, and any game
asked for by index. The page's script and style are the package's assets (`assets/`), inlined:
the file opens offline, from anywhere, with nothing to fetch.
"""

from __future__ import annotations

import base64
import html
import json
import pathlib
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

from experiments import run_folder
from experiments.run_folder import PLOTS_DIR, RECORDS_FILE, REPORT_HTML, SUMMARY_MD
from experiments.tournament import summary
from experiments.viewer import replay as replay_lib
from solvers.progress import progress

DEFAULT_REPLAYS = 20  # games replayed per game string unless asked otherwise


def asset(name: str) -> str:
  """The text of one of the package's page assets (`experiments/viewer/assets/`)."""
  return resources.files("experiments.viewer").joinpath("assets", name).read_text(encoding="utf-8")


def write(run_dir: str | pathlib.Path, replays: int = DEFAULT_REPLAYS,
          games: Iterable[int] = (), quiet: bool = False) -> pathlib.Path:
  """Writes report.html into the run folder `run_dir` (whose report has been written); returns
  its path. `replays`: games replayed per game string, the first by index; `games`: indices of
  further games to replay."""
  run_dir = pathlib.Path(run_dir)
  markdown = (run_dir / SUMMARY_MD).read_text(encoding="utf-8")
  plots = {path.name: path.read_bytes() for path in sorted((run_dir / PLOTS_DIR).glob("*.png"))}
  records = _records(run_dir)
  title = markdown.partition("\n")[0].lstrip("# ").strip() or run_dir.name
  path = run_dir / REPORT_HTML
  run_folder.write_atomically(path, page(title, markdown, plots, records,
                                         _replays(records, replays, games, quiet)))
  run_folder.list_in_manifest(run_dir, REPORT_HTML)
  return path


def write_games(records_path: str | pathlib.Path, replays: int = DEFAULT_REPLAYS,
                games: Iterable[int] = (), quiet: bool = False) -> pathlib.Path:
  """Writes the games of a records file (one JSON record a line, as `sushigo play --web` saves
  them) with their replays into the same name with suffix .html; returns its path."""
  records_path = pathlib.Path(records_path)
  records = []
  for number, line in enumerate(run_folder.complete_lines(records_path), 1):
    try:
      record = json.loads(line)
      record["index"], record["game"], record["seats"], record["scores"]  # pylint: disable=pointless-statement
    except (ValueError, TypeError, KeyError):
      raise ValueError(f"{records_path}, line {number}: not a game record (a JSON object with"
                       " index, game, seats, scores, bots and seed)") from None
    records.append(record)
  path = records_path.with_suffix(".html")
  markdown = f"# {records_path.name}\n\n{len(records)} games.\n"
  run_folder.write_atomically(path, page(records_path.name, markdown, {}, records,
                                         _replays(records, replays, games, quiet)))
  return path


def _replays(records: Sequence[dict[str, Any]], replays: int, games: Iterable[int],
             quiet: bool) -> dict[int, dict[str, Any]]:
  """The replays of the chosen games (`chosen_games`), by index."""
  chosen = chosen_games(records, replays, games)
  rebuilt = {}
  with progress(len(chosen), "replays", unit="game", disable=quiet or len(chosen) < 50) as bar:
    for record in records:
      if record["index"] in chosen and record["index"] not in rebuilt:
        rebuilt[record["index"]] = replay_lib.rebuild(record)
        bar.update()
  return rebuilt


def _records(run_dir: pathlib.Path) -> list[dict[str, Any]]:
  """The run's game records in index order; none for a run that plays no games."""
  if not (run_dir / RECORDS_FILE).is_file():
    return []
  return sorted(summary.load_run(run_dir)[1], key=lambda record: record["index"])


def chosen_games(records: Sequence[dict[str, Any]], replays: int,
                 games: Iterable[int]) -> set[int]:
  """The indices to replay: the first `replays` of each game string, and `games`; a ValueError
  names an index the run does not hold."""
  indices = {record["index"] for record in records}
  missing = sorted(set(games) - indices)
  if missing:
    raise ValueError(f"--game {', '.join(map(str, missing))}: no such game in the run; allowed:"
                     f" {_ranges(sorted(indices))}")
  chosen, per_game = set(games), {}
  for record in records:
    if per_game.get(record["game"], 0) < replays:
      per_game[record["game"]] = per_game.get(record["game"], 0) + 1
      chosen.add(record["index"])
  return chosen


def _ranges(indices: list[int]) -> str:
  if not indices:
    return "none (the run holds no games)"
  return f"{indices[0]} to {indices[-1]}" if indices == list(range(indices[0], indices[-1] + 1)) \
      else ", ".join(map(str, indices))


def page(title: str, markdown: str, plots: dict[str, bytes], records: Sequence[dict[str, Any]],
         replays: dict[int, dict[str, Any]]) -> str:
  """The whole page: summary, plots, games and the replay viewer, scripts and styles inline."""
  figures = "\n".join(
      f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,'
      f'{base64.b64encode(data).decode("ascii")}"><figcaption>{html.escape(name)}</figcaption>'
      "</figure>" for name, data in plots.items())
  games = [{"index": r["index"], "game": r["game"], "seats": r["seats"], "scores": r["scores"],
            "winners": r.get("winners", [])} for r in records]
  data = json.dumps({"games": games, "replays": {str(i): r for i, r in replays.items()}},
                    separators=(",", ":")).replace("</", "<\\/")
  return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
{asset("viewer.css")}
</style>
</head>
<body>
<main>
<section id="summary">
{markdown_html(markdown)}
</section>
<section id="plots">
<h2>Plots</h2>
{figures or "<p>No plots.</p>"}
</section>
<section id="games">
<h2>Games</h2>
<p>{len(replays)} of {len(records)} games have a replay, rebuilt from the record and its seeds
(<code>sushigo report RUN --html --replays N --game I</code> chooses them).</p>
<div id="game-list"></div>
</section>
<section id="replay" hidden></section>
</main>
<script type="application/json" id="report-data">{data}</script>
<script>
{asset("viewer.js")}
{asset("report.js")}
</script>
</body>
</html>
"""


def markdown_html(markdown: str) -> str:
  """The Markdown of a summary (headings, tables, paragraphs, `code`) as HTML."""
  blocks, lines = [], markdown.splitlines()
  i = 0
  while i < len(lines):
    line = lines[i]
    if not line.strip():
      i += 1
    elif line.startswith("#"):
      level = len(line) - len(line.lstrip("#"))
      blocks.append(f"<h{level}>{_inline(line[level:].strip())}</h{level}>")
      i += 1
    elif line.startswith("|"):
      rows = []
      while i < len(lines) and lines[i].startswith("|"):
        rows.append([cell.strip() for cell in lines[i].strip().strip("|").split("|")])
        i += 1
      blocks.append(_table(rows))
    else:
      paragraph = []
      while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|")):
        paragraph.append(lines[i])
        i += 1
      blocks.append(f"<p>{_inline(' '.join(paragraph))}</p>")
  return "\n".join(blocks)


def _table(rows: list[list[str]]) -> str:
  header, body = rows[0], [row for row in rows[1:] if not all(re.fullmatch(r":?-+:?", cell)
                                                              for cell in row)]
  head = "".join(f"<th>{_inline(cell)}</th>" for cell in header)
  cells = "".join("<tr>" + "".join(f"<td>{_inline(cell)}</td>" for cell in row) + "</tr>"
                  for row in body)
  return f"<table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table>"


def _inline(text: str) -> str:
  """Escaped text with `code` spans."""
  return re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(text, quote=False))

