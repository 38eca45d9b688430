"""The observer of `python_sushi_draft`: observation and information-state tensors and strings."""

from __future__ import annotations

from sushigo_spiel.drafting.observation import DraftingObserver
from sushigo_spiel.sushi_draft import rules as R
from sushigo_spiel.sushi_draft.cards import CARDS, NUM_PILES, NUM_SUSHI, NUM_TYPES, PILE_NAMES


class SushiDraftObserver(DraftingObserver):
  """Observations and information states, honouring `pyspiel.IIGObservationType`.

  Seats are relative: index 0 is the observing player, 1 the player to its left, and so on.
  With A = 2 x sushi types eat actions, T card types, P chip piles, H = hand_size - 1 turns, the
  pieces (float32) are:
    without perfect recall (the observation):
      round, turn, step     one-hot position (step: Eat, Keep)                     public
      eaten                 n x A this round's eats                                public
      chips                 n x P chips taken per pile                             public
      hand                  T the observer's hand                                  private
      values                P the observer's chip points per pile                  private
      hands, all_values     n x T, n x P (private_info=ALL_PLAYERS only)
    with perfect recall (the information state):
      eats                  rounds x H x n x A every eat                           public
      awards                rounds x P x n who took each pile's chip               public
      hand_history, keeps   rounds x H x T own hand at each turn, own kept card    private
      values                rounds x P own chips' values                           private
      (ALL_PLAYERS: hand_history and keeps rounds x H x n x T; values of every chip)
  The chip piles' remaining orders are in no view: nobody sees them.
  """

  def pieces(self):
    rules, obs = self.rules, self.iig_obs_type
    n, t, h, rounds = rules.num_players, NUM_TYPES, rules.hand_size - 1, rules.rounds
    a, piles = 2 * NUM_SUSHI, NUM_PILES
    pieces = []
    if obs.perfect_recall:
      if obs.public_info:
        pieces += [("eats", (rounds, h, n, a)), ("awards", (rounds, piles, n))]
      if self.single:
        pieces += [("hand_history", (rounds, h, t)), ("keeps", (rounds, h, t)),
                   ("values", (rounds, piles))]
      if self.every:
        pieces += [("hand_history", (rounds, h, n, t)), ("keeps", (rounds, h, n, t)),
                   ("values", (rounds, piles))]
      return pieces
    if obs.public_info:
      pieces += [("round", (rounds,)), ("turn", (h,)), ("step", (2,)), ("eaten", (n, a)),
                 ("chips", (n, piles))]
    if self.single:
      pieces += [("hand", (t,)), ("values", (piles,))]
    if self.every:
      pieces += [("hands", (n, t)), ("all_values", (n, piles))]
    return pieces

  def _visible(self, player: int, owner: int) -> bool:
    """Whether `owner`'s private cards and chip values are in `player`'s view."""
    return self.every or (self.single and owner == player)

  def set_from_table(self, table: R.Table, player: int) -> None:
    rules = self.rules
    n = rules.num_players
    seat = {p: (p - player) % n for p in range(n)}
    self.tensor.fill(0)
    d = self.dict
    every = self.every
    if self.iig_obs_type.perfect_recall:
      for turn, entry in _numbered(table.log):
        for p, action in enumerate(entry.eats):
          if "eats" in d:
            d["eats"][entry.round, turn, seat[p], action] = 1
          if "keeps" in d and self._visible(player, p):
            index = (entry.round, turn, seat[p]) if every else (entry.round, turn)
            d["hand_history"][index] = entry.hands[p]
            if entry.keeps:
              d["keeps"][index + (entry.keeps[p],)] = 1
      for chip in table.chips:
        if "awards" in d:
          d["awards"][chip.round, chip.pile, seat[chip.player]] = 1
        if "values" in d and self._visible(player, chip.player):
          d["values"][chip.round, chip.pile] = chip.value
      if "keeps" in d and table.actor == R.SIMULTANEOUS and not table.keeping:
        for p in range(n):
          if self._visible(player, p):
            index = (table.round, table.turn, seat[p]) if every else (table.round, table.turn)
            d["hand_history"][index] = table.hands[p]
      return
    if "round" in d and table.actor == R.SIMULTANEOUS:
      d["round"][table.round] = 1
      d["turn"][table.turn] = 1
      d["step"][int(table.keeping)] = 1
    if "eaten" in d:
      for p, actions in enumerate(table.eaten):
        for action in actions:
          d["eaten"][seat[p], action] += 1
    for chip in table.chips:
      if "chips" in d:
        d["chips"][seat[chip.player], chip.pile] += 1
      if "values" in d and chip.player == player:
        d["values"][chip.pile] += chip.value
      if "all_values" in d:
        d["all_values"][seat[chip.player], chip.pile] += chip.value
    if table.actor == R.SIMULTANEOUS:
      if "hand" in d:
        d["hand"][:] = table.hands[player]
      if "hands" in d:
        for p in range(n):
          d["hands"][seat[p]] = table.hands[p]

  def string_from_table(self, table: R.Table, player: int) -> str:
    rules = self.rules
    if self.iig_obs_type.perfect_recall:
      return self._history_string(rules, table, player)
    public = self.iig_obs_type.public_info
    lines = [position(rules, table)] if public else []
    for p in range(rules.num_players):
      parts = []
      if public:
        eaten = ", ".join(rules.action_name(a)[4:] for a in table.eaten[p])
        parts.append(f"ate [{eaten}] chips [{self._chips(table.chips, player, p)}]")
      if self._visible(player, p) and table.actor == R.SIMULTANEOUS:
        parts.append(f"hand [{rules.hand_string(table.hands[p])}]")
      if parts:
        lines.append(f"P{p} " + " ".join(parts))
    return "\n".join(lines)

  def _chips(self, chips, player: int, owner: int) -> str:
    """`owner`'s chips by pile, with values when `player` may see them."""
    shown = self._visible(player, owner)
    return ", ".join(PILE_NAMES[c.pile] + (f" {c.value}" if shown else "")
                     for c in chips if c.player == owner)

  def _history_string(self, rules: R.Rules, table: R.Table, player: int) -> str:
    public = self.iig_obs_type.public_info
    single = self.single
    lines = [f"P{player}"] if single else []
    n = rules.num_players
    results = iter(table.results)
    for turn, entry in _numbered(table.log):
      line = f"R{entry.round + 1} T{turn + 1}:"
      for p in range(n):
        if self._visible(player, p):
          line += f" P{p} hand [{rules.hand_string(entry.hands[p])}]"
      if public:
        line += " eats " + " | ".join(
            f"P{p} {rules.action_name(a)[4:]}" for p, a in enumerate(entry.eats))
      for p, kept in enumerate(entry.keeps):
        if self._visible(player, p):
          line += f" P{p} keeps {CARDS[kept].name}"
      lines.append(line)
      if turn == rules.hand_size - 2 and public:
        lines.append(self._awards_line(entry.round, next(results), player))
    if table.actor == R.SIMULTANEOUS and not table.keeping:
      line = f"R{table.round + 1} T{table.turn + 1}:"
      for p in range(n):
        if self._visible(player, p):
          line += f" P{p} hand [{rules.hand_string(table.hands[p])}]"
      lines.append(line)
    return "\n".join(lines)

  def _awards_line(self, round_: int, result: R.RoundResult, player: int) -> str:
    given = {c.pile: c for c in result.awards}
    parts = []
    for pile in range(NUM_PILES):
      chip = given.get(pile)
      if chip is None:
        parts.append(f"{PILE_NAMES[pile]} none")
      else:
        value = f" {chip.value}" if self._visible(player, chip.player) else ""
        parts.append(f"{PILE_NAMES[pile]} P{chip.player}{value}")
    return f"R{round_ + 1} chips: " + " | ".join(parts)


def _numbered(log):
  """The log's turns with their number within their round."""
  counts = {}
  for entry in log:
    turn = counts.get(entry.round, 0)
    counts[entry.round] = turn + 1
    yield turn, entry


def position(rules: R.Rules, table: R.Table) -> str:
  """Where the game stands, as a line of text."""
  if table.actor == R.TERMINAL:
    return "Game over"
  if table.ordered < NUM_PILES:
    return "Ordering the chip piles"
  head = f"Round {table.round + 1}/{rules.rounds}"
  if table.actor == R.CHANCE:
    return head + ", dealing"
  return head + f", turn {table.turn + 1}/{rules.hand_size - 1}, " + \
      ("Keep" if table.keeping else "Eat")
