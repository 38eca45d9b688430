"""The approximate bound's responders and the policy they respond to
(`solvers/equilibrium/approximate.py`): which policies can be read at any table and run on the
compiled core, the opponent model's answers and key, each responder built for its seat with its
parameters, and the games where exploitability is half of NashConv."""

from __future__ import annotations

import random

import pyspiel
import pytest

import solvers
from solvers.equilibrium import approximate
from solvers.equilibrium.learned_best_response import LearnedBestResponseBot
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.learning.best_response import PPOBestResponseBot
from solvers.search.ismcts import SOISMCTSBot
from support import walk
from sushigo_spiel.reduced_games import reduced_game_string

GAME = pyspiel.load_game(reduced_game_string("three_players"))


def seated(*names, **params):
  """One bot per seat: `names[p]` in seat p (the last name fills the seats left)."""
  names = list(names) + [names[-1]] * (GAME.num_players() - len(names))
  return [solvers.make_bot(name, GAME, p, 10 + p, **params) for p, name in enumerate(names)]


def tables(count: int):
  """Tables of a random game's simultaneous nodes."""
  return [s.table() for s in walk(GAME.new_initial_state(), random.Random(3))
          if s.is_simultaneous_node()][:count]


def test_the_model_answers_at_each_seat_as_the_bot_there():
  bots = seated("greedy", "random", "heuristic")
  model = approximate.opponent_model(bots)
  for table in tables(4):
    for player, bot in enumerate(bots):
      assert model.policy(GAME.rules, table, player) == bot.policy_at(table)


def test_only_policies_every_bot_tells_cheaply_are_modelled():
  assert approximate.opponent_model(seated("so_ismcts")) is None
  assert approximate.opponent_model(seated("greedy", "so_ismcts")) is None
  assert approximate.opponent_model(seated("so_ismcts", "greedy")) is None
  assert approximate.opponent_model(seated("random")) is not None
  # Any OpenSpiel bot may be the policy: one that does not say it is cheap to read is not read.
  foreign = [pyspiel.make_uniform_random_bot(p, 1) for p in range(GAME.num_players())]
  assert approximate.opponent_model(foreign) is None
  assert approximate.opponent_model(seated("random")[:2] + foreign[2:]) is None


def test_the_model_runs_compiled_when_every_seat_plays_one_baseline():
  for name in ("random", "greedy", "heuristic"):
    assert approximate.opponent_model(seated(name)).compiled.name == name
  # Two baselines at one table have no single kernel, and baselines are no blueprint.
  assert approximate.opponent_model(seated("random", "greedy")).compiled is None
  assert approximate.opponent_model(seated("greedy", "greedy", "random")).compiled is None


def test_the_models_key_tells_policies_apart_and_ignores_seeds():
  """The learned responder trains once per key: equal policies must share it, others not."""
  def key(bots):
    return approximate.opponent_model(bots).key
  again = [solvers.make_bot("greedy", GAME, p, 99) for p in range(GAME.num_players())]
  assert key(seated("greedy")) == key(again)
  keys = [key(seated("greedy")), key(seated("random")), key(seated("greedy", "random")),
          key(seated("random", "greedy")), key(seated("heuristic")),
          key(seated("heuristic", deny_weight=0.5))]
  assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("seat", range(3))
def test_each_responder_is_built_for_its_seat_with_its_parameters(seat):
  model = approximate.opponent_model(seated("greedy"))
  lbr = approximate.make_responder(GAME, seat, 5, "lbr", {"worlds": 3}, model)
  assert isinstance(lbr, LocalBestResponseBot)
  assert (lbr.player_id, lbr.seed, lbr.params["worlds"], lbr.model) == (seat, 5, 3, model)
  learned = approximate.make_responder(GAME, seat, 6, "learned", {"games": 7}, model)
  assert isinstance(learned, LearnedBestResponseBot)
  assert (learned.player_id, learned.seed, learned.params["games"]) == (seat, 6, 7)
  assert (learned.model, learned.policy_key) == (model, model.key)
  ppo = approximate.make_responder(GAME, seat, 4, "ppo", {"iterations": 2}, model)
  assert isinstance(ppo, PPOBestResponseBot)
  assert (ppo.player_id, ppo.seed, ppo.params["iterations"]) == (seat, 4, 2)
  assert (ppo.opponent, ppo.policy_key) == ("greedy", model.key)
  for in_rollouts in (True, False):
    ismcts = approximate.make_responder(GAME, seat, 7, "ismcts", {"iterations": 9}, model,
                                        model_in_rollouts=in_rollouts)
    assert isinstance(ismcts, SOISMCTSBot)
    assert (ismcts.player_id, ismcts.seed, ismcts.params["iterations"]) == (seat, 7, 9)
    assert (ismcts.opponent_model, ismcts.model_in_rollouts) == (model, in_rollouts)
  plain = approximate.make_responder(GAME, seat, 8, "ismcts", {}, None)  # against a search bot
  assert plain.opponent_model is None and plain.model_in_rollouts


def test_responders_that_cannot_be_built_are_refused_naming_what_is_allowed():
  with pytest.raises(ValueError,
                     match=r"^unknown responder 'mcts'; allowed: ismcts, lbr, learned, ppo$"):
    approximate.make_responder(GAME, 0, 0, "mcts", {}, approximate.opponent_model(seated("random")))
  for responder in ("lbr", "learned", "ppo"):
    with pytest.raises(ValueError, match=rf"^the {responder} responder needs a policy it can read"
                       r" at any table \(a saved policy, random, greedy, heuristic\); a search"
                       r" bot has none: use ismcts$"):
      approximate.make_responder(GAME, 0, 0, responder, {}, None)


@pytest.mark.parametrize("game_string, halves", [
    ("matrix_mp", True),  # two players, zero sum
    ("python_sushi_go(players=2,utility=margin)", True),
    ("python_sushi_go(players=2,utility=win)", True),  # constant sum
    ("python_sushi_go(players=2,utility=score)", False),  # general sum
    ("matrix_pd", False),
    ("python_sushi_go(players=3,utility=margin)", False),  # zero sum, three players
])
def test_exploitability_is_half_of_nash_conv_in_two_player_zero_and_constant_sum_games(
    game_string, halves):
  assert approximate.halves_nash_conv(pyspiel.load_game(game_string)) is halves


def test_a_pair_plays_ismcts_with_the_policy_in_its_rollouts_unless_told(monkeypatch):
  asked = []

  def recording(game, seat, seed, responder, params, model, model_in_rollouts):
    asked.append((seat, seed, responder, params, model_in_rollouts))
    return solvers.make_bot("random", game, seat, seed)

  def make_policy(game, player, seed):
    return solvers.make_bot("random", game, player, seed)

  monkeypatch.setattr(approximate, "make_responder", recording)
  approximate.play_gain(GAME, make_policy, 1, 0, 5, {"iterations": 3})
  approximate.play_gain(GAME, make_policy, 2, 0, 5, {}, model_in_rollouts=False, responder="lbr")
  assert [call[:1] + call[2:] for call in asked] == [
      (1, "ismcts", {"iterations": 3}, True), (2, "lbr", {}, False)]


def test_the_responders_seed_is_the_pairs_own(monkeypatch):
  """Same seed, seat and game index: the same responder seed, so a pair replays exactly; another
  game index: another seed."""
  seeds = []

  def recording(game, seat, seed, responder, params, model, model_in_rollouts):
    del responder, params, model, model_in_rollouts
    seeds.append(seed)
    return solvers.make_bot("random", game, seat, seed)

  def make_policy(game, player, seed):
    return solvers.make_bot("random", game, player, seed)

  monkeypatch.setattr(approximate, "make_responder", recording)
  for index in (0, 0, 1):
    approximate.play_gain(GAME, make_policy, 1, index, 5, {})
  assert all(isinstance(seed, int) for seed in seeds)
  assert seeds[0] == seeds[1] != seeds[2]
