"""The `python -m` trainers of the stored policies, `experiments.train_blueprint` and
`experiments.train_full_policy`, in short runs on the full game: their refusals (whole sentences,
the file at --out untouched), what they save and print (each evaluation held against the policy
replayed by the documented seeding), resume and --restart-average, Ctrl-C, and the time estimate
printed before a long training."""

from __future__ import annotations

import contextlib
import json
import sys
import types
import pathlib
import re

import numpy as np
import pyspiel
import pytest

import sushigo_spiel  # noqa: F401  (registers the games)
from experiments import estimates, run_lock, stopping
from experiments import train_blueprint, train_full_policy
from experiments.stats import mean_interval, wilson_interval
from solvers import baselines
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.blueprint_training import BlueprintTrainer, NonFiniteTables
from solvers.match import play_match
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go import scoring
from support import FlushedOnly


def help_text(capsys, trainer) -> str:
  """`trainer --help`, its whitespace collapsed (the wrapping depends on the terminal)."""
  with pytest.raises(SystemExit) as shown:
    trainer.main(["--help"])
  assert shown.value.code == 0
  return " ".join(capsys.readouterr().out.split())


def options_part(text: str, description: str) -> str:
  """The help after its usage line, which must hold the trainer's description."""
  usage, separator, options = text.partition(f" {description} options: ")
  assert usage.startswith("usage: ") and separator, text
  return options


SHORT = ["--seconds", "0.2", "--segment", "0.2", "--games", "2", "--no-progress"]


def refusal(capsys, trainer, argv) -> str:
  """The last line of stderr of a refused `trainer.main(argv)` (status 2)."""
  with pytest.raises(SystemExit) as refused:
    trainer.main(argv)
  assert refused.value.code == 2
  return capsys.readouterr().err.splitlines()[-1]


def replayed(game, path: str, games: int, seed: int) -> dict:
  """The evaluation of the policy at `path` as documented: game i seats the policy at i mod n
  (seeded seed + n*i) and heuristics elsewhere (seeded seed + n*i + 1, ... in seat order), chance
  drawn from one generator seeded `seed`; a tie shares the win; the margin is the seat's points
  less the others' mean."""
  n = game.num_players()
  chance = np.random.default_rng(seed)
  wins, seat_margins = 0.0, []
  for i in range(games):
    seat, others = i % n, iter(range(seed + n * i + 1, seed + n * i + n))
    bots = [policy_io.PolicyBot(game, p, seed=seed + n * i, path=path) if p == seat
            else baselines.HeuristicBot(game, p, seed=next(others)) for p in range(n)]
    table = play_match(game, bots, chance).table()
    scores = R.final_scores(game.rules, table)
    winners = scoring.winners(scores, table.puddings)
    wins += (seat in winners) / len(winners)
    seat_margins.append(scores[seat] - (sum(scores) - scores[seat]) / (n - 1))
  low, high = wilson_interval(round(wins), games)
  margin = mean_interval(seat_margins)
  return {"games": games, "win_rate": wins / games, "win_low": low, "win_high": high,
          "margin": margin.value, "margin_low": margin.low, "margin_high": margin.high}


def evaluation_line(result: dict, against: str) -> str:
  return (f"win rate {result['win_rate']:.3f} [{result['win_low']:.3f}, {result['win_high']:.3f}],"
          f" margin {result['margin']:+.2f} [{result['margin_low']:+.2f},"
          f" {result['margin_high']:+.2f}] against {against}")


def test_the_evaluation_is_the_documented_replay():
  game = pyspiel.load_game(train_full_policy.GAME)
  path = "experiments/results/policies/blueprint_2p.npz"
  for games, seed in ((3, 0), (4, 11)):
    assert train_full_policy.evaluate(game, path, games, seed) == pytest.approx(
        replayed(game, path, games, seed))
  three, path = (pyspiel.load_game("python_sushi_go(players=3,utility=margin)"),
                 "experiments/results/policies/blueprint_rank_3p.npz")
  assert train_full_policy.evaluate(three, path, 3, 5) == pytest.approx(
      replayed(three, path, 3, 5))


def test_a_tie_shares_the_win_in_the_evaluation(monkeypatch):
  """Every game a tie of all players (scoring.winners stood in for): the win rate is 1/n."""
  monkeypatch.setattr(scoring, "winners", lambda scores, puddings: list(range(len(scores))))
  game = pyspiel.load_game(train_full_policy.GAME)
  result = train_full_policy.evaluate(game, "experiments/results/policies/blueprint_2p.npz", 2, 0)
  assert result["win_rate"] == 0.5 and result["games"] == 2


# --------------------------------------------------------------------------------------------
# train_blueprint


@pytest.mark.parametrize("option", [["--seconds", "0"], ["--seconds", "nan"],
                                    ["--segment", "0"], ["--segment", "-1"], ["--segment", "inf"],
                                    ["--checkpoint-seconds", "0"], ["--games", "1"]])
def test_the_blueprint_trainer_refuses_budgets_below_their_minimum(tmp_path, capsys, option):
  argv = ["--seconds", "1", *option, "--out", str(tmp_path / "b.npz")]
  assert refusal(capsys, train_blueprint, argv).endswith(
      "error: --seconds, --segment and --checkpoint-seconds must be finite and > 0, and --games 2"
      " or more (the margin's interval needs two games)")
  assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("options, message", [
    (["--force", "--resume"],
     "--force trains afresh over --out, --resume continues it: give one of them"),
    (["--workers", "0"], "--workers is 0; allowed: 1 or more"),
    (["--restart-average"], "--restart-average needs --resume")])
def test_the_blueprint_trainer_refuses_options_that_do_not_go_together(tmp_path, capsys, options,
                                                                        message):
  argv = [*SHORT, "--out", str(tmp_path / "b.npz"), *options]
  assert refusal(capsys, train_blueprint, argv).endswith(f"error: {message}")
  assert list(tmp_path.iterdir()) == []


def test_the_blueprint_trainer_refuses_a_missing_checkpoint_and_an_existing_out(tmp_path, capsys):
  out = tmp_path / "b.npz"
  assert refusal(capsys, train_blueprint, [*SHORT, "--out", str(out), "--resume"]).endswith(
      f"error: {out} does not exist: --resume continues the checkpoint saved there")
  out.write_bytes(b"kept")
  assert refusal(capsys, train_blueprint, [*SHORT, "--out", str(out)]).endswith(
      f"error: {out} exists; pass --resume to continue it, --force to train afresh over it, or"
      " choose another --out")
  assert out.read_bytes() == b"kept"
  assert refusal(capsys, train_blueprint, [*SHORT, "--out", str(tmp_path / "no" / "b.npz")]) \
      .endswith(f"error: {tmp_path / 'no' / 'b.npz'} (--out): its folder {tmp_path / 'no'} does"
                " not exist; create it first")


def test_the_blueprint_trainers_help_names_each_option_and_its_default(capsys):
  text = help_text(capsys, train_blueprint)
  assert "--seconds SECONDS [--segment SEGMENT]" in text
  assert "[--workers WORKERS] --out OUT [" in text
  assert options_part(text, "Trains the blueprint (`cards` or `cards+rank` abstraction, MCCFR on"
                      " the compiled core) on the full game, measured as it learns, and"
                      " resumable.") == (
      "-h, --help show this help message and exit"
      " --players {2,3,4,5} players of the game, 2 to 5 (default: 2)"
      " --utility {margin,win} what the blueprint maximises: the margin or the win share"
      " (default: margin)"
      " --algorithm ALGORITHM default: probe-mccfr"
      " --abstraction {cards,cards+rank} the blueprint's abstraction (default: cards)"
      " --play {average,mean,current} the strategy the blueprint plays (default: current)"
      " --seconds SECONDS training seconds in all"
      " --segment SEGMENT training seconds between evaluations (default: 600.0)"
      " --games GAMES games per evaluation (default: 200)"
      " --seed SEED seed of training and evaluation (default: 0)"
      " --workers WORKERS local training processes (default: 1)"
      " --out OUT the checkpoint and policy file (.npz)"
      " --resume continue from the file at --out"
      " --force train afresh over an existing --out (refused without it or --resume)"
      " --checkpoint-seconds CHECKPOINT_SECONDS seconds of training between two saves of the"
      " checkpoint within a segment, so that a killed training loses at most that (default: 60.0)"
      " --restart-average with --resume: gather the average strategy afresh from now on (the"
      " regrets carry on); needed to play mean from a file saved without offer weights"
      " --no-progress no progress bar")


@pytest.mark.parametrize("missing", ["--seconds", "--out"])
def test_the_blueprint_trainer_refuses_a_missing_required_option(tmp_path, capsys, missing):
  argv = {"--seconds": "1", "--out": str(tmp_path / "b.npz")}
  del argv[missing]
  assert refusal(capsys, train_blueprint, [word for pair in argv.items() for word in pair]) \
      .endswith(f"error: the following arguments are required: {missing}")
  assert list(tmp_path.iterdir()) == []


def test_the_blueprint_trainer_flushes_each_evaluation_line(tmp_path, capsys, monkeypatch):
  """The evaluation line reaches a pipe as it is printed, not when the training ends (here with
  a --checkpoint-seconds below one, allowed)."""
  stdout = FlushedOnly()
  monkeypatch.setattr(sys, "stdout", stdout)
  assert train_blueprint.main([*SHORT, "--checkpoint-seconds", "0.5", "--out",
                               str(tmp_path / "b.npz")]) == 0
  assert stdout.pending == "" and re.fullmatch(r"\S+ it, \d+ s, \S+ slots: win rate .*"
                                               r" against heuristics\n", stdout.shown)


def test_the_blueprint_trainer_saves_its_evaluated_curve_and_resumes_it(tmp_path, capsys):
  """Each segment's point is printed and kept in the file: the evaluation of the checkpoint as
  replayed, the iterations and slots of the solver; --resume carries the curve, the iterations
  and the seed on until --seconds in all; --force trains afresh; --restart-average gathers the
  average from the resumed iteration on."""
  out = str(tmp_path / "b.npz")
  argv = [*SHORT, "--seed", "9", "--play", "average", "--utility", "win", "--out", out]
  assert train_blueprint.main(argv) == 0
  printed = capsys.readouterr().out.splitlines()
  trainer = BlueprintTrainer.resume(out)
  solver, (point,) = trainer.solver, trainer.history
  game = pyspiel.load_game("python_sushi_go(players=2,utility=win)")
  assert str(solver.game) == str(game) and solver.seed == 9 and solver.play == "average"
  result = replayed(game, out, 2, 9)
  assert point == pytest.approx({
      "play": "average", "iterations": solver.iterations,
      "train_seconds": round(trainer.seconds, 1), "train_cpu_seconds": round(trainer.cpu_seconds, 1),
      "slots": solver.occupied, **result, "eval_seconds": point["eval_seconds"]})
  assert isinstance(point["eval_seconds"], float) and 0 <= point["eval_seconds"] < 60
  assert point["eval_seconds"] == round(point["eval_seconds"], 1)  # to a tenth of a second
  assert printed == [f"{solver.iterations:,} it, {trainer.seconds:.0f} s, {solver.occupied:,}"
                     f" slots: {evaluation_line(result, 'heuristics')}"]
  seconds = trainer.seconds + 0.2
  resume = [*SHORT[2:], "--seconds", str(seconds), "--seed", "9", "--utility", "win", "--out",
            out, "--resume", "--restart-average"]
  assert train_blueprint.main(resume) == 0
  resumed = BlueprintTrainer.resume(out)
  assert len(resumed.history) == len(capsys.readouterr().out.splitlines()) + 1 >= 2
  assert resumed.history[0] == trainer.history[0] and resumed.seconds >= seconds
  assert resumed.solver.iterations > solver.iterations and resumed.solver.seed == 9
  assert resumed.solver.average_since == resumed.solver.offered_since == solver.iterations
  assert train_blueprint.main([*SHORT, "--players", "3", "--seed", "4", "--play", "current",
                               "--out", out, "--force"]) == 0
  capsys.readouterr()
  fresh = BlueprintTrainer.resume(out)
  assert str(fresh.solver.game) == str(pyspiel.load_game("python_sushi_go(players=3,utility=margin)"))
  assert (len(fresh.history), fresh.solver.seed, fresh.solver.play) == (1, 4, "current")
  assert fresh.history[0]["games"] == 2


def test_the_blueprint_trainer_resumes_its_own_game_and_algorithm_with_the_play_given(
    tmp_path, capsys):
  """A checkpoint is trained with --algorithm (here not the default); resumed, it is refused for
  another game or algorithm, and plays the --play given."""
  out = str(tmp_path / "b.npz")
  assert train_blueprint.main([*SHORT, "--algorithm", "os-mccfr", "--play", "average", "--out",
                               out]) == 0
  first = BlueprintTrainer.resume(out)
  assert (first.solver.algorithm, first.solver.play) == ("os-mccfr", "average")
  saved = pathlib.Path(out).read_bytes()
  more = [*SHORT[2:], "--seconds", str(first.seconds + 0.2), "--out", out, "--resume"]
  two, three = (str(pyspiel.load_game(f"python_sushi_go(players={n},utility=margin)"))
                for n in (2, 3))
  assert refusal(capsys, train_blueprint, [*more, "--algorithm", "os-mccfr", "--players", "3"]) \
      .endswith(f"error: the checkpoint {out} was trained on {two}, not {three}")
  assert refusal(capsys, train_blueprint, more).endswith(
      f"error: the checkpoint {out} was trained with os-mccfr, not probe-mccfr")
  assert pathlib.Path(out).read_bytes() == saved
  assert train_blueprint.main([*more, "--algorithm", "os-mccfr", "--play", "current"]) == 0
  capsys.readouterr()
  resumed = BlueprintTrainer.resume(out)
  assert (resumed.solver.algorithm, resumed.solver.play) == ("os-mccfr", "current")
  done = [*SHORT[2:], "--seconds", repr(resumed.seconds), "--algorithm", "os-mccfr", "--out", out,
          "--resume"]  # --seconds reached already: nothing more
  assert train_blueprint.main(done) == 0 and capsys.readouterr().out == ""
  again = BlueprintTrainer.resume(out)
  assert (again.solver.iterations, again.history) == (resumed.solver.iterations, resumed.history)


def test_the_blueprint_trainer_trains_the_abstraction_given(tmp_path, capsys):
  out = str(tmp_path / "b.npz")
  assert train_blueprint.main([*SHORT, "--abstraction", "cards+rank", "--out", out]) == 0
  capsys.readouterr()
  assert BlueprintTrainer.resume(out).solver.abstraction == "cards+rank"


@pytest.mark.parametrize("progress, workers", [(True, 2), (False, 1)])
def test_the_blueprint_trainers_options_reach_each_segment(tmp_path, capsys, monkeypatch,
                                                           progress, workers):
  """Each segment trains for --segment seconds (the last for what is left of --seconds), with
  progress unless --no-progress, the workers, the checkpoint interval, a checkpoint saving to
  --out and the Ctrl-C check (the training itself then runs on one worker, to be quick)."""
  out = tmp_path / "b.npz"
  passed = []
  run = BlueprintTrainer.run

  def recorded(self, **options):
    passed.append(dict(options))
    checkpoint, stop = options.pop("checkpoint"), options.pop("stop")
    checkpoint()
    assert BlueprintTrainer.resume(str(out)).solver.iterations == self.solver.iterations
    assert stop() is False
    return run(self, **{**options, "workers": 1})
  monkeypatch.setattr(BlueprintTrainer, "run", recorded)
  assert train_blueprint.main(["--seconds", "0.3", "--segment", "0.2", "--games", "2",
                               "--workers", str(workers), "--checkpoint-seconds", "7",
                               *([] if progress else ["--no-progress"]), "--out", str(out)]) == 0
  capsys.readouterr()
  for options in passed:
    assert callable(options.pop("checkpoint")) and callable(options.pop("stop"))
  assert passed[0] == {"seconds": 0.2, "progress": progress, "workers": workers,
                       "checkpoint_seconds": 7.0}
  trained = BlueprintTrainer.resume(str(out))
  assert len(passed) == len(trained.history)
  passed.clear()  # resumed, the segment is what is left of --seconds
  assert train_blueprint.main(["--seconds", repr(trained.seconds + 0.05), "--segment", "10",
                               "--games", "2", "--no-progress", "--resume", "--out",
                               str(out)]) == 0
  capsys.readouterr()
  assert passed[0]["seconds"] == pytest.approx(0.05)


def test_the_blueprint_trainer_stopped_by_ctrl_c_saves_and_says_how_to_resume(tmp_path, capsys,
                                                                              monkeypatch):
  @contextlib.contextmanager
  def stopped_at_once(hint):
    assert hint == "Run the same command with --resume to continue from the last checkpoint."
    yield lambda: True
  monkeypatch.setattr(stopping, "deferred_stop", stopped_at_once)
  out = tmp_path / "b.npz"
  assert train_blueprint.main([*SHORT, "--out", str(out)]) == stopping.EXIT_STATUS
  trainer = BlueprintTrainer.resume(str(out))
  assert trainer.history == [] and trainer.solver.iterations > 0
  assert capsys.readouterr().err == (
      f"Stopped at iteration {trainer.solver.iterations:,}, saved to {out}. Run the same command"
      " with --resume to continue from the last checkpoint.\n")


def test_the_blueprint_trainer_keeps_its_checkpoint_when_tables_are_not_finite(tmp_path, capsys,
                                                                             monkeypatch):
  out = tmp_path / "b.npz"
  out.write_bytes(b"kept")

  def diverging(self, *args, **kwargs):
    raise NonFiniteTables("its regrets hold 2 values that are not finite")
  monkeypatch.setattr(BlueprintTrainer, "run", diverging)
  assert refusal(capsys, train_blueprint, [*SHORT, "--out", str(out), "--force"]).endswith(
      f"error: its regrets hold 2 values that are not finite: {out} keeps its last checkpoint")
  assert out.read_bytes() == b"kept"


def test_the_blueprint_trainer_says_why_a_checkpoint_could_not_be_saved(tmp_path, capsys,
                                                                        monkeypatch):
  def full_disk(self, path):
    raise OSError(28, "No space left on device")
  monkeypatch.setattr(BlueprintTrainer, "save", full_disk)
  out = tmp_path / "b.npz"
  assert refusal(capsys, train_blueprint, [*SHORT, "--out", str(out)]).endswith(
      f"error: the checkpoint could not be saved to {out}: No space left on device")


def test_the_blueprint_trainer_notes_more_workers_than_cores(tmp_path, capsys, monkeypatch):
  monkeypatch.setattr(estimates, "usable_cores", lambda: 1)
  out = tmp_path / "b.npz"
  with run_lock.writing_file(out, "--out"):  # the refusal, after the note
    with pytest.raises(SystemExit):
      train_blueprint.main([*SHORT, "--workers", "2", "--out", str(out)])
  first, *_, last = capsys.readouterr().err.splitlines()
  assert first == ("Note: --workers 2 is more than the 1 core this process may use: the workers"
                   " share them, so the work takes no less time than with --workers 1")
  assert f"{out} (--out) is being written by process" in last


# --------------------------------------------------------------------------------------------
# train_full_policy


@pytest.mark.parametrize("option", [["--iterations", "0"], ["--checkpoint-every", "0"],
                                    ["--games", "1"]])
def test_the_full_policy_trainer_refuses_counts_below_their_minimum(tmp_path, capsys, option):
  argv = ["--iterations", "2", *option, "--out", str(tmp_path / "p.npz")]
  assert refusal(capsys, train_full_policy, argv).endswith(
      "error: --iterations and --checkpoint-every must be 1 or more, and --games 2 or more (the"
      " margin's interval needs two games)")
  assert list(tmp_path.iterdir()) == []


def test_the_full_policy_trainer_times_a_long_training_then_refuses_an_existing_out(tmp_path,
                                                                                  capsys):
  out = tmp_path / "p.npz"
  out.write_bytes(b"kept")
  assert refusal(capsys, train_full_policy, ["--iterations", "100000", "--checkpoint-every",
                                             "30000", "--games", "50", "--out", str(out)]) \
      .endswith(f"error: {out} exists; pass --force to train afresh over it, or choose another"
                " --out")
  assert out.read_bytes() == b"kept"
  train_full_policy.main(["--iterations", "1", "--games", "2", "--out", str(out), "--force",
                          "--no-progress"])
  capsys.readouterr()
  with pytest.raises(SystemExit):
    train_full_policy.main(["--iterations", "100000", "--checkpoint-every", "30000", "--games",
                            "5000", "--out", str(out)])
  note = capsys.readouterr().err.splitlines()[0]
  seconds = 100_000 * 104.7 / 25_000 + 4 * 5000 * 3.8 / 200  # 4 evaluations: 30,000 at a time
  assert note == (f"Note: estimated time {estimates.format_seconds(seconds)}: 1 training at about"
                  f" {estimates.format_seconds(seconds)} each (100,000 iterations and 4"
                  " evaluations of 5,000 games at the stored policy's rates) on 1 worker")
  assert estimates.time_note(estimates.Duration(1, "training", 12 * 104.7 / 25_000, "")) is None


def test_the_full_policy_trainers_help_names_each_option_and_its_default(capsys):
  text = help_text(capsys, train_full_policy)
  assert "[--seed SEED] --out OUT [--log LOG]" in text
  assert options_part(text, "Trains an outcome-sampling MCCFR policy on the full two-player game,"
                      " measured as it learns.") == (
      "-h, --help show this help message and exit"
      " --abstraction ABSTRACTION abstraction name (solvers.abstraction.NAMES; default: summary:2)"
      " --iterations ITERATIONS total MCCFR iterations (default: 200000)"
      " --checkpoint-every CHECKPOINT_EVERY iterations between evaluations (default: 40000)"
      " --games GAMES games per evaluation (default: 200)"
      " --seed SEED seed of training and evaluation (default: 0)"
      " --out OUT policy file (.npz) to write"
      " --log LOG JSON lines file for the checkpoints (default: OUT.jsonl)"
      " --no-progress no progress bar"
      " --force train afresh over an existing --out (refused without it)")


def test_the_full_policy_trainer_refuses_a_missing_out(tmp_path, capsys):
  assert refusal(capsys, train_full_policy, ["--iterations", "1"]).endswith(
      "error: the following arguments are required: --out")


def test_the_full_policy_trainer_refuses_an_out_that_is_a_folder_or_held(tmp_path, capsys):
  assert refusal(capsys, train_full_policy, ["--out", str(tmp_path)]).endswith(
      f"error: {tmp_path} (--out) is a folder; give the path of a file")
  out = tmp_path / "p.npz"
  with run_lock.writing_file(out, "--out"):
    assert f"{out} (--out) is being written by process" in refusal(capsys, train_full_policy,
                                                                   ["--out", str(out)])
  assert not out.exists()


def test_the_full_policy_trainer_flushes_each_evaluation_line_timed_to_a_tenth(tmp_path,
                                                                              monkeypatch):
  """The evaluation line reaches a pipe as it is printed; the evaluation's time (here 0.27 s on
  the trainer's clock) is kept to a tenth of a second. (--checkpoint-every 1 is allowed.)"""
  stdout, clock = FlushedOnly(), iter([5.0, 5.27])
  monkeypatch.setattr(sys, "stdout", stdout)
  monkeypatch.setattr(train_full_policy, "time", types.SimpleNamespace(perf_counter=clock.__next__))
  out = tmp_path / "p.npz"
  train_full_policy.main(["--iterations", "1", "--checkpoint-every", "1", "--games", "2",
                          "--no-progress", "--out", str(out)])
  assert stdout.pending == "" and re.fullmatch(r"1 it, \d+ s, \d+ keys: win rate .* against"
                                               r" heuristic\n", stdout.shown)
  assert [json.loads(line)["eval_seconds"] for line in (tmp_path / "p.jsonl").open()] == [0.3]
  assert policy_io.load_policy(str(out)).metadata["checkpoints"][0]["eval_seconds"] == 0.3


def test_the_full_policy_trainer_saves_evaluated_checkpoints_and_logs_them(tmp_path, capsys):
  """Every --checkpoint-every iterations (the last checkpoint at --iterations) the average policy
  is saved and evaluated as replayed; the points go to --log (default: beside --out), to the
  file's metadata and to stdout."""
  out = tmp_path / "p.npz"
  argv = ["--iterations", "5", "--checkpoint-every", "3", "--games", "2", "--seed", "6",
          "--abstraction", "summary:1", "--no-progress", "--out", str(out)]
  assert train_full_policy.main(argv) is None
  printed = capsys.readouterr().out.splitlines()
  logged = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
  policy = policy_io.load_policy(str(out))
  assert policy.metadata["checkpoints"] == logged
  assert [point["iterations"] for point in logged] == [3, 5]
  assert policy.metadata["iterations"] == 5 and policy.metadata["abstraction"] == "summary:1"
  assert policy.metadata["seed"] == 6
  assert policy.metadata["game"] == str(pyspiel.load_game(train_full_policy.GAME))
  game = pyspiel.load_game(train_full_policy.GAME)
  last = logged[-1]
  assert last == pytest.approx({"iterations": 5, "train_seconds": last["train_seconds"],
                                "keys": len(policy.strategy), **replayed(game, str(out), 2, 6),
                                "eval_seconds": last["eval_seconds"]})
  for seconds in (last["train_seconds"], last["eval_seconds"]):  # to a tenth of a second
    assert isinstance(seconds, float) and 0 <= seconds < 60 and seconds == round(seconds, 1)
  assert len(printed) == 2 and re.fullmatch(
      rf"5 it, \d+ s, {len(policy.strategy)} keys: "
      + re.escape(evaluation_line(last, "heuristic")), printed[1])
  log = tmp_path / "elsewhere.jsonl"
  assert train_full_policy.main([*argv[:-1], str(tmp_path / "q.npz"), "--log", str(log)]) is None
  capsys.readouterr()
  assert [json.loads(line)["iterations"] for line in log.read_text().splitlines()] == [3, 5]
  assert not (tmp_path / "q.jsonl").exists()


@pytest.mark.parametrize("progress", [True, False])
def test_the_full_policy_trainer_keeps_the_checkpoints_so_far_in_each_file_it_saves(
    tmp_path, capsys, monkeypatch, progress):
  """The file saved at each checkpoint (what a killed training leaves) holds the checkpoints
  before it in its metadata; each stretch of training runs with progress unless --no-progress."""
  out = tmp_path / "p.npz"
  seen, stretches = [], []
  evaluate, make_solver = train_full_policy.evaluate, policy_io.make_solver

  def evaluated(game, path, games, seed):
    seen.append(policy_io.load_policy(path).metadata["checkpoints"])
    return evaluate(game, path, games, seed)

  def recording_solver(*args, **kwargs):
    solver = make_solver(*args, **kwargs)
    run = solver.run

    def recorded(**options):
      stretches.append(options)
      return run(**options)
    solver.run = recorded
    return solver
  monkeypatch.setattr(train_full_policy, "evaluate", evaluated)
  monkeypatch.setattr(policy_io, "make_solver", recording_solver)
  assert train_full_policy.main(["--iterations", "5", "--checkpoint-every", "3", "--games", "2",
                                 *([] if progress else ["--no-progress"]), "--out",
                                 str(out)]) is None
  capsys.readouterr()
  logged = policy_io.load_policy(str(out)).metadata["checkpoints"]
  assert seen == [[], logged[:1]]
  assert stretches == [{"iterations": 3, "progress": progress},
                       {"iterations": 2, "progress": progress}]
