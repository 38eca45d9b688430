"""Converting between the rules' `Table` and a position array, exactly, both ways.

`encode` computes every block of a position from a table with the readable rules' values; `decode`
reads a position back into a `Table`, rebuilding tableaus in placement order from the logged picks
(a Chopsticks pair takes back the first Chopsticks placed, as `rules.play` does). The differential
tests compare kernels and rules through these two at every step.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.spec import block_views, nested_tuples
from sushigo_spiel.compiled.sushi_go.layout import (BREAKDOWN_AT, CATEGORIES, DECK_AT, FREE_WASABI,
                                                    HANDS_AT, HEADER_SIZE, LOG_DRAWN_AT,
                                                    LOG_HANDS_AT, LOG_PICKS_AT, LOG_ROBOT_AT,
                                                    NIGIRI_BONUS, POSITION_DTYPE, POSITION_SIZE,
                                                    PUDDINGS_AT, ROUND_DECK_AT, ROUND_PUDDINGS_AT,
                                                    TABLEAUS_AT)
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.scoring import WASABI_MULTIPLIER


def _blocks(rules: R.Rules, spec: np.ndarray) -> dict[int, tuple[int, ...]]:
  """The shape of each block of a position (`layout`), by the spec index of its offset."""
  n, types, hands = rules.num_players, rules.num_types, rules.dealt_hands
  turns, rounds, categories = rules.rounds * rules.hand_size, rules.rounds, int(spec[CATEGORIES])
  return {DECK_AT: (types,), ROUND_DECK_AT: (types,), HANDS_AT: (hands, types),
          TABLEAUS_AT: (hands, types + 2), PUDDINGS_AT: (hands,),
          LOG_HANDS_AT: (turns, n, types), LOG_PICKS_AT: (turns, n, 2), LOG_DRAWN_AT: (turns,),
          LOG_ROBOT_AT: (turns,), BREAKDOWN_AT: (rounds, n, categories),
          ROUND_PUDDINGS_AT: (rounds, n)}


def _views(rules: R.Rules, spec: np.ndarray, pos: np.ndarray) -> dict[int, np.ndarray]:
  """Each block of a position as a shaped numpy view, by the spec index of its offset."""
  return block_views(spec, pos, _blocks(rules, spec))


def decode(rules: R.Rules, spec: np.ndarray, pos: np.ndarray) -> R.Table:
  """The `Table` a position holds."""
  b = _views(rules, spec, pos)
  n, size = rules.num_players, rules.hand_size
  actor, round_index, dealt, turn, drawn = pos[:HEADER_SIZE].tolist()  # header order
  played = round_index * size + turn
  log = tuple(map(R.Turn, [index // size for index in range(played)],
                  nested_tuples(b[LOG_HANDS_AT][:played]), _picks(b[LOG_PICKS_AT][:played]),
                  b[LOG_DRAWN_AT][:played].tolist(), b[LOG_ROBOT_AT][:played].tolist()))
  rounds = [log[r * size:(r + 1) * size] for r in range(round_index + 1)]
  results = tuple(_result(rules, b, r, rounds[r]) for r in range(round_index))
  hands, kept = nested_tuples(b[HANDS_AT]), b[PUDDINGS_AT].tolist()
  robot = None
  if rules.robot:
    robot = R.Robot(hands[n], tuple(turn.robot for turn in rounds[-1]), kept[n], drawn)
  return R.Table(actor, round_index, dealt, turn, nested_tuples(b[DECK_AT]), hands[:n],
                 _tableaus(rules, rounds[-1]), tuple(kept[:n]), results, log, robot)


def _picks(block: np.ndarray):
  """Logged picks (turns, n, 2) as each turn's picks per player, without the -1 fillers."""
  return [tuple(tuple(c for c in pick if c >= 0) for pick in turn) for turn in block.tolist()]


def _tableaus(rules: R.Rules, turns) -> tuple[tuple[int, ...], ...]:
  """Each player's tableau in placement order after `turns` of a round."""
  tableaus = [[] for _ in range(rules.num_players)]
  for turn in turns:
    for tableau, pick in zip(tableaus, turn.picks):
      if len(pick) == 2:
        tableau.remove(rules.chopsticks)
      tableau.extend(pick)
  return tuple(tuple(tableau) for tableau in tableaus)


def _result(rules: R.Rules, b: dict[int, np.ndarray], round_index: int, turns) -> R.RoundResult:
  breakdown = nested_tuples(b[BREAKDOWN_AT][round_index])
  robot_tableau = tuple(turn.robot for turn in turns) if rules.robot else ()
  return R.RoundResult(_tableaus(rules, turns), tuple(sum(row) for row in breakdown), breakdown,
                       nested_tuples(b[ROUND_PUDDINGS_AT][round_index]), robot_tableau)


def blank_position(spec: np.ndarray) -> np.ndarray:
  """A position of zeros: the size and type of every position of the game of `spec`."""
  return np.zeros(spec[POSITION_SIZE], dtype=POSITION_DTYPE)


def encode(rules: R.Rules, spec: np.ndarray, table: R.Table) -> np.ndarray:
  """The position array of a `Table`."""
  pos = blank_position(spec)
  b = _views(rules, spec, pos)
  hands, tableau_rows, kept = b[HANDS_AT], b[TABLEAUS_AT], b[PUDDINGS_AT]
  log_hands, log_picks, log_drawn, log_robot = (b[LOG_HANDS_AT], b[LOG_PICKS_AT],
                                                b[LOG_DRAWN_AT], b[LOG_ROBOT_AT])
  drawn = table.robot.drawn if table.robot else -1
  pos[:HEADER_SIZE] = table.actor, table.round, table.dealt, table.turn, drawn  # header order
  b[DECK_AT][:] = table.deck
  b[ROUND_DECK_AT][:] = _round_deck(rules, table)
  hands[:rules.num_players] = table.hands
  tableaus = list(table.tableaus)
  puddings = list(table.puddings)
  if table.robot:
    hands[rules.num_players] = table.robot.pile
    tableaus.append(table.robot.tableau)
    puddings.append(table.robot.puddings)
  for row, tableau in zip(tableau_rows, tableaus):
    _encode_tableau(rules, row, tableau)
  kept[:] = puddings
  log_picks[:] = log_drawn[:] = log_robot[:] = -1
  for index, turn in enumerate(table.log):
    log_hands[index] = turn.hands
    for pick, cards in zip(log_picks[index], turn.picks):
      pick[:len(cards)] = cards
    log_drawn[index], log_robot[index] = turn.drawn, turn.robot
  for round_index, result in enumerate(table.results):
    b[BREAKDOWN_AT][round_index] = result.breakdown
    b[ROUND_PUDDINGS_AT][round_index] = result.puddings
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
