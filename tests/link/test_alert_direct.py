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
from typing import Any

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
                    # paho is told not to ask aiomqtt for a writer callback (which would
                    # come through call_soon_threadsafe: a write to the loop's wake-up
                    # socket before the alert's own, and two more turns of the loop)
                    asked: list[object] = []
                    threadsafe = loop.call_soon_threadsafe

                    def counted(callback: Any, *args: Any, **kw: Any) -> asyncio.Handle:
                        asked.append(callback)
                        return threadsafe(callback, *args, **kw)

                    loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
                    ids = []
                    for _ in range(5):
                        ids.append(link.publish_alert(samples.alert()))
                        assert asked == []
                        # direct: nothing queued but the wait for its PUBACK
                        assert [k for k, _ in link._queue] == ["alert_sent"]
                        assert link.publish_event("bet", {"seat": 1, "amount": 500})
                        assert link.queued_count == 2  # the writer has not run since
                        await until(lambda: link.queued_count == 0, what="the writer drained")
                        asked.clear()  # (the event went out through aiomqtt's publish)
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


def test_publish_now_behind_a_pending_writer_leaves_none(tmp_path: Path) -> None:
    """A message paho queued through aiomqtt just before (its writer callback still on its
    way to the loop) goes out with the direct one, and the callback, added after the
    write, is dropped again."""

    async def main() -> None:
        with plain_broker() as b:
            async with Observer(b.port, ["bench/#"]) as obs:
                client = Client("127.0.0.1", b.port, identifier="direct-behind")
                async with client:
                    sock = client._client.socket()
                    assert sock is not None
                    loop = asyncio.get_running_loop()
                    first = client._client.publish("bench/a", b"{}", 1)  # as aiomqtt does
                    assert client._client._registered_write  # asked for, not added yet
                    second = client.publish_now("bench/b", b"{}", 1)
                    await client.wait_published(first, 5)
                    await client.wait_published(second, 5)
                    await asyncio.sleep(0.05)
                    assert not _writer_registered(loop, sock.fileno())
                await until(lambda: len(obs.messages) == 2, what="both messages")

    asyncio.run(main())
