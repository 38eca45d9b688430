// The report's list of games and its replays, from the JSON the page carries.
"use strict";

const REPORT = JSON.parse(document.getElementById("report-data").textContent);

function gameList() {
  const head = el("tr", {}, ["#", "game", "seats", "scores", "winners", "replay"].map(
      (title) => el("th", {}, title)));
  const rows = REPORT.games.map((game) => {
    const replay = REPORT.replays[String(game.index)];
    let cell = "—";
    if (replay) {
      cell = el("span", {}, el("button", {class: "open-replay", "data-index": game.index,
                                          onclick: () => openReplay(game.index)}, "replay"),
                replay.problem ? el("span", {class: "bad", title: replay.problem}, " ✗ mismatch")
                               : el("span", {class: "ok"}, " ✓"));
    }
    return el("tr", {}, el("td", {}, String(game.index)), el("td", {}, game.game),
              el("td", {}, game.seats.join(", ")), el("td", {}, game.scores.join(", ")),
              el("td", {}, game.winners.map((seat) => "P" + seat).join(", ")), el("td", {}, cell));
  });
  document.getElementById("game-list").append(el("table", {}, head, rows));
}

const viewer = {replay: null, step: 0, shown: []};

function openReplay(index) {
  viewer.replay = REPORT.replays[String(index)];
  viewer.step = 0;
  viewer.shown = viewer.replay.seats.map(() => true);
  const section = document.getElementById("replay");
  section.hidden = false;
  showStep();
  section.scrollIntoView();
}

function steps() {
  return viewer.replay.turns.length + (viewer.replay.final ? 1 : 0);
}

function go(step) {
  viewer.step = Math.max(0, Math.min(steps() - 1, step));
  showStep();
}

function showStep() {
  const replay = viewer.replay;
  const section = document.getElementById("replay");
  const toggles = replay.seats.map((name, seat) => el("label", {},
      el("input", Object.assign({type: "checkbox", class: "show-hand", "data-seat": seat},
                                viewer.shown[seat] ? {checked: ""} : {})),
      " P" + seat + " hand "));
  toggles.forEach((label, seat) => label.firstChild.addEventListener("change", (event) => {
    viewer.shown[seat] = event.target.checked;
    showStep();
  }));
  const controls = el("div", {class: "controls"},
      el("button", {id: "replay-first", onclick: () => go(0)}, "« first"),
      el("button", {id: "replay-prev", onclick: () => go(viewer.step - 1)}, "◀ previous"),
      el("span", {id: "replay-step"}, " step " + (viewer.step + 1) + " of " + steps() + " "),
      el("button", {id: "replay-next", onclick: () => go(viewer.step + 1)}, "next ▶"),
      el("button", {id: "replay-last", onclick: () => go(steps() - 1)}, "last »"),
      el("span", {}, " show: "), toggles);
  const bots = replay.bots.map((bot, seat) => "P" + seat + " " + replay.seats[seat] + " (" +
      bot.bot + (Object.keys(bot.params || {}).length ? " " + JSON.stringify(bot.params) : "") +
      ", seed " + bot.seed + ")").join("; ");
  const parts = [el("h2", {}, "Replay of game " + replay.index), el("p", {}, replay.game + ": " + bots)];
  if (replay.problem) parts.push(el("p", {class: "problem", id: "replay-problem"}, replay.problem));
  parts.push(controls);
  if (viewer.step < replay.turns.length) parts.push(turnView(replay, viewer.step));
  else parts.push(finalView(replay));
  section.replaceChildren(...parts);
}

function turnView(replay, step) {
  const turn = replay.turns[step];
  const head = el("tr", {}, ["seat", "hand", "pick", "policy", "table before the pick", "holds", "points"].map(
      (title) => el("th", {}, title)));
  const rows = replay.seats.map((name, seat) => el("tr", {},
      el("td", {}, seatName(replay.seats, seat)),
      el("td", {}, viewer.shown[seat] ? cardList(turn.hands[seat])
                                      : el("span", {class: "card hidden-card"},
                                           turn.hands[seat].length + " cards hidden")),
      el("td", {class: "pick"}, turn.picks[seat]),
      el("td", {}, policyView(turn.policies[seat])),
      el("td", {}, cardList(turn.tables[seat])),
      el("td", {}, turn.held[seat]),
      el("td", {}, String(turn.points[seat]))));
  const parts = [el("h3", {}, turn.position), el("table", {class: "turn"}, head, rows)];
  if (turn.round_end) {
    const number = replay.turns.slice(0, step + 1).filter((t) => t.round_end).length;
    parts.push(roundTable(replay.rounds[number - 1], number, replay.seats));
  }
  return el("div", {}, parts);
}

function policyView(policy) {
  if (!policy) return el("span", {class: "policy"}, "—");
  const shown = policy.slice(0, 6);
  const rest = policy.length - shown.length;
  return el("div", {class: "policy"}, shown.map(([name, p]) => el("div", {},
      el("span", {class: "bar", style: "width:" + Math.round(60 * p) + "px"}),
      name + " " + p.toFixed(3))), rest > 0 ? el("div", {}, "… " + rest + " more") : null);
}

function finalView(replay) {
  const final = replay.final;
  const puddings = final.puddings !== undefined;
  const head = el("tr", {}, ["seat", puddings ? "Puddings" : null, puddings ? "Pudding points" : null,
                             "final score", "recorded score"].filter((t) => t).map(
                                 (title) => el("th", {}, title)));
  const rows = replay.seats.map((name, seat) => el("tr", {},
      el("td", {}, seatName(replay.seats, seat)),
      puddings ? el("td", {}, String(final.puddings[seat])) : null,
      puddings ? el("td", {}, String(final.pudding_points[seat])) : null,
      el("td", {class: "final-score"}, String(final.scores[seat])),
      el("td", {class: "recorded-score"}, String(replay.recorded_scores[seat]))));
  const verdict = replay.problem ? el("p", {class: "bad"}, replay.problem)
                                 : el("p", {class: "ok"}, "The rebuilt game matches its record.");
  return el("div", {id: "replay-final"}, el("h3", {}, "Final scores"),
            el("table", {}, head, rows),
            el("p", {}, "Winner(s): " + final.winners.map((seat) => "P" + seat).join(", ")),
            verdict);
}

gameList();
