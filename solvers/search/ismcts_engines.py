"""The two engines of `ismcts.ISMCTSBot` behind one interface, `RootSearch.search(table,
iterations, seconds) -> Bandit`: a fresh search from a simultaneous node given as the rules'
table, for `iterations` iterations or, when `seconds` > 0, until that much time has passed on the
engine's clock; the answer is the searching player's bandit at the root.

  PythonISMCTS    the readable reference: the algorithm of docs/search.md (determinize, descend
                  the trees of information sets, expand, roll out on the rules' tables, back up)
  CompiledISMCTS  the same iterations in numba kernels (`solvers.search.kernels.ismcts`) on the
                  game's compiled core, tested against PythonISMCTS: driven by one xoshiro stream
                  both keep bit-identical root statistics (tests/test_compiled_search.py)

An opponent model (`opponent_model.OpponentModel`) draws every other player's choices, in the tree
and (with `model_in_rollouts`) in rollouts; only the searching player then keeps bandits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

import pyspiel

from solvers.search import rollouts
from solvers.search.kernels.game import SearchGame
from solvers.search.opponent_model import OpponentModel
from solvers.search.selection import Bandit
from sushigo_spiel.drafting.dynamics import TERMINAL, margins
from sushigo_spiel.drafting.sampling import Uniform, draw_action


class RootSearch(Protocol):
  """What the bot asks of an engine (see the module docstring)."""

  def search(self, table, iterations: int, seconds: float) -> Bandit:
    ...


class Objective(NamedTuple):
  """What the bandits learn, as rewards in [0, 1]: the utility less `offset` times `scale` (its
  bounds mapped to [0, 1]) plus `tie_break` times the margin (the win objective's
  `compiled.utilities.WIN_TIE_BREAK`, which may take a reward that far outside [0, 1]; 0 for the
  others), or with `margin` the margin (taken from the scores when `from_scores`),
  `margin_scale` points of margin to one half, clipped."""
  margin: bool
  from_scores: bool
  offset: float
  scale: float
  margin_scale: float
  tie_break: float

  def rewards(self, utilities: Sequence[float], final_margins: Sequence[float]) -> list[float]:
    """The rewards of a finished game's `utilities`, its players' margins `final_margins`."""
    if not self.margin:
      return [(u - self.offset) * self.scale + self.tie_break * m
              for u, m in zip(utilities, final_margins)]
    half = 2.0 * self.margin_scale
    return [min(1.0, max(0.0, 0.5 + m / half))
            for m in (margins(utilities) if self.from_scores else utilities)]


class Searcher(NamedTuple):
  """What both engines search for: `player`, the owners of the trees (one per owner, `player`
  first), fresh bandits, what they learn, and the clock a time budget runs on."""
  player: int
  owners: tuple[int, ...]
  new_bandit: Callable[[], Bandit]
  objective: Objective
  clock: Callable[[], float]


class _Node:
  """An information set of the tree's owner: a bandit per player choosing here, and children
  keyed by the owner's observation of a step."""

  __slots__ = ("bandits", "children")

  def __init__(self, num_players: int):
    self.bandits: list[Bandit | None] = [None] * num_players
    self.children: dict[tuple, _Node] = {}


class PythonISMCTS:
  """The reference search of `searcher` in `game` (a simultaneous drafting game), rollouts by
  `rollout` (and `model` with `model_in_rollouts`), every uniform drawn from `rng` (any object
  with `random()` in [0, 1), public so that a test can drive it by the compiled engine's stream)."""

  def __init__(self, game: pyspiel.Game, searcher: Searcher, rollout: rollouts.RolloutPolicy,
               model: OpponentModel | None, model_in_rollouts: bool, rng):
    self.rules, self.dynamics, self.searcher = game.rules, game.dynamics, searcher
    self.model, self.rng = model, rng
    self.rollout_policies = [rollout] * self.rules.num_players
    if model is not None and model_in_rollouts:
      self.rollout_policies = [rollout if p == searcher.player else self._modelled
                               for p in range(self.rules.num_players)]

  def search(self, table, iterations: int, seconds: float) -> Bandit:
    searcher, clock = self.searcher, self.searcher.clock
    roots = [_Node(self.rules.num_players) for _ in searcher.owners]
    root_bandit = roots[0].bandits[searcher.player] = searcher.new_bandit()
    if seconds > 0:
      deadline = clock() + seconds
      while True:
        self._iterate(table, roots)
        if clock() >= deadline:
          break
    else:
      for _ in range(iterations):
        self._iterate(table, roots)
    return root_bandit

  def _iterate(self, table, roots: list[_Node]) -> None:
    """One iteration: determinize, descend the trees until a new node, play out, update."""
    rules, dynamics, rng, model = self.rules, self.dynamics, self.rng, self.model
    me, owners, new_bandit = self.searcher.player, self.searcher.owners, self.searcher.new_bandit
    uniform, n = rng.random, rules.num_players
    tree_of = [owners.index(p) if p in owners else 0 for p in range(n)]  # SO: all in tree 0
    legal_actions, play, observation = dynamics.legal_actions, dynamics.play, dynamics.observation
    world = dynamics.determinize(rules, table, me, uniform)
    nodes = list(roots)
    path = []
    while True:
      joint = []
      for p in range(n):
        if model is not None and p != me:
          joint.append(draw_action(model.policy(rules, world, p), uniform))
          continue
        node = nodes[tree_of[p]]
        bandit = node.bandits[p]
        if bandit is None:
          bandit = node.bandits[p] = new_bandit()
        action, probability = bandit.select(legal_actions(rules, world, p), rng)
        joint.append(action)
        path.append((bandit, p, action, probability))
      before, world = world, dynamics.skip_chance(rules, play(rules, world, joint), uniform)
      if world.actor == TERMINAL:
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
        world = rollouts.playout(dynamics, rules, world, self.rollout_policies, uniform)
        break
    objective = self.searcher.objective
    final_margins = margins(dynamics.scores(rules, world)) if objective.tie_break \
        else [0.0] * n
    rewards = objective.rewards(dynamics.returns(rules, world), final_margins)
    for bandit, p, action, probability in path:
      bandit.update(action, rewards[p], probability)

  def _modelled(self, rules, table, player: int, uniform: Uniform) -> int:
    return draw_action(self.model.policy(rules, table, player), uniform)


class CompiledISMCTS:
  """The compiled engine: `kernels.searches.ISMCTSSearch` of `searcher` on `search_game`, with
  the bot's checked `params` (selection, c, gamma, rollout, epsilon, prior, bias), `model` the
  name of the opponents' compiled policy or None, games at most `max_depth` steps long, and a
  stream seeded with `seed`; its root statistics are loaded into a fresh bandit."""

  def __init__(self, search_game: SearchGame, searcher: Searcher, params: dict,
               model: str | None, model_in_rollouts: bool, max_depth: int, seed: int):
    # Imported here: the compiled search loads numba's search kernels, which Python never needs.
    from solvers.search.kernels import ismcts  # pylint: disable=C0415
    from solvers.search.kernels.bandits import Selection  # pylint: disable=C0415
    from solvers.search.kernels.playing import NO_POLICY, PlayoutPolicies  # pylint: disable=C0415
    from solvers.search.kernels.searches import ISMCTSSearch  # pylint: disable=C0415

    def code(name: str | None) -> int:
      return NO_POLICY if name is None else search_game.policy_code(name)

    player, objective = searcher.player, searcher.objective
    settings = ismcts.Settings(
        selection=Selection.named(params["selection"], params["c"], params["gamma"],
                                  params["bias"]),
        playout=PlayoutPolicies(code(params["rollout"]), float(params["epsilon"]),
                                code(model if model_in_rollouts else None), player),
        players=search_game.core.num_players, searcher=player,
        prior=code(None if params["prior"] == "none" else params["prior"]), model=code(model),
        margin=objective.margin, from_scores=objective.from_scores, offset=objective.offset,
        scale=objective.scale, margin_scale=objective.margin_scale,
        tie_break=objective.tie_break, max_depth=max_depth,
        actions=search_game.core.rules.num_distinct_actions)
    self.compiled_search = ISMCTSSearch(search_game, searcher.owners, settings, seed,
                                        searcher.clock)
    self.new_bandit = searcher.new_bandit

  def search(self, table, iterations: int, seconds: float) -> Bandit:
    bandit = self.new_bandit()
    compiled = self.compiled_search
    bandit.load(*compiled.search(compiled.game.core.encode(table), iterations, seconds))
    return bandit
