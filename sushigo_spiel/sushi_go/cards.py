"""The Sushi Go cards: the one place where names, short codes, deck counts and card values live.

Canonical names are the English names of docs/rules.md; they are what action strings, tableaus and docs
use. Short codes are lower-case words that survive an OpenSpiel game string (no comma, no space),
used by the `deck` parameter: `deck=tempura:4/sashimi:3/squid:2`.
"""

from __future__ import annotations

import dataclasses
import enum


class Kind(enum.Enum):
  """How a card scores (see `scoring.py`)."""
  TEMPURA = "tempura"
  SASHIMI = "sashimi"
  DUMPLING = "dumpling"
  MAKI = "maki"
  NIGIRI = "nigiri"
  WASABI = "wasabi"
  CHOPSTICKS = "chopsticks"
  PUDDING = "pudding"
  SOY_SAUCE = "soy_sauce"


@dataclasses.dataclass(frozen=True)
class Card:
  name: str
  code: str
  count: int  # copies in the standard 108-card deck
  kind: Kind
  value: int = 0  # maki icons, or nigiri points before Wasabi


CARDS: tuple[Card, ...] = (
    Card("Tempura", "tempura", 14, Kind.TEMPURA),
    Card("Sashimi", "sashimi", 14, Kind.SASHIMI),
    Card("Dumpling", "dumpling", 14, Kind.DUMPLING),
    Card("Maki Roll 1", "maki1", 6, Kind.MAKI, 1),
    Card("Maki Roll 2", "maki2", 12, Kind.MAKI, 2),
    Card("Maki Roll 3", "maki3", 8, Kind.MAKI, 3),
    Card("Egg Nigiri", "egg", 5, Kind.NIGIRI, 1),
    Card("Salmon Nigiri", "salmon", 10, Kind.NIGIRI, 2),
    Card("Squid Nigiri", "squid", 5, Kind.NIGIRI, 3),
    Card("Wasabi", "wasabi", 6, Kind.WASABI),
    Card("Chopsticks", "chopsticks", 4, Kind.CHOPSTICKS),
    Card("Pudding", "pudding", 10, Kind.PUDDING),
    # Not in the 108-card deck: the Soy Sauce variant adds its cards (`soy_sauce=true`).
    Card("Soy Sauce", "soy", 0, Kind.SOY_SAUCE),
)

BY_NAME: dict[str, Card] = {card.name: card for card in CARDS}
BY_CODE: dict[str, Card] = {card.code: card for card in CARDS}

STANDARD_DECK_SIZE = sum(card.count for card in CARDS)
SOY_SAUCE = BY_CODE["soy"]

# Cards dealt to each player per round, by player count (docs/rules.md, "Setup and flow").
HAND_SIZE_BY_PLAYERS: dict[int, int] = {2: 10, 3: 9, 4: 8, 5: 7}


def card_named(name: str) -> Card:
  """The card with this canonical name; a clear error for any other string."""
  try:
    return BY_NAME[name]
  except KeyError:
    allowed = ", ".join(repr(card.name) for card in CARDS)
    raise ValueError(f"unknown card name {name!r}; allowed: {allowed}") from None
