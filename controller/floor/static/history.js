// railguard floor console: the hand history (search, paging, exports) and dealer quality.
"use strict";

const H = { offset: 0, limit: 25, total: 0, filters: new URLSearchParams() };

function say(text) { document.getElementById("response").textContent = text; }

function seconds(id) {
  const v = document.getElementById(id).value;
  if (!v) return null;
  const t = new Date(v).getTime();  // a datetime-local value is the browser's local time
  return Number.isNaN(t) ? null : String(t / 1000);
}

// a Date as a datetime-local input's value: the browser's local time, to the minute
function localValue(d) {
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}` +
    `T${p(d.getHours())}:${p(d.getMinutes())}`;
}

// a shift preset's [from, to] (to: null, up to now); null for "as set"
function shiftRange(kind, now) {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  if (kind === "8" || kind === "12") {
    return [new Date(now.getTime() - Number(kind) * 3600 * 1000), null];
  }
  if (kind === "today") return [midnight, null];
  if (kind === "yesterday") {
    const before = new Date(midnight);
    before.setDate(before.getDate() - 1);
    return [before, midnight];
  }
  return null;
}

// a preset fills From and To and searches; the quality button then counts the same shift
function applyShift() {
  const range = shiftRange(document.getElementById("q-shift").value, new Date());
  if (!range) return;
  document.getElementById("q-since").value = localValue(range[0]);
  document.getElementById("q-until").value = range[1] ? localValue(range[1]) : "";
  H.filters = readFilters();
  H.offset = 0;
  search();
}

function readFilters() {
  const f = new URLSearchParams();
  for (const k of ["table", "dealer", "player", "alert"]) {
    const v = document.getElementById(`q-${k}`).value.trim();
    if (v) f.set(k, k === "alert" ? v.toUpperCase() : v);
  }
  for (const k of ["since", "until"]) {
    const v = seconds(`q-${k}`);
    if (v !== null) f.set(k, v);
  }
  return f;
}

// a table as the floor knows it: "Main 1 (#1) · t1"; the id alone when the venue file has no name
function tableLabel(h) {
  if (!h.room_name || h.room_name === h.table) return h.table;
  return `${h.room_name}${h.room_number ? ` (#${h.room_number})` : ""} · ${h.table}`;
}

function row(h) {
  const link = el("a", { href: `/hand/${encodeURIComponent(h.hand_id)}`, class: "hand-link" },
    h.hand_id);
  const players = h.players.map((p) => p.name).join(", ");
  return el("tr", { "data-hand-id": h.hand_id },
    el("td", {}, link), el("td", { class: "table" }, tableLabel(h)), el("td", {}, h.hand_no),
    el("td", {}, when(h.ended_at)), el("td", {}, h.dealer_id || "–"),
    el("td", { class: "players" }, players),
    el("td", { class: "codes" }, h.alerts.join(" ")), el("td", {}, h.voided ? "void" : h.pot));
}

async function search() {
  const q = new URLSearchParams(H.filters);
  q.set("limit", String(H.limit));
  q.set("offset", String(H.offset));
  const r = await getJSON(`/api/history?${q}`);
  const body = document.querySelector("#results tbody");
  if (r.status !== 200) { say(`hand search: ${r.data.reason || r.status}`); return; }
  say("");
  H.total = r.data.total;
  body.replaceChildren(...r.data.hands.map(row));
  const last = H.offset + r.data.hands.length;
  document.getElementById("found").textContent = H.total
    ? `hands ${H.offset + 1}–${last} of ${H.total}` : "no hand matches";
  document.getElementById("prev").disabled = H.offset === 0;
  document.getElementById("next").disabled = last >= H.total;
  for (const fmt of ["ohh", "phh"]) {
    document.getElementById(`export-${fmt}`).href = `/api/history/export.${fmt}?${H.filters}`;
  }
}

function headerRow(codes) {
  return el("tr", {}, el("th", {}, "Dealer"), el("th", {}, "Hands"), el("th", {}, "Errors"),
    el("th", {}, "Per 100 hands"), ...codes.map((c) => el("th", { class: "code" }, c)));
}

async function showQuality() {
  const f = new URLSearchParams(H.filters);
  for (const k of ["dealer", "player", "alert"]) f.delete(k);  // a shift: table and time
  const r = await getJSON(`/api/quality?${f}`);
  if (r.status !== 200) { say(`dealer quality: ${r.data.reason || r.status}`); return; }
  const q = r.data;
  const table = document.getElementById("quality");
  table.querySelector("thead").replaceChildren(headerRow(q.codes));
  table.querySelector("tbody").replaceChildren(...q.dealers.map((d) =>
    el("tr", { "data-dealer": d.dealer }, el("td", {}, d.dealer), el("td", {}, d.hands),
      el("td", {}, d.errors), el("td", { class: "per-100" }, d.per_100.toFixed(1)),
      ...q.codes.map((c) => el("td", { "data-code": c }, d.by_code[c] || 0)))),
    el("tr", { class: "total" }, el("td", {}, "all"), el("td", {}, q.hands),
      el("td", {}, q.errors), el("td", {}, q.per_100.toFixed(1)),
      ...q.codes.map(() => el("td", {}, ""))));
  const img = document.getElementById("quality-chart");
  img.src = `/api/quality.svg?${f}`;
  img.hidden = false;
}

async function start() {
  if (!await whoAmI()) return;
  const params = new URLSearchParams(location.search);
  for (const k of ["table", "dealer", "player", "alert"]) {
    if (params.get(k)) document.getElementById(`q-${k}`).value = params.get(k);
  }
  document.getElementById("search").addEventListener("submit", (e) => {
    e.preventDefault();
    H.filters = readFilters();
    H.offset = 0;
    search();
  });
  document.getElementById("prev").addEventListener("click", () => {
    H.offset = Math.max(0, H.offset - H.limit); search();
  });
  document.getElementById("next").addEventListener("click", () => {
    H.offset += H.limit; search();
  });
  document.getElementById("quality-button").addEventListener("click", showQuality);
  document.getElementById("q-shift").addEventListener("change", applyShift);
  for (const id of ["q-since", "q-until"]) {  // a time typed in: the preset no longer holds
    document.getElementById(id).addEventListener("input", () => {
      document.getElementById("q-shift").value = "";
    });
  }
  H.filters = readFilters();
  search();
}

start();
