"""`sushigo compile`: kernel sets compiled now, on every core, rather than on their first use.

Kernels compile when first called, once per environment (`sushigo_spiel/compiled/jit.py`). This
compiles the sets named (default: every set) ahead of use, each in a worker process as soon as
the sets it requires are compiled, so that a fresh environment (an image being built, a CI
machine) pays the compile once, on all its cores, before its first command.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib
import multiprocessing
import os
import time
from typing import Callable, Iterable

from sushigo_spiel.compiled.jit import KernelSet

# The modules declaring the kernel sets, imported before any set is compiled.
SET_MODULES = ("sushigo_spiel.compiled.sushi_go.core", "sushigo_spiel.compiled.sushi_draft.core",
               "solvers.policy_kernels.compiling", "solvers.search.kernels.compiling",
               "solvers.equilibrium.kernels.compiling",
               "solvers.equilibrium.kernels.blueprint_policy", "solvers.envs.batched",
               "solvers.envs.batched_sushi_draft", "experiments.train_linear_q")


def declared_sets() -> tuple[dict[str, KernelSet], list[str]]:
  """Every declared kernel set by its `slug` (as `sushigo compile` takes them), and the messages
  of the set modules not importable (an extra not installed)."""
  skipped = []
  for name in SET_MODULES:
    try:
      importlib.import_module(name)
    except ImportError as error:
      skipped.append(f"{name}: {error}")
  return {kernel_set.slug: kernel_set for kernel_set in KernelSet.declared}, skipped


def compile_named(name: str) -> tuple[str, float, float]:
  """Compiles (or loads) every kernel of the set `name`; its name, CPU and wall seconds."""
  kernel_set = declared_sets()[0][name]
  cpu, wall = time.process_time(), time.perf_counter()
  kernel_set.compile_all()
  return name, time.process_time() - cpu, time.perf_counter() - wall


def compile_sets(sets: dict[str, KernelSet], names: Iterable[str], jobs: int,
                 report: Callable[[str, float, float], None],
                 compile_one: Callable[[str], tuple[str, float, float]] = compile_named) -> None:
  """Compiles the sets `names` and those they require on `jobs` processes, a set started once
  every set it requires is done; `report(name, cpu, wall)` as each ends."""
  wanted: list[str] = []

  def want(name: str) -> None:
    for required in sets[name].requires:
      want(required.slug)
    if name not in wanted:
      wanted.append(name)

  for name in names:
    want(name)
  done: set[str] = set()
  running: dict[concurrent.futures.Future, str] = {}
  context = multiprocessing.get_context("spawn")  # safe in a process already running threads
  with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
    while len(done) < len(wanted):
      for name in wanted:
        ready = all(required.slug in done for required in sets[name].requires)
        if ready and name not in done and name not in running.values() and len(running) < jobs:
          running[pool.submit(compile_one, name)] = name
      finished, _ = concurrent.futures.wait(running, return_when="FIRST_COMPLETED")
      for future in finished:
        report(*future.result())
        done.add(running.pop(future))


def compile_command(args: argparse.Namespace) -> int:
  sets, skipped = declared_sets()
  if args.list:
    for name, kernel_set in sets.items():
      required = ", ".join(r.slug for r in kernel_set.requires)
      print(name + (f" (requires {required})" if required else ""))
    return 0
  unknown = [name for name in args.sets if name not in sets]
  if unknown:
    args.error(f"unknown kernel set {unknown[0]!r}; allowed: {', '.join(sets)}")
  for message in skipped:
    print(f"not compiled, its extra is not installed: {message}")
  start = time.perf_counter()
  cpu_seconds: list[float] = []

  def report(name: str, cpu: float, wall: float) -> None:
    cpu_seconds.append(cpu)
    print(f"{name}: {cpu:.1f} CPU s ({wall:.0f} s wall)", flush=True)

  compile_sets(sets, args.sets or list(sets), args.jobs, report)
  print(f"compiled in {time.perf_counter() - start:.0f} s wall on {args.jobs} process(es),"
        f" {sum(cpu_seconds):.0f} CPU s; later commands load the kernels from numba's cache")
  return 0


def default_jobs() -> int:
  return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
