"""Masked PPO on the batched core: the batch's state round trip, settings refused in a sentence,
masked sampling, the numpy and JAX networks agreeing, bit-for-bit determinism and resuming, the
bot `ppo`, `sushigo train --algorithm ppo` (checkpoint, curve, refusals), and the responder `ppo`
(a learned best response near the exact one on `small`: slow)."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("jax")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import pyspiel  # noqa: E402

import sushigo_spiel  # noqa: E402,F401  (registers the games)
from experiments.cli import main  # noqa: E402
from experiments.commands.train_ppo import curve_paths  # noqa: E402
from solvers import make_bot  # noqa: E402
from solvers.envs.batched import SushiGoBatch  # noqa: E402
from solvers.learning import network as net  # noqa: E402
from solvers.learning import ppo  # noqa: E402
from solvers.match import play_match  # noqa: E402

TINY = dict(num_envs=24, rollout_steps=4, minibatches=2, hidden=16, eval_every=2, eval_games=10)
GAME = "python_sushi_go(players=2,utility=margin)"
ROOT = pathlib.Path(__file__).resolve().parents[1]


def clocks(point: dict) -> dict:
  """A curve point's clock readings, which differ from run to run."""
  return {"seconds": point["seconds"], "cpu_seconds": point["cpu_seconds"]}


def leaves(params) -> list[np.ndarray]:
  return [np.asarray(params[name]) for name in net.PARAMETER_NAMES]


def test_a_batch_restored_from_its_state_steps_the_same_games():
  batch = SushiGoBatch(16, opponents="random", seed=3, players=3)
  rng = np.random.default_rng(0)
  _, masks = batch.reset()
  for _ in range(7):
    masks = batch.step((masks * rng.random(masks.shape)).argmax(axis=1))[3]
  saved = batch.state()
  choices = [rng.random(masks.shape) for _ in range(40)]
  first = [tuple(x.copy() for x in batch.step((batch.state()["masks"] * u).argmax(axis=1)))
           for u in choices]
  other = SushiGoBatch(16, opponents="random", seed=99, players=3)
  other.restore(saved)
  again = [tuple(x.copy() for x in other.step((other.state()["masks"] * u).argmax(axis=1)))
           for u in choices]
  for a, b in zip(first, again):
    for x, y in zip(a, b):
      assert np.array_equal(x, y)
  with pytest.raises(ValueError, match="batch state member 'positions' is int"):
    SushiGoBatch(8, opponents="random", seed=0, players=3).restore(saved)


@pytest.mark.parametrize("settings_, message", [
    ({"opponents": "heuristic:2,alphago"}, "PPO opponents entry 'alphago'; allowed: BOT or"),
    ({"game": "python_sushi_draft(players=2)"}, "allowed: a python_sushi_go game string"),
    ({"num_envs": 0}, "PPO setting num_envs is 0; allowed: an integer >= 1"),
    ({"num_envs": 10, "rollout_steps": 3, "minibatches": 4}, "must split into 4 equal"),
    ({"seat": 2}, "PPO setting seat is 2; allowed: -1 (every seat) or 0 to 1"),
    ({"observation_type": "pixels"}, "observation_type is 'pixels'; allowed: observation,"),
    ({"entropy_anneal": -1}, "PPO setting entropy_anneal is -1; allowed: an integer >= 0"),
    ({"overlap": 1}, "PPO setting overlap is 1; allowed: true or false"),
])
def test_bad_settings_are_refused_in_a_sentence(settings_, message):
  with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
    ppo.PPOConfig(**settings_)


def test_assignments_are_read_as_their_defaults_types():
  config = ppo.PPOConfig.from_assignments(["num_envs=64", "learning_rate=3e-4"], seed=5)
  assert (config.num_envs, config.learning_rate, config.seed) == (64, 3e-4, 5)
  with pytest.raises(ValueError, match="PPO setting 'depth=3'; allowed: KEY=VALUE with KEY one"):
    ppo.PPOConfig.from_assignments(["depth=3"])
  with pytest.raises(ValueError, match="PPO setting num_envs is 'many'; allowed: a int"):
    ppo.PPOConfig.from_assignments(["num_envs=many"])
  assert ppo.PPOConfig.from_assignments(["overlap=True"]).overlap is True
  assert ppo.PPOConfig.from_assignments(["overlap=false"]).overlap is False
  with pytest.raises(ValueError, match="PPO setting overlap is 'yes'; allowed: true or false"):
    ppo.PPOConfig.from_assignments(["overlap=yes"])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 95))
def test_sampled_actions_are_always_legal(seed, legal_count):
  rng = np.random.default_rng(seed)
  params = net.initial_parameters(7, 96, 8, rng)
  params["policy"] = params["policy"] * 300  # sharp logits, some on illegal actions
  masks = np.zeros((64, 96), np.int8)
  for row in masks:
    row[rng.choice(96, legal_count, replace=False)] = 1
  observations = rng.integers(0, 5, (64, 7)).astype(np.float32)
  actions, log_p, _ = ppo.sample_actions({k: jnp.asarray(v) for k, v in params.items()},
                                         observations, masks, rng.random((64, 1), np.float32))
  assert masks[np.arange(64), np.asarray(actions)].all()
  assert np.isfinite(np.asarray(log_p)).all()
  probabilities = net.Network(params, {}).probabilities(observations, masks)
  assert np.allclose(probabilities.sum(axis=1), 1) and (probabilities[masks == 0] == 0).all()


def test_the_numpy_network_is_the_jax_one():
  rng = np.random.default_rng(1)
  params = net.initial_parameters(12, 9, 16, rng)
  observations = rng.integers(0, 6, (30, 12)).astype(np.float32)
  masks = (rng.random((30, 9)) < 0.5).astype(np.int8)
  masks[:, 4] = 1
  logits, values = net.forward(params, observations, masks)
  jax_logits, jax_values = net.forward({k: jnp.asarray(v) for k, v in params.items()},
                                       jnp.asarray(observations), jnp.asarray(masks), jnp)
  assert np.allclose(logits, jax_logits, atol=1e-5) and np.allclose(values, jax_values, atol=1e-5)


def _matrix_flops(jaxpr) -> int:
  """The floating-point operations of every matrix product in `jaxpr` and the jaxprs it calls."""
  flops = 0
  for equation in jaxpr.eqns:
    if equation.primitive.name == "dot_general":
      (contracting, _), _ = equation.params["dimension_numbers"]
      depth = np.prod([equation.invars[0].aval.shape[d] for d in contracting])
      flops += 2 * int(np.prod(equation.outvars[0].aval.shape)) * int(depth)
    for value in equation.params.values():
      for inner in value if isinstance(value, (list, tuple)) else [value]:
        inner = getattr(inner, "jaxpr", inner)
        if hasattr(inner, "eqns"):
          flops += _matrix_flops(inner)
  return flops


def test_the_bench_counts_the_matrix_products_collection_and_the_update_make():
  from experiments.bench.learning import dense_flops_per_step, network_flops
  observation_size, actions, hidden, rows = 12, 9, 16, 40
  rng = np.random.default_rng(3)
  params = {k: jnp.asarray(v) for k, v in
            net.initial_parameters(observation_size, actions, hidden, rng).items()}
  observations = jnp.asarray(rng.random((rows, observation_size), dtype=np.float32))
  masks = jnp.ones((rows, actions), jnp.int8)
  collection = jax.make_jaxpr(ppo.sample_actions)(params, observations, masks,
                                                  jnp.zeros((rows, 1)))
  batch = (observations, masks, jnp.zeros(rows, jnp.int32), *jnp.zeros((3, rows)))
  update = jax.make_jaxpr(jax.grad(lambda p: ppo._loss(p, batch, 0.01, ppo.PPOConfig())[0]))(
      params)
  assert _matrix_flops(collection.jaxpr) == rows * dense_flops_per_step(
      observation_size, actions, hidden, epochs=0)
  assert _matrix_flops(collection.jaxpr) + _matrix_flops(update.jaxpr) == \
      rows * dense_flops_per_step(observation_size, actions, hidden, epochs=1)
  config = ppo.PPOConfig(epochs=2)  # the report's count: the game's tensor sizes, as the batch's
  for observation_type in ppo.OBSERVATION_TYPES:
    batch = SushiGoBatch(8, opponents="random", observation_type=observation_type, players=2)
    assert network_flops({**dataclasses.asdict(config), "observation_type": observation_type}) == \
        tuple(dense_flops_per_step(batch.observation_size, batch.num_actions, config.hidden,
                                   epochs=epochs) for epochs in (0, 2))


def test_the_bench_times_each_learner_in_a_process_of_its_own(monkeypatch):
  from experiments.bench import learning

  def refused(*args, **kwargs):
    raise AssertionError("the bench built a trainer in its own process")
  monkeypatch.setattr(ppo, "PPOTrainer", refused)  # the measuring processes import their own
  figures = learning.run(seconds=0.05, repeats=2, config=ppo.PPOConfig(game=GAME, **TINY))
  assert figures["processes"] == [list(names) for names in learning.PROCESSES.values()]
  assert sorted(name for names in figures["processes"] for name in names) == sorted(
      [*figures["steps_per_s"], learning.FORWARD])
  assert all(wall > 0 and cpu > 0 for wall, cpu in figures["steps_per_s"].values())
  assert figures["cold_iteration_cpu_s"] > 0 and figures["devices"] == 2
  assert 0 < sum(figures["phase_microseconds_per_step"].values()) <= \
      figures["learner_microseconds_per_step"]
  text = learning.report(figures)
  assert "Each learner in a process of its own" in text and learning.ONE_PART in text


def test_the_bench_says_which_measuring_process_failed_and_why():
  from experiments.bench import learning
  with pytest.raises(RuntimeError, match=r"(?s)the bench's learner process failed.*num_envs 2"):
    learning.run(seconds=0.05, repeats=1, config=ppo.PPOConfig(game=GAME, **{**TINY,
                                                                          "num_envs": 2}))


def test_same_seed_same_weights_and_a_resumed_training_is_the_uninterrupted_one(tmp_path):
  config = ppo.PPOConfig(game=GAME, seed=7, **TINY)
  straight = ppo.PPOTrainer(config)
  straight.run(iterations=3, show_progress=False)
  twin = ppo.PPOTrainer(config)
  twin.run(iterations=3, show_progress=False)
  assert all(np.array_equal(a, b) for a, b in zip(leaves(straight.params), leaves(twin.params)))
  first = ppo.PPOTrainer(config)
  first.run(iterations=2, show_progress=False)
  first.save(str(tmp_path / "c.npz"))
  resumed = ppo.PPOTrainer.resume(str(tmp_path / "c.npz"))
  resumed.run(iterations=1, show_progress=False)
  assert all(np.array_equal(a, b) for a, b in zip(leaves(straight.params), leaves(resumed.params)))
  assert resumed.steps == straight.steps and resumed.curve[-1] == {
      **straight.curve[-1], **clocks(resumed.curve[-1])}
  other = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, seed=8, **TINY))
  other.run(iterations=3, show_progress=False)
  assert not np.array_equal(leaves(other.params)[0], leaves(straight.params)[0])


def test_collecting_in_two_parts_at_once_gives_the_numbers_of_one_part():
  config = ppo.PPOConfig(game=GAME, seed=5, opponents="heuristic:1,random:1,past:2", past_every=1,
                         num_envs=512, rollout_steps=4, minibatches=2, eval_games=10)
  parts = ppo.PPOTrainer(config)
  whole = ppo.PPOTrainer(config, pipeline=False)
  assert [part.groups for part in parts._parts] == [[0, 2, 4], [1, 3, 5]]  # noqa: SLF001
  assert len(whole._parts) == 1  # noqa: SLF001
  for _ in range(3):
    parts.iterate()
    whole.iterate()
    assert all(np.array_equal(a, b) for a, b in zip(parts._rollouts[0],  # noqa: SLF001
                                                    whole._rollouts[0]))  # noqa: SLF001
  assert all(np.array_equal(a, b) for a, b in zip(leaves(parts.params), leaves(whole.params)))
  assert all(np.array_equal(batch.state()["rng"], other.state()["rng"])
             for batch, other in zip(parts.batches, whole.batches))
  small = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, **TINY))  # parts of 12 games: one part
  assert len(small._parts) == 1  # noqa: SLF001


@pytest.mark.parametrize("hidden, observations, actions, games", [(128, 92, 96, 2048),
                                                                   (64, 150, 40, 520)])
def test_a_policy_step_on_some_rows_gives_them_the_numbers_of_the_whole_batch(
    hidden, observations, actions, games):
  """What collecting in parts rests on (`ppo._same_numbers_in_part`)."""
  rng = np.random.default_rng(hidden)
  params = {k: jnp.asarray(v) for k, v in
            net.initial_parameters(observations, actions, hidden, rng).items()}
  inputs = rng.integers(0, 4, (games, observations)).astype(np.float32)
  masks = (rng.random((games, actions)) < 0.2).astype(np.int8)
  masks[:, 0] = 1
  uniforms = rng.random((games, 1)).astype(np.float32)
  whole = np.asarray(ppo._collect(params, inputs, masks, uniforms))  # noqa: SLF001
  sizes = [size for size in range(8, games, 8) if ppo._same_numbers_in_part(size)]  # noqa: SLF001
  for size in rng.choice(sizes, 12, replace=False):
    rows = np.sort(rng.choice(games, size, replace=False))
    part = np.asarray(ppo._collect(params, inputs[rows], masks[rows], uniforms[rows]))  # noqa: SLF001
    assert np.array_equal(part, whole[:, rows]), size


def test_the_halves_hold_whole_groups_as_even_as_they_allow():
  assert ppo._halves([768, 768, 128, 128, 128, 128]) == [[0, 2, 4], [1, 3, 5]]  # noqa: SLF001
  assert ppo._halves([5, 30, 10, 10]) == [[1], [0, 2, 3]]  # noqa: SLF001
  assert ppo._halves([7]) == [[0]]  # noqa: SLF001


def test_overlap_collects_with_the_parameters_of_one_iteration_before(tmp_path):
  config = ppo.PPOConfig(game=GAME, seed=4, overlap=True, opponents="heuristic:1,past:1",
                         past_every=1, **TINY)
  overlapped = ppo.PPOTrainer(config)
  lagging = ppo.PPOTrainer(dataclasses.replace(config, overlap=False))
  for iteration in range(3):
    start = lagging.params
    overlapped.iterate()
    lagging.iterate()
    rollouts = overlapped._rollouts[iteration % 2], lagging._rollouts[0]  # noqa: SLF001
    assert all(np.array_equal(a, b) for a, b in zip(*rollouts))
    # the next rollout with the parameters this update started from, the update overlap's own
    lagging.collection_params = start
    lagging.params, lagging.opt_state = overlapped.params, overlapped.opt_state
  assert len(jax.devices()) == 2  # so collection and the update ran on two devices
  first = ppo.PPOTrainer(config)
  first.run(iterations=2, show_progress=False)
  first.save(str(tmp_path / "c.npz"))
  resumed = ppo.PPOTrainer.resume(str(tmp_path / "c.npz"))
  straight = ppo.PPOTrainer(config)
  straight.run(iterations=3, show_progress=False)
  resumed.run(iterations=1, show_progress=False)
  assert all(np.array_equal(a, b) for a, b in zip(leaves(straight.params), leaves(resumed.params)))
  assert resumed.curve[-1] == {**straight.curve[-1], **clocks(resumed.curve[-1])}


def test_the_decoupled_update_is_ppo_on_a_rollout_of_the_updated_parameters():
  config = ppo.PPOConfig(game=GAME, seed=2, **TINY)
  trainer = ppo.PPOTrainer(config)
  start, opt_state = trainer.params, trainer.opt_state
  trainer.iterate()  # a rollout collected with `start`
  rollout = [np.array(x) for x in trainer._rollouts[0]]  # noqa: SLF001
  arguments = (start, opt_state, rollout, np.zeros(config.num_envs, np.float32),
               jax.random.PRNGKey(5), np.float32(config.entropy_coef))
  plain = ppo.make_update(config, trainer.optimizer)(*arguments)[0]
  decoupled = ppo.make_update(dataclasses.replace(config, overlap=True),
                              trainer.optimizer)(*arguments)[0]
  assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(leaves(plain), leaves(decoupled)))
  rollout[3] = rollout[3] - 0.5  # the collecting policy less likely to take its actions
  reweighted = ppo.make_update(dataclasses.replace(config, overlap=True),
                               trainer.optimizer)(*arguments)[0]
  assert not np.allclose(leaves(reweighted)[0], leaves(decoupled)[0], atol=1e-5)


def test_overlap_on_one_device_gives_the_numbers_of_two():
  program = (
      "import jax, numpy as np; jax.devices()\n"  # JAX starts with one device
      "from solvers.learning import ppo, network\n"
      f"trainer = ppo.PPOTrainer(ppo.PPOConfig(game={GAME!r}, seed=4, overlap=True, **{TINY!r}))\n"
      "trainer.run(iterations=3, show_progress=False)\n"
      "print(len(jax.devices()), *(float(np.asarray(trainer.params[name], np.float64).sum())"
      " for name in network.PARAMETER_NAMES))\n")
  done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                        check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
  devices, *sums = done.stdout.split()
  trainer = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, seed=4, overlap=True, **TINY))
  trainer.run(iterations=3, show_progress=False)
  assert devices == "1" and len(jax.devices()) == 2
  assert [float(s) for s in sums] == [float(np.asarray(trainer.params[name], np.float64).sum())
                                      for name in net.PARAMETER_NAMES]


def test_the_bot_plays_a_saved_agent_and_refuses_another_games(tmp_path):
  trainer = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, **TINY))
  trainer.run(iterations=1, show_progress=False)
  path = str(tmp_path / "agent.npz")
  trainer.network().save(path)
  game = pyspiel.load_game("python_sushi_go(players=2)")
  for play in ("greedy", "sample"):
    bots = [make_bot("ppo", game, 0, 1, path=path, play=play), make_bot("heuristic", game, 1, 2)]
    assert play_match(game, bots, np.random.default_rng(4)).is_terminal()
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.legal_actions()[0])
  policy = make_bot("ppo", game, 0, 1, path=path).get_policy(state)
  assert len(policy) == 1 and policy[0][0] in state.legal_actions(0)
  with pytest.raises(ValueError, match="was trained for python_sushi_go"):
    make_bot("ppo", pyspiel.load_game("python_sushi_go(players=3)"), 0, 1, path=path)
  with pytest.raises(ValueError, match="parameter 'play' is 'best'; allowed: greedy, sample"):
    make_bot("ppo", game, 0, 1, path=path, play="best")


def cli_train(tmp_path, *extra) -> int:
  return main(["train", GAME, "--algorithm", "ppo", "--iterations", "2", "--quiet",
               "--out", str(tmp_path / "run" / "checkpoint.npz"), "--ppo", "num_envs=24",
               "--ppo", "rollout_steps=4", "--ppo", "minibatches=2", "--ppo", "hidden=16",
               "--ppo", "eval_games=10", *extra])


def test_the_train_command_checkpoints_writes_the_curve_and_resumes(tmp_path, capsys):
  (tmp_path / "run").mkdir()
  agent = tmp_path / "agent.npz"
  assert cli_train(tmp_path, "--agent", str(agent)) == 0
  out = tmp_path / "run" / "checkpoint.npz"
  csv_path, png_path = curve_paths(out)
  assert png_path.stat().st_size > 0
  with open(csv_path, encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
  assert [int(r["iteration"]) for r in rows] == [0, 2]
  assert all(0 <= float(r["win_low"]) <= float(r["win_share"]) <= float(r["win_high"]) <= 1
             for r in rows)
  assert net.Network.load(str(agent)).metadata["iteration"] == 2
  with pytest.raises(SystemExit):
    cli_train(tmp_path)
  assert "(--out) exists; pass --resume to continue" in capsys.readouterr().err
  assert cli_train(tmp_path, "--resume") == 0
  assert net.Network.load(str(out)).metadata["iteration"] == 4
  with pytest.raises(SystemExit):
    cli_train(tmp_path, "--resume", "--ppo", "hidden=32")
  assert "was trained with other settings (hidden 16, not 32)" in capsys.readouterr().err
  with pytest.raises(SystemExit):
    main(["train", "small", "--algorithm", "cfr+", "--iterations", "1", "--out",
          str(tmp_path / "p.npz"), "--ppo", "hidden=3"])
  assert "--ppo, --opponents and --agent are settings of --algorithm ppo" in \
      capsys.readouterr().err


def test_the_ppo_responder_refuses_a_policy_the_core_cannot_play():
  from solvers.learning.best_response import PPOBestResponseBot
  from solvers.search.opponent_model import OpponentModel
  game = pyspiel.load_game(GAME)
  with pytest.raises(ValueError, match="the ppo responder trains against the policy in the"
                     " batched core"):
    PPOBestResponseBot(game, 0, 0, opponent_model=OpponentModel(lambda *a: None, None, "x"))


def test_the_entropy_coefficient_falls_linearly_to_zero_over_entropy_anneal():
  annealed = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, seed=3, entropy_coef=0.2, entropy_anneal=4,
                                          **TINY))
  coefficients = []
  for _ in range(6):
    coefficients.append(annealed.entropy_coef())
    annealed.iterate()
  assert coefficients == pytest.approx([0.2, 0.15, 0.1, 0.05, 0.0, 0.0])
  # the update uses the iteration's coefficient: from one seed, the first iteration (0.2 in
  # both) trains the same weights, the second (0.15 against 0.2) others
  trainers = [ppo.PPOTrainer(ppo.PPOConfig(game=GAME, seed=3, entropy_coef=0.2,
                                           entropy_anneal=anneal, **TINY)) for anneal in (4, 0)]
  for trainer in trainers:
    trainer.iterate()
  assert all(np.array_equal(a, b) for a, b in zip(*(leaves(t.params) for t in trainers)))
  for trainer in trainers:
    trainer.iterate()
  assert trainers[1].entropy_coef() == 0.2
  assert not np.array_equal(leaves(trainers[0].params)[0], leaves(trainers[1].params)[0])


def test_one_agent_is_trained_once_for_every_seat_and_its_setting_checked():
  from solvers.equilibrium import approximate
  from solvers.learning.best_response import PPOBestResponseBot
  game = pyspiel.load_game(GAME)
  model = approximate.opponent_model([make_bot("random", game, p, 0) for p in range(2)])
  params = {"iterations": 1, "num_envs": 8, "rollout_steps": 2, "minibatches": 2, "hidden": 8}
  shared = [approximate.make_responder(game, seat, 0, "ppo", {**params, "one_agent": True},
                                       model) for seat in range(2)]
  assert [bot.config().seat for bot in shared] == [-1, -1]
  assert shared[0].trained() is shared[1].trained()
  # one group of games a seat, half the games each
  assert [tuple(group[1:]) for group in shared[0].trained().metadata["groups"]] == [(0, 4), (1, 4)]
  apart = [approximate.make_responder(game, seat, 0, "ppo", params, model) for seat in range(2)]
  assert [bot.config().seat for bot in apart] == [0, 1]
  assert apart[0].trained() is not apart[1].trained()
  with pytest.raises(ValueError, match="parameter 'one_agent' is 1; allowed: true or false"):
    PPOBestResponseBot(game, 0, 0, opponent_model=model, one_agent=1)
  annealed = PPOBestResponseBot(game, 0, 0, opponent_model=model, anneal_entropy=True, **params)
  assert annealed.config().entropy_anneal == params["iterations"]
  assert apart[0].config().entropy_anneal == 0
  with pytest.raises(ValueError, match="parameter 'anneal_entropy' is 'yes'; allowed: true or"):
    PPOBestResponseBot(game, 0, 0, opponent_model=model, anneal_entropy="yes")


def test_the_ppo_responder_trains_against_a_blueprint_and_is_measured_against_it():
  from solvers.equilibrium import approximate
  game = pyspiel.load_game(GAME)
  path = str(ROOT / "experiments" / "results" / "policies" / "blueprint_2p.npz")
  model = approximate.opponent_model([make_bot("policy", game, p, 0, path=path)
                                      for p in range(2)])
  responder = approximate.make_responder(
      game, 0, 0, "ppo", {"iterations": 1, "num_envs": 8, "rollout_steps": 2, "minibatches": 2,
                          "hidden": 8}, model)
  network = responder.trained()
  assert network.metadata["fixed_opponent"] == model.key
  assert [point["opponent"] for point in network.metadata["curve"]] == ["blueprint"] * 2
  heuristic = approximate.opponent_model([make_bot("heuristic", game, p, 0) for p in range(2)])
  against_heuristic = approximate.make_responder(
      game, 0, 0, "ppo", {"iterations": 1, "num_envs": 8, "rollout_steps": 2, "minibatches": 2,
                          "hidden": 8}, heuristic).trained()
  assert [point["opponent"] for point in against_heuristic.metadata["curve"]] == ["heuristic"] * 2
  state = game.new_initial_state()
  while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
  assert responder.step(state) in state.legal_actions(0)


FULL_GAME_CONFIG = """[experiment]
name = "full"
kind = "approximate_exploitability"
seed = 1
games = ["python_sushi_go(players=2,utility=margin)"]

[approximate]
num_games = 2

[approximate.responders]
{responders}

[[players]]
name = "heuristic"
bot = "heuristic"
"""


def test_the_full_game_command_trains_once_keeps_the_curve_and_bounds(tmp_path, monkeypatch):
  from experiments import ppo_best_response
  from solvers.learning.best_response import PPOBestResponseBot
  config = tmp_path / "full.toml"
  config.write_text(FULL_GAME_CONFIG.format(responders='"ppo" = { responder = "ppo", iterations ='
                                            ' 2, num_envs = 16, rollout_steps = 2, minibatches ='
                                            ' 2, hidden = 8, one_agent = true, observation_type'
                                            ' = "observation" }'))
  trainings = []
  train = PPOBestResponseBot.train
  monkeypatch.setattr(PPOBestResponseBot, "train",
                      lambda self, **kw: trainings.append(self.player_id) or train(self, **kw))
  curve, run = tmp_path / "curve.csv", tmp_path / "run"
  assert ppo_best_response.main(["--full-game", str(config), "--out", str(run), "--curve",
                                 str(curve)]) == 0
  assert len(trainings) == 1  # one agent, trained before the paired games and reused by them
  with curve.open(newline="") as file:
    points = list(csv.DictReader(file))
  assert [(p["competitor"], p["responder"], p["seats"], p["iteration"]) for p in points] == [
      ("heuristic", "ppo", "all", str(i)) for i in range(3)]
  results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
  assert sorted((r["seat"], len(r["agent"]), len(r["self_play"])) for r in results) == [
      (0, 2, 2), (1, 2, 2)]
  assert (run / "summary.md").exists()


def test_the_full_game_command_refuses_a_config_it_cannot_train(tmp_path, capsys):
  from experiments import ppo_best_response
  config = tmp_path / "full.toml"
  config.write_text(FULL_GAME_CONFIG.format(
      responders='"lbr" = { responder = "lbr", worlds = 1 }'))
  with pytest.raises(SystemExit, match="no ppo responder plays a competitor; nothing to train"):
    ppo_best_response.main(["--full-game", str(config), "--out", str(tmp_path / "run"),
                            "--curve", str(tmp_path / "curve.csv")])
  with pytest.raises(SystemExit):
    ppo_best_response.main(["--full-game", str(config), "--out", str(tmp_path / "run")])
  assert "--full-game needs --curve, the file for the learning curves" in capsys.readouterr().err
  config.write_text(FULL_GAME_CONFIG.format(responders='"ppo" = { responder = "ppo" }')
                    .replace('bot = "heuristic"', 'bot = "so_ismcts"'))
  # refused with the config, before anything trains
  with pytest.raises(SystemExit, match=r"approximate responder 'ppo' against 'heuristic' on .*:"
                     " the ppo responder needs a policy it can read at any table"):
    ppo_best_response.main(["--full-game", str(config), "--out", str(tmp_path / "run"),
                            "--curve", str(tmp_path / "curve.csv")])


def test_the_validation_command_records_one_set_of_parameters_per_file(tmp_path, capsys):
  from experiments import ppo_best_response
  out = str(tmp_path / "rows.json")
  with pytest.raises(SystemExit):
    ppo_best_response.main(["--out", out])
  assert "give --games (the reduced games to validate on) or --full-game" in \
      capsys.readouterr().err
  with pytest.raises(SystemExit):
    ppo_best_response.main(["--games", "small", "large", "--out", out])
  assert "games small, large train with different parameters" in capsys.readouterr().err
  assert not (tmp_path / "rows.json").exists()


@pytest.mark.slow
@pytest.mark.first
def test_the_learned_best_response_finds_most_of_the_exact_gain_on_small():
  """With its default parameters, the responder finds at least 0.9 of the exact best response's
  gain against the greedy bot on `small`, summed over the seats (valued exactly on the tree)."""
  from experiments.ppo_best_response import TARGET, validate
  row = validate("small", "greedy", {})
  assert row["exact"] > 0.5 and row["ratio"] >= TARGET, row


@pytest.mark.parametrize("path", sorted(
    (ROOT / "experiments/results/ppo-best-response").glob("*.json")), ids=lambda p: p.stem)
def test_the_stored_validation_is_consistent(path):
  stored = json.loads(path.read_text())
  assert {r["game"] for r in stored["rows"]} == {path.stem}
  for row in stored["rows"]:
    assert row["learned"] == pytest.approx(sum(s["learned_gain"] for s in row["seats"]))
    assert row["exact"] == pytest.approx(sum(s["exact_gain"] for s in row["seats"]))
    assert row["ratio"] == pytest.approx(row["learned"] / row["exact"])
    # no strategy gains more than a best response, seat by seat
    assert all(s["learned_gain"] <= s["exact_gain"] + 1e-9 for s in row["seats"])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 95))
def test_the_sampler_draws_what_argmax_over_the_cumulative_draws(seed, legal_count):
  """Its minima over action ids are argmax's first True and first maximum, its maximum
  take_along_axis, tied logits and a point at the total (rounding) included."""
  rng = np.random.default_rng(seed)
  logits = np.where(rng.random((64, 96)) < legal_count / 96,
                    np.round(rng.normal(0, 3, (64, 96)), 1), net.MASKED).astype(np.float32)
  logits[:, rng.integers(96)] = 2.0
  uniforms = rng.random((64, 1)).astype(np.float32)
  uniforms[:2], uniforms[2:4] = 1.0, np.float32(1 - 2**-24)  # 1: the point at the total
  log_probabilities = jax.nn.log_softmax(logits, axis=-1)
  cumulative = jax.lax.associative_scan(jnp.add, jnp.exp(log_probabilities), axis=1)
  beyond = cumulative > uniforms * cumulative[:, -1:]
  assert not beyond[:2, -1].any()
  expected = jnp.where(beyond[:, -1], jnp.argmax(beyond, axis=-1), jnp.argmax(logits, axis=-1))
  actions, log_p = jax.jit(ppo._sample_at)(logits, uniforms)  # noqa: SLF001
  assert np.array_equal(np.asarray(actions), np.asarray(expected))
  assert np.array_equal(np.asarray(log_p), np.asarray(
      jnp.take_along_axis(log_probabilities, expected[:, None], axis=1)[:, 0]))


def test_sampled_actions_follow_the_policy():
  """Inverse-CDF sampling: 20,000 draws from one state's policy match its probabilities."""
  rng = np.random.default_rng(4)
  params = net.initial_parameters(7, 96, 8, rng)
  params["policy"] = params["policy"] * 100
  masks = np.zeros((20000, 96), np.int8)
  masks[:, [3, 10, 11, 50, 95]] = 1
  observations = np.repeat(rng.integers(0, 5, (1, 7)).astype(np.float32), 20000, axis=0)
  probabilities = net.Network(params, {}).probabilities(observations[:1], masks[:1])[0]
  actions, log_p, _ = ppo.sample_actions({k: jnp.asarray(v) for k, v in params.items()},
                                         observations, masks, rng.random((20000, 1), np.float32))
  counts = np.bincount(np.asarray(actions), minlength=96)
  assert counts[masks[0] == 0].sum() == 0
  assert np.abs(counts / 20000 - probabilities).max() < 0.015
  assert np.allclose(np.exp(np.asarray(log_p)), probabilities[np.asarray(actions)], atol=1e-5)


def test_past_selves_join_the_pool_and_resume_with_it(tmp_path):
  config = ppo.PPOConfig(game=GAME, seed=3, opponents="heuristic:1,past:1", past_every=1,
                         past_pool=2, **TINY)
  straight = ppo.PPOTrainer(config)
  assert [iteration for iteration, _ in straight.past_pool] == [0]
  straight.run(iterations=3, show_progress=False)
  assert [iteration for iteration, _ in straight.past_pool] == [2, 3]
  assert np.array_equal(straight.past_pool[-1][1]["hidden_1"], straight.params["hidden_1"])
  assert set(straight.phase_seconds) == set(ppo.PHASES)
  first = ppo.PPOTrainer(config)
  first.run(iterations=2, show_progress=False)
  first.save(str(tmp_path / "c.npz"))
  resumed = ppo.PPOTrainer.resume(str(tmp_path / "c.npz"))
  assert [iteration for iteration, _ in resumed.past_pool] == [1, 2]
  resumed.run(iterations=1, show_progress=False)
  assert all(np.array_equal(a, b) for a, b in zip(leaves(straight.params), leaves(resumed.params)))
  default_league = ppo.PPOTrainer(ppo.PPOConfig(game=GAME, seed=3, **TINY))
  assert all(np.array_equal(a, b) for a, b in zip(leaves(default_league.params),
                                                  leaves(ppo.PPOTrainer(config).params)))
  with pytest.raises(ValueError, match="PPO setting past_pool is 0; allowed: an integer >= 1"):
    ppo.PPOConfig(past_pool=0)
