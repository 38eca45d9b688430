"""The files the solvers write and read back, with a digest of their content checked at load.

Policy files, blueprints, checkpoints and linear Q models are compressed numpy archives (never
pickles) of named arrays, the JSON metadata (member `metadata`) and the SHA-256 digest of every
other member's name, dtype, shape and bytes (member `sha256`; `MARK` in the metadata says a digest
belongs there, so a file whose digest was cut is not taken for one saved before digests).

  save(path, arrays, metadata)   written beside `path`, synced and renamed over it: `path` holds
                                 the old file or the new one, never half of one
  load(path, what) -> Archive    checked; every failure is one `ArchiveError` (a ValueError)
                                 naming the file and what is wrong
  check_array(...)               the dtype and shape checks the readers share

A file written before digests is refused with the command that re-saves it (`python -m
experiments.resave PATH`). The rest: docs/equilibrium.md, section "Policy files".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os

import numpy as np

DIGEST = "sha256"  # the member holding the digest
METADATA = "metadata"  # the member holding the JSON metadata
MARK = "content_digest"  # the metadata key saying that the file carries its digest: "sha256"
RESAVE = "python -m experiments.resave"
_ZIP_MAGIC = b"PK\x03\x04"


class ArchiveError(ValueError):
  """A file that cannot be read as the archive asked for; the message names the file."""


@dataclasses.dataclass
class Archive:
  """A checked archive: its arrays (without `metadata` and `sha256`), metadata and digest."""
  path: str
  what: str
  arrays: dict[str, np.ndarray]
  metadata: dict
  digest: str
  saving: bool = False  # checked before it is written rather than after it was read
  legacy: bool = False  # read without a digest (saved before digests; `legacy=True` loads)
  marked: bool = True  # its metadata says it carries a digest (files saved since: see `MARK`)

  def error(self, reason: str) -> ArchiveError:
    """The refusal of this file (or of saving it), for `reason`."""
    if self.saving:
      return ArchiveError(f"refusing to save the {self.what} {self.path}: {reason}")
    return ArchiveError(refusal(self.path, self.what, reason))


def refusal(path, what: str, reason: str) -> str:
  return f"{path} is not a valid {what}: {reason}"


def digest(members: dict[str, np.ndarray]) -> str:
  """The SHA-256 (hex) of `members` (name -> array, `metadata` included, `sha256` excluded): for
  each in name order, its name, dtype, shape and C-ordered bytes."""
  sha = hashlib.sha256()
  for name in sorted(members):
    if name == DIGEST:
      continue
    array = np.ascontiguousarray(members[name])
    header = json.dumps([name, array.dtype.str, list(array.shape)])
    sha.update(len(header).to_bytes(8, "little") + header.encode("utf-8"))
    data = array.tobytes()
    sha.update(len(data).to_bytes(8, "little") + data)
  return sha.hexdigest()


def _members(arrays: dict[str, np.ndarray], metadata: dict) -> dict[str, np.ndarray]:
  members = {name: np.asarray(value) for name, value in arrays.items()}
  for name, array in members.items():
    if array.dtype.hasobject:
      raise ValueError(f"array {name!r} holds Python objects, which a policy file cannot store")
  members[METADATA] = np.array(json.dumps({**metadata, MARK: DIGEST}, sort_keys=True,
                                          allow_nan=False))
  return members


def file_digest(arrays: dict[str, np.ndarray], metadata: dict) -> str:
  """The digest a file saved with `arrays` and `metadata` carries."""
  return digest(_members(arrays, metadata))


def save(path: str | os.PathLike, arrays: dict[str, np.ndarray], metadata: dict) -> str:
  """Writes `arrays` and `metadata` (JSON, no NaN) with their digest to `path`, through a
  temporary file beside it that is synced to the disk before it replaces `path`: a failed or
  interrupted write leaves the file that was there. Returns the digest."""
  if DIGEST in arrays or METADATA in arrays:
    raise ValueError(f"array names {DIGEST!r} and {METADATA!r} are the archive's own")
  members = _members(arrays, metadata)
  members[DIGEST] = np.array(digest(members))
  path = os.fspath(path)
  temp = os.path.join(os.path.dirname(path) or ".",
                      f".{os.path.basename(path)}.{os.getpid()}.tmp")
  try:
    with open(temp, "wb") as file:
      np.savez_compressed(file, **members)
      file.flush()
      os.fsync(file.fileno())
    os.replace(temp, path)
  except BaseException:
    try:
      os.remove(temp)
    except OSError:
      pass
    raise
  _sync_folder(os.path.dirname(path) or ".")
  return str(members[DIGEST])


def _sync_folder(folder: str) -> None:
  """Syncs the rename in `folder` to the disk, where the system allows it."""
  try:
    fd = os.open(folder, os.O_RDONLY)
  except OSError:
    return
  try:
    os.fsync(fd)
  except OSError:
    pass
  finally:
    os.close(fd)


def load(path: str | os.PathLike, what: str, legacy: bool = False) -> Archive:
  """The archive at `path`, its digest checked (unless `legacy`, which reads a file saved before
  digests, for `experiments.resave` alone); an `ArchiveError` naming `path` as no valid `what`
  and saying why otherwise."""
  path = os.fspath(path)
  members = _read_members(path, what)
  if METADATA not in members:
    raise ArchiveError(refusal(path, what, f"it holds no {METADATA!r} member"))
  stored = members.pop(DIGEST, None)
  found = digest(members)
  if stored is not None and (stored.shape != () or stored.dtype.kind != "U" or
                             str(stored) != found):
    raise ArchiveError(refusal(path, what, "its content does not match its SHA-256 digest (the"
                               " file was changed or damaged after it was written)"))
  text = members.pop(METADATA)
  try:
    if text.shape != () or text.dtype.kind != "U":
      raise ValueError("it is not one text")
    metadata = json.loads(str(text))
  except ValueError as e:
    raise ArchiveError(refusal(path, what, f"its metadata is not JSON ({e})")) from None
  if not isinstance(metadata, dict):
    raise ArchiveError(refusal(path, what, "its metadata is not a JSON object"))
  marked = metadata.pop(MARK, None) == DIGEST
  if stored is None and marked:  # saved with a digest, which is gone
    raise ArchiveError(refusal(path, what, f"its {DIGEST!r} member is missing (the file was"
                               " changed or damaged after it was written)"))
  if stored is None and not legacy:
    raise ArchiveError(f"{path} was saved before {what}s carried a digest of their content, so"
                       f" it cannot be checked; re-save it with `{RESAVE} {path}` (which checks"
                       " every value as a load does), or train it again")
  return Archive(path, what, members, metadata, found, legacy=stored is None, marked=marked)


def _read_members(path: str, what: str) -> dict[str, np.ndarray]:
  """Every member of the .npz archive at `path`, read in full (so that any damage to a member
  shows here); one ArchiveError for whatever the zip, deflate or .npy readers raise."""
  try:
    with open(path, "rb") as file:
      magic = file.read(len(_ZIP_MAGIC))
  except OSError as e:
    raise ArchiveError(f"{path} ({what}) cannot be read: {e.strerror or e}") from None
  if magic != _ZIP_MAGIC:
    raise ArchiveError(refusal(path, what, "it is not a numpy .npz archive (it does not begin as"
                                           " a zip file)"))
  try:
    with np.load(path, allow_pickle=False) as data:
      return {name: data[name] for name in data.files}
  # The zip, zlib and .npy readers raise many types on damaged input (BadZipFile, zlib.error,
  # EOFError, KeyError, ValueError for a pickle, SyntaxError or TokenError in a header,
  # RuntimeError, NotImplementedError, MemoryError for a huge shape...): all of them mean the same.
  except Exception as e:  # pylint: disable=broad-exception-caught
    reason = "it holds pickled data, which is never loaded" if "pickle" in str(e) else \
        f"its archive is damaged ({type(e).__name__}: {e})"
    raise ArchiveError(refusal(path, what, reason)) from None


def check_array(archive: Archive, name: str, kinds: str, ndim: int | None,
                length: int | None = None) -> np.ndarray:
  """Member `name` of `archive`, refused unless present, of a dtype kind in `kinds` ("f", "i",
  "U"...), with `ndim` dimensions and, if given, `length` entries along the first."""
  if name not in archive.arrays:
    raise archive.error(f"it holds no {name!r} array")
  array = archive.arrays[name]
  if array.dtype.kind not in kinds:
    raise archive.error(f"its {name!r} array has dtype {array.dtype}, not the expected kind")
  if ndim is not None and array.ndim != ndim:
    raise archive.error(f"its {name!r} array has {array.ndim} dimensions, not {ndim}")
  if length is not None and len(array) != length:
    raise archive.error(f"its {name!r} array has {len(array)} entries, not {length}")
  return array


def check_finite(archive: Archive, name: str, values: np.ndarray, non_negative: bool) -> None:
  """Refuses `archive` unless its `name` values are finite and, if `non_negative`, at least 0."""
  bad = ~np.isfinite(values)
  if non_negative:
    bad |= values < 0
  if bad.any():
    first = int(np.flatnonzero(bad)[0])
    raise archive.error(f"its {name!r} values are not all finite"
                        + (" and non-negative" if non_negative else "")
                        + f" ({int(bad.sum())} are not; the first, at {first}, is"
                        f" {values.flat[first]!r})")
