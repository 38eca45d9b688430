"""Perfect Information Monte Carlo (PIMC): determinized search for the drafting games.

At each decision the bot samples K worlds consistent with what its player knows
(`knowledge.determinize`), solves each with a world solver (`world_solvers.py`) and averages the
per-world action values; a world's ends are worth the bot's `objective` to every player (the
margin, or the win share plus `WIN_TIE_BREAK` times the margin). It plays the best mean value
(`final=argmax`, ties to the lower id) or a draw from the mean per-world policy (`final=policy`).
SM-MCTS worlds run on the compiled core (`kernels.smmcts`) when the rollout policy has a kernel
there (in Sushi Go all do); the tree solvers keep their matrix games in Python, their rollouts on
the core. With `engine="python"` everything runs in Python and no kernel is compiled.

Works on `python_sushi_go` (2-5 players, any deck and variant) and `python_sushi_draft` (SM-MCTS
worlds on the compiled core only), and on their turn-based forms. Parameters: `PIMCBot`; known
failure modes (strategy fusion, non-locality) and results: docs/search.md, "Perfect Information
Monte Carlo".
"""

from __future__ import annotations

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, budget_clock, checked_parameters, objective_game, scaled_budget
from solvers.search import rollouts, selection, world_solvers
from solvers.search.kernels.game import SearchGame
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.drafting.adapter import simultaneous_game
from sushigo_spiel.sushi_go import knowledge

FINALS = ("argmax", "policy")
WORLD_SOLVERS = ("auto",) + world_solvers.KINDS

AUTO_THRESHOLDS = {2: 4, 3: 3, 4: 3, 5: 2}  # exact_threshold=-1 without a time budget
AUTO_THRESHOLD_ROBOT = 2  # the controller places two cards and the robot draws every turn
AUTO_ITERATIONS = 200  # iterations=-1 without a time budget
# iterations=-1 and exact_threshold=-1 under a time budget (`seconds` > 0): the best setting
# measured at 10 and 100 ms a move, 2 and 4 players (docs/search.md): short searches of many
# worlds, the last two cards of a round solved exactly.
BUDGETED = {"iterations": 20, "exact_threshold": 2}


class PIMCBot(Bot):
  """Perfect Information Monte Carlo over world solvers (see the module docstring).

  Parameters (`PARAMETERS`):
    worlds            K, worlds sampled per decision (when `seconds` is 0)
    seconds           > 0: keep sampling worlds until this much time has passed (at least one world)
    clock             what `seconds` is measured on: "wall" time or "cpu", the thread's CPU time
    world_solver      auto | smmcts | exact | paranoid | maxn. `auto` is exact with two players and
                      maxn with more. Tree solvers are used while the player holds at most
                      `exact_threshold` cards, SM-MCTS before that.
    exact_threshold   hand size at or below which the tree solvers take over from SM-MCTS; -1 (the
                      default) chooses by budget: 2 under a time budget (`BUDGETED`), otherwise by
                      player count (4, 3, 3, 2 cards for 2, 3, 4, 5 players: a tree of about 10^3
                      to 10^4 joint moves; 2 with the robot)
    depth             turns searched by the tree solvers (0: to the end of the round)
    rollouts          rollouts per estimate beyond the tree solvers' horizon
    iterations        SM-MCTS iterations per world; -1 (the default) chooses by budget: 20 under a
                      time budget (many short worlds: the best measured at 10 and 100 ms), else 200
    rollout           random | greedy | heuristic, the rollout policy of every player
    selection, c, gamma   the SM-MCTS bandit (`selection.py`: ucb1 | exp3 | regret_matching)
    final             argmax | policy
    objective         auto | margin | win: what the worlds' ends are worth to every player (the
                      margin, or the win share with the Pudding tie-break plus WIN_TIE_BREAK
                      times the margin); auto follows the game's utility (`solvers.bot`)
  """

  PARAMETERS = {
      "worlds": 16,
      "seconds": 0.0,
      "clock": "wall",
      "world_solver": "auto",
      "exact_threshold": -1,
      "depth": 0,
      "rollouts": 4,
      "iterations": -1,
      "rollout": "random",
      "selection": "ucb1",
      "c": 0.7,
      "gamma": 0.1,
      "final": "argmax",
      "objective": "auto",
  }

  GAMES = ("python_sushi_go", "python_sushi_draft")
  TREE_SOLVER_GAME = "python_sushi_go"  # the only game whose worlds the tree solvers and the
                                        # Python engine can value

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               engine: str | None = None, **params):
    """`engine="python"` keeps every world in Python (the speed benchmark's baseline); None uses
    the compiled core where it can."""
    super().__init__(game, player_id, seed, **params)
    if engine not in (None, "python"):
      raise ValueError(f"engine {engine!r} is unknown; allowed: python (or None)")
    if engine == "python" and self.dynamics.short_name != self.TREE_SOLVER_GAME:
      raise ValueError(f"{self.dynamics.short_name}'s worlds are solved in the compiled core only;"
                       " allowed: engine=None")
    self._clock = budget_clock(self.params["clock"])
    # The worlds are valued in this game: the bot's game scored by the objective.
    self.search_game_rules = objective_game(self.game, self.objective).rules
    stream_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    self.settings = self._settings(self.game)
    self.search_game = None if engine == "python" else SearchGame(
        self.dynamics.short_name, self.search_game_rules,
        rollouts.compiled_policy_parameters(self.dynamics.short_name))
    self.sampler = None if engine == "python" else self._sampler(stream_seed)
    if self.sampler is not None and self.settings.kind != "smmcts":  # tree solvers' rollouts
      self.settings = self.settings._replace(core_rollouts=self._core_rollouts(stream_seed + 1))
    self.worlds_searched = 0  # worlds sampled at the last decision

  @classmethod
  def decision_memory(cls, game: pyspiel.Game, params: dict) -> int:
    """The compiled worlds' tree, preallocated for the SM-MCTS iterations of one world when the
    bot is built (`kernels.searches.WorldSampler`)."""
    # Imported here: the tree's module loads numba.
    from solvers.search.kernels.tree import tree_bytes  # pylint: disable=import-outside-toplevel
    p = checked_parameters(cls, params)
    rules = simultaneous_game(game).rules
    iterations = int(p["iterations"])
    if iterations == -1:
      iterations = BUDGETED["iterations"] if p["seconds"] > 0 else AUTO_ITERATIONS
    if iterations < 1 or iterations != p["iterations"] and p["iterations"] != -1:
      return 0  # refused by the bot before it builds its tree
    nodes = iterations + 2
    return tree_bytes(rules.num_players, rules.num_distinct_actions, p["selection"] != "ucb1",
                      nodes=nodes, rows=nodes * rules.num_players)

  @classmethod
  def timing_parameters(cls, params: dict) -> tuple[dict, float]:
    p = checked_parameters(cls, params)
    if p["iterations"] == -1:
      p["iterations"] = BUDGETED["iterations"] if p["seconds"] > 0 else AUTO_ITERATIONS
    return scaled_budget(p, ("worlds", "iterations"),
                         {"worlds": 2, "iterations": 20, "seconds": 0.01})

  def _settings(self, game: pyspiel.Game) -> world_solvers.Settings:
    params, n = self.params, self.rules.num_players
    kind = params["world_solver"]
    if kind not in WORLD_SOLVERS:
      raise ValueError(f"parameter 'world_solver' is {kind!r}; allowed: {', '.join(WORLD_SOLVERS)}")
    if self.dynamics.short_name != self.TREE_SOLVER_GAME:
      if kind not in ("auto", "smmcts"):
        raise ValueError(f"parameter 'world_solver' is {kind!r}; allowed in"
                         f" {self.dynamics.short_name}: smmcts (or auto)")
      kind = "smmcts"
    if kind == "auto":
      kind = "exact" if n == 2 else "maxn"
    world_solvers.check_kind(kind, n)
    if params["final"] not in FINALS:
      raise ValueError(f"parameter 'final' is {params['final']!r}; allowed: {', '.join(FINALS)}")
    self._choose_by_budget(params)
    for name in ("worlds", "iterations", "rollouts"):
      if int(params[name]) < 1 or params[name] != int(params[name]):
        raise ValueError(f"parameter {name!r} is {params[name]}; allowed: an integer >= 1"
                         + (" (or -1: by budget)" if name == "iterations" else ""))
    for name in ("exact_threshold", "depth"):
      if int(params[name]) < 0 or params[name] != int(params[name]):
        raise ValueError(f"parameter {name!r} is {params[name]}; allowed: an integer >= 0"
                         + (" (or -1: by budget and player count)" if name == "exact_threshold"
                            else ""))
    if params["seconds"] < 0:
      raise ValueError(f"parameter 'seconds' is {params['seconds']}; allowed: a number >= 0")
    return world_solvers.Settings(
        kind=kind, exact_threshold=int(params["exact_threshold"]), depth=int(params["depth"]),
        rollouts=int(params["rollouts"]), iterations=int(params["iterations"]),
        rollout_policy=rollouts.make_rollout_policy(params["rollout"], game),
        bandit_factory=selection.make_bandit_factory(
            params["selection"], self.rules.num_distinct_actions, c=params["c"],
            gamma=params["gamma"]))

  def _choose_by_budget(self, params: dict) -> None:
    """Resolves `iterations` and `exact_threshold` of -1 in `params`: `BUDGETED` under a time
    budget, otherwise `AUTO_ITERATIONS` and the threshold by player count."""
    budgeted = params["seconds"] > 0
    if params["iterations"] == -1:
      params["iterations"] = BUDGETED["iterations"] if budgeted else AUTO_ITERATIONS
    if params["exact_threshold"] == -1:
      if budgeted:
        params["exact_threshold"] = BUDGETED["exact_threshold"]
      else:
        params["exact_threshold"] = AUTO_THRESHOLD_ROBOT if getattr(self.rules, "robot", False) \
            else AUTO_THRESHOLDS[self.rules.num_players]

  def _core_rollouts(self, stream_seed: int) -> world_solvers.CoreRollouts:
    """The tree solvers' rollouts in Sushi Go's core, on a stream of their own."""
    # Imported here: the policy kernels load numba.
    from solvers.policy_kernels.checked import SushiGoPolicies  # pylint: disable=C0415
    return world_solvers.CoreRollouts(SushiGoPolicies(self.search_game.core),
                                      self.params["rollout"], self.search_game.parameters,
                                      new_state(stream_seed))

  def _sampler(self, stream_seed: int):
    """The compiled SM-MCTS worlds, or None when the rollout policy has no compiled kernel."""
    # Imported here: the compiled worlds load numba's search kernels.
    from solvers.search.kernels import smmcts  # pylint: disable=C0415
    from solvers.search.kernels.bandits import Selection  # pylint: disable=C0415
    from solvers.search.kernels.playing import NO_POLICY, PlayoutPolicies  # pylint: disable=C0415
    from solvers.search.kernels.searches import WorldSampler  # pylint: disable=C0415
    params, rules = self.params, self.search_game_rules
    if params["rollout"] not in self.search_game.policies:
      return None
    rollout = self.search_game.policy_code(params["rollout"])
    settings = smmcts.Settings(
        selection=Selection.named(params["selection"], params["c"], params["gamma"]),
        playout=PlayoutPolicies(rollout, epsilon=0.0, model=NO_POLICY, modelled=0),
        players=rules.num_players, searcher=self.player_id, iterations=int(params["iterations"]),
        from_scores=rules.utility == "score", win=rules.utility == "win",
        margin_scale=float(rules.rounds * rules.hand_size * 2),
        max_depth=self.game.max_game_length(), actions=rules.num_distinct_actions)
    return WorldSampler(self.search_game, settings, stream_seed, self._clock)

  def policy_at(self, table) -> Policy:
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    if len(legal) == 1:
      return [(legal[0], 1.0)]
    values, policy = self.action_values(table)
    if self.params["final"] == "policy":
      return [(a, policy[a]) for a in legal]
    best = max(legal, key=lambda a: (values[a], -a))
    return [(a, float(a == best)) for a in legal]

  def action_values(self, table) -> tuple[dict[int, float], dict[int, float]]:
    """The mean over sampled worlds of the per-world action values and policies at `table` (a
    simultaneous node), for this bot's player. Actions no world valued get -inf."""
    rules, player, rng = self.rules, self.player_id, self.rng
    legal = self.dynamics.legal_actions(rules, table, player)
    settings = self.settings
    if self.sampler is not None and (settings.kind == "smmcts" or
                                     sum(table.hands[player]) > settings.exact_threshold):
      return self._compiled_values(table, legal)
    value_sums = dict.fromkeys(legal, 0.0)
    value_counts = dict.fromkeys(legal, 0)
    policy_sums = dict.fromkeys(legal, 0.0)
    seconds = self.params["seconds"]
    deadline = self._clock() + seconds
    worlds = 0
    while (self._clock() < deadline or worlds == 0) if seconds > 0 \
        else worlds < self.params["worlds"]:
      world = knowledge.determinize(rules, table, player, rng.random)
      result = world_solvers.solve_world(self.search_game_rules, world, player, self.settings,
                                         rng)
      for action, value in result.values.items():
        value_sums[action] += value
        value_counts[action] += 1
      for action, probability in result.policy.items():
        policy_sums[action] += probability
      worlds += 1
    self.worlds_searched = worlds
    values = {a: value_sums[a] / value_counts[a] if value_counts[a] else -np.inf for a in legal}
    total = sum(policy_sums.values())
    return values, {a: policy_sums[a] / total for a in legal}

  def _compiled_values(self, table, legal: list[int]):
    """`action_values` with every world solved by the compiled SM-MCTS."""
    position = self.search_game.core.encode(table)
    value_sums, value_counts, policy_sums = self.sampler.sample(
        position, int(self.params["worlds"]), self.params["seconds"])
    self.worlds_searched = self.sampler.worlds
    values = {a: value_sums[a] / value_counts[a] if value_counts[a] else -np.inf for a in legal}
    total = policy_sums[legal].sum()
    return values, {a: policy_sums[a] / total for a in legal}
