"""Games rebuilt turn by turn from their records: what the HTML report's replays show, and what a
game's record holds of its outcome.

A record (`experiments.tournament` writes them) names everything a game depends on: the game
string, the seed of its chance stream ({"entropy", "spawn_key"} of a numpy SeedSequence whose first
spawned child draws the chance outcomes) and each seat's bot, parameters and seed. A seat a person
played (`sushigo play --web`) has bot "human" and its moves, in order, under "actions".

`rebuild` plays the game again from these, every bot asked for its move with `step_with_policy`
(a `solvers.bot.Bot` draws its move from the policy it reports, so this consumes the same random
numbers as `step` and the game comes out the same), and keeps every turn: the position, each
seat's hand, the cards on each table, the picks and the policies they were drawn from. It then
compares the rebuilt outcome with the recorded one: a replay whose outcome differs, or that cannot
be rebuilt at all (an unknown bot, a missing policy file, a recorded move that is not legal), says
so in its `problem`.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

import solvers
from sushigo_spiel.drafting.sampling import draw_index
from sushigo_spiel.drafting.text import position
from sushigo_spiel.sushi_go import scoring
from sushigo_spiel.sushi_go.cards import card_named

HUMAN = "human"  # the bot name of a seat a person played; its moves are the record's "actions"
SUSHI_GO = "python_sushi_go"
# The outcome fields a record may hold; a rebuilt game is compared on those its record has.
OUTCOME_FIELDS = ("scores", "returns", "rounds", "breakdown", "puddings", "chips", "winners")
POLICY_DIGITS = 4  # probabilities are shown to this many decimals


def outcome(state: pyspiel.State) -> dict[str, Any]:
  """What a record holds of a finished game: scores, returns, points by round and, for Sushi Go,
  the breakdown by round, seat and category, the Pudding counts and the winners (ties broken by
  Puddings); for Sushi Draft, the chips each round awarded ([pile, seat, value]) and the winners
  (every seat with the most chip points)."""
  rounds = state.round_records()
  scores = [int(s) for s in state.scores()]
  fields: dict[str, Any] = {"scores": scores, "returns": state.returns(),
                            "rounds": [r.points for r in rounds]}
  if _is_sushi_go(state.get_game()):
    puddings = state.puddings()
    fields.update(breakdown=[r.breakdown for r in rounds], puddings=puddings,
                  winners=scoring.winners(scores, puddings))
  else:
    fields.update(chips=[[list(chip) for chip in r.chips] for r in rounds],
                  winners=[p for p, score in enumerate(scores) if score == max(scores)])
  return fields


class RecordedMoves:
  """A seat a person played: its recorded moves, one per decision, in order."""

  def __init__(self, seat: int, actions: list[int]):
    self.seat = seat
    self.actions = list(actions)
    self.next = 0

  def step_with_policy(self, state: pyspiel.State) -> tuple[None, int]:
    if self.next >= len(self.actions):
      raise ValueError(f"seat {self.seat} recorded {len(self.actions)} moves; the game needs more")
    action = self.actions[self.next]
    if action not in state.legal_actions(self.seat):
      raise ValueError(f"seat {self.seat}'s move {self.next + 1} ({action!r}) is not legal there")
    self.next += 1
    return None, action


def seats_of(record: dict[str, Any], game: pyspiel.Game) -> list[Any]:
  """Each seat's player as the record names it: a bot from `solvers.make_bot`, or the recorded
  moves of a person."""
  bots = record["bots"]
  if len(bots) != game.num_players():
    raise ValueError(f"{len(bots)} seats recorded for a {game.num_players()}-player game")
  return [RecordedMoves(seat, entry["actions"]) if entry["bot"] == HUMAN else
          solvers.make_bot(entry["bot"], game, seat, entry["seed"], **entry["params"])
          for seat, entry in enumerate(bots)]


def chance_stream(record: dict[str, Any], num_players: int) -> np.random.Generator:
  """The generator of the game's chance outcomes: the first of the 1 + players children of the
  record's SeedSequence (the others seed the bots)."""
  seed = np.random.SeedSequence(record["seed"]["entropy"],
                                spawn_key=tuple(record["seed"]["spawn_key"]))
  return np.random.default_rng(seed.spawn(1 + num_players)[0])


def rebuild(record: dict[str, Any]) -> dict[str, Any]:
  """The replay of `record`: its header, every turn, every round, the final scores, and a
  `problem` (None when the rebuilt game matches the record)."""
  replay = {"index": record.get("index"), "game": record.get("game"), "seats": record.get("seats"),
            "bots": [{key: value for key, value in entry.items() if key != "actions"}
                     for entry in record.get("bots", [])],
            "recorded_scores": record.get("scores"), "turns": [], "rounds": [], "final": None,
            "problem": None}
  try:
    game = pyspiel.load_game(record["game"])
    players = seats_of(record, game)
    chance = chance_stream(record, game.num_players())
    state = _play(game, players, chance, replay["turns"])
  except (KeyError, TypeError, ValueError, pyspiel.SpielError) as e:
    replay["problem"] = f"cannot be rebuilt: {e}"
    return replay
  replay["rounds"] = [round_view(game, r) for r in state.round_records()]
  rebuilt = json.loads(json.dumps(outcome(state)))  # as a record reads back
  replay["final"] = _final(state, rebuilt)
  differing = [key for key in OUTCOME_FIELDS if key in record and record[key] != rebuilt[key]]
  if not any(key in record for key in OUTCOME_FIELDS):
    replay["problem"] = "the record holds no outcome to compare the rebuilt game with"
  elif differing:
    replay["problem"] = (f"the rebuilt game does not match its record: {', '.join(differing)}"
                         " differ")
  return replay


def _play(game: pyspiel.Game, players: list[Any], chance: np.random.Generator,
          turns: list[dict[str, Any]]) -> pyspiel.State:
  """Plays the game as `solvers.match.play_match` does, appending every decision to `turns`."""
  state = game.new_initial_state()
  while not state.is_terminal():
    if state.is_chance_node():
      outcomes, probabilities = zip(*state.chance_outcomes())
      state.apply_action(outcomes[draw_index(probabilities, chance.random)])
      continue
    turn = {"position": position(state), "hands": state.hands(), **table_view(state)}
    decisions = [player.step_with_policy(state) for player in players]
    turn["picks"] = [state.action_to_string(p, action) for p, (_, action) in enumerate(decisions)]
    turn["policies"] = [None if policy is None else _policy(state, p, policy)
                        for p, (policy, _) in enumerate(decisions)]
    rounds = len(state.round_records())
    state.apply_actions([action for _, action in decisions])
    turn["round_end"] = len(state.round_records()) > rounds
    turns.append(turn)
  return state


def table_view(state: pyspiel.State, viewer: int | None = None) -> dict[str, Any]:
  """What lies on each seat's table: its cards this round (Sushi Go: placed; Sushi Draft: eaten),
  a line of what it holds besides (Puddings; chips) and its points so far. With a `viewer` seat,
  only what that seat may know: in Sushi Draft, other seats' chip values and points are secret
  until the end (shown as "?" and None)."""
  points = [int(s) for s in state.scores()]
  if _is_sushi_go(state.get_game()):
    return {"tables": state.tableaus(), "points": points,
            "held": [f"Puddings {count}" for count in state.puddings()]}
  shows = [viewer is None or seat == viewer or state.is_terminal()
           for seat in range(state.num_players())]
  held = ["chips " + (", ".join(f"{pile} {value if shows[seat] else '?'}" for pile, value in chips)
                      or "none") for seat, chips in enumerate(state.chips())]
  return {"tables": state.eaten(), "held": held,
          "points": [score if shows[seat] else None for seat, score in enumerate(points)]}


def _policy(state: pyspiel.State, player: int, policy) -> list[list[Any]]:
  """The policy as [action name, probability], most probable first."""
  named = [[state.action_to_string(player, action), round(float(p), POLICY_DIGITS)]
           for action, p in policy]
  return sorted(named, key=lambda entry: -entry[1])


def round_view(game: pyspiel.Game, record, viewer: int | None = None) -> dict[str, Any]:
  """A finished round: Sushi Go's tableaus and points by category, Wasabi's share of the Nigiri
  shown apart; Sushi Draft's eaten cards and the chips awarded. With a `viewer` seat, Sushi
  Draft's chip values and points of the other seats are secret (None)."""
  if not _is_sushi_go(game):
    shows = [viewer is None or seat == viewer for seat in range(game.num_players())]
    return {"points": [points if shows[seat] else None for seat, points in
                       enumerate(record.points)], "tables": record.eaten,
            "chips": [[pile, seat, value if shows[seat] else None]
                      for pile, seat, value in record.chips]}
  breakdown = []
  for tableau, categories in zip(record.tableaus, record.breakdown):
    wasabi = scoring.wasabi_points(card_named(name) for name in tableau)
    split = {}
    for category, points in categories.items():
      if category == "nigiri":
        split["nigiri"], split["wasabi"] = points - wasabi, wasabi
      else:
        split[category] = points
    breakdown.append(split)
  return {"points": record.points, "tables": record.tableaus, "breakdown": breakdown}


def _final(state: pyspiel.State, rebuilt: dict[str, Any]) -> dict[str, Any]:
  """The final scores and winners; for Sushi Go, the Puddings and the points they gave."""
  final = {"scores": rebuilt["scores"], "winners": rebuilt["winners"]}
  if "puddings" in rebuilt:
    round_totals = [sum(points) for points in zip(*rebuilt["rounds"])]
    final.update(puddings=rebuilt["puddings"],
                 pudding_points=[s - r for s, r in zip(rebuilt["scores"], round_totals)])
  return final


def _is_sushi_go(game: pyspiel.Game) -> bool:
  return game.get_type().short_name == SUSHI_GO
