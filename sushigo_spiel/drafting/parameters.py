"""Game parameters both drafting games share, and the parser of their `code:count` items.

Game strings split on commas, so list-valued parameters use `/` between items and `.` between
numbers: `deck=tempura:4/sashimi:3`, `chips=tuna:3.4.5/shrimp:2.4.4`. Every error names the
parameter, the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Container, Iterator

from sushigo_spiel.drafting.dynamics import MAX_PLAYERS, MIN_PLAYERS

DEAL_MODES = ("card", "hand")
UTILITIES = ("score", "margin", "win")
MAX_COUNT = 999  # the largest count or value an item may give (the real games stay below 15)


def check_common_parameters(players: int, rounds: int, deal: str, utility: str) -> None:
  """The parameters both drafting games share."""
  if not MIN_PLAYERS <= players <= MAX_PLAYERS:
    raise ValueError(
        f"parameter 'players' is {players}; allowed: {MIN_PLAYERS} to {MAX_PLAYERS}")
  if rounds < 1:
    raise ValueError(f"parameter 'rounds' is {rounds}; allowed: 1 or more")
  if deal not in DEAL_MODES:
    raise ValueError(f"parameter 'deal' is {deal!r}; allowed: {', '.join(DEAL_MODES)}")
  if utility not in UTILITIES:
    raise ValueError(f"parameter 'utility' is {utility!r}; allowed: {', '.join(UTILITIES)}")


def parse_items(name: str, spec: str, codes: Container[str], example: str
                ) -> Iterator[tuple[str, list[int]]]:
  """The `code:n` or `code:n.n.n` items of parameter `name`, as (code, [n, ...]).

  `codes` are the allowed codes (iterated for the error message); `example` is a well-formed item
  shown when one is not. A code given twice, or a number above `MAX_COUNT`, is refused.
  """
  given = set()
  for item in spec.split("/"):
    code, sep, numbers = item.strip().partition(":")
    if code not in codes:
      raise ValueError(f"parameter '{name}': unknown code {code!r} in {spec!r}; allowed codes:"
                       f" {'/'.join(codes)} (format as in {example!r}, or 'standard')")
    values = numbers.split(".")
    if not sep or not all(v.strip().isdigit() for v in values):
      raise ValueError(f"parameter '{name}': {item!r} in {spec!r} needs non-negative whole"
                       f" numbers, as in {example!r}")
    numbers = [int(v) for v in values]
    if code in given:
      raise ValueError(f"parameter '{name}': {code!r} is repeated in {spec!r}; allowed: each code"
                       " once")
    if max(numbers) > MAX_COUNT:
      raise ValueError(f"parameter '{name}': {item!r} in {spec!r} has {max(numbers)}; allowed:"
                       f" 0 to {MAX_COUNT}")
    given.add(code)
    yield code, numbers
