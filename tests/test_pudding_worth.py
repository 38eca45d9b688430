"""The Pudding-worth measurement of the subgame bot's leaves."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.solving import pudding_worth
from solvers.equilibrium.subgame import DEFAULT_BLUEPRINT


def test_a_lead_under_random_play_is_worth_whole_majorities_only():
  """With random continuations and common random numbers the playouts of the level and the
  leading positions are the same games, so a lead gains 0 or 6 points of margin a playout (the
  two-player majority, no penalty for the fewest)."""
  table = pudding_worth.worths("random/random", 1, positions=3, playouts=4,
                               blueprint_path=DEFAULT_BLUEPRINT)
  assert table.shape == (3, len(pudding_worth.LEADS))
  assert set(np.unique(table * 4 / 6).tolist()) <= set(range(5)), table


def test_bad_counts_are_refused(capsys):
  with pytest.raises(SystemExit):
    pudding_worth.main(["--playouts", "0"])
  assert "--playouts is 0; allowed: an integer >= 1" in capsys.readouterr().err
