"""The OpenSpiel game and state shared by the drafting games (`python_sushi_go`,
`python_sushi_draft`): the pyspiel API over a game's declared `Dynamics`.

Each game keeps its rules as pure functions over an immutable `Table` that says who acts
(`Table.actor`). A state holds two attributes, the game's `Rules` and the current `Table`, so
OpenSpiel's clone (a deep copy of `__dict__`) shares them. A game's classes name its `Dynamics`
in `dynamics` and add what is their own (action strings, resampling, analysis). `state.table()` is
the public way to the position for the solvers and for analysis.

`legal_actions`, `is_chance_node` and `is_simultaneous_node` are answered in Python, with the
answers of the C++ `pyspiel.State` methods (tests check this), since the C++ route calls back into
Python several times per query; C++ callers reach the game through `_legal_actions`.
"""

from __future__ import annotations

import functools
import math

import pyspiel

from sushigo_spiel.drafting.dynamics import (CHANCE, MAX_PLAYERS, MIN_PLAYERS, SIMULTANEOUS,
                                             TERMINAL, Dynamics)

UTILITY_TYPES = {
    "score": pyspiel.GameType.Utility.GENERAL_SUM,
    "margin": pyspiel.GameType.Utility.ZERO_SUM,
    "win": pyspiel.GameType.Utility.CONSTANT_SUM,
}


def game_type(short_name: str, long_name: str, utility: str,
              parameters: dict) -> pyspiel.GameType:
  """Both games: simultaneous moves, explicit chance, imperfect information, 2-5 players, every
  observation kind; the declared utility follows the `utility` parameter."""
  return pyspiel.GameType(
      short_name=short_name,
      long_name=long_name,
      dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
      chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
      information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
      utility=UTILITY_TYPES[utility],
      reward_model=pyspiel.GameType.RewardModel.TERMINAL,
      max_num_players=MAX_PLAYERS,
      min_num_players=MIN_PLAYERS,
      provides_information_state_string=True,
      provides_information_state_tensor=True,
      provides_observation_string=True,
      provides_observation_tensor=True,
      provides_factored_observation_string=True,
      parameter_specification=parameters)


def game_info(rules) -> pyspiel.GameInfo:
  """Sizes from the rules; utility bounds from the score bounds and the utility mode."""
  low, high = rules.score_bounds()
  if rules.utility == "score":
    low_u, high_u, total = low, high, None
  elif rules.utility == "margin":
    low_u, high_u, total = low - high, high - low, 0.0
  else:
    low_u, high_u, total = 0.0, 1.0, 1.0
  return pyspiel.GameInfo(
      num_distinct_actions=rules.num_distinct_actions,
      max_chance_outcomes=rules.max_chance_outcomes,
      num_players=rules.num_players,
      min_utility=float(low_u),
      max_utility=float(high_u),
      utility_sum=total,
      max_game_length=rules.max_game_length)


class DraftingGame(pyspiel.Game):
  """A game for one choice of parameters. A subclass names its `dynamics`, its state, observer
  and text classes (`drafting.text`), its long name and its default parameters."""

  dynamics: Dynamics
  state_class: type
  observer_class: type
  text_class: type
  long_name: str
  default_parameters: dict

  def __init__(self, params=None):
    merged = {**self.default_parameters, **(params or {})}
    self.rules = self.dynamics.rules_from_params(**merged)
    super().__init__(
        game_type(self.dynamics.short_name, self.long_name, self.rules.utility,
                  self.default_parameters),
        game_info(self.rules), merged)
    self.initial_table = self.dynamics.initial_table(self.rules)

  def new_initial_state(self):
    return self.state_class(self)

  def make_py_observer(self, iig_obs_type=None, params=None):
    return self.observer_class(
        iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules, params)

  @classmethod
  def register(cls) -> None:
    pyspiel.register_game(
        game_type(cls.dynamics.short_name, cls.long_name, "score", cls.default_parameters), cls)


class DraftingState(pyspiel.State):
  """The pyspiel API over a game's `dynamics`."""

  dynamics: Dynamics

  def __init__(self, game: pyspiel.Game):
    super().__init__(game)
    self._rules = game.rules
    self._table = game.initial_table

  def table(self):
    """The position as the rules' immutable `Table` (shared, never to be modified)."""
    return self._table

  def current_player(self) -> int:
    return self._table.actor

  def is_terminal(self) -> bool:
    return self._table.actor == TERMINAL

  def legal_actions(self, player: int | None = None) -> list[int]:
    if player is not None and player >= 0:
      self._check_player(player)
    actor = self._table.actor
    if actor == TERMINAL:
      return []
    if actor == CHANCE:
      return [action for action, _ in self.chance_outcomes()]
    if player is None or player == actor:
      return self._legal_actions(actor)
    if player < 0:
      raise ValueError(f"legal_actions called for pseudo-player {player}")
    return self.dynamics.legal_actions(self._rules, self._table, player)

  def _check_player(self, player: int) -> None:
    n = self._rules.num_players
    if not 0 <= player < n:
      raise ValueError(f"player {player} does not exist; allowed: 0..{n - 1}, or the chance"
                       f" player {CHANCE}")

  def _action_to_string(self, player: int, action: int) -> str:
    if player != CHANCE:
      self._check_player(player)
      return self._rules.action_name(action)
    limit = self.get_game().max_chance_outcomes()
    if not 0 <= action < limit:
      raise ValueError(f"chance outcome {action} is out of range 0..{limit - 1}")
    return self._chance_outcome_name(action)

  def _chance_outcome_name(self, outcome: int) -> str:
    """The name of chance outcome `outcome` (within the game's range) at this node."""
    raise NotImplementedError

  def is_chance_node(self) -> bool:
    return self._table.actor == CHANCE

  def is_simultaneous_node(self) -> bool:
    return self._table.actor == SIMULTANEOUS

  def _legal_actions(self, player: int) -> list[int]:
    if player == SIMULTANEOUS:
      return list(range(math.prod(len(actions) for actions in self._player_actions())))
    return self.dynamics.legal_actions(self._rules, self._table, player)

  def _player_actions(self) -> list[list[int]]:
    return [self.dynamics.legal_actions(self._rules, self._table, p)
            for p in range(self._rules.num_players)]

  def chance_outcomes(self) -> list[tuple[int, float]]:
    return self.dynamics.chance_outcomes(self._rules, self._table)

  def _apply_action(self, action: int) -> None:
    if self._table.actor == CHANCE:
      self._table = self.dynamics.apply_chance(self._rules, self._table, action)
    elif self._table.actor == TERMINAL:
      raise ValueError("the game is over: no action can be applied")
    else:
      self._table = self.dynamics.play(self._rules, self._table, self._flat_to_joint(action))

  def _apply_actions(self, actions: list[int]) -> None:
    self._table = self.dynamics.play(self._rules, self._table, actions)

  def _flat_to_joint(self, flat: int) -> list[int]:
    """Decodes a flat joint action as OpenSpiel does (player 0 is the least significant digit)."""
    legal = self._player_actions()
    joint_count = math.prod(len(actions) for actions in legal)
    if not 0 <= flat < joint_count:
      raise ValueError(f"flat joint action {flat} is out of range 0..{joint_count - 1}")
    joint = []
    for actions in legal:
      joint.append(actions[flat % len(actions)])
      flat //= len(actions)
    return joint

  def returns(self) -> list[float]:
    return self.dynamics.returns(self._rules, self._table)

  def rewards(self) -> list[float]:
    return self.dynamics.returns(self._rules, self._table)


def history_steps(history, num_players: int) -> list[int | list[int]]:
  """A game's history (`state.full_history()`) as steps to replay: single actions (chance
  outcomes, flat joint actions) as ints, joint actions as lists of one action per player.

  Also reads the history of the `pyspiel.convert_to_turn_based` form, whose players' choices are
  entries one after another; a joint action not finished at the end is left out.
  """
  steps, joint = [], []
  for entry in history:
    if entry.player < 0:
      steps.append(entry.action)
    else:
      joint.append(entry.action)
      if len(joint) == num_players:
        steps.append(joint)
        joint = []
  return steps


def apply_step(state: pyspiel.State, step: int | list[int]) -> None:
  if isinstance(step, list):
    state.apply_actions(step)
  else:
    state.apply_action(step)


def simultaneous_game(game: pyspiel.Game) -> DraftingGame:
  """The drafting game itself, or the one under its `pyspiel.convert_to_turn_based` form; a
  ValueError for any other game."""
  if game.get_type().short_name == "turn_based_simultaneous_game":
    game = _underlying_game(str(game))
  if not isinstance(game, DraftingGame):
    raise ValueError(f"{game} is not a drafting game; allowed: python_sushi_go,"
                     " python_sushi_draft, or either under pyspiel.convert_to_turn_based")
  return game


@functools.cache
def _underlying_game(turn_based_game: str) -> pyspiel.Game:
  params = dict(pyspiel.load_game(turn_based_game).get_parameters()["game"])
  return pyspiel.load_game(params.pop("name"), params)


def simultaneous_state(state: pyspiel.State) -> DraftingState:
  """The drafting game's state at the current node of `state`, which may be turn-based.

  A `DraftingState` is returned as it is. For a turn-based state, the chance outcomes are replayed
  into a fresh state of the underlying game, and the per-player actions of each simultaneous node
  are applied together once every player has acted. The actions of a node still being filled in
  (players who already chose this turn) are left out: they are hidden from the player to move.
  This relies on every player having a legal action at every simultaneous node, so each node
  contributes exactly one action per player to the history.
  """
  if isinstance(state, DraftingState):
    return state
  game = simultaneous_game(state.get_game())
  view = game.new_initial_state()
  for step in history_steps(state.full_history(), game.num_players()):
    apply_step(view, step)
  return view
