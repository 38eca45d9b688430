"""Tournaments: competitors (bots from `solvers`) play games of Sushi Go, every game recorded.

A tournament's config (`experiments.tournament.config`) fixes every game: game i has a game string,
a seating of competitors and a seed. Its unit of work is one game; its run folder
(`experiments.run_folder`) holds records.jsonl, one JSON object per game (index, seed, game, seats,
bots, scores, returns, rounds, breakdown, puddings, winners, and `luck` and `decisions` when the
config asks for them), timings.jsonl, and the report of `experiments.tournament.summary`.
Game i draws everything from `np.random.SeedSequence(seed, spawn_key=(i,))`, spawning the chance
stream, then one seed per seat for `solvers.make_bot`, then the luck's playouts seed; no game
depends on another, so records are identical whatever the backend, workers or finishing order (a
wall-time budget aside). Games run as `experiments.execution` runs any experiment's units.

The record's fields and the run's guarantees: docs/experiments.md, "Run folders" and
"Reproducible, resumable, parallel".
"""

from __future__ import annotations

import dataclasses
import operator
import os
import pathlib
import socket
import time

import numpy as np

import solvers
from experiments import estimates
from experiments import execution
from experiments import run_folder
from experiments.run_folder import RunError, Session
from experiments.tournament import aivat as aivat_lib
from experiments.tournament import config as config_lib
from experiments.tournament import luck as luck_lib
from experiments.tournament import summary
from experiments.viewer import replay
from solvers.match import play_match

RESULTS = run_folder.GAME_RECORDS
LUCK = "luck"  # the record field of `luck_lib.DealLuck`
DECISIONS = "decisions"  # the record field of `aivat_lib.DecisionTerms`
_MISMATCHES_SHOWN = 20


def run(config_path: str | pathlib.Path, out: str | pathlib.Path | None = None, workers: int = 1,
        backend: str = "local", address: str | None = None, force: bool = False,
        quiet: bool = False) -> pathlib.Path:
  """Runs (or resumes) the tournament of `config_path`, then its report; returns the run folder."""
  config = config_lib.load(config_path)
  return execution.run(TOURNAMENT, config, out, Session(backend, workers, address, config.budget),
                       force, quiet, notes=config.notes())


def reproduce(run_dir: str | pathlib.Path, workers: int = 1, quiet: bool = False) -> bool:
  """Replays the run's stored config in a temporary folder; True if every record is identical."""
  run_dir = pathlib.Path(run_dir)
  config = execution.stored_config(TOURNAMENT, run_dir)
  if config.budget_kind == "seconds" and not quiet:
    print("Note: this run gives bots a time budget (budget.seconds), so its records need not"
          " reproduce exactly.")
  stored, replayed = execution.replay(TOURNAMENT, config, run_dir,
                                      Session("local", workers, None, config.budget), quiet)
  mismatches = _mismatches(stored, replayed)
  for line in mismatches[:_MISMATCHES_SHOWN]:
    print(line)
  if len(mismatches) > _MISMATCHES_SHOWN:
    print(f"... and {len(mismatches) - _MISMATCHES_SHOWN} more")
  total = config.total_games
  if mismatches:
    print(f"Mismatch: {len(mismatches)} of {total} records differ from {run_dir}.")
  else:
    print(f"Match: all {total} records of {run_dir} reproduced exactly.")
  return not mismatches


def _mismatches(stored: dict[int, dict], replayed: dict[int, dict]) -> list[str]:
  lines = []
  for index in sorted(stored.keys() | replayed.keys()):
    if index not in stored:
      lines.append(f"game {index}: missing from the run folder")
    elif index not in replayed:
      lines.append(f"game {index}: recorded, but not a game of the config")
    elif stored[index] != _as_stored(replayed[index], stored[index]):
      keys = sorted(k for k in stored[index].keys() | replayed[index].keys()
                    if stored[index].get(k) != _as_stored(replayed[index], stored[index]).get(k))
      lines.append(f"game {index}: {', '.join(keys)} differ")
  return lines


def _as_stored(replayed: dict, stored: dict) -> dict:
  """The replayed record without its luck or decision terms when the stored one predates them."""
  return {key: value for key, value in replayed.items()
          if key not in (LUCK, DECISIONS) or key in stored}


def report(run_dir: str | pathlib.Path) -> str:
  """Writes the report of a run folder with `experiments.tournament.summary`; returns its Markdown
  tables."""
  run_dir = pathlib.Path(run_dir)
  if not (run_dir / RESULTS.name).is_file():
    raise RunError(f"{run_dir}: not a run folder (no {RESULTS.name})")
  try:
    return summary.write_report(run_dir, quiet=True)
  except (FileNotFoundError, ValueError) as e:  # a folder that holds no run; no games yet
    raise RunError(f"No report: {e}") from None


def play_game(config: config_lib.Config, index: int) -> execution.Result:
  """Plays game `index` of the config; returns its record and its timing."""
  start = time.perf_counter()
  matchup = config.matchup(index)
  game = config.loaded_game(matchup.game)
  game_seed = np.random.SeedSequence(config.seed, spawn_key=(index,))
  chance_seed, *seat_seeds = game_seed.spawn(1 + len(matchup.seats))
  bot_seeds = [int(seed.generate_state(1)[0]) for seed in seat_seeds]
  params = [config.bot_params(competitor) for competitor in matchup.seats]
  bots = [solvers.make_bot(competitor.bot, game, seat, bot_seeds[seat], **params[seat])
          for seat, competitor in enumerate(matchup.seats)]
  deal_luck = decision_terms = None
  if config.luck_playouts and game.get_type().short_name == luck_lib.GAME:
    luck_seed = int(game_seed.spawn(1)[0].generate_state(1)[0])
    deal_luck = luck_lib.DealLuck(game, bots, luck_seed, config.luck_playouts)
    if config.aivat:
      decision_terms = aivat_lib.DecisionTerms(bots, deal_luck.value, config.luck_playouts)
  state = play_match(game, bots, np.random.default_rng(chance_seed),
                     on_chance=deal_luck and deal_luck.observe_deal,
                     on_decision=decision_terms and decision_terms.observe_decision)
  record = {
      "index": index,
      "seed": {"entropy": config.seed, "spawn_key": [index]},
      "game": matchup.game,
      "seats": [competitor.name for competitor in matchup.seats],
      "bots": [{"bot": competitor.bot, "params": params[seat], "seed": bot_seeds[seat]}
               for seat, competitor in enumerate(matchup.seats)],
      **replay.outcome(state),
  }
  if deal_luck is not None:
    record[LUCK] = deal_luck.luck.tolist()
  if decision_terms is not None:
    record[DECISIONS] = decision_terms.decisions.tolist()
  timing = {"index": index, "seconds": time.perf_counter() - start, "worker": _worker_name()}
  return record, timing


def sizes(config: config_lib.Config, workers: int) -> tuple[list[estimates.Need], int]:
  """What a run of `config` holds in memory (its records read back at resume and report, the
  seating cycles, each competitor's search tree on each of `workers` processes) and the bytes
  of its records (`experiments.estimates`), counted without building any of them."""
  seats = {game: config.loaded_game(game).num_players() for game in config.games}
  record_bytes = sum(config.num_games * estimates.record_bytes(seats[game])
                     for game in config.games)
  seatings = {game: config_lib.cycle_length(seats[game], len(config.players), config.rotation,
                                            config.anchor) for game in config.games}
  cycles = sum(count * (config_lib.SEATING_BYTES + config_lib.SEATING_BYTES_PER_SEAT * seats[game])
               for game, count in seatings.items())
  needs = [
      estimates.Need(f"the records of {config.total_games:,} games, read back at resume and by"
                     " the report, would take", "of memory",
                     record_bytes * estimates.IN_MEMORY_FACTOR,
                     "fewer games (experiment.num_games) or game strings (experiment.games)"),
      estimates.Need(f"the seating cycles ({sum(seatings.values()):,} seatings of"
                     f" {len(config.players)} competitors, rotation {config.rotation!r}) would"
                     " take", "of memory", cycles, "fewer competitors, rotation \"cyclic\", or"
                     " an anchor (experiment.anchor)")]
  on = f" on each of {workers} workers" if workers > 1 else ""
  for i, competitor in enumerate(config.players):
    worst = max((estimates.bot_memory(competitor.bot, config.loaded_game(game),
                                      config.bot_params(competitor),
                                      f"players[{i}] {competitor.name!r}{on}")
                 for game in config.games), key=lambda need: need.bytes)
    needs.append(dataclasses.replace(worst, bytes=worst.bytes * workers))
  return needs, record_bytes


def game_seconds(config: config_lib.Config) -> tuple[float, str]:
  """A game's seconds on one worker, averaged over the game strings, calibrated: each
  competitor's decision timed (`estimates.decision_seconds`) times the decisions of a game, in
  every seat, plus the luck of each deal timed at a few playouts and scaled."""
  total = 0.0
  for game_string in config.games:
    game = config.loaded_game(game_string)
    seats = game.num_players()
    decisions, deals = estimates.decisions_per_game(game, config.seed)
    per_decision = [estimates.decision_seconds(c.bot, game, config.bot_params(c), config.seed)
                    for c in config.players]
    total += decisions * seats * sum(per_decision) / len(per_decision)
    if config.luck_playouts and game.get_type().short_name == luck_lib.GAME:
      total += deals * _deal_luck_seconds(config, game)
  return total / len(config.games), ("calibrated on a few timed decisions of each competitor"
                                     " under a scaled-down budget")


_LUCK_TIMED_PLAYOUTS = 4


def _deal_luck_seconds(config: config_lib.Config, game) -> float:
  """The luck of one deal at `luck_playouts` playouts, timed at a few and scaled."""
  bots = [solvers.make_bot("random", game, seat, seat) for seat in range(game.num_players())]
  playouts = min(config.luck_playouts, _LUCK_TIMED_PLAYOUTS)
  deal_luck = luck_lib.DealLuck(game, bots, config.seed, playouts)
  before = game.new_initial_state()
  after = estimates.first_decision(game, config.seed)
  deal_luck.observe_deal(before, after)  # untimed: may compile kernels
  start = time.perf_counter()
  deal_luck.observe_deal(before, after)
  return (time.perf_counter() - start) * config.luck_playouts / playouts


def _worker_name() -> str:
  return f"{socket.gethostname()}:{os.getpid()}"


TOURNAMENT = execution.Experiment(results=RESULTS, parse=config_lib.parse,
                                  size=operator.attrgetter("total_games"), play=play_game,
                                  report=report, report_files=lambda config: list(
                                      summary.REPORT_FILES), check=config_lib.record_problem,
                                  sizes=sizes, unit_seconds=game_seconds)
