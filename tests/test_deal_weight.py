"""`knowledge.deal_weight` turns determinization's draws into chance's posterior, exactly.

Determinization keeps the cards picked from a hand the player has not seen and draws the rest
uniformly, which favours deals holding more copies of the picked cards. Here both sides are
computed exactly on small games: the draw's distribution by walking every sequence of its draws
(`support.exact_resample_distribution`), and chance's posterior by enumerating every deal OpenSpiel
can make, replaying the round's picks and keeping the deals the player cannot tell apart, each
with its chance probability. Weighted by `deal_weight`, the first must equal the second.
"""

from __future__ import annotations

import random

import pyspiel
import pytest

from sushigo_spiel.sushi_go import knowledge
from support import CH, D, P, SA, SQ, T, deal, exact_resample_distribution, load, play


def chance_posterior(state, player: int) -> dict:
  """Each table `player` cannot tell from `state` (a one-round game, at a simultaneous node),
  with chance's probability of its deal, normalised. Deals whose hands `player` has held differ
  from the real ones are cut as soon as such a hand is complete."""
  game, rules = state.get_game(), state.get_game().rules
  real = state.table()
  turn = real.turn
  dealt_hands = real.log[-turn].hands if turn else real.hands
  seen = [dealt_to for dealt_to in range(rules.num_players)
          if knowledge.hand_seen(rules, real, player,
                                 knowledge.holder(rules, real.round, dealt_to, turn))]
  joints = [actions for _, actions in game.dynamics.round_decisions(rules, real)]
  target = state.information_state_string(player)
  posterior: dict = {}
  stack = [(game.new_initial_state(), 1.0)]
  while stack:
    world, probability = stack.pop()
    if world.is_chance_node():
      for outcome, p in world.chance_outcomes():
        child = world.clone()
        child.apply_action(outcome)
        hands = child.table().hands
        if any(have > want for h in seen for have, want in zip(hands[h], dealt_hands[h])):
          continue
        stack.append((child, probability * p))
      continue
    try:
      for joint in joints:
        world.apply_actions(joint)
    except (ValueError, pyspiel.SpielError):
      continue
    if world.information_state_string(player) == target:
      table = world.table()
      posterior[table] = posterior.get(table, 0.0) + probability
  total = sum(posterior.values())
  return {table: probability / total for table, probability in posterior.items()}


def weighted_draws(monkeypatch, state, player: int) -> tuple[dict, dict]:
  """Determinization's exact distribution, and the same reweighted by `deal_weight`."""
  rules = state.get_game().rules
  drawn = {table: float(p) for table, p in
           exact_resample_distribution(monkeypatch, state, player).items()}
  weighted = {table: p * knowledge.deal_weight(rules, table, player)
              for table, p in drawn.items()}
  total = sum(weighted.values())
  return drawn, {table: w / total for table, w in weighted.items()}


def distance(first: dict, second: dict) -> float:
  return max(abs(first.get(t, 0.0) - second.get(t, 0.0)) for t in set(first) | set(second))


THREE_HIDDEN = dict(players=3, rounds=1, hand_size=4, deal="hand",
                    deck="tempura:3/sashimi:3/squid:2/wasabi:1/dumpling:3/salmon:2")


def _random_turn(game, seed: int, turn: int):
  rng, state = random.Random(seed), game.new_initial_state()
  while state.is_chance_node() or state.table().turn < turn:
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(outcomes, probabilities)[0])
    else:
      state.apply_actions([rng.choice(state.legal_actions(p))
                           for p in range(game.num_players())])
  return state


@pytest.mark.parametrize("seed, turn", [(0, 1), (1, 1), (2, 2), (3, 2)])
def test_weighted_draws_are_chances_posterior_with_three_players(monkeypatch, seed, turn):
  game = load(**THREE_HIDDEN)
  state = _random_turn(game, seed, turn)
  exact = chance_posterior(state, 0)
  drawn, weighted = weighted_draws(monkeypatch, state, 0)
  assert set(drawn) == set(exact)
  assert distance(weighted, exact) < 1e-12


def test_the_weight_matters_where_a_picked_card_has_copies_left_unseen(monkeypatch):
  """Without the weight the draw is off chance's posterior (else the test above tells nothing)."""
  game = load(**THREE_HIDDEN)
  gaps = []
  for seed in range(4):
    state = _random_turn(game, seed, 1)
    drawn, _ = weighted_draws(monkeypatch, state, 0)
    gaps.append(distance(drawn, chance_posterior(state, 0)))
  assert max(gaps) > 0.01


def test_chopsticks_returned_to_an_unseen_hand_are_weighed_right(monkeypatch):
  # At the second turn player 2 uses Chopsticks on the hand first dealt to player 1, the one hand
  # player 0 has not seen at the third turn; the deal is card by card.
  game = load(players=4, hand_size=4, rounds=1,
              deck="tempura:7/sashimi:3/dumpling:3/squid:2/chopsticks:1/pudding:5")
  state = game.new_initial_state()
  deal(state, [[P] * 4, [T, T, SQ, D], [CH, SA, SA, D], [T] * 4])
  play(state, [P, T, CH, T])
  play(state, [T, P, "Tempura + Dumpling", SA])
  exact = chance_posterior(state, 0)
  drawn, weighted = weighted_draws(monkeypatch, state, 0)
  assert len(exact) > 1 and set(drawn) == set(exact)
  assert distance(weighted, exact) < 1e-12


def test_with_two_players_or_the_robot_every_world_weighs_alike():
  for params in (dict(players=2), dict(robot=True, rounds=1, hand_size=3,
                                       deck="tempura:4/squid:3/wasabi:3")):
    game = load(**params)
    for seed in range(3):
      state = _random_turn(game, seed, 1)
      rules, table = game.rules, state.table()
      for player in range(game.num_players()):
        world = game.dynamics.determinize(rules, table, player, random.Random(seed).random)
        assert knowledge.deal_weight(rules, world, player) == 1.0
