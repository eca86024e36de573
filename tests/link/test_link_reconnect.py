"""The shared connect loop (controller.link.connect) against a real mosquitto: restarts of
the broker, what is logged, and a TLS client pointed at a plain-TCP broker."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest

from controller.link import BrokerConfig, VenueLink
from controller.link.connect import mqtt_error_of
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import plain_broker
from tests.link import samples
from tests.link.mqtt_helpers import Observer, until

pytestmark = pytest.mark.timeout(90)


def plain(port: int) -> BrokerConfig:
    return BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)


def test_defect_1_broker_restart_reconnects_on_3_11_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 11, defect 1: on CPython 3.11.2 (the Pi's /usr/bin/python3) the first broker
    restart ended VenueLink.run with ExceptionGroup('', [MqttError('Disconnected during
    message iteration')]) and the table never came back. Two real mosquitto restarts (a
    clean stop, then a kill): the link and the logger come back each time, the table is
    reborn with a new bdseq, and a hand submitted while the broker was down is stored."""
    caplog.set_level(logging.INFO, logger="controller.link.connect")

    async def main() -> None:
        with plain_broker() as b:
            hands = SqliteHandStore(tmp_path / "venue.db")
            logger = VenueLogger(plain(b.port), hands, backoff=(0.05, 0.3))
            link = VenueLink(
                plain(b.port), "v1", "t1", tmp_path / "t.db", backoff=(0.05, 0.3), ack_timeout=1
            )

            def stored(k: int) -> Callable[[], bool]:
                return lambda: hands.count() == k

            logger.start()
            task = link.start()
            await until(lambda: link.connected and link.logger_online, what="link up")
            first_bdseq = link.bdseq
            for n, how in ((1, b.stop), (2, b.kill)):
                how()
                await until(lambda: not link.connected and not logger.connected, what="down")
                link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
                b.start()
                await until(lambda: link.connected, timeout=20, what=f"reconnect {n}")
                await until(stored(n), timeout=20, what=f"hand {n} stored")
                assert not task.done(), task
            assert link.stats.connects == 3 and logger.stats.connects == 3
            # a new bdseq for every connection attempt (the will is fixed before connecting):
            # at least one per restart, more if an attempt found the broker not yet up
            assert first_bdseq is not None and link.bdseq is not None
            assert link.bdseq >= first_bdseq + 2
            async with Observer(b.port, ["railguard/v1/t1/status"]) as obs:
                await until(lambda: bool(obs.on("/status")), what="retained status")
            assert obs.on("/status")[-1]["status"] == "online"
            assert obs.on("/status")[-1]["bdseq"] == link.bdseq
            await link.stop()
            await logger.stop()
            hands.close()

    asyncio.run(main())
    text = caplog.text
    assert "venue link v1/t1: connected to 127.0.0.1" in text
    assert text.count("venue link v1/t1: reconnected to 127.0.0.1") == 2
    assert "venue link v1/t1: disconnected from 127.0.0.1" in text
    assert "venue logger main: reconnected" in text


def test_mqtt_error_is_found_inside_a_taskgroup_group() -> None:
    """What asyncio.TaskGroup raises when a child meets a lost connection, on the running
    interpreter (3.11.2 wraps what 3.11.4+ does not), is recognised; anything else is not."""

    async def failing(exc: BaseException) -> None:
        raise exc

    async def group_of(*excs: BaseException) -> BaseException:
        try:
            async with asyncio.TaskGroup() as tg:
                for e in excs:
                    tg.create_task(failing(e))
        except BaseException as caught:
            return caught
        raise AssertionError("no error")

    async def main() -> None:
        lost = aiomqtt.MqttError("Disconnected during message iteration")
        caught = await group_of(lost)
        assert isinstance(caught, BaseExceptionGroup)
        assert mqtt_error_of(caught) is lost
        try:  # the nesting the old `except* ... raise group.exceptions[0]` made on 3.11.2
            try:
                raise caught
            except* aiomqtt.MqttError as g:
                raise g.exceptions[0] from None
        except BaseException as twice:
            assert mqtt_error_of(twice) is lost, sys.version
        assert mqtt_error_of(lost) is lost
        assert mqtt_error_of(await group_of(ValueError("bug"))) is None
        assert mqtt_error_of(await group_of(aiomqtt.MqttError("x"), KeyError("y"))) is None
        assert mqtt_error_of(asyncio.CancelledError()) is None

    asyncio.run(main())


def test_tls_against_a_plain_broker_names_allow_plaintext(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 16: the logger with TLS against a plain-TCP broker looped on "Connection reset
    by peer"; it now says the handshake failed and names --allow-plaintext."""
    caplog.set_level(logging.INFO, logger="controller.link.connect")

    async def main() -> None:
        with plain_broker() as b:
            hands = SqliteHandStore(tmp_path / "venue.db")
            tls = BrokerConfig(host="127.0.0.1", port=b.port, tls=True, connect_timeout=3)
            logger = VenueLogger(tls, hands, backoff=(0.05, 0.2))
            logger.start()
            await until(lambda: "--allow-plaintext" in caplog.text, what="the hint")
            assert not logger.connected
            await logger.stop()
            hands.close()

    asyncio.run(main())
    line = next(r for r in caplog.records if "--allow-plaintext" in r.getMessage())
    assert line.levelno == logging.WARNING
    assert "TLS handshake with 127.0.0.1" in line.getMessage()
