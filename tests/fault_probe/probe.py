"""The fault probe: hundreds of faults thrown at every command, each outcome classified.

  python tests/fault_probe/probe.py [--jobs N] [--only PREFIX] [--out DIR] [--list]

Cases (each named `group/what`): bad options of every command, bad config keys (wrong types,
out of range, unknown), sizes no machine holds, records, results, configs and provenance
corrupted or tampered in a finished run folder (then `report`, `reproduce` and a resume), policy
files with flipped bits, concurrent writers, SIGINT/SIGTERM and kill -9 then resume, and a full
disk (a file size limit, RLIMIT_FSIZE). Most cases run `experiments.cli.main` in a forked child
of this process (fast: the imports are paid once); the signal, kill and concurrency cases run
`python -m experiments.cli` as real processes.

Every outcome is one of:
  clean     refused: exit status 2, one line (after any "Note:" lines), no traceback;
  handled   the command did its work (exit 0, or 1 for a reproduce mismatch it reports, or the
            signal exit status after a stop), and what it wrote checks out;
  defect    high: a wrong figure with exit 0 (a fault the case expects refused but not), lost
            work (a resume that does not end with every record, or records that do not
            reproduce), a hang (the case's time limit); medium: a traceback; low: a refusal
            that is not one line, or another exit status.
The last line prints the counts; the exit status is 1 when there is any defect of severity
medium or high. `--out` keeps each case's folder and output.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import io
import json
import os
import pathlib
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from experiments import run_folder  # noqa: E402  pylint: disable=wrong-import-position
from experiments.cli import main  # noqa: E402  pylint: disable=wrong-import-position

TIMEOUT = 120.0  # seconds a case may take before it counts as a hang
TINY_GAME = "python_sushi_go(players=2,rounds=1)"
PYTHON = sys.executable


@dataclasses.dataclass
class Case:
  """One fault: `argv` run in a case folder prepared by `setup(folder)`; `expect` "refuse" (the
  fault must be refused), "work" (the command must succeed), "either", or "long" (a run too long
  to wait for, which must print its time estimate before it starts); `check(folder, outcome)`
  returns what is wrong with what the command left (None: nothing), for "lost work" and figures.
  `process` runs it as a real process (`run(folder)` returns an `Outcome`)."""
  name: str
  argv: list[str] = dataclasses.field(default_factory=list)
  expect: str = "refuse"
  setup: Callable[[pathlib.Path], None] | None = None
  check: Callable[[pathlib.Path, Outcome], str | None] | None = None
  fsize: int | None = None  # RLIMIT_FSIZE of the command, bytes
  process: Callable[[pathlib.Path], Outcome] | None = None
  timeout: float = TIMEOUT


@dataclasses.dataclass
class Outcome:
  status: int | None  # None: it hung
  out: str
  err: str


# ----- running a case


def run_forked(argv: list[str], folder: pathlib.Path, fsize: int | None,
               timeout: float) -> Outcome:
  """`main(argv)` in a forked child with folder as its working directory; its output captured."""
  out_path, err_path = folder / "stdout.txt", folder / "stderr.txt"
  pid = os.fork()
  if pid == 0:  # the child
    code = 1
    try:
      os.chdir(folder)
      with open(out_path, "w", encoding="utf-8") as out, \
          open(err_path, "w", encoding="utf-8") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), line_buffering=True)
        if fsize is not None:
          signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes then fail with EFBIG
          resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, resource.getrlimit(
              resource.RLIMIT_FSIZE)[1]))
        try:
          code = main(argv)
        except SystemExit as e:
          code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # pylint: disable=broad-except
          traceback.print_exc()
          code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
      os._exit(code)  # pylint: disable=protected-access
  deadline = time.monotonic() + timeout
  while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
      code = os.waitstatus_to_exitcode(status)
      break
    if time.monotonic() > deadline:
      os.kill(pid, signal.SIGKILL)
      os.waitpid(pid, 0)
      code = None
      break
    time.sleep(0.02)
  return Outcome(code, _read(out_path), _read(err_path))


def _read(path: pathlib.Path) -> str:
  try:
    return path.read_text(encoding="utf-8", errors="replace")
  except OSError:
    return ""


def cli(args: list[str], folder: pathlib.Path, **kwargs) -> subprocess.Popen:
  """The command as a real process in its own process group."""
  return subprocess.Popen([PYTHON, "-m", "experiments.cli", *args], cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True,
                          **kwargs)


def finish(process: subprocess.Popen, timeout: float = TIMEOUT) -> Outcome:
  try:
    out, err = process.communicate(timeout=timeout)
  except subprocess.TimeoutExpired:
    os.killpg(process.pid, signal.SIGKILL)
    out, err = process.communicate()
    return Outcome(None, out, err)
  return Outcome(process.returncode, out, err)


# ----- classifying


def classify(case: Case, outcome: Outcome, folder: pathlib.Path) -> tuple[str, str, str]:
  """(kind, severity, reason): kind clean, handled or defect."""
  if outcome.status is None:
    if case.expect == "long" and "Note: estimated time" in outcome.err:
      return "handled", "", "a long run, its time estimated before it started"
    return "defect", "high", "hang: no answer within the time limit"
  text = outcome.out + outcome.err
  if "Traceback (most recent call last)" in text:
    last = [line for line in outcome.err.splitlines() if line.strip()][-1:]
    return "defect", "medium", f"traceback: {last[0] if last else ''}"
  problem = case.check(folder, outcome) if case.check else None
  if problem:
    return "defect", "high", problem
  lines = [line for line in outcome.err.splitlines()
           if line.strip() and not line.startswith("Note: ") and "compiling" not in line
           and "waiting for another process" not in line]
  while len(lines) > 1 and (lines[0].startswith("usage: ") or lines[0].startswith(" ")):
    lines = lines[1:]  # a script's argparse usage before its one error line
  if outcome.status == 2:
    if case.expect == "work":
      return "defect", "low", f"refused what should work: {lines[-1:]}"
    if len(lines) != 1:
      return "defect", "low", f"a refusal of {len(lines)} lines"
    return "clean", "", lines[0][:160]
  if case.expect == "refuse":
    if outcome.status == 0:
      return "defect", "high", "exit 0 for a fault that must be refused (a wrong figure)"
    return "defect", "low", f"exit {outcome.status} for a fault that must be refused"
  if outcome.status in (0, 1, 130, 143, -2, -15):
    return "handled", "", f"exit {outcome.status}"
  return "defect", "low", f"exit {outcome.status}"


# ----- the material: a finished run, a saved policy


TOURNAMENT = (f'[experiment]\nname = "probe"\nseed = 3\ngames = ["{TINY_GAME}"]\nnum_games = 4\n'
              '\n[[players]]\nname = "random"\nbot = "random"\n\n[[players]]\nname = "greedy"\n'
              'bot = "greedy"\n')
SLOW_TOURNAMENT = TOURNAMENT.replace("num_games = 4", "num_games = 400").replace(
    TINY_GAME, "python_sushi_go(players=2)")


class Material:
  """What the cases copy: a finished tournament, a finished solving run, a saved policy."""

  def __init__(self, base: pathlib.Path):
    self.base = base
    self.run = base / "run"
    self.solving = base / "solving"
    self.policy = base / "policy.npz"
    base.mkdir(parents=True)
    (base / "config.toml").write_text(TOURNAMENT)
    with contextlib.redirect_stdout(io.StringIO()):
      assert main(["run", str(base / "config.toml"), "--out", str(self.run), "--quiet"]) == 0
      assert main(["exploitability", "tiny", "--bot", "random", "--approximate", "--responder",
                   "ismcts:iterations=5", "--games", "12", "--out", str(self.solving),
                   "--quiet"]) == 0
      assert main(["train", "tiny", "--iterations", "20", "--out", str(self.policy),
                   "--quiet"]) == 0

  def copy_run(self, folder: pathlib.Path, which: str = "run") -> pathlib.Path:
    target = folder / which
    shutil.copytree(getattr(self, which), target)
    return target


# ----- the cases


def option_cases() -> list[Case]:
  bad = {
      "play": [["--game", ""], ["--game", "  "], ["--game", "python_sushi_go(players=9)"],
               ["--game", "kuhn_poker"], ["--game", "python_sushi_go(players=2"],
               ["--human", "7"], ["--seed", "x"], ["--game", "python_sushi_go(rounds=0)"],
               ["--game", "python_sushi_go(deal=nonsense)"],
               ["--game", "python_sushi_draft(players=1)"]],
      "train": [["", "--iterations", "3", "--out", "a.npz"],
                ["tiny", "--iterations", "0", "--out", "a.npz"],
                ["tiny", "--iterations", "-5", "--out", "a.npz"],
                ["tiny", "--seconds", "nan", "--out", "a.npz"],
                ["tiny", "--seconds", "inf", "--out", "a.npz"],
                ["tiny", "--iterations", "3", "--out", "missing/dir/a.npz"],
                ["tiny", "--iterations", "3", "--out", "."],
                ["tiny", "--algorithm", "nope", "--iterations", "3", "--out", "a.npz"],
                ["tiny", "--abstraction", "nope", "--iterations", "3", "--out", "a.npz"],
                ["tiny", "--abstraction", "buckets:0", "--iterations", "3", "--out", "a.npz"],
                ["tiny", "--abstraction", "kmeans:x", "--iterations", "3", "--out", "a.npz"],
                ["nonsense", "--iterations", "3", "--out", "a.npz"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--resume"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--workers", "2"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--max-nodes", "1"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--force", "--resume"],
                ["tiny", "--abstraction", "cards", "--iterations", "3", "--out", "a.npz",
                 "--play", "nope"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--restart-average"],
                ["tiny", "--iterations", "3", "--out", "a.npz", "--address", "x:1"],
                ["python_sushi_go(players=2", "--iterations", "3", "--out", "a.npz"]],
      "exploitability": [["", "--bot", "random"], ["tiny", "--bot", "nope"],
                         ["tiny", "--bot", "random", "--param", "x=1"],
                         ["tiny", "--bot", "so_ismcts", "--param", "iterations=0"],
                         ["tiny", "--bot", "so_ismcts", "--param", "iterations"],
                         ["tiny", "--bot", "so_ismcts", "--param", "iterations=nan"],
                         ["tiny", "--policy", "missing.npz"], ["tiny", "--policy", "."],
                         ["tiny", "--bot", "random", "--memory", "x"],
                         ["tiny", "--bot", "random", "--memory", "-1GB"],
                         ["tiny", "--bot", "random", "--games", "0"],
                         ["tiny", "--bot", "random", "--approximate", "--responder", "nope"],
                         ["tiny", "--bot", "random", "--approximate", "--responder",
                          "ismcts:iterations=-1"],
                         ["tiny", "--bot", "random", "--approximate", "--responder",
                          "lbr:worlds=0"],
                         ["tiny", "--bot", "random", "--responder", "ismcts"],
                         ["tiny", "--bot", "random", "--json", "."],
                         ["tiny", "--bot", "random", "--json", "no/dir/x.json"],
                         ["kuhn_poker", "--bot", "random"],
                         ["python_sushi_go(players=2", "--bot", "random"],
                         ["tiny", "--bot", "random", "--address", "x:1"],
                         ["tiny", "--bot", "policy"], ["tiny", "--bot", "policy", "--param",
                                                       "path=missing.npz"]],
      "run": [["missing.toml"], ["."], ["config.toml", "--workers", "0"],
              ["config.toml", "--backend", "nope"], ["config.toml", "--address", "x:1"],
              ["config.toml", "--out", "config.toml"]],
      "reproduce": [["missing"], ["."], ["config.toml"]],
      "report": [["missing"], ["."], ["config.toml"], []],
      "bench": [["--seconds", "0"], ["--seconds", "nan"], ["--players", "9"],
                ["--equilibrium", "--equilibrium-game", "nope"], ["--json", "."],
                ["--repeats", "0"], ["--training-abstraction", "nope", "--training-workers", "1"]],
  }
  cases = []
  for command, lists in bad.items():
    for i, argv in enumerate(lists):
      cases.append(Case(f"options/{command}-{i}", [command, *argv],
                        setup=lambda folder: (folder / "config.toml").write_text(TOURNAMENT)))
  return cases


CONFIG_FAULTS = {  # (TOML line replaced or added, what it says)
    "name-int": ('name = "probe"', "name = 3"), "name-empty": ('name = "probe"', 'name = ""'),
    "name-slash": ('name = "probe"', 'name = "../x"'),
    "seed-str": ("seed = 3", 'seed = "x"'), "seed-neg": ("seed = 3", "seed = -1"),
    "seed-float": ("seed = 3", "seed = 1.5"), "seed-huge": ("seed = 3", "seed = 1e300"),
    "seed-bool": ("seed = 3", "seed = true"),
    "games-str": (f'games = ["{TINY_GAME}"]', f'games = "{TINY_GAME}"'),
    "games-empty": (f'games = ["{TINY_GAME}"]', "games = []"),
    "games-emptystr": (f'games = ["{TINY_GAME}"]', 'games = [""]'),
    "games-other": (f'games = ["{TINY_GAME}"]', 'games = ["kuhn_poker"]'),
    "games-draft": (f'games = ["{TINY_GAME}"]', 'games = ["python_sushi_draft(players=2)"]'),
    "games-bad-param": (f'games = ["{TINY_GAME}"]', 'games = ["python_sushi_go(players=9)"]'),
    "games-unbalanced": (f'games = ["{TINY_GAME}"]', 'games = ["python_sushi_go(players=2"]'),
    "games-dup": (f'games = ["{TINY_GAME}"]', f'games = ["{TINY_GAME}", "{TINY_GAME}"]'),
    "games-int": (f'games = ["{TINY_GAME}"]', "games = [3]"),
    "num-games-0": ("num_games = 4", "num_games = 0"),
    "num-games-neg": ("num_games = 4", "num_games = -4"),
    "num-games-float": ("num_games = 4", "num_games = 4.5"),
    "num-games-str": ("num_games = 4", 'num_games = "4"'),
    "num-games-nan": ("num_games = 4", "num_games = nan"),
    "num-games-inf": ("num_games = 4", "num_games = inf"),
    "num-games-1e12": ("num_games = 4", "num_games = 1_000_000_000_000"),
    "num-games-2e63": ("num_games = 4", "num_games = 9_223_372_036_854_775_807"),
    "rotation-bad": ("num_games = 4", 'num_games = 4\nrotation = "spiral"'),
    "rotation-int": ("num_games = 4", "num_games = 4\nrotation = 1"),
    "luck-neg": ("num_games = 4", "num_games = 4\nluck_playouts = -1"),
    "luck-str": ("num_games = 4", 'num_games = 4\nluck_playouts = "x"'),
    "luck-huge": ("num_games = 4", "num_games = 4\nluck_playouts = 1_000_000_000_000_000"),
    "so-ismcts-long": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { iterations ='
                       ' 2_000_000 }'),
    "num-games-long": ("num_games = 4", "num_games = 100_000_000"),
    "anchor-unknown": ("num_games = 4", 'num_games = 4\nanchor = "nobody"'),
    "anchor-int": ("num_games = 4", "num_games = 4\nanchor = 0"),
    "kind-bad": ("num_games = 4", 'num_games = 4\nkind = "nonsense"'),
    "kind-int": ("num_games = 4", "num_games = 4\nkind = 3"),
    "unknown-key": ("num_games = 4", "num_games = 4\nnum_gams = 4"),
    "budget-both": ("num_games = 4", "num_games = 4\n\n[budget]\niterations = 3\nseconds = 1.0"),
    "budget-neg": ("num_games = 4", "num_games = 4\n\n[budget]\niterations = -3"),
    "budget-nan": ("num_games = 4", "num_games = 4\n\n[budget]\nseconds = nan"),
    "budget-clock": ("num_games = 4", 'num_games = 4\n\n[budget]\nseconds = 1.0\nclock = "sun"'),
    "budget-clock-alone": ("num_games = 4", 'num_games = 4\n\n[budget]\nclock = "cpu"'),
    "budget-str": ("num_games = 4", 'num_games = 4\n\n[budget]\niterations = "many"'),
    "report-metric": ("num_games = 4", 'num_games = 4\n\n[report]\nmetrics = ["elo"]'),
    "report-str": ("num_games = 4", 'num_games = 4\n\n[report]\nmetrics = "score"'),
    "player-bot": ('bot = "greedy"', 'bot = "nope"'),
    "player-bot-int": ('bot = "greedy"', "bot = 3"),
    "player-name-dup": ('name = "greedy"', 'name = "random"'),
    "player-name-int": ('name = "greedy"', "name = 7"),
    "player-params-bad": ('bot = "greedy"', 'bot = "greedy"\nparams = { nope = 1 }'),
    "player-params-str": ('bot = "greedy"', 'bot = "greedy"\nparams = "x"'),
    "player-extra-key": ('bot = "greedy"', 'bot = "greedy"\ncolour = "red"'),
    "so-ismcts-0": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { iterations = 0 }'),
    "so-ismcts-huge": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { iterations ='
                       ' 1_000_000_000_000_000 }'),
    "so-ismcts-2e62": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { iterations ='
                       ' 4_611_686_018_427_387_904 }'),
    "so-ismcts-c-nan": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { c = nan }'),
    "so-ismcts-sel": ('bot = "greedy"', 'bot = "so_ismcts"\nparams = { selection = "x" }'),
    "mo-ismcts-huge": ('bot = "greedy"', 'bot = "mo_ismcts"\nparams = { iterations ='
                       ' 1_000_000_000_000 }'),
    "pimc-huge": ('bot = "greedy"', 'bot = "pimc"\nparams = { iterations = 1_000_000_000_000 }'),
    "pimc-worlds-0": ('bot = "greedy"', 'bot = "pimc"\nparams = { worlds = 0 }'),
    "openspiel-ismcts-neg": ('bot = "greedy"', 'bot = "openspiel_ismcts"\nparams = { seconds ='
                             ' -1.0 }'),
    "policy-missing": ('bot = "greedy"', 'bot = "policy"\nparams = { path = "missing.npz" }'),
    "policy-dir": ('bot = "greedy"', 'bot = "policy"\nparams = { path = "." }'),
    "subgame-missing": ('bot = "greedy"', 'bot = "subgame"\nparams = { path = "missing.npz" }'),
    "linear-q-missing": ('bot = "greedy"', 'bot = "linear_q"\nparams = { path = "m.npz" }'),
    "heuristic-bad": ('bot = "greedy"', 'bot = "heuristic"\nparams = { nope = 1 }'),
    "one-player": ('\n[[players]]\nname = "greedy"\nbot = "greedy"\n', ""),
    "no-players": ('\n[[players]]\nname = "random"\nbot = "random"\n\n[[players]]\nname ='
                   ' "greedy"\nbot = "greedy"\n', ""),
    "fixed-mismatch": ("num_games = 4", 'num_games = 4\nrotation = "fixed"\n'
                       'games = ["python_sushi_go(players=3)"]'),
    "toml-broken": ("num_games = 4", "num_games = = 4"),
    "toml-binary": ("num_games = 4", "num_games = 4\n\x00\xff"),
    "many-competitors": ('\n[[players]]\nname = "greedy"\nbot = "greedy"\n', "".join(
        f'\n[[players]]\nname = "p{i}"\nbot = "random"\n' for i in range(62))),
}


LONG_RUNS = ("luck-huge", "so-ismcts-long", "num-games-long")
EITHER = {"one-player": "either"}  # self-play of one competitor is a tournament too


def config_cases() -> list[Case]:
  cases = []
  for name, (old, new) in CONFIG_FAULTS.items():
    text = TOURNAMENT.replace(old, new, 1) if old in TOURNAMENT else TOURNAMENT + new
    if name == "many-competitors":
      text = text.replace(TINY_GAME, "python_sushi_go(players=5)")
    if name == "toml-binary":
      def setup(folder, text=text):
        (folder / "c.toml").write_bytes(text.encode("latin-1"))
    else:
      def setup(folder, text=text):
        (folder / "c.toml").write_text(text)
    long = name in LONG_RUNS
    cases.append(Case(f"config/{name}", ["run", "c.toml", "--out", "run",
                                         *([] if long else ["--quiet"])],
                      expect="long" if long else EITHER.get(name, "refuse"), setup=setup,
                      timeout=60))
  solving = {
      "kind-bad": '[experiment]\nname = "s"\nkind = "nope"\ngames = ["tiny"]\n',
      "game-bad": '[experiment]\nname = "s"\nkind = "exploitability"\ngames = ["huge"]\n'
                  '[[players]]\nname = "r"\nbot = "random"\n',
      "game-empty": '[experiment]\nname = "s"\nkind = "exploitability"\ngames = [""]\n'
                    '[[players]]\nname = "r"\nbot = "random"\n',
      "full-tree": '[experiment]\nname = "s"\nkind = "exploitability"\ngames ='
                   ' ["python_sushi_go(players=2)"]\n[[players]]\nname = "r"\nbot = "random"\n',
      "approx-games-0": '[experiment]\nname = "s"\nkind = "approximate_exploitability"\ngames ='
                        ' ["tiny"]\n[approximate]\nnum_games = 0\n[approximate.responders]\n'
                        'i = { responder = "ismcts", iterations = 5 }\n'
                        '[[players]]\nname = "r"\nbot = "random"\n',
      "approx-games-huge": '[experiment]\nname = "s"\nkind = "approximate_exploitability"\ngames'
                           ' = ["tiny"]\n[approximate]\nnum_games = 1_000_000_000_000\n'
                           '[approximate.responders]\ni = { responder = "ismcts", iterations ='
                           ' 5 }\n[[players]]\nname = "r"\nbot = "random"\n',
      "approx-responder-huge": '[experiment]\nname = "s"\nkind = "approximate_exploitability"\n'
                               'games = ["tiny"]\n[approximate]\nnum_games = 4\n'
                               '[approximate.responders]\ni = { responder = "ismcts", iterations'
                               ' = 1_000_000_000_000_000 }\n[[players]]\nname = "r"\nbot ='
                               ' "random"\n',
      "approx-no-responders": '[experiment]\nname = "s"\nkind = "approximate_exploitability"\n'
                              'games = ["tiny"]\n[approximate]\nnum_games = 4\n'
                              '[[players]]\nname = "r"\nbot = "random"\n',
      "convergence-neg": '[experiment]\nname = "s"\nkind = "convergence"\ngames = ["tiny"]\n'
                         '[convergence]\niterations = [-1]\n',
      "convergence-huge": '[experiment]\nname = "s"\nkind = "convergence"\ngames = ["tiny"]\n'
                          '[convergence]\niterations = [1_000_000_000_000_000_000]\n',
      "max-nodes-0": '[experiment]\nname = "s"\nkind = "exploitability"\ngames = ["tiny"]\n'
                     'max_tree_nodes = 0\n[[players]]\nname = "r"\nbot = "random"\n',
  }
  for name, text in solving.items():
    cases.append(Case(f"solving-config/{name}", ["run", "c.toml", "--out", "run", "--quiet"],
                      setup=lambda folder, text=text: (folder / "c.toml").write_text(text),
                      timeout=90))
  return cases


def size_cases() -> list[Case]:
  big = str(10**12)
  specs = {
      "exploitability-games": ["exploitability", "python_sushi_go(players=2,utility=margin)",
                               "--bot", "random", "--games", big, "--out", "r"],
      "exploitability-games-tiny": ["exploitability", "tiny", "--bot", "random", "--approximate",
                                    "--games", big, "--out", "r"],
      "exploitability-so-ismcts": ["exploitability", "tiny", "--bot", "so_ismcts", "--param",
                                   f"iterations={10**15}", "--out", "r"],
      "exploitability-mo-ismcts": ["exploitability", "three_players", "--bot", "mo_ismcts",
                                   "--param", f"iterations={10**14}", "--out", "r"],
      "exploitability-pimc": ["exploitability", "tiny", "--bot", "pimc", "--param",
                              f"iterations={10**13}", "--out", "r"],
      "exploitability-responder": ["exploitability", "python_sushi_go(players=2,utility=margin)",
                                   "--bot", "random", "--responder",
                                   f"ismcts:iterations={10**15}", "--out", "r"],
      "exploitability-memory-tiny": ["exploitability", "small", "--bot", "random", "--memory",
                                     "1kB", "--games", "2", "--responder", "ismcts:iterations=2",
                                     "--out", "r", "--quiet"],
      "train-max-nodes": ["train", "tiny", "--iterations", "3", "--out", "a.npz", "--max-nodes",
                          "1"],
      "train-full-game": ["train", "python_sushi_go(players=2)", "--iterations", "3", "--out",
                          "a.npz"],
      "train-es-full": ["train", "python_sushi_go(players=4)", "--algorithm", "es-mccfr",
                        "--iterations", "3", "--out", "a.npz"],
  }
  cases = [Case(f"sizes/{name}", argv, timeout=90) for name, argv in specs.items()]
  cases[specs_index(specs, "exploitability-memory-tiny")].expect = "work"
  return cases


SEARCH_BOTS = ("so_ismcts", "mo_ismcts", "pimc", "openspiel_ismcts", "subgame")
ABSURD_BUDGETS = {"1e15": str(10**15), "2e62": str(2**62), "1e30": "1e30", "zero": "0",
                  "neg": "-1", "half": "1.5", "nan": "nan", "inf": "inf", "word": "many"}
HUGE_WORLDS = {"pimc": "worlds", "subgame": "worlds"}
BOUNDED_TREES = ("subgame",)  # whose memory does not grow with iterations: long, not refused


def estimate_cases() -> list[Case]:
  """Sizes known before work, over the commands that estimate them: `play --web` with absurd
  budgets (every one must be refused before the server starts: one accepted serves until the
  time limit, a hang), `exploitability` and `run` with huge search trees, `bench` and the
  trainings with huge sizes, and more workers than cores."""
  cases = []
  for bot in SEARCH_BOTS:
    for name, value in ABSURD_BUDGETS.items():
      if bot == "pimc" and name == "neg":
        continue  # iterations -1: PIMC's automatic budget, a valid choice
      cases.append(Case(f"estimates/web-{bot}-iterations-{name}",
                        ["play", "--web", "--game", "python_sushi_go(players=2)", "--bot", bot,
                         "--param", f"iterations={value}", "--port", "0"], timeout=60))
    for value in ("1000000000000000", "0"):
      if bot in HUGE_WORLDS:
        cases.append(Case(f"estimates/web-{bot}-worlds-{value[:2]}",
                          ["play", "--web", "--game", "python_sushi_go(players=4)", "--bot", bot,
                           "--param", f"{HUGE_WORLDS[bot]}={value}", "--port", "0"], timeout=60))
  for bot in SEARCH_BOTS:
    for name in ("1e15", "2e62", "neg", "nan"):
      if bot == "pimc" and name == "neg":
        continue  # PIMC's automatic budget, a valid choice
      long = bot in BOUNDED_TREES and name in ("1e15", "2e62")
      cases.append(Case(f"estimates/exploitability-{bot}-{name}",
                        ["exploitability", "python_sushi_go(players=2,utility=margin)", "--bot",
                         bot, "--param", f"iterations={ABSURD_BUDGETS[name]}", "--games", "2",
                         "--out", "r", *([] if long else ["--quiet"])],
                        expect="long" if long else "refuse", timeout=90))
    text = TOURNAMENT.replace('bot = "greedy"', f'bot = "{bot}"\nparams = {{ iterations ='
                              f' {10**15} }}').replace(TINY_GAME, "python_sushi_go(players=2)")
    long = bot in BOUNDED_TREES
    cases.append(Case(f"estimates/run-{bot}-1e15", ["run", "c.toml", "--out", "run",
                                                    *([] if long else ["--quiet"])],
                      setup=lambda folder, text=text: (folder / "c.toml").write_text(text),
                      expect="long" if long else "refuse", timeout=90))
    text = text.replace("{ iterations = 1000000000000000 }", "{ iterations = 4 }")
    cases.append(Case(f"estimates/run-{bot}-4-workers-64",
                      ["run", "c.toml", "--out", "run", "--quiet", "--workers", "64"],
                      expect="work", timeout=120,
                      setup=lambda folder, text=text: (folder / "c.toml").write_text(
                          text.replace("num_games = 4", "num_games = 2"))))
  for bot, param in HUGE_WORLDS.items():
    text = TOURNAMENT.replace('bot = "greedy"', f'bot = "{bot}"\nparams = {{ {param} ='
                              f' {10**15} }}').replace(TINY_GAME, "python_sushi_go(players=2)")
    # a world's tree does not grow with the worlds: a long run, its time estimated first
    cases.append(Case(f"estimates/run-{bot}-worlds-1e15", ["run", "c.toml", "--out", "run"],
                      expect="long", timeout=90,
                      setup=lambda folder, text=text: (folder / "c.toml").write_text(text)))
  bench = {"search-1e9": ["--search", "--seconds", "1e9"],
           "search-1e300": ["--search", "--seconds", "1e300"],
           "search-inf": ["--search", "--seconds", "inf"],
           "search-players-9": ["--search", "--search-players", "9"],
           "repeats-huge": ["--repeats", str(10**12), "--json", "missing/x.json"],
           "seconds-huge-json": ["--seconds", "1e12", "--json", "missing/x.json"],
           "training-workers-0": ["--training-workers", "0"],
           "training-iterations-0": ["--training-workers", "2", "--training-iterations", "0"],
           "repeats-neg": ["--repeats", "-3"], "seconds-neg": ["--seconds", "-1"],
           "players-1": ["--players", "1"], "draft-players-9": ["--draft-players", "9"],
           "equilibrium-huge-json": ["--equilibrium", "--equilibrium-game", "huge"]}
  for name, argv in bench.items():
    cases.append(Case(f"estimates/bench-{name}", ["bench", *argv], timeout=60))
  cases.append(Case("estimates/bench-seconds-1e9-long", ["bench", "--seconds", "1e9"],
                    expect="long", timeout=40))
  train = {
      "blueprint-workers-1e7": ["python_sushi_go(players=2)", "--abstraction", "cards",
                                "--algorithm", "probe-mccfr", "--iterations", "3", "--workers",
                                str(10**7)],
      "blueprint-iterations-huge": ["python_sushi_go(players=2)", "--abstraction", "cards",
                                    "--algorithm", "probe-mccfr", "--iterations", str(10**18),
                                    "--out", "missing/b.npz"],
      "blueprint-seconds-huge": ["python_sushi_go(players=2)", "--abstraction", "cards",
                                 "--algorithm", "probe-mccfr", "--seconds", "1e300", "--out",
                                 "missing/b.npz"],
      "tabular-iterations-huge": ["small", "--iterations", str(10**18), "--out",
                                  "missing/a.npz"],
      "tabular-large-huge": ["large", "--algorithm", "cfr+", "--iterations", str(10**12),
                             "--out", "missing/a.npz"],
      "tabular-max-nodes-huge": ["tiny", "--iterations", "3", "--max-nodes", str(10**18),
                                 "--out", "missing/a.npz"],
      "ppo-num-envs-1e12": ["python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                            f"num_envs={10**12}", "--iterations", "1"],
      "ppo-rollout-1e12": ["python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                           f"rollout_steps={10**12}", "--iterations", "1"],
      "ppo-hidden-1e9": ["python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                         f"hidden={10**9}", "--iterations", "1"],
      "ppo-num-envs-0": ["python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                         "num_envs=0", "--iterations", "1"],
      "ppo-num-envs-nan": ["python_sushi_go(players=2)", "--algorithm", "ppo", "--ppo",
                           "num_envs=nan", "--iterations", "1"],
  }
  for name, argv in train.items():
    out = [] if "--out" in argv else ["--out", "a.npz"]
    cases.append(Case(f"estimates/train-{name}", ["train", *argv, *out, "--quiet"], timeout=90))
  scripts = {
      "train_blueprint": [["--seconds", "1", "--workers", str(10**7)],
                          ["--seconds", "1e300", "--out", "missing/b.npz"],
                          ["--seconds", "1", "--games", "0"]],
      "train_full_policy": [["--iterations", str(10**15), "--out", "missing/p.npz"],
                            ["--checkpoint-every", "0"], ["--games", str(-1)]],
      "train_linear_q": [["--num-envs", str(2**62)], ["--num-envs", "-1"],
                         ["--minutes", "-1"], ["--steps", str(-5)]],
  }
  return cases + training_script_cases("estimates/script-", scripts)


def specs_index(specs: dict, name: str) -> int:
  return list(specs).index(name)


def corruption_cases(material: Material) -> list[Case]:
  """Faults in a finished run folder, each followed by report, reproduce and a resume."""
  records = run_folder.RECORDS_FILE

  def rewrite(name: str, edit: Callable[[bytes], bytes], which: str = "run"):
    def setup(folder: pathlib.Path) -> None:
      target = material.copy_run(folder, which)
      path = target / name
      path.write_bytes(edit(path.read_bytes() if path.exists() else b""))
    return setup

  def field(index: int, name: str, value) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
      lines = data.splitlines(keepends=True)
      record = json.loads(lines[index])
      record[name] = value
      lines[index] = (json.dumps(record) + "\n").encode()
      return b"".join(lines)
    return edit

  def remove(name: str, which: str = "run"):
    def setup(folder: pathlib.Path) -> None:
      target = material.copy_run(folder, which)
      (target / name).unlink()
    return setup

  # name -> (setup, expect: of every command, or by command, "refuse" when not named)
  faults: dict[str, tuple[Callable, str | dict[str, str]]] = {}
  for name, value in {"seats": ["hacker", "greedy"], "game": "python_sushi_go(players=3)",
                      "scores": ["x", 1], "scores-nan": [float("nan"), 1],
                      "returns": "none", "winners": [9], "winners-empty": [],
                      "index": "1", "index-neg": -1, "index-big": 99, "rounds": None,
                      "breakdown": 5, "puddings": "x", "seed": None, "bots": 7,
                      "luck": ["x"]}.items():
    key = name.split("-")[0]
    faults[f"record-{name}"] = (rewrite(records, field(1, key, value)), "refuse")
  faults["record-not-utf8"] = (rewrite(records, lambda d: d.replace(b'"greedy"', b'"gr\xffedy"',
                                                                        1)), "refuse")
  faults["record-not-json"] = (rewrite(records, lambda d: d + b"{not json}\n"), "refuse")
  faults["record-list"] = (rewrite(records, lambda d: d + b"[1, 2]\n"), "refuse")
  faults["record-dup"] = (rewrite(records, lambda d: d + d.splitlines(keepends=True)[0]),
                          "refuse")
  faults["record-torn"] = (rewrite(records, lambda d: d[:-40]), "either")
  faults["record-empty"] = (rewrite(records, lambda d: b""), "either")
  faults["record-cut-half"] = (rewrite(records, lambda d: d[:len(d) // 2]), "either")
  faults["record-nul"] = (rewrite(records, lambda d: d.replace(b"{", b"\x00", 1)), "refuse")
  faults["records-missing"] = (remove(records), "either")
  # the report reads the resolved config; reproduce and a resume need config.toml
  faults["config-missing"] = (remove(run_folder.CONFIG_FILE), {"report": "either"})
  faults["config-edited"] = (rewrite(run_folder.CONFIG_FILE,
                                     lambda d: d.replace(b"seed = 3", b"seed = 4")), "refuse")
  faults["config-not-utf8"] = (rewrite(run_folder.CONFIG_FILE, lambda d: d + b"\xff"), "refuse")
  faults["resolved-missing"] = (remove(run_folder.RESOLVED_FILE), "either")
  faults["resolved-broken"] = (rewrite(run_folder.RESOLVED_FILE, lambda d: d[:10]), "either")
  faults["resolved-hash"] = (rewrite(run_folder.RESOLVED_FILE, lambda d: d.replace(
      b'"config_hash": "', b'"config_hash": "0')), "either")
  faults["resolved-list"] = (rewrite(run_folder.RESOLVED_FILE, lambda d: b"[]"), "either")
  faults["provenance-broken"] = (rewrite(run_folder.PROVENANCE_FILE, lambda d: d[:20]), "either")
  faults["provenance-list"] = (rewrite(run_folder.PROVENANCE_FILE, lambda d: b"[1]"), "either")
  faults["provenance-not-utf8"] = (rewrite(run_folder.PROVENANCE_FILE, lambda d: b"\xff" + d),
                                   "either")
  faults["manifest-broken"] = (rewrite(run_folder.MANIFEST_FILE, lambda d: b"{"), "either")
  faults["manifest-outside"] = (rewrite(run_folder.MANIFEST_FILE,
                                        lambda d: b'{"files": ["../outside.txt"]}'), "either")
  faults["timings-broken"] = (rewrite(run_folder.TIMINGS_FILE, lambda d: b"garbage\n" + d),
                              "either")
  faults["timings-types"] = (rewrite(run_folder.TIMINGS_FILE,
                                     lambda d: d.replace(b'"seconds": ', b'"seconds": "x", "s": ')),
                             "either")
  faults["lock-stale"] = (rewrite(run_folder.LOCK_FILE, lambda d: b'{"pid": 999999}'), "either")
  faults["lock-garbage"] = (rewrite(run_folder.LOCK_FILE, lambda d: b"\xff\xfe"), "either")
  faults["plots-symlink"] = (lambda folder: _symlinked_plots(material, folder), "either")
  solving_results = run_folder.RESULTS_FILE
  for name, value in {"agent-cut": None, "agent-str": "x", "agent-nan": [float("nan")] * 10,
                      "seat": 5, "competitor": "hacker", "games": [0, 99], "game": "small",
                      "unit": "0", "self_play-cut": None}.items():
    key = name.rsplit("-", 1)[0] if name.endswith(("-cut", "-str", "-nan")) else name

    def edit(data: bytes, key=key, value=value, cut=name.endswith("-cut")) -> bytes:
      lines = data.splitlines(keepends=True)
      number = next(n for n, line in enumerate(lines) if b'"agent"' in line)
      result = json.loads(lines[number])
      result[key] = result[key][:3] if cut else value
      lines[number] = (json.dumps(result) + "\n").encode()
      return b"".join(lines)
    faults[f"solving-{name}"] = (rewrite(solving_results, edit, "solving"), "refuse")
  faults["solving-not-utf8"] = (rewrite(solving_results, lambda d: b"\xff" + d, "solving"),
                                "refuse")
  faults["solving-dup"] = (rewrite(solving_results, lambda d: d + d.splitlines(keepends=True)[0],
                                   "solving"), "refuse")
  cases = []
  for name, (setup, expect) in faults.items():
    which = "solving" if name.startswith("solving") else "run"
    commands = {"report": ["report", which], "reproduce": ["reproduce", which]}
    if which == "run":
      commands["resume"] = ["run", f"{which}/config.toml", "--out", which, "--quiet"]
    for command, argv in commands.items():
      expected = expect.get(command, "refuse") if isinstance(expect, dict) else expect
      cases.append(Case(f"records/{name}/{command}", argv, expect=expected, setup=setup,
                        check=_outside_untouched if name == "plots-symlink" else None))
  return cases


def _symlinked_plots(material: Material, folder: pathlib.Path) -> None:
  target = material.copy_run(folder)
  outside = folder / "outside"
  outside.mkdir()
  (outside / "keep.png").write_text("mine")
  shutil.rmtree(target / run_folder.PLOTS_DIR)
  (target / run_folder.PLOTS_DIR).symlink_to(outside)


def _outside_untouched(folder: pathlib.Path, outcome: Outcome) -> str | None:
  del outcome
  if (folder / "outside" / "keep.png").read_text() != "mine":
    return "a file outside the run folder was changed through a symlink"
  return None


def policy_cases(material: Material) -> list[Case]:
  """Bytes of a saved policy flipped, then measured and played by the `policy` bot."""
  size = material.policy.stat().st_size
  cases = []
  offsets = sorted({int(size * k / 80) for k in range(80)} | {size - 1})
  for offset in offsets:
    def setup(folder, offset=offset):
      data = bytearray(material.policy.read_bytes())
      data[offset] ^= 0x10
      (folder / "p.npz").write_bytes(bytes(data))
    cases.append(Case(f"policy/flip-{offset}", ["exploitability", "tiny", "--policy", "p.npz",
                                                "--out", "r", "--quiet"],
                      expect="either", setup=setup, check=_same_figure_or_refused(material)))
  for name, data in {"empty": b"", "text": b"hello\n", "zip-garbage": b"PK\x03\x04" + b"\0" * 60,
                     "pickle": b"\x80\x04\x95\x00"}.items():
    cases.append(Case(f"policy/{name}", ["exploitability", "tiny", "--policy", "p.npz"],
                      setup=lambda folder, data=data: (folder / "p.npz").write_bytes(data)))
    cases.append(Case(f"policy/{name}-train-resume",
                      ["train", "tiny", "--abstraction", "cards", "--algorithm", "probe-mccfr",
                       "--iterations", "3", "--out", "p.npz", "--resume"],
                      setup=lambda folder, data=data: (folder / "p.npz").write_bytes(data)))
  return cases


def _same_figure_or_refused(material: Material):
  """A flipped file measured with exit 0 must give the original's figures (an identical
  policy); any other figure is a wrong figure."""
  def check(folder: pathlib.Path, outcome: Outcome) -> str | None:
    if outcome.status != 0:
      return None
    figure = _nash_conv_line(folder)
    if figure is not None and figure != _reference_figure(material):
      return "a flipped file was measured, and its figures differ from the original's"
    return None
  return check


def _nash_conv_line(folder: pathlib.Path) -> str | None:
  summary = folder / "r" / run_folder.SUMMARY_MD
  return summary.read_text() if summary.exists() else None


_REFERENCE: dict[str, str] = {}


def _reference_figure(material: Material) -> str:
  if "figure" not in _REFERENCE:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="probe-reference-"))
    shutil.copy(material.policy, folder / "p.npz")
    outcome = run_forked(["exploitability", "tiny", "--policy", "p.npz", "--out", "r",
                          "--quiet"], folder, None, TIMEOUT)
    assert outcome.status == 0, outcome.err
    _REFERENCE["figure"] = _nash_conv_line(folder)
  return _REFERENCE["figure"]


def disk_cases(material: Material) -> list[Case]:
  """A file size limit hit while writing: records, the report, a policy, figures."""
  cases = []
  for limit in (200, 2_000, 20_000):
    cases.append(Case(f"disk/run-{limit}", ["run", "c.toml", "--out", "run", "--quiet"],
                      expect="either", fsize=limit, check=_resumes(limit),
                      setup=lambda folder: (folder / "c.toml").write_text(TOURNAMENT)))
    cases.append(Case(f"disk/report-{limit}", ["report", "run"], expect="either", fsize=limit,
                      setup=lambda folder: material.copy_run(folder),
                      check=_summary_whole_or_absent))
    cases.append(Case(f"disk/train-{limit}", ["train", "tiny", "--iterations", "5", "--out",
                                              "a.npz", "--quiet"], expect="either", fsize=limit,
                      check=_policy_whole_or_absent))
    cases.append(Case(f"disk/exploitability-{limit}",
                      ["exploitability", "tiny", "--bot", "random", "--out", "r", "--json",
                       "f.json", "--quiet"], expect="either", fsize=limit))
  return cases


def _resumes(limit: int):
  def check(folder: pathlib.Path, outcome: Outcome) -> str | None:
    del outcome
    resumed = run_forked(["run", "c.toml", "--out", "run", "--quiet"], folder, None, TIMEOUT)
    if resumed.status != 0:
      return f"the resume after a full disk ({limit} bytes) failed: {resumed.err[-200:]}"
    return _all_records(folder / "run", 4)
  return check


def _all_records(run_dir: pathlib.Path, total: int) -> str | None:
  path = run_dir / run_folder.RECORDS_FILE
  if not path.is_file():
    return f"lost work: {path} is missing after the resume"
  lines = path.read_text().splitlines()
  indices = sorted(json.loads(line)["index"] for line in lines)
  if indices != list(range(total)):
    return f"lost work: the folder holds games {indices}, not 0 to {total - 1}"
  return None


def _summary_whole_or_absent(folder: pathlib.Path, outcome: Outcome) -> str | None:
  del outcome
  csv = folder / "run" / run_folder.SUMMARY_CSV
  if csv.exists() and csv.read_bytes() and not csv.read_bytes().endswith(b"\n"):
    return "summary.csv cut mid-row"
  return None


def _policy_whole_or_absent(folder: pathlib.Path, outcome: Outcome) -> str | None:
  path = folder / "a.npz"
  if outcome.status == 0 and not path.exists():
    return "exit 0 without the policy file"
  if path.exists():
    loaded = run_forked(["exploitability", "tiny", "--policy", "a.npz", "--out", "check",
                         "--quiet"], folder, None, TIMEOUT)
    if loaded.status != 0:
      return f"a cut policy file was left at --out: {loaded.err.strip()[-160:]}"
  return None


def process_cases() -> list[Case]:
  """Real processes: signals, kill -9 and resume, two writers at once."""
  cases = []
  for sig, delay in [(signal.SIGINT, 4.0), (signal.SIGTERM, 4.0), (signal.SIGKILL, 4.0),
                     (signal.SIGINT, 6.0), (signal.SIGKILL, 7.0), (signal.SIGTERM, 8.0)]:
    cases.append(Case(f"process/{sig.name}-{delay:g}s-resume",
                      process=lambda folder, sig=sig, delay=delay: _signal_and_resume(
                          folder, sig, delay), expect="work",
                      check=lambda folder, outcome: _all_records(folder / "run", 400)
                      or _reproduces(folder)))
  cases.append(Case("process/two-writers", process=_two_writers, expect="work",
                    check=lambda folder, outcome: _all_records(folder / "run", 400)))
  cases.append(Case("process/two-trainers", process=_two_trainers, expect="work"))
  cases.append(Case("process/double-sigint", process=_double_sigint, expect="work",
                    check=lambda folder, outcome: _all_records(folder / "run", 400)))
  return cases


TRAINING_SCRIPTS = {
    "train_linear_q": [["--num-envs", str(10**12)], ["--num-envs", "0"], ["--minutes", "nan"],
                       ["--opponent", "nope"], ["--steps", "0"], ["--epsilon", "2"],
                       ["--out", "."]],
    "train_blueprint": [["--seconds", "0"], ["--seconds", "nan"], ["--seconds", "1",
                                                                   "--workers", "0"],
                        ["--seconds", "1", "--players", "9"], ["--seconds", "1", "--out", "."],
                        ["--seconds", "1", "--resume"], ["--seconds", "1", "--abstraction",
                                                         "nope"]],
    "train_full_policy": [["--iterations", "0"], ["--abstraction", "nope"], ["--out", "."],
                          ["--games", "0"]],
}


def script_cases() -> list[Case]:
  """Bad options of the `python -m experiments.train_*` scripts, as processes."""
  return training_script_cases("scripts/", TRAINING_SCRIPTS)


def training_script_cases(prefix: str, scripts: dict[str, list[list[str]]]) -> list[Case]:
  """A case `<prefix><script>-<i>` for each argument list of each `experiments.<script>`, run
  as a process (an `--out` added where the list has none)."""
  cases = []
  for script, lists in scripts.items():
    for i, argv in enumerate(lists):
      args = argv if "--out" in argv else [*argv, "--out", "m.npz"]
      cases.append(Case(f"{prefix}{script}-{i}", process=lambda folder, script=script,
                        args=args: finish(subprocess.Popen(
                            [PYTHON, "-m", f"experiments.{script}", *args], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            start_new_session=True), timeout=180)))
  return cases


def _start_slow(folder: pathlib.Path) -> subprocess.Popen:
  (folder / "c.toml").write_text(SLOW_TOURNAMENT)
  return cli(["run", "c.toml", "--out", "run", "--quiet"], folder)


def _signal_and_resume(folder: pathlib.Path, sig: signal.Signals, delay: float) -> Outcome:
  first = _start_slow(folder)
  time.sleep(delay)
  first.send_signal(sig)
  stopped = finish(first)
  if stopped.status is None:
    return stopped
  return finish(cli(["run", "c.toml", "--out", "run", "--quiet"], folder))


def _double_sigint(folder: pathlib.Path) -> Outcome:
  first = _start_slow(folder)
  time.sleep(5)
  first.send_signal(signal.SIGINT)
  time.sleep(0.05)
  first.send_signal(signal.SIGINT)
  stopped = finish(first)
  if stopped.status is None:
    return stopped
  return finish(cli(["run", "c.toml", "--out", "run", "--quiet"], folder))


def _two_writers(folder: pathlib.Path) -> Outcome:
  first = _start_slow(folder)
  time.sleep(4)
  second = finish(cli(["run", "c.toml", "--out", "run", "--quiet"], folder))
  done = finish(first)
  if second.status != 2:
    return Outcome(3, second.out, "the second writer was not refused: " + second.err)
  return done


def _two_trainers(folder: pathlib.Path) -> Outcome:
  args = ["train", "tiny", "--abstraction", "cards", "--algorithm", "probe-mccfr", "--seconds",
          "8", "--out", "b.npz", "--quiet"]
  first = cli(args, folder)
  time.sleep(4)
  second = finish(cli([*args[:-1], "--resume", "--quiet"], folder))
  done = finish(first)
  if second.status != 2 or done.status != 0:
    return Outcome(3, second.out + done.out, f"second {second.status}: {second.err}; first"
                   f" {done.status}: {done.err}")
  return done


def _reproduces(folder: pathlib.Path) -> str | None:
  replay = finish(cli(["reproduce", "run"], folder))
  if replay.status != 0:
    return f"the resumed run does not reproduce: {replay.out[-200:]}{replay.err[-200:]}"
  return None


# ----- the probe


def all_cases(material: Material) -> list[Case]:
  return [*option_cases(), *config_cases(), *size_cases(), *estimate_cases(),
          *corruption_cases(material),
          *policy_cases(material), *disk_cases(material), *script_cases(), *process_cases()]


def run_case(case: Case, folder: pathlib.Path) -> tuple[str, str, str]:
  folder.mkdir(parents=True)
  if case.setup:
    case.setup(folder)
  if case.process:
    outcome = case.process(folder)
  else:
    outcome = run_forked(case.argv, folder, case.fsize, case.timeout)
  (folder / "outcome.json").write_text(json.dumps(dataclasses.asdict(outcome)))
  return classify(case, outcome, folder)


def main_probe(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--only", default="", metavar="PREFIX", help="cases whose name starts so")
  parser.add_argument("--out", metavar="DIR", help="keep each case's folder here")
  parser.add_argument("--list", action="store_true", help="list the cases and exit")
  args = parser.parse_args(argv)
  out = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="probe-"))
  out.mkdir(parents=True, exist_ok=True)
  material = Material(out / "material")
  cases = [case for case in all_cases(material) if case.name.startswith(args.only)]
  if args.list:
    print("\n".join(case.name for case in cases))
    return 0
  counts, severities = collections.Counter(), collections.Counter()
  started = time.perf_counter()
  for number, case in enumerate(cases, 1):
    kind, severity, reason = run_case(case, out / "cases" / case.name.replace("/", "__"))
    counts[kind] += 1
    if kind == "defect":
      severities[severity] += 1
      print(f"DEFECT {severity:6} {case.name}: {reason}", flush=True)
    elif number % 25 == 0:
      print(f"... {number} of {len(cases)} cases, {time.perf_counter() - started:.0f} s",
            flush=True)
  print(f"{len(cases)} cases: {counts['clean']} clean refusals, {counts['handled']} handled,"
        f" {counts['defect']} defects (high {severities['high']}, medium {severities['medium']},"
        f" low {severities['low']}); case folders in {out}")
  return 1 if severities["high"] or severities["medium"] else 0


if __name__ == "__main__":
  sys.exit(main_probe())
