"""The layers point one way: games (`sushigo_spiel`) <- solvers (`solvers`) <- experiments and the
command line (`experiments`). A lower layer never imports a higher one, at module level or inside
a function, and importing a layer loads nothing above it."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("sushigo_spiel", "solvers", "experiments")


def _modules(package: str) -> list[str]:
  return sorted(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                for path in (ROOT / package).rglob("*.py"))


def _imported_packages(path: pathlib.Path) -> set[str]:
  """The top-level packages every import statement of a file names."""
  names = set()
  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
    if isinstance(node, ast.Import):
      names.update(alias.name.split(".")[0] for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
      names.add(node.module.split(".")[0])
  return names


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_no_import_statement_reaches_a_higher_layer(layer):
  higher = set(LAYERS[LAYERS.index(layer) + 1:])
  offenders = {str(path.relative_to(ROOT)): sorted(_imported_packages(path) & higher)
               for path in (ROOT / layer).rglob("*.py")}
  assert {path: names for path, names in offenders.items() if names} == {}


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_importing_a_layer_loads_nothing_above_it(layer):
  higher = LAYERS[LAYERS.index(layer) + 1:]
  code = ("import importlib, sys\n"
          f"for name in {_modules(layer)!r}:\n"
          "  importlib.import_module(name)\n"
          f"print(sorted(m for m in sys.modules if m.split('.')[0] in {higher!r}))\n")
  result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=300)
  assert result.stdout.strip() == "[]"


def test_a_random_bot_loads_neither_scipy_nor_the_cfr_stack():
  code = ("import sys, pyspiel, sushigo_spiel\n"
          "from solvers import make_bot\n"
          "make_bot('random', pyspiel.load_game('python_sushi_go'), 0)\n"
          "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'matplotlib'}),"
          " sorted(m for m in sys.modules if m.startswith('solvers.')))\n")
  result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=300)
  assert result.stdout.strip() == "[] ['solvers.baselines', 'solvers.bot']"


def test_the_core_install_loads_no_learning_environment():
  """PettingZoo and Gymnasium (the `rl` extra) load only with `sushigo_spiel.envs` or
  `solvers.envs`."""
  code = ("import sys, sushigo_spiel, solvers, solvers.baselines, sushigo_spiel.compiled\n"
          "print(sorted({m.split('.')[0] for m in sys.modules} & {'pettingzoo', 'gymnasium'}))\n")
  result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=300)
  assert result.stdout.strip() == "[]"
