"""mosquitto with the documented ACL, a password file and a TLS listener (trustme certs):
tables cannot write other tables' topics, dashboards cannot read hand records, TLS works and
plain TCP is refused."""

from __future__ import annotations

import asyncio
import re
import ssl
from pathlib import Path

import aiomqtt
import pytest
import trustme

from controller.link import BrokerConfig, VenueLink
from controller.rules.errors import ConfigError
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import secure_broker
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
