"""Compiling the compiled cores: once per environment, saying so in one line; a clear error
without numba or when compiling fails. Each game's core is one `KernelSet`."""

from __future__ import annotations

import fcntl
import os
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


@pytest.mark.parametrize("game", CORES)
def test_a_failed_compile_names_numba_and_what_to_install(monkeypatch, game):
  kernel_set = CORES[game][0].kernel_set

  def broken():
    raise TypeError("no implementation")
  monkeypatch.setattr(kernel_set, "_ready", False)
  monkeypatch.setattr(kernel_set, "exercise", broken)
  with pytest.raises(RuntimeError, match=r"numba .*pip install --upgrade numba"):
    CORES[game][0].from_params()


@pytest.mark.parametrize("game", CORES)
def test_the_first_use_says_it_compiles_and_later_loads_are_silent(monkeypatch, tmp_path, capsys,
                                                                   game):
  # The kernels are compiled (or loaded) in this process first, by the usual path and its lock, so
  # the first use below only exercises them; the cache they were loaded from is only noted as
  # cleared, not cleared: nothing would write it again.
  core, name = CORES[game][:2]
  core.from_params()
  capsys.readouterr()  # its own notice, in a fresh environment
  marker, cleared = tmp_path / "compiled", []
  monkeypatch.setattr(jit, "COMPILE_LOCK", tmp_path / "lock")  # no other process's compile
  monkeypatch.setattr(core.kernel_set, "_marker", lambda: marker)
  monkeypatch.setattr(core.kernel_set, "_clear_cache", cleared.append)
  monkeypatch.setattr(core.kernel_set, "_ready", False)
  core.from_params()
  first = capsys.readouterr().err
  assert first.startswith(f"sushigo-spiel: compiling the {name} (first use")
  assert first.count("\n") == 1 and " done in " in first and marker.exists()
  assert cleared == [tmp_path]
  monkeypatch.setattr(core.kernel_set, "_ready", False)
  core.from_params()
  assert capsys.readouterr().err == ""


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
  assert runs[0].stderr.startswith(f"sushigo-spiel: compiling the {name} (first use")
  assert runs[0].stderr.count("\n") == 1
  assert runs[1].stderr == ""
  assert runs[0].stdout == runs[1].stdout == f"{shape}\n"


def test_a_first_use_keeps_the_kernels_another_set_compiled_from_the_same_sources(monkeypatch,
                                                                                    tmp_path):
  # Two sets sharing a source, with numba's cache folder and the compile faked by files: the
  # second set's first use clears its own stale kernels, not the ones the first set has just
  # compiled from the shared source as it is; once that source changes, it clears them too.
  cache, shared, own = tmp_path / "cache", tmp_path / "shared.py", tmp_path / "own.py"
  cache.mkdir()
  shared.write_text("x = 1\n")
  own.write_text("y = 1\n")
  monkeypatch.setattr(jit, "_cache_directories", lambda source: {cache})
  monkeypatch.setattr(jit, "cache_directory", lambda anchor: str(tmp_path / anchor))
  monkeypatch.setattr(jit.KernelSet, "declared", [])

  def compiling(*sources):
    return lambda: [(cache / f"{source.stem}.kernel.nbi").touch() for source in sources]
  core = jit.KernelSet("core", [shared], compiling(shared), "core-markers")
  core.ensure()
  (cache / "own.stale.nbi").touch()
  search = jit.KernelSet("search", [shared, own], compiling(own), "search-markers")
  search.ensure()
  assert sorted(path.name for path in cache.iterdir()) == ["own.kernel.nbi", "shared.kernel.nbi"]

  shared.write_text("x = 2\n")
  search_again = jit.KernelSet("search", [shared, own], lambda: None, "search-markers")
  search_again.ensure()
  assert list(cache.iterdir()) == []


def test_a_process_waits_while_another_compiles_and_says_so(tmp_path):
  # The test holds the set's compile lock as a compiling process would; a fresh process needing
  # the set must say it waits, compile nothing until the lock is free, then compile the set once.
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
  assert rest.startswith("sushigo-spiel: compiling the test set (first use") and len(
      list(tmp_path.glob("*.compiled"))) == 1
  again = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
  assert again.stderr == ""


def test_sets_apart_compile_at_once_and_required_sets_come_first(tmp_path):
  # Another set's lock held: a process needing this set compiles it without waiting. A set's
  # requirements are ensured (compiled here) before its own compile begins.
  code = ("import pathlib, sys\n"
          "from sushigo_spiel.compiled import jit\n"
          "jit.COMPILE_LOCK = pathlib.Path(sys.argv[1])\n"
          "jit.cache_directory = lambda anchor: sys.argv[2]\n"
          "first = jit.KernelSet('first set', [], lambda: print('first', flush=True), 'a')\n"
          "second = jit.KernelSet('second set', [], lambda: print('second', flush=True), 'a',\n"
          "                       requires=[first])\n"
          "second.ensure()\n")
  command = [sys.executable, "-c", code, str(tmp_path / "lock"), str(tmp_path)]
  with open(tmp_path / "lock.other-set.lock", "a", encoding="utf-8") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    run = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
  assert "waiting" not in run.stderr
  assert run.stdout == "first\nsecond\n"
  assert len(list(tmp_path.glob("*.compiled"))) == 2
