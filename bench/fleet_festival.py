"""The festival fleet (issue 17): ``.venv/bin/python bench/fleet.py --tables 500``.

One venue server on this machine: a private mosquitto; a private PostgreSQL server
(tests/pg.py: initdb in a temporary directory, a free loopback port; fsync off, as for the
tests); ``--loggers`` (2) ``railguard venue-log run`` processes sharing the subscription
(``$share/venuelog/...``) and writing to that database; the floor console (``railguard
floor run``) with a supervisor logged in from Debian's headless chromium (Selenium, as
tests/floor/test_floor_browser.py); and ``--tables`` simulated tables in ``--table-procs``
worker processes (bench/fleet_tables.py: state, events, alerts and hand records as the
daemon publishes them) dealing for ``--seconds`` at ``--speed`` times human speed.

``--replay`` (issue 23): the tables as the network sees them instead of 500 simulated links
computing on this machine: ``--templates`` (50) real tables' links recorded where they hand
their messages to paho (bench/fleet_record.py, before the venue server starts; or
``--recording FILE`` reused), then each of the ``--tables`` replayed by one of the
``--table-procs`` publisher processes (bench/fleet_replay.py: its own client id, will,
subscriptions, the recorded messages' QoS and retain, at their recorded moments, each
table from its own point of the recording); each alert's time is the wall time its table
published it. ``--server-nice N`` renices the venue server's processes (and this one, with
its clocks) for the dealing, to tell a starved server from a slow one.

Measured:
- records lost: hand ids submitted that the database does not hold once every outbox has
  drained (target 0), and what was still pending;
- logger lag: the row's ``received_at`` (the logger's store time) minus the hand's
  ``ended_at`` (the table's ``submit_hand`` time), p50/p99;
- alert to tile: a MutationObserver in the page records (``performance.timeOrigin +
  performance.now()``, wall clock) when each alert's id first appears in a tile's
  ``data-alert-ids`` (its open alerts); minus the wall time the table called
  ``publish_alert``. p50/p99, and
  alerts never shown (target p99 under 1 s);
- alert to stream: the same, to the moment a second client of the console's live stream
  (``/api/stream``, logged in as the page is) read the alert: the console's share; and
  alert to tile on the stream: to the moment that client read the first ``tile`` message
  naming the alert among the tile's open alerts (what the page redraws the tile from);
  ``--stream-only`` runs the console with this headless client and no browser, so that
  chromium's CPU does not count against the room (its own cost per update is
  bench/console_render.py's);
- alert to broker: the same, to the moment a subscriber of the alerts alone (paho, QoS 1,
  in this process) received it from mosquitto: the tables' own share (a simulated table's
  link publishes from a queue, on a loop shared with hundreds of tables) and the broker's;
  and broker to stream, alert by alert (the stream's time minus the broker's): the console's
  own share;
- CPU per process over the dealing window (psutil, user + system; PostgreSQL and chromium
  with all their processes; "bench" is this process: the stream and broker clocks), in
  cores (CPU-s per s), beside the machine's total: the
  process at or near 1.0 core (or the machine at its core count) is where the limit is;
- run-queue wait per process (the kernel's schedstat, all threads, over the dealing window;
  the tables' workers too), in seconds per second: the time a process was ready to run and
  waited for a core. CPU plus wait near 1.0 for a one-threaded process means it was busy
  the whole time: with a small CPU share, the machine starved it;
- the console's CPU seconds per 1,000 messages sent to it (with ``--replay``: the replayers
  count the state, events, alerts and status messages they publish); and with
  ``--console-gc`` its garbage collections over the dealing window (``console_gc``: per
  generation the collections and their pauses, the longest full one and the objects it
  walked; from the probe's ``gc.jsonl``, see :func:`gc_window`).
Wall clocks are this machine's one clock, so the differences are honest to a millisecond.
Each alert's clocks are left in the work directory (``alerts.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from bench.procs import pct  # noqa: E402
from controller.floor.auth import hash_password  # noqa: E402
from hwsim.broker import free_port, plain_broker  # noqa: E402
from hwsim.table import railguard_argv  # noqa: E402
from tests.pg import postgres_server  # noqa: E402

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")  # fmt: skip
PASSWORD = "fleet-floor-pw"
HUMAN_HAND_S = 120.0  # as bench/fleet_tables.py's
# Installed in the page after login: the first time each alert is in the room's DOM.
OBSERVER_JS = """
window.__seen = {};
const room = document.getElementById('room');
const scan = () => {
  const now = performance.timeOrigin + performance.now();
  for (const tile of room.querySelectorAll('article.tile[data-alert-ids]')) {
    for (const id of tile.dataset.alertIds.split(" ").filter(Boolean)) {
      if (!(id in window.__seen)) window.__seen[id] = now;
    }
  }
};
new MutationObserver(scan).observe(room, {childList: true, subtree: true, attributes: true,
                                          attributeFilter: ["data-alert-ids"]});
scan();
"""


# The console's garbage collections, timed from inside it without changing it: a
# sitecustomize module on its PYTHONPATH (``--console-gc``) appends one JSON line per
# collection that took 10 ms or more, or of the oldest generation, to gc.jsonl; and, at most
# once a second, a ``totals`` line: every collection so far by generation (count, ms) and
# the process's CPU seconds, so that the bench takes the dealing window's share.
GC_PROBE = """
import gc, json, os, time
_out = open(os.environ["RG_GC_PROBE"], "a", buffering=1)
_t = [0.0, 0.0]
_n = [0, 0, 0]
_ms = [0.0, 0.0, 0.0]
def _cb(phase, info):
    if phase == "start":
        _t[0] = time.perf_counter()
        return
    d = time.perf_counter() - _t[0]
    g = info["generation"]
    _n[g] += 1
    _ms[g] += d * 1e3
    now = time.time()
    if d >= 0.01 or g == 2:
        _out.write(json.dumps({"wall": now, "gen": g, "ms": round(d * 1e3, 2),
                               "collected": info["collected"],
                               "objects": len(gc.get_objects(g))}) + "\\n")
    if now - _t[1] >= 1.0:
        _t[1] = now
        _out.write(json.dumps({"wall": now, "totals": True, "n": _n,
                               "ms": [round(x, 2) for x in _ms], "cpu": time.process_time(),
                               "frozen": gc.get_freeze_count(),
                               "threshold": gc.get_threshold()}) + "\\n")
gc.callbacks.append(_cb)
"""


def gc_window(path: Path, start: float, end: float) -> dict[str, Any] | None:
    """The console's collections in the dealing window, from the probe's ``gc.jsonl``: the
    difference of the last ``totals`` lines before ``start`` and before ``end`` (a totals
    line is written at a collection at most once a second: the collections of up to a second
    before either may fall on the other side), and the slow or full collections logged
    between them. Per second: of the window."""
    if not path.exists():
        return None
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    totals = [x for x in lines if x.get("totals")]
    before = [x for x in totals if x["wall"] <= start]
    after = [x for x in totals if x["wall"] <= end]
    if not before or not after:
        return None
    b, e = before[-1], after[-1]
    logged = [x for x in lines if not x.get("totals") and start < x["wall"] <= end]
    full = [x for x in logged if x["gen"] == 2]
    paused = [round(e["ms"][g] - b["ms"][g], 1) for g in range(3)]
    return {
        "collections": [e["n"][g] - b["n"][g] for g in range(3)],
        "pause_ms": paused,
        "pause_ms_per_s": round(sum(paused) / (end - start), 2),
        "full_ms_max": max((x["ms"] for x in full), default=None),
        "full_objects_max": max((x["objects"] for x in full), default=None),
        "slow": sum(x["ms"] >= 10 for x in logged),
        "young_collected_max": max((x["collected"] for x in logged if x["gen"] < 2), default=None),
        "frozen": e.get("frozen"),
        "threshold": e.get("threshold"),
    }


def _spawn(argv: list[str], log: Path, env: dict[str, str] | None = None
           ) -> subprocess.Popen[bytes]:  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                                env=env)  # fmt: skip


def _end(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _processes(pids: list[int], tree: bool) -> Iterator[psutil.Process]:
    """The processes of ``pids`` (and, with ``tree``, all their descendants), each once; a
    process that is gone is left out."""
    seen: set[int] = set()
    for pid in pids:
        try:
            procs = [psutil.Process(pid)]
            if tree:
                procs += procs[0].children(recursive=True)
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            if p.pid not in seen:
                seen.add(p.pid)
                yield p


def _cpu(pids: list[int], tree: bool) -> float:
    """User + system CPU seconds of ``pids`` (and, with ``tree``, all their descendants)."""
    total = 0.0
    for p in _processes(pids, tree):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            c = p.cpu_times()
            total += c.user + c.system
    return total


def _waited(pids: list[int], tree: bool) -> float:
    """Seconds the threads of ``pids`` (and, with ``tree``, of all their descendants) were
    runnable but waited for a core (the kernel's ``/proc/PID/task/TID/schedstat``, second
    field): a process that waits long for a core is starved by the machine, not slow."""
    total = 0
    for p in _processes(pids, tree):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for task in Path(f"/proc/{p.pid}/task").iterdir():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def _browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in (*FLAGS, f"--user-data-dir={profile}", "--window-size=1600,1000"):
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def _login(driver: Any, url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    wait = WebDriverWait(driver, 30, poll_frequency=0.1)
    wait.until(lambda d: d.find_element(By.ID, "login").is_displayed())
    driver.find_element(By.ID, "user").send_keys("sam")
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.ID, "login-button").click()
    wait.until(lambda d: d.find_element(By.ID, "link").get_attribute("data-state") == "live")
    driver.execute_script(OBSERVER_JS)


@contextlib.contextmanager
def _console(work: Path, port: int, db: str, gc_probe: bool = False
             ) -> Iterator[tuple[subprocess.Popen[bytes], str]]:  # fmt: skip
    users = work / "floor-users.toml"
    users.write_text(f'[users.sam]\nrole = "supervisor"\npassword = "{hash_password(PASSWORD)}"\n')
    web = free_port()
    conf = work / "floor.toml"
    conf.write_text(
        f'[floor]\nlisten = "127.0.0.1"\nport = {web}\nusers_file = "{users}"\ndb = "{db}"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\ntls = false\nallow_plaintext = true\n'
    )
    env = None
    if gc_probe:
        (work / "gcprobe").mkdir(exist_ok=True)
        (work / "gcprobe" / "sitecustomize.py").write_text(GC_PROBE)
        path = os.pathsep.join(x for x in (str(work / "gcprobe"), os.environ.get("PYTHONPATH"))
                               if x)  # fmt: skip
        env = {**os.environ, "PYTHONPATH": path, "RG_GC_PROBE": str(work / "gc.jsonl")}
    proc = _spawn([*railguard_argv(), "floor", "run", "--config", str(conf)], work / "floor.log",
                  env)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while "floor console on" not in (work / "floor.log").read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the console did not start: " + (work / "floor.log").read_text())
            time.sleep(0.1)
        yield proc, f"http://127.0.0.1:{web}/"
    finally:
        _end(proc)


class StreamClock(threading.Thread):
    """A second client of the console's live stream (logged in like the page): the wall
    time each alert left the console, to tell the console's share of the alert-to-tile
    time from the browser's."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.host, self.port = url.split("//")[1].rstrip("/").split(":")
        self.seen: dict[str, float] = {}
        self.tiles: dict[str, float] = {}  # alert id -> first tile message naming it
        self._conn: http.client.HTTPConnection | None = None

    def run(self) -> None:
        with contextlib.suppress(OSError, http.client.HTTPException, ValueError, AttributeError):
            c = http.client.HTTPConnection(self.host, int(self.port), timeout=600)
            body = json.dumps({"user": "sam", "password": PASSWORD})
            c.request("POST", "/api/login", body, {"Content-Type": "application/json"})
            r = c.getresponse()
            cookie = (r.getheader("Set-Cookie") or "").split(";")[0]
            r.read()
            c.request("GET", "/api/stream", headers={"Cookie": cookie})
            self._conn = c
            stream = c.getresponse()
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.startswith(b'data: {"type": "alert"'):
                    now = time.time()
                    aid = json.loads(line[6:])["alert"]["alert_id"]
                    self.seen.setdefault(str(aid), now)
                elif line.startswith(b'data: {"type": "tile"') and b'"alert_id"' in line:
                    now = time.time()
                    for a in json.loads(line[6:])["tile"].get("alerts", []):
                        self.tiles.setdefault(str(a.get("alert_id")), now)

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()


class BrokerClock:
    """A subscriber of the tables' alerts alone: the wall time each reached the broker's
    subscribers, to tell the tables' share of the alert-to-stream time from the console's."""

    def __init__(self, port: int) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.seen: dict[str, float] = {}
        self._c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="fleet-alert-clock")
        self._c.on_message = self._on_message
        self._c.connect("127.0.0.1", port)
        self._c.subscribe("railguard/+/+/alerts", qos=1)
        self._c.loop_start()

    def _on_message(self, _c: Any, _u: Any, m: Any) -> None:
        now = time.time()
        with contextlib.suppress(ValueError, KeyError, TypeError):
            self.seen.setdefault(str(json.loads(m.payload)["alert_id"]), now)

    def close(self) -> None:
        self._c.disconnect()
        self._c.loop_stop()


def _wait_files(work: Path, prefix: str, n: int, timeout: float, procs: list[Any]) -> None:
    deadline = time.monotonic() + timeout
    while len(list(work.glob(f"{prefix}-*"))) < n:
        dead = [p for p in procs if p.poll() not in (None, 0)]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"table workers: {len(list(work.glob(prefix + '-*')))} of {n}"
                               f" {prefix} (exited: {[p.returncode for p in dead]})")  # fmt: skip
        time.sleep(0.1)


def _wait_logs(logs: list[Path], procs: list[subprocess.Popen[bytes]]) -> None:
    """Every logger said it connected (it created the schema first); none exited."""
    deadline = time.monotonic() + 60
    while not all("connected to" in p.read_text() for p in logs if p.exists()):
        dead = [p for p in procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError("a venue logger did not start: " + " | ".join(
                p.read_text()[-500:] for p in logs if p.exists()))  # fmt: skip
        time.sleep(0.1)


def _recording(a: argparse.Namespace, work: Path) -> Path:
    """bench/fleet_record.py's recording of ``--templates`` real tables, long enough for
    every replayed table's window (``--seconds`` from one to two hand periods in), made
    now unless ``--recording`` names one that exists."""
    if a.recording is not None and a.recording.exists():
        return Path(a.recording)
    out = Path(a.recording) if a.recording is not None else work / "recording.pickle"
    period = HUMAN_HAND_S / a.speed
    argv = [sys.executable, str(ROOT / "bench" / "fleet_record.py"), "--tables",
            str(a.templates), "--seconds", str(round(a.seconds + 3 * period, 1)), "--speed",
            str(a.speed), "--alert-every", str(a.alert_every), "--out", str(out)]  # fmt: skip
    with (work / "record.log").open("ab") as log:
        subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, check=True,
                       timeout=a.seconds + 3 * period + 300)  # fmt: skip
    return out


def festival(a: argparse.Namespace, work: Path) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    recording = _recording(a, work) if a.replay else None
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(plain_broker())
        pg = stack.enter_context(postgres_server())
        db = pg.create_database()
        net = ["--host", "127.0.0.1", "--port", str(broker.port), "--allow-plaintext"]
        loggers = [_spawn([*railguard_argv(), "venue-log", "run", *net, "--db", db,
                           "--instance", f"fleet-{i}"], work / f"logger-{i}.log")
                   for i in range(a.loggers)]  # fmt: skip
        for p in loggers:
            stack.callback(_end, p)
        _wait_logs([work / f"logger-{i}.log" for i in range(a.loggers)], loggers)
        driver = None
        console = None
        clock = None
        alert_clock = BrokerClock(broker.port)
        stack.callback(alert_clock.close)
        if a.browser or a.stream_only:
            console, url = stack.enter_context(_console(work, broker.port, db, a.console_gc))
            if not a.stream_only:
                driver = _browser(work / "chromium")
                stack.callback(driver.quit)
                _login(driver, url)
            clock = StreamClock(url)
            clock.start()
            stack.callback(clock.close)
        share = -(-a.tables // a.table_procs)
        workers = []
        for first in range(0, a.tables, share):
            count = ["--first", str(first), "--count", str(min(share, a.tables - first))]
            if recording is not None:
                argv = [sys.executable, str(ROOT / "bench" / "fleet_replay.py"), "--port",
                        str(broker.port), *count, "--seconds", str(a.seconds), "--recording",
                        str(recording), "--workdir", str(work)]  # fmt: skip
            else:
                argv = [sys.executable, str(ROOT / "bench" / "fleet_tables.py"), "--port",
                        str(broker.port), *count, "--seconds", str(a.seconds),
                        "--speed", str(a.speed), "--alert-every", str(a.alert_every),
                        "--workdir", str(work)]  # fmt: skip
            workers.append(_spawn(argv, work / f"tables-{first}.log"))
            stack.callback(_end, workers[-1], 120)
        _wait_files(work, "ready", len(workers), 300, workers)
        if any(p.poll() is not None for p in loggers):
            raise RuntimeError("a venue logger exited: see logger-*.log in the work directory")
        groups: dict[str, tuple[list[int], bool]] = {
            "broker": ([broker.proc.pid] if broker.proc else [], False),
            "postgres": ([pg.proc.pid] if pg.proc else [], True),
            **{f"logger-{i}": ([p.pid], False) for i, p in enumerate(loggers)},
            "bench": ([os.getpid()], False),
        }
        if console is not None:
            groups["console"] = ([console.pid], False)
        if driver is not None:
            groups["chromium"] = ([driver.service.process.pid], True)
        if a.server_nice:  # the venue server's processes before the rest of the machine
            for pids, tree in groups.values():
                for pid in pids:
                    with contextlib.suppress(psutil.NoSuchProcess):
                        proc = psutil.Process(pid)
                        for p in [proc, *(proc.children(recursive=True) if tree else [])]:
                            p.nice(a.server_nice)
        start = time.time() + 1.0
        # atomically: a worker polling for the file must not read it half written (one
        # read an empty "go" under load and stopped: "could not convert string to float")
        (work / "go.tmp").write_text(repr(start))
        (work / "go.tmp").rename(work / "go")
        time.sleep(max(0.0, start - time.time()))
        waits = {**groups, "tables": ([w.pid for w in workers], False)}
        wait0 = {k: _waited(pids, tree) for k, (pids, tree) in waits.items()}
        cpu0 = {k: _cpu(pids, tree) for k, (pids, tree) in groups.items()}
        sys0, load0 = psutil.cpu_times(), os.getloadavg()
        _wait_files(work, "dealt", len(workers), a.seconds + 120, workers)
        wall = time.time() - start
        console_cpu_s = _cpu(*groups["console"]) - cpu0["console"] if "console" in groups else 0.0
        cpu = {k: round((_cpu(pids, tree) - cpu0[k]) / wall, 3) for k, (pids, tree) in
               groups.items()}  # fmt: skip
        cpu["tables"] = round(sum(float(p.read_text()) for p in work.glob("dealt-*")) / wall, 3)
        waited = {k: round((_waited(pids, tree) - wait0[k]) / wall, 3) for k, (pids, tree) in
                  waits.items()}  # fmt: skip
        sys1 = psutil.cpu_times()
        end = time.time()
        busy = sum(sys1) - sum(sys0) - (sys1.idle - sys0.idle) - (sys1.iowait - sys0.iowait)
        for w in workers:
            w.wait(a.seconds + 180)
        seen: dict[str, float] = {}
        if driver is not None:
            time.sleep(2.0)  # the last alerts on their way to the page
            seen = driver.execute_script("return window.__seen")
        if clock is not None and driver is None:
            time.sleep(2.0)  # the last alerts on their way to the stream's client
        sent = dict(clock.seen) if clock is not None else {}
        sent_tile = dict(clock.tiles) if clock is not None else {}
        at_broker = dict(alert_clock.seen)
        alive = [p.poll() is None for p in loggers]
        results = [json.loads(p.read_text()) for p in work.glob("result-*.json")]
        with pg.connect(db.rsplit("/", 1)[1]) as con:
            rows = con.execute("SELECT hand_id, received_at, ended_at FROM hands").fetchall()
    submitted = {h for r in results for h in r["submitted"]}
    published = {k: v for r in results for k, v in r["alerts"].items()}
    lags = [r[1] - r[2] for r in rows]
    # each alert's clocks (wall time), for a look at the tail: when, and at which stage
    (work / "alerts.json").write_text(json.dumps({k: {
        "published": t, "broker": at_broker.get(k), "stream": sent.get(k),
        "stream_tile": sent_tile.get(k), "page": seen[k] / 1e3 if k in seen else None,
    } for k, t in published.items()}))  # fmt: skip
    tiles = [seen[k] / 1e3 - t for k, t in published.items() if k in seen]
    streamed = [sent[k] - t for k, t in published.items() if k in sent]
    stream_tiles = [sent_tile[k] - t for k, t in published.items() if k in sent_tile]
    brokered = [at_broker[k] - t for k, t in published.items() if k in at_broker]
    consoled = [sent[k] - at_broker[k] for k in published if k in sent and k in at_broker]
    late = [r for r in results if r.get("late_p99_ms") is not None]
    to_console = sum(r.get("to_console", 0) for r in results) if results and all(
        "to_console" in r for r in results) else None  # fmt: skip
    out: dict[str, Any] = {
        "tables": a.tables, "tables_mode": "replay" if a.replay else "daemon",
        "server_nice": a.server_nice,
        "replay_late_p50_ms": max(r["late_p50_ms"] for r in late) if late else None,
        "replay_late_p99_ms": max(r["late_p99_ms"] for r in late) if late else None,
        "speed": a.speed, "loggers": a.loggers, "seconds": round(wall, 1),
        "submitted": len(submitted), "stored": len(rows),
        "lost": len(submitted - {r[0] for r in rows}),
        "pending_at_end": sum(r["pending"] for r in results),
        "records_per_s": round(len(submitted) / wall, 2),
        "states_per_s": round(sum(r["states"] for r in results) / wall, 1),
        "lag_p50_ms": round(statistics.median(lags) * 1e3, 1) if lags else None,
        "lag_p99_ms": round(pct(lags, 0.99) * 1e3, 1) if lags else None,
        "alerts": len(published), "alerts_shown": len(tiles),
        "alert_tile_p50_ms": round(statistics.median(tiles) * 1e3, 1) if tiles else None,
        "alert_tile_p99_ms": round(pct(tiles, 0.99) * 1e3, 1) if tiles else None,
        "alert_stream_p50_ms": round(statistics.median(streamed) * 1e3, 1) if streamed else None,
        "alert_stream_p99_ms": round(pct(streamed, 0.99) * 1e3, 1) if streamed else None,
        "alerts_on_stream": len(streamed), "alerts_at_broker": len(brokered),
        "alerts_tiled_on_stream": len(stream_tiles),
        "alert_stream_tile_p50_ms": round(statistics.median(stream_tiles) * 1e3, 1)
        if stream_tiles else None,
        "alert_stream_tile_p99_ms": round(pct(stream_tiles, 0.99) * 1e3, 1)
        if stream_tiles else None,
        "alert_broker_p50_ms": round(statistics.median(brokered) * 1e3, 1) if brokered else None,
        "alert_broker_p99_ms": round(pct(brokered, 0.99) * 1e3, 1) if brokered else None,
        "broker_stream_p50_ms": round(statistics.median(consoled) * 1e3, 1) if consoled else None,
        "broker_stream_p99_ms": round(pct(consoled, 0.99) * 1e3, 1) if consoled else None,
        "loggers_alive_at_end": sum(alive),
        "console_messages": to_console,
        "console_cpu_s_per_1000": round(console_cpu_s / to_console * 1e3, 4)
        if to_console and "console" in cpu else None,
        "console_gc": gc_window(work / "gc.jsonl", start, end) if a.console_gc else None,
        "cpu_cores": cpu,
        "runqueue_wait_s_per_s": waited,
        "machine_busy_cores": round(busy / wall, 2),
        "cores": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load0],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=500, help="simulated tables (default 500)")
    ap.add_argument("--seconds", type=float, default=120.0, help="dealing time (default 120)")
    ap.add_argument("--speed", type=float, default=10.0, help="times human speed (default 10)")
    ap.add_argument("--loggers", type=int, default=2, help="venue logger processes (default 2)")
    ap.add_argument("--table-procs", type=int, default=2,
                    help="worker processes the tables are split over (default 2)")  # fmt: skip
    ap.add_argument("--alert-every", type=int, default=5,
                    help="each table raises an alert every N hands (default 5)")  # fmt: skip
    ap.add_argument("--no-browser", dest="browser", action="store_false",
                    help="without the console and the browser")  # fmt: skip
    ap.add_argument("--stream-only", action="store_true",
                    help="the console and a headless client of its stream only")  # fmt: skip
    ap.add_argument("--replay", action="store_true",
                    help="the tables as the network sees them: --templates real tables"
                    " recorded (bench/fleet_record.py), replayed by the --table-procs"
                    " publisher processes (bench/fleet_replay.py)")  # fmt: skip
    ap.add_argument("--templates", type=int, default=50,
                    help="with --replay: real tables recorded (default 50)")  # fmt: skip
    ap.add_argument(
        "--recording",
        type=Path,
        help="with --replay: use this recording if it exists, else make it there",
    )
    ap.add_argument("--server-nice", type=int, default=0,
                    help="the niceness of the venue server's processes (broker, PostgreSQL,"
                    " loggers, console, chromium) and of this one (its clocks) while dealing;"
                    " negative: before the rest of the machine (needs root)")  # fmt: skip
    ap.add_argument("--console-gc", action="store_true",
                    help="log the console's slow or oldest-generation garbage collections to"
                    " gc.jsonl in the work directory")  # fmt: skip
    ap.add_argument("--workdir", type=Path, help="keep the logs here (default: a temp dir)")
    a = ap.parse_args(argv)
    if a.tables < 1 or a.loggers < 1 or a.table_procs < 1 or a.seconds <= 0 or a.templates < 1:
        ap.error("--tables, --loggers, --table-procs, --templates and --seconds must be positive")
    a.table_procs = min(a.table_procs, a.tables)
    if a.workdir is not None:
        result = festival(a, a.workdir)
    else:
        with tempfile.TemporaryDirectory(prefix="railguard-fleet-") as tmp:
            result = festival(a, Path(tmp))
    print(json.dumps(result))
    return 0
