"""Sushi Draft's observer tensors as kernels: what `SushiDraftObserver` writes for one player,
written from a position, so that the batched environment can hand a learner the pyspiel game's own
observations.

Two kinds, as `pyspiel.IIGObservationType` names them for one player (`private_info` of the
player alone): the observation (`perfect_recall=False`) and the information state
(`perfect_recall=True`). Where each piece starts is read off the Python observer
(`piece_offsets`), so the layout has one source, `SushiDraftObserver.pieces`. Seats are relative
to the observer, as there. Reference: the Python observer (`sushi_draft/observer.py`);
`tests/test_batched_sushi_draft.py` compares both kinds with its tensors on sampled positions.
Both kernels write the whole tensor: a Sushi Draft information state is small (at 5 players and
the standard game, about a thousand entries).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_draft import views
from sushigo_spiel.compiled.sushi_draft.layout import (ACTOR, ACTOR_SIMULTANEOUS, KEEPING,
                                                       NOBODY, PILES, PLAYERS, ROUND, ROUNDS,
                                                       TURN, TYPES)
from sushigo_spiel.compiled.sushi_draft.scoring import chip_value
from sushigo_spiel.sushi_draft.observer import SushiDraftObserver
from sushigo_spiel.sushi_draft.rules import KEEP, Rules

# The kinds of tensor, and the pieces of each in the order of their offsets (`piece_offsets`).
OBSERVATION, INFORMATION_STATE = 0, 1
KINDS = {"observation": OBSERVATION, "information_state": INFORMATION_STATE}
PIECES = {
    OBSERVATION: ("round", "turn", "step", "eaten", "chips", "hand", "values"),
    INFORMATION_STATE: ("eats", "awards", "hand_history", "keeps", "values"),
}
ROUND_ONE_HOT, TURN_ONE_HOT, STEP_ONE_HOT, EATEN, CHIPS, HAND, VALUES = range(7)
EATS, AWARDS, HAND_HISTORY, KEEPS, ROUND_VALUES = range(5)
EAT_ACTIONS = KEEP  # the eat actions come before the keep actions


def observer(rules: Rules, kind: int) -> SushiDraftObserver:
  """The Python observer of one player's tensor of this kind."""
  return SushiDraftObserver(pyspiel.IIGObservationType(
      perfect_recall=kind == INFORMATION_STATE,
      private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER), rules, None)


def piece_offsets(rules: Rules, kind: int) -> np.ndarray:
  """Where each piece of `PIECES[kind]` starts in the tensor."""
  offsets, at = {}, 0
  for name, shape in observer(rules, kind).pieces():
    offsets[name] = at
    at += int(np.prod(shape))
  return np.array([offsets[name] for name in PIECES[kind]], dtype=np.int64)


def tensor_size(rules: Rules, kind: int) -> int:
  return len(observer(rules, kind).tensor)


@njit(inline="always")
def _seat(g, player, owner):
  """`owner`'s seat as `player` sees it: 0 itself, 1 the player to its left, and so on."""
  n = g[PLAYERS]
  return (owner - player + n) % n


@njit
def encode_observation(g, pos, player, at, out):
  """Writes `player`'s observation tensor at `pos` to `out` (float32, the tensor's size)."""
  n = g[PLAYERS]
  out[:] = 0
  acting = pos[ACTOR] == ACTOR_SIMULTANEOUS
  if acting:
    out[at[ROUND_ONE_HOT] + pos[ROUND]] = 1
    out[at[TURN_ONE_HOT] + pos[TURN]] = 1
    out[at[STEP_ONE_HOT] + pos[KEEPING]] = 1
  if pos[ROUND] < g[ROUNDS]:  # this round's eats (none once the game is over)
    first = views.first_turn(g, pos[ROUND])
    for turn in range(first, first + views.logged_turns(g, pos, pos[ROUND])):
      for p in range(n):
        action = pos[views.logged_eat_at(g, turn, p)]
        out[at[EATEN] + _seat(g, player, p) * EAT_ACTIONS + action] += 1
  for pile in range(PILES):
    taken = 0
    for round_index in range(pos[ROUND]):
      taker = pos[views.award_at(g, round_index, pile)]
      if taker == NOBODY:
        continue
      out[at[CHIPS] + _seat(g, player, taker) * PILES + pile] += 1
      if taker == player:
        out[at[VALUES] + pile] += chip_value(g, pos, pile, taken)
      taken += 1
  if acting:
    held = views.hand_at(g, player)
    for card in range(TYPES):
      out[at[HAND] + card] = pos[held + card]


@njit
def encode_information_state(g, pos, player, at, out):
  """Writes `player`'s information-state tensor at `pos` to `out` (float32, the tensor's size):
  every logged turn's eats, its own hand and kept card, the chips' takers and its own chips'
  values, and the hand it holds at an Eat step."""
  n = g[PLAYERS]
  out[:] = 0
  played = views.turn_index(g, pos) + pos[KEEPING]
  for turn in range(played):  # game turn r * H + t, the (round, turn) of the observer's pieces
    for p in range(n):
      action = pos[views.logged_eat_at(g, turn, p)]
      out[at[EATS] + (turn * n + _seat(g, player, p)) * EAT_ACTIONS + action] = 1
    held = views.logged_hands_at(g, turn) + player * TYPES
    for card in range(TYPES):
      out[at[HAND_HISTORY] + turn * TYPES + card] = pos[held + card]
    kept = pos[views.logged_keep_at(g, turn, player)]
    if kept >= 0:
      out[at[KEEPS] + turn * TYPES + kept] = 1
  for pile in range(PILES):
    taken = 0
    for round_index in range(pos[ROUND]):
      taker = pos[views.award_at(g, round_index, pile)]
      if taker == NOBODY:
        continue
      out[at[AWARDS] + (round_index * PILES + pile) * n + _seat(g, player, taker)] = 1
      if taker == player:
        out[at[ROUND_VALUES] + round_index * PILES + pile] = chip_value(g, pos, pile, taken)
      taken += 1
  if pos[ACTOR] == ACTOR_SIMULTANEOUS and not pos[KEEPING]:
    held, now = views.hand_at(g, player), views.turn_index(g, pos)
    for card in range(TYPES):
      out[at[HAND_HISTORY] + now * TYPES + card] = pos[held + card]
