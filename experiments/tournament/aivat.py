"""AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling, AAAI 2018): a game's scores with the
effect of chance and of the readable bots' own draws taken out, by terms of mean zero.

A seat's AIVAT estimate is its score less a correction term at every deal and at every decision of
a *readable* bot (one whose move is drawn from a policy it reports exactly: the baselines, policy
files, the blueprint; not the searches). With v(s) each seat's points, a decision term of seat i is
v(h.a) - sum over a' of pi_i(a' | h) v(h.(a', a_-i)). Each term has mean zero given what came
before, so the estimate keeps the raw score's expectation whatever v is; v only decides how much
variance goes. Here v is the luck's (`solvers.round_values.ReferenceValue`: the round's end under
each bot's reference twin on the compiled core), so the luck-only and AIVAT figures differ by the
decision terms alone. A game's `decisions`, by seat, are stored beside its `luck`; a deterministic
policy's term is zero and costs nothing, a stochastic one's costs one v per action in its support.

Why it is unbiased, the choice of v and the measured variance ratios: docs/experiments.md, "Less
noise still: AIVAT, the bots' own draws taken out".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from solvers.bot import Bot
from solvers.round_values import ReferenceValue


def readable(bot: pyspiel.Bot) -> bool:
  """Whether `bot`'s move is drawn from the policy it reports, and that policy is a quick function
  of the position (no search, no draws), so AIVAT may read it at every decision."""
  return (isinstance(bot, Bot) and bot.cheap_policy and type(bot).step is Bot.step
          and type(bot).step_with_policy is Bot.step_with_policy)


class DecisionTerms:
  """The decision terms of one game by seat (`decisions`), accumulated at every simultaneous node
  by `observe_decision`, with the value function `value` and `playouts` continuations of it."""

  def __init__(self, bots: Sequence[pyspiel.Bot], value: ReferenceValue, playouts: int):
    if playouts < 1:
      raise ValueError(f"playouts = {playouts}; allowed: an integer >= 1")
    self.bots = list(bots)
    self.readable_seats = [seat for seat, bot in enumerate(bots) if readable(bot)]
    self.value, self.core, self.playouts = value, value.core, playouts
    self.decisions = np.zeros(len(bots))

  def observe_decision(self, state: pyspiel.State, actions: Sequence[int]) -> None:
    """Adds the terms of the readable bots' moves `actions[seat]` at the simultaneous `state`."""
    pos = None
    for seat in self.readable_seats:
      policy = [(action, p) for action, p in self.bots[seat].get_policy(state) if p > 0]
      if len(policy) == 1:  # a deterministic move: its term is zero
        continue
      if pos is None:
        pos = self.core.encode(state.table())
      stream = self.value.rng.copy()  # common random numbers for every action of the decision
      values = {}
      for action, _ in policy:
        self.value.rng[:] = stream
        values[action] = self.value(self._after(pos, actions, seat, action), self.playouts)
      self.decisions += values[actions[seat]] - sum(p * values[action] for action, p in policy)

  def _after(self, pos: np.ndarray, actions: Sequence[int], seat: int,
             action: int) -> np.ndarray:
    """The position after the joint action `actions` with seat `seat`'s replaced by `action`."""
    joint = list(actions)
    joint[seat] = action
    child = pos.copy()
    self.core.play(child, joint)
    return child
