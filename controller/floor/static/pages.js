// railguard floor console: what every page shares (the room, the hand history, a hand). No framework, no
// build step; every value from the network goes into the page as text, never as HTML.
"use strict";

const P = { me: null };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) {
    e.append(c instanceof Node ? c : (c === null || c === undefined ? "" : String(c)));
  }
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, { credentials: "same-origin" });
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (_e) { data = { reason: text }; }
  return { status: r.status, data };
}

// the session: the page is served to anyone, its data only to a logged-in user
async function whoAmI() {
  const r = await getJSON("/api/me");
  const who = document.getElementById("who");
  if (r.status !== 200) {
    who.replaceChildren("not logged in: ", el("a", { href: "/" }, "log in"));
    return null;
  }
  P.me = r.data;
  who.textContent = `${r.data.user} (${r.data.role})`;
  return r.data;
}

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

// a card as text ("A♠"), coloured by suit; the card code stays in data-card
function card(code) {
  const rank = code.slice(0, 1) === "T" ? "10" : code.slice(0, 1);
  const suit = code.slice(1, 2);
  return el("span", { class: `card suit-${suit}`, "data-card": code }, rank + (SUITS[suit] || suit));
}

function cards(codes) {
  const span = el("span", { class: "cards" });
  for (const c of codes || []) span.append(card(c));
  return span;
}

function when(ts) {
  if (!ts) return "";
  return new Date(ts * 1000).toLocaleString();
}

function alertLine(a) {
  return el("li", { class: `alert sev-${a.severity}`, "data-code": a.code },
    el("span", { class: "code" }, a.code), " ", el("span", { class: "severity" }, a.severity),
    a.seat ? ` seat ${a.seat}` : "",
    el("div", { class: "clause" }, `clause ${a.clause}`),
    el("div", { class: "remedy" }, a.remedy));
}
