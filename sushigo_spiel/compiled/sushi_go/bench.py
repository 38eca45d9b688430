"""Sushi Go's benchmarks, the compiled core beside the Python engine, timed as `compiled.bench`
times them (CPU time, after compiling and a warm-up; best and median of repeats).

`report(rollouts.playout, rollouts.RandomPolicy)`: random playouts per second of the standard game
(`CompiledSushiGo.playout_many`). `heuristic_report` times the heuristic baseline: its decisions at
the same positions (the Python bot's `policy` of `table_view` against the heuristic kernels) and
whole self-play games, with the Python engine's heuristic rollout policy passed in:

  heuristic_report(rollouts.playout, lambda players: rollouts.make_rollout_policy(
      "heuristic", pyspiel.load_game("python_sushi_go", {"players": players})))

The caller passes the Python engine in: the game layer does not import the solvers.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import numpy as np

from sushigo_spiel.compiled import bench
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import policies
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS


def report(playout: Callable, random_policy: Callable, players=(2, 5), file=sys.stdout) -> None:
  """Prints random full games per second for the core and the Python engine, and their ratio."""
  bench.report("the standard game", CompiledSushiGo, DYNAMICS, playout, random_policy, players,
               file)


# --------------------------------------------------------------------------------------------
# The heuristic baseline


def sample_decisions(compiled: CompiledSushiGo, count: int, seed: int = 0) -> list[tuple]:
  """`count` decisions (table, position, player) of seeded random games, every player's at each
  node."""
  rules, rng = compiled.rules, random.Random(seed)
  found = []
  while len(found) < count:
    table = R.initial_table(rules)
    while table.actor != TERMINAL and len(found) < count:
      if table.actor == CHANCE:
        table = R.skip_chance(rules, table, rng.random)
        continue
      pos = compiled.encode(table)
      found += [(table, pos, p) for p in range(rules.num_players)][:count - len(found)]
      table = R.play(rules, table, [rng.choice(R.legal_actions(rules, table, p))
                                    for p in range(rules.num_players)])
  return found


def heuristic_decision_rates(rollout_policy, players: int, decisions: int = 400,
                             repeats: int = 5) -> tuple[bench.Rate, bench.Rate]:
  """Heuristic decisions per second on the same positions, (core, Python engine): the action of
  `rollout_policy` (the Python engine's heuristic rollout policy: `HeuristicBot.policy` of the
  player's `table_view`, then its action) and of the core's policy with the same parameters
  (`rollout_policy.compiled_policy`, `compiled_parameters()`), each called from Python once a
  decision."""
  compiled = CompiledSushiGo.from_params(players=players)
  code, params = _compiled(rollout_policy)
  sample = sample_decisions(compiled, decisions)
  legal = np.empty(compiled.rules.num_distinct_actions, dtype=np.int64)
  rules, spec, rng = compiled.rules, compiled.spec, new_state(0)

  def core_decisions(seed):
    for _, pos, player in sample:
      policies.policy_action(spec, pos, player, rng, legal, code, params)

  def python_decisions(seed):
    uniform = random.Random(seed).random
    for table, _, player in sample:
      rollout_policy(rules, table, player, uniform)

  return (bench.measure(core_decisions, decisions, repeats),
          bench.measure(python_decisions, decisions, repeats))


def heuristic_game_rates(rollout_policy, playout: Callable, players: int, games: int = 2000,
                         python_games: int = 20, repeats: int = 5) -> tuple[bench.Rate, bench.Rate]:
  """Heuristic self-play games per second, (core, Python engine): whole standard games, every
  player by `rollout_policy` (with `playout(dynamics, rules, table, policies, uniform)` in Python)
  and by the core's same policy."""
  compiled = CompiledSushiGo.from_params(players=players)
  code, params = _compiled(rollout_policy)
  rules, out = compiled.rules, np.zeros((games, players))

  def core_games(seed):
    policies.playout_many(compiled.spec, games, seed, code, params, out)

  def python_games_played(seed):
    uniform = random.Random(seed).random
    for _ in range(python_games):
      playout(DYNAMICS, rules, R.initial_table(rules), [rollout_policy] * players, uniform)

  return (bench.measure(core_games, games, repeats),
          bench.measure(python_games_played, python_games, repeats))


def heuristic_report(playout: Callable, heuristic_policy: Callable[[int], object],
                     players=(2, 5), file=sys.stdout) -> None:
  """Prints the heuristic's decisions and self-play games per second, the core beside the Python
  engine, and their ratio. `heuristic_policy(players)` is the Python engine's heuristic rollout
  policy for the standard game with that many players
  (`rollouts.make_rollout_policy("heuristic", game)`), `playout` the engine's
  (`rollouts.playout`)."""
  print("the heuristic baseline on the standard game, per second on one core\n"
        "(CPU time, after compiling; best and median of repeats)", file=file)
  print(f"{'players':>7}  {'what':<9}  {'core best':>10}  {'median':>10}  {'python best':>11}"
        f"  {'median':>8}  {'ratio':>6}", file=file)
  for count in players:
    policy = heuristic_policy(count)
    for what, (core, python) in (("decisions", heuristic_decision_rates(policy, count)),
                                 ("games", heuristic_game_rates(policy, playout, count))):
      ratio = core.median / python.median
      print(f"{count:>7}  {what:<9}  {core.best:>10,.0f}  {core.median:>10,.0f}"
            f"  {python.best:>11,.0f}  {python.median:>8,.0f}  {ratio:>5.0f}x", file=file)


def _compiled(rollout_policy) -> tuple[int, np.ndarray]:
  """The policy code and parameter array of a Python rollout policy's compiled twin."""
  return policies.POLICIES[rollout_policy.compiled_policy], rollout_policy.compiled_parameters()
