"""The compiled game cores: each game's dynamics as numba kernels over flat integer arrays.

A second implementation of each game's `rules` and `knowledge`, for speed; the readable rules stay
the reference, and differential tests hold the two equal step for step on one random stream (`rng`).
Subpackages `sushi_go` and `sushi_draft` hold each game's layout, kernels, codec (`Table` <->
position, exactly) and core (`CompiledSushiGo`, `CompiledSushiDraft`); `interface` is the kernel
interface they provide, `core` the checked Python-facing class both share, `jit` the numba import.
Only the games' rules live here: search, CFR and policies are solver kernels calling `interface`.

Importing this package needs numba (an ImportError says what to install); a game's kernels compile
on its first core in an environment, once. See docs/layout.md, "The compiled cores".
"""

from sushigo_spiel.compiled.rng import Xoshiro256, new_state
from sushigo_spiel.compiled.sushi_draft.core import CompiledSushiDraft
from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo

__all__ = ["CompiledSushiDraft", "CompiledSushiGo", "Xoshiro256", "new_state"]
