"""Sushi Go: the cards (`cards`), scoring (`scoring`), rules (`rules`) and what a player knows
(`knowledge`), all pure Python, declared as `DYNAMICS`; the OpenSpiel game (`game`) and its
observer (`observer`) on top. Importing it registers `python_sushi_go`.
"""

from sushigo_spiel.sushi_go.dynamics import DYNAMICS
from sushigo_spiel.sushi_go.game import RoundRecord, SushiGoGame, SushiGoState
from sushigo_spiel.sushi_go.observer import SushiGoObserver

__all__ = ["DYNAMICS", "RoundRecord", "SushiGoGame", "SushiGoObserver", "SushiGoState"]
