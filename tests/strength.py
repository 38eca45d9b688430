"""Seeded strength claims: does a bot win more often than chance against given opponents?

A claim plays a fixed set of seeded games, the bot under test moving from seat to seat, and
requires the lower end of the Wilson score interval of its win rate (z = 3.29, 99.9% two-sided)
to clear a bar, usually the chance rate 1 / players. The games are seeded, so a claim passes or
fails the same way on every run; the bound makes the claim one a bot at chance level would
refute by luck about once in a thousand seed choices, not one that holds by luck.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import solvers
from solvers.match import play_match

Z_999 = 3.29


def wilson_lower_bound(successes: int, trials: int, z: float = Z_999) -> float:
  """The lower end of the Wilson score interval for a binomial proportion."""
  p = successes / trials
  centre = p + z * z / (2 * trials)
  spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
  return (centre - spread) / (1 + z * z / trials)


def games_won(game, bot: tuple[str, dict], opponents: Sequence[tuple[str, dict]], games: int,
              seed: int, outright: bool = True) -> int:
  """Games that `bot` (name, params) wins: it scores more than every opponent (`outright`), or
  more than the opponents' mean score. It sits in seat g % players in game g, the opponents
  (cycled) in the other seats; game g draws chance from `numpy.random.default_rng([seed, g])`."""
  players = game.num_players()
  wins = 0
  for g in range(games):
    seat = g % players
    lineup = [opponents[(p - seat - 1) % len(opponents)] for p in range(players)]
    lineup[seat] = bot
    bots = [solvers.make_bot(name, game, p, seed * 1000 + g * players + p, **params)
            for p, (name, params) in enumerate(lineup)]
    scores = play_match(game, bots, np.random.default_rng([seed, g])).scores()
    others = scores[:seat] + scores[seat + 1:]
    wins += scores[seat] > (max(others) if outright else sum(others) / len(others))
  return wins
