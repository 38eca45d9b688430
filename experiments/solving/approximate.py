"""Kind "approximate_exploitability": a lower bound on each competitor's exploitability, from play.

Where no exact best response is in reach, a best-responding ISMCTS agent
(`solvers.equilibrium.approximate`) plays against the competitor's policy: in each seat, the agent's
score against copies of the policy minus the policy's own score in the same deal, over paired
games, gives that seat's gain with a 95% interval, and the seats' gains add up to a lower bound on
the NashConv (halved to exploitability for two-player zero-sum games). Where the game is small
enough (`exact = true`, reduced games only), the exact gain is computed beside it.

  [approximate]
  num_games = 200             # paired games per seat
  agent = { iterations = 300, rollout = "random" }   # the agent's ISMCTS parameters
  model_in_rollouts = true    # optional: the policy also plays the opponents in the agent's
                              # rollouts (false: in its tree only; much cheaper for slow bots)
  exact = false               # optional: also compute the exact best-response gain (reduced
                              # games only)
  [[players]]

A unit is the exact gain of one competitor, or `GAMES_PER_UNIT` paired games of one seat.
"""

from __future__ import annotations

import math
import pathlib
from typing import Any

import numpy as np
import pyspiel
import scipy.stats

import solvers
from experiments import config as config_lib
from experiments import stats
from experiments.config import ConfigError
from experiments.solving import figures
from experiments.solving import measures
from experiments.solving.kind import Kind, Report, SolvingConfig, Unit
from solvers.equilibrium import approximate
from solvers.search.ismcts import SOISMCTSBot
from sushigo_spiel import reduced_games

KEYS = ("num_games", "agent", "model_in_rollouts", "exact")
GAMES_PER_UNIT = 10  # paired games of one seat per unit


def parse_section(section: config_lib.Section) -> dict[str, Any]:
  section.check_keys(KEYS)
  agent = section.get("agent", {})
  agent_path = section.key_path("agent")
  if not isinstance(agent, dict):
    raise ConfigError(f"{agent_path}: expected a table of ISMCTS parameters, got {agent!r}")
  for key, value in agent.items():
    if key not in SOISMCTSBot.PARAMETERS:
      raise ConfigError(f"{agent_path}.{key}: unknown parameter; allowed:"
                        f" {', '.join(SOISMCTSBot.PARAMETERS)}")
    config_lib.check_param_value(value, SOISMCTSBot.PARAMETERS[key], f"{agent_path}.{key}")
  flags = {key: section.boolean(key, default=default)
           for key, default in (("exact", False), ("model_in_rollouts", True))}
  return {"num_games": section.integer("num_games", minimum=2), "agent": dict(agent), **flags}


def exact_on(config: SolvingConfig, label: str) -> bool:
  """Whether the exact gains are computed on game `label` (asked for, and a reduced game)."""
  return config.section["exact"] and label in reduced_games.REDUCED_GAMES


def units(config: SolvingConfig, label: str) -> list[Unit]:
  """For each competitor: its exact gain (if asked for and the game is reduced), then its paired
  games seat by seat, `GAMES_PER_UNIT` at a time."""
  num_games = config.section["num_games"]
  exact = exact_on(config, label)
  chosen = []
  for competitor in config.players:
    if exact:
      chosen.append({"game": label, "competitor": competitor.name, "exact": True})
    for seat in range(config.game(label).num_players()):
      for first in range(0, num_games, GAMES_PER_UNIT):
        chosen.append({"game": label, "competitor": competitor.name, "seat": seat,
                       "games": [first, min(first + GAMES_PER_UNIT, num_games)]})
  return chosen


def run_unit(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> dict[str, Any]:
  competitor = config.competitor(unit["competitor"])
  if unit.get("exact"):
    return measures.bot_nash_conv(game, competitor, seed)

  def make_policy(g, player, policy_seed):
    return solvers.make_bot(competitor.bot, g, player, policy_seed, **competitor.params)

  pairs = [approximate.play_gain(game, make_policy, unit["seat"], k, config.seed,
                                 config.section["agent"], config.section["model_in_rollouts"])
           for k in range(*unit["games"])]
  return {"agent": [p.agent for p in pairs], "self_play": [p.self_play for p in pairs]}


def report(config: SolvingConfig, results: list[dict], plots: pathlib.Path) -> Report:
  del plots
  rows = [["game", "competitor", "seat", "gain", "gain_low", "gain_high", "games",
           "exact_gain"]]
  lines = ["| game | competitor | lower bound [95% CI] | exact | gain by seat [95% CI] | games |",
           "|---|---|---|---|---|---|"]
  for label, _ in config.games:
    game = config.game(label)
    seats = game.num_players()
    for competitor in config.players:
      mine = [r for r in results if r["game"] == label and r["competitor"] == competitor.name]
      exact = next((r for r in mine if r.get("exact")), None)
      by_seat = [[a - s for r in mine if r.get("seat") == seat
                  for a, s in zip(r["agent"], r["self_play"])] for seat in range(seats)]
      gains = [stats.mean_interval(d) if len(d) >= 2 else None for d in by_seat]
      bound = _bound(by_seat, approximate.halves_nash_conv(game))
      for seat, gain in enumerate(gains):
        values = (gain.value, gain.low, gain.high) if gain else (math.nan,) * 3
        rows.append([label, competitor.name, seat, *values,
                     len(by_seat[seat]), exact["gains"][seat] if exact else ""])
      exact_text = figures.number(figures.measure(exact)[1]) if exact else "–"
      seat_text = "; ".join(_interval(g) for g in gains if g is not None)
      lines.append(f"| {label} | {competitor.name} | {_interval(bound)} | {exact_text} |"
                   f" {seat_text} | {sum(len(d) for d in by_seat)} |")
  return rows, lines


def _interval(estimate: stats.Estimate) -> str:
  return (f"{figures.number(estimate.value, 3)} [{figures.number(estimate.low, 3)},"
          f" {figures.number(estimate.high, 3)}]")


def _bound(by_seat: list[list[float]], halve: bool) -> stats.Estimate:
  """The sum of the seats' mean gains (halved for two-player zero-sum exploitability), with a
  normal interval from the seats' independent variances."""
  if any(len(d) < 2 for d in by_seat):
    return stats.Estimate(math.nan, math.nan, math.nan)
  mean = sum(float(np.mean(d)) for d in by_seat)
  half_width = scipy.stats.norm.ppf(0.5 + stats.CONFIDENCE / 2) * math.sqrt(
      sum(float(np.var(d, ddof=1)) / len(d) for d in by_seat))
  scale = 0.5 if halve else 1.0
  return stats.Estimate(scale * mean, scale * (mean - half_width), scale * (mean + half_width))


KIND = Kind(name="approximate_exploitability", takes_players=True, units=units, run_unit=run_unit,
            report=report, section="approximate", parse_section=parse_section,
            needs_tree=exact_on)
