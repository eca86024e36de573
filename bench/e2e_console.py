"""The console stage of the alert's path: the alert published by the daemon -> the floor
console's room has it -> the table's tile changed in a browser.

The table is bench/e2e.py's (the simulated table, its daemon in its own process with its
stage stamps, the board on a pty, the same REJECTED alert per event); the floor console
(``controller/floor``, started as ``railguard demo`` starts it: controller/demo/console.py)
runs in this process on the same broker, and Debian's chromium (headless, driven by Selenium
through Debian's chromedriver, as tests/floor/test_floor_browser.py drives it) is logged in
to it. A ``MutationObserver`` put into the page notes, for each alert id, when a tile's
``data-alert-ids`` (its open alerts) first names it (``performance.timeOrigin +
performance.now()``); the browser's clock is tied to this process's by the Selenium round
trip with the least delay (its half is printed as the uncertainty). Each alert is
acknowledged once shown (``ack_alert``), so the tile shows one alert at a time, as a table's
tile does on a calm night.

    .venv/bin/python bench/e2e.py --events 200 --console 200 --stages
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

from aiohttp import web

from bench import e2e
from bench.procs import pct, wait_for

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
         "--disable-backgrounding-occluded-windows",
         "--disable-component-update", "--disable-sync", "--no-first-run")  # fmt: skip
OBSERVE = """
window.__seen = {};
new MutationObserver(() => {
  const t = performance.timeOrigin + performance.now();
  for (const tile of document.querySelectorAll('article.tile[data-alert-ids]')) {
    for (const id of tile.dataset.alertIds.split(" ").filter(Boolean)) {
      if (!(id in window.__seen)) window.__seen[id] = t;
    }
  }
}).observe(document.body, {childList: true, subtree: true, attributes: true,
                           attributeFilter: ["data-alert-ids"]});
window.__sse = {};  // alert id -> its "alert" and "tile" messages handed to the page's handler
const handler = S.stream.onmessage;
S.stream.onmessage = (e) => {
  const t = performance.timeOrigin + performance.now();
  const m = JSON.parse(e.data);
  const id = m.type === "alert" ? m.alert.alert_id
    : m.type === "tile" && m.tile.alerts.length ? m.tile.alerts[m.tile.alerts.length - 1].alert_id
    : null;
  if (id !== null) (window.__sse[id] ??= {})[m.type] ??= t;
  handler(e);
};
"""


BARE_PAGE = """<!doctype html><title>bare</title><script>
const es = new EventSource("/s");
es.onmessage = (e) => { fetch("/echo", { method: "POST", body: e.data.slice(0, 32) }); };
</script>"""


class BareSse:
    """The console stage's floor: a bare aiohttp server-sent-event stream to a page of its
    own in a second headless chromium, one message at a time (an id padded to the size of
    the console's alert message); the page posts each message's id straight back
    (``fetch``), and the round trip is timed here, on one clock."""

    def __init__(self, size: int = 700) -> None:
        self.size = size
        self.clients: list[asyncio.Queue[str]] = []
        self.sent: dict[str, float] = {}
        self.rtt: list[float] = []
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        async def page(_r: web.Request) -> web.Response:
            return web.Response(text=BARE_PAGE, content_type="text/html")

        async def stream(r: web.Request) -> web.StreamResponse:
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await resp.prepare(r)
            q: asyncio.Queue[str] = asyncio.Queue()
            self.clients.append(q)
            while True:
                text = await q.get()
                self.sent[text[:32]] = time.perf_counter()
                await resp.write(f"data: {text}\n\n".encode())

        async def echo(r: web.Request) -> web.Response:
            t = time.perf_counter()
            sent = self.sent.pop(await r.text(), None)
            if sent is not None:
                self.rtt.append(t - sent)
            return web.Response(text="ok")

        app = web.Application()
        app.router.add_get("/", page)
        app.router.add_get("/s", stream)
        app.router.add_post("/echo", echo)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = next(a for a in self.runner.addresses if isinstance(a, tuple))[1]
        self.url = f"http://127.0.0.1:{port}/"

    def send(self) -> None:
        key = uuid.uuid4().hex
        for q in self.clients:
            q.put_nowait(key + "x" * (self.size - len(key)))

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


def _browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in (*FLAGS, f"--user-data-dir={profile}", "--window-size=1200,900"):
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def _login(driver: Any, url: str, user: str, password: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    wait = WebDriverWait(driver, 15, poll_frequency=0.05)
    wait.until(lambda d: d.find_element(By.ID, "login").is_displayed())
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "login-button").click()
    wait.until(lambda d: d.find_element(By.ID, "who").text.startswith(user))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "article.tile"))


def _clock(driver: Any, rounds: int = 30) -> tuple[float, float]:
    """(browser ms - this process's perf_counter s * 1000, half the best round trip in ms)."""
    best: tuple[float, float] | None = None
    for _ in range(rounds):
        t0 = time.perf_counter()
        b = float(driver.execute_script("return performance.timeOrigin + performance.now()"))
        t1 = time.perf_counter()
        rtt = t1 - t0
        if best is None or rtt < best[1]:
            best = (b - (t0 + t1) / 2 * 1e3, rtt)
    assert best is not None
    return best[0], best[1] / 2 * 1e3


async def run(port: int, events: int, workdir: Path) -> dict[str, Any]:
    from controller.demo.console import open_console

    e2e.check_clocks()
    table = await e2e.open_table(port, workdir / "table")
    console = await open_console("127.0.0.1", port, workdir / "console", 0)
    room: dict[str, float] = {}  # alert id -> the console's room had it (perf_counter)
    show = console.console.link.on_change
    assert show is not None

    def on_change(changes: list[dict[str, Any]]) -> None:
        t = time.perf_counter()
        for c in changes:
            if c.get("type") == "alert":
                room.setdefault(str(c["alert"]["alert_id"]), t)
        show(changes)

    console.console.link.on_change = on_change
    driver = await asyncio.to_thread(_browser, workdir / "chromium")
    bare = BareSse()
    await bare.start()
    floor = await asyncio.to_thread(_browser, workdir / "chromium-bare")
    samples: list[e2e.Sample] = []
    try:
        await asyncio.to_thread(_login, driver, console.url, console.user, console.password)
        await asyncio.to_thread(driver.execute_script, OBSERVE)
        await asyncio.to_thread(floor.get, bare.url)
        await wait_for(lambda: bool(bare.clients), "the bare page's stream")
        offset0, err0 = await asyncio.to_thread(_clock, driver)
        for i in range(events + e2e.WARMUP):
            s = await e2e.one_event(table)
            if s is None:
                continue
            await asyncio.sleep(0.03)  # the browser shows it; then the floor acknowledges it
            await table.sub.command(e2e.BASE, "ack_alert", alert_id=s.alert_id, by="bench")
            bare.send()  # the floor, between two events
            await asyncio.sleep(0.02)
            if i >= e2e.WARMUP:
                samples.append(s)
        await asyncio.sleep(0.2)
        seen: dict[str, float] = await asyncio.to_thread(
            driver.execute_script, "return window.__seen"
        )
        sse: dict[str, dict[str, float]] = await asyncio.to_thread(
            driver.execute_script, "return window.__sse"
        )
        offset1, err1 = await asyncio.to_thread(_clock, driver)
    finally:
        await asyncio.to_thread(driver.quit)
        await asyncio.to_thread(floor.quit)
        await bare.stop()
        await console.close()
        stages = await e2e.close_table(table)
    offset = (offset0 + offset1) / 2
    rows: dict[str, list[float]] = {"published -> room": [], "room -> tile changed": [],
                                    "room -> page got 'alert'": [],
                                    "'alert' -> page got 'tile'": [],
                                    "'tile' -> tile changed": [],
                                    "published -> tile changed": [],
                                    "subscriber -> tile changed": []}  # fmt: skip
    for s in samples:
        st, shown, got = stages.get(s.alert_id), seen.get(s.alert_id), room.get(s.alert_id)
        if st is None or shown is None or got is None:
            continue
        tile = (shown - offset) / 1e3  # perf_counter seconds
        published = st["encoded"] / 1e9
        rows["published -> room"].append(got - published)
        rows["room -> tile changed"].append(tile - got)
        rows["published -> tile changed"].append(tile - published)
        page = {k: (v - offset) / 1e3 for k, v in sse.get(s.alert_id, {}).items()}
        if "alert" in page and "tile" in page:
            rows["room -> page got 'alert'"].append(page["alert"] - got)
            rows["'alert' -> page got 'tile'"].append(page["tile"] - page["alert"])
            rows["'tile' -> tile changed"].append(tile - page["tile"])
        rows["subscriber -> tile changed"].append(tile - s.received)
    floor_hop = bare.rtt
    out: dict[str, Any] = {"events": len(samples),
                           "matched": len(rows["published -> tile changed"]),
                           "clock_uncertainty_ms": round(max(err0, err1), 3),
                           "clock_drift_ms": round(offset1 - offset0, 3)}  # fmt: skip
    for name, values in rows.items():
        if values:
            out[name] = {"p50_ms": e2e.ms(statistics.median(values)),
                         "p99_ms": e2e.ms(pct(values, 0.99))}  # fmt: skip
    if floor_hop:  # a bare stream's message to a page and the page's echo back, one clock
        out["floor: bare SSE + echo round trip"] = {
            "p50_ms": e2e.ms(statistics.median(floor_hop)),
            "p99_ms": e2e.ms(pct(floor_hop, 0.99)),
        }
    return out


def text(r: dict[str, Any]) -> str:
    lines = [f"console stage ({r['matched']} of {r['events']} alerts matched; browser clock"
             f" ±{r['clock_uncertainty_ms']} ms, drift {r['clock_drift_ms']} ms)"]  # fmt: skip
    for name, row in r.items():
        if isinstance(row, dict):
            lines.append(f"  {name:<36} p50 {row['p50_ms']:>8.3f} ms  p99 {row['p99_ms']:>8.3f} ms")
    return "\n".join(lines)
