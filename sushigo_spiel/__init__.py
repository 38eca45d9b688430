"""sushigo-spiel: Sushi Go as an OpenSpiel game, for imperfect-information search research.

Importing the package registers `python_sushi_go` and `python_sushi_draft` with OpenSpiel:

  import pyspiel, sushigo_spiel
  game = pyspiel.load_game("python_sushi_go(players=3)")

Layout: `drafting` holds what both games share (the declared `Dynamics`, the pyspiel adapter,
sampling, hand ranking, parameters, the conformance check); `sushi_go` and `sushi_draft` hold one
game each (cards, scoring, rules, knowledge, game, observer); `reduced_games` names small
configurations that exact solvers handle.
"""

from sushigo_spiel import sushi_draft, sushi_go
from sushigo_spiel.sushi_draft import SushiDraftGame, SushiDraftState
from sushigo_spiel.sushi_go import SushiGoGame, SushiGoState
from sushigo_spiel.sushi_go.scoring import score_puddings, score_round

__version__ = "0.1.0"

__all__ = ["SushiDraftGame", "SushiDraftState", "SushiGoGame", "SushiGoState", "score_puddings",
           "score_round", "sushi_draft", "sushi_go"]
