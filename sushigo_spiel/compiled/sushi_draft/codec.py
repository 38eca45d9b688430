"""Converting between Sushi Draft's `Table` and a position array, exactly, both ways.

`encode` writes every block of a position (`layout`) from a table; `decode` reads a position back
into a `Table`, deriving this round's eats from the log and the chips, the piles left and the
round results from the awards and the piles' orders. The differential tests compare kernels and
rules through these two at every step.
"""

from __future__ import annotations

import numpy as np

from sushigo_spiel.compiled.spec import block_views, nested_tuples
from sushigo_spiel.compiled.sushi_draft.layout import (AWARDS_AT, DECK_AT, DISCARDS_AT, HANDS_AT,
                                                       HEADER_SIZE, LOG_EATS_AT, LOG_HANDS_AT,
                                                       LOG_KEEPS_AT, NOBODY, ORDERS_AT, PILES,
                                                       POSITION_DTYPE, POSITION_SIZE, TYPES)
from sushigo_spiel.sushi_draft import rules as R


def _views(rules: R.Rules, spec: np.ndarray, pos: np.ndarray) -> dict[int, np.ndarray]:
  """Each block of a position as a shaped numpy view, by the spec index of its offset."""
  n, rounds = rules.num_players, rules.rounds
  turns = rounds * (rules.hand_size - 1)
  shapes = {DECK_AT: (TYPES,), HANDS_AT: (n, TYPES), ORDERS_AT: (PILES,),
            LOG_HANDS_AT: (turns, n, TYPES), LOG_EATS_AT: (turns, n), LOG_KEEPS_AT: (turns, n),
            AWARDS_AT: (rounds, PILES), DISCARDS_AT: (rounds, n)}
  return block_views(spec, pos, shapes)


def decode(rules: R.Rules, spec: np.ndarray, pos: np.ndarray) -> R.Table:
  """The `Table` a position holds."""
  b = _views(rules, spec, pos)
  actor, keeping, round_index, ordered, dealt, turn = pos[:HEADER_SIZE].tolist()  # header order
  per_round = rules.hand_size - 1
  played = round_index * per_round + turn + keeping
  hands, eats, keeps = (nested_tuples(b[name][:played])
                        for name in (LOG_HANDS_AT, LOG_EATS_AT, LOG_KEEPS_AT))
  log = tuple(R.Turn(index // per_round, hands[index], eats[index],
                     keeps[index] if keeps[index][0] >= 0 else ()) for index in range(played))
  rounds = [log[r * per_round:(r + 1) * per_round] for r in range(round_index + 1)]
  chips, piles = _chips(rules, b, round_index, ordered)
  discards = nested_tuples(b[DISCARDS_AT])
  results = tuple(R.RoundResult(_eaten(rules, rounds[r]),
                                tuple(chip for chip in chips if chip.round == r), discards[r])
                  for r in range(round_index))
  return R.Table(actor, bool(keeping), round_index, ordered, dealt, turn, nested_tuples(b[DECK_AT]),
                 nested_tuples(b[HANDS_AT]), _eaten(rules, rounds[-1]), piles, chips, results, log)


def _eaten(rules: R.Rules, turns) -> tuple[tuple[int, ...], ...]:
  """Each player's eat actions in `turns`, in order."""
  return tuple(tuple(turn.eats[p] for turn in turns) for p in range(rules.num_players))


def _chips(rules: R.Rules, b: dict[int, np.ndarray], round_index: int, ordered: int):
  """The chips given in the finished rounds, in order, and the chips left per pile."""
  orders = [rules.pile_orders[pile][order] if pile < ordered else ()
            for pile, order in enumerate(b[ORDERS_AT].tolist())]
  taken, chips = [0] * PILES, []
  for r, awards in enumerate(b[AWARDS_AT][:round_index].tolist()):
    for pile, player in enumerate(awards):
      if player != NOBODY:
        chips.append(R.Chip(pile, player, orders[pile][taken[pile]], r))
        taken[pile] += 1
  return tuple(chips), tuple(order[count:] for order, count in zip(orders, taken))


def blank_position(spec: np.ndarray) -> np.ndarray:
  """A position of zeros: the size and type of every position of the game of `spec`."""
  return np.zeros(spec[POSITION_SIZE], dtype=POSITION_DTYPE)


def encode(rules: R.Rules, spec: np.ndarray, table: R.Table) -> np.ndarray:
  """The position array of a `Table`."""
  pos = blank_position(spec)
  b = _views(rules, spec, pos)
  pos[:HEADER_SIZE] = (table.actor, table.keeping, table.round, table.ordered, table.dealt,
                       table.turn)  # header order
  b[DECK_AT][:] = table.deck
  b[HANDS_AT][:] = table.hands
  pos[spec[LOG_EATS_AT]:] = -1  # no eat, keep, award or discard beyond the table's
  for pile in range(PILES):
    given = [chip.value for chip in table.chips if chip.pile == pile]
    order = tuple(given) + table.piles[pile]
    b[ORDERS_AT][pile] = rules.pile_orders[pile].index(order) if pile < table.ordered else -1
  for index, turn in enumerate(table.log):
    b[LOG_HANDS_AT][index] = turn.hands
    b[LOG_EATS_AT][index] = turn.eats
    if turn.keeps:
      b[LOG_KEEPS_AT][index] = turn.keeps
  for chip in table.chips:
    b[AWARDS_AT][chip.round, chip.pile] = chip.player
  for r, result in enumerate(table.results):
    b[DISCARDS_AT][r] = result.discards
  return pos
