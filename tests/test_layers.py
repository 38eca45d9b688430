"""The layers point one way: games (`sushigo_spiel`) <- solvers (`solvers`) <- experiments and the
command line (`experiments`). A lower layer never imports a higher one, at module level or inside
a function, and importing a layer loads nothing above it."""

from __future__ import annotations

import ast
import pathlib
import re
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


# What solver code is called wherever it is defined: a name in the game package holding one of
# these is a search, CFR, subgame, blueprint or baseline policy that belongs under `solvers/`.
SOLVER_WORDS = ("ismcts", "mcts", "bandit", "regret", "cfr", "subgame", "blueprint", "heuristic",
                "greedy", "rollout")


def _defined_names(path: pathlib.Path) -> set[str]:
  """The names a file defines: functions, classes, and assigned module or class attributes."""
  names = set()
  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
      names.add(node.name)
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
      targets = node.targets if isinstance(node, ast.Assign) else [node.target]
      names.update(t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name))
  return names


def test_the_game_package_defines_no_solver_code():
  offenders = {str(path.relative_to(ROOT)): sorted(
                   name for name in _defined_names(path)
                   if any(word in name.lower() for word in SOLVER_WORDS))
               for path in (ROOT / "sushigo_spiel").rglob("*.py")}
  assert {path: names for path, names in offenders.items() if names} == {}


def _imported_modules(path: pathlib.Path) -> set[str]:
  """The full module names every import statement of a file names."""
  names = set()
  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
    if isinstance(node, ast.Import):
      names.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
      names.add(node.module)
      names.update(f"{node.module}.{alias.name}" for alias in node.names)
  return names


def test_experiments_reach_solver_kernels_only_through_public_functions():
  """No experiment imports a solver's kernel package (`solvers.*.kernels`): what an experiment
  needs of the kernels has a public function in the solver. The benchmarks time kernels and are
  left out."""
  offenders = {str(path.relative_to(ROOT)): sorted(
                   name for name in _imported_modules(path)
                   if re.match(r"solvers\.(\w+\.)*kernels(\.|$)", name))
               for path in (ROOT / "experiments").rglob("*.py") if "bench" not in path.parts}
  assert {path: names for path, names in offenders.items() if names} == {}


def _listed_modules(page: str) -> set[str]:
  """The module paths docs/layout.md lists: each `## `package/`` section's table rows name paths
  relative to the package in their first cell."""
  listed, package = set(), None
  for line in page.splitlines():
    heading = re.match(r"## `([a-z_]+)/`", line)
    if heading:
      package = heading.group(1)
    elif package and line.startswith("| `"):
      listed.update(f"{package}/{name}" for name in re.findall(r"`([\w/]+\.py)`",
                                                                  line.split(" | ")[0]))
  return listed


def test_the_layout_page_lists_every_module_and_no_other():
  modules = {str(path.relative_to(ROOT)) for layer in LAYERS
             for path in (ROOT / layer).rglob("*.py")
             if path.name != "__init__.py" and "results" not in path.parts}
  listed = _listed_modules((ROOT / "docs" / "layout.md").read_text(encoding="utf-8"))
  assert {"missing from the page": sorted(modules - listed),
          "on the page, not in the tree": sorted(listed - modules - {"solvers/__init__.py"})} == \
      {"missing from the page": [], "on the page, not in the tree": []}
