// The event page: standings, the proposal waiting for the floor (a director confirms it:
// the tournament service then sends the moves to the tables), the clock's controls and
// hand-for-hand. Reads /api/event every second; actions POST with the session's CSRF token.
"use strict";

const params = new URLSearchParams(location.search);
let me = null;
let current = "";
let data = null;

const $ = (id) => document.getElementById(id);

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function fill(id, rows) {
  const body = $(id).querySelector("tbody");
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement("tr");
    r.forEach((t) => cell(tr, t));
    body.appendChild(tr);
  }
}

async function act(path, body) {
  $("response").textContent = "…";
  const r = await fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf },
    body: JSON.stringify({ event: current, ...body }),
  });
  if (!r.ok) {
    $("response").textContent = `Refused: ${await r.text()}`;
    $("response").className = "error";
    return;
  }
  const answer = await r.json();
  $("response").className = answer.ok ? "" : "error";
  $("response").textContent = answer.ok ? `${answer.command}: done` : `Refused: ${answer.reason}`;
  await refresh();
}

function showProposal(p) {
  const box = $("proposal");
  box.replaceChildren();
  if (!p) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No move needed.";
    box.appendChild(none);
    return;
  }
  const head = document.createElement("p");
  head.id = "proposal-reason";
  head.textContent = `#${p.id} ${p.kind}: ${p.reason} (${p.clauses.join(", ")})`;
  box.appendChild(head);
  const list = document.createElement("ul");
  list.id = "proposal-moves";
  for (const m of p.moves) {
    const li = document.createElement("li");
    li.textContent = `${m.name} (${m.player}): ${m.from_table} seat ${m.from_seat} → ` +
      `${m.to_table} seat ${m.to_seat}; ${m.entitlement}`;
    list.appendChild(li);
  }
  box.appendChild(list);
  if (me.role === "director") {
    const ok = document.createElement("button");
    ok.id = "confirm";
    ok.textContent = "Confirm the move";
    ok.addEventListener("click", () => act("/api/event/confirm", { proposal: p.id }));
    const no = document.createElement("button");
    no.id = "withdraw";
    no.textContent = "Withdraw";
    no.addEventListener("click", () => act("/api/event/confirm", { proposal: p.id, withdraw: true }));
    box.append(ok, no);
  }
}

function render() {
  const names = Object.keys(data.events).sort();
  current = params.get("event") || current || names[0] || "";
  const ev = data.events[current] || {};
  $("event-name").textContent = current || "(no event running)";
  $("clock-link").href = `/clock?event=${encodeURIComponent(current)}`;
  const c = ev.clock;
  $("clock-line").textContent = !c ? "" :
    `${c.level ? c.level.label : ""} · ${Math.floor(c.seconds_left / 60)} min ` +
    `${c.seconds_left % 60} s left${c.paused ? " (paused)" : ""}${c.started ? "" : " (not started)"}`;
  const s = ev.standings;
  if (s) {
    $("summary").textContent = `${s.players_left} players left of ${s.entries} entries · ` +
      `average ${s.average.toLocaleString("en")} · ${s.chips.toLocaleString("en")} chips`;
    fill("tables", s.tables.map((t) => [t.table, t.players]));
    fill("players", s.players.map((p) => [p.name, p.table, p.seat, p.stack.toLocaleString("en")]));
    fill("eliminated", s.eliminated.map((e) =>
      [e.place, e.name, e.table, e.hand_id, e.start_stack.toLocaleString("en")]));
    const h = s.hand_for_hand;
    $("h4h-line").textContent = h.on ?
      `On: round ${h.round}; completed and held: ${h.done.join(", ") || "none yet"}` : "Off";
    $("h4h-toggle").textContent = h.on ? "Hand-for-hand off" : "Hand-for-hand on";
    $("h4h-toggle").dataset.on = h.on ? "1" : "";
  }
  showProposal(ev.proposal ? ev.proposal.proposal : null);
}

async function refresh() {
  const r = await fetch("/api/event", { credentials: "same-origin", cache: "no-store" });
  if (r.status === 401) {
    $("login-needed").hidden = false;
    $("event").hidden = true;
    return;
  }
  data = await r.json();
  render();
}

async function main() {
  const r = await fetch("/api/me", { credentials: "same-origin" });
  if (!r.ok) {
    $("login-needed").hidden = false;
    return;
  }
  me = await r.json();
  $("who").textContent = `${me.user} (${me.role})`;
  $("event").hidden = false;
  for (const el of document.querySelectorAll(".director")) el.hidden = me.role !== "director";
  const clock = (op, seconds) => act("/api/event/clock", seconds === undefined ? { op } : { op, seconds });
  $("clock-start").addEventListener("click", () => clock("start"));
  $("clock-pause").addEventListener("click", () => clock("pause"));
  $("clock-resume").addEventListener("click", () => clock("resume"));
  $("clock-minus").addEventListener("click", () => clock("adjust", -60));
  $("clock-plus").addEventListener("click", () => clock("adjust", 60));
  $("h4h-toggle").addEventListener("click",
    () => act("/api/event/hand_for_hand", { on: !$("h4h-toggle").dataset.on }));
  await refresh();
  setInterval(refresh, 1000);
}

main();
