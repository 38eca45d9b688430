"""Checks any state of the drafting games must pass, for `pyspiel.random_sim_test`'s
`state_checker_fn` and for tests that play whole games: cards conserved, hands and tableaus of the
sizes the turn implies, and points, Puddings and returns equal to what `rulebook` (the second
scorer, written from docs/rules.md) makes of the cards the players placed or ate.
"""

from __future__ import annotations

from collections import Counter

import pytest

import rulebook
from support import card_totals

PUDDING = "Pudding"


def robot_rounds(state) -> list[list[list[str]]]:
  """Every finished round's tableaus, the robot's last in the robot variant."""
  robot = state.get_game().rules.robot
  return [r.tableaus + ([r.robot_tableau] if robot else []) for r in state.round_records()]


def check_round_records(state) -> None:
  """Every finished round's points and breakdown are the rulebook's for its tableaus."""
  rules = state.get_game().rules
  for record, tableaus in zip(state.round_records(), robot_rounds(state)):
    categories = rulebook.round_categories(tableaus, rules.soy_sauce)[:rules.num_players]
    assert record.breakdown == categories, record
    assert record.points == [sum(c.values()) for c in categories], record


def check_final_scores(state) -> None:
  """Scores, Puddings and returns of a finished game are the rulebook's for the tableaus."""
  rules = state.get_game().rules
  n = rules.num_players
  rounds = robot_rounds(state)
  assert len(rounds) == rules.rounds
  scores = rulebook.game_scores(rounds, n, rules.soy_sauce)
  puddings = [sum(tableaus[p].count(PUDDING) for tableaus in rounds) for p in range(n)]
  assert state.scores() == scores
  assert state.puddings() == puddings
  assert state.returns() == pytest.approx(rulebook.utility_of(rules.utility, scores, puddings))


def check_sushi_go_state(state) -> None:
  """Cards conserved; at a decision every hand holds the cards the turn implies (the robot's
  controller one more) and every tableau one card per turn played; Puddings and points so far
  are the finished rounds' by the rulebook; a finished game scores as the rulebook says."""
  rules, table = state.get_game().rules, state.table()
  assert card_totals(state) == list(rules.deck)
  check_round_records(state)
  if state.is_terminal():
    check_final_scores(state)
    return
  if state.is_simultaneous_node():
    sizes = [len(hand) for hand in state.hands()]
    if rules.robot:
      sizes[(table.round * rules.hand_size + table.turn) % 2] -= 1  # the controller's draw
    assert sizes == [rules.hand_size - table.turn] * rules.num_players, state.hands()
  assert [len(t) for t in state.tableaus()] == [table.turn] * rules.num_players
  kept = [sum(r.tableaus[p].count(PUDDING) for r in state.round_records())
          for p in range(rules.num_players)]
  assert state.puddings() == [k + t.count(PUDDING) for k, t in zip(kept, state.tableaus())]
  assert state.scores() == [sum(r.points[p] for r in state.round_records())
                            for p in range(rules.num_players)]
  assert state.returns() == [0.0] * rules.num_players


def check_sushi_draft_state(state) -> None:
  """Cards of the round conserved (deck, hands, eaten); equal hands at a decision; chip points
  are the chips given; a finished game's returns follow from them."""
  rules, table = state.get_game().rules, state.table()
  names = ["Tuna Nigiri", "Shrimp & Avocado Roll", "Salmon Roll", "Cucumber Maki",
           "Mackerel Temaki", "Wild"]
  cards = Counter({name: n for name, n in zip(names, table.deck)})
  for hand in state.hands():
    cards.update(hand)
  for eaten in state.eaten():
    cards.update("Wild" if card.startswith("Wild as ") else card for card in eaten)
  assert [cards[name] for name in names] == list(rules.deck)
  if state.is_simultaneous_node():
    assert len({len(hand) for hand in state.hands()}) == 1
  records = state.round_records()
  assert state.scores() == [sum(v for r in records for _, p, v in r.chips if p == q)
                            for q in range(rules.num_players)]
  if state.is_terminal():
    scores = state.scores()
    best = max(scores)
    won = [p for p, s in enumerate(scores) if s == best]
    expected = [1 / len(won) if p in won else 0.0 for p in range(len(scores))] \
        if rules.utility == "win" else rulebook.utility_of(rules.utility, scores, [0] * len(scores))
    assert state.returns() == pytest.approx(expected)
  else:
    assert state.returns() == [0.0] * rules.num_players


def check_state(state) -> None:
  """The checks of the state's game (either drafting game)."""
  if state.get_game().get_type().short_name == "python_sushi_draft":
    check_sushi_draft_state(state)
  else:
    check_sushi_go_state(state)
