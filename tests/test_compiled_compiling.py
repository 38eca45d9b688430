"""Compiling the kernels: each on its first call from Python, once per environment, saying so in
one line; a clear error without numba or when compiling fails; stale kernels cleared when a source
of their set changes. Each game's core is one `KernelSet`."""

from __future__ import annotations

import fcntl
import os
import pathlib
import subprocess
import sys

import pytest

from sushigo_spiel.compiled import jit
from sushigo_spiel.compiled.sushi_draft import CompiledSushiDraft
from sushigo_spiel.compiled.sushi_go import CompiledSushiGo

# (core class, its name in the notice, the playouts' shape a fresh process prints)
CORES = {
    "sushi_go": (CompiledSushiGo, "Sushi Go core", "(2, 2)"),
    "sushi_draft": (CompiledSushiDraft, "Sushi Draft core", "(2, 3)"),
}


def test_without_numba_the_import_error_says_what_to_install():
  code = ("import sys\nsys.modules['numba'] = None\n"
          "import sushigo_spiel.compiled\n")
  result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
  assert result.returncode != 0
  assert "ImportError" in result.stderr and "pip install numba" in result.stderr


# A kernel module of its own with a KernelSet owning it, run in fresh processes with an empty cache:
# its first call compiles with one notice, later processes load it silently, and a change to a
# source of the set (not the kernel's own file, which numba would notice alone) compiles it anew.
_KERNEL_MODULE = """
import pathlib, sys
from sushigo_spiel.compiled import jit

@jit.njit
def add_one(x):
  return x + 1

@jit.njit
def broken(x):
  return x.no_such_attribute

KERNELS = jit.KernelSet("test set", [pathlib.Path(__file__).resolve(),
                                     pathlib.Path(sys.argv[1]).resolve()],
                        lambda: None, add_one, expected={"add_one": 3})
"""


def _run_kernel(tmp_path, call: str) -> subprocess.CompletedProcess:
  module = tmp_path / "kernels_under_test.py"
  if not module.exists():
    module.write_text(_KERNEL_MODULE)
  code = f"import kernels_under_test as k\nprint({call})\n"
  env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
         "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
  return subprocess.run([sys.executable, "-c", code, str(tmp_path / "dependency.py")],
                        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)


def test_a_first_call_compiles_with_one_notice_and_later_processes_load_silently(tmp_path):
  (tmp_path / "dependency.py").write_text("x = 1\n")
  first = _run_kernel(tmp_path, "k.add_one(1)")
  assert first.returncode == 0 and first.stdout == "2\n"
  assert first.stderr.startswith("sushigo-spiel: compiling add_one of the test set (about 3 s of"
                                 " CPU; first use, once per environment)... done in ")
  assert first.stderr.count("\n") == 1
  again = _run_kernel(tmp_path, "k.add_one(1)")
  assert again.stdout == "2\n" and again.stderr == ""
  (tmp_path / "dependency.py").write_text("x = 2\n")  # a source of the set changed: compiled anew
  changed = _run_kernel(tmp_path, "k.add_one(1)")
  assert changed.stdout == "2\n" and changed.stderr.startswith(
      "sushigo-spiel: compiling add_one of the test set")


def test_a_failed_compile_names_numba_and_what_to_install(tmp_path):
  (tmp_path / "dependency.py").write_text("x = 1\n")
  result = _run_kernel(tmp_path, "k.broken(1)")
  assert result.returncode != 0
  assert "RuntimeError: compiling the test set with numba" in result.stderr
  assert "pip install --upgrade numba" in result.stderr


@pytest.mark.parametrize("game", CORES)
def test_making_a_core_compiles_nothing(game):
  # A fresh process makes a core: none of its kernels is compiled or loaded (a position's shape
  # comes from the codec, in Python); each compiles on its first call, the whole set on purpose
  # only by `compile_all`.
  core = CORES[game][0]
  code = (f"from {core.__module__} import {core.__name__} as core\n"
          "core.from_params()\n"
          "modules = [core.chance, core.moves, core.scoring, core.knowledge, core.policies]\n"
          "print(sorted(name for module in modules for name, value in vars(module).items()\n"
          "             if getattr(value, 'overloads', None)\n"
          "             and value.py_func.__module__ == module.__name__))\n")
  result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=900, check=True)
  assert result.stdout == "[]\n"


# In a fresh environment on the smaller core: both cores share the KernelSet under test, and the
# Sushi Go core's cold compile (minutes, with the heuristic's kernels) is timed by the benchmark.
@pytest.mark.slow
@pytest.mark.parametrize("game", ["sushi_draft"])
def test_a_fresh_environment_compiles_once_and_says_so(tmp_path, game):
  core, name, shape = CORES[game]
  code = (f"from {core.__module__} import {core.__name__}\n"
          f"print({core.__name__}.from_params().playout_many(2, 0).shape)\n")
  env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
  runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=900, check=True) for _ in range(2)]
  notices = runs[0].stderr.splitlines()
  assert notices and all(line.startswith("sushigo-spiel: compiling ") and f" of the {name} (" in line
                         and "once per environment)... done in " in line for line in notices)
  assert runs[1].stderr == ""
  assert runs[0].stdout == runs[1].stdout == f"{shape}\n"


def _faked_cache(monkeypatch, tmp_path, *names: str) -> tuple[pathlib.Path, ...]:
  """numba's cache folder (returned first) and the sources `names` (written), with no declared
  set: a set's cached kernels are files there, its markers in a folder named by its anchor."""
  cache = tmp_path / "cache"
  cache.mkdir()
  sources = [tmp_path / name for name in names]
  for source in sources:
    source.write_text("x = 1\n")
  monkeypatch.setattr(jit, "_cache_directories", lambda source: {cache})
  monkeypatch.setattr(jit, "cache_directory", lambda anchor: str(tmp_path / anchor))
  monkeypatch.setattr(jit.KernelSet, "declared", [])
  return (cache, *sources)


def test_a_first_use_keeps_the_kernels_another_set_compiled_from_the_same_sources(monkeypatch,
                                                                                    tmp_path):
  # Two sets sharing a source, with numba's cache folder and the compile faked by files: the
  # second set's first use clears its own stale kernels, not the ones the first set has just
  # compiled from the shared source as it is; once that source changes, it clears them too.
  cache, shared, own = _faked_cache(monkeypatch, tmp_path, "shared.py", "own.py")

  def compiling(*sources):
    return lambda: [(cache / f"{source.stem}.kernel.nbi").touch() for source in sources]
  core = jit.KernelSet("core", [shared], compiling(shared), "core-markers", owns=[shared])
  core.compile_all()
  (cache / "own.stale.nbi").touch()
  search = jit.KernelSet("search", [shared, own], compiling(own), "search-markers")
  search.compile_all()
  assert sorted(path.name for path in cache.iterdir()) == ["own.kernel.nbi", "shared.kernel.nbi"]

  shared.write_text("x = 2\n")
  search_again = jit.KernelSet("search", [shared, own], lambda: None, "search-markers")
  search_again.ensure()
  assert list(cache.iterdir()) == []


def test_a_set_listing_a_file_for_some_kernels_does_not_keep_its_other_kernels(monkeypatch,
                                                                                 tmp_path):
  # Two environments share a file: the Sushi Go one owns it (its step plays the heuristic of
  # another file), the Sushi Draft one lists it for a helper only. After the heuristic changes,
  # the Sushi Go environment's first use clears the shared file's kernels, although the Sushi
  # Draft environment's marker still holds: it never vouched for the step.
  cache, shared, heuristic = _faked_cache(monkeypatch, tmp_path, "batched.py", "heuristic.py")
  step = cache / "batched.step.nbi"
  sushi_go = jit.KernelSet("sushi go", [heuristic, shared], step.touch, "go-markers",
                           owns=[shared, heuristic])
  sushi_draft = jit.KernelSet("sushi draft", [shared], lambda: None, "draft-markers")
  sushi_go.compile_all()
  sushi_draft.compile_all()
  assert step.exists()

  heuristic.write_text("y = 2\n")
  jit.KernelSet("sushi go", [heuristic, shared], lambda: None, "go-markers",
                owns=[shared, heuristic]).ensure()
  assert not step.exists()


def test_a_process_waits_while_another_compiles_and_says_so(tmp_path):
  # The test holds the set's compile lock as a compiling process would; a fresh process needing
  # the set must say it waits, touch nothing until the lock is free, then ready the set once.
  code = ("import pathlib, sys\n"
          "from sushigo_spiel.compiled import jit\n"
          "jit.COMPILE_LOCK = pathlib.Path(sys.argv[1])\n"
          "jit.cache_directory = lambda anchor: sys.argv[2]\n"
          "jit.KernelSet('test set', [], lambda: None, 'anchor').ensure()\n")
  command = [sys.executable, "-c", code, str(tmp_path / "lock"), str(tmp_path)]
  with open(tmp_path / "lock.test-set.lock", "a", encoding="utf-8") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    waiting = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    first_line = waiting.stderr.readline()
    assert first_line == "sushigo-spiel: waiting for another process compiling the kernels...\n"
    assert waiting.poll() is None and not list(tmp_path.glob("*.compiled"))
  rest = waiting.communicate(timeout=60)[1]
  assert waiting.returncode == 0
  assert rest == "" and len(list(tmp_path.glob("*.compiled"))) == 1
  again = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
  assert again.stderr == ""


def test_sets_apart_compile_at_once_and_required_sets_come_first(tmp_path):
  # Another set's lock held: a process needing this set readies it without waiting. A set's
  # requirements are readied (their setup run here) before its own.
  code = ("import pathlib, sys\n"
          "from sushigo_spiel.compiled import jit\n"
          "jit.COMPILE_LOCK = pathlib.Path(sys.argv[1])\n"
          "jit.cache_directory = lambda anchor: sys.argv[2]\n"
          "first = jit.KernelSet('first set', [], None, 'a',\n"
          "                      setup=lambda: print('first', flush=True))\n"
          "second = jit.KernelSet('second set', [], None, 'a', requires=[first],\n"
          "                       setup=lambda: print('second', flush=True))\n"
          "second.ensure()\n")
  command = [sys.executable, "-c", code, str(tmp_path / "lock"), str(tmp_path)]
  with open(tmp_path / "lock.other-set.lock", "a", encoding="utf-8") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    run = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
  assert "waiting" not in run.stderr
  assert run.stdout == "first\nsecond\n"
  assert len(list(tmp_path.glob("*.compiled"))) == 2
