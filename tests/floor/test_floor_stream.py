"""The console at festival scale (bench/fleet.py): the live stream in frames, the client's
queue that lets an alert overtake the states waiting before it, and the live events dropped
from their bytes. Each is checked against what it must keep: every alert and ACK, in order;
never an older state after a newer one; the format floor.js reads (server-sent events as
the WHATWG spec parses them, read here by a plain HTTP client of the real console)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt

from bench.fleet_tables import scripts
from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.floor.link import AlertsFirst, FloorLink, shown_event
from controller.floor.room import Room
from controller.floor.stream import KEEPALIVE, MAX_BEHIND, Frames
from controller.link import schemas
from controller.link.config import BrokerConfig
from tests.brokers import free_port, plain_broker


def sse_events(data: bytes) -> list[dict[str, Any]]:
    """The events of a server-sent-event stream, as the spec's parser dispatches them:
    blank-line separated blocks, ``data:`` lines joined, ``:`` lines comments."""
    out = []
    for block in data.decode().split("\n\n"):
        lines = [ln[5:].removeprefix(" ") for ln in block.split("\n") if ln.startswith("data:")]
        if lines:
            out.append(json.loads("\n".join(lines)))
    return out


def _tile(table: str, hand_no: int) -> dict[str, Any]:
    return {"type": "tile", "tile": {"key": f"v1/{table}", "state": {"hand_no": hand_no},
                                     "alerts": []}}  # fmt: skip


def test_a_frame_holds_each_tables_latest_tile_and_every_alert_in_order() -> None:
    async def run() -> tuple[list[bytes], list[bytes]]:
        frames = Frames(frame_s=3600.0)  # no frame ends by itself: only an alert sends one
        client = frames.open()
        for n in range(1, 51):
            frames.add([_tile("t1", n), _tile("t2", 100 + n)])
        idle = await client.take(keepalive=0.2)  # nothing sent yet: the frame is open
        alert = {"type": "alert", "alert": {"alert_id": "a1", "table": "t1"}}
        frames.add([alert, _tile("t1", 51)])
        frames.add([{"type": "ack", "key": "v1/t1", "alert_id": "a1", "by": "sam"},
                    _tile("t1", 52)])  # fmt: skip
        first = await client.take(keepalive=10)  # sent at once, for the alert
        frames.add([_tile("t2", 999)])
        frames.flush()
        return [idle, first], [await client.take(keepalive=10)]

    (idle, first), (second,) = asyncio.run(run())
    assert idle == KEEPALIVE
    got = sse_events(first)
    # t2's latest, then the alert, the ACK after it, and t1's latest (after both)
    assert [(e["type"], e.get("tile", {}).get("key")) for e in got] == [
        ("tile", "v1/t2"), ("alert", None), ("ack", None), ("tile", "v1/t1")]  # fmt: skip
    assert got[0]["tile"]["state"]["hand_no"] == 150 and got[3]["tile"]["state"]["hand_no"] == 52
    assert sse_events(second) == [_tile("t2", 999)]


def test_a_stream_that_falls_behind_is_closed_not_buffered_without_bound() -> None:
    async def run() -> tuple[bytes | None, bytes | None]:
        frames = Frames()
        slow, fresh = frames.open(), None
        for n in range(MAX_BEHIND + 1):
            frames.add([_tile("t1", n)])
            frames.flush()
            if n == MAX_BEHIND - 1:
                fresh = frames.open()  # opened later: reads its own frames
        assert fresh is not None
        return await slow.take(1), await fresh.take(1)

    slow, fresh = asyncio.run(run())
    assert slow is None  # the page reconnects and reads a snapshot
    assert fresh is not None and [e["tile"]["state"]["hand_no"] for e in sse_events(fresh)] == [
        MAX_BEHIND
    ]


def _message(topic: str, n: int) -> aiomqtt.Message:
    return aiomqtt.Message(topic, str(n).encode(), 0, False, n, None)


def test_alerts_and_responses_overtake_queued_states_an_ack_does_not() -> None:
    async def run() -> list[tuple[str, bytes]]:
        q = AlertsFirst()
        for n, topic in enumerate(("railguard/v1/t1/state", "railguard/v1/t1/events",
                                   "railguard/v1/t1/alerts", "railguard/v1/t2/state",
                                   "railguard/v1/t1/cmd/response", "railguard/v1/t1/alerts",
                                   "railguard/v1/t1/state")):  # fmt: skip
            q.put_nowait(_message(topic, n))
        assert q.qsize() == 7 and not q.empty()
        out = []
        while not q.empty():
            m = await q.get()
            out.append((m.topic.value.split("/", 3)[3], m.payload))
        return out  # type: ignore[return-value]

    assert asyncio.run(run()) == [("alerts", b"2"), ("cmd/response", b"4"), ("alerts", b"5"),
                                  ("state", b"0"), ("events", b"1"), ("state", b"3"),
                                  ("state", b"6")]  # fmt: skip


def test_events_dropped_from_their_bytes_are_never_an_alert_ack() -> None:
    pool, _ = scripts(n=3)
    raws = [json.dumps({"seq": 1, "kind": body[0], "data": body[1]}).encode()
            for s in pool for what, body in s.steps if what == "event"]  # fmt: skip
    ack = {"seq": 1, "bdseq": 1, "ts": 1.0, "kind": "alert_ack", "data": {"alert_id": "a"}}
    raws += [json.dumps(ack).encode(), json.dumps(ack, indent=2).encode(),
             json.dumps(ack).replace("alert_ack", "\\u0061lert_ack").encode(),
             json.dumps(ack).replace("alert_ack", "alert\\u005fack").encode()]  # fmt: skip
    for raw in raws:
        is_ack = json.loads(raw)["kind"] == "alert_ack"  # what the parser decides
        assert shown_event(raw) or not is_ack, raw
    dropped = sum(not shown_event(r) for r in raws)
    assert dropped == len(raws) - 4  # the hands' own events: none is an ACK, all dropped


async def _console_stream(tmp: Path, broker_port: int) -> tuple[bytes, list[int]]:
    users = tmp / "users.toml"
    users.write_text(f'[users.sam]\nrole = "supervisor"\npassword = "{hash_password("pw")}"\n')
    broker = BrokerConfig(host="127.0.0.1", port=broker_port, tls=False, allow_plaintext=True)
    cfg = FloorConfig(broker=broker, users_file=str(users), port=free_port())
    runner, console = await start(cfg)
    pool, alerts = scripts(n=2)
    states = [body for s in pool for what, body in s.steps if what == "state"]
    try:
        await asyncio.wait_for(console.link.connected.wait(), 10)
        base = f"http://127.0.0.1:{cfg.port}"
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
            r = await s.post(f"{base}/api/login", json={"user": "sam", "password": "pw"})
            assert r.status == 200
            stream = await s.get(f"{base}/api/stream")
            got = b""
            async with aiomqtt.Client("127.0.0.1", broker_port, identifier="t1") as table:
                sent = []
                for n, body in enumerate(states * 4, 1):  # a table dealing flat out
                    stamp = {"seq": n, "bdseq": 1, "ts": time.time(), "hand_no": n}
                    await table.publish("railguard/v1/t1/state", json.dumps({**body, **stamp}),
                                        qos=1)  # fmt: skip
                    sent.append(n)
                    if n == len(states):
                        alert = {**alerts[0], "alert_id": "a1", "seq": n, "bdseq": 1,
                                 "ts": time.time(), "seat": alerts[0].get("seat")}  # fmt: skip
                        await table.publish("railguard/v1/t1/alerts", json.dumps(alert), qos=1)
                ack = {"seq": 0, "bdseq": 1, "ts": time.time(), "kind": "alert_ack",
                       "hand_no": 1, "data": {"alert_id": "a1", "by": "dealer"}}  # fmt: skip
                await table.publish("railguard/v1/t1/events", json.dumps(ack), qos=1)
                last = sent[-1]
                while f'"hand_no": {last},'.encode() not in got or b'"type": "ack"' not in got:
                    got += await asyncio.wait_for(stream.content.readany(), 10)
            stream.close()
        return got, sent
    finally:
        await stop(runner, console)


def test_the_console_streams_every_alert_and_never_an_older_state(tmp_path: Path) -> None:
    with plain_broker() as b:
        got, sent = asyncio.run(_console_stream(tmp_path, b.port))
    events = sse_events(got)
    assert events[0]["type"] == "snapshot"
    hands = [e["tile"]["state"]["hand_no"] for e in events if e["type"] == "tile"]
    assert hands == sorted(hands) and hands[-1] == sent[-1]  # never an older one after a newer
    kinds = [e["type"] for e in events if e["type"] != "tile"]
    assert kinds == ["snapshot", "alert", "ack"]
    alert = next(e["alert"] for e in events if e["type"] == "alert")
    assert alert["alert_id"] == "a1" and alert["table"] == "t1"
    assert not next(e for e in reversed(events) if e["type"] == "tile")["tile"]["alerts"]


def test_floats_the_parser_saw_are_judged_as_jsonschema_judges_them() -> None:
    """The link tells the schema check whether the parser met a float like 3.0 (instead of
    a walk of the payload): a payload with one is still judged by jsonschema, the authority."""
    pool, _ = scripts(n=1)
    state = next(body for s in pool for what, body in s.steps if what == "state")
    base = {**state, "seq": 1, "bdseq": 1, "ts": 1.5, "hand_no": 1}
    cases = [base, {**base, "ts": 2.0}, {**base, "pot": 300.0}, {**base, "pot": 300},
             {**base, "hand_no": 1e0}, {**base, "pot": 1.5}]  # fmt: skip
    for body in cases:
        room = Room()
        link = FloorLink(BrokerConfig(tls=False, allow_plaintext=True), room)  # not started
        link._handle("railguard/v1/t1/state", json.dumps(body).encode())
        valid = not schemas.errors("state", json.loads(json.dumps(body)))
        assert (room.refused, len(room.tiles)) == ((0, 1) if valid else (1, 0)), body
    assert [not schemas.errors("state", c) for c in cases] == [True, True, False, True, False,
                                                               False]  # fmt: skip
