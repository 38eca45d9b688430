"""Solvers for one determinized world of Sushi Go, for Perfect Information Monte Carlo.

A world is a `rules.Table` with every hand known (`knowledge.determinize`). Each solver returns,
for the searching player, a value per legal action and a policy (`WorldResult`); `pimc.py`
averages them. Worlds are valued by the game's utility, `utility=score` replaced by the margin in
every solver (the zero-sum solvers need it), and `win` plus `WIN_TIE_BREAK` times the margin.

Solvers (`kind`): `smmcts` (decoupled bandits, `selection.py`; used for every kind while the
searcher holds more than `exact_threshold` cards), `exact` (two players: backward induction over
the round, each node a zero-sum matrix game solved by LP, transpositions memoised), `paranoid` (the
searcher against the coalition of the others, by LP) and `maxn` (3+ players: each node a pure
equilibrium by iterated best response, `_pure_equilibrium`). Matrix-game solvers give each root
action's value against the opponents' optimal strategy and the maximin policy; SM-MCTS its bandit
means and mixed policy. Beyond the horizon: rollouts (`_Leaves`). The rest: docs/search.md,
"Perfect Information Monte Carlo".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from solvers.search import matrix_game, rollouts, selection
from sushigo_spiel.compiled.utilities import WIN_TIE_BREAK
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL, margins
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS

KINDS = ("smmcts", "exact", "paranoid", "maxn")
_MAXN_SWEEPS_PER_PLAYER = 10


class WorldResult(NamedTuple):
  """The searcher's value for each legal action (objective units) and its policy in one world."""
  values: dict[int, float]
  policy: dict[int, float]


class CoreRollouts(NamedTuple):
  """Rollouts in Sushi Go's compiled core: `policies` (a `SushiGoPolicies` on the core) playing
  the rollout policy `name` with its parameter array `parameters`, on the stream state `stream`."""
  policies: object
  name: str
  parameters: np.ndarray | None
  stream: np.ndarray


class Settings(NamedTuple):
  """How worlds are solved (see the module docstring)."""
  kind: str
  exact_threshold: int  # tree search when the searcher holds at most this many cards
  depth: int  # turns searched by the tree solvers; 0 = to the end of the round
  rollouts: int  # rollouts per estimate beyond the tree solvers' horizon
  iterations: int  # SM-MCTS iterations per world
  rollout_policy: rollouts.RolloutPolicy
  bandit_factory: Callable[[], selection.Bandit]
  # Rollouts beyond the tree solvers' horizon in the compiled core, when it has a kernel for the
  # rollout policy; None: in Python, by `rollout_policy`.
  core_rollouts: CoreRollouts | None = None


def objective(rules: R.Rules, returns: Sequence[float]) -> list[float]:
  """The solvers' objective per player from the game's returns: the margin under
  `utility=score`, the returns otherwise (under `utility=win` see `final_values`)."""
  if rules.utility != "score":
    return list(returns)
  return margins(returns)


def final_values(rules: R.Rules, returns: Sequence[float],
                 final_scores: Callable[[], Sequence[float]]) -> list[float]:
  """The solvers' objective per player at the end of a game: `objective` of its `returns`, plus
  under `utility=win` WIN_TIE_BREAK times the margin of the scores `final_scores()` gives."""
  values = objective(rules, returns)
  if rules.utility != "win":
    return values
  return [v + WIN_TIE_BREAK * m for v, m in zip(values, margins(final_scores()))]


def table_values(rules: R.Rules, table: R.Table) -> list[float]:
  """`final_values` of a finished table."""
  return final_values(rules, R.returns(rules, table), lambda: R.scores(rules, table))


def check_kind(kind: str, num_players: int) -> None:
  if kind not in KINDS:
    raise ValueError(f"world solver {kind!r} is unknown; allowed: {', '.join(KINDS)}")
  if kind == "exact" and num_players != 2:
    raise ValueError(f"world solver 'exact' needs 2 players, the game has {num_players}; allowed"
                     " with more players: paranoid, maxn, smmcts")
  if kind == "maxn" and num_players < 3:
    raise ValueError("world solver 'maxn' needs 3 or more players; with 2 players use 'exact'")


def solve_world(rules: R.Rules, table: R.Table, player: int, settings: Settings,
                rng: np.random.Generator) -> WorldResult:
  """Solves the world `table` (a simultaneous node, every hand known) for `player`."""
  kind = settings.kind
  if kind != "smmcts" and sum(table.hands[player]) <= settings.exact_threshold:
    return TreeSearch(rules, player, settings, rng).solve(table)
  return SMMCTS(rules, settings, rng).solve(table, player)


class _Leaves:
  """Estimates beyond a tree search's horizon: exact at the end of the game, rollouts before."""

  def __init__(self, rules: R.Rules, settings: Settings, rng: np.random.Generator):
    self.rules, self.settings, self.uniform = rules, settings, rng.random
    self.additive = rules.utility != "win"
    self._future: dict = {}

  def rollout_mean(self, table: R.Table) -> np.ndarray:
    rules, settings = self.rules, self.settings
    total = np.zeros(rules.num_players)
    core = settings.core_rollouts
    if core is not None:
      position = core.policies.core.encode(table)
      for _ in range(settings.rollouts):
        finished = position.copy()
        total += final_values(rules, core.policies.playout(finished, core.stream, core.name,
                                                           core.parameters),
                              lambda: core.policies.core.scores(finished))
      return total / settings.rollouts
    policies = [settings.rollout_policy] * rules.num_players
    for _ in range(settings.rollouts):
      total += table_values(rules, rollouts.playout(DYNAMICS, rules, table, policies,
                                                    self.uniform))
    return total / settings.rollouts

  def round_end(self, table: R.Table) -> np.ndarray:
    """The value of a table between rounds (or at the end of the game). Rounds are linked only
    through Puddings and the deck, which is the same at every round end of one world: with an
    additive objective the future beyond the points so far is memoised per Pudding counts; with
    `win`, per points and Puddings."""
    rules = self.rules
    if table.actor == TERMINAL:
      return np.array(table_values(rules, table))
    robot_puddings = table.robot.puddings if table.robot else -1
    if self.additive:
      so_far = np.array(margins(R.totals(table)))
      key = (table.puddings, robot_puddings)
      if key not in self._future:
        self._future[key] = self.rollout_mean(table) - so_far
      return so_far + self._future[key]
    key = (tuple(R.totals(table)), table.puddings, robot_puddings)
    if key not in self._future:
      self._future[key] = self.rollout_mean(table)
    return self._future[key]


class TreeSearch:
  """Backward induction over the rest of the round for `exact`, `paranoid` and `maxn`."""

  def __init__(self, rules: R.Rules, player: int, settings: Settings,
               rng: np.random.Generator):
    self.rules, self.player, self.settings = rules, player, settings
    self.leaves = _Leaves(rules, settings, rng)
    self._memo: dict = {}
    self._round = -1

  def solve(self, table: R.Table) -> WorldResult:
    self._round = table.round
    legal, values = self._children_values(table, self.settings.depth or math.inf)
    mine = legal[self.player]
    if self.settings.kind == "maxn":
      profile = _pure_equilibrium(values)
      others = list(profile)
      rows = []
      for index in range(len(mine)):
        others[self.player] = index
        rows.append(values[tuple(others)][self.player])
      return WorldResult(dict(zip(mine, rows)),
                         {a: float(i == profile[self.player]) for i, a in enumerate(mine)})
    payoff = self._searcher_matrix(values)
    solution = matrix_game.solve(payoff)
    return WorldResult(dict(zip(mine, (payoff @ solution.column).tolist())),
                       dict(zip(mine, solution.row.tolist())))

  def _searcher_matrix(self, values: np.ndarray) -> np.ndarray:
    """The searcher's objective with its actions as rows, the others' joint actions as columns."""
    mine = np.moveaxis(values[..., self.player], self.player, 0)
    return mine.reshape(mine.shape[0], -1)

  def _value(self, table: R.Table, depth: float) -> np.ndarray:
    """The value vector (objective per player) of `table` under the solver's kind."""
    if table.actor == TERMINAL or table.round != self._round:
      return self.leaves.round_end(table)
    if table.actor == CHANCE:  # the robot's draw within the round
      return sum(p * self._value(R.apply_chance(self.rules, table, outcome), depth)
                 for outcome, p in R.chance_outcomes(self.rules, table))
    key = table._replace(log=())
    if key in self._memo:
      return self._memo[key]
    if depth <= 0:
      value = self.leaves.rollout_mean(table)
    else:
      _, values = self._children_values(table, depth)
      if self.settings.kind == "maxn":
        value = values[_pure_equilibrium(values)]
      else:
        value = np.zeros(self.rules.num_players)
        value[self.player] = matrix_game.solve(self._searcher_matrix(values)).value
    self._memo[key] = value
    return value

  def _children_values(self, table: R.Table, depth: float):
    """Each player's legal actions, and the value vectors of every joint action as an array
    indexed [action index of player 0, ..., of player n-1, player]."""
    rules = self.rules
    legal = [R.legal_actions(rules, table, p) for p in range(rules.num_players)]
    values = np.array([self._value(R.play(rules, table, joint), depth - 1)
                       for joint in itertools.product(*legal)])
    return legal, values.reshape([len(actions) for actions in legal] + [rules.num_players])


def _pure_equilibrium(values: np.ndarray) -> tuple[int, ...]:
  """A pure equilibrium of the game `values[a_0, ..., a_{n-1}, player]` by iterated best response,
  as a tuple of action indices: from each player's best action against the others playing
  uniformly, each player in turn switches to its best reply until nobody wants to (ties keep the
  current action, then take the lower id); after `_MAXN_SWEEPS_PER_PLAYER * n` sweeps without one
  (there may be none in pure strategies) the last profile is used. A pure profile keeps a node's
  players' values consistent with one joint action, which a mixed solution per player would not;
  the price is that a node without a pure equilibrium is valued arbitrarily."""
  n = values.shape[-1]
  profile = []
  for p in range(n):
    others = tuple(axis for axis in range(n) if axis != p)
    profile.append(int(np.argmax(values[..., p].mean(axis=others))))
  for _ in range(_MAXN_SWEEPS_PER_PLAYER * n):
    changed = False
    for p in range(n):
      index = list(profile)
      index[p] = slice(None)
      replies = values[tuple(index) + (p,)]
      if replies[profile[p]] < replies.max():
        profile[p] = int(np.argmax(replies))
        changed = True
    if not changed:
      break
  return tuple(profile)


class _Node:
  """A simultaneous node of the SM-MCTS tree: legal actions, one bandit per player, children by
  joint action (and by the deal when the joint action ends the round)."""

  __slots__ = ("legal", "bandits", "children")

  def __init__(self, rules: R.Rules, table: R.Table, factory):
    self.legal = [R.legal_actions(rules, table, p) for p in range(rules.num_players)]
    self.bandits = [factory() for _ in range(rules.num_players)]
    self.children: dict = {}


class SMMCTS:
  """Simultaneous-move MCTS on one world with decoupled selection (see the module docstring).

  Rewards handed to the bandits lie in [0, 1]: the win value as it is (`table_values`: outside
  [0, 1] by at most the tie-break), margins mapped linearly with `margin_scale` points of margin
  to one half (clipped), a scale at which typical margins use most of the range rather than a
  sliver of the loose score bounds.
  """

  def __init__(self, rules: R.Rules, settings: Settings, rng: np.random.Generator):
    self.rules, self.settings, self.rng = rules, settings, rng
    self.margin_scale = float(rules.rounds * rules.hand_size * 2)
    self._policies = [settings.rollout_policy] * rules.num_players

  def solve(self, table: R.Table, player: int) -> WorldResult:
    root = _Node(self.rules, table, self.settings.bandit_factory)
    for _ in range(self.settings.iterations):
      self._simulate(root, table)
    bandit = root.bandits[player]
    values = {a: self._from_reward(bandit.mean(a)) for a in root.legal[player]
              if bandit.visits(a)}
    return WorldResult(values, dict(bandit.final_policy("mixed")))

  def _reward(self, value: float) -> float:
    if self.rules.utility == "win":
      return value
    return min(1.0, max(0.0, 0.5 + value / (2.0 * self.margin_scale)))

  def _from_reward(self, reward: float) -> float:
    if self.rules.utility == "win":
      return reward
    return (reward - 0.5) * 2.0 * self.margin_scale

  def _simulate(self, node: _Node, table: R.Table) -> list[float]:
    rules, rng = self.rules, self.rng
    choices = [bandit.select(legal, rng) for bandit, legal in zip(node.bandits, node.legal)]
    joint = [action for action, _ in choices]
    child_table = R.play(rules, table, joint)
    key = tuple(joint)
    if child_table.actor == CHANCE:
      child_table = R.skip_chance(rules, child_table, rng.random)
      key = (key, child_table.hands, child_table.robot)
    if child_table.actor == TERMINAL:
      values = table_values(rules, child_table)
    else:
      child = node.children.get(key)
      if child is None:
        node.children[key] = _Node(rules, child_table, self.settings.bandit_factory)
        values = table_values(rules, rollouts.playout(DYNAMICS, rules, child_table,
                                                      self._policies, rng.random))
      else:
        values = self._simulate(child, child_table)
    for bandit, (action, probability), value in zip(node.bandits, choices, values):
      bandit.update(action, self._reward(value), probability)
    return values
