"""A finished game's returns from its final scores, as a kernel both games' cores share: the
counterpart of `drafting.dynamics.utilities`, with the utility modes coded by their place in
`drafting.parameters.UTILITIES` (a spec holds the code). `WIN_TIE_BREAK` is the margin's weight in
what a searcher playing for the win values a finished game at."""

from __future__ import annotations

from sushigo_spiel.compiled.jit import njit
from sushigo_spiel.drafting.parameters import UTILITIES

SCORE, MARGIN, WIN = (UTILITIES.index(name) for name in ("score", "margin", "win"))
# Every searcher playing for the win (ISMCTS, PIMC's world solvers, the subgame solver) values a
# finished game at its win share plus WIN_TIE_BREAK times its margin: where win shares tie (a game
# won, or lost, whatever the pick) the larger margin is preferred, where they do not the margin
# hardly counts. A gap of 100 points of margin weighs 0.1, under the smallest step of a win
# estimate over the subgame bot's default 2 playouts (half a tie over 2: 0.25).
WIN_TIE_BREAK = 0.001


@njit
def utilities(utility, scores, winners, out):
  """Fills `out` by the utility mode: `SCORE` the points, `MARGIN` own points minus the mean of
  the others', `WIN` 1 shared by the players whose `winners` entry is true."""
  n = len(scores)
  total, winner_count = scores.sum(), winners.sum()
  for p in range(n):
    if utility == SCORE:
      out[p] = scores[p]
    elif utility == MARGIN:
      out[p] = scores[p] - (total - scores[p]) / (n - 1)
    else:
      out[p] = 1.0 / winner_count if winners[p] else 0.0
