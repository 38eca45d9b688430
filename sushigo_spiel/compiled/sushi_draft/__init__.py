"""Sushi Draft's compiled core: the kernels (`chance`, `moves`, `scoring`, `knowledge`,
`policies`) over the position layout of `layout`, the exact `codec` to and from the rules' `Table`,
the Python-facing `CompiledSushiDraft` (`core`)."""

from sushigo_spiel.compiled.sushi_draft.core import CompiledSushiDraft

__all__ = ["CompiledSushiDraft"]
