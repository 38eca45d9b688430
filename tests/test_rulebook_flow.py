"""The flow of a turn held against docs/rules.md step by step, on random games, read only through
the public state API (hands and tableaus as card names, action strings).

Sushi Go: each player's chosen cards join its tableau in the order named ("Wasabi + Squid Nigiri"),
a Chopsticks pick returns one Chopsticks from the tableau to the hand, and the rest of each hand
goes to the next player in the round's direction (left: player i to i + 1; `alternate`: right in
round 2). The last card of a round is placed without a choice. Sushi Draft: eaten cards leave the
hand, the kept card stays with its holder, and the rest pass left.
"""

from __future__ import annotations

import collections
import random

import pyspiel
from hypothesis import given, settings
from hypothesis import strategies as st

import rulebook
from support import CH, card_totals, load, walk

SMALL_DECK = ("tempura:12/sashimi:8/dumpling:8/maki2:8/egg:6/salmon:6/squid:6/wasabi:10"
              "/chopsticks:12/pudding:8")
VARIANTS = (
    {},
    {"hand_size": 5, "rounds": 2, "deck": SMALL_DECK},
    {"hand_size": 5, "rounds": 3, "deck": SMALL_DECK, "pass_direction": "alternate"},
    {"hand_size": 4, "rounds": 2, "deck": SMALL_DECK, "pass_direction": "right", "deal": "hand"},
    {"soy_sauce": True, "pass_direction": "alternate"},
)


def examples(n: int):
  return settings(max_examples=n, deadline=None, derandomize=True, database=None)


def direction(pass_direction: str, round_index: int) -> int:
  """+1 when hands pass to the next player number (left), -1 otherwise (docs/rules.md)."""
  if pass_direction == "alternate":
    return -1 if round_index == 1 else 1
  return 1 if pass_direction == "left" else -1


def placed_cards(action_string: str) -> list[str]:
  return action_string.split(" + ")


def minus(cards: list[str], taken: list[str]) -> collections.Counter:
  left = collections.Counter(cards)
  left.subtract(taken)
  assert min(left.values(), default=0) >= 0, (cards, taken)
  return +left


@examples(120)
@given(players=st.sampled_from([2, 3, 4, 5]), variant=st.sampled_from(range(len(VARIANTS))),
       seed=st.integers(0, 2**32 - 1))
def test_sushi_go_turns_follow_the_rulebook(players, variant, seed):
  params = VARIANTS[variant]
  game = load(players=players, **params)
  rng = random.Random(seed)
  turns = 0
  state = game.new_initial_state()
  while not state.is_terminal():
    if not state.is_simultaneous_node():
      state.apply_action(rng.choices(*zip(*state.chance_outcomes()))[0])
      continue
    assert card_totals(state) == list(game.rules.deck)
    round_index, finished = state.table().round, len(state.round_records())
    hands, tableaus = state.hands(), state.tableaus()
    joint = [rng.choice(state.legal_actions(p)) for p in range(players)]
    picks = [placed_cards(state.action_to_string(p, a)) for p, a in enumerate(joint)]
    state.apply_actions(joint)
    turns += 1
    expected_tableaus, passed = [], []
    for p in range(players):
      tableau = list(tableaus[p])
      left = minus(hands[p], picks[p])
      if len(picks[p]) == 2:  # Chopsticks used: it goes back into the hand
        assert CH in tableau
        tableau.remove(CH)
        left[CH] += 1
      expected_tableaus.append(tableau + picks[p])
      passed.append(left)
    d = direction(params.get("pass_direction", "left"), round_index)
    received = [passed[(p - d) % players] for p in range(players)]
    if len(state.round_records()) > finished:  # the last card was placed without a choice
      record = state.round_records()[-1]
      for p in range(players):
        last, = received[p].elements()
        assert record.tableaus[p] == expected_tableaus[p] + [last]
    else:
      assert state.tableaus() == expected_tableaus
      assert [collections.Counter(hand) for hand in state.hands()] == received
  assert turns == game.rules.rounds * (game.rules.hand_size - 1)


DRAFT_PARAMS = ({}, {"deck": "tuna:9/shrimp:8/wild:3", "hand_size": 4})


@examples(80)
@given(players=st.sampled_from([2, 3, 4, 5]), variant=st.sampled_from([0, 1]),
       seed=st.integers(0, 2**32 - 1))
def test_sushi_draft_steps_follow_the_rulebook(players, variant, seed):
  game = pyspiel.load_game("python_sushi_draft", {"players": players, **DRAFT_PARAMS[variant]})
  rng = random.Random(seed)
  eats = 0
  for state in walk(game.new_initial_state(), rng):
    if not state.is_simultaneous_node():
      continue
    probe = state.clone()
    hands, eaten, finished = probe.hands(), probe.eaten(), len(probe.round_records())
    joint = [rng.choice(probe.legal_actions(p)) for p in range(players)]
    names = [probe.action_to_string(p, a) for p, a in enumerate(joint)]
    probe.apply_actions(joint)
    if names[0].startswith("Eat "):
      eats += 1
      cards = [name[len("Eat "):] for name in names]
      if len(probe.round_records()) > finished:  # the last turn: the remaining card is dropped
        assert probe.round_records()[-1].eaten == [e + [c] for e, c in zip(eaten, cards)]
        continue
      assert probe.eaten() == [e + [c] for e, c in zip(eaten, cards)]
      taken = ["Wild" if c.startswith("Wild as ") else c for c in cards]
      assert [collections.Counter(h) for h in probe.hands()] == \
          [minus(h, [c]) for h, c in zip(hands, taken)]
    else:
      assert probe.table().turn == state.table().turn + 1  # a Keep step ends the turn
      kept = [name[len("Keep "):] for name in names]
      rest = [minus(h, [k]) for h, k in zip(hands, kept)]
      expected = [rest[(p - 1) % players] + collections.Counter([kept[p]])
                  for p in range(players)]
      assert [collections.Counter(h) for h in probe.hands()] == expected
      assert probe.eaten() == eaten
  assert eats == game.rules.rounds * (game.rules.hand_size - 1)


CHOPSTICKS_DECK = "chopsticks:14/wasabi:14/egg:8/salmon:8/squid:8/tempura:8"


@examples(60)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_chopsticks_offer_both_orders_exactly_when_the_order_matters(players, seed):
  # docs/rules.md (Chopsticks): "The action space allows both orders where they differ." Two
  # orders differ when they leave different Nigiri points or a different number of free Wasabi.
  game = load(players=players, hand_size=6, rounds=2, deck=CHOPSTICKS_DECK)
  checked = 0
  for state in walk(game.new_initial_state(), random.Random(seed)):
    if not state.is_simultaneous_node():
      continue
    for player in range(players):
      tableau, hand = state.tableaus()[player], collections.Counter(state.hands()[player])
      offered = {tuple(placed_cards(state.action_to_string(player, a)))
                 for a in state.legal_actions(player)}
      pairs = {pick for pick in offered if len(pick) == 2}
      if CH not in tableau:
        assert not pairs
        continue
      checked += 1
      for first in hand:
        for second in hand:
          if first == second:
            assert ((first, first) in pairs) == (hand[first] >= 2)
            continue
          in_order, reversed_ = tableau + [first, second], tableau + [second, first]
          differ = (rulebook.nigiri_points(in_order), rulebook.free_wasabi(in_order)) != \
              (rulebook.nigiri_points(reversed_), rulebook.free_wasabi(reversed_))
          both = {(first, second), (second, first)} <= pairs
          assert (first, second) in pairs or (second, first) in pairs, (first, second, pairs)
          assert both == differ, (tableau, first, second, sorted(pairs))
  assert checked > 0
