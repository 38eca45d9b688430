"""A command compiles only the kernels it uses (issue: start in seconds): the quickstart compiles the
Sushi Go core's and the baseline policies' kernels it calls, and no search, CFR, subgame,
blueprint, batched-environment or learning kernel; `sushigo play` between random bots compiles
nothing. Each command runs in a fresh process, which then lists the kernel sets it readied and
every kernel (numba dispatcher) with a compiled or loaded version, wherever it is defined."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

_LIST_COMPILED = """
import json, sys
import numba
from sushigo_spiel.compiled.jit import KernelSet
kernels = {f"{value.py_func.__module__}.{value.py_func.__name__}"
           for module in list(sys.modules.values()) for value in list(vars(module).values())
           if isinstance(value, numba.core.registry.CPUDispatcher) and value.overloads}
print(json.dumps({"sets": sorted(s.name for s in KernelSet.declared if s._ready),
                  "kernels": sorted(kernels)}))
"""


def _compiled_after(command: list[str]) -> dict:
  """The kernel sets readied and the kernels compiled (or loaded) by `sushigo COMMAND` run in a
  fresh process."""
  code = ("import sys\nfrom experiments import cli\n"
          f"status = cli.main({command!r})\nassert status == 0, status\n" + _LIST_COMPILED)
  result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=1800, check=True, cwd=ROOT)
  return json.loads(result.stdout.splitlines()[-1])


def test_the_quickstart_compiles_the_core_and_the_baseline_policies_only(tmp_path):
  # The quickstart config itself, with fewer games: every bot and the luck's playouts still play.
  text = (ROOT / "experiments" / "configs" / "quickstart.toml").read_text()
  config = tmp_path / "quickstart.toml"
  config.write_text(re.sub(r"(?m)^num_games = \d+$", "num_games = 12", text))
  compiled = _compiled_after(["run", str(config), "--out", str(tmp_path / "run"), "--quiet"])
  assert compiled["sets"] == ["Sushi Go core", "baseline policy kernels"]
  solver_kernels = [name for name in compiled["kernels"] if not name.startswith(
      ("sushigo_spiel.compiled.", "solvers.policy_kernels."))]
  assert solver_kernels == []  # no search, CFR, subgame, blueprint, environment or RL kernel
  assert "solvers.policy_kernels.sushi_go.round_values" in compiled["kernels"]
  # Only what the luck calls: no playouts, determinization or observation keys, and no chance
  # enumeration (a full game's deal is sampled; its outcomes are counted on the game's states).
  for unused in ("policies.playout_many", "knowledge.determinize", "knowledge.observation_key",
                 "sushi_go.playout_many", "chance.chance_outcomes", "chance.apply_chance",
                 "chance.is_possible", "chance.initial_position"):
    assert not any(name.endswith(unused) for name in compiled["kernels"]), unused


def test_play_between_random_bots_compiles_nothing():
  compiled = _compiled_after(["play", "--seed", "3", "--quiet"])
  assert compiled == {"sets": [], "kernels": []}


def test_the_cold_bench_reports_each_figure_against_its_target():
  from experiments.bench import cold
  figures = {"sets": [{"set": "Sushi Go core", "cpu": 20.0, "wall": 30.0}], "skipped": [],
             "all_sets": {"cpu": 95.0, "wall": 120.0},
             "quickstart_cold": {"cpu": 55.0, "wall": 70.0},
             "quickstart_warm": {"cpu": 20.0, "wall": 25.0}}
  report = cold.report(figures)
  assert re.search(r"quickstart cold, CPU s +55\.0 +<= 60 +PASS", report)
  assert re.search(r"every kernel set cold, CPU s +95\.0 +<= 90 +FAIL", report)
  assert re.search(r"Sushi Go core +20\.0 +30\.0", report)
  assert re.search(r"quickstart, warm +20\.0 +25\.0", report)
  assert "Load average" not in report
  loaded = cold.report({**figures, "load_before": 0.4, "load_after": 1.25})
  assert "Load average (1 min) at the start 0.4, at the end 1.2" in loaded


def test_the_speed_page_shows_the_stored_cold_start_figures():
  # docs/speed.md's tables are `python -m experiments.bench.cold --compare` of the stored runs,
  # a column each, in a generated block.
  from experiments import docs
  from experiments.bench import cold
  runs = docs._cold_runs(ROOT / "experiments" / "results")
  assert [label for label, _ in runs] == [label for label, _ in docs.COLD_RUNS]
  page = (ROOT / "docs" / "speed.md").read_text()
  assert "<!-- generated: cold-start-comparison -->" in page
  for table in cold.comparison(runs).split("\n\n"):  # the kernel sets, the quickstart
    assert table in page

def test_the_cold_bench_refuses_an_empty_or_missing_path_in_a_sentence(tmp_path, capsys):
  from experiments.bench import cold
  stored = tmp_path / "run-sets.json"
  stored.write_text(json.dumps({"sets": [], "skipped": []}))
  for argv, wrong in ((["--compare", ""], "'' is not a file"),
                      (["--compare", f"{stored}+"], "'' is not a file"),
                      (["--compare", str(tmp_path)], f"{str(tmp_path)!r} is not a file"),
                      (["--json", ""], "--json is empty"),
                      (["--json", str(tmp_path)], "is a folder")):
    with pytest.raises(SystemExit) as exit_info:
      cold.main(argv)
    assert exit_info.value.code == 2, argv
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert wrong in error and error.count(". ") == 0, (argv, error)
  assert cold.main(["--compare", str(stored)]) == 0  # a file it reads
  assert "| kernel set, compiled cold | run-sets: CPU s (wall s) |" in capsys.readouterr().out
