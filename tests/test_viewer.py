"""Tests of the viewer without a browser: replays rebuilt from records (and marked when they do not
match), the HTML report's content, the web game's moves, view, records and server, and the command
lines. tests/test_browser.py drives the same pages in headless Chromium."""

from __future__ import annotations

import collections
import json
import re
import urllib.error
import urllib.request

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments import screenshots
from experiments.cli import main
from experiments.viewer import play_server, replay, report_page
from support import finished_run, tournament_config

PROPERTY = settings(max_examples=15, deadline=None, database=None)
GAMES = ["python_sushi_go(players=2)", "python_sushi_go(players=4,rounds=1)",
         "python_sushi_draft(players=2)", "python_sushi_draft(players=3,rounds=1)"]
SMALL = tournament_config("small", 11, "python_sushi_go(players=3,rounds=2)", 3,
                          second_bot='{ name = "heuristic", bot = "heuristic" }')


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
  """A finished three-player tournament of three games (random against the heuristic)."""
  _, run_dir = finished_run(tmp_path_factory.mktemp("small"), SMALL)
  return run_dir


def records_of(run_dir):
  return [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]


def test_replays_rebuild_every_record_and_its_final_scores(small_run):
  for record in records_of(small_run):
    rebuilt = replay.rebuild(record)
    assert rebuilt["problem"] is None
    assert rebuilt["final"]["scores"] == record["scores"]
    assert rebuilt["final"]["winners"] == record["winners"]
    assert [r["points"] for r in rebuilt["rounds"]] == record["rounds"]


def test_every_turn_picks_from_its_hand_by_the_policy_reported(small_run):
  game = pyspiel.load_game(records_of(small_run)[0]["game"])
  rules = game.rules
  for record in records_of(small_run):
    rebuilt = replay.rebuild(record)
    # The last card of a round is played automatically: hand_size - 1 decisions a round.
    assert len(rebuilt["turns"]) == (rules.hand_size - 1) * rules.rounds
    for turn in rebuilt["turns"]:
      for hand, pick, policy in zip(turn["hands"], turn["picks"], turn["policies"]):
        needed = collections.Counter(play_server.action_cards(pick))
        assert not needed - collections.Counter(hand), (pick, hand)
        assert sum(p for _, p in policy) == pytest.approx(1, abs=1e-3)
        assert dict(policy)[pick] > 0


def test_round_points_by_rule_add_up_and_wasabi_is_apart(small_run):
  for record in records_of(small_run):
    rebuilt = replay.rebuild(record)
    for shown, recorded, points in zip(rebuilt["rounds"], record["breakdown"], record["rounds"]):
      for split, categories, total in zip(shown["breakdown"], recorded, points):
        assert sum(split.values()) == total
        assert split["nigiri"] + split["wasabi"] == categories["nigiri"]
        assert split["maki"] == categories["maki"]
    final = rebuilt["final"]
    round_totals = [sum(p) for p in zip(*record["rounds"])]
    assert [r + p for r, p in zip(round_totals, final["pudding_points"])] == record["scores"]


@pytest.mark.parametrize("field, change", [
    ("scores", lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1)),
    ("breakdown", lambda r: r["breakdown"][0][0].__setitem__("maki", 99)),
    ("scores", lambda r: r["bots"][0].__setitem__("seed", r["bots"][0]["seed"] + 1)),
])
def test_a_tampered_record_is_marked(small_run, field, change):
  differing = 0
  for record in records_of(small_run):
    change(record)
    problem = replay.rebuild(record)["problem"]
    if problem is not None:
      assert problem.startswith("the rebuilt game does not match its record")
      differing += field in problem
  assert differing >= 1  # another bot seed changes the random bot's game at least once in three


def test_a_record_that_cannot_be_rebuilt_says_why(small_run):
  record = records_of(small_run)[0]
  record["bots"][0]["bot"] = "no_such_bot"
  problem = replay.rebuild(record)["problem"]
  assert problem.startswith("cannot be rebuilt") and "no_such_bot" in problem


def test_html_report_holds_tables_plots_and_replays_and_names_no_address(small_run):
  path = report_page.write(small_run, replays=2, games=[2], quiet=True)
  text = path.read_text()
  assert "<table>" in text and text.count("data:image/png;base64,") == 3
  data = json.loads(re.search(r'id="report-data">(.*?)</script>', text, re.S).group(1))
  assert sorted(data["replays"]) == ["0", "1", "2"] and len(data["games"]) == 3
  assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?https?:""", text)
  assert "<script src" not in text and "<link rel=\"stylesheet\"" not in text
  manifest = json.loads((small_run / "manifest.json").read_text())["files"]
  assert "report.html" in manifest  # so that --force removes it with the run


def test_markdown_tables_headings_and_code_become_html():
  markdown = "# run\n\nSome `code` & text.\n\n| a | b |\n| --- | ---: |\n| 1 | <2> |\n"
  assert report_page.markdown_html(markdown) == (
      "<h1>run</h1>\n<p>Some <code>code</code> &amp; text.</p>\n"
      "<table><thead><tr><th>a</th><th>b</th></tr></thead>"
      "<tbody><tr><td>1</td><td>&lt;2&gt;</td></tr></tbody></table>")


def test_report_html_command_and_its_refusals(small_run, capsys):
  assert main(["report", str(small_run), "--html", "--replays", "1"]) == 0
  assert f"Wrote {small_run / 'report.html'}" in capsys.readouterr().out
  with pytest.raises(SystemExit):
    main(["report", str(small_run), "--html", "--game", "7"])
  assert "--game 7: no such game in the run; allowed: 0 to 2" in capsys.readouterr().err
  with pytest.raises(SystemExit):
    main(["report", str(small_run), "--replays", "1"])
  assert "add --html" in capsys.readouterr().err


# The web game


@PROPERTY
@given(st.sampled_from(GAMES), st.integers(0, 2**32 - 1))
def test_web_game_moves_are_cards_of_the_hand_and_its_record_rebuilds(game_string, seed):
  game = play_server.WebGame(game_string, "random", {}, seed, human=1)
  rng = np.random.default_rng(seed)
  while True:
    view = game.view()
    if view["final"]:
      break
    assert view["actions"], "a decision with no move"
    for action in view["actions"]:
      assert not collections.Counter(action["cards"]) - collections.Counter(view["hand"])
    game.move(view["actions"][int(rng.integers(len(view["actions"])))]["id"])
  record = json.loads(json.dumps(game.record(0)))
  rebuilt = replay.rebuild(record)
  assert rebuilt["problem"] is None and rebuilt["final"]["scores"] == view["final"]["scores"]


def test_web_game_keeps_other_seats_secrets():
  game = play_server.WebGame("python_sushi_draft(players=3)", "random", {}, 4, human=0)
  while len(game.state.round_records()) < 1:
    game.move(game.view()["actions"][0]["id"])
  view = game.view()
  assert view["points"][1] is None and view["points"][0] is not None
  assert all("?" in view["held"][seat] or view["held"][seat] == "chips none" for seat in (1, 2))
  assert all(chip[2] is None for chip in view["rounds"][0]["chips"] if chip[1] != 0)
  assert view["last_picks"][1] == "Keep a card" or view["last_picks"][1].startswith("Eat")
  assert view["hand"] == game.state.hands()[0] and "hands" not in view  # its own hand only


def test_web_game_refuses_an_illegal_move_and_an_early_record():
  game = play_server.WebGame("python_sushi_go(players=2)", "greedy", {}, 1, human=0)
  with pytest.raises(ValueError, match="is not a move of yours here; allowed: "):
    game.move(999)
  with pytest.raises(ValueError, match="not over yet"):
    game.record(0)


@pytest.mark.parametrize("name, cards", [
    ("Tempura + Sashimi", ["Tempura", "Sashimi"]), ("Eat Wild as Salmon Roll", ["Wild"]),
    ("Keep Tuna Nigiri", ["Tuna Nigiri"]), ("Maki Roll 2", ["Maki Roll 2"])])
def test_action_cards(name, cards):
  assert play_server.action_cards(name) == cards


def request(url, body=None):
  data = None if body is None else json.dumps(body).encode()
  try:
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as answer:
      return answer.status, answer.read().decode()
  except urllib.error.HTTPError as e:
    return e.code, e.read().decode()


def test_server_answers_the_page_the_state_moves_and_errors(tmp_path):
  session = play_server.Session("python_sushi_go(players=2,rounds=1)", "random", {}, 5, 0,
                                tmp_path / "games.jsonl")
  with screenshots.serving(session) as url:
    assert url.startswith("http://127.0.0.1:")
    status, page = request(url)
    assert status == 200 and "<script>" in page and "play.js" not in page
    state = json.loads(request(url + "api/state")[1])
    status, answer = request(url + "api/move", {"action": -1})
    assert status == 400 and "is not a move of yours here" in json.loads(answer)["error"]
    status, answer = request(url + "api/save", {})
    assert status == 400 and "not over yet" in json.loads(answer)["error"]
    while state["final"] is None:
      status, answer = request(url + "api/move", {"action": state["actions"][0]["id"]})
      assert status == 200
      state = json.loads(answer)
    status, answer = request(url + "api/save", {})
    assert status == 200 and json.loads(answer)["index"] == 0
    assert request(url + "nothing")[0] == 404
  saved = json.loads((tmp_path / "games.jsonl").read_text())
  assert saved["bots"][0]["bot"] == "human" and replay.rebuild(saved)["problem"] is None


def test_play_web_refusals(capsys):
  for argv, message in [
      (["play", "--bot", "greedy"], "--bot: options of the game in the browser; add --web"),
      (["play", "--web", "--human", "0", "1"], "the browser game seats one person"),
      (["play", "--web", "--bot", "nobody"], "--bot 'nobody': unknown bot; allowed:"),
      (["play", "--web", "--param", "depth"], "--param 'depth': expected KEY=VALUE"),
      (["play", "--web", "--bot", "greedy", "--param", "depth=2"],
       "unknown parameter(s) depth for GreedyBot")]:
    with pytest.raises(SystemExit):
      main(argv)
    assert message in capsys.readouterr().err
