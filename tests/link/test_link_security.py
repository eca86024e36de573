"""mosquitto with the documented ACL, a password file and a TLS listener (trustme certs):
tables cannot write other tables' topics, dashboards cannot read hand records, TLS works and
plain TCP is refused."""

from __future__ import annotations

import asyncio
import re
import ssl
import uuid
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import trustme

from controller.link import BrokerConfig, VenueLink
from controller.rules.errors import ConfigError
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import documented_broker, secure_broker
from tests.link import samples
from tests.link.mqtt_helpers import Observer, until

pytestmark = pytest.mark.timeout(60)
DOC = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"
USERS = {
    "v1/t1": "pw-t1",
    "v1/t2": "pw-t2",
    "venuelog": "pw-log",
    "dashboard": "pw-dash",
    "venue": "pw-venue",
    "monitor": "pw-mon",
    "prober": "pw-probe",
}


def documented_acl() -> str:
    m = re.search(
        r"<!-- acl:begin -->\s*```conf\n(.*?)```\s*<!-- acl:end -->", DOC.read_text(), re.S
    )
    assert m, "docs/deployment.md lost its ACL block"
    # A test-only user that may read everything, to see what really got through.
    return m.group(1) + "\nuser monitor\ntopic read #\n"


def tls_cfg(port: int, ctx: ssl.SSLContext, user: str) -> BrokerConfig:
    return BrokerConfig(
        host="127.0.0.1", port=port, username=user, password=USERS[user], ssl_context=ctx
    )


def test_plaintext_is_refused_by_config() -> None:
    with pytest.raises(ConfigError, match="allow_plaintext"):
        BrokerConfig(host="127.0.0.1", port=1, tls=False)
    with pytest.raises(ConfigError, match="allow_plaintext"):
        BrokerConfig.from_mapping({"host": "x", "tls": False})
    assert BrokerConfig.from_mapping({"tls": False, "allow_plaintext": True}).effective_port == 1883


def test_acl_tls_and_passwords(tmp_path: Path) -> None:
    ca = trustme.CA()

    async def main() -> None:
        with secure_broker(users=USERS, acl=documented_acl(), ca=ca) as b:
            port = b.info["tls_port"]
            ctx = ssl.create_default_context()
            ca.configure_trust(ctx)
            kw = {"username": "monitor", "password": USERS["monitor"], "tls_context": ctx}
            dash_kw = {"username": "dashboard", "password": USERS["dashboard"], "tls_context": ctx}
            async with (
                Observer(port, ["#"], **kw) as mon,
                Observer(port, ["railguard/#"], **dash_kw) as dash,
            ):
                hands = SqliteHandStore(tmp_path / "venue.db")
                logger = VenueLogger(tls_cfg(port, ctx, "venuelog"), hands)
                link = VenueLink(tls_cfg(port, ctx, "v1/t1"), "v1", "t1", tmp_path / "t1.db")
                logger.start()
                link.start()
                await until(lambda: link.logger_online, what="table sees the logger")
                link.publish_state(samples.state())
                link.submit_hand("v1-t1-1", 1, samples.ohh(1))
                await until(lambda: hands.count() == 1, what="hand stored over TLS")
                await until(lambda: link.outbox.pending_count() == 0, what="ack over TLS")

                # Table t1 tries to write into table t2's topics: the broker drops it.
                async with aiomqtt.Client(
                    "127.0.0.1", port, username="v1/t1", password=USERS["v1/t1"], tls_context=ctx
                ) as t1:
                    for sub in ("state", "status", "hands", "cmd", "events"):
                        await t1.publish(f"railguard/v1/t2/{sub}", b'{"forged": true}', qos=1)
                    await t1.publish("railguard/v1/t1/events", b'{"own": true}', qos=1)
                await until(
                    lambda: any(t == "railguard/v1/t1/events" for t, _, _ in mon.messages),
                    what="own publish arrives",
                )
                await asyncio.sleep(0.2)
                assert not [t for t, _, _ in mon.messages if t.startswith("railguard/v1/t2/")]

                # The dashboard sees live state but no hand record.
                assert any(t == "railguard/v1/t1/state" for t, _, _ in dash.messages)
                assert any(t == "railguard/v1/t1/hands" for t, _, _ in mon.messages)
                assert not [t for t, _, _ in dash.messages if t.endswith("/hands")]

                # Wrong password and plain TCP on the TLS port are refused.
                with pytest.raises(aiomqtt.MqttError):
                    async with aiomqtt.Client(
                        "127.0.0.1",
                        port,
                        username="v1/t1",
                        password="wrong",
                        tls_context=ctx,
                        timeout=3,
                    ):
                        pass
                with pytest.raises(aiomqtt.MqttError):
                    async with aiomqtt.Client(
                        "127.0.0.1", port, username="v1/t1", password=USERS["v1/t1"], timeout=3
                    ):
                        pass
                await link.stop()
                await logger.stop()
                hands.close()

    asyncio.run(main())


def documented_conf() -> str:
    m = re.search(
        r"<!-- conf:begin -->\s*```conf\n(.*?)```\s*<!-- conf:end -->", DOC.read_text(), re.S
    )
    assert m, "docs/deployment.md lost its broker configuration block"
    return m.group(1)


async def _try_takeover(b: Any, ca: trustme.CA, tmp_path: Path) -> tuple[list[Any], list[Any]]:
    """The table and the logger connect; the dashboard user connects with each of their
    client ids (the configured ones and their user names). Returns the statuses the monitor
    saw on the table's and the logger's status topics."""
    port = b.info["tls_port"]
    tmp_path.mkdir()
    ctx = ssl.create_default_context()
    ca.configure_trust(ctx)
    bounced: list[str] = []
    mon_kw = {"username": "monitor", "password": USERS["monitor"], "tls_context": ctx}
    async with Observer(port, ["#"], **mon_kw) as mon:
        hands = SqliteHandStore(tmp_path / "venue.db")
        logger = VenueLogger(tls_cfg(port, ctx, "venuelog"), hands, backoff=(0.05, 0.2))
        link = VenueLink(
            tls_cfg(port, ctx, "v1/t1"), "v1", "t1", tmp_path / "t1.db", backoff=(0.05, 0.2)
        )
        logger.start()
        link.start()
        await until(lambda: link.logger_online, what="table sees the logger")
        for ident in (link.client_id, "v1/t1", logger.client_id, "venuelog"):
            try:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    port,
                    identifier=ident,
                    username="dashboard",
                    password=USERS["dashboard"],
                    tls_context=ctx,
                    timeout=5,
                ) as dash:
                    await dash.subscribe("railguard/v1/t1/status", qos=1)
                    await asyncio.sleep(0.1)
            except aiomqtt.MqttError:  # taken over in turn by the victim's reconnect
                bounced.append(ident)
        # A barrier: once the monitor has this, it has every will the broker sent before.
        marker = f"rg-test/barrier/{uuid.uuid4().hex}"
        async with aiomqtt.Client(
            "127.0.0.1", port, username="prober", password=USERS["prober"], tls_context=ctx
        ) as prober:
            await prober.publish(marker, b"{}", qos=1)
        await until(lambda: any(t == marker for t, _, _ in mon.messages), what="the barrier")
        table = [s["status"] for s in mon.on("railguard/v1/t1/status")]
        log = [s["status"] for s in mon.on(f"railguard/_logger/{logger.instance}/status")]
        if "offline" not in table + log:
            assert bounced == []
            assert link.connected and link.stats.connects == 1, link.stats
            assert logger.connected and logger.stats.connects == 1
        await link.stop()
        await logger.stop()
        hands.close()
    return table, log


def test_defect_5_client_id_takeover(tmp_path: Path) -> None:
    """Issue 11, defect 5: with docs/deployment.md's broker configuration (verbatim but for
    its file paths and port) and ACL, the read-only dashboard connecting with the table's or
    the logger's client id disconnects neither and fires neither's retained "offline" will.
    Control: the same configuration without ``use_username_as_clientid`` lets it do both."""
    ca = trustme.CA()
    acl = documented_acl() + "\nuser prober\ntopic write rg-test/#\n"

    with documented_broker(documented_conf(), users=USERS, acl=acl, ca=ca) as b:
        table, log = asyncio.run(_try_takeover(b, ca, tmp_path / "bound"))
        assert table == ["online"] and log == ["online"], (table, log)

    with documented_broker(
        documented_conf(), users=USERS, acl=acl, ca=ca, without=("use_username_as_clientid",)
    ) as b:
        table, log = asyncio.run(_try_takeover(b, ca, tmp_path / "unbound"))
        assert "offline" in table and "offline" in log, (table, log)
