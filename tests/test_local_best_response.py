"""Local Best Response: its strategy, read at every information set of a reduced game and valued
exactly on the game tree, gains (almost) what the exact best response gains against the policy.

The responder's whole strategy is read with `policy_from_bot` (one answer per information set) and
the profile "responder in one seat, the policy elsewhere" is valued exactly, so the figures carry
no sampling noise from games; only the responder's own world sampling remains.
"""

from __future__ import annotations

import pyspiel
import pytest

import solvers
from solvers.equilibrium.exploitability import nash_conv, policy_from_bot
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.equilibrium.tree_policies import policy_array
from solvers.search.opponent_model import OpponentModel
from sushigo_spiel.reduced_games import load_reduced


# Two players, one round of three cards dealt from eight: two cards stay hidden, so the responder
# must weigh the hands its opponent may hold (in `tiny` every card is dealt and can be told).
HIDDEN = ("python_sushi_go(players=2,rounds=1,hand_size=3,deal=hand,utility=margin,"
          "deck=tempura:2/sashimi:2/squid:1/wasabi:1/dumpling:2)")


def _gains(game: pyspiel.Game, policy: str, seats=(0, 1), checks: int = 0,
           **params) -> list[tuple[float, float]]:
  """(exact best-response gain, local best response gain) for each of `seats` against
  `policy`; the responder read at every information set and at `checks` more states redealt
  from its player's information."""
  tree = GameTree(game)
  exact = nash_conv(tree, policy_from_bot(tree, lambda g, p, seed: solvers.make_bot(policy, g, p,
                                                                                    seed)))
  models = [solvers.make_bot(policy, game, p, 0) for p in range(2)]

  model = OpponentModel(lambda rules, table, player: models[player].policy_at(table))

  result = []
  for seat in seats:
    def make(g, p, seed, seat=seat):
      if p == seat:
        return LocalBestResponseBot(g, p, seed, opponent_model=model, **params)
      return solvers.make_bot(policy, g, p, seed)
    # Read once per information set by default (checks=0): the bots' consistency across redealt
    # states is tested on their own, and reading LBR three times tripled this test's time.
    mixed = policy_array(tree, policy_from_bot(tree, make, checks=checks))
    result.append((exact.gains[seat], tree.policy_values(mixed)[seat] - exact.policy_values[seat]))
  return result


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_on_tiny_the_local_best_response_is_exact(policy):
  for exact, local in _gains(load_reduced("tiny"), policy, depth=3, worlds=16):
    assert exact > 0.5
    assert local == pytest.approx(exact, abs=1e-9)


def test_with_hidden_cards_the_local_best_response_is_exact_and_reads_only_its_information():
  """Against the heuristic, where two of eight cards are never dealt: the exact gain 0.45 in each
  seat, reached by the responder (16 worlds drawn at the first turn, the only one with a hidden
  hand). Every information set is read at a second state with the hidden cards redealt
  (checks=1): a responder that read the true table would answer differently there, and
  `policy_from_bot` refuses it."""
  for exact, local in _gains(pyspiel.load_game(HIDDEN), "heuristic", checks=1, depth=3,
                             worlds=16):
    assert exact > 0.4
    assert local == pytest.approx(exact, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_on_small_the_local_best_response_gains_at_least_nine_tenths(seat):
  """Measured with 8 worlds: 0.979 and 0.984 of the exact gains against the heuristic in seats 0
  and 1 (with 16 worlds, twice the time: 0.953 and 1.000; 0.978 and 0.977 against the greedy
  bot); a seat is most of a minute, so each seat is its own test."""
  [(exact, local)] = _gains(load_reduced("small"), "heuristic", seats=(seat,), depth=3,
                            worlds=8)
  assert local >= 0.9 * exact


def test_it_needs_the_policy_and_sound_parameters():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  with pytest.raises(ValueError, match="needs the policy it responds to"):
    LocalBestResponseBot(game, 0, 1)
  model = OpponentModel(lambda rules, table, player: [])
  with pytest.raises(ValueError, match="'worlds' is 0; allowed: an integer >= 1"):
    LocalBestResponseBot(game, 0, 1, opponent_model=model, worlds=0)
  with pytest.raises(ValueError, match="'continuation' is 'smart'; allowed: policy, random"):
    LocalBestResponseBot(game, 0, 1, opponent_model=model, continuation="smart")
