"""A second scorer, written from the rules as docs/rules.md states them and not from the
package, for the tests to hold the game's scoring against.

It is deliberately built another way than `sushigo_spiel.sushi_go.scoring`: card values are looked
up by name in tables copied from docs/rules.md, a Nigiri is matched to a Wasabi by pairing each
Wasabi with the first later Nigiri still unpaired, and a Maki or Pudding award is decided for one
player at a time by counting who has more. One scoring mistake in the package therefore disagrees with this
module on many tableaus, and the tests that compare the two fail together.

Sushi Draft's chips are awarded here too: by sorting the players by count and passing over ties,
per docs/rules.md ("Scoring chips").

Soy Sauce colours follow the grouping the package documents (docs/rules.md leaves the choice to it,
docs/variants-and-sushi-draft.md states it): one colour per scoring family, the three Maki Rolls
sharing one and the three Nigiri another.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

NIGIRI_POINTS = {"Egg Nigiri": 1, "Salmon Nigiri": 2, "Squid Nigiri": 3}
MAKI_ICONS = {"Maki Roll 1": 1, "Maki Roll 2": 2, "Maki Roll 3": 3}
DUMPLINGS_TO_POINTS = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10}  # 5 or more: 15
DUMPLING_CAP_POINTS = 15
COLOUR = {  # the colour grouping of the Soy Sauce variant
    "Tempura": "tempura", "Sashimi": "sashimi", "Dumpling": "dumpling",
    **{name: "maki" for name in MAKI_ICONS}, **{name: "nigiri" for name in NIGIRI_POINTS},
    "Wasabi": "wasabi", "Chopsticks": "chopsticks", "Pudding": "pudding", "Soy Sauce": "soy sauce",
}
CATEGORIES = ("maki", "tempura", "sashimi", "dumpling", "nigiri")


def nigiri_on_wasabi(tableau: Sequence[str]) -> set[int]:
  """Positions of the Nigiri sitting on a Wasabi: each Wasabi takes the first Nigiri placed after
  it that no earlier Wasabi took."""
  taken = set()
  for w, name in enumerate(tableau):
    if name != "Wasabi":
      continue
    for n in range(w + 1, len(tableau)):
      if tableau[n] in NIGIRI_POINTS and n not in taken:
        taken.add(n)
        break
  return taken


def free_wasabi(tableau: Sequence[str]) -> int:
  """Wasabi still waiting for a Nigiri."""
  return tableau.count("Wasabi") - len(nigiri_on_wasabi(tableau))


def nigiri_points(tableau: Sequence[str]) -> int:
  """A Nigiri on a Wasabi scores triple, every other Nigiri its face value."""
  tripled = nigiri_on_wasabi(tableau)
  return sum(NIGIRI_POINTS[name] * (3 if i in tripled else 1)
             for i, name in enumerate(tableau) if name in NIGIRI_POINTS)


def dumpling_points(count: int) -> int:
  return DUMPLINGS_TO_POINTS.get(count, DUMPLING_CAP_POINTS)


def maki_points(icons: Sequence[int]) -> list[int]:
  """Per player: 6 shared by the most icons; 3 shared by the second most when exactly one player
  has more; nothing without an icon. Example of the rulebook: 5, 3, 3, 2 -> 6, 1, 1, 0."""
  points = []
  for mine in icons:
    ahead = sum(1 for other in icons if other > mine)
    level = icons.count(mine)
    if mine == 0 or ahead > 1:
      points.append(0)
    elif ahead == 0:
      points.append(6 // level)
    else:
      points.append(3 // level)
  return points


def soy_sauce_points(tableaus: Sequence[Sequence[str]]) -> list[int]:
  """4 to a player holding a Soy Sauce whose colours are as many as anyone's at the table."""
  colours = [len({COLOUR[name] for name in tableau}) for tableau in tableaus]
  return [4 if "Soy Sauce" in tableau and colours[p] == max(colours) else 0
          for p, tableau in enumerate(tableaus)]


def round_categories(tableaus: Sequence[Sequence[str]], soy_sauce: bool = False
                     ) -> list[dict[str, int]]:
  """Points per player and category for one round's tableaus (card names, placement order).

  Every tableau at the table competes for Maki and Soy Sauce (the robot's too, when given)."""
  maki = maki_points([sum(MAKI_ICONS.get(name, 0) for name in t) for t in tableaus])
  soy = soy_sauce_points(tableaus)
  result = []
  for p, tableau in enumerate(tableaus):
    counts = Counter(tableau)
    points = {"maki": maki[p], "tempura": 5 * (counts["Tempura"] // 2),
              "sashimi": 10 * (counts["Sashimi"] // 3),
              "dumpling": dumpling_points(counts["Dumpling"]), "nigiri": nigiri_points(tableau)}
    if soy_sauce:
      points["soy_sauce"] = soy[p]
    result.append(points)
  return result


def round_points(tableaus: Sequence[Sequence[str]], soy_sauce: bool = False) -> list[int]:
  return [sum(points.values()) for points in round_categories(tableaus, soy_sauce)]


def pudding_points(counts: Sequence[int]) -> list[int]:
  """Per player: +6 shared by the most Puddings, -6 shared by the fewest (not with two players),
  remainders dropped; nothing when everyone has as many. Example: 4, 3, 0, 0 -> 6, 0, -3, -3."""
  if min(counts) == max(counts):
    return [0] * len(counts)
  points = []
  for mine in counts:
    award = 0
    if mine == max(counts):
      award += 6 // counts.count(mine)
    if mine == min(counts) and len(counts) >= 3:
      award -= 6 // counts.count(mine)
    points.append(award)
  return points


def winners(totals: Sequence[int], puddings: Sequence[int]) -> list[int]:
  """Highest total; among the tied, more Puddings; whoever is still tied shares the win."""
  ranked = sorted(range(len(totals)), key=lambda p: (totals[p], puddings[p]), reverse=True)
  best = (totals[ranked[0]], puddings[ranked[0]])
  return sorted(p for p in ranked if (totals[p], puddings[p]) == best)


def game_scores(rounds: Sequence[Sequence[Sequence[str]]], players: int,
                soy_sauce: bool = False) -> list[int]:
  """Final points per player from every round's tableaus (a robot's tableau, if any, last in each
  round: it competes for Maki, Soy Sauce and Pudding but has no score of its own)."""
  totals = [0] * players
  puddings = [0] * len(rounds[0])
  for tableaus in rounds:
    for p, points in enumerate(round_points(tableaus, soy_sauce)[:players]):
      totals[p] += points
    for p, tableau in enumerate(tableaus):
      puddings[p] += tableau.count("Pudding")
  return [t + b for t, b in zip(totals, pudding_points(puddings)[:players])]


def utility_of(utility: str, scores: Sequence[float], puddings: Sequence[int]) -> list[float]:
  """The returns of a finished game by utility mode, from docs/rules.md and the game's docstring."""
  n = len(scores)
  if utility == "score":
    return [float(s) for s in scores]
  if utility == "margin":
    return [s - (sum(scores) - s) / (n - 1) for s in scores]
  won = winners(scores, puddings)
  return [1 / len(won) if p in won else 0.0 for p in range(n)]


# --------------------------------------------------------------------------------------------
# Sushi Draft


def draft_counts(eaten: Sequence[Sequence[str]], types: Sequence[str], wild_half: bool = False
                 ) -> dict[str, list[float]]:
  """For each pile (each sushi type by name, then "Dessert") each player's count: cards eaten of
  the type (a Wild, written "Wild as <type>", counts as the type it copies, half a card with the
  advanced rule), or for Dessert the number of different types eaten."""
  piles = {name: [0.0] * len(eaten) for name in types}
  piles["Dessert"] = [0.0] * len(eaten)
  for p, cards in enumerate(eaten):
    kinds = set()
    for card in cards:
      is_wild = card.startswith("Wild as ")
      kind = card[len("Wild as "):] if is_wild else card
      piles[kind][p] += 0.5 if (is_wild and wild_half) else 1.0
      kinds.add(kind)
    piles["Dessert"][p] = len(kinds)
  return piles


def chip_taker(counts: Sequence[float]) -> int | None:
  """Who takes a pile's chip: the players are ranked by count; a rank shared by several players
  is passed over, and the first rank held by one player with a count above zero takes it."""
  ranked = sorted(set(counts), reverse=True)
  for count in ranked:
    if count <= 0:
      return None
    holders = [p for p, c in enumerate(counts) if c == count]
    if len(holders) == 1:
      return holders[0]
  return None
