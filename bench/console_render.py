"""The browser's rendering cost per update of the floor console's room, at N tiles (issue 23):
``.venv/bin/python bench/console_render.py --tiles 500``.

What the browser itself spends, apart from the venue server: the floor console
(``controller/floor``, started as ``railguard demo`` starts it) on a private mosquitto, fed
the live state of ``--tiles`` tables by one MQTT client in this process (real state payloads
of generated hands: bench/fleet_tables.py), and Debian's headless chromium logged in to it
(Selenium, as bench/e2e_console.py and tests/floor drive it). Once the room shows every tile:

- **frames**: ``--frames`` times for each batch size K of ``--batches``, K tables' states
  change at once; the console sends their tiles in its next stream frame (1 s,
  controller/floor/stream.py) and the page redraws them in one animation frame
  (``flushTiles``, controller/floor/static/room.js);
- **alerts**: ``--alerts`` alerts of distinct tables, one at a time (the console sends an
  alert at once: an ``alert`` message, which redraws the feed, then the table's ``tile``).

Timed by the page itself, with marks put into it after login (``performance.mark`` /
``measure``, cleared after each read; nothing is changed in the console's code): each stream
message's handler (``onEvent``: JSON, the page's state, the feed), each ``flushTiles`` call
(the tiles' DOM), and from the end of that call to a message posted then (delivered after
the animation frame's style, layout and paint: the rest of the frame's main-thread work).
Besides, chromium's CPU (psutil, the browser's whole process tree: renderer, GPU process,
compositor threads) per phase, divided by the tiles redrawn. Prints one JSON object.

    .venv/bin/python bench/console_render.py --tiles 500               # about a minute
    .venv/bin/python bench/console_render.py --tiles 20 --frames 1 --alerts 3 --batches 1,20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from bench.procs import pct  # noqa: E402

RENDER_JS = """
window.__r = {handler: {}, flush: [], paint: [], dirty: []};
const keep = (name) => {
  const m = performance.measure(name, name + "-start");
  performance.clearMarks(name + "-start"); performance.clearMeasures(name);
  return m.duration;
};
const flush0 = window.flushTiles;
window.flushTiles = function () {
  const n = R.dirty.size;
  performance.mark("flush-start");
  flush0();
  __r.flush.push(keep("flush")); __r.dirty.push(n);
  const end = performance.now();
  const ch = new MessageChannel();  // delivered after this frame's style, layout and paint
  ch.port1.onmessage = () => { __r.paint.push(performance.now() - end); ch.port1.close(); };
  ch.port2.postMessage(0);
};
const handler0 = S.stream.onmessage;
S.stream.onmessage = (e) => {
  performance.mark("handler-start");
  handler0(e);
  const type = e.data.slice(10, e.data.indexOf('"', 10));  // '{"type": "tile", ...'
  (__r.handler[type] ??= []).push(keep("handler"));
};
"""
COUNT_JS = "return document.querySelectorAll('article.tile').length"
TAKE_JS = "const r = window.__r; window.__r = {handler: {}, flush: [], paint: [], dirty: []};" \
          " return r;"  # fmt: skip


def _chromium_cpu(driver: Any) -> float:
    """CPU seconds of chromium's whole process tree (chromedriver's children)."""
    total = 0.0
    root = psutil.Process(driver.service.process.pid)
    for p in [root, *root.children(recursive=True)]:
        try:
            c = p.cpu_times()
            total += c.user + c.system
        except psutil.NoSuchProcess:
            continue
    return total


def _stats(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"p50_ms": round(statistics.median(values), 3), "p99_ms": round(pct(values, 0.99), 3),
            "n": len(values)}  # fmt: skip


class Feeder:
    """One MQTT client publishing the tables' states and alerts as their daemons would."""

    def __init__(self, port: int, tiles: int) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        from bench.fleet_tables import scripts

        pool, self.alerts = scripts(4)
        self.states = [body for s in pool for what, body in s.steps if what == "state"]
        self.tables = [f"r{i:03d}" for i in range(tiles)]
        self.seq = dict.fromkeys(self.tables, 0)
        self.at = dict.fromkeys(self.tables, 0)
        self.c = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"render-{uuid.uuid4().hex[:6]}"
        )
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _stamp(self, table: str, body: dict[str, Any]) -> bytes:
        self.seq[table] += 1
        return json.dumps({**body, "seq": self.seq[table], "bdseq": 1, "ts": time.time()}).encode()

    def state(self, table: str) -> None:
        """The table's next state (the pool's states in turn: each differs from the last)."""
        self.at[table] = (self.at[table] + 1) % len(self.states)
        body = {**self.states[self.at[table]], "hand_no": 1}
        # retained, as the daemon's state (the console reads them when it subscribes)
        self.c.publish(f"railguard/v1/{table}/state", self._stamp(table, body), qos=0, retain=True)

    def alert(self, table: str) -> None:
        body = {**self.alerts[0], "alert_id": uuid.uuid4().hex}
        self.c.publish(f"railguard/v1/{table}/alerts", self._stamp(table, body), qos=1)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


async def measure(port: int, a: argparse.Namespace, work: Path) -> dict[str, Any]:
    from bench.e2e_console import _browser, _login
    from controller.demo.console import open_console

    console = await open_console("127.0.0.1", port, work / "console", 0)
    feed = Feeder(port, a.tiles)
    driver = None
    out: dict[str, Any] = {"tiles": a.tiles}
    try:
        for t in feed.tables:  # every table's first state: the room's tiles
            feed.state(t)
        driver = await asyncio.to_thread(_browser, work / "chromium")
        await asyncio.to_thread(_login, driver, console.url, console.user, console.password)
        deadline = time.monotonic() + 60
        n = 0
        while time.monotonic() < deadline:
            n = await asyncio.to_thread(driver.execute_script, COUNT_JS)
            if n >= a.tiles:
                break
            await asyncio.sleep(0.5)
        if n < a.tiles:
            raise RuntimeError(f"the room shows {n} of {a.tiles} tiles after 60 s")
        await asyncio.sleep(1.5)  # the first frames drawn
        await asyncio.to_thread(driver.execute_script, RENDER_JS)
        frames: dict[str, Any] = {}
        for batch in a.batches:
            k = min(batch, a.tiles)
            cpu0 = await asyncio.to_thread(_chromium_cpu, driver)
            for f in range(a.frames):
                for t in feed.tables[(f * k) % a.tiles :][:k] or feed.tables[:k]:
                    feed.state(t)
                await asyncio.sleep(1.3)  # the console's 1 s frame, then the page's
            cpu = await asyncio.to_thread(_chromium_cpu, driver) - cpu0
            r = await asyncio.to_thread(driver.execute_script, TAKE_JS)
            drawn = sum(r["dirty"]) or 1
            frames[str(k)] = {
                "flushes": len(r["flush"]), "tiles_drawn": sum(r["dirty"]),
                "flush": _stats(r["flush"]), "after_flush_paint": _stats(r["paint"]),
                "tile_handler": _stats(r["handler"].get("tile", [])),
                "page_ms_per_tile": round((sum(r["flush"]) + sum(r["paint"])
                                           + sum(r["handler"].get("tile", []))) / drawn, 3),
                "chromium_cpu_ms_per_tile": round(cpu * 1e3 / drawn, 3),
                "chromium_cpu_s": round(cpu, 3),
            }  # fmt: skip
        out["frames"] = frames
        cpu0 = await asyncio.to_thread(_chromium_cpu, driver)
        for i in range(a.alerts):
            feed.alert(feed.tables[i % a.tiles])
            await asyncio.sleep(0.15)
        await asyncio.sleep(0.5)
        cpu = await asyncio.to_thread(_chromium_cpu, driver) - cpu0
        r = await asyncio.to_thread(driver.execute_script, TAKE_JS)
        out["alerts"] = {
            "sent": a.alerts, "alert_handler": _stats(r["handler"].get("alert", [])),
            "tile_handler": _stats(r["handler"].get("tile", [])),
            "flush": _stats(r["flush"]), "after_flush_paint": _stats(r["paint"]),
            "chromium_cpu_ms_per_alert": round(cpu * 1e3 / max(1, a.alerts), 2),
        }  # fmt: skip
    finally:
        if driver is not None:
            await asyncio.to_thread(driver.quit)
        feed.close()
        await console.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--tiles", type=int, default=500, help="tables in the room (default 500)")
    ap.add_argument("--batches", default="1,50,500",
                    help="tables whose state changes in one frame, comma-separated")  # fmt: skip
    ap.add_argument("--frames", type=int, default=8, help="frames per batch size (default 8)")
    ap.add_argument("--alerts", type=int, default=40, help="alerts, one at a time (default 40)")
    a = ap.parse_args(argv)
    try:
        a.batches = [int(x) for x in a.batches.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--batches {a.batches!r}: comma-separated table counts, e.g. 1,50,500")
    if a.tiles < 1 or a.frames < 1 or a.alerts < 0 or not a.batches or min(a.batches) < 1:
        ap.error("--tiles, --frames and every batch must be at least 1, --alerts at least 0")
    from hwsim.broker import plain_broker

    with tempfile.TemporaryDirectory(prefix="railguard-render-") as tmp, plain_broker() as b:
        r = asyncio.run(measure(b.port, a, Path(tmp)))
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
