"""What a Sushi Draft player knows, and redrawing what it does not: the one place for both.

A player sees its own hands and kept cards, every eat (eats are revealed), who took each chip, and
the values of its own chips. It never sees another player's whole hand: each hand it passes on
mixes with the receiver's secretly kept card. `knowledge` answers this for the bots' views and the
abstractions; `determinize` and `SushiDraftState.resample_from_infostate` make the same redraw
(`resampled_steps`), one on tables and one through pyspiel.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from sushigo_spiel.drafting.dynamics import SIMULTANEOUS, TERMINAL, Knowledge
from sushigo_spiel.drafting.hand_ranking import deal_outcomes
from sushigo_spiel.drafting.sampling import Uniform, draw_cards, pick_uniformly
from sushigo_spiel.sushi_draft import rules as R
from sushigo_spiel.sushi_draft.cards import NUM_PILES


def knowledge(rules: R.Rules, table: R.Table, player: int) -> Knowledge:
  """What `player` knows of the cards: its hand at a simultaneous node, no other whole hand, and
  as unseen the round's deck less its hand and the cards eaten this round (the cards it passed on
  count as unseen: they mix with the receiver's hidden kept card)."""
  if table.actor != SIMULTANEOUS:
    return Knowledge((0,) * R.NUM_TYPES, (), tuple(rules.deck))
  unseen = [d - h for d, h in zip(rules.deck, table.hands[player])]
  for actions in table.eaten:
    for action in actions:
      unseen[R.eaten_card(action)] -= 1
  return Knowledge(table.hands[player], (), tuple(unseen))


def infoset_key(rules: R.Rules, table: R.Table, player: int) -> Hashable:
  """The perfect-recall information state: each turn's own hand, every eat and the own keep;
  who took each chip and the values of the own chips; the current hand at an Eat step. The
  partition of the information state string (tested)."""
  del rules
  turns = tuple([(turn.round, turn.hands[player], turn.eats,
                  turn.keeps[player] if turn.keeps else -1) for turn in table.log])
  chips = tuple([(chip.round, chip.pile, chip.player, chip.value if chip.player == player else -1)
                 for chip in table.chips])
  eating = table.actor == SIMULTANEOUS and not table.keeping
  return turns, chips, table.hands[player] if eating else None


def observation(rules: R.Rules, before: R.Table, actions, after: R.Table,
                player: int) -> Hashable:
  """What `player` observes of one step: every eat, or its own keep only (keeps are secret),
  then its hand and its own chips on reaching `after`, and who took which chip."""
  seen = actions[player] if before.keeping else tuple(actions)
  return seen, infoset_key(rules, after, player)[1:]


def resample_piles(rules: R.Rules, table: R.Table, player: int,
                   uniform: Uniform) -> list[int]:
  """Order outcomes for the piles ordered so far, redrawn among those `player` cannot tell apart.

  A pile's order is its given chips then the rest, top first. The values of the chips `player`
  took stay where they are; the other values are shuffled uniformly over the other places (every
  distinct order is equally likely a priori, so this is the exact posterior).
  """
  outcomes = []
  for pile in range(table.ordered):
    given = [c for c in table.chips if c.pile == pile]
    order = [c.value for c in given] + list(table.piles[pile])
    free = [i for i, c in enumerate(given) if c.player != player] + list(
        range(len(given), len(order)))
    values = [order[i] for i in free]
    for i in free:
      order[i] = values.pop(pick_uniformly(range(len(values)), uniform))
    outcomes.append(rules.pile_orders[pile].index(tuple(order)))
  return outcomes


class RoundDeal(NamedTuple):
  hands: list[tuple[int, ...]]  # as dealt, by player
  keeps: list[tuple[int, ...]]  # per turn with a Keep step, each player's kept card


def resample_round(rules: R.Rules, table: R.Table, player: int, round_: int,
                   uniform: Uniform, attempts: int = 10_000) -> RoundDeal:
  """A deal and hidden keeps of round `round_` that `player` cannot tell from the real ones.

  `player` sees its own hands and keeps, and every eat. Cards it has not seen start as blanks; the
  round is replayed with the real eats and `player`'s keeps. Other players keep a card drawn at
  random, except the right neighbour, whose keep must leave exactly the cards `player` received.
  A blank takes a type when an eat or that constraint needs one, and the rest at the end, drawn
  from the unseen cards. A draw that contradicts an observation is discarded and redrawn. Every
  world consistent with what `player` saw can come out, but not with exactly its posterior
  probability (which would depend on the other players' policies anyway).
  """
  turns = [t for t in table.log if t.round == round_]
  if round_ == table.round and table.dealt < rules.deal_steps:
    pool = list(rules.deck)
    return RoundDeal([tuple(draw_cards(pool, rules.hand_size, uniform))
                      for _ in range(rules.num_players)], [])
  first = turns[0].hands[player] if turns else table.hands[player]
  seen_next = [t.hands[player] for t in turns[1:]] + [table.hands[player]]
  for _ in range(attempts):
    deal = _try_round(rules, turns, player, first, seen_next, uniform)
    if deal:
      return deal
  raise RuntimeError(f"no consistent deal found for round {round_ + 1} in {attempts} attempts")


def _try_round(rules, turns, player, first, seen_next, uniform) -> RoundDeal | None:
  """One attempt of `resample_round`: None if a random choice contradicted an observation."""
  n, size = rules.num_players, rules.hand_size
  kinds: list[int | None] = []  # card id -> type, None while blank
  origin: list[int] = []  # card id -> the player dealt it
  hands = []
  for p in range(n):
    cards = [c for c, k in enumerate(first) for _ in range(k)] if p == player else [None] * size
    hands.append(list(range(len(kinds), len(kinds) + size)))
    kinds += cards
    origin += [p] * size
  pool = [d - f for d, f in zip(rules.deck, first)]

  def resolve(card_id: int, kind: int) -> bool:
    if not pool[kind]:
      return False
    pool[kind] -= 1
    kinds[card_id] = kind
    return True

  def pick(choices: list[int]) -> int:
    return pick_uniformly(choices, uniform)

  kept_ids = []
  for t, turn in enumerate(turns):
    for p, action in enumerate(turn.eats):
      card = R.eaten_card(action)
      known = [i for i in hands[p] if kinds[i] == card]
      blanks = [i for i in hands[p] if kinds[i] is None]
      weight = pool[card] / max(1, sum(pool))
      if not known and not (blanks and pool[card]):
        return None
      use_blank = blanks and pool[card] and uniform() * (len(known) + weight * len(blanks)) >= \
          len(known)
      chosen = pick(blanks) if use_blank else pick(known)
      if use_blank:
        resolve(chosen, card)
      hands[p].remove(chosen)
    if not turn.keeps:
      continue
    keeps = []
    for p in range(n):
      if p == player:
        keeps.append(pick([i for i in hands[p] if kinds[i] == turn.keeps[p]]))
      elif (p + 1) % n == player:
        received = R._minus(seen_next[t], turn.keeps[player])
        options = [i for i in hands[p] if _can_pass(hands[p], i, kinds, received, pool)]
        if not options:
          return None
        keeps.append(pick(options))
        rest = [i for i in hands[p] if i != keeps[-1]]
        missing = list(received)
        for i in rest:
          if kinds[i] is not None:
            missing[kinds[i]] -= 1
        needed = [c for c, k in enumerate(missing) for _ in range(k)]
        for i in [i for i in rest if kinds[i] is None]:
          resolve(i, needed.pop(pick_uniformly(range(len(needed)), uniform)))
      else:
        keeps.append(pick(hands[p]))
    kept_ids.append(keeps)
    passed = [[i for i in hand if i != k] for hand, k in zip(hands, keeps)]
    hands = [passed[p - 1] + [keeps[p]] for p in range(n)]
  for i, kind in enumerate(kinds):
    if kind is None:
      kinds[i] = draw_cards(pool, 1, uniform).index(1)
  dealt = [[0] * R.NUM_TYPES for _ in range(n)]
  for i, kind in enumerate(kinds):
    dealt[origin[i]][kind] += 1
  return RoundDeal([tuple(h) for h in dealt],
                   [tuple(kinds[i] for i in keeps) for keeps in kept_ids])


def _can_pass(hand: list[int], keep: int, kinds, received: Sequence[int], pool) -> bool:
  """Whether keeping card `keep` can leave exactly `received`, blanks taking types from `pool`."""
  missing = list(received)
  blanks = 0
  for i in hand:
    if i == keep:
      continue
    if kinds[i] is None:
      blanks += 1
    else:
      missing[kinds[i]] -= 1
  return min(missing) >= 0 and sum(missing) == blanks and all(
      m <= p for m, p in zip(missing, pool))


def resampled_steps(rules: R.Rules, table: R.Table, player: int, uniform: Uniform
                    ) -> list[int | list[int]]:
  """The history of a game `player` cannot tell from the one that reached `table`, as steps
  (chance outcomes as ints, joint actions as lists): the chip piles' orders redrawn
  (`resample_piles`), then for every round so far a redrawn deal and hidden keeps
  (`resample_round`) with the real eats and `player`'s own keeps."""
  piles = resample_piles(rules, table, player, uniform)
  return _steps(rules, table, piles,
                lambda round_: resample_round(rules, table, player, round_, uniform))


def history_steps(rules: R.Rules, table: R.Table) -> list[int | list[int]]:
  """The real history of the game that reached `table`, as `resampled_steps` gives a redrawn
  one."""
  piles = []
  for pile in range(table.ordered):
    order = [chip.value for chip in table.chips if chip.pile == pile] + list(table.piles[pile])
    piles.append(rules.pile_orders[pile].index(tuple(order)))

  def dealt(round_: int) -> RoundDeal:
    turns = [t for t in table.log if t.round == round_]
    return RoundDeal(list(turns[0].hands if turns else table.hands),
                     [turn.keeps for turn in turns if turn.keeps])
  return _steps(rules, table, piles, dealt)


def _steps(rules: R.Rules, table: R.Table, piles: list[int], deal_of) -> list[int | list[int]]:
  """Steps from the pile orders `piles`, then for every round so far the deal and keeps
  `deal_of(round)` gives, with the real eats (the keeps of the log's turns, in order)."""
  steps: list[int | list[int]] = list(piles)
  if table.ordered < NUM_PILES:
    return steps
  for round_ in range(table.round + 1):
    deal = deal_of(round_)
    dealt = table.dealt if round_ == table.round else rules.deal_steps
    steps += deal_outcomes(rules, deal.hands)[:dealt]
    turns = [t for t in table.log if t.round == round_]
    for turn, keeps in zip(turns, deal.keeps + [()] * len(turns)):
      steps.append(list(turn.eats))
      if turn.keeps:
        steps.append([R.KEEP + c for c in keeps])
  return steps


def round_decisions(rules: R.Rules, table: R.Table) -> list[tuple[R.Table, list[int]]]:
  """The decisions of the current round so far (Eat and Keep steps): the table at each and the
  joint action played."""
  decisions = []
  replayed = R.initial_table(rules)
  for step in history_steps(rules, table):
    if isinstance(step, list):
      if replayed.round == table.round:
        decisions.append((replayed, step))
      replayed = R.play(rules, replayed, step)
    else:
      replayed = R.apply_chance(rules, replayed, step)
  return decisions


def determinize(rules: R.Rules, table: R.Table, player: int, uniform: Uniform) -> R.Table:
  """A table `player` cannot tell from `table`: `resampled_steps` replayed from the start (the
  table itself once the game is over)."""
  if table.actor == TERMINAL:
    return table
  return replay(rules, resampled_steps(rules, table, player, uniform))


def replay(rules: R.Rules, steps: list[int | list[int]]) -> R.Table:
  """The table the steps reach from the start of the game."""
  table = R.initial_table(rules)
  for step in steps:
    table = R.play(rules, table, step) if isinstance(step, list) else \
        R.apply_chance(rules, table, step)
  return table

