"""Bot parameters: a bot's `PARAMETERS` (names and defaults) with the values it was given."""

from __future__ import annotations

from typing import Any


def with_defaults(bot: object, params: dict[str, Any]) -> dict[str, Any]:
  """`type(bot).PARAMETERS` updated with `params`; a ValueError names any unknown parameter."""
  defaults = type(bot).PARAMETERS
  unknown = sorted(set(params) - set(defaults))
  if unknown:
    raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for {type(bot).__name__}; "
                     f"allowed (with defaults): {defaults}")
  return {**defaults, **params}
