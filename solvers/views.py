"""What a bot may look at: the simultaneous state behind a turn-based one, and one player's view.

`pyspiel.convert_to_turn_based` wraps a `python_sushi_go` state in a C++
`TurnBasedSimultaneousState`, which has none of the Python analysis API. `simultaneous_view` rebuilds
the underlying `SushiGoState` by replaying the history, so a bot reasons about the same position in
either form.

`player_view` then keeps only what one player may know (own hand, the public tableaus, Puddings and
points, and the hands that player has already held), so a bot built on it cannot read hidden cards
by accident.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

import pyspiel

from sushigo_spiel import rules as R
from sushigo_spiel.drafting import apply_step, history_steps
from sushigo_spiel.sushi_go import SushiGoState


@functools.cache
def _underlying_game(turn_based_game: str) -> pyspiel.Game:
  params = dict(pyspiel.load_game(turn_based_game).get_parameters()["game"])
  return pyspiel.load_game(params.pop("name"), params)


def simultaneous_view(state: pyspiel.State) -> SushiGoState:
  """The `SushiGoState` at the current node of `state`, which may be turn-based.

  A `SushiGoState` is returned as it is. For a turn-based state, the chance outcomes are replayed
  into a fresh state of the underlying game, and the per-player actions of each simultaneous node
  are buffered and applied together once every player has acted. The actions of a node still being
  filled in (players who already chose this turn) are left out: they are hidden from the player to
  move. This relies on every player having a legal action at every simultaneous node of
  `python_sushi_go`, so each node contributes exactly one action per player to the history.
  """
  if isinstance(state, SushiGoState):
    return state
  game = _underlying_game(str(state.get_game()))
  view = game.new_initial_state()
  for step in history_steps(state.full_history(), game.num_players()):
    apply_step(view, step)
  return view


class PlayerView(NamedTuple):
  """What `player` knows at a simultaneous node. Cards are numbered as in `rules.cards`.

  `unseen` counts the cards the player cannot place: those in the hands it has not held and in the
  undealt deck, taken together (the deck composition minus every card it has seen).
  """
  rules: R.Rules
  player: int
  round: int
  turn: int
  hand: tuple[int, ...]  # counts per card type
  tableaus: tuple[tuple[int, ...], ...]  # this round, placement order, by player
  puddings: tuple[int, ...]  # kept from finished rounds, by player
  points: tuple[int, ...]  # from finished rounds, by player
  seen_hands: Mapping[int, tuple[int, ...]]  # holder -> counts, for hands `player` has held
  unseen: tuple[int, ...]
  legal_actions: tuple[int, ...]

  @property
  def num_players(self) -> int:
    return self.rules.num_players

  @property
  def hand_cards(self) -> int:
    return sum(self.hand)


def player_view(state: pyspiel.State, player: int) -> PlayerView:
  """The view of `player` at the current simultaneous node of `state` (turn-based or not)."""
  sim = simultaneous_view(state)
  if not sim.is_simultaneous_node():
    raise ValueError("a player view needs a node where the players pick cards")
  return table_view(sim.get_game().rules, sim._table, player)  # pylint: disable=protected-access


def table_view(rules: R.Rules, table: R.Table, player: int) -> PlayerView:
  """The view of `player` at a simultaneous node given as a rules table (the search engine's)."""
  seen = {holder: table.hands[holder] for holder in range(rules.num_players)
          if holder != player and R.hand_seen(rules, table, player, holder)}
  unseen = list(rules.deck)
  placed = list(table.tableaus) + [t for result in table.results for t in result.tableaus]
  for tableau in placed:
    for card in tableau:
      unseen[card] -= 1
  for hand in [table.hands[player], *seen.values()]:
    unseen = [u - n for u, n in zip(unseen, hand)]
  return PlayerView(rules, player, table.round, table.turn, table.hands[player], table.tableaus,
                    table.puddings, tuple(R.totals(table)), seen, tuple(unseen),
                    tuple(R.legal_actions(rules, table, player)))
