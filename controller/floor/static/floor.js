// railguard floor console: the room live over server-sent events. No framework, no build
// step; every value from the network goes into the page as text, never as HTML.
"use strict";
// el(): pages.js, loaded first

const S = { me: null, tiles: new Map(), feed: [], stream: null };

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (S.me) headers["X-CSRF-Token"] = S.me.csrf;
  const r = await fetch(path, { method, headers, credentials: "same-origin",
                                body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (_e) { data = { ok: false, reason: text }; }
  return { status: r.status, data };
}

function since(ts) {
  if (!ts) return "never";
  const s = Math.max(0, Math.round(Date.now() / 1000 - ts));
  return s < 60 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

function beep() {
  try {
    const ctx = new AudioContext();
    const o = ctx.createOscillator();
    o.frequency.value = 880; o.connect(ctx.destination); o.start(); o.stop(ctx.currentTime + 0.3);
  } catch (_e) { /* no audio on this device */ }
}

function alertItem(a, withAck) {
  const li = el("li", { class: `alert sev-${a.severity}`, "data-alert-id": a.alert_id },
    el("span", { class: "code" }, a.code), " ", el("span", { class: "severity" }, a.severity),
    a.seat ? ` seat ${a.seat}` : "",
    el("div", { class: "clause" }, `clause ${a.clause}`),
    el("div", { class: "remedy" }, a.remedy));
  if (withAck && S.me && S.me.role !== "viewer") {
    const b = el("button", { class: "ack", "data-alert-id": a.alert_id }, "Acknowledge");
    b.addEventListener("click", () => ack(a));
    li.append(b);
  }
  return li;
}

function renderTile(t) {
  const st = t.state || {};
  const blinds = (l) => `${l.small_blind}/${l.big_blind}${l.ante ? ` ante ${l.ante}` : ""}`;
  const lvl = st.level ? blinds(st.level) + (st.pending_level
    ? ` (next hand: ${blinds(st.pending_level)})` : "") : "";
  const players = (st.seats || []).filter((s) => s.status !== "empty").length;
  const div = el("article", { class: `tile ${t.status}${t.alerts.length ? " has-alert" : ""}`,
                              "data-table": t.key },
    el("h3", {}, el("span", { class: "name" }, t.key),
       el("span", { class: "status" }, t.status)));
  const dl = el("dl");
  const row = (k, v, cls) => { dl.append(el("dt", {}, k), el("dd", { class: cls }, v)); };
  row("last seen", since(t.last_seen), "last-seen");
  row("hand", st.hand_no ?? "–", "hand-no");
  row("street", st.street ?? "–", "street");
  row("pot", st.pot ?? "–", "pot");
  row("to act", st.to_act ? `seat ${st.to_act}` : "–", "to-act");
  row("button", st.button ? `seat ${st.button}` : "–", "button-seat");
  row("players", players, "players");
  row("level", lvl || "–", "level");
  row("profile", st.profile ?? "–", "profile");
  row("badge reader", st.badge_reader ?? "–", "badge-reader");
  row("dealer", st.dealer ?? "–", "dealer");
  const sto = st.storage;
  const reasons = sto ? sto.reasons.map((r) => `${r.code}: ${r.detail}`).join("; ") : "";
  row("storage", sto ? sto.health + (reasons ? ` (${reasons})` : "") : "–",
      `storage${sto && sto.health !== "ok" ? " storage-degraded" : ""}`);
  div.append(dl);
  const ul = el("ul", { class: "alerts" });
  for (const a of t.alerts) ul.append(alertItem(a, true));
  div.append(ul);
  return div;
}

function renderTables() {
  const sel = document.getElementById("seat-table");
  const keys = [...S.tiles.keys()].sort();
  if ([...sel.options].map((o) => o.value).join() === keys.join()) return;
  const was = sel.value;
  sel.replaceChildren(...keys.map((k) => el("option", { value: k }, k)));
  if (keys.includes(was)) sel.value = was;
}

function renderRoom() {
  renderTables();
  const room = document.getElementById("room");
  room.replaceChildren(...[...S.tiles.values()].sort((a, b) => a.key.localeCompare(b.key))
    .map(renderTile));
  document.dispatchEvent(new CustomEvent("floor:tiles"));  // actions.js: its table lists
}

// A tile's change redraws that tile alone, once per frame however many messages came: a
// festival room (500 tables, thousands of state messages a second) redrawn whole for each
// message kept the page tens of seconds behind the room (bench/fleet.py).
const dirty = new Set();
let frame = 0;

function tileChanged(key) {
  dirty.add(key);
  if (!frame) frame = requestAnimationFrame(flushTiles);
}

function flushTiles() {
  frame = 0;
  const room = document.getElementById("room");
  const shown = new Map([...room.children].map((e) => [e.dataset.table, e]));
  let added = false;
  for (const key of dirty) {
    const t = S.tiles.get(key);
    const old = shown.get(key);
    if (!t) { if (old) old.remove(); continue; }
    if (old) old.replaceWith(renderTile(t)); else added = true;
  }
  dirty.clear();
  if (added) renderRoom();  // a new table: its place in the order
}

function renderFeed() {
  const ol = document.getElementById("feed");
  ol.replaceChildren(...S.feed.map((a) => {
    const li = el("li", { class: a.acked_by ? "acked" : "", "data-alert-id": a.alert_id },
      `${a.venue}/${a.table} `, el("b", {}, a.code), ` (${a.severity}) `, a.remedy);
    if (a.acked_by) li.append(el("span", { class: "by" }, ` acknowledged by ${a.acked_by}`));
    return li;
  }));
}

function onEvent(ev) {
  const m = JSON.parse(ev.data);
  if (m.type === "snapshot") {
    S.tiles = new Map(m.tiles.map((t) => [t.key, t]));
    S.feed = m.feed;
    renderRoom(); renderFeed();
  } else if (m.type === "tile") {
    S.tiles.set(m.tile.key, m.tile); tileChanged(m.tile.key);
  } else if (m.type === "alert") {
    S.feed.unshift({ ...m.alert, acked_by: null }); S.feed.length = Math.min(S.feed.length, 200);
    renderFeed();
    if (m.alert.severity === "critical") beep();
  } else if (m.type === "ack") {
    for (const a of S.feed) {
      if (a.alert_id === m.alert_id && `${a.venue}/${a.table}` === m.key) a.acked_by = m.by;
    }
    renderFeed();
  }
}

function say(text) { document.getElementById("response").textContent = text; }

async function ack(a) {
  const r = await api("POST", "/api/ack", { venue: a.venue, table: a.table,
                                            alert_id: a.alert_id });
  if (r.status !== 200) say(`refused (${r.status}): ${r.data.reason}`);
  else if (r.data.ok) say(`${a.table}: ${a.code} acknowledged`);
  else say(`${a.table}: the table refused: ${r.data.reason}`);
}

async function searchHands(e) {
  if (e) e.preventDefault();
  const table = document.getElementById("hand-table").value.trim();
  const r = await api("GET", `/api/hands${table ? `?table=${encodeURIComponent(table)}` : ""}`);
  const body = document.querySelector("#hands tbody");
  if (r.status !== 200) { say(`hand search: ${r.data.reason}`); return; }
  body.replaceChildren(...r.data.hands.map((h) => el("tr", { "data-hand-id": h.hand_id },
    el("td", {}, h.hand_id), el("td", {}, h.table), el("td", {}, h.hand_no),
    el("td", {}, new Date(h.ended_at * 1000).toLocaleTimeString()), el("td", {}, h.dealer_id ?? "–"))));
}

function connect() {
  if (S.stream) S.stream.close();
  const link = document.getElementById("link");
  S.stream = new EventSource("/api/stream");
  S.stream.onopen = () => { link.textContent = "live"; link.className = "link live"; };
  S.stream.onerror = () => { link.textContent = "reconnecting…"; link.className = "link"; };
  S.stream.onmessage = onEvent;
}

function show(me) {
  S.me = me;
  document.getElementById("login").hidden = !!me;
  document.getElementById("console").hidden = !me;
  document.getElementById("logout").hidden = !me;
  document.getElementById("actions").hidden = !me || me.role === "viewer";
  document.getElementById("who").textContent = me ? `${me.user} (${me.role})` : "";
  document.dispatchEvent(new CustomEvent("floor:me", { detail: me }));  // actions.js
  if (me) connect();
}

async function start() {
  document.getElementById("login").addEventListener("submit", async (e) => {
    e.preventDefault();
    const r = await api("POST", "/api/login", { user: document.getElementById("user").value,
      password: document.getElementById("password").value });
    if (r.status === 200) show(r.data);
    else document.getElementById("login-error").textContent = r.data.reason;
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await api("POST", "/api/logout"); if (S.stream) S.stream.close(); show(null);
  });
  document.getElementById("hand-search").addEventListener("submit", searchHands);
  // the seat form's handler: actions.js (with the other floor actions)
  setInterval(() => { if (S.me) renderRoom(); }, 5000);  // "last seen" ages
  const r = await api("GET", "/api/me");
  show(r.status === 200 ? r.data : null);
}

start();
