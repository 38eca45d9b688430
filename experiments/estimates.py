"""What a command will take, estimated from its inputs before it starts: memory, disk and time.

Every command that does work adds up what it will hold at once (`Need`s) and what it will write,
and refuses, before any work, what cannot fit in the memory this machine has available
(`/proc/meminfo`'s MemAvailable, or the process's address-space limit when lower) or on the disk
under its output, in one sentence holding the estimate, what the machine has and what is allowed.
The sizes of bots live beside the bots (`solvers.bot.Bot.decision_memory`); those of a kind of
work beside it. `time_note` gives a long run's time estimate and where its per-unit cost comes
from (a short calibration, `solvers.bot.Bot.timing_parameters`, or a resumed folder's stored
timings); `workers_note` warns when --workers asks for more processes than the usable cores.

What each command counts: docs/experiments.md, "Reliability" ("Sizes before work").
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import resource
import shutil
import sys
import time
from collections.abc import Sequence

import numpy as np

import solvers

LONG_RUN_SECONDS = 60.0  # runs estimated to take longer get a time estimate before they start
# A game's record as JSON (records.jsonl plus its line of timings.jsonl): about 300 bytes, and 300
# more a seat, measured on the stored runs (885 bytes for two players, 1,500 for four); read back
# as Python objects (resume, report) it takes six times that (measured with tracemalloc).
RECORD_BYTES = 300
RECORD_BYTES_PER_SEAT = 300
IN_MEMORY_FACTOR = 6
_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


class TooLarge(ValueError):
  """Work refused before it starts: it cannot fit; the message holds the estimate."""


@dataclasses.dataclass(frozen=True)
class Need:
  """Memory some part of the work will hold at once: `what` says which, as the start of a
  sentence ("players[1] 'search' (so_ismcts iterations=1e+15) may take up to"), `noun` what the
  bytes are ("of search tree for one decision"), and `allowed` what the user may do instead."""
  what: str
  noun: str
  bytes: int
  allowed: str

  def sentence(self, size: int | None = None) -> str:
    return f"{self.what} {format_bytes(self.bytes if size is None else size)} {self.noun}"


def format_bytes(count: float) -> str:
  """A byte count in binary units: 14.2 PiB, 23.5 GiB, 512 bytes."""
  unit = 0
  while count >= 1024 and unit < len(_UNITS) - 1:
    count /= 1024
    unit += 1
  if unit == 0:
    return f"{count:.0f} bytes"
  return f"{count:.1f} {_UNITS[unit]}" if count < 1024 else f"{count:.2g} {_UNITS[unit]}"


def format_seconds(seconds: float) -> str:
  """A duration in words: 45 s, 12 min, 3.5 h, 41 days, 2.1e+06 years."""
  for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
    if seconds >= size * (2 if unit in ("years", "days") else 1):
      value = seconds / size
      return f"{value:.2g} {unit}" if value >= 1e6 else f"{value:.1f} {unit}"
  return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.2g} s"


def available_memory() -> int:
  """The bytes this process may still allocate: the machine's MemAvailable (`/proc/meminfo`, or
  the free physical pages where there is none), lowered to what the address-space limit
  (RLIMIT_AS) leaves above the process's present size."""
  available = _meminfo_available()
  soft, _ = resource.getrlimit(resource.RLIMIT_AS)
  if soft != resource.RLIM_INFINITY:
    available = min(available, max(0, soft - _virtual_size()))
  return available


def _meminfo_available() -> int:
  try:
    with open("/proc/meminfo", encoding="ascii") as meminfo:
      for line in meminfo:
        if line.startswith("MemAvailable:"):
          return int(line.split()[1]) * 1024
  except (OSError, ValueError):
    pass
  return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _virtual_size() -> int:
  try:
    with open("/proc/self/statm", encoding="ascii") as statm:
      return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
  except (OSError, ValueError, IndexError):
    return 0


def usable_cores() -> int:
  """The cores this process may run on (its CPU affinity), else the machine's."""
  try:
    return len(os.sched_getaffinity(0))
  except AttributeError:
    return os.cpu_count() or 1


def check_memory(needs: Sequence[Need]) -> None:
  """Refuses (`TooLarge`) work whose `needs` cannot all be held in the memory available now: the
  largest one when it alone is too large, else their sum, named part by part."""
  needs = [need for need in needs if need.bytes > 0]
  if not needs:
    return
  available = available_memory()
  largest = max(needs, key=lambda need: need.bytes)
  machine = f"this machine has {format_bytes(available)} available"
  if largest.bytes > available:
    raise TooLarge(f"{largest.sentence()}; {machine}; allowed: {largest.allowed}")
  total = sum(need.bytes for need in needs)
  if total > available:
    parts = ", ".join(need.sentence() for need in needs)
    raise TooLarge(f"together the work would hold {format_bytes(total)} of memory ({parts});"
                   f" {machine}; allowed: {largest.allowed}")


def check_disk(what: str, count: int, path: pathlib.Path, allowed: str) -> None:
  """Refuses (`TooLarge`) writing `count` more bytes (`what`: "the records of 1e12 games") under
  `path` when the disk holding it has less free, or when one file may not grow that large
  (RLIMIT_FSIZE)."""
  free = shutil.disk_usage(_existing(path)).free
  if count > free:
    raise TooLarge(f"{what} would take {format_bytes(count)} of disk; {_existing(path)} has"
                   f" {format_bytes(free)} free; allowed: {allowed}")
  soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
  if soft != resource.RLIM_INFINITY and count > soft:
    raise TooLarge(f"{what} would take {format_bytes(count)} in one file; this process may write"
                   f" files of at most {format_bytes(soft)} (its file size limit); allowed:"
                   f" {allowed}")


def _existing(path: pathlib.Path) -> pathlib.Path:
  path = pathlib.Path(path).absolute()
  while not path.exists() and path != path.parent:
    path = path.parent
  return path


def check_blueprint(workers: int, out: str) -> None:
  """Refuses (`TooLarge`) a blueprint training whose tables (regrets, averages and offer weights,
  float64, 2**`DEFAULT_TABLE_BITS` slots each; one set in each of `workers` processes) cannot fit
  in memory, or whose checkpoint (at most every slot of each table as its index and its value)
  cannot fit on the disk under `out`."""
  from solvers.equilibrium import blueprint  # pylint: disable=import-outside-toplevel (numba)
  bits = blueprint.DEFAULT_TABLE_BITS
  check_memory([Need(f"the blueprint's tables, one set in each of {workers:,} process(es), would"
                     " take", "of memory", workers * (3 * 8 << bits),
                     "fewer --workers, or a machine with the memory")])
  check_disk(f"the checkpoint {out}", 3 * 16 << bits, pathlib.Path(out),
             "--out on a disk with the room")


def record_bytes(seats: int) -> int:
  """A game record's bytes as JSON (`RECORD_BYTES`)."""
  return RECORD_BYTES + RECORD_BYTES_PER_SEAT * seats


def workers_note(workers: int, option: str = "--workers") -> str | None:
  """A warning when `workers` processes are more than the cores this process may use, else None."""
  cores = usable_cores()
  if workers <= cores:
    return None
  return (f"{option} {workers} is more than the {cores} core{'s' * (cores != 1)} this process"
          f" may use: the workers share them, so the work takes no less time than with"
          f" {option} {cores}")


@dataclasses.dataclass(frozen=True)
class Duration:
  """How long `units` units of work (`noun`s) take at `seconds_each` on one worker, and where
  that cost comes from (`source`: "calibrated on ...", "from 120 stored game timings")."""
  units: int
  noun: str
  seconds_each: float
  source: str

  def seconds(self, workers: int = 1) -> float:
    return self.units * self.seconds_each / max(1, min(workers, usable_cores()))

  def note(self, workers: int = 1) -> str:
    workers = max(1, min(workers, usable_cores()))
    return (f"estimated time {format_seconds(self.seconds(workers))}: {self.units:,}"
            f" {self.noun}{'s' * (self.units != 1)} at about {format_seconds(self.seconds_each)}"
            f" each ({self.source}) on {workers} worker{'s' * (workers != 1)}")


def time_note(duration: Duration | None, workers: int = 1) -> str | None:
  """The time estimate of a long run (over `LONG_RUN_SECONDS`), else None."""
  if duration is None or duration.seconds(workers) < LONG_RUN_SECONDS:
    return None
  return duration.note(workers)


def print_notes(notes: Sequence[str | None]) -> None:
  """Prints each note that is not None, as "Note: ..." on stderr."""
  for note in notes:
    if note:
      print(f"Note: {note}", file=sys.stderr)


def bot_memory(name: str, game, params: dict, who: str) -> Need:
  """The memory one decision of bot `name` with `params` may allocate (`Bot.decision_memory`),
  as a `Need` naming the bot as `who` says it (a competitor, an option)."""
  bytes_needed = solvers.bot_class(name).decision_memory(game, params)
  budget = ", ".join(f"{key}={params[key]:g}" for key in ("iterations", "worlds")
                     if isinstance(params.get(key), (int, float)) and key in params)
  return Need(f"{who} ({name}{' ' + budget if budget else ''}) may take up to", "of search tree"
              " for one decision", int(bytes_needed),
              "fewer iterations (or a time budget, seconds) for that bot, or a machine with the"
              " memory")


def decision_seconds(name: str, game, params: dict, seed: int = 0, decisions: int = 3) -> float:
  """Seconds one decision of bot `name` with `params` takes, calibrated: the bot is built under
  its cheap `timing_parameters` and timed over `decisions` decisions at the first decision node
  of a game dealt from `seed` (after one untimed decision, which may compile kernels), then
  scaled by the budget's ratio."""
  cls = solvers.bot_class(name)
  timing_params, factor = cls.timing_parameters(params)
  bot = solvers.make_bot(name, game, 0, seed, **timing_params)
  state = first_decision(game, seed)
  bot.step(state)
  start = time.perf_counter()
  for _ in range(decisions):
    bot.step(state)
  return (time.perf_counter() - start) / decisions * factor


def first_decision(game, seed: int):
  """The first decision node of `game`, its chance outcomes drawn from `seed`."""
  rng = np.random.default_rng(seed)
  state = game.new_initial_state()
  while state.is_chance_node():
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(outcomes[rng.choice(len(outcomes), p=probabilities)])
  return state


def decisions_per_game(game, seed: int = 0) -> tuple[int, int]:
  """The decision nodes (every seat decides at each) and the deals of one game of `game` played
  at random: Sushi Go's are fixed by its rounds and hand size."""
  rng = np.random.default_rng(seed)
  state, decisions, deals, dealing = game.new_initial_state(), 0, 0, False
  while not state.is_terminal():
    if state.is_chance_node():
      deals += not dealing
      dealing = True
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[rng.choice(len(outcomes), p=probabilities)])
    else:
      decisions, dealing = decisions + 1, False
      state.apply_actions([int(rng.choice(state.legal_actions(p)))
                           for p in range(game.num_players())])
  return decisions, deals
