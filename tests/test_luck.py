"""The luck of the deal (`experiments.tournament.luck`): an exact small case, a mean of zero under
random play, the variance it removes, and how records, reports and `reproduce` carry it."""

import numpy as np
import pyspiel
import pytest
import scipy.stats

import solvers
from experiments import stats
from experiments.tournament import _mismatches, luck
from experiments.tournament import config as config_lib
from solvers.match import play_match
from sushigo_spiel.compiled.sushi_go.layout import ACTOR_CHANCE
from sushigo_spiel.drafting.dynamics import margins


def luck_of_game(game, bot_names, seed, playouts):
  """(final scores, luck by seat) of one game of `bot_names` with seed `seed`."""
  bots = [solvers.make_bot(name, game, seat, seed + seat) for seat, name in enumerate(bot_names)]
  deal_luck = luck.DealLuck(game, bots, seed, playouts)
  state = play_match(game, bots, np.random.default_rng(seed), on_chance=deal_luck.observe_deal)
  return np.array(state.scores(), dtype=float), deal_luck.luck


def test_a_deck_of_one_card_kind_leaves_no_luck():
  game = pyspiel.load_game("python_sushi_go(players=2,rounds=2,hand_size=3,deck=squid:12)")
  for seed in range(3):
    _, deal_luck = luck_of_game(game, ["random", "greedy"], seed, playouts=2)
    assert deal_luck.tolist() == [0.0, 0.0]


def test_two_squids_or_a_squid_and_an_egg_is_plus_or_minus_one():
  # Three squids (3 points) and an egg (1), two cards each: a seat holds both squids or one of
  # each, with probability 1/2. Greedy seats take a squid first and keep what is passed: the seat
  # with two squids passes a squid and gets the egg (4 points), the other gets a squid (6). Its
  # luck is 4 - 5 or 6 - 5, up to the sampled expectation's error.
  game = pyspiel.load_game("python_sushi_go(players=2,rounds=1,hand_size=2,deck=squid:3/egg:1)")
  playouts = 4000
  for seed in range(4):
    scores, deal_luck = luck_of_game(game, ["greedy", "greedy"], seed, playouts)
    exact = scores - 5.0
    assert sorted(exact.tolist()) == [-1.0, 1.0]
    assert deal_luck == pytest.approx(exact, abs=4 / np.sqrt(playouts))


def test_the_luck_has_mean_zero_under_random_play():
  game = pyspiel.load_game("python_sushi_go(players=2,rounds=2,hand_size=5)")
  seat_luck = np.array([luck_of_game(game, ["random", "random"], seed, playouts=4)[1][0]
                        for seed in range(300)])
  low, high = scipy.stats.t.interval(0.99, df=len(seat_luck) - 1, loc=seat_luck.mean(),
                                     scale=scipy.stats.sem(seat_luck))
  assert low < 0 < high
  assert seat_luck.std() > 1  # a real correction, not a vanishing one


def test_between_bots_that_play_as_their_references_the_margin_loses_most_of_its_variance():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  raw, corrected = [], []
  for seed in range(40):
    scores, deal_luck = luck_of_game(game, ["heuristic", "greedy"], seed, playouts=16)
    raw.append(margins(scores.tolist())[0])
    corrected.append(raw[-1] - margins(deal_luck.tolist())[0])
  assert stats.variance_ratio(np.array(corrected), np.array(raw)) < 0.25


def test_playouts_must_be_positive():
  game = pyspiel.load_game("python_sushi_go(players=2)")
  bots = [solvers.make_bot("random", game, seat, seat) for seat in range(2)]
  with pytest.raises(ValueError, match="allowed: an integer >= 1"):
    luck.DealLuck(game, bots, 0, playouts=0)


def record(index, seats, scores, luck_by_seat=None):
  entry = {"index": index, "game": "g", "seats": seats, "scores": scores, "winners": [0]}
  if luck_by_seat is not None:
    entry["luck"] = luck_by_seat
  return entry


def test_summaries_subtract_the_luck_and_its_margin():
  records = [record(0, ["a", "b"], [30, 20], [4.0, -2.0]),
             record(1, ["b", "a"], [25, 25], [1.0, 3.0]),
             record(2, ["a", "b"], [40, 30], [0.0, 0.0])]
  summary = stats.summarize(records)["a"]
  assert summary.corrected_score.value == pytest.approx(np.mean([26, 22, 40]))
  assert summary.corrected_margin.value == pytest.approx(np.mean([10 - 6, 0 - 2, 10]))
  assert summary.margin_variance_ratio == pytest.approx(
      np.var([4, -2, 10], ddof=1) / np.var([10, 0, 10], ddof=1))


def test_records_without_luck_report_raw_figures_only():
  records = [record(0, ["a", "b"], [30, 20]), record(1, ["b", "a"], [25, 25], [1.0, 3.0])]
  summary = stats.summarize(records)["a"]
  assert summary.corrected_margin is None and summary.margin.value == 5


def test_a_stored_record_without_luck_still_reproduces_but_a_changed_luck_does_not():
  replayed = record(0, ["a", "b"], [30, 20], [4.0, -2.0])
  assert _mismatches({0: record(0, ["a", "b"], [30, 20])}, {0: replayed}) == []
  assert _mismatches({0: record(0, ["a", "b"], [30, 20], [4.0, -1.0])}, {0: replayed}) == [
      "game 0: luck differ"]


CONFIG = """
[experiment]
name = "t"
seed = 1
games = ["python_sushi_go(players=2)"]
num_games = 2

[[players]]
bot = "random"
"""


def test_the_default_playouts_leave_the_config_hash_of_older_runs_unchanged():
  default = config_lib.parse(CONFIG)
  assert default.luck_playouts == config_lib.DEFAULT_LUCK_PLAYOUTS
  assert "luck_playouts" not in default.resolved()["experiment"]
  on = config_lib.parse(CONFIG.replace("num_games = 2", "num_games = 2\nluck_playouts = 16"))
  assert default.luck_playouts == 0 and on.luck_playouts == 16 and on.hash != default.hash
  with pytest.raises(config_lib.ConfigError, match="luck_playouts"):
    config_lib.parse(CONFIG.replace("num_games = 2", "num_games = 2\nluck_playouts = -1"))


def _core_deal_outcomes(core, pos):
  """A deal's outcomes enumerated on the compiled core alone: (probability, position), in the
  order `DealLuck.deal_outcomes` lists them."""
  frontier, dealt = [(1.0, pos)], []
  while frontier:
    probability, node = frontier.pop()
    if core.actor(node) != ACTOR_CHANCE:
      dealt.append((probability, node))
      continue
    for outcome, p in core.chance_outcomes(node):
      child = node.copy()
      core.apply_chance(child, outcome)
      frontier.append((probability * p, child))
  return dealt


@pytest.mark.parametrize("game_string", [
    "python_sushi_go(players=2,rounds=2,hand_size=2,deck=squid:4/egg:3/tempura:1)",
    "python_sushi_go(players=3,rounds=1,hand_size=2,deck=squid:3/egg:2/maki1:1,deal=hand)"])
def test_a_deals_outcomes_on_the_games_states_are_the_compiled_cores(game_string):
  # The luck walks the game's own states; the compiled core, its twin, must find the same
  # positions with the same probabilities, bit for bit, in the same order.
  game = pyspiel.load_game(game_string)
  bots = [solvers.make_bot("random", game, seat, seat) for seat in range(game.num_players())]
  state = game.new_initial_state()
  deal_luck = luck.DealLuck(game, bots, 0, playouts=1000)
  outcomes = deal_luck.deal_outcomes(state)
  expected = _core_deal_outcomes(deal_luck.core, deal_luck.core.encode(state.table()))
  assert 1 < len(outcomes) == len(expected)
  for (p, pos), (q, expected_pos) in zip(outcomes, expected):
    assert p == q
    assert pos.tolist() == expected_pos.tolist()
  assert luck.DealLuck(game, bots, 0, playouts=len(expected) - 1).deal_outcomes(state) is None
