"""Where a result came from: the package version and the git commit of the code that made it."""

from __future__ import annotations

import importlib.metadata
import pathlib
import subprocess


def package_version() -> str:
  """The installed version of sushigo-spiel, or "unknown" when it is not installed."""
  try:
    return importlib.metadata.version("sushigo-spiel")
  except importlib.metadata.PackageNotFoundError:
    return "unknown"


def git_commit() -> str | None:
  """The commit checked out where this code lives, or None outside a git checkout."""
  try:
    result = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            timeout=10, check=False, cwd=pathlib.Path(__file__).parent)
  except (OSError, subprocess.SubprocessError):
    return None
  return result.stdout.strip() if result.returncode == 0 else None
