"""What a bot plays for: parameter `objective` ("margin", "win" or "auto"), `solvers.bot`.

The position that tells the two apart is the rulebook's Pudding tie-break: one round of two
cards, player 0 holding Maki Roll 3 and a Pudding, player 1 two Egg Nigiri. Either pick ends the
game at 7 points each (Maki Roll 3 alone wins the Maki's 6, a lone Pudding the Puddings' 6, an Egg
is 1), so the margin is 0 either way; but the Pudding goes to whoever does not take the Maki, and
the tie goes to the most Puddings: taking the Pudding wins, taking the Maki loses.
"""

from __future__ import annotations

import pyspiel
import pytest

import solvers
from solvers.bot import objective_game, resolve_objective
from solvers.equilibrium import policies
from solvers.search import pimc
from sushigo_spiel.reduced_games import reduced_game_string
from support import deal, legal_names, load, play

SEARCHERS = ("so_ismcts", "mo_ismcts", "pimc")
MAKI, PUDDING = "Maki Roll 3", "Pudding"


def _tie_break(utility: str = "score"):
  game = load(players=2, rounds=1, hand_size=2, deck="maki3:1/pudding:1/egg:2", utility=utility)
  state = game.new_initial_state()
  deal(state, [[MAKI, PUDDING], ["Egg Nigiri", "Egg Nigiri"]])
  return game, state


def _pick(name: str, state, seed: int, **params) -> str:
  bot = solvers.make_bot(name, state.get_game(), 0, seed, **params)
  return state.action_to_string(0, bot.step(state))


@pytest.mark.parametrize("name", SEARCHERS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_win_objective_takes_the_tie_break(name, seed):
  _, state = _tie_break()
  assert _pick(name, state, seed, objective="win") == PUDDING


@pytest.mark.parametrize("name", SEARCHERS)
def test_auto_plays_for_the_win_in_a_game_scored_by_wins(name):
  _, state = _tie_break(utility="win")
  assert _pick(name, state, 0) == PUDDING
  assert solvers.make_bot(name, state.get_game(), 0, 0).objective == "win"


@pytest.mark.parametrize("utility", ["score", "margin"])
@pytest.mark.parametrize("name", SEARCHERS + ("subgame",))
def test_auto_plays_for_the_margin_otherwise(name, utility):
  game = load(players=2, utility=utility)
  assert solvers.make_bot(name, game, 0, 0, seconds=0.01).objective == "margin"


def test_the_margin_objective_does_not_value_the_tie_break():
  """PIMC's exact world solver values both picks at a margin of 0, and at a win share of 0 and 1
  under the win objective: the objective, and nothing else, is what differs."""
  _, state = _tie_break()
  values = {}
  for objective in ("margin", "win"):
    bot = pimc.PIMCBot(state.get_game(), 0, 0, objective=objective, worlds=1)
    by_action = bot.action_values(state.table())[0]
    values[objective] = {state.action_to_string(0, a): v for a, v in by_action.items()}
  assert values["margin"] == {MAKI: 0.0, PUDDING: 0.0}
  assert values["win"] == {MAKI: 0.0, PUDDING: 1.0}


def test_a_margin_search_in_a_game_scored_by_wins_plays_for_the_margin():
  """objective="margin" under utility=win searches the same game scored by margins."""
  game, state = _tie_break(utility="win")
  searched = objective_game(game, "margin")
  assert searched.rules.utility == "margin" and searched.rules.cards == game.rules.cards
  bot = pimc.PIMCBot(game, 0, 0, objective="margin", worlds=1)
  assert set(bot.action_values(state.table())[0].values()) == {0.0}


@pytest.mark.parametrize("name, value, allowed", [
    ("pimc", "points", "auto, margin, win"),
    ("subgame", "utility", "auto, margin, win"),
    ("so_ismcts", "score", "auto, margin, win, utility"),
    ("heuristic", "win", "auto, margin"),
    ("greedy", "win", "auto, margin"),
    ("random", "margin", "auto"),
])
def test_an_objective_a_bot_cannot_play_for_is_refused(name, value, allowed):
  game = load(players=2)
  with pytest.raises(ValueError, match=f"'objective' is '{value}'; allowed.*{allowed}"):
    solvers.make_bot(name, game, 0, 0, objective=value)


def test_resolve_objective_follows_the_utility():
  assert [resolve_objective("auto", u) for u in ("score", "margin", "win")] == \
      ["margin", "margin", "win"]
  assert resolve_objective("win", "score") == "win"
  with pytest.raises(ValueError, match="'auto', which is 'win' in a game with utility=win"):
    resolve_objective("auto", "win", ("auto", "margin"), "HeuristicBot")


@pytest.mark.parametrize("name", ["heuristic", "greedy", "random"])
def test_a_baseline_plays_the_same_under_every_utility(name):
  """Fixed play: "auto" is accepted in a game scored by wins, and the moves do not change."""
  moves = []
  for utility in ("score", "win"):
    game = load(players=2, utility=utility)
    state = game.new_initial_state()
    while state.is_chance_node():
      state.apply_action(state.chance_outcomes()[0][0])
    moves.append(solvers.make_bot(name, game, 0, 4).step(state))
  assert moves[0] == moves[1]


@pytest.fixture(scope="module")
def tiny_policies(tmp_path_factory):
  """A CFR policy of `tiny` trained on margins, and one trained on wins."""
  folder = tmp_path_factory.mktemp("policies")
  paths = {}
  for utility in ("margin", "win"):
    game_string = reduced_game_string("tiny").replace("utility=margin", f"utility={utility}")
    paths[utility] = str(folder / f"tiny_{utility}.npz")
    policies.train(game_string, "cfr", "identity", iterations=5, seed=0, out_path=paths[utility],
                   progress=False)
  return paths


@pytest.mark.parametrize("trained", ["margin", "win"])
@pytest.mark.parametrize("utility", ["margin", "win"])
def test_a_policy_plays_only_for_what_it_was_trained_on(tiny_policies, trained, utility):
  game = pyspiel.load_game(reduced_game_string("tiny").replace("utility=margin",
                                                               f"utility={utility}"))
  path = tiny_policies[trained]
  assert solvers.make_bot("policy", game, 0, 0, path=path, objective=trained).objective == trained
  other = "win" if trained == "margin" else "margin"
  with pytest.raises(ValueError, match=f"trained with utility={trained} and plays for the"
                     f" {trained}; objective '{other}'"):
    solvers.make_bot("policy", game, 0, 0, path=path, objective=other)
  if utility != trained:  # "auto" follows the game's utility, and so asks for the other one
    with pytest.raises(ValueError, match=f"objective 'auto', which is '{utility}'"):
      solvers.make_bot("policy", game, 0, 0, path=path)


def _full_game_tie_break():
  """The tie-break position in the full two-player game, for the subgame bot (whose blueprint is
  the full game's): the two players are dealt the same cards and pick alike through two rounds
  and eight turns of the third, so they stand level, with no Maki or Pudding; then player 0 holds
  Maki Roll 3 and a Pudding, player 1 two Egg Nigiri, as in the one-round game above."""
  game = load(players=2)
  state = game.new_initial_state()
  rounds = [(["Sashimi", "Salmon Nigiri"] * 5,) * 2,
            (["Maki Roll 2", "Tempura"] * 3 + ["Maki Roll 2", "Dumpling"] * 2,) * 2,
            ([MAKI, PUDDING] + ["Tempura", "Dumpling"] * 4,
             ["Egg Nigiri"] * 2 + ["Tempura", "Dumpling"] * 4)]
  for number, hands in enumerate(rounds):
    deal(state, [list(hands[0]), list(hands[1])])
    picks = hands[1][2:] if number == 2 else hands[0]
    turns = 8 if number == 2 else 9  # the tenth card of a round is played for the players
    for pick in picks[:turns]:
      play(state, [pick, pick])
  assert sorted(legal_names(state, 0)) == [MAKI, PUDDING]
  return state


@pytest.mark.slow
def test_the_subgame_bot_plays_for_its_objective():
  """At the game's last choice every leaf of the subgame is the game's end: playing for the win
  the bot takes the Pudding, and the margin, level either way, gives it no reason to."""
  state = _full_game_tie_break()
  for objective in ("win", "margin"):
    bot = solvers.make_bot("subgame", state.get_game(), 0, 0, objective=objective, iterations=50)
    weights = dict(zip(state.legal_actions(0), bot.solve(state.table(), state.legal_actions(0))))
    pudding = next(a for a in weights if state.action_to_string(0, a) == PUDDING)
    maki = next(a for a in weights if state.action_to_string(0, a) == MAKI)
    if objective == "win":
      assert weights[pudding] > 0.9 * sum(weights.values())
      assert state.action_to_string(0, bot.step(state)) == PUDDING
    else:
      assert weights[pudding] == pytest.approx(weights[maki])


def _full_game_safe_lead():
  """The full two-player game at its last choice with player 0 far ahead: in the first round it
  takes nine Sashimi (30 points) while player 1 takes Egg Nigiri, Chopsticks and a Wasabi; in the
  next two they pick alike until player 0 holds a Salmon Nigiri and a Squid Nigiri. Either pick
  wins the game; the Squid wins it by 2 points more (its 3 kept and the Salmon's 2 passed on, not
  the reverse)."""
  game = load(players=2)
  state = game.new_initial_state()
  deal(state, [["Sashimi"] * 5 + ["Egg Nigiri"] * 3 + ["Chopsticks"] * 2,
               ["Sashimi"] * 5 + ["Egg Nigiri"] * 2 + ["Chopsticks"] * 2 + ["Wasabi"]])
  for _ in range(9):
    other = next(name for name in ("Chopsticks", "Wasabi", "Egg Nigiri")
                 if name in legal_names(state, 1))
    play(state, ["Sashimi", other])
  level = ["Maki Roll 2", "Tempura"] * 3 + ["Maki Roll 2", "Dumpling"] * 2
  deal(state, [level, level])
  for pick in level[:9]:
    play(state, [pick, pick])
  deal(state, [["Salmon Nigiri", "Squid Nigiri"] + ["Tempura", "Dumpling"] * 4,
               ["Salmon Nigiri"] * 2 + ["Tempura", "Dumpling"] * 4])
  for pick in ["Tempura", "Dumpling"] * 4:
    play(state, [pick, pick])
  assert legal_names(state, 0) == ["Salmon Nigiri", "Squid Nigiri"]  # the Salmon's id is lower
  points = game.dynamics.scores(game.rules, state.table())
  assert points[0] > points[1] + 20, points
  return state


def test_the_subgame_bot_playing_for_the_win_breaks_ties_by_the_margin():
  """Where every pick wins, win shares alone value them all alike (and the argmax would take the
  lowest id, the Salmon): the win objective's leaves add `WIN_TIE_BREAK` times the margin, so the
  bot still takes the Squid, as the margin objective does."""
  state = _full_game_safe_lead()
  for objective in ("win", "margin"):
    bot = solvers.make_bot("subgame", state.get_game(), 0, 0, objective=objective, iterations=50)
    assert state.action_to_string(0, bot.step(state)) == "Squid Nigiri", objective


@pytest.mark.parametrize("engine", [None, "python"], ids=["compiled", "python"])
@pytest.mark.parametrize("name, params", [("so_ismcts", {}), ("mo_ismcts", {}), ("pimc", {}),
                                          ("pimc", {"world_solver": "smmcts"})])
def test_the_searchers_playing_for_the_win_break_ties_by_the_margin(name, params, engine):
  """Where every pick wins, win shares alone value them all alike, and the searchers would take
  the lowest id, the Salmon (PIMC's argmax; ISMCTS's visits, spread evenly by equal rewards): the
  win objective's ends add `WIN_TIE_BREAK` times the margin, so they take the Squid, as the
  margin objective does, in both engines and with every world solver."""
  state = _full_game_safe_lead()
  for objective in ("win", "margin"):
    picked = _pick(name, state, 0, objective=objective, engine=engine, iterations=200, **params)
    assert picked == "Squid Nigiri", objective
