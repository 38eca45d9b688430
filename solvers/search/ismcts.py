"""Information-Set MCTS for the drafting games, single- and multiple-observer, with decoupled
simultaneous selection.

Cowling, Powley & Whitehouse (2012), "Information Set Monte Carlo Tree Search". Every iteration
samples a determinization, a table the searching player cannot tell from the real one (its unseen
cards redealt, the game's `determinize`, as `resample_from_infostate` does), and walks down a tree
whose nodes are information sets rather than histories:

  so_ismcts  one tree over the searching player's information sets. At each node every player
             keeps a bandit of its own (`selection.py`), so opponents are modelled from the
             searching player's information.
  mo_ismcts  one tree per player, each over that player's information sets: a player chooses from
             the bandit at the node of its own tree, so opponents are modelled from what they
             themselves can see.

Picks are simultaneous: each player chooses from its own statistics (decoupled selection: UCB1,
Exp3 or regret matching), never seeing the others' choices. An opponent's legal actions change from
one determinization to the next; the bandits count availability and choose among available arms.
After a joint action, a tree moves to the child keyed by what the tree's owner observes of that
step (the game's `observation`: in Sushi Go every pick, its new hand and at a round's end the cards
revealed; in Sushi Draft every eat but only its own keep). Chance is sampled by its probabilities.
A new node ends the descent; the game is then played out by the rollout policy on the rules'
tables (`rollouts.py`), and every bandit on the path learns its player's utility scaled to [0, 1]
by the game's utility bounds.

The move is the most visited action at the root (`final=visits`) or drawn from the root's mixed
strategy (`final=mixed`: the mean strategy of Exp3 and regret matching, visit frequencies for
UCB1). Budget: `iterations` per move, or `seconds` per move when > 0, on the `clock` "wall" (wall
time) or "cpu" (the searching thread's CPU time, `bot.CLOCKS`).

Two engines run this search. Where the game has a compiled core (`solvers.search.kernels`:
Sushi Go today) the whole iteration runs there, from a stream seeded with the bot's seed, so a
seed fixes every statistic in every process under an iteration budget. Elsewhere (Sushi Draft until
its core lands, a rollout policy or opponent model the core has no kernel for) the Python search
of this module runs on the rules' tables: the readable reference, which keeps the same statistics
as the compiled one when both are driven by one stream (tested). Both have `objective`; only the
compiled engine has `prior`, `bias` and `epsilon`:

  prior, bias   progressive bias (Chaslot et al. 2008): UCB1 adds bias / (n_a + 1) to the score of
                the action the `prior` policy (greedy, heuristic, ...) would pick, for every player
                choosing by bandit; "none" adds nothing
  objective     what the bandits learn: `utility`, the game's utility scaled to [0, 1] by its
                bounds, or `margin`, own points less the others' mean, `2 * rounds * hand_size`
                points of margin to one half, clipped (as PIMC's SM-MCTS learns), which spreads
                typical outcomes over the range and values denying the others; `auto` (the
                default) is `margin`, or `utility` in a game with `utility=win`
  epsilon       rollouts by the `rollout` policy mixed with uniform random play: each rollout pick
                is uniformly random with probability epsilon

Opponent model: `opponent_model(rules, table, player) -> [(action, probability), ...]`, a
constructor argument (not a config parameter). A model whose `compiled_policy` attribute names a
policy of the compiled core (random, greedy, heuristic: `rollouts.compiled_policy_name`) runs
inside the compiled search; so does one that also brings its own `policy_kernel` (a
`solvers.search.kernels.game.PolicyKernel`) and `compiled_parameters` (a CFR blueprint's:
`solvers.equilibrium.kernels.blueprint_policy`); any other model runs in the Python search. When given, every
other player's choices, in the tree and in rollouts, are drawn from it at the determinized table
instead of from bandits: the search then approximates a best response to that fixed policy. Only
the searching player's statistics are kept (one tree, for so_ismcts and mo_ismcts alike). With
`model_in_rollouts=False` the model is asked in the tree only and rollouts use the `rollout` policy
for everyone: much cheaper when the model is slow to ask (a search bot), at the price of leaf
values estimated against the rollout policy.

Works on both drafting games (every player count and variant, the robot included) and on their
`pyspiel.convert_to_turn_based` form, answering for its own player.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy, budget_clock
from solvers.search import rollouts
from solvers.search.kernels import game as compiled_games
from solvers.search.selection import FINAL_KINDS, POLICIES, Bandit, make_bandit_factory
from sushigo_spiel.drafting.dynamics import TERMINAL, margins
from sushigo_spiel.drafting.sampling import Uniform, draw_action

OpponentModel = Callable[[object, object, int], Policy]


class _Node:
  """An information set of the tree's owner: a bandit per player choosing here, and children
  keyed by (joint action, observation)."""

  __slots__ = ("bandits", "children")

  def __init__(self, num_players: int):
    self.bandits: list[Bandit | None] = [None] * num_players
    self.children: dict[tuple, _Node] = {}


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
  OBJECTIVES = ("auto", "utility", "margin")
  ENGINES = ("compiled", "python")

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None,
               opponent_model: OpponentModel | None = None, model_in_rollouts: bool = True,
               engine: str | None = None, **params):
    """`engine` "compiled" or "python" forces one (a ValueError when the compiled engine cannot
    run this search); None takes the compiled one whenever it can."""
    super().__init__(game, player_id, seed, **params)
    self._check_params()
    self._new_bandit = make_bandit_factory(
        self.params["selection"], self.rules.num_distinct_actions, c=self.params["c"],
        gamma=self.params["gamma"])
    self._rollout = rollouts.make_rollout_policy(self.params["rollout"], self.game)
    self.opponent_model = opponent_model
    self.model_in_rollouts = model_in_rollouts
    low, high = self.game.min_utility(), self.game.max_utility()
    self._offset, self._scale = low, 1.0 / (high - low)
    self._margin_scale = float(self.rules.rounds * self.rules.hand_size * 2)
    self.stream_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    self._random = random.Random(self.stream_seed)
    self.uniform = self._random.random
    self._clock = budget_clock(self.params["clock"])
    self._compiled = self._compiled_search(engine)

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
    if p["iterations"] < 1 or p["iterations"] != int(p["iterations"]):
      raise ValueError(f"parameter 'iterations' is {p['iterations']}; allowed: an integer >= 1")
    if not p["seconds"] >= 0:
      raise ValueError(f"parameter 'seconds' is {p['seconds']}; allowed: a number >= 0"
                       " (0: the budget is `iterations`)")
    if not 0 <= p["epsilon"] <= 1:
      raise ValueError(f"parameter 'epsilon' is {p['epsilon']}; allowed: 0 <= epsilon <= 1")
    if not p["bias"] >= 0:
      raise ValueError(f"parameter 'bias' is {p['bias']}; allowed: a number >= 0")
    if p["objective"] not in self.OBJECTIVES:
      raise ValueError(f"parameter 'objective' is {p['objective']!r}; allowed:"
                       f" {', '.join(self.OBJECTIVES)}")
    if p["objective"] == "margin" and self.rules.utility == "win":
      raise ValueError("parameter 'objective' is 'margin' in a game with utility=win; allowed"
                       " there: utility, auto")
    self.objective = p["objective"]  # resolved: "utility" or "margin"
    if self.objective == "auto":
      self.objective = "utility" if self.rules.utility == "win" else "margin"
    if p["prior"] != "none" and p["selection"] != "ucb1":
      raise ValueError(f"parameter 'prior' is {p['prior']!r} with selection"
                       f" {p['selection']!r}; progressive bias is UCB1's: allowed with"
                       " selection='ucb1', or prior='none'")

  def _compiled_search(self, engine: str | None):
    """The compiled search for this bot, or None for the Python one (see the module docstring);
    a ValueError when `engine` asks for what cannot run."""
    if engine not in (None, *self.ENGINES):
      raise ValueError(f"engine {engine!r} is unknown; allowed: {', '.join(self.ENGINES)}")
    p, model = self.params, self.opponent_model
    needs = [name for name in (p["rollout"], p["prior"]) if name != "none"]
    if model is not None:
      needs.append(getattr(model, "compiled_policy", None) or "a Python opponent model")
    reason = None
    if not compiled_games.has_core(self.dynamics.short_name):
      reason = f"{self.dynamics.short_name} has no compiled core yet"
    else:
      kernel = getattr(model, "policy_kernel", None)
      search_game = compiled_games.SearchGame(
          self.dynamics.short_name, self.rules,
          rollouts.compiled_policy_parameters(self.dynamics.short_name) if kernel is None
          else model.compiled_parameters, kernel)
      missing = [name for name in needs if name not in search_game.policies]
      if missing:
        reason = f"the compiled core has no kernel for {', '.join(missing)}"
    if reason is None and engine != "python":
      return self._new_compiled_search(search_game)
    if engine == "compiled":
      raise ValueError(f"the compiled engine cannot run this search: {reason}")
    if p["prior"] != "none" or p["epsilon"] > 0:
      raise ValueError("parameters 'prior' and 'epsilon' need the compiled engine, which cannot"
                       f" run this search ({reason or 'the Python engine was asked for'});"
                       " allowed here: prior='none', epsilon=0")
    return None

  def _new_compiled_search(self, search_game):
    # Imported here: the compiled search loads numba's kernels, which Sushi Draft never needs.
    from solvers.search.kernels.searches import ISMCTSSearch  # pylint: disable=C0415
    p, model = self.params, self.opponent_model
    return ISMCTSSearch(
        search_game, self.player_id, self._owners(), selection=p["selection"], c=float(p["c"]),
        gamma=float(p["gamma"]), rollout=p["rollout"], epsilon=float(p["epsilon"]),
        prior=None if p["prior"] == "none" else p["prior"], bias=float(p["bias"]),
        model=None if model is None else model.compiled_policy,
        model_in_rollouts=self.model_in_rollouts, clock=self._clock,
        utility_bounds=(self.game.min_utility(), self.game.max_utility()),
        margin=self.objective == "margin", utility=self.rules.utility,
        margin_scale=self._margin_scale, max_depth=self.game.max_game_length(),
        seed=self.stream_seed)

  @property
  def engine(self) -> str:
    """"compiled" or "python": the engine this bot searches with."""
    return "python" if self._compiled is None else "compiled"

  def policy_at(self, table) -> Policy:
    """The distribution this bot's move is drawn from, after a fresh search: one-hot on the most
    visited action with `final=visits`, the root's mixed strategy with `mixed`."""
    policy = self.search_table(table).final_policy(self.params["final"])
    if self.params["final"] == "visits":
      best = max(policy, key=lambda ap: ap[1])[0]
      return [(action, float(action == best)) for action, _ in policy]
    return policy

  # ----- search

  def search(self, state: pyspiel.State) -> Bandit:
    """Runs the search from `state` (either form of the game); returns the bandit of this bot's
    player at the root, whose statistics hold the answer."""
    return self.search_table(self.table(state))

  def search_table(self, table) -> Bandit:
    """`search` from a simultaneous node given as the rules' table."""
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    owners = self._owners()
    roots = [_Node(self.rules.num_players) for _ in owners]
    root_bandit = roots[0].bandits[self.player_id] = self._new_bandit()
    if len(legal) == 1:  # nothing to search: a bandit that knows only this action
      action, probability = root_bandit.select(legal, self._random)
      root_bandit.update(action, 0.0, probability)
      return root_bandit
    if self._compiled is not None:
      compiled = self._compiled
      root_bandit.load(*compiled.search(compiled.game.core.encode(table),
                                        int(self.params["iterations"]), self.params["seconds"]))
      return root_bandit
    seconds = self.params["seconds"]
    if seconds > 0:
      deadline = self._clock() + seconds
      while True:
        self._iterate(table, owners, roots)
        if self._clock() >= deadline:
          break
    else:
      for _ in range(int(self.params["iterations"])):
        self._iterate(table, owners, roots)
    return root_bandit

  def _owners(self) -> list[int]:
    """The players owning a tree, the searching player first."""
    if self.tree == "single" or self.opponent_model is not None:
      return [self.player_id]
    n = self.rules.num_players
    return [self.player_id] + [p for p in range(n) if p != self.player_id]

  def _iterate(self, table, owners: list[int], roots: list[_Node]) -> None:
    """One iteration: determinize, descend the trees until a new node, play out, update."""
    rules, dynamics, rng, me = self.rules, self.dynamics, self._random, self.player_id
    uniform = rng.random
    n = rules.num_players
    model = self.opponent_model
    tree_of = [owners.index(p) if p in owners else 0 for p in range(n)]  # SO: all in tree 0
    legal_actions, play, observation = dynamics.legal_actions, dynamics.play, dynamics.observation
    world = dynamics.determinize(rules, table, me, uniform)
    nodes = list(roots)
    path = []
    while True:
      joint = []
      for p in range(n):
        if model is not None and p != me:
          joint.append(draw_action(model(rules, world, p), uniform))
          continue
        node = nodes[tree_of[p]]
        bandit = node.bandits[p]
        if bandit is None:
          bandit = node.bandits[p] = self._new_bandit()
        action, probability = bandit.select(legal_actions(rules, world, p), rng)
        joint.append(action)
        path.append((bandit, p, action, probability))
      before, world = world, dynamics.skip_chance(rules, play(rules, world, joint), uniform)
      if world.actor == TERMINAL:
        utilities = dynamics.returns(rules, world)
        break
      expanded = False
      for t, owner in enumerate(owners):
        key = observation(rules, before, joint, world, owner)
        child = nodes[t].children.get(key)
        if child is None:
          child = nodes[t].children[key] = _Node(n)
          expanded = True
        nodes[t] = child
      if expanded:
        utilities = rollouts.rollout(dynamics, rules, world, self._rollout_policies(), uniform)
        break
    rewards = self._rewards(utilities)
    for bandit, p, action, probability in path:
      bandit.update(action, rewards[p], probability)

  def _rewards(self, utilities) -> list[float]:
    """Each player's reward in [0, 1]: the utility scaled by its bounds, or with
    `objective=margin` the margin, `_margin_scale` points to one half, clipped."""
    if self.objective == "utility":
      return [(u - self._offset) * self._scale for u in utilities]
    margin = margins(utilities) if self.rules.utility == "score" else utilities
    half = 2.0 * self._margin_scale
    return [min(1.0, max(0.0, 0.5 + m / half)) for m in margin]

  def _rollout_policies(self) -> list[rollouts.RolloutPolicy]:
    policies = [self._rollout] * self.rules.num_players
    if self.opponent_model is not None and self.model_in_rollouts:
      modelled = self._modelled_policy
      policies = [policy if p == self.player_id else modelled for p, policy in enumerate(policies)]
    return policies

  def _modelled_policy(self, rules, table, player: int, uniform: Uniform) -> int:
    return draw_action(self.opponent_model(rules, table, player), uniform)


class SOISMCTSBot(ISMCTSBot):
  """Single-observer ISMCTS: one tree over the searching player's information sets."""
  tree = "single"


class MOISMCTSBot(ISMCTSBot):
  """Multiple-observer ISMCTS: one tree per player over its own information sets."""
  tree = "multiple"
