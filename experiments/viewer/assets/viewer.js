// What the report and the web game share: building elements and showing cards and rounds.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

const FAMILIES = ["tempura", "sashimi", "dumpling", "maki", "nigiri", "wasabi", "chopsticks",
                  "pudding", "wild"];

function family(name) {
  const lower = name.toLowerCase();
  return FAMILIES.find((word) => lower.includes(word)) || "";
}

function cardSpan(name) {
  return el("span", {class: "card " + family(name)}, name);
}

function cardList(names) {
  return el("div", {class: "cards"}, names.map(cardSpan));
}

function seatName(seats, seat) {
  return "P" + seat + (seats ? " " + seats[seat] : "");
}

// A finished round: the cards each seat ended it with and its points (Sushi Go: by rule).
function roundTable(round, number, seats) {
  const rules = round.breakdown ? Object.keys(round.breakdown[0]) : [];
  const head = el("tr", {}, el("th", {}, "seat"), el("th", {}, "cards"),
                  rules.map((rule) => el("th", {}, rule)), el("th", {}, "round points"));
  const rows = round.points.map((points, seat) => el("tr", {},
      el("td", {}, seatName(seats, seat)), el("td", {}, cardList(round.tables[seat])),
      rules.map((rule) => el("td", {}, String(round.breakdown[seat][rule]))),
      el("td", {}, points === null ? "?" : String(points))));
  const parts = [el("h3", {}, "Round " + number + " scores"),
                 el("table", {class: "round"}, head, rows)];
  if (round.chips) {
    parts.push(el("p", {}, "Chips: " + (round.chips.map(([pile, seat, value]) =>
        pile + " to P" + seat + (value === null ? "" : " (" + value + ")")).join(", ") ||
        "none")));
  }
  return el("div", {}, parts);
}
