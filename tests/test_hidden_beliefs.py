"""Beliefs under hidden information: Local Best Response, the subgame bot, PIMC and ISMCTS answer
the same at states their player cannot tell apart, on games whose deal leaves cards out.

`tiny` deals its whole deck, so a player knows the other hand (the deck less its own): a bot that
read the true table would answer there as an honest one does, and no test on it could tell them
apart; `three_players` deals its whole deck too, hiding only how the cards a player has not seen
are split between the two other hands. The games here deal fewer cards than the deck holds, so
hidden hands and undealt cards mix: `small` (two players, 8 of 12 cards dealt) and a three-player
game dealing 9 of 12.

Each bot is checked twice:
  honest   its answer (policy, and the values it is drawn from where the bot reports them) at a
           decision and at states redealt from its player's information (`resample_from_infostate`:
           other hidden hands, other undealt cards) is the same, for a fixed seed;
  peeking  a control, the same bot with its belief step replaced in the test by one that returns
           the true position (the determinization, or the compiled determinization kernel, made
           the identity): its answers at those states are not all the same. This shows the states
           differ where a bot reading hidden cards would notice, so the honest test has the power
           to catch one.
"""

from __future__ import annotations

import dataclasses
import random

import numba
import pyspiel
import pytest
from numba import types

import solvers
from solvers.equilibrium import subgame as subgame_module
from solvers.equilibrium.blueprint import CompiledMCCFR
from solvers.equilibrium.blueprint_training import BlueprintTrainer
from solvers.equilibrium.local_best_response import LocalBestResponseBot
from solvers.search.ismcts import SOISMCTSBot
from solvers.search.opponent_model import OpponentModel
from solvers.search.pimc import PIMCBot
from support import random_playout
from sushigo_spiel.compiled.interface import (DETERMINIZE, PLAY_POINTER, POSITION, SIGNATURES, SPEC,
                                              STREAM, TypedTuple, pointer)
from sushigo_spiel.reduced_games import reduced_game_string
from sushigo_spiel.sushi_go import knowledge

# Two players, 8 of 12 cards dealt; three players, 9 of 12 dealt (`three_players` with three
# Dumplings added to its deck, so that three cards stay out of the deal).
GAMES = {
    "small": reduced_game_string("small"),
    "three_hidden": "python_sushi_go(players=3,rounds=1,hand_size=3,deal=hand,utility=score,"
                    "deck=tempura:3/maki1:3/sashimi:3/dumpling:3)",
}
# (game, the decision's turn, the seed of the random game reaching it); at three players the
# second turn is a decision where the other players' first picks say something about the hand not
# yet seen.
POSITIONS = [("small", 0, 1), ("three_hidden", 1, 1)]
TWINS = 4  # states redealt from the player's information, beside the decision itself
PLAYER = 0


def _id(position) -> str:
  return f"{position[0]}-turn{position[1]}"


def twins(name: str, turn: int, seed: int) -> list[pyspiel.State]:
  """A decision of `PLAYER` at `turn` of a random game of `name` (a seeded playout), then `TWINS`
  states that player cannot tell from it, each with hidden cards placed otherwise."""
  game = pyspiel.load_game(GAMES[name])
  rng = random.Random(seed)
  state = random_playout(game.new_initial_state(), rng,
                         stop=lambda s: s.is_simultaneous_node() and s.table().turn == turn)
  assert len(state.legal_actions(PLAYER)) > 1
  states, tables = [state], {state.table()}
  for _ in range(200):
    other = state.resample_from_infostate(PLAYER, rng.random)
    if other.table() not in tables:
      assert other.information_state_string(PLAYER) == state.information_state_string(PLAYER)
      states.append(other)
      tables.add(other.table())
    if len(states) > TWINS:
      break
  # Other hidden hands, not just another undealt pile.
  assert len({s.table().hands for s in states}) > 2
  return states


def _peeking_dynamics(dynamics):
  """`dynamics` whose determinization returns the true table."""
  return dataclasses.replace(dynamics, determinize=lambda rules, table, player, uniform: table)


@numba.njit(POSITION(SPEC, POSITION, types.int64, STREAM, PLAY_POINTER))
def _peeking_determinize(spec, pos, player, rng, play):  # pylint: disable=unused-argument
  return pos.copy()


def _peeking_functions(functions: TypedTuple) -> TypedTuple:
  """A search game's kernel tuple whose determinization kernel returns the true position (the
  same function type, so the search kernels are not compiled again)."""
  peek = pointer(_peeking_determinize, SIGNATURES.determinize)
  return TypedTuple(functions[:DETERMINIZE] + (peek,) + functions[DETERMINIZE + 1:],
                    functions.numba_type)


def _same(answers: list) -> bool:
  return all(answer == answers[0] for answer in answers)


# ----- Local Best Response


def _lbr(game, peek: bool = False) -> LocalBestResponseBot:
  models = [solvers.make_bot("heuristic", game, p, 0) for p in range(game.num_players())]
  model = OpponentModel(lambda rules, table, player: models[player].policy_at(table))
  bot = LocalBestResponseBot(game, PLAYER, 3, opponent_model=model, worlds=4, depth=1,
                             rollouts=2)
  if peek:
    bot.dynamics = _peeking_dynamics(bot.dynamics)
  return bot


def _lbr_answer(state, peek=False):
  bot = _lbr(state.get_game(), peek)
  return bot.get_policy(state), bot.action_values(state.table())


@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_local_best_response_answers_alike_where_its_player_cannot_tell(position):
  assert _same([_lbr_answer(state) for state in twins(*position)])


@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_a_peeking_local_best_response_answers_otherwise(position):
  assert not _same([_lbr_answer(state, peek=True) for state in twins(*position)])


# ----- the subgame bot


@pytest.fixture(scope="module")
def blueprints(tmp_path_factory):
  """A blueprint file per game (es-mccfr, 60 iterations: the tests need a prior, not a good one)."""
  paths = {}
  for name, game_string in GAMES.items():
    path = str(tmp_path_factory.mktemp("blueprints") / f"{name}.npz")
    BlueprintTrainer(CompiledMCCFR(pyspiel.load_game(game_string), "es-mccfr", seed=0,
                                   table_bits=12)).run(iterations=60).save(path, checkpoint=False)
    paths[name] = path
  return paths


def _subgame_answer(state, path):
  # A draw from the root's average, with the blueprint as the prior: a policy with more digits to
  # differ in than the likeliest action alone.
  bot = solvers.make_bot("subgame", state.get_game(), PLAYER, 3, path=path, iterations=20,
                         worlds=4, walk="es", final="average", prior="blueprint")
  return bot.get_policy(state)


@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_the_subgame_bot_answers_alike_where_its_player_cannot_tell(position, blueprints):
  path = blueprints[position[0]]
  assert _same([_subgame_answer(state, path) for state in twins(*position)])


@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_a_peeking_subgame_bot_answers_otherwise(position, blueprints, monkeypatch):
  monkeypatch.setattr(subgame_module, "determinize",
                      lambda spec, pos, player, stream, play: pos.copy())
  path = blueprints[position[0]]
  assert not _same([_subgame_answer(state, path) for state in twins(*position)])


# ----- PIMC: worlds solved in Python (the tree solvers) and in the compiled core (SM-MCTS)

PIMC_ENGINES = ["tree", "compiled"]


def _pimc(game, engine: str, peek: bool, monkeypatch) -> PIMCBot:
  if engine == "tree":  # hands of at most `exact_threshold` cards: the tree solvers, in Python
    bot = PIMCBot(game, PLAYER, 5, worlds=4, final="policy", world_solver="auto")
    if peek:
      monkeypatch.setattr(knowledge, "determinize",
                          lambda rules, table, player, uniform: table)
    return bot
  bot = PIMCBot(game, PLAYER, 5, worlds=4, iterations=40, final="policy",
                world_solver="smmcts")
  assert bot.sampler is not None
  if peek:
    bot.sampler.game.functions = _peeking_functions(bot.sampler.game.functions)
  return bot


def _pimc_answer(state, engine, peek, monkeypatch):
  bot = _pimc(state.get_game(), engine, peek, monkeypatch)
  if engine == "tree":  # the tree solvers, in Python, on every world
    assert bot.settings.kind != "smmcts"
    assert sum(state.table().hands[PLAYER]) <= bot.settings.exact_threshold
  else:
    assert bot.settings.kind == "smmcts"
  return bot.get_policy(state), bot.action_values(state.table())


@pytest.mark.parametrize("engine", PIMC_ENGINES)
@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_pimc_answers_alike_where_its_player_cannot_tell(position, engine, monkeypatch):
  assert _same([_pimc_answer(state, engine, False, monkeypatch) for state in twins(*position)])


@pytest.mark.parametrize("engine", PIMC_ENGINES)
@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_a_peeking_pimc_answers_otherwise(position, engine, monkeypatch):
  assert not _same([_pimc_answer(state, engine, True, monkeypatch) for state in twins(*position)])


# ----- ISMCTS: the Python engine and the compiled one

ISMCTS_ENGINES = ["python", "compiled"]


def _ismcts_answer(state, engine, peek):
  bot = SOISMCTSBot(state.get_game(), PLAYER, 7, engine=engine, iterations=150, final="mixed")
  assert bot.engine == engine
  if peek and engine == "python":
    bot._search.dynamics = _peeking_dynamics(bot._search.dynamics)  # pylint: disable=W0212
  elif peek:
    searched = bot._search.compiled_search.game  # pylint: disable=protected-access
    searched.functions = _peeking_functions(searched.functions)
  return bot.get_policy(state)


@pytest.mark.parametrize("engine", ISMCTS_ENGINES)
@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_ismcts_answers_alike_where_its_player_cannot_tell(position, engine):
  assert _same([_ismcts_answer(state, engine, False) for state in twins(*position)])


@pytest.mark.parametrize("engine", ISMCTS_ENGINES)
@pytest.mark.parametrize("position", POSITIONS, ids=_id)
def test_a_peeking_ismcts_answers_otherwise(position, engine):
  assert not _same([_ismcts_answer(state, engine, True) for state in twins(*position)])
