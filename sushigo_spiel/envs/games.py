"""The games the environments wrap, loaded from keyword arguments: one check of the parameters for
every environment, so that an unknown name or a value of the wrong type is refused with the names
and types allowed, before the game's own checks of the values."""

from __future__ import annotations

import numbers

import pyspiel

from sushigo_spiel.sushi_draft.game import SushiDraftGame
from sushigo_spiel.sushi_go.game import SushiGoGame

GAMES = {"python_sushi_go": SushiGoGame, "python_sushi_draft": SushiDraftGame}


def checked_parameters(game: str, params: dict) -> dict:
  """`params` of game `game` after checking their names and types against the game's defaults;
  a ValueError names the game, the parameter and what is allowed."""
  if game not in GAMES:
    raise ValueError(f"unknown game {game!r}; allowed: {', '.join(GAMES)}")
  defaults = GAMES[game].default_parameters
  checked = {}
  for name, value in params.items():
    if name not in defaults:
      raise ValueError(f"{game} has no parameter {name!r}; allowed: {', '.join(sorted(defaults))}")
    expected = type(defaults[name])
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and expected is int:
      value = int(value)
    if type(value) is not expected:
      raise ValueError(f"{game} parameter {name!r} is {value!r}; allowed: a value of type"
                       f" {expected.__name__} (default {defaults[name]!r})")
    checked[name] = value
  return checked


def load_game(game: str, params: dict) -> pyspiel.Game:
  """The pyspiel game `game` with keyword parameters `params` (checked as above)."""
  return pyspiel.load_game(game, checked_parameters(game, params))
