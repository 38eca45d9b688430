"""The observer's tensors as kernels: what `SushiGoObserver` writes for one player, written from a
position, so that a batched environment can hand a learner the pyspiel game's own observations.

Two kinds, as `pyspiel.IIGObservationType` names them for one player (`private_info` of the
player alone): the observation (`perfect_recall=False`) and the information state
(`perfect_recall=True`). Where each piece starts in the tensor is read off the Python observer
(`piece_offsets`), so the layout has one source, `SushiGoObserver.pieces`; a piece the game does
not have (the robot's, without the robot) is at -1. Reference: the Python observer
(`sushi_go/observer.py`); `tests/test_batched_env.py` compares both kinds with its tensors on
sampled positions of every variant.

The information state only grows during a game (a turn's picks and hand, once written, stay), so
`encode_information_state` writes the turns from a given one on: a batched environment writes
each step's new turns into the row it keeps, and a full encoding starts from a zeroed row at
turn 0.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.compiled.sushi_go import views
from sushigo_spiel.compiled.sushi_go.layout import (ACTOR, ACTOR_TERMINAL, CATEGORIES, DEALT,
                                                    DEAL_STEPS, DRAWN, FREE_WASABI, HAND_SIZE,
                                                    KIND_TABLE, K_NIGIRI, LOG_ROBOT_AT, PLAYERS,
                                                    PUDDINGS_AT, ROBOT, ROUND, TURN, TYPES, WASABI)
from sushigo_spiel.sushi_go.observer import SushiGoObserver
from sushigo_spiel.sushi_go.rules import Rules

# The kinds of tensor, and the pieces of each in the order of their offsets (`piece_offsets`).
OBSERVATION, INFORMATION_STATE = 0, 1
KINDS = {"observation": OBSERVATION, "information_state": INFORMATION_STATE}
PIECES = {
    OBSERVATION: ("robot_tableau", "robot_puddings", "round", "turn", "tableaus", "free_wasabi",
                  "on_wasabi", "puddings", "points", "hand", "seen_hands"),
    INFORMATION_STATE: ("picks", "robot_picks", "hand_history"),
}
(ROBOT_TABLEAU, ROBOT_PUDDINGS, ROUND_ONE_HOT, TURN_ONE_HOT, TABLEAUS, FREE_WASABI_COUNTS,
 ON_WASABI, PUDDINGS, POINTS, HAND, SEEN_HANDS) = range(11)
PICKS, ROBOT_PICKS, HAND_HISTORY = range(3)


def observer(rules: Rules, kind: int) -> SushiGoObserver:
  """The Python observer of one player's tensor of this kind."""
  return SushiGoObserver(pyspiel.IIGObservationType(
      perfect_recall=kind == INFORMATION_STATE,
      private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER), rules, None)


def piece_offsets(rules: Rules, kind: int) -> np.ndarray:
  """Where each piece of `PIECES[kind]` starts in the tensor, -1 for a piece the game lacks."""
  offsets, at = {}, 0
  for name, shape in observer(rules, kind).pieces():
    offsets[name] = at
    at += int(np.prod(shape))
  return np.array([offsets.get(name, -1) for name in PIECES[kind]], dtype=np.int64)


def tensor_size(rules: Rules, kind: int) -> int:
  return len(observer(rules, kind).tensor)


# --------------------------------------------------------------------------------------------
# The observation


@njit
def encode_observation(g, pos, player, at, out):
  """Writes `player`'s observation tensor at `pos` to `out` (float32, the tensor's size)."""
  n, types = g[PLAYERS], g[TYPES]
  out[:] = 0
  if g[ROBOT]:
    row = views.tableau_at(g, n)
    for card in range(types):
      out[at[ROBOT_TABLEAU] + card] = pos[row + card]
    out[at[ROBOT_PUDDINGS]] = pos[g[PUDDINGS_AT] + n]
  if pos[ACTOR] != ACTOR_TERMINAL:
    out[at[ROUND_ONE_HOT] + pos[ROUND]] = 1
    out[at[TURN_ONE_HOT] + pos[TURN]] = 1
  for seat in range(n):
    p = (player + seat) % n
    row = views.tableau_at(g, p)
    for card in range(types):
      out[at[TABLEAUS] + seat * types + card] = pos[row + card]
    out[at[FREE_WASABI_COUNTS] + seat] = pos[row + types + FREE_WASABI]
    _write_on_wasabi(g, pos, p, out, at[ON_WASABI] + seat * types)
    out[at[PUDDINGS] + seat] = pos[g[PUDDINGS_AT] + p]
    out[at[POINTS] + seat] = _finished_round_points(g, pos, p)
  if not is_dealt(g, pos):
    return
  held = views.hand_at(g, player)
  for card in range(types):
    out[at[HAND] + card] = pos[held + card]
  for seat in range(1, n):
    holder = (player + seat) % n
    if _holds_seen_hand(g, pos, player, holder):
      start, held = at[SEEN_HANDS] + (seat - 1) * (types + 1), views.hand_at(g, holder)
      for card in range(types):
        out[start + card] = pos[held + card]
      out[start + types] = 1


@njit(inline="always")
def is_dealt(g, pos):
  """Whether this round's hands are in the players' hands (`knowledge.is_dealt`)."""
  return pos[DEALT] >= g[DEAL_STEPS] and pos[ACTOR] != ACTOR_TERMINAL


@njit(inline="always")
def _write_on_wasabi(g, pos, player, out, start):
  """Adds to `out[start:]`, by type, the Nigiri `player` placed on a Wasabi this round: the round's
  logged picks replayed in placement order (`rules.wasabi_state`)."""
  free, first = 0, pos[ROUND] * g[HAND_SIZE]
  for turn in range(first, first + pos[TURN]):
    pick = views.logged_pick_at(g, turn, player)
    for slot in range(2):
      card = pos[pick + slot]
      if card < 0:
        continue
      if card == g[WASABI]:
        free += 1
      elif free > 0 and g[g[KIND_TABLE] + card] == K_NIGIRI:
        free -= 1
        out[start + card] += 1


@njit(inline="always")
def _finished_round_points(g, pos, player):
  """The player's points from the rounds finished so far (`rules.totals`)."""
  points = 0
  for r in range(pos[ROUND]):
    recorded = views.round_breakdown_at(g, r, player)
    for category in range(g[CATEGORIES]):
      points += pos[recorded + category]
  return points


@njit(inline="always")
def _holds_seen_hand(g, pos, player, holder):
  """Whether `player` has held the hand `holder` holds now (`knowledge.hand_seen`)."""
  if g[ROBOT] and pos[DRAWN] >= 0 and player != holder and holder == views.controller(g, pos):
    return False  # that hand now holds the card its holder drew from the robot's pile
  n, turn, direction = g[PLAYERS], pos[TURN], views.direction(g, pos[ROUND])
  dealt_to = (holder - turn * direction) % n
  return (player - dealt_to) * direction % n <= turn


# --------------------------------------------------------------------------------------------
# The information state


@njit
def encode_information_state(g, pos, player, at, out, first_turn):
  """Writes `player`'s information-state tensor to `out` for the game's turns from `first_turn`
  on (turn index round * H + turn) and the current hand; returns the current turn index, the
  `first_turn` of the next call. A whole tensor: `out` zeroed and `first_turn` 0."""
  n, types = g[PLAYERS], g[TYPES]
  now = views.turn_index(g, pos)
  for turn in range(first_turn, now):
    for seat in range(n):
      pick = views.logged_pick_at(g, turn, (player + seat) % n)
      for slot in range(2):
        card = pos[pick + slot]
        if card >= 0:
          out[at[PICKS] + ((turn * n + seat) * 2 + slot) * types + card] = 1
    if g[ROBOT] and pos[g[LOG_ROBOT_AT] + turn] >= 0:
      out[at[ROBOT_PICKS] + turn * types + pos[g[LOG_ROBOT_AT] + turn]] = 1
    held = views.logged_hands_at(g, turn) + player * types
    for card in range(types):
      out[at[HAND_HISTORY] + turn * types + card] = pos[held + card]
  if is_dealt(g, pos):
    held = views.hand_at(g, player)
    for card in range(types):
      out[at[HAND_HISTORY] + now * types + card] = pos[held + card]
  return now
