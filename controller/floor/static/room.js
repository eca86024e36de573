// railguard floor console: the room view. One small tile a table, coloured by its worst open
// alert, the most urgent first; a click opens the table (seat map, details, its alerts
// grouped, acknowledge all). Every change is applied to the elements already on the page
// (text, classes, attributes): an element is created once and removed only when what it
// shows is gone, so nothing under the pointer is replaced by an update. Uses floor.js's S,
// api, say and pages.js's el.
"use strict";

const SEVERITY = { critical: 4, error: 3, warning: 2, info: 1 };
// the room's order: escalated critical, critical, error, warning, offline, info, quiet
const BAND = { escalated: 0, critical: 1, error: 2, warning: 3, offline: 4, info: 5, quiet: 6 };
const HOLD_MS = 4000;  // the order waits while the pointer is on the room, this long after
const R = { els: new Map(), levels: new Map(), holdUntil: 0, orderTimer: 0, dirty: new Set(), frame: 0, fit: 0 };

function nowS() { return Date.now() / 1000 + (S.skew || 0); }  // the console's clock

function age(ts) {
  if (!ts) return "";
  const s = Math.max(0, Math.round(nowS() - ts));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function clock(ts) {
  return ts ? new Date(ts * 1000).toLocaleTimeString([], { hour12: false }) : "";
}

// "Main 1", "6 Feature" (a name without its number gets it in front), or the table's id
function label(t) {
  return t.number && !t.name.includes(String(t.number)) ? `${t.number} ${t.name}` : t.name;
}

// ---- what a tile says ----------------------------------------------------------------

function escalated(a) {
  return a.severity === "critical" && nowS() - a.received >= S.settings.escalate_after_s;
}

function groupsOf(t) {
  // repeats: the same code at the same seat, however many hands
  const m = new Map();
  for (const a of t.alerts) {
    const k = `${a.code}|${a.seat ?? ""}`;
    let g = m.get(k);
    if (!g) { g = { key: k, code: a.code, seat: a.seat, severity: a.severity, alerts: [] }; m.set(k, g); }
    g.alerts.push(a);
    if (SEVERITY[a.severity] > SEVERITY[g.severity]) g.severity = a.severity;
  }
  for (const g of m.values()) {
    g.alerts.sort((x, y) => x.received - y.received);
    g.first = g.alerts[0]; g.last = g.alerts[g.alerts.length - 1];
    g.escalated = g.alerts.some(escalated);
  }
  return [...m.values()].sort((x, y) => (y.escalated - x.escalated)
    || (SEVERITY[y.severity] - SEVERITY[x.severity]) || (y.last.received - x.last.received));
}

function stale(t) {
  if (S.linkState !== "live") return true;  // the console lost the broker, or the page the console
  const l = S.link || {};
  if (!t.last_seen) return true;
  if (l.since && t.last_seen < l.since) return true;  // not heard from since the console reconnected
  const after = S.settings.stale_after_s;
  return !!after && nowS() - t.last_seen > after;
}

function levelOf(t, groups) {
  if (groups.some((g) => g.escalated)) return "escalated";
  const worst = groups[0];
  if (worst && SEVERITY[worst.severity] >= SEVERITY.warning) return worst.severity;
  if (t.status === "offline") return "offline";
  return worst ? worst.severity : "quiet";
}

function orderKey(t) {
  const b = BAND[t.view.level];
  return [b, t.number ?? 1e9, t.name.toLowerCase(), t.key];
}

function cmp(a, b) {
  const x = orderKey(a), y = orderKey(b);
  for (let i = 0; i < x.length; i++) {
    if (x[i] < y[i]) return -1;
    if (x[i] > y[i]) return 1;
  }
  return 0;
}

// ---- small DOM helpers: change only what differs --------------------------------------

function setText(e, text) { const s = String(text ?? ""); if (e.textContent !== s) e.textContent = s; }
function setClass(e, cls) { if (e.className !== cls) e.className = cls; }
function setAttr(e, k, v) { if (e.getAttribute(k) !== String(v)) e.setAttribute(k, v); }
function part(root, cls) { return root.querySelector(`.${cls}`); }

// keyed children: create what is new, update what stays, remove what is gone, keep order
function keyed(parent, items, keyOf, create, update) {
  const have = new Map([...parent.children].map((c) => [c.dataset.key, c]));
  let at = parent.firstElementChild;
  for (const it of items) {
    const k = keyOf(it);
    let e = have.get(k);
    if (e) have.delete(k); else { e = create(it); e.dataset.key = k; }
    update(e, it);
    if (e !== at) parent.insertBefore(e, at); else at = at.nextElementSibling;
  }
  for (const e of have.values()) e.remove();
}

// ---- the tile --------------------------------------------------------------------------

function tileElement(key) {
  const art = el("article", { class: "tile", "data-table": key, "data-key": key },
    el("button", { class: "head", type: "button", "aria-expanded": "false" },
      el("span", { class: "num" }), el("span", { class: "name" }),
      el("span", { class: "tstatus" })),
    el("div", { class: "worst" }, el("span", { class: "wcode" }), el("span", { class: "wcount" }),
      el("span", { class: "wage" })),
    el("div", { class: "meta" }));
  art.querySelector(".head").addEventListener("click", () => toggleOpen(key));
  return art;
}

function updateTile(art, t) {
  const groups = t.view.groups;
  const lvl = t.view.level;
  setClass(art, `tile lvl-${lvl}${t.view.stale ? " stale" : ""}${t.status === "offline"
    ? " offline" : ""}${S.open === t.key ? " open" : ""}`);
  setAttr(art, "data-level", lvl);
  setAttr(art, "data-alert-ids", t.alerts.map((a) => a.alert_id).join(" "));  // its open alerts
  setText(part(art, "num"), t.number ?? "");
  setText(part(art, "name"), t.name);
  // the tile names its status when it is not simply online and current
  setText(part(art, "tstatus"), t.view.stale ? "stale" : t.status === "online" ? "" : t.status);
  setAttr(art, "title", `${label(t)} (${t.key}): ${t.status}${t.view.stale ? ", stale" : ""}`);
  const w = groups[0];
  setText(part(art, "wcode"), w ? w.code : "");
  setText(part(art, "wcount"), w && w.alerts.length > 1 ? `×${w.alerts.length}` : "");
  setText(part(art, "wage"), w ? age(w.first.received) : "");
  const st = t.state || {};
  const players = (st.seats || []).filter((s) => s.status !== "empty").length;
  const open = t.alerts.length;
  setText(part(art, "meta"), [st.hand_no ? `#${st.hand_no}` : "", st.street || "",
    st.seats ? `${players} pl` : "", open > 1 ? `${open} open` : ""].filter(Boolean).join(" · "));
  setAttr(part(art, "head"), "aria-expanded", S.open === t.key ? "true" : "false");
  let det = part(art, "detail");
  if (S.open === t.key) {
    if (!det) { det = detailElement(t); art.append(det); }
    updateDetail(det, t);
  } else if (det) det.remove();
}

// ---- the open table: seat map, details, alerts grouped ---------------------------------

function detailElement(t) {
  const det = el("section", { class: "detail", "aria-label": `table ${label(t)}` },
    el("div", { class: "detail-head" }, el("h3", { class: "dname" }),
      el("button", { class: "close", type: "button", "aria-label": "close" }, "Close")),
    el("div", { class: "dalerts" }, el("div", { class: "group-actions" }), el("ul", { class: "alerts" })),
    el("div", { class: "seatmap", "aria-label": "seats" }),
    el("dl", { class: "facts" }));
  det.querySelector(".close").addEventListener("click", () => toggleOpen(t.key));
  if (S.me && S.me.role !== "viewer") {
    const b = el("button", { class: "ack-all", type: "button", "data-table": t.key });
    b.addEventListener("click", () => ackAll(t.key, null, b));
    det.querySelector(".group-actions").append(b, el("span", { class: "answer", role: "status" }));
  }
  const dl = det.querySelector(".facts");
  for (const [k, cls] of FACTS) dl.append(el("dt", {}, k), el("dd", { class: cls }));
  return det;
}

const FACTS = [["status", "status"], ["last seen", "last-seen"], ["hand", "hand-no"], ["street", "street"],
  ["pot", "pot"], ["to act", "to-act"], ["button", "button-seat"], ["players", "players"],
  ["level", "level"], ["profile", "profile"], ["badge reader", "badge-reader"],
  ["dealer", "dealer"], ["storage", "storage"], ["table id", "table-id"]];

function updateDetail(det, t) {
  const st = t.state || {};
  setText(part(det, "dname"), label(t));
  const blinds = (l) => `${l.small_blind}/${l.big_blind}${l.ante ? ` ante ${l.ante}` : ""}`;
  const lvl = st.level ? blinds(st.level) + (st.pending_level
    ? ` (next hand: ${blinds(st.pending_level)})` : "") : "";
  const players = (st.seats || []).filter((s) => s.status !== "empty").length;
  const sto = st.storage;
  const reasons = sto ? sto.reasons.map((r) => `${r.code}: ${r.detail}`).join("; ") : "";
  const values = {
    status: t.status + (t.view.stale ? " (stale: not heard from since the console's broker link"
      + " was lost or came back)" : ""),
    "last-seen": t.last_seen ? `${clock(t.last_seen)} (${age(t.last_seen)} ago)` : "never",
    "hand-no": st.hand_no ?? "–", street: st.street ?? "–", pot: st.pot ?? "–",
    "to-act": st.to_act ? `seat ${st.to_act}` : "–", "button-seat": st.button ? `seat ${st.button}` : "–",
    players, level: lvl || "–", profile: st.profile ?? "–", "badge-reader": st.badge_reader ?? "–",
    dealer: st.dealer ?? "–", storage: sto ? sto.health + (reasons ? ` (${reasons})` : "") : "–",
    "table-id": t.key,
  };
  for (const [, cls] of FACTS) {
    const dd = det.querySelector(`dd.${cls}`);
    setText(dd, values[cls]);
    if (cls === "storage") setClass(dd, `storage${sto && sto.health !== "ok" ? " storage-degraded" : ""}`);
  }
  seatMap(part(det, "seatmap"), st);
  const all = det.querySelector("button.ack-all");
  if (all) {
    setText(all, `Acknowledge all (${t.alerts.length})`);
    all.hidden = t.alerts.length === 0;
  }
  keyed(part(det, "alerts"), t.view.groups, (g) => g.key, groupElement, updateGroup);
  const said = det.querySelector(".group-actions .answer");  // an answer stays in sight
  part(det, "dalerts").hidden = t.alerts.length === 0 && !(said && said.textContent);
}

function seatMap(box, st) {
  const seats = (st.seats || []).slice().sort((a, b) => a.seat - b.seat);
  const n = Math.max(seats.length ? seats[seats.length - 1].seat : 0, seats.length);
  setAttr(box, "data-seats", n);
  keyed(box, seats, (s) => String(s.seat), () => el("div", { class: "seat" },
    el("span", { class: "sno" }), el("span", { class: "sname" }), el("span", { class: "sstack" }),
    el("span", { class: "sbet" })), (e, s) => {
    const angle = (2 * Math.PI * (s.seat - 1)) / Math.max(n, 1) + Math.PI / 2;
    e.style.left = `${50 + 42 * Math.cos(angle)}%`;
    e.style.top = `${50 + 38 * Math.sin(angle)}%`;
    setClass(e, `seat st-${s.status || "empty"}${st.button === s.seat ? " btn" : ""}${st.to_act
      === s.seat ? " to-act" : ""}`);
    setAttr(e, "data-seat", s.seat);
    setText(part(e, "sno"), `${s.seat}${st.button === s.seat ? " D" : ""}`);
    setText(part(e, "sname"), s.status === "empty" ? "empty" : (s.name || s.player_id || ""));
    setText(part(e, "sstack"), s.status === "empty" ? "" : (s.stack ?? ""));
    setText(part(e, "sbet"), s.bet ? `bet ${s.bet}` : "");
  });
}

function groupElement(g) {
  const li = el("li", {},
    el("div", { class: "gline" }, el("span", { class: "code" }), " ",
      el("span", { class: "severity" }), el("span", { class: "count" }),
      el("span", { class: "gseat" })),
    el("div", { class: "gwhen" }, el("span", { class: "time" }), el("span", { class: "hands" }),
      el("span", { class: "age" })),
    el("div", { class: "clause" }), el("div", { class: "remedy" }));
  if (S.me && S.me.role !== "viewer") {
    const b = el("button", { class: "ack", type: "button" });
    b.addEventListener("click", () => ackAll(li.closest("article").dataset.table,
      li.dataset.key, b));
    li.append(b, el("span", { class: "answer", role: "status" }));
  }
  return li;
}

function updateGroup(li, g) {
  setClass(li, `alert sev-${g.severity}${g.escalated ? " escalated" : ""}`);
  setAttr(li, "data-alert-id", g.last.alert_id);
  setAttr(li, "data-alert-ids", g.alerts.map((a) => a.alert_id).join(" "));
  setAttr(li, "data-count", g.alerts.length);
  setText(part(li, "code"), g.code);
  setText(part(li, "severity"), g.escalated ? "critical, escalated" : g.severity);
  setText(part(li, "count"), g.alerts.length > 1 ? ` ×${g.alerts.length}` : "");
  setText(part(li, "gseat"), g.seat ? ` seat ${g.seat}` : "");
  const hands = [...new Set(g.alerts.map((a) => a.hand_no).filter((h) => h))];
  setText(part(li, "time"), g.alerts.length > 1 ? `${clock(g.first.ts)}–${clock(g.last.ts)}`
    : clock(g.last.ts));
  setText(part(li, "hands"), hands.length ? ` hand ${hands.join(", ")}` : "");
  setText(part(li, "age"), ` open ${age(g.first.received)}`);
  setText(part(li, "clause"), `clause ${g.last.clause}`);
  setText(part(li, "remedy"), g.last.remedy);
  const b = li.querySelector("button.ack");
  if (b) {
    setAttr(b, "data-alert-id", g.last.alert_id);
    setText(b, g.alerts.length > 1 ? `Acknowledge ${g.alerts.length}` : "Acknowledge");
  }
}

// ---- acknowledging: each alert through the console's ack (the table's ack_alert) --------

async function ackAll(key, groupKey, button) {
  const t = S.tiles.get(key);
  if (!t) return;
  const alerts = groupKey ? t.alerts.filter((a) => `${a.code}|${a.seat ?? ""}` === groupKey)
    : t.alerts.slice();
  if (!alerts.length) return;
  button.disabled = true;
  const answer = button.nextElementSibling;
  if (answer) setText(answer, `sending ${alerts.length}…`);
  const refused = [];
  let next = 0;
  async function worker() {
    while (next < alerts.length) {
      const a = alerts[next++];
      const r = await api("POST", "/api/ack", { venue: a.venue, table: a.table, alert_id: a.alert_id });
      if (r.status !== 200) refused.push(`${a.code}: refused (${r.status}): ${r.data.reason}`);
      else if (!r.data.ok) refused.push(`${a.code}: the table refused: ${r.data.reason}`);
    }
  }
  await Promise.all([1, 2, 3, 4].map(worker));
  button.disabled = false;
  const ok = alerts.length - refused.length;
  const what = alerts.length === 1 ? `${alerts[0].code} acknowledged`
    : `${ok} of ${alerts.length} alerts acknowledged`;
  const text = `${label(t)}: ${refused.length && alerts.length === 1 ? "" : what}${refused.length
    ? `${alerts.length === 1 ? "" : "; "}${refused.join("; ")}` : ""}`;
  if (answer && answer.isConnected) { setText(answer, text); tileChanged(key); }
  say(text);
}

// ---- the room: views, order, and drawing ------------------------------------------------

function viewOf(t) {
  const groups = groupsOf(t);
  const v = { groups, stale: stale(t) };
  v.level = levelOf(t, groups);
  return v;
}

function tileChanged(key) {
  R.dirty.add(key);
  if (!R.frame) R.frame = requestAnimationFrame(flushTiles);
}

function allChanged() { for (const k of S.tiles.keys()) R.dirty.add(k); flushTiles(); }

function flushTiles() {
  R.frame = 0;
  const room = document.getElementById("room");
  let reorder = false;
  for (const key of R.dirty) {
    const t = S.tiles.get(key);
    let art = R.els.get(key);  // the tile's element, by key (a search of 500 is not free)
    if (!t) {
      if (art) { art.remove(); reorder = true; }
      R.els.delete(key); R.levels.delete(key);
      continue;
    }
    const before = R.levels.get(key);
    t.view = viewOf(t);
    R.levels.set(key, t.view.level);
    if (!art) { art = tileElement(key); R.els.set(key, art); room.append(art); reorder = true; }
    if (before !== t.view.level) {
      reorder = true;
      if (t.view.level === "escalated") {
        document.dispatchEvent(new CustomEvent("floor:escalated", { detail: t }));
      }
    }
    updateTile(art, t);
  }
  R.dirty.clear();
  if (reorder) { placeTiles(); fitRoom(); }
  summary();
}

function placeTiles() {
  if (Date.now() < R.holdUntil) {  // the pointer is on the room: not now
    clearTimeout(R.orderTimer);
    R.orderTimer = setTimeout(placeTiles, R.holdUntil - Date.now() + 50);
    document.getElementById("room").dataset.held = "true";
    return;
  }
  const room = document.getElementById("room");
  delete room.dataset.held;
  const tiles = [...S.tiles.values()].filter((t) => t.view).sort(cmp);
  let at = room.firstElementChild;
  for (const t of tiles) {
    const e = R.els.get(t.key);
    if (!e) continue;
    if (e !== at) room.insertBefore(e, at); else at = at.nextElementSibling;
  }
  document.dispatchEvent(new CustomEvent("floor:order"));
}

function summary() {
  const n = {};
  for (const t of S.tiles.values()) if (t.view) n[t.view.level] = (n[t.view.level] || 0) + 1;
  const staleN = [...S.tiles.values()].filter((t) => t.view && t.view.stale).length;
  const parts = ["escalated", "critical", "error", "warning", "offline", "info", "quiet"]
    .filter((k) => n[k]).map((k) => `${n[k]} ${k}`);
  if (staleN) parts.push(`${staleN} stale`);
  setText(document.getElementById("room-summary"),
    `${S.tiles.size} table${S.tiles.size === 1 ? "" : "s"}${parts.length ? ": " : ""}${parts.join(" · ")}`);
}

function toggleOpen(key) {
  const was = S.open;
  S.open = was === key ? null : key;
  try { localStorage.setItem("floor:open", S.open || ""); } catch (_e) { /* private mode */ }
  for (const k of [was, S.open]) if (k && S.tiles.has(k)) tileChanged(k);
}

// the largest tile with which every table fits on the screen (not below a minimum: then
// the room scrolls); the density classes hide what a small tile has no room for
function fitRoom() {
  const room = document.getElementById("room");
  if (!room || !room.offsetParent) return;
  const n = Math.max(S.tiles.size, 1);
  const W = room.clientWidth;
  const H = window.innerHeight - (room.getBoundingClientRect().top + window.scrollY) - 12;
  const coarse = window.matchMedia("(pointer: coarse)").matches;
  const min = coarse ? 84 : 62, max = 220, gap = n > 150 ? 3 : 6;
  let w = max;
  for (; w > min; w -= 2) {
    const h = Math.round(w * 0.62);
    const cols = Math.max(1, Math.floor((W + gap) / (w + gap)));
    if (Math.ceil(n / cols) * (h + gap) <= H) break;
  }
  room.style.setProperty("--tile-w", `${w}px`);
  room.style.setProperty("--tile-h", `${Math.round(w * 0.62)}px`);
  room.style.setProperty("--gap", `${gap}px`);
  setClass(room, `room${w < 100 ? " dense" : w < 150 ? " compact" : ""}`);
}

// ages, escalation, staleness: once a second, the texts that changed
function tick() {
  for (const t of S.tiles.values()) {
    if (!t.view) continue;
    if (t.alerts.length || S.open === t.key || stale(t) !== t.view.stale) tileChanged(t.key);
  }
}

function holdOrder() { R.holdUntil = Date.now() + HOLD_MS; }

function roomInit() {
  const room = document.getElementById("room");
  for (const ev of ["pointermove", "pointerdown", "focusin", "wheel"]) room.addEventListener(ev, holdOrder, { passive: true });
  window.addEventListener("resize", () => { clearTimeout(R.fit); R.fit = setTimeout(fitRoom, 100); });
  try { S.open = localStorage.getItem("floor:open") || null; } catch (_e) { S.open = null; }
  setInterval(tick, 1000);
}
