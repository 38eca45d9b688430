"""The named reduced games: they load, they cover what the issue asks (two players zero sum, three
players, two rounds with Pudding, Wasabi, Maki, Chopsticks, Sushi Draft), and the documented sizes
of the small ones hold, counted by walking the simultaneous game's pyspiel states."""

from __future__ import annotations

import pyspiel
import pytest

from sushigo_spiel.reduced_games import REDUCED_GAMES, load_reduced, reduced_game_string

# Histories and information sets per player, as documented in sushigo_spiel/reduced_games.py.
DOCUMENTED_SIZES = {
    "tiny": (259, (68, 68)),
    "three_players": (2218, (427, 427, 427)),
    "robot": (1937, (190, 110)),
    "draft": (10365, (970, 970)),
}


def count_histories_and_infosets(game: pyspiel.Game):
  """Every node of the simultaneous game, and the distinct information state strings of each
  player at its decision nodes."""
  strings = [set() for _ in range(game.num_players())]
  histories = 0
  stack = [game.new_initial_state()]
  while stack:
    state = stack.pop()
    histories += 1
    if state.is_terminal():
      continue
    if state.is_chance_node():
      stack += [state.child(a) for a, _ in state.chance_outcomes()]
      continue
    legal = [state.legal_actions(p) for p in range(game.num_players())]
    for p in range(game.num_players()):
      strings[p].add(state.information_state_string(p))
    for flat in range(len(state.legal_actions())):
      stack.append(state.child(flat))
    assert len(state.legal_actions()) == _product(len(actions) for actions in legal)
  return histories, tuple(len(s) for s in strings)


def _product(values):
  result = 1
  for v in values:
    result *= v
  return result


@pytest.mark.parametrize("name", sorted(DOCUMENTED_SIZES))
def test_documented_sizes(name):
  assert count_histories_and_infosets(load_reduced(name)) == DOCUMENTED_SIZES[name]


@pytest.mark.parametrize("name", sorted(REDUCED_GAMES))
def test_every_reduced_game_loads_with_whole_hands_dealt(name):
  game = load_reduced(name)
  params = game.get_parameters()
  assert params["deal"] == "hand"
  assert REDUCED_GAMES[name].purpose
  if game.num_players() == 2:
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_coverage_of_players_rounds_and_cards():
  games = {name: load_reduced(name) for name in REDUCED_GAMES}
  assert any(g.num_players() == 3 for g in games.values())
  two_rounds = [g for g in games.values() if g.get_parameters()["rounds"] == 2]
  assert two_rounds and all("pudding" in g.get_parameters()["deck"] for g in two_rounds)
  decks = "/".join(g.get_parameters()["deck"] for g in games.values())
  for code in ("wasabi", "maki", "chopsticks"):
    assert code in decks
  assert any(g.get_type().short_name == "python_sushi_draft" for g in games.values())


def test_unknown_name_lists_the_names():
  with pytest.raises(ValueError, match="unknown reduced game 'huge'.*tiny.*small"):
    load_reduced("huge")
  assert reduced_game_string("tiny").startswith("python_sushi_go(")
