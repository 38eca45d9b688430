"""Kind "approximate_exploitability": a lower bound on each competitor's exploitability, from play.

In each seat a responder (`solvers.equilibrium.approximate`) plays paired games against copies of
the competitor's policy: its score less the policy's own in the same deal is that seat's gain, with
a 95% interval, and the seats' gains add up to a lower bound on NashConv (halved to exploitability
in two-player zero-sum games). With `exact = true` the exact gain is computed beside it, and the
report adds each bound as a share of it and the bound with the policy's exact value in place of its
self-play games; in zero- or constant-sum games also the bound from the responder's returns alone,
less `approximate.value_sum`. With `baseline`, each bound less the baseline's, from per-game
differences (every competitor meets the same deals and responder seeds). A unit is one exact gain,
or `GAMES_PER_UNIT` paired games of one seat against one responder, with its CPU seconds (a learned
responder's training included). Refused with the config: "lbr" and "learned" against a bot whose
policy cannot be read cheaply (`Bot.cheap_policy`).

The responders and the bounds: docs/equilibrium.md, "Approximate exploitability of the full game".
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import time
from typing import Any

import numpy as np
import pyspiel
import scipy.stats
from matplotlib.figure import Figure

import solvers
from experiments import config as config_lib
from experiments import estimates
from experiments import stats
from experiments.config import Competitor, ConfigError, key
from experiments.solving import figures
from experiments.solving import measures
from experiments.solving.kind import Kind, Report, SolvingConfig, Unit
from solvers.equilibrium import approximate

GAMES_PER_UNIT = 10  # paired games of one seat per unit
# A unit in memory: its dict as `units` lists it, and its result read back (about 300 bytes of
# JSON, six times that as Python objects; `experiments.estimates`).
UNIT_BYTES = 2_400
DEFAULT_RESPONDER = "ismcts"  # the responder of `agent`
PLOTS = "bound"


def _agent(value: Any, path: str) -> dict[str, Any]:
  if not isinstance(value, dict):
    raise ConfigError(f"{path}: expected a table of ISMCTS parameters, got {value!r}")
  _check_params(DEFAULT_RESPONDER, value, path)
  return dict(value)


def _responders(value: Any, path: str) -> dict[str, dict[str, Any]]:
  if not isinstance(value, dict) or not value:
    raise ConfigError(f"{path}: expected a table of responders by name, each"
                      f" {{ responder = {' or '.join(map(repr, approximate.RESPONDERS))},"
                      f" parameters... }}, got {value!r}")
  return {name: _responder(table, f"{path}.{name}") for name, table in value.items()}


@dataclasses.dataclass(frozen=True)
class Approximate:
  """Of kind "approximate_exploitability", required: the responders and their paired games."""
  num_games: int = key("paired games per seat (and per responder)", minimum=2)
  agent: dict[str, Any] | None = key("one ISMCTS responder's parameters, such as `{ iterations ="
                                     " 300 }`; none (and no responders): ISMCTS's defaults",
                                     default=None, check=_agent)
  responders: dict[str, Any] | None = key(
      "instead of agent, several responders by names of yours, each `{ responder = "
      + " or ".join(f'"{kind}"' for kind in approximate.RESPONDERS)
      + ", against = [competitor names] (none: all), its parameters... }`", default=None,
      check=_responders)
  model_in_rollouts: bool = key("whether the policy also plays the opponents in the ISMCTS"
                                " responder's rollouts (false: in its tree only; much cheaper for"
                                " slow bots)", default=True)
  exact: bool = key("whether to compute the exact best-response gain too (games whose tree fits"
                    " experiment.max_tree_nodes)", default=False)
  baseline: str | None = key("a competitor's name: every other competitor's bound is also given"
                             " less the baseline's, paired game by game", default=None)

  def cross_check(self, path: str) -> Approximate:
    """Agent or responders; ISMCTS with its defaults for neither (as written for `agent`, so
    that configs written before `responders` keep their hash)."""
    if self.agent is not None and self.responders is not None:
      raise ConfigError(f"{path}.responders: give either agent (one ISMCTS responder) or"
                        " responders, not both")
    if self.agent is None and self.responders is None:
      return dataclasses.replace(self, agent={})
    return self


def responders(section: dict[str, Any]) -> dict[str, dict[str, Any]]:
  """Name -> {"responder": kind, "params": {...}} of a checked section."""
  if "responders" in section:
    return section["responders"]
  return {DEFAULT_RESPONDER: {"responder": DEFAULT_RESPONDER, "params": section["agent"]}}


def _responder(table: Any, path: str) -> dict[str, Any]:
  """A responder's table checked: {"responder": kind, "params": {...}}."""
  if not isinstance(table, dict):
    raise ConfigError(f"{path}: expected a table {{ responder = ..., parameters... }}, got"
                      f" {table!r}")
  params = dict(table)
  kind = params.pop("responder", None)
  if kind not in approximate.RESPONDERS:
    raise ConfigError(f"{path}.responder: expected one of {', '.join(approximate.RESPONDERS)},"
                      f" got {kind!r}")
  against = params.pop("against", None)
  _check_params(kind, params, path)
  checked = {"responder": kind, "params": params}
  if against is not None:
    checked["against"] = config_lib.string_list(against, f"{path}.against")
  return checked


def plays(responder: dict[str, Any], competitor: str) -> bool:
  """Whether a checked responder plays against the competitor named `competitor`."""
  return competitor in responder.get("against", (competitor,))


def _check_params(kind: str, params: dict[str, Any], path: str) -> None:
  accepted = approximate.RESPONDERS[kind].PARAMETERS
  for name, value in params.items():
    if name not in accepted:
      raise ConfigError(f"{path}.{name}: unknown parameter of responder {kind!r}; allowed:"
                        f" {', '.join(accepted)}")
    config_lib.check_param_value(value, accepted[name], f"{path}.{name}")


def check(config: SolvingConfig) -> None:
  """Refuses a responder that cannot answer a competitor (lbr against a search bot), and
  parameters its bot refuses, before anything runs."""
  names = [competitor.name for competitor in config.players]
  try:
    estimates.check_memory([estimates.Need(
        f"its {unit_count(config):,} units of work (paired games by {GAMES_PER_UNIT}), listed"
        " and read back, would take", "of memory", unit_count(config) * UNIT_BYTES,
        "fewer paired games (approximate.num_games), or fewer responders or competitors")])
  except estimates.TooLarge as e:
    raise ConfigError(f"approximate.num_games: {e}") from None
  if config.section.get("baseline", names[0]) not in names:
    raise ConfigError(f"approximate.baseline: {config.section['baseline']!r} is not a competitor;"
                      f" allowed: {', '.join(names)}")
  for name, responder in responders(config.section).items():
    for i, competitor in enumerate(responder.get("against", ())):
      if competitor not in names:
        raise ConfigError(f"approximate.responders.{name}.against[{i}]: {competitor!r} is not a"
                          f" competitor; allowed: {', '.join(names)}")
  for label, _ in config.games:
    game = config.game(label)
    for name, responder in responders(config.section).items():
      for competitor in config.players:
        if not plays(responder, competitor.name):
          continue
        bots = [solvers.make_bot(competitor.bot, game, p, 0, **competitor.params)
                for p in range(game.num_players())]
        try:
          if responder["responder"] == DEFAULT_RESPONDER:  # an so_ismcts search: its tree sized
            estimates.check_memory([estimates.bot_memory(
                "so_ismcts", game, responder["params"], f"approximate responder {name!r}")])
          approximate.make_responder(game, 0, 0, responder["responder"], responder["params"],
                                     approximate.opponent_model(bots),
                                     config.section["model_in_rollouts"])
        except estimates.TooLarge as e:
          raise ConfigError(str(e)) from None
        except ValueError as e:
          raise ConfigError(f"approximate responder {name!r} against {competitor.name!r} on"
                            f" {label}: {e}") from None


def responder_seconds(config: SolvingConfig, game: pyspiel.Game, competitor: Competitor,
                      name: str) -> float:
  """Seconds one decision of responder `name` against `competitor` takes at the first decision
  of `game`, at its full budget (timed once after an untimed decision, which may compile)."""
  responder = responders(config.section)[name]
  bots = [solvers.make_bot(competitor.bot, game, p, 0, **competitor.params)
          for p in range(game.num_players())]
  bot = approximate.make_responder(game, 0, 0, responder["responder"], responder["params"],
                                   approximate.opponent_model(bots),
                                   config.section["model_in_rollouts"])
  state = estimates.first_decision(game, config.seed)
  bot.step(state)
  start = time.perf_counter()
  bot.step(state)
  return time.perf_counter() - start


def exact_on(config: SolvingConfig, label: str) -> bool:
  """Whether the exact gains are computed on game `label`: when asked for (any game; one whose
  tree is over `experiment.max_tree_nodes` is refused with the config)."""
  del label
  return config.section["exact"]


def unit_count(config: SolvingConfig) -> int:
  """How many units `units` lists over every game, counted without listing them."""
  per_seat = -(-config.section["num_games"] // GAMES_PER_UNIT)
  count = 0
  for label, _ in config.games:
    seats = config.game(label).num_players()
    for competitor in config.players:
      count += exact_on(config, label)
      count += sum(seats * per_seat for responder in responders(config.section).values()
                   if plays(responder, competitor.name))
  return count


def units(config: SolvingConfig, label: str) -> list[Unit]:
  """For each competitor: its exact gain (if asked for and the game is reduced), then, responder
  by responder, its paired games seat by seat, `GAMES_PER_UNIT` at a time."""
  num_games = config.section["num_games"]
  exact = exact_on(config, label)
  named = "responders" in config.section
  chosen = []
  for competitor in config.players:
    if exact:
      chosen.append({"game": label, "competitor": competitor.name, "exact": True})
    for name, responder in responders(config.section).items():
      if not plays(responder, competitor.name):
        continue
      for seat in range(config.game(label).num_players()):
        for first in range(0, num_games, GAMES_PER_UNIT):
          chosen.append({"game": label, "competitor": competitor.name,
                         **({"responder": name} if named else {}), "seat": seat,
                         "games": [first, min(first + GAMES_PER_UNIT, num_games)]})
  return chosen


def run_unit(config: SolvingConfig, game: pyspiel.Game, unit: Unit, seed: int) -> dict[str, Any]:
  competitor = config.competitor(unit["competitor"])
  if unit.get("exact"):
    return measures.bot_nash_conv(game, competitor, seed)

  def make_policy(g, player, policy_seed):
    return solvers.make_bot(competitor.bot, g, player, policy_seed, **competitor.params)

  responder = responders(config.section)[unit.get("responder", DEFAULT_RESPONDER)]
  start = time.process_time()
  pairs = [approximate.play_gain(game, make_policy, unit["seat"], k, config.seed,
                                 responder["params"], config.section["model_in_rollouts"],
                                 responder["responder"])
           for k in range(*unit["games"])]
  return {"agent": [p.agent for p in pairs], "self_play": [p.self_play for p in pairs],
          "cpu_seconds": time.process_time() - start}


def result_problem(unit: Unit, result: dict) -> str | None:
  """A unit of paired games holds one finite gain of the responder and one of self-play per game
  of its range (a cut list would be reported as fewer games)."""
  if unit.get("exact"):
    return None
  first, end = unit["games"]
  for name in ("agent", "self_play"):
    values = result.get(name)
    if not (isinstance(values, list) and len(values) == end - first and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        for v in values)):
      shown = f"{len(values)} values" if isinstance(values, list) else repr(values)
      return (f"unit {result.get('unit')}'s {name!r} holds {shown}, not {end - first} finite"
              f" numbers, one for each of its games {first} to {end - 1}")
  return None


def bounds(config: SolvingConfig, results: list[dict]) -> list[dict[str, Any]]:
  """Each (game, competitor, responder)'s bound with its interval, its gains by seat, the exact
  figure where measured, and the responder's CPU seconds per paired game."""
  entries = []
  for label, _ in config.games:
    game = config.game(label)
    seats = game.num_players()
    halve, total = approximate.halves_nash_conv(game), approximate.value_sum(game)
    measure = "exploitability" if halve else "NashConv"
    for competitor in config.players:
      exact = next((r for r in results if r["game"] == label
                    and r["competitor"] == competitor.name and r.get("exact")), None)
      for name, responder in responders(config.section).items():
        if not plays(responder, competitor.name):
          continue
        played = _played(results, label, competitor.name, name)
        by_seat = [[a - s for r in played if r["seat"] == seat
                    for a, s in zip(r["agent"], r["self_play"])] for seat in range(seats)]
        # Where the policy's value is known exactly, the responder's returns less that value:
        # the same bound without the self-play games' noise.
        known = [[a - exact["policy_values"][seat] for r in played if r["seat"] == seat
                  for a in r["agent"]] for seat in range(seats)] if exact else None
        # The seats' values sum to `total`: each seat's returns less an equal share of it.
        returns = [[a - total / seats for r in played if r["seat"] == seat for a in r["agent"]]
                   for seat in range(seats)] if total is not None else None
        games = sum(len(d) for d in by_seat)
        timed = [r["cpu_seconds"] for r in played if "cpu_seconds" in r]
        entries.append({
            "game": label, "competitor": competitor.name, "responder": name,
            "responder_kind": responder["responder"], "responder_params": responder["params"],
            "bound": _bound(by_seat, halve),
            "bound_known_value": _bound(known, halve) if known else None,
            "bound_value_sum": _bound(returns, halve) if returns else None,
            "gains": [stats.mean_interval(d) if len(d) >= 2 else None for d in by_seat],
            "games": [len(d) for d in by_seat],
            "exact": exact, "measure": measure,
            "cpu_seconds_per_game": sum(timed) / games if timed and len(timed) == len(played)
            and games else None})
  return entries


def _played(results: list[dict], label: str, competitor: str, responder: str) -> list[dict]:
  """The records of `responder`'s paired games against `competitor` in game `label`."""
  return [r for r in results if r["game"] == label and r["competitor"] == competitor
          and not r.get("exact") and r.get("responder", DEFAULT_RESPONDER) == responder]


def _by_game(results: list[dict], label: str, competitor: str, responder: str
             ) -> dict[tuple[int, int], tuple[float, float]]:
  """(seat, game index) -> (the responder's return, the policy's self-play return)."""
  return {(r["seat"], k): pair for r in _played(results, label, competitor, responder)
          for k, pair in enumerate(zip(r["agent"], r["self_play"]), start=r["games"][0])}


def differences(config: SolvingConfig, results: list[dict]) -> list[dict[str, Any]]:
  """With a `baseline`: each other competitor's bound less the baseline's, per game and
  responder, over the (seat, game) pairs both played: from the paired gains, and (zero- and
  constant-sum games) from the responder's returns alone."""
  baseline = config.section.get("baseline")
  if baseline is None:
    return []
  entries = []
  for label, _ in config.games:
    game = config.game(label)
    halve, total = approximate.halves_nash_conv(game), approximate.value_sum(game)
    for competitor in config.players:
      if competitor.name == baseline:
        continue
      for name, responder in responders(config.section).items():
        if not (plays(responder, competitor.name) and plays(responder, baseline)):
          continue
        mine = _by_game(results, label, competitor.name, name)
        theirs = _by_game(results, label, baseline, name)
        both = sorted(mine.keys() & theirs.keys())
        seats = range(game.num_players())
        paired = [[(mine[g][0] - mine[g][1]) - (theirs[g][0] - theirs[g][1]) for g in both
                   if g[0] == seat] for seat in seats]
        alone = [[mine[g][0] - theirs[g][0] for g in both if g[0] == seat] for seat in seats]
        entries.append({"game": label, "competitor": competitor.name, "baseline": baseline,
                        "responder": name, "paired": _bound(paired, halve),
                        "returns_alone": _bound(alone, halve) if total is not None else None,
                        "games": len(both)})
  return entries


def report(config: SolvingConfig, results: list[dict], plots: pathlib.Path) -> Report:
  rows = [["game", "competitor", "responder", "seat", "gain", "gain_low", "gain_high", "games",
           "exact_gain", "cpu_seconds_per_game"]]
  lines = ["| game | competitor | responder | lower bound [95% CI] | exact | bound / exact |"
           " with the exact policy value [95% CI] | with the known value sum [95% CI] |"
           " gain by seat [95% CI] | games | CPU s / game |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
  entries = bounds(config, results)
  for e in entries:
    exact = e["exact"]
    for seat, gain in enumerate(e["gains"]):
      values = (gain.value, gain.low, gain.high) if gain else (math.nan,) * 3
      rows.append([e["game"], e["competitor"], e["responder"], seat, *values, e["games"][seat],
                   exact["gains"][seat] if exact else "", e["cpu_seconds_per_game"] or ""])
    exact_value = figures.measure(exact)[1] if exact else None
    ratio = e["bound"].value / exact_value if exact_value else None
    seat_text = "; ".join(interval(g) for g in e["gains"] if g is not None)
    known = e["bound_known_value"]
    known_text = f"{interval(known)}, {figures.number(known.value / exact_value, 2)} of exact" \
        if known and exact_value else "–"
    summed = e["bound_value_sum"]
    summed_text = interval(summed) if summed else "–"
    lines.append(f"| {e['game']} | {e['competitor']} | {e['responder']} | {interval(e['bound'])} |"
                 f" {figures.number(exact_value)} | {figures.number(ratio, 2)} | {known_text} |"
                 f" {summed_text} | {seat_text} |"
                 f" {sum(e['games'])} | {figures.number(e['cpu_seconds_per_game'], 3)} |")
  compared = differences(config, results)
  if compared:
    lines += ["", f"Each bound less {compared[0]['baseline']}'s, game by game over the same deals"
              " and responder seeds:", "",
              "| game | competitor | responder | difference, paired gains [95% CI] |"
              " difference, returns alone [95% CI] | games |", "|---|---|---|---|---|---|"]
    lines += [f"| {d['game']} | {d['competitor']} | {d['responder']} | {interval(d['paired'])} |"
              f" {interval(d['returns_alone']) if d['returns_alone'] else '–'} | {d['games']} |"
              for d in compared]
  lines += figures.plots_by_game(entries, plots, PLOTS, "Lower bound against compute", _plot)
  return rows, lines


def _plot(path: pathlib.Path, game: str, entries: list[dict]) -> None:
  """Each competitor's bound (with its interval) against its responders' CPU seconds per game."""
  plot_bounds(path, f"Lower bound against compute\n{game}", entries, "competitor")


def plot_bounds(path: pathlib.Path, title: str, entries: list[dict], series: str) -> None:
  """The bounds of `entries` (from `bounds`), with their intervals, against their responders' CPU
  seconds per paired game: one line per value of the entry key `series`, each point named by its
  responder."""
  fig = Figure(figsize=(6.4, 4.4))
  ax = fig.add_subplot()
  for name in dict.fromkeys(e[series] for e in entries):
    mine = sorted((e for e in entries if e[series] == name
                   and e["cpu_seconds_per_game"] and not math.isnan(e["bound"].value)),
                  key=lambda e: e["cpu_seconds_per_game"])
    if not mine:
      continue
    x = [e["cpu_seconds_per_game"] for e in mine]
    y = np.array([e["bound"].value for e in mine])
    error = np.array([[e["bound"].value - e["bound"].low for e in mine],
                      [e["bound"].high - e["bound"].value for e in mine]])
    line = ax.errorbar(x, y, yerr=error, marker="o", capsize=3, label=name)
    for e, xi, yi in zip(mine, x, y):
      ax.annotate(e["responder"], (xi, yi), fontsize=7, color=line[0].get_color(),
                  xytext=(3, 3), textcoords="offset points")
  ax.set_xscale("log")
  ax.axhline(0, color="grey", linewidth=0.8)
  ax.set_xlabel("responder's CPU seconds per paired game")
  ax.set_ylabel(f"lower bound on {entries[0]['measure']}")
  ax.set_title(title, fontsize=9)
  ax.grid(True, which="both", alpha=0.3)
  if ax.get_legend_handles_labels()[0]:
    ax.legend(fontsize=8)
  figures.save(fig, path)


def interval(estimate: stats.Estimate) -> str:
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
            result_problem=result_problem,
            report=report, section="approximate", table=Approximate,
            needs_tree=exact_on, plots=PLOTS, check=check,
            games=("python_sushi_go", "python_sushi_draft"))
