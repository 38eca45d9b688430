"""Validation of the PPO best response (responder `ppo`, `solvers.learning.best_response`) on the
reduced games, where the exact best response is known: for each game and fixed policy, the
responder trained in each seat, its strategy read at every information set of the tree, and its
gain over the policy's self-play computed exactly on the tree, beside the exact best response's
gain (`solvers.equilibrium.exploitability.best_response`). The ratio of their sums over the seats
is the share of the exact exploitability the learned responder finds: what a bound from its
paired games estimates, without their sampling noise.

  python -m experiments.ppo_best_response --games small \
      --out experiments/results/ppo-best-response/small.json      (and medium, large)
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time

import numpy as np

from experiments import run_folder
from solvers import make_bot
from solvers.equilibrium import exploitability
from solvers.equilibrium.game_tree import GameTree
from solvers.learning.best_response import PPOBestResponseBot
from solvers.provenance import git_commit, package_version
from solvers.search.opponent_model import CompiledPolicy, OpponentModel
from sushigo_spiel import reduced_games

GAMES = ("small", "medium", "large")
POLICIES = ("random", "greedy", "heuristic")
TARGET = 0.9


def validate(game_name: str, policy: str, params: dict) -> dict:
  """One game and policy: each seat's exact and learned gains, and their ratio."""
  game = reduced_games.load_reduced(game_name)
  tree = GameTree(game)
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
    mixed = exploitability.policy_from_bot(
        tree, lambda g, p, s, r=responder: r if p == r.player_id else make_bot(policy, g, p, s),
        checks=0).array
    learned_value = tree.policy_values(mixed)[seat]
    seats.append({"seat": seat, "exact_gain": float(exact_value - values[seat]),
                  "learned_gain": float(learned_value - values[seat])})
  exact = sum(s["exact_gain"] for s in seats)
  learned = sum(s["learned_gain"] for s in seats)
  return {"game": game_name, "policy": policy, "seats": seats, "exact": exact,
          "learned": learned, "ratio": learned / exact if exact > 0 else None,
          "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
  parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
  parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES)
  parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                      help="a responder parameter (PPOBestResponseBot.PARAMETERS)")
  parser.add_argument("--out", required=True, help="the results file (.json)")
  args = parser.parse_args(argv)
  params = {}
  for text in args.param:
    key, _, value = text.partition("=")
    default = PPOBestResponseBot.PARAMETERS.get(key)
    if default is None:
      parser.error(f"--param {text!r}: allowed keys: {', '.join(PPOBestResponseBot.PARAMETERS)}")
    params[key] = type(default)(value)
  out = pathlib.Path(args.out)
  out.parent.mkdir(parents=True, exist_ok=True)
  rows = []
  for game in args.games:
    for policy in args.policies:
      row = validate(game, policy, params)
      rows.append(row)
      print(f"{game:7s} {policy:10s} exact {row['exact']:.4f} learned {row['learned']:.4f}"
            f" ratio {row['ratio'] if row['ratio'] is None else round(row['ratio'], 4)}"
            f" ({row['seconds']:.0f} s)", flush=True)
      result = {"responder": "ppo", "params": {**PPOBestResponseBot.PARAMETERS, **params},
                "target_ratio": TARGET, "rows": rows, "complete": len(rows) == len(
                    args.games) * len(args.policies), "version": package_version(),
                "commit": git_commit()}
      run_folder.write_atomically(out, json.dumps(result, indent=1) + "\n")  # after each row
  return 0


if __name__ == "__main__":
  raise SystemExit(main())
