"""Mutation testing of the modules listed in `modules.toml`, with a score per module.

For each module, the project's files are copied into a scratch folder, mutmut is configured there
to mutate that module only and to judge its mutants with that module's tests, and `mutmut run`
plays every mutant. Then a table is printed: mutants, those not run yet (of parts not run, with
--mutants), killed (a test failed, timed out or crashed), survived, those of the survivors listed
as equivalent in `equivalent.toml` (with the reason), and the score over the mutants run, killed /
(run - equivalent). Survivors not listed are printed with their diffs. A mutant whose tests run
longer than TIMEOUT_MULTIPLIER times (their measured time plus a second) is stopped by mutmut and
counted as killed (a timeout): a mutant that never ends holds its child that long, no longer.

    python tests/mutation/run.py                      # every module (long: see docs/testing.md)
    python tests/mutation/run.py --module experiments/stats.py --max-children 2
    python tests/mutation/run.py --work DIR --report-only   # the table again, from a kept run
    python tests/mutation/run.py --work DIR --module experiments/commands/train.py \
        --mutants 'experiments.commands.train.x__check_game*'   # a part, in the kept folder

The exit status is 1 when a module's score is below the target of `modules.toml`, or some of its
mutants were not run.
Needs mutmut (`pip install -e ".[test,mutation]"`). Scratch folders go to --work (a temporary
folder by default), so the checkout is never touched.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SOURCE_PATHS = ["sushigo_spiel", "solvers", "experiments"]
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
NOT_RUN = "not checked"  # a mutant of a part not run yet (--mutants)
PYTEST_ARGS = ["-p", "no:cacheprovider"]
# mutmut's wall-time limit per mutant, in multiples of its tests' measured time plus a second;
# mutmut's default, 15, holds a child for a quarter of an hour on a mutant that never ends when its
# tests take a minute. Changing it makes mutmut run the mutants timed out before again.
TIMEOUT_MULTIPLIER = 3.0
RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")


def project_files() -> list[str]:
  """The checkout's files, tracked or new, without what git ignores."""
  listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, check=True, capture_output=True, text=True).stdout
  return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


def mutmut_config(module: dict) -> str:
  """The [tool.mutmut] table for one module: mutate it alone, judged by its tests."""
  def toml_list(items):
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"
  return (f"\n[tool.mutmut]\nsource_paths = {toml_list(SOURCE_PATHS)}\n"
          f"only_mutate = {toml_list([module['path']])}\n"
          f"pytest_add_cli_args = {toml_list(PYTEST_ARGS)}\n"
          f"pytest_add_cli_args_test_selection = {toml_list(module['tests'])}\n"
          f"timeout_multiplier = {TIMEOUT_MULTIPLIER!r}\n")


def prepare(module: dict, folder: pathlib.Path) -> None:
  if folder.exists():
    shutil.rmtree(folder)
  for name in project_files():
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / name, target)
  with open(folder / "pyproject.toml", "a", encoding="utf-8") as pyproject:
    pyproject.write(mutmut_config(module))


# mutmut, its copies of the files it does not mutate keeping their sources' times. mutmut copies
# those files into `mutants/` afresh at every `mutmut run`, stamped with the time of the copy;
# numba's cache (and the compiled kernels' markers, `sushigo_spiel.compiled.jit`) takes a source
# of another time for an edited one, so every run would compile every kernel again (minutes).
# With the times kept, the kernels compiled beside the copies are loaded by every later run.
MUTMUT = """
import os, sys
import mutmut.__main__ as mutmut_main
copy_or_mutate = mutmut_main.create_file_mutants
def create_file_mutants(path):
  result = copy_or_mutate(path)
  if result.ignored:
    source = os.stat(path)
    os.utime(mutmut_main.Path("mutants") / path, ns=(source.st_atime_ns, source.st_mtime_ns))
  return result
create_file_mutants.__module__ = copy_or_mutate.__module__  # pickled by name for mutmut's pool
mutmut_main.create_file_mutants = create_file_mutants
sys.argv[0] = "mutmut"
mutmut_main.cli()
"""


def mutmut(folder: pathlib.Path, *args: str, log=None) -> str:
  """Runs `mutmut ARGS` in `folder` (see MUTMUT); its output, unless `log` takes it."""
  result = subprocess.run([sys.executable, "-c", MUTMUT, *args], cwd=folder, text=True,
                          stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
  if result.returncode:
    raise RuntimeError(f"mutmut {' '.join(args)} failed in {folder} (exit {result.returncode})")
  return result.stdout or ""


def statuses(folder: pathlib.Path) -> dict[str, str]:
  """Mutant name -> status, from `mutmut results --all true`."""
  found = {}
  for line in mutmut(folder, "results", "--all", "true").splitlines():
    match = RESULT_LINE.match(line)
    if match:
      found[match.group(1)] = match.group(2).strip()
  return found


def refresh_tests(folder: pathlib.Path) -> None:
  """Copies the checkout's tests into a kept scratch folder (mutmut copies them on to `mutants/`
  at its next run), so that a part run again is judged by the tests as they are now."""
  for name in project_files():
    if name.startswith("tests/"):
      target = folder / name
      target.parent.mkdir(parents=True, exist_ok=True)
      shutil.copy2(ROOT / name, target)


def scratch_folder(work: pathlib.Path, module: dict) -> pathlib.Path:
  return work / module["path"].replace("/", "_").removesuffix(".py")


def run_module(module: dict, work: pathlib.Path, max_children: int, rerun: bool,
               mutants: list[str]) -> dict[str, str]:
  """Runs the module's mutants (only `mutants`, names or globs, if given: in the kept scratch
  folder, its tests refreshed) unless not `rerun`; every mutant's status."""
  folder = scratch_folder(work, module)
  if rerun:
    if mutants and folder.exists():
      refresh_tests(folder)
    else:
      prepare(module, folder)
    with open(folder / "mutmut.log", "a" if mutants else "w", encoding="utf-8") as log:
      mutmut(folder, "run", "--max-children", str(max_children), *mutants, log=log)
  return statuses(folder)


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--module", action="append", help="a path from modules.toml (repeatable;"
                      " default: every module)")
  parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
  parser.add_argument("--work", type=pathlib.Path, help="scratch folder (kept afterwards)")
  parser.add_argument("--report-only", action="store_true", help="print the table of the runs"
                      " already in --work (after editing equivalent.toml, say)")
  parser.add_argument("--mutants", action="append", default=[], metavar="NAME",
                      help="run only these mutants (mutmut's names, * as a wildcard; repeatable)"
                      " in the scratch folder kept in --work, its tests refreshed; needs one"
                      " --module")
  args = parser.parse_args(argv)
  if args.report_only and not args.work:
    parser.error("--report-only needs --work, the folder of an earlier run")
  if args.mutants and (not args.work or len(args.module or ()) != 1 or args.report_only):
    parser.error("--mutants needs --work and one --module, and runs them: not with --report-only")
  listing = tomllib.loads((HERE / "modules.toml").read_text(encoding="utf-8"))
  equivalent = tomllib.loads((HERE / "equivalent.toml").read_text(encoding="utf-8"))
  modules = [m for m in listing["module"] if not args.module or m["path"] in args.module]
  unknown = set(args.module or ()) - {m["path"] for m in modules}
  if unknown:
    parser.error(f"not in modules.toml: {', '.join(sorted(unknown))}")
  work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="sushigo-mutation-"))
  rows, below = [], []
  for module in modules:
    start = time.perf_counter()
    found = run_module(module, work, args.max_children, not args.report_only, args.mutants)
    listed = equivalent.get(module["path"], {})
    killed = sum(status in KILLED for status in found.values())
    not_run = sum(status == NOT_RUN for status in found.values())
    survivors = {name: status for name, status in found.items()
                 if status not in KILLED and status != NOT_RUN}
    excused = [name for name in survivors if name in listed]
    scored = len(found) - not_run - len(excused)
    score = killed / scored if scored else 1.0
    rows.append((module["path"], len(found), not_run, killed, len(survivors), len(excused),
                 score, time.perf_counter() - start))
    if score < listing["target"] or not_run:
      below.append(module["path"])
    folder = scratch_folder(work, module)
    for name, status in sorted(survivors.items()):
      if name not in listed:
        print(f"--- {status}: {name}\n{mutmut(folder, 'show', name).strip()}\n")
  print(f"{'module':42} {'mutants':>7} {'not run':>7} {'killed':>6} {'survived':>8}"
        f" {'equiv.':>6} {'score':>6} {'minutes':>7}")
  for path, total, not_run, killed, survived, excused, score, seconds in rows:
    print(f"{path:42} {total:7} {not_run:7} {killed:6} {survived:8} {excused:6} {score:6.1%}"
          f" {seconds / 60:7.1f}")
  print(f"target: {listing['target']:.0%} of the mutants not listed as equivalent, every one run"
        f" (the score is over those run); scratch: {work}")
  return 1 if below else 0


if __name__ == "__main__":
  sys.exit(main())
