"""The interface between a drafting game's rules and everything built on them: `Dynamics`.

A game's rules are pure functions over two immutable values: `Rules`, one game's fixed
configuration (built from the game string's parameters), and `Table`, everything that changes
during a game. Each function returns a new `Table`, so a position is copied by sharing it. A game
declares its functions once, as a `Dynamics` value; the pyspiel adapter, the conformance check and
the solvers that play every drafting game reach its readable rules only through it (docs/layout.md,
"How the games share the solvers").

Who acts is `table.actor`: a player never acts alone (the games are simultaneous), so it is one of
the pseudo-players below, numbered as OpenSpiel numbers them (a test checks this).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple, Protocol

from sushigo_spiel.drafting.sampling import Uniform

CHANCE, SIMULTANEOUS, TERMINAL = -1, -2, -4
MIN_PLAYERS, MAX_PLAYERS = 2, 5


class RulesLike(Protocol):
  """What the adapter and the solvers read of any game's `Rules`."""
  num_players: int
  rounds: int
  hand_size: int
  deal: str  # "card" or "hand"
  deal_steps: int  # chance nodes that deal one round
  utility: str  # "score", "margin" or "win"
  num_distinct_actions: int
  max_chance_outcomes: int
  max_game_length: int

  def score_bounds(self) -> tuple[int, int]: ...

  def action_name(self, action: int) -> str: ...

  def hand_string(self, hand: Sequence[int]) -> str: ...


class FrozenRules:
  """The base of each game's `Rules`, a frozen dataclass built once per game: lookups derived from
  the parameters are set once as plain attributes (the dynamics read them at every step), and a
  deep copy (OpenSpiel's clone of a state) is the rules themselves."""

  def _set_derived(self, derived: dict[str, Any]) -> None:
    for name, value in derived.items():
      object.__setattr__(self, name, value)

  def __deepcopy__(self, memo):
    return self


class TableLike(Protocol):
  """What the adapter and the solvers read of any game's `Table`."""
  actor: int  # CHANCE, SIMULTANEOUS or TERMINAL
  round: int  # 0-based; equals `rules.rounds` once the game is over
  turn: int  # turns finished this round
  hands: tuple[tuple[int, ...], ...]  # counts per card type, by player


class Knowledge(NamedTuple):
  """What one player knows of the cards at a table (the one answer, per game, to "what does
  player p know here", which observers, bot views, abstractions and determinization all read).

  `hand` is the player's own hand; `seen` the other hands whose whole contents the player knows,
  as (holder, counts) pairs in holder order; `unseen` the cards the player cannot place, per type:
  the deck's composition less every card the player has seen anywhere.
  """
  hand: tuple[int, ...]
  seen: tuple[tuple[int, tuple[int, ...]], ...]
  unseen: tuple[int, ...]

  def seen_hand(self, holder: int) -> tuple[int, ...] | None:
    """The hand `holder` holds if the player knows it, else None."""
    for who, hand in self.seen:
      if who == holder:
        return hand
    return None


@dataclasses.dataclass(frozen=True)
class Dynamics:
  """One drafting game's rules, as the functions every layer above calls.

  All take the game's `Rules` first and never modify their arguments; `uniform` is a callable
  returning floats in [0, 1) (see `drafting.sampling`).
  """
  short_name: str  # the name registered with OpenSpiel
  rules_from_params: Callable[..., Any]
  """Rules from the game string's parameters (keyword arguments), checked: a ValueError names the
  parameter, the value and what is allowed."""
  initial_table: Callable[[Any], Any]
  """The table before the first chance node."""
  legal_actions: Callable[[Any, Any, int], list[int]]
  """(rules, table, player): the player's legal actions at a simultaneous node, increasing."""
  chance_outcomes: Callable[[Any, Any], list[tuple[int, float]]]
  """(rules, table): every outcome of a chance node with its probability."""
  apply_chance: Callable[[Any, Any, int], Any]
  """(rules, table, outcome): the table after a chance outcome (ValueError if impossible)."""
  sample_chance: Callable[[Any, Any, Uniform], int]
  """(rules, table, uniform): one chance outcome drawn with its probability, without listing the
  outcomes (a hand of the standard deck has too many to list)."""
  skip_chance: Callable[[Any, Any, Uniform], Any]
  """(rules, table, uniform): the table after sampling chance outcomes by their probabilities
  until a simultaneous node or the end (the table itself if it is not a chance node)."""
  play: Callable[[Any, Any, Sequence[int]], Any]
  """(rules, table, actions): the table after one joint action, one action per player
  (ValueError, naming the player and the legal actions, if any is illegal)."""
  returns: Callable[[Any, Any], list[float]]
  """(rules, table): the utility per player by `rules.utility` (zeros before the end)."""
  scores: Callable[[Any, Any], list[int]]
  """(rules, table): points per player so far (final points once the game is over)."""
  knowledge: Callable[[Any, Any, int], Knowledge]
  """(rules, table, player): what the player knows of the cards (`Knowledge`)."""
  determinize: Callable[[Any, Any, int, Uniform], Any]
  """(rules, table, player, uniform): a table the player cannot tell from this one, everything it
  has not seen redrawn; the distribution of the state's `resample_from_infostate`."""
  observation: Callable[[Any, Any, Sequence[int], Any, int], Hashable]
  """(rules, before, actions, after, player): what the player observes of one step, the joint
  action `actions` at `before` followed by any chance up to `after`: the part of the joint action
  it sees, and what it newly sees at `after`. Given the player's information set at `before`, it
  identifies the one at `after`: the key of a search tree's child."""
  round_decisions: Callable[[Any, Any], list[tuple[Any, list[int]]]]
  """(rules, table): the decisions of the current round so far, as (the table at the decision,
  the joint action played there), in order: what a range over hidden cards is weighted by."""
  infoset_key: Callable[[Any, Any, int], Hashable]
  """(rules, table, player): the player's perfect-recall information state as a hashable value,
  the same partition as the observer's information state string (tested), and much cheaper."""
  deal_weight: Callable[[Any, Any, int], float] | None = None
  """(rules, world, player): for a `world` that `determinize` drew for the player, chance's
  probability of it over the draw's, up to a factor common to the worlds the player cannot tell
  apart: the weight that makes the draws chance's posterior. None when the game's draw has no
  such closed form (its worlds then count alike)."""


def utilities(utility: str, scores: Sequence[int], winners: Sequence[int]) -> list[float]:
  """The returns of a finished game from its final scores, by utility mode: `score` the points,
  `margin` own points minus the mean of the others' (zero sum), `win` 1 shared by `winners`."""
  if utility == "score":
    return [float(s) for s in scores]
  if utility == "margin":
    return margins(scores)
  return [1.0 / len(winners) if p in winners else 0.0 for p in range(len(scores))]


def margins(scores: Sequence[float]) -> list[float]:
  """Each player's score minus the mean score of the others."""
  total, others = sum(scores), len(scores) - 1
  return [score - (total - score) / others for score in scores]
