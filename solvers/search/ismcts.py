"""Information-Set MCTS for the drafting games (Cowling, Powley & Whitehouse 2012), single- and
multiple-observer, with decoupled simultaneous selection: the bots `so_ismcts` and `mo_ismcts`.

`ISMCTSBot` checks its parameters, resolves the objective (the margin, or the win share plus
`WIN_TIE_BREAK` times the margin), chooses an engine and turns the root statistics into its move:
the most visited action (`final=visits`) or the root's mixed strategy (`final=mixed`). Engines
(`ismcts_engines.py`): `PythonISMCTS`, the readable reference, and `CompiledISMCTS`, the same
search in numba kernels, tested against it. Both games have a compiled core, taken unless the
search needs what it has no kernel for (an opponent model without a compiled policy, a rollout
policy the game's kernel lacks). `prior`, `bias` and `epsilon` are the compiled engine's only.
Under an iteration budget a seed fixes every statistic in every process. Works on both games and
their `pyspiel.convert_to_turn_based` form. Parameters, the algorithm and the opponent model:
docs/search.md, "Information-Set MCTS".
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, budget_clock, checked_parameters, objective_game, scaled_budget
from sushigo_spiel.drafting.adapter import simultaneous_game
from solvers.search import rollouts
from solvers.search.ismcts_engines import (CompiledISMCTS, Objective, PythonISMCTS, RootSearch,
                                           Searcher)
from solvers.search.kernels import game as compiled_games
from solvers.search.opponent_model import CompiledPolicy, OpponentModel, check_opponent_model
from solvers.search.selection import FINAL_KINDS, POLICIES, Bandit, make_bandit_factory
from sushigo_spiel.compiled.utilities import WIN_TIE_BREAK


class ISMCTSBot(Bot):
  """Information-Set MCTS; `so_ismcts` and `mo_ismcts` set `tree` to "single" or "multiple"."""

  tree = "single"
  PARAMETERS = {
      "selection": "ucb1",
      "c": 0.7,
      "gamma": 0.1,
      "final": "visits",
      "iterations": 1000,
      "seconds": 0.0,
      "clock": "wall",
      "rollout": "random",
      "epsilon": 0.0,
      "prior": "none",
      "bias": 0.0,
      "objective": "auto",
  }
  # "utility": the game's returns as they are (own points under utility=score), what some stored
  # runs were made with.
  OBJECTIVES = ("auto", "margin", "win", "utility")
  ENGINES = ("compiled", "python")

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               opponent_model: OpponentModel | None = None, model_in_rollouts: bool = True,
               engine: str | None = None, **params):
    """`opponent_model`: the other players' policy, which the search then best responds to
    (`model_in_rollouts=False`: asked in the tree only). `engine` "compiled" or "python" forces
    one (a ValueError when the compiled engine cannot run this search); None takes the compiled
    one whenever it can."""
    super().__init__(game, player_id, seed, **params)
    self._check_params()
    check_opponent_model(opponent_model)
    self.opponent_model = opponent_model
    self.model_in_rollouts = model_in_rollouts
    self._new_bandit = make_bandit_factory(
        self.params["selection"], self.rules.num_distinct_actions, c=self.params["c"],
        gamma=self.params["gamma"])
    self.stream_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    self._random = random.Random(self.stream_seed)
    self.uniform = self._random.random
    self._search = self._choose_engine(engine)

  @classmethod
  def decision_memory(cls, game: pyspiel.Game, params: dict) -> int:
    """What the compiled engine's tree may ask for in a search of `iterations` (one tree, or one
    per player with `mo_ismcts`): an iteration adds at most one node to each tree, a node holds
    at most a bandit row per player, and `kernels.tree.Tree.grow` doubles what is short, with
    room for one more iteration (a row per player and step)."""
    # Imported here: the tree's module loads numba.
    from solvers.search.kernels.tree import tree_bytes  # pylint: disable=import-outside-toplevel
    p = checked_parameters(cls, params)
    if p["seconds"] > 0 or not 1 <= p["iterations"] < 2**62:
      return 0  # a time budget bounds it; iterations out of range are refused by the bot
    rules = simultaneous_game(game).rules
    iterations, players = int(p["iterations"]), rules.num_players
    trees = players if cls.tree == "multiple" else 1
    nodes = trees * (iterations + 1)
    return tree_bytes(players, rules.num_distinct_actions, p["selection"] != "ucb1",
                      nodes=2 * nodes,
                      rows=2 * (players * nodes + rules.max_game_length * players))

  @classmethod
  def timing_parameters(cls, params: dict) -> tuple[dict, float]:
    return scaled_budget(checked_parameters(cls, params), ("iterations",),
                         {"iterations": 200, "seconds": 0.01})

  def _check_params(self) -> None:
    p = self.params
    if p["selection"] not in POLICIES:
      raise ValueError(f"parameter 'selection' is {p['selection']!r}; allowed: "
                       f"{', '.join(POLICIES)}")
    if p["final"] not in FINAL_KINDS:
      raise ValueError(f"parameter 'final' is {p['final']!r}; allowed: {', '.join(FINAL_KINDS)}")
    if p["rollout"] not in rollouts.ROLLOUT_POLICIES:
      raise ValueError(f"parameter 'rollout' is {p['rollout']!r}; allowed: "
                       f"{', '.join(rollouts.ROLLOUT_POLICIES)}")
    if not 1 <= p["iterations"] < 2**62 or p["iterations"] != int(p["iterations"]):
      raise ValueError(f"parameter 'iterations' is {p['iterations']}; allowed: an integer >= 1"
                       " (and below 2**62)")
    if not p["seconds"] >= 0:
      raise ValueError(f"parameter 'seconds' is {p['seconds']}; allowed: a number >= 0"
                       " (0: the budget is `iterations`)")
    if not 0 <= p["epsilon"] <= 1:
      raise ValueError(f"parameter 'epsilon' is {p['epsilon']}; allowed: 0 <= epsilon <= 1")
    if not p["bias"] >= 0:
      raise ValueError(f"parameter 'bias' is {p['bias']}; allowed: a number >= 0")
    # The game searched: this one scored by the objective (only the utility differs).
    self.search_game = self.game if self.objective == "utility" else \
        objective_game(self.game, self.objective)
    self.engine_objective = self._engine_objective()
    if p["prior"] != "none" and p["selection"] != "ucb1":
      raise ValueError(f"parameter 'prior' is {p['prior']!r} with selection"
                       f" {p['selection']!r}; progressive bias is UCB1's: allowed with"
                       " selection='ucb1', or prior='none'")

  def resolved_objective(self) -> str:
    """"margin" or "win" (`solvers.bot.resolve_objective`), or "utility": the game's returns as
    they are, normalised by their range (own points under `utility=score`)."""
    if self.params["objective"] == "utility":
      return "utility"
    return super().resolved_objective()

  def _engine_objective(self) -> Objective:
    """The objective as the engines learn it, on the returns of `self.search_game`."""
    low, high = self.search_game.min_utility(), self.search_game.max_utility()
    return Objective(margin=self.objective == "margin",
                     from_scores=self.search_game.rules.utility == "score", offset=low,
                     scale=1.0 / (high - low),
                     margin_scale=float(self.rules.rounds * self.rules.hand_size * 2),
                     tie_break=WIN_TIE_BREAK if self.objective == "win" else 0.0)

  # ----- the engine

  def _choose_engine(self, engine: str | None) -> RootSearch:
    """The engine searching for this bot (see the module docstring); a ValueError when `engine`
    asks for what cannot run."""
    if engine not in (None, *self.ENGINES):
      raise ValueError(f"engine {engine!r} is unknown; allowed: {', '.join(self.ENGINES)}")
    refusal = self._compiled_refusal()
    if refusal is None and engine != "python":
      return self._compiled_engine()
    if engine == "compiled":
      raise ValueError(f"the compiled engine cannot run this search: {refusal}")
    p = self.params
    if p["prior"] != "none" or p["epsilon"] > 0:
      raise ValueError("parameters 'prior' and 'epsilon' need the compiled engine, which cannot"
                       f" run this search ({refusal or 'the Python engine was asked for'});"
                       " allowed here: prior='none', epsilon=0")
    return PythonISMCTS(self.search_game, self._searcher(),
                        rollouts.make_rollout_policy(p["rollout"], self.search_game),
                        self.opponent_model, self.model_in_rollouts, self._random)

  def _compiled_model(self) -> CompiledPolicy | None:
    return None if self.opponent_model is None else self.opponent_model.compiled

  def _compiled_refusal(self) -> str | None:
    """Why the compiled engine cannot run this search, or None when it can."""
    short_name, model = self.dynamics.short_name, self._compiled_model()
    if not compiled_games.has_core(short_name):
      return f"{short_name} has no compiled core"
    if self.opponent_model is not None and model is None:
      return "the opponent model has no compiled policy"
    needs = [self.params["rollout"], self.params["prior"], model.name if model else "none"]
    known = compiled_games.policy_names(short_name, model.kernel if model else None)
    missing = [name for name in needs if name != "none" and name not in known]
    if missing:
      return f"the compiled core has no kernel for {', '.join(missing)}"
    return None

  def _compiled_engine(self) -> CompiledISMCTS:
    short_name, model = self.dynamics.short_name, self._compiled_model()
    if model is not None and model.kernel is not None:
      search_game = compiled_games.SearchGame(short_name, self.search_game.rules,
                                              model.parameters, model.kernel)
    else:
      search_game = compiled_games.SearchGame(
          short_name, self.search_game.rules, rollouts.compiled_policy_parameters(short_name))
    return CompiledISMCTS(search_game, self._searcher(), self.params,
                          None if model is None else model.name, self.model_in_rollouts,
                          self.game.max_game_length(), self.stream_seed)

  @property
  def engine(self) -> str:
    """"compiled" or "python": the engine this bot searches with."""
    return "compiled" if isinstance(self._search, CompiledISMCTS) else "python"

  def _searcher(self) -> Searcher:
    """This bot's player searching: one tree, its own, when the others follow an opponent model
    or with `tree="single"`; else one per player, its own first."""
    me, owners = self.player_id, (self.player_id,)
    if self.tree == "multiple" and self.opponent_model is None:
      owners += tuple(p for p in range(self.rules.num_players) if p != me)
    return Searcher(me, owners, self._new_bandit, self.engine_objective,
                    budget_clock(self.params["clock"]))

  # ----- searching

  def policy_at(self, table) -> Policy:
    """The distribution this bot's move is drawn from, after a fresh search: one-hot on the most
    visited action with `final=visits`, the root's mixed strategy with `mixed`."""
    policy = self.search_table(table).final_policy(self.params["final"])
    if self.params["final"] == "visits":
      best = max(policy, key=lambda ap: ap[1])[0]
      return [(action, float(action == best)) for action, _ in policy]
    return policy

  def search(self, state: pyspiel.State) -> Bandit:
    """Runs the search from `state` (either form of the game); returns the bandit of this bot's
    player at the root, whose statistics hold the answer."""
    return self.search_table(self.table(state))

  def search_table(self, table) -> Bandit:
    """`search` from a simultaneous node given as the rules' table."""
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    if len(legal) == 1:  # nothing to search: a bandit that knows only this action
      bandit = self._new_bandit()
      action, probability = bandit.select(legal, self._random)
      bandit.update(action, 0.0, probability)
      return bandit
    return self._search.search(table, int(self.params["iterations"]), self.params["seconds"])


class SOISMCTSBot(ISMCTSBot):
  """Single-observer ISMCTS: one tree over the searching player's information sets."""
  tree = "single"


class MOISMCTSBot(ISMCTSBot):
  """Multiple-observer ISMCTS: one tree per player over its own information sets."""
  tree = "multiple"
