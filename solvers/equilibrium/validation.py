"""One check of every policy that enters a measure or a bot: a distribution over the legal actions.

A policy is accepted at an information set only if its probabilities are finite, non-negative,
zero on every illegal action and sum to 1 over the legal ones within `TOLERANCE`. Anything else
is a `PolicyError` naming the player, the information state (one line, a Python literal) and the
offending actions; nothing is dropped or renormalised, so a measure never reports a figure for a
policy other than the one it was given.

  check_answer(answer, legal, player, state)  one information set's answer
  validate_policy(game_or_tree, policy)       every information set a policy holds (and, with a
                                              `GameTree`, its answer at every one of the tree)
  load_checked_policy(path)                   `policies.load_policy`, then `validate_policy`
  load_checked_blueprint(path)                `blueprint.load_blueprint`, then its played weights
  information_state(game, table, player)      the information state string at a rules table
`GameTree.check_distributions` checks the array form with the same tolerance and messages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

TOLERANCE = 1e-9
ALLOWED = ("allowed: finite, non-negative probabilities, zero on the actions that are not legal,"
           f" summing to 1 over the legal actions within {TOLERANCE:g}")
TREE_AT_LOAD = 20_000  # nodes: a saved policy of a game this small is read over its whole tree
_LISTED = 8  # offending slots named in a message about a weight table


class PolicyError(ValueError):
  """A policy that is not a distribution over the legal actions at some information set."""


def information_state(game: pyspiel.Game, table, player: int) -> str:
  """The perfect-recall information state string of `player` at a rules table of `game`."""
  observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
  return observer.string_from_table(table, player)


def check_answer(answer: Mapping[int, float], legal: Sequence[int], player: int, state: str,
                 source: str = "the policy") -> Mapping[int, float]:
  """`answer` (action -> probability) if it is a distribution over `legal`; else a PolicyError
  naming `source`, the player, the information state string `state` and the offending actions."""
  problem = answer_problem(answer, legal)
  if problem:
    raise PolicyError(f"{source} is not a distribution over the legal actions of player {player}"
                      f" at information state {state!r}: {problem}; {ALLOWED}")
  return answer


def answer_problem(answer: Mapping[int, float], legal: Sequence[int]) -> str | None:
  """What is wrong with `answer` as a distribution over `legal`, in words, or None."""
  legal_set = set(legal)
  illegal = {a: p for a, p in answer.items() if a not in legal_set and p != 0}
  if illegal:
    return (f"probability {_numbers(illegal)} on action(s) {sorted(illegal)}, not legal there"
            f" (legal: {list(legal)})")
  invalid = {a: p for a, p in answer.items() if not (math.isfinite(p) and p >= 0)}
  if invalid:
    return f"action(s) {sorted(invalid)} have probabilities {_numbers(invalid)}"
  total = math.fsum(answer.get(a, 0.0) for a in legal)
  if abs(total - 1.0) > TOLERANCE:
    given = {a: answer.get(a, 0.0) for a in legal}
    return f"the legal actions {list(legal)} have probabilities {_numbers(given)}, summing to" \
        f" {total:.12g}"
  return None


def _numbers(values: Mapping[int, float]) -> str:
  return "{" + ", ".join(f"{a}: {p:.12g}" for a, p in values.items()) + "}"


def validate_policy(game_or_tree, policy):
  """`policy` if it is a distribution over the legal actions at every information set it holds
  (see the module docstring); else a PolicyError. `game_or_tree` is the game the policy is for,
  or its `GameTree`, over whose every information set the policy is then read too."""
  from solvers.equilibrium import abstraction, blueprint  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium.game_tree import GameTree  # pylint: disable=import-outside-toplevel
  if isinstance(game_or_tree, GameTree):  # first: its refusals name an information state
    from solvers.equilibrium.tree_policies import policy_array  # pylint: disable=C0415
    policy_array(game_or_tree, policy)
  if isinstance(policy, blueprint.BlueprintPolicy):
    check_weights(policy.averages, "the blueprint's weight table")
  elif isinstance(policy, abstraction.LiftedPolicy):
    check_strategy(policy)
  elif isinstance(policy, policy_lib.TabularPolicy):
    check_tabular(policy)
  return policy


def check_weights(weights: np.ndarray, what: str, slots: np.ndarray | None = None) -> None:
  """A PolicyError unless every weight is finite and non-negative (a blueprint's table: its
  actions' weights are normalised at each decision, so a negative or NaN weight is no policy).
  `slots`: the table slot of each weight, when `weights` holds only some."""
  bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
  if bad.size:
    named = np.arange(len(weights)) if slots is None else slots
    shown = ", ".join(f"{int(named[s])}: {weights[s]:.6g}" for s in bad[:_LISTED])
    raise PolicyError(f"{what} has {bad.size} weight(s) that are negative or not finite (slot:"
                      f" weight {shown}{', ...' if bad.size > _LISTED else ''}); allowed: finite,"
                      " non-negative weights")


def check_strategy(lifted) -> None:
  """Every key of a saved abstract strategy (`abstraction.LiftedPolicy`): its actions distinct
  actions of the game, its probabilities finite, non-negative and summing to 1 within
  `TOLERANCE` (with keys that do not fix the action set, `fixed_actions`, summing to more than
  0: they are renormalised over the actions legal at each position). A key names no state, so a
  failure names the key, and the player where the key holds it."""
  num_actions = lifted.game.num_distinct_actions()
  for key, (actions, probabilities) in lifted.strategy.items():
    values = np.asarray(probabilities, np.float64)
    problem = None
    if len(set(actions)) != len(actions) or len(actions) != len(values):
      problem = f"actions {list(actions)} with {len(values)} probabilities"
    elif any(not 0 <= a < num_actions for a in actions):
      problem = f"action(s) {[a for a in actions if not 0 <= a < num_actions]} outside the game's" \
          f" actions 0..{num_actions - 1}"
    elif lifted.abstraction.fixed_actions:
      bad = [a for a, p in zip(actions, values) if not (math.isfinite(p) and p >= 0)]
      if bad or values.sum() <= 0:
        problem = f"probabilities {_numbers(dict(zip(actions, values.tolist())))}"
    else:
      problem = answer_problem(dict(zip(actions, values.tolist())), actions)
    if problem:
      raise PolicyError(f"the policy is not a distribution at abstract key {key!r}"
                        f"{_key_player(key)} ({lifted.abstraction.name} abstraction): {problem};"
                        f" {ALLOWED}")


def _key_player(key) -> str:
  """", player P" for keys that begin with their player (the identity abstraction's do)."""
  if isinstance(key, tuple) and key and isinstance(key[0], int):
    return f" (player {key[0]})"
  return ""


def check_tabular(tabular: policy_lib.TabularPolicy) -> None:
  """Every row of a `policy.TabularPolicy`, against the legal actions it was built with."""
  for player, strings in enumerate(tabular.states_per_player):
    for string in strings:
      row = tabular.state_lookup[string]
      legal = np.flatnonzero(tabular.legal_actions_mask[row]).tolist()
      values = tabular.action_probability_array[row]
      check_answer({a: float(p) for a, p in enumerate(values) if p != 0}, legal, player, string)


def load_checked_policy(path: str):
  """The policy saved at `path` (`policies.load_policy`: a lifted strategy or a blueprint),
  checked over every key or weight it holds (`validate_policy`) and, for a lifted strategy of a
  game whose tree has at most `TREE_AT_LOAD` nodes (built in a fraction of a second), over every
  information set of that tree, where an action that is not legal is seen."""
  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import blueprint, policies
  from solvers.equilibrium.game_tree import GameTree
  from solvers.equilibrium.tree_size import estimate_tree_nodes
  loaded = policies.load_policy(path)
  if isinstance(loaded, blueprint.BlueprintPolicy):
    return loaded  # `load_blueprint` checked every table of the file
  try:
    if estimate_tree_nodes(loaded.game, stop_above=TREE_AT_LOAD) <= TREE_AT_LOAD:
      validate_policy(GameTree(loaded.game), loaded)
    else:
      validate_policy(loaded.game, loaded)
  except PolicyError as e:
    raise PolicyError(f"{path}: {e}") from None
  return loaded


def load_checked_blueprint(path: str):
  """The blueprint saved at `path` (`blueprint.load_blueprint`, which checks every table of the
  file), and the weights it plays, derived from them (`check_weights`)."""
  from solvers.equilibrium import blueprint  # pylint: disable=import-outside-toplevel
  loaded = blueprint.load_blueprint(path)
  try:
    check_weights(loaded.averages, "the blueprint's weight table")
  except PolicyError as e:
    raise PolicyError(f"{path}: {e}") from None
  return loaded
