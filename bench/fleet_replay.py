"""The festival's replayed tables (issue 23): ``python bench/fleet_replay.py --port P --first I
--count N --seconds S --recording rec.pickle --workdir DIR``, a few processes for the fleet.

What the network sees of a table, without computing it 500 times on one machine: each
replayed table (``t000``...) is one MQTT client (paho, MQTT 3.1.1, clean session, keepalive
15 s as the link's) with the client id, will and subscriptions its recorded template had
(bench/fleet_record.py: real ``VenueLink``s publishing the daemon's payloads), which
publishes its template's messages (states, events, alerts, their ACKs, the hand records,
with their QoS and retain flags) at their recorded moments, shifted: table ``i`` plays
template ``i mod K`` from a random point one to two hand periods into the recording (the
tables are dealing by then, each at its own phase), so that no two tables publish in step.
At connect it publishes the template's birth (retained ``online``) and its last retained
state before that point, as a table already dealing would have.

Each message is its template's bytes with the template's table name replaced by the
table's own, each alert id by a fresh one (in the alert and in its ``alert_ack`` event),
``ts`` and ``sent_at`` by the wall time of this publish and ``ended_at`` shifted as the
messages are. The clients run on one event loop per process (paho's external loop:
``loop_read``/``loop_write`` on the loop's reader and writer callbacks, ``loop_misc`` each
second), from one schedule merged over the process's tables; a message is published when
its time comes (immediately if the process is behind: how late each was is reported).

Protocol with bench/fleet.py: as bench/fleet_tables.py's (``ready-K``, ``go``, ``dealt-K``,
``result-K.json`` with the hand ids published, each alert's id with the wall time its table
published it, and ``late`` figures of the schedule).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import random
import re
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

KEEPALIVE = 15
_NOW = re.compile(rb'"(ts|sent_at)":[-0-9.eE+]+')
_ENDED = re.compile(rb'"ended_at":([-0-9.eE+]+)')
_ALERT_ID = re.compile(rb'"alert_id":"([0-9a-f]+)"')
_HAND_ID = re.compile(rb'"hand_id":"([^"]+)"')


class Pump:
    """A paho client driven by the asyncio loop (paho's external-loop callbacks)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, client: mqtt.Client) -> None:
        self.loop, self.client = loop, client
        self.misc: asyncio.Task[None] | None = None
        client.on_socket_open = self._open
        client.on_socket_close = self._close
        client.on_socket_register_write = self._add_writer
        client.on_socket_unregister_write = self._remove_writer

    def _open(self, client: mqtt.Client, _u: Any, sock: Any) -> None:
        self.loop.add_reader(sock, client.loop_read)
        self.misc = self.loop.create_task(self._misc())

    def _close(self, _c: mqtt.Client, _u: Any, sock: Any) -> None:
        self.loop.remove_reader(sock)
        if self.misc is not None:
            self.misc.cancel()

    def _add_writer(self, client: mqtt.Client, _u: Any, sock: Any) -> None:
        self.loop.add_writer(sock, client.loop_write)

    def _remove_writer(self, _c: mqtt.Client, _u: Any, sock: Any) -> None:
        self.loop.remove_writer(sock)

    async def _misc(self) -> None:
        while self.client.loop_misc() == mqtt.MQTT_ERR_SUCCESS:
            await asyncio.sleep(1.0)


class Replayed:
    """One replayed table."""

    def __init__(self, name: str, template: str, tpl: dict[str, Any], shift: float,
                 delta: float) -> None:  # fmt: skip
        self.name, self.shift, self.delta = name, shift, delta
        self.old, self.new = template.encode(), name.encode()
        self.tpl = tpl
        self.ids: dict[bytes, bytes] = {}
        self.connected = asyncio.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=tpl["client_id"].replace(template, name),
            clean_session=True,
        )
        if tpl["will"] is not None:
            topic, payload, qos, retain = tpl["will"]
            self.client.will_set(topic.replace(template, name), self.bytes(payload), qos, retain)
        self.client.on_connect = self._on_connect

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        subs = [(t.replace(self.old.decode(), self.name), q) for t, q in self.tpl["subscriptions"]]
        if subs:
            client.subscribe(subs)
        self.connected.set()

    def bytes(self, payload: bytes, late: float = 0.0) -> bytes:
        """The template's payload as this table's (names, alert ids, wall times); ``late``:
        how far behind its schedule this publish is (a record's ``ended_at`` moves with it,
        so that the logger's lag counts from the record's send as it would on a table)."""
        out = payload.replace(self.old, self.new)
        if b'"alert_id"' in out:
            for old in _ALERT_ID.findall(out):
                new = self.ids.setdefault(old, uuid.uuid4().hex.encode())
                out = out.replace(old, new)
        now = repr(time.time()).encode()
        out = _NOW.sub(lambda m: b'"' + m.group(1) + b'":' + now, out)
        shift = self.delta + late
        return _ENDED.sub(lambda m: b'"ended_at":' + repr(float(m.group(1)) + shift).encode(), out)

    def topic(self, topic: str) -> str:
        return topic.replace(self.old.decode(), self.name)


async def main_async(a: argparse.Namespace) -> None:
    work = Path(a.workdir)
    with open(a.recording, "rb") as f:
        rec = pickle.load(f)
    names = sorted(rec["tables"])
    period = float(rec["period"])
    room = max(0.0, float(rec["seconds"]) - a.seconds)  # how far a window may start in
    lo, hi = min(period, room), min(2 * period, room)
    rng = random.Random(a.first * 7919 + 23)
    loop = asyncio.get_running_loop()
    tables: list[Replayed] = []
    for i in range(a.first, a.first + a.count):
        template = names[i % len(names)]
        shift = rng.uniform(lo, hi)
        tables.append(Replayed(f"t{i:03d}", template, rec["tables"][template], shift, 0.0))
    pumps = [Pump(loop, t.client) for t in tables]
    for t in tables:
        t.client.connect("127.0.0.1", a.port, KEEPALIVE)
        await asyncio.sleep(0.002)  # spread the connects
    await asyncio.wait_for(asyncio.gather(*(t.connected.wait() for t in tables)), 120)
    # the birth, and the last retained state before the table's window (a table dealing)
    for t in tables:
        msgs = t.tpl["messages"]
        last_state = None
        for m in msgs:
            if m[0] < 0:
                t.client.publish(t.topic(m[1]), t.bytes(m[2]), m[3], m[4])
            elif m[0] < t.shift and m[1].endswith("/state"):
                last_state = m
        if last_state is not None:
            t.client.publish(t.topic(last_state[1]), t.bytes(last_state[2]), last_state[3],
                             last_state[4])  # fmt: skip
    # the schedule: (play time from the start, table index, message)
    schedule: list[tuple[float, int, tuple[Any, ...]]] = []
    for k, t in enumerate(tables):
        for m in t.tpl["messages"]:
            if t.shift <= m[0] < t.shift + a.seconds:
                schedule.append((m[0] - t.shift, k, m))
    schedule.sort(key=lambda x: (x[0], x[1]))
    (work / f"ready-{a.first}").write_text("ready")
    start = float(await _wait_file(work / "go", 600))
    for t in tables:
        t.delta = start - t.shift - float(rec["origin"])
    await asyncio.sleep(max(0.0, start - time.time()))
    cpu0 = time.process_time()
    submitted: list[str] = []
    alerts: dict[str, float] = {}
    late: list[float] = []
    states = 0
    to_console = 0  # the messages of the console's topics (state, events, alerts, status)
    for at, k, m in schedule:
        due = start + at
        wait = due - time.time()
        if wait > 0.001:
            await asyncio.sleep(wait)
        t = tables[k]
        topic, payload = t.topic(m[1]), t.bytes(m[2], max(0.0, time.time() - due))
        now = time.time()
        t.client.publish(topic, payload, m[3], m[4])
        late.append(now - due)
        if topic.endswith("/alerts"):
            found = _ALERT_ID.search(payload)
            if found:
                alerts[found.group(1).decode()] = now
        elif topic.endswith("/hands"):
            found = _HAND_ID.search(payload)
            if found:
                submitted.append(found.group(1).decode())
        elif topic.endswith("/state"):
            states += 1
        if topic.endswith(("/state", "/events", "/alerts", "/status")):
            to_console += 1
        if wait <= 0.001:
            await asyncio.sleep(0)  # let the sockets be served between late messages
    await asyncio.sleep(max(0.0, start + a.seconds - time.time()))
    (work / f"dealt-{a.first}").write_text(repr(time.process_time() - cpu0))
    await asyncio.sleep(a.drain)  # the last PUBACKs
    for t in tables:
        t.client.disconnect()
    await asyncio.sleep(0.2)
    for p in pumps:
        if p.misc is not None:
            p.misc.cancel()
    result = {
        "submitted": submitted,
        "alerts": alerts,
        "states": states,
        "pending": 0,
        "messages": len(schedule),
        "to_console": to_console,
        "late_p50_ms": round(statistics.median(late) * 1e3, 2) if late else None,
        "late_p99_ms": round(sorted(late)[int(0.99 * (len(late) - 1))] * 1e3, 2) if late else None,
    }
    (work / f"result-{a.first}.json").write_text(json.dumps(result))


async def _wait_file(path: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {path.name} within {timeout:.0f} s")
        await asyncio.sleep(0.05)
    return path.read_text()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--port", type=int, required=True, help="the broker's port (loopback)")
    ap.add_argument("--first", type=int, required=True, help="the first table's number")
    ap.add_argument("--count", type=int, required=True, help="how many tables")
    ap.add_argument("--seconds", type=float, required=True, help="how long to deal")
    ap.add_argument("--recording", required=True, help="bench/fleet_record.py's output")
    ap.add_argument("--drain", type=float, default=3.0, help="s to wait for the last PUBACKs")
    ap.add_argument("--workdir", required=True)
    asyncio.run(main_async(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
