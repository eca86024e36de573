"""Two rooms' worth of brokers: a room broker bridged to the central one with mosquitto's own
bridge, configured exactly as docs/deployment.md says ("Several rooms": its bridge block
verbatim but for the central broker's address, the CA file and the password), the central
broker running the documented configuration and ACL plus the documented bridge user.

A table (``VenueLink``) on the room broker; the venue logger and the floor console's link on
the central one. Checked: the bridge reports itself up on the central broker; the table sees
the central logger online (its retained status comes in over the bridge); hand records
reach the logger's store and the acknowledgements go back to the table (its outbox drains);
the table's live state and an alert reach the console's room; a command sent by the
console reaches the table and its answer comes back; and what the bridge carries obeys the
central ACL (a dashboard on the central broker never sees a hand record)."""

from __future__ import annotations

import asyncio
import re
import ssl
from pathlib import Path
from typing import Any

import pytest
import trustme

from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.link import BrokerConfig, CommandResult, SeatPlayer, VenueLink
from controller.link.commands import Command
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import broker_on_free_ports, documented_broker
from tests.link import samples
from tests.link.mqtt_helpers import Observer, until

pytestmark = pytest.mark.timeout(60)
DOC = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
USERS = {
    "venuelog": "pw-log",
    "venue": "pw-venue",
    "dashboard": "pw-dash",
    "bridge-room-a": "pw-bridge-a",
    "monitor": "pw-mon",
}


def doc_block(name: str) -> str:
    m = re.search(
        rf"<!-- {name}:begin -->\s*```conf\n(.*?)```\s*<!-- {name}:end -->", DOC.read_text(), re.S
    )
    assert m, f"docs/deployment.md lost its {name} block"
    return m.group(1)


def room_bridge(central_port: int, cafile: str) -> str:
    """The documented bridge block with the test's address, CA file and password: each of
    the three lines replaced exactly once, every other line verbatim."""
    swap = {
        "address": f"127.0.0.1:{central_port}",
        "bridge_cafile": cafile,
        "remote_password": USERS["bridge-room-a"],
    }
    seen, lines = [], []
    for text in doc_block("bridge").splitlines():
        key = text.split(" ", 1)[0]
        if key in swap:
            seen.append(key)
        lines.append(f"{key} {swap[key]}" if key in swap else text)
    assert sorted(seen) == sorted(swap), seen
    block = "\n".join(lines) + "\n"
    assert "remote_username bridge-room-a" in block
    return block


def tls(port: int, ctx: ssl.SSLContext, user: str) -> BrokerConfig:
    return BrokerConfig(
        host="127.0.0.1", port=port, username=user, password=USERS[user], ssl_context=ctx
    )


def test_room_broker_bridged_to_the_central_one(tmp_path: Path) -> None:
    ca = trustme.CA()
    acl = doc_block("acl") + "\n" + doc_block("bridge-acl") + "\nuser monitor\ntopic read #\n"
    conf = doc_block("conf")

    async def on_command(cmd: Command) -> CommandResult:
        if isinstance(cmd, SeatPlayer):
            return CommandResult.success(seat=cmd.seat)
        return CommandResult.error("not in this test")

    async def main(central: Any, room_port: int) -> None:
        port = central.info["tls_port"]
        ctx = ssl.create_default_context()
        ca.configure_trust(ctx)
        mon_kw = {"username": "monitor", "password": USERS["monitor"], "tls_context": ctx}
        dash_kw = {"username": "dashboard", "password": USERS["dashboard"], "tls_context": ctx}
        async with (
            Observer(port, ["#"], **mon_kw) as mon,
            Observer(port, ["railguard/#"], **dash_kw) as dash,
            Observer(room_port, ["railguard/#"]) as in_room,
        ):
            # the bridge's own notification, retained on the central broker
            await until(lambda: [m for t, m, _ in mon.messages
                                 if t == "railguard/_bridge/room-a/state"] == [1],
                        what="the bridge up on the central broker")  # fmt: skip
            hands = SqliteHandStore(tmp_path / "venue.db")
            logger = VenueLogger(tls(port, ctx, "venuelog"), hands, instance="central")
            room = Room()
            floor = FloorLink(tls(port, ctx, "venue"), room)
            link = VenueLink(BrokerConfig(host="127.0.0.1", port=room_port, tls=False,
                                          allow_plaintext=True),
                             "v1", "t1", tmp_path / "t1.db", on_command)  # fmt: skip
            logger.start()
            floor.start()
            await logger.wait_connected(5)
            await asyncio.wait_for(floor.connected.wait(), 5)
            link.publish_state(samples.state(pot=700))
            link.start()
            # the central logger's retained status came into the room over the bridge
            await until(lambda: link.logger_online, what="the room's table sees the logger")

            # hand records: room -> central logger, acknowledgements back to the table
            for n in (1, 2, 3):
                link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
            await until(lambda: hands.count() == 3, what="3 hands stored centrally")
            await until(lambda: link.outbox.pending_count() == 0, what="acks back in the room")
            assert [h["hand_id"] for h in hands.hands()] == ["v1-t1-1", "v1-t1-2", "v1-t1-3"]

            # live state and an alert: room -> the console's room on the central broker
            await until(lambda: "v1/t1" in room.tiles and room.tiles["v1/t1"].state.get("pot")
                        == 700, what="the tile's state")  # fmt: skip
            alert_id = link.publish_alert(samples.alert("EXPOSED_CARD", 4))
            await until(lambda: alert_id in room.tiles["v1/t1"].alerts, what="the alert")
            assert room.tiles["v1/t1"].status == "online"

            # a command from the console: central -> room -> table, the answer back
            r = await floor.command("v1", "t1", "seat", {"seat": 4, "player_id": "p9",
                                    "name": "Negreanu", "stack": 50000}, "sam")  # fmt: skip
            assert r["ok"] is True and r["data"] == {"seat": 4}, r
            assert any(t == "railguard/v1/t1/cmd" for t, _, _ in in_room.messages)

            # the central ACL holds for what the bridge carries: no hand record for a screen
            assert dash.on("/t1/state") and dash.on("/t1/alerts")
            assert not dash.on("/t1/hands")
            assert len([1 for t, _, _ in mon.messages if t == "railguard/v1/t1/hands"]) >= 3

            await link.stop()
            await until(lambda: room.tiles["v1/t1"].status == "offline", what="offline seen")
            await floor.stop()
            await logger.stop()
            hands.close()

    with documented_broker(conf, users=USERS, acl=acl, ca=ca) as central:
        bridge = room_bridge(central.info["tls_port"], central.info["cafile"])
        with broker_on_free_ports(
            1, lambda ports: f"listener {ports[0]} 127.0.0.1\nallow_anonymous true\n{bridge}"
        ) as room_broker:
            try:
                asyncio.run(main(central, room_broker.port))
            except BaseException:
                print("room broker log:\n", room_broker.log[-3000:])
                print("central broker log:\n", central.log[-3000:])
                raise
