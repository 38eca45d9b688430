"""The compiled core's determinization draws exactly the distribution of `resample_from_infostate`.

On small games the distribution of `resample_from_infostate` is computed exactly
(`support.exact_resample_distribution`). The core's determinization is sampled many
times from one stream, and its outcomes must be exactly the possible ones, with frequencies a
chi-square test accepts. (That both consume one stream identically is checked draw for draw in
`test_compiled_core`.)
"""

from __future__ import annotations

import collections
import random

import numpy as np
import pytest
from scipy import stats

from sushigo_spiel.compiled import CompiledSushiGo, new_state
from support import CH, D, P, SA, SQ, T, deal, exact_resample_distribution, load, play

SAMPLES = 30_000


def check_distribution(monkeypatch, state, player, seed):
  exact = exact_resample_distribution(monkeypatch, state, player)
  assert sum(exact.values()) == 1
  compiled = CompiledSushiGo(state.get_game().rules)
  pos, rng = compiled.encode(state.table()), new_state(seed)
  counts = collections.Counter(compiled.determinize(pos, player, rng).tobytes()
                               for _ in range(SAMPLES))
  found = {compiled.decode(np.frombuffer(key, dtype=pos.dtype)): count
           for key, count in counts.items()}
  assert set(found) <= set(exact)
  tables = sorted(exact, key=exact.get)
  observed = [found.get(table, 0) for table in tables]
  expected = [float(exact[table]) * SAMPLES for table in tables]
  observed, expected = _pool_rare(observed, expected)
  if len(expected) > 1:
    assert stats.chisquare(observed, expected).pvalue > 1e-4, (observed, expected)
  return len(tables)


def _pool_rare(observed, expected, least=5.0):
  """Merges the outcomes expected fewer than `least` times (sorted by expectation, rarest first)
  into one bin, as a chi-square test needs."""
  rare = 0
  while rare < len(expected) and (sum(expected[:rare]) < least or expected[rare] < least):
    rare += 1
  if rare <= 1:
    return observed, expected
  return [sum(observed[:rare])] + observed[rare:], [sum(expected[:rare])] + expected[rare:]


def _random_until(game, seed, stop):
  """Plays at random (chance by its probabilities) until `stop(state)`."""
  rng, state = random.Random(seed), game.new_initial_state()
  while not stop(state):
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(rng.choices(outcomes, probabilities)[0])
    else:
      state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
  return state


THREE_PLAYERS = dict(players=3, rounds=2, hand_size=3, deck="tempura:6/squid:5/wasabi:4/pudding:4")
ROBOT = dict(robot=True, rounds=1, hand_size=3, deck="tempura:4/squid:3/wasabi:3")
HAND_DEAL = dict(players=3, rounds=1, hand_size=3, deal="hand",
                 deck="tempura:4/squid:3/chopsticks:3")


@pytest.mark.parametrize("params, table_at, seed", [
    (THREE_PLAYERS, dict(round=0, dealt=4), 0),   # mid-deal: every hand dealt so far unseen
    (THREE_PLAYERS, dict(round=0, turn=0), 1),    # the others' hands and the deck unseen
    (THREE_PLAYERS, dict(round=1, turn=1), 2),    # one hand unseen, the second round
    (HAND_DEAL, dict(round=0, dealt=2), 3),
    (HAND_DEAL, dict(round=0, turn=1), 4),
    (ROBOT, dict(round=0, dealt=9), 5),           # the robot's first draw is next
    (ROBOT, dict(round=0, turn=0), 6),            # after a draw: the controller's draw unseen
    (ROBOT, dict(round=0, turn=1), 7),
], ids=lambda value: str(value) if isinstance(value, dict) and "round" in value else None)
def test_determinization_draws_the_distribution_of_resample_from_infostate(
    monkeypatch, params, table_at, seed):
  game = load(**params)

  def reached(state):
    table = state.table()
    return all(getattr(table, field) == value for field, value in table_at.items()) and (
        "turn" not in table_at or state.is_simultaneous_node())

  state = _random_until(game, seed, reached)
  outcomes = [check_distribution(monkeypatch, state, p, seed) for p in range(game.num_players())]
  assert max(outcomes) > 1


def test_determinization_keeps_the_chopsticks_returned_to_an_unseen_hand(monkeypatch):
  # At the second turn player 2 uses Chopsticks on the hand first dealt to player 1, the one hand
  # player 0 has not seen at the third turn: it must hold those Chopsticks in every redeal.
  game = load(players=4, hand_size=4, rounds=1,
              deck="tempura:7/sashimi:3/dumpling:3/squid:2/chopsticks:1/pudding:5")
  state = game.new_initial_state()
  deal(state, [[P] * 4, [T, T, SQ, D], [CH, SA, SA, D], [T] * 4])
  play(state, [P, T, CH, T])
  play(state, [T, P, "Tempura + Dumpling", SA])
  assert sorted(state.hands()[3]) == sorted([SQ, CH])
  assert check_distribution(monkeypatch, state, 0, 11) > 1
