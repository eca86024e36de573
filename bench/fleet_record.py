"""Record what real tables put on the wire, for the festival's replayed fleet (issue 23):
``python bench/fleet_record.py --tables 50 --seconds 96 --out rec.pickle``.

``--tables`` template tables (``tpl000``...) deal as bench/fleet_tables.py's tables do: each
its own ``controller.link.VenueLink`` publishing the daemon's own payloads (the redacted
state after every change, the live events, real alerts of injected dealer errors and their
ACK, the OHH hand records through the outbox, sent while a logger is online), against a
private mosquitto and one ``railguard venue-log run`` on SQLite (the records are sent only
while a logger's status says online, and acknowledged). Every MQTT message the links hand
to paho is recorded where they hand it (``paho.mqtt.client.Client.publish``, which
aiomqtt's ``publish`` and the link's ``publish_now`` both call): the wall time, the client
id, topic, payload bytes, QoS and retain; and each client's will (``will_set``) and
subscriptions (``subscribe``). The time origin is the moment the dealing starts; messages
before it (the birth) have negative times.

The recording is a pickle of ``{"seconds", "origin" (the start's wall time), "period",
"tables": {name: {"client_id",
"will", "subscriptions", "messages": [(t, topic, payload, qos, retain), ...]}}}``;
bench/fleet_replay.py replays it for many tables.
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import paho.mqtt.client as paho  # noqa: E402

from bench.fleet_tables import HUMAN_HAND_S, FleetTable, scripts  # noqa: E402
from bench.procs import wait_for  # noqa: E402
from controller.link import BrokerConfig, VenueLink  # noqa: E402
from hwsim.table import railguard_argv  # noqa: E402

PREFIX = "tpl"


class Recorder:
    """Wraps paho's ``publish``, ``will_set`` and ``subscribe`` in this process."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, Any]] = {}
        self.saved = (paho.Client.publish, paho.Client.will_set, paho.Client.subscribe)

    def _table(self, client: paho.Client) -> dict[str, Any] | None:
        cid = client._client_id.decode()
        name = cid.rsplit("-", 1)[-1]
        if not name.startswith(PREFIX):
            return None
        return self.tables.setdefault(
            name, {"client_id": cid, "will": None, "subscriptions": [], "messages": []}
        )

    def install(self) -> None:
        publish, will_set, subscribe = self.saved
        rec = self

        def rec_publish(self: paho.Client, topic: str, payload: Any = None, qos: int = 0,
                        retain: bool = False, properties: Any = None) -> Any:  # fmt: skip
            t = rec._table(self)
            if t is not None:
                data = payload if isinstance(payload, bytes) else str(payload or "").encode()
                t["messages"].append((time.time(), topic, data, qos, bool(retain)))
            return publish(self, topic, payload, qos, retain, properties)

        def rec_will(self: paho.Client, topic: str, payload: Any = None, qos: int = 0,
                     retain: bool = False, properties: Any = None) -> None:  # fmt: skip
            t = rec._table(self)
            if t is not None:
                data = payload if isinstance(payload, bytes) else str(payload or "").encode()
                t["will"] = (topic, data, qos, bool(retain))
            will_set(self, topic, payload, qos, retain, properties)

        def rec_subscribe(self: paho.Client, topic: Any, *args: Any, **kwargs: Any) -> Any:
            t = rec._table(self)
            if t is not None and isinstance(topic, list):
                t["subscriptions"] = [(str(x[0]), int(x[1])) for x in topic]
            return subscribe(self, topic, *args, **kwargs)

        paho.Client.publish = rec_publish  # type: ignore[method-assign]
        paho.Client.will_set = rec_will  # type: ignore[method-assign]
        paho.Client.subscribe = rec_subscribe  # type: ignore[method-assign]

    def uninstall(self) -> None:
        (paho.Client.publish, paho.Client.will_set, paho.Client.subscribe) = self.saved  # type: ignore[method-assign]


async def record(port: int, a: argparse.Namespace, work: Path) -> dict[str, Any]:
    rec = Recorder()
    rec.install()
    with (work / "logger.log").open("ab") as logf:
        logger = subprocess.Popen(
            [*railguard_argv(), "venue-log", "run", "--db", str(work / "venue.db"), "--host",
             "127.0.0.1", "--port", str(port), "--allow-plaintext"],
            stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    names = [f"{PREFIX}{i:03d}" for i in range(a.tables)]
    links = [VenueLink(broker, "v1", t, work / f"{t}.db", backoff=(0.2, 2.0)) for t in names]
    pool, alerts = scripts()
    rng = random.Random(a.seed)
    tables = [FleetTable(x, random.Random(rng.random()), a.speed, a.alert_every) for x in links]
    try:
        for link in links:
            link.start()
        await wait_for(lambda: all(x.logger_online for x in links), "tables online", 120)
        start = time.time() + 0.5
        await asyncio.sleep(0.5)
        stop_at = start + a.seconds
        await asyncio.gather(*(t.deal(pool, alerts, stop_at) for t in tables))
        await asyncio.sleep(max(0.0, stop_at - time.time()))
    finally:
        for link in links:
            await link.stop()
            link.outbox.close()
        rec.uninstall()
        logger.terminate()
        try:
            logger.wait(10)
        except subprocess.TimeoutExpired:
            logger.kill()
            logger.wait(5)
    for t in rec.tables.values():
        t["messages"] = [(m[0] - start, *m[1:]) for m in t["messages"] if m[0] <= stop_at]
    return {"seconds": a.seconds, "origin": start, "period": HUMAN_HAND_S / a.speed,
            "speed": a.speed,
            "alert_every": a.alert_every, "tables": rec.tables}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--tables", type=int, default=50, help="template tables (default 50)")
    ap.add_argument("--seconds", type=float, required=True, help="how long to deal")
    ap.add_argument("--speed", type=float, default=10.0, help="times human speed")
    ap.add_argument("--alert-every", type=int, default=5, help="an alert every N hands")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--out", type=Path, required=True, help="the recording (a pickle)")
    a = ap.parse_args(argv)
    if a.tables < 1 or a.seconds <= 0:
        ap.error("--tables and --seconds must be positive")
    from hwsim.broker import plain_broker

    with tempfile.TemporaryDirectory(prefix="railguard-record-") as tmp, plain_broker() as b:
        r = asyncio.run(record(b.port, a, Path(tmp)))
    tmp_out = a.out.with_suffix(".tmp")
    with tmp_out.open("wb") as f:
        pickle.dump(r, f, protocol=pickle.HIGHEST_PROTOCOL)
    tmp_out.rename(a.out)
    n = sum(len(t["messages"]) for t in r["tables"].values())
    print(f"recorded {len(r['tables'])} tables, {n} messages, {a.seconds:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
