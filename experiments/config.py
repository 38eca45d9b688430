"""Experiment configs: each table declared once, as its check, its defaults and its documentation.

An experiment is a TOML file, read and checked in full before anything runs, so that a mistake in a
config costs nothing. Each table is a frozen dataclass whose fields are made by `key(doc, default,
minimum=, allowed=, check=)`: the field's type and those arguments check the value, `default` fills
it in, and `doc` is its line in the format reference of docs/configs.md ("Reference",
written from the declarations by `python -m experiments.runner`). `read(Table, value, path)` checks
a table, then its `cross_check(path)` if it has one (keys that depend on each other); `resolved`
gives it back as plain data, which `config_hash` hashes. Every refusal names the key as a dotted
path (`experiment.num_games`, `players[2].params.c`), says what is allowed and what was found.

Plain dataclasses checked here rather than pydantic or msgspec models: the refusals stay word for
word ours, paths included, and the core install gains no dependency.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import math
import pathlib
import re
import tomllib
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import pyspiel

import solvers
import sushigo_spiel  # noqa: F401  (registers the game)
from experiments import estimates

GAME_NAME = "python_sushi_go"
REQUIRED = object()  # the default of a key that must be given

_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_Config = TypeVar("_Config")
_Table = TypeVar("_Table")


class ConfigError(ValueError):
  """A config that cannot be run; the message names the key and what is allowed."""


# ----- declaring a table


@dataclasses.dataclass(frozen=True)
class Key:
  """How one key of a table is checked, filled in and documented; its field's type says the rest:
  a table (a declared dataclass), bool, int (>= `minimum`), str (one of `allowed`, if given) or
  tuple[str, ...] (a non-empty array of distinct strings, each one of `allowed`, if given). Any
  other type needs a `check(value, path)` returning the checked value; a `check` is the whole
  check of its key (`allowed` then only documents it). A default of None means "not given": the
  key is then left out of the resolved config, as is a key whose `resolved_at_default` is False
  (one added after runs were stored, so that their hashes hold)."""
  doc: str
  default: Any = REQUIRED
  minimum: int | None = None
  allowed: Sequence[str] | None = None
  check: Callable[[Any, str], Any] | None = None
  resolved_at_default: bool = True
  value: str | None = None  # what the TOML value is, in the reference, where the type differs


def key(doc: str, default: Any = REQUIRED, **options: Any) -> Any:
  """A field of a declared table: its `Key` (`options` are the Key's other fields), kept in the
  field's metadata."""
  return dataclasses.field(metadata={"key": Key(doc, default, **options)})


@functools.cache
def declared(table: type) -> tuple[tuple[str, Any, Key], ...]:
  """The keys of a declared table, in order: (name, type, Key)."""
  hints = typing.get_type_hints(table)
  return tuple((f.name, hints[f.name], f.metadata["key"]) for f in dataclasses.fields(table)
               if "key" in f.metadata)


def read(table: type[_Table], value: Any, path: str) -> _Table:
  """The table `table` declares, checked from `value`, the TOML at `path` ("" for the file)."""
  if not isinstance(value, dict):
    raise ConfigError(f"{path}: expected a table ([{path}]), got {value!r}")
  keys = declared(table)
  check_keys(value, path, [name for name, _, _ in keys])
  checked = table(**{name: _value(value, name, hint, spec, key_path(path, name))
                     for name, hint, spec in keys})
  return checked.cross_check(path) if hasattr(checked, "cross_check") else checked


def parse_toml(text: str) -> dict[str, Any]:
  try:
    return tomllib.loads(text)
  except tomllib.TOMLDecodeError as e:
    raise ConfigError(f"not valid TOML: {e}") from None


def assignment(text: str) -> tuple[str, Any]:
  """KEY=VALUE (a bot parameter on a command line), the value read as TOML (a number, true/false,
  a quoted string) or else as a bare string; a ValueError for anything else."""
  key_name, equals, value = text.partition("=")
  if not equals or not key_name.strip():
    raise ValueError(f"{text!r}: expected KEY=VALUE, such as iterations=1000")
  try:
    parsed = tomllib.loads(f"value = {value.strip()}")["value"]
  except tomllib.TOMLDecodeError:
    parsed = value.strip()
  return key_name.strip(), parsed


def key_path(path: str, key_name: str) -> str:
  return f"{path}.{key_name}" if path else key_name


def required(table: dict, name: str, path: str) -> Any:
  """The value of key `name` of `table`, at `path`; ConfigError if it is missing."""
  if name not in table:
    raise ConfigError(f"{path}: missing; this key is required")
  return table[name]


def _value(table: dict, name: str, hint: Any, spec: Key, path: str) -> Any:
  """The checked value of key `name` of `table`, or its default."""
  if name in table or spec.default is REQUIRED:
    value = required(table, name, path)
    return spec.check(value, path) if spec.check else _typed(value, hint, spec, path)
  if _is_table(hint):
    return read(hint, spec.default, path)
  return copy.deepcopy(spec.default)  # a fresh {} for every table that leaves it out


def _typed(value: Any, hint: Any, spec: Key, path: str) -> Any:
  hint = _given(hint)
  if _is_table(hint):
    return read(hint, value, path)
  if hint is bool:
    return boolean(value, path)
  if hint is int:
    return integer(value, path, spec.minimum)
  if hint is str:
    return string(value, path) if spec.allowed is None else choice(value, path, spec.allowed)
  if typing.get_origin(hint) is tuple:
    values = string_list(value, path)
    for i, item in enumerate(values if spec.allowed is not None else ()):
      choice(item, f"{path}[{i}]", spec.allowed)
    return tuple(values)
  raise TypeError(f"{path}: a key of type {hint} needs a check")


def _given(hint: Any) -> Any:
  """The type of an optional key's value when it is given (`int | None` -> int)."""
  if typing.get_origin(hint) not in (typing.Union, types.UnionType):
    return hint
  kinds = [kind for kind in typing.get_args(hint) if kind is not type(None)]
  return kinds[0] if len(kinds) == 1 else hint


def _is_table(hint: Any) -> bool:
  return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def resolved(table: Any) -> dict[str, Any]:
  """A checked table as plain data (tables as dicts, arrays as lists), without the keys not given
  and the keys at a default that stays out of the resolved config."""
  data = {}
  for name, _, spec in declared(type(table)):
    value = getattr(table, name)
    if value is not None and (spec.resolved_at_default or value != spec.default):
      data[name] = _plain(value)
  return data


def _plain(value: Any) -> Any:
  if _is_table(type(value)):
    return resolved(value)
  if isinstance(value, (tuple, list)):
    return [_plain(item) for item in value]
  if isinstance(value, dict):
    return {name: _plain(item) for name, item in value.items()}
  return value


def config_hash(resolved_config: Mapping[str, Any]) -> str:
  """The SHA-256 of a resolved config's canonical JSON: what a run folder is checked against."""
  canonical = json.dumps(resolved_config, sort_keys=True, separators=(",", ":"))
  return hashlib.sha256(canonical.encode()).hexdigest()


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


# ----- documenting the declarations


def reference(tables: Sequence[tuple[str, type]]) -> str:
  """The Markdown reference of declared tables, each under its heading: a row per key."""
  lines = []
  for heading, table in tables:
    lines += [f"### {heading}", "", " ".join(table.__doc__.split()), "",
              "| key | value | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{name}` | {_value_doc(hint, spec)} | {_default_doc(spec)} | {spec.doc} |"
              for name, hint, spec in declared(table)]
    lines.append("")
  return "\n".join(lines)


def _value_doc(hint: Any, spec: Key) -> str:
  """What a key's TOML value is, as its type and check say."""
  hint = _given(hint)
  if spec.value is not None:
    return spec.value
  if spec.allowed is not None:
    one_of = ", ".join(f'`"{value}"`' for value in spec.allowed)
    return f"one of {one_of}" if hint is str else f"array of {one_of}"
  if spec.minimum is not None:
    return f"integer >= {spec.minimum}"
  if typing.get_origin(hint) in (typing.Union, types.UnionType):
    return " or ".join(_value_doc(kind, spec) for kind in typing.get_args(hint))
  names = {bool: "true or false", int: "integer", str: "string", float: "number",
           tuple[str, ...]: "array of strings"}
  return names.get(hint, "table")


def _default_doc(spec: Key) -> str:
  if spec.default is REQUIRED:
    return "required"
  if spec.default is None:
    return "none"
  return f"`{json.dumps(_plain(spec.default))}`".replace("|", "\\|")


# ----- checks of one value


def check_keys(table: Mapping, where: str, allowed: Sequence[str]) -> None:
  for name in table:
    if name not in allowed:
      raise ConfigError(f"{key_path(where, name)}: unknown key; allowed"
                        f" keys{f' of [{where}]' if where else ''}: {', '.join(allowed)}")


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


def experiment_name(value: Any, path: str) -> str:
  if not isinstance(value, str) or not _NAME_PATTERN.fullmatch(value):
    raise ConfigError(f"{path}: expected a name of letters, digits, '.', '_' and '-'"
                      f" (it names the run folder), got {value!r}")
  return value


def positive_number(value: Any, path: str) -> float:
  """A finite number > 0 (nan and inf are refused)."""
  if _kind(value) != "number" or not math.isfinite(value) or value <= 0:
    raise ConfigError(f"{path}: expected a finite number > 0, got {value!r}")
  return float(value)


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


def _kind(value: Any) -> str | None:
  if isinstance(value, bool):
    return "boolean"
  if isinstance(value, (int, float)):
    return "number"
  if isinstance(value, str):
    return "string"
  return None


# ----- the tables every kind shares


@dataclasses.dataclass(frozen=True)
class Experiment:
  """The keys of `[experiment]` that every kind shares; each kind adds its own, and says which
  kinds `kind` allows."""
  name: str = key("names the run folder: letters, digits, '.', '_', '-'", check=experiment_name)
  kind: str = key("which experiment it is")
  seed: int = key("the root of every random choice", minimum=0)


def _bot(value: Any, path: str) -> str:
  bot = string(value, path)
  if bot not in solvers.BOTS:
    raise ConfigError(f"{path}: unknown bot {bot!r}; allowed: {', '.join(sorted(solvers.BOTS))}")
  return bot


def _params(value: Any, path: str) -> dict[str, Any]:
  if not isinstance(value, dict):
    raise ConfigError(f"{path}: expected a table, got {value!r}")
  return dict(value)


@dataclasses.dataclass(frozen=True)
class Competitor:
  """One table per competitor, at least one."""
  name: str | None = key("the label in tables, unique; none: the bot name", default=None)
  bot: str = key("a name from `solvers.BOTS`", check=_bot)
  params: dict[str, Any] = key("the bot's parameters, checked against"
                               " `solvers.bot_parameters(bot)` and by building the bot once per"
                               " game", default={}, check=_params)

  def cross_check(self, path: str) -> Competitor:
    """Each parameter against the bot's own; the name defaults to the bot's."""
    accepted = solvers.bot_parameters(self.bot)
    for name, param in self.params.items():
      param_path = f"{path}.params.{name}"
      if name not in accepted:
        raise ConfigError(f"{param_path}: unknown parameter of bot {self.bot!r};"
                          f" allowed: {', '.join(sorted(accepted)) or 'none'}")
      check_param_value(param, accepted[name], param_path)
    return dataclasses.replace(self, name=self.name or self.bot)


def players(value: Any, path: str) -> tuple[Competitor, ...]:
  """The competitors of the `[[players]]` tables, names unique."""
  if not isinstance(value, list) or not value or not all(isinstance(p, dict) for p in value):
    raise ConfigError(f"{path}: expected one or more [[players]] tables, got {value!r}")
  competitors = []
  for p, table in enumerate(value):
    competitor = read(Competitor, table, f"{path}[{p}]")
    names = [c.name for c in competitors]
    if competitor.name in names:
      raise ConfigError(f"{path}[{p}].name: {competitor.name!r} is already the name of"
                        f" {path}[{names.index(competitor.name)}]; names must be unique")
    competitors.append(competitor)
  return tuple(competitors)


def check_bots(competitors: Sequence[Competitor], games: Mapping[str, pyspiel.Game],
               params: Callable[[Competitor], dict[str, Any]]) -> None:
  """Builds every competitor's bot, with `params(competitor)`, once for every game (by label), so
  that bad parameter values show now."""
  for p, competitor in enumerate(competitors):
    for label, game in games.items():
      try:
        # sized first: a bot may preallocate its search tree when it is built
        estimates.check_memory([estimates.bot_memory(competitor.bot, game, params(competitor),
                                                     f"players[{p}] {competitor.name!r}")])
        solvers.make_bot(competitor.bot, game, 0, 0, **params(competitor))
      except estimates.TooLarge as e:
        raise ConfigError(f"players[{p}].params: {e}") from None
      except (ValueError, TypeError, pyspiel.SpielError) as e:
        raise ConfigError(f"players[{p}].params: bot {competitor.bot!r} refuses"
                          f" {params(competitor)} for {label}: {e}") from None


def game_name(game_string: str) -> str:
  """The game a game string names ("python_sushi_go" of "python_sushi_go(players=2)"); a
  ValueError says why a string is none: empty, a bracket missing (checked here: OpenSpiel would
  print its own line first), or what OpenSpiel cannot parse."""
  if not game_string.strip():
    raise ValueError("it is empty")
  opened, closed = game_string.count("("), game_string.count(")")
  if opened != closed:
    raise ValueError(f"Missing {'closing' if opened > closed else 'opening'} bracket")
  try:
    name = pyspiel.game_parameters_from_string(game_string).get("name")
  except pyspiel.SpielError as e:
    raise ValueError(str(e)) from None
  if not name:
    raise ValueError("it names no game")
  return name


def known_game_name(game_string: str) -> str | None:
  """`game_name`, or None for a string that is no game string."""
  try:
    return game_name(game_string)
  except ValueError:
    return None


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
