"""The compiled game cores: each game's dynamics as numba kernels over flat integer arrays.

A second implementation of each game's `rules` and `knowledge` on purpose, for speed: the readable
rules stay the reference (and back the pyspiel games), and differential tests play thousands of
games step for step through both, driven by one random stream (`rng`), so chance draws and
determinizations are compared exactly, not in distribution.

  sushi_go, sushi_draft   each game's core: layout (spec and position), kernels, codec (`Table`
                          <-> position, exactly), core (`CompiledSushiGo`, `CompiledSushiDraft`);
                          Sushi Go's observation tensors (`observation`)
  interface  the kernels every game's core provides (`GameKernels`), for compiled code above
  core       `CompiledCore`, the checked Python-facing class both games' cores share
  jit        the numba import and compiling on first use (`KernelSet`)
  rng        xoshiro256**, as kernels and as a Python `uniform`; splitmix64
  sampling, hand_ranking, utilities   kernels both games use: the rules' samplers, numbering
                          `deal=hand` outcomes, returns from scores
  spec       assembling a game's spec and reading a position's blocks

The package holds the games' rules and nothing else: search, CFR and the baselines' policies are
solver kernels (`solvers.search.kernels`, `solvers.equilibrium.kernels`,
`solvers.policy_kernels`), calling the cores through `interface`.

Importing this package needs numba (an ImportError says what to install); compiling happens on
the first core of a game in an environment, once.
"""

from sushigo_spiel.compiled.rng import Xoshiro256, new_state
from sushigo_spiel.compiled.sushi_draft.core import CompiledSushiDraft
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo

__all__ = ["CompiledSushiDraft", "CompiledSushiGo", "Xoshiro256", "new_state"]
