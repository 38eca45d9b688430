"""Random playouts per second of Sushi Draft's standard game: the compiled core
(`CompiledSushiDraft.playout_many`) beside the Python engine, timed as `compiled.bench` times them.
The caller passes the Python engine in: `report(rollouts.playout, rollouts.RandomPolicy)`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sushigo_spiel.compiled import bench
from sushigo_spiel.compiled.sushi_draft.core import CompiledSushiDraft
from sushigo_spiel.sushi_draft.dynamics import DYNAMICS


def report(playout: Callable, random_policy: Callable, players=(3, 5), file=sys.stdout) -> None:
  """Prints random full games per second for the core and the Python engine, and their ratio."""
  bench.report("the standard game of Sushi Draft", CompiledSushiDraft, DYNAMICS, playout,
               random_policy, players, file)
