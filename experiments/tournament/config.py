"""Tournament configs: the tables of a tournament, declared once, and its seating schedule.

A tournament plays competitors (bots from `solvers`) against each other on one or more
`python_sushi_go` game strings. Its tables (`[experiment]`, `[budget]`, `[report]`, `[[players]]`)
are declared below with `experiments.config`, which checks them, fills in their defaults and
writes their reference in docs/configs.md; unknown keys are errors, and
every error names the key as a dotted path (`experiment.num_games`, `players[2].params.c`). The
budget goes to each bot that has a parameter of that name, unless the competitor's own `params`
set it.

Every game string gets the same balanced cycle of seatings (`schedule`: even lineups, or each
competitor alone against the anchor, each seated by `rotation`; docs/experiments.md, "Seating
schedule"). Game i plays `games[i // num_games]` with seating `cycle[(i % num_games) %
len(cycle)]`, a pure function of the config; seats are exactly balanced when num_games is a
multiple of the cycle length, as `Config.notes()` points out.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import pathlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import pyspiel

import solvers
from experiments import config as config_lib
from experiments.config import Competitor, ConfigError, key

KIND = "tournament"
GAME_NAME = config_lib.GAME_NAME
ROTATIONS = ("all", "cyclic", "fixed")
METRICS = ("score", "margin", "win")
BUDGET_CLOCKS = ("wall", "cpu")  # what budget.seconds is measured on (`solvers.bot.CLOCKS`)
DEFAULT_LUCK_PLAYOUTS = 0  # off: on baseline-only tournaments it triples the run time


def _games(value: Any, path: str) -> tuple[str, ...]:
  games = config_lib.string_list(value, path)
  for i, game in enumerate(games):
    game_path = f"{path}[{i}]"
    try:
      name = config_lib.game_name(game)
    except ValueError as e:
      raise ConfigError(f"{game_path}: {game!r} is not a game string ({e}); allowed: a"
                        f" {GAME_NAME} game string such as '{GAME_NAME}(players=3)'") from None
    if name != GAME_NAME:
      raise ConfigError(f"{game_path}: expected a {GAME_NAME} game string such as"
                        f" '{GAME_NAME}(players=3)', got game {name!r}")
    config_lib.checked_game(game, game_path)
  return tuple(games)


def _clock(value: Any, path: str) -> str:
  if value not in BUDGET_CLOCKS:
    raise ConfigError(f"{path} is {value!r}; allowed: {', '.join(BUDGET_CLOCKS)}")
  return value


@dataclasses.dataclass(frozen=True)
class Experiment(config_lib.Experiment):
  """The `[experiment]` of a tournament, required."""
  kind: str = key("which experiment it is; other kinds are solving experiments", default=KIND,
                  allowed=(KIND,), resolved_at_default=False)
  games: tuple[str, ...] = key("distinct `python_sushi_go` game strings", check=_games)
  num_games: int = key("games played per game string", minimum=1)
  rotation: str = key("how each lineup is seated (see Seating schedule)", default="all",
                      allowed=ROTATIONS)
  luck_playouts: int = key("reference playouts per deal that estimate the luck of the deal"
                           " (`experiments.tournament.luck`), reported beside the raw figures;"
                           " 0: off", default=DEFAULT_LUCK_PLAYOUTS, minimum=0,
                           resolved_at_default=False)
  aivat: bool = key("whether to record the AIVAT decision terms of the bots whose policies can be"
                    " read (`experiments.tournament.aivat`), valued with the luck's reference"
                    " playouts, and report the AIVAT figures; needs `luck_playouts` >= 1",
                    default=False, resolved_at_default=False)
  anchor: str | None = key("a competitor's name: every lineup is then one other competitor"
                           " against the anchor in all other seats", default=None)


@dataclasses.dataclass(frozen=True)
class Budget:
  """The search budget per move, optional: at most one of iterations and seconds."""
  iterations: int | None = key("search iterations per move", default=None, minimum=1)
  seconds: float | None = key("time per move (not bit-reproducible)", default=None,
                              check=config_lib.positive_number, value="number > 0")
  clock: str | None = key("with seconds: what they are measured on, wall time (none, or"
                          ' `"wall"`) or the searching thread\'s CPU time (`"cpu"`), fair when'
                          " other work shares the machine's cores", default=None,
                          allowed=BUDGET_CLOCKS, check=_clock)

  def cross_check(self, path: str) -> Budget:
    """One budget at most, and a clock only for seconds."""
    if self.iterations is not None and self.seconds is not None:
      raise ConfigError(f"{path}: set iterations or seconds, not both")
    if self.clock is not None and self.seconds is None:
      raise ConfigError(f"{path}.clock says what {path}.seconds is measured on; set seconds with"
                        " it")
    return self


@dataclasses.dataclass(frozen=True)
class Report:
  """What the report shows, optional."""
  metrics: tuple[str, ...] = key("the figures reported", default=METRICS, allowed=METRICS)


@dataclasses.dataclass(frozen=True)
class Tables:
  """The tables of a tournament config."""
  experiment: Experiment = key("the experiment")
  budget: Budget = key("the search budget per move", default={})
  report: Report = key("what the report shows", default={})
  players: tuple[Competitor, ...] = key("the competitors", check=config_lib.players)

  def cross_check(self, path: str) -> Tables:
    """The anchor is a competitor, with at least one other to play against it; AIVAT has the
    luck's playouts to value positions with."""
    del path
    if self.experiment.aivat and not self.experiment.luck_playouts:
      raise ConfigError("experiment.aivat: AIVAT values positions with the luck's reference"
                        " playouts; set experiment.luck_playouts to an integer >= 1 with it")
    anchor, names = self.experiment.anchor, [p.name for p in self.players]
    if anchor is not None and anchor not in names:
      raise ConfigError(f"experiment.anchor: expected the name of a competitor"
                        f" ({', '.join(names)}), got {anchor!r}")
    if anchor is not None and len(names) < 2:
      raise ConfigError("experiment.anchor: needs at least one other competitor to play against"
                        " it")
    return self


class Matchup(NamedTuple):
  """What game i plays: a game string and the competitor in each seat."""
  game: str
  seats: tuple[Competitor, ...]


@dataclasses.dataclass(frozen=True)
class Config:
  """A checked tournament config: its `tables`, and `text`, the TOML exactly as written."""
  tables: Tables
  text: str

  name = property(lambda self: self.tables.experiment.name)
  seed = property(lambda self: self.tables.experiment.seed)
  games = property(lambda self: self.tables.experiment.games)
  num_games = property(lambda self: self.tables.experiment.num_games)
  rotation = property(lambda self: self.tables.experiment.rotation)
  luck_playouts = property(lambda self: self.tables.experiment.luck_playouts)
  aivat = property(lambda self: self.tables.experiment.aivat)
  metrics = property(lambda self: self.tables.report.metrics)
  players = property(lambda self: self.tables.players)

  @property
  def budget(self) -> dict[str, int | float | str]:
    """The budget keys given: {} (none), {"iterations": n} or {"seconds": s[, "clock": c]}."""
    return config_lib.resolved(self.tables.budget)

  @property
  def anchor(self) -> int | None:
    """The anchor's index in `players`, if there is one."""
    anchor = self.tables.experiment.anchor
    return None if anchor is None else [p.name for p in self.players].index(anchor)

  @property
  def total_games(self) -> int:
    return self.num_games * len(self.games)

  @property
  def budget_kind(self) -> str:
    """"iterations", "seconds" or "none"."""
    return next(iter(self.budget), "none")

  def loaded_game(self, game: str) -> pyspiel.Game:
    return config_lib.load_game(game)

  def cycle(self, game: str) -> tuple[tuple[int, ...], ...]:
    """The seatings of `game` (competitor indices by seat), in schedule order."""
    return schedule(self.loaded_game(game).num_players(), len(self.players), self.rotation,
                    self.anchor)

  def cycle_length(self, game: str) -> int:
    """The number of seatings of `game`, counted without listing them."""
    return cycle_length(self.loaded_game(game).num_players(), len(self.players), self.rotation,
                        self.anchor)

  def matchup(self, index: int) -> Matchup:
    """The game string and seating of game `index` (0 <= index < total_games)."""
    game = self.games[index // self.num_games]
    cycle = self.cycle(game)
    seating = cycle[index % self.num_games % len(cycle)]
    return Matchup(game, tuple(self.players[c] for c in seating))

  def bot_params(self, competitor: Competitor) -> dict[str, Any]:
    """The competitor's parameters, plus the budget when its bot takes it and they do not set it."""
    accepted = solvers.bot_parameters(competitor.bot)
    budget = {kind: value for kind, value in self.budget.items() if kind in accepted}
    return {**budget, **competitor.params}

  def resolved(self) -> dict[str, Any]:
    """The config with every default filled in, the schedule's size, and `config_hash`."""
    resolved = {
        **config_lib.resolved(self.tables),
        "schedule": {"total_games": self.total_games,
                     "cycle_length": {game: self.cycle_length(game) for game in self.games}},
    }
    return {**resolved, "config_hash": config_lib.config_hash(resolved)}

  @property
  def hash(self) -> str:
    return self.resolved()["config_hash"]

  def notes(self) -> list[str]:
    """What is legal but likely unmeant: seats not balanced, a budget that no bot takes."""
    notes = []
    for game in self.games:
      length = self.cycle_length(game)
      if self.num_games % length:
        notes.append(f"{game}: num_games = {self.num_games} is not a multiple of its {length}"
                     " seatings, so seats are not exactly balanced")
    for kind in self.budget:
      if not any(kind in solvers.bot_parameters(p.bot) for p in self.players):
        notes.append(f"budget.{kind}: no competitor's bot takes it, so it has no effect")
    return notes


def load(path: str | pathlib.Path) -> Config:
  """Reads and checks the config at `path`; ConfigError says what is wrong, and where."""
  return config_lib.load(path, parse)


def parse(text: str) -> Config:
  """Checks a config given as TOML text: its tables, its seats, and every bot, built once per
  game."""
  config = read_tables(text)
  _check_fixed_seats(config)
  config_lib.check_bots(config.players, {game: config.loaded_game(game) for game in config.games},
                        config.bot_params)
  return config


def read_tables(text: str) -> Config:
  """The config of TOML text with its tables checked as declared, no bot built yet (all its hash
  needs)."""
  return Config(config_lib.read(Tables, config_lib.parse_toml(text), ""), text)


def _check_fixed_seats(config: Config) -> None:
  """With rotation "fixed" competitor p always sits in seat p, so each game needs one seat each."""
  if config.rotation != "fixed":
    return
  if config.anchor is not None:
    raise ConfigError("experiment.anchor: an anchor seats every competitor against it, which"
                      " rotation \"fixed\" (competitor p in seat p) cannot do; use \"all\" or"
                      " \"cyclic\"")
  for game in config.games:
    seats = config.loaded_game(game).num_players()
    if seats != len(config.players):
      raise ConfigError(
          f"experiment.rotation: \"fixed\" seats competitor p in seat p, so every game needs as"
          f" many seats as there are [[players]] ({len(config.players)}); {game} has {seats}")


def cycle_length(seats: int, competitors: int, rotation: str, anchor: int | None = None) -> int:
  """The number of seatings `schedule` lists, counted without listing them. Every lineup holds
  each competitor `base` or `base + 1` times (or, with an anchor, one competitor once and the
  anchor in every other seat): with both counts present no rotation but the whole repeats it, so
  it has `seats` distinct rotations; with one count, `base`, it is the competitors in order
  `base` times over, and has `competitors`."""
  if anchor is not None:
    lineups_count, counts = competitors - 1, [1, seats - 1]
  else:
    base, extra = divmod(seats, competitors)
    lineups_count = math.comb(competitors, extra)
    counts = [base + 1] * extra + [base] * (competitors - extra)
  if rotation == "fixed":
    per_lineup = 1
  elif rotation == "cyclic":
    per_lineup = seats if anchor is not None or seats % competitors else competitors
  else:
    per_lineup = math.factorial(seats)
    for count in counts:
      per_lineup //= math.factorial(count)
  return lineups_count * per_lineup


# A seating held in the cycle: a tuple of `seats` small ints, and its share of the permutations
# and dict `seatings` builds on the way: 90 to 100 bytes at two to five seats (measured with
# tracemalloc on the cycles of 62 competitors at two seats and 12 at five).
SEATING_BYTES = 64
SEATING_BYTES_PER_SEAT = 8


@functools.cache
def schedule(seats: int, competitors: int, rotation: str,
             anchor: int | None = None) -> tuple[tuple[int, ...], ...]:
  """The seating cycle of one game string: competitor indices by seat, lineup by lineup."""
  if anchor is None:
    chosen = lineups(seats, competitors)
  else:
    chosen = [(c,) + (anchor,) * (seats - 1) for c in range(competitors) if c != anchor]
  return tuple(seating for lineup in chosen for seating in seatings(lineup, rotation))


def lineups(seats: int, competitors: int) -> list[tuple[int, ...]]:
  """Multisets of competitors filling `seats` as evenly as possible, copies spread out."""
  base, extra = divmod(seats, competitors)
  result = []
  for favoured in itertools.combinations(range(competitors), extra):
    counts = [base + (c in favoured) for c in range(competitors)]
    result.append(tuple(c for copy in range(max(counts))
                        for c in range(competitors) if counts[c] > copy))
  return result


def seatings(lineup: Sequence[int], rotation: str) -> list[tuple[int, ...]]:
  """The distinct seatings of a lineup: all its permutations, or its rotations."""
  lineup = tuple(lineup)
  if rotation == "fixed":
    return [lineup]
  if rotation == "cyclic":
    arrangements = (lineup[shift:] + lineup[:shift] for shift in range(len(lineup)))
  else:
    arrangements = itertools.permutations(lineup)
  return list(dict.fromkeys(arrangements))


def record_problem(config: Config) -> Callable[[int, dict], str | None]:
  """What is wrong with the record of game `index` given `config` (None if nothing): its game
  string and seats must be the config's for that game (a renamed seat or another game would be
  reported as a competitor or a section of its own), its scores whole numbers and its returns
  finite numbers, one a seat, its luck and decision terms too where it holds them, and its winners
  seats."""
  def problem(index: int, record: dict) -> str | None:
    matchup = config.matchup(index)
    names = [competitor.name for competitor in matchup.seats]
    if record.get("game") != matchup.game:
      return (f"game {index} is recorded on {record.get('game')!r}, but the config plays it on"
              f" {matchup.game!r}")
    if record.get("seats") != names:
      return (f"game {index} is recorded with seats {record.get('seats')!r}, but the config seats"
              f" {names}")
    seed = {"entropy": config.seed, "spawn_key": [index]}
    if record.get("seed") != seed:
      return f"game {index}'s 'seed' is {record.get('seed')!r}, but the config's is {seed}"
    bots = record.get("bots")
    if not (isinstance(bots, list) and len(bots) == len(names) and all(
        isinstance(bot, dict) and bot.get("bot") == competitor.bot
        for bot, competitor in zip(bots, matchup.seats))):
      return (f"game {index}'s 'bots' is {bots!r}, not the config's bots by seat"
              f" ({', '.join(competitor.bot for competitor in matchup.seats)})")
    seats = len(names)
    fields = [("scores", (int,)), ("returns", (int, float)), ("puddings", (int,))]
    for field in ("luck", "decisions"):  # records written before these were measured have none
      if field in record:
        fields.append((field, (int, float)))
    for field, kinds in fields:
      values = record.get(field)
      if not _numbers(values, seats, kinds):
        return f"game {index}'s {field!r} is {values!r}, not {seats} finite numbers"
    for field in ("rounds", "breakdown"):
      values = record.get(field)
      if not (isinstance(values, list) and values and all(
          isinstance(by_seat, list) and len(by_seat) == seats for by_seat in values)):
        return f"game {index}'s {field!r} is {values!r}, not a list by round of {seats} seats"
    if not all(_numbers(points, seats, (int,)) for points in record["rounds"]):
      return f"game {index}'s 'rounds' is {record['rounds']!r}, not whole points by seat"
    winners = record.get("winners")
    if not (isinstance(winners, list) and winners and all(
        isinstance(w, int) and not isinstance(w, bool) and 0 <= w < seats for w in winners)):
      return f"game {index}'s 'winners' is {winners!r}, not seats of its {seats}"
    return None
  return problem


def _numbers(values: Any, count: int, kinds: tuple[type, ...]) -> bool:
  """Whether `values` is a list of `count` finite numbers of `kinds` (no booleans)."""
  return isinstance(values, list) and len(values) == count and all(
      isinstance(v, kinds) and not isinstance(v, bool) and math.isfinite(v) for v in values)
