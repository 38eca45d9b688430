"""Sushi Go scoring as pure functions: round scoring and end-of-game Pudding scoring.

Tableaus are lists of canonical card names in placement order; placement order matters only for
Wasabi (a Nigiri goes onto a free Wasabi placed before it). All points are exact integers; shared
awards are split evenly with the remainder dropped, as the rulebooks say.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sushigo_spiel.sushi_go.cards import Card, Kind, card_named

TEMPURA_SET_SIZE, TEMPURA_SET_POINTS = 2, 5
SASHIMI_SET_SIZE, SASHIMI_SET_POINTS = 3, 10
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)  # by count; 5 or more score the last entry
WASABI_MULTIPLIER = 3
MAKI_AWARDS = (6, 3)  # most icons, second most
PUDDING_AWARD = 6  # most Puddings gain it, fewest lose it (fewest only with 3+ players)
SOY_SAUCE_POINTS = 4  # Soy Sauce variant: for one Soy Sauce, with the most colours at the table

CATEGORIES = ("maki", "tempura", "sashimi", "dumpling", "nigiri")
SOY_SAUCE_CATEGORY = "soy_sauce"


class TableauTally(NamedTuple):
  """What one round's tableau is worth before the Maki comparison."""
  tempura: int = 0
  sashimi: int = 0
  dumpling: int = 0
  maki_icons: int = 0
  nigiri_points: int = 0  # Wasabi already applied
  puddings: int = 0
  soy_sauces: int = 0
  colours: int = 0  # distinct card colours (scoring families), see `soy_sauce_points`


_NIGIRI, _WASABI, _MAKI, _TEMPURA, _SASHIMI, _DUMPLING, _PUDDING, _SOY_SAUCE = (
    Kind.NIGIRI, Kind.WASABI, Kind.MAKI, Kind.TEMPURA, Kind.SASHIMI, Kind.DUMPLING, Kind.PUDDING,
    Kind.SOY_SAUCE)


def tally(cards: Iterable[Card]) -> TableauTally:
  """Counts a tableau given in placement order, putting each Nigiri on a free Wasabi if any."""
  tempura = sashimi = dumpling = maki = nigiri = puddings = soy_sauces = free_wasabi = 0
  colours = set()
  for card in cards:
    kind = card.kind
    colours.add(kind)  # a card's colour is its family
    if kind is _NIGIRI:
      if free_wasabi:
        free_wasabi -= 1
        nigiri += WASABI_MULTIPLIER * card.value
      else:
        nigiri += card.value
    elif kind is _WASABI:
      free_wasabi += 1
    elif kind is _MAKI:
      maki += card.value
    elif kind is _TEMPURA:
      tempura += 1
    elif kind is _SASHIMI:
      sashimi += 1
    elif kind is _DUMPLING:
      dumpling += 1
    elif kind is _PUDDING:
      puddings += 1
    elif kind is _SOY_SAUCE:
      soy_sauces += 1
  return TableauTally(tempura, sashimi, dumpling, maki, nigiri, puddings, soy_sauces, len(colours))


def wasabi_points(cards: Iterable[Card]) -> int:
  """The points Wasabi adds to a tableau (in placement order): its Nigiri points, Wasabi applied,
  minus the same Nigiri's face values. The round's breakdown counts them within "nigiri"; this
  names Wasabi's share of them."""
  cards = tuple(cards)
  return tally(cards).nigiri_points - sum(card.value for card in cards if card.kind is _NIGIRI)


def soy_sauce_points(tallies: Sequence[TableauTally]) -> list[int]:
  """4 to each player who played a Soy Sauce and has the most colours at the table (ties: every
  tied Soy Sauce holder); one Soy Sauce scores per player and round.

  A card's colour is its scoring family (`Card.kind`). The rulebooks name no colours; cards of one
  family share their colour on the table (the three Maki Rolls, the three Nigiri), so each family
  counts once: Tempura, Sashimi, Dumpling, Maki, Nigiri, Wasabi, Chopsticks, Pudding and Soy
  Sauce, nine colours at most. Wasabi counts apart from the Nigiri: it is a card of its own that
  scores nothing by itself.
  """
  most = max(t.colours for t in tallies)
  return [SOY_SAUCE_POINTS if t.soy_sauces and t.colours == most else 0 for t in tallies]


def maki_points(icons: Sequence[int]) -> list[int]:
  """6 shared by the most icons; 3 shared by the second most unless the most was tied.

  A player with no icon scores nothing.
  """
  points = [0] * len(icons)
  levels = sorted({n for n in icons if n > 0}, reverse=True)
  if not levels:
    return points
  first = [p for p, n in enumerate(icons) if n == levels[0]]
  for p in first:
    points[p] = MAKI_AWARDS[0] // len(first)
  if len(first) == 1 and len(levels) > 1:
    second = [p for p, n in enumerate(icons) if n == levels[1]]
    for p in second:
      points[p] = MAKI_AWARDS[1] // len(second)
  return points


def round_breakdown(tallies: Sequence[TableauTally],
                    soy_sauce: bool = False) -> list[dict[str, int]]:
  """Points per player and category for one round: `CATEGORIES`, then `SOY_SAUCE_CATEGORY` when
  the Soy Sauce variant is played."""
  maki = maki_points([t.maki_icons for t in tallies])
  soy = soy_sauce_points(tallies) if soy_sauce else None
  return [_points_by_category(t, maki[p], None if soy is None else soy[p])
          for p, t in enumerate(tallies)]


def round_points(tallies: Sequence[TableauTally], player: int, soy_sauce: bool = False) -> int:
  """The round's points of `player`: the sum of its `round_breakdown` row, without making the
  other players' rows."""
  maki = maki_points([t.maki_icons for t in tallies])[player]
  soy = soy_sauce_points(tallies)[player] if soy_sauce else None
  return sum(_points_by_category(tallies[player], maki, soy).values())


def _points_by_category(t: TableauTally, maki: int, soy: int | None) -> dict[str, int]:
  """One player's `round_breakdown` row: its tally's points, its Maki award `maki` and, in the
  Soy Sauce variant (`soy` not None), its Soy Sauce points."""
  points = {
      "maki": maki,
      "tempura": (t.tempura // TEMPURA_SET_SIZE) * TEMPURA_SET_POINTS,
      "sashimi": (t.sashimi // SASHIMI_SET_SIZE) * SASHIMI_SET_POINTS,
      "dumpling": DUMPLING_POINTS[min(t.dumpling, len(DUMPLING_POINTS) - 1)],
      "nigiri": t.nigiri_points,
  }
  if soy is not None:
    points[SOY_SAUCE_CATEGORY] = soy
  return points


def score_round(tableaus: Sequence[Sequence[str]]) -> list[int]:
  """Round points per player; each tableau is a list of card names in placement order.

  Soy Sauce cards, if any, score as in the Soy Sauce variant.
  """
  tallies = [tally(card_named(name) for name in tableau) for tableau in tableaus]
  return [sum(b.values()) for b in round_breakdown(tallies, soy_sauce=True)]


def score_puddings(counts: Sequence[int]) -> list[int]:
  """End-of-game Pudding points per player, from each player's Pudding count.

  Most share +6, fewest (zero included) share -6, remainders dropped; nothing if all are equal;
  with two players only the +6 is awarded.
  """
  points = [0] * len(counts)
  if len(set(counts)) <= 1:
    return points
  most = [p for p, n in enumerate(counts) if n == max(counts)]
  for p in most:
    points[p] += PUDDING_AWARD // len(most)
  if len(counts) > 2:
    fewest = [p for p, n in enumerate(counts) if n == min(counts)]
    for p in fewest:
      points[p] -= PUDDING_AWARD // len(fewest)
  return points


def winners(totals: Sequence[int], puddings: Sequence[int]) -> list[int]:
  """The players who win: highest total, ties broken by more Puddings, then shared."""
  best = max(totals)
  tied = [p for p, t in enumerate(totals) if t == best]
  most = max(puddings[p] for p in tied)
  return [p for p in tied if puddings[p] == most]
