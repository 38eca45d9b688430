"""Games played on the rules' tables (the rollouts of the searchers) are the games of
python_sushi_go, and `determinize` redraws as `resample_from_infostate` does."""

import collections
import math
import random

import pyspiel
import pytest
from scipy import stats

from solvers.search import rollouts
from sushigo_spiel.drafting.hand_ranking import HandRanking
from sushigo_spiel.sushi_go import knowledge
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from support import walk

# deal=hand lists every possible hand at a deal: a smaller deck keeps those lists short.
HAND_DEAL = dict(deal="hand", hand_size=4, rounds=2,
                 deck="tempura:6/sashimi:5/dumpling:5/maki2:4/salmon:4/wasabi:3/chopsticks:3/pudding:4")
VARIANTS = [
    dict(players=2),
    dict(players=3, **HAND_DEAL),
    dict(players=4, rounds=2, pass_direction="alternate"),
    dict(players=5, rounds=2, soy_sauce=True),
    dict(players=3, pass_direction="right", **HAND_DEAL),
    dict(players=2, robot=True),
    dict(players=2, robot=True, **HAND_DEAL),
    dict(players=4, rounds=1, hand_size=5, deck="tempura:6/wasabi:4/squid:4/chopsticks:4/egg:4"),
]


def _id(params):
  return ",".join(f"{k}={v}" for k, v in params.items())


def _lockstep(game, seed):
  """Plays one game on a pyspiel state and on a table side by side, checking they agree at
  every step; chance from `rules.sample_chance`, picks uniform (one draw per player in order,
  as `rollouts.RandomPolicy`). Returns the final state."""
  rules, uniform = game.rules, random.Random(seed).random
  state, table = game.new_initial_state(), game.initial_table
  while not state.is_terminal():
    assert state.table() == table
    if state.is_chance_node():
      assert R.chance_outcomes(rules, table) == state.chance_outcomes()
      outcome = R.sample_chance(rules, table, uniform)
      assert dict(state.chance_outcomes())[outcome] > 0
      state.apply_action(outcome)
      table = R.apply_chance(rules, table, outcome)
    else:
      joint = []
      for p in range(rules.num_players):
        legal = state.legal_actions(p)
        assert legal == R.legal_actions(rules, table, p)
        joint.append(legal[int(uniform() * len(legal))])
      state.apply_actions(joint)
      table = R.play(rules, table, joint)
  assert state.table() == table and table.actor == R.TERMINAL
  assert state.returns() == R.returns(rules, table)
  return state


@pytest.mark.parametrize("params", VARIANTS, ids=_id)
def test_playouts_are_the_games_of_python_sushi_go(params):
  game = pyspiel.load_game("python_sushi_go", params)
  rules = game.rules
  for seed in range(4):
    final = _lockstep(game, seed)
    uniform = random.Random(seed).random
    policies = [rollouts.RandomPolicy(DYNAMICS)] * rules.num_players
    played = rollouts.playout(DYNAMICS, rules, game.initial_table, policies, uniform)
    assert played == final.table()
    uniform = random.Random(seed).random
    assert rollouts.rollout(DYNAMICS, rules, game.initial_table, policies,
                            uniform) == final.returns()


@pytest.mark.parametrize("params", VARIANTS, ids=_id)
def test_determinize_gives_the_tables_of_resample_from_infostate(params):
  game = pyspiel.load_game("python_sushi_go", params)
  rules, count = game.rules, 0
  for seed in range(2):
    for state in walk(game.new_initial_state(), random.Random(seed)):
      for player in range(rules.num_players):
        count += 1
        resampled = state.resample_from_infostate(player, random.Random(count).random)
        table = knowledge.determinize(rules, state.table(), player,
                                   random.Random(count).random)
        assert table == resampled.table()
        if state.is_simultaneous_node():
          assert table.hands[player] == state.table().hands[player]


def test_determinize_redeals_what_the_player_has_not_seen():
  game = pyspiel.load_game("python_sushi_go(players=3)")
  state = next(s for s in walk(game.new_initial_state(), random.Random(3))
               if s.is_simultaneous_node())
  table, rng = state.table(), random.Random(0)
  others = {knowledge.determinize(game.rules, table, 0, rng.random).hands[1] for _ in range(20)}
  assert len(others) > 10


@pytest.mark.parametrize("params", [dict(players=2), dict(players=2, robot=True)], ids=_id)
def test_card_chance_outcomes_are_drawn_with_their_probabilities(params):
  """With u on an even grid, every card is drawn exactly as often as its count in the pile."""
  game = pyspiel.load_game("python_sushi_go", params)
  for state in walk(game.new_initial_state(), random.Random(1)):
    if not state.is_chance_node():
      continue
    outcomes, table = state.chance_outcomes(), state.table()
    total = sum(table.deck if table.dealt < game.rules.deal_steps else table.robot.pile)
    drawn = collections.Counter(
        R.sample_chance(game.rules, table, lambda j=j: (j + 0.5) / total)
        for j in range(total))
    assert {a: drawn[a] / total for a, _ in outcomes} == pytest.approx(dict(outcomes))


def test_hand_chance_outcomes_follow_their_probabilities():
  """deal=hand: hands drawn card by card match the listed hypergeometric probabilities (a
  chi-square test at a fixed seed)."""
  game = pyspiel.load_game("python_sushi_go", dict(
      players=2, rounds=1, hand_size=3, deal="hand", deck="tempura:3/sashimi:2/squid:2/egg:1"))
  state = game.new_initial_state()
  outcomes = dict(state.chance_outcomes())
  rng, samples = random.Random(7), 6000
  drawn = collections.Counter(R.sample_chance(game.rules, state.table(), rng.random)
                              for _ in range(samples))
  assert set(drawn) <= set(outcomes)
  observed = [drawn[a] for a in outcomes]
  expected = [p * samples for p in outcomes.values()]
  assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_hand_probabilities_of_drawing_card_by_card_are_hypergeometric():
  """Exactly, by enumerating every order of draws: the card-by-card draw of `sample_chance` gives each
  hand the probability `chance_outcomes` lists."""
  deck, size = (3, 2, 2, 1), 3
  exact = collections.defaultdict(float)

  def visit(pool, hand, probability):
    if sum(hand) == size:
      exact[tuple(hand)] += probability
      return
    for c, count in enumerate(pool):
      if count:
        visit(pool[:c] + (count - 1,) + pool[c + 1:],
              hand[:c] + [hand[c] + 1] + hand[c + 1:], probability * count / sum(pool))

  visit(deck, [0] * len(deck), 1.0)
  ranking = HandRanking(deck, size)
  listed = {ranking.unrank(a): p for a, p in ranking.outcomes(deck)}
  assert listed == pytest.approx(dict(exact))
  assert math.isclose(sum(exact.values()), 1.0)


@pytest.mark.parametrize("params", VARIANTS, ids=_id)
def test_observation_tells_information_sets_apart_after_a_joint_action(params):
  """Two positions a player cannot tell apart, after the same joint action and until the next
  decision: their observations match exactly when the player's information states match."""
  game = pyspiel.load_game("python_sushi_go", params)
  rules, rng = game.rules, random.Random(5)
  compared = collections.Counter()
  for seed in range(6):
    for state in walk(game.new_initial_state(), random.Random(seed)):
      if not state.is_simultaneous_node():
        continue
      player = rng.randrange(rules.num_players)
      other = state.resample_from_infostate(player, rng.random)
      joint = [rng.choice(state.legal_actions(p)) for p in range(rules.num_players)]
      if any(a not in other.legal_actions(p) for p, a in enumerate(joint)):
        continue
      befores, ends = (state.table(), other.table()), []
      for position in (state.clone(), other):
        position.apply_actions(joint)
        while position.is_chance_node():
          position.apply_action(R.sample_chance(rules, position.table(), rng.random))
        ends.append(position)
      same_observation = \
          knowledge.observation(rules, befores[0], joint, ends[0].table(), player) == \
          knowledge.observation(rules, befores[1], joint, ends[1].table(), player)
      same_information = ends[0].information_state_string(player) == \
          ends[1].information_state_string(player)
      assert same_observation == same_information
      compared[same_information] += 1
  assert compared[True] and compared[False]


@pytest.mark.parametrize("name", rollouts.ROLLOUT_POLICIES)
def test_rollout_policies_play_legal_games(name):
  game = pyspiel.load_game("python_sushi_go(players=3,rounds=1,soy_sauce=true)")
  policy = rollouts.make_rollout_policy(name, game)
  rules, uniform = game.rules, random.Random(0).random
  table = R.skip_chance(rules, game.initial_table, uniform)
  while table.actor != R.TERMINAL:
    joint = [policy(rules, table, p, uniform) for p in range(3)]
    for p, action in enumerate(joint):
      assert action in R.legal_actions(rules, table, p)
    table = R.skip_chance(rules, R.play(rules, table, joint), uniform)


def test_unknown_rollout_policy_is_refused():
  with pytest.raises(ValueError, match="rollout policy 'smart'.*allowed: random, greedy"):
    rollouts.make_rollout_policy("smart", pyspiel.load_game("python_sushi_go"))
