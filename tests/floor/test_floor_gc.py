"""The console's garbage (issue 23): a message received through its MQTT client leaves no
reference cycle behind (paho's per-topic callback lookup made one a message), a per-topic
callback still works, and the collector settings railguard floor run applies."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import aiomqtt
from paho.mqtt.client import MQTTMessage

from controller.floor import gc_tune
from controller.floor.link import no_topic_callbacks


def _message(topic: bytes) -> MQTTMessage:
    m = MQTTMessage(topic=topic)
    m.payload = b"{}"
    return m


def _paho() -> Any:
    """The paho client of a console-style aiomqtt client (not connected: paho's receive path
    alone), with :func:`no_topic_callbacks` applied."""

    async def make() -> aiomqtt.Client:
        return aiomqtt.Client("127.0.0.1", 1)  # it wants a running loop

    client = asyncio.run(make())
    no_topic_callbacks(client)
    return client._client


def _cycles(paho: Any, messages: list[MQTTMessage]) -> int:
    """Objects only the collector frees, left by paho handling ``messages``."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for m in messages:
            paho._handle_on_message(m)
        gc.collect()
        return len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_received_message_leaves_no_reference_cycle() -> None:
    paho = _paho()
    got: list[str] = []
    paho.on_message = lambda _c, _u, m: got.append(m.topic)
    messages = [_message(f"railguard/v1/t{n}/state".encode()) for n in range(20)]
    assert _cycles(paho, messages) == 0
    assert got == [m.topic for m in messages]


def test_a_per_topic_callback_still_gets_its_messages() -> None:
    paho = _paho()
    general: list[str] = []
    alerts: list[str] = []
    paho.on_message = lambda _c, _u, m: general.append(m.topic)
    paho.message_callback_add("railguard/+/+/alerts", lambda _c, _u, m: alerts.append(m.topic))
    for topic in (b"railguard/v1/t1/alerts", b"railguard/v1/t1/state"):
        paho._handle_on_message(_message(topic))
    assert alerts == ["railguard/v1/t1/alerts"] and general == ["railguard/v1/t1/state"]


def test_after_start_freezes_and_sets_the_thresholds() -> None:
    saved = gc.get_threshold()
    try:
        gc_tune.after_start()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == gc_tune.THRESHOLDS
        frozen = gc.get_freeze_count()
        kept = [[n] for n in range(100)]  # lists: tracked containers
        gc_tune.after_load()
        assert gc.get_freeze_count() >= frozen + len(kept)
    finally:
        gc.unfreeze()
        gc.set_threshold(*saved)
