"""`sushigo run`, `reproduce` and `report`: an experiment config into a run folder, and back."""

from __future__ import annotations

import argparse
import contextlib
import pathlib

from experiments import file_errors
from experiments import run_lock
from experiments import runner
from experiments.config import ConfigError
from experiments.run_folder import RunError
from experiments.viewer import report_page


def run(args: argparse.Namespace) -> int:
  if args.address and args.backend != "ray":
    args.error("--address needs --backend ray")
  with _experiment_errors(args):
    runner.run(args.config, out=args.out, workers=args.workers, backend=args.backend,
               address=args.address, force=args.force, quiet=args.quiet)
  return 0


def reproduce(args: argparse.Namespace) -> int:
  with _experiment_errors(args):
    return 0 if runner.reproduce(args.run_dir, workers=args.workers) else 1


def report(args: argparse.Namespace) -> int:
  if args.docs:
    from experiments import docs  # pylint: disable=import-outside-toplevel
    return docs.main(["--check"] if args.check else [])
  if args.run_dir is None or args.check:
    args.error("a run folder, or --docs (with --check or not), is required")
  if not args.html and (args.replays is not None or args.game):
    args.error("--replays and --game choose the replays of --html; add --html")
  with _experiment_errors(args):
    if args.html and pathlib.Path(args.run_dir).is_file():  # a records file: its games only
      print(f"Wrote {_html_report(args, report_page.write_games)}")
      return 0
    print(runner.report(args.run_dir))
    if args.html:
      with run_lock.reading(pathlib.Path(args.run_dir), "report"):
        print(f"Wrote {_html_report(args, report_page.write)}")
  return 0


def _html_report(args: argparse.Namespace, write) -> pathlib.Path:
  """The page `write` makes of args.run_dir with the replays asked for; a bad --game or record
  ends in args.error."""
  try:
    return write(args.run_dir, replays=report_page.DEFAULT_REPLAYS if args.replays is None
                 else args.replays, games=args.game)
  except ValueError as e:
    args.error(str(e))


@contextlib.contextmanager
def _experiment_errors(args: argparse.Namespace):
  """Ends a bad config, a bad run folder or a file error with its message (no traceback) and exit
  status 2."""
  try:
    yield
  except (ConfigError, RunError) as e:
    args.error(str(e))
  except OSError as e:
    args.error(file_errors.describe(e))
