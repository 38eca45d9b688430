"""Sushi Go's compiled core: the kernels (`chance`, `moves`, `scoring`, `knowledge`, `policies`,
`observation`) over the position layout of `layout`, the exact `codec` to and from the rules'
`Table`, and the Python-facing `CompiledSushiGo` (`core`)."""

from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo

__all__ = ["CompiledSushiGo"]
