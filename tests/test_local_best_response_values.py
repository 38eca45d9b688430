"""Local Best Response's action values against oracles written plainly on OpenSpiel states.

`test_local_best_response.py` checks the responder's choices; these check the numbers behind them:
the posterior over hidden hands (3 players, where a neighbour's pick of this round tells about the
hand it came from), the lookahead to the end, the rollouts past it, the sampled joint actions when
the policy's support is wider than `branching`, and chance met inside the lookahead.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pyspiel
import pytest

import solvers
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.equilibrium.validation import PolicyError
from solvers.search.opponent_model import OpponentModel
from sushigo_spiel.drafting.adapter import simultaneous_state
from sushigo_spiel.reduced_games import load_reduced

# Three players, one round of four cards dealt from fourteen: two cards are never seen, and at the
# second turn one neighbour's first hand is hidden but its pick is public.
THREE_HIDDEN = ("python_sushi_go(players=3,rounds=1,hand_size=4,deal=hand,utility=margin,"
                "deck=tempura:3/sashimi:3/squid:2/wasabi:1/dumpling:3/salmon:2)")
# Two players, one round of four cards dealing the whole deck: every world is the true table.
WHOLE_DEAL = ("python_sushi_go(players=2,rounds=1,hand_size=4,deal=hand,utility=margin,"
              "deck=tempura:2/sashimi:2/dumpling:2/squid:1/salmon:1)")
# Two players, two rounds of three cards from a deck of twelve: the lookahead meets the second deal.
TWO_ROUNDS = ("python_sushi_go(players=2,rounds=2,hand_size=3,deal=hand,utility=margin,"
              "deck=tempura:3/sashimi:3/squid:2/dumpling:3/salmon:1)")


def skewed(legal: list[int]) -> list[tuple[int, float]]:
  """A policy that depends on the hand: action a weighted 3**rank among the legal actions, and
  nothing on the lowest when there are three or more (so its support is narrower than `legal`)."""
  weights = [0.0 if len(legal) >= 3 and rank == 0 else 3.0 ** rank
             for rank in range(len(legal))]
  total = sum(weights)
  return [(a, w / total) for a, w in zip(legal, weights)]


def skewed_model(game: pyspiel.Game, support_only: bool = False) -> OpponentModel:
  """The `skewed` policy; with `support_only`, its answers leave out the actions it never plays
  (a distribution over the legal actions all the same)."""
  def policy(rules, table, player):
    answer = skewed(game.dynamics.legal_actions(rules, table, player))
    return [(a, p) for a, p in answer if p > 0] if support_only else answer
  return OpponentModel(policy)


def state_policy(state: pyspiel.State, player: int) -> list[tuple[int, float]]:
  return skewed(state.legal_actions(player))


def expectimax(state: pyspiel.State, me: int, policy, first: int | None = None) -> float:
  """`me`'s value when it sees the whole table and maximises, the others follow `policy` and
  chance is averaged; `first` fixes `me`'s action at `state`."""
  if state.is_terminal():
    return state.returns()[me]
  if state.is_chance_node():
    total = 0.0
    for outcome, probability in state.chance_outcomes():
      child = state.clone()
      child.apply_action(outcome)
      total += probability * expectimax(child, me, policy)
    return total
  options = [first] if first is not None else state.legal_actions(me)
  supports = [[] if p == me else [(a, q) for a, q in policy(state, p) if q > 0]
              for p in range(state.num_players())]
  best = -math.inf
  for mine in options:
    supports[me] = [(mine, 1.0)]
    total = 0.0
    for combo in itertools.product(*supports):
      child = state.clone()
      child.apply_actions([a for a, _ in combo])
      total += math.prod(q for _, q in combo) * expectimax(child, me, policy)
    best = max(best, total)
  return best


def deals(game: pyspiel.Game):
  """Every complete deal as (state after it, its chance probability)."""
  stack = [(game.new_initial_state(), 1.0)]
  while stack:
    state, probability = stack.pop()
    if not state.is_chance_node():
      yield state, probability
      continue
    for outcome, p in state.chance_outcomes():
      child = state.clone()
      child.apply_action(outcome)
      stack.append((child, probability * p))


def posterior_values(game: pyspiel.Game, state: pyspiel.State, first_joint: list[int],
                     me: int, weigh_picks: bool = True) -> dict[int, float]:
  """Each action's value at `state` (reached by the deal and then `first_joint`), averaged over
  the deals `me` cannot tell apart, each weighted by chance and (`weigh_picks`) by the policy's
  probability of the others' first picks."""
  target = state.information_state_string(me)
  weighted = []
  for dealt, probability in deals(game):
    if not all(a in dealt.legal_actions(p) for p, a in enumerate(first_joint)):
      continue
    weight = probability * math.prod(dict(state_policy(dealt, p))[a]
                                     for p, a in enumerate(first_joint)
                                     if p != me and weigh_picks)
    world = dealt.clone()
    world.apply_actions(first_joint)
    if weight > 0 and world.information_state_string(me) == target:
      weighted.append((world, weight))
  total = sum(weight for _, weight in weighted)
  return {action: sum(weight * expectimax(world, me, state_policy, action)
                      for world, weight in weighted) / total
          for action in state.legal_actions(me)}


def responder(game, model, seed=0, **params) -> LocalBestResponseBot:
  return LocalBestResponseBot(game, 0, seed, opponent_model=model, **params)


def second_turn(game: pyspiel.Game, seed: int) -> tuple[pyspiel.State, list[int]]:
  rng = np.random.default_rng(seed)
  state = game.new_initial_state()
  while state.is_chance_node():
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probabilities)))
  joint = [int(rng.choice([a for a, q in skewed(state.legal_actions(p)) if q > 0]))
           for p in range(game.num_players())]
  state.apply_actions(joint)
  return state, joint


def consistent_worlds(game: pyspiel.Game, state: pyspiel.State, first_joint: list[int],
                      me: int) -> list[tuple[pyspiel.State, float]]:
  """The states `me` cannot tell apart from `state` (reached by a deal and then `first_joint`),
  each with its chance probability."""
  target = state.information_state_string(me)
  worlds = []
  for dealt, probability in deals(game):
    if all(a in dealt.legal_actions(p) for p, a in enumerate(first_joint)):
      world = dealt.clone()
      world.apply_actions(first_joint)
      if world.information_state_string(me) == target:
        worlds.append((world, probability))
  return worlds


@pytest.mark.parametrize("support_only", [False, True], ids=["every_action", "support_only"])
def test_the_values_weigh_hidden_hands_by_the_policys_picks(support_only):
  """At the second turn of a 3-player round with hidden cards, with worlds drawn from the chance
  posterior (here by an exact sampler over the enumerated deals, so that the test sees the
  responder's weighting alone), the responder's values (600 worlds, lookahead to the end) equal
  the exact posterior expectation: each world weighted by the probability that the policy made
  the picks seen, not counted alike, and not weighted by the responder's own picks. A pick the
  policy's answer leaves out is one it never makes."""
  game = pyspiel.load_game(THREE_HIDDEN)
  state, joint = second_turn(game, seed=2)
  worlds = consistent_worlds(game, state, joint, me=0)
  exact = posterior_values(game, state, joint, me=0)
  alike = posterior_values(game, state, joint, me=0, weigh_picks=False)
  assert max(abs(exact[a] - alike[a]) for a in exact) > 1.0  # the weighting matters here
  tables = [simultaneous_state(world).table() for world, _ in worlds]
  cumulative = np.cumsum([probability for _, probability in worlds])

  def exact_draw(rules, table, player, uniform):  # pylint: disable=unused-argument
    return tables[min(int(np.searchsorted(cumulative, uniform() * cumulative[-1])),
                      len(tables) - 1)]

  bot = responder(game, skewed_model(game, support_only), seed=1, worlds=600, depth=3,
                  branching=64)
  bot.dynamics = dataclasses.replace(bot.dynamics, determinize=exact_draw, deal_weight=None)
  values = bot.action_values(simultaneous_state(state).table())
  assert values.keys() == exact.keys()
  for action, value in values.items():
    assert value == pytest.approx(exact[action], abs=0.1)


def test_with_the_games_own_draw_the_values_are_the_posterior_expectation():
  """The same position with the worlds the game's `determinize` draws: it favours deals holding
  more copies of the cards picked from the hidden hand, and `deal_weight` takes that back out. With
  it the values (2,000 worlds) are the exact posterior expectation; without it they are off."""
  game = pyspiel.load_game(THREE_HIDDEN)
  state, joint = second_turn(game, seed=2)
  exact = posterior_values(game, state, joint, me=0)
  table = simultaneous_state(state).table()
  values = responder(game, skewed_model(game), seed=1, worlds=2000, depth=3,
                     branching=64).action_values(table)
  assert max(abs(values[a] - exact[a]) for a in exact) < 0.06
  unweighted = responder(game, skewed_model(game), seed=1, worlds=2000, depth=3, branching=64)
  unweighted.dynamics = dataclasses.replace(unweighted.dynamics, deal_weight=None)
  values = unweighted.action_values(table)
  assert max(abs(values[a] - exact[a]) for a in exact) > 0.1


def test_within_its_lookahead_on_a_table_it_can_read_the_values_are_exact():
  """In `tiny` every card is dealt, so every world is the true table: with the lookahead reaching
  the end and the policy's support within `branching`, the values are the expectimax values,
  whatever the seed and the number of worlds."""
  game = load_reduced("tiny")
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
  for worlds in (1, 3):
    bot = responder(game, skewed_model(game), seed=worlds, worlds=worlds, depth=3, branching=2)
    values = bot.action_values(simultaneous_state(state).table())
    for action, value in values.items():
      assert value == pytest.approx(expectimax(state, 0, state_policy, action), abs=1e-12)


def _sampled_mean(game, state, seeds: int, **params) -> dict[int, float]:
  table = simultaneous_state(state).table()
  runs = [responder(game, skewed_model(game), seed=seed, **params).action_values(table)
          for seed in range(seeds)]
  return {a: float(np.mean([run[a] for run in runs])) for a in runs[0]}


def test_joint_actions_are_drawn_when_the_support_is_wider_than_branching():
  """Two players, the whole deck dealt (every world is the true table), four kinds in each hand: the policy's support at the first turn is three picks (the lowest never
  chosen). Enumerated when `branching` is 3 (the expectimax values, from every seed); drawn
  twice and counted 1/2 each when it is 2 (varying with the seed, right on average)."""
  game = pyspiel.load_game(WHOLE_DEAL)
  state = next(dealt for dealt, _ in deals(game)
               if all(len(dealt.legal_actions(p)) == 4 for p in range(2)))
  assert len([q for _, q in state_policy(state, 1) if q > 0]) == 3
  exact = {a: expectimax(state, 0, state_policy, a) for a in state.legal_actions(0)}
  table = simultaneous_state(state).table()
  for seed in range(3):
    values = responder(game, skewed_model(game), seed=seed, worlds=1, depth=4,
                       branching=3).action_values(table)
    assert values == pytest.approx(exact, abs=1e-12)
  drawn = [responder(game, skewed_model(game), seed=seed, worlds=1, depth=4, branching=2)
           .action_values(table) for seed in range(3)]
  assert any(values != drawn[0] for values in drawn)
  mean = _sampled_mean(game, state, 300, worlds=1, depth=4, branching=2)
  assert mean == pytest.approx(exact, abs=0.6)


def pure(policy: list[tuple[int, float]]) -> list[tuple[int, float]]:
  """The policy's most likely action (the lowest of ties) with probability 1."""
  return [(max(policy, key=lambda entry: (entry[1], -entry[0]))[0], 1.0)]


def test_beyond_the_lookahead_rollouts_play_the_continuation_for_the_responder():
  """With a lookahead of the current turn only (depth 1, the least) the values are the mean of
  the rollouts from the next turn. With the whole deck dealt, against a deterministic policy (the
  heuristic's most likely pick), with a deterministic continuation, every rollout is the same
  game: the responder's action, then the policy's picks for the opponent and the continuation's
  for the responder. The deal is one where the greedy continuation and the policy's play differ,
  and where the best next pick differs from the continuation's."""
  game = pyspiel.load_game(WHOLE_DEAL)
  heuristic = [solvers.make_bot("heuristic", game, p, 0) for p in range(2)]
  greedy = solvers.make_bot("greedy", game, 0, 0)
  model = OpponentModel(lambda rules, table, player: pure(heuristic[player].policy_at(table)))
  start = next(dealt for dealt, _ in deals(game) if len(dealt.legal_actions(0)) == 4)
  plays = {"policy": lambda state: pure(heuristic[0].get_policy(state))[0][0],
           "greedy": lambda state: _only(greedy.get_policy(state))}
  for continuation in ("policy", "greedy"):
    bot = responder(game, model, seed=2, depth=1, rollouts=3, continuation=continuation)
    values = bot.action_values(simultaneous_state(start).table())
    for action, value in values.items():
      state = start.clone()
      state.apply_actions([action, pure(heuristic[1].get_policy(state))[0][0]])
      while not state.is_terminal():
        state.apply_actions([plays[continuation](state),
                             pure(heuristic[1].get_policy(state))[0][0]])
      assert value == state.returns()[0], (continuation, action)


def _only(policy: list[tuple[int, float]]) -> int:
  [(action, _)] = [(a, q) for a, q in policy if q > 0]
  return action


def test_the_lookahead_passes_the_deal_of_the_next_round():
  """At the last choice of the first of two rounds, a lookahead of 3 turns (this one, the second
  deal sampled, and both choices of the second round) gives on average over 200 seeds the
  expectimax over every deal of the second round."""
  game = pyspiel.load_game(TWO_ROUNDS)
  state = next(child for dealt, _ in deals(game) for child in _after_first_turns(dealt)
               if len(child.legal_actions(0)) == 2)
  exact = {a: expectimax(state, 0, state_policy, a) for a in state.legal_actions(0)}
  mean = _sampled_mean(game, state, 200, worlds=1, depth=3, rollouts=1)
  assert mean == pytest.approx(exact, abs=0.5)


def _after_first_turns(state: pyspiel.State):
  for joint in itertools.product(state.legal_actions(0), state.legal_actions(1)):
    child = state.clone()
    child.apply_actions(list(joint))
    yield child


def test_a_policy_that_is_not_a_distribution_is_refused_with_its_information_state():
  game = load_reduced("tiny")
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
  broken = OpponentModel(lambda rules, table, player: [(99, 1.0)])
  table = simultaneous_state(state).table()
  expected = (r"^the policy a local best response answers is not a distribution over the legal"
              r" actions of player 1 at information state '.+': probability \{99: 1\} on action\(s\)"
              r" \[99\], not legal there")
  with pytest.raises(PolicyError, match=expected) as refusal:
    responder(game, broken).action_values(table)
  assert repr(state.information_state_string(1)) in str(refusal.value)


def test_every_parameter_takes_its_least_value_and_nothing_below():
  game = load_reduced("tiny")
  model = skewed_model(game)
  least = {"worlds": 1, "depth": 1, "branching": 1, "rollouts": 1}
  responder(game, model, **least)
  for name, value in least.items():
    with pytest.raises(ValueError, match=rf"^parameter '{name}' is {value - 1}; allowed: an"
                                         rf" integer >= {value}$"):
      responder(game, model, **{**least, name: value - 1})


def test_it_refuses_anything_but_an_opponent_model_with_whole_sentences():
  game = load_reduced("tiny")
  with pytest.raises(ValueError, match=r"^a local best response needs the policy it responds to:"
                     r" pass opponent_model, an OpponentModel \(solvers\.search\.opponent_model\)$"):
    LocalBestResponseBot(game, 0, 1)
  with pytest.raises(ValueError, match=r"^opponent_model is .*; allowed: an OpponentModel"):
    LocalBestResponseBot(game, 0, 1, opponent_model=lambda rules, table, player: [])


def test_the_lookahead_is_exactly_depth_turns_deep():
  """With the whole deck dealt, a deterministic policy and a deterministic continuation, the
  value of an action at `depth` d is: this turn's action, the best of the responder's next d - 1
  choices (each opponent pick the policy's), then the greedy continuation to the end. Checked on
  the first deals where depths 1 and 2, and 2 and 3, give other values (the greedy continuation is
  worse than looking ahead there), so a lookahead a turn shorter or longer than asked fails."""
  game = pyspiel.load_game(WHOLE_DEAL)
  heuristic = [solvers.make_bot("heuristic", game, p, 0) for p in range(2)]
  greedy = solvers.make_bot("greedy", game, 0, 0)
  model = OpponentModel(lambda rules, table, player: pure(heuristic[player].policy_at(table)))

  def opponent(state):
    return pure(heuristic[1].get_policy(state))[0][0]

  def limited(state, first: int, depth: int) -> float:
    """The responder's return after `first` here, maximising `depth - 1` more turns."""
    state = state.clone()
    state.apply_actions([first, opponent(state)])
    if state.is_terminal():
      return state.returns()[0]
    if depth > 1:
      return max(limited(state, a, depth - 1) for a in state.legal_actions(0))
    while not state.is_terminal():
      state.apply_actions([_only(greedy.get_policy(state)), opponent(state)])
    return state.returns()[0]

  def oracle(state, depth: int) -> dict[int, float]:
    return {a: limited(state, a, depth) for a in state.legal_actions(0)}

  starts = [dealt for dealt, _ in deals(game) if len(dealt.legal_actions(0)) == 4]
  telling = [next(s for s in starts if oracle(s, depth) != oracle(s, depth + 1))
             for depth in (1, 2)]
  for start in telling:
    for depth in (1, 2, 3):
      bot = responder(game, model, seed=3, depth=depth, rollouts=2, continuation="greedy")
      values = bot.action_values(simultaneous_state(start).table())
      assert values == oracle(start, depth), depth


def test_it_plays_its_best_valued_action_and_the_lowest_of_ties():
  game = load_reduced("tiny")
  bot = responder(game, skewed_model(game))
  bot.action_values = lambda table: {3: 1.5, 1: 1.5, 2: 0.5, 0: -2.0}
  assert bot.policy_at(None) == [(3, 0.0), (1, 1.0), (2, 0.0), (0, 0.0)]
  bot.action_values = lambda table: {0: -2.0, 2: 0.5}
  assert bot.policy_at(None) == [(0, 0.0), (2, 1.0)]


def test_chance_that_ends_the_game_inside_the_lookahead_pays_the_returns_there():
  """The dynamics' contract lets chance end a game (`skip_chance` runs "until a simultaneous node
  or the end of the game"); neither game does, so a stand-in chance does: after the last choice of
  the first round it jumps to a finished game, whose returns are then every action's value."""
  game = pyspiel.load_game(TWO_ROUNDS)
  state = next(child for dealt, _ in deals(game) for child in _after_first_turns(dealt)
               if len(child.legal_actions(0)) == 2)
  finished = state.clone()
  while not finished.is_terminal():
    if finished.is_chance_node():
      finished.apply_action(finished.chance_outcomes()[0][0])
    else:
      finished.apply_actions([finished.legal_actions(p)[0] for p in range(2)])
  end = simultaneous_state(finished).table()
  bot = responder(game, skewed_model(game), worlds=1, depth=2)
  bot.dynamics = dataclasses.replace(bot.dynamics, skip_chance=lambda rules, table, uniform: end)
  values = bot.action_values(simultaneous_state(state).table())
  assert values == dict.fromkeys(state.legal_actions(0), finished.returns()[0])


@pytest.mark.parametrize("reaches, deal_weight, share", [
    ((0.3, 0.1), 1.0, 0.75),  # weighted by the policy's probability of the picks seen
    ((1e-12, 0.5e-12), 2.0, 0.5),  # both at most 1e-12: every world contradicts it, counted alike
    ((2e-12, 0.5e-12), 0.5, 0.5),  # weights 1e-12 and 0 in all: counted alike
    ((3e-12, 0.5e-12), 0.5, 1.0),  # weights above 1e-12 and 0: the first world alone
], ids=["weighted", "both_at_most_1e-12", "total_1e-12", "one_above"])
def test_worlds_the_policy_hardly_makes_count_as_contradicting_it(reaches, deal_weight, share):
  """Two worlds (deals where the responder holds the same hand), each with a pick of player 1
  (made at a table of another deal, so that the lookahead does not meet that answer) the policy
  makes with the given probability (player 2's pick is sure), and a stand-in deal weight: the
  values are the worlds' expectimax values mixed with the first world's `share`. A world whose
  picks the policy makes with probability at most 1e-12 counts as contradicting it; when the
  worlds' weights add up to at most 1e-12, every world counts alike."""
  game = pyspiel.load_game(THREE_HIDDEN)
  same_hand: dict[tuple, list] = {}
  for dealt, _ in deals(game):
    same_hand.setdefault(tuple(dealt.legal_actions(0)), []).append(dealt)
  hand, states = next((hand, found) for hand, found in same_hand.items()
                      if len(hand) == 4 and len(found) > 1)
  exact = [{a: expectimax(s, 0, state_policy, a) for a in s.legal_actions(0)} for s in states[:2]]
  assert exact[0] != exact[1]
  worlds = [simultaneous_state(s).table() for s in states[:2]]
  befores = [simultaneous_state(s).table() for found in same_hand.values() if found != states
             for s in found][:2]
  seen = [game.dynamics.legal_actions(game.rules, table, 1)[:2] for table in befores]
  answers = {(table, 1): [(pick, reach), (other, 1 - reach)]
             for table, (pick, other), reach in zip(befores, seen, reaches)}
  sure = [game.dynamics.legal_actions(game.rules, table, 2)[0] for table in befores]
  answers.update({(table, 2): [(pick, 1.0)] for table, pick in zip(befores, sure)})
  model = skewed_model(game)
  draws = iter(worlds * 2)
  bot = responder(game, OpponentModel(lambda rules, table, player: answers.get(
      (table, player)) or model.policy(rules, table, player)), worlds=2, depth=4, branching=64)
  bot.dynamics = dataclasses.replace(
      bot.dynamics, determinize=lambda rules, table, player, uniform: next(draws),
      deal_weight=lambda rules, world, player: deal_weight,
      round_decisions=lambda rules, world: [(befores[worlds.index(world)], [
          0, seen[worlds.index(world)][0], sure[worlds.index(world)]])])
  values = bot.action_values(worlds[0])
  assert values == pytest.approx({a: share * exact[0][a] + (1 - share) * exact[1][a]
                                  for a in exact[0]}, abs=1e-9)
