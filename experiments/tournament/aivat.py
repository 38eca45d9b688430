"""AIVAT (Burch, Schmid, Moravcik, Morrill and Bowling, AAAI 2018): a game's scores with the
effect of chance and of the readable bots' own draws taken out, by terms of mean zero.

A game's AIVAT estimate of each seat's score is its score minus a sum of correction terms, one at
every chance event (a deal) and one at every decision of a *readable* bot: a bot whose move is
drawn from a policy it reports exactly at every node (`readable`: the baselines, policy files, the
blueprint; not the searches). With a value function v(s) giving each seat's points,

  chance term     = v(after the deal) - E[v(after a deal) | before the deal],
  decision term i = v(h.a) - sum over a' of pi_i(a' | h) v(h.(a', a_-i)),

where h.a is the state after the joint action a, and h.(a', a_-i) the state after it with seat i's
action replaced by a' (the other seats' actions as they were). Each term has mean zero given what
came before it: a deal is drawn by the rules' probabilities whatever the bots do; seat i's move
is drawn from pi_i by the bot's own generator, independently of the other seats' moves at the same
simultaneous node, so even given a_-i its term averages to zero. The estimate has therefore the
raw score's expectation *whatever v is*; v only decides how much variance is removed (the
margin, a linear function of the scores, is corrected by the terms' margins).

The value function is the luck's (`solvers.round_values.ReferenceValue`), so that the luck-only figure and this one
differ by the decision terms alone: v(s) is each seat's points at the end of the round under way at
s when every seat plays on by its bot's reference policy on the compiled core (its own twin:
random, greedy, the default heuristic, the blueprint sampled or purified; the default heuristic for
a search). It is fixed by the seating before the game, the same function for every seat and
competitor at the table. Where every bot has a twin it is the expected round's end under the very
policies being played, the choice that removes the most variance; a search's seat is valued by the
heuristic, which is what a search is measured against. Stochastic references are averaged over
`playouts` continuations, every action of one decision from the same random numbers (common
random numbers: the differences that make a term are less noisy), drawn from the luck's stream,
independent of the game.

A decision term costs one v per action in the support of a readable bot's policy; a deterministic
policy's term is zero and costs nothing. The game's `decisions`, by seat, are stored beside its
`luck`; the AIVAT figure of a seat is its score less both (its margin less both margins).
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
