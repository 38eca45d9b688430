"""Tests of the solving experiments (`experiments/solving/`): configs, runs, resume, reproduce.

Every run here is on the `tiny` reduced game, whose tree has 68 information sets per player, so a
whole experiment takes a fraction of a second. Figures are checked against the solvers called
directly, and against the exploitability module on policies known independently (uniform).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pyspiel
import pytest

from experiments import config as config_lib
from experiments import run_folder
from experiments import runner
from experiments import solving
from experiments.solving import approximate as approximate_kind
from experiments.tournament import config as tournament_config
from solvers.equilibrium import approximate
from solvers.equilibrium import exploitability
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from sushigo_spiel import reduced_games
from experiments.cli import main

TINY = reduced_games.REDUCED_GAMES["tiny"].game_string

CONVERGENCE = """
[experiment]
name = "convergence"
kind = "convergence"
seed = 3
games = ["tiny"]

[convergence]
algorithms = ["cfr", "cfr+", "os-mccfr"]
iterations = { cfr = 40, "cfr+" = 40, os-mccfr = 300 }
checkpoints = 4
"""

EXACT = """
[experiment]
name = "exact"
kind = "exploitability"
seed = 3
games = ["tiny"]

[[players]]
bot = "random"

[[players]]
bot = "greedy"
"""

APPROXIMATE = """
[experiment]
name = "approximate"
kind = "approximate_exploitability"
seed = 3
games = ["tiny"]

[approximate]
num_games = 12
agent = { iterations = 30 }
exact = true

[[players]]
bot = "random"
"""


def write(tmp_path: pathlib.Path, text: str) -> pathlib.Path:
  path = tmp_path / "config.toml"
  path.write_text(text, encoding="utf-8")
  return path


def results(run_dir: pathlib.Path) -> list[dict]:
  lines = (run_dir / solving.RESULTS_FILE).read_text().splitlines()
  return sorted((json.loads(line) for line in lines), key=lambda r: r["unit"])


@pytest.fixture(scope="module")
def tiny_tree() -> GameTree:
  return GameTree(reduced_games.load_reduced("tiny"))


@pytest.fixture(scope="module")
def convergence_run(tmp_path_factory) -> pathlib.Path:
  directory = tmp_path_factory.mktemp("convergence")
  return solving.run(write(directory, CONVERGENCE), out=directory / "run", quiet=True)


def test_convergence_points_match_the_solvers_run_directly(convergence_run, tiny_tree):
  entries = results(convergence_run)
  assert [(e["algorithm"], [p["iterations"] for p in e["points"]]) for e in entries] == [
      ("cfr", [1, 3, 12, 40]), ("cfr+", [1, 3, 12, 40]), ("os-mccfr", [1, 7, 45, 300])]
  from solvers.equilibrium.cfr import CFRPlus  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.abstraction import make_abstraction  # pylint: disable=import-outside-toplevel
  game = reduced_games.load_reduced("tiny")
  solver = CFRPlus(game, make_abstraction("identity", game), tree=tiny_tree)
  solver.run(iterations=40)
  direct = exploitability.exploitability(tiny_tree, solver.average_policy_array())
  assert entries[1]["points"][-1]["exploitability"] == pytest.approx(direct, abs=1e-12)
  cfr_plus = [p["exploitability"] for p in entries[1]["points"]]
  assert cfr_plus[-1] < cfr_plus[0] / 10
  cpu = [p["cpu_seconds"] for p in entries[1]["points"]]
  assert cpu == sorted(cpu) and cpu[-1] > 0


def test_convergence_run_writes_report_plots_and_provenance(convergence_run):
  for name in (solving.SUMMARY_MD, solving.RESULTS_CSV, run_folder.PROVENANCE_FILE,
               run_folder.RESOLVED_FILE, "plots/convergence_tiny.png"):
    assert (convergence_run / name).is_file(), name
  summary = (convergence_run / solving.SUMMARY_MD).read_text()
  assert "| tiny | cfr+ | 40 |" in summary
  rows = (convergence_run / solving.RESULTS_CSV).read_text().splitlines()
  assert len(rows) == 1 + 4 + 4 + 4


def test_interrupted_run_resumes_with_the_same_figures(convergence_run, tmp_path):
  config = solving.load(write(tmp_path, CONVERGENCE))
  run_dir = tmp_path / "run"
  run_folder.prepare(run_dir, config, force=False)
  first, _ = solving.run_unit(config, config.units()[0])
  (run_dir / solving.RESULTS_FILE).write_text(json.dumps(first) + "\n" + '{"unit": 1, "alg')
  solving.run(write(tmp_path, CONVERGENCE), out=run_dir, quiet=True)
  strip = solving.without_seconds
  assert strip(results(run_dir)) == strip(results(convergence_run))


def test_reproduce_matches_a_run(convergence_run, capsys):
  assert main(["reproduce", str(convergence_run)]) == 0
  assert "Match: all 3 results reproduced exactly" in capsys.readouterr().out


SEEDED = EXACT.replace('games = ["tiny"]', 'games = ["tiny"]\nseeds = 3') + """
[[players]]
name = "so"
bot = "so_ismcts"
params = { iterations = 20 }
"""


def test_seeds_measure_a_search_bot_with_each_seed_and_a_baseline_once(tmp_path):
  """With `seeds`, the search bot is measured three times, with three seeds (its policy is a
  draw), the baselines once; the report gives the mean with the range of the draws."""
  run_dir = solving.run(write(tmp_path, SEEDED), out=tmp_path / "run", quiet=True)
  entries = results(run_dir)
  assert [(e["competitor"], e["draw"]) for e in entries] == [
      ("random", 0), ("greedy", 0), ("so", 0), ("so", 1), ("so", 2)]
  draws = [e["exploitability"] for e in entries[2:]]
  row = next(line for line in (run_dir / "summary.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("| tiny | so |"))
  assert row.split(" | ")[2:4] == [
      "3", f"{np.mean(draws):.4f} [{min(draws):.4f}, {max(draws):.4f}]"]


def test_seeds_are_refused_for_a_kind_that_reports_its_own_intervals(tmp_path):
  text = CONVERGENCE.replace('games = ["tiny"]', 'games = ["tiny"]\nseeds = 2')
  with pytest.raises(config_lib.ConfigError,
                     match="experiment.seeds: 2 seeds for kind 'convergence'"):
    solving.parse(text)


def test_exact_exploitability_of_the_random_bot_is_the_uniform_policys(tmp_path, tiny_tree):
  run_dir = solving.run(write(tmp_path, EXACT), out=tmp_path / "run", quiet=True)
  random_entry, greedy_entry = results(run_dir)
  uniform = exploitability.nash_conv(tiny_tree, tiny_tree.uniform_policy())
  assert random_entry["nash_conv"] == pytest.approx(uniform.nash_conv, abs=1e-12)
  assert random_entry["exploitability"] == pytest.approx(uniform.nash_conv / 2, abs=1e-12)
  assert greedy_entry["nash_conv"] != pytest.approx(uniform.nash_conv)
  assert np.sum(greedy_entry["gains"]) == pytest.approx(greedy_entry["nash_conv"])


def test_approximate_bound_is_reported_beside_the_exact_gain(tmp_path, tiny_tree):
  run_dir = solving.run(write(tmp_path, APPROXIMATE), out=tmp_path / "run", quiet=True)
  entries = results(run_dir)
  exact = [e for e in entries if e.get("exact")]
  assert len(exact) == 1
  uniform = exploitability.nash_conv(tiny_tree, tiny_tree.uniform_policy())
  assert exact[0]["gains"] == pytest.approx(uniform.gains.tolist(), abs=1e-12)
  games = [e for e in entries if "seat" in e]
  assert sorted((e["seat"], tuple(e["games"])) for e in games) == [
      (0, (0, 10)), (0, (10, 12)), (1, (0, 10)), (1, (10, 12))]
  assert all(len(e["agent"]) == len(e["self_play"]) == e["games"][1] - e["games"][0]
             for e in games)
  summary = (run_dir / solving.SUMMARY_MD).read_text()
  row = next(line for line in summary.splitlines() if line.startswith("| tiny | random |"))
  with_exact_value, with_value_sum = [cell.strip() for cell in row.split("|")][7:9]
  # tiny is zero-sum: the policy's exact seat values sum to 0, so with as many games in each seat
  # the bound from the responder's returns alone is the bound with the exact values, interval too.
  agent = [[a for e in games if e["seat"] == seat for a in e["agent"]] for seat in (0, 1)]
  assert with_value_sum.startswith(f"{(np.mean(agent[0]) + np.mean(agent[1])) / 2:.3f} [")
  assert with_exact_value.startswith(with_value_sum + ",")


BASELINE = """
[experiment]
name = "baseline"
kind = "approximate_exploitability"
seed = 4
games = ["tiny"]

[approximate]
num_games = 6
baseline = "random"

[approximate.responders]
few = { responder = "ismcts", iterations = 20 }
lbr = { responder = "lbr", depth = 1, against = ["random", "greedy"] }

[[players]]
bot = "greedy"

[[players]]
bot = "random"

[[players]]
bot = "so_ismcts"
params = { iterations = 5 }
"""


def test_a_baseline_gives_each_bound_less_its_own_game_by_game(tmp_path):
  path = write(tmp_path, BASELINE)
  run_dir = solving.run(path, out=tmp_path / "run", quiet=True)
  config = solving.load(path)
  entries = results(run_dir)
  compared = approximate_kind.differences(config, entries)
  # lbr does not play so_ismcts, so three comparisons, not four
  assert [(d["competitor"], d["responder"]) for d in compared] == [
      ("greedy", "few"), ("greedy", "lbr"), ("so_ismcts", "few")]

  def games(competitor, responder):
    return {(e["seat"], k): (a, p) for e in entries if e.get("competitor") == competitor
            and e.get("responder") == responder
            for k, a, p in zip(range(*e["games"]), e["agent"], e["self_play"])}

  for d in compared:
    mine, theirs = games(d["competitor"], d["responder"]), games("random", d["responder"])
    assert d["games"] == len(mine) == len(theirs) == 12
    for which, value in (("paired", lambda g: g[0] - g[1]), ("returns_alone", lambda g: g[0])):
      by_seat = [np.array([value(mine[(seat, k)]) - value(theirs[(seat, k)]) for k in range(6)])
                 for seat in (0, 1)]
      mean = (by_seat[0].mean() + by_seat[1].mean()) / 2
      half = 1.959964 * np.sqrt(sum(b.var(ddof=1) / 6 for b in by_seat)) / 2
      estimate = d[which]
      assert estimate.value == pytest.approx(mean, abs=1e-12)
      assert (estimate.low, estimate.high) == pytest.approx((mean - half, mean + half), abs=1e-5)
  summary = (run_dir / solving.SUMMARY_MD).read_text()
  assert "Each bound less random's, game by game" in summary
  assert "| tiny | so_ismcts | few |" in summary


def test_a_baseline_that_is_not_a_competitor_is_refused(tmp_path):
  with pytest.raises(config_lib.ConfigError,
                     match="approximate.baseline: 'heuristic' is not a competitor; allowed:"
                           " greedy, random, so_ismcts"):
    solving.load(write(tmp_path, BASELINE.replace('"random"\n', '"heuristic"\n', 1)))


def test_only_zero_and_constant_sum_games_have_a_known_value_sum():
  assert approximate.value_sum(pyspiel.load_game(TINY)) == 0.0
  assert approximate.value_sum(pyspiel.load_game("python_sushi_go(players=4,utility=margin)")) \
      == 0.0
  assert approximate.value_sum(pyspiel.load_game("python_sushi_go(players=2)")) is None
  assert approximate.value_sum(pyspiel.load_game("matrix_mp")) == 0.0
  assert approximate.value_sum(pyspiel.load_game("matrix_pd")) is None


ABSTRACTION = """
[experiment]
name = "abstraction"
kind = "abstraction"
seed = 5
games = ["tiny"]

[abstraction]
algorithm = "cfr+"
iterations = 30
abstractions = ["buckets:1", "ahead:1", "cards"]
blueprint_iterations = 100
"""


def test_abstraction_curve_judges_both_kinds_of_keys_as_their_solvers_run_directly(tmp_path,
                                                                                   tiny_tree):
  """Information-set abstractions solved by CFR+, the action-centred `cards` by compiled
  es-mccfr: each unit's size and NashConv are those of its solver run directly."""
  from solvers.equilibrium.blueprint import CompiledMCCFR  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.blueprint_training import BlueprintTrainer  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.cfr import CFRPlus  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.abstraction import make_abstraction  # pylint: disable=import-outside-toplevel
  run_dir = solving.run(write(tmp_path, ABSTRACTION), out=tmp_path / "run", quiet=True)
  entries = {e["abstraction"]: e for e in results(run_dir)}
  game = reduced_games.load_reduced("tiny")
  for name in ("buckets:1", "ahead:1"):
    solver = CFRPlus(game, make_abstraction(name, game), tree=tiny_tree).run(iterations=30)
    figure = exploitability.nash_conv(tiny_tree, solver.average_policy_array()).nash_conv
    assert entries[name]["abstract_infosets"] == len(solver.average_strategy())
    assert entries[name]["nash_conv"] == pytest.approx(figure, abs=1e-12)
  assert entries["buckets:1"]["abstract_infosets"] < entries["ahead:1"]["abstract_infosets"]
  seed = int(np.random.SeedSequence(5, spawn_key=(entries["cards"]["unit"],)).generate_state(1)[0])
  solver = CompiledMCCFR(game, "es-mccfr", seed=seed, abstraction="cards", table_bits=18)
  BlueprintTrainer(solver).run(iterations=100)
  assert entries["cards"]["algorithm"] == "es-mccfr" and entries["cards"]["iterations"] == 100
  assert entries["cards"]["abstract_infosets"] == solver.occupied
  assert entries["cards"]["nash_conv"] == pytest.approx(exploitability.nash_conv(
      tiny_tree, policy_array(tiny_tree, solver.policy())).nash_conv, abs=1e-12)
  assert "| tiny | cards |" in (run_dir / solving.SUMMARY_MD).read_text()


@pytest.mark.parametrize("edit, message", [
    (('kind = "convergence"', 'kind = "race"'),
     "experiment.kind: expected one of 'convergence', 'abstraction', 'exploitability',"
     " 'approximate_exploitability', got 'race'"),
    (('"cfr+", "os-mccfr"]', '"cfr+", "cfr-"]'), "convergence.algorithms[2]: expected one of"),
    (("checkpoints = 4", 'checkpoints = 4\nabstraction = "buckets:x"'), "convergence.abstraction:"),
    ((", os-mccfr = 300 }", " }"), "convergence.iterations: no iterations for os-mccfr"),
    (("checkpoints = 4", 'checkpoints = 4\nabstraction = "cards"'), "convergence.abstraction:"),
    (('games = ["tiny"]', 'games = ["huge"]'), "experiment.games[0]: expected a reduced game"),
    (("[convergence]", "[convergence]\nrounds = 2"), "convergence.rounds: unknown key"),
])
def test_bad_solving_config_is_refused_naming_the_key(edit, message):
  with pytest.raises(config_lib.ConfigError) as error:
    solving.parse(CONVERGENCE.replace(*edit))
  assert message in str(error.value)


def test_cli_tells_a_solving_config_from_a_tournament(tmp_path):
  assert runner.experiment_kind(write(tmp_path, CONVERGENCE)) != "tournament"
  tournament = pathlib.Path(__file__).resolve().parents[1] / "experiments/configs/quickstart.toml"
  assert runner.experiment_kind(tournament) == "tournament"
  text = tournament.read_text().replace('[experiment]\n', '[experiment]\nkind = "tournament"\n')
  assert runner.experiment_kind(write(tmp_path, text)) == "tournament"
  assert tournament_config.parse(text).hash == tournament_config.load(tournament).hash


def test_abstraction_curve_refuses_an_unknown_abstraction_naming_both_kinds():
  with pytest.raises(config_lib.ConfigError, match=r"abstraction.abstractions\[2\]: .*allowed:"
                     r" identity, canonical, buckets:N, ahead:N.*; or an action-centred one:"
                     r" cards, cards\+rank"):
    solving.parse(ABSTRACTION.replace('"cards"]', '"hands"]'))
