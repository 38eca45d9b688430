"""AIVAT (`experiments.tournament.aivat`): unbiased exactly in expectation on games small enough to
enumerate, unbiased within its interval over many sampled games, what it removes, which bots it
reads, and how configs, records and reports carry it."""

import itertools

import numpy as np
import pyspiel
import pytest
import scipy.stats

import solvers
from experiments import stats
from experiments.tournament import _mismatches, aivat, luck
from experiments.tournament import config as config_lib
from experiments.tournament import summary as summary_lib
from solvers import round_values
from solvers.match import play_match
from sushigo_spiel.drafting.dynamics import margins
from sushigo_spiel.reduced_games import REDUCED_GAMES

EXACT = 10_000  # playouts above any tiny deal's outcome count: deal expectations are exact


class UniformReader:
  """A bot whose draws AIVAT reads as uniform over the legal actions: not what the bot plays."""

  def __init__(self, bot):
    self.bot = bot

  def get_policy(self, state):
    legal = state.legal_actions(self.bot.player_id)
    return [(action, 1 / len(legal)) for action in legal]


def expectations(game, bots, read=None):
  """(E[scores], E[scores - luck - decision terms]) by seat, exactly, over every deal and every
  draw of the bots' policies. `read` are the bots AIVAT reads (default: the bots themselves)."""
  deal_luck = luck.DealLuck(game, bots, 0, EXACT)
  assert deal_luck.value.deterministic  # v is exact: the expectation is the enumeration's
  terms = aivat.DecisionTerms(bots, deal_luck.value, EXACT)
  if read is not None:
    terms.bots = read

  def term(observe, *args):
    deal_luck.luck[:], terms.decisions[:] = 0, 0
    observe(*args)
    return deal_luck.luck + terms.decisions

  def walk(state, probability, correction, before):
    if state.is_terminal():
      scores = np.array(state.scores(), dtype=float)
      return probability * scores, probability * (scores - correction)
    if state.is_chance_node():
      before = before or state.clone()
      outcomes = [(p, state.child(outcome)) for outcome, p in state.chance_outcomes()]
      return _sum(walk(child, probability * p, correction, before) for p, child in outcomes)
    if before is not None:
      correction = correction + term(deal_luck.observe_deal, before, state)
    policies = [[(a, p) for a, p in bot.get_policy(state) if p > 0] for bot in bots]
    results = []
    for joint in itertools.product(*policies):
      actions = [action for action, _ in joint]
      child = state.clone()
      child.apply_actions(actions)
      results.append(walk(child, probability * np.prod([p for _, p in joint]),
                          correction + term(terms.observe_decision, state, actions), None))
    return _sum(results)

  return walk(game.new_initial_state(), 1.0, np.zeros(len(bots)), None)


def _sum(pairs):
  raw, estimate = zip(*pairs)
  return sum(raw), sum(estimate)


def heuristic(game, seat, temperature):
  return solvers.make_bot("heuristic", game, seat, seat, temperature=temperature)


@pytest.mark.first
@pytest.mark.parametrize("name", ["tiny", pytest.param("pudding", marks=pytest.mark.slow)])
def test_aivat_equals_the_raw_mean_exactly_in_expectation(name):
  # Stochastic heuristics are readable, their references (the default heuristic) deterministic:
  # the expectation of the estimate is a finite sum. "pudding" deals again between its rounds.
  game = pyspiel.load_game(REDUCED_GAMES[name].game_string)
  bots = [heuristic(game, 0, 2.0), heuristic(game, 1, 0.7)]
  raw, estimate = expectations(game, bots)
  assert estimate == pytest.approx(raw, abs=1e-9)


def test_the_exact_check_fails_when_the_decision_terms_read_a_wrong_policy():
  game = pyspiel.load_game(REDUCED_GAMES["tiny"].game_string)
  bots = [heuristic(game, 0, 2.0), heuristic(game, 1, 0.7)]
  raw, estimate = expectations(game, bots, read=[UniformReader(bot) for bot in bots])
  assert np.max(np.abs(estimate - raw)) > 1e-3


def aivat_game(game, bots, seed, playouts):
  """(scores, luck, decision terms) by seat of one game played with AIVAT's terms recorded."""
  deal_luck = luck.DealLuck(game, bots, seed, playouts)
  terms = aivat.DecisionTerms(bots, deal_luck.value, playouts)
  state = play_match(game, bots, np.random.default_rng(seed), on_chance=deal_luck.observe_deal,
                     on_decision=terms.observe_decision)
  return np.array(state.scores(), dtype=float), deal_luck.luck, terms.decisions


def test_over_many_sampled_games_the_aivat_mean_is_the_raw_mean():
  # Random play: its reference is stochastic, so values are means of sampled continuations and
  # deals are sampled too; the paired difference raw - AIVAT has mean zero within its interval.
  game = pyspiel.load_game("python_sushi_go(players=2,rounds=2,hand_size=5)")
  raw, estimate = [], []
  for seed in range(300):
    bots = [solvers.make_bot("random", game, 0, 2 * seed),
            solvers.make_bot("heuristic", game, 1, 2 * seed + 1, temperature=1.0)]
    scores, deal_luck, decisions = aivat_game(game, bots, seed, playouts=4)
    raw.append(margins(scores.tolist())[0])
    estimate.append(raw[-1] - margins((deal_luck + decisions).tolist())[0])
  raw, estimate = np.array(raw), np.array(estimate)
  difference = raw - estimate
  low, high = scipy.stats.t.interval(0.99, df=len(raw) - 1, loc=difference.mean(),
                                     scale=scipy.stats.sem(difference))
  assert low < 0 < high
  assert difference.std() > 1  # a real correction, not a vanishing one


def test_deterministic_bots_get_no_decision_terms_and_searches_are_not_read():
  game = pyspiel.load_game("python_sushi_go(players=2,rounds=1,hand_size=4)")
  bots = [solvers.make_bot("greedy", game, 0, 0), solvers.make_bot("heuristic", game, 1, 1)]
  _, _, decisions = aivat_game(game, bots, 3, playouts=2)
  assert decisions.tolist() == [0.0, 0.0]
  assert aivat.readable(solvers.make_bot("random", game, 0, 0))
  assert not aivat.readable(solvers.make_bot("openspiel_ismcts", game, 0, 0))


def test_the_blueprint_is_read_and_valued_by_its_own_twin():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  blueprint = solvers.make_bot("policy", game, 1, 1,
                               path="experiments/results/policies/blueprint_2p.npz")
  assert aivat.readable(blueprint)
  value = round_values.ReferenceValue(game, [solvers.make_bot("heuristic", game, 0, 0), blueprint],
                              np.zeros(4, dtype=np.uint64))
  assert value.names == ("heuristic", "blueprint") and not value.deterministic


def test_aivat_needs_the_luck_playouts():
  config = """
[experiment]
name = "t"
seed = 1
games = ["python_sushi_go(players=2)"]
num_games = 2
aivat = true

[[players]]
bot = "random"
"""
  with pytest.raises(config_lib.ConfigError, match="set experiment.luck_playouts"):
    config_lib.parse(config)
  on = config_lib.parse(config.replace("aivat = true", "aivat = true\nluck_playouts = 2"))
  assert on.aivat and "aivat" not in config_lib.parse(
      config.replace("aivat = true", "")).resolved()["experiment"]


def record(index, seats, scores, luck_by_seat, decisions=None):
  entry = {"index": index, "game": "g", "seats": seats, "scores": scores, "winners": [0],
           "luck": luck_by_seat}
  if decisions is not None:
    entry["decisions"] = decisions
  return entry


def test_summaries_subtract_the_luck_and_the_decision_terms():
  records = [record(0, ["a", "b"], [30, 20], [4.0, -2.0], [1.0, 0.0]),
             record(1, ["b", "a"], [25, 25], [1.0, 3.0], [0.0, -2.0]),
             record(2, ["a", "b"], [40, 30], [0.0, 0.0], [3.0, 1.0])]
  summary = stats.summarize(records)["a"]
  assert summary.aivat_score.value == pytest.approx(np.mean([25, 24, 37]))
  margins_ = [10 - 6 - 1, 0 - 2 + 2, 10 - 2]
  assert summary.aivat_margin.value == pytest.approx(np.mean(margins_))
  assert summary.aivat_margin_variance_ratio == pytest.approx(
      np.var(margins_, ddof=1) / np.var([10, 0, 10], ddof=1))
  assert summary.aivat_margin_luck_ratio == pytest.approx(
      np.var(margins_, ddof=1) / np.var([4, -2, 10], ddof=1))
  markdown = summary_lib._summary_table(stats.group_stats(records), ["a", "b"], ["margin"])
  assert "AIVAT margin" in markdown[0] and "luck-corrected margin" in markdown[0]
  without = [record(0, ["a", "b"], [30, 20], [4.0, -2.0]), *records[1:]]
  assert stats.summarize(without)["a"].aivat_margin is None
  assert "AIVAT" not in summary_lib._summary_table(stats.group_stats(without), ["a", "b"],
                                                   ["margin"])[0]


def test_a_stored_record_without_decision_terms_still_reproduces():
  replayed = record(0, ["a", "b"], [30, 20], [4.0, -2.0], [1.0, 0.0])
  assert _mismatches({0: record(0, ["a", "b"], [30, 20], [4.0, -2.0])}, {0: replayed}) == []
  assert _mismatches({0: record(0, ["a", "b"], [30, 20], [4.0, -2.0], [1.0, 1.0])},
                     {0: replayed}) == ["game 0: decisions differ"]


PLAYED = """
[experiment]
name = "t"
seed = 5
games = ["python_sushi_go(players=2,rounds=2,hand_size=4)"]
num_games = 2
luck_playouts = 3
aivat = true

[[players]]
name = "random"
bot = "random"

[[players]]
name = "heuristic"
bot = "heuristic"
params = { temperature = 1.0 }
"""


def test_a_game_records_its_decision_terms_reproducibly_and_plays_as_without_them():
  from experiments.tournament import play_game  # pylint: disable=import-outside-toplevel
  on = config_lib.parse(PLAYED)
  first, second = play_game(on, 1)[0], play_game(on, 1)[0]
  assert first == second and len(first["decisions"]) == 2 and any(first["decisions"])
  off = play_game(config_lib.parse(PLAYED.replace("aivat = true", "")), 1)[0]
  assert "decisions" not in off
  assert {k: v for k, v in first.items() if k not in ("luck", "decisions")} == \
      {k: v for k, v in off.items() if k != "luck"}


def test_the_blueprint_kernel_plays_a_baselines_table_as_the_baseline_kernels_do():
  from solvers.equilibrium.kernels import blueprint_policy  # pylint: disable=C0415
  from sushigo_spiel.compiled.rng import new_state  # pylint: disable=C0415
  game = pyspiel.load_game("python_sushi_go(players=3,rounds=2,hand_size=5)")
  bots = [solvers.make_bot(name, game, seat, seat)
          for seat, name in enumerate(["random", "greedy", "heuristic"])]
  baseline = round_values.ReferenceValue(game, bots, new_state(7))
  assert baseline.blueprint_kernel is None
  pos = baseline.core.initial_position()
  baseline.core.skip_chance(pos, new_state(3))
  params = [round_values.reference(bot)[1] for bot in bots]
  out, rng = np.zeros(3), new_state(7)
  blueprint_policy.round_values(
      baseline.core.spec, pos, rng,
      np.array([blueprint_policy.POLICIES[name] for name in baseline.names], dtype=np.int64),
      np.concatenate(params), np.cumsum([0] + [len(p) for p in params]).astype(np.int64), 5, out,
      blueprint_policy.PLAYING)
  assert baseline(pos, 5).tolist() == out.tolist() and baseline.rng.tolist() == rng.tolist()


def test_a_record_whose_decision_terms_are_not_one_finite_number_a_seat_is_refused():
  config = config_lib.parse(PLAYED)
  from experiments.tournament import play_game  # pylint: disable=import-outside-toplevel
  good = play_game(config, 0)[0]
  check = config_lib.record_problem(config)
  assert check(0, good) is None
  for bad in ([1.0], [float("nan"), 0.0], "x"):
    assert "'decisions'" in check(0, {**good, "decisions": bad})
