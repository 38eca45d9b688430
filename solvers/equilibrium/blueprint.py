"""The blueprint: Monte Carlo CFR on Sushi Go's compiled core with action-centred abstractions.

Two abstractions (`ABSTRACTIONS`, kernels in `kernels.features`): `cards`, each action keyed by
what its cards score with, and `cards+rank`, which adds its rank and gap under the heuristic's
values; a `cards+rank` file stores the heuristic parameters it was trained with (`valuation`), so
it plays the same whatever the heuristic's defaults become. `CompiledMCCFR` is the algorithm on the
kernels (its tables; iterations in chunks of `CHUNK`, chunk c drawing from a stream seeded from
(seed, c)); running it is `blueprint_training`'s.

Files (`save_blueprint`, `load_blueprint`, `load_checkpoint`) are `solvers.archives` archives of
the tables' non-zero slots, the valuation and JSON metadata; every value is checked at load and
before a save (finite tables, non-negative weights, slots inside the table). A file saved before
offer weights gathers them once resumed, and plays `mean` only once its average is restarted.
The rest: docs/blueprint.md.
"""

from __future__ import annotations


import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from solvers import archives
from solvers.baselines import HeuristicBot
from solvers.equilibrium.kernels import mccfr
from solvers.equilibrium.kernels.compiling import ensure_compiled
from solvers.equilibrium.tree_size import MAX_TREE_NODES, check_walk_size
from solvers.policy_kernels import heuristic
from solvers.provenance import git_commit, package_version
from sushigo_spiel.compiled.sushi_go import codec
from sushigo_spiel.compiled.sushi_go.layout import build_spec
from sushigo_spiel.drafting.adapter import simultaneous_state

ABSTRACTION = "cards"  # the default
ABSTRACTIONS = ("cards", "cards+rank")
ALGORITHMS = {"es-mccfr": "es", "probe-mccfr": "probe", "os-mccfr": "os"}  # algorithm name -> walk
WEIGHTINGS = ("linear", "uniform")
PLAYS = ("average", "mean", "current")  # the strategy a blueprint plays
CHUNK = 50
DEFAULT_TABLE_BITS = 20


def check_game(game: pyspiel.Game) -> None:
  """A ValueError unless the blueprint abstractions read `game` (Sushi Go without the robot)."""
  if game.get_type().short_name != "python_sushi_go" or game.rules.robot:
    raise ValueError(f"abstractions {', '.join(ABSTRACTIONS)} are for python_sushi_go without the"
                     f" robot; got {game}")


def valuation(abstraction: str) -> np.ndarray:
  """The kernels' `valuation` of `abstraction`: empty for `cards`, the heuristic baseline's
  parameters (its defaults) for `cards+rank`."""
  if abstraction not in ABSTRACTIONS:
    raise ValueError(f"unknown abstraction {abstraction!r} for the compiled blueprint; allowed:"
                     f" {', '.join(ABSTRACTIONS)}")
  if abstraction == "cards":
    return np.zeros(0)
  return heuristic.parameters(HeuristicBot.WEIGHTS)


def _chunk_seed(seed: int, chunk: int) -> int:
  """The stream seed of chunk `chunk` (below 2**63, as the kernels take it)."""
  state = np.random.SeedSequence([seed, chunk]).generate_state(1, np.uint64)[0]
  return int(state >> np.uint64(1))


def run_chunks(spec, tables, first, count, settings: mccfr.Settings, seed: int) -> None:
  """Runs chunks `first` to `first + count - 1`, one after another, on `tables` (regrets,
  averages, offer weights) in place; `settings` and `seed` are `CompiledMCCFR.chunk_settings()`."""
  ensure_compiled()
  tables = mccfr.Tables(*tables)
  for chunk in range(first, first + count):
    mccfr.iterate(spec, tables, settings, chunk * CHUNK, CHUNK, _chunk_seed(seed, chunk))


class CompiledMCCFR:
  """MCCFR (`algorithm`: es-mccfr, probe-mccfr or os-mccfr) with an action-centred abstraction
  (`cards` or `cards+rank`) on the compiled core; `weighting` linear (Linear CFR) or uniform;
  tables of 2**table_bits slots. `play` names the strategy its policy plays: the average strategy
  (what CFR's guarantees are about; its raw weights normalised at a decision), `mean` (the average
  with each key's weight divided by its offer weight: its mean probability when offered, free of
  the bias of keys shared across decisions, `mccfr`), or the current one (regret matching on the
  last regrets), which Pluribus played beyond its first betting round and which, on the full game,
  plays far better than the average of a short run (docs/blueprint.md)."""

  def __init__(self, game: pyspiel.Game, algorithm: str = "probe-mccfr", seed: int = 0,
               weighting: str = "linear", table_bits: int = DEFAULT_TABLE_BITS,
               max_nodes: int = MAX_TREE_NODES, raise_limit: str = "max_nodes",
               play: str = "average", abstraction: str = ABSTRACTION):
    check_game(game)
    self.abstraction, self.valuation = abstraction, valuation(abstraction)
    _check_settings(algorithm, abstraction, weighting, table_bits, seed, play)
    if algorithm == "es-mccfr":
      check_walk_size(game, max_nodes, raise_limit)
    ensure_compiled()
    self.game, self.rules = game, game.rules
    self.spec = build_spec(game.rules)
    self.algorithm, self.walk = algorithm, mccfr.WALKS[ALGORITHMS[algorithm]]
    self.seed, self.weighting, self.play = seed, weighting, play
    self.regrets = np.zeros(1 << table_bits)
    self.averages = np.zeros(1 << table_bits)
    self.offered = np.zeros(1 << table_bits)  # offer weights (`mccfr`): the averages' divisors
    self.iterations = 0  # always whole chunks
    self.average_since = 0  # the iteration after which the average weights were gathered
    self.offered_since = 0  # the same for the offer weights (later if resumed from an old file)

  @property
  def tables(self) -> mccfr.Tables:
    """The regrets, average weights and offer weights, as the kernels take them."""
    return mccfr.Tables(self.regrets, self.averages, self.offered)

  @property
  def occupied(self) -> int:
    """Slots of the average table in use (keys met at someone's decision, up to collisions)."""
    return int(np.count_nonzero(self.averages))

  @property
  def next_chunk(self) -> int:
    return self.iterations // CHUNK

  def chunk_settings(self) -> tuple[mccfr.Settings, int]:
    """What `run_chunks` takes besides the spec, tables and chunks: the kernels' settings (the
    walk, whether weighting is linear, the valuation) and the seed."""
    return mccfr.Settings(self.walk, self.weighting == "linear", self.valuation), self.seed

  def iterate(self, chunks: int = 1) -> None:
    """Runs the next `chunks` chunks (`CHUNK` iterations each) on the tables."""
    if chunks < 1:
      raise ValueError(f"chunks is {chunks}; allowed: 1 or more")
    run_chunks(self.spec, self.tables, self.next_chunk, chunks, *self.chunk_settings())
    self.iterations += chunks * CHUNK

  def add_changes(self, changes, chunks: int) -> None:
    """Adds what tasks run apart from these tables changed in them, in the order given, and
    counts their `chunks` chunks. `changes`: per task, (slots, [additions to the regrets,
    averages and offer weights at those slots])."""
    for slots, additions in changes:
      for table, added in zip(self.tables, additions):
        table[slots] += added
    self.iterations += chunks * CHUNK

  def metadata(self) -> dict:
    """The settings and counters that rebuild this solver from its tables."""
    return {
        "game": str(self.game), "abstraction": self.abstraction, "algorithm": self.algorithm,
        "weighting": self.weighting, "play": self.play, "iterations": self.iterations,
        "average_since": self.average_since, "offered_since": self.offered_since,
        "seed": self.seed, "occupied_slots": self.occupied, "table_slots": len(self.averages),
    }

  def restart_average(self) -> None:
    """Drops the average and offer weights gathered so far: the average strategy is gathered
    afresh from the next iteration on (the regrets carry on)."""
    self.averages[:] = 0.0
    self.offered[:] = 0.0
    self.average_since = self.offered_since = self.iterations

  def check_play(self) -> None:
    """A ValueError when playing `mean` while the offer weights cover fewer iterations than the
    average weights (resumed from a file saved without them): checked before a long training,
    it saves finding out at its end."""
    if self.play == "mean" and self.offered_since != self.average_since:
      raise ValueError(f"offer weights were gathered after iteration {self.offered_since}, the"
                       f" average weights after {self.average_since}: their mean is not defined;"
                       " restart the average (restart_average; --restart-average) or play"
                       " average or current")

  def policy(self) -> BlueprintPolicy:
    """The strategy of `play` (a ValueError for a `mean` that is not defined, `check_play`)."""
    self.check_play()
    return BlueprintPolicy(self.game, strategy_weights(self.play, *self.tables), self.metadata(),
                           self.valuation)


def _check_settings(algorithm: str, abstraction: str, weighting: str, table_bits: int, seed: int,
                    play: str) -> None:
  """A ValueError naming what is allowed, for the first setting of `CompiledMCCFR` out of it."""
  if play not in PLAYS:
    raise ValueError(f"unknown play {play!r}; allowed: {', '.join(PLAYS)}")
  if algorithm not in ALGORITHMS:
    raise ValueError(f"unknown algorithm {algorithm!r} for abstraction {abstraction!r};"
                     f" allowed: {', '.join(ALGORITHMS)}")
  if weighting not in WEIGHTINGS:
    raise ValueError(f"unknown weighting {weighting!r}; allowed: {', '.join(WEIGHTINGS)}")
  if not 8 <= table_bits <= 28:
    raise ValueError(f"table_bits is {table_bits}; allowed: 8 to 28")
  if not 0 <= seed < 2 ** 63:
    raise ValueError(f"seed is {seed}; allowed: 0 to 2**63 - 1")


WHAT = "blueprint file"
_TABLES = ("regret", "average", "offered")  # the tables a file holds as slots and values
_NUMBERS = {"iterations": int, "average_since": int, "offered_since": int, "seed": int}


def save_blueprint(solver: CompiledMCCFR, path: str, checkpoint: bool = True,
                   run_metadata: dict | None = None) -> str:
  """Writes the solver's policy (and, as a checkpoint, its regrets) to `path`, with its metadata,
  `run_metadata` (what a trainer adds), provenance and the digest of its content
  (`solvers.archives`), atomically: a failed write leaves the file that was there. Every value is
  checked first as a load checks it: a ValueError refuses non-finite tables or negative average
  or offer weights before anything is written, as it does a `mean` play that is not defined
  (`check_play`). Returns the digest."""
  solver.check_play()
  metadata = {**solver.metadata(), **(run_metadata or {}), "package_version": package_version(),
              "git_commit": git_commit() or "unknown"}
  used = np.flatnonzero(solver.averages)
  offered = np.flatnonzero(solver.offered)
  arrays = {"average_slots": used, "average_values": solver.averages[used],
            "offered_slots": offered, "offered_values": solver.offered[offered],
            "table_slots": np.array(len(solver.averages)),
            "valuation": np.asarray(solver.valuation, np.float64)}
  if checkpoint or solver.play == "current":
    held = np.flatnonzero(solver.regrets)
    arrays.update(regret_slots=held, regret_values=solver.regrets[held])
  saving = archives.Archive(path, WHAT, arrays, metadata, "", saving=True)
  for name, table in zip(_TABLES, solver.tables):  # zeros are not stored: check whole tables
    archives.check_finite(saving, name, table, non_negative=name != "regret")
  _check_blueprint(saving)
  return archives.save(path, arrays, metadata)


def load_checkpoint(path: str, game: pyspiel.Game | None = None, algorithm: str | None = None,
                    play: str | None = None) -> tuple[CompiledMCCFR, dict]:
  """The solver saved at `path` (a checkpoint), playing `play` (default: the checkpoint's), and
  the file's metadata. A ValueError naming the file if it is no valid blueprint file
  (`archives.load`, `_check_blueprint`), holds no regrets, or was trained on another game or
  algorithm than the given ones, or for an unknown play. A checkpoint saved before offer weights
  were kept gathers them from its last iteration on (`offered_since`)."""
  archive = archives.load(path, WHAT)
  game_saved = _check_blueprint(archive)
  data, metadata = archive.arrays, archive.metadata
  if "regret_slots" not in data:
    raise ValueError(f"{path} is a policy without regrets, not a checkpoint; cannot resume")
  for name in ("seconds", "cpu_seconds"):
    if not _is_number(metadata.get(name)) or not 0 <= metadata[name] < float("inf"):
      raise archive.error(f"its metadata holds no {name!r} count of seconds")
  if not isinstance(metadata.get("history", []), list):
    raise archive.error("its metadata's training curve ('history') is not a list")
  if game is not None and str(game) != str(game_saved):
    raise ValueError(f"the checkpoint {path} was trained on {game_saved}, not {game}")
  if algorithm is not None and algorithm != metadata["algorithm"]:
    raise ValueError(f"the checkpoint {path} was trained with {metadata['algorithm']},"
                     f" not {algorithm}")
  bits = int(data["table_slots"]).bit_length() - 1
  solver = CompiledMCCFR(game_saved, metadata["algorithm"], metadata["seed"],
                         metadata["weighting"], bits,
                         play=play or metadata.get("play", "average"),
                         abstraction=metadata["abstraction"])
  solver.valuation = data["valuation"]
  for name, table in zip(_TABLES, solver.tables):
    if f"{name}_slots" in data:
      table[data[f"{name}_slots"]] = data[f"{name}_values"]
  solver.iterations = metadata["iterations"]
  solver.average_since = metadata.get("average_since", 0)
  if "offered_slots" in data:
    solver.offered_since = metadata["offered_since"]
  else:
    solver.offered_since = solver.iterations
  return solver, metadata


def _is_number(value) -> bool:
  return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_blueprint(archive: archives.Archive) -> pyspiel.Game:
  """The game of a blueprint archive, which is refused (naming its file and what is wrong) unless
  its metadata names a game, abstraction, algorithm, weighting and play the blueprint knows with
  whole counters, its table size is a power of two in range, each table's slots are distinct,
  ascending and inside the table, its values finite (average and offer weights non-negative)
  and its valuation the abstraction's length."""
  metadata = archive.metadata
  for name, allowed in (("abstraction", ABSTRACTIONS), ("algorithm", ALGORITHMS),
                        ("weighting", WEIGHTINGS), ("play", PLAYS)):
    if name in metadata or name != "play":
      if metadata.get(name) not in allowed:
        raise archive.error(f"its metadata's {name} is {metadata.get(name)!r}; allowed:"
                            f" {', '.join(allowed)}")
  for name, kind in _NUMBERS.items():
    if name in metadata or name in ("iterations", "seed"):
      if not isinstance(metadata.get(name), kind) or isinstance(metadata.get(name), bool) or \
          metadata[name] < 0:
        raise archive.error(f"its metadata's {name} is {metadata.get(name)!r}, not a count")
  if not isinstance(metadata.get("game"), str):
    raise archive.error("its metadata names no game")
  try:
    game = pyspiel.load_game(metadata["game"])
    check_game(game)
  except (pyspiel.SpielError, ValueError) as e:
    raise archive.error(f"its game cannot be played by a blueprint ({e})") from None
  size = archives.check_array(archive, "table_slots", "iu", 0)
  bits = int(size).bit_length() - 1
  if int(size) != 1 << bits or not 8 <= bits <= 28:
    raise archive.error(f"its table size {int(size)} is not a power of two from 2**8 to 2**28")
  for name in _TABLES:
    if f"{name}_slots" not in archive.arrays and name != "average":
      continue  # a policy file holds no regrets, an old one no offer weights
    slots = archives.check_array(archive, f"{name}_slots", "iu", 1)
    values = archives.check_array(archive, f"{name}_values", "f", 1, len(slots))
    if len(slots) and (slots[0] < 0 or slots[-1] >= size or (np.diff(slots) <= 0).any()):
      raise archive.error(f"its {name} slots are not distinct, ascending and inside the table")
    archives.check_finite(archive, name, values, non_negative=name != "regret")
  stored = archives.check_array(archive, "valuation", "f", 1,
                                len(valuation(metadata["abstraction"])))
  archives.check_finite(archive, "valuation", stored, non_negative=False)
  return game


def blueprint_from_archive(archive: archives.Archive) -> BlueprintPolicy:
  """The blueprint policy in a checked archive (`archives.load`), its values checked: the
  strategy it was trained to play (`play`: its average strategy, its mean one, or its current
  one)."""
  game = _check_blueprint(archive)
  data, metadata = archive.arrays, archive.metadata
  tables = [np.zeros(int(data["table_slots"])) for _ in _TABLES]
  for name, table in zip(_TABLES, tables):
    if f"{name}_slots" in data:
      table[data[f"{name}_slots"]] = data[f"{name}_values"]
  return BlueprintPolicy(game, strategy_weights(metadata.get("play", "average"), *tables),
                         metadata, data["valuation"])


def is_blueprint_file(path: str) -> bool:
  """Whether `path` is a blueprint file (rather than a policy file of `policies.py`); a ValueError
  naming the file if it is no valid file of either kind."""
  return "average_slots" in archives.load(path, WHAT).arrays


def mean_weights(averages: np.ndarray, offered: np.ndarray) -> np.ndarray:
  """Each slot's average weight over its offer weight (`mccfr`'s offer weights): the mean
  probability of its action when offered; 0 where it was never offered."""
  return np.divide(averages, offered, out=np.zeros_like(averages), where=offered > 0)


def strategy_weights(play: str, regrets: np.ndarray, averages: np.ndarray,
                     offered: np.ndarray) -> np.ndarray:
  """The table a blueprint playing `play` (one of `PLAYS`) reads, a fresh array: the positive
  regrets, the average weights, or the mean weights."""
  if play == "current":
    return np.maximum(regrets, 0.0)
  if play == "mean":
    return mean_weights(averages, offered)
  return averages.copy()


def load_blueprint(path: str) -> BlueprintPolicy:
  """The blueprint policy saved at `path` (`blueprint_from_archive`); one ValueError naming the
  file and what is wrong if it is no valid blueprint file."""
  return blueprint_from_archive(archives.load(path, WHAT))


class BlueprintPolicy(policy_lib.Policy):
  """A `cards` blueprint as a policy of the game (either form): at a position, each legal
  action's weight (average weight, or positive regret for the current strategy) read from its
  key's slot, normalised; uniform where none has weight. Answers at tables too
  (`probabilities`), as `LiftedPolicy` does, so `tree_policies.policy_array` and `PolicyBot`
  read it."""

  def __init__(self, game: pyspiel.Game, averages: np.ndarray, metadata: dict | None = None,
               values: np.ndarray | None = None):
    super().__init__(game, list(range(game.num_players())))
    check_game(game)
    ensure_compiled()
    self.rules, self.legal_actions = game.rules, game.dynamics.legal_actions
    self.spec = build_spec(game.rules)
    self.averages = averages
    self.metadata = dict(metadata or {})
    self.valuation = np.zeros(0) if values is None else values

  def for_game(self, game: pyspiel.Game) -> BlueprintPolicy:
    """The same blueprint (table, valuation and metadata) read as a policy of `game`."""
    return BlueprintPolicy(game, self.averages, self.metadata, self.valuation)

  def action_probabilities(self, state, player_id=None):
    player = state.current_player() if player_id is None else player_id
    return self.probabilities(self.rules, simultaneous_state(state).table(), player)

  def probabilities(self, rules, table, player: int) -> dict[int, float]:
    legal = self.legal_actions(rules, table, player)
    pos = codec.encode(self.rules, self.spec, table)
    weights = mccfr.policy_weights(self.spec, pos, player, self.averages,
                                   np.asarray(legal, dtype=np.int64), self.valuation)
    total = weights.sum()
    if total <= 0:
      return {action: 1.0 / len(legal) for action in legal}
    return {action: w / total for action, w in zip(legal, weights.tolist())}
