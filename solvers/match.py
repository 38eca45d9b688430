"""One game between bots: the loop every experiment and evaluation plays games with.

Chance outcomes are drawn by their probabilities from the caller's numpy Generator; at a
simultaneous node every bot answers for its own player from the same state, and the joint action
is applied at once. A caller that wants to see the deals passes `on_chance`: it is called after
every run of consecutive chance nodes with the state before the first of them and the state after.
A caller that wants to see the moves passes `on_decision`: it is called at every simultaneous node
with the state and the joint action, before the action is applied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from sushigo_spiel.drafting.sampling import draw_index


def play_match(game: pyspiel.Game, bots: Sequence[pyspiel.Bot],
               chance: np.random.Generator,
               on_chance: Callable[[pyspiel.State, pyspiel.State], None] | None = None,
               on_decision: Callable[[pyspiel.State, list[int]], None] | None = None
               ) -> pyspiel.State:
  """Plays `game` to the end with `bots[p]` choosing for player p; returns the final state."""
  state = game.new_initial_state()
  before_chance = None
  while not state.is_terminal():
    if state.is_chance_node():
      if on_chance is not None and before_chance is None:
        before_chance = state.clone()
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[draw_index(probabilities, chance.random)])
      continue
    if before_chance is not None:
      on_chance(before_chance, state)
      before_chance = None
    actions = [bot.step(state) for bot in bots]
    if on_decision is not None:
      on_decision(state, actions)
    state.apply_actions(actions)
  return state
