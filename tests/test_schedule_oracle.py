"""The seating schedule and the per-game seeds, recomputed here from the documented scheme
(docs/experiments.md, "Seating schedule" and "Reproducible"; the docstrings of
experiments/tournament/config.py and experiments/tournament/__init__.py) and held against what the
runner schedules (`Config.matchup`, `Config.cycle`, the resolved config's cycle lengths) and
against the `seats`, `game`, `seed` and bot seeds of the records `sushigo run` writes.

The scheme, as documented:

* a lineup fills n seats from k competitors as evenly as it can: n // k seats each, and the
  n % k seats left over go to every subset of n % k competitors in turn (subsets in
  lexicographic order); copies are spread out (A B A B, not A A B B);
* with an anchor, the lineups are instead each other competitor (in config order) alone in seat 0
  against n - 1 copies of the anchor;
* "all" seats each lineup in every distinct permutation (lexicographic in the positions, repeats
  dropped); "cyclic" in its distinct rotations (shift s puts the lineup's seat s first); "fixed"
  keeps competitor p in seat p;
* game i plays `games[i // num_games]` with seating `cycle[(i % num_games) % len(cycle)]`;
* game i draws from `numpy.random.SeedSequence(seed, spawn_key=(i,))`: it spawns the chance
  stream, then one child per seat whose first 32-bit word is that seat's bot seed.
"""

from __future__ import annotations

import collections
import itertools
import json

import numpy as np
import pytest

from experiments.cli import main
from experiments.tournament import config as tournament_config

NAMES = ("ann", "bob", "cat", "dan", "eve")


# ----- the oracle


def oracle_lineups(seats: int, competitors: int, anchor: int | None) -> list[tuple[int, ...]]:
  if anchor is not None:
    return [(c,) + (anchor,) * (seats - 1) for c in range(competitors) if c != anchor]
  lineups = []
  for favoured in itertools.combinations(range(competitors), seats % competitors):
    counts = {c: seats // competitors + (c in favoured) for c in range(competitors)}
    # Spread out: the first copy of every competitor, then the second copies, and so on.
    slots = sorted((copy, c) for c, count in counts.items() for copy in range(count))
    lineups.append(tuple(c for _, c in slots))
  return lineups


def oracle_seatings(lineup: tuple[int, ...], rotation: str) -> list[tuple[int, ...]]:
  n = len(lineup)
  if rotation == "fixed":
    return [lineup]
  if rotation == "cyclic":
    candidates = [tuple(lineup[(shift + seat) % n] for seat in range(n)) for shift in range(n)]
  else:
    candidates = [tuple(lineup[p] for p in order) for order in itertools.permutations(range(n))]
  distinct = []
  for seating in candidates:
    if seating not in distinct:
      distinct.append(seating)
  return distinct


def oracle_cycle(seats: int, competitors: int, rotation: str,
                 anchor: int | None = None) -> list[tuple[int, ...]]:
  return [seating for lineup in oracle_lineups(seats, competitors, anchor)
          for seating in oracle_seatings(lineup, rotation)]


def oracle_game(games: list[str], num_games: int, cycles: dict[str, list], index: int):
  game = games[index // num_games]
  cycle = cycles[game]
  return game, cycle[(index % num_games) % len(cycle)]


def oracle_bot_seeds(seed: int, index: int, seats: int) -> list[int]:
  children = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(1 + seats)
  return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in children[1:]]


def game_string(players: int, rounds: int | None = None) -> str:
  return (f"python_sushi_go(players={players})" if rounds is None
          else f"python_sushi_go(players={players},rounds={rounds})")


def config_text(games: list[str], num_games: int, rotation: str, competitors: int,
                anchor: int | None = None, seed: int = 3) -> str:
  lines = ["[experiment]", 'name = "schedule"', f"seed = {seed}", f"games = {json.dumps(games)}",
           f"num_games = {num_games}", f'rotation = "{rotation}"']
  if anchor is not None:
    lines.append(f'anchor = "{NAMES[anchor]}"')
  for c in range(competitors):
    lines += ["", "[[players]]", f'name = "{NAMES[c]}"', f'bot = "{("random", "greedy")[c % 2]}"']
  return "\n".join(lines) + "\n"


# ----- the oracle's own sanity: what the docs promise of the cycle


@pytest.mark.parametrize("seats, competitors, rotation, length", [
    (2, 2, "all", 2), (3, 3, "all", 6), (3, 3, "cyclic", 3), (2, 3, "all", 6),
    (4, 3, "all", 36), (4, 3, "cyclic", 12), (5, 2, "cyclic", 10), (5, 3, "all", 90),
])
def test_the_oracle_balances_every_seat(seats, competitors, rotation, length):
  """The docs' promise, on the oracle: within a cycle each competitor of a lineup takes every
  seat equally often. (Lengths as the quickstart config's comment counts them: 6 and 36.)"""
  cycle = oracle_cycle(seats, competitors, rotation)
  assert len(cycle) == length
  by_seat = [collections.Counter(seating[s] for seating in cycle) for s in range(seats)]
  assert all(counts == by_seat[0] for counts in by_seat)


# ----- against the runner's schedule


CASES = list(dict.fromkeys(
    (seats, competitors, rotation, anchor)
    for seats in range(2, 6) for competitors in range(1, 6)
    for rotation in ("all", "cyclic", "fixed")
    for anchor in ((None,) if competitors == 1 else (None, 0, competitors - 1))
    if rotation != "fixed" or (competitors == seats and anchor is None)))


@pytest.mark.parametrize("seats, competitors, rotation, anchor", [
    pytest.param(*case, id=f"{case[0]}seats-{case[1]}competitors-{case[2]}-anchor{case[3]}")
    for case in CASES])
def test_the_runners_cycle_is_the_oracles(seats, competitors, rotation, anchor):
  game = game_string(seats)
  config = tournament_config.parse(config_text([game], 1, rotation, competitors, anchor))
  assert [tuple(seating) for seating in config.cycle(game)] == oracle_cycle(
      seats, competitors, rotation, anchor)
  resolved = config.resolved()
  assert resolved["schedule"]["cycle_length"] == {
      game: len(oracle_cycle(seats, competitors, rotation, anchor))}


@pytest.mark.parametrize("rotation, anchor", [("all", None), ("cyclic", None), ("cyclic", 1),
                                              ("all", 2)])
def test_every_games_matchup_is_the_oracles(rotation, anchor):
  """Game index to game string and seating, over four game strings with a number of games that is
  not a multiple of any cycle (so the cycle wraps part-way)."""
  competitors, num_games = 3, 41
  games = [game_string(n) for n in range(2, 6)]
  config = tournament_config.parse(config_text(games, num_games, rotation, competitors, anchor))
  cycles = {game: oracle_cycle(n, competitors, rotation, anchor)
            for n, game in zip(range(2, 6), games)}
  for index in range(num_games * len(games)):
    game, seating = oracle_game(games, num_games, cycles, index)
    matchup = config.matchup(index)
    assert matchup.game == game, index
    assert tuple(c.name for c in matchup.seats) == tuple(NAMES[c] for c in seating), index


# ----- against the records


RECORD_RUNS = {
    "all": ([game_string(n, rounds=1) for n in range(2, 6)], "all", 3, None),
    "cyclic": ([game_string(n, rounds=1) for n in range(2, 6)], "cyclic", 3, None),
    "anchor": ([game_string(n, rounds=1) for n in range(2, 6)], "cyclic", 3, 1),
    "fixed-3": ([game_string(3, rounds=1)], "fixed", 3, None),
    "fixed-5": ([game_string(5, rounds=1)], "fixed", 5, None),
}
RECORD_GAMES = 7  # per game string: more than a 2-player cycle of 3 competitors, so it wraps


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, tuple[str, list[dict], dict]]:
  """Each run of RECORD_RUNS played by `sushigo run`: its config text, records and resolved
  config."""
  result = {}
  for name, (games, rotation, competitors, anchor) in RECORD_RUNS.items():
    directory = tmp_path_factory.mktemp(name)
    text = config_text(games, RECORD_GAMES, rotation, competitors, anchor, seed=17)
    (directory / "config.toml").write_text(text, encoding="utf-8")
    out = directory / "run"
    assert main(["run", str(directory / "config.toml"), "--out", str(out), "--quiet"]) in (0, None)
    records = [json.loads(line)
               for line in (out / "records.jsonl").read_text().splitlines()]
    result[name] = (text, records, json.loads((out / "resolved_config.json").read_text()))
  return result


def oracle_cycles(games: list[str], rotation: str, competitors: int, anchor: int | None):
  return {game: oracle_cycle(int(game.split("players=")[1].split(",")[0].rstrip(")")),
                             competitors, rotation, anchor) for game in games}


@pytest.mark.parametrize("run", RECORD_RUNS)
def test_recorded_seats_are_the_oracles(run, written):
  games, rotation, competitors, anchor = RECORD_RUNS[run]
  _, records, resolved = written[run]
  cycles = oracle_cycles(games, rotation, competitors, anchor)
  assert [r["index"] for r in records] == list(range(RECORD_GAMES * len(games)))
  for record in records:
    game, seating = oracle_game(games, RECORD_GAMES, cycles, record["index"])
    assert record["game"] == game, record["index"]
    assert record["seats"] == [NAMES[c] for c in seating], record["index"]
    assert [b["bot"] for b in record["bots"]] == [("random", "greedy")[c % 2] for c in seating]
  assert resolved["schedule"]["cycle_length"] == {game: len(cycles[game]) for game in games}


@pytest.mark.parametrize("run", RECORD_RUNS)
def test_recorded_seeds_are_the_oracles(run, written):
  _, records, _ = written[run]
  for record in records:
    index = record["index"]
    assert record["seed"] == {"entropy": 17, "spawn_key": [index]}
    assert [b["seed"] for b in record["bots"]] == oracle_bot_seeds(17, index,
                                                                   len(record["seats"])), index


def test_bot_seeds_differ_by_game_and_seat(written):
  """The oracle's seeds are not a constant that anything would match."""
  _, records, _ = written["all"]
  seeds = [seed for record in records for seed in (b["seed"] for b in record["bots"])]
  assert len(set(seeds)) == len(seeds)
