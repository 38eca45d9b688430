"""Sizes before work: what cannot fit is refused before anything runs, with the estimate in the
sentence; seating cycles counted without listing them; time estimates say where they come from;
a solving result cut short is refused, not reported as fewer games; an empty game string is
refused like any bad one."""

from __future__ import annotations

import json
import re
import resource

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments import estimates
from experiments import run_folder
from experiments.cli import main
from experiments.tournament import config as tournament_config
from support import tournament_config as tournament_text

SO_ISMCTS = '{ name = "search", bot = "so_ismcts", params = { iterations = %d } }'
PIMC = '{ name = "search", bot = "pimc", params = { iterations = %d } }'
TINY_GAME = "python_sushi_go(players=2,rounds=1)"


def refusal(capsys, argv: list[str]) -> str:
  """The one line of a command refused with exit status 2."""
  with pytest.raises(SystemExit) as refused:
    main(argv)
  assert refused.value.code == 2
  err = capsys.readouterr().err.strip().splitlines()
  assert len(err) == 1 or err[-2].startswith("Note: "), err
  return err[-1]


@pytest.mark.parametrize("bot, iterations, what", [
    (SO_ISMCTS, 10**15, "players[1] 'search' (so_ismcts iterations=1e+15) may take up to"),
    (PIMC, 10**15, "players[1] 'search' (pimc iterations=1e+15) may take up to"),
])
def test_a_search_tree_that_cannot_fit_is_refused_before_the_bot_is_built(
    tmp_path, capsys, bot, iterations, what):
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("big", 1, TINY_GAME, 2, bot % iterations))
  line = refusal(capsys, ["run", str(config), "--out", str(tmp_path / "run"), "--quiet"])
  assert what in line and "of search tree" in line and "available; allowed: fewer iterations" \
      in line, line
  assert not (tmp_path / "run").exists()


def test_the_tree_estimate_grows_with_the_iterations_and_the_trees():
  from experiments.config import load_game  # pylint: disable=import-outside-toplevel
  from solvers.search.ismcts import MOISMCTSBot, SOISMCTSBot  # pylint: disable=C0415
  game = load_game("python_sushi_go(players=3)")
  single = [SOISMCTSBot.decision_memory(game, {"iterations": n}) for n in (10, 1000, 10**6)]
  assert single[0] < single[1] < single[2]
  assert MOISMCTSBot.decision_memory(game, {"iterations": 1000}) > single[1]
  assert SOISMCTSBot.decision_memory(game, {"iterations": 1000, "seconds": 0.1}) == 0


@pytest.mark.parametrize("bot", ["so_ismcts", "mo_ismcts"])
def test_the_tree_a_search_grows_stays_within_its_estimate(bot):
  import solvers  # pylint: disable=import-outside-toplevel
  from experiments.config import load_game  # pylint: disable=import-outside-toplevel
  game = load_game("python_sushi_go(players=3)")
  searcher = solvers.make_bot(bot, game, 0, 7, iterations=5000)
  searcher.step(estimates.first_decision(game, 7))
  tree = searcher._search.compiled_search.tree  # pylint: disable=protected-access
  grown = sum(array.nbytes for array in (tree.node_rows, *tree.stats, tree.slot_parent,
                                         tree.slot_key, tree.slot_child))
  assert grown <= type(searcher).decision_memory(game, {"iterations": 5000})


def test_a_trillion_games_are_refused_with_their_records_size(tmp_path, capsys):
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("big", 1, TINY_GAME, 10**12))
  line = refusal(capsys, ["run", str(config), "--out", str(tmp_path / "run"), "--quiet"])
  assert line.startswith("sushigo run: error: the records of 1,000,000,000,000 games"), line
  assert "PiB of memory; this machine has" in line


def test_sixty_two_competitors_at_five_seats_are_refused_by_their_seating_cycle(tmp_path, capsys):
  players = "\n".join(f'[[players]]\nname = "p{i}"\nbot = "random"\n' for i in range(62))
  config = tmp_path / "c.toml"
  config.write_text('[experiment]\nname = "many"\nseed = 1\nnum_games = 6\n'
                    'games = ["python_sushi_go(players=5)"]\n\n' + players)
  line = refusal(capsys, ["run", str(config), "--out", str(tmp_path / "run"), "--quiet"])
  assert "the seating cycles (" in line and "of memory; this machine has" in line, line


@settings(max_examples=60, deadline=None)
@given(seats=st.integers(1, 6), competitors=st.integers(1, 7),
       rotation=st.sampled_from(tournament_config.ROTATIONS), anchored=st.booleans())
def test_the_cycle_is_counted_exactly_without_listing_it(seats, competitors, rotation, anchored):
  anchor = 0 if anchored and competitors >= 2 and seats >= 2 else None
  assert tournament_config.cycle_length(seats, competitors, rotation, anchor) == len(
      tournament_config.schedule(seats, competitors, rotation, anchor))


def test_a_record_file_over_the_file_size_limit_is_refused_before_the_first_game(tmp_path):
  soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
  resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, hard))
  try:
    with pytest.raises(estimates.TooLarge, match="in one file; this process may write files of"
                       " at most 97.7 KiB"):
      estimates.check_disk("the games of this run", 10**6, tmp_path, "fewer games")
  finally:
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_exploitability_games_that_cannot_be_listed_are_refused_as_games(tmp_path, capsys):
  line = refusal(capsys, ["exploitability", "python_sushi_go(players=2,utility=margin)", "--bot",
                          "random", "--games", str(10**12), "--out", str(tmp_path / "run"),
                          "--quiet"])
  assert line.startswith("sushigo exploitability: error: --games: its 400,000,000,000 units"), line
  assert "fewer paired games (--games)" in line


def test_a_responder_whose_tree_cannot_fit_is_refused_naming_it(tmp_path, capsys):
  line = refusal(capsys, ["exploitability", "python_sushi_go(players=2,utility=margin)", "--bot",
                          "random", "--responder", "ismcts:iterations=1000000000000000", "--out",
                          str(tmp_path / "run"), "--quiet"])
  assert line.startswith("sushigo exploitability: error: approximate responder"
                         " 'ismcts:iterations=1000000000000000' (so_ismcts iterations=1e+15) may"
                         " take up to "), line


def test_more_workers_than_cores_are_warned(tmp_path, capsys, monkeypatch):
  monkeypatch.setattr(estimates, "usable_cores", lambda: 1)
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("tiny", 1, TINY_GAME, 2))
  assert main(["run", str(config), "--out", str(tmp_path / "run"), "--workers", "2",
               "--quiet"]) == 0
  assert "Note: --workers 2 is more than the 1 core this process may use" in \
      capsys.readouterr().err


def test_a_long_run_gets_a_calibrated_time_estimate_and_a_resumed_one_a_stored_one(
    tmp_path, capsys, monkeypatch):
  monkeypatch.setattr(estimates, "LONG_RUN_SECONDS", 0.0)
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("tiny", 1, TINY_GAME, 4))
  run_dir = tmp_path / "run"
  assert main(["run", str(config), "--out", str(run_dir)]) == 0
  err = capsys.readouterr().err
  assert "Note: estimated time " in err and "4 games at about" in err and \
      "calibrated on a few timed decisions of each competitor" in err, err
  records = run_dir / run_folder.RECORDS_FILE
  records.write_text("".join(records.read_text().splitlines(keepends=True)[:3]))
  assert main(["run", str(config), "--out", str(run_dir)]) == 0
  assert "1 game at about" in capsys.readouterr().err and "the mean of the 3 stored timings"


def test_a_solving_result_cut_short_is_refused_not_reported_as_fewer_games(tmp_path, capsys):
  run_dir = tmp_path / "run"
  assert main(["exploitability", "tiny", "--bot", "random", "--approximate", "--responder",
               "ismcts:iterations=5", "--games", "12", "--out", str(run_dir), "--quiet"]) == 0
  results = run_dir / run_folder.RESULTS_FILE
  lines = results.read_text().splitlines(keepends=True)
  number = next(n for n, line in enumerate(lines) if "agent" in json.loads(line))
  cut = json.loads(lines[number])
  cut["agent"], cut["self_play"] = cut["agent"][:3], cut["self_play"][:3]
  lines[number] = json.dumps(cut) + "\n"
  results.write_text("".join(lines))
  capsys.readouterr()
  for command in (["report", str(run_dir)], ["reproduce", str(run_dir)]):
    line = refusal(capsys, command)
    assert f"{results}, line {number + 1}: unit {cut['unit']}'s 'agent' holds 3 values, not" \
        in line, line


@pytest.mark.parametrize("argv", [
    ["play", "--game", ""], ["train", "", "--iterations", "3", "--out", "x.npz"],
    ["exploitability", "", "--bot", "random"], ["play", "--game", "  "],
])
def test_an_empty_game_string_is_refused_like_any_bad_one(capsys, argv, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  line = refusal(capsys, argv)
  assert "game" in line and "allowed:" in line, line


@pytest.mark.parametrize("left", [
    ["manifest.json", "config.toml.123.0123abcd.tmp"],
    ["manifest.json.77.deadbeef.tmp"],
    ["manifest.json", "config.toml", "resolved_config.json.5.00ff00ff.tmp"],
])
def test_a_run_killed_while_preparing_its_folder_resumes(tmp_path, left):
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("tiny", 1, TINY_GAME, 2))
  run_dir = tmp_path / "run"
  run_dir.mkdir()
  for name in left:
    (run_dir / name).write_text(json.dumps({"files": ["config.toml", "manifest.json"]})
                                if name == "manifest.json" else "cut")
  assert main(["run", str(config), "--out", str(run_dir), "--quiet"]) == 0
  assert not list(run_dir.glob("*.tmp"))
  assert len((run_dir / run_folder.RECORDS_FILE).read_text().splitlines()) == 2


def test_a_folder_holding_someone_elses_config_is_still_refused(tmp_path, capsys):
  config = tmp_path / "c.toml"
  config.write_text(tournament_text("tiny", 1, TINY_GAME, 2))
  run_dir = tmp_path / "run"
  run_dir.mkdir()
  (run_dir / "config.toml").write_text("mine")
  line = refusal(capsys, ["run", str(config), "--out", str(run_dir), "--quiet"])
  assert "is not empty and holds no run" in line
  assert (run_dir / "config.toml").read_text() == "mine"


def _late_decision(game, seed: int):
  """A decision node at the start of `game`'s last round, its chance and picks drawn from
  `seed`."""
  import numpy as np  # pylint: disable=import-outside-toplevel
  rng, state = np.random.default_rng(seed), game.new_initial_state()
  while state.is_chance_node() or len(state.round_records()) < game.rules.rounds - 1:
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[rng.choice(len(outcomes), p=probabilities)])
    else:
      state.apply_actions([int(rng.choice(state.legal_actions(p)))
                           for p in range(game.num_players())])
  return state


def _traced_decision(bot, state) -> int:
  """The peak bytes `bot` allocates deciding at `state`, traced by tracemalloc."""
  import tracemalloc  # pylint: disable=import-outside-toplevel
  tracemalloc.start()
  try:
    bot.step(state)
    return tracemalloc.get_traced_memory()[1]
  finally:
    tracemalloc.stop()


@pytest.mark.parametrize("params", [{}, {"worlds": 64}, {"root": "public", "ranges": 5}])
def test_a_subgame_solve_takes_the_memory_its_estimate_says(params):
  import solvers  # pylint: disable=import-outside-toplevel
  from experiments.config import load_game  # pylint: disable=import-outside-toplevel
  game = load_game("python_sushi_go(players=2)")
  bot = solvers.make_bot("subgame", game, 0, 5, **params)
  state = estimates.first_decision(game, 5)
  bot.step(state)  # compiles the kernels on first use
  traced = _traced_decision(bot, state)
  estimate = type(bot).decision_memory(game, params)
  assert traced / 2.5 <= estimate <= traced * 2.5, (traced, estimate)


def test_openspiel_ismcts_takes_at_most_its_estimate_and_comes_within_its_factor_late():
  import solvers  # pylint: disable=import-outside-toplevel
  from experiments.config import load_game  # pylint: disable=import-outside-toplevel
  game = load_game("python_sushi_go(players=2)")
  params = {"iterations": 600}
  estimate = solvers.bot_class("openspiel_ismcts").decision_memory(game, params)
  opening = _traced_decision(solvers.make_bot("openspiel_ismcts", game, 0, 3, **params),
                             estimates.first_decision(game, 3))
  late = _traced_decision(solvers.make_bot("openspiel_ismcts", game, 0, 3, **params),
                          _late_decision(game, 3))
  assert opening <= estimate and late / 2.5 <= estimate <= late * 2.5, (opening, late, estimate)
  assert solvers.bot_class("openspiel_ismcts").decision_memory(
      game, {"iterations": 600, "seconds": 1.0}) == 0


def test_the_web_game_refuses_a_bot_whose_tree_cannot_fit_before_serving(capsys, tmp_path,
                                                                          monkeypatch):
  monkeypatch.chdir(tmp_path)
  line = refusal(capsys, ["play", "--web", "--game", "python_sushi_go(players=3)", "--bot",
                          "so_ismcts", "--param", "iterations=1000000000000000"])
  assert line.startswith("sushigo play: error: --bot so_ismcts --param"
                         " iterations=1000000000000000, at 2 seat(s), (so_ismcts iterations=1e+15)"
                         " may take up to "), line
  assert "available; allowed: fewer iterations" in line


def refusal_and_notes(capsys, argv: list[str]) -> tuple[str, str]:
  """The refusal line of a command refused with exit status 2, and everything it wrote to
  stderr before it."""
  with pytest.raises(SystemExit) as refused:
    main(argv)
  assert refused.value.code == 2
  err = capsys.readouterr().err.strip()
  return err.splitlines()[-1], err


def test_the_web_game_notes_a_long_turn_of_the_bots(capsys, tmp_path, monkeypatch):
  import socket  # pylint: disable=import-outside-toplevel
  from experiments.commands import play  # pylint: disable=import-outside-toplevel
  monkeypatch.chdir(tmp_path)
  monkeypatch.setattr(play, "WEB_TURN_SECONDS", 0.0)
  with socket.socket() as taken:
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    line, err = refusal_and_notes(capsys, [
        "play", "--web", "--game", "python_sushi_go(players=2)", "--bot", "so_ismcts", "--param",
        "iterations=500", "--port", str(port)])
  assert line.startswith(f"sushigo play: error: --port {port}:"), line
  assert "Note: each turn the bots take about " in err and "(1 seat(s), calibrated on a few" \
      " timed decisions under a scaled-down budget)" in err, err


def test_bench_refuses_a_search_whose_tree_outgrows_memory_in_its_seconds(capsys):
  line = refusal(capsys, ["bench", "--search", "--seconds", "1e9"])
  assert line.startswith("sushigo bench: error: --search --seconds 1e+09: mo_ismcts (mo_ismcts"
                         " iterations=1e+14) may take up to "), line
  assert "allowed: a smaller --seconds" in line


def test_bench_counts_its_timed_measurements_and_notes_them_when_long(capsys, monkeypatch):
  from solvers.opponents import COMPILED_BOTS  # pylint: disable=import-outside-toplevel
  monkeypatch.setattr(estimates, "LONG_RUN_SECONDS", 0.0)
  line, err = refusal_and_notes(capsys, [
      "bench", "--seconds", "2", "--repeats", "3", "--players", "2", "4", "--draft-players", "3",
      "--rl", "--json", "missing/x.json"])
  assert "missing/x.json" in line, line
  games, rl = 2 * 4 * 3, (len(COMPILED_BOTS) + 3) * 3  # the game, 2 and 4 players, the draft
  assert f"Note: estimated time {estimates.format_seconds((games + rl) * 2)}:" \
      f" {games + rl} timed measurements at about 2 s each (each lasts --seconds)" in err, err


def test_a_blueprint_training_whose_tables_cannot_fit_is_refused(
    capsys, tmp_path, monkeypatch):
  monkeypatch.setattr(estimates, "usable_cores", lambda: 10**7)
  line = refusal(capsys, ["train", "python_sushi_go(players=2)", "--abstraction", "cards",
                          "--algorithm", "probe-mccfr", "--iterations", str(10**9), "--workers",
                          str(10**7), "--out", str(tmp_path / "b.npz")])
  assert line.startswith("sushigo train: error: the blueprint's tables, one set in each of"
                         " 10,000,000 process(es), would take 228.9 TiB of memory"), line
  assert not (tmp_path / "b.npz").exists()


def test_a_long_blueprint_training_gets_its_time_at_the_stored_rate(capsys, tmp_path):
  line, err = refusal_and_notes(capsys, [
      "train", "python_sushi_go(players=4)", "--abstraction", "cards", "--algorithm",
      "probe-mccfr", "--iterations", str(10**8), "--out", str(tmp_path / "no" / "b.npz")])
  assert "does not exist" in line, line
  assert "Note: estimated time 6.8 days: 100,000,000 iterations at about 0.0058 s each (the rate" \
      " the stored blueprint of 4 players was trained at) on 1 worker" in err, err


def test_a_long_tabular_training_gets_its_time_before_anything(capsys, tmp_path):
  line, err = refusal_and_notes(capsys, ["train", "small", "--iterations", str(10**7), "--out",
                                         str(tmp_path / "missing" / "a.npz")])
  assert "missing" in line, line
  assert "Note: estimated time " in err and "10,000,000 iterations at about" in err and \
      "nodes at 1.3e-07 s each, as CFR+ on `small` measured" in err, err


def test_a_ppo_batch_that_cannot_fit_is_refused_before_it_is_built(capsys, tmp_path):
  pytest.importorskip("jax")
  line = refusal(capsys, ["train", "python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                          f"num_envs={10**12}", "--iterations", "1", "--out",
                          str(tmp_path / "p.npz")])
  assert line.startswith("sushigo train: error: PPO's 1,000,000,000,000 games (--ppo num_envs),"
                         " its rollout of 16 steps each and its network of 128 units a layer"
                         " would take "), line
  assert "allowed: fewer num_envs, rollout_steps or hidden (--ppo)" in line


def test_a_ppo_network_that_cannot_fit_is_refused_before_it_is_drawn(capsys, tmp_path):
  pytest.importorskip("jax")
  line = refusal(capsys, ["train", "python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                          f"hidden={10**9}", "--iterations", "1", "--out",
                          str(tmp_path / "p.npz")])
  assert "its network of 1,000,000,000 units a layer would take " in line, line


def test_a_solving_run_gets_a_calibrated_time_estimate(tmp_path, capsys, monkeypatch):
  monkeypatch.setattr(estimates, "LONG_RUN_SECONDS", 0.0)
  assert main(["exploitability", "tiny", "--bot", "so_ismcts", "--param", "iterations=20",
               "--approximate", "--responder", "ismcts:iterations=5", "--games", "2", "--out",
               str(tmp_path / "run")]) == 0
  err = capsys.readouterr().err
  assert "Note: estimated time " in err and "calibrated on a few timed decisions of each" \
      " competitor and responder, and the tree's size at a measured cost a node" in err, err


def test_the_web_game_refuses_bots_whose_turn_a_person_cannot_wait_for(capsys, tmp_path,
                                                                       monkeypatch):
  monkeypatch.chdir(tmp_path)
  line = refusal(capsys, ["play", "--web", "--game", "python_sushi_go(players=4)", "--bot",
                          "pimc", "--param", "worlds=1000000000000000", "--port", "0"])
  assert line.startswith("sushigo play: error: --bot pimc --param worlds=1000000000000000: each"
                         " turn the bots would take about "), line
  assert "(3 seat(s), calibrated on a few timed decisions under a scaled-down budget); allowed:" \
      " a budget whose turn takes at most 1.0 h (a person waits for it)" in line, line


@pytest.mark.parametrize("value, sentence", [
    (str(2**62), "(openspiel_ismcts iterations=4.61169e+18) may take up to"),
    ("1.5", "parameter 'iterations' is 1.5; allowed: an integer >= 1"),
])
def test_the_web_game_refuses_openspiel_ismcts_budgets_it_cannot_run(capsys, tmp_path, monkeypatch,
                                                                    value, sentence):
  monkeypatch.chdir(tmp_path)
  line = refusal(capsys, ["play", "--web", "--game", "python_sushi_go(players=2)", "--bot",
                          "openspiel_ismcts", "--param", f"iterations={value}", "--port", "0"])
  assert sentence in line, line


@pytest.mark.parametrize("bot", ["pimc", "so_ismcts", "openspiel_ismcts"])
def test_exploitability_refuses_a_bot_whose_tree_cannot_fit_before_building_it(capsys, tmp_path,
                                                                               bot):
  line = refusal(capsys, ["exploitability", "python_sushi_go(players=2,utility=margin)", "--bot",
                          bot, "--param", f"iterations={10**15}", "--games", "2", "--out",
                          str(tmp_path / "r"), "--quiet"])
  assert line.startswith(f"sushigo exploitability: error: --bot {bot} ({bot} iterations=1e+15)"
                         " may take up to "), line
  assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("kind, table, warm_up", [
    ("convergence", 'algorithms = ["cfr+", "es-mccfr"]\nabstraction = "identity"\n'
                    'iterations = { "cfr+" = 300, es-mccfr = 20000 }\ncheckpoints = 3',
     'algorithms = ["cfr+", "es-mccfr"]\nabstraction = "identity"\n'
     'iterations = { "cfr+" = 3, es-mccfr = 200 }\ncheckpoints = 3'),
    ("abstraction", 'abstractions = ["identity", "buckets:2", "cards"]\nalgorithm = "cfr+"\n'
                    'iterations = 1200\nblueprint_iterations = 80000',
     'abstractions = ["identity", "buckets:2", "cards"]\nalgorithm = "cfr+"\n'
     'iterations = 3\nblueprint_iterations = 200'),
])
def test_the_solver_training_kinds_get_a_calibrated_time_estimate(tmp_path, capsys, monkeypatch,
                                                                  kind, table, warm_up):
  """A convergence or abstraction run notes its time before it starts, from each solver's timed
  iterations and a timed evaluation, within a factor 4 of the CPU time the run then takes (CPU
  time: the units' recorded timings are wall seconds, which a loaded machine stretches). A first
  run pays once in the process what the estimate does not count (loading kernels, importing the
  plotting), so the run measured is the second (the first, `warm_up`, is short). Its units are
  long enough (seconds) that what the estimate leaves out, the report's plot (about 0.7 CPU s),
  weighs little against them."""
  from experiments import runner
  monkeypatch.setattr(estimates, "LONG_RUN_SECONDS", 0.0)
  header = f'[experiment]\nname = "t"\nkind = "{kind}"\nseed = 1\ngames = ["tiny"]\n\n[{kind}]\n'
  (tmp_path / "warm_up.toml").write_text(f"{header}{warm_up}\n")
  runner.run(tmp_path / "warm_up.toml", out=tmp_path / "first")
  config = tmp_path / "config.toml"
  config.write_text(f"{header}{table}\n")
  capsys.readouterr()
  start = resource.getrusage(resource.RUSAGE_SELF)
  runner.run(config, out=tmp_path / "run")
  end = resource.getrusage(resource.RUSAGE_SELF)
  err = capsys.readouterr().err
  assert "calibrated on each solver's iterations and an exact evaluation, timed" in err, err
  estimate = float(re.search(r"Note: estimated time ([0-9.]+) s", err).group(1))
  spent = end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime  # the report's included
  assert spent / 4 <= estimate <= spent * 4, (estimate, spent)
