"""Named reduced configurations of the drafting games, small enough to solve exactly.

The full games are far beyond exact methods; these keep the rules and shrink the deck, the hands
and the number of rounds. All deal whole hands as one chance outcome (`deal=hand`), which gives
much smaller trees than dealing card by card and the same distribution over games. Two-player ones
score `utility=margin` (zero sum), so they have a game value; the three-player one keeps points.

Sizes and solve times, measured with `python -m solvers.equilibrium_bench --sizes` on the
development machine (2 shared cores): histories are the nodes of the simultaneous game, chance and
terminal included; the turn-based tree of `solvers.game_tree` has one more node per player and
partial choice of a turn. The tree build walks the rules once; the sequence-form LP
(`solvers.sequence_form`) gives the exact value and an equilibrium of the two-player ones.

  name           histories  info sets per player   tree build  LP      what it is for
  tiny                 259  68 / 68                  0.01 s    0.02 s  unit tests, readable
  small             42,568  12,947 / 12,947          1.8 s     3.9 s   exact solution in seconds
  medium           274,874  78,320 / 78,320          14 s      26 s    small plus two Wasabi
  large          1,288,252  350,770 / 350,770        75 s      290 s   exact solution in minutes
  chopsticks       165,077  32,089 / 32,089          4.8 s     6.1 s   Chopsticks, Wasabi, Maki
  pudding           57,123  18,037 / 18,037          1.2 s     1.2 s   two rounds with Pudding
  three_players      2,218  427 / 427 / 427          0.06 s    -       three players, NashConv
  robot              1,937  190 / 110                0.03 s    0.01 s  robot variant, asymmetric
  draft             10,365  970 / 970                0.30 s    0.10 s  Sushi Draft
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
