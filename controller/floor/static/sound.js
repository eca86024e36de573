// railguard floor console: sound and light. A screen is armed once (the box at login, or the
// header's Sound button: a click, which browsers require before a page may play sound); the
// choice is kept in localStorage, so after a reload the page tries to play again at once
// and, if the browser still holds the sound back until someone touches the page, says so in
// the header and plays from the first click or key. Two tones (WebAudio, nothing loaded): a
// critical alert a loud two-note alarm, a warning or an error a soft double beep; each with a
// flash of the screen's edge and of the table's tile. A critical alert nobody acknowledged
// for the room's escalate_after_s sounds again every ESCALATE_REPEAT_S, louder each time.
"use strict";

const SOUND = { ctx: null, state: "off", last: null, count: 0, repeats: 0, timer: 0 };
const ESCALATE_REPEAT_S = 15;
const KEY = "floor:sound";

function soundWanted() {
  try { return localStorage.getItem(KEY) === "armed"; } catch (_e) { return false; }
}

function soundShow() {
  const b = document.getElementById("sound");
  if (!b) return;
  const text = { off: "Sound off: click to arm", armed: "Sound armed",
    blocked: "Sound blocked by the browser: click anywhere to allow",
    none: "No sound on this browser" }[SOUND.state];
  const last = SOUND.last ? ` · last ${SOUND.last.kind} ${new Date(SOUND.last.at)
    .toLocaleTimeString([], { hour12: false })}` : "";
  b.textContent = text + last;
  b.className = `sound sound-${SOUND.state}`;
  b.dataset.state = SOUND.state;
  if (SOUND.last) { b.dataset.last = SOUND.last.kind; b.dataset.count = SOUND.count; }
}

// make or wake the audio context; "blocked" when the browser keeps it suspended
async function soundWake() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) { SOUND.state = "none"; soundShow(); return; }
  if (!SOUND.ctx) SOUND.ctx = new Ctx();
  if (SOUND.ctx.state !== "running") {
    // resume() waits for a gesture where one is needed: do not wait for it here
    await Promise.race([SOUND.ctx.resume().catch(() => {}),
      new Promise((ok) => setTimeout(ok, 300))]);
  }
  SOUND.state = SOUND.ctx.state === "running" ? "armed" : "blocked";
  soundShow();
}

function soundArm() {  // from a click: allowed to start the audio
  try { localStorage.setItem(KEY, "armed"); } catch (_e) { /* private mode: this page only */ }
  soundWake();
}

function soundDisarm() {
  try { localStorage.removeItem(KEY); } catch (_e) { /* nothing kept */ }
  if (SOUND.ctx) SOUND.ctx.close();
  SOUND.ctx = null;
  SOUND.state = "off";
  soundShow();
}

// tones: [frequency Hz, start s, length s]; critical a square two-note alarm, warning sine
const TONES = {
  critical: { type: "square", gain: 0.5, notes: [[988, 0, 0.18], [740, 0.2, 0.18], [988, 0.4, 0.18],
    [740, 0.6, 0.18], [988, 0.8, 0.3]] },
  warning: { type: "sine", gain: 0.35, notes: [[523, 0, 0.12], [523, 0.22, 0.12]] },
};

function tone(kind, louder = 1) {
  SOUND.last = { kind, at: Date.now() };
  SOUND.count += 1;
  const ctx = SOUND.ctx;
  if (ctx && ctx.state === "running") {
    const spec = TONES[kind];
    const t0 = ctx.currentTime + 0.02;
    for (const [f, at, len] of spec.notes) {
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.type = spec.type; o.frequency.value = f;
      const peak = Math.min(1, spec.gain * louder);
      g.gain.setValueAtTime(0.0001, t0 + at);
      g.gain.exponentialRampToValueAtTime(peak, t0 + at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      o.connect(g).connect(ctx.destination);
      o.start(t0 + at); o.stop(t0 + at + len + 0.02);
    }
  }
  soundShow();
}

function flash(kind, key) {
  const cls = `flash-${kind}`;
  const targets = [document.body];
  const tile = key && document.querySelector(`article[data-key="${CSS.escape(key)}"]`);
  if (tile) targets.push(tile);
  for (const e of targets) {
    const again = e.classList.contains("flash-critical") || e.classList.contains("flash-warning");
    e.classList.remove("flash-critical", "flash-warning");
    // a flash still on restarts: its class comes back two frames later, once a frame was
    // styled without it. (Reading offsetWidth here to restart it forced a style and layout
    // of the whole page inside the alert's handler: tens of ms per alert in a room of 500
    // tiles, docs/performance.md "The festival, measured honestly".)
    if (again) requestAnimationFrame(() => requestAnimationFrame(() => e.classList.add(cls)));
    else e.classList.add(cls);
    setTimeout(() => e.classList.remove(cls), 2100);
  }
}

// an alert as it arrives: critical loud, warning/error soft, info silent
function alarm(a) {
  const kind = a.severity === "critical" ? "critical"
    : a.severity === "warning" || a.severity === "error" ? "warning" : null;
  if (!kind) return;
  tone(kind);
  flash(kind, `${a.venue}/${a.table}`);
}

// while a critical alert stays unacknowledged past the room's limit: again, louder
function escalating() {
  const open = [...S.tiles.values()].filter((t) => t.view && t.view.level === "escalated");
  if (!open.length) { SOUND.repeats = 0; return; }
  SOUND.repeats += 1;
  tone("critical", 1 + 0.5 * SOUND.repeats);
  for (const t of open) flash("critical", t.key);
}

function soundInit() {
  const b = document.getElementById("sound");
  b.addEventListener("click", () => {
    if (SOUND.state === "armed") soundDisarm(); else soundArm();
  });
  // the first gesture anywhere wakes an armed screen the browser held silent
  const wake = (e) => {
    if (e.target !== b && soundWanted() && SOUND.state !== "armed") soundWake();
  };
  for (const ev of ["pointerdown", "keydown"]) document.addEventListener(ev, wake, true);
  document.addEventListener("floor:escalated", (e) => {
    tone("critical", 1.5);
    flash("critical", e.detail.key);
  });
  SOUND.timer = setInterval(escalating, ESCALATE_REPEAT_S * 1000);
  if (soundWanted()) soundWake(); else soundShow();
}
