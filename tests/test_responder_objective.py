"""What the best responders play for: parameter `objective` ("auto", "margin" or "win",
`solvers.bot`) of Local Best Response, the learned (linear Q) responder and the PPO responder.

The position that tells the objectives apart is the rulebook's Pudding tie-break of
`test_objective.py`: one round of two cards, player 0 holding Maki Roll 3 and a Pudding, player 1
two Egg Nigiri (the deck holds nothing else). Either pick ends the game at 7 points each, a margin
of 0; taking the Pudding wins the tie-break (a win share of 1), taking the Maki loses it (0).
"""

from __future__ import annotations

import pytest

from solvers.equilibrium import approximate
from solvers.equilibrium.learned_best_response import LearnedBestResponseBot
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.learning.best_response import REWARD_SCALES, PPOBestResponseBot
from solvers.search.opponent_model import OpponentModel
import solvers
from support import deal, load

MAKI, PUDDING = "Maki Roll 3", "Pudding"
RESPONDERS = (LocalBestResponseBot, LearnedBestResponseBot, PPOBestResponseBot)


def _tie_break(utility: str = "score"):
  game = load(players=2, rounds=1, hand_size=2, deck="maki3:1/pudding:1/egg:2", utility=utility)
  state = game.new_initial_state()
  deal(state, [[MAKI, PUDDING], ["Egg Nigiri", "Egg Nigiri"]])
  return game, state


def _model(game, name: str = "greedy") -> OpponentModel:
  """`name` in every seat, as the policy a responder responds to."""
  return approximate.opponent_model([solvers.make_bot(name, game, p, p) for p in range(2)])


def _responder(cls, game, **params):
  return cls(game, 0, 0, opponent_model=_model(game), **params)


def test_auto_maximises_the_games_own_returns():
  """Under "auto" (the default) a responder maximises what its gain is measured in: at the
  tie-break, 7 points for either pick in a game scored by points, the win share under win."""
  for utility, expected in (("score", {MAKI: 7.0, PUDDING: 7.0}), ("margin", {MAKI: 0.0,
                                                                            PUDDING: 0.0}),
                            ("win", {MAKI: 0.0, PUDDING: 1.0})):
    game, state = _tie_break(utility)
    names = {a: state.action_to_string(0, a) for a in state.legal_actions(0)}
    values = _responder(LocalBestResponseBot, game).action_values(state.table())
    assert {names[a]: v for a, v in values.items()} == pytest.approx(expected), utility
    config = _responder(PPOBestResponseBot, game).config()
    assert config.game == str(game) and config.reward_scale == REWARD_SCALES[utility]
  game, _ = _tie_break("score")
  points = _responder(LearnedBestResponseBot, game, games=300).trained().weights
  margin = _responder(LearnedBestResponseBot, game, objective="margin", games=300)
  assert not (points == margin.trained().weights).all()


@pytest.mark.parametrize("cls", RESPONDERS)
def test_an_objective_it_cannot_play_for_is_refused(cls):
  with pytest.raises(ValueError, match=f"'objective' is 'points'; allowed for {cls.__name__}:"
                     " auto, margin, win"):
    _responder(cls, load(players=2), objective="points")


@pytest.mark.parametrize("utility", ["score", "margin", "win"])
def test_local_best_response_values_its_objective(utility):
  """Whatever the game's utility: for the win the Pudding is worth 1 and the Maki 0; for the
  margin both are worth 0 (not the 7 points either pick scores)."""
  game, state = _tie_break(utility)
  names = {a: state.action_to_string(0, a) for a in state.legal_actions(0)}
  for objective, expected in (("win", {MAKI: 0.0, PUDDING: 1.0}), ("margin", {MAKI: 0.0,
                                                                            PUDDING: 0.0})):
    bot = _responder(LocalBestResponseBot, game, objective=objective)
    values = {names[a]: v for a, v in bot.action_values(state.table()).items()}
    assert values == pytest.approx(expected), objective
  assert state.action_to_string(0, _responder(LocalBestResponseBot, game,
                                              objective="win").step(state)) == PUDDING


def test_the_learned_responder_trains_on_its_objective():
  """In a game scored by points it learns, for either objective, exactly what it learns in the
  game scored by that objective, and the two objectives learn different weights; trained for the
  win it takes the Pudding."""
  game, state = _tie_break("score")
  for objective in ("margin", "win"):
    scored, _ = _tie_break(objective)
    bot = _responder(LearnedBestResponseBot, game, objective=objective, games=300)
    assert (bot.trained().weights ==
            _responder(LearnedBestResponseBot, scored, games=300).trained().weights).all()
    if objective == "win":
      assert state.action_to_string(0, bot.step(state)) == PUDDING
  margin = _responder(LearnedBestResponseBot, game, objective="margin", games=300).trained().weights
  assert not (margin == _responder(LearnedBestResponseBot, game, objective="win",
                                   games=300).trained().weights).all()


@pytest.mark.parametrize("utility", ["score", "win"])
def test_the_ppo_responder_trains_on_its_objective(utility):
  """The trainer plays the game scored by the objective, its rewards scaled to it."""
  game = load(players=2, utility=utility)
  for objective in ("margin", "win"):
    config = _responder(PPOBestResponseBot, game, objective=objective).config()
    assert f"utility={objective}" in config.game and config.reward_scale == REWARD_SCALES[objective]
    assert config.game.replace(f"utility={objective}", f"utility={utility}") == str(game)
