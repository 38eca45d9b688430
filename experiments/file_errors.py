"""File errors as one sentence, and output paths checked before any long work starts.

A full disk, a read-only folder or a mistyped path should cost a sentence, not a traceback, and
never the results of a long computation: so every output path is checked first (can a file be
created there?), and an `OSError` met later is told as its path and its reason.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
from collections.abc import Iterator


class OutputError(ValueError):
  """An output path that cannot be written; the message names the path and the reason."""


def describe(error: OSError) -> str:
  """`error` as "PATH: reason" (the path it carries, or none)."""
  reason = error.strerror or str(error)
  return f"{error.filename}: {reason}" if error.filename else reason


@contextlib.contextmanager
def naming(path: str | os.PathLike) -> Iterator[None]:
  """Gives an OSError raised inside (a write or fsync, which name no file) the path `path`."""
  try:
    yield
  except OSError as e:
    if not e.filename:
      e.filename = str(path)
    raise


def check_folder(path: str | os.PathLike, option: str) -> None:
  """Refuses, with the reason, a folder path where no folder can be made: a file, or below one."""
  path = pathlib.Path(path)
  existing = _nearest_existing(path)
  if existing == path and not path.is_dir():
    raise OutputError(f"{path} ({option}) is a file, not a folder; choose a folder")
  if not existing.is_dir():
    raise OutputError(f"{path} ({option}) is below {existing}, which is a file, not a folder;"
                      " choose another path")


def check_output_file(path: str | os.PathLike, option: str) -> None:
  """Refuses, with the reason, a file path that cannot be written (its folder is missing, is a
  file or is read-only; the path is a folder), by creating and removing a file beside it."""
  path = pathlib.Path(path)
  folder = path.parent
  if path.is_dir():
    raise OutputError(f"{path} ({option}) is a folder; give the path of a file")
  if not folder.exists():
    raise OutputError(f"{path} ({option}): its folder {folder} does not exist; create it first")
  if not folder.is_dir():
    raise OutputError(f"{path} ({option}): {folder} is a file, not a folder")
  probe = folder / f".{path.name}.{secrets.token_hex(4)}.probe"
  try:
    probe.open("x").close()
  except OSError as e:
    raise OutputError(f"{path} ({option}): cannot write in {folder}: {e.strerror}") from None
  probe.unlink()


def _nearest_existing(path: pathlib.Path) -> pathlib.Path:
  """`path` or its nearest ancestor that exists (as a file or a folder)."""
  for candidate in (path, *path.parents):
    if os.path.lexists(candidate):
      return candidate
  return pathlib.Path(".")
