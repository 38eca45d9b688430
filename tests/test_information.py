"""What each player knows: information states, observations and `resample_from_infostate`.

Hands pass from player i to player i+1, so at turn t (0-based) of a round player p holds the hand
first dealt to player p - t, and has held the hands dealt to p, p-1, ..., p-t. With 3 players,
player 0 receives player 2's hand at turn 1 and player 1's hand only at turn 2.

Expected values are worked out by hand from docs/rules.md and the docstrings of `sushi_go.py` (observer
layout: seats relative to the observer, index 0 is the observer, 1 the player to its left). The
"no hidden card" checks use two independent ways of changing what a player has not seen: an edit of
the chance history written here (`perturb_hidden`), and `resample_from_infostate` itself.
"""

from __future__ import annotations

import collections
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation
from scipy import stats

from sushigo_spiel.drafting.adapter import history_steps
from support import (CH, D, EGG, M2, SA, SAL, SQ, P, T, W, card_totals, deal, load, play,
                     random_playout, walk)

SINGLE = pyspiel.PrivateInfoType.SINGLE_PLAYER
NONE = pyspiel.PrivateInfoType.NONE
ALL = pyspiel.PrivateInfoType.ALL_PLAYERS



# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def observer(game, perfect_recall: bool, private=SINGLE, public: bool = True):
  return make_observation(game, pyspiel.IIGObservationType(
      public_info=public, perfect_recall=perfect_recall, private_info=private))


def views(state, player: int):
  """Everything the default views tell `player`: info state and observation, strings and tensors."""
  return (state.information_state_string(player),
          tuple(state.information_state_tensor(player)),
          state.observation_string(player),
          tuple(state.observation_tensor(player)))




def assert_cards_conserved(state):
  assert card_totals(state) == list(state.get_game().rules.deck)


def seen(num_players: int, player: int, holder: int, turn: int) -> bool:
  """Whether `player` has held the hand `holder` holds at `turn` (written from the pass rule)."""
  dealt_to = (holder - turn) % num_players
  return (player - dealt_to) % num_players <= turn


def steps_of(state) -> list:
  """The history as single actions (ints) and joint actions (lists)."""
  steps = history_steps(state.full_history(), state.get_game().num_players())
  assert sum(len(s) if isinstance(s, list) else 1 for s in steps) == len(state.history())
  return steps


def replay(game, steps):
  state = game.new_initial_state()
  for step in steps:
    if isinstance(step, list):
      state.apply_actions(step)
    else:
      state.apply_action(step)
  return state


def public_picks(state):
  """The reveals: every turn's cards by player, and the joint actions of the history."""
  log = [(turn.round, turn.picks) for turn in state.table().log]
  return log, [s for s in steps_of(state) if isinstance(s, list)]


def perturb_hidden(state, origins, rng: random.Random):
  """The same history with one card of this round's deal changed (deal=card games).

  A card still in the current hand first dealt to one of `origins` (never a Chopsticks, which may
  have come back from a tableau) is swapped for a card of another type from the undealt deck. Every
  pick stays legal. Returns None when no such swap exists.
  """
  game = state.get_game()
  rules, table = game.rules, state.table()
  n, size = rules.num_players, rules.hand_size
  steps = steps_of(state)
  probe, start = game.new_initial_state(), None
  for i, step in enumerate(steps):
    in_round = probe.table().round == table.round
    if probe.is_chance_node() and in_round and start is None:
      start = i
    if isinstance(step, list):
      probe.apply_actions(step)
    else:
      probe.apply_action(step)
  if start is None:
    return None
  options = []
  for k in origins:
    holder = (k + table.turn) % n
    for a, count in enumerate(table.hands[holder]):
      if not count or a == rules.chopsticks:
        continue
      for b, left in enumerate(table.deck):
        if not left or b == a:
          continue
        for i in range(start + k * size, min(start + (k + 1) * size, len(steps))):
          if not isinstance(steps[i], list) and steps[i] == a:
            options.append((i, b))
  if not options:
    return None
  i, b = rng.choice(options)
  changed = list(steps)
  changed[i] = b
  return replay(game, changed)




def at(game, seed: int, round_: int, turn: int | None = None, dealt: int | None = None):
  """A random state at a given round and turn (decision node) or deal step (chance node)."""
  def stop(state):
    table = state.table()
    if table.round != round_:
      return False
    if dealt is not None:
      return state.is_chance_node() and table.dealt == dealt
    return state.is_simultaneous_node() and table.turn == turn
  state = random_playout(game.new_initial_state(), random.Random(seed), stop=stop)
  assert not state.is_terminal()
  return state


# --------------------------------------------------------------------------------------------
# A scripted game: 3 players, 4 cards a hand, 2 rounds
# --------------------------------------------------------------------------------------------

SCRIPT = dict(players=3, hand_size=4, rounds=2,
              deck="tempura:4/sashimi:4/dumpling:3/maki2:2/egg:2/salmon:2/squid:2/wasabi:2"
                   "/chopsticks:2/pudding:3")
# The card numbers: the types of the deck in the canonical order of docs/rules.md.
ORDER = [T, SA, D, M2, EGG, SAL, SQ, W, CH, P]
IDX = {name: i for i, name in enumerate(ORDER)}

R1_DEAL = [[W, SQ, P, D], [T, T, M2, CH], [SA, P, SAL, EGG]]
# R1 T1: P0 Wasabi, P1 Chopsticks, P2 Pudding. Hands then pass: P0 <- P2's [SA, SAL, EGG],
#   P1 <- P0's [SQ, P, D], P2 <- P1's [T, T, M2].
# R1 T2: P0 Salmon (on its Wasabi), P1 uses Chopsticks: Dumpling + Squid, Chopsticks back into the
#   hand [P, CH]; P2 Tempura. Pass: P0 <- [T, M2], P1 <- [SA, EGG], P2 <- [P, CH].
# R1 T3: P0 Maki 2, P1 Egg, P2 Pudding. Pass: P0 <- [CH], P1 <- [T], P2 <- [SA].
# R1 T4 (automatic): P0 Chopsticks, P1 Tempura, P2 Sashimi.
R1_PICKS = [[W, CH, P], [SAL, "Dumpling + Squid Nigiri", T], [M2, EGG, P]]
# Round 1 tableaus: P0 [W, SAL, M2, CH] = 6 (Salmon tripled) + 6 (only Maki) = 12;
#   P1 [D, SQ, EGG, T] = 1 + 3 + 1 = 5; P2 [P, T, P, SA] = 0. Puddings 0, 0, 2.
R2_DEAL = [[T, T, SA, SA], [D, D, M2, EGG], [SAL, SQ, W, P]]
# Undealt after round 2's deal: Sashimi, Chopsticks.
# R2 T1: P0 Sashimi, P1 Egg, P2 Wasabi. Pass: P0 <- [SAL, SQ, P], P1 <- [T, T, SA], P2 <- [D, D, M2]
# R2 T2: P0 Pudding, P1 Tempura, P2 Dumpling. Pass: P0 <- [D, M2], P1 <- [SAL, SQ], P2 <- [T, SA]
# R2 T3: P0 Maki 2, P1 Squid, P2 Tempura. Pass: P0 <- [SA], P1 <- [D], P2 <- [SAL]
# R2 T4 (automatic): P0 Sashimi, P1 Dumpling, P2 Salmon (on its Wasabi).
R2_PICKS = [[SA, EGG, W], [P, T, D], [M2, SQ, T]]
# Round 2: P0 [SA, P, M2, SA] = 0 + 6 (only Maki) = 6; P1 [EGG, T, SQ, D] = 1 + 3 + 1 = 5;
#   P2 [W, D, T, SAL] = 1 + 6 = 7. Totals 18, 10, 7; Puddings 1, 0, 2: +6 to P2, -6 to P1.


def scripted(upto: str):
  """The scripted game played up to a label such as "R1T2" (that turn's decision node)."""
  game = load(**SCRIPT)
  assert [card.name for card in game.rules.cards] == ORDER
  state = game.new_initial_state()
  for round_, (hands, picks) in enumerate([(R1_DEAL, R1_PICKS), (R2_DEAL, R2_PICKS)], 1):
    if upto == f"R{round_}deal":
      return state
    deal(state, hands)
    for turn, joint in enumerate(picks, 1):
      if upto == f"R{round_}T{turn}":
        return state
      play(state, joint)
  assert upto == "end" and state.is_terminal()
  return state


def counts(names) -> list[int]:
  vector = [0] * len(ORDER)
  for name in names:
    vector[IDX[name]] += 1
  return vector


def test_scripted_game_scores_as_worked_out():
  state = scripted("end")
  assert [r.points for r in state.round_records()] == [[12, 5, 0], [6, 5, 7]]
  assert state.puddings() == [1, 0, 2]
  assert state.returns() == [18.0, 4.0, 13.0]


# --------------------------------------------------------------------------------------------
# Information states: perfect recall
# --------------------------------------------------------------------------------------------

# Player 0's hands and every reveal, turn by turn, up to R2 T2.
P0_HISTORY = [
    ("R1 T1:", "Dumpling, Squid Nigiri, Wasabi, Pudding", "P0 Wasabi | P1 Chopsticks | P2 Pudding"),
    ("R1 T2:", "Sashimi, Egg Nigiri, Salmon Nigiri",
     "P0 Salmon Nigiri | P1 Dumpling + Squid Nigiri | P2 Tempura"),
    ("R1 T3:", "Tempura, Maki Roll 2", "P0 Maki Roll 2 | P1 Egg Nigiri | P2 Pudding"),
    ("R1 T4:", "Chopsticks", "P0 Chopsticks | P1 Tempura | P2 Sashimi"),
    ("R2 T1:", "Tempura x2, Sashimi x2", "P0 Sashimi | P1 Egg Nigiri | P2 Wasabi"),
    ("R2 T2:", "Salmon Nigiri, Squid Nigiri, Pudding", None),
]


def test_info_string_has_every_held_hand_and_every_reveal_in_order():
  state = scripted("R2T2")
  lines = state.information_state_string(0).split("\n")
  assert lines[0] == "P0"
  assert len(lines) == 1 + len(P0_HISTORY)
  for line, (prefix, hand, picks) in zip(lines[1:], P0_HISTORY):
    assert line.startswith(prefix), (line, prefix)
    assert f"hand [{hand}]" in line, line
    if picks is None:
      assert "picks" not in line
    else:
      assert line.endswith(f"picks {picks}"), line


def test_info_string_grows_by_one_line_per_turn():
  # Perfect recall: each info string extends the previous one (the last line gains its picks).
  previous = None
  for label in ["R1T1", "R1T2", "R1T3", "R2deal", "R2T1", "R2T2", "R2T3"]:
    state = scripted(label)
    lines = state.information_state_string(1).split("\n")
    if previous is not None:
      assert lines[:len(previous) - 1] == previous[:-1]
      assert lines[len(previous) - 1].startswith(previous[-1]) or previous[-1].endswith("dealing")
    previous = lines


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_info_state_never_forgets(players):
  # Along random games: every line but the last of a player's info string stays as it was (the
  # last one gains the turn's picks), and every non-zero entry of the tensor keeps its value.
  game = load(players=players)
  for seed in range(3):
    previous = [None] * players
    for state in walk(game.new_initial_state(), random.Random(seed)):
      if not state.is_simultaneous_node():
        continue
      for p in range(players):
        lines = state.information_state_string(p).split("\n")
        tensor = np.array(state.information_state_tensor(p))
        if previous[p] is not None:
          old_lines, old_tensor = previous[p]
          assert lines[:len(old_lines) - 1] == old_lines[:-1]
          assert lines[len(old_lines) - 1].startswith(old_lines[-1])
          kept = old_tensor != 0
          np.testing.assert_array_equal(tensor[kept], old_tensor[kept])
          assert (tensor != 0).sum() > kept.sum()
        previous[p] = (lines, tensor)


def test_info_string_of_other_players():
  state = scripted("R1T3")
  assert state.information_state_string(1).split("\n") == [
      "P1",
      "R1 T1: hand [Tempura x2, Maki Roll 2, Chopsticks] picks P0 Wasabi | P1 Chopsticks"
      " | P2 Pudding",
      "R1 T2: hand [Dumpling, Squid Nigiri, Pudding] picks P0 Salmon Nigiri"
      " | P1 Dumpling + Squid Nigiri | P2 Tempura",
      "R1 T3: hand [Sashimi, Egg Nigiri]",
  ]
  lines = state.information_state_string(2).split("\n")
  assert lines[0] == "P2"
  assert "hand [Sashimi, Egg Nigiri, Salmon Nigiri, Pudding]" in lines[1]
  assert "hand [Tempura x2, Maki Roll 2]" in lines[2]
  assert "hand [Chopsticks, Pudding]" in lines[3]  # the Chopsticks came back to this hand


def test_info_string_while_dealing():
  game = load(**SCRIPT)
  state = game.new_initial_state()
  state.apply_action(IDX[W])  # player 0's first card: not shown before the deal is done
  assert state.information_state_string(0) == "P0\nR1 dealing"
  assert not any(state.information_state_tensor(0))
  state = scripted("R2deal")
  state.apply_action(IDX[T])
  lines = state.information_state_string(0).split("\n")
  assert len(lines) == 1 + 4 + 1 and lines[-1] == "R2 dealing"
  assert lines[1:5] == scripted("R2T1").information_state_string(0).split("\n")[1:5]


def test_info_tensor_layout_and_contents():
  game = load(**SCRIPT)
  n, size, types, rounds = 3, 4, len(ORDER), 2
  state = scripted("R2T2")
  obs = observer(game, perfect_recall=True)
  assert list(obs.dict) == ["picks", "hand_history"]
  assert obs.dict["picks"].shape == (rounds, size, n, 2, types)
  assert obs.dict["hand_history"].shape == (rounds, size, types)
  assert game.information_state_tensor_shape() == [obs.tensor.size]
  for player in range(n):
    obs.set_from(state, player)
    np.testing.assert_array_equal(obs.tensor, state.information_state_tensor(player))

  # Player 1: seats relative to it are [P1, P2, P0].
  obs.set_from(state, 1)
  picks = np.zeros((rounds, size, n, 2, types))
  all_picks = [
      (0, 0, [[W], [CH], [P]]),
      (0, 1, [[SAL], [D, SQ], [T]]),
      (0, 2, [[M2], [EGG], [P]]),
      (0, 3, [[CH], [T], [SA]]),
      (1, 0, [[SA], [EGG], [W]]),
  ]
  for r, t, by_player in all_picks:
    for seat, p in enumerate([1, 2, 0]):
      for slot, name in enumerate(by_player[p]):
        picks[r, t, seat, slot, IDX[name]] = 1
  np.testing.assert_array_equal(obs.dict["picks"], picks)
  history = np.zeros((rounds, size, types))
  held = [
      (0, 0, [T, T, M2, CH]), (0, 1, [SQ, P, D]), (0, 2, [SA, EGG]), (0, 3, [T]),
      (1, 0, [D, D, M2, EGG]), (1, 1, [T, T, SA]),
  ]
  for r, t, hand in held:
    history[r, t] = counts(hand)
  np.testing.assert_array_equal(obs.dict["hand_history"], history)


def _variant_state(upto: str, p1_hand):
  """The scripted round 1 with another hand for player 1 (same picks)."""
  game = load(**SCRIPT)
  state = game.new_initial_state()
  deal(state, [R1_DEAL[0], p1_hand, R1_DEAL[2]])
  for turn, joint in enumerate(R1_PICKS, 1):
    if upto == f"R1T{turn}":
      return state
    play(state, joint)
  raise AssertionError(upto)


def test_unseen_cards_do_not_change_the_info_state():
  # Player 1 is dealt [T, T, M2, CH] or [T, SA, M2, CH]; the picks are the same (P1 Chopsticks at
  # T1, P2 Tempura from that hand at T2). Player 0 holds that hand only at T3, so until then the
  # two games look the same to it; player 2 holds it at T2.
  other = [T, SA, M2, CH]
  for label in ["R1T1", "R1T2"]:
    a, b = _variant_state(label, R1_DEAL[1]), _variant_state(label, other)
    assert a.hands() != b.hands()
    assert a.information_state_string(0) == b.information_state_string(0)
    np.testing.assert_array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    assert a.observation_string(0) == b.observation_string(0)
    np.testing.assert_array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.information_state_tensor(1) != b.information_state_tensor(1)
  a, b = _variant_state("R1T1", R1_DEAL[1]), _variant_state("R1T1", other)
  assert a.information_state_string(2) == b.information_state_string(2)
  a, b = _variant_state("R1T2", R1_DEAL[1]), _variant_state("R1T2", other)
  assert a.information_state_string(2) != b.information_state_string(2)
  assert a.information_state_tensor(2) != b.information_state_tensor(2)
  # At T3 player 0 holds the hand: [T, M2] against [SA, M2].
  a, b = _variant_state("R1T3", R1_DEAL[1]), _variant_state("R1T3", other)
  assert a.information_state_string(0) != b.information_state_string(0)
  assert a.information_state_tensor(0) != b.information_state_tensor(0)


# --------------------------------------------------------------------------------------------
# Observations
# --------------------------------------------------------------------------------------------

PUBLIC_PIECES = ["round", "turn", "tableaus", "free_wasabi", "on_wasabi", "puddings", "points"]


def test_observation_layout():
  game = load(**SCRIPT)
  n, types = 3, len(ORDER)
  obs = observer(game, perfect_recall=False)
  assert list(obs.dict) == PUBLIC_PIECES + ["hand", "seen_hands"]
  shapes = {name: piece.shape for name, piece in obs.dict.items()}
  assert shapes == {"round": (2,), "turn": (4,), "tableaus": (n, types), "free_wasabi": (n,),
                    "on_wasabi": (n, types), "puddings": (n,), "points": (n,),
                    "hand": (types,), "seen_hands": (n - 1, types + 1)}
  assert game.observation_tensor_shape() == [obs.tensor.size]
  for label in ["R1T1", "R1T2", "R1T3", "R2T2"]:
    state = scripted(label)
    for player in range(n):
      obs.set_from(state, player)
      np.testing.assert_array_equal(obs.tensor, state.observation_tensor(player))
      assert obs.string_from(state, player) == state.observation_string(player)


def _seen(hand=None):
  """A seen_hands row: the counts and a last column of 1 when the hand is known."""
  return counts(hand) + [1] if hand is not None else [0] * (len(ORDER) + 1)


def test_observation_pieces_round_1_turn_2():
  state = scripted("R1T2")
  obs = observer(state.get_game(), perfect_recall=False)
  obs.set_from(state, 0)
  d = obs.dict
  assert list(d["round"]) == [1, 0]
  assert list(d["turn"]) == [0, 1, 0, 0]
  assert d["tableaus"].tolist() == [counts([W]), counts([CH]), counts([P])]
  assert list(d["free_wasabi"]) == [1, 0, 0]
  assert not d["on_wasabi"].any()
  assert list(d["puddings"]) == [0, 0, 0] and list(d["points"]) == [0, 0, 0]
  assert list(d["hand"]) == counts([SA, SAL, EGG])
  # Player 1 holds player 0's former hand; player 2 holds player 1's hand, never seen by 0.
  assert d["seen_hands"].tolist() == [_seen([SQ, P, D]), _seen()]

  obs.set_from(state, 2)  # seats [P2, P0, P1]
  assert d["tableaus"].tolist() == [counts([P]), counts([W]), counts([CH])]
  assert list(d["free_wasabi"]) == [0, 1, 0]
  assert list(d["hand"]) == counts([T, T, M2])
  # Player 0 holds player 2's first hand (seen); player 1 holds player 0's (not seen by 2).
  assert d["seen_hands"].tolist() == [_seen([SA, SAL, EGG]), _seen()]


def test_observation_pieces_round_1_turn_3():
  state = scripted("R1T3")
  obs = observer(state.get_game(), perfect_recall=False)
  obs.set_from(state, 0)
  d = obs.dict
  assert list(d["turn"]) == [0, 0, 1, 0]
  # Player 1 used its Chopsticks: it left the tableau.
  assert d["tableaus"].tolist() == [counts([W, SAL]), counts([D, SQ]), counts([P, T])]
  assert list(d["free_wasabi"]) == [0, 0, 0]
  assert d["on_wasabi"].tolist() == [counts([SAL]), counts([]), counts([])]
  assert list(d["hand"]) == counts([T, M2])
  # Both other hands have passed through player 0 (the Chopsticks came back in public).
  assert d["seen_hands"].tolist() == [_seen([SA, EGG]), _seen([P, CH])]
  obs.set_from(state, 1)  # seats [P1, P2, P0]
  assert d["on_wasabi"].tolist() == [counts([]), counts([]), counts([SAL])]
  assert list(d["hand"]) == counts([SA, EGG])
  assert d["seen_hands"].tolist() == [_seen([P, CH]), _seen([T, M2])]


def test_observation_pieces_round_2():
  state = scripted("R2T1")
  obs = observer(state.get_game(), perfect_recall=False)
  obs.set_from(state, 0)
  d = obs.dict
  assert list(d["round"]) == [0, 1]
  assert list(d["turn"]) == [1, 0, 0, 0]
  assert not d["tableaus"].any() and not d["free_wasabi"].any() and not d["on_wasabi"].any()
  assert list(d["puddings"]) == [0, 0, 2]
  assert list(d["points"]) == [12, 5, 0]
  assert list(d["hand"]) == counts([T, T, SA, SA])
  assert d["seen_hands"].tolist() == [_seen(), _seen()]
  obs.set_from(state, 2)  # seats [P2, P0, P1]
  assert list(d["puddings"]) == [2, 0, 0]
  assert list(d["points"]) == [0, 12, 5]
  state = scripted("R2T2")
  obs.set_from(state, 0)
  assert d["tableaus"].tolist() == [counts([SA]), counts([EGG]), counts([W])]
  assert list(d["free_wasabi"]) == [0, 0, 1]
  assert list(d["puddings"]) == [0, 0, 2]  # kept from finished rounds only


def test_observation_at_chance_node_and_game_end():
  state = scripted("R2deal")
  state.apply_action(IDX[T])
  obs = observer(state.get_game(), perfect_recall=False)
  obs.set_from(state, 0)
  assert not obs.dict["hand"].any() and not obs.dict["seen_hands"].any()
  assert list(obs.dict["points"]) == [12, 5, 0]
  assert "hand" not in state.observation_string(0)
  assert "dealing" in state.observation_string(0)
  state = scripted("end")
  obs.set_from(state, 0)
  assert not obs.dict["hand"].any() and not obs.dict["round"].any()
  assert list(obs.dict["puddings"]) == [1, 0, 2]


def test_observation_string():
  state = scripted("R1T3")
  lines = state.observation_string(0).split("\n")
  assert lines[0] == "Round 1/2, turn 3/4"
  assert lines[1] == "P0 tableau [Wasabi, Salmon Nigiri] free Wasabi 0, Puddings 0, points 0"
  assert lines[2] == "P1 tableau [Dumpling, Squid Nigiri] free Wasabi 0, Puddings 0, points 0"
  assert lines[3] == "P2 tableau [Pudding, Tempura] free Wasabi 0, Puddings 0, points 0"
  assert lines[4] == "P0 hand [Tempura, Maki Roll 2]"
  assert set(lines[5:]) == {"P1 hand (seen) [Sashimi, Egg Nigiri]",
                            "P2 hand (seen) [Chopsticks, Pudding]"}
  state = scripted("R2T2")
  lines = state.observation_string(1).split("\n")
  assert lines[0] == "Round 2/2, turn 2/4"
  assert lines[1] == "P0 tableau [Sashimi] free Wasabi 0, Puddings 0, points 12"
  assert lines[2] == "P1 tableau [Egg Nigiri] free Wasabi 0, Puddings 0, points 5"
  assert lines[3] == "P2 tableau [Wasabi] free Wasabi 1, Puddings 2, points 0"
  assert lines[4] == "P1 hand [Tempura x2, Sashimi]"
  # Player 2 holds player 1's first hand of round 2; player 0 holds player 2's, unseen by 1.
  assert lines[5:] == ["P2 hand (seen) [Dumpling x2, Maki Roll 2]"]


def test_public_observer():
  game = load(**SCRIPT)
  obs = observer(game, perfect_recall=False, private=NONE)
  assert list(obs.dict) == PUBLIC_PIECES
  recall = observer(game, perfect_recall=True, private=NONE)
  assert list(recall.dict) == ["picks"]
  for label in ["R1T1", "R1T2", "R1T3", "R2T2", "end"]:
    state = scripted(label)
    strings = {obs.string_from(state, p) for p in range(3)}
    assert len(strings) == 1  # nothing player-specific
    text = strings.pop()
    assert "hand" not in text
    recall_strings = {recall.string_from(state, p) for p in range(3)}
    assert len(recall_strings) == 1
    assert "hand" not in recall_strings.pop()
    # The same tensor from every seat, rotated.
    obs.set_from(state, 0)
    first = {name: piece.copy() for name, piece in obs.dict.items()}
    for p in range(1, 3):
      obs.set_from(state, p)
      for name in ["tableaus", "free_wasabi", "on_wasabi", "puddings", "points"]:
        np.testing.assert_array_equal(obs.dict[name], np.roll(first[name], -p, axis=0))


def test_public_observer_ignores_every_hand():
  # Two deals that differ in the cards still in hands; public views are identical for everyone.
  a, b = _variant_state("R1T2", R1_DEAL[1]), _variant_state("R1T2", [T, SA, M2, CH])
  for recall in (False, True):
    obs = observer(a.get_game(), perfect_recall=recall, private=NONE)
    for p in range(3):
      obs.set_from(a, p)
      tensor = obs.tensor.copy()
      obs.set_from(b, p)
      np.testing.assert_array_equal(obs.tensor, tensor)
      assert obs.string_from(a, p) == obs.string_from(b, p)


def test_all_players_observer():
  game = load(**SCRIPT)
  state = scripted("R1T3")
  hands = {0: [T, M2], 1: [SA, EGG], 2: [P, CH]}
  obs = observer(game, perfect_recall=False, private=ALL)
  assert list(obs.dict) == PUBLIC_PIECES + ["hands"]
  obs.set_from(state, 1)
  assert obs.dict["hands"].tolist() == [counts(hands[p]) for p in (1, 2, 0)]
  text = obs.string_from(state, 1)
  assert "P0 hand [Tempura, Maki Roll 2]" in text
  assert "P1 hand [Sashimi, Egg Nigiri]" in text
  assert "P2 hand [Chopsticks, Pudding]" in text
  recall = observer(game, perfect_recall=True, private=ALL)
  assert recall.dict["hand_history"].shape == (2, 4, 3, len(ORDER))
  recall.set_from(state, 0)
  assert recall.dict["hand_history"][0, 0].tolist() == [counts(h) for h in R1_DEAL]
  assert recall.dict["hand_history"][0, 2].tolist() == [counts(hands[p]) for p in range(3)]
  text = recall.string_from(state, 0)
  assert "P1 hand [Tempura x2, Maki Roll 2, Chopsticks]" in text


def test_factored_observation_strings():
  game = load(**SCRIPT)
  state = scripted("R1T3")
  public = observer(game, perfect_recall=False, private=NONE)
  private = observer(game, perfect_recall=False, private=SINGLE, public=False)
  assert list(private.dict) == ["hand", "seen_hands"]
  for p in range(3):
    full = state.observation_string(p).split("\n")
    private_lines = private.string_from(state, p).split("\n")
    public_lines = public.string_from(state, p).split("\n")
    assert "tableau" not in private.string_from(state, p)
    assert private_lines[0].startswith(f"P{p} hand [")
    assert full == public_lines + private_lines
  assert private.string_from(state, 0).split("\n") == [
      "P0 hand [Tempura, Maki Roll 2]",
      "P1 hand (seen) [Sashimi, Egg Nigiri]",
      "P2 hand (seen) [Chopsticks, Pudding]"]
  private.set_from(state, 0)
  assert list(private.dict["hand"]) == counts([T, M2])
  # The private part of the information state: own hands only, no picks.
  recall = observer(game, perfect_recall=True, private=SINGLE, public=False)
  assert list(recall.dict) == ["hand_history"]
  text = recall.string_from(state, 0)
  assert "picks" not in text
  assert text.split("\n") == ["P0", "R1 T1: hand [Dumpling, Squid Nigiri, Wasabi, Pudding]",
                              "R1 T2: hand [Sashimi, Egg Nigiri, Salmon Nigiri]",
                              "R1 T3: hand [Tempura, Maki Roll 2]"]


# --------------------------------------------------------------------------------------------
# No hidden card leaks into a player's views
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_views_ignore_unseen_cards_edited_history(players):
  # Independent of resample_from_infostate: swap a card that `player` has not seen for a deck card.
  game = load(players=players)
  changed = 0
  for seed in range(4):
    rng = random.Random(seed)
    for state in walk(game.new_initial_state(), rng):
      table = state.table()
      if state.is_chance_node() and rng.random() > 0.1:
        continue
      for p in range(players):
        if state.is_chance_node():
          hidden = range(players)  # nothing is shown before the deal is done
        else:
          hidden = [k for k in range(players)
                    if not seen(players, p, (k + table.turn) % players, table.turn)]
        other = perturb_hidden(state, hidden, rng)
        if other is None:
          continue
        deck = other.table().deck
        assert (other.hands(), deck) != (state.hands(), table.deck)
        changed += 1
        assert views(other, p) == views(state, p)
        if state.is_simultaneous_node():
          assert other.legal_actions(p) == state.legal_actions(p)
          # The same edit in a hand `p` has held is seen: the check above can fail.
          known = [k for k in range(players) if k not in hidden]
          other = perturb_hidden(state, known, rng)
          if other is not None:
            assert views(other, p)[0] != views(state, p)[0]
            assert views(other, p)[1] != views(state, p)[1]
  assert changed > 50


PUBLIC_OBS = pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=NONE)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_public_views_ignore_every_hand_edited_history(players):
  game = load(players=players)
  public = make_observation(game, PUBLIC_OBS)
  changed = 0
  rng = random.Random(7)
  for state in walk(game.new_initial_state(), rng):
    other = perturb_hidden(state, range(players), rng)
    if other is None:
      continue
    changed += 1
    for p in range(players):
      assert public.string_from(other, p) == public.string_from(state, p)
      public.set_from(state, p)
      tensor = public.tensor.copy()
      public.set_from(other, p)
      np.testing.assert_array_equal(public.tensor, tensor)
  assert changed > 20


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_views_ignore_hidden_cards_resampled(players):
  game = load(players=players)
  public = make_observation(game, PUBLIC_OBS)
  samples = hands_changed = 0
  for seed in range(3):
    rng = random.Random(seed)
    for state in walk(game.new_initial_state(), rng):
      if state.is_chance_node() and rng.random() > 0.1:
        continue
      for p in range(players):
        other = state.resample_from_infostate(p, random.Random(rng.random()).random)
        samples += 1
        hands_changed += other.hands() != state.hands()
        assert views(other, p) == views(state, p)
        assert public.string_from(other, p) == public.string_from(state, p)
  assert hands_changed >= samples // 20, (hands_changed, samples)


# --------------------------------------------------------------------------------------------
# resample_from_infostate
# --------------------------------------------------------------------------------------------

def check_resample(state, player, sampler, play_seed=0):
  """The checks every resample must pass; returns the resampled state."""
  other = state.resample_from_infostate(player, sampler)
  assert other is not state
  assert other.current_player() == state.current_player()
  assert other.information_state_string(player) == state.information_state_string(player)
  np.testing.assert_array_equal(other.information_state_tensor(player),
                                state.information_state_tensor(player))
  assert public_picks(other) == public_picks(state)
  if state.is_simultaneous_node():
    assert other.legal_actions(player) == state.legal_actions(player)
  assert_cards_conserved(other)
  assert [r.points for r in other.round_records()] == [r.points for r in state.round_records()]
  assert other.puddings() == state.puddings()
  assert other.tableaus() == state.tableaus()
  finished = random_playout(other.clone(), random.Random(play_seed))
  assert finished.is_terminal()
  assert len(finished.returns()) == state.get_game().num_players()
  return other


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("round_", [0, 1, 2])
def test_resample_at_decision_nodes(players, round_):
  game = load(players=players)
  size = game.rules.hand_size
  for seed in range(6):
    turn = seed % (size - 1)
    state = at(game, seed, round_, turn=turn)
    for p in range(players):
      for k in range(3):
        check_resample(state, p, random.Random(100 * seed + 10 * p + k).random, seed)


@pytest.mark.parametrize("deal_mode", ["card", "hand"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_resample_reduced_deck_every_turn(players, deal_mode):
  game = load(players=players, hand_size=4, rounds=2, deal=deal_mode,
              deck="tempura:6/sashimi:5/dumpling:5/maki2:4/egg:2/salmon:3/squid:2/wasabi:3"
                   "/chopsticks:4/pudding:6")
  for seed in range(8 if deal_mode == "card" else 3):  # deal=hand: 715 outcomes a chance node
    rng = random.Random(seed)
    for state in walk(game.new_initial_state(), rng):
      for p in range(players):
        check_resample(state, p, random.Random(rng.random()).random, seed)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("round_", [0, 1, 2])
def test_resample_at_chance_nodes_mid_deal(players, round_):
  game = load(players=players)
  size = game.rules.hand_size
  for seed, dealt in enumerate([1, size, size + 1, players * size - 1]):
    state = at(game, seed, round_, dealt=dealt)
    assert state.is_chance_node()
    for p in range(players):
      other = check_resample(state, p, random.Random(seed * 10 + p).random, seed)
      partial = [len(h) for h in state.hands()]
      assert [len(h) for h in other.hands()] == partial


def test_resample_mid_deal_hand_mode():
  game = load(players=3, hand_size=4, rounds=2, deal="hand",
              deck="tempura:6/sashimi:5/dumpling:5/maki2:4/salmon:3/wasabi:3/chopsticks:4")
  for round_ in (0, 1):
    for dealt in (1, 2):
      state = at(game, dealt, round_, dealt=dealt)
      for p in range(3):
        check_resample(state, p, random.Random(p).random)


def test_resample_at_terminal_state():
  game = load(players=3)
  state = random_playout(game.new_initial_state(), random.Random(3))
  other = state.resample_from_infostate(1, random.Random(0).random)
  assert str(other) == str(state) and other.returns() == state.returns()


def test_resample_two_players_after_first_turn_changes_only_the_deck():
  # With 2 players both hands are known from turn 2 on; only the undealt deck is unknown, and its
  # composition follows from what was dealt: the resampled table is the same.
  game = load(players=2)
  for round_ in range(3):
    for turn in (1, 4, 8):
      state = at(game, 10 * round_ + turn, round_, turn=turn)
      for p in range(2):
        for k in range(5):
          other = check_resample(state, p, random.Random(k).random)
          assert other.table() == state.table()
          assert other.hands() == state.hands()


def test_resample_two_players_first_turn_redraws_the_other_hand():
  game = load(players=2)
  state = at(game, 5, 1, turn=0)
  for p in range(2):
    others = [check_resample(state, p, random.Random(k).random) for k in range(20)]
    assert all(o.hands()[p] == state.hands()[p] for o in others)
    assert len({tuple(o.hands()[1 - p]) for o in others}) > 5


def test_resample_with_uniform_probability_sampler():
  sampler = pyspiel.UniformProbabilitySampler(0., 1.)
  for players in (2, 3):
    game = load(players=players)
    for round_ in range(3):
      state = at(game, round_, round_, turn=1)
      for p in range(players):
        check_resample(state, p, sampler)
      state = at(game, round_, round_, dealt=3)
      check_resample(state, 0, sampler)


def test_resample_keeps_chopsticks_returned_to_an_unseen_hand():
  # 4 players, 4 cards. Player 2 takes Chopsticks at T1, then at T2 uses them on the hand first
  # dealt to player 1 (Sashimi + Dumpling), so the Chopsticks go back into that hand, which
  # player 3 holds at T3 and player 0 has not seen. Player 0 knows that hand holds the Chopsticks
  # and one of the cards it has not seen.
  game = load(players=4, hand_size=4, rounds=1,
              deck="tempura:5/sashimi:3/dumpling:3/chopsticks:1/pudding:4/squid:2")
  state = game.new_initial_state()
  deal(state, [[T] * 4, [SA, SA, D, D], [CH, T, SA, D], [P] * 4])
  play(state, [T, SA, CH, P])
  play(state, [P, T, "Sashimi + Dumpling", T])
  assert state.hands()[3] == [D, CH]
  for seed in range(20):
    other = check_resample(state, 0, random.Random(seed).random)
    assert CH in other.hands()[3]


def _hidden_hand_frequencies(state, player, holder, samples, seed):
  rng = random.Random(seed)
  found = collections.Counter()
  for _ in range(samples):
    other = state.resample_from_infostate(player, rng.random)
    found[tuple(sorted(other.hands()[holder]))] += 1
  return found


def test_resample_frequencies_uniform_first_turn():
  # One card of each type: player 0 holds Tempura and Sashimi; player 1's two cards are any 2 of
  # the 4 others, each pair with chance 1/6.
  game = load(players=2, hand_size=2, rounds=1,
              deck="tempura:1/sashimi:1/dumpling:1/maki1:1/egg:1/pudding:1")
  state = game.new_initial_state()
  deal(state, [[T, SA], [D, P]])
  samples = 3000
  found = _hidden_hand_frequencies(state, 0, 1, samples, seed=1)
  assert len(found) == 6
  assert all(T not in hand and SA not in hand for hand in found)
  assert stats.chisquare(list(found.values())).pvalue > 1e-3, found


def test_resample_frequencies_uniform_second_turn():
  # 3 players, one card of each of 11 types, 3 cards a hand, 2 left undealt. At T2 player 0 has
  # seen its own hand and player 2's; of player 1's hand it knows the card played at T1. The two
  # cards left in that hand (now held by player 2) are any 2 of the 4 cards player 0 has not seen:
  # 6 pairs, each with chance 1/6.
  game = load(players=3, hand_size=3, rounds=1,
              deck="tempura:1/sashimi:1/dumpling:1/maki1:1/maki2:1/maki3:1/egg:1/salmon:1"
                   "/squid:1/wasabi:1/pudding:1")
  state = game.new_initial_state()
  deal(state, [[T, SA, D], ["Maki Roll 1", M2, "Maki Roll 3"], [EGG, SAL, SQ]])
  play(state, [T, M2, EGG])
  unseen = {"Maki Roll 1", "Maki Roll 3", W, P}
  samples = 3000
  found = _hidden_hand_frequencies(state, 0, 2, samples, seed=2)
  assert len(found) == 6
  assert all(set(hand) <= unseen for hand in found)
  assert stats.chisquare(list(found.values())).pvalue > 1e-3, found


def _chance_posterior(game, info: str, player: int, holder: int):
  """P(holder's hand | player's info string), by walking the whole chance tree of the deal."""
  weights = collections.Counter()

  def visit(state, prob):
    if not state.is_chance_node():
      if state.information_state_string(player) == info:
        weights[tuple(sorted(state.hands()[holder]))] += prob
      return
    for action, p in state.chance_outcomes():
      child = state.child(action)
      visit(child, prob * p)

  visit(game.new_initial_state(), 1.0)
  total = sum(weights.values())
  return {hand: w / total for hand, w in weights.items()}


def test_resample_frequencies_follow_the_deal_probabilities():
  # With repeated cards the hidden hands are not equally likely: player 0 holds T, SA, D, so the
  # 5 cards it has not seen are T, T, SA, SA, D; player 1's 3 cards are drawn from them
  # (T T SA: 2/10, T T D: 1/10, T SA SA: 2/10, T SA D: 4/10, SA SA D: 1/10). The expected
  # frequencies come from the chance tree, not from the sampler.
  game = load(players=2, hand_size=3, rounds=1, deck="tempura:3/sashimi:3/dumpling:2")
  state = game.new_initial_state()
  deal(state, [[T, SA, D], [T, T, SA]])
  posterior = _chance_posterior(game, state.information_state_string(0), 0, 1)
  by_hand = {tuple(sorted(h)): p for h, p in [
      ((T, T, SA), 0.2), ((T, T, D), 0.1), ((T, SA, SA), 0.2), ((T, SA, D), 0.4),
      ((SA, SA, D), 0.1)]}
  assert posterior.keys() == by_hand.keys()
  for hand, p in by_hand.items():
    assert posterior[hand] == pytest.approx(p)
  samples = 3000
  found = _hidden_hand_frequencies(state, 0, 1, samples, seed=3)
  assert set(found) <= set(posterior)
  hands = sorted(posterior)
  result = stats.chisquare([found[h] for h in hands], [posterior[h] * samples for h in hands])
  assert result.pvalue > 1e-3, (found, posterior)
