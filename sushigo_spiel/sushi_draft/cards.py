"""The Sushi Draft cards and scoring chips: names, short codes, deck counts and chip values.

Canonical names are the English names of the rule specification; they are what action strings and
docs use. Short codes are lower-case words that survive an OpenSpiel game string (no comma, no
space): the `deck` parameter is `tuna:8/shrimp:7/...` and the `chips` parameter
`tuna:3.4.5/shrimp:2.4.4/.../dessert:2.3.5`.

Card numbers are positions in `CARDS`: the five sushi types, then the Wild, always last. Chip pile
numbers are the sushi card numbers, then `DESSERT`.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class DraftCard:
  name: str
  code: str
  count: int  # copies in the 32-card box


CARDS: tuple[DraftCard, ...] = (
    DraftCard("Tuna Nigiri", "tuna", 8),
    DraftCard("Shrimp & Avocado Roll", "shrimp", 7),
    DraftCard("Salmon Roll", "salmon", 6),
    DraftCard("Cucumber Maki", "cucumber", 5),
    DraftCard("Mackerel Temaki", "mackerel", 4),
    DraftCard("Wild", "wild", 2),
)

NUM_TYPES = len(CARDS)
WILD = NUM_TYPES - 1
NUM_SUSHI = WILD  # the sushi types, each with its chip pile
DESSERT = NUM_SUSHI  # the pile number of the Dessert chips
NUM_PILES = NUM_SUSHI + 1

BY_CODE: dict[str, int] = {card.code: c for c, card in enumerate(CARDS)}
PILE_NAMES: tuple[str, ...] = tuple(card.name for card in CARDS[:NUM_SUSHI]) + ("Dessert",)
PILE_CODES: tuple[str, ...] = tuple(card.code for card in CARDS[:NUM_SUSHI]) + ("dessert",)

# Chip values per pile. The rulebook does not print them: these come from a public fan
# implementation and are only partly confirmed by a published preview, so they are uncertain and
# the `chips` parameter can replace them. A type's pile follows its card count (8-card type 3,4,5;
# 7-card 2,4,4; 6-card 2,2,4; 5-card 1,3,3; 4-card 1,2,3), and Dessert is 2,3,5.
DEFAULT_CHIPS: tuple[tuple[int, ...], ...] = (
    (3, 4, 5), (2, 4, 4), (2, 2, 4), (1, 3, 3), (1, 2, 3), (2, 3, 5))
