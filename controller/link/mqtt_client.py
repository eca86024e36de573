"""aiomqtt's client, with the stops its calls swallow on Python 3.11 raised again.

On CPython 3.11 ``asyncio.wait_for`` returns its future's result when the future completes
as a cancel of the waiting task arrives (gh-86296, fixed by 3.12's rewrite of ``wait_for``),
and aiomqtt awaits it in ``publish``, ``subscribe`` and ``unsubscribe``: the call returns
normally, the task's cancel request stays counted (``Task.cancelling()``) and nothing raises
it. A stop that lands there was lost: ``railguard venue-log run`` went on waiting for
messages after Ctrl-C or systemd's SIGTERM (found by CI: the SIGINT came as the logger
subscribed), and a link or a floor console stopped in the same moment would have been
awaited for ever.

:class:`Client` raises ``CancelledError`` after such a call when the task's cancel count
grew during it. Comparing with the count before the call (not with zero) keeps it right on
3.11.2, whose ``TaskGroup`` can leave a request of its own counted on the parent task after
a session's failure (controller/link/connect.py). The venue link, the logger and the console
get their clients from :meth:`BrokerConfig.make_client`, which makes this one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt

__all__ = ["Client"]


def _asked() -> int:
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


def _raise_if_swallowed(before: int) -> None:
    if _asked() > before:
        raise asyncio.CancelledError


class Client(aiomqtt.Client):
    """:class:`aiomqtt.Client` whose ``publish``, ``subscribe`` and ``unsubscribe`` never
    return normally to a task that was asked to stop during the call."""

    async def publish(self, *args: Any, **kwargs: Any) -> None:
        before = _asked()
        await super().publish(*args, **kwargs)
        _raise_if_swallowed(before)

    async def subscribe(self, *args: Any, **kwargs: Any) -> Any:
        before = _asked()
        out = await super().subscribe(*args, **kwargs)
        _raise_if_swallowed(before)
        return out

    async def unsubscribe(self, *args: Any, **kwargs: Any) -> None:
        before = _asked()
        await super().unsubscribe(*args, **kwargs)
        _raise_if_swallowed(before)

    def publish_now(
        self, topic: str, payload: bytes, qos: int = 1, retain: bool = False
    ) -> mqtt.MQTTMessageInfo:
        """Hand a message to paho and write it to the socket now, without waiting for the
        event loop's next turn (aiomqtt's ``publish`` leaves the write to a writer callback
        of the loop); :meth:`wait_published` then waits for the broker's PUBACK.
        ``MqttCodeError`` if paho refused it (not connected, its queue full).

        paho's publish asks aiomqtt for a writer callback, which aiomqtt adds on the loop's
        next turn (``call_soon_threadsafe``: a write to the loop's wake-up socket before the
        message's own, a turn of the loop to add the callback, then one to drop it again,
        since the message was written here by then). Told that a writer is registered
        already while it queues the message, paho asks for none; the write below then
        registers one only if bytes are left over (a full socket buffer), as paho does."""
        paho = self._client
        registered = paho._registered_write
        paho._registered_write = True  # no writer callback for the write done here
        try:
            info = paho.publish(topic, payload, qos, retain)
        finally:
            paho._registered_write = registered
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            raise aiomqtt.MqttCodeError(info.rc, "Could not publish message")
        # what paho does itself outside an external loop (Client._packet_queue); a socket
        # error here is the reader's to report. It registers aiomqtt's writer callback if
        # paho still has bytes to write (and drops one no longer needed)
        with contextlib.suppress(OSError):
            paho.loop_write()
        sock = paho.socket()
        if registered and sock is not None:
            # a writer callback asked for before this call (another publish's) may still
            # be on its way to the loop: the write above found it not added yet, and once
            # added it would run on every turn while the socket is writable (a busy loop).
            # Drop it after that add, unless paho still has bytes to write by then.
            self._loop.call_soon(self._drop_idle_writer, sock.fileno())
        return info

    def _drop_idle_writer(self, fd: int) -> None:
        if not self._client._registered_write:
            self._loop.remove_writer(fd)

    async def wait_published(
        self, info: mqtt.MQTTMessageInfo, timeout: float | None = None
    ) -> None:
        """Wait until a message of :meth:`publish_now` is published (QoS 1: acknowledged),
        as aiomqtt's ``publish`` waits; ``MqttError`` on a timeout."""
        before = _asked()
        if not info.is_published():
            confirmation = asyncio.Event()
            with self._pending_call(info.mid, confirmation, self._pending_publishes):
                await self._wait_for(confirmation.wait(), timeout=timeout)
        _raise_if_swallowed(before)
