"""Sushi Draft (`python_sushi_draft`): every rule by a scripted game, OpenSpiel conformance, round
trips, bad parameters, what each player can see, and a property test over random games."""

from __future__ import annotations

import pickle
import random

import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sushigo_spiel  # noqa: F401  (registers the games)
from open_spiel.python.observation import make_observation

from sushigo_spiel.sushi_draft import rules as R

from invariants import check_sushi_draft_state
from support import random_playout, walk

# Canonical names of the rule specification, written out rather than read from the package.
TUNA = "Tuna Nigiri"
SHRIMP = "Shrimp & Avocado Roll"
SALMON = "Salmon Roll"
CUCUMBER = "Cucumber Maki"
MACKEREL = "Mackerel Temaki"
WILD = "Wild"
NAMES = [TUNA, SHRIMP, SALMON, CUCUMBER, MACKEREL, WILD]
NO_WILD = "tuna:8/shrimp:7/salmon:6/cucumber:5/mackerel:4"  # two-card hands allow no Wild


def load(**params) -> pyspiel.Game:
  return pyspiel.load_game("python_sushi_draft", params)


def start(game, hands: list[list[str]], orders=(0,) * 6):
  """A state after the chip piles are ordered (order 0: values ascending) and `hands` dealt."""
  state = game.new_initial_state()
  for outcome in orders:
    state.apply_action(outcome)
  deal(state, hands)
  return state


def deal(state, hands: list[list[str]]) -> None:
  for hand in hands:
    for name in hand:
      assert state.is_chance_node()
      state.apply_action(NAMES.index(name))
  assert state.is_simultaneous_node()


def act(state, strings: list[str]) -> None:
  """One simultaneous step by action strings ("Eat Tuna Nigiri", "Keep Wild", ...)."""
  by_name = {state.action_to_string(0, a): a for a in range(state.num_distinct_actions())}
  state.apply_actions([by_name[s] for s in strings])


def legal_names(state, player: int) -> list[str]:
  return [state.action_to_string(player, a) for a in state.legal_actions(player)]


# ----- rules, scripted


def test_action_and_chance_strings():
  game = load()
  state = game.new_initial_state()
  assert state.action_to_string(0, 0) == "Eat Tuna Nigiri"
  assert state.action_to_string(0, 7) == "Eat Wild as Salmon Roll"
  assert state.action_to_string(0, 13) == "Keep Cucumber Maki"
  assert state.action_to_string(0, 15) == "Keep Wild"
  assert game.num_distinct_actions() == 16
  assert [state.action_to_string(-1, a) for a, _ in state.chance_outcomes()] == [
      "Tuna Nigiri chips 3.4.5", "Tuna Nigiri chips 3.5.4", "Tuna Nigiri chips 4.3.5",
      "Tuna Nigiri chips 4.5.3", "Tuna Nigiri chips 5.3.4", "Tuna Nigiri chips 5.4.3"]
  state.apply_action(0)
  assert len(state.chance_outcomes()) == 3  # 2, 4, 4 has three distinct orders


def test_turn_flow_keep_pass_and_last_card_discarded():
  game = load(players=3, hand_size=3, rounds=1)
  state = start(game, [[TUNA, SHRIMP, SALMON], [CUCUMBER, MACKEREL, TUNA],
                       [SHRIMP, SHRIMP, SALMON]])
  act(state, ["Eat Tuna Nigiri", "Eat Cucumber Maki", "Eat Shrimp & Avocado Roll"])
  assert state.eaten() == [[TUNA], [CUCUMBER], [SHRIMP]]
  assert legal_names(state, 0) == ["Keep Shrimp & Avocado Roll", "Keep Salmon Roll"]
  act(state, ["Keep Salmon Roll", "Keep Tuna Nigiri", "Keep Salmon Roll"])
  # Each player gets its kept card plus its right neighbour's remaining card.
  assert state.hands() == [[SHRIMP, SALMON], [TUNA, SHRIMP], [SALMON, MACKEREL]]
  # Two cards left: one eaten, and the last one is discarded without a Keep step.
  act(state, ["Eat Salmon Roll", "Eat Tuna Nigiri", "Eat Mackerel Temaki"])
  assert state.is_terminal()
  records = state.round_records()
  assert records[0].eaten == [[TUNA, SALMON], [CUCUMBER, TUNA], [SHRIMP, MACKEREL]]
  assert state.table().results[0].discards == (1, 1, 2)


def test_wild_needs_a_type_already_eaten_and_is_declared():
  game = load(players=2, hand_size=4, rounds=1)
  state = start(game, [[WILD, TUNA, SALMON, SALMON], [TUNA, TUNA, SHRIMP, WILD]])
  assert legal_names(state, 0) == ["Eat Tuna Nigiri", "Eat Salmon Roll"]  # no Wild yet
  act(state, ["Eat Tuna Nigiri", "Eat Shrimp & Avocado Roll"])
  act(state, ["Keep Wild", "Keep Wild"])
  assert legal_names(state, 0)[-1:] == ["Eat Wild as Tuna Nigiri"]
  assert "Eat Wild as Salmon Roll" not in legal_names(state, 0)
  assert legal_names(state, 1)[-1:] == ["Eat Wild as Shrimp & Avocado Roll"]
  with pytest.raises(ValueError, match="cannot play"):
    act(state, ["Eat Wild as Salmon Roll", "Eat Tuna Nigiri"])
  act(state, ["Eat Wild as Tuna Nigiri", "Eat Wild as Shrimp & Avocado Roll"])
  assert state.eaten() == [[TUNA, "Wild as Tuna Nigiri"], [SHRIMP, "Wild as Shrimp & Avocado Roll"]]


def test_wild_counts_for_its_declared_type():
  # P0 eats Tuna then a Wild as Tuna (2 Tuna); P1 eats one Tuna.
  game = load(players=2, hand_size=3, rounds=1)
  state = start(game, [[TUNA, WILD, SALMON], [TUNA, SALMON, CUCUMBER]])
  act(state, ["Eat Tuna Nigiri", "Eat Tuna Nigiri"])
  act(state, ["Keep Wild", "Keep Salmon Roll"])
  act(state, ["Eat Wild as Tuna Nigiri", "Eat Salmon Roll"])
  chips = state.round_records()[0].chips
  assert ("Tuna Nigiri", 0, 3) in chips  # 2 against 1
  # Dessert: P0 ate one type (Tuna), P1 two (Tuna, Salmon); a Wild adds no type.
  assert ("Dessert", 1, 2) in chips


@pytest.mark.parametrize("counts,winner", [
    ([3, 1, 0], 0),
    ([3, 3, 2, 1], 2),  # tied players are passed over
    ([3, 3, 2, 2, 1], 4),
    ([2, 2], R.NOBODY),  # all tied
    ([2, 2, 2], R.NOBODY),
    ([0, 0, 0], R.NOBODY),  # nobody ate the type
    ([0, 0, 1], 2),
])
def test_chip_winner(counts, winner):
  assert R.chip_winner(counts) == winner


def test_chip_ties_pass_over_and_unawarded_chips_stay_on_top():
  game = load(players=3, hand_size=2, rounds=2, deck=NO_WILD)
  state = start(game, [[TUNA, SALMON], [TUNA, SALMON], [SHRIMP, SALMON]])
  act(state, ["Eat Tuna Nigiri", "Eat Tuna Nigiri", "Eat Shrimp & Avocado Roll"])
  record = state.round_records()[0]
  # Tuna: P0 and P1 tie, nobody else ate one: not awarded. Shrimp: P2. Dessert: all tied at 1.
  assert record.chips == [("Shrimp & Avocado Roll", 2, 2)]
  assert record.points == [0, 0, 2]
  deal(state, [[TUNA, SALMON], [SALMON, SALMON], [SHRIMP, SALMON]])
  act(state, ["Eat Tuna Nigiri", "Eat Salmon Roll", "Eat Shrimp & Avocado Roll"])
  record = state.round_records()[1]
  # Tuna's first chip (3) stayed on top; Shrimp's second chip is 4; Dessert all tied again.
  assert record.chips == [("Tuna Nigiri", 0, 3), ("Shrimp & Avocado Roll", 2, 4),
                          ("Salmon Roll", 1, 2)]
  assert state.chips() == [[("Tuna Nigiri", 3)], [("Salmon Roll", 2)],
                           [("Shrimp & Avocado Roll", 2), ("Shrimp & Avocado Roll", 4)]]
  assert state.returns() == [3.0, 2.0, 6.0]


def test_pass_over_gives_the_chip_to_the_best_untied_player():
  game = load(players=4, hand_size=3, rounds=1)
  state = start(game, [[TUNA, TUNA, SALMON], [TUNA, TUNA, SALMON], [TUNA, SALMON, SALMON],
                       [SHRIMP, CUCUMBER, MACKEREL]])
  act(state, ["Eat Tuna Nigiri"] * 3 + ["Eat Shrimp & Avocado Roll"])
  act(state, ["Keep Tuna Nigiri", "Keep Tuna Nigiri", "Keep Salmon Roll", "Keep Cucumber Maki"])
  act(state, ["Eat Tuna Nigiri", "Eat Tuna Nigiri", "Eat Salmon Roll", "Eat Cucumber Maki"])
  chips = {pile: (player, value) for pile, player, value in state.round_records()[0].chips}
  assert chips[TUNA] == (2, 3)  # P0, P1 tie on 2: passed over; P2 ate 1
  assert chips[SALMON] == (2, 2)
  # Dessert: P0 1 type, P1 1, P2 2, P3 2: P0, P1 tie, P2, P3 tie: not awarded.
  assert "Dessert" not in chips


def test_wild_half_breaks_a_tie():
  hands = [[TUNA, WILD, SALMON], [TUNA, TUNA, CUCUMBER], [SHRIMP, CUCUMBER, MACKEREL]]
  plays = [["Eat Tuna Nigiri", "Eat Tuna Nigiri", "Eat Shrimp & Avocado Roll"],
           ["Keep Wild", "Keep Tuna Nigiri", "Keep Cucumber Maki"],
           ["Eat Wild as Tuna Nigiri", "Eat Tuna Nigiri", "Eat Cucumber Maki"]]
  awarded = {}
  for half in (False, True):
    state = start(load(players=3, hand_size=3, rounds=1, wild_half=half), hands)
    for step in plays:
      act(state, step)
    awarded[half] = {pile: p for pile, p, _ in state.round_records()[0].chips}
  assert TUNA not in awarded[False]  # 2 against 2
  assert awarded[True][TUNA] == 1  # 1.5 against 2


def test_dessert_goes_to_most_types_and_needs_a_clear_best():
  game = load(players=3, hand_size=3, rounds=1)
  state = start(game, [[TUNA, SALMON, SHRIMP], [TUNA, TUNA, SHRIMP], [CUCUMBER, CUCUMBER, TUNA]])
  act(state, ["Eat Tuna Nigiri", "Eat Tuna Nigiri", "Eat Cucumber Maki"])
  act(state, ["Keep Salmon Roll", "Keep Tuna Nigiri", "Keep Cucumber Maki"])
  act(state, ["Eat Salmon Roll", "Eat Tuna Nigiri", "Eat Cucumber Maki"])
  chips = {pile: p for pile, p, _ in state.round_records()[0].chips}
  assert chips["Dessert"] == 0  # 2 types against 1 and 1


def test_win_utility_shares_ties_and_margin_is_zero_sum():
  for utility in ("win", "margin"):
    game = load(players=3, hand_size=2, rounds=1, utility=utility, deck=NO_WILD)
    state = start(game, [[TUNA, SALMON], [SHRIMP, SALMON], [CUCUMBER, SALMON]])
    act(state, ["Eat Tuna Nigiri", "Eat Shrimp & Avocado Roll", "Eat Cucumber Maki"])
    # Chips 3, 2, 1 (ascending orders): P0 wins alone.
    assert state.scores() == [3, 2, 1]
    expected = [1.0, 0.0, 0.0] if utility == "win" else [1.5, 0.0, -1.5]
    assert state.returns() == pytest.approx(expected)
  game = load(players=2, hand_size=2, rounds=1, utility="win", deck=NO_WILD,
              chips="tuna:2/shrimp:2/salmon:1/cucumber:1/mackerel:1/dessert:1")
  state = start(game, [[TUNA, SALMON], [SHRIMP, SALMON]])
  act(state, ["Eat Tuna Nigiri", "Eat Shrimp & Avocado Roll"])
  assert state.returns() == [0.5, 0.5]


def test_game_sizes():
  game = load(players=4, hand_size=6, rounds=3)
  assert game.max_game_length() == 3 * (6 + 5 - 2)  # Eat steps plus Keep steps, per round
  assert load(deal="hand", players=2).max_chance_outcomes() == game.rules.hand_ranking.size
  count = 0
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_simultaneous_node():
      count += 1
    random_playout(state, random.Random(count), stop=lambda s, h=len(state.history()):
                   len(s.history()) > h)
  assert count == game.max_game_length()


# ----- parameters


@pytest.mark.parametrize("params,match", [
    (dict(players=1), "'players' is 1; allowed: 2 to 5"),
    (dict(players=6), "'players' is 6"),
    (dict(rounds=0), "'rounds' is 0"),
    (dict(hand_size=1), "'hand_size' is 1"),
    (dict(deal="pile"), "'deal' is 'pile'; allowed: card, hand"),
    (dict(utility="points"), "'utility' is 'points'"),
    (dict(deck="eel:3"), "'deck': unknown code 'eel'"),
    (dict(deck="tuna:x"), "'deck': 'tuna:x'"),
    (dict(deck="tuna:10", players=3), "too few"),
    (dict(deck="tuna:20/wild:6"), "6 Wilds; allowed: fewer than hand_size"),
    (dict(chips="tuna:1.2"), "misses the pile"),
    (dict(chips="tuna:1/tuna:2"), "repeated"),
    (dict(chips="cake:1"), "'chips': unknown code 'cake'"),
    (dict(chips="tuna:1.2.3.4.5.6.7"), "1 to 6 values"),
])
def test_bad_parameters(params, match):
  with pytest.raises(ValueError, match=match):
    load(**params)


def test_parameters_from_string():
  game = pyspiel.load_game(
      "python_sushi_draft(players=2,rounds=2,hand_size=4,deck=tuna:10/wild:2,wild_half=true,"
      "chips=tuna:1.2/shrimp:1/salmon:1/cucumber:1/mackerel:1/dessert:9)")
  assert game.rules.deck == (10, 0, 0, 0, 0, 2)
  assert game.rules.chips[0] == (1, 2) and game.rules.wild_half
  assert pyspiel.load_game(str(game)).rules == game.rules


# ----- OpenSpiel conformance


def check_invariants(state) -> None:
  """Cards conserved, equal hand sizes, chips conserved, and
  `invariants.check_sushi_draft_state` (chip points and returns)."""
  rules, table = state.get_game().rules, state.table()
  if table.actor == R.SIMULTANEOUS:
    totals = list(table.deck)
    for hand in table.hands:
      totals = [a + b for a, b in zip(totals, hand)]
    for actions in table.eaten:
      for a in actions:
        totals[R.eaten_card(a)] += 1
    assert totals == list(rules.deck)
    assert len({sum(h) for h in table.hands}) == 1
  if table.ordered == 6:
    for pile in range(6):
      given = [c.value for c in table.chips if c.pile == pile]
      assert sorted(given + list(table.piles[pile])) == sorted(rules.chips[pile])
  check_sushi_draft_state(state)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("utility", ["score", "margin", "win"])
def test_random_sim(players, utility):
  game = load(players=players, utility=utility)
  pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False,
                          state_checker_fn=check_invariants)


def test_random_sim_hand_deal_and_wild_half():
  game = load(players=3, deal="hand", hand_size=4, rounds=2, wild_half=True,
              deck="tuna:5/shrimp:4/wild:3")
  pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False,
                          state_checker_fn=check_invariants)


@pytest.mark.parametrize("players", [2, 5])
def test_random_sim_turn_based(players):
  game = pyspiel.convert_to_turn_based(load(players=players))
  pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def mid_game(seed: int, **params):
  game = load(**params)
  rng = random.Random(seed)
  steps = rng.randrange(10, 60)
  return random_playout(game.new_initial_state(), rng,
                        stop=lambda s: len(s.history()) >= steps)


@pytest.mark.parametrize("seed", range(4))
def test_clone_pickle_serialize_round_trips(seed):
  state = mid_game(seed, players=3)
  copies = [
      state.clone(),
      pickle.loads(pickle.dumps(state)),
      pyspiel.deserialize_game_and_state(
          pyspiel.serialize_game_and_state(state.get_game(), state))[1],
  ]
  for copy in copies:
    assert str(copy) == str(state)
    assert copy.history() == state.history()
    for p in range(3):
      assert copy.information_state_string(p) == state.information_state_string(p)
      assert copy.observation_tensor(p) == state.observation_tensor(p)
    assert random_playout(copy, random.Random(seed)).returns() == \
        random_playout(state.clone(), random.Random(seed)).returns()


def test_python_queries_match_the_cpp_ones():
  state = load(players=3).new_initial_state()
  for state in walk(state, random.Random(2)):
    for player in [0, 1, 2, None]:
      args = () if player is None else (player,)
      assert state.legal_actions(*args) == pyspiel.State.legal_actions(state, *args)
    assert state.is_chance_node() == pyspiel.State.is_chance_node(state)


# ----- information


def views(state, player):
  game = state.get_game()
  recall = pyspiel.IIGObservationType(perfect_recall=True)
  public = pyspiel.IIGObservationType(perfect_recall=False,
                                      private_info=pyspiel.PrivateInfoType.NONE)
  result = [state.information_state_string(player), state.observation_string(player),
            state.information_state_tensor(player), state.observation_tensor(player)]
  for kind in (recall, public):
    observer = make_observation(game, kind)
    observer.set_from(state, player)
    result += [observer.string_from(state, player), list(observer.tensor)]
  return result


@pytest.mark.parametrize("players", [2, 3, 5])
def test_resampling_keeps_every_view_and_changes_hidden_cards(players):
  """No leak: a resampled state changes hidden cards and chip values, but no view of `player`."""
  rng = random.Random(players)
  changed = 0
  for state in walk(load(players=players).new_initial_state(), rng):
    if not state.is_simultaneous_node():
      continue
    for player in range(players):
      before = views(state, player)
      other = state.resample_from_infostate(player, rng.random)
      assert views(other, player) == before
      assert other.hands()[player] == state.hands()[player]
      changed += other.hands() != state.hands() or other.chips() != state.chips()
  assert changed > 10


def test_views_hide_other_hands_keeps_and_chip_values():
  state = mid_game(5, players=3)
  while not state.round_records() or not state.is_simultaneous_node():
    random_playout(state, random.Random(1), stop=lambda s, h=len(state.history()):
                   len(s.history()) > h)
  info = state.information_state_string(0)
  assert "P1 hand" not in info and "P1 keeps" not in info and "P0 keeps" in info
  for pile, player, value in state.round_records()[0].chips:
    assert (f"{pile} P{player} {value}" in info) == (player == 0)


def test_observer_all_players_shows_everything():
  state = mid_game(3, players=3)
  while not state.is_simultaneous_node():
    random_playout(state, random.Random(1), stop=lambda s: s.is_simultaneous_node())
  every = pyspiel.IIGObservationType(perfect_recall=False,
                                     private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
  observer = make_observation(state.get_game(), every)
  text = observer.string_from(state, 0)
  assert text.count(" hand [") == 3
  assert make_observation(state.get_game()).string_from(state, 0).count(" hand [") == 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 5), half=st.booleans())
def test_property_random_games(seed, players, half):
  """Any random game: invariants hold, chips go to strict best counts, scores match returns."""
  game = load(players=players, wild_half=half)
  rng = random.Random(seed)
  for state in walk(game.new_initial_state(), rng, include_end=True):
    check_invariants(state)
    if state.is_simultaneous_node():
      for p in range(players):
        for a in state.legal_actions(p):
          name = state.action_to_string(p, a)
          if name.startswith("Eat Wild as "):
            assert name[len("Eat Wild as "):] in state.eaten()[p]
  assert state.returns() == [float(s) for s in state.scores()]
  total = sum(sum(r.points) for r in state.round_records())
  assert total == sum(state.scores())
  for record in state.round_records():
    assert all(len(e) == 5 for e in record.eaten)
