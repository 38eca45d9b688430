"""One game between bots: the loop every experiment and evaluation plays games with.

Chance outcomes are drawn by their probabilities from the caller's numpy Generator; at a
simultaneous node every bot answers for its own player from the same state, and the joint action
is applied at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from sushigo_spiel.drafting.sampling import draw_index


def play_match(game: pyspiel.Game, bots: Sequence[pyspiel.Bot],
               chance: np.random.Generator) -> pyspiel.State:
  """Plays `game` to the end with `bots[p]` choosing for player p; returns the final state."""
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[draw_index(probabilities, chance.random)])
    else:
      state.apply_actions([bot.step(state) for bot in bots])
  return state
