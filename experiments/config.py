"""Experiment configs: the checks every kind of experiment shares.

An experiment is a TOML file, read and checked in full before anything runs, so that a mistake in a
config costs nothing. Each kind of experiment reads its own tables (a tournament:
`experiments/tournament/config.py`; a solving experiment: `experiments/solving/`) with the checks
here, so every kind reports a bad value the same way: the key as a dotted path
(`experiment.num_games`, `players[2].params.c`), what is allowed, and what was found.

What every config holds:

  [experiment]
  name = "quickstart"   # required; names the run folder: letters, digits, '.', '_', '-'
  kind = "tournament"   # which experiment it is ("tournament", the default, or a solving kind)
  seed = 2026           # required; integer >= 0, the root of every random choice

  [[players]]           # where the kind measures competitors: one table per competitor
  name = "random"       # optional (default: the bot name); the label in tables, unique
  bot = "random"        # required; a name from `solvers.BOTS`
  params = {}           # optional (default {}); parameters of the bot, checked against
                        # `solvers.bot_parameters(bot)` and by building the bot once per game

A `Section` reads one table and names its keys by their full path:
`root.table("experiment").integer("seed", minimum=0)` is `experiment.seed` in its error.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import pathlib
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import pyspiel

import solvers
import sushigo_spiel  # noqa: F401  (registers the game)

GAME_NAME = "python_sushi_go"
PLAYER_KEYS = ("name", "bot", "params")
_REQUIRED = object()  # the default of a key that must be given

_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_Config = TypeVar("_Config")


class ConfigError(ValueError):
  """A config that cannot be run; the message names the key and what is allowed."""


@dataclasses.dataclass(frozen=True)
class Competitor:
  name: str
  bot: str
  params: dict[str, Any]


def load(path: str | pathlib.Path, parse: Callable[[str], _Config]) -> _Config:
  """Reads the config at `path` and checks it with `parse`; ConfigError says what is wrong, and
  where."""
  try:
    text = pathlib.Path(path).read_text(encoding="utf-8")
  except (OSError, UnicodeDecodeError) as e:
    raise ConfigError(f"{path}: cannot read the config: {e}") from None
  try:
    return parse(text)
  except ConfigError as e:
    raise ConfigError(f"{path}: {e}") from None


class Section:
  """One table of a config and its dotted path (empty for the whole file): reads its keys with the
  checks below, each named by its full path."""

  def __init__(self, data: dict, path: str = ""):
    self.data, self.path = data, path

  @classmethod
  def parse(cls, text: str) -> Section:
    """The whole config, from its TOML text."""
    try:
      return cls(tomllib.loads(text))
    except tomllib.TOMLDecodeError as e:
      raise ConfigError(f"not valid TOML: {e}") from None

  def key_path(self, key: str) -> str:
    return f"{self.path}.{key}" if self.path else key

  def check_keys(self, allowed: Sequence[str]) -> None:
    check_keys(self.data, self.path, allowed)

  def get(self, key: str, default: Any = _REQUIRED) -> Any:
    """The value of `key`; `default` if it is missing, unless the key is required."""
    if key in self.data:
      return self.data[key]
    if default is _REQUIRED:
      raise ConfigError(f"{self.key_path(key)}: missing; this key is required")
    return default

  def table(self, key: str, required: bool = False) -> Section:
    value = self.get(key, _REQUIRED if required else {})
    if not isinstance(value, dict):
      raise ConfigError(f"{self.key_path(key)}: expected a table ([{self.key_path(key)}]), got"
                        f" {value!r}")
    return Section(value, self.key_path(key))

  def integer(self, key: str, minimum: int, default: Any = _REQUIRED) -> int:
    return integer(self.get(key, default), self.key_path(key), minimum)

  def string(self, key: str, default: Any = _REQUIRED) -> str:
    return string(self.get(key, default), self.key_path(key))

  def boolean(self, key: str, default: Any = _REQUIRED) -> bool:
    return boolean(self.get(key, default), self.key_path(key))

  def choice(self, key: str, allowed: Sequence[str], default: Any = _REQUIRED) -> str:
    return choice(self.get(key, default), self.key_path(key), allowed)

  def string_list(self, key: str, default: Any = _REQUIRED) -> list[str]:
    return string_list(self.get(key, default), self.key_path(key))

  def choices(self, key: str, allowed: Sequence[str], default: Any = _REQUIRED) -> list[str]:
    """A non-empty array of distinct strings, each one of `allowed`."""
    values = self.string_list(key, default)
    for i, value in enumerate(values):
      choice(value, f"{self.key_path(key)}[{i}]", allowed)
    return values


def check_keys(table: Mapping, where: str, allowed: Sequence[str]) -> None:
  for key in table:
    if key not in allowed:
      path = f"{where}.{key}" if where else key
      raise ConfigError(f"{path}: unknown key; allowed keys{f' of [{where}]' if where else ''}:"
                        f" {', '.join(allowed)}")


def integer(value: Any, path: str, minimum: int) -> int:
  if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
    raise ConfigError(f"{path}: expected an integer >= {minimum}, got {value!r}")
  return value


def string(value: Any, path: str) -> str:
  if not isinstance(value, str) or not value:
    raise ConfigError(f"{path}: expected a non-empty string, got {value!r}")
  return value


def boolean(value: Any, path: str) -> bool:
  if not isinstance(value, bool):
    raise ConfigError(f"{path}: expected true or false, got {value!r}")
  return value


def choice(value: Any, path: str, allowed: Sequence[str]) -> str:
  if value not in allowed:
    raise ConfigError(f"{path}: expected one of {', '.join(map(repr, allowed))}, got {value!r}")
  return value


def string_list(value: Any, path: str) -> list[str]:
  """A non-empty array of distinct non-empty strings."""
  if not isinstance(value, list) or not value:
    raise ConfigError(f"{path}: expected a non-empty array of strings, got {value!r}")
  for i, item in enumerate(value):
    string(item, f"{path}[{i}]")
    if item in value[:i]:
      raise ConfigError(f"{path}[{i}]: {item!r} is listed twice; entries must be distinct")
  return value


def experiment_name(value: Any) -> str:
  if not isinstance(value, str) or not _NAME_PATTERN.fullmatch(value):
    raise ConfigError("experiment.name: expected a name of letters, digits, '.', '_' and '-'"
                      f" (it names the run folder), got {value!r}")
  return value


def check_param_value(value: Any, default: Any, path: str) -> None:
  """A value of the kind of the parameter's default (any finite number for a number), else plain
  data; numbers are finite wherever they are (TOML reads nan and inf)."""
  expected = _kind(default)
  if expected and _kind(value) != expected:
    raise ConfigError(f"{path}: expected a {expected} (the default is {default!r}), got {value!r}")
  items = value if isinstance(value, list) else [value]
  if not all(_kind(item) for item in items):
    raise ConfigError(f"{path}: expected a number, string, boolean or an array of them,"
                      f" got {value!r}")
  if not all(math.isfinite(item) for item in items if _kind(item) == "number"):
    raise ConfigError(f"{path}: expected a finite number, got {value!r}")


def positive_number(value: Any, path: str) -> float:
  """A finite number > 0 (nan and inf are refused)."""
  if _kind(value) != "number" or not math.isfinite(value) or value <= 0:
    raise ConfigError(f"{path}: expected a finite number > 0, got {value!r}")
  return float(value)


def _kind(value: Any) -> str | None:
  if isinstance(value, bool):
    return "boolean"
  if isinstance(value, (int, float)):
    return "number"
  if isinstance(value, str):
    return "string"
  return None


def players(value: Any) -> tuple[Competitor, ...]:
  """The competitors of the `[[players]]` tables, names unique."""
  if not isinstance(value, list) or not value or not all(isinstance(p, dict) for p in value):
    raise ConfigError("players: expected one or more [[players]] tables, got"
                      f" {value!r}")
  competitors = []
  for p, table in enumerate(value):
    competitor = _competitor(Section(table, f"players[{p}]"))
    names = [c.name for c in competitors]
    if competitor.name in names:
      raise ConfigError(f"players[{p}].name: {competitor.name!r} is already the name of"
                        f" players[{names.index(competitor.name)}]; names must be unique")
    competitors.append(competitor)
  return tuple(competitors)


def _competitor(table: Section) -> Competitor:
  table.check_keys(PLAYER_KEYS)
  bot = table.string("bot")
  if bot not in solvers.BOTS:
    raise ConfigError(f"{table.key_path('bot')}: unknown bot {bot!r}; allowed:"
                      f" {', '.join(sorted(solvers.BOTS))}")
  name = table.string("name", default=bot)
  params = table.get("params", {})
  if not isinstance(params, dict):
    raise ConfigError(f"{table.key_path('params')}: expected a table, got {params!r}")
  accepted = solvers.bot_parameters(bot)
  for key, param in params.items():
    if key not in accepted:
      raise ConfigError(f"{table.key_path('params')}.{key}: unknown parameter of bot {bot!r};"
                        f" allowed: {', '.join(sorted(accepted)) or 'none'}")
    check_param_value(param, accepted[key], f"{table.key_path('params')}.{key}")
  return Competitor(name, bot, dict(params))


def check_bots(competitors: Sequence[Competitor], games: Mapping[str, pyspiel.Game],
               params: Callable[[Competitor], dict[str, Any]]) -> None:
  """Builds every competitor's bot, with `params(competitor)`, once for every game (by label), so
  that bad parameter values show now."""
  for p, competitor in enumerate(competitors):
    for label, game in games.items():
      try:
        solvers.make_bot(competitor.bot, game, 0, 0, **params(competitor))
      except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise ConfigError(f"players[{p}].params: bot {competitor.bot!r} refuses"
                          f" {params(competitor)} for {label}: {e}") from None


@functools.cache
def load_game(game: str) -> pyspiel.Game:
  """The game of a game string, loaded once per process."""
  return pyspiel.load_game(game)


def checked_game(game: str, path: str) -> pyspiel.Game:
  """The game of `game`, the string at `path`; ConfigError if it cannot be loaded, or if its deal
  has too many outcomes to list (`check_deal`)."""
  try:
    loaded = load_game(game)
  except (pyspiel.SpielError, ValueError) as e:
    raise ConfigError(f"{path}: {game!r} cannot be loaded: {e}") from None
  try:
    check_deal(loaded)
  except ValueError as e:
    raise ConfigError(f"{path}: {game!r} cannot be played: {e}") from None
  return loaded


def check_deal(game: pyspiel.Game) -> None:
  """Lists the outcomes of the chance nodes before the first decision (the first deal, from the
  whole deck, has the most), so that a deal every game would refuse to list (`deal=hand` with
  large hands) is refused once, now; the game's ValueError otherwise."""
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])


def config_hash(resolved: Mapping[str, Any]) -> str:
  """The SHA-256 of a resolved config's canonical JSON: what a run folder is checked against."""
  canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":"))
  return hashlib.sha256(canonical.encode()).hexdigest()
