"""The base of every bot: one place for the plumbing all of them share.

A bot is a `pyspiel.Bot` built as `Bot(game, player_id, seed, **params)` for one player of a
drafting game or of its `pyspiel.convert_to_turn_based` form. This base checks the parameters
against the class's `PARAMETERS` and the seat, finds the simultaneous game under a turn-based one,
checks at each call that its player has a move, and draws the move from `get_policy`, so the policy
a bot reports is the one its move comes from. Subclasses implement `policy_at(table)` (the rules'
`Table`; what the player may know is `self.dynamics.knowledge(...)`) or override `get_policy`.

Every bot takes `objective` (`OBJECTIVES`, `resolve_objective`): "margin" (own points less the
others' mean), "win" (the win share, tie-breaks included) or "auto" ("win" in a game with
`utility=win`, else "margin"). A searcher maximises it at its leaves (`objective_game`); a bot
playing a file or fixed rules refuses what it does not maximise. All randomness comes from the
seed (`self.uniform`, from `numpy.random.default_rng(seed)`). The bots: docs/search.md, "Bots".
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from sushigo_spiel.drafting.adapter import simultaneous_game, simultaneous_state
from sushigo_spiel.drafting.dynamics import SIMULTANEOUS
from sushigo_spiel.drafting.sampling import draw_action

Policy = list[tuple[int, float]]

# The clocks a search's `seconds` budget can be measured on (its `clock` parameter): wall time, or
# the CPU time of the searching thread, a budget that stays fair when other work shares the
# machine's cores (the search then gets the same computation whatever the load).
CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


# What a bot can play for (its `objective` parameter); "auto" follows the game's utility.
OBJECTIVES = ("auto", "margin", "win")


def resolve_objective(name: str, utility: str, allowed: tuple[str, ...] = OBJECTIVES,
                      who: str = "this bot") -> str:
  """The objective "margin" or "win" that parameter `objective` = `name` asks for in a game with
  `utility`: "auto" is "win" under `utility=win`, "margin" otherwise. A ValueError when `name` is
  not in `allowed`, or when "auto" resolves to an objective outside it (naming `who`)."""
  if name not in allowed:
    raise ValueError(f"parameter 'objective' is {name!r}; allowed for {who}: {', '.join(allowed)}")
  resolved = name if name != "auto" else ("win" if utility == "win" else "margin")
  if resolved not in allowed:
    raise ValueError(f"parameter 'objective' is 'auto', which is {resolved!r} in a game with"
                     f" utility={utility}, and {who} does not play for {resolved!r}; allowed"
                     f" here: {', '.join(a for a in allowed if a != 'auto')}")
  return resolved


def objective_game(game: pyspiel.Game, objective: str) -> pyspiel.Game:
  """`game` (simultaneous) scored so that its returns are `objective`: under "win" the game with
  `utility=win`; under "margin" the game itself when its utility is the score or the margin (the
  searchers take margins from scores) and the game with `utility=margin` otherwise. Only the
  utility changes: the rules of play are the same."""
  game = simultaneous_game(game)
  utility = game.rules.utility
  wanted = "win" if objective == "win" else ("margin" if utility == "win" else utility)
  if wanted == utility:
    return game
  return pyspiel.load_game(game.get_type().short_name, {**game.get_parameters(), "utility": wanted})


def responder_game(game: pyspiel.Game, objective: str) -> pyspiel.Game:
  """The game whose returns a best responder maximises, for its parameter `objective` as given:
  under "auto" `game` itself (simultaneous), whose returns are what its gain is measured in, so the
  bound is as tight as the responder can make it; else `returns_game(game, objective)`."""
  return simultaneous_game(game) if objective == "auto" else returns_game(game, objective)


def returns_game(game: pyspiel.Game, objective: str) -> pyspiel.Game:
  """`game` (simultaneous) with `utility` = `objective` ("margin" or "win"), whose returns are
  exactly what a bot playing for `objective` maximises (margins even where `game` counts points),
  for a bot that reads returns rather than searching (the responders). Only the utility changes."""
  game = simultaneous_game(game)
  if game.rules.utility == objective:
    return game
  return pyspiel.load_game(game.get_type().short_name, {**game.get_parameters(),
                                                        "utility": objective})


def budget_clock(name: str) -> Callable[[], float]:
  """The clock named `name` (of `CLOCKS`); a ValueError names the allowed ones."""
  if name not in CLOCKS:
    raise ValueError(f"parameter 'clock' is {name!r}; allowed: {', '.join(CLOCKS)}")
  return CLOCKS[name]


class Bot(pyspiel.Bot):
  """Shared plumbing of the project's bots (see the module docstring)."""

  PARAMETERS: dict[str, Any] = {}
  GAMES: tuple[str, ...] = ("python_sushi_go", "python_sushi_draft")  # games the bot plays
  # Whether `policy_at` is a quick function of the table alone (no search, no random draws), so
  # other algorithms may ask it at any node: opponent models, reading a bot as a policy.
  cheap_policy = False
  # What parameter `objective` accepts ("auto" included); a bot that plays fixed rules or a file
  # narrows it to what it maximises.
  OBJECTIVES: tuple[str, ...] = OBJECTIVES

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    pyspiel.Bot.__init__(self)
    self.params = checked_parameters(type(self), params)
    self.game = simultaneous_game(game)
    if self.game.dynamics.short_name not in self.GAMES:
      raise ValueError(f"{type(self).__name__} plays {', '.join(self.GAMES)}; got {self.game}")
    self.rules, self.dynamics = self.game.rules, self.game.dynamics
    if not 0 <= player_id < self.rules.num_players:
      raise ValueError(f"player_id {player_id} is out of range 0..{self.rules.num_players - 1}")
    self.player_id = player_id
    self.seed = seed
    self.rng = np.random.default_rng(seed)
    self.uniform = self.rng.random
    if "objective" in self.PARAMETERS:
      self.objective = self.resolved_objective()

  # ----- pyspiel.Bot

  def restart_at(self, state: pyspiel.State) -> None:
    """Nothing to do: a bot reads every position afresh."""
    del state

  def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
    del state, player_id, action  # nothing is kept between moves

  def provides_policy(self) -> bool:
    return True

  def get_policy(self, state: pyspiel.State) -> Policy:
    """The distribution the bot's move at `state` is drawn from, as (action, probability)."""
    return self.policy_at(self.table(state))

  def step_with_policy(self, state: pyspiel.State) -> tuple[Policy, int]:
    policy = check_distribution(self.get_policy(state), type(self).__name__)
    return policy, draw_action(policy, self.uniform)

  def step(self, state: pyspiel.State) -> int:
    return self.step_with_policy(state)[1]

  # ----- sizes, known before a bot is built (`experiments.estimates`)

  @classmethod
  def decision_memory(cls, game: pyspiel.Game, params: dict[str, Any]) -> int:
    """The most memory one decision of this bot with `params` may allocate beyond the bot itself
    (the search trees it preallocates or grows), from the parameters alone: a search bot's tree
    is sized before any bot is built, so that one too large for the machine is refused rather
    than allocated. 0 for a bot that allocates little per decision; a time budget (`seconds`)
    is bounded by the time, not by this figure."""
    del game, params
    return 0

  @classmethod
  def timing_parameters(cls, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Parameters under which a decision is cheap enough to time before a run, and how many times
    longer a decision with `params` takes (its budget's ratio, iterations being about equally
    costly): `params` themselves and 1 for a bot without a budget."""
    return params, 1.0

  # ----- for subclasses

  def resolved_objective(self) -> str | None:
    """What this bot plays for, "margin" or "win", from parameter `objective` and the game's
    utility (`resolve_objective`); a bot of fixed play or a file overrides it."""
    return resolve_objective(self.params["objective"], self.rules.utility, self.OBJECTIVES,
                             type(self).__name__)

  def policy_at(self, table) -> Policy:
    """The policy of the bot's player at a simultaneous node of the rules."""
    raise NotImplementedError

  def table(self, state: pyspiel.State):
    """The rules' `Table` at `state` (either form of the game), where the bot's player must have
    a move; a ValueError otherwise."""
    self.check_turn(state)
    table = simultaneous_state(state).table()
    if table.actor != SIMULTANEOUS:
      raise ValueError("a bot needs a node where the players choose; this one is a chance node or"
                       " the end of the game")
    return table

  def load_saved(self, load: Callable[[str], Any], what: str) -> Any:
    """The file named by parameter `path` as `load` reads it (read again only when the file
    changes); a ValueError when there is no such file. `what` names the kind of file."""
    path = self.params["path"]
    if not path or not os.path.isfile(path):
      raise ValueError(f"{type(self).__name__} needs parameter 'path', a saved {what} file; got"
                       f" {path!r}")
    return _cached_load(load, os.path.abspath(path), os.path.getmtime(path))

  def check_trained_for(self, trained: pyspiel.Game, what: str) -> None:
    """A ValueError unless the saved `what` at parameter `path` was trained for this bot's game.
    Any `utility` will do: it says what a game is scored for, not how it is played."""
    same = trained.rules == self.rules or dataclasses.replace(
        trained.rules, utility=self.rules.utility) == self.rules  # the swap only when needed
    if not same:
      raise ValueError(f"the {what} at {self.params['path']} was trained for {trained}, not"
                       f" {self.game}")

  def check_objective_trained(self, trained: pyspiel.Game, what: str) -> None:
    """A ValueError unless this bot's objective is what the saved `what` at parameter `path` was
    trained to maximise: "win" for a file trained with `utility=win`, "margin" for one trained
    with the margin or the points (whose play counts as the margin's, as the baselines')."""
    utility = trained.rules.utility
    plays_for = "win" if utility == "win" else "margin"
    if self.objective != plays_for:
      asked = (f"objective 'auto', which is {self.objective!r} in a game with"
               f" utility={self.rules.utility}," if self.params["objective"] == "auto" else
               f"objective {self.objective!r},")
      raise ValueError(f"the {what} at {self.params['path']} was trained with utility={utility}"
                       f" and plays for the {plays_for}; {asked} so give objective"
                       f"={plays_for!r} to play it, or a {what} trained for the {self.objective}")

  def check_turn(self, state: pyspiel.State) -> None:
    if not state.is_simultaneous_node() and state.current_player() != self.player_id:
      raise ValueError(f"player {self.player_id} has no move here (current player: "
                       f"{state.current_player()})")


@functools.lru_cache(maxsize=16)
def _cached_load(load: Callable[[str], Any], path: str, modified: float) -> Any:
  del modified  # part of the cache key: a rewritten file is read again
  return load(path)


def checked_parameters(bot_class: type[Bot], params: dict[str, Any]) -> dict[str, Any]:
  """`bot_class.PARAMETERS` updated with `params`; a ValueError names any unknown parameter, and
  any parameter with a numeric default given something other than a finite number (NaN would
  make every comparison false, infinity a budget without end)."""
  defaults = bot_class.PARAMETERS
  unknown = sorted(set(params) - set(defaults))
  if unknown:
    raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for {bot_class.__name__}; "
                     f"allowed (with defaults): {defaults}")
  for name, value in params.items():
    if _is_number(defaults[name]) and not (_is_number(value) and math.isfinite(value)):
      raise ValueError(f"parameter {name!r} of {bot_class.__name__} is {value!r}; allowed: a"
                       f" finite number (default {defaults[name]!r})")
  return {**defaults, **params}


def scaled_budget(params: dict[str, Any], names: tuple[str, ...], cheap: dict[str, float]
                  ) -> tuple[dict[str, Any], float]:
  """`params` with each budget parameter of `names` lowered to at most its value in `cheap` (a
  time budget `seconds` when it is set, else the counts), and the product of the ratios: what
  `Bot.timing_parameters` returns for bots whose decisions cost in proportion to their budget."""
  if params.get("seconds", 0) > 0:
    names = ("seconds",)
  scaled, factor = dict(params), 1.0
  for name in names:
    value = params[name]
    if value > cheap[name]:
      scaled[name] = type(value)(cheap[name])
      factor *= value / cheap[name]
  return scaled, factor


def _is_number(value: Any) -> bool:
  return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_distribution(policy: Policy, source: str, tolerance: float = 1e-6) -> Policy:
  """`policy` if its probabilities are finite, non-negative and sum to 1 within `tolerance`; a
  ValueError naming `source` otherwise."""
  probabilities = [p for _, p in policy]
  if not policy or not all(math.isfinite(p) and p >= 0 for p in probabilities) or \
      abs(sum(probabilities) - 1.0) > tolerance:
    raise ValueError(f"{source} gave the policy {policy}, which is not a distribution; allowed:"
                     " finite, non-negative probabilities summing to 1")
  return policy
