"""`sushigo train`: a CFR-family policy trained on an abstraction, saved with its provenance."""

from __future__ import annotations

import argparse

import pyspiel

from solvers.equilibrium import exploitability
from solvers.equilibrium import policies as policy_io
from solvers.equilibrium.game_tree import GameTree
from sushigo_spiel import reduced_games


def train(args: argparse.Namespace) -> int:
  try:
    policy = policy_io.train(args.game, args.algorithm, args.abstraction, args.iterations,
                             args.seconds, args.seed, args.out, progress=not args.quiet)
  except (ValueError, pyspiel.SpielError) as e:
    args.error(str(e))
  meta = policy.metadata
  print(f"{meta['algorithm']} on {meta['game']}, abstraction {meta['abstraction']}:"
        f" {meta['iterations']:,} iterations in {meta['seconds']:.1f} s, {len(policy.strategy):,}"
        f" keys; saved to {args.out}")
  if args.game in reduced_games.REDUCED_GAMES:
    tree = GameTree(policy.game)
    result = exploitability.nash_conv(tree, tree.policy_array(policy))
    print(f"NashConv in the real game: {result.nash_conv:.6g} (gains by player:"
          f" {', '.join(f'{g:.6g}' for g in result.gains)})")
  return 0
