"""A reference bot: OpenSpiel's own Python `ISMCTSBot` on the turn-based form of the game.

The yardstick the project's ISMCTS is compared with at equal budget. It runs on
`pyspiel.convert_to_turn_based` of the game (OpenSpiel's bot searches sequential games only), and
this wrapper fills that route's gaps: a resampler (`set_resampler`, as the wrapper does not
forward `resample_from_infostate`) that redraws the choices made earlier in the same turn uniformly
(its player cannot see them); a `solvers.bot.Bot` answering at the simultaneous game's nodes (the
search keeps no state between moves); and `seconds` > 0 on a `clock` ("wall" or the thread's
"cpu"), running simulations until then, so every search bot can be given equal time a move.
OpenSpiel's C++ ISMCTS is not used: it crashes on wrapped Python games. The rest: docs/search.md,
"OpenSpiel's ISMCTS".
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts
from open_spiel.python.algorithms import mcts

from solvers.bot import Bot, Policy, budget_clock, checked_parameters, scaled_budget
from sushigo_spiel.drafting.adapter import history_steps, simultaneous_state


# A node of OpenSpiel's ISMCTS tree without its key, bytes: searches of 2,000 simulations traced
# with tracemalloc, at the opening and at the last round's start of Sushi Go (2 and 4 players)
# and Sushi Draft (3), took 670 to 1,210 bytes a node besides its key.
NODE_BYTES = 1_000


def _is_count(value) -> bool:
  """Whether a parameter's value is a whole number >= 1."""
  return isinstance(value, (int, float)) and not isinstance(value, bool) and \
      math.isfinite(value) and value >= 1 and value == int(value)


def _longest_key(game: pyspiel.Game) -> int:
  """The longest information-state string of a game of `game`'s turn-based form played at
  random (seeded), in characters."""
  turn_based = pyspiel.convert_to_turn_based(game)
  state, rng, longest = turn_based.new_initial_state(), np.random.default_rng(0), 0
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[rng.choice(len(outcomes), p=probabilities)])
    else:
      longest = max(longest, len(state.information_state_string()))
      state.apply_action(int(rng.choice(state.legal_actions())))
  return longest


class OpenSpielISMCTSBot(Bot):
  """OpenSpiel's `ISMCTSBot` (UCT, random rollouts) for one player of a drafting game.

  It maximises the returns of the game it searches. `objective` "margin" or "win" searches the
  game scored that way; "auto" keeps OpenSpiel's own behaviour, the returns of the game as given
  (own points under `utility=score`, unlike the project's searchers, which play for the margin
  there): this bot is the outside reference."""

  PARAMETERS = {"iterations": 200, "seconds": 0.0, "clock": "wall", "uct_c": 2.0, "rollouts": 1,
                "objective": "auto"}

  @classmethod
  def decision_memory(cls, game: pyspiel.Game, params: dict) -> int:
    """OpenSpiel's search adds at most one node per simulation to a dict keyed by the player's
    information-state string: `NODE_BYTES` a node (its statistics, one per action tried) plus
    its key, bounded by the longest key of a game of `game` played at random (the keys grow
    with the history, so a search late in the game comes closest to this figure)."""
    p = checked_parameters(cls, params)
    if p["seconds"] > 0 or not _is_count(p["iterations"]):
      return 0  # a time budget bounds it; other budgets are refused by the bot
    return int(p["iterations"]) * (NODE_BYTES + _longest_key(game))

  @classmethod
  def timing_parameters(cls, params: dict) -> tuple[dict, float]:
    return scaled_budget(checked_parameters(cls, params), ("iterations",),
                         {"iterations": 20, "seconds": 0.01})

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    if not _is_count(self.params["iterations"]):
      raise ValueError(f"parameter 'iterations' is {self.params['iterations']}; allowed: an"
                       " integer >= 1")
    if not self.params["seconds"] >= 0:
      raise ValueError(f"parameter 'seconds' is {self.params['seconds']}; allowed: a number >= 0"
                       " (0: the budget is `iterations`)")
    searched = self.game if self.objective == self.rules.utility else pyspiel.load_game(
        self.game.get_type().short_name, {**self.game.get_parameters(), "utility": self.objective})
    self._turn_based = pyspiel.convert_to_turn_based(searched)
    self._rng = np.random.RandomState(np.random.SeedSequence(seed).generate_state(1)[0])
    self.uniform = self._rng.random_sample
    evaluator = mcts.RandomRolloutEvaluator(int(self.params["rollouts"]), self._rng)
    self._search = _TimedISMCTSBot(
        self._turn_based, evaluator, float(self.params["uct_c"]),
        int(self.params["iterations"]), random_state=self._rng,
        child_selection_policy=ismcts.ChildSelectionPolicy.UCT)
    self._search.seconds = float(self.params["seconds"])
    self._search.clock = budget_clock(self.params["clock"])
    self._search.set_resampler(self._resample)

  def resolved_objective(self) -> str:
    """"margin" or "win" as asked; "auto": the game's utility as it is (see the class)."""
    if self.params["objective"] == "auto":
      return self.rules.utility
    return super().resolved_objective()

  def get_policy(self, state: pyspiel.State) -> Policy:
    """OpenSpiel's final policy at `state` (most visited action), which the move is drawn from."""
    return self._search.get_policy(self._turn_based_state(state))

  def last_search_visits(self) -> int:
    """The visits of the root of the last search: the simulations a speed benchmark counts."""
    return self._search.root_visits()

  def _turn_based_state(self, state: pyspiel.State) -> pyspiel.State:
    """The turn-based state where this bot's player is to move, given either form of the game."""
    if state.get_game().get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL:
      if state.current_player() != self.player_id:
        raise ValueError(f"it is player {state.current_player()}'s turn, not {self.player_id}'s")
      if self.objective == self.rules.utility:
        return state
      searched = self._turn_based.new_initial_state()  # the same play, scored by the objective
      for action in state.history():
        searched.apply_action(action)
      return searched
    # The earlier players' choices at the root never reach the search: every simulation starts
    # from a resampled world. Taking their first legal actions keeps the bot's random stream
    # independent of cards its player cannot see.
    return self._replay(state, self.player_id, lambda actions: actions[0])

  def _replay(self, simultaneous: pyspiel.State, player: int, choose) -> pyspiel.State:
    """Replays a simultaneous state into the turn-based game up to `player`'s choice of the turn,
    the players before it in the turn choosing with `choose(legal_actions)`."""
    turn_based = self._turn_based.new_initial_state()
    for step in history_steps(simultaneous.full_history(), simultaneous.num_players()):
      for action in step if isinstance(step, list) else [step]:
        turn_based.apply_action(action)
    while turn_based.current_player() != player:
      turn_based.apply_action(choose(turn_based.legal_actions()))
    return turn_based

  def _resample(self, state: pyspiel.State, player: int) -> pyspiel.State:
    resampled = simultaneous_state(state).resample_from_infostate(player, self._rng.uniform)
    return self._replay(resampled, player, self._rng.choice)


class _TimedISMCTSBot(ismcts.ISMCTSBot):
  """OpenSpiel's `ISMCTSBot`, whose search runs for `seconds` of wall time when that is > 0.

  The timed loop is OpenSpiel's `run_search` with the simulation count replaced by a deadline,
  running on past it until the root has a visited child (OpenSpiel's first simulation only
  expands the root, and its final policy needs a visit).
  """

  seconds = 0.0
  clock = time.perf_counter  # what `seconds` is measured on (`bot.CLOCKS`)

  def root_visits(self) -> int:
    """The visits of the root of the last search."""
    return self._root_node.total_visits

  def run_search(self, state: pyspiel.State):
    if self.seconds <= 0:
      return super().run_search(state)
    self.reset()
    legal_actions = state.legal_actions()
    if len(legal_actions) == 1:
      return [(legal_actions[0], 1.0)]
    self._root_node = self.create_new_node(state)
    deadline = self.clock() + self.seconds
    while True:
      self.run_simulation(self.sample_root_state(state))
      if self.clock() >= deadline and self._root_node.total_visits > 0:
        return self.get_final_policy(state, self._root_node)
