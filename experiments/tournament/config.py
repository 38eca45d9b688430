"""Tournament configs: a TOML file, read and checked in full before any game is played.

A tournament plays competitors (bots from `solvers`) against each other on one or more
`python_sushi_go` game strings. A mistake in a config should cost nothing, so everything is checked
up front with the checks of `experiments.config`: every error names the key as a dotted path
(`experiment.num_games`, `players[2].params.c`) and says what is allowed.

Format
------

  [experiment]                # required
  name = "quickstart"         # required; names the run folder: letters, digits, '.', '_', '-'
  kind = "tournament"         # optional (the default); other kinds are solving experiments
                              # (experiments/solving/)
  seed = 2026                 # required; integer >= 0, the root of every random choice
  games = ["python_sushi_go(players=2)", "python_sushi_go(players=4)"]
                              # required; one or more distinct python_sushi_go game strings
  num_games = 120             # required; integer >= 1, games played per game string
  rotation = "all"            # optional (default "all"): how each lineup is seated, see below
                              # ("all", "cyclic" or "fixed")
  luck_playouts = 16          # optional (default 0, off): reference playouts per deal that
                              # estimate the luck of the deal (`experiments.tournament.luck`),
                              # reported as variance-reduced figures beside the raw ones
  anchor = "heuristic"        # optional (default none): a competitor's name; every lineup is then
                              # one other competitor against the anchor in all other seats

  [budget]                    # optional (default: no budget); at most one of:
  iterations = 200            #   integer >= 1, search iterations per move
  # seconds = 0.5             #   number > 0, time per move (not bit-reproducible)
  # clock = "cpu"             #   with seconds, optional (default "wall"): what seconds is measured
                              #   on, wall time or the searching thread's CPU time ("cpu"), fair
                              #   when other work shares the machine's cores

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
import itertools
import pathlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import pyspiel

import solvers
from experiments import config as config_lib
from experiments.config import Competitor, ConfigError

KIND = "tournament"
GAME_NAME = config_lib.GAME_NAME
ROTATIONS = ("all", "cyclic", "fixed")
METRICS = ("score", "margin", "win")
BUDGET_KINDS = ("iterations", "seconds")
BUDGET_CLOCKS = ("wall", "cpu")  # what budget.seconds is measured on (`solvers.bot.CLOCKS`)

_SECTIONS = ("experiment", "budget", "report", "players")
_EXPERIMENT_KEYS = ("name", "kind", "seed", "games", "num_games", "rotation", "anchor",
                    "luck_playouts")
DEFAULT_LUCK_PLAYOUTS = 0  # off: on baseline-only tournaments it triples the run time


class Matchup(NamedTuple):
  """What game i plays: a game string and the competitor in each seat."""
  game: str
  seats: tuple[Competitor, ...]


@dataclasses.dataclass(frozen=True)
class Config:
  """A checked tournament config; `text` is the TOML exactly as written."""
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
  luck_playouts: int = DEFAULT_LUCK_PLAYOUTS

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
                          else {"anchor": self.players[self.anchor].name}),
                       **({} if self.luck_playouts == DEFAULT_LUCK_PLAYOUTS
                          else {"luck_playouts": self.luck_playouts})},
        "budget": dict(self.budget),
        "report": {"metrics": list(self.metrics)},
        "players": [dataclasses.asdict(p) for p in self.players],
        "schedule": {"total_games": self.total_games,
                     "cycle_length": {game: len(self.cycle(game)) for game in self.games}},
    }
    return {**resolved, "config_hash": config_lib.config_hash(resolved)}

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
  return config_lib.load(path, parse)


def parse(text: str) -> Config:
  """Checks a config given as TOML text."""
  root = config_lib.Section.parse(text)
  root.check_keys(_SECTIONS)
  experiment = root.table("experiment", required=True)
  experiment.check_keys(_EXPERIMENT_KEYS)
  experiment.choice("kind", (KIND,), default=KIND)
  report = root.table("report")
  report.check_keys(("metrics",))
  config = Config(
      name=config_lib.experiment_name(experiment.get("name")),
      seed=experiment.integer("seed", minimum=0),
      games=_games(experiment),
      num_games=experiment.integer("num_games", minimum=1),
      rotation=experiment.choice("rotation", ROTATIONS, default="all"),
      budget=_budget(root.table("budget")),
      metrics=tuple(report.choices("metrics", METRICS, default=list(METRICS))),
      players=(players := config_lib.players(root.get("players"))),
      text=text,
      anchor=_anchor(experiment.get("anchor", None), players),
      luck_playouts=experiment.integer("luck_playouts", minimum=0,
                                       default=DEFAULT_LUCK_PLAYOUTS),
  )
  _check_fixed_seats(config)
  config_lib.check_bots(config.players, {game: config.loaded_game(game) for game in config.games},
                        config.bot_params)
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


def _games(experiment: config_lib.Section) -> tuple[str, ...]:
  games = experiment.string_list("games")
  for i, game in enumerate(games):
    path = f"experiment.games[{i}]"
    try:
      name = pyspiel.game_parameters_from_string(game)["name"]
    except pyspiel.SpielError as e:
      raise ConfigError(f"{path}: {game!r} is not a game string: {e}") from None
    if name != GAME_NAME:
      raise ConfigError(f"{path}: expected a {GAME_NAME} game string such as"
                        f" '{GAME_NAME}(players=3)', got game {name!r}")
    config_lib.checked_game(game, path)
  return tuple(games)


def _budget(budget: config_lib.Section) -> dict[str, int | float]:
  budget.check_keys(BUDGET_KINDS + ("clock",))
  kinds = [kind for kind in BUDGET_KINDS if kind in budget.data]
  if len(kinds) > 1:
    raise ConfigError("budget: set iterations or seconds, not both")
  if "clock" in budget.data and kinds != ["seconds"]:
    raise ConfigError("budget.clock says what budget.seconds is measured on; set seconds with it")
  if "iterations" in budget.data:
    return {"iterations": budget.integer("iterations", minimum=1)}
  if "seconds" in budget.data:
    seconds = {"seconds": config_lib.positive_number(budget.get("seconds"), "budget.seconds")}
    if "clock" in budget.data:
      clock = budget.get("clock")
      if clock not in BUDGET_CLOCKS:
        raise ConfigError(f"budget.clock is {clock!r}; allowed: {', '.join(BUDGET_CLOCKS)}")
      seconds["clock"] = clock
    return seconds
  return {}
