"""Golden playthroughs: whole games for fixed seeds, compared with stored text files.

Each file under `tests/data/golden/` is one game, played with `random.Random(seed)`: a chance
outcome is drawn with `rng.choices(actions, probs)`, each player's pick (players in order) with
`rng.choice(sorted(legal_actions))`. The file lists every step (the chance outcome's string, or each
player's action string), every player's `information_state_string` at each decision node (as the
lines that differ from that player's previous one: lossless and short, since information states
are perfect recall), each round's `round_records` points and the final returns.

A difference means the game's behaviour or its strings changed. If the change is intended,
regenerate the files on purpose and review the diff:

  cd /work/main && SUSHIGO_UPDATE_GOLDEN=1 PYTHONPATH=/work/main \
      python -m pytest tests/test_golden.py -q
"""

from __future__ import annotations

import difflib
import os
import pathlib
import random

import pyspiel
import pytest

import sushigo_spiel  # noqa: F401  (registers the game)

GOLDEN_DIR = pathlib.Path(__file__).parent / "data" / "golden"
UPDATE = os.environ.get("SUSHIGO_UPDATE_GOLDEN") == "1"
CHANCE = int(pyspiel.PlayerId.CHANCE)

GAMES = [
    ("standard_2p_seed0", "python_sushi_go(players=2)", 0),
    ("standard_3p_seed1", "python_sushi_go(players=3)", 1),
    ("standard_5p_seed2", "python_sushi_go(players=5)", 2),
    ("reduced_3p_deal_hand_seed3",
     "python_sushi_go(players=3,hand_size=4,rounds=2,deal=hand,utility=margin,"
     "deck=tempura:4/sashimi:4/dumpling:4/maki2:3/salmon:3/wasabi:2/chopsticks:2/pudding:3)", 3),
    ("sushi_draft_3p_seed4", "python_sushi_draft(players=3)", 4),
]


def playthrough(game_string: str, seed: int) -> str:
  """The text of one game played at random from `seed`.

  Chance outcomes are listed in runs, `hand_size` per line when dealing card by card (so a line
  is one player's hand). Information states are perfect recall, so each one mostly repeats the
  previous one: a player's string is shown from its first line that differs from that player's
  string at the previous decision node, with the number of lines kept; the full strings follow
  from the file.
  """
  game = pyspiel.load_game(game_string)
  n = game.num_players()
  params = game.get_parameters()
  per_line = game.rules.hand_size if params["deal"] == "card" else 1
  rng = random.Random(seed)
  state = game.new_initial_state()
  lines = [f"game: {game}", f"seed: {seed}",
           "(info: each player's information_state_string from its first line that differs from"
           " the one at the previous decision node)"]
  previous = [[] for _ in range(n)]
  dealt, decisions, rounds_done = [], 0, 0
  while not state.is_terminal():
    if state.is_chance_node():
      actions, probs = zip(*state.chance_outcomes())
      action = rng.choices(actions, probs)[0]
      dealt.append(state.action_to_string(CHANCE, action))
      state.apply_action(action)
      if len(dealt) == per_line or not state.is_chance_node():
        lines.append("chance: " + " | ".join(dealt))
        dealt = []
    else:
      decisions += 1
      lines.append(f"decision {decisions}:")
      for p in range(n):
        info = state.information_state_string(p).split("\n")
        kept = next((i for i, (a, b) in enumerate(zip(info, previous[p])) if a != b),
                    min(len(info), len(previous[p])))
        lines.append(f"  info P{p}, lines after {kept}:")
        lines += [f"    {line}" for line in info[kept:]]
        previous[p] = info
      joint = [rng.choice(sorted(state.legal_actions(p))) for p in range(n)]
      lines.append("  actions: " + " | ".join(
          f"P{p} {state.action_to_string(p, a)}" for p, a in enumerate(joint)))
      state.apply_actions(joint)
    records = state.round_records()
    while rounds_done < len(records):
      lines.append(f"round {rounds_done + 1} points: {records[rounds_done].points}")
      rounds_done += 1
  lines.append(f"returns: {state.returns()}")
  return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name, game_string, seed", GAMES, ids=[g[0] for g in GAMES])
def test_golden_playthrough(name, game_string, seed):
  path = GOLDEN_DIR / f"{name}.txt"
  text = playthrough(game_string, seed)
  if UPDATE:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
  assert path.exists(), f"{path} is missing; generate it with SUSHIGO_UPDATE_GOLDEN=1"
  expected = path.read_text(encoding="utf-8")
  if text != expected:
    diff = difflib.unified_diff(expected.splitlines(), text.splitlines(), "stored", "now",
                                lineterm="", n=2)
    shown = "\n".join(line for _, line in zip(range(60), diff))
    pytest.fail(f"{name} differs from {path} (SUSHIGO_UPDATE_GOLDEN=1 regenerates it):\n{shown}")


def test_playthrough_is_deterministic():
  _, game_string, seed = GAMES[0]
  assert playthrough(game_string, seed) == playthrough(game_string, seed)
  assert playthrough(game_string, seed) != playthrough(game_string, seed + 1)


def test_golden_files_are_complete():
  # Every stored file belongs to a game above, and each ends with the final returns.
  stored = {p.stem for p in GOLDEN_DIR.glob("*.txt")}
  assert stored == {name for name, _, _ in GAMES}
  for name, _, _ in GAMES:
    text = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert text.splitlines()[-1].startswith("returns: [")
