"""Re-saves policy files, blueprints and linear Q models written before files carried a digest.

  python -m experiments.resave PATH [PATH ...]

Each file is read without its digest (there is none to check), every value is checked as a load
checks it (a file that fails is refused and left as it is), and the same arrays and metadata are
written back atomically with the digest of their content (`solvers.archives`). A blueprint saved
before blueprints kept a valuation gets the empty one of `cards`, which it was trained with. The
file then loads as before, and every later change to it is refused. A file that already carries a
digest is checked and left as it is.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from solvers import archives
from solvers.equilibrium import blueprint, policies
from solvers.linear_q import WHAT as MODEL, LinearQ, check_model


def resave(path: str) -> str:
  """Re-saves the file at `path` with its digest (see the module docstring); returns what was
  done, as a sentence. A ValueError naming the file if it is no valid file of any kind."""
  archive = archives.load(path, "policy, blueprint or linear Q model file", legacy=True)
  arrays = archive.arrays
  if "average_slots" in arrays:
    archive.what, load = blueprint.WHAT, blueprint.load_blueprint
    arrays.setdefault("valuation", np.zeros(0))
    blueprint.blueprint_from_archive(archive)
  elif "weights" in arrays:
    archive.what, load = MODEL, LinearQ.load
    check_model(archive)
  else:
    archive.what, load = policies.WHAT, policies.load_policy
    policies.policy_from_archive(archive)
  if not archive.legacy and archive.marked:
    return f"{path} carries its digest already ({archive.digest}); left as it is"
  written = archives.save(path, arrays, archive.metadata)
  load(path)  # reads back as every later load will
  return f"{path} re-saved with its digest {written}"


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("paths", nargs="+", metavar="PATH")
  args = parser.parse_args(argv)
  failed = 0
  for path in args.paths:
    try:
      print(resave(path))
    except ValueError as e:
      print(f"error: {e}", file=sys.stderr)
      failed += 1
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
