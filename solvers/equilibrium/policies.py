"""Training CFR policies, saving them to disk, loading them back, and playing them as a bot.

A policy file is a compressed numpy archive (`numpy.savez_compressed`, no pickles) holding the
abstract strategy (each key as its Python literal, the legal actions and the probabilities), any
fitted abstraction data (k-means centres), and JSON metadata: the game string, the abstraction
name, the algorithm, iterations, seed, wall time, package version and git commit. Loading
rebuilds the abstraction from its name and data, so the policy answers at any state of the game.

  ALGORITHMS / make_solver(algorithm, game, abstraction, seed)
  train(game_string, algorithm, abstraction, iterations | seconds, seed, out_path, progress)
  save_policy(path, policy) / load_policy(path)
  PolicyBot(game, player_id, seed, path=...)  a `solvers.bot.Bot` sampling the loaded policy
"""

from __future__ import annotations

import ast
import json

import numpy as np
import pyspiel

from solvers.bot import Bot, Policy
from solvers.equilibrium.abstraction import LiftedPolicy, make_abstraction
from solvers.equilibrium.cfr import CFR, CFRPlus, DiscountedCFR, RegretSolver
from solvers.equilibrium.mccfr import ExternalSamplingMCCFR, OutcomeSamplingMCCFR
from solvers.provenance import git_commit, package_version
from sushigo_spiel.reduced_games import REDUCED_GAMES, reduced_game_string

ALGORITHMS: dict[str, type[RegretSolver]] = {
    "cfr": CFR,
    "cfr+": CFRPlus,
    "dcfr": DiscountedCFR,
    "es-mccfr": ExternalSamplingMCCFR,
    "os-mccfr": OutcomeSamplingMCCFR,
}
FULL_WIDTH = ("cfr", "cfr+", "dcfr")  # these build the whole game tree: reduced games only


def make_solver(algorithm: str, game: pyspiel.Game, abstraction: str = "identity",
                seed: int = 0) -> RegretSolver:
  """Solver `algorithm` (see `ALGORITHMS`) for `game` with the named abstraction."""
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
  keys = make_abstraction(abstraction, game, seed)
  if keys.fixed_actions and algorithm in FULL_WIDTH:
    raise ValueError(f"abstraction {abstraction!r} does not fix the legal actions per key, which"
                     f" full-width {algorithm} needs; allowed with it: "
                     f"{', '.join(a for a in ALGORITHMS if a not in FULL_WIDTH)}")
  return ALGORITHMS[algorithm](game, keys, seed=seed)


def train(game_string: str, algorithm: str, abstraction: str = "identity",
          iterations: int | None = None, seconds: float | None = None, seed: int = 0,
          out_path: str | None = None, progress: bool = True) -> LiftedPolicy:
  """Trains `algorithm` on the game for `iterations` iterations or `seconds` seconds, and returns
  its average strategy lifted to the game, with its provenance; saved to `out_path` if given.

  `game_string` is a game string or the name of a reduced game (`sushigo_spiel.reduced_games`).
  The full-width algorithms build the whole tree, so they are for reduced games; the sampling
  ones run on any game (outcome sampling on the full game).
  """
  if game_string in REDUCED_GAMES:
    game_string = reduced_game_string(game_string)
  game = pyspiel.load_game(game_string)
  solver = make_solver(algorithm, game, abstraction, seed)
  solver.run(iterations=iterations, seconds=seconds, progress=progress)
  policy = solver.average_policy()
  policy.metadata = provenance(solver)
  if out_path is not None:
    save_policy(out_path, policy)
  return policy


def provenance(solver: RegretSolver) -> dict:
  return {
      "game": str(solver.game),
      "abstraction": solver.abstraction.name,
      "algorithm": solver.algorithm,
      "iterations": solver.iterations,
      "seed": solver.seed,
      "seconds": round(solver.seconds, 3),
      "package_version": package_version(),
      "git_commit": git_commit() or "unknown",
  }


def save_policy(path: str, policy: LiftedPolicy) -> None:
  """Writes the policy (strategy, abstraction data, metadata) to `path` (.npz)."""
  keys, counts, actions, probabilities = [], [], [], []
  for key, (acts, probs) in policy.strategy.items():
    keys.append(repr(key))
    counts.append(len(acts))
    actions.extend(acts)
    probabilities.append(np.asarray(probs, np.float64))
  metadata = {**policy.metadata, "game": str(policy.game),
              "abstraction": policy.abstraction.name}
  arrays = {f"abstraction_{name}": value for name, value in policy.abstraction.arrays.items()}
  with open(path, "wb") as file:
    np.savez_compressed(
        file, keys=np.array(keys, dtype=str), counts=np.array(counts, np.int64),
        actions=np.array(actions, np.int64),
        probabilities=np.concatenate(probabilities) if probabilities else np.zeros(0),
        metadata=np.array(json.dumps(metadata)), **arrays)


def load_policy(path: str) -> LiftedPolicy:
  """The policy saved at `path`, for its game (the game string in its metadata)."""
  with np.load(path, allow_pickle=False) as data:
    metadata = json.loads(str(data["metadata"]))
    game = pyspiel.load_game(metadata["game"])
    arrays = {name[len("abstraction_"):]: data[name] for name in data.files
              if name.startswith("abstraction_")}
    abstraction = make_abstraction(metadata["abstraction"], game, arrays=arrays)
    ends = np.cumsum(data["counts"])
    actions = np.split(data["actions"], ends[:-1])
    probabilities = np.split(data["probabilities"], ends[:-1])
    strategy = {ast.literal_eval(str(key)): (tuple(acts.tolist()), probs)
                for key, acts, probs in zip(data["keys"], actions, probabilities)}
  return LiftedPolicy(game, abstraction, strategy, metadata)


class PolicyBot(Bot):
  """Plays a saved policy: at each move, the policy's probabilities at the player's information
  (computed by the policy's abstraction from what the player knows), sampled with the bot's
  seeded generator. Works on the simultaneous game and on its `convert_to_turn_based` form, and on
  the game it was trained for with any `utility`."""

  PARAMETERS = {"path": ""}
  cheap_policy = True

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    self.lifted = self.load_saved(load_policy, "policy")
    # A policy trained on margins plays the same game scored by points or wins.
    self.check_trained_for(self.lifted.game, "policy")

  def policy_at(self, table) -> Policy:
    return list(self.lifted.probabilities(self.rules, table, self.player_id).items())
