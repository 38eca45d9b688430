"""The pages agree with the stored runs, state no figure by hand, and link to what exists.

Every results table and figure of README.md and docs/ sits in a generated block
(`<!-- generated: NAME -->` ... `<!-- end generated -->`) that `python -m experiments.docs`
writes from the files of experiments/results/. These tests read stored files only; no game is
played.
"""

from __future__ import annotations

import ast
import json
import lzma
import re
import shutil

import pytest

from experiments import docs

ROOT = docs.ROOT
PAGES = docs.PAGES


def _read(name: str) -> str:
  return (ROOT / name).read_text(encoding="utf-8")


# --- the generated blocks -----------------------------------------------------------------------

@pytest.mark.parametrize("name", PAGES)
def test_generated_blocks_equal_what_the_stored_runs_give(name):
  page = _read(name)
  stale = [block for (block, text), (_, fresh) in
           zip(docs.blocks_of(page), docs.blocks_of(docs.regenerate(page))) if text != fresh]
  assert stale == [], f"{name}: run `python -m experiments.docs` (stale blocks: {stale})"


def test_every_stored_run_is_shown_on_its_results_page():
  missing = [f"{run} -> docs/{docs.results_page(docs.RESULTS, run)}" for run in docs.runs()
             if f"run:{run}" not in dict(docs.blocks_of(_read(
                 f"docs/{docs.results_page(docs.RESULTS, run)}")))]
  assert missing == []


def test_every_block_reads_stored_files_that_exist():
  named = {name for page in PAGES for name, _ in docs.blocks_of(_read(page))}
  absent = [f"{name}: {source}" for name in sorted(named) for source in docs.sources(name)
            if not list(docs.RESULTS.glob(source))]
  assert absent == []


def test_a_changed_stored_result_makes_the_check_fail(tmp_path):
  """Plant a drift: one figure of a stored report changes, the pages do not."""
  results = tmp_path / "results"
  for stored in docs.RESULTS.glob("*/*"):
    if stored.name in ("summary.md", "config.toml"):
      (results / stored.parent.name).mkdir(parents=True, exist_ok=True)
      shutil.copy(stored, results / stored.parent.name / stored.name)
  assert docs.regenerate(_read("docs/results-search.md"), results=results) == _read(
      "docs/results-search.md")
  summary = results / "search-strength" / "summary.md"
  summary.write_text(summary.read_text(encoding="utf-8").replace(
      "| so_margin | 0.68 (p<0.001)* |", "| so_margin | 0.71 (p<0.001)* |"), encoding="utf-8")
  page = _read("docs/results-search.md")
  fresh = docs.regenerate(page, results=results)
  assert fresh != page and "0.71 (p<0.001)*" in fresh


def test_the_objective_block_reads_each_pair_from_the_records(tmp_path):
  """A three-way round robin of made-up games: each row holds one pair's games only, and a tie on
  points taken by the Pudding tie-break is a whole win but half a game outscored."""
  run = tmp_path / "objective-subgame"
  run.mkdir()
  (run / "summary.md").write_text("# objective-subgame\n", encoding="utf-8")
  games = [(["subgame (margin)", "heuristic"], [50, 40], [0]),
           (["heuristic", "subgame (margin)"], [45, 40], [0]),
           (["subgame (win)", "heuristic"], [44, 40], [0]),
           (["heuristic", "subgame (win)"], [40, 41], [1]),
           (["subgame (win)", "subgame (margin)"], [45, 45], [0])]
  lines = [json.dumps({"index": i, "seats": seats, "scores": scores, "winners": winners})
           for i, (seats, scores, winners) in enumerate(games)]
  (run / "records.jsonl.xz").write_bytes(lzma.compress("\n".join(lines).encode("utf-8")))
  rows = docs.render("objective", results=tmp_path).splitlines()[2:]
  assert [row.split(" | ")[:5] for row in rows] == [
      ["| subgame", "margin", "heuristic", "2", "0.500 [0.095, 0.905]"],
      ["| subgame", "win", "heuristic", "2", "1.000 [0.342, 1.000]"],
      ["| subgame", "win", "subgame (margin)", "1", "1.000 [0.207, 1.000]"]]
  assert rows[0].split(" | ")[5].startswith("+2.50 [")
  assert rows[2].split(" | ")[5:] == ["+0.00 [nan, nan]", "0.50 (p=1.000) |"]


def test_the_win_blueprint_block_judges_on_the_rulebook_winner(tmp_path):
  """Made-up games: a tie on points taken by the Pudding tie-break is a game won (and half a game
  outscored), a tie of points and Puddings a game shared; the sign test weighs won against lost."""
  run = tmp_path / "objective-win-blueprint"
  run.mkdir()
  (run / "summary.md").write_text("# objective-win-blueprint\n", encoding="utf-8")
  games = [(["win blueprint", "margin blueprint"], [50, 40], [0]),
           (["margin blueprint", "win blueprint"], [45, 45], [1]),
           (["win blueprint", "margin blueprint"], [42, 42], [0, 1]),
           (["margin blueprint", "win blueprint"], [47, 40], [0])]
  lines = [json.dumps({"index": i, "seats": seats, "scores": scores, "winners": winners})
           for i, (seats, scores, winners) in enumerate(games)]
  (run / "records.jsonl.xz").write_bytes(lzma.compress("\n".join(lines).encode("utf-8")))
  rows = docs.render("objective-win-blueprint", results=tmp_path).splitlines()[2:]
  cells = [row.split(" | ") for row in rows]
  assert [row[:5] for row in cells] == [
      ["| win blueprint", "margin blueprint", "4", "0.625 [0.150, 0.850]", "2 / 1 / 1 (p=1.000)"],
      ["| margin blueprint", "win blueprint", "4", "0.375 [0.150, 0.850]", "1 / 1 / 2 (p=1.000)"]]
  assert cells[0][5].startswith("+0.75 [") and cells[1][5].startswith("-0.75 [")
  assert cells[0][6:] == ["0.50 (p=1.000) |"]


def test_the_four_player_win_blueprint_block_counts_the_win_of_either_seat(tmp_path):
  """Made-up four-player games, two seats each: a game either of a competitor's seats won is its
  game won, both its seats tying for the win too; a tie between the two is a game shared, half
  the win to each; outscoring compares the two seats' mean scores."""
  run = tmp_path / "objective-win-blueprint-4p"
  run.mkdir()
  (run / "summary.md").write_text("# objective-win-blueprint-4p\n", encoding="utf-8")
  win, margin = "win blueprint", "margin blueprint"
  games = [([win, win, margin, margin], [50, 40, 45, 44], [0]),
           ([margin, win, margin, win], [45, 40, 45, 41], [0, 2]),
           ([win, margin, margin, win], [42, 42, 30, 30], [0, 1]),
           ([margin, margin, win, win], [47, 40, 46, 46], [0])]
  lines = [json.dumps({"index": i, "seats": seats, "scores": scores, "winners": winners})
           for i, (seats, scores, winners) in enumerate(games)]
  (run / "records.jsonl.xz").write_bytes(lzma.compress("\n".join(lines).encode("utf-8")))
  header, _, *rows = docs.render("objective-win-blueprint-4p", results=tmp_path).splitlines()
  assert "| win share of its 2 seats [Wilson 95%] |" in header
  cells = [row.split(" | ") for row in rows]
  assert [row[:5] for row in cells] == [
      ["| win blueprint", "margin blueprint", "4", "0.375 [0.150, 0.850]", "1 / 1 / 2 (p=1.000)"],
      ["| margin blueprint", "win blueprint", "4", "0.625 [0.150, 0.850]", "2 / 1 / 1 (p=1.000)"]]
  assert float(cells[0][5].split(" ")[0]) == -float(cells[1][5].split(" ")[0]) != 0
  assert [row[6] for row in cells] == ["0.62 (p=1.000) |", "0.38 (p=1.000) |"]


def test_an_unknown_block_is_refused():
  with pytest.raises(KeyError, match="no generated block 'nonsense'"):
    docs.render("nonsense")


# --- no figure by hand --------------------------------------------------------------------------

# Figures a page may state by hand because they are not results: each with the reason.
ALLOWED = {
    "3.11": "the oldest Python the package supports",
    "95%": "the confidence level of every interval",
    "5%": "the significance level of the head-to-head tests",
}

# Figures one page may state by hand because they are not results, each with the reason.
ALLOWED_ON = {
    "docs/game.md": {"0.02": "the NashConv a test requires of CFR on a reduced deck",
                     "[9, 6]": "a worked example of the scoring rules, not a measurement"},
    "docs/testing.md": {
        "3.29": "the z of the strength tests' one-sided 99.9% Wilson bound (a target)",
        "99.9%": "the confidence of the strength tests' bound (a target)",
        "90%": "the mutation score each module must reach (a target)",
    },
    "docs/blueprint.md": {"0.5": "a bucket bound of the `cards+rank` gap feature (a constant)"},
    "docs/search.md": {
        "55%": "the strength target's share of 2-player games",
        "0.5": "the strength target's bound on the interval (even chances)",
        "99.9%": "the confidence of the slow strength test's bound (a target)",
    },
    "docs/subgame.md": {
        "0.60": "the target share of games the subgame bot outscores the heuristic in",
        "0.55": "the target share against each searcher",
    },
    "docs/equilibrium.md": {
        "1.5": "DCFR's alpha, the published parameters (1.5, 0, 2)",
    },
    "docs/speed.md": {"0.25": "the target ratio of Sushi Go's steps/s to goofspiel's"},
}

FIGURE = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?%"                                 # a percentage: 47%
    r"|(?<![\w.])[-−+]?\d+\.\d+(?![\w.])"                      # a decimal: 0.62, 46.42, -1.3
    r"|\[\s*[-−]?\d[\d,.]*\s*,\s*[-−]?\d[\d,.]*\s*\]"          # an interval: [0.58, 0.66]
    r"|(?<![\w.])\d[\d,]* of (?:the )?\d[\d,]* games"          # a count: 538 of 1,000 games
    r"|(?<![\w.])\d[\d,]*(?:\.\d+)? times (?:as|faster|slower|fewer|more)\b"  # 115 times as
    # whole numbers that are results, not rules, parameters or sizes ("3 rounds", "2-5 players",
    # "a Pudding is worth +6", "default -1" stay allowed):
    r"|(?<![\w.])[-−+]\d[\d,]*(?= points| a game| of margin)"  # a signed margin: +2 points
    r"|(?<![\w.])\d[\d,]* of (?:them|\d[\d,]*)\b"            # a count: 64 of them, 56 of 100
    r"|(?<![\w.])\d[\d,]* (?:wins|ties|losses)\b"              # 67 ties
    r"|\b(?:won|lost|took|outscored|beat) \d[\d,]*\b")         # took 73 s, won 56
INPUT_FENCES = ("python", "bash", "sh", "toml")


def _blank(match: re.Match) -> str:
  return "\n" * match.group(0).count("\n")


def _comments_only(match: re.Match) -> str:
  """A Python block with its code blanked and its comments kept (and fenced as prose)."""
  return "\n".join(line.partition("#")[2] for line in match.group(0).split("\n"))


def figures_by_hand(page: str, allowed: dict[str, str] | None = None) -> list[str]:
  """The figures a page states outside its generated blocks, its code (inline or fenced
  commands, configs and programs), its link targets and the program output a test checks, as
  `line N: figure`; figures in `allowed` are left out."""
  text = re.sub(r"<!-- generated: [^ ]+ -->\n.*?<!-- end generated -->", _blank, page, flags=re.S)
  # an output block right after the sentence naming the test that checks it
  text = re.sub(r"\(`tests/test_readme\.py`[^\n]*\n\n```\n.*?```", _blank, text, flags=re.S)
  text = re.sub(r"```python\n.*?```", _comments_only, text, flags=re.S)  # a comment may state one
  text = re.sub(r"```(" + "|".join(INPUT_FENCES) + r")\n.*?```", _blank, text, flags=re.S)
  text = re.sub(r"`[^`\n]*`", "", text)
  text = re.sub(r"\]\([^)]*\)", "]", text)
  allowed = {**ALLOWED, **(allowed or {})}
  return [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
          for m in FIGURE.finditer(text) if m.group(0) not in allowed]


@pytest.mark.parametrize("name", PAGES)
def test_no_figure_outside_a_generated_block(name):
  assert figures_by_hand(_read(name), ALLOWED_ON.get(name)) == [], (
      f"{name} states figures by hand: put them in a generated block (experiments/docs.py) or "
      "rephrase; a target or constant that is not a result goes in ALLOWED with its reason")


def test_the_figure_scan_finds_a_planted_figure():
  page = _read("README.md")
  assert figures_by_hand(page) == []
  for planted in ("in 0.62 of games", "a margin of +2.20 [1.76, 2.63]", "in 47% of games",
                  "538 of 1,000 games", "115 times as fast", "by +2 points", "64 of them",
                  "after 67 ties", "though it took 73 s"):
    assert figures_by_hand(page + f"\nThe bot wins {planted}.\n"), planted


def test_the_figure_scan_leaves_numbers_that_are_not_results():
  """Whole numbers of rules, parameters and sizes are prose, not figures of a run."""
  for prose in ("2-5 players", "3 rounds of 10 cards", "the most Puddings score +6, the fewest -6",
                "exact_threshold -1 chooses by budget", "1,000 iterations a move",
                "100 ms of CPU", "one of 4 seats"):
    assert figures_by_hand(f"A game has {prose}.\n") == [], prose


def test_allowed_figures_appear_where_they_are_allowed():
  pages = "".join(_read(p) for p in PAGES)
  unused = [figure for figure in ALLOWED if figure not in pages]
  unused += [f"{page}: {figure}" for page, figures in ALLOWED_ON.items() for figure in figures
             if figure not in _read(page)]
  assert unused == []


# --- links --------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)\)|\!\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: str) -> set[str]:
  """GitHub's anchors of a page's headings: lower case, punctuation but `-` and `_` dropped,
  spaces as `-`, repeats numbered."""
  seen: dict[str, int] = {}
  out = set()
  in_fence = False
  for line in page.splitlines():
    if line.startswith("```"):
      in_fence = not in_fence
    if in_fence or not re.match(r"#{1,6} ", line):
      continue
    slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    out.add(slug if n == 0 else f"{slug}-{n}")
  return out


def _links(page: str) -> list[str]:
  page = re.sub(r"```.*?```", "", page, flags=re.S)
  return [a or b for a, b in LINK.findall(page)]


@pytest.mark.parametrize("name", PAGES)
def test_every_relative_link_and_anchor_resolves(name):
  page, base = _read(name), (ROOT / name).parent
  broken = []
  for target in _links(page):
    if re.match(r"[a-z]+:", target):
      continue
    path, _, anchor = target.partition("#")
    file = (base / path).resolve() if path else ROOT / name
    if not file.exists():
      broken.append(target)
    elif anchor and file.suffix == ".md" and anchor not in anchors(
        file.read_text(encoding="utf-8")):
      broken.append(target)
  assert broken == []


def test_the_link_check_finds_a_broken_anchor_and_file():
  assert "a-first-program" in anchors(_read("README.md"))
  assert "no-such-heading" not in anchors(_read("README.md"))
  assert "docs/no-such-page.md" in _links("see [x](docs/no-such-page.md)")


# --- page length --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", PAGES)
def test_pages_are_short(name):
  limit = 150 if name == "README.md" else 400
  lines = len(_read(name).splitlines())
  assert lines <= limit, f"{name}: {lines} lines"


# --- module docstrings ---------------------------------------------------------------------------

DOCSTRING_LINES = 15  # a module's docstring states its contract and points to the docs for the rest


def long_module_docstrings(packages=("sushigo_spiel", "solvers", "experiments"), root=ROOT):
  """`path: N lines` for every module of `packages` whose docstring is over `DOCSTRING_LINES`."""
  found = []
  for package in packages:
    for path in sorted((root / package).rglob("*.py")):
      text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
      if len(text.splitlines()) > DOCSTRING_LINES:
        found.append(f"{path.relative_to(root).as_posix()}: {len(text.splitlines())} lines")
  return found


def test_module_docstrings_state_the_contract_briefly():
  assert long_module_docstrings() == []


def test_the_docstring_check_finds_a_long_one(tmp_path):
  (tmp_path / "package").mkdir()
  (tmp_path / "package" / "short.py").write_text('"""One line."""\n', encoding="utf-8")
  lines = "\n".join(f"line {i}" for i in range(DOCSTRING_LINES + 1))
  (tmp_path / "package" / "long.py").write_text(f'"""{lines}"""\nx = 1\n', encoding="utf-8")
  assert long_module_docstrings(("package",), tmp_path) == [
      f"package/long.py: {DOCSTRING_LINES + 1} lines"]


def test_the_report_command_checks_the_pages(capsys):
  from experiments import cli  # pylint: disable=import-outside-toplevel
  assert cli.main(["report", "--docs", "--check"]) == 0
  assert "0 page(s) differ" in capsys.readouterr().out
