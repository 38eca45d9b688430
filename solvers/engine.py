"""The search engine: Sushi Go played on `rules.Table`s directly, without a pyspiel State.

Tree search spends its time resampling hidden cards, sampling chance and playing games out. Going
through `python_sushi_go` for that would replay histories and cross into C++ at every step; here
the same pure rules functions (`sushigo_spiel.rules`) are called on immutable tables, so a
position is copied by sharing it. Tests check that games played here match `python_sushi_go` step
for step (tables, legal actions, chance outcomes and returns) and that `determinize` gives exactly
the tables of `SushiGoState.resample_from_infostate` for the same random stream.

Randomness is a `uniform` callable returning floats in [0, 1), such as `random.Random(seed).random`.

API:
  determinize(rules, table, player, uniform) -> Table     a table `player` cannot tell from this
                                                          one (hidden cards redealt uniformly)
  sample_chance(rules, table, uniform) -> outcome         a chance outcome, by its probability
  skip_chance(rules, table, uniform) -> Table             chance sampled until someone moves
  rollout(rules, table, policies, uniform) -> returns     played to the end, policies[p] choosing
                                                          for player p (`playout`: the final table)
  observation(rules, table, player) -> hashable           what `player` sees on reaching `table`
                                                          beyond the public picks (see below)
  draw_action(policy, uniform) -> action                  an action drawn from [(action, p)]
  make_rollout_policy(name, game) -> RolloutPolicy        "random", "greedy" or "heuristic" (the
                                                          baseline bots' policies on table_view)
A `RolloutPolicy` is a callable `(rules, table, player, uniform) -> action`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyspiel

from solvers import baselines
from solvers.views import table_view
from sushigo_spiel import rules as R

CHANCE, SIMULTANEOUS, TERMINAL = R.CHANCE, R.SIMULTANEOUS, R.TERMINAL
ROLLOUT_POLICIES = ("random", "greedy", "heuristic")

Uniform = Callable[[], float]
RolloutPolicy = Callable[[R.Rules, R.Table, int, Uniform], int]


# --------------------------------------------------------------------------------------------
# Chance and determinization


def _pick(counts: Sequence[int], uniform: Uniform) -> int:
  """An index drawn with probability proportional to `counts`."""
  total = sum(counts)
  target = min(int(uniform() * total), total - 1)
  for c, n in enumerate(counts):
    if target < n:
      return c
    target -= n
  raise ValueError(f"cannot draw from empty counts {list(counts)}")


def sample_chance(rules: R.Rules, table: R.Table, uniform: Uniform) -> int:
  """A chance outcome drawn with its probability in `rules.chance_outcomes`.

  A `deal=hand` outcome is drawn card by card without replacement (multivariate hypergeometric,
  as the outcome probabilities), which avoids listing every possible hand.
  """
  if table.dealt == rules.deal_steps:  # the robot's controller draws from its pile
    return _pick(table.robot.pile, uniform)
  if rules.deal == "hand":
    return rules.hand_ranking.rank(R.draw(list(table.deck), rules.hand_size, uniform))
  return _pick(table.deck, uniform)


def skip_chance(rules: R.Rules, table: R.Table, uniform: Uniform) -> R.Table:
  """Samples chance outcomes until a simultaneous node or the end of the game."""
  apply_chance = R.apply_chance
  while table.actor == CHANCE:
    if rules.deal == "card" and table.dealt < rules.deal_steps:
      table = _deal_cards(rules, table, uniform)
    else:
      table = apply_chance(rules, table, sample_chance(rules, table, uniform))
  return table


def _deal_cards(rules: R.Rules, table: R.Table, uniform: Uniform) -> R.Table:
  """The rest of a `deal=card` deal at once: the table `apply_chance` reaches with the outcomes
  `sample_chance` draws, one card at a time from the same `uniform` stream."""
  deck = list(table.deck)
  hands = [list(hand) for hand in table.hands] + ([list(table.robot.pile)] if rules.robot else [])
  size, total = rules.hand_size, sum(deck)
  for step in range(table.dealt, rules.deal_steps):
    target = min(int(uniform() * total), total - 1)
    for card, count in enumerate(deck):
      if target < count:
        break
      target -= count
    deck[card] -= 1
    total -= 1
    hands[step // size][card] += 1
  robot = table.robot._replace(pile=tuple(hands.pop())) if rules.robot else None
  return table._replace(actor=CHANCE if rules.robot else SIMULTANEOUS, dealt=rules.deal_steps,
                        deck=tuple(deck), hands=tuple([tuple(hand) for hand in hands]),
                        robot=robot)


def determinize(rules: R.Rules, table: R.Table, player: int, uniform: Uniform) -> R.Table:
  """A table `player` cannot tell apart from `table`, the cards it has not seen redealt.

  The same draws, in the same order, as `SushiGoState.resample_from_infostate` (so the same
  `uniform` stream gives the same table), but the current round is rebuilt from its first table
  with the rules functions instead of replaying the whole game through pyspiel.
  """
  if table.actor == TERMINAL:
    return table
  if rules.robot:
    deals, draws = R.resample_robot_round(rules, table, player, uniform)
  else:
    deals, draws = R.resample_deals(rules, table, player, uniform), []
  turns = table.log[len(table.log) - table.turn:] if table.turn else ()
  rebuilt = _round_start(rules, table)
  apply_chance = R.apply_chance
  if table.dealt == rules.deal_steps:  # the whole deal at once
    deck = list(rebuilt.deck)
    for hand in deals:
      deck = [a - b for a, b in zip(deck, hand)]
    robot = rebuilt.robot._replace(pile=deals[-1]) if rules.robot else None
    rebuilt = rebuilt._replace(actor=CHANCE if rules.robot else SIMULTANEOUS,
                               dealt=rules.deal_steps, deck=tuple(deck),
                               hands=tuple(deals[:rules.num_players]), robot=robot)
  elif rules.deal == "card":
    for hand in deals:
      for card, count in enumerate(hand):
        for _ in range(count):
          rebuilt = apply_chance(rules, rebuilt, card)
  else:
    for hand in deals[:table.dealt]:
      rebuilt = apply_chance(rules, rebuilt, rules.hand_ranking.rank(hand))
  for index, turn in enumerate(turns):
    if rules.robot:
      rebuilt = apply_chance(rules, rebuilt, draws[index])
    rebuilt = R.play(rules, rebuilt, turn_actions(rules, rebuilt, turn))
  if len(draws) > len(turns):  # this turn's draw, before the picks
    rebuilt = apply_chance(rules, rebuilt, draws[-1])
  return rebuilt


def _round_start(rules: R.Rules, table: R.Table) -> R.Table:
  """The table at the start of the current round, before its deal."""
  deck = list(rules.deck)
  for result in table.results:
    for tableau in (*result.tableaus, result.robot_tableau):
      for card in tableau:
        deck[card] -= 1
  n = rules.num_players
  robot = table.robot and R.Robot((0,) * rules.num_types, (), table.robot.puddings, -1)
  return R.Table(CHANCE, table.round, 0, 0, tuple(deck), ((0,) * rules.num_types,) * n,
                 ((),) * n, table.puddings, table.results,
                 table.log[:len(table.log) - table.turn], robot)


def turn_actions(rules: R.Rules, table: R.Table, turn: R.Turn) -> list[int]:
  """The joint action that placed `turn.picks` at `table` (the table before that turn)."""
  ruling = R.controller(rules, table) if rules.robot else -1
  actions = []
  for player, picks in enumerate(turn.picks):
    if player == ruling:
      actions.append(rules.robot_actions + picks[0] * rules.num_types + turn.robot)
    elif len(picks) == 1:
      actions.append(picks[0])
    else:
      actions.append(rules.pair_actions[picks])
  return actions


# --------------------------------------------------------------------------------------------
# Playing out


def rollout(rules: R.Rules, table: R.Table, policies: Sequence[RolloutPolicy],
            uniform: Uniform) -> list[float]:
  """Plays from `table` to the end, chance by its probabilities; returns the utilities."""
  return R.returns(rules, playout(rules, table, policies, uniform))


def playout(rules: R.Rules, table: R.Table, policies: Sequence[RolloutPolicy],
            uniform: Uniform) -> R.Table:
  """Plays from `table` to the end, chance by its probabilities; returns the final table."""
  play = R.play
  players = range(rules.num_players)
  while table.actor != TERMINAL:
    if table.actor == CHANCE:
      table = skip_chance(rules, table, uniform)
    else:
      table = play(rules, table, [policies[p](rules, table, p, uniform) for p in players])
  return table


def draw_action(policy: Sequence[tuple[int, float]], uniform: Uniform) -> int:
  """An action drawn from `policy`, a list of (action, probability), with one uniform."""
  u = uniform()
  for action, probability in policy:
    u -= probability
    if u < 0:
      return action
  return policy[-1][0]


def random_policy(rules: R.Rules, table: R.Table, player: int, uniform: Uniform) -> int:
  """Uniform over the legal actions."""
  legal = R.legal_actions(rules, table, player)
  return legal[int(uniform() * len(legal))]


class BaselinePolicy:
  """A baseline bot's policy (`baselines.GreedyBot`, `HeuristicBot`) read at a table through
  `table_view`; the bot's most likely action, or a draw when its policy is mixed."""

  def __init__(self, bot: baselines.BaselineBot):
    self.bot = bot

  def __call__(self, rules: R.Rules, table: R.Table, player: int, uniform: Uniform) -> int:
    policy = self.bot.policy(table_view(rules, table, player))
    best_action, best = policy[0]
    return best_action if best == 1.0 else draw_action(policy, uniform)


def make_rollout_policy(name: str, game: pyspiel.Game) -> RolloutPolicy:
  """The rollout policy `name` (one of `ROLLOUT_POLICIES`) for `game`."""
  if name == "random":
    return random_policy
  if name == "greedy":
    return BaselinePolicy(baselines.GreedyBot(game, 0))
  if name == "heuristic":
    return BaselinePolicy(baselines.HeuristicBot(game, 0))
  raise ValueError(f"rollout policy {name!r} is unknown; allowed: {', '.join(ROLLOUT_POLICIES)}")


# --------------------------------------------------------------------------------------------
# What a player knows


def observation(rules: R.Rules, table: R.Table, player: int) -> tuple:
  """What `player` observes on reaching `table` (a simultaneous node or the end) after a joint
  action everybody saw: its own hand, and at a round's first turn (or at the end) the previous
  round's tableaus, where the last, automatic picks were revealed. With the joint action this
  identifies the player's next information set, given the one before.
  """
  last_round = table.results[-1].tableaus if table.results and table.turn == 0 else ()
  return table.hands[player], last_round
