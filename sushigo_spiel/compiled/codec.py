"""Converting between the rules' `Table` and a position array, exactly, both ways.

`encode` computes every block of a position from a table with the readable rules' values; `decode`
reads a position back into a `Table`, rebuilding tableaus in placement order from the logged picks
(a Chopsticks pair takes back the first Chopsticks placed, as `rules.play` does). The differential
tests compare kernels and rules through these two at every step.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.layout import (ACTOR, BREAKDOWN_AT, CATEGORIES, DEALT, DECK_AT, DRAWN,
                                           FREE_WASABI, HANDS_AT, LOG_DRAWN_AT, LOG_HANDS_AT,
                                           LOG_PICKS_AT, LOG_ROBOT_AT, NIGIRI_BONUS, POSITION_DTYPE,
                                           POSITION_SIZE, PUDDINGS_AT, ROUND, ROUND_DECK_AT,
                                           ROUND_PUDDINGS_AT, TABLEAUS_AT, TURN)
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.scoring import WASABI_MULTIPLIER


class _Blocks:
  """A position's blocks as shaped numpy views (the layout of `layout`), for one game."""

  def __init__(self, rules: R.Rules, spec: np.ndarray, pos: np.ndarray):
    n, types, hands = rules.num_players, rules.num_types, rules.dealt_hands
    turns, rounds, categories = rules.rounds * rules.hand_size, rules.rounds, spec[CATEGORIES]

    def block(name, *shape):
      start = spec[name]
      return pos[start:start + int(np.prod(shape))].reshape(shape)

    self.deck = block(DECK_AT, types)
    self.round_deck = block(ROUND_DECK_AT, types)
    self.hands = block(HANDS_AT, hands, types)
    self.tableaus = block(TABLEAUS_AT, hands, types + 2)
    self.puddings = block(PUDDINGS_AT, hands)
    self.log_hands = block(LOG_HANDS_AT, turns, n, types)
    self.log_picks = block(LOG_PICKS_AT, turns, n, 2)
    self.log_drawn = block(LOG_DRAWN_AT, turns)
    self.log_robot = block(LOG_ROBOT_AT, turns)
    self.breakdown = block(BREAKDOWN_AT, rounds, n, categories)
    self.round_puddings = block(ROUND_PUDDINGS_AT, rounds, n)


def _tuple(values) -> tuple[int, ...]:
  return tuple(int(v) for v in values)


def decode(rules: R.Rules, spec: np.ndarray, pos: np.ndarray) -> R.Table:
  """The `Table` a position holds."""
  b = _Blocks(rules, spec, pos)
  n, size = rules.num_players, rules.hand_size
  played = int(pos[ROUND]) * size + int(pos[TURN])
  log = tuple(_turn(rules, b, index) for index in range(played))
  rounds = [log[r * size:(r + 1) * size] for r in range(int(pos[ROUND]) + 1)]
  results = tuple(_result(rules, b, r, rounds[r]) for r in range(int(pos[ROUND])))
  robot = None
  if rules.robot:
    robot = R.Robot(_tuple(b.hands[n]), tuple(turn.robot for turn in rounds[-1]),
                    int(b.puddings[n]), int(pos[DRAWN]))
  return R.Table(int(pos[ACTOR]), int(pos[ROUND]), int(pos[DEALT]), int(pos[TURN]),
                 _tuple(b.deck), tuple(_tuple(hand) for hand in b.hands[:n]),
                 _tableaus(rules, rounds[-1]), _tuple(b.puddings[:n]), results, log, robot)


def _turn(rules: R.Rules, b: _Blocks, index: int) -> R.Turn:
  picks = tuple(tuple(int(c) for c in pick if c >= 0) for pick in b.log_picks[index])
  return R.Turn(index // rules.hand_size, tuple(_tuple(hand) for hand in b.log_hands[index]),
                picks, int(b.log_drawn[index]), int(b.log_robot[index]))


def _tableaus(rules: R.Rules, turns) -> tuple[tuple[int, ...], ...]:
  """Each player's tableau in placement order after `turns` of a round."""
  tableaus = [[] for _ in range(rules.num_players)]
  for turn in turns:
    for tableau, pick in zip(tableaus, turn.picks):
      if len(pick) == 2:
        tableau.remove(rules.chopsticks)
      tableau.extend(pick)
  return tuple(tuple(tableau) for tableau in tableaus)


def _result(rules: R.Rules, b: _Blocks, round_index: int, turns) -> R.RoundResult:
  breakdown = tuple(_tuple(row) for row in b.breakdown[round_index])
  robot_tableau = tuple(turn.robot for turn in turns) if rules.robot else ()
  return R.RoundResult(_tableaus(rules, turns), tuple(sum(row) for row in breakdown), breakdown,
                       _tuple(b.round_puddings[round_index]), robot_tableau)


def encode(rules: R.Rules, spec: np.ndarray, table: R.Table) -> np.ndarray:
  """The position array of a `Table`."""
  pos = np.zeros(spec[POSITION_SIZE], dtype=POSITION_DTYPE)
  b = _Blocks(rules, spec, pos)
  pos[[ACTOR, ROUND, DEALT, TURN]] = table.actor, table.round, table.dealt, table.turn
  pos[DRAWN] = table.robot.drawn if table.robot else -1
  b.deck[:] = table.deck
  b.round_deck[:] = _round_deck(rules, table)
  b.hands[:rules.num_players] = table.hands
  tableaus = list(table.tableaus)
  puddings = list(table.puddings)
  if table.robot:
    b.hands[rules.num_players] = table.robot.pile
    tableaus.append(table.robot.tableau)
    puddings.append(table.robot.puddings)
  for row, tableau in zip(b.tableaus, tableaus):
    _encode_tableau(rules, row, tableau)
  b.puddings[:] = puddings
  b.log_picks[:] = b.log_drawn[:] = b.log_robot[:] = -1
  for index, turn in enumerate(table.log):
    b.log_hands[index] = turn.hands
    for pick, cards in zip(b.log_picks[index], turn.picks):
      pick[:len(cards)] = cards
    b.log_drawn[index], b.log_robot[index] = turn.drawn, turn.robot
  for round_index, result in enumerate(table.results):
    b.breakdown[round_index] = result.breakdown
    b.round_puddings[round_index] = result.puddings
  return pos


def _round_deck(rules: R.Rules, table: R.Table) -> list[int]:
  """The deck when the current round's deal began: the full deck less finished rounds' cards."""
  deck = list(rules.deck)
  for result in table.results:
    for tableau in (*result.tableaus, result.robot_tableau):
      for card in tableau:
        deck[card] -= 1
  return deck


def _encode_tableau(rules: R.Rules, row: np.ndarray, tableau) -> None:
  """A tableau row: counts per card type, free Wasabi, extra points of Nigiri on a Wasabi."""
  types = rules.num_types
  for card in tableau:
    row[card] += 1
  free, on_wasabi = R.wasabi_state(rules, tableau)
  row[types + FREE_WASABI] = free
  row[types + NIGIRI_BONUS] = sum((WASABI_MULTIPLIER - 1) * rules.cards[c].value
                                  for c in on_wasabi)
