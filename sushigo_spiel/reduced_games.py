"""Named reduced configurations of the drafting games, small enough to solve exactly.

The full games are far beyond exact methods; these keep the rules and shrink the deck, the hands
and the number of rounds. All deal whole hands as one chance outcome (`deal=hand`), which gives
much smaller trees than dealing card by card and the same distribution over games. Two-player ones
score `utility=margin` (zero sum), so they have a game value; the three-player one keeps points.

Their sizes are in the documentation (docs/equilibrium.md, "Reduced games"),
printed by `python -m experiments.bench.equilibrium --sizes`.
"""

from __future__ import annotations

from typing import NamedTuple

import pyspiel


class ReducedGame(NamedTuple):
  game_string: str
  purpose: str


REDUCED_GAMES: dict[str, ReducedGame] = {
    "tiny": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=3,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1,deal=hand,utility=margin)",
        "two players, one round of three cards with Wasabi: unit tests, readable by hand"),
    "small": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=4,"
        "deck=tempura:4/sashimi:3/dumpling:3/salmon:2,deal=hand,utility=margin)",
        "two players, hands of four, sets and Nigiri: exact solution in seconds"),
    "medium": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=4,"
        "deck=tempura:4/sashimi:3/dumpling:3/salmon:2/wasabi:2,deal=hand,utility=margin)",
        "small plus two Wasabi: exact solution in under a minute"),
    "large": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=4,"
        "deck=tempura:4/sashimi:3/dumpling:3/salmon:2/wasabi:2/maki2:2,deal=hand,utility=margin)",
        "medium plus two Maki Rolls: exact solution in minutes"),
    "chopsticks": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=4,"
        "deck=chopsticks:2/wasabi:2/squid:2/maki2:2/tempura:2,deal=hand,utility=margin)",
        "two players with Chopsticks pairs (both orders of Wasabi and Nigiri), Wasabi and Maki"),
    "pudding": ReducedGame(
        "python_sushi_go(players=2,rounds=2,hand_size=3,"
        "deck=tempura:4/pudding:4/maki2:4,deal=hand,utility=margin)",
        "two rounds: Puddings scored at the end, the second deal from the cards left"),
    "three_players": ReducedGame(
        "python_sushi_go(players=3,rounds=1,hand_size=3,"
        "deck=tempura:3/maki1:3/sashimi:3,deal=hand,utility=score)",
        "three players, general sum (points): NashConv and each player's gain"),
    "robot": ReducedGame(
        "python_sushi_go(players=2,rounds=1,hand_size=2,robot=true,"
        "deck=tempura:2/sashimi:2/squid:1/wasabi:1,deal=hand,utility=margin)",
        "the two-player robot variant: asymmetric, so its game value is not zero"),
    "draft": ReducedGame(
        "python_sushi_draft(players=2,rounds=1,hand_size=3,deal=hand,"
        "deck=tuna:2/shrimp:2/salmon:2/cucumber:1/wild:1,"
        "chips=tuna:3/shrimp:2/salmon:2/cucumber:1/mackerel:1/dessert:2,utility=margin)",
        "Sushi Draft: Eat and Keep steps, a Wild, one chip per pile"),
}


def reduced_game_string(name: str) -> str:
  """The game string of reduced configuration `name`."""
  try:
    return REDUCED_GAMES[name].game_string
  except KeyError:
    raise ValueError(f"unknown reduced game {name!r}; allowed: {', '.join(REDUCED_GAMES)}"
                     ) from None


def load_reduced(name: str) -> pyspiel.Game:
  """The pyspiel game of reduced configuration `name`."""
  return pyspiel.load_game(reduced_game_string(name))
