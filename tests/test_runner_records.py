"""The runner's records held against oracles outside the runner: does each record credit its scores
to the bot that sat in that seat, with the parameters the config gave it?

The runner is driven only through the command line (`sushigo run`) and read only through the run
folder's files (records.jsonl), as a user would, so these tests survive any reorganisation of
`experiments/`. Three oracles:

- Replay: every record is played again here, from the config text and the seeding scheme the run
  folder format documents (game i draws from `numpy.random.SeedSequence(seed, spawn_key=(i,))`,
  spawning the chance stream and then one seed per seat), with `solvers.make_bot` and
  `solvers.match.play_match`; scores, points by round and category, Puddings, returns and winners
  must be the record's.
- Strength: a heuristic bot against the same bot made nearly random by its `temperature`
  parameter. The records must credit the sharp one with most wins (a Wilson bound), which fails
  if seats are swapped or parameters dropped.
- Recognisable play: a Pudding lover (a large `pudding_weight`) against a Pudding hater (a negative
  one). The lover's seat must hold more Puddings in nearly every game.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import re
import tomllib
import types

import numpy as np
import pyspiel
import pytest

import rulebook
import solvers
import sushigo_spiel  # noqa: F401  (registers the games)
from experiments import run_folder
from experiments.cli import main
from solvers.match import play_match
from strength import wilson_lower_bound

REPLAY_CONFIG = """
[experiment]
name = "replay"
seed = 31
games = ["python_sushi_go(players=2,rounds=2)", "python_sushi_go(players=3,rounds=1)"]
num_games = 6

[[players]]
name = "wild"
bot = "random"

[[players]]
name = "cautious"
bot = "heuristic"
params = { pudding_weight = 3.0, temperature = 0.7 }

[[players]]
name = "plain"
bot = "greedy"
"""

FIXED_CONFIG = """
[experiment]
name = "fixed"
seed = 8
games = ["python_sushi_go(players=3,rounds=1,hand_size=5)"]
num_games = 5
rotation = "fixed"

[[players]]
name = "lover"
bot = "heuristic"
params = { pudding_weight = 40.0 }

[[players]]
name = "wild"
bot = "random"

[[players]]
name = "hater"
bot = "heuristic"
params = { pudding_weight = -40.0, temperature = 0.3 }
"""

STRENGTH_CONFIG = """
[experiment]
name = "strength"
seed = 7
games = ["python_sushi_go(players=2,rounds=1)"]
num_games = 60

[[players]]
name = "sharp"
bot = "heuristic"

[[players]]
name = "blunt"
bot = "heuristic"
params = { temperature = 1000.0 }
"""

PUDDING_CONFIG = """
[experiment]
name = "puddings"
seed = 3
games = ["python_sushi_go(players=2,rounds=1,deck=pudding:20/tempura:20/dumpling:20)",
         "python_sushi_go(players=3,rounds=1,deck=pudding:20/tempura:20/dumpling:20)"]
num_games = 12
rotation = "cyclic"

[[players]]
name = "lover"
bot = "heuristic"
params = { pudding_weight = 50.0 }

[[players]]
name = "hater"
bot = "heuristic"
params = { pudding_weight = -50.0 }
"""

def run_records(tmp_path: pathlib.Path, text: str) -> list[dict]:
  """Runs `text` through the command line into a fresh folder; returns its records."""
  config = tmp_path / "config.toml"
  config.write_text(text, encoding="utf-8")
  out = tmp_path / "run"
  assert main(["run", str(config), "--out", str(out), "--quiet"]) in (0, None)
  lines = (out / "records.jsonl").read_text(encoding="utf-8").splitlines()
  return [json.loads(line) for line in lines]


def competitors(text: str) -> dict[str, tuple[str, dict]]:
  """Competitor name -> (bot, params), read from the config text."""
  players = tomllib.loads(text)["players"]
  return {p.get("name", p["bot"]): (p["bot"], p.get("params", {})) for p in players}


def seeds_of(entropy: int, index: int, seats: int) -> tuple[np.random.SeedSequence, list[int]]:
  """Game `index`'s chance stream and seat seeds, by the scheme of the run folder format."""
  chance, *seat_seeds = np.random.SeedSequence(entropy, spawn_key=(index,)).spawn(1 + seats)
  return chance, [int(seed.generate_state(1)[0]) for seed in seat_seeds]


@pytest.fixture(scope="module")
def replayed_run(tmp_path_factory):
  return run_records(tmp_path_factory.mktemp("replay"), REPLAY_CONFIG)


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory):
  return run_records(tmp_path_factory.mktemp("fixed"), FIXED_CONFIG)


@pytest.fixture(scope="module", params=["rotated", "fixed"])
def config_and_records(request):
  """A run with rotated seats (REPLAY_CONFIG) and one with fixed seats (FIXED_CONFIG)."""
  if request.param == "rotated":
    return REPLAY_CONFIG, request.getfixturevalue("replayed_run")
  return FIXED_CONFIG, request.getfixturevalue("fixed_run")


def test_records_cover_the_schedule(replayed_run):
  assert [r["index"] for r in replayed_run] == list(range(12))
  games = tomllib.loads(REPLAY_CONFIG)["experiment"]["games"]
  assert [r["game"] for r in replayed_run] == [games[0]] * 6 + [games[1]] * 6
  names = set(competitors(REPLAY_CONFIG))
  for record in replayed_run:
    assert len(record["seats"]) == pyspiel.load_game(record["game"]).num_players()
    assert set(record["seats"]) <= names


def test_records_name_each_seats_bot_parameters_and_seed(config_and_records):
  text, records = config_and_records
  bots, entropy = competitors(text), tomllib.loads(text)["experiment"]["seed"]
  for record in records:
    _, seeds = seeds_of(entropy, record["index"], len(record["seats"]))
    assert record["seed"] == {"entropy": entropy, "spawn_key": [record["index"]]}
    assert record["bots"] == [{"bot": bots[name][0], "params": bots[name][1], "seed": seed}
                              for name, seed in zip(record["seats"], seeds)]


def test_every_record_is_what_its_seated_bots_play(config_and_records):
  text, records = config_and_records
  bots, entropy = competitors(text), tomllib.loads(text)["experiment"]["seed"]
  for record in records:
    game = pyspiel.load_game(record["game"])
    chance, seeds = seeds_of(entropy, record["index"], len(record["seats"]))
    players = [solvers.make_bot(bots[name][0], game, seat, seeds[seat], **bots[name][1])
               for seat, name in enumerate(record["seats"])]
    state = play_match(game, players, np.random.default_rng(chance))
    assert record["scores"] == state.scores(), record["index"]
    assert record["returns"] == state.returns()
    assert record["rounds"] == [r.points for r in state.round_records()]
    assert record["breakdown"] == [r.breakdown for r in state.round_records()]
    assert record["puddings"] == state.puddings()
    assert record["winners"] == rulebook.winners(record["scores"], record["puddings"])


def test_records_credit_the_stronger_bot_with_its_wins(tmp_path):
  records = run_records(tmp_path, STRENGTH_CONFIG)
  assert len(records) == 60
  assert {tuple(r["seats"]) for r in records} == {("sharp", "blunt"), ("blunt", "sharp")}
  sharp_wins = sum(1 for r in records
                   for seat in r["winners"] if r["seats"][seat] == "sharp")
  assert wilson_lower_bound(sharp_wins, len(records)) > 0.5, sharp_wins


def test_records_show_the_pudding_lover_holding_the_puddings(tmp_path):
  records = run_records(tmp_path, PUDDING_CONFIG)
  assert len(records) == 24
  more = 0
  for record in records:
    seats = record["seats"]
    assert set(seats) == {"lover", "hater"}
    lover = max(n for s, n in zip(seats, record["puddings"]) if s == "lover")
    hater = max(n for s, n in zip(seats, record["puddings"]) if s == "hater")
    more += lover > hater
  assert wilson_lower_bound(more, len(records)) > 0.5, more


def test_fixed_rotation_keeps_each_competitor_in_its_seat(fixed_run):
  assert len(fixed_run) == 5
  assert all(r["seats"] == ["lover", "wild", "hater"] for r in fixed_run)


def test_a_run_without_out_gets_a_new_folder_under_runs_beside_any_taken(tmp_path, monkeypatch):
  config = tmp_path / "config.toml"
  config.write_text(FIXED_CONFIG.replace("num_games = 5", "num_games = 1"), encoding="utf-8")
  monkeypatch.chdir(tmp_path)
  runs = tmp_path / "runs"
  start = datetime.datetime.now()
  for second in range(120):  # take every dated name of the next two minutes
    stamp = (start + datetime.timedelta(seconds=second)).strftime("%Y%m%d-%H%M%S")
    (runs / f"fixed-{stamp}").mkdir(parents=True)
  taken = set(runs.iterdir())
  for _ in range(2):
    assert main(["run", str(config), "--quiet"]) in (0, None)
  made = sorted(set(runs.iterdir()) - taken)
  assert len(made) == 2
  for folder in made:
    assert re.fullmatch(r"fixed-\d{8}-\d{6}-[23]", folder.name), folder.name
    assert (folder.parent / folder.name[:-2]) in taken  # beside the dated name it found taken
    records = (folder / "records.jsonl").read_text().splitlines()
    assert [json.loads(line)["seats"] for line in records] == [["lover", "wild", "hater"]]
  if made[0].name[:-2] == made[1].name[:-2]:  # both in one second: -2, then -3
    assert [m.name[-2:] for m in made] == ["-2", "-3"]
  else:
    assert [m.name[-2:] for m in made] == ["-2", "-2"]


def test_force_starts_a_folder_over(tmp_path):
  config = tmp_path / "config.toml"
  config.write_text(FIXED_CONFIG, encoding="utf-8")
  out = tmp_path / "run"
  assert main(["run", str(config), "--out", str(out), "--quiet"]) in (0, None)
  (out / "plots" / "stale.png").parent.mkdir(exist_ok=True)
  (out / "plots" / "stale.png").write_bytes(b"old")  # not in the run's manifest
  (out / "summary.md").unlink()  # a run interrupted before its report
  (out / "notes.txt").write_text("mine")  # not the run's: kept
  other = tmp_path / "other.toml"
  other.write_text(FIXED_CONFIG.replace("num_games = 5", "num_games = 2"), encoding="utf-8")
  assert main(["run", str(other), "--out", str(out), "--quiet", "--force"]) in (0, None)
  assert (out / "plots" / "stale.png").read_bytes() == b"old"  # --force removes only the run's
  assert (out / "notes.txt").read_text() == "mine"
  assert len((out / "records.jsonl").read_text().splitlines()) == 2
  assert (out / "config.toml").read_text() == other.read_text()
  sessions = json.loads((out / "provenance.json").read_text())["sessions"]
  assert [s["games_played"] for s in sessions] == [2]


def test_provenance_names_the_code_a_session_started_with(tmp_path, monkeypatch):
  """The sources edited while a long run goes on: its session's provenance keeps the commit and
  the sources' fingerprints taken when it started, not those found when it ended."""
  session = run_folder.Session("local", 1, None, {})
  monkeypatch.setattr(run_folder, "git_commit", lambda: "edited since")
  monkeypatch.setattr(run_folder, "_source_hash", lambda module: "edited since")
  run_folder.add_provenance(tmp_path, types.SimpleNamespace(hash="config"), session)
  recorded = json.loads((tmp_path / "provenance.json").read_text())["sessions"][0]
  assert recorded["git_commit"] == session.code["git_commit"]
  assert recorded["source_sha256"]["solvers"] == session.code["source_sha256"]["solvers"]
  assert "edited since" not in json.dumps(recorded)
