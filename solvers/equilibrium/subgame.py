"""Real-time subgame solving on top of the blueprint: the bot `subgame`.

At each decision the bot builds the subgame of the rest of the round (or of its next `depth`
turns) from its player's belief, solves it with Monte Carlo CFR on the compiled core
(`kernels.subgame`) and plays the solve's strategy at its own root information set: a coarse
blueprint for the game and search at play time, the shape of Libratus and Pluribus. Each player's
value is the bot's `objective`: its margin, or its win share plus `WIN_TIE_BREAK` times its margin.

Contract: a `pyspiel.Bot` of `python_sushi_go` without the robot, whose randomness comes from its
seed; with only a budget (`seconds`, `clock`) it plays the stored blueprint of its player count
measured best for the objective (`BLUEPRINTS`; another count needs `path`) with the defaults
measured strongest. With `root=own` (the default) it re-solves unsafely; with `root=public` (two
players) it re-solves proper subgames. Belief, root, leaves, what each setting guarantees and what
was measured: docs/subgame.md. Parameters: `SubgameBot`.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np
import pyspiel

from solvers.bot import (Bot, Policy, budget_clock, checked_parameters, objective_game,
                         scaled_budget)
from solvers.equilibrium.kernels import subgame
from solvers.equilibrium.kernels.compiling import ensure_compiled
from solvers.equilibrium.kernels.mccfr import WALKS
from solvers.equilibrium.validation import load_checked_blueprint
from solvers.policy_kernels.sushi_go import POLICIES
from solvers.search.rollouts import compiled_policy_parameters
from sushigo_spiel.compiled.interface import play_pointer
from sushigo_spiel.compiled.rng import new_state
from sushigo_spiel.compiled.sushi_go import codec, moves
from sushigo_spiel.compiled.sushi_go.knowledge import determinize, hand_seen, with_deal
from sushigo_spiel.compiled.sushi_go.layout import (HANDS_AT, HAND_SIZE, POSITION_DTYPE,
                                                    POSITION_SIZE, ROUND_DECK_AT, TURN, TYPES,
                                                    build_spec)
from sushigo_spiel.drafting.adapter import simultaneous_game
from sushigo_spiel.drafting.dynamics import CHANCE, TERMINAL
from sushigo_spiel.sushi_go.knowledge import deal_weight, round_decisions

POLICY_DIRECTORY = pathlib.Path(__file__).resolve().parents[2] / "experiments/results/policies"
# path="auto": the stored blueprint of the bot's player count measured best for its objective.
# The win plays on the margin's blueprint at both counts: on it the bot playing for the win was at
# least as strong on the win share (level within the sign test's noise) as on the blueprint
# trained with `--utility win` (blueprint_win_2p.npz, blueprint_win_4p.npz;
# experiments/results/objective-win-blueprint and objective-win-blueprint-4p,
# docs/results-objective.md).
BLUEPRINTS = {(2, "margin"): "blueprint_2p.npz", (2, "win"): "blueprint_2p.npz",
              (4, "margin"): "blueprint_4p.npz", (4, "win"): "blueprint_4p.npz"}
DEFAULT_BLUEPRINT = str(POLICY_DIRECTORY / BLUEPRINTS[2, "margin"])
CONTINUATIONS = {"blueprint": subgame.BLUEPRINT, "heuristic": POLICIES["heuristic"],
                 "greedy": POLICIES["greedy"], "random": POLICIES["random"]}
PRIORS = {"blueprint": subgame.BLUEPRINT, "uniform": subgame.UNIFORM}
SUBGAME_WALKS = ("probe", "es")
FINALS = ("average", "argmax")
BELIEFS = ("reach", "uniform")
ROOTS = ("own", "public")
TREMBLE = 0.1  # the share of an opponent's picks modelled as uniform in the reach weights
ROLLOUT_SEEDS = ("common", "independent")
TABLE_BITS = 18  # regret and average slots per solve: 2**18 each
MEMO_BITS = 14  # leaf estimates memoised per solve (half of 2**14 at most)
CHUNK = 4  # iterations of a timed solve's first call, before the clock is read
CHUNK_SHARE = 0.05  # a timed solve's chunk doubles while a call takes less of the budget


def default_blueprint(num_players: int, objective: str = "margin") -> str:
  """The stored blueprint `path="auto"` plays at `num_players` for `objective` ("margin" or
  "win"); a ValueError where none is stored."""
  if (num_players, objective) not in BLUEPRINTS:
    counts = sorted({n for n, _ in BLUEPRINTS})
    raise ValueError(f"no blueprint is stored for {num_players} players (path='auto' knows"
                     f" {', '.join(f'{n} players' for n in counts)}); train one with `sushigo"
                     " train --abstraction cards` and give its file as parameter 'path'")
  return str(POLICY_DIRECTORY / BLUEPRINTS[num_players, objective])


class SubgameBot(Bot):
  """Depth-limited subgame solving over the blueprint (see the module docstring).

  Parameters (`PARAMETERS`):
    path           the blueprint file (`sushigo train --abstraction cards` or `cards+rank`); auto
                   (the default): the stored one measured best for the player count and
                   objective (`BLUEPRINTS`): blueprint_2p.npz at two players and
                   blueprint_4p.npz at four, for either objective (for the win they played no
                   worse than blueprint_win_2p.npz and blueprint_win_4p.npz, trained with
                   utility=win: experiments/results/objective-win-blueprint and
                   objective-win-blueprint-4p)
    iterations     MCCFR iterations per decision (when `seconds` is 0)
    seconds        > 0: iterate in chunks until this much time has passed (at least one chunk; a
                   chunk doubles while a call takes under 5% of the budget, so the last call may
                   overrun it by up to a tenth)
    clock          what `seconds` is measured on: "wall" or "cpu" (`solvers.bot.CLOCKS`)
    depth          0: solve to the end of the round; k > 0: the next k turns of the round
    worlds         root worlds drawn while a hand the player has not seen is in play (two
                   players: a round's first turn; one world afterwards); with root public, the
                   hands of the opponent's drawn
    walk           probe (external sampling with probes) | es (external sampling)
    continuations  "/"-separated strategies at the leaves: blueprint, heuristic, greedy, random;
                   the searcher plays the first, the opponent chooses among all (two players;
                   with more, one name)
    rollouts       playouts per leaf estimate and continuation
    rollout_seeds  common (playout r of every leaf of a world drawn from one seeded stream, so leaf
                   values differ by what differs, not by the deals) | independent
    prior          uniform (the default) | blueprint: what regret matching plays with no
                   positive regret
    belief         reach | uniform: the root worlds weighted to chance's posterior and by the
                   others' picks under the blueprint, or kept as determinization draws them (the
                   same at two players; docs/subgame.md)
    root           own | public: the subgame rooted at the player's information set, or (two
                   players) at the round's public state, both players' hands sampled
                   (docs/subgame.md)
    ranges         with root public: hands of the player's drawn as the opponent sees them
    final          argmax (the default: the root average strategy's likeliest action) | average
                   (a draw from it)
    objective      auto | margin | win: what the subgame's leaves are worth (`solvers.bot`;
                   auto follows the game's utility)

  The defaults are the strongest configuration measured (docs/subgame.md).
  """

  PARAMETERS = {
      "path": "auto",
      "iterations": 200,
      "seconds": 0.0,
      "clock": "wall",
      "depth": 0,
      "worlds": 16,
      "walk": "probe",
      "continuations": "blueprint",
      "rollouts": 2,
      "rollout_seeds": "common",
      "prior": "uniform",
      "final": "argmax",
      "belief": "reach",
      "root": "own",
      "ranges": 3,
      "objective": "auto",
  }
  GAMES = ("python_sushi_go",)

  @classmethod
  def decision_memory(cls, game: pyspiel.Game, params: dict) -> int:
    """What one solve allocates whatever its budget: its regret and average tables (2**`TABLE_BITS`
    slots each), its leaf memo (2**`MEMO_BITS` slots, a value per continuation and player) and its
    root worlds (`worlds`, times `ranges` + 1 with `root` public; a position each, a key per
    player). The blueprint is held by the bot itself."""
    p = checked_parameters(cls, params)
    rules = simultaneous_game(game).rules
    if game.get_type().short_name not in cls.GAMES or rules.robot:
      return 0  # refused by the bot
    players, continuations = rules.num_players, len(str(p["continuations"]).split("/"))
    tables = 2 * 8 << TABLE_BITS
    memo = ((8 + 8 * continuations * players) << MEMO_BITS) + 8
    worlds = int(p["worlds"]) if _is_count(p["worlds"]) else 1
    if p["root"] == "public" and _is_count(p["ranges"]):
      worlds *= int(p["ranges"]) + 1
    position = int(build_spec(rules)[POSITION_SIZE]) * np.dtype(POSITION_DTYPE).itemsize
    return tables + memo + worlds * (position + 8 * players + 8)

  @classmethod
  def timing_parameters(cls, params: dict) -> tuple[dict, float]:
    return scaled_budget(checked_parameters(cls, params), ("iterations", "worlds"),
                         {"iterations": 8, "worlds": 4, "seconds": 0.01})

  def __init__(self, game: pyspiel.Game, player_id: int, seed: int | None = None, **params):
    super().__init__(game, player_id, seed, **params)
    rules, params = self.rules, self.params
    if rules.robot:
      raise ValueError(f"the subgame bot plays Sushi Go without the robot; got {game}")
    for name in ("iterations", "worlds", "rollouts", "ranges"):
      if params[name] != int(params[name]) or params[name] < 1:
        raise ValueError(f"parameter {name!r} is {params[name]}; allowed: an integer >= 1")
    if params["depth"] != int(params["depth"]) or params["depth"] < 0:
      raise ValueError(f"parameter 'depth' is {params['depth']}; allowed: an integer >= 0 (0: to"
                       " the end of the round)")
    if params["seconds"] < 0:
      raise ValueError(f"parameter 'seconds' is {params['seconds']}; allowed: a number >= 0")
    self._clock = budget_clock(params["clock"])
    for name, allowed in (("walk", SUBGAME_WALKS), ("prior", PRIORS), ("final", FINALS),
                          ("rollout_seeds", ROLLOUT_SEEDS), ("belief", BELIEFS), ("root", ROOTS)):
      if params[name] not in allowed:
        raise ValueError(f"parameter {name!r} is {params[name]!r}; allowed: {', '.join(allowed)}")
    if params["root"] == "public" and rules.num_players > 2:
      raise ValueError(f"parameter 'root' is 'public' with {rules.num_players} players; allowed:"
                       " 'public' with two players (where a round's start is a public state),"
                       " 'own' with any number")
    names = str(params["continuations"]).split("/")
    unknown = [name for name in names if name not in CONTINUATIONS]
    if unknown or len(set(names)) != len(names):
      raise ValueError(f"parameter 'continuations' is {params['continuations']!r}; allowed:"
                       f" distinct names among {', '.join(CONTINUATIONS)} joined by '/'")
    if len(names) > 1 and rules.num_players > 2:
      raise ValueError(f"parameter 'continuations' is {params['continuations']!r}; allowed with"
                       f" {rules.num_players} players: one of {', '.join(CONTINUATIONS)} (the"
                       " choice among several is a two-player, zero-sum device)")
    if params["path"] == "auto":
      params["path"] = default_blueprint(rules.num_players, self.objective)
    self.blueprint = self.load_saved(load_checked_blueprint, "blueprint")
    self.check_trained_for(self.blueprint.game, "blueprint")
    ensure_compiled()
    # The spec scores the game by the objective (the win leaves read its returns).
    self.search_rules = objective_game(self.game, self.objective).rules
    self.spec = build_spec(self.search_rules)
    self.strategies = subgame.strategies(self.blueprint.averages, self.blueprint.valuation,
                                         [CONTINUATIONS[name] for name in names])
    self.heuristic_parameters = compiled_policy_parameters(self.dynamics.short_name)
    # The settings every solve shares; `solve` sets the rest (root round, stop turn, salt, worlds).
    self.settings = subgame.Settings(
        searcher=player_id, root_round=0, stop_turn=0, walk=WALKS[params["walk"]],
        rollouts=int(params["rollouts"]), prior=PRIORS[params["prior"]], rollout_salt=-1,
        open_worlds=0, win=int(self.objective == "win"))
    self.stream = new_state(int(np.random.SeedSequence(seed).generate_state(1)[0]))
    self.iterations_done = 0  # iterations of the last solve
    self.worlds_used = 0  # root worlds of the last solve

  def policy_at(self, table) -> Policy:
    legal = self.dynamics.legal_actions(self.rules, table, self.player_id)
    if len(legal) == 1:
      return [(legal[0], 1.0)]
    weights = self.solve(table, legal)
    if self.params["final"] == "argmax":
      best = legal[int(np.argmax(weights))]  # ties to the lowest action id
      return [(a, float(a == best)) for a in legal]
    return [(a, w) for a, w in zip(legal, (weights / weights.sum()).tolist())]

  def solve(self, table, legal: list[int]) -> np.ndarray:
    """Solves the subgame at `table` (a simultaneous node where the bot's player chooses); the
    root's average-strategy weights of `legal` (summing to more than 0 after one iteration)."""
    spec, player = self.spec, self.player_id
    pos = codec.encode(self.rules, spec, table)
    positions, world_weights, open_worlds = self.root_worlds(pos)
    root_keys = np.array([[subgame.root_key(spec, w, p) for p in range(self.rules.num_players)]
                          for w in positions], dtype=np.int64)
    worlds = subgame.Worlds(positions, world_weights, root_keys)
    common = self.params["rollout_seeds"] == "common"
    depth = int(self.params["depth"])
    settings = self.settings._replace(
        root_round=table.round, open_worlds=open_worlds,
        rollout_salt=int(self.rng.integers(1 << 62)) if common else -1,
        stop_turn=int(pos[TURN]) + depth if depth else int(spec[HAND_SIZE]))
    # Fresh zeroed tables at each solve: large zeroed allocations are mapped lazily, so a solve
    # pays only for the pages it touches.
    tables = subgame.Tables(np.zeros(1 << TABLE_BITS), np.zeros(1 << TABLE_BITS))
    memo = subgame.new_memo(MEMO_BITS, len(self.strategies.continuations), self.rules.num_players)
    solve = subgame.Solve(settings, self.strategies, tables, memo, self.stream)
    seconds, done = self.params["seconds"], 0
    if seconds > 0:
      deadline, chunk = self._clock() + seconds, CHUNK
      while done == 0 or self._clock() < deadline:
        started = self._clock()
        subgame.iterate(spec, worlds, solve, self.heuristic_parameters, done, chunk)
        done += chunk
        if self._clock() - started < CHUNK_SHARE * seconds:
          chunk *= 2  # each call has a fixed cost: fewer, longer calls when iterations are cheap
    else:
      done = int(self.params["iterations"])
      subgame.iterate(spec, worlds, solve, self.heuristic_parameters, 0, done)
    self.iterations_done, self.worlds_used = done, len(positions)
    return subgame.root_weights(spec, root_keys[-1, player], tables.averages,
                                np.asarray(legal, dtype=np.int64))

  def root_worlds(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The root worlds, their weights, and how many of the first every player walks (the rest are
    the player's own, `subgame.Settings.open_worlds`):
    the position itself when the player has seen every hand of the round; with `root` public,
    the worlds of `_public_worlds`; else `worlds` determinizations, resampled by their reach
    weights once this round has picks and `belief` is reach (see Belief)."""
    spec, player = self.spec, self.player_id
    if all(hand_seen(spec, pos, player, k) for k in range(self.rules.num_players)):
      return pos[None, :].copy(), np.ones(1), 1
    if self.params["root"] == "public":
      return self._public_worlds(pos)
    worlds = np.stack([determinize(spec, pos, player, self.stream, play_pointer(moves.play))
                       for _ in range(int(self.params["worlds"]))])
    if pos[TURN] > 0 and self.params["belief"] == "reach":
      weights = np.array([self.world_weight(codec.decode(self.rules, spec, world))
                          for world in worlds])
      worlds = worlds[self.rng.choice(len(worlds), size=len(worlds), p=weights / weights.sum())]
    return worlds, np.ones(len(worlds)), len(worlds)

  def _public_worlds(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Two players at a round's first turn (see Root): `worlds` hands of the opponent drawn as
    the player sees them, `ranges` hands of the player drawn as the opponent sees them before
    its own hand, and a world for every pair that the round's cards can deal. The pairs with the
    player's true hand come last, known to the player alone; a pair's weight makes its hand of the
    opponent's as likely, given the player's hand in it, as in the true pair."""
    spec, me = self.spec, self.player_id
    types, other = spec[TYPES], 1 - self.player_id
    pool = pos[spec[ROUND_DECK_AT]:spec[ROUND_DECK_AT] + types].astype(np.int64)
    hands = pos[spec[HANDS_AT]:spec[HANDS_AT] + 2 * types].astype(np.int64).reshape(2, types)
    own, size = hands[me].copy(), int(hands[other].sum())
    theirs = [self.rng.multivariate_hypergeometric(pool - own, size)
              for _ in range(int(self.params["worlds"]))]
    ranges = [self.rng.multivariate_hypergeometric(pool, int(own.sum()))
              for _ in range(int(self.params["ranges"]))]
    worlds, weights = [], []
    for mine in ranges + [own]:
      for hand in theirs:
        weight = _conditional_ratio(pool, mine, own, hand)
        if weight > 0:
          hands[me], hands[other] = mine, hand
          worlds.append(with_deal(spec, pos, hands, play_pointer(moves.play)))
          weights.append(weight)
    return np.stack(worlds), np.array(weights), len(worlds) - len(theirs)

  def world_weight(self, table) -> float:
    """A drawn world's weight in the belief: the determinization's draw turned into chance's
    posterior over deals (`knowledge.deal_weight`: the draw reads picks as uniform pickers'), times
    the trembling blueprint's probability of this round's picks in it (`reach_weight`)."""
    return deal_weight(self.rules, table, self.player_id) * self.reach_weight(table)

  def reach_weight(self, table) -> float:
    """The probability of this round's picks of the other players at `table` (a world), each
    player modelled as the blueprint trembling to a uniform pick with probability `TREMBLE`."""
    weight = 1.0
    for before, actions in round_decisions(self.rules, table):
      for other, action in enumerate(actions):
        if other != self.player_id:
          model = self.blueprint.probabilities(self.rules, before, other)
          weight *= (1 - TREMBLE) * model.get(action, 0.0) + TREMBLE / len(model)
    return weight


def _is_count(value) -> bool:
  """Whether a parameter's value is an integer >= 1 (other values are refused by the bot)."""
  return isinstance(value, (int, float)) and math.isfinite(value) and value >= 1 and \
      value == int(value)


def _conditional_ratio(pool: np.ndarray, mine: np.ndarray, own: np.ndarray,
                       hand: np.ndarray) -> float:
  """P(the opponent is dealt `hand` | the player is dealt `mine`) over the same given `own`, both
  hands dealt from the counts `pool` (0 when `mine` and `hand` do not fit in it together)."""
  ratio = 1.0
  for left_mine, left_own, count in zip((pool - mine).tolist(), (pool - own).tolist(),
                                        hand.tolist()):
    if count > left_mine:
      return 0.0
    ratio *= math.comb(left_mine, count) / math.comb(left_own, count)
  return ratio


def round_end_values(game: pyspiel.Game, table, continuations: str, blueprint, rollouts: int,
                     seed: int, common: bool = True, searcher: int = 0) -> np.ndarray:
  """What the subgame bot's leaves make of `table`, a table of `game` between two rounds (before
  a round's deal) or at the game's end: every player's margin so far plus the mean, over
  `rollouts` playouts to the end of the game, of the margin gained after it, the searcher playing
  the first of `continuations` ("/"-separated names of `CONTINUATIONS`) and the other players the
  j-th; in `out[j, player]`. `blueprint` is the `BlueprintPolicy` the blueprint continuation
  plays. With `common` the playouts draw common random numbers: playout r from a stream seeded by
  (`seed`, r), the same for every table and continuation (the bot's salted leaves); otherwise
  from one stream seeded with `seed`."""
  rules = game.rules
  if table.actor != TERMINAL and (table.actor != CHANCE or table.dealt or table.turn):
    raise ValueError(f"a table in round {table.round} at turn {table.turn} after {table.dealt}"
                     " deal steps; allowed: a table between two rounds (before a round's deal) or"
                     " at the game's end")
  names = continuations.split("/")
  unknown = [name for name in names if name not in CONTINUATIONS]
  if unknown or (len(names) > 1 and rules.num_players > 2):
    raise ValueError(f"continuations {continuations!r}; allowed: names among"
                     f" {', '.join(CONTINUATIONS)} joined by '/' (one name with more than two"
                     " players)")
  if rollouts < 1:
    raise ValueError(f"rollouts is {rollouts}; allowed: an integer >= 1")
  ensure_compiled()
  spec = build_spec(rules)
  settings = subgame.Settings(
      searcher=searcher, root_round=table.round - 1, stop_turn=int(spec[HAND_SIZE]),
      walk=WALKS["es"], rollouts=int(rollouts), prior=subgame.BLUEPRINT,
      rollout_salt=int(seed) if common else -1, open_worlds=1, win=0)
  strategies = subgame.strategies(blueprint.averages, blueprint.valuation,
                                  [CONTINUATIONS[name] for name in names])
  return subgame.leaf_values(spec, codec.encode(rules, spec, table), 0, strategies,
                             compiled_policy_parameters(game.get_type().short_name), settings,
                             new_state(int(seed)))
