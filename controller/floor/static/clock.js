// The players' screen: the tournament clock, read once a second from /api/event/clock
// (the tournament service's retained clock topic, as the console last received it). Between
// two readings the time left counts down locally; a paused clock stands still.
"use strict";

const params = new URLSearchParams(location.search);
const eventName = params.get("event") || "";
let last = null;
let readAt = 0;

function mmss(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${two(m)}:${two(r)}`;
}

function levelText(lv) {
  if (!lv) return "";
  if (lv.break) return lv.label;
  const ante = lv.ante ? ` · ante ${lv.ante.toLocaleString("en")}` +
    (lv.big_blind_ante ? " (big blind ante)" : "") : "";
  return `Level ${lv.level} · blinds ${lv.small_blind.toLocaleString("en")}/` +
    `${lv.big_blind.toLocaleString("en")}${ante}`;
}

function show() {
  const el = (id) => document.getElementById(id);
  if (!last) return;
  const running = last.started && !last.paused;
  const left = last.seconds_left - (running ? (Date.now() - readAt) / 1000 : 0);
  el("clock-event").textContent = last.event;
  el("clock-level").textContent = levelText(last.level);
  el("clock-time").textContent = mmss(left);
  el("clock-state").textContent = !last.started ? "not started" : last.paused ? "paused" : "";
  el("clock-next").textContent = last.next ? `Next: ${levelText(last.next)}` : "Last level";
  el("clock-players").textContent = last.players_left.toLocaleString("en");
  el("clock-average").textContent = last.average.toLocaleString("en");
  document.body.classList.toggle("on-break", !!(last.level && last.level.break));
}

async function poll() {
  try {
    const q = eventName ? `?event=${encodeURIComponent(eventName)}` : "";
    const r = await fetch(`/api/event/clock${q}`, { cache: "no-store" });
    if (r.ok) {
      const body = await r.json();
      if (body) {
        last = body;
        readAt = Date.now();
      }
    }
  } catch (e) {
    // the console restarting: keep the last reading and try again
  }
  show();
}

poll();
setInterval(poll, 1000);
setInterval(show, 250);
