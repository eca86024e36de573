// railguard floor console: the floor's actions (seat, unseat, move, button draw; the
// director's room level and table profile), each sent through the console to the tables'
// venue commands, and every answer shown beside the control that was used (and listed under
// "Answers"). The console checks each command against the table's real seats and for sense
// before it sends (controller/link/command_checks.py, the checks the table runs too); a room
// level is confirmed first, naming how many tables it changes. Uses floor.js's S, api, el
// and say. The server checks the role and the CSRF token of every request.
"use strict";

const A = { maxDoc: 8192, profiles: [], level: null };

function byId(id) { return document.getElementById(id); }

// the answer beside a form's button: an <output> made once per form
function answerOf(formId) {
  const form = byId(formId);
  let out = form.querySelector("output.answer");
  if (!out) {
    out = el("output", { class: "answer", id: `${formId}-answer`, role: "status",
      "aria-live": "polite" });
    form.append(out);
  }
  return out;
}

function beside(formId, ok, text) {
  const out = answerOf(formId);
  out.className = `answer ${ok ? "ok" : "refused"}`;
  out.textContent = text;
}
function num(id) { return Number(byId(id).value); }
function split(key) { const [venue, table] = key.split("/"); return { venue, table }; }

function answers(items) {
  byId("answers").hidden = false;
  byId("action-results").replaceChildren(...items.map((it) => el("li",
    { class: it.ok ? "ok" : "refused", "data-table": it.table || "" }, it.text)));
}

function refusal(r) {
  // the console's own refusal: its checks (400, 409: a sentence) or the role, the token,
  // the size (403, 413 ...); else the table's (ok false)
  if (r.status === 400 || r.status === 409) return r.data.reason;
  return r.status !== 200 ? `refused (${r.status}): ${r.data.reason}` : r.data.reason;
}

async function seatPlayer(e) {
  e.preventDefault();
  const key = byId("seat-table").value, { table } = split(key);
  const v = (id) => byId(id).value;
  const n = Number(v("seat-no"));
  const r = await api("POST", "/api/seat", { ...split(key), seat: n, player_id: v("seat-player"),
    name: v("seat-name"), stack: Number(v("seat-stack")) });
  const ok = r.status === 200 && r.data.ok;
  let text;
  if (ok) text = `${table}: seat ${n}: ${v("seat-name")} seated`;
  else if (r.status === 200) text = `${table}: the table refused the seat: ${r.data.reason}`;
  else text = `${table}: seat ${n} refused: ${refusal(r)}`;
  say(text);
  beside("seat-form", ok, text);
}

function stepText(s) {
  if (!s.ok) return `${s.table}: ${s.command} refused: ${s.reason}`;
  if (s.command === "unseat") return `${s.table}: seat ${s.data.seat} unseated`;
  if (s.command === "seat") return `${s.table}: seated in seat ${s.data.seat}`;
  if (s.command === "set_level") {
    return `${s.table}: level ${s.data.level} ${s.data.applies === "now" ? "now"
      : "from the next hand"}`;
  }
  return `${s.table}: ${s.command} ok`;
}

async function unseat(e) {
  e.preventDefault();
  const key = byId("unseat-table").value, seat = num("unseat-seat");
  const r = await api("POST", "/api/unseat", { ...split(key), seat });
  if (r.status === 200 && r.data.ok) {
    const d = r.data.data || {};
    const who = d.name ? `${d.name} unseated (stack ${d.stack})` : "unseated";
    say(`${key}: seat ${seat}: ${who}`);
    answers([{ ok: true, table: key, text: `${key}: seat ${seat}: ${who}` }]);
    beside("unseat-form", true, `${key}: seat ${seat}: ${who}`);
  } else {
    say(`${key}: unseat refused: ${refusal(r)}`);
    answers([{ ok: false, table: key, text: `${key}: unseat refused: ${refusal(r)}` }]);
    beside("unseat-form", false, `${key}: unseat refused: ${refusal(r)}`);
  }
}

async function move(e) {
  e.preventDefault();
  const from = byId("move-from-table").value, to = byId("move-to-table").value;
  const a = num("move-from-seat"), b = num("move-to-seat");
  const t = split(to);
  const r = await api("POST", "/api/move", { ...split(from), from_seat: a, to_seat: b,
    to_venue: t.venue, to_table: t.table });
  const what = `${from} seat ${a} to ${to} seat ${b}`;
  if (r.status === 200 && r.data.ok) say(`moved: ${what}`);
  else say(`move ${what} refused: ${refusal(r)}`);
  const steps = (r.data.steps || []).map((s) => ({ ok: s.ok, table: s.table, text: stepText(s) }));
  if (!steps.length) {
    steps.push({ ok: r.status === 200 && r.data.ok, table: from,
      text: r.status === 200 && r.data.ok ? `${from}: moved seat ${a} to seat ${b}`
        : `${from}: move refused: ${refusal(r)}` });
  }
  answers(steps);
  const ok = r.status === 200 && r.data.ok;
  beside("move-form", ok, ok ? `moved: ${what}` : `move ${what} refused: ${refusal(r)}`);
}

async function draw(e) {
  e.preventDefault();
  const key = byId("draw-table").value;
  const r = await api("POST", "/api/button_draw", split(key));
  const ok = r.status === 200 && r.data.ok;
  const text = ok ? `${key}: button draw started (${r.data.data.draw_rule}): one card face up`
    + " to each seat" : `${key}: button draw refused: ${refusal(r)}`;
  say(text);
  answers([{ ok, table: key, text }]);
  beside("draw-form", ok, text);
}

function onlineTables() {
  return [...S.tiles.values()].filter((t) => t.status !== "offline").length;
}

function confirmBox(show, text) {
  let box = byId("level-confirm-box");
  if (!box) {
    box = el("span", { id: "level-confirm-box", class: "confirm", role: "alertdialog" },
      el("span", { id: "level-confirm-text" }, ""),
      el("button", { id: "level-confirm", type: "button" }, "Confirm"),
      el("button", { id: "level-cancel", type: "button" }, "Cancel"));
    byId("level-button").after(box);
    byId("level-confirm").addEventListener("click", sendLevel);
    byId("level-cancel").addEventListener("click", () => {
      A.level = null; confirmBox(false, ""); beside("level-form", false, "level not changed");
    });
  }
  box.hidden = !show;
  byId("level-confirm-text").textContent = text;
}

function roomLevel(e) {
  // first step: name what changes and how many tables, and wait for the confirmation
  e.preventDefault();
  const body = { level: num("level-no"), small_blind: num("level-sb"),
    big_blind: num("level-bb"), ante: num("level-ante") };
  if (byId("level-bba").checked) body.big_blind_ante = true;
  const n = onlineTables();
  body.tables = n;
  A.level = body;
  answerOf("level-form").textContent = "";
  confirmBox(true, `Set level ${body.level} (${body.small_blind}/${body.big_blind}, ante`
    + ` ${body.ante}${body.big_blind_ante ? ", big blind ante" : ""}) at ${n}`
    + ` table${n === 1 ? "" : "s"}?`);
}

async function sendLevel() {
  const body = A.level;
  if (!body) return;
  A.level = null;
  confirmBox(false, "");
  const r = await api("POST", "/api/room/level", body);
  if (r.status !== 200) {
    say(`room level refused: ${refusal(r)}`);
    answers([{ ok: false, table: "", text: `room level refused: ${refusal(r)}` }]);
    beside("level-form", false, `room level refused: ${refusal(r)}`);
    return;
  }
  const res = r.data.results || [];
  const set = res.filter((x) => x.ok).length;
  const text = `level ${body.level} (${body.small_blind}/${body.big_blind}, ante ${body.ante}):`
    + ` set at ${set} of ${res.length} tables${r.data.ok ? "" : `; ${r.data.reason}`}`;
  say(text);
  answers(res.map((s) => ({ ok: s.ok, table: s.table, text: stepText(s) })));
  beside("level-form", r.data.ok, [text, ...res.map(stepText)].join("\n"));
}

async function setProfile(e) {
  e.preventDefault();
  const key = byId("profile-table").value, name = byId("profile-name").value;
  profileAnswer(key, name, await api("POST", "/api/profile", { ...split(key), profile: name }));
}

function profileAnswer(key, name, r) {
  const ok = r.status === 200 && r.data.ok;
  const when = ok && r.data.data.applies === "now" ? "now" : "from the next hand";
  const text = ok ? `${key}: profile ${r.data.data.profile} applies ${when}`
    : `${key}: profile ${name} refused: ${refusal(r)}`;
  say(text);
  answers([{ ok, table: key, text }]);
  beside("profile-form", ok, text);
}

function showSummary(ok, text) {
  const pre = byId("house-summary");
  pre.className = ok ? "summary" : "summary refused";
  pre.textContent = text;
}

function houseDoc() {
  const doc = byId("house-doc").value;
  const size = new TextEncoder().encode(doc).length;
  if (size > A.maxDoc) {
    showSummary(false, `house profile: ${size} bytes; a profile document is at most`
      + ` ${A.maxDoc} bytes`);
    return null;
  }
  return doc;
}

async function checkHouse() {
  const doc = houseDoc();
  if (doc === null) return false;
  const r = await api("POST", "/api/profile/check", { document: doc });
  if (r.status !== 200 || !r.data.ok) { showSummary(false, refusal(r)); return false; }
  const p = r.data.profile;
  showSummary(true, `${p.name}: ${p.title} (${p.rulebook})\n` + Object.entries(p)
    .filter(([k]) => !["name", "title", "rulebook"].includes(k))
    .map(([k, v]) => `${k} = ${v}`).join("\n"));
  return true;
}

async function sendHouse(e) {
  e.preventDefault();
  if (!(await checkHouse())) return;  // the console's own check first
  const key = byId("profile-table").value;
  const r = await api("POST", "/api/profile", { ...split(key), document: byId("house-doc").value });
  profileAnswer(key, "(house)", r);
}

async function loadFile() {
  const f = byId("house-file").files[0];
  if (!f) return;
  if (f.size > A.maxDoc) {
    showSummary(false, `${f.name}: ${f.size} bytes; a profile document is at most ${A.maxDoc}`
      + " bytes");
    return;
  }
  byId("house-doc").value = await f.text();
  await checkHouse();
}

function fillTables() {
  const keys = [...S.tiles.keys()].sort();
  for (const sel of document.querySelectorAll("select.table-select")) {
    if ([...sel.options].map((o) => o.value).join() === keys.join()) continue;
    const was = sel.value;
    sel.replaceChildren(...keys.map((k) => el("option", { value: k }, k)));
    if (keys.includes(was)) sel.value = was;
  }
}

async function onMe(me) {
  const acts = !!me && me.role !== "viewer";
  byId("table-actions").hidden = !acts;
  byId("director-actions").hidden = !me || me.role !== "director";
  if (!acts) { byId("answers").hidden = true; byId("action-results").replaceChildren(); }
  if (!me || me.role !== "director") return;
  const r = await api("GET", "/api/profiles");
  if (r.status !== 200) return;
  A.maxDoc = r.data.max_document_bytes;
  const sel = byId("profile-name");
  sel.replaceChildren(...r.data.packaged.map((n) => el("option", { value: n }, n)));
}

byId("seat-form").addEventListener("submit", seatPlayer);
byId("unseat-form").addEventListener("submit", unseat);
byId("move-form").addEventListener("submit", move);
byId("draw-form").addEventListener("submit", draw);
byId("level-form").addEventListener("submit", roomLevel);
byId("profile-form").addEventListener("submit", setProfile);
byId("house-form").addEventListener("submit", sendHouse);
byId("house-check").addEventListener("click", checkHouse);
byId("house-file").addEventListener("change", loadFile);
document.addEventListener("floor:tiles", fillTables);
document.head.append(el("link", { rel: "stylesheet", href: "/static/actions.css" }));
document.addEventListener("floor:me", (e) => { onMe(e.detail); });
if (S.me) onMe(S.me);  // logged in before this script ran
