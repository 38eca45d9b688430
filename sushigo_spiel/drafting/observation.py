"""What the drafting games' observers share: one flat tensor laid out from named pieces.

An observer (OpenSpiel's `make_py_observer`) honours `pyspiel.IIGObservationType`: a game's
observer names the pieces its type asks for (`pieces`), and this base lays them out over one
float32 `tensor`, with `dict` holding a shaped view of each piece. Both the state-level
`set_from` / `string_from` that OpenSpiel calls and the table-level `set_from_table` /
`string_from_table` that code walking the rules' tables calls (game trees, searches) are offered;
a game implements the table-level ones.
"""

from __future__ import annotations

import numpy as np
import pyspiel


class DraftingObserver:
  """Base of the games' observers (see the module docstring)."""

  def __init__(self, iig_obs_type: pyspiel.IIGObservationType, rules, params):
    if params:
      raise ValueError(f"observation parameters are not supported; got {params}")
    self.iig_obs_type = iig_obs_type
    self.rules = rules
    private = iig_obs_type.private_info
    self.single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER  # the observer's own cards
    self.every = private == pyspiel.PrivateInfoType.ALL_PLAYERS  # everybody's cards
    pieces = self.pieces()
    self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
    self.dict = {}
    index = 0
    for name, shape in pieces:
      count = int(np.prod(shape))
      self.dict[name] = self.tensor[index:index + count].reshape(shape)
      index += count

  def pieces(self) -> list[tuple[str, tuple[int, ...]]]:
    """The named pieces of the tensor, with their shapes, for this observation type."""
    raise NotImplementedError

  def set_from(self, state, player: int) -> None:
    self.set_from_table(state.table(), player)

  def string_from(self, state, player: int) -> str:
    return self.string_from_table(state.table(), player)

  def set_from_table(self, table, player: int) -> None:
    """Fills `tensor` with what `player` observes at a rules table."""
    raise NotImplementedError

  def string_from_table(self, table, player: int) -> str:
    """What `player` observes at a rules table, as text."""
    raise NotImplementedError
