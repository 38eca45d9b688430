"""The compiled game core: Sushi Go's dynamics as numba kernels over flat integer arrays.

A second implementation of `sushi_go.rules` and `sushi_go.knowledge` on purpose, for speed: the
readable rules stay the reference (and back the pyspiel game), and differential tests play
thousands of games step for step through both, driven by one random stream (`rng`), so chance
draws and determinizations are compared exactly, not in distribution.

  layout     the spec (a game's rules as an int64 array) and the position array's blocks
  rng        xoshiro256**, as kernels and as a Python `uniform`
  sampling, chance, moves, scoring, knowledge, policies   the kernels
  heuristic  the heuristic baseline bot's values, choice and policy, identical to the Python bot's
  codec      `Table` <-> position, exactly
  core       `CompiledSushiGo`, the Python-facing class; compiling on first use
  bench      random playouts and heuristic decisions per second, core beside the Python engine

Importing this package needs numba (an ImportError says what to install); compiling happens on
the first `CompiledSushiGo`, once per environment.
"""

from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo
from sushigo_spiel.compiled.rng import Xoshiro256, new_state

__all__ = ["CompiledSushiGo", "Xoshiro256", "new_state"]
