"""Baseline bots: uniformly random, greedy on immediate points, and a heuristic.

They are the yardsticks for the search solvers: a solver should beat the heuristic, which beats the
greedy bot, which beats random play. Each is a `solvers.bot.Bot`: built as `Bot(game, player_id,
seed, **params)`, it answers for its own player at a simultaneous node of the game or at its turn
in the `pyspiel.convert_to_turn_based` form, reads every position afresh, and draws its move from
its policy with `numpy.random.default_rng(seed)`. Random play works on both games, in Python.

The greedy and heuristic bots value Sushi Go cards, so they play `python_sushi_go` only, through
their kernels (`solvers.policy_kernels`), the ones the compiled searches, CFR and the batched
environment play: each decision encodes the rules' table as a position of the game's compiled core
and asks `SushiGoPolicies` for the policy. The kernels read what the player knows off the position
as `knowledge.knowledge` answers it, so the bots cannot read hidden cards. The first such bot in an
environment compiles the core and the policy kernels (numba caches them); a random bot loads none.
Their reference, the readable Python held equal to them decision by decision, is
`tests/baseline_oracle.py`.
"""

from __future__ import annotations

import functools

import numpy as np

from solvers.bot import Bot, Policy
from sushigo_spiel.sushi_go import rules as R


class RandomBot(Bot):
  """Picks uniformly among the legal actions (Chopsticks pairs included); plays both games."""

  cheap_policy = True

  def policy_at(self, table) -> Policy:
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    return [(action, 1.0 / len(legal)) for action in legal]


class CompiledBaseline(Bot):
  """A Sushi Go bot whose policy is a kernel of `SushiGoPolicies`, on the core of the bot's
  rules."""

  GAMES = ("python_sushi_go",)
  cheap_policy = True

  def policy_at(self, table: R.Table) -> Policy:
    return self.player_policy(self.rules, table, self.player_id)

  def player_policy(self, rules: R.Rules, table: R.Table, player: int) -> Policy:
    """The policy of `player` at a simultaneous node of `rules` (a rollout policy asks it for
    every seat)."""
    policies = compiled_policies(rules)
    return self.kernel_policy(policies, policies.core.encode(table), player)

  def kernel_policy(self, policies, pos: np.ndarray, player: int) -> Policy:
    raise NotImplementedError


@functools.lru_cache(maxsize=8)
def compiled_policies(rules: R.Rules):
  """The `SushiGoPolicies` on the compiled core of `rules`, one per process."""
  # Imported here: making a random bot loads no kernels.
  from solvers.policy_kernels.checked import SushiGoPolicies  # pylint: disable=C0415
  from sushigo_spiel.compiled.sushi_go.core import CompiledSushiGo  # pylint: disable=C0415
  return SushiGoPolicies(CompiledSushiGo(rules))


class GreedyBot(CompiledBaseline):
  """Takes the pick that gains the most points this round if the round ended right now.

  The player's tableau with the pick added is scored by `sushigo_spiel.scoring` against the other
  players' current tableaus, Maki standing included. Puddings count 0 (they score only at the end of
  the game), as do Wasabi, Chopsticks and unfinished sets. Ties go to the lowest action id, which is
  the order of `rules.cards` (the canonical card order), then Chopsticks pairs.
  """

  def kernel_policy(self, policies, pos: np.ndarray, player: int) -> Policy:
    best = policies.greedy_action(pos, player)
    return [(action, 1.0 if action == best else 0.0)
            for action in policies.core.legal_action_list(pos, player)]


class HeuristicBot(CompiledBaseline):
  """A hand-written strategy: each pick is valued in expected points, and the best one is taken.

  The value of a pick is the sum of its cards' values, taken in placement order:
    Tempura, Sashimi  a card that completes a set is worth the set (5 or 10); a card of an
                      unfinished set is worth its share of the set (1/2, or 1/3 per card) times the
                      chance of finding the missing cards in the hands still to come, times
                      `set_weight`. Two cards of one set in a Chopsticks pick are valued once.
    Dumpling          the points it adds now, plus `dumpling_curve` per Dumpling still expected
                      (each later Dumpling is then worth one more point).
    Nigiri            its points; on a free Wasabi, triple its points less `wasabi_patience` times
                      what that Wasabi could add to the best Nigiri still to come (so an Egg does
                      not use up a Wasabi that a Squid is likely to fill).
    Wasabi            what it would add to the best Nigiri expected in the hands to come (twice its
                      points, times the chance of finding one for it behind the free Wasabi already
                      held), times `wasabi_weight`; nothing when a Nigiri goes onto it in the same
                      pick (that Nigiri is tripled instead).
    Maki              the gain in expected Maki points against the visible opponents, times
                      `maki_weight`. The icon difference to each opponent at round end is modelled
                      as normal around today's difference, with a variance that grows with the
                      picks left and with how often Maki are picked (`maki_pace` times the share of
                      Maki among the unseen cards).
    Pudding           the gain in expected end-game Pudding points, modelled in the same way over
                      the picks left in the game (`pudding_pace`), times `pudding_weight`: worth
                      little early in the game, much in the last round.
    Chopsticks        `chopsticks_weight` times the share of the round left, divided by the number
                      already held; nothing once no later turn has two cards. Using Chopsticks
                      costs its value at this point.
    Soy Sauce         (variant) its 4 points when the player would then have at least as many
                      colours as every opponent, halved for each colour short; nothing once a Soy
                      Sauce is held (only one scores). `soy_sauce_lead` colours are added to the
                      player's count first, for the colours its later picks may add.
  Denial: `deny_weight` times what the pick takes away from the next player (who receives this
  hand), in immediate points of the best card left for them.

  The chance of finding a card in a later turn comes from the hand the player will hold then: its
  contents when the player has held it before (less random picks by the players in between), or the
  share of that card among the unseen cards otherwise.

  Ties go to the lowest action id. With `temperature` > 0 the policy is a softmax of the values
  (values divided by the temperature) and the action is sampled from it. The defaults were tuned
  by playing variants of this bot against each other, at 2 and 4 players.
  """

  PARAMETERS = {
      "set_weight": 1.0,
      "dumpling_curve": 0.3,
      "wasabi_weight": 0.6,
      "wasabi_patience": 0.6,
      "maki_weight": 1.0,
      "maki_pace": 1.0,
      "pudding_weight": 1.0,
      "pudding_pace": 0.5,
      "chopsticks_weight": 2.0,
      "deny_weight": 0.3,
      "soy_sauce_lead": 1.0,
      "temperature": 0.0,
  }

  def kernel_policy(self, policies, pos: np.ndarray, player: int) -> Policy:
    return policies.heuristic_policy(pos, player, self.parameter_array)

  @functools.cached_property
  def parameter_array(self) -> np.ndarray:
    """The kernels' parameter array of this bot's `params` (`heuristic.parameters`)."""
    from solvers.policy_kernels import heuristic  # pylint: disable=C0415 (as compiled_policies)
    return heuristic.parameters(self.params)
