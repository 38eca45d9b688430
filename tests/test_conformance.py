"""The public conformance check: both games pass it, and it catches planted mistakes."""

from __future__ import annotations

import dataclasses

import pytest

from sushigo_spiel.drafting import conformance
from sushigo_spiel.sushi_draft import SushiDraftGame, SushiDraftState
from sushigo_spiel.sushi_go import SushiGoGame, SushiGoState

HAND_DEAL = ("deal=hand,hand_size=4,rounds=2,"
             "deck=tempura:6/sashimi:5/dumpling:5/maki2:4/salmon:4/wasabi:3/chopsticks:3/pudding:4")
GAMES = [
    "python_sushi_go(players=2)",
    "python_sushi_go(players=5,rounds=1,pass_direction=right,utility=margin)",
    f"python_sushi_go(players=3,pass_direction=alternate,utility=win,{HAND_DEAL})",
    "python_sushi_go(players=2,robot=true)",
    f"python_sushi_go(players=2,robot=true,{HAND_DEAL})",
    "python_sushi_go(players=4,rounds=2,soy_sauce=true)",
    "python_sushi_draft(players=3)",
    "python_sushi_draft(players=5,utility=win,wild_half=true)",
    "python_sushi_draft(players=2,deal=hand,utility=margin,hand_size=4)",
]


@pytest.mark.parametrize("game_string", GAMES)
def test_both_games_conform(game_string):
  assert conformance.check(game_string, num_games=3, seed=1) > 20


def _broken(game_class, state_class, params, **functions):
  """A game of `game_class` whose dynamics have `functions` replaced (not registered)."""
  dynamics = dataclasses.replace(game_class.dynamics, **functions)
  state = type("BrokenState", (state_class,), {"dynamics": dynamics})
  game = type("BrokenGame", (game_class,), {"dynamics": dynamics, "state_class": state})
  return game(params)


SUSHI_GO = SushiGoGame.dynamics
SUSHI_DRAFT = SushiDraftGame.dynamics


@pytest.mark.parametrize("functions, message", [
    (dict(infoset_key=lambda rules, table, player: (len(table.log), player)),
     "partition|tells information states apart"),
    (dict(legal_actions=lambda rules, table, player: SUSHI_GO.legal_actions(rules, table,
                                                                             player)[::-1]),
     "legal actions"),
    (dict(determinize=lambda rules, table, player, uniform: SUSHI_GO.determinize(
        rules, table, 1 - player, uniform)), "determinize changed what player"),
    (dict(observation=lambda rules, before, actions, after, player: tuple(actions)),
     "observation"),
    (dict(sample_chance=lambda rules, table, uniform: 99), "not a listed outcome"),
    (dict(returns=lambda rules, table, : [1.0] * rules.num_players), "returns"),
])
def test_planted_mistakes_in_sushi_go_are_caught(functions, message):
  game = _broken(SushiGoGame, SushiGoState, {"players": 2, "utility": "margin"}, **functions)
  with pytest.raises(conformance.ConformanceError, match=message):
    conformance.check(game, num_games=3)


def test_a_planted_mistake_in_sushi_draft_is_caught():
  """An information state that forgets the other players' eats, on a deck small enough for
  positions to repeat across games."""
  def forgetful(rules, table, player):
    turns, chips, hand = SUSHI_DRAFT.infoset_key(rules, table, player)
    return tuple((r, own, keep) for r, own, _, keep in turns), chips, hand
  game = _broken(SushiDraftGame, SushiDraftState, dict(
      players=2, rounds=1, hand_size=3, deal="hand", deck="tuna:2/shrimp:2/salmon:2/cucumber:1",
      utility="margin"), infoset_key=forgetful)
  with pytest.raises(conformance.ConformanceError, match="partition|tells information states"):
    conformance.check(game, num_games=30)
