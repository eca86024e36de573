// railguard floor console: the floor's actions (unseat, move, button draw; the director's
// room level and table profile), each sent through the console to the tables' venue
// commands, and every table's answer shown. Uses floor.js's S, api, el and say. The server
// checks the role and the CSRF token of every request whatever this page shows.
"use strict";

const A = { maxDoc: 8192, profiles: [] };

function byId(id) { return document.getElementById(id); }
function num(id) { return Number(byId(id).value); }
function split(key) { const [venue, table] = key.split("/"); return { venue, table }; }

function answers(items) {
  byId("answers").hidden = false;
  byId("action-results").replaceChildren(...items.map((it) => el("li",
    { class: it.ok ? "ok" : "refused", "data-table": it.table || "" }, it.text)));
}

function refusal(r) {
  // the console's own refusal (403, 400, 413 ...) or the table's (ok false)
  return r.status !== 200 ? `refused (${r.status}): ${r.data.reason}` : r.data.reason;
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
  } else {
    say(`${key}: unseat refused: ${refusal(r)}`);
    answers([{ ok: false, table: key, text: `${key}: unseat refused: ${refusal(r)}` }]);
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
}

async function roomLevel(e) {
  e.preventDefault();
  const body = { level: num("level-no"), small_blind: num("level-sb"),
    big_blind: num("level-bb"), ante: num("level-ante"), big_blind_ante: byId("level-bba").checked };
  const r = await api("POST", "/api/room/level", body);
  if (r.status !== 200) {
    say(`room level refused: ${refusal(r)}`);
    answers([{ ok: false, table: "", text: `room level refused: ${refusal(r)}` }]);
    return;
  }
  const res = r.data.results || [];
  const set = res.filter((x) => x.ok).length;
  say(`level ${body.level} (${body.small_blind}/${body.big_blind}, ante ${body.ante}): set at`
    + ` ${set} of ${res.length} tables${r.data.ok ? "" : `; ${r.data.reason}`}`);
  answers(res.map((s) => ({ ok: s.ok, table: s.table, text: stepText(s) })));
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

byId("unseat-form").addEventListener("submit", unseat);
byId("move-form").addEventListener("submit", move);
byId("draw-form").addEventListener("submit", draw);
byId("level-form").addEventListener("submit", roomLevel);
byId("profile-form").addEventListener("submit", setProfile);
byId("house-form").addEventListener("submit", sendHouse);
byId("house-check").addEventListener("click", checkHouse);
byId("house-file").addEventListener("change", loadFile);
document.addEventListener("floor:tiles", fillTables);
document.addEventListener("floor:me", (e) => { onMe(e.detail); });
if (S.me) onMe(S.me);  // logged in before this script ran
