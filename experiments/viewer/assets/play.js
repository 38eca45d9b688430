// The web game: the person's view from /api/state, moves by clicking cards, then the move.
"use strict";

const game = {view: null, selected: []};

async function call(method, path, body) {
  const response = await fetch(path, {method: method, headers: {"Content-Type": "application/json"},
                                      body: body === undefined ? undefined : JSON.stringify(body)});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error);
  return answer;
}

function say(text) {
  document.getElementById("message").textContent = text;
}

async function act(method, path, body) {
  try {
    const answer = await call(method, path, body);
    return answer;
  } catch (error) {
    say(error.message);
    return null;
  }
}

async function refresh(view) {
  game.view = view || await act("GET", "/api/state");
  game.selected = [];
  render();
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join("|") === [...b].sort().join("|");
}

// The moves whose cards are exactly the cards selected (two with Chopsticks).
function matchingMoves() {
  const cards = game.selected.map((i) => game.view.hand[i]);
  return game.view.actions.filter((action) => sameCards(action.cards, cards));
}

function toggle(i) {
  const at = game.selected.indexOf(i);
  if (at >= 0) game.selected.splice(at, 1);
  else game.selected.push(i);
  render();
}

async function play(action) {
  say("");
  const view = await act("POST", "/api/move", {action: action});
  if (view) refresh(view);
}

function render() {
  const view = game.view;
  const hand = el("div", {class: "cards", id: "hand"}, view.hand.map((name, i) => el("button", {
      class: "card " + family(name) + (game.selected.includes(i) ? " selected" : ""),
      "data-card": name, onclick: () => toggle(i)}, name)));
  const moves = el("div", {id: "moves"}, game.selected.length === 0 ? "Click a card of your hand" +
      " (a second one to play two with Chopsticks), then its move." :
      matchingMoves().map((action) => el("button", {class: "move", "data-action": action.id,
                                                    onclick: () => play(action.id)},
                                         "Play " + action.name)));
  if (game.selected.length && !matchingMoves().length) moves.append("No move plays these cards.");
  const head = el("tr", {}, ["seat", "last pick", "table", "holds", "points"].map(
      (title) => el("th", {}, title)));
  const rows = view.seats.map((name, seat) => el("tr", {},
      el("td", {}, seatName(view.seats, seat)),
      el("td", {class: "pick"}, view.last_picks ? view.last_picks[seat] : "—"),
      el("td", {}, cardList(view.tables[seat])), el("td", {}, view.held[seat]),
      el("td", {}, view.points[seat] === null ? "?" : String(view.points[seat]))));
  const parts = [el("h1", {}, "sushigo play"), el("p", {}, view.game),
                 el("h2", {id: "position"}, view.position), el("p", {id: "message"})];
  if (view.final) parts.push(finalPanel(view));
  else parts.push(el("h3", {}, "Your hand"), hand, moves);
  parts.push(el("h3", {}, "The table"), el("table", {id: "tables"}, head, rows));
  view.rounds.slice().reverse().forEach((round, k) =>
      parts.push(roundTable(round, view.rounds.length - k, view.seats)));
  document.getElementById("play").replaceChildren(...parts);
}

function finalPanel(view) {
  const rows = view.seats.map((name, seat) => el("tr", {}, el("td", {}, seatName(view.seats, seat)),
      el("td", {class: "final-score"}, String(view.final.scores[seat]))));
  return el("div", {id: "final"}, el("table", {}, el("tr", {}, el("th", {}, "seat"),
                                                     el("th", {}, "final score")), rows),
            el("p", {id: "winners"}, "Winner(s): " +
               view.final.winners.map((seat) => seatName(view.seats, seat)).join(", ")),
            el("button", {id: "save", onclick: save}, "Save the game as a record"),
            el("button", {id: "new-game", onclick: newGame}, "New game"),
            el("p", {id: "saved"}));
}

async function save() {
  const answer = await act("POST", "/api/save");
  if (answer) {
    document.getElementById("saved").textContent =
        "Saved as record " + answer.index + " of " + answer.path;
  }
}

async function newGame() {
  const view = await act("POST", "/api/new");
  if (view) refresh(view);
}

refresh();
