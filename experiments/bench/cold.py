"""What a fresh install pays before its first result: `sushigo bench --cold`.

In a temporary copy of the three packages, each step a fresh interpreter with an empty kernel cache
of its own (`NUMBA_CACHE_DIR`), so that nothing compiled before counts:

  - every kernel set's compile, in one process, in the order the sets require each other: the
    seconds of each set are those of its own kernels, the sets it requires being compiled already;
  - the quickstart (`sushigo run experiments/configs/quickstart.toml`) end to end, cold;
  - the same command again, warm: its kernels loaded from the cache the cold run left.

CPU seconds (user and system, of the process and its children) are the measure, steady on a
shared machine; wall seconds are printed beside them. `python -m experiments.bench.cold --help`
runs it alone.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from experiments.bench import game as game_bench
from experiments.commands.compile import SET_MODULES
from sushigo_spiel.drafting.text import format_table

MAX_QUICKSTART = 60.0  # CPU seconds of the cold quickstart, compile included
MAX_ALL_SETS = 90.0  # CPU seconds of compiling every kernel set cold
QUICKSTART = pathlib.Path("experiments") / "configs" / "quickstart.toml"
PACKAGES = ("sushigo_spiel", "solvers", "experiments")

# Run in the copy: compiles every set in dependency order, printing one JSON line per set.
_COMPILE_SETS = f"""
import importlib, json, sys, time
for name in {SET_MODULES!r}:
  try:
    importlib.import_module(name)
  except ImportError as error:  # an extra that is not installed (rl: gymnasium)
    print(json.dumps({{"skipped": name, "why": str(error)}}), flush=True)
from sushigo_spiel.compiled.jit import KernelSet
done = set()
def compile_set(kernel_set):
  if kernel_set.name in done:
    return
  for required in kernel_set.requires:
    compile_set(required)
  cpu, wall = time.process_time(), time.perf_counter()
  getattr(kernel_set, "compile_all", kernel_set.ensure)()  # ensure: before compiling was lazy
  done.add(kernel_set.name)
  print(json.dumps({{"set": kernel_set.name, "cpu": time.process_time() - cpu,
                    "wall": time.perf_counter() - wall}}), flush=True)
for kernel_set in list(KernelSet.declared):
  compile_set(kernel_set)
"""


def copy_packages(root: pathlib.Path, into: pathlib.Path) -> None:
  """The three packages of the checkout at `root`, without caches, stored results or runs."""
  ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.compiled", "results",
                                  "runs")
  for package in PACKAGES:
    shutil.copytree(root / package, into / package, ignore=ignore)
  (into / QUICKSTART).parent.mkdir(parents=True, exist_ok=True)
  shutil.copy2(root / QUICKSTART, into / QUICKSTART)


def timed(command: list[str], cwd: pathlib.Path, cache: pathlib.Path) -> tuple[float, float, str]:
  """Runs `command` in `cwd` with the kernel cache `cache`; its CPU seconds (its processes'),
  wall seconds and standard output. Its stderr (the compile notices) goes to this one's."""
  env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(cwd)}
  before = resource.getrusage(resource.RUSAGE_CHILDREN)
  start = time.perf_counter()
  result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True,
                          check=True)
  wall = time.perf_counter() - start
  after = resource.getrusage(resource.RUSAGE_CHILDREN)
  cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
  return cpu, wall, result.stdout


def run(root: pathlib.Path | None = None, sets: bool = True, quickstart: bool = True) -> dict:
  """The figures (CPU and wall seconds): each set's cold compile, the quickstart cold and warm."""
  root = pathlib.Path(__file__).resolve().parents[2] if root is None else root
  figures: dict = {"sets": [], "skipped": [], "load_before": os.getloadavg()[0]}
  with tempfile.TemporaryDirectory(prefix="sushigo-cold-") as temp:
    copy = pathlib.Path(temp) / "copy"
    copy_packages(root, copy)
    if sets:
      cpu, wall, out = timed([sys.executable, "-c", _COMPILE_SETS], copy,
                             pathlib.Path(temp) / "cache-sets")
      for line in out.splitlines():
        entry = json.loads(line)
        (figures["sets"] if "set" in entry else figures["skipped"]).append(entry)
      figures["all_sets"] = {"cpu": cpu, "wall": wall}
    if quickstart:
      cache = pathlib.Path(temp) / "cache-quickstart"
      for name in ("cold", "warm"):
        command = [sys.executable, "-m", "experiments.cli", "run", str(QUICKSTART), "--quiet",
                   "--out", str(pathlib.Path(temp) / f"run-{name}")]
        cpu, wall, _ = timed(command, copy, cache)
        figures[f"quickstart_{name}"] = {"cpu": cpu, "wall": wall}
  figures["load_after"] = os.getloadavg()[0]
  return figures


def report(figures: dict) -> str:
  lines = ["Cold start, in a temporary copy with an empty kernel cache; CPU and wall seconds."]
  if "load_before" in figures:
    lines.append(f"Load average (1 min) at the start {figures['load_before']:.1f}, at the end"
                 f" {figures['load_after']:.1f}: contention inflates CPU seconds, wall far more.")
  if figures["sets"]:
    rows = [[entry["set"], f"{entry['cpu']:.1f}", f"{entry['wall']:.1f}"]
            for entry in figures["sets"]]
    total = figures["all_sets"]
    rows.append(["every set, one process (start-up included)", f"{total['cpu']:.1f}",
                 f"{total['wall']:.1f}"])
    lines += ["", *format_table([["kernel set (compiled cold)", "CPU s", "wall s"], *rows])]
  for entry in figures["skipped"]:
    lines.append(f"not compiled: {entry['skipped']} ({entry['why']})")
  if "quickstart_cold" in figures:
    rows = [[f"quickstart, {name}", f"{figures[f'quickstart_{name}']['cpu']:.1f}",
             f"{figures[f'quickstart_{name}']['wall']:.1f}"] for name in ("cold", "warm")]
    lines += ["", *format_table([["command", "CPU s", "wall s"], *rows])]
  targets = []
  if "quickstart_cold" in figures:
    value = figures["quickstart_cold"]["cpu"]
    targets.append(["quickstart cold, CPU s", f"{value:.1f}", f"<= {MAX_QUICKSTART:g}",
                    "PASS" if value <= MAX_QUICKSTART else "FAIL"])
  if "all_sets" in figures:
    value = figures["all_sets"]["cpu"]
    targets.append(["every kernel set cold, CPU s", f"{value:.1f}", f"<= {MAX_ALL_SETS:g}",
                    "PASS" if value <= MAX_ALL_SETS and not figures["skipped"] else "FAIL"])
  if targets:
    lines += ["", *format_table([["target", "value", "limit", "result"], *targets])]
  return "\n".join(lines)


def merged(spec: str) -> dict:
  """The figures of the `--json` files named in `spec`, joined by `+`, merged (later keys win,
  kernel sets added up); a ValueError when a name is not a file."""
  figures: dict = {"sets": [], "skipped": []}
  for path in spec.split("+"):
    if not pathlib.Path(path).is_file():
      raise ValueError(f"run {spec!r}: {path!r} is not a file; allowed: the --json files of"
                       " stored runs, a run written to two files given as SETS+QUICKSTART")
    part = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    for key, value in part.items():
      if key in ("sets", "skipped"):
        figures[key] += value
      else:
        figures[key] = value
  return figures


def comparison(runs: list[tuple[str, dict]]) -> str:
  """Markdown tables of stored runs' figures (JSON of `--json`), one column per (label, figures)
  in `runs`, as docs/speed.md shows them: per kernel set, then the quickstart."""
  def cell(figures: dict | None) -> str:
    return "" if figures is None else f"{figures['cpu']:.1f} ({figures['wall']:.0f})"
  sets = [{entry["set"]: entry for entry in figures.get("sets", [])} for _, figures in runs]
  names = list(dict.fromkeys(name for by_set in sets for name in by_set))
  heads = " | ".join(f"{label}: CPU s (wall s)" for label, _ in runs)
  rule = "|---" + "|---:" * len(runs) + "|"
  lines = [f"| kernel set, compiled cold | {heads} |", rule]
  lines += [f"| {name} | " + " | ".join(cell(by_set.get(name)) for by_set in sets) + " |"
            for name in names]
  lines.append("| every set, one process (start-up included) | "
               + " | ".join(cell(figures.get("all_sets")) for _, figures in runs) + " |")
  lines += ["", f"| quickstart | {heads} |", rule]
  lines += [f"| {name} | " + " | ".join(cell(figures.get(f"quickstart_{name}"))
                                        for _, figures in runs) + " |"
            for name in ("cold", "warm")]
  return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--no-sets", action="store_true", help="skip compiling every kernel set")
  parser.add_argument("--no-quickstart", action="store_true", help="skip the quickstart runs")
  parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
  parser.add_argument("--compare", nargs="+", metavar="RUN",
                      help="instead, print the markdown tables of --json files, a column each"
                      " (a run may write the sets and the quickstart to separate files: give it"
                      " as SETS+QUICKSTART)")
  args = parser.parse_args(argv)
  if args.compare:
    try:
      runs = [(pathlib.Path(spec.split("+")[0]).stem, merged(spec)) for spec in args.compare]
    except ValueError as e:
      parser.error(f"--compare {e}")
    print(comparison(runs))
    return 0
  game_bench.check_json_path(parser.error, args.json)  # before the minutes of measuring
  figures = run(sets=not args.no_sets, quickstart=not args.no_quickstart)
  if args.json is not None:
    pathlib.Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
  print(report(figures))
  return 0


if __name__ == "__main__":
  sys.exit(main())
