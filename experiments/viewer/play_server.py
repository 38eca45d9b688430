"""`sushigo play --web`: a person plays a bot in the browser, served from 127.0.0.1.

`WebGame` is one game of Sushi Go or Sushi Draft with a person in one seat and a bot (`solvers`,
any of them, with its parameters) in every other: it shows the person what their seat may know
(`view`), takes their move, asks the bots for theirs, and writes the game as a record
(`record`) that `experiments.viewer.replay` rebuilds: the seeds are drawn as a tournament draws
them (game k of a session: `np.random.SeedSequence(seed, spawn_key=(k,))`, the chance stream first,
then one seed per seat) and the person's moves are the record's "actions" of seat bot "human".

`serve` answers the page (`/`: the assets inlined) and a small JSON interface: GET /api/state,
POST /api/move {"action": id}, POST /api/new (the next game of the session), POST /api/save
(appends the finished game's record to the records file). Standard library only
(`http.server`); one request at a time.
"""

from __future__ import annotations

import http.server
import json
import pathlib
import threading
from typing import Any

import numpy as np
import pyspiel

import solvers
from experiments import run_folder
from experiments.viewer import replay
from experiments.viewer.report_page import asset
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import position

VERBS = ("Eat ", "Keep ")  # Sushi Draft's action names start with one
WILD_AS = " as "  # "Wild as Tuna Nigiri": the Wild card, eaten as a Tuna Nigiri
PAIR = " + "  # Sushi Go with Chopsticks: "Tempura + Sashimi", two cards of the hand


def action_cards(name: str) -> list[str]:
  """The cards of the hand an action plays, from its name: "Tempura + Sashimi" -> [Tempura,
  Sashimi]; "Eat Wild as Salmon Roll" -> [Wild]; "Keep Tuna Nigiri" -> [Tuna Nigiri]."""
  for verb in VERBS:
    name = name.removeprefix(verb)
  return [card.partition(WILD_AS)[0] for card in name.split(PAIR)]


class WebGame:
  """Game `number` of a session: a person at seat `human`, bot `bot` with `params` elsewhere."""

  def __init__(self, game_string: str, bot: str, params: dict[str, Any], seed: int, human: int,
               number: int = 0):
    self.game = pyspiel.load_game(game_string)
    self.game_string, self.human, self.number, self.seed = game_string, human, number, seed
    num_players = self.game.num_players()
    chance_seed, *seat_seeds = np.random.SeedSequence(seed, spawn_key=(number,)).spawn(
        1 + num_players)
    self.entries = [{"bot": replay.HUMAN, "params": {}, "seed": None} if seat == human else
                    {"bot": bot, "params": params,
                     "seed": int(seat_seeds[seat].generate_state(1)[0])}
                    for seat in range(num_players)]
    self.bots = {seat: solvers.make_bot(entry["bot"], self.game, seat, entry["seed"],
                                        **entry["params"])
                 for seat, entry in enumerate(self.entries) if seat != human}
    self.chance = np.random.default_rng(chance_seed)
    self.actions: list[int] = []
    self.last_picks: list[str] | None = None
    self.state = self.game.new_initial_state()
    self._deal()

  def _deal(self) -> None:
    while self.state.is_chance_node():
      outcomes, probabilities = zip(*self.state.chance_outcomes())
      self.state.apply_action(outcomes[draw_index(probabilities, self.chance.random)])

  def seats(self) -> list[str]:
    return ["you" if seat == self.human else entry["bot"]
            for seat, entry in enumerate(self.entries)]

  def move(self, action: Any) -> None:
    """Plays the person's `action` (an id of `view()["actions"]`) with the bots' moves; a
    ValueError says why a move is refused."""
    if self.state.is_terminal():
      raise ValueError("the game is over; start a new one")
    legal = self.state.legal_actions(self.human)
    if isinstance(action, bool) or action not in legal:
      names = ", ".join(f"{a} ({self.state.action_to_string(self.human, a)})" for a in legal)
      raise ValueError(f"action {action!r} is not a move of yours here; allowed: {names}")
    joint = [action if seat == self.human else self.bots[seat].step(self.state)
             for seat in range(self.game.num_players())]
    self.last_picks = [self._pick_shown(seat, a) for seat, a in enumerate(joint)]
    self.actions.append(action)
    self.state.apply_actions(joint)
    self._deal()

  def _pick_shown(self, seat: int, action: int) -> str:
    """A pick as the person sees it: Sushi Draft's kept cards of other seats are secret."""
    name = self.state.action_to_string(seat, action)
    return "Keep a card" if seat != self.human and name.startswith(VERBS[1]) else name

  def view(self) -> dict[str, Any]:
    """What the person's seat may know, and its moves with the cards each plays."""
    state, human = self.state, self.human
    terminal = state.is_terminal()
    view = {"game": self.game_string, "seat": human, "seats": self.seats(),
            "position": "Game over" if terminal else position(state),
            "hand": [] if terminal else state.hands()[human],
            "actions": [] if terminal else [
                {"id": action, "name": state.action_to_string(human, action),
                 "cards": action_cards(state.action_to_string(human, action))}
                for action in state.legal_actions(human)],
            "last_picks": self.last_picks,
            "rounds": [replay.round_view(self.game, r, None if terminal else human)
                       for r in state.round_records()],
            "final": None, **replay.table_view(state, human)}
    if terminal:
      outcome = replay.outcome(state)
      view["final"] = {"scores": outcome["scores"], "winners": outcome["winners"]}
    return view

  def record(self, index: int) -> dict[str, Any]:
    """The finished game as a record with index `index`; a ValueError before its end."""
    if not self.state.is_terminal():
      raise ValueError("the game is not over yet: a record holds a whole game")
    bots = [dict(entry, actions=self.actions) if entry["bot"] == replay.HUMAN else entry
            for entry in self.entries]
    return {"index": index, "seed": {"entropy": self.seed, "spawn_key": [self.number]},
            "game": self.game_string, "seats": self.seats(), "bots": bots,
            **replay.outcome(self.state)}


class Session:
  """The games of one server, one after the other, and where their records are saved."""

  def __init__(self, game_string: str, bot: str, params: dict[str, Any], seed: int, human: int,
               records: pathlib.Path):
    self.options = (game_string, bot, params, seed, human)
    self.records = records
    self.lock = threading.Lock()
    self.current = WebGame(*self.options)

  def new_game(self) -> None:
    self.current = WebGame(*self.options, number=self.current.number + 1)

  def save(self) -> dict[str, Any]:
    """Appends the finished game's record to the records file; says where and under which
    index (the count of records already in the file)."""
    run_folder.cut_torn_line(self.records)
    index = len(run_folder.complete_lines(self.records))
    record = self.current.record(index)
    self.records.parent.mkdir(parents=True, exist_ok=True)
    with run_folder.open_for_appending(self.records) as file:
      run_folder.append_line(file, record, durable=True)
    return {"path": str(self.records), "index": index}


def page() -> str:
  """The web game's page, its script and style inline."""
  return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>sushigo play</title>
<style>
{asset("viewer.css")}
</style>
</head>
<body>
<main id="play"><p>Loading…</p></main>
<script>
{asset("viewer.js")}
{asset("play.js")}
</script>
</body>
</html>
"""


def serve(session: Session, port: int = 0) -> http.server.HTTPServer:
  """A server for `session` bound to 127.0.0.1:`port` (0: a free port); not yet serving."""

  class Handler(http.server.BaseHTTPRequestHandler):
    """The page and the JSON interface of the module docstring."""

    def do_GET(self):  # pylint: disable=invalid-name
      if self.path == "/":
        self._send(200, page().encode("utf-8"), "text/html; charset=utf-8")
      elif self.path == "/api/state":
        with session.lock:
          self._json(200, session.current.view())
      else:
        self._json(404, {"error": f"no page {self.path}"})

    def do_POST(self):  # pylint: disable=invalid-name
      actions = {"/api/move": self._move, "/api/new": self._new, "/api/save": self._save}
      if self.path not in actions:
        self._json(404, {"error": f"no action {self.path}"})
        return
      with session.lock:
        try:
          self._json(200, actions[self.path]())
        except ValueError as e:
          self._json(400, {"error": str(e)})

    def _move(self) -> dict[str, Any]:
      length = int(self.headers.get("Content-Length") or 0)
      try:
        action = json.loads(self.rfile.read(length) or b"{}")["action"]
      except (ValueError, KeyError, TypeError):
        raise ValueError('a move is a JSON object {"action": id}') from None
      session.current.move(action)
      return session.current.view()

    def _new(self) -> dict[str, Any]:
      session.new_game()
      return session.current.view()

    def _save(self) -> dict[str, Any]:
      try:
        return session.save()
      except OSError as e:
        raise ValueError(f"the record could not be saved: {e}") from None

    def _json(self, status: int, body: dict[str, Any]) -> None:
      self._send(status, json.dumps(body).encode("utf-8"), "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
      self.send_response(status)
      self.send_header("Content-Type", kind)
      self.send_header("Content-Length", str(len(body)))
      self.send_header("Cache-Control", "no-store")
      self.end_headers()
      self.wfile.write(body)

    def log_message(self, format, *args):  # pylint: disable=redefined-builtin
      del format, args  # no line per request

  return http.server.HTTPServer(("127.0.0.1", port), Handler)
