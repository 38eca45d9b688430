"""Runs, reproduces or reports an experiment of any kind, as `sushigo run/reproduce/report` do.

The `[experiment] kind` of a config (or of a run folder's config.toml) picks the module that knows
it: "tournament", the default, is `experiments.tournament`; every other kind is a solving
experiment of `experiments.solving`, which refuses a kind it does not know and names those it does.

`report` reads a run folder under its reading lock (`experiments.run_lock`), and `reproduce` reads
the stored results under it, so neither reads a folder while a run writes it.
"""

from __future__ import annotations

import pathlib
import tomllib

from experiments import run_lock
from experiments import solving
from experiments import tournament
from experiments.run_folder import CONFIG_FILE, RunError
from experiments.tournament.config import KIND as TOURNAMENT


def experiment_kind(path: str | pathlib.Path) -> str:
  """The `[experiment] kind` of the TOML at `path`; "tournament" when it names none, or cannot be
  read (the tournament loader then says what is wrong)."""
  try:
    data = tomllib.loads(pathlib.Path(path).read_text(encoding="utf-8"))
  except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
    return TOURNAMENT
  experiment = data.get("experiment")
  return experiment.get("kind", TOURNAMENT) if isinstance(experiment, dict) else TOURNAMENT


def run(config_path: str | pathlib.Path, out: str | pathlib.Path | None = None, workers: int = 1,
        backend: str = "local", address: str | None = None, force: bool = False,
        quiet: bool = False) -> pathlib.Path:
  """Runs (or resumes) the experiment of `config_path`, then its report; returns the run folder."""
  if experiment_kind(config_path) == TOURNAMENT:
    return tournament.run(config_path, out=out, workers=workers, backend=backend, address=address,
                          force=force, quiet=quiet)
  if backend != "local":
    raise RunError("solving experiments run on local processes: drop --backend")
  return solving.run(config_path, out=out, workers=workers, force=force, quiet=quiet)


def reproduce(run_dir: str | pathlib.Path, workers: int = 1, quiet: bool = False) -> bool:
  """Replays a run folder's stored config; True if every result came out identical."""
  if experiment_kind(pathlib.Path(run_dir) / CONFIG_FILE) == TOURNAMENT:
    return tournament.reproduce(run_dir, workers=workers, quiet=quiet)
  return solving.reproduce(run_dir, workers=workers)


def report(run_dir: str | pathlib.Path) -> str:
  """Writes the report of a run folder; returns its Markdown."""
  run_dir = pathlib.Path(run_dir)
  with run_lock.reading(run_dir, "report"):
    if experiment_kind(run_dir / CONFIG_FILE) == TOURNAMENT:
      return tournament.report(run_dir)
    return solving.report(run_dir)
