"""The observer of `python_sushi_go`: observation and information-state tensors and strings.

What a player knows comes from `knowledge.knowledge` (the one answer shared with the bots' views,
the abstractions and determinization); this module only lays it out as OpenSpiel pieces.
"""

from __future__ import annotations

from sushigo_spiel.drafting.observation import DraftingObserver
from sushigo_spiel.sushi_go import rules as R
from sushigo_spiel.sushi_go.knowledge import is_dealt, knowledge


class SushiGoObserver(DraftingObserver):
  """Observations and information states, honouring `pyspiel.IIGObservationType`.

  Seats are relative: index 0 is the observing player, 1 the player to its left (who receives
  its hand when hands pass left), and so on. Pieces (all counts, as float32):
    without perfect recall (the observation):
      round, turn           one-hot position in the game                           public
      tableaus              n x T cards placed this round                          public
      free_wasabi           n Wasabi without a Nigiri yet                          public
      on_wasabi             n x T Nigiri sitting on a Wasabi, by type              public
      puddings              n Puddings kept from finished rounds                   public
      points                n points from finished rounds                          public
      hand                  T the observer's hand                                  private
      seen_hands            (n-1) x (T+1) other hands the observer has held, with
                            a last column set to 1 when that hand is known         private
      hands                 n x T every hand (private_info=ALL_PLAYERS only)
      robot_tableau, robot_puddings   T and 1, robot variant only                 public
    with perfect recall (the information state), for every round and turn:
      picks                 rounds x H x n x 2 x T the cards each player placed,
                            first and second card (Chopsticks) one-hot              public
      robot_picks           rounds x H x T the card placed for the robot (variant)  public
      hand_history          rounds x H x T the observer's hand at each turn        private
                            (rounds x H x n x T every hand with ALL_PLAYERS)
  """

  def pieces(self):
    rules, obs = self.rules, self.iig_obs_type
    n, t, h, rounds = rules.num_players, rules.num_types, rules.hand_size, rules.rounds
    pieces = []
    if obs.perfect_recall:
      if obs.public_info:
        pieces.append(("picks", (rounds, h, n, 2, t)))
        if rules.robot:
          pieces.append(("robot_picks", (rounds, h, t)))
      if self.single:
        pieces.append(("hand_history", (rounds, h, t)))
      if self.every:
        pieces.append(("hand_history", (rounds, h, n, t)))
      return pieces
    if obs.public_info:
      if rules.robot:
        pieces += [("robot_tableau", (t,)), ("robot_puddings", (1,))]
      pieces += [("round", (rounds,)), ("turn", (h,)), ("tableaus", (n, t)),
                 ("free_wasabi", (n,)), ("on_wasabi", (n, t)), ("puddings", (n,)),
                 ("points", (n,))]
    if self.single:
      pieces += [("hand", (t,)), ("seen_hands", (n - 1, t + 1))]
    if self.every:
      pieces.append(("hands", (n, t)))
    return pieces

  def set_from_table(self, table: R.Table, player: int) -> None:
    rules = self.rules
    n = rules.num_players
    seats = [(player + k) % n for k in range(n)]
    self.tensor.fill(0)
    d = self.dict
    if "picks" in d or "hand_history" in d:
      turns_before = {}
      for entry in table.log:
        turn = turns_before.get(entry.round, 0)
        turns_before[entry.round] = turn + 1
        if "picks" in d:
          for k, p in enumerate(seats):
            for slot, card in enumerate(entry.picks[p]):
              d["picks"][entry.round, turn, k, slot, card] = 1
          if entry.robot >= 0:
            d["robot_picks"][entry.round, turn, entry.robot] = 1
        if "hand_history" in d:
          if d["hand_history"].ndim == 3:
            d["hand_history"][entry.round, turn] = entry.hands[player]
          else:
            d["hand_history"][entry.round, turn] = [entry.hands[p] for p in seats]
      if is_dealt(rules, table):
        if "hand_history" in d:
          if d["hand_history"].ndim == 3:
            d["hand_history"][table.round, table.turn] = table.hands[player]
          else:
            d["hand_history"][table.round, table.turn] = [table.hands[p] for p in seats]
      return
    playing = not R.is_terminal(rules, table)
    if "round" in d and playing:
      d["round"][table.round] = 1
      d["turn"][table.turn] = 1
    if "tableaus" in d:
      totals = R.totals(table)
      for k, p in enumerate(seats):
        for card in table.tableaus[p]:
          d["tableaus"][k, card] += 1
        free, on = R.wasabi_state(rules, table.tableaus[p])
        d["free_wasabi"][k] = free
        for card in on:
          d["on_wasabi"][k, card] += 1
        d["puddings"][k] = table.puddings[p]
        d["points"][k] = totals[p]
    if "robot_tableau" in d:
      for card in table.robot.tableau:
        d["robot_tableau"][card] += 1
      d["robot_puddings"][0] = table.robot.puddings
    if "hand" in d and is_dealt(rules, table):
      knows = knowledge(rules, table, player)
      d["hand"][:] = knows.hand
      for k, p in enumerate(seats[1:]):
        seen = knows.seen_hand(p)
        if seen is not None:
          d["seen_hands"][k, :-1] = seen
          d["seen_hands"][k, -1] = 1
    if "hands" in d and playing:
      for k, p in enumerate(seats):
        d["hands"][k] = table.hands[p]

  def string_from_table(self, table: R.Table, player: int) -> str:
    rules = self.rules
    obs = self.iig_obs_type
    if obs.perfect_recall:
      return self._history_string(rules, table, player)
    lines = []
    playing = not R.is_terminal(rules, table)
    if obs.public_info:
      if playing:
        lines.append(f"Round {table.round + 1}/{rules.rounds}, turn {table.turn + 1}/"
                     f"{rules.hand_size}" + ("" if is_dealt(rules, table) else ", dealing"))
      else:
        lines.append("Game over")
      totals = R.totals(table)
      for p in range(rules.num_players):
        free, _ = R.wasabi_state(rules, table.tableaus[p])
        lines.append(f"P{p} tableau [{', '.join(rules.tableau_names(table.tableaus[p]))}]"
                     f" free Wasabi {free}, Puddings {table.puddings[p]}, points {totals[p]}")
      if table.robot:
        lines.append(f"Robot tableau [{', '.join(rules.tableau_names(table.robot.tableau))}]"
                     f" Puddings {table.robot.puddings}")
    if is_dealt(rules, table):
      if self.single:
        knows = knowledge(rules, table, player)
        lines.append(f"P{player} hand [{rules.hand_string(knows.hand)}]")
        for p, hand in knows.seen:
          lines.append(f"P{p} hand (seen) [{rules.hand_string(hand)}]")
      elif self.every:
        for p in range(rules.num_players):
          lines.append(f"P{p} hand [{rules.hand_string(table.hands[p])}]")
    return "\n".join(lines)

  def _history_string(self, rules, table, player) -> str:
    single, every = self.single, self.every
    lines = [f"P{player}"] if single else []
    n = rules.num_players

    def hands_line(hands):
      if single:
        return f" hand [{rules.hand_string(hands[player])}]"
      if every:
        return "".join(f" P{p} hand [{rules.hand_string(hands[p])}]" for p in range(n))
      return ""

    turn_in_round = {}
    for entry in table.log:
      turn = turn_in_round.get(entry.round, 0)
      turn_in_round[entry.round] = turn + 1
      picks = " | ".join(
          f"P{p} {' + '.join(rules.cards[c].name for c in entry.picks[p])}" for p in range(n))
      if entry.robot >= 0:
        picks += f" | robot {rules.cards[entry.robot].name}"
      line = f"R{entry.round + 1} T{turn + 1}:"
      if self.iig_obs_type.public_info:
        line += f"{hands_line(entry.hands)} picks {picks}"
      else:
        line += hands_line(entry.hands)
      lines.append(line)
    if not R.is_terminal(rules, table):
      if is_dealt(rules, table):
        lines.append(f"R{table.round + 1} T{table.turn + 1}:{hands_line(table.hands)}")
      else:
        lines.append(f"R{table.round + 1} dealing")
    return "\n".join(lines)
