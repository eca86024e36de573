"""A venue program's subscribing client: the floor console's watch of the event topics and
the tournament service's connection (controller/floor/tournament.py,
controller/tournament/link.py).

A fresh client (the owner's ``client_id()``) for every connection: subscribe to the topics, run the
owner's ``on_up``, hand every message's topic and payload bytes to ``on_message``; on a
broker error, log it and connect again after a back-off (0.2 s doubling to 10 s). The client
in use is :attr:`Subscription.client` (None while down), for the owner's publishes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

import aiomqtt

from controller.link.config import BrokerConfig


class Subscription:
    def __init__(
        self,
        broker: BrokerConfig,
        client_id: Callable[[], str],
        topics: Sequence[tuple[str, int]],
        on_message: Callable[[str, bytes], None],
        *,
        log: logging.Logger,
        label: str,
        on_up: Callable[[], Awaitable[None]] | None = None,
        connected: asyncio.Event | None = None,
    ) -> None:
        """``client_id``: a new client id for each connection; ``label``: the log lines'
        start (``"floor: event topics"``); ``connected``: the owner's event, set while
        subscribed (a new one if not given)."""
        self.broker, self.client_id, self.topics = broker, client_id, topics
        self.on_message, self.on_up = on_message, on_up
        self.log, self.label = log, label
        self.client: aiomqtt.Client | None = None
        self.connected = asyncio.Event() if connected is None else connected

    async def run(self) -> None:
        """Connect, serve, reconnect: until cancelled."""
        delay = 0.2
        while True:
            client = self.broker.make_client(self.client_id())
            try:
                async with client:
                    for topic, qos in self.topics:
                        await client.subscribe(topic, qos=qos)
                    self.client, delay = client, 0.2
                    self.connected.set()
                    if self.on_up is not None:
                        await self.on_up()
                    async for m in client.messages:
                        raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                        self.on_message(m.topic.value, raw)
            except aiomqtt.MqttError as exc:
                self.log.warning("%s: %s; retrying in %.1f s", self.label, exc, delay)
            finally:
                self.client = None
                self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
