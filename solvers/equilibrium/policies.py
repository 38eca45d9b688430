"""Training CFR policies, saving them to disk, loading them back, and playing them as a bot.

A policy file is a `solvers.archives` archive of the abstract strategy (each key as its Python
literal, its legal actions and probabilities), any fitted abstraction data (k-means centres) and
JSON metadata (game string, abstraction, algorithm, iterations, seed, wall time, version, commit).
Saving and loading check every value (each key's probabilities finite, non-negative, summing to
1); loading rebuilds the abstraction, so the policy answers at any state of the game.

  ALGORITHMS / make_solver(algorithm, game, abstraction, seed, max_nodes)
  train(game_string, algorithm, abstraction, iterations | seconds, seed, out_path, progress,
        max_nodes)   a solver whose work grows with the tree is refused on a game over
                     `max_nodes` (`tree_size.MAX_TREE_NODES`), with the estimate, before it starts
  save_policy(path, policy) / load_policy(path)
  PolicyBot(game, player_id, seed, path=...)  a `solvers.bot.Bot` sampling the loaded policy
The rest: docs/equilibrium.md, "Policy files".
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re

import numpy as np
import pyspiel

from solvers import archives
from solvers.bot import Bot, Policy
from solvers.equilibrium import blueprint
from solvers.equilibrium import validation
from solvers.equilibrium.abstraction import LiftedPolicy, make_abstraction
from solvers.equilibrium.cfr import CFR, CFRPlus, DiscountedCFR, RegretSolver
from solvers.equilibrium.game_tree import GameTree
from solvers.equilibrium.mccfr import ExternalSamplingMCCFR, OutcomeSamplingMCCFR
from solvers.equilibrium.tree_size import MAX_TREE_NODES, REDUCED, check_tree_size, check_walk_size
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
                seed: int = 0, max_nodes: int = MAX_TREE_NODES,
                raise_limit: str = "max_nodes") -> RegretSolver:
  """Solver `algorithm` (see `ALGORITHMS`) for `game` with the named abstraction; TreeTooLarge
  (naming `raise_limit`, the caller's way to raise the limit) if its work is over `max_nodes`."""
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
  keys = make_abstraction(abstraction, game, seed)
  if keys.fixed_actions and algorithm in FULL_WIDTH:
    raise ValueError(f"abstraction {abstraction!r} does not fix the legal actions per key, which"
                     f" full-width {algorithm} needs; allowed with it: "
                     f"{', '.join(a for a in ALGORITHMS if a not in FULL_WIDTH)}")
  if algorithm == "es-mccfr":
    check_walk_size(game, max_nodes, raise_limit)
  if algorithm not in FULL_WIDTH:
    return ALGORITHMS[algorithm](game, keys, seed=seed)
  check_tree_size(game, max_nodes, f"full-width {algorithm} builds its whole tree", raise_limit,
                  alternatives=f"{REDUCED} or a sampling algorithm (os-mccfr)")
  return ALGORITHMS[algorithm](game, keys, tree=GameTree(game, max_nodes), seed=seed)


def train(game_string: str, algorithm: str, abstraction: str = "identity",
          iterations: int | None = None, seconds: float | None = None, seed: int = 0,
          out_path: str | None = None, progress: bool = True, max_nodes: int = MAX_TREE_NODES,
          raise_limit: str = "max_nodes") -> LiftedPolicy:
  """Trains `algorithm` on the game for `iterations` iterations or `seconds` seconds, and returns
  its average strategy lifted to the game, with its provenance; saved to `out_path` if given.

  `game_string` is a game string or the name of a reduced game (`sushigo_spiel.reduced_games`).
  The full-width algorithms build the whole tree, so they are for reduced games; the sampling
  ones run on any game (outcome sampling on the full game). A game too large for the algorithm
  is refused (`make_solver`) before anything runs.
  """
  if game_string in REDUCED_GAMES:
    game_string = reduced_game_string(game_string)
  game = pyspiel.load_game(game_string)
  solver = make_solver(algorithm, game, abstraction, seed, max_nodes, raise_limit)
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


WHAT = "policy file"
SUM_TOLERANCE = 1e-6  # how far a key's stored probabilities may sum from 1


def save_policy(path: str, policy: LiftedPolicy) -> str:
  """Writes the policy (strategy, abstraction data, metadata) to `path` (.npz) with the digest of
  its content (`solvers.archives`), atomically: a failed write leaves the file that was there.
  The tables are checked first as a load checks them (finite probabilities summing to 1 over each
  key's actions...): a ValueError refuses an invalid policy before anything is written. Returns
  the digest."""
  keys, counts, actions, probabilities = [], [], [], []
  for key, (acts, probs) in policy.strategy.items():
    keys.append(repr(key))
    counts.append(len(acts))
    actions.extend(acts)
    probabilities.append(np.asarray(probs, np.float64))
  metadata = {**policy.metadata, "game": str(policy.game),
              "abstraction": policy.abstraction.name}
  arrays = {f"abstraction_{name}": np.asarray(value)
            for name, value in policy.abstraction.arrays.items()}
  arrays.update(keys=np.array(keys, dtype=str), counts=np.array(counts, np.int64),
                actions=np.array(actions, np.int64),
                probabilities=np.concatenate(probabilities) if probabilities else np.zeros(0))
  _check_tables(archives.Archive(path, WHAT, arrays, metadata, "", saving=True), policy.game)
  return archives.save(path, arrays, metadata)


def load_policy(path: str) -> LiftedPolicy | blueprint.BlueprintPolicy:
  """The policy saved at `path`, for its game (the game string in its metadata): a lifted
  abstract strategy, or a blueprint of the `cards` abstraction (`blueprint.py`). Its digest and
  every value are checked: one ValueError (`archives.ArchiveError`) names the path and what is
  wrong with a file that is no valid policy file."""
  archive = archives.load(path, WHAT)
  if "average_slots" in archive.arrays:
    return blueprint.blueprint_from_archive(archive)
  return policy_from_archive(archive)


def policy_from_archive(archive: archives.Archive) -> LiftedPolicy:
  """The lifted policy in a checked archive (`archives.load`); its values checked."""
  metadata = archive.metadata
  for name in ("game", "abstraction"):
    if not isinstance(metadata.get(name), str):
      raise archive.error(f"its metadata names no {name}")
  try:
    game = pyspiel.load_game(metadata["game"])
  except pyspiel.SpielError as e:
    raise archive.error(f"its game {metadata['game']!r} cannot be loaded ({e})") from None
  _check_tables(archive, game)
  arrays = archive.arrays
  fitted = {name[len("abstraction_"):]: value for name, value in arrays.items()
            if name.startswith("abstraction_")}
  try:
    abstraction = make_abstraction(metadata["abstraction"], game, arrays=fitted)
    keys = parse_keys(arrays["keys"])
  except (ValueError, KeyError, TypeError, SyntaxError, pyspiel.SpielError) as e:
    raise archive.error(f"its abstraction or keys cannot be read ({e})") from None
  ends = np.cumsum(arrays["counts"])
  actions = np.split(arrays["actions"], ends[:-1])
  probabilities = np.split(arrays["probabilities"], ends[:-1])
  strategy = {key: (tuple(acts.tolist()), probs)
              for key, acts, probs in zip(keys, actions, probabilities)}
  if len(strategy) != len(keys):
    raise archive.error(f"its keys are not distinct ({len(keys) - len(strategy)} repeat)")
  return LiftedPolicy(game, abstraction, strategy, metadata)


def _check_tables(archive: archives.Archive, game: pyspiel.Game) -> None:
  """Refuses `archive` unless its keys, counts, actions and probabilities have the dtypes and
  shapes of a policy and each key's probabilities are a distribution over its actions."""
  keys = archives.check_array(archive, "keys", "U", 1)
  counts = archives.check_array(archive, "counts", "iu", 1, len(keys))
  if (counts < 1).any():
    raise archive.error("a key has no actions (a count below 1)")
  actions = archives.check_array(archive, "actions", "iu", 1, int(counts.sum()))
  probabilities = archives.check_array(archive, "probabilities", "f", 1, len(actions))
  if len(actions) and not (0 <= actions.min() and actions.max() < game.num_distinct_actions()):
    raise archive.error(f"an action is outside 0..{game.num_distinct_actions() - 1}")
  archives.check_finite(archive, "probabilities", probabilities, non_negative=True)
  if len(keys):
    sums = np.add.reduceat(probabilities, np.concatenate([[0], np.cumsum(counts)[:-1]]))
    worst = int(np.argmax(np.abs(sums - 1.0)))
    if abs(sums[worst] - 1.0) > SUM_TOLERANCE:
      raise archive.error(f"the probabilities of key {keys[worst]} sum to {sums[worst]!r}, not 1")


_INTEGER_TUPLE = re.compile(r"[-\d(), ]*")  # the repr of a key of integers and tuples alone


def parse_keys(texts) -> list:
  """The keys whose reprs are `texts`. Keys of integers and tuples alone (the abstractions' keys)
  are read as one JSON array, with lists made tuples: a policy of `large` (700,000 keys) loads in
  20 s rather than 50 with `ast.literal_eval` key by key. Any other key is read by
  `ast.literal_eval`."""
  texts = [str(text) for text in texts]
  if not all(_INTEGER_TUPLE.fullmatch(text) for text in texts):
    return [ast.literal_eval(text) for text in texts]
  array = ("[" + ",".join(texts) + "]").replace("(", "[").replace(")", "]").replace(",]", "]")
  return list(_tuples(json.loads(array)))


def _tuples(values: list) -> tuple:
  # Recursing only into lists (not once per integer) takes a sixth off loading `large`'s policy.
  return tuple([_tuples(item) if item.__class__ is list else item for item in values])


class PolicyBot(Bot):
  """Plays a saved policy: at each move, the policy's probabilities at the player's information
  (computed by the policy's abstraction from what the player knows), sampled with the bot's
  seeded generator. Works on the simultaneous game and on its `convert_to_turn_based` form, and on
  the game it was trained for with any `utility`.

  `play=argmax` plays the purified policy instead (Ganzfried, Sandholm and Waugh 2012, "Strategy
  purification and thresholding"): the likeliest action, ties split evenly. It gives up the
  mixing an equilibrium may need, for strength where the policy's mixing is mostly noise from
  coarse keys and short training.

  The file is checked when loaded, every key or weight it holds (`validation.load_checked_policy`),
  and each answer is checked against the actions legal where it is asked: a policy that is not a
  distribution over them is refused with the player, the information state and the actions.

  It plays for what its file was trained to maximise (the utility in the file's game string):
  `objective` must be that, "win" for a file trained with `utility=win` and "margin" otherwise;
  "auto" follows the game's utility, so a margin policy in a game with `utility=win` needs
  `objective="margin"` (`Bot.check_objective_trained`)."""

  PARAMETERS = {"path": "", "play": "sample", "objective": "auto"}
  PLAYS = ("sample", "argmax")
  cheap_policy = True

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    if self.params["play"] not in self.PLAYS:
      raise ValueError(f"parameter 'play' is {self.params['play']!r}; allowed:"
                       f" {', '.join(self.PLAYS)}")
    self.lifted = self.load_saved(validation.load_checked_policy, "policy")
    self.check_objective_trained(self.lifted.game, "policy")
    # The utility says what a game is scored for, not how it is played: a policy trained on
    # margins plays the same game scored by points or wins.
    trained = dataclasses.replace(self.lifted.game.rules, utility=self.rules.utility)
    if isinstance(self.lifted, blueprint.BlueprintPolicy):
      # A blueprint's keys do not name the player count: it plays the game it was trained for at
      # any player count (its hand size following), as a transfer rather than a solution.
      trained = dataclasses.replace(trained, num_players=self.rules.num_players,
                                    hand_size=self.rules.hand_size)
      if trained == self.rules and self.lifted.game.rules != self.rules:
        self.lifted = self.lifted.for_game(game)
    if trained != self.rules:
      raise ValueError(f"the policy at {self.params['path']} was trained for {self.lifted.game},"
                       f" not {self.game}")

  def blueprint_model(self) -> tuple[str, blueprint.BlueprintPolicy] | None:
    """The name of this bot's play in the compiled blueprint policy kernel
    (`solvers.equilibrium.kernels.blueprint_policy`) and its blueprint, or None when its policy is no blueprint."""
    if not isinstance(self.lifted, blueprint.BlueprintPolicy):
      return None
    return "blueprint" if self.params["play"] == "sample" else "blueprint_argmax", self.lifted

  def policy_at(self, table) -> Policy:
    answer = self.lifted.probabilities(self.rules, table, self.player_id)
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    if validation.answer_problem(answer, legal):  # an action its keys gave that is not legal here
      validation.check_answer(answer, legal, self.player_id,
                              validation.information_state(self.game, table, self.player_id),
                              f"the policy at {self.params['path']}")
    policy = list(answer.items())
    if self.params["play"] == "sample":
      return policy
    return purified(policy)


def purified(policy: Policy) -> Policy:
  """`policy` with its weight moved to its likeliest actions, split evenly among ties."""
  best = max(probability for _, probability in policy)
  tied = [action for action, probability in policy if probability == best]
  return [(action, 1.0 / len(tied) if action in tied else 0.0) for action, _ in policy]
