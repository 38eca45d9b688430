"""What `sushigo train` prints, held against the file it saved: the tabular policy's line (game,
abstraction, iterations, keys, path) and its exact NashConv with each player's gain; the
blueprint's line (iterations, time, rate, workers, slots in use, play); and a blueprint training
stopped by Ctrl-C (a PPO one too), which saves, says where and how to resume, and exits with
status 130."""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

from experiments import stopping
from experiments.cli import main
from solvers.equilibrium import exploitability
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.blueprint_training import BlueprintTrainer, NonFiniteTables
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from sushigo_spiel import reduced_games

BLUEPRINT = ["train", "tiny", "--algorithm", "es-mccfr", "--abstraction", "cards", "--quiet"]


def nash_conv_line(out: str, policy) -> None:
  """The printed NashConv and gains are those of the saved policy in the real game."""
  match = re.search(r"^NashConv in the real game: (\S+) \(gains by player: (.+)\)$", out, re.M)
  assert match, out
  tree = GameTree(reduced_games.load_reduced("tiny"))
  result = exploitability.nash_conv(tree, policy_array(tree, policy))
  assert float(match.group(1)) == pytest.approx(result.nash_conv, rel=1e-5, abs=1e-9)
  gains = [float(g) for g in match.group(2).split(", ")]
  assert gains == pytest.approx(list(result.gains), rel=1e-5, abs=1e-9) and len(gains) == 2


def test_a_tabular_training_prints_what_it_saved(tmp_path, capsys):
  out = tmp_path / "p.npz"
  assert main(["train", "tiny", "--algorithm", "cfr", "--iterations", "20", "--out", str(out),
               "--quiet"]) == 0
  printed = capsys.readouterr().out
  policy = policy_io.load_policy(str(out))
  first = printed.splitlines()[0]
  match = re.fullmatch(r"cfr on (.+), abstraction identity: 20 iterations in [\d.]+ s,"
                       r" ([\d,]+) keys; saved to (.+)", first)
  assert match, first
  assert match.group(1) == str(reduced_games.load_reduced("tiny"))
  assert int(match.group(2).replace(",", "")) == len(policy.strategy)
  assert match.group(3) == str(out)
  nash_conv_line(printed, policy)


def test_a_blueprint_training_prints_what_it_saved(tmp_path, capsys):
  """The summary line names what was trained and saved; its rate is the iterations over the
  seconds (stored to the millisecond, so the run is long enough for that rounding to be small)."""
  out = tmp_path / "b.npz"
  assert main([*BLUEPRINT, "--iterations", "3000", "--out", str(out)]) == 0
  printed = capsys.readouterr().out
  trainer = BlueprintTrainer.resume(str(out))
  first = printed.splitlines()[0]
  match = re.fullmatch(r"es-mccfr on (.+), abstraction cards: ([\d,]+) iterations in ([\d.]+) s"
                       r" \(([\d,]+) it/s, 1 worker\(s\)\), ([\d,]+) slots in use; plays average;"
                       r" saved to (.+)", first)
  assert match, first
  iterations = trainer.solver.iterations
  assert match.group(1) == str(reduced_games.load_reduced("tiny"))
  assert int(match.group(2).replace(",", "")) == iterations >= 3000  # whole steps: at least 3000
  assert float(match.group(3)) == pytest.approx(trainer.seconds, abs=0.051)
  assert int(match.group(4).replace(",", "")) == pytest.approx(
      iterations / trainer.seconds, rel=0.2, abs=1)
  assert int(match.group(5).replace(",", "")) == trainer.solver.occupied > 0
  assert match.group(6) == str(out)
  nash_conv_line(printed, trainer.solver.policy())


def test_a_blueprint_resumed_adds_its_iterations_and_keeps_its_seed_and_play(tmp_path, capsys):
  """--resume carries on the checkpoint: its iterations add up, its seed and the play it was
  saved with stay (unless --play names another), and --restart-average gathers the average
  afresh from the iteration it resumes at. The seed given is the one trained with."""
  out = tmp_path / "b.npz"
  command = ["train", "tiny", "--algorithm", "probe-mccfr", "--abstraction", "cards",
             "--iterations", "50", "--seed", "7", "--quiet", "--out", str(out)]
  assert main([*command, "--play", "mean"]) == 0
  assert "; plays mean; saved to" in capsys.readouterr().out
  first = BlueprintTrainer.resume(str(out)).solver
  assert (first.seed, first.play, first.abstraction) == (7, "mean", "cards")
  assert main([*command, "--resume"]) == 0
  printed = capsys.readouterr().out
  resumed = BlueprintTrainer.resume(str(out)).solver
  assert resumed.iterations >= first.iterations + 50
  assert f": {resumed.iterations:,} iterations in" in printed and "; plays mean;" in printed
  assert (resumed.seed, resumed.play, resumed.average_since) == (7, "mean", 0)
  assert main([*command, "--resume", "--restart-average", "--play", "current"]) == 0
  assert "; plays current;" in capsys.readouterr().out
  restarted = BlueprintTrainer.resume(str(out)).solver
  assert restarted.play == "current"
  assert restarted.average_since == restarted.offered_since == resumed.iterations


def test_a_blueprint_trained_again_with_its_seed_is_the_same_file(tmp_path, capsys):
  """The same command gives the same tables; another --seed, others."""
  tables = []
  for seed, name in (("3", "a.npz"), ("3", "b.npz"), ("4", "c.npz")):
    out = tmp_path / name
    assert main([*BLUEPRINT, "--iterations", "50", "--seed", seed, "--out", str(out)]) == 0
    tables.append(BlueprintTrainer.resume(str(out)).solver.tables)
  capsys.readouterr()
  assert all(np.array_equal(a, b) for a, b in zip(tables[0], tables[1], strict=True))
  assert not all(np.array_equal(a, c) for a, c in zip(tables[0], tables[2], strict=True))


def refusal(capsys, argv) -> str:
  """The last line of stderr of a refused `sushigo ARGV` (status 2)."""
  with pytest.raises(SystemExit) as refused:
    main(argv)
  assert refused.value.code == 2
  return capsys.readouterr().err.splitlines()[-1]


def test_a_blueprints_refusals_are_whole_sentences(tmp_path, capsys):
  """A missing checkpoint to resume, --restart-average without --resume, an existing --out, a
  checkpoint of another game or algorithm: each refused in one sentence, the file untouched."""
  out = tmp_path / "b.npz"
  command = [*BLUEPRINT, "--iterations", "50", "--out", str(out)]
  assert refusal(capsys, [*command, "--resume"]).endswith(
      f"error: {out} (--out) does not exist: --resume continues the checkpoint saved there;"
      " leave out --resume to start a training")
  assert refusal(capsys, [*command, "--restart-average"]).endswith(
      "error: --restart-average needs --resume (a checkpoint to carry on)")
  assert main(command) == 0
  saved = out.read_bytes()
  capsys.readouterr()
  assert refusal(capsys, command).endswith(
      f"error: {out} (--out) exists; pass --resume to continue its training, or pass --force to"
      " train afresh over it, or choose another --out")
  small = ["train", "small", *BLUEPRINT[2:], "--iterations", "50", "--out", str(out), "--resume"]
  assert refusal(capsys, small).endswith(
      f"error: the checkpoint {out} was trained on {reduced_games.load_reduced('tiny')}, not"
      f" {reduced_games.load_reduced('small')}")
  probe = [*command, "--resume", "--algorithm", "probe-mccfr"]
  assert refusal(capsys, probe).endswith(
      f"error: the checkpoint {out} was trained with es-mccfr, not probe-mccfr")
  assert out.read_bytes() == saved
  tabular = tmp_path / "p.npz"
  tabular.write_bytes(b"kept")
  assert refusal(capsys, ["train", "tiny", "--algorithm", "cfr", "--iterations", "2", "--out",
                          str(tabular)]).endswith(
      f"error: {tabular} (--out) exists; pass --force to train afresh over it, or choose another"
      " --out")


def test_an_external_sampling_walk_over_max_nodes_is_refused_naming_the_option(tmp_path, capsys):
  assert refusal(capsys, ["train", "python_sushi_go(players=2)", "--algorithm", "es-mccfr",
                          "--abstraction", "cards", "--iterations", "5", "--max-nodes", "12345",
                          "--out", str(tmp_path / "b.npz")]).endswith(
      " more than the limit of 12,345; allowed: a reduced game (tiny, small, medium, ...) or"
      " os-mccfr, or a higher limit (--max-nodes) on a machine with the memory")
  assert list(tmp_path.iterdir()) == []


def test_a_ranked_blueprint_is_trained_with_its_abstraction(tmp_path, capsys):
  out = tmp_path / "b.npz"
  assert main([*BLUEPRINT[:-2], "cards+rank", "--iterations", "50", "--quiet", "--out",
               str(out)]) == 0
  assert ", abstraction cards+rank: " in capsys.readouterr().out
  assert BlueprintTrainer.resume(str(out)).solver.abstraction == "cards+rank"


@pytest.mark.parametrize("quiet, workers", [(True, 2), (False, 1)])
def test_a_blueprints_options_reach_its_training(tmp_path, capsys, monkeypatch, quiet, workers):
  """The budget, progress (unless --quiet), the workers, the backend, the checkpoint interval, a
  checkpoint that saves to --out and the Ctrl-C check are passed on to the training, whole (the
  training itself then runs on one worker, to be quick)."""
  out = tmp_path / "b.npz"
  passed = {}
  run = BlueprintTrainer.run

  def recorded(self, *budget, **options):
    passed.update(budget=budget, **options)
    assert not out.exists()
    options.pop("checkpoint")()
    assert BlueprintTrainer.resume(str(out)).solver.iterations == 0
    assert options.pop("stop")() is False
    return run(self, *budget, **{**options, "workers": 1})
  monkeypatch.setattr(BlueprintTrainer, "run", recorded)
  assert main([*BLUEPRINT[:-1], *(["--quiet"] if quiet else []), "--iterations", "50",
               "--workers", str(workers), "--checkpoint-seconds", "7", "--out", str(out)]) == 0
  capsys.readouterr()
  assert callable(passed.pop("checkpoint")) and callable(passed.pop("stop"))
  assert passed == {"budget": (50, None), "progress": not quiet, "workers": workers,
                    "backend": "local", "checkpoint_seconds": 7.0}


@pytest.mark.parametrize("error, said", [(OSError(28, "No space left on device"),
                                          "No space left on device"),
                                         (OSError("the disk went away"), "the disk went away")])
def test_a_blueprint_that_cannot_be_saved_is_one_sentence(tmp_path, capsys, monkeypatch, error,
                                                          said):
  def failing(self, path):
    raise error
  monkeypatch.setattr(BlueprintTrainer, "save", failing)
  out = tmp_path / "b.npz"
  assert refusal(capsys, [*BLUEPRINT, "--iterations", "50", "--out", str(out)]).endswith(
      f"error: the policy could not be saved to {out}: {said}")


def test_a_blueprint_training_with_no_time_yet_reports_a_rate_of_zero(tmp_path, capsys,
                                                                      monkeypatch):
  monkeypatch.setattr(BlueprintTrainer, "run", lambda self, *args, **kwargs: self)
  out = tmp_path / "b.npz"
  assert main([*BLUEPRINT, "--iterations", "50", "--out", str(out)]) == 0
  assert ": 0 iterations in 0.0 s (0 it/s, 1 worker(s)), 0 slots in use; plays average;" \
      in capsys.readouterr().out


@pytest.mark.parametrize("command", [BLUEPRINT, ["train", "tiny", "--algorithm", "cfr"]])
def test_the_nash_conv_after_training_walks_the_tree_within_max_nodes(tmp_path, capsys,
                                                                      monkeypatch, command):
  """--max-nodes bounds the tree of the NashConv printed after training as it bounds the check
  before it."""
  from experiments.commands import train as train_command  # pylint: disable=C0415
  limits = []

  def recorded(game, *limit):
    limits.append(limit)
    return GameTree(game, *limit)
  monkeypatch.setattr(train_command, "GameTree", recorded)
  assert main([*command, "--iterations", "5", "--max-nodes", "123456", "--quiet", "--out",
               str(tmp_path / "p.npz")]) == 0
  assert "NashConv in the real game: " in capsys.readouterr().out
  assert limits == [(123456,)]


@pytest.mark.parametrize("command", [BLUEPRINT, ["train", "tiny", "--algorithm", "cfr"]])
def test_a_reduced_games_tree_that_cannot_be_walked_is_refused_before_training(
    tmp_path, capsys, monkeypatch, command):
  """Over --max-nodes, or over the memory available, the tree of the NashConv printed after
  training is refused first, in one sentence naming the option or the memory."""
  from experiments import estimates  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import tree_size  # pylint: disable=import-outside-toplevel
  game = reduced_games.load_reduced("tiny")
  argv = [*command, "--iterations", "5", "--quiet", "--out", str(tmp_path / "p.npz")]
  nodes = tree_size.estimate_tree_nodes(game)
  assert refusal(capsys, [*argv, "--max-nodes", "3"]).endswith(
      f"error: {game}: its exact NashConv, printed after training, needs its whole tree, which"
      f" would have about {nodes:.2g} nodes (estimated), more than the limit of 3 (about 0 GB of"
      " memory); allowed: a reduced game (tiny, small, medium, ...), or a higher limit"
      " (--max-nodes) on a machine with the memory")
  monkeypatch.setattr(estimates, "available_memory", lambda: 1000)
  size = tree_size.estimate_tree_size(game)
  assert refusal(capsys, argv).endswith(
      f"error: the tree of tiny ({size.nodes:,} nodes, estimated) would take"
      f" {estimates.format_bytes(size.memory)} of memory; this machine has 1000 bytes available;"
      " allowed: a smaller game, or a machine with the memory")
  assert list(tmp_path.iterdir()) == []


def test_a_long_full_width_training_is_timed_at_cfr_pluss_rate_and_no_other(tmp_path, capsys):
  """Full-width CFR with --iterations gets its time at the rate CFR+ on `small` was measured at
  (7.8 ms an iteration over its 60,374 nodes); a sampling algorithm, or a --seconds budget, gets
  no such note (the out's missing folder then refuses each)."""
  from experiments import estimates  # pylint: disable=import-outside-toplevel
  from solvers.equilibrium import tree_size  # pylint: disable=import-outside-toplevel
  out = str(tmp_path / "missing" / "p.npz")
  nodes = tree_size.estimate_tree_size(reduced_games.load_reduced("small")).nodes
  each = nodes * 7.8e-3 / 60_374
  for budget, noted in ((["--algorithm", "cfr+", "--iterations", "10000000"], True),
                        (["--algorithm", "es-mccfr", "--iterations", "10000000"], False),
                        (["--algorithm", "cfr", "--seconds", "100000"], False)):
    with pytest.raises(SystemExit):
      main(["train", "small", *budget, "--out", out])
    first, *_ = capsys.readouterr().err.splitlines()
    note = (f"Note: estimated time {estimates.format_seconds(10**7 * each)}: 10,000,000"
            f" iterations at about {estimates.format_seconds(each)} each ({nodes:,} nodes at"
            " 1.3e-07 s each, as CFR+ on `small` measured) on 1 worker")
    assert (first == note) == noted and first.startswith("Note: ") == noted, first


def test_an_address_goes_with_the_ray_backend_and_force_not_with_resume(tmp_path, capsys):
  """--address with --backend ray is taken (and the cluster then asked for: nothing answers on
  the discard port), without it refused; --force with --resume refused in one sentence."""
  out = tmp_path / "b.npz"
  command = [*BLUEPRINT, "--iterations", "50", "--workers", "2", "--out", str(out)]
  assert refusal(capsys, [*command, "--backend", "ray", "--address", "127.0.0.1:9"]).endswith(
      "error: --address 127.0.0.1:9: nothing answers there (Connection refused); start the"
      " cluster (ray start --head) or check the address")
  assert refusal(capsys, [*command, "--address", "127.0.0.1:9"]).endswith(
      "error: --address needs --backend ray")
  assert refusal(capsys, [*command, "--force", "--resume"]).endswith(
      "error: --force trains afresh over --out, --resume continues it: give one of them")
  assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", [["--workers", "2"], ["--resume"], ["--backend", "ray"],
                                    ["--play", "mean"], ["--restart-average"]])
def test_each_blueprint_option_alone_is_refused_for_tabular_cfr(tmp_path, capsys, option):
  assert refusal(capsys, ["train", "tiny", "--algorithm", "cfr", "--iterations", "2", *option,
                          "--out", str(tmp_path / "p.npz")]).endswith(
      "error: --workers, --backend, --resume, --play and --restart-average are for --abstraction"
      " cards or cards+rank (the compiled blueprint)")
  assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("quiet", [True, False])
def test_a_tabular_trainings_options_reach_it(tmp_path, capsys, monkeypatch, quiet):
  """The game, algorithm, abstraction, budget, seed, --out, progress (unless --quiet) and
  --max-nodes (named as the option to raise) are passed on to the training."""
  out = str(tmp_path / "p.npz")
  passed = []
  train = policy_io.train

  def recorded(*args, **kwargs):
    passed.append((args, kwargs))
    return train(*args, **kwargs)
  monkeypatch.setattr(policy_io, "train", recorded)
  assert main(["train", "tiny", "--algorithm", "cfr", "--seconds", "0.5", "--seed", "5",
               "--max-nodes", "123456", *(["--quiet"] if quiet else []), "--out", out]) == 0
  capsys.readouterr()
  assert passed == [(("tiny", "cfr", "identity", None, 0.5, 5, out),
                     {"progress": not quiet, "max_nodes": 123456, "raise_limit": "--max-nodes"})]


PPO = ["train", "tiny", "--algorithm", "ppo", "--iterations", "50", "--quiet", "--ppo",
       "num_envs=24", "--ppo", "rollout_steps=2", "--ppo", "minibatches=2", "--ppo", "hidden=8",
       "--ppo", "eval_games=4"]


def stop_at_once(monkeypatch, out) -> None:
  """As if Ctrl-C came at once: the training stops at its first check (a blueprint after its
  first step, PPO before its first iteration)."""
  @contextlib.contextmanager
  def stopped_at_once(hint):
    assert hint == ("Run the same command with --resume to continue from the last checkpoint in"
                    f" {out}.")
    yield lambda: True
  monkeypatch.setattr(stopping, "deferred_stop", stopped_at_once)


def test_a_blueprint_stopped_by_ctrl_c_saves_and_says_how_to_resume(tmp_path, capsys,
                                                                      monkeypatch):
  """It saves, says where and how to resume on stderr, and exits with status 130."""
  out = tmp_path / "b.npz"
  stop_at_once(monkeypatch, out)
  assert main([*BLUEPRINT, "--seconds", "30", "--out", str(out)]) == stopping.EXIT_STATUS == 130
  err = capsys.readouterr().err
  iterations = BlueprintTrainer.resume(str(out)).solver.iterations
  assert 0 < iterations
  assert err.endswith(f"Stopped at iteration {iterations:,}, saved to {out}. Run the same command"
                      f" with --resume to continue from the last checkpoint in {out}.\n")


def test_a_ppo_training_stopped_by_ctrl_c_saves_and_says_how_to_resume(tmp_path, capsys,
                                                                       monkeypatch):
  pytest.importorskip("jax")
  out = tmp_path / "agent.npz"
  stop_at_once(monkeypatch, out)
  assert main([*PPO, "--out", str(out)]) == stopping.EXIT_STATUS
  captured = capsys.readouterr()
  assert captured.err.endswith("Stopped at iteration 0. Run the same command with --resume to"
                               f" continue from the last checkpoint in {out}.\n")
  assert f"saved to {out}" in captured.out and out.is_file()


@pytest.mark.parametrize("option", [["--ppo", "hidden=3"], ["--opponents", "random:1"],
                                    ["--agent", "a.npz"]])
def test_ppo_settings_are_refused_without_ppo(tmp_path, capsys, option):
  with pytest.raises(SystemExit) as refused:
    main(["train", "tiny", "--algorithm", "cfr+", "--iterations", "1", "--out",
          str(tmp_path / "p.npz"), *option])
  assert refused.value.code == 2
  assert capsys.readouterr().err.endswith(
      "error: --ppo, --opponents and --agent are settings of --algorithm ppo\n")
  assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_resumed_with_another_abstraction_is_refused(tmp_path, capsys):
  out = tmp_path / "b.npz"
  assert main([*BLUEPRINT, "--iterations", "50", "--out", str(out)]) == 0
  saved = out.read_bytes()
  capsys.readouterr()
  ranked = [*BLUEPRINT[:-2], "cards+rank", "--quiet", "--iterations", "50", "--out", str(out),
            "--resume"]
  with pytest.raises(SystemExit) as refused:
    main(ranked)
  assert refused.value.code == 2 and capsys.readouterr().err.endswith(
      f"error: the checkpoint {out} was trained with abstraction cards, not cards+rank\n")
  assert out.read_bytes() == saved


@pytest.mark.parametrize("resume", [False, True])
def test_tables_that_are_not_finite_stop_the_training_naming_what_is_kept(tmp_path, capsys,
                                                                        monkeypatch, resume):
  """A first training has nothing to keep; a resumed one keeps its last checkpoint."""
  out = tmp_path / "b.npz"
  if resume:
    assert main([*BLUEPRINT, "--iterations", "50", "--out", str(out)]) == 0
    capsys.readouterr()

  def diverging(self, *args, **kwargs):
    raise NonFiniteTables("its regrets hold 1 values that are not finite")
  monkeypatch.setattr(BlueprintTrainer, "run", diverging)
  with pytest.raises(SystemExit) as refused:
    main([*BLUEPRINT, "--iterations", "50", "--out", str(out), *(["--resume"] if resume else [])])
  assert refused.value.code == 2
  kept = f": {out} keeps its last checkpoint" if resume else ""
  assert capsys.readouterr().err.endswith(
      f"error: its regrets hold 1 values that are not finite{kept}\n")
  assert out.exists() == resume


@pytest.mark.parametrize("players, rate_of, seconds_each, workers", [
    (2, 2, "0.0036", 1), (3, 4, "0.0058", 1), (5, 4, "0.0058", 1), (2, 2, "0.0036", 2)])
def test_a_long_blueprint_training_is_timed_at_the_nearest_stored_rate(
    tmp_path, capsys, monkeypatch, players, rate_of, seconds_each, workers):
  """The stored blueprints were trained at 2 players (18,100 iterations in 64.8 s) and 4 (57,800
  in 337.6 s): a game of 3 is timed at the slower rate of 4, one of 5 at that of 4 too; the time
  is that of the workers given. Then the --out in a missing folder is refused, named."""
  from experiments import estimates  # pylint: disable=import-outside-toplevel
  monkeypatch.setattr(estimates, "usable_cores", lambda: 4)
  out = tmp_path / "no" / "b.npz"
  with pytest.raises(SystemExit) as refused:
    main(["train", f"python_sushi_go(players={players})", "--abstraction", "cards",
          "--algorithm", "probe-mccfr", "--iterations", str(10**8), "--workers", str(workers),
          "--out", str(out)])
  assert refused.value.code == 2
  err = capsys.readouterr().err
  worker_count = "1 worker" if workers == 1 else f"{workers} workers"
  assert f"iterations at about {seconds_each} s each (the rate the stored blueprint of {rate_of}" \
      f" players was trained at) on {worker_count}" in err, err
  assert err.splitlines()[-1].endswith(f"error: {out} (--out): its folder {out.parent} does not"
                                       " exist; create it first")


def test_more_workers_than_cores_are_noted_first(tmp_path, capsys, monkeypatch):
  from experiments import estimates  # pylint: disable=import-outside-toplevel
  monkeypatch.setattr(estimates, "usable_cores", lambda: 1)
  with pytest.raises(SystemExit):
    main([*BLUEPRINT, "--iterations", "50", "--workers", "3", "--address", "localhost:1",
          "--out", str(tmp_path / "b.npz")])
  first, refusal = capsys.readouterr().err.splitlines()
  assert first == ("Note: --workers 3 is more than the 1 core this process may use: the workers"
                   " share them, so the work takes no less time than with --workers 1")
  assert refusal.endswith("error: --address needs --backend ray")
