"""How big a game's whole tree is, estimated before building it, and the limit on what is built.

Exact methods (`GameTree`, full-width CFR, NashConv) hold every node of the turn-based tree in
memory; the full game's would not fit. So a tree is built only after its size is estimated here,
in well under a second, and a game over the limit is refused with the estimate and the limit
(`check_tree_size`); `GameTree` also stops its walk at the limit. External-sampling MCCFR walks
one player's every action sequence per iteration, a tree of its own (`check_walk_size`).

The estimate is Knuth's (1975): `PROBES` random walks from the root, the product of the branching
factors met estimating each depth's node count without bias. The walks use a fixed seed, so a
game's estimate, and whether it is refused, is the same on every run. Nodes are counted as
`GameTree` counts them (player 0 acts, then player 1 for each of its actions, ...). The rest:
docs/equilibrium.md, "CFR on abstractions".
"""

from __future__ import annotations

import functools
import math
import re
from typing import NamedTuple

import numpy as np
import pyspiel

from sushigo_spiel.drafting.adapter import simultaneous_game
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL

# The most nodes a tree may have by default: the largest reduced game ("large", about 1.9 million
# turn-based nodes) fits, and a tree this size takes about 7 GB while it is built.
MAX_TREE_NODES = 4_000_000
BYTES_PER_NODE = 1_700  # measured peak memory of building a tree, per node ("medium")
PROBES = 400  # random walks per estimate
_SEED = 20260101
FAR_OVER = 1_000  # walks stop once their mean estimate is this many times the limit
REDUCED = "a reduced game (tiny, small, medium, ...)"
_ADVICE = "allowed: {alternatives}, or a higher limit ({raise_limit}) on a machine with the memory"


class TreeTooLarge(ValueError):
  """A game whose tree is over the node limit; the message gives the estimate and the limit."""


def estimate_tree_nodes(game: pyspiel.Game, probes: int = PROBES,
                        stop_above: float = math.inf) -> int:
  """An estimate of the number of nodes of the game's turn-based tree (see the module docstring);
  the walks stop early once their mean is over `stop_above`. A ValueError from the game (a chance
  node with too many outcomes to list) means that the tree cannot be built at all."""
  return _estimate(str(game), None, probes, stop_above)


def estimate_walk_nodes(game: pyspiel.Game, probes: int = PROBES,
                        stop_above: float = math.inf) -> int:
  """An estimate of the nodes one iteration of external-sampling MCCFR visits: for each player in
  turn, every sequence of its own actions, with chance and the others sampled."""
  return sum(_estimate(str(game), player, probes, stop_above)
             for player in range(game.num_players()))


@functools.lru_cache(maxsize=64)
def _estimate(game_string: str, traverser: int | None, probes: int, stop_above: float) -> int:
  drafting = simultaneous_game(pyspiel.load_game(game_string))
  walk = _Walk(drafting.rules, drafting.dynamics, traverser)
  total = 0.0
  for count in range(1, probes + 1):
    total += walk.estimate()
    if total / count > stop_above:
      return math.ceil(total / count)
  return math.ceil(total / probes)


class _Walk:
  """Random walks from the root, each giving an unbiased estimate of the node count. With a
  `traverser`, only its actions branch (the tree an external-sampling iteration visits)."""

  def __init__(self, rules, dynamics, traverser: int | None):
    self.rules, self.dynamics, self.traverser = rules, dynamics, traverser
    self.rng = np.random.default_rng(_SEED)
    self.listed: dict = {}  # chance outcomes by table: the deals near the root recur in every walk

  def estimate(self) -> float:
    """One walk's estimate: the sum over depths of the product of the branching factors above."""
    return self.estimate_parts()[0]

  def estimate_parts(self) -> tuple[float, float, float]:
    """One walk's estimates of the nodes, of the histories (the simultaneous game's nodes:
    chance, decision and terminal) and of the turn-based decision nodes (an upper bound on the
    information sets); the walk draws the same numbers whichever is used."""
    rules, dynamics = self.rules, self.dynamics
    table, width, nodes = dynamics.initial_table(rules), 1.0, 0.0
    histories = decisions = 0.0
    while table.actor != TERMINAL:
      histories += width
      if table.actor == CHANCE:
        outcomes = self._outcomes(table)
        nodes += width
        width *= 1 if self.traverser is not None else len(outcomes)
        table = dynamics.apply_chance(rules, table, outcomes[self.rng.integers(len(outcomes))])
        continue
      actions = [dynamics.legal_actions(rules, table, p) for p in range(rules.num_players)]
      counts = [len(a) for a in actions]
      if self.traverser is None:
        turn_nodes = width * sum(math.prod(counts[:p]) for p in range(len(counts)))
        nodes += turn_nodes
        decisions += turn_nodes
        width *= math.prod(counts)
      else:
        nodes += width
        width *= counts[self.traverser]
      table = dynamics.play(rules, table, [a[self.rng.integers(len(a))] for a in actions])
    return nodes + width, histories + width, decisions

  def _outcomes(self, table) -> list[int]:
    outcomes = self.listed.get(table)
    if outcomes is None:
      outcomes = self.listed[table] = [o for o, _ in self.dynamics.chance_outcomes(self.rules,
                                                                                  table)]
    return outcomes


class TreeSize(NamedTuple):
  """Estimates of a game's turn-based tree: its nodes, its histories (nodes of the simultaneous
  game), its decision nodes (at least one per information set, so a bound on their number) and
  the memory building it takes (`BYTES_PER_NODE` a node)."""
  nodes: int
  histories: int
  decision_nodes: int

  @property
  def memory(self) -> int:
    return self.nodes * BYTES_PER_NODE

  def describe(self) -> str:
    return (f"about {_count(self.histories)} histories, {_count(self.nodes)} turn-based nodes and"
            f" at most {_count(self.decision_nodes)} information sets (estimated), about"
            f" {format_bytes(self.memory)} of memory to build")


def _count(number: int) -> str:
  return f"{number:,}" if number < 10**7 else f"{number:.2g}"


def estimate_tree_size(game: pyspiel.Game, probes: int = PROBES,
                       stop_above: float = math.inf) -> TreeSize:
  """`TreeSize` of the game's turn-based tree, from the walks `estimate_tree_nodes` makes (the
  same node count); the walks stop early once their mean node count is over `stop_above`."""
  return TreeSize(*_estimate_parts(str(game), probes, stop_above))


@functools.lru_cache(maxsize=64)
def _estimate_parts(game_string: str, probes: int, stop_above: float) -> tuple[int, int, int]:
  drafting = simultaneous_game(pyspiel.load_game(game_string))
  walk = _Walk(drafting.rules, drafting.dynamics, None)
  totals = np.zeros(3)
  for count in range(1, probes + 1):
    totals += walk.estimate_parts()
    if totals[0] / count > stop_above:
      break
  return tuple(math.ceil(t / count) for t in totals)


def format_bytes(count: float) -> str:
  """A byte count in words: 3.3 GB, 120 MB, 5 kB."""
  if count >= 1e15:
    return f"{count:.2g} bytes"
  for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
    if count >= size:
      return f"{count / size:.2g} {unit}" if count < 10 * size else f"{count / size:.0f} {unit}"
  return f"{count:.0f} bytes"


def parse_bytes(text: str) -> int:
  """A memory size such as 4GB, 512MB, 1.5 GiB or 2000000 (bytes); a ValueError naming what is
  allowed otherwise."""
  match = _BYTES.fullmatch(text.strip())
  if not match or not math.isfinite(float(match[1])) or float(match[1]) <= 0:
    raise ValueError(f"{text!r} is not a memory size; allowed: a positive number with a unit,"
                     " such as 4GB, 512MB or 1.5GiB (no unit: bytes)")
  return int(float(match[1]) * _UNITS[(match[2] or "").upper()])


_UNITS = {"": 1, "B": 1, "K": 10**3, "KB": 10**3, "M": 10**6, "MB": 10**6, "G": 10**9,
          "GB": 10**9, "T": 10**12, "TB": 10**12, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30,
          "TIB": 2**40}
_BYTES = re.compile(r"([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*([KMGT]i?B?|B)?", re.IGNORECASE)


def check_tree_size(game: pyspiel.Game, max_nodes: int = MAX_TREE_NODES,
                    what: str = "this needs its whole tree", raise_limit: str = "max_nodes",
                    alternatives: str = REDUCED) -> int:
  """The estimated node count of the game's tree if it is within `max_nodes`; TreeTooLarge, with
  the estimate, the limit and what is allowed, if it is over. `what` says why the tree is needed,
  `raise_limit` how the caller raises the limit and `alternatives` what else would do."""
  try:
    estimate = estimate_tree_nodes(game, stop_above=FAR_OVER * max_nodes)
  except ValueError as e:
    raise TreeTooLarge(f"{game}: {what}, which cannot be built: {e}") from None
  if estimate > max_nodes:
    raise TreeTooLarge(f"{game}: {what}, which would have about {estimate:.2g} nodes (estimated),"
                       f" more than the limit of {max_nodes:,} (about"
                       f" {max_nodes * BYTES_PER_NODE / 1e9:.0f} GB of memory); "
                       + _ADVICE.format(alternatives=alternatives, raise_limit=raise_limit))
  return estimate


def check_walk_size(game: pyspiel.Game, max_nodes: int = MAX_TREE_NODES,
                    raise_limit: str = "max_nodes") -> int:
  """Like `check_tree_size`, for the nodes one external-sampling iteration visits."""
  estimate = estimate_walk_nodes(game, stop_above=FAR_OVER * max_nodes)
  if estimate > max_nodes:
    raise TreeTooLarge(f"{game}: es-mccfr visits every action sequence of each player in each"
                       f" iteration, about {estimate:.2g} nodes here (estimated), more than the"
                       f" limit of {max_nodes:,}; " + _ADVICE.format(
                           alternatives=f"{REDUCED} or os-mccfr", raise_limit=raise_limit))
  return estimate
