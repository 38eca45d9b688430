"""Helpers for the tests: card names, dealing chosen hands, playing by name, random walks."""

from __future__ import annotations

import collections
import pathlib
import random
from fractions import Fraction

import numpy as np
import pyspiel

import sushigo_spiel  # noqa: F401  (registers the game)
from solvers import archives
from sushigo_spiel.drafting import sampling

# The canonical card names of the rules (docs/rules.md), written out here rather than read from the
# package, so the tests do not take the names from the code they test.
T = "Tempura"
SA = "Sashimi"
D = "Dumpling"
M1 = "Maki Roll 1"
M2 = "Maki Roll 2"
M3 = "Maki Roll 3"
EGG = "Egg Nigiri"
SAL = "Salmon Nigiri"
SQ = "Squid Nigiri"
W = "Wasabi"
CH = "Chopsticks"
P = "Pudding"


def load(**params) -> pyspiel.Game:
  return pyspiel.load_game("python_sushi_go", params)


def action_by_name(state, player: int, name: str) -> int:
  """The action id whose string is `name` ("Tempura", "Wasabi + Squid Nigiri")."""
  game = state.get_game()
  for action in range(game.num_distinct_actions()):
    if state.action_to_string(player, action) == name:
      return action
  raise KeyError(f"no action named {name!r}")


def deal(state, hands: list[list[str]]) -> None:
  """Deals the given hands (card names) at the chance nodes of a `deal=card` game (the robot's
  pile is the last hand in the robot variant)."""
  rules = state.get_game().rules
  ids = {card.name: c for c, card in enumerate(rules.cards)}
  for hand in hands:
    for name in hand:
      assert state.is_chance_node(), "deal() called with more cards than the deal needs"
      state.apply_action(ids[name])
  dealt = state.table().dealt
  assert dealt == rules.deal_steps, "deal() got fewer cards than the deal needs"


def play(state, picks: list[str]) -> None:
  """Plays one turn: `picks[p]` is the action string of player p."""
  state.apply_actions([action_by_name(state, p, name) for p, name in enumerate(picks)])


def legal_names(state, player: int) -> list[str]:
  return [state.action_to_string(player, a) for a in state.legal_actions(player)]


def random_playout(state, rng: random.Random, stop=None):
  """Plays uniformly at random (chance by its probabilities) until the end or `stop(state)`."""
  while not state.is_terminal() and not (stop and stop(state)):
    if state.is_chance_node():
      actions, probs = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(actions, probs)[0])
    else:
      state.apply_actions([rng.choice(state.legal_actions(p))
                           for p in range(state.get_game().num_players())])
  return state


def play_with_bots(game, bots, seed: int):
  """Plays a whole game with one bot per player (chance by its probabilities), checking every
  choice is legal and every state against `invariants` (cards conserved, points as the rulebook
  says); returns the final state and the joint actions played."""
  from invariants import check_state  # pylint: disable=import-outside-toplevel  (imports us)
  state, rng = game.new_initial_state(), random.Random(seed)
  actions = []
  while not state.is_terminal():
    if state.is_chance_node():
      random_playout(state, rng, stop=lambda s: not s.is_chance_node())
    else:
      check_state(state)
      joint = [bot.step(state) for bot in bots]
      for p, action in enumerate(joint):
        assert action in state.legal_actions(p), (p, action)
      actions.append(joint)
      state.apply_actions(joint)
  check_state(state)
  return state, actions


def walk(state, rng: random.Random, include_end: bool = False):
  """Plays at random (chance by its probabilities), yielding the state before every step, and
  the final state too with `include_end`."""
  n = state.get_game().num_players()
  while not state.is_terminal():
    yield state
    if state.is_chance_node():
      actions, probs = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(actions, probs)[0])
    else:
      state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(n)])
  if include_end:
    yield state


def card_totals(state) -> list[int]:
  """Cards per type in the deck, the hands, this round's tableaus and finished rounds' tableaus
  (the robot's too in the robot variant)."""
  table = state.table()
  totals = list(table.deck)
  for hand in table.hands:
    totals = [a + b for a, b in zip(totals, hand)]
  tableaus = list(table.tableaus) + [t for result in table.results for t in result.tableaus]
  tableaus += [result.robot_tableau for result in table.results]
  if table.robot:  # the robot variant: its pile and this round's tableau
    totals = [a + b for a, b in zip(totals, table.robot.pile)]
    tableaus.append(table.robot.tableau)
  for tableau in tableaus:
    for card in tableau:
      totals[card] += 1
  return totals


def tournament_config(name: str, seed: int, game: str, num_games: int,
                      second_bot: str = '{ name = "greedy", bot = "greedy" }') -> str:
  """The TOML of a tournament of the random bot against `second_bot` (an inline table)."""
  return (f'players = [{{ name = "random", bot = "random" }}, {second_bot}]\n\n'
          f'[experiment]\nname = "{name}"\nseed = {seed}\ngames = ["{game}"]\n'
          f'num_games = {num_games}\n')


TINY_TOURNAMENT = tournament_config("tiny", 5, "python_sushi_go(players=2,rounds=1)", 2)


def finished_run(directory: pathlib.Path, text: str = TINY_TOURNAMENT):
  """Writes the tournament `text` to `directory`/config.toml and runs it to `directory`/run;
  returns both paths."""
  from experiments.cli import main  # pylint: disable=import-outside-toplevel  (a test helper's)
  config, run_dir = directory / "config.toml", directory / "run"
  config.write_text(text)
  assert main(["run", str(config), "--out", str(run_dir), "--quiet"]) == 0
  return config, run_dir


def save_unchecked(path, policy) -> str:
  """Writes `policy` (an `abstraction.LiftedPolicy`) as `policies.save_policy` does, with its
  digest, but without the value checks that make `save_policy` refuse a NaN or a sum other than
  1: a hand-made file, for tests of the checks at load. Returns the path."""
  keys, counts, actions, probabilities = [], [], [], []
  for key, (acts, probs) in policy.strategy.items():
    keys.append(repr(key))
    counts.append(len(acts))
    actions.extend(acts)
    probabilities.extend(np.asarray(probs, np.float64).tolist())
  arrays = {f"abstraction_{name}": np.asarray(value)
            for name, value in policy.abstraction.arrays.items()}
  arrays.update(keys=np.array(keys, dtype=str), counts=np.array(counts, np.int64),
                actions=np.array(actions, np.int64),
                probabilities=np.array(probabilities, np.float64))
  archives.save(path, arrays, {**policy.metadata, "game": str(policy.game),
                               "abstraction": policy.abstraction.name})
  return str(path)


def exact_resample_distribution(monkeypatch, state, player) -> dict:
  """Each table `state.resample_from_infostate(player, ...)` can give, with its exact probability:
  every sequence of draws its sampler can make is walked, each card drawn with probability
  count / total as `sampling.pick_index` draws it, in fractions."""
  distribution = collections.defaultdict(Fraction)
  prefix: list[int] = []
  while True:
    taken: list[tuple[list[int], int]] = []
    probability = [Fraction(1)]

    def pick(counts, uniform):
      choices = [index for index, count in enumerate(counts) if count]
      index = prefix[len(taken)] if len(taken) < len(prefix) else choices[0]
      taken.append((choices, index))
      probability[0] *= Fraction(counts[index], sum(counts))
      return index

    monkeypatch.setattr(sampling, "pick_index", pick)
    table = state.resample_from_infostate(player, lambda: 0.0).table()
    monkeypatch.undo()
    distribution[table] += probability[0]
    prefix = _next_prefix(taken)
    if prefix is None:
      return dict(distribution)


def _next_prefix(taken):
  """The draws of the next sequence to walk (depth first), or None after the last."""
  while taken:
    choices, index = taken.pop()
    position = choices.index(index)
    if position + 1 < len(choices):
      return [index for _, index in taken] + [choices[position + 1]]
  return None


class FlushedOnly:
  """A stdout that shows only what was flushed, as a pipe read while the process runs would."""

  def __init__(self):
    self.pending, self.shown = "", ""

  def write(self, text: str) -> int:
    self.pending += text
    return len(text)

  def flush(self) -> None:
    self.shown, self.pending = self.shown + self.pending, ""
