"""Sushi Draft: the cards and chips (`cards`), rules (`rules`) and what a player knows
(`knowledge`), all pure Python, declared as `DYNAMICS`; the OpenSpiel game (`game`) and its
observer (`observer`) on top. Importing it registers `python_sushi_draft`.
"""

from sushigo_spiel.sushi_draft.dynamics import DYNAMICS
from sushigo_spiel.sushi_draft.game import RoundRecord, SushiDraftGame, SushiDraftState
from sushigo_spiel.sushi_draft.observer import SushiDraftObserver

__all__ = ["DYNAMICS", "RoundRecord", "SushiDraftGame", "SushiDraftObserver", "SushiDraftState"]
