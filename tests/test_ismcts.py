"""Information-Set MCTS (so_ismcts, mo_ismcts): sound moves, no peeking, reproducibility."""

import random
import time

import pyspiel
import pytest

import solvers
from solvers.search.opponent_model import OpponentModel
from support import deal, legal_names, load, play, play_with_bots, random_playout
from sushigo_spiel.sushi_go import rules as R

SEARCHERS = [(name, selection) for name in ("so_ismcts", "mo_ismcts")
             for selection in ("ucb1", "exp3", "regret_matching")]
SMALL = dict(rounds=1, hand_size=3, deck="tempura:6/sashimi:6/squid:4/maki2:4/egg:4/pudding:3")


def _id(value):
  return "-".join(value) if isinstance(value, tuple) else str(value)


def _opening(game, seed=0):
  return random_playout(game.new_initial_state(), random.Random(seed),
                        stop=lambda s: s.is_simultaneous_node())


@pytest.mark.parametrize("name, selection", SEARCHERS, ids=_id)
@pytest.mark.parametrize("players", [2, 4])
def test_finds_the_one_winning_pick(name, selection, players):
  """One round of three cards, everyone taking Chopsticks first. Player 0 then holds Wasabi and
  Squid Nigiri (everyone else Eggs). Wasabi then Squid with the Chopsticks scores 9 or 10; Wasabi
  alone 3 (an Egg lands on it), Squid alone 4, Squid then Wasabi 6. The budget is small."""
  game = load(players=players, rounds=1, hand_size=3, deck="egg:14/squid:1/wasabi:1/chopsticks:4")
  state = game.new_initial_state()
  deal(state, [["Chopsticks", "Egg Nigiri", "Egg Nigiri"]] * (players - 1) +
       [["Chopsticks", "Wasabi", "Squid Nigiri"]])
  play(state, ["Chopsticks"] * players)
  assert legal_names(state, 0) == ["Squid Nigiri", "Wasabi", "Squid Nigiri + Wasabi",
                                   "Wasabi + Squid Nigiri"]
  bot = solvers.make_bot(name, game, 0, seed=1, iterations=600, selection=selection)
  assert state.action_to_string(0, bot.step(state)) == "Wasabi + Squid Nigiri"


@pytest.mark.parametrize("name, selection", SEARCHERS, ids=_id)
@pytest.mark.parametrize("final", ["visits", "mixed"])
def test_never_reads_hidden_cards(name, selection, final):
  """Redealing the cards the player has not seen changes nothing: same policy, same move."""
  game = load(players=3, rounds=1)
  rng, checked = random.Random(4), 0
  for seed in range(3):
    state = random_playout(game.new_initial_state(), random.Random(seed),
                           stop=lambda s: s.is_simultaneous_node() and s.table().turn == seed)
    for player in range(3):
      other = state.resample_from_infostate(player, rng.random)
      assert other.information_state_string(player) == state.information_state_string(player)
      if other.hands() == state.hands():
        continue
      answers = [solvers.make_bot(name, game, player, seed=7, iterations=60, selection=selection,
                                  final=final).step_with_policy(s) for s in (state, other)]
      assert answers[0] == answers[1]
      checked += 1
  assert checked >= 5


@pytest.mark.parametrize("name", ["so_ismcts", "mo_ismcts"])
def test_a_seed_fixes_every_move(name):
  game = load(players=3, **SMALL)

  def moves(seed):
    bots = [solvers.make_bot(name, game, p, seed=seed + p, iterations=40, selection="exp3",
                             final="mixed") for p in range(3)]
    return play_with_bots(game, bots, seed=2)[1]

  assert moves(0) == moves(0)
  assert moves(0) != moves(100)


@pytest.mark.parametrize("name", ["so_ismcts", "mo_ismcts"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_plays_every_player_count_in_both_forms(name, players):
  params = dict(players=players, rounds=1, hand_size=3,
                deck="tempura:8/sashimi:8/maki3:4/wasabi:4/salmon:4/chopsticks:4")
  game = pyspiel.load_game("python_sushi_go", params)
  bots = [solvers.make_bot(name, game, p, seed=p, iterations=20) for p in range(players)]
  assert play_with_bots(game, bots, seed=players)[0].is_terminal()
  turn_based = pyspiel.convert_to_turn_based(game)
  bot = solvers.make_bot(name, turn_based, players - 1, seed=0, iterations=20)
  state = turn_based.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      state.apply_action(state.chance_outcomes()[0][0])
    elif state.current_player() == players - 1:
      action = bot.step(state)
      assert action in state.legal_actions()
      state.apply_action(action)
    else:
      state.apply_action(state.legal_actions()[-1])


def test_turn_based_form_gets_the_same_answer_and_refuses_other_turns():
  game = load(players=3, **SMALL)
  turn_based = pyspiel.convert_to_turn_based(game)
  state, sequential = _opening(game, seed=3), turn_based.new_initial_state()
  for entry in state.full_history():
    sequential.apply_action(entry.action)
  for p in range(2):
    with pytest.raises(ValueError, match=f"player 2 has no move here .current player: {p}"):
      solvers.make_bot("so_ismcts", turn_based, 2, seed=0, iterations=5).step(sequential)
    sequential.apply_action(sequential.legal_actions()[0])
  simultaneous = solvers.make_bot("so_ismcts", game, 2, seed=5, iterations=80)
  in_turns = solvers.make_bot("so_ismcts", turn_based, 2, seed=5, iterations=80)
  assert simultaneous.step_with_policy(state) == in_turns.step_with_policy(sequential)


@pytest.mark.parametrize("params", [
    dict(players=2, robot=True, rounds=1, hand_size=3, soy_sauce=True),
    dict(players=3, rounds=2, hand_size=3, pass_direction="alternate", deal="hand",
         deck="tempura:6/sashimi:6/squid:4/maki2:4/egg:4/pudding:3"),
    dict(players=2, robot=True, rounds=2, hand_size=3, deal="hand",
         deck="tempura:6/sashimi:6/squid:4/maki2:4/egg:4/pudding:3"),
], ids=["robot-soy", "alternate-hand", "robot-hand"])
@pytest.mark.parametrize("name", ["so_ismcts", "mo_ismcts"])
def test_searches_the_variants(params, name):
  game = pyspiel.load_game("python_sushi_go", params)
  bots = [solvers.make_bot(name, game, p, seed=p, iterations=25,
                           rollout=("greedy", "heuristic", "random")[p])
          for p in range(game.num_players())]
  assert play_with_bots(game, bots, seed=1)[0].is_terminal()


def test_policy_is_a_distribution_over_the_legal_actions():
  game = load(players=2)
  state = _opening(game)
  for final in ("visits", "mixed"):
    policy, action = solvers.make_bot("mo_ismcts", game, 1, seed=0, iterations=100,
                                      selection="regret_matching", final=final
                                      ).step_with_policy(state)
    assert sorted(a for a, _ in policy) == state.legal_actions(1)
    assert sum(p for _, p in policy) == pytest.approx(1.0) and action in state.legal_actions(1)
    if final == "visits":
      assert dict(policy)[action] == 1.0


def test_seconds_budget_bounds_the_time_per_move():
  game = load(players=4)
  state = _opening(game)
  bot = solvers.make_bot("so_ismcts", game, 0, seed=0, seconds=0.2, iterations=1)
  start = time.perf_counter()
  root = bot.search(state)
  elapsed = time.perf_counter() - start
  assert 0.2 <= elapsed < 0.6
  assert sum(root.visits(a) for a in state.legal_actions(0)) > 1  # not the iteration budget


def test_opponent_model_makes_the_search_a_best_response():
  """One round of two-card hands and exactly these four cards: player 0 holds Maki Roll 2 and
  Salmon Nigiri, player 1 Maki Roll 3 and Egg Nigiri. Each keeps a pick and gets the other's
  card. If player 1 takes Maki Roll 3, player 0 scores 4 with Maki Roll 2 (2 icons: second
  place) and 3 with Salmon; if player 1 takes the Egg, player 0 scores 6 with Maki Roll 2 (5
  icons) and 8 with Salmon (2 + Maki Roll 3's 6). Own points are the objective here (the margin
  would prefer Salmon in the first case too: 3 - 6 against 4 - 8)."""
  game = load(players=2, rounds=1, hand_size=2, deck="maki2:1/maki3:1/salmon:1/egg:1")
  state = game.new_initial_state()
  deal(state, [["Maki Roll 2", "Salmon Nigiri"], ["Maki Roll 3", "Egg Nigiri"]])
  cards = [card.name for card in game.rules.cards]

  def always(name):
    def policy(rules, table, player):
      del rules
      return [(a, 1.0 if cards[a] == name else 0.0)
              for a in R.legal_actions(game.rules, table, player)]
    return OpponentModel(policy)

  for taken, answer in (("Maki Roll 3", "Maki Roll 2"), ("Egg Nigiri", "Salmon Nigiri")):
    for name in ("so_ismcts", "mo_ismcts"):
      bot = solvers.bot_class(name)(game, 0, 3, opponent_model=always(taken), iterations=60,
                                    objective="utility")
      assert state.action_to_string(0, bot.step(state)) == answer



def test_opponent_model_can_be_kept_out_of_rollouts():
  game = load(players=2)
  state = game.new_initial_state()
  random_playout(state, random.Random(5), stop=lambda s: s.is_simultaneous_node())
  calls = {True: 0, False: 0}
  for in_rollouts in calls:
    def policy(rules, table, player, key=in_rollouts):
      calls[key] += 1
      actions = R.legal_actions(rules, table, player)
      return [(a, 1.0 / len(actions)) for a in actions]
    bot = solvers.bot_class("so_ismcts")(game, 0, 3, opponent_model=OpponentModel(policy),
                                         iterations=30, model_in_rollouts=in_rollouts)
    bot.step(state)
  assert 30 <= calls[False] < calls[True] / 5


def test_an_opponent_model_is_an_explicit_object():
  """A bare callable is refused: the model says what the engines can read of it."""
  with pytest.raises(ValueError, match="allowed: an OpponentModel"):
    solvers.bot_class("so_ismcts")(load(players=2), 0, 0,
                                   opponent_model=lambda rules, table, player: [])


def test_beats_random_play():
  game = load(players=2, utility="margin", **SMALL)
  margin = 0.0
  for seed in range(8):
    seat = seed % 2
    bots = [solvers.make_bot("random", game, p, seed=seed) for p in range(2)]
    bots[seat] = solvers.make_bot("so_ismcts", game, seat, seed=seed, iterations=100)
    margin += play_with_bots(game, bots, seed)[0].returns()[seat]
  assert margin > 0


@pytest.mark.parametrize("params, message", [
    (dict(selection="ucb"), "'selection' is 'ucb'; allowed: ucb1, exp3, regret_matching"),
    (dict(final="best"), "'final' is 'best'; allowed: visits, mixed"),
    (dict(rollout="smart"), "'rollout' is 'smart'; allowed: random, greedy, heuristic"),
    (dict(iterations=0), "'iterations' is 0; allowed: an integer >= 1"),
    (dict(seconds=-1), "'seconds' is -1; allowed"),
    (dict(budget=3), "unknown parameter.*budget.*allowed"),
    (dict(gamma=0, selection="exp3"), "'gamma' is 0 for exp3"),
])
def test_bad_parameters_are_refused(params, message):
  with pytest.raises(ValueError, match=message):
    solvers.make_bot("so_ismcts", load(players=2), 0, seed=0, **params)


def test_other_games_are_refused():
  game = pyspiel.load_game("kuhn_poker")
  with pytest.raises(ValueError, match="not a drafting game; allowed: python_sushi_go"):
    solvers.make_bot("mo_ismcts", game, 0, seed=0)


def test_search_bench_reports_every_searcher_beside_openspiel():
  from experiments.bench import search as search_bench  # pylint: disable=import-outside-toplevel
  figures = search_bench.run(players=(2,), seconds=0.05, repeats=1, compile_times=False)
  medians = figures["speeds"][0]["medians"]
  assert set(medians) == {"openspiel_ismcts", "so_ismcts", "mo_ismcts", "pimc", "pimc_python"}
  assert all(value > 0 for value in medians.values())
  assert figures["playouts"]["2"] > figures["playouts"]["5"] > 0
  names = [t["name"] for t in figures["targets"]]
  assert "so_ismcts 2p / openspiel_ismcts" in names and "pimc 2p worlds/s / python engine" in names
  assert "es-mccfr large compiled / python" in names
  assert "os-mccfr full 2p compiled / python" in names
  assert all(figures["mccfr"][name] > 0 for name in ("es", "es_python", "probe_full", "os_full",
                                                     "os_python_full"))
  text = search_bench.report(figures)
  assert "Sushi Go 2p" in text and "so_ismcts 2p iterations/s" in text and "goofspiel" in text
