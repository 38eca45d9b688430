"""The kernel interface every game's compiled core provides, so compiled search works on both.

Compiled code above the games (search trees, batched environments, training loops) reaches a
game's core only through these kernels, all plain `@njit` functions over the game's `spec` (an
int64 array built once from the game's `Rules`) and flat int32 positions, changed in place:

  initial_position(spec) -> pos                     a new game, before its first chance node
  skip_chance(spec, pos, rng)                       chance sampled until a decision or the end
  legal_actions(spec, pos, player, out) -> count    the player's legal actions, increasing, in
                                                    `out` (int64, `num_distinct_actions` long)
  play(spec, pos, actions)                          one joint action (int64 array), unchecked
  returns(spec, pos, out)                           the utilities (float64, one per player)
  determinize(spec, pos, player, rng) -> pos        a new position the player cannot tell from
                                                    `pos`, with the rules' distribution
  observation_key(spec, before, actions, after, player) -> int64
                                                    a 64-bit key of what the player observes of
                                                    one step (the game's `observation`): equal
                                                    keys exactly when observations are equal, up
                                                    to hash collisions
  random_action(spec, pos, player, rng, out) -> action   uniform over the legal actions, with
                                                    one uniform (as `rollouts.RandomPolicy`)

`pos[ACTOR]` (index 0) holds who acts, numbered as `drafting.dynamics`: CHANCE, SIMULTANEOUS or
TERMINAL. `rng` is a stream state of `compiled.rng`. Each game's Python-facing class offers its
`spec` and `kernels`, a `GameKernels` of the functions above, for compiled code to call.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

ACTOR = 0


class GameKernels(NamedTuple):
  """A game's compiled kernels, by the names of the module docstring."""
  initial_position: Callable
  skip_chance: Callable
  legal_actions: Callable
  play: Callable
  returns: Callable
  determinize: Callable
  observation_key: Callable
  random_action: Callable


def game_kernels(chance, moves, scoring, knowledge, policies) -> GameKernels:
  """A core's `GameKernels` from its kernel modules, which use the same names in every game."""
  return GameKernels(
      initial_position=chance.initial_position, skip_chance=chance.skip_chance,
      legal_actions=moves.legal_actions, play=moves.play, returns=scoring.returns,
      determinize=knowledge.determinize, observation_key=knowledge.observation_key,
      random_action=policies.random_action)
