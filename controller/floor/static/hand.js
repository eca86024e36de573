// railguard floor console: one stored hand, replayed street by street with its cards.
"use strict";

const R = { hand: null, at: 0 };

function say(text) { document.getElementById("response").textContent = text; }

function actionText(a) {
  const amount = a.amount !== null && a.amount !== undefined ? ` ${a.amount}` : "";
  const said = a.declaration ? ` (declared ${a.declaration})` : "";
  return `${a.name} (seat ${a.seat}): ${a.action}${amount}${a.all_in ? " all in" : ""}${said}`;
}

function showStreet(i) {
  const h = R.hand;
  R.at = Math.max(0, Math.min(h.streets.length - 1, i));
  const s = h.streets[R.at];
  document.getElementById("street-name").textContent = s.street;
  document.getElementById("street").dataset.street = s.street;
  document.getElementById("board").replaceChildren(s.board.length ? cards(s.board) : "none");
  document.getElementById("pot").textContent = String(s.pot);
  document.getElementById("actions").replaceChildren(...s.actions.map((a) => {
    const li = el("li", { "data-seat": a.seat, "data-action": a.action }, actionText(a));
    if (a.cards) li.append(" ", cards(a.cards));
    return li;
  }));
  document.getElementById("street-alerts").replaceChildren(...s.alerts.map(alertLine));
  for (const [n, b] of [...document.querySelectorAll("#streets button")].entries()) {
    b.setAttribute("aria-selected", n === R.at ? "true" : "false");
  }
  document.getElementById("step-prev").disabled = R.at === 0;
  document.getElementById("step-next").disabled = R.at === h.streets.length - 1;
}

function render(h) {
  R.hand = h;
  document.title = `railguard floor: ${h.hand_id}`;
  document.getElementById("title").textContent = `Hand ${h.hand_id}`;
  const table = h.room_name && h.room_name !== h.table ? `${h.room_name} (${h.table})` : h.table;
  document.getElementById("facts").textContent =
    `table ${table}, hand ${h.hand_no}, ended ${when(h.ended_at)}, dealer ${h.dealer_id || "–"},`
    + ` button seat ${h.button}, blinds ${h.small_blind}/${h.big_blind}`
    + (h.ante ? `, ante ${h.ante}` : "") + (h.voided ? ", VOIDED" : "");
  const id = encodeURIComponent(h.hand_id);
  document.getElementById("dl-ohh").href = `/api/hand/${id}/export.ohh`;
  document.getElementById("dl-phh").href = `/api/hand/${id}/export.phh`;
  document.querySelector("#players tbody").replaceChildren(...h.players.map((p) =>
    el("tr", { "data-seat": p.seat }, el("td", {}, p.seat), el("td", {}, p.name),
      el("td", {}, cards(p.cards)), el("td", {}, p.starting_stack), el("td", {}, p.won),
      el("td", {}, p.final_stack))));
  document.getElementById("streets").replaceChildren(...h.streets.map((s, n) => {
    const b = el("button", { type: "button", role: "tab", "data-street": s.street }, s.street);
    b.addEventListener("click", () => showStreet(n));
    return b;
  }));
  document.getElementById("pots").replaceChildren(
    ...h.pots.map((p) => el("li", {}, `pot ${p.number}: ${p.amount} to `
      + p.winners.map((w) => `${w.name} (seat ${w.seat}) ${w.amount}`).join(", "))),
    ...h.uncalled.map((u) => el("li", {}, `uncalled ${u.amount} back to ${u.name} (seat ${u.seat})`)),
    ...(h.alerts.length ? [] : [el("li", { class: "muted" }, "no alert in this hand")]));
  document.getElementById("hand").hidden = false;
  showStreet(0);
}

async function start() {
  if (!await whoAmI()) return;
  const id = decodeURIComponent(location.pathname.split("/").pop());
  const r = await getJSON(`/api/hand/${encodeURIComponent(id)}`);
  if (r.status !== 200) { say(`hand ${id}: ${r.data.reason || r.status}`); return; }
  render(r.data);
  document.getElementById("step-prev").addEventListener("click", () => showStreet(R.at - 1));
  document.getElementById("step-next").addEventListener("click", () => showStreet(R.at + 1));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowRight") showStreet(R.at + 1);
    else if (e.key === "ArrowLeft") showStreet(R.at - 1);
    else if (e.key === "Home") showStreet(0);
    else if (e.key === "End") showStreet(R.hand.streets.length - 1);
    else return;
    e.preventDefault();
  });
}

start();
