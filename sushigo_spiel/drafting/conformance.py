"""A conformance check that any drafting game passes, for the games here and for new ones.

`check(game)` plays random games of a pyspiel drafting game (one whose Game and State come from
`drafting.adapter` over a declared `Dynamics`) and checks, at every step, that the pyspiel API and
the game's `Dynamics` tell the same story and that what a player knows is consistent: sizes and
types, chance, illegal actions, knowledge, determinization, round history, information sets,
observations and round trips. It raises `ConformanceError` naming the check, the game and the
position that failed; otherwise it returns the number of positions checked.

What each check asserts: docs/testing.md, "The conformance check".
"""

from __future__ import annotations

import math
import random

import pyspiel

from sushigo_spiel.drafting.adapter import DraftingGame, DraftingState, simultaneous_game
from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS, TERMINAL

_TOLERANCE = 1e-9


class ConformanceError(AssertionError):
  """A drafting game breaks one of the checks of `check`."""


def check(game: pyspiel.Game | str, num_games: int = 10, seed: int = 0) -> int:
  """Plays `num_games` random games of `game` (a game or a game string) checking every step;
  returns the number of positions checked. Raises `ConformanceError` on the first failure."""
  if isinstance(game, str):
    game = pyspiel.load_game(game)
  game = simultaneous_game(game)
  _check_type(game)
  rng = random.Random(seed)
  strings: dict = {}
  keys: dict = {}
  positions = 0
  for _ in range(num_games):
    positions += _check_one_game(game, rng, strings, keys)
  return positions


def _fail(game: pyspiel.Game, what: str, state: pyspiel.State | None = None) -> ConformanceError:
  where = f"\nat:\n{state}" if state is not None else ""
  return ConformanceError(f"{game}: {what}{where}")


def _check_type(game: DraftingGame) -> None:
  kind = game.get_type()
  if kind.dynamics != pyspiel.GameType.Dynamics.SIMULTANEOUS:
    raise _fail(game, "a drafting game is simultaneous")
  if kind.chance_mode != pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
    raise _fail(game, "a drafting game has explicit chance")
  if kind.short_name != game.dynamics.short_name:
    raise _fail(game, f"registered as {kind.short_name!r}, its dynamics say "
                      f"{game.dynamics.short_name!r}")
  state = game.new_initial_state()
  if not isinstance(state, DraftingState) or state.dynamics is not game.dynamics:
    raise _fail(game, "its state is not a DraftingState over the game's own dynamics")


def _check_one_game(game: DraftingGame, rng: random.Random, strings: dict, keys: dict) -> int:
  dynamics, rules = game.dynamics, game.rules
  state, table = game.new_initial_state(), dynamics.initial_table(rules)
  decisions = positions = this_round = 0
  current_round = 0
  while True:
    positions += 1
    if state.table() != table:
      raise _fail(game, "the state's table differs from the table the dynamics reached", state)
    _check_round_trips(game, state)
    if state.is_terminal():
      _check_returns(game, state)
      return positions
    if any(value != 0 for value in dynamics.returns(rules, table)):
      raise _fail(game, "returns are not zero before the end", state)
    if state.is_chance_node():
      outcome = _check_chance(game, state, rng)
      state.apply_action(outcome)
      table = dynamics.apply_chance(rules, table, outcome)
      continue
    decisions += 1
    if decisions > game.max_game_length():
      raise _fail(game, f"more than max_game_length() = {game.max_game_length()} decisions")
    if table.round != current_round:
      current_round, this_round = table.round, 0
    _check_round_decisions(game, state, this_round)
    joint = _check_decision(game, state, rng, strings, keys)
    this_round += 1
    state.apply_actions(joint)
    table = dynamics.play(rules, table, joint)


def _check_chance(game: DraftingGame, state: DraftingState, rng: random.Random) -> int:
  dynamics, rules, table = game.dynamics, game.rules, state.table()
  outcomes = dict(state.chance_outcomes())
  if not outcomes or min(outcomes.values()) <= 0 or \
      not math.isclose(sum(outcomes.values()), 1.0, abs_tol=_TOLERANCE):
    raise _fail(game, f"chance outcomes are not a distribution: {sorted(outcomes.items())[:8]}",
                state)
  drawn = dynamics.sample_chance(rules, table, rng.random)
  if drawn not in outcomes:
    raise _fail(game, f"sample_chance drew {drawn}, which is not a listed outcome", state)
  if dynamics.skip_chance(rules, table, rng.random).actor == CHANCE:
    raise _fail(game, "skip_chance stopped at a chance node", state)
  return drawn


def _check_decision(game: DraftingGame, state: DraftingState, rng: random.Random,
                    strings: dict, keys: dict) -> list[int]:
  dynamics, rules, table = game.dynamics, game.rules, state.table()
  joint = []
  for player in range(game.num_players()):
    legal = dynamics.legal_actions(rules, table, player)
    if not legal or legal != sorted(set(legal)) or legal[0] < 0 or \
        legal[-1] >= game.num_distinct_actions():
      raise _fail(game, f"player {player}'s legal actions {legal} are not sorted, distinct and"
                        f" within 0..{game.num_distinct_actions() - 1}", state)
    if state.legal_actions(player) != legal:
      raise _fail(game, f"pyspiel and the rules disagree on player {player}'s legal actions",
                  state)
    _check_knowledge(game, state, player)
    _check_partition(game, state, player, strings, keys)
    joint.append(rng.choice(legal))
  _check_illegal_action(game, state, joint)
  _check_determinization(game, state, joint, rng)
  return joint


def _check_round_decisions(game: DraftingGame, state: DraftingState, expected: int) -> None:
  dynamics, rules = game.dynamics, game.rules
  decisions = dynamics.round_decisions(rules, state.table())
  if len(decisions) != expected:
    raise _fail(game, f"round_decisions lists {len(decisions)} decisions this round; the game"
                      f" made {expected}", state)
  for before, actions in decisions:
    if before.round != state.table().round or any(
        a not in dynamics.legal_actions(rules, before, p) for p, a in enumerate(actions)):
      raise _fail(game, f"round_decisions lists {actions}, not a legal joint action of this"
                        " round", state)


def _check_knowledge(game: DraftingGame, state: DraftingState, player: int) -> None:
  table = state.table()
  knows = game.dynamics.knowledge(game.rules, table, player)
  if knows.hand != table.hands[player]:
    raise _fail(game, f"knowledge gives player {player} a hand other than its own", state)
  if min(knows.unseen) < 0:
    raise _fail(game, f"knowledge counts negative unseen cards for player {player}", state)
  for holder, hand in knows.seen:
    if holder == player or hand != table.hands[holder]:
      raise _fail(game, f"knowledge says player {player} has seen hand {holder} wrongly", state)


def _check_partition(game: DraftingGame, state: DraftingState, player: int, strings: dict,
                     keys: dict) -> None:
  key = (player, game.dynamics.infoset_key(game.rules, state.table(), player))
  string = state.information_state_string(player)
  if strings.setdefault(key, string) != string or keys.setdefault(string, key) != key:
    raise _fail(game, f"infoset_key and the information state string partition player {player}'s"
                      " positions differently", state)


def _check_illegal_action(game: DraftingGame, state: DraftingState, joint: list[int]) -> None:
  dynamics, rules, table = game.dynamics, game.rules, state.table()
  legal = set(dynamics.legal_actions(rules, table, 0))
  illegal = next((a for a in range(game.num_distinct_actions()) if a not in legal), None)
  if illegal is None:
    return
  try:
    dynamics.play(rules, table, [illegal] + joint[1:])
  except ValueError as error:
    if str(illegal) not in str(error):
      raise _fail(game, f"the error for illegal action {illegal} does not name it: {error}",
                  state) from None
  else:
    raise _fail(game, f"play accepted illegal action {illegal} for player 0", state)
  if state.table() != table:
    raise _fail(game, "a refused play changed the table", state)


def _check_determinization(game: DraftingGame, state: DraftingState, joint: list[int],
                           rng: random.Random) -> None:
  dynamics, rules, table = game.dynamics, game.rules, state.table()
  player = rng.randrange(game.num_players())
  world = dynamics.determinize(rules, table, player, rng.random)
  if dynamics.infoset_key(rules, world, player) != dynamics.infoset_key(rules, table, player) or \
      dynamics.knowledge(rules, world, player) != dynamics.knowledge(rules, table, player):
    raise _fail(game, f"determinize changed what player {player} knows", state)
  resampled = state.resample_from_infostate(player, rng.random)
  if resampled.information_state_string(player) != state.information_state_string(player):
    raise _fail(game, f"resample_from_infostate changed player {player}'s information state",
                state)
  if any(a not in dynamics.legal_actions(rules, world, p) for p, a in enumerate(joint)):
    return
  after = [dynamics.skip_chance(rules, dynamics.play(rules, position, joint), rng.random)
           for position in (table, world)]
  if TERMINAL in (after[0].actor, after[1].actor) or SIMULTANEOUS != after[0].actor or \
      SIMULTANEOUS != after[1].actor:
    return
  same_observation = (dynamics.observation(rules, table, joint, after[0], player) ==
                      dynamics.observation(rules, world, joint, after[1], player))
  same_information = (dynamics.infoset_key(rules, after[0], player) ==
                      dynamics.infoset_key(rules, after[1], player))
  if same_observation != same_information:
    raise _fail(game, f"player {player}'s observation after {joint} tells information states"
                      " apart wrongly", state)


def _check_returns(game: DraftingGame, state: DraftingState) -> None:
  returns = state.returns()
  if len(returns) != game.num_players() or any(
      not game.min_utility() - _TOLERANCE <= r <= game.max_utility() + _TOLERANCE
      for r in returns):
    raise _fail(game, f"returns {returns} outside [{game.min_utility()}, {game.max_utility()}]",
                state)
  total = game.utility_sum()
  if game.get_type().utility != pyspiel.GameType.Utility.GENERAL_SUM and \
      not math.isclose(sum(returns), total, abs_tol=1e-6):
    raise _fail(game, f"returns {returns} do not sum to {total}", state)


def _check_round_trips(game: DraftingGame, state: DraftingState) -> None:
  if state.clone().table() != state.table():
    raise _fail(game, "clone() changed the position", state)
  restored = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
  if restored.table() != state.table():
    raise _fail(game, "serialize and deserialize changed the position", state)
