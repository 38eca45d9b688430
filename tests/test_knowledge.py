"""One answer to "what does player p know here": the bots' view, the abstraction keys, the
observation and determinization all read `knowledge`, and they agree on what is unseen.

The unseen pool is recomputed here from the observation tensor alone (the deck's composition less
every card the tensor shows: own hand, seen hands, every tableau this round, the robot's tableau,
and the tableaus of finished rounds read from the public picks of the information state), so a
view that forgot a source of seen cards (as the bots' view once forgot the robot's tableau) fails.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from solvers.baselines import table_view
from solvers.equilibrium import abstraction as A
from sushigo_spiel.sushi_go import knowledge
from support import walk

GAMES = [
    "python_sushi_go(players=2,robot=true)",
    "python_sushi_go(players=2,robot=true,deal=hand,rounds=2,hand_size=4,"
    "deck=tempura:6/sashimi:5/dumpling:5/maki2:4/salmon:4/wasabi:3/chopsticks:3/pudding:4)",
    "python_sushi_go(players=3,rounds=2)",
    "python_sushi_go(players=2,soy_sauce=true)",
]


def unseen_from_tensors(state, player: int) -> tuple[int, ...]:
  """The deck less every card `player`'s observation and information-state tensors show."""
  game = state.get_game()
  rules = game.rules
  observation = pyspiel.IIGObservationType(perfect_recall=False)
  obs = game.make_py_observer(observation)
  obs.set_from(state, player)
  history = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
  history.set_from(state, player)
  seen = obs.dict["hand"] + obs.dict["seen_hands"][:, :-1].sum(axis=0)
  seen = seen + obs.dict["tableaus"].sum(axis=0)
  if "robot_tableau" in obs.dict:
    seen = seen + obs.dict["robot_tableau"]
  picks = history.dict["picks"][:table_round(state)]  # finished rounds x turn x seat x slot x type
  seen = seen + picks.sum(axis=(0, 1, 2, 3))
  if rules.chopsticks >= 0:  # each pair put a Chopsticks back into a hand, picked again later
    seen[rules.chopsticks] -= picks[:, :, :, 1].sum()
  if "robot_picks" in history.dict:
    seen = seen + history.dict["robot_picks"][:table_round(state)].sum(axis=(0, 1))
  return tuple(int(n) for n in np.asarray(rules.deck) - seen)


def table_round(state) -> int:
  return state.table().round


@pytest.mark.parametrize("game_string", GAMES)
def test_view_abstraction_and_observation_agree_on_what_is_unseen(game_string):
  game = pyspiel.load_game(game_string)
  rules = game.rules
  canonical = A.Canonical()
  rng = random.Random(11)
  checked = 0
  for seed in range(3):
    for state in walk(game.new_initial_state(), random.Random(seed)):
      if not state.is_simultaneous_node():
        continue
      for player in range(rules.num_players):
        table = state.table()
        knows = knowledge.knowledge(rules, table, player)
        view = table_view(rules, table, player)
        assert view.unseen == knows.unseen == unseen_from_tensors(state, player)
        assert dict(knows.seen) == view.seen_hands
        key = canonical.key(rules, table, player)
        assert knows.unseen in key
        other = state.resample_from_infostate(player, rng.random)
        other_table = other.table()
        assert table_view(rules, other_table, player).unseen == view.unseen
        assert canonical.key(rules, other_table, player) == key
        assert other.observation_tensor(player) == state.observation_tensor(player)
        assert unseen_from_tensors(other, player) == view.unseen
        checked += 1
  assert checked > 40


def test_robot_tableau_is_not_unseen():
  """The robot's cards on the table are seen by both players: a Sashimi the robot placed is not
  among the cards either player can still meet."""
  game = pyspiel.load_game("python_sushi_go(players=2,robot=true)")
  rules = game.rules
  for state in walk(game.new_initial_state(), random.Random(5)):
    table = state.table()
    if state.is_simultaneous_node() and table.robot.tableau:
      placed = [0] * rules.num_types
      for card in table.robot.tableau:
        placed[card] += 1
      for player in range(2):
        unseen = knowledge.knowledge(rules, table, player).unseen
        undealt_and_hidden = [d + p for d, p in zip(table.deck, table.robot.pile)]
        if not knowledge.hand_seen(rules, table, player, 1 - player):
          undealt_and_hidden = [u + h for u, h in zip(undealt_and_hidden, table.hands[1 - player])]
        assert list(unseen) == undealt_and_hidden
      return
  raise AssertionError("no robot card was placed in this game")
