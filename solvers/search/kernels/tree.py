"""A search tree in preallocated arrays: nodes, bandit rows, and children in a hash table.

Node t < `roots` is the root of tree t (one per observer in MO-ISMCTS, one otherwise). A node holds
one bandit row per player (`node_rows[node, player]`, -1 until that player first chooses there),
and its children are found by key in an open-addressing table with linear probing: slot
`(parent, key)` -> child, `key` being an observation key (ISMCTS) or the key of a joint action and
any chance that followed (SM-MCTS). The statistics are `bandits.py`'s rows.

Kernels never allocate: a batch of iterations stops early when the next iteration might not fit
(`has_room`), and `Tree.grow` doubles what is short, from Python, between batches. `reset` empties
the tree for a new search without reallocating.
"""

from __future__ import annotations

import numpy as np

from solvers.search.kernels.bandits import clear_row
from sushigo_spiel.compiled import hashing
from sushigo_spiel.compiled.jit import njit

NODES, ROWS, ENTRIES = 0, 1, 2  # the counters of `used`
_MAX_LOAD = 0.5  # the hash table grows past half full


class Tree:
  """The arrays of one search tree (see the module docstring), for `players` players choosing
  among `actions` action ids; `learning` keeps the Exp3 / regret-matching rows too."""

  def __init__(self, roots: int, players: int, actions: int, learning: bool, nodes: int = 1024):
    self.roots = roots
    self.node_rows = np.full((nodes, players), -1, dtype=np.int32)
    rows = nodes * players
    self.stats = (np.zeros((rows, actions), dtype=np.int32), np.zeros((rows, actions)),
                  np.zeros((rows, actions), dtype=np.int32),
                  np.zeros((rows if learning else 1, actions)),
                  np.zeros((rows if learning else 1, actions)))
    slots = 1 << (2 * nodes - 1).bit_length()  # a power of two, at least twice the nodes
    self.slot_parent = np.full(slots, -1, dtype=np.int32)
    self.slot_key = np.zeros(slots, dtype=np.int64)
    self.slot_child = np.zeros(slots, dtype=np.int32)
    self.used = np.zeros(3, dtype=np.int64)
    self.reset()

  def arrays(self) -> tuple:
    """What the kernels take: (node_rows, stats, slot_parent, slot_key, slot_child, used)."""
    return (self.node_rows, self.stats, self.slot_parent, self.slot_key, self.slot_child,
            self.used)

  def reset(self) -> None:
    """Just the roots, without statistics."""
    self.node_rows[:self.roots] = -1
    self.slot_parent[:] = -1
    self.used[:] = (self.roots, 0, 0)

  def grow(self, nodes: int, rows: int) -> None:
    """Room for at least `nodes` more nodes (and table entries) and `rows` more bandit rows."""
    used = self.used
    if used[NODES] + nodes > len(self.node_rows):
      size = 2 * max(len(self.node_rows), int(used[NODES] + nodes))
      extra = np.full((size - len(self.node_rows), self.node_rows.shape[1]), -1, dtype=np.int32)
      self.node_rows = np.concatenate([self.node_rows, extra])
    if used[ROWS] + rows > len(self.stats[0]):
      size = 2 * max(len(self.stats[0]), int(used[ROWS] + rows))
      self.stats = tuple(_grown(array, size) if len(array) > 1 else array
                         for array in self.stats)
    if (used[ENTRIES] + nodes) > _MAX_LOAD * len(self.slot_parent):
      size = 2 * len(self.slot_parent)
      while (used[ENTRIES] + nodes) > _MAX_LOAD * size:
        size *= 2
      parent, key, child = (np.full(size, -1, dtype=np.int32), np.zeros(size, dtype=np.int64),
                            np.zeros(size, dtype=np.int32))
      rehash(self.slot_parent, self.slot_key, self.slot_child, parent, key, child)
      self.slot_parent, self.slot_key, self.slot_child = parent, key, child


def tree_bytes(players: int, actions: int, learning: bool, nodes: int, rows: int) -> int:
  """The bytes of a `Tree`'s arrays with room for `nodes` nodes (and a hash table at most half
  full of them) and `rows` bandit rows, over `actions` action ids."""
  slots = 1 << (2 * max(1, nodes) - 1).bit_length()
  row_bytes = actions * (4 + 8 + 4 + (8 + 8 if learning else 0))
  return nodes * players * 4 + rows * row_bytes + slots * (4 + 8 + 4)


def _grown(array: np.ndarray, rows: int) -> np.ndarray:
  grown = np.zeros((rows,) + array.shape[1:], dtype=array.dtype)
  grown[:len(array)] = array
  return grown


@njit(inline="always")
def _slot(parent, key, mask):
  return hashing.finish(hashing.fold(hashing.fold(hashing.start(), parent), key)) & mask


@njit
def rehash(old_parent, old_key, old_child, parent, key, child):
  """Moves every entry of the old table into the new (empty, larger) one."""
  mask = len(parent) - 1
  for i in range(len(old_parent)):
    if old_parent[i] >= 0:
      slot = _slot(old_parent[i], old_key[i], mask)
      while parent[slot] >= 0:
        slot = (slot + 1) & mask
      parent[slot], key[slot], child[slot] = old_parent[i], old_key[i], old_child[i]


@njit
def has_room(tree, nodes, rows):
  """Whether `nodes` more nodes (and entries) and `rows` more rows fit without growing."""
  node_rows, stats, slot_parent, _, _, used = tree
  return (used[NODES] + nodes <= len(node_rows) and used[ROWS] + rows <= len(stats[0])
          and used[ENTRIES] + nodes <= _MAX_LOAD * len(slot_parent))


@njit
def child(tree, parent, key):
  """The child of `parent` under `key`, and whether it was created just now (a new node, with
  no bandit rows)."""
  node_rows, _, slot_parent, slot_key, slot_child, used = tree
  mask = len(slot_parent) - 1
  slot = _slot(parent, key, mask)
  while slot_parent[slot] >= 0:
    if slot_parent[slot] == parent and slot_key[slot] == key:
      return slot_child[slot], False
    slot = (slot + 1) & mask
  node = used[NODES]
  used[NODES] += 1
  used[ENTRIES] += 1
  node_rows[node, :] = -1
  slot_parent[slot], slot_key[slot], slot_child[slot] = parent, key, node
  return node, True


@njit
def row(tree, node, player):
  """The bandit row of `player` at `node`, a fresh one on first use."""
  node_rows, stats, _, _, _, used = tree
  found = node_rows[node, player]
  if found < 0:
    found = used[ROWS]
    used[ROWS] += 1
    clear_row(stats, found)
    node_rows[node, player] = found
  return found
