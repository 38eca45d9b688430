"""`sushigo train`: a CFR-family policy trained on an abstraction, saved with its provenance (or,
with --algorithm ppo, a PPO agent: `experiments.commands.train_ppo`).

Everything that can be checked is checked before training starts, so that a long training is not
lost at the end: the game (a reduced game's name or a drafting game string), the size of what the
algorithm walks (`solvers.equilibrium.tree_size`, raised with --max-nodes), that the policy file
can be written, and that it is not there already (unless --resume or --force). The file is held
by one training at a time (`experiments.run_lock.writing_file`); a blueprint's checkpoint is saved
every --checkpoint-seconds and when Ctrl-C stops it, never with a table that is not finite.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

import pyspiel

from experiments import config as config_lib
from experiments import estimates
from experiments import execution
from experiments import file_errors
from experiments import run_lock
from experiments import solving
from experiments import stopping
from experiments.run_folder import RunError
from solvers.equilibrium import blueprint, exploitability
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.blueprint_training import BlueprintTrainer, NonFiniteTables
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.tree_policies import policy_array
from solvers.equilibrium import tree_size
from solvers.equilibrium.tree_size import check_tree_size
from sushigo_spiel import reduced_games

DRAFTING_GAMES = ("python_sushi_go", "python_sushi_draft")
# CPU seconds of a full-width iteration per node of the tree: CFR+ on `small` took 7.8 ms an
# iteration over its 60,374 nodes (`sushigo bench --equilibrium`, docs/speed.md).
CFR_SECONDS_PER_NODE = 7.8e-3 / 60_374
# Blueprint iterations (probe-mccfr, `cards`) per CPU second, by players: the stored blueprints'
# training (blueprint_2p.npz: 18,100 iterations in 64.8 s; blueprint_4p.npz: 57,800 in 337.6 s).
BLUEPRINT_ITERATIONS_PER_SECOND = {2: 18_100 / 64.8, 4: 57_800 / 337.6}


def train(args: argparse.Namespace) -> int:
  _check_game(args)
  estimates.print_notes([estimates.workers_note(args.workers)])
  if args.address and args.backend != "ray":
    args.error("--address needs --backend ray")
  if args.force and args.resume:
    args.error("--force trains afresh over --out, --resume continues it: give one of them")
  if args.algorithm == "ppo":
    from experiments.commands.train_ppo import train_ppo  # pylint: disable=C0415 (JAX: on demand)
    return train_ppo(args)
  if args.ppo or args.opponents or args.agent:
    args.error("--ppo, --opponents and --agent are settings of --algorithm ppo")
  if args.abstraction in blueprint.ABSTRACTIONS:
    return _train_blueprint(args)
  if args.workers != 1 or args.resume or args.backend != "local" or args.play or \
      args.restart_average:
    args.error("--workers, --backend, --resume, --play and --restart-average are for --abstraction"
               " cards or cards+rank (the compiled blueprint)")
  try:
    _check_nash_conv_tree(args)
    file_errors.check_output_file(args.out, "--out")
    with run_lock.writing_file(args.out, "--out"):
      _check_overwrite(args, "")
      policy = policy_io.train(args.game, args.algorithm, args.abstraction, args.iterations,
                               args.seconds, args.seed, args.out, progress=not args.quiet,
                               max_nodes=args.max_nodes, raise_limit="--max-nodes")
  except (ValueError, pyspiel.SpielError, RunError) as e:
    args.error(str(e))
  except OSError as e:
    args.error(f"the policy could not be saved to {args.out}: {e.strerror or e}")
  meta = policy.metadata
  print(f"{meta['algorithm']} on {meta['game']}, abstraction {meta['abstraction']}:"
        f" {meta['iterations']:,} iterations in {meta['seconds']:.1f} s, {len(policy.strategy):,}"
        f" keys; saved to {args.out}")
  if args.game in reduced_games.REDUCED_GAMES:
    tree = GameTree(policy.game, args.max_nodes)
    result = exploitability.nash_conv(tree, policy_array(tree, policy))
    print(f"NashConv in the real game: {result.nash_conv:.6g} (gains by player:"
          f" {', '.join(f'{g:.6g}' for g in result.gains)})")
  return 0


def _check_nash_conv_tree(args: argparse.Namespace) -> None:
  """On a reduced game, whose exact NashConv is printed after training, refuses a tree over
  --max-nodes before training rather than after it (TreeTooLarge, a ValueError)."""
  if args.game in reduced_games.REDUCED_GAMES:
    game = reduced_games.load_reduced(args.game)
    check_tree_size(game, args.max_nodes,
                    "its exact NashConv, printed after training, needs its whole tree",
                    "--max-nodes")
    size = tree_size.estimate_tree_size(game)
    estimates.check_memory([estimates.Need(
        f"the tree of {args.game} ({size.nodes:,} nodes, estimated) would take", "of memory",
        size.memory, "a smaller game, or a machine with the memory")])
    if args.iterations and args.algorithm in policy_io.FULL_WIDTH and \
        args.abstraction not in blueprint.ABSTRACTIONS:
      estimates.print_notes([estimates.time_note(estimates.Duration(
          args.iterations, "iteration", size.nodes * CFR_SECONDS_PER_NODE,
          f"{size.nodes:,} nodes at {CFR_SECONDS_PER_NODE:.2g} s each, as CFR+ on `small`"
          " measured"))])


def _check_blueprint_sizes(args: argparse.Namespace, game: pyspiel.Game) -> None:
  """`estimates.check_blueprint`, and the time of a long --iterations budget at the rate the
  stored blueprint of the fewest players at least the game's was trained at (of the most players,
  for a game of more)."""
  estimates.check_blueprint(args.workers, args.out)
  if args.iterations:
    players = min((count for count in BLUEPRINT_ITERATIONS_PER_SECOND
                   if count >= game.num_players()), default=max(BLUEPRINT_ITERATIONS_PER_SECOND))
    estimates.print_notes([estimates.time_note(estimates.Duration(
        args.iterations, "iteration", 1 / BLUEPRINT_ITERATIONS_PER_SECOND[players],
        f"the rate the stored blueprint of {players} players was trained at"), args.workers)])


def _check_overwrite(args: argparse.Namespace, resumable: str) -> None:
  """Refuses an existing --out unless --force: a training never replaces a file by accident.
  `resumable` is the hint for a file that --resume can continue (empty where none can)."""
  if os.path.lexists(args.out) and not args.force:
    raise ValueError(f"{args.out} (--out) exists; {resumable}pass --force to train afresh over"
                     " it, or choose another --out")


def _train_blueprint(args: argparse.Namespace) -> int:
  """Trains (or resumes) a blueprint (`cards` or `cards+rank`) on the compiled core; the file at
  --out is a checkpoint, held by this training alone (`run_lock.writing_file`) and saved every
  --checkpoint-seconds, so a killed training loses at most that much; a first Ctrl-C stops at the
  end of the step under way and saves."""
  algorithm = args.algorithm
  name = reduced_games.reduced_game_string(args.game) if args.game in \
      reduced_games.REDUCED_GAMES else args.game
  hint = f"Run the same command with --resume to continue from the last checkpoint in {args.out}."
  try:
    game = pyspiel.load_game(name)
    _check_nash_conv_tree(args)
    _check_blueprint_sizes(args, game)
    file_errors.check_output_file(args.out, "--out")
    with run_lock.writing_file(args.out, "--out"):
      if args.resume:
        if not os.path.lexists(args.out):
          raise ValueError(f"{args.out} (--out) does not exist: --resume continues the checkpoint"
                           " saved there; leave out --resume to start a training")
        trainer = BlueprintTrainer.resume(args.out, game, algorithm, args.play)
        if trainer.solver.abstraction != args.abstraction:
          raise ValueError(f"the checkpoint {args.out} was trained with abstraction"
                           f" {trainer.solver.abstraction}, not {args.abstraction}")
        if args.restart_average:
          trainer.solver.restart_average()
      else:
        if args.restart_average:
          raise ValueError("--restart-average needs --resume (a checkpoint to carry on)")
        _check_overwrite(args, "pass --resume to continue its training, or ")
        trainer = BlueprintTrainer(blueprint.CompiledMCCFR(
            game, algorithm, args.seed, max_nodes=args.max_nodes, raise_limit="--max-nodes",
            play=args.play or "average", abstraction=args.abstraction))
      trainer.solver.check_play()
      with _ray_session(args), stopping.deferred_stop(hint) as stopped:
        trainer.run(args.iterations, args.seconds, progress=not args.quiet, workers=args.workers,
                    backend=args.backend, checkpoint=lambda: trainer.save(args.out),
                    checkpoint_seconds=args.checkpoint_seconds, stop=stopped)
      trainer.save(args.out)
  except NonFiniteTables as e:
    args.error(f"{e}: {args.out} keeps its last checkpoint" if os.path.lexists(args.out)
               else str(e))
  except (ValueError, pyspiel.SpielError, RunError) as e:
    args.error(str(e))
  except OSError as e:
    args.error(f"the policy could not be saved to {args.out}: {e.strerror or e}")
  solver = trainer.solver
  if stopped():
    print(f"Stopped at iteration {solver.iterations:,}, saved to {args.out}. {hint}",
          file=sys.stderr)
    return stopping.EXIT_STATUS
  rate = solver.iterations / trainer.seconds if trainer.seconds else 0.0
  print(f"{solver.algorithm} on {game}, abstraction {solver.abstraction}:"
        f" {solver.iterations:,} iterations in"
        f" {trainer.seconds:.1f} s ({rate:,.0f} it/s, {args.workers} worker(s)),"
        f" {solver.occupied:,} slots in use; plays {solver.play}; saved to {args.out}")
  if args.game in reduced_games.REDUCED_GAMES:
    tree = GameTree(game, args.max_nodes)
    result = exploitability.nash_conv(tree, policy_array(tree, solver.policy()))
    print(f"NashConv in the real game: {result.nash_conv:.6g} (gains by player:"
          f" {', '.join(f'{g:.6g}' for g in result.gains)})")
  return 0


@contextlib.contextmanager
def _ray_session(args: argparse.Namespace):
  """With --backend ray: Ray connected to --address (checked first) or started locally with
  --workers CPUs, for the training's duration."""
  if args.backend != "ray":
    yield
    return
  if args.address is None and args.workers == 1:
    args.error("--backend ray trains on --workers Ray workers: give --workers 2 or more")
  ray = execution.import_ray()
  execution.start_ray(ray, solving.session(args.workers, "ray", args.address), args.quiet)
  try:
    yield
  finally:
    ray.shutdown()


def _check_game(args: argparse.Namespace) -> None:
  """Refuses a GAME that is neither a reduced game's name nor a drafting game string, naming both
  kinds (OpenSpiel's own error lists every game it knows)."""
  if args.game in reduced_games.REDUCED_GAMES:
    return
  if config_lib.known_game_name(args.game) not in DRAFTING_GAMES:
    args.error(f"unknown game {args.game!r}; allowed: a reduced game"
               f" ({', '.join(reduced_games.REDUCED_GAMES)}) or a game string of"
               f" {' or '.join(DRAFTING_GAMES)}, such as 'python_sushi_go(players=2)'")
