"""The alert's direct path (``VenueLink.publish_alert`` with the link connected and idle):
the alert is on the broker's socket when the call returns, keeps its place in the seq
order with the messages queued after it, and leaves no writer callback behind on the loop
(aiomqtt adds paho's write request on the loop's next turn: left registered on a writable
socket, it ran on every turn, a busy loop that cost the daemon about 7 ms of CPU an
alert; docs/performance.md)."""

from __future__ import annotations

import asyncio
import selectors
from pathlib import Path

from controller.link import BrokerConfig, VenueLink
from controller.link.mqtt_client import Client
from tests.brokers import plain_broker
from tests.link import samples
from tests.link.mqtt_helpers import Observer, until


def _writer_registered(loop: asyncio.AbstractEventLoop, fd: int) -> bool:
    key = loop._selector.get_map().get(fd)  # type: ignore[attr-defined]
    return key is not None and bool(key.events & selectors.EVENT_WRITE)


def test_direct_alert_goes_out_in_order_and_leaves_no_writer(tmp_path: Path) -> None:
    async def main() -> None:
        with plain_broker() as b:
            async with Observer(b.port, ["railguard/v1/t1/#"]) as obs:
                broker = BrokerConfig(host="127.0.0.1", port=b.port, tls=False,
                                      allow_plaintext=True)  # fmt: skip
                link = VenueLink(broker, "v1", "t1", tmp_path / "outbox.db")
                link.start()
                try:
                    await link.wait_connected(10)
                    await asyncio.sleep(0.2)  # the birth's messages acknowledged
                    client = link._client
                    assert isinstance(client, Client)
                    sock = client._client.socket()
                    assert sock is not None
                    loop = asyncio.get_running_loop()
                    ids = []
                    for _ in range(5):
                        ids.append(link.publish_alert(samples.alert()))
                        # direct: nothing queued but the wait for its PUBACK
                        assert [k for k, _ in link._queue] == ["alert_sent"]
                        assert link.publish_event("bet", {"seat": 1, "amount": 500})
                        assert link.queued_count == 2  # the writer has not run since
                        await until(lambda: link.queued_count == 0, what="the writer drained")
                    await until(lambda: len(obs.on("/t1/alerts")) == 5, what="alerts")
                    await until(lambda: len(obs.on("/t1/events")) == 5, what="events")
                    assert [m["alert_id"] for m in obs.on("/t1/alerts")] == ids
                    seqs = sorted(
                        [(m["seq"], "alert") for m in obs.on("/t1/alerts")]
                        + [(m["seq"], "event") for m in obs.on("/t1/events")]
                    )
                    assert [k for _, k in seqs] == ["alert", "event"] * 5
                    await asyncio.sleep(0.05)
                    assert not _writer_registered(loop, sock.fileno())
                finally:
                    await link.stop()

    asyncio.run(main())
