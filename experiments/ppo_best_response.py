"""The PPO best response (responder `ppo`) held against the exact best response, and on the full game.

On the reduced games, for each game and fixed policy, the responder trains in each seat, its
strategy is read at every information set, and its gain over the policy's self-play is computed
exactly, beside the exact best response's (`solvers.equilibrium.exploitability.best_response`);
the ratio of their sums over the seats is the share of the exact exploitability it finds. It
trains with its defaults but for `GAME_PARAMS`; one results file holds one game's rows
(`--games small --out experiments/results/ppo-best-response/small.json`, so medium and large).
`--full-game CONFIG` (an approximate exploitability config with ppo responders) trains them, writes
their learning curves to `--curve`, then runs the config into `--out` in this process, so the
bound's paired games play the agents just trained (the stored runs' configs give the command).

Results and the responder's parameters: docs/ppo.md, "A learned best response".
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import pathlib
import time

from experiments import cli, config, run_folder, solving
from experiments.config import ConfigError
from experiments.solving import approximate as approximate_kind
from solvers import make_bot
from solvers.equilibrium import approximate, exploitability
from solvers.equilibrium.game_tree import GameTree
from solvers.learning.best_response import PPOBestResponseBot
from solvers.provenance import git_commit, package_version
from solvers.search.opponent_model import CompiledPolicy, OpponentModel
from sushigo_spiel import reduced_games

GAMES = ("small", "medium", "large")
POLICIES = ("random", "greedy", "heuristic")
TARGET = 0.9
# The responder's parameters that differ from its defaults on one game: against the heuristic on
# `large`, the agent of 150 iterations found under 0.9 of the exact gain, its curve still rising;
# in trials there (seat 0), 400 iterations did better than annealing the entropy bonus.
GAME_PARAMS = {"large": {"iterations": 400}}


@functools.lru_cache(maxsize=1)
def _tree(game_name: str) -> GameTree:
  """The reduced game's tree, built once for the rows of one game."""
  return GameTree(reduced_games.load_reduced(game_name))


def validate(game_name: str, policy: str, params: dict) -> dict:
  """One game and policy: each seat's exact and learned gains, and their ratio."""
  tree = _tree(game_name)
  game = tree.game
  fixed = exploitability.policy_from_bot(tree, lambda g, p, s: make_bot(policy, g, p, s))
  fixed_array = fixed.array
  values = tree.policy_values(fixed_array)
  model = OpponentModel(lambda rules, table, player: None, CompiledPolicy(policy), policy)
  seats, start = [], time.perf_counter()
  for seat in range(game.num_players()):
    exact_value, _ = exploitability.best_response(tree, fixed_array, seat)
    responder = PPOBestResponseBot(game, seat, 0, opponent_model=model, policy_key=policy,
                                   **params)
    responder.trained()
    mixed = exploitability.policy_from_bot(tree, lambda g, p, s, r=responder: r, checks=0,
                                           players=[seat], others=fixed_array).array
    learned_value = tree.policy_values(mixed)[seat]
    seats.append({"seat": seat, "exact_gain": float(exact_value - values[seat]),
                  "learned_gain": float(learned_value - values[seat])})
  exact = sum(s["exact_gain"] for s in seats)
  learned = sum(s["learned_gain"] for s in seats)
  return {"game": game_name, "policy": policy, "seats": seats, "exact": exact,
          "learned": learned, "ratio": learned / exact if exact > 0 else None,
          "seconds": round(time.perf_counter() - start, 1)}


def full_game(config_path: pathlib.Path, out: pathlib.Path, curve: pathlib.Path) -> int:
  """Trains the ppo responders of the approximate-exploitability config at `config_path` against
  each of its competitors, writes their learning curves to `curve`, then runs the config into the
  run folder `out` in this process (one worker), whose paired games play the agents just trained;
  the exit status of `sushigo run`."""
  try:
    run_config = solving.parse(config_path.read_text(encoding="utf-8"))
  except (OSError, ConfigError) as e:
    raise SystemExit(f"{config_path}: {e}") from None
  if run_config.kind is not approximate_kind.KIND:
    raise SystemExit(f"{config_path}: kind {run_config.kind.name!r}; allowed:"
                     f" {approximate_kind.KIND.name!r}")
  rows = []
  for label, _ in run_config.games:
    game = run_config.game(label)
    for competitor in run_config.players:
      model = approximate.opponent_model([make_bot(competitor.bot, game, p, 0, **competitor.params)
                                          for p in range(game.num_players())])
      for name, responder in approximate_kind.responders(run_config.section).items():
        if responder["responder"] != "ppo" or not approximate_kind.plays(responder,
                                                                         competitor.name):
          continue
        trained = []
        for seat in range(game.num_players()):
          # Keyed as the paired games will key it: the agent trains once, here.
          network = approximate.make_responder(game, seat, 0, "ppo", responder["params"],
                                               model).trained()
          if any(network is other for other in trained):  # one agent for every seat
            continue
          trained.append(network)
          seats = "all" if network.metadata["config"]["seat"] == -1 else str(seat)
          rows += [{"game": label, "competitor": competitor.name, "responder": name,
                    "seats": seats, **point} for point in network.metadata["curve"]]
          print(f"{competitor.name}, {name}, seats {seats}: trained in"
                f" {network.metadata['seconds']:.0f} s, mean margin at the end"
                f" {rows[-1]['mean_margin']:.2f}", flush=True)
  if not rows:
    raise SystemExit(f"{config_path}: no ppo responder plays a competitor; nothing to train")
  curve.parent.mkdir(parents=True, exist_ok=True)
  with open(curve, "w", newline="", encoding="utf-8") as file:
    writer = csv.DictWriter(file, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
  return cli.main(["run", str(config_path), "--out", str(out), "--workers", "1", "--quiet"])


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
  parser.add_argument("--games", nargs="+", choices=GAMES,
                      help="the reduced games (with --out, one file: games whose parameters"
                      " differ, GAME_PARAMS, each need a file of their own)")
  parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES)
  parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                      help="a responder parameter (PPOBestResponseBot.PARAMETERS)")
  parser.add_argument("--out", required=True,
                      help="the results file (.json); with --full-game, the run folder")
  parser.add_argument("--full-game", metavar="CONFIG",
                      help="an approximate exploitability config with ppo responders: train them,"
                      " keep their curves, run it (module docstring)")
  parser.add_argument("--curve", help="with --full-game: the learning curves' file (.csv)")
  args = parser.parse_args(argv)
  params = {}
  for text in args.param:
    try:
      key, value = config.assignment(text)
    except ValueError as e:
      parser.error(f"--param {e}")
    if key not in PPOBestResponseBot.PARAMETERS:
      parser.error(f"--param {text!r}: allowed keys: {', '.join(PPOBestResponseBot.PARAMETERS)}")
    params[key] = value
  if args.full_game:
    if args.param:
      parser.error("--param sets the reduced games' responder; with --full-game the config's"
                   " responders hold their parameters")
    if not args.curve:
      parser.error("--full-game needs --curve, the file for the learning curves")
    return full_game(pathlib.Path(args.full_game), pathlib.Path(args.out),
                     pathlib.Path(args.curve))
  if not args.games:
    parser.error("give --games (the reduced games to validate on) or --full-game CONFIG")
  settings = {game: {**PPOBestResponseBot.PARAMETERS, **GAME_PARAMS.get(game, {}), **params}
              for game in args.games}
  if any(setting != settings[args.games[0]] for setting in settings.values()):
    parser.error(f"games {', '.join(args.games)} train with different parameters"
                 f" ({GAME_PARAMS}), and one results file records one set: give one game per"
                 " --out")
  out = pathlib.Path(args.out)
  out.parent.mkdir(parents=True, exist_ok=True)
  rows = []
  for game in args.games:
    for policy in args.policies:
      row = validate(game, policy, settings[game])
      rows.append(row)
      print(f"{game:7s} {policy:10s} exact {row['exact']:.4f} learned {row['learned']:.4f}"
            f" ratio {row['ratio'] if row['ratio'] is None else round(row['ratio'], 4)}"
            f" ({row['seconds']:.0f} s)", flush=True)
      result = {"responder": "ppo", "params": settings[game],
                "target_ratio": TARGET, "rows": rows, "complete": len(rows) == len(
                    args.games) * len(args.policies), "version": package_version(),
                "commit": git_commit()}
      run_folder.write_atomically(out, json.dumps(result, indent=1) + "\n")  # after each row
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
