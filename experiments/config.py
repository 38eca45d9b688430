"""Experiment configs: a TOML file, read and checked in full before any game is played.

An experiment plays competitors (bots from `solvers`) against each other on one or more
`python_sushi_go` game strings. A mistake in a config should cost nothing, so everything is checked
up front: every error names the key as a dotted path (`experiment.num_games`, `players[2].params.c`)
and says what is allowed.

Format
------

  [experiment]                # required
  name = "quickstart"         # required; names the run folder: letters, digits, '.', '_', '-'
  kind = "tournament"         # optional (the default); other kinds are solving experiments
                              # (experiments/solving.py)
  seed = 2026                 # required; integer >= 0, the root of every random choice
  games = ["python_sushi_go(players=2)", "python_sushi_go(players=4)"]
                              # required; one or more distinct python_sushi_go game strings
  num_games = 120             # required; integer >= 1, games played per game string
  rotation = "all"            # optional (default "all"): how each lineup is seated, see below
                              # ("all", "cyclic" or "fixed")
  anchor = "heuristic"        # optional (default none): a competitor's name; every lineup is then
                              # one other competitor against the anchor in all other seats

  [budget]                    # optional (default: no budget); at most one of:
  iterations = 200            #   integer >= 1, search iterations per move
  # seconds = 0.5             #   number > 0, wall time per move (not bit-reproducible)

  [report]                    # optional
  metrics = ["score", "margin", "win"]
                              # optional (default: all three); any of "score", "margin", "win"

  [[players]]                 # one table per competitor, at least one
  name = "random"             # optional (default: the bot name); the label in tables, unique
  bot = "random"              # required; a name from `solvers.BOTS`
  params = {}                 # optional (default {}); parameters of the bot, checked against
                              # `solvers.bot_parameters(bot)` and by building the bot once per game

Unknown keys are errors. The budget is passed to each bot that has a parameter of that name
(`iterations` or `seconds`), unless the competitor's own `params` set it: so one config can pit a
search bot with the shared budget against the same bot with a budget of its own.

Schedule
--------

Seat order must not bias the results, so every game string gets the same balanced cycle of
seatings. With n seats and k competitors, a lineup is a multiset of n competitors as even as it can
be: each competitor takes n // k seats, and the n % k seats left over go to every possible subset of
n % k competitors in turn. So n == k gives one lineup (everyone), n < k every n-subset, and n > k
repeats competitors as evenly as possible (k = 2, n = 5: AABBB and AAABB). With an `anchor`, the
lineups are instead each other competitor alone against n - 1 copies of the anchor (at 4 players,
X A A A for every X), which measures every competitor against one yardstick at a fraction of the
games of the even lineups. Each lineup is then seated by `rotation`:

  "all"     every distinct seating permutation of the lineup (neighbours vary too: Sushi Go passes
            hands to the left, so who sits next to whom matters);
  "cyclic"  the distinct rotations of the lineup, copies spread out (A B A B rather than A A B B),
            so each competitor takes each seat equally often with n times fewer games;
  "fixed"   no rotation: competitor p always sits in seat p (every game string must have exactly
            one seat per competitor), for studies of a given seating; seat order is then part of
            what is measured.

Within a cycle every competitor of a lineup takes every seat equally often. Games are numbered from
0: game i plays game string `games[i // num_games]` with seating `cycle[(i % num_games) %
len(cycle)]`, a pure function of the config. Seat balance is exact when num_games is a multiple of
the cycle length, as `Config.notes()` points out.

Example (a complete config)
---------------------------

  [experiment]
  name = "quickstart"
  seed = 2026
  games = ["python_sushi_go(players=2)", "python_sushi_go(players=4)"]
  num_games = 72
  rotation = "all"

  [report]
  metrics = ["score", "margin", "win"]

  [[players]]
  name = "random"
  bot = "random"

  [[players]]
  name = "greedy"
  bot = "greedy"

  [[players]]
  name = "heuristic"
  bot = "heuristic"
  params = {}
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import pathlib
import re
import tomllib
from collections.abc import Sequence
from typing import Any, NamedTuple

import pyspiel

import solvers
import sushigo_spiel  # noqa: F401  (registers the game)

GAME_NAME = "python_sushi_go"
ROTATIONS = ("all", "cyclic", "fixed")
METRICS = ("score", "margin", "win")
BUDGET_KINDS = ("iterations", "seconds")

_SECTIONS = ("experiment", "budget", "report", "players")
_EXPERIMENT_KEYS = ("name", "kind", "seed", "games", "num_games", "rotation", "anchor")
_PLAYER_KEYS = ("name", "bot", "params")
_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class ConfigError(ValueError):
  """A config that cannot be run; the message names the key and what is allowed."""


@dataclasses.dataclass(frozen=True)
class Competitor:
  name: str
  bot: str
  params: dict[str, Any]


class Matchup(NamedTuple):
  """What game i plays: a game string and the competitor in each seat."""
  game: str
  seats: tuple[Competitor, ...]


@dataclasses.dataclass(frozen=True)
class Config:
  """A checked experiment config; `text` is the TOML exactly as written."""
  name: str
  seed: int
  games: tuple[str, ...]
  num_games: int
  rotation: str
  budget: dict[str, int | float]
  metrics: tuple[str, ...]
  players: tuple[Competitor, ...]
  text: str
  anchor: int | None = None

  @property
  def total_games(self) -> int:
    return self.num_games * len(self.games)

  @property
  def budget_kind(self) -> str:
    """"iterations", "seconds" or "none"."""
    return next(iter(self.budget), "none")

  def loaded_game(self, game: str) -> pyspiel.Game:
    return _load_game(game)

  def cycle(self, game: str) -> tuple[tuple[int, ...], ...]:
    """The seatings of `game` (competitor indices by seat), in schedule order."""
    return schedule(self.loaded_game(game).num_players(), len(self.players), self.rotation,
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
        "experiment": {"name": self.name, "seed": self.seed, "games": list(self.games),
                       "num_games": self.num_games, "rotation": self.rotation,
                       **({} if self.anchor is None
                          else {"anchor": self.players[self.anchor].name})},
        "budget": dict(self.budget),
        "report": {"metrics": list(self.metrics)},
        "players": [dataclasses.asdict(p) for p in self.players],
        "schedule": {"total_games": self.total_games,
                     "cycle_length": {game: len(self.cycle(game)) for game in self.games}},
    }
    return {**resolved, "config_hash": _hash(resolved)}

  @property
  def hash(self) -> str:
    return self.resolved()["config_hash"]

  def notes(self) -> list[str]:
    """What is legal but likely unmeant: seats not balanced, a budget that no bot takes."""
    notes = []
    for game in self.games:
      length = len(self.cycle(game))
      if self.num_games % length:
        notes.append(f"{game}: num_games = {self.num_games} is not a multiple of its {length}"
                     " seatings, so seats are not exactly balanced")
    for kind in self.budget:
      if not any(kind in solvers.bot_parameters(p.bot) for p in self.players):
        notes.append(f"budget.{kind}: no competitor's bot takes it, so it has no effect")
    return notes


def load(path: str | pathlib.Path) -> Config:
  """Reads and checks the config at `path`; ConfigError says what is wrong, and where."""
  try:
    text = pathlib.Path(path).read_text(encoding="utf-8")
  except (OSError, UnicodeDecodeError) as e:
    raise ConfigError(f"{path}: cannot read the config: {e}") from None
  try:
    return parse(text)
  except ConfigError as e:
    raise ConfigError(f"{path}: {e}") from None


def parse(text: str) -> Config:
  """Checks a config given as TOML text."""
  try:
    data = tomllib.loads(text)
  except tomllib.TOMLDecodeError as e:
    raise ConfigError(f"not valid TOML: {e}") from None
  _check_keys(data, "", _SECTIONS)
  experiment = _table(data, "experiment", required=True)
  _check_keys(experiment, "experiment", _EXPERIMENT_KEYS)
  _choice(experiment.get("kind", "tournament"), "experiment.kind", ("tournament",))
  report = _table(data, "report")
  _check_keys(report, "report", ("metrics",))
  config = Config(
      name=_experiment_name(_required(experiment, "experiment.name")),
      seed=_integer(_required(experiment, "experiment.seed"), "experiment.seed", minimum=0),
      games=_games(_required(experiment, "experiment.games")),
      num_games=_integer(_required(experiment, "experiment.num_games"), "experiment.num_games",
                         minimum=1),
      rotation=_choice(experiment.get("rotation", "all"), "experiment.rotation", ROTATIONS),
      budget=_budget(_table(data, "budget")),
      metrics=_metrics(report.get("metrics", list(METRICS))),
      players=(players := _players(_required(data, "players"))),
      text=text,
      anchor=_anchor(experiment.get("anchor"), players),
  )
  _check_fixed_seats(config)
  _check_bots(config)
  return config


def _anchor(value: Any, players: Sequence[Competitor]) -> int | None:
  if value is None:
    return None
  names = [p.name for p in players]
  if value not in names:
    raise ConfigError(f"experiment.anchor: expected the name of a competitor ({', '.join(names)}),"
                      f" got {value!r}")
  if len(names) < 2:
    raise ConfigError("experiment.anchor: needs at least one other competitor to play against it")
  return names.index(value)


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


def _check_bots(config: Config) -> None:
  """Builds every competitor's bot once for every game string, so bad parameter values show now."""
  for p, competitor in enumerate(config.players):
    params = config.bot_params(competitor)
    for game in config.games:
      try:
        solvers.make_bot(competitor.bot, config.loaded_game(game), 0, 0, **params)
      except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise ConfigError(f"players[{p}].params: bot {competitor.bot!r} refuses {params} for"
                          f" {game}: {e}") from None


def _hash(resolved: dict[str, Any]) -> str:
  canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":"))
  return hashlib.sha256(canonical.encode()).hexdigest()


@functools.cache
def _load_game(game: str) -> pyspiel.Game:
  return pyspiel.load_game(game)


def _check_keys(table: dict, where: str, allowed: Sequence[str]) -> None:
  for key in table:
    if key not in allowed:
      path = f"{where}.{key}" if where else key
      raise ConfigError(f"{path}: unknown key; allowed keys{f' of [{where}]' if where else ''}:"
                        f" {', '.join(allowed)}")


def _required(table: dict, path: str) -> Any:
  key = path.rsplit(".", 1)[-1]
  if key not in table:
    raise ConfigError(f"{path}: missing; this key is required")
  return table[key]


def _table(data: dict, key: str, required: bool = False) -> dict:
  value = _required(data, key) if required else data.get(key, {})
  if not isinstance(value, dict):
    raise ConfigError(f"{key}: expected a table ([{key}]), got {value!r}")
  return value


def _integer(value: Any, path: str, minimum: int) -> int:
  if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
    raise ConfigError(f"{path}: expected an integer >= {minimum}, got {value!r}")
  return value


def _string(value: Any, path: str) -> str:
  if not isinstance(value, str) or not value:
    raise ConfigError(f"{path}: expected a non-empty string, got {value!r}")
  return value


def _choice(value: Any, path: str, allowed: Sequence[str]) -> str:
  if value not in allowed:
    raise ConfigError(f"{path}: expected one of {', '.join(map(repr, allowed))}, got {value!r}")
  return value


def _string_list(value: Any, path: str) -> list[str]:
  if not isinstance(value, list) or not value:
    raise ConfigError(f"{path}: expected a non-empty array of strings, got {value!r}")
  for i, item in enumerate(value):
    _string(item, f"{path}[{i}]")
    if item in value[:i]:
      raise ConfigError(f"{path}[{i}]: {item!r} is listed twice; entries must be distinct")
  return value


def _experiment_name(value: Any) -> str:
  if not isinstance(value, str) or not _NAME_PATTERN.fullmatch(value):
    raise ConfigError("experiment.name: expected a name of letters, digits, '.', '_' and '-'"
                      f" (it names the run folder), got {value!r}")
  return value


def _games(value: Any) -> tuple[str, ...]:
  games = _string_list(value, "experiment.games")
  for i, game in enumerate(games):
    path = f"experiment.games[{i}]"
    try:
      name = pyspiel.game_parameters_from_string(game)["name"]
    except pyspiel.SpielError as e:
      raise ConfigError(f"{path}: {game!r} is not a game string: {e}") from None
    if name != GAME_NAME:
      raise ConfigError(f"{path}: expected a {GAME_NAME} game string such as"
                        f" '{GAME_NAME}(players=3)', got game {name!r}")
    try:
      _load_game(game)
    except (pyspiel.SpielError, ValueError) as e:
      raise ConfigError(f"{path}: {game!r} cannot be loaded: {e}") from None
  return tuple(games)


def _budget(budget: dict) -> dict[str, int | float]:
  _check_keys(budget, "budget", BUDGET_KINDS)
  if len(budget) > 1:
    raise ConfigError("budget: set iterations or seconds, not both")
  if "iterations" in budget:
    return {"iterations": _integer(budget["iterations"], "budget.iterations", minimum=1)}
  if "seconds" in budget:
    seconds = budget["seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
      raise ConfigError(f"budget.seconds: expected a number > 0, got {seconds!r}")
    return {"seconds": float(seconds)}
  return {}


def _metrics(value: Any) -> tuple[str, ...]:
  metrics = _string_list(value, "report.metrics")
  for i, metric in enumerate(metrics):
    _choice(metric, f"report.metrics[{i}]", METRICS)
  return tuple(metrics)


def _players(value: Any) -> tuple[Competitor, ...]:
  if not isinstance(value, list) or not value or not all(isinstance(p, dict) for p in value):
    raise ConfigError("players: expected one or more [[players]] tables, got"
                      f" {value!r}")
  competitors = []
  for p, table in enumerate(value):
    competitor = _competitor(table, f"players[{p}]")
    names = [c.name for c in competitors]
    if competitor.name in names:
      raise ConfigError(f"players[{p}].name: {competitor.name!r} is already the name of"
                        f" players[{names.index(competitor.name)}]; names must be unique")
    competitors.append(competitor)
  return tuple(competitors)


def _competitor(table: dict, path: str) -> Competitor:
  _check_keys(table, path, _PLAYER_KEYS)
  bot = _string(_required(table, f"{path}.bot"), f"{path}.bot")
  if bot not in solvers.BOTS:
    raise ConfigError(f"{path}.bot: unknown bot {bot!r}; allowed:"
                      f" {', '.join(sorted(solvers.BOTS))}")
  name = _string(table.get("name", bot), f"{path}.name")
  params = table.get("params", {})
  if not isinstance(params, dict):
    raise ConfigError(f"{path}.params: expected a table, got {params!r}")
  accepted = solvers.bot_parameters(bot)
  for key, param in params.items():
    if key not in accepted:
      raise ConfigError(f"{path}.params.{key}: unknown parameter of bot {bot!r}; allowed:"
                        f" {', '.join(sorted(accepted)) or 'none'}")
    _check_param_value(param, accepted[key], f"{path}.params.{key}")
  return Competitor(name, bot, dict(params))


def _check_param_value(value: Any, default: Any, path: str) -> None:
  """A value of the kind of the parameter's default (any number for a number), else plain data."""
  expected = _kind(default)
  if expected and _kind(value) != expected:
    raise ConfigError(f"{path}: expected a {expected} (the default is {default!r}), got {value!r}")
  items = value if isinstance(value, list) else [value]
  if not all(_kind(item) for item in items):
    raise ConfigError(f"{path}: expected a number, string, boolean or an array of them,"
                      f" got {value!r}")


def _kind(value: Any) -> str | None:
  if isinstance(value, bool):
    return "boolean"
  if isinstance(value, (int, float)):
    return "number"
  if isinstance(value, str):
    return "string"
  return None
