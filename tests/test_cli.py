"""Tests of the `sushigo` command line: help, bot games of both games, human input, errors and the
benchmark.

The benchmark test only checks that the report is complete: speed targets belong to the benchmark
itself, not to a test that must pass on any machine.
"""

from __future__ import annotations

import io
import json
import pathlib
import re

import pytest

from bench_checks import check_figures, check_verdicts
from experiments.cli import main

TWO_PLAYERS_ONE_ROUND = "python_sushi_go(players=2,rounds=1)"
DRAFT = "python_sushi_draft(players=3)"
DRAFT_ONE_ROUND = "python_sushi_draft(players=3,rounds=1)"
# A row of a Sushi Draft round's chip table: pile, winner, value.
CHIP_ROW = re.compile(r"^  (\S.*?) +(P\d|nobody) +(\d+|hidden|-)$", re.MULTILINE)


def run(capsys, *argv: str) -> tuple[int, str]:
  status = main(list(argv))
  return status, capsys.readouterr().out


def test_help_explains_both_commands(capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["--help"])
  assert exit_info.value.code == 0
  out = capsys.readouterr().out
  assert out.startswith("usage: sushigo")
  assert "play" in out and "bench" in out and "examples:" in out


@pytest.mark.parametrize("command", ["play", "bench"])
def test_help_of_each_command(capsys, command):
  with pytest.raises(SystemExit) as exit_info:
    main([command, "--help"])
  assert exit_info.value.code == 0
  assert f"usage: sushigo {command}" in capsys.readouterr().out


def test_play_prints_turns_round_scores_and_winner(capsys):
  status, out = run(capsys, "play", "--seed", "3")
  assert status == 0
  assert "players=3" in out and "seed 3" in out
  assert "Round 1/3, turn 1/9" in out and "from hand" in out
  assert "last cards, played automatically" in out
  for r in (1, 2, 3):
    assert f"Round {r} scores" in out
  assert "maki  tempura  sashimi  dumpling  nigiri  round  total" in out
  assert "Final scores" in out and "pudding points" in out
  assert re.search(r"^(Winner: P\d|Shared win: P\d)", out, re.MULTILINE)


def test_play_is_reproducible(capsys):
  first = run(capsys, "play", "--seed", "3")
  second = run(capsys, "play", "--seed", "3")
  other = run(capsys, "play", "--seed", "4")
  assert first == second
  assert first[1] != other[1]


def test_play_final_table_adds_up(capsys):
  _, out = run(capsys, "play", "--seed", "5")
  final = out[out.index("Final scores"):]
  rows = re.findall(r"^  P\d +(-?\d+) +(\d+) +(-?\d+) +(-?\d+)$", final, re.MULTILINE)
  assert len(rows) == 3
  for rounds, _, pudding_points, total in rows:
    assert int(rounds) + int(pudding_points) == int(total)


def test_play_any_game_string(capsys):
  status, out = run(capsys, "play", "--seed", "1", "--game", TWO_PLAYERS_ONE_ROUND)
  assert status == 0
  assert "Round 1/1, turn 1/10" in out and "Round 1 scores" in out
  assert "Round 2" not in out
  assert "P1" in out and "P2" not in out
  assert "Final scores" in out


def test_quiet_play_prints_only_scores(capsys):
  status, out = run(capsys, "play", "--seed", "3", "--quiet")
  assert status == 0
  assert "turn" not in out
  assert "Round 3 scores" in out and "Final scores" in out


def test_human_is_prompted_and_reprompted(capsys, monkeypatch):
  monkeypatch.setattr("sys.stdin", io.StringIO("abc\n" + "1\n" * 9))
  status, out = run(capsys, "play", "--seed", "2", "--human", "0", "--game",
                    TWO_PLAYERS_ONE_ROUND)
  assert status == 0
  assert "Players: P0 human, P1 bot" in out
  assert "P0, your view:" in out
  assert out.count("'abc' is not a choice: enter a number from 1 to") == 1
  # Choice 1 is the first action listed, and the reveal shows it.
  first_option = re.search(r"^ +1  (.+)$", out, re.MULTILINE).group(1)
  assert re.search(rf"^  P0 +{re.escape(first_option)}$", out, re.MULTILINE)
  # The human sees its own observation; the bot's hand is never shown whole.
  assert "from hand" not in out and "P1 hand [" not in out
  assert "Final scores" in out


def test_end_of_input_abandons_the_game(capsys, monkeypatch):
  monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
  status, out = run(capsys, "play", "--seed", "2", "--human", "1")
  assert status == 1
  assert "End of input: game abandoned." in out
  assert "Final scores" not in out


def test_play_draft_prints_steps_round_chips_and_winner(capsys):
  status, out = run(capsys, "play", "--seed", "3", "--game", DRAFT)
  assert status == 0
  assert "Players: P0 bot, P1 bot, P2 bot" in out
  assert "Round 1/3, turn 1/5, Eat" in out and "Round 3/3, turn 4/5, Keep" in out
  assert "turn 5/5, Keep" not in out  # the last turn of a round has no Keep step
  # No human plays: every hand, kept card and chip value is shown.
  assert re.search(r"^  player +eats +from hand$", out, re.MULTILINE)
  assert re.search(r"^  player +keeps +from hand$", out, re.MULTILINE)
  assert "a card" not in out and "hidden" not in out
  for r in (1, 2, 3):
    assert f"Round {r} eaten" in out and f"Round {r} chips" in out
  assert "Final chip points" in out
  assert re.search(r"^(Winner: P\d|Shared win: P\d)", out, re.MULTILINE)


def test_play_draft_is_reproducible_and_adds_up(capsys):
  first = run(capsys, "play", "--seed", "5", "--game", DRAFT)
  assert first == run(capsys, "play", "--seed", "5", "--game", DRAFT)
  assert first[1] != run(capsys, "play", "--seed", "6", "--game", DRAFT)[1]
  out = first[1]
  rows = CHIP_ROW.findall(out)
  assert len(rows) == 3 * 6  # every pile, every round
  points = [0, 0, 0]
  for _, winner, value in rows:
    if winner != "nobody":
      points[int(winner[1])] += int(value)
  final = out[out.index("Final chip points"):]
  totals = re.findall(r"^  P\d +\d+ +(\d+)$", final, re.MULTILINE)
  assert [int(t) for t in totals] == points


def test_quiet_draft_prints_only_chips(capsys):
  status, out = run(capsys, "play", "--seed", "3", "--quiet", "--game", DRAFT)
  assert status == 0
  assert "turn" not in out and "eaten" not in out
  assert "Round 3 chips" in out and "Final chip points" in out


def test_draft_human_sees_own_view_and_no_secrets(capsys, monkeypatch):
  monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 9))
  status, out = run(capsys, "play", "--seed", "2", "--human", "0", "--game", DRAFT_ONE_ROUND)
  assert status == 0
  assert "Players: P0 human, P1 bot, P2 bot" in out
  assert "P0, your view:" in out and "Keep" in out
  # Eats are revealed; kept cards, other hands and other players' chip values are not.
  assert re.search(r"^  player +eats$", out, re.MULTILINE)
  assert len(re.findall(r"^  P\d +a card$", out, re.MULTILINE)) == 3 * 4
  assert "from hand" not in out and "P1 hand [" not in out
  rows = CHIP_ROW.findall(out)
  assert len(rows) == 6
  for _, winner, value in rows:
    assert (value == "hidden") == (winner not in ("P0", "nobody"))
  assert re.search(r"^(Winner: P\d|Shared win: P\d)", out, re.MULTILINE)


@pytest.mark.parametrize("game, message", [
    ("nosuch_game", "plays python_sushi_go or python_sushi_draft only"),
    ("python_sushi_go(players=9)", "parameter 'players' is 9"),
    ("python_sushi_go(players=3", "Missing closing bracket"),
    ("python_sushi_draft(players=7)", "parameter 'players' is 7"),
])
def test_bad_game_string_is_a_clear_error(capsys, game, message):
  with pytest.raises(SystemExit) as exit_info:
    main(["play", "--game", game])
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert f"sushigo play: error: --game {game!r}" in err and message in err
  assert "Traceback" not in err


def test_bad_human_seat_is_a_clear_error(capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["play", "--human", "3"])
  assert exit_info.value.code == 2
  assert "--human 3: seats are 0 to 2" in capsys.readouterr().err


def test_bench_reports_ratio_and_writes_json(capsys, tmp_path):
  path = tmp_path / "bench.json"
  status, out = run(capsys, "bench", "--seconds", "0.2", "--repeats", "1", "--json", str(path))
  assert status == 0
  for n in (2, 5):
    assert re.search(rf"Sushi Go {n}p steps/s / goofspiel steps/s +\d\.\d+ +>= 0\.25 +"
                     r"(PASS|BELOW)", out)
  assert re.search(r"Sushi Go 2p full games/s +[\d,]+ +>= 800 +(PASS|BELOW)", out)
  assert re.search(r"^python_sushi_draft\(players=3\) +[\d,]+ +[\d,]+ +\d+\.\d$", out,
                   re.MULTILINE)
  assert "clone() of a mid-game state" in out and "Sushi Draft 3p" in out
  figures = json.loads(path.read_text())
  assert set(figures["games"]) == {"goofspiel(imp_info=True,num_cards=8,players=2)",
                                   "python_sushi_go(players=2)", "python_sushi_go(players=5)",
                                   "python_sushi_draft(players=3)"}
  assert len(figures["targets"]) == 3  # Sushi Draft has no target
  assert len(check_verdicts(out)) == 3
  check_figures(figures)
  conditions = figures["conditions"]
  assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", conditions["date"])
  assert re.fullmatch(r"[0-9a-f]{40}", conditions["git_commit"])
  assert conditions["load_average"] >= 0 and conditions["cores"] >= 1


@pytest.mark.first
def test_bench_search_and_equilibrium_sections(capsys, tmp_path):
  path = tmp_path / "bench.json"
  status, out = run(capsys, "bench", "--seconds", "0.05", "--repeats", "1", "--players", "2",
                    "--search", "--no-compile-times", "--search-players", "2", "--equilibrium", "--equilibrium-game",
                    "tiny", "--json", str(path))
  assert status == 0
  assert re.search(r"so_ismcts 2p / openspiel_ismcts +[\d,]+\.\d+ +>= 50 +(PASS|BELOW)", out)
  assert "pimc worlds/s" in out
  assert re.search(r"ours / C\+\+ warm +\d+\.\d+ +<= 2 +(PASS|BELOW)", out)
  assert re.search(r"OpenSpiel Python / ours +\d+\.\d+ +>= 20 +(PASS|BELOW)", out)
  assert re.search(r"ours / C\+\+ +\d+\.\d+ +<= 2 +(PASS|BELOW)", out)
  figures = json.loads(path.read_text())
  assert figures["equilibrium"]["exploitability"]["cpp_ratio"] > 0
  assert figures["equilibrium"]["cfr"]["ratio"] > 0
  assert figures["search"]["speeds"][0]["medians"]["pimc"] > 0
  assert len(check_verdicts(out)) >= 5  # searchers, equilibrium
  check_figures(figures)


def test_bench_training_scaling(capsys, tmp_path):
  path = tmp_path / "bench.json"
  status, out = run(capsys, "bench", "--seconds", "0.05", "--repeats", "1", "--players", "2",
                    "--draft-players", "2", "--training-workers", "2", "--training-iterations",
                    "100", "--json", str(path))
  assert status == 0
  scaling = json.loads(path.read_text())["training_scaling"]
  assert scaling["iterations"] == 100 and scaling["workers"] == 2
  assert scaling["one_worker"] > 0 and scaling["all_workers"] > 0
  assert scaling["speed_up"] == pytest.approx(scaling["all_workers"] / scaling["one_worker"])
  assert scaling["per_worker"] == pytest.approx(scaling["all_workers"] / 2)
  assert re.search(r"1 process [\d,]+ it/s; 2 processes [\d,]+ it/s \([\d,]+ per worker\),"
                   r" \d+\.\d\d times one's", out)
  assert scaling["abstraction"] == "cards" and "(probe-mccfr, cards, " in out


def test_bench_refuses_an_unknown_training_abstraction(capsys):
  with pytest.raises(SystemExit):
    run(capsys, "bench", "--training-workers", "2", "--training-abstraction", "summary:1")
  assert ("--training-abstraction 'summary:1': unknown; allowed: cards, cards+rank"
          in capsys.readouterr().err)


def test_bench_rl_section(capsys, tmp_path):
  path = tmp_path / "bench.json"
  status, out = run(capsys, "bench", "--seconds", "0.05", "--repeats", "1", "--players", "2",
                    "--draft-players", "2", "--rl", "--json", str(path))
  assert status == 0
  for name in ("batched, 1024 games vs random", "batched, 1024 games vs greedy",
               "batched, 1024 games vs heuristic",
               "PettingZoo parallel env, 1 game", "OpenSpiel rl_environment, 1 game",
               "batched Sushi Draft, 1024 games vs random"):
    assert re.search(rf"^{re.escape(name)} +[\d,]+$", out, re.MULTILINE)
  ratio = float(re.search(r"^Sushi Draft batch / Sushi Go batch, both vs random, same run:"
                          r" ([\d.]+)$", out, re.MULTILINE).group(1))
  assert re.search(r"batched, 1024 games vs random: steps/s +[\d,]+ +>= 1,000,000 +(PASS|BELOW)",
                   out)
  figures = json.loads(path.read_text())
  assert all(rate > 0 for rate in figures["rl"]["steps_per_s"].values())
  rates = figures["rl"]["steps_per_s"]
  assert figures["rl"]["draft_ratio"] == pytest.approx(
      rates["batched Sushi Draft, 1024 games vs random"] / rates["batched, 1024 games vs random"])
  assert ratio == pytest.approx(figures["rl"]["draft_ratio"], abs=0.005)


def test_bench_refuses_an_unknown_reduced_game(capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["bench", "--equilibrium", "--equilibrium-game", "huge", "--seconds", "0.01",
          "--repeats", "1", "--players", "2"])
  assert exit_info.value.code == 2
  assert "unknown reduced game 'huge'; allowed: tiny" in capsys.readouterr().err


def test_train_saves_a_policy_and_reports_its_exploitability(capsys, tmp_path):
  path = tmp_path / "tiny.npz"
  status, out = run(capsys, "train", "tiny", "--algorithm", "cfr+", "--iterations", "300",
                    "--out", str(path), "--quiet")
  assert status == 0 and path.is_file()
  assert "cfr+ on python_sushi_go(" in out and "300 iterations" in out
  nash_conv = float(re.search(r"NashConv in the real game: (\S+)", out).group(1))
  assert 0 <= nash_conv < 1e-3


def test_train_refuses_summary_abstraction_for_full_width_cfr(capsys, tmp_path):
  with pytest.raises(SystemExit) as exit_info:
    main(["train", "tiny", "--algorithm", "cfr", "--abstraction", "summary:1", "--iterations",
          "2", "--out", str(tmp_path / "p.npz")])
  assert exit_info.value.code == 2
  assert "does not fix the legal actions per key" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["train", "tiny", "--algorithm", "nope", "--iterations", "1", "--out", "p.npz"],
     "unknown algorithm 'nope'"),
    (["train", "python_sushi_draft(players=2)", "--iterations", "1", "--out", "p.npz"],
     "more than the limit of 4,000,000"),
    (["run", "/nonexistent.toml"], "cannot read the config"),
    (["run", "pyproject.toml"], "build-system: unknown key"),
    (["play", "--human", "7"], "--human 7: seats are 0 to 2"),
    (["play", "--game", "python_sushi_go(players=9)"], "parameter 'players' is 9"),
    (["bench", "--json", "/"], "(--json) is a folder"),
    (["bench", "--json", ""], "--json is empty; give the path of a file to write the figures to"),
    (["compile", "nope"], "unknown kernel set 'nope'; allowed: "),
    (["report", "/nonexistent"], "not a run folder"),
    (["reproduce", "/nonexistent"], "not a run folder"),
    (["exploitability"], "the following arguments are required: GAME"),
])
def test_every_refusal_is_one_line_with_status_2(capsys, monkeypatch, argv, message):
  monkeypatch.chdir(pathlib.Path(__file__).resolve().parents[1])
  with pytest.raises(SystemExit) as exit_info:
    main(argv)
  assert exit_info.value.code == 2
  err = capsys.readouterr().err
  assert err.count("\n") == 1 and "Traceback" not in err, err
  assert err.startswith(f"sushigo {argv[0]}: error: ") and message in err, err
