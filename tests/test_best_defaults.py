"""The strongest known configuration is the default (a bot's published strength is what
`make_bot(name, game, player, seed, <budget>)` gives).

A competitor of a config in `experiments/configs/` named after its bot (`subgame`, or with its
budget, `subgame (100 ms)`) stands for that bot's published strength, so it sets only what a user
chooses: the budget, the objective, and, for a bot that plays a file, the file; a competitor that
varies a setting has a name of its own (`so_utility`, `pimc greedy`). And the stored run of every
config played exactly what the config gives now: the bots built from the stored parameters and
from the config's have the same resolved parameters, so a stored figure is the defaults' figure.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import tomllib

import pytest

from experiments import docs, stats
from experiments.config import load_game
from solvers import bot_parameters, make_bot
from solvers.equilibrium.subgame import default_blueprint
from sushigo_spiel.reduced_games import REDUCED_GAMES, reduced_game_string
from strength import wilson_lower_bound

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "experiments" / "configs").glob("*.toml"))
ALWAYS = {"seconds", "clock", "objective"}  # the time budget, and what to optimise
WITHOUT_SECONDS = {"iterations", "worlds"}  # the budget of a search counted in iterations
FILE_BOTS = {"policy", "linear_q", "ppo", "blueprint"}  # bots whose file is their input


def _tables(path: pathlib.Path) -> dict:
  return tomllib.loads(path.read_text(encoding="utf-8"))


def _game(tables: dict) -> str:
  """The config's first game string (a reduced game's name spelled out)."""
  games = tables["experiment"]["games"]
  game = next(iter(games.values() if isinstance(games, dict) else games))
  return reduced_game_string(game) if game in REDUCED_GAMES else game


def _params(player: dict, budget: dict) -> dict:
  """A competitor's parameters with the config's budget, as the tournament runner gives them."""
  taken = {name: value for name, value in budget.items() if name in bot_parameters(player["bot"])}
  return {**taken, **player.get("params", {})}


def _allowed(player: dict, budget: dict) -> set[str]:
  keys = set(ALWAYS)
  if "seconds" not in _params(player, budget):
    keys |= WITHOUT_SECONDS
  if player["bot"] in FILE_BOTS:
    keys.add("path")
  return keys


def _named_after_its_bot(player: dict) -> bool:
  return player["name"].split(" (")[0] == player["bot"]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.stem)
def test_a_competitor_named_after_its_bot_sets_only_its_budget(path):
  tables = _tables(path)
  budget = tables.get("budget", {})
  for player in tables.get("players", []):
    if _named_after_its_bot(player):
      tuned = set(player.get("params", {})) - _allowed(player, budget)
      assert not tuned, (f"{path.name}: competitor {player['name']!r} sets {sorted(tuned)}; a"
                         " competitor named after its bot sets only its budget (make the setting"
                         " the bot's default, or give the competitor a name of its own)")


def _resolved(bot: str, game: str, player: int, params: dict) -> dict:
  """The parameters the bot resolves `params` to (defaults chosen by budget or player count
  filled in), with file paths made absolute from the repository's root."""
  cwd = os.getcwd()
  os.chdir(ROOT)  # stored paths are relative to the repository's root
  try:
    resolved = dict(make_bot(bot, load_game(game), player, 0, **params).params)
  finally:
    os.chdir(cwd)
  if "path" in resolved:
    resolved["path"] = str((ROOT / resolved["path"]).resolve())
  return resolved


STORED = [(path, ROOT / "experiments" / "results" / _tables(path)["experiment"]["name"])
          for path in CONFIGS]
STORED = [(path, folder) for path, folder in STORED if (folder / "resolved_config.json").is_file()]


@pytest.mark.parametrize("path,folder", STORED, ids=lambda value: pathlib.Path(value).stem)
def test_the_stored_run_played_what_the_config_gives_now(path, folder):
  tables = _tables(path)
  stored = json.loads((folder / "resolved_config.json").read_text(encoding="utf-8"))
  game = _game(tables)
  budget, stored_budget = tables.get("budget", {}), stored.get("budget", {})
  stored_players = {player["name"]: player for player in stored["players"]}
  assert set(stored_players) == {player["name"] for player in tables.get("players", [])}
  for player in tables.get("players", []):
    if player["bot"] in ("openspiel_ismcts",):  # an outside engine: its own defaults
      continue
    now = _resolved(player["bot"], game, 0, _params(player, budget))
    then = _resolved(player["bot"], game, 0, _params(stored_players[player["name"]], stored_budget))
    assert now == then, f"{path.name}: {player['name']} stored as {then}, configured as {now}"


# The stored runs that chose the blueprint of the subgame bot playing for the win, by player
# count: the bot on the blueprint trained for the win against it on the margin's.
WIN_BLUEPRINT_RUNS = {2: "objective-win-blueprint", 4: "objective-win-blueprint-4p"}


@pytest.mark.parametrize("players", sorted(WIN_BLUEPRINT_RUNS))
def test_the_win_plays_the_blueprint_its_stored_run_found_no_worse(players):
  """`path="auto"` for the win is one of the two blueprints its run compared, and the other did
  not win significantly more games (two-sided sign test on the games won and lost, 5%)."""
  run = WIN_BLUEPRINT_RUNS[players]
  stored = json.loads((ROOT / "experiments/results" / run / "resolved_config.json").read_text(
      encoding="utf-8"))
  paths = {player["name"]: str((ROOT / player["params"]["path"]).resolve())
           for player in stored["players"]}
  chosen = str(pathlib.Path(default_blueprint(players, "win")).resolve())
  assert chosen in paths.values(), f"{run} did not measure {chosen}"
  (name,) = (competitor for competitor, path in paths.items() if path == chosen)
  (other,) = set(paths) - {name}
  won = lost = 0
  for record in docs.stored_records(ROOT / "experiments/results", run):
    winners = {record["seats"][seat] for seat in record["winners"]}
    won, lost = won + (winners == {name}), lost + (winners == {other})
  assert won + lost > 0
  assert won >= lost or stats.sign_test(won, lost) >= 0.05, (
      f"{run}: {other} won {lost} games to {name}'s {won}; path='auto' should play it")


# The published claims of the subgame bot with its defaults at 100 ms of CPU a move, two players:
# (stored run, opponent, games at least, the share of the games outscored it claims, the bar the
# lower end of that share's 99.9% Wilson interval must clear).
HEADLINE_CLAIMS = [("subgame-vs-heuristic", "heuristic", 300, 0.85, 0.85),
                   ("subgame-vs-searchers", "so_ismcts", 500, 0.55, 0.5),
                   ("subgame-vs-searchers", "pimc", 500, 0.55, 0.5)]


@pytest.mark.parametrize("run,opponent,games,share,bound", HEADLINE_CLAIMS)
def test_the_subgame_bots_headline_claims_hold_in_their_stored_runs(run, opponent, games, share,
                                                                     bound):
  """The stored run played enough games, the subgame bot outscored the opponent in the share of
  them it claims, and the lower end of the share's 99.9% Wilson interval clears its bar (two
  players: every game of the opponent is one against the subgame bot; a tie counts half to each,
  and against the claim in the bound)."""
  rows = docs.read_csv(ROOT / "experiments/results" / run / "summary.csv")
  (row,) = [row for row in rows if row["competitor"] == opponent]
  played, lost = int(row["games"]), float(row["wins"])
  assert played >= games, f"{run}: {played} games against {opponent}"
  assert (played - lost) / played >= share, f"{run}: {played - lost} of {played}"
  won = math.floor(played - lost)
  assert wilson_lower_bound(won, played) >= bound, f"{run}: {won} of {played} against {opponent}"
