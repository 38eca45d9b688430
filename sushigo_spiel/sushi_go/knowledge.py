"""What a Sushi Go player knows, and redrawing what it does not: the one place for both.

A player sees its own hand, every card placed (tableaus are public, the robot's included) and each
hand it has held before in this round; the other hands, the undealt deck and the robot's face-down
pile are unseen. `knowledge` answers this for the observers, the bots' views, the abstractions and
determinization alike. `determinize` redraws the unseen cards among the deals the player cannot
tell apart (`resample_deals`, `resample_robot_round`) and rebuilds the round's table with the rules
functions, consuming the same uniforms in the same order as `SushiGoState.resample_from_infostate`;
`deal_weight` turns the draws' frequencies back into chance's posterior.

Why the draws need that weight: docs/game.md, "Resampling (determinization)".
"""

from __future__ import annotations

import math
from collections.abc import Hashable

from sushigo_spiel.drafting.dynamics import CHANCE, SIMULTANEOUS, TERMINAL, Knowledge
from sushigo_spiel.drafting.hand_ranking import deal_outcomes
from sushigo_spiel.drafting.sampling import Uniform, draw_cards
from sushigo_spiel.sushi_go import rules as R


def holder(rules: R.Rules, round_index: int, dealt_to: int, turn: int) -> int:
  """Who holds, at `turn` of a round, the hand dealt to `dealt_to`."""
  return (dealt_to + turn * rules.direction(round_index)) % rules.num_players


def origin(rules: R.Rules, round_index: int, holder_now: int, turn: int) -> int:
  """The player who was dealt the hand that `holder_now` holds at `turn` of a round."""
  return (holder_now - turn * rules.direction(round_index)) % rules.num_players


def is_dealt(rules: R.Rules, table: R.Table) -> bool:
  """Whether this round's hands are in the players' hands (the deal is over, the game is not)."""
  return table.dealt >= rules.deal_steps and table.actor != TERMINAL


def hand_seen(rules: R.Rules, table: R.Table, player: int, holder_now: int) -> bool:
  """Whether `player` has held the hand that `holder_now` holds now, so knows what is in it."""
  if not is_dealt(rules, table):
    return False
  if rules.robot and table.robot.drawn >= 0 and \
      player != holder_now == R.controller(rules, table):
    return False  # the controller's hand now holds the card it drew from the robot's pile
  dealt_to = origin(rules, table.round, holder_now, table.turn)
  turns_to_reach_player = (player - dealt_to) * rules.direction(table.round) % rules.num_players
  return turns_to_reach_player <= table.turn


def knowledge(rules: R.Rules, table: R.Table, player: int) -> Knowledge:
  """What `player` knows of the cards: own hand (once dealt), the hands it has held, and the
  unseen pool (the deck's composition less its hand, the hands it has held, and every card placed
  in this game, the robot's tableaus included)."""
  empty = (0,) * rules.num_types
  hand = table.hands[player] if is_dealt(rules, table) else empty
  seen = tuple([(h, table.hands[h]) for h in range(rules.num_players)
                if h != player and hand_seen(rules, table, player, h)])
  unseen = list(rules.deck)
  for _, counts in ((player, hand),) + seen:
    for c, count in enumerate(counts):
      unseen[c] -= count
  placed = list(table.tableaus) + [t for result in table.results for t in result.tableaus]
  if rules.robot:
    placed += [table.robot.tableau] + [result.robot_tableau for result in table.results]
  for tableau in placed:
    for c in tableau:
      unseen[c] -= 1
  return Knowledge(hand, seen, tuple(unseen))


def infoset_key(rules: R.Rules, table: R.Table, player: int) -> Hashable:
  """The perfect-recall information state: each turn's own hand and every pick (the robot's
  included), and the current hand; the partition of the information state string."""
  del rules
  seen = tuple([(turn.round, turn.hands[player], turn.picks, turn.robot) for turn in table.log])
  return seen, table.hands[player]


def observation(rules: R.Rules, before: R.Table, actions, after: R.Table,
                 player: int) -> Hashable:
  """What `player` observes of one step: the joint action (every pick is revealed), then on
  reaching `after` (a simultaneous node or the end) its own hand and, at a round's first turn or
  at the end, the previous round's tableaus, where the last, automatic picks were revealed."""
  del rules, before
  last_round = after.results[-1].tableaus if after.results and after.turn == 0 else ()
  return tuple(actions), after.hands[player], last_round


# --------------------------------------------------------------------------------------------
# Redrawing what a player has not seen


def resample_deals(rules: R.Rules, table: R.Table, player: int,
                   uniform: Uniform) -> list[tuple[int, ...]]:
  """New hands for this round's deal, drawn uniformly among those `player` cannot tell apart.

  Returns the hands as dealt (by player who was dealt them). Hands `player` has held keep their
  contents. Each other hand keeps the cards known to be in it (Chopsticks returned to it and not
  since taken out); its other cards and the undealt deck are shuffled together and redrawn, and
  the cards already picked from each hand are put back in its deal.
  """
  n, turn = rules.num_players, table.turn
  initial = list(table.log[-turn].hands) if turn else list(table.hands)
  current = {origin(rules, table.round, h, turn): table.hands[h] for h in range(n)}
  unseen = [k for k in range(n)
            if not hand_seen(rules, table, player, holder(rules, table.round, k, turn))]
  known = {k: _known_cards(rules, table, k) for k in unseen}
  pool = list(table.deck)
  for k in unseen:
    pool = [a + b - c for a, b, c in zip(pool, current[k], known[k])]
  for k in unseen:
    drawn = draw_cards(pool, sum(current[k]) - sum(known[k]), uniform)
    initial[k] = tuple(i - c + d + f
                       for i, c, d, f in zip(initial[k], current[k], drawn, known[k]))
  return initial


def deal_weight(rules: R.Rules, world: R.Table, player: int) -> float:
  """A weight that turns `determinize`'s draws for `player` into chance's posterior over the
  deals it cannot tell apart: chance's probability of `world`'s deal over `determinize`'s, up to
  a factor the same for every such world.

  Each hand `player` has not seen was drawn as its unknown cards now (uniformly from the unseen
  pool) with this round's picks from it put back: chance deals it in proportion to the ways of
  choosing its dealt cards, the draw in proportion to the ways of choosing the unknown ones, so the
  ratio is the product over card types of unknown! / dealt!. The robot's pile needs none: its
  draws were chance's, and uniform draws are its posterior already.
  """
  if rules.robot or world.actor == TERMINAL or not world.turn:
    return 1.0
  n, turn = rules.num_players, world.turn
  dealt = world.log[-turn].hands
  log_weight = 0.0
  for dealt_to in range(n):
    now = holder(rules, world.round, dealt_to, turn)
    if hand_seen(rules, world, player, now):
      continue
    known = _known_cards(rules, world, dealt_to)
    for card, count in enumerate(dealt[dealt_to]):
      unknown = world.hands[now][card] - known[card]
      log_weight += math.lgamma(unknown + 1) - math.lgamma(count + 1)
  return math.exp(log_weight)


def resample_robot_round(rules: R.Rules, table: R.Table, player: int, uniform: Uniform
                         ) -> tuple[list[tuple[int, ...]], list[int]]:
  """The robot variant's `resample_deals`: this round's deal (both hands, then the robot's pile,
  as dealt) and the robot's draws so far, with what `player` has not seen redrawn uniformly.

  With two players every hand has been seen from the second turn on, and every past draw can be
  told from the hands and picks seen; unseen are the undealt deck, the rest of the robot's pile,
  the other player's dealt hand during the first turn, and the card the other player drew this
  turn when controlling the robot.
  """
  n, turn, robot = rules.num_players, table.turn, table.robot
  if table.dealt < rules.deal_steps:  # nobody has seen any of this round's cards yet
    partial = list(table.hands) + [robot.pile]
    pool = list(table.deck)
    for hand in partial:
      pool = [a + b for a, b in zip(pool, hand)]
    return [tuple(draw_cards(pool, sum(hand), uniform)) for hand in partial], []
  other = 1 - player
  turns = table.log[len(table.log) - turn:]
  draws = [t.drawn for t in turns] + ([robot.drawn] if robot.drawn >= 0 else [])
  dealt = [list(h) for h in (turns[0].hands if turns else table.hands)]
  if draws:
    dealt[(table.round * rules.hand_size) % 2][draws[0]] -= 1  # drawn at the first turn
  pool = [a + b for a, b in zip(table.deck, robot.pile)]
  if robot.drawn >= 0 and R.controller(rules, table) == other:
    pool[robot.drawn] += 1
    draws[-1] = draw_cards(pool, 1, uniform).index(1)
  if turn == 0:
    pool = [a + b for a, b in zip(pool, dealt[other])]
    dealt[other] = draw_cards(pool, rules.hand_size, uniform)
  pile = draw_cards(pool, sum(robot.pile), uniform)
  for card in draws:
    pile[card] += 1
  return [tuple(hand) for hand in dealt[:n]] + [tuple(pile)], draws


def _known_cards(rules: R.Rules, table: R.Table, dealt_to: int) -> list[int]:
  """Cards that must be in a hand now: Chopsticks returned to it that later picks cannot explain.

  Follows the hand through this round's turns with its dealt contents unknown, tracking how many
  of each card it needed at the deal for every pick to be possible.
  """
  change = [0] * rules.num_types
  needed = [0] * rules.num_types
  for turn, entry in enumerate(table.log[len(table.log) - table.turn:]):
    picks = entry.picks[holder(rules, table.round, dealt_to, turn)]
    for c in picks:
      change[c] -= 1
      needed[c] = max(needed[c], -change[c])
    if len(picks) == 2:
      change[rules.chopsticks] += 1
  return [max(0, need + delta) for need, delta in zip(needed, change)]


def resampled_round(rules: R.Rules, table: R.Table, player: int, uniform: Uniform
                    ) -> tuple[list[tuple[int, ...]], list[int]]:
  """This round's deal (hands as dealt, the robot's pile last) and the robot's draws, with what
  `player` has not seen redrawn: the one draw both `determinize` and `resample_from_infostate`
  make."""
  if rules.robot:
    return resample_robot_round(rules, table, player, uniform)
  return resample_deals(rules, table, player, uniform), []


def determinize(rules: R.Rules, table: R.Table, player: int, uniform: Uniform) -> R.Table:
  """A table `player` cannot tell apart from `table`, the cards it has not seen redealt: the
  current round rebuilt from the redrawn deal with the round's real picks."""
  if table.actor == TERMINAL:
    return table
  return rebuild_round(rules, table, *resampled_round(rules, table, player, uniform))


def round_decisions(rules: R.Rules, table: R.Table) -> list[tuple[R.Table, list[int]]]:
  """The decisions of the current round so far: the table at each and the joint action played."""
  decisions = []
  if table.actor != TERMINAL:
    rebuild_round(rules, table, *dealt_round(rules, table),
                  visit=lambda before, actions: decisions.append((before, actions)))
  return decisions


def dealt_round(rules: R.Rules, table: R.Table) -> tuple[list[tuple[int, ...]], list[int]]:
  """This round's real deal (hands as dealt, the robot's pile last) and the robot's draws, in
  the form of `resampled_round`."""
  turns = table.log[len(table.log) - table.turn:] if table.turn else ()
  hands = list(turns[0].hands if turns else table.hands)
  if not rules.robot:
    return hands, []
  draws = [turn.drawn for turn in turns] + ([table.robot.drawn] if table.robot.drawn >= 0 else [])
  pile = list(table.robot.pile)
  for card in draws:
    pile[card] += 1
  if draws:  # the first draw went into the first controller's hand
    first = (table.round * rules.hand_size) % 2
    hands[first] = tuple(n - (c == draws[0]) for c, n in enumerate(hands[first]))
  return hands + [tuple(pile)], draws


def rebuild_round(rules: R.Rules, table: R.Table, deals: list[tuple[int, ...]], draws: list[int],
                  visit=None) -> R.Table:
  """The current round of `table` rebuilt from its first table with the rules functions: the
  deal `deals` (as dealt, the robot's pile last), then the round's real picks, the robot drawing
  `draws`. `visit(before, actions)` is called at each turn's decision, if given."""
  turns = table.log[len(table.log) - table.turn:] if table.turn else ()
  rebuilt = _round_start(rules, table)
  if table.dealt == rules.deal_steps:  # the whole deal at once
    deck = list(rebuilt.deck)
    for hand in deals:
      deck = [a - b for a, b in zip(deck, hand)]
    robot = rebuilt.robot._replace(pile=deals[-1]) if rules.robot else None
    rebuilt = rebuilt._replace(actor=CHANCE if rules.robot else SIMULTANEOUS,
                               dealt=rules.deal_steps, deck=tuple(deck),
                               hands=tuple(deals[:rules.num_players]), robot=robot)
  else:
    for outcome in deal_outcomes(rules, deals)[:table.dealt]:
      rebuilt = R.apply_chance(rules, rebuilt, outcome)
  for index, turn in enumerate(turns):
    if rules.robot:
      rebuilt = R.apply_chance(rules, rebuilt, draws[index])
    actions = R.turn_actions(rules, rebuilt, turn)
    if visit is not None:
      visit(rebuilt, actions)
    rebuilt = R.play(rules, rebuilt, actions)
  if len(draws) > len(turns):  # this turn's draw, before the picks
    rebuilt = R.apply_chance(rules, rebuilt, draws[-1])
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
