// railguard floor console: the room live over server-sent events. No framework, no build
// step; every value from the network goes into the page as text, never as HTML.
"use strict";

// el(), getJSON(): pages.js; the room's tiles: room.js; sound and flashes: sound.js
const S = { me: null, tiles: new Map(), feed: [], stream: null, link: null, linkState: "connecting",
  skew: 0, lostAt: null, open: null, settings: { escalate_after_s: 60, stale_after_s: 0 } };

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

function renderTables() {
  const sel = document.getElementById("seat-table");
  const tiles = [...S.tiles.values()].sort((a, b) => ((a.number ?? 1e9) - (b.number ?? 1e9))
    || a.key.localeCompare(b.key));
  const keys = tiles.map((t) => t.key);
  if ([...sel.options].map((o) => o.value).join() !== keys.join()) {
    const was = sel.value;
    sel.replaceChildren(...tiles.map((t) => el("option", { value: t.key }, `${label(t)} (${t.key})`)));
    if (keys.includes(was)) sel.value = was;
  }
  const names = document.getElementById("table-names");
  names.replaceChildren(...tiles.map((t) => el("option", { value: t.name })));
  document.dispatchEvent(new CustomEvent("floor:tiles"));  // actions.js: its table lists
}

// the room's open alerts, newest first; an alert the table closed leaves it
function renderFeed() {
  const ol = document.getElementById("feed");
  keyed(ol, S.feed, (a) => `${a.venue}/${a.table}/${a.alert_id}`, (a) => {
    const li = el("li", {}, el("time", { class: "ftime" }), " ", el("span", { class: "ftable" }),
      " ", el("b", { class: "fcode" }), " ", el("span", { class: "fsev" }), el("span", { class: "fwhere" }),
      el("div", { class: "fremedy" }));
    li.addEventListener("click", () => { if (S.open !== `${a.venue}/${a.table}`) toggleOpen(`${a.venue}/${a.table}`); });
    return li;
  }, (li, a) => {
    const t = S.tiles.get(`${a.venue}/${a.table}`);
    setClass(li, `sev-${a.severity}`);
    setAttr(li, "data-alert-id", a.alert_id);
    setText(li.querySelector(".ftime"), clock(a.ts));
    setAttr(li.querySelector(".ftime"), "datetime", new Date(a.ts * 1000).toISOString());
    setText(li.querySelector(".ftable"), label(t || { ...a, name: a.name || a.table }));
    setText(li.querySelector(".fcode"), a.code);
    setText(li.querySelector(".fsev"), `(${a.severity})`);
    setText(li.querySelector(".fwhere"), `${a.seat ? ` seat ${a.seat}` : ""}${a.hand_no
      ? ` hand ${a.hand_no}` : ""}`);
    setText(li.querySelector(".fremedy"), a.remedy);
  });
}

// the header: the console's own link to the broker, and how old what the page shows is
function showLink() {
  const e = document.getElementById("link");
  const l = S.link || {};
  let text;
  if (S.linkState === "console-down") {
    text = `console unreachable${S.lostAt ? ` since ${clock(S.lostAt)} (${age(S.lostAt)})` : ""}:`
      + " reconnecting…; the room shown is not current";
  } else if (S.linkState === "broker-down") {
    text = `broker lost${l.since ? ` since ${clock(l.since)} (${age(l.since)})` : ""}${l.reason
      ? `: ${l.reason}` : ""}; the room shown is ${l.last_message ? `${age(l.last_message)} old`
      : "empty"}`;
  } else if (S.linkState === "live") {
    text = `broker connected · last message ${l.last_message ? `${age(l.last_message)} ago`
      : "none yet"}`;
  } else text = "connecting…";
  setText(e, text);
  setClass(e, `link ${S.linkState}`);
  setAttr(e, "data-state", S.linkState);
}

function setLink(link, now) {
  if (now) S.skew = now - Date.now() / 1000;
  if (link) S.link = link;
  const before = S.linkState;
  S.linkState = S.link && S.link.connected ? "live" : "broker-down";
  showLink();
  if (before !== S.linkState) allChanged();
}

function onEvent(ev) {
  const m = JSON.parse(ev.data);
  if (m.type === "snapshot") {
    S.settings = m.settings || S.settings;
    S.tiles = new Map(m.tiles.map((t) => [t.key, t]));
    S.feed = m.feed;
    S.lostAt = null;
    setLink(m.link, m.now);
    for (const k of R.els.keys()) if (!S.tiles.has(k)) R.dirty.add(k);  // gone meanwhile
    allChanged(); renderTables(); renderFeed();
  } else if (m.type === "tile") {
    const isNew = !S.tiles.has(m.tile.key);
    S.tiles.set(m.tile.key, m.tile);
    tileChanged(m.tile.key);
    if (isNew) renderTables();
    if (m.tile.last_seen && S.link) { S.link.last_message = m.tile.last_seen; }
  } else if (m.type === "alert") {
    S.feed.unshift(m.alert); S.feed.length = Math.min(S.feed.length, 200);
    renderFeed();
    alarm(m.alert);
  } else if (m.type === "ack") {
    S.feed = S.feed.filter((a) => !(a.alert_id === m.alert_id && `${a.venue}/${a.table}` === m.key));
    renderFeed();
  } else if (m.type === "link") {
    setLink(m.link, m.now);
  }
}

function say(text) { document.getElementById("response").textContent = text; }

// what the floor types for a table: its name or number from the venue file, its id or
// venue/id, in any case; the hand store knows the id
function tableQuery(typed) {
  const q = typed.trim().replace(/^#/, "").toLowerCase();
  if (!q) return "";
  for (const t of S.tiles.values()) {
    if ([t.name, t.number, t.table, t.key, label(t)].some((x) => x !== null && x !== undefined
      && String(x).toLowerCase() === q)) {
      return `table=${encodeURIComponent(t.table)}&venue=${encodeURIComponent(t.venue)}`;
    }
  }
  return `table=${encodeURIComponent(typed.trim())}`;
}

async function searchHands(e) {
  if (e) e.preventDefault();
  const query = tableQuery(document.getElementById("hand-table").value);
  const r = await api("GET", `/api/hands${query ? `?${query}` : ""}`);
  const body = document.querySelector("#hands tbody");
  if (r.status !== 200) { say(`hand search: ${r.data.reason}`); return; }
  body.replaceChildren(...r.data.hands.map((h) => el("tr", { "data-hand-id": h.hand_id },
    el("td", {}, h.hand_id), el("td", {}, h.table), el("td", {}, h.hand_no),
    el("td", {}, new Date(h.ended_at * 1000).toLocaleTimeString()), el("td", {}, h.dealer_id ?? "–"))));
}

function connect() {
  if (S.stream) S.stream.close();
  S.stream = new EventSource("/api/stream");
  S.stream.onerror = () => {  // the page lost the console itself: nothing shown is current
    if (S.linkState !== "console-down") { S.lostAt = Date.now() / 1000 + S.skew; }
    S.linkState = "console-down"; showLink(); allChanged();
    if (S.stream.readyState === EventSource.CLOSED) setTimeout(reconnect, 3000);
  };
  S.stream.onmessage = onEvent;
}

// the browser gave up on the stream (an answer that was not a stream: the console restarted
// and forgot the session, or a proxy's error page): log in again, or try again
async function reconnect() {
  if (!S.me) return;
  const r = await api("GET", "/api/me");
  if (r.status === 401) {
    show(null);
    document.getElementById("login-error").textContent = "The console restarted: log in again.";
  } else connect();
}

function show(me) {
  S.me = me;
  // another user (another role): the room is drawn again, with their buttons or none
  document.getElementById("room").replaceChildren();
  R.levels.clear(); R.els.clear();
  document.getElementById("login").hidden = !!me;
  document.getElementById("console").hidden = !me;
  document.getElementById("logout").hidden = !me;
  document.getElementById("actions").hidden = !me || me.role === "viewer";
  document.getElementById("who").textContent = me ? `${me.user} (${me.role})` : "";
  document.dispatchEvent(new CustomEvent("floor:me", { detail: me }));  // actions.js
  if (me) connect();
  if (me) requestAnimationFrame(fitRoom);
}

async function start() {
  document.getElementById("login").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (document.getElementById("arm-sound").checked) soundArm(); else soundDisarm();
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
  roomInit();
  soundInit();
  setInterval(() => { if (S.me) showLink(); }, 1000);  // the ages in the header
  const r = await api("GET", "/api/me");
  show(r.status === 200 ? r.data : null);
}

start();
