"""Abstractions for the CFR solvers: what a player knows, mapped to the key its regrets live under.

An `Abstraction` maps a player's position at a simultaneous node, `(rules, table, player)`, to a
hashable key computed only from what that player knows (the game's `knowledge` and the public
tableaus, Puddings and points), never from hidden cards. Most keys fix the legal action set; those
that do not (`fixed_actions`, the `summary:N` family) share regrets across hands, and the solver
regret-matches over the actions legal at each visit (restricted regret matching). The game keeps
its perfect-recall information states: an abstraction lives only in the solver's key function, and
strategies are judged in the real game.

Named abstractions (`make_abstraction(name, game)`): `identity` (both games); `canonical`
(lossless), `buckets:N`, `ahead:N`, `kmeans:K`, `summary:N` (lossy; `python_sushi_go` only).
What each keeps, and why `canonical` loses nothing (tested: its CFR solution's exploitability goes
to zero with the identity's on reduced games): docs/equilibrium.md, "CFR on abstractions".
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy
from scipy.cluster import vq

from sushigo_spiel.drafting.adapter import simultaneous_state
from sushigo_spiel.drafting.dynamics import Dynamics
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.cards import Kind
from sushigo_spiel.sushi_go.knowledge import knowledge

NAMES = ("identity", "canonical", "buckets:N", "ahead:N", "kmeans:K", "summary:N")


class Abstraction:
  """Maps `(rules, table, player)` at a simultaneous node to a hashable key.

  `name` is the string `make_abstraction` accepts; `arrays` holds any fitted data (cluster centres)
  that must be saved with a policy to rebuild the abstraction. `fixed_actions` is true when keys do
  not fix the legal action set: a key then has a regret per action of the game, and only the
  actions legal at the position at hand take part in regret matching there.
  """

  name: str = ""
  fixed_actions: bool = False
  games: tuple[str, ...] = ("python_sushi_go",)  # the games whose tables `key` reads

  def key(self, rules, table, player: int) -> Hashable:
    raise NotImplementedError

  def check_game(self, game: pyspiel.Game) -> None:
    """A ValueError unless `game` (a drafting game) is one this abstraction reads."""
    if game.dynamics.short_name not in self.games:
      raise ValueError(f"abstraction {self.name!r} is for {', '.join(self.games)}; got {game}"
                       " (use 'identity')")

  @property
  def arrays(self) -> dict[str, np.ndarray]:
    return {}


class Identity(Abstraction):
  """The perfect-recall information state of either game (its `infoset_key`)."""

  name = "identity"
  games = ("python_sushi_go", "python_sushi_draft")

  def __init__(self, dynamics: Dynamics):
    self.infoset_key = dynamics.infoset_key

  def key(self, rules, table, player):
    return player, self.infoset_key(rules, table, player)


class Canonical(Abstraction):
  """Lossless: order of past events forgotten, everything payoff-relevant kept (module doc)."""

  name = "canonical"

  def key(self, rules, table, player):
    knows = knowledge(rules, table, player)
    tableaus = tuple([canonical_tableau(rules, t) for t in table.tableaus])
    key = (player, table.round, table.turn, knows.hand, knows.seen, tableaus, table.puddings,
           tuple(R.totals(table)), knows.unseen)
    if rules.num_players > 2 or rules.robot:
      start = len(table.log) - table.turn
      key += (tuple([(turn.hands[player], turn.picks, turn.robot)
                     for turn in table.log[start:]]),)
    if rules.robot:
      robot = table.robot
      key += (canonical_tableau(rules, robot.tableau), robot.puddings)
    return key


class Buckets(Abstraction):
  """Lossy, of tunable size `cap` (N >= 1): smaller N, fewer keys.

  Key: round, turn, the legal actions (so the action set is exact), the player's hand with counts
  capped at N, and summaries that drive the scores: own Tempura mod 2, Sashimi mod 3, Dumplings
  (capped at N), free Wasabi, Chopsticks; Maki icons and Puddings (kept plus this round's) as
  differences to the best opponent, and points to the best opponent in buckets of 10 / N points,
  each clipped to -N..N. Opponents' tableaus and seen hands are otherwise forgotten.
  """

  def __init__(self, cap: int):
    if cap < 1:
      raise ValueError(f"abstraction 'buckets:{cap}': N must be 1 or more")
    self.cap = cap
    self.name = f"buckets:{cap}"

  def key(self, rules, table, player):
    n = self.cap
    f = Features(rules, table, player)
    hand = tuple([min(c, n) for c in table.hands[player]])
    leads = tuple([_clip(lead, n) for lead in (
        f.maki_lead, f.pudding_lead, math.floor(f.points_lead * n / 10))])
    return (player, table.round, table.turn, tuple(R.legal_actions(rules, table, player)), hand,
            f.tempura % 2, f.sashimi % 3, min(f.dumplings, n), f.free_wasabi, f.chopsticks, leads)


class Ahead(Buckets):
  """Lossy, between `buckets:N` and `canonical`: the `buckets:N` key plus the hands the player
  has seen this round, by holder, counts capped at N.

  A seen hand is one the player has held (it passed it on): the cards in it are the cards still to
  come round to the player, the ones sets can be completed from and denied with. With two players
  it is, from a round's second turn on, the opponent's whole hand, so the key then holds both
  hands and forgets only the tableaus' detail beyond the scoring summaries, past rounds, and the
  unseen pool.
  """

  def __init__(self, cap: int):
    if cap < 1:
      raise ValueError(f"abstraction 'ahead:{cap}': N must be 1 or more")
    super().__init__(cap)
    self.name = f"ahead:{cap}"

  def key(self, rules, table, player):
    seen = tuple([(holder, tuple([min(c, self.cap) for c in hand]))
                  for holder, hand in knowledge(rules, table, player).seen])
    return super().key(rules, table, player) + (seen,)


class KMeans(Abstraction):
  """Lossy: the feature vector of a position (`feature_vector`), scaled per feature, is assigned to
  the nearest of `clusters` centres; the key is (player, round, turn, legal actions, cluster).

  Centres are fitted by `fit` with k-means (scipy.cluster.vq.kmeans2, seeded) on positions sampled
  from uniformly random play; this is only meaningful where such samples cover the positions that
  matter (reduced games, or many samples).
  """

  def __init__(self, clusters: int, centres: np.ndarray | None = None,
               scale: np.ndarray | None = None):
    if clusters < 1:
      raise ValueError(f"abstraction 'kmeans:{clusters}': K must be 1 or more")
    self.clusters = clusters
    self.name = f"kmeans:{clusters}"
    self.centres = centres
    self.scale = scale

  @property
  def arrays(self):
    return {"centres": self.centres, "scale": self.scale}

  def fit(self, rules: R.Rules, seed: int, samples: int = 2000) -> KMeans:
    """Fits the centres on `samples` positions of uniformly random play (one seed decides)."""
    rng = np.random.default_rng(seed)
    vectors = []
    while len(vectors) < samples:
      table = R.initial_table(rules)
      while not R.is_terminal(rules, table):
        if table.actor == R.CHANCE:
          table = R.skip_chance(rules, table, rng.random)
          continue
        legal = [R.legal_actions(rules, table, p) for p in range(rules.num_players)]
        vectors += [feature_vector(rules, table, p) for p in range(rules.num_players)]
        table = R.play(rules, table, [a[rng.integers(len(a))] for a in legal])
    data = np.array(vectors[:samples], dtype=np.float64)
    scale = data.std(axis=0)
    scale[scale == 0] = 1.0
    k = min(self.clusters, len(np.unique(data / scale, axis=0)))
    centres, _ = vq.kmeans2(data / scale, k, minit="++", seed=rng)
    self.centres, self.scale = centres, scale
    return self

  def key(self, rules, table, player):
    vector = np.asarray(feature_vector(rules, table, player)) / self.scale
    cluster = int(np.argmin(((self.centres - vector) ** 2).sum(axis=1)))
    return (player, table.round, table.turn, tuple(R.legal_actions(rules, table, player)),
            cluster)


class Summary(Abstraction):
  """Lossy, without the hand or the legal action set in the key, of tunable size `lead` (N >= 1):
  for the full game.

  Key: round, turn, own Tempura mod 2, Sashimi mod 3, Dumplings (up to 4), free Wasabi (0 or 1),
  Chopsticks held; Maki icons and Puddings (kept plus this round's) as differences to the best
  opponent, each clipped to -N..N; with `utility=win`, points to the best opponent in steps of 10
  (clipped to -2..2: with score or margin utility past points do not change what a pick is worth);
  with the robot, whether the player controls it this turn. The seat is not in the key: every
  summary is relative to the player, so both seats of a symmetric game share regrets.

  The hand is not in the key: a key's regrets are over the game's actions, and at each position
  only the cards in the hand compete (restricted regret matching), so a key learns an order of
  preference among cards and Chopsticks pairs given the tableaus, shared by every hand. Any key
  that holds the hand repeats almost never on the full game (hands of ten cards from twelve types):
  with the hand as presence bits, 6,000 outcome-sampling iterations met 540,000 keys, against
  33,000 without it.

  The price is strength: a preference order that ignores the rest of the hand cannot time sets
  or deny cards. On the reduced game `tiny` its outcome-sampling policy is more exploitable than
  uniform play (about 4.1 against 3.3 after 3,000 iterations), and on the full game 200,000
  iterations stay at random play's level against the heuristic (see
  `experiments/results/policies/README.md`).
  """

  fixed_actions = True

  def __init__(self, lead: int):
    if lead < 1:
      raise ValueError(f"abstraction 'summary:{lead}': N must be 1 or more")
    self.lead = lead
    self.name = f"summary:{lead}"

  def key(self, rules, table, player):
    n = self.lead
    f = Features(rules, table, player)
    key = (table.round, table.turn, f.tempura % 2, f.sashimi % 3, min(f.dumplings, 4),
           min(f.free_wasabi, 1), f.chopsticks, _clip(f.maki_lead, n), _clip(f.pudding_lead, n))
    if rules.utility == "win":
      key += (_clip(math.floor(f.points_lead / 10), 2),)
    if rules.robot:
      key += (player == R.controller(rules, table),)
    return key


def _clip(value: int, bound: int) -> int:
  return max(-bound, min(bound, value))


def make_abstraction(name: str, game: pyspiel.Game, seed: int = 0,
                     arrays: dict[str, np.ndarray] | None = None) -> Abstraction:
  """The abstraction named `name` (see `NAMES`) for `game`, a drafting game.

  `kmeans:K` is fitted with `seed` unless `arrays` (as saved with a policy) give its centres.
  """
  abstraction = _named_abstraction(name, game, seed, arrays)
  abstraction.check_game(game)
  return abstraction


def _named_abstraction(name, game, seed, arrays) -> Abstraction:
  kind, _, size = name.partition(":")
  if name == "identity":
    return Identity(game.dynamics)
  if name == "canonical":
    return Canonical()
  if kind in ("buckets", "ahead", "kmeans", "summary") and size.isdigit():
    if kind == "buckets":
      return Buckets(int(size))
    if kind == "ahead":
      return Ahead(int(size))
    if kind == "summary":
      return Summary(int(size))
    if arrays:
      return KMeans(int(size), np.asarray(arrays["centres"]), np.asarray(arrays["scale"]))
    if game.dynamics.short_name != "python_sushi_go":
      raise ValueError(f"abstraction {name!r} is for python_sushi_go; got {game} (use 'identity')")
    return KMeans(int(size)).fit(game.rules, seed)
  raise ValueError(f"unknown abstraction {name!r}; allowed: {', '.join(NAMES)} "
                   "(N, K positive integers)")


def canonical_tableau(rules: R.Rules, tableau: Sequence[int]) -> tuple:
  """A tableau as counts per card, free Wasabi and the Nigiri on Wasabi (counts): all its score
  and future scoring depend on; placement order is forgotten."""
  counts = [0] * rules.num_types
  for c in tableau:
    counts[c] += 1
  free, on = R.wasabi_state(rules, tableau)
  return tuple(counts), free, tuple(sorted(on))


class Features:
  """Scoring-relevant summaries of a player's position (used by the lossy abstractions)."""

  def __init__(self, rules: R.Rules, table: R.Table, player: int):
    kinds, cards = rules.kinds, rules.cards
    own = table.tableaus[player]
    self.tempura = sum(kinds[c] is Kind.TEMPURA for c in own)
    self.sashimi = sum(kinds[c] is Kind.SASHIMI for c in own)
    self.dumplings = sum(kinds[c] is Kind.DUMPLING for c in own)
    self.free_wasabi = R.wasabi_state(rules, own)[0]
    self.chopsticks = int(rules.chopsticks in own)
    maki = [sum(cards[c].value for c in t if kinds[c] is Kind.MAKI) for t in table.tableaus]
    puddings = [kept + sum(kinds[c] is Kind.PUDDING for c in t)
                for kept, t in zip(table.puddings, table.tableaus)]
    points = R.totals(table)
    others = [p for p in range(rules.num_players) if p != player]
    self.maki_lead = maki[player] - max(maki[p] for p in others)
    self.pudding_lead = puddings[player] - max(puddings[p] for p in others)
    self.points_lead = points[player] - max(points[p] for p in others)


def feature_vector(rules: R.Rules, table: R.Table, player: int) -> list[float]:
  """Round, turn, own hand counts and the `Features` summaries as one numeric vector."""
  f = Features(rules, table, player)
  return [table.round, table.turn, *table.hands[player], f.tempura % 2, f.sashimi % 3,
          f.dumplings, f.free_wasabi, f.chopsticks, f.maki_lead, f.pudding_lead, f.points_lead]


class LiftedPolicy(policy.Policy):
  """An abstract strategy lifted to a policy of the real game (either form of it).

  `strategy` maps abstract keys to `(actions, probabilities)`. At a state, the key is computed from
  the acting player's position (through `simultaneous_state`, so turn-based states work too);
  a key the solver never reached gets the uniform policy over the legal actions. With an
  abstraction whose keys do not fix the action set (`fixed_actions`), a key's probabilities are
  restricted to the actions legal at the state and renormalised (uniform if none has any).
  `metadata` holds the training provenance (see `policies.py`).
  """

  def __init__(self, game: pyspiel.Game, abstraction: Abstraction,
               strategy: dict[Hashable, tuple[tuple[int, ...], np.ndarray]],
               metadata: dict | None = None):
    super().__init__(game, list(range(game.num_players())))
    self.rules, self.legal_actions = game.rules, game.dynamics.legal_actions
    self.abstraction = abstraction
    self.strategy = strategy
    self.metadata = dict(metadata or {})

  def action_probabilities(self, state, player_id=None):
    player = state.current_player() if player_id is None else player_id
    return self.probabilities(self.rules, simultaneous_state(state).table(), player)

  def probabilities(self, rules, table, player: int) -> dict[int, float]:
    entry = self.strategy.get(self.abstraction.key(rules, table, player))
    if entry is not None and not self.abstraction.fixed_actions:
      actions, probabilities = entry
      return dict(zip(actions, probabilities.tolist()))
    legal = self.legal_actions(rules, table, player)
    if entry is not None:
      given = dict(zip(entry[0], entry[1].tolist()))
      mass = [given.get(action, 0.0) for action in legal]
      total = sum(mass)
      if total > 0:
        return {action: p / total for action, p in zip(legal, mass)}
    return {action: 1.0 / len(legal) for action in legal}
