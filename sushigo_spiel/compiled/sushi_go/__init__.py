"""Sushi Go's compiled core: the kernels (`chance`, `moves`, `scoring`, `knowledge`, `heuristic`,
`policies`) over the position layout of `layout`, the exact `codec` to and from the rules' `Table`,
the Python-facing `CompiledSushiGo` (`core`) and the benchmarks (`bench`)."""

from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo

__all__ = ["CompiledSushiGo"]
