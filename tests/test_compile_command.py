"""`sushigo compile`: the kernel sets compiled ahead of use, each after the sets it requires."""

from __future__ import annotations

import re
import time

import pytest

from experiments.cli import main
from experiments.commands import compile as compile_command

SETS, _ = compile_command.declared_sets()


def _pretend_to_compile(name: str) -> tuple[str, float, float]:
  time.sleep(0.02)
  return name, 0.0, 0.02


def _required(name: str) -> list[str]:
  return [required.slug for required in SETS[name].requires]


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_set_is_compiled_once_after_the_sets_it_requires(jobs):
  reported = []
  compile_command.compile_sets(SETS, list(SETS), jobs, lambda *figures: reported.append(figures[0]),
                               compile_one=_pretend_to_compile)
  assert sorted(reported) == sorted(SETS)
  for name in reported:
    assert all(reported.index(required) < reported.index(name) for required in _required(name))


def test_a_set_named_brings_only_what_it_requires():
  reported = []
  compile_command.compile_sets(SETS, ["blueprint-policy-kernel"], 2,
                               lambda *figures: reported.append(figures[0]),
                               compile_one=_pretend_to_compile)
  assert reported == ["Sushi-Go-core", "baseline-policy-kernels", "CFR-kernels",
                      "blueprint-policy-kernel"]


def test_list_names_every_set_with_what_it_requires(capsys):
  assert main(["compile", "--list"]) == 0
  lines = capsys.readouterr().out.splitlines()
  assert [line.split(" ")[0] for line in lines] == list(SETS)
  assert "baseline-policy-kernels (requires Sushi-Go-core)" in lines
  assert "linear-Q-agent" in lines


def test_an_unknown_set_is_refused_naming_the_sets(capsys):
  with pytest.raises(SystemExit) as exit_info:
    main(["compile", "search-kernels", "search"])
  assert exit_info.value.code == 2
  assert capsys.readouterr().err == (
      "sushigo compile: error: unknown kernel set 'search'; allowed: " + ", ".join(SETS) + "\n")


def test_a_set_compiles_and_says_in_what_time(capsys):
  assert main(["compile", "linear-Q-agent", "--jobs", "1"]) == 0
  lines = capsys.readouterr().out.splitlines()
  assert re.fullmatch(r"linear-Q-agent: \d+\.\d CPU s \(\d+ s wall\)", lines[-2]), lines
  assert re.fullmatch(r"compiled in \d+ s wall on 1 process\(es\), \d+ CPU s; later commands"
                      r" load the kernels from numba's cache", lines[-1]), lines
