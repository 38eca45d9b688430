"""The approximate bound's paired games: the responder's game and the policy's self-play game of
one (seat, game index) deal the same cards and seat the same policy bots, so that their difference
is the responder's gain and not the luck of another deal (`solvers/equilibrium/approximate.py`,
which `experiments/solving/approximate.py` runs unit by unit)."""

from __future__ import annotations

import pyspiel
import pytest

import solvers
from solvers.equilibrium import approximate
from sushigo_spiel.reduced_games import reduced_game_string

GAMES = {
    # two rounds: the second deal, from the cards left, must be shared too
    "pudding": reduced_game_string("pudding"),
    # three players, 9 of 12 cards dealt
    "three_hidden": "python_sushi_go(players=3,rounds=1,hand_size=3,deal=hand,utility=score,"
                    "deck=tempura:3/maki1:3/sashimi:3/dumpling:3)",
}
SEED = 9
LBR = {"worlds": 2, "depth": 1, "rollouts": 1}  # a cheap responder: the pairing is under test


def chance_outcomes(state: pyspiel.State) -> list[int]:
  return [step.action for step in state.full_history() if step.player == pyspiel.PlayerId.CHANCE]


def play_recorded(monkeypatch, game, seat: int, index: int, policy: str = "random"):
  """Plays the paired games of (`seat`, `index`) against `policy`; returns the record, the two
  matches played as (bots, final state) in order, and each policy bot made as (player, seed)."""
  matches, made = [], {}
  play_match = approximate.play_match

  def recording(game, bots, chance, on_chance=None):
    state = play_match(game, bots, chance, on_chance)
    matches.append((list(bots), state))
    return state

  def make_policy(g, player, seed):
    bot = solvers.make_bot(policy, g, player, seed)
    made[id(bot)] = (player, seed, bot)  # the bot kept alive: its id stays its own
    return bot

  monkeypatch.setattr(approximate, "play_match", recording)
  record = approximate.play_gain(game, make_policy, seat, index, SEED, LBR, responder="lbr")
  return record, matches, {key: value[:2] for key, value in made.items()}


@pytest.mark.parametrize("name", GAMES)
def test_each_pair_deals_the_same_cards_and_seats_the_same_policy_bots(monkeypatch, name):
  game = pyspiel.load_game(GAMES[name])
  n, deals = game.num_players(), set()
  for seat in range(n):
    for index in range(3):
      record, matches, made = play_recorded(monkeypatch, game, seat, index)
      monkeypatch.undo()
      assert len(matches) == 2
      (self_bots, self_play), (bots, against) = matches
      # The self-play game seats a policy bot made for each player; the responder's game the same
      # bots' twins (same player, same seed) in every seat but `seat`, and the responder there.
      assert [made[id(bot)][0] for bot in self_bots] == list(range(n))
      for player, bot in enumerate(bots):
        if player == seat:
          assert id(bot) not in made and bot.player_id == seat
        else:
          assert made[id(bot)] == made[id(self_bots[player])]
      # The same chance outcomes, every deal of every round.
      outcomes = chance_outcomes(self_play)
      assert len(outcomes) == game.rules.rounds * game.rules.deal_steps
      assert chance_outcomes(against) == outcomes
      deals.add(tuple(outcomes))
      assert record == approximate.GainRecord(seat, index, against.returns()[seat],
                                              self_play.returns()[seat])
  assert len(deals) >= 3  # the pairs differ from one another: the deals are drawn, not fixed


@pytest.mark.parametrize("name", GAMES)
def test_a_responder_playing_as_the_policy_gains_exactly_nothing_in_every_pair(monkeypatch, name):
  """The greedy policy is deterministic: a responder that plays it in its seat plays its paired
  self-play game move for move, so each paired difference is exactly zero."""
  game = pyspiel.load_game(GAMES[name])

  def as_the_policy(game, seat, seed, responder, params, model, model_in_rollouts=True):
    del responder, params, model, model_in_rollouts
    return solvers.make_bot("greedy", game, seat, seed)

  monkeypatch.setattr(approximate, "make_responder", as_the_policy)
  records = [approximate.play_gain(game, lambda g, p, s: solvers.make_bot("greedy", g, p, s),
                                   seat, index, SEED, {})
             for seat in range(game.num_players()) for index in range(4)]
  assert [r.agent - r.self_play for r in records] == [0.0] * len(records)
  assert len({r.agent for r in records}) > 1  # the deals differ from pair to pair
