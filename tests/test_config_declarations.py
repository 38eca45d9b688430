"""Tests of the config declarations against what depends on them: the format reference in the docs,
the examples there, and the hashes of the stored runs.

The reference in docs/configs.md is written from the declarations (`python -m
experiments.runner`); a key declared and not on the page, or on the page and not declared, fails
here. The stored runs' hashes are what resume and `sushigo reproduce` check a run folder against,
so every stored config must hash as it did when it ran.
"""

from __future__ import annotations

import json
import pathlib
import re
import tomllib

import pytest

from experiments import config as config_lib
from experiments import run_folder
from experiments import runner
from experiments import solving
from experiments.tournament import config as tournament_config

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = ROOT / "experiments" / "results"
_ROW = re.compile(r"^\| `([a-z_]+)` \|", re.MULTILINE)
_COMMENTED_KEY = re.compile(r"^# ?([a-z_]+ = )", re.MULTILINE)  # an optional key shown commented


def declared_keys(table: type) -> list[str]:
  return [name for name, _, _ in config_lib.declared(table)]


def reference_sections(page: str) -> dict[str, list[str]]:
  """Heading -> the keys of its rows, in the page's config reference."""
  block = page.split(runner.REFERENCE_BEGIN)[1].split(runner.REFERENCE_END)[0]
  sections = re.split(r"^### (.*)$", block, flags=re.MULTILINE)[1:]
  return {heading: _ROW.findall(body) for heading, body in zip(sections[::2], sections[1::2])}


def test_the_reference_names_every_declared_key_and_no_other():
  on_page = reference_sections(runner.CONFIG_DOCS.read_text(encoding="utf-8"))
  declared = {heading: declared_keys(table) for heading, table in runner.config_tables()}
  assert on_page == declared, "regenerate it: python -m experiments.runner"


def test_the_reference_is_as_the_declarations_write_it():
  page = runner.CONFIG_DOCS.read_text(encoding="utf-8")
  assert runner.with_config_reference(page) == page, "regenerate it: python -m experiments.runner"


def _declared_by_table() -> dict[str, set[str]]:
  """Table name -> every key declared for it, by any kind."""
  keys: dict[str, set[str]] = {}
  tables = [("experiment", tournament_config.Experiment), ("budget", tournament_config.Budget),
            ("report", tournament_config.Report), ("players", config_lib.Competitor),
            ("experiment", solving.Experiment),
            *((kind.section, kind.table) for kind in solving.KINDS.values() if kind.table)]
  for name, table in tables:
    keys.setdefault(name, set()).update(declared_keys(table))
  return keys


def _examples(page: pathlib.Path) -> list[str]:
  """The TOML examples of a docs page, with the optional keys shown commented out put back."""
  blocks = re.findall(r"```toml\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.DOTALL)
  return [_COMMENTED_KEY.sub(r"\1", block) for block in blocks]


@pytest.mark.parametrize("page", ["configs.md", "equilibrium.md"])
def test_the_config_examples_of_the_docs_name_only_declared_keys(page):
  declared = _declared_by_table()
  examples = _examples(DOCS / page)
  assert examples, page
  for example in examples:
    for table, value in tomllib.loads(example).items():
      assert table in declared, f"{page}: [{table}] is not a declared table"
      for entry in value if isinstance(value, list) else [value]:
        assert set(entry) <= declared[table], f"{page}: [{table}] keys not declared:" \
            f" {sorted(set(entry) - declared[table])}"


def _stored_runs() -> list[pathlib.Path]:
  return sorted(path.parent for path in RESULTS.rglob(run_folder.RESOLVED_FILE))


def test_stored_runs_are_found():
  assert len(_stored_runs()) >= 40


@pytest.mark.parametrize("run_dir", _stored_runs(), ids=lambda path: path.name)
def test_every_stored_run_hashes_as_it_did_when_it_ran(run_dir):
  """The config's tables as declared give the stored resolved config, hash included (no bot is
  built: the hash needs none). The input files' digests a run records beside them are not the
  tables' (`run_folder.INPUTS`), and runs made before they existed have none."""
  text = (run_dir / run_folder.CONFIG_FILE).read_text(encoding="utf-8")
  stored = json.loads((run_dir / run_folder.RESOLVED_FILE).read_text(encoding="utf-8"))
  stored.pop(run_folder.INPUTS, None)
  if runner.experiment_kind(run_dir / run_folder.CONFIG_FILE) == tournament_config.KIND:
    config = tournament_config.read_tables(text)
  else:
    config = solving.read_tables(text)
  assert config.resolved() == stored
