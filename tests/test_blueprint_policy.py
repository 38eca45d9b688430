"""The blueprint policy kernel of the compiled searches: it reads a blueprint as the Python policy
does, draws and purifies as `PolicyBot` plays, leaves Sushi Go's own policies as they were, and
lets a best responder's ISMCTS and the batched environment play a blueprint on the compiled
core."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import solvers
from solvers.baselines import HeuristicBot
from solvers.equilibrium import approximate
from solvers.equilibrium import blueprint_training
from solvers.equilibrium.blueprint import BlueprintPolicy, CompiledMCCFR, load_blueprint
from solvers.envs.batched import SushiGoBatch
from solvers.equilibrium.kernels import blueprint_policy
from solvers.policy_kernels import heuristic
from solvers.policy_kernels import sushi_go as policies
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import codec
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.compiled.sushi_go.moves import play
from sushigo_spiel.reduced_games import load_reduced

HEURISTIC = heuristic.parameters(HeuristicBot.WEIGHTS)


@pytest.fixture(scope="module", params=["cards", "cards+rank"])
def trained(request, tmp_path_factory):
  """A blueprint of `small` in either abstraction and its file."""
  path = str(tmp_path_factory.mktemp("blueprint_policy") / f"{request.param}.npz")
  solver = CompiledMCCFR(load_reduced("small"), "es-mccfr", seed=0, table_bits=12,
                         abstraction=request.param)
  blueprint_training.BlueprintTrainer(solver).run(iterations=100).save(path, checkpoint=False)
  blueprint_policy.ensure_compiled()
  return path, load_blueprint(path)


def _decisions(game, seed: int):
  """The tables and positions of one random game's decisions."""
  rng, spec = np.random.default_rng(seed), build_spec(game.rules)
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(outcomes, p=probabilities)))
      continue
    yield state.table(), codec.encode(game.rules, spec, state.table())
    state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])


def test_it_reads_the_blueprint_as_the_python_policy(trained):
  _, policy = trained
  game = load_reduced("small")
  spec = build_spec(game.rules)
  params = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages)
  size = game.num_distinct_actions()
  legal, probabilities = np.empty(size, dtype=np.int64), np.empty(size)
  for seed in range(3):
    for table, pos in _decisions(game, seed):
      for player in range(2):
        count = blueprint_policy.blueprint_probabilities(spec, pos, player, params, legal,
                                                         probabilities)
        expected = policy.probabilities(game.rules, table, player)
        assert dict(zip(legal[:count].tolist(), probabilities[:count].tolist())) == expected


def test_it_draws_and_purifies_as_the_policy_bot_plays(trained):
  _, policy = trained
  game = load_reduced("small")
  spec = build_spec(game.rules)
  params = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages)
  table, pos = next(_decisions(game, 7))
  expected = policy.probabilities(game.rules, table, 0)
  legal, rng, draws = np.empty(game.num_distinct_actions(), dtype=np.int64), new_state(3), 4000
  drawn = [blueprint_policy.policy_action(spec, pos, 0, rng, legal, blueprint_policy.BLUEPRINT,
                                          params) for _ in range(draws)]
  for action, probability in expected.items():
    assert abs(drawn.count(action) / draws - probability) < 0.03, (action, probability)
  best = max(expected.values())
  purified = {blueprint_policy.policy_action(spec, pos, 0, rng, legal,
                                             blueprint_policy.BLUEPRINT_ARGMAX, params)
              for _ in range(200)}
  assert purified == {action for action, p in expected.items() if p == best}


def test_sushi_go_policies_play_as_in_their_own_kernel(trained):
  _, policy = trained
  game = pyspiel.load_game("python_sushi_go(players=2)")
  spec = build_spec(game.rules)
  params = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages)
  legal = np.empty(game.num_distinct_actions(), dtype=np.int64)
  for _, pos in _decisions(game, 1):
    for code in policies.POLICIES.values():
      ours, theirs = new_state(code), new_state(code)
      assert blueprint_policy.policy_action(spec, pos, 1, ours, legal, code, params) == \
          policies.policy_action(spec, pos, 1, theirs, legal, code, HEURISTIC)
      assert np.array_equal(ours, theirs)  # the same uniforms drawn


def test_a_best_responder_models_the_blueprint_on_the_compiled_core(trained):
  path, _ = trained
  game = load_reduced("small")
  for mode, name in (("sample", "blueprint"), ("argmax", "blueprint_argmax")):
    model = approximate.opponent_model([solvers.make_bot("policy", game, p, 0, path=path,
                                                         play=mode) for p in range(2)])
    assert model.compiled.name == name
    responder = approximate.make_responder(game, 0, 1, "ismcts", {"iterations": 20}, model)
    assert responder.engine == "compiled"
    state = game.new_initial_state()
    while state.is_chance_node():
      state.apply_action(state.chance_outcomes()[0][0])
    assert responder.step(state) in state.legal_actions(0)
  mixed = approximate.opponent_model([solvers.make_bot("policy", game, p, 0, path=path,
                                                       play=("sample", "argmax")[p])
                                      for p in range(2)])
  assert mixed.compiled is None


def test_bots_playing_different_blueprints_are_not_modelled_as_one(trained):
  """The compiled model plays one blueprint in every seat: where one seat's blueprint differs in
  its table or its valuation, the responder's model answers in Python, bot by bot."""
  path, policy = trained
  game = load_reduced("small")
  others = [BlueprintPolicy(game, policy.averages + 1.0, policy.metadata, policy.valuation)]
  if policy.valuation.size:  # the rank abstraction's valuation
    others.append(BlueprintPolicy(game, policy.averages, policy.metadata, policy.valuation + 1.0))
  for other in others:
    for seat in range(2):
      bots = [solvers.make_bot("policy", game, p, 0, path=path) for p in range(2)]
      bots[seat].lifted = other
      model = approximate.opponent_model(bots)
      assert model is not None and model.compiled is None


def test_parameters_refuse_what_the_kernel_cannot_read():
  with pytest.raises(ValueError, match="power of two"):
    blueprint_policy.parameters(HEURISTIC, np.zeros(0), np.zeros(12))
  with pytest.raises(ValueError, match="heuristic.parameters"):
    blueprint_policy.parameters(HEURISTIC[:3], np.zeros(0), np.zeros(16))


def test_a_batch_plays_the_blueprint_in_its_opponent_seats(trained):
  """Each opponent action of a batch against `blueprint_argmax` is one of the blueprint's likeliest
  at the position it was taken (found by replaying every legal action from there)."""
  _, policy = trained
  game = load_reduced("small")
  params = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages)
  batch = SushiGoBatch(32, opponents=("blueprint_argmax", params), seat=0, seed=5,
                       **game.get_parameters())
  spec, rng = batch.spec, np.random.default_rng(0)
  legal, probabilities = np.empty(game.num_distinct_actions(), dtype=np.int64), \
      np.empty(game.num_distinct_actions())
  _, masks = batch.reset()
  checked = 0
  for _ in range(12):
    before = batch.positions().copy()
    actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks], dtype=np.int64)
    _, _, dones, masks = batch.step(actions)
    for i in np.flatnonzero(~dones):
      count = blueprint_policy.blueprint_probabilities(spec, before[i], 1, params, legal,
                                                       probabilities)
      best = set(legal[:count][probabilities[:count] == probabilities[:count].max()].tolist())
      played = []
      for action in legal[:count].tolist():
        replayed = before[i].copy()
        play(spec, replayed, np.array([actions[i], action], dtype=np.int64))
        if np.array_equal(replayed, batch.positions()[i]):
          played.append(action)
      assert played and set(played) <= best, (i, played, best)
      checked += 1
  assert checked >= 32  # the first decisions of every game, and more


def test_a_batch_refuses_blueprints_of_two_sizes_and_a_bad_array(trained):
  _, policy = trained
  params = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages)
  smaller = blueprint_policy.parameters(HEURISTIC, policy.valuation, policy.averages[:16])
  with pytest.raises(ValueError, match="allowed: blueprints of one table size in one batch"):
    SushiGoBatch(4, opponents=[("blueprint", params), ("blueprint", smaller)], players=3)
  with pytest.raises(ValueError, match="blueprint parameters .* allowed: the finite float64"):
    SushiGoBatch(4, opponents=("blueprint", params[:3]))
