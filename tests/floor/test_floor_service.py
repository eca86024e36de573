"""The console as a service, without a browser: its config, HTTPS from a certificate
(trustme CA, a real TLS handshake on loopback), the commands it sends (checked by the
table's own :class:`~controller.link.commands.CommandGuard`, signed when a command key is
configured), and what it does with anything else published on the broker."""

from __future__ import annotations

import asyncio
import json
import ssl
from pathlib import Path
from typing import Any

import aiohttp
import aiomqtt
import pytest
import trustme

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, parse_config, start, stop
from controller.floor.room import Room
from controller.link.commands import AckAlert, CommandGuard
from controller.link.config import BrokerConfig
from controller.link.errors import CommandRefused
from controller.rules.errors import ConfigError
from tests.brokers import free_port, plain_broker, write_tls_files


def _users(tmp: Path) -> Path:
    p = tmp / "users.toml"
    p.write_text(f'[users.sam]\nrole = "supervisor"\npassword = "{hash_password("pw-sam")}"\n')
    return p


def test_config_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"floor\.users_file: required"):
        parse_config({"floor": {}}, tmp_path)
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['prot'\]"):
        parse_config({"floor": {"users_file": "u", "prot": 1}}, tmp_path)
    with pytest.raises(ConfigError, match=r"cert_file and floor\.key_file go together"):
        parse_config({"floor": {"users_file": "u", "cert_file": "c.pem"}}, tmp_path)
    with pytest.raises(ConfigError, match=r"floor\.port: an integer"):
        parse_config({"floor": {"users_file": "u", "port": 0}}, tmp_path)
    with pytest.raises(ConfigError, match="command_key_file"):
        parse_config({"floor": {"users_file": "u", "command_key_file": "nope"}}, tmp_path)
    cfg = parse_config({"floor": {"users_file": "u", "db": "h.db"},
                        "mqtt": {"host": "127.0.0.1", "tls": False, "allow_plaintext": True}},
                       tmp_path)  # fmt: skip
    assert cfg.users_file == str(tmp_path / "u") and cfg.db == str(tmp_path / "h.db")


async def _https(tmp: Path, broker_port: int) -> tuple[int, str]:
    ca = trustme.CA()
    tls = write_tls_files(ca, tmp)
    port = free_port()
    cfg = FloorConfig(broker=BrokerConfig(host="127.0.0.1", port=broker_port, tls=False,
                                          allow_plaintext=True), users_file=str(_users(tmp)),
                      port=port, cert_file=tls["certfile"], key_file=tls["keyfile"])  # fmt: skip
    runner, console = await start(cfg)
    try:
        ctx = ssl.create_default_context(cafile=tls["cafile"])
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as s:
            page = await s.get(f"https://127.0.0.1:{port}/", ssl=ctx)
            r = await s.post(f"https://127.0.0.1:{port}/api/login", ssl=ctx,
                             json={"user": "sam", "password": "pw-sam"})  # fmt: skip
            return page.status, r.headers.get("Set-Cookie", "")
    finally:
        await stop(runner, console)


def test_https_when_the_config_gives_a_certificate(tmp_path: Path) -> None:
    with plain_broker() as b:
        status, cookie = asyncio.run(_https(tmp_path, b.port))
    assert status == 200
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie


async def _command(tmp: Path, broker_port: int, key: bytes | None) -> tuple[bytes, Any]:
    cfg = FloorConfig(broker=BrokerConfig(host="127.0.0.1", port=broker_port, tls=False,
                                          allow_plaintext=True), users_file=str(_users(tmp)),
                      port=free_port(), command_key=key)  # fmt: skip
    runner, console = await start(cfg)
    try:
        await asyncio.wait_for(console.link.connected.wait(), 10)
        async with aiomqtt.Client("127.0.0.1", broker_port, identifier="fake-table") as c:
            await c.subscribe("railguard/v1/t1/cmd", qos=1)
            # anything at all on the live topics: dropped and counted, the console goes on
            for topic, body in (("railguard/v1/t1/state", b"not json"),
                                ("railguard/v1/t1/alerts", b'{"code": "X"}'),
                                ("railguard/v1/t1/state", b"[1, 2]")):  # fmt: skip
                await c.publish(topic, body, qos=1)
            args = {"alert_id": "a1", "by": "sam"}
            sent = asyncio.create_task(console.link.command("v1", "t1", "ack_alert", args, "sam"))
            async for m in c.messages:
                payload = m.payload if isinstance(m.payload, bytes) else b""
                rid = json.loads(payload)["request_id"]
                await c.publish("railguard/v1/t1/cmd/response",
                                json.dumps({"request_id": rid, "ok": True}), qos=1)  # fmt: skip
                break
            response = await sent
        return payload, (response, console.room.refused, console.room.snapshot()["tiles"])
    finally:
        await stop(runner, console)


@pytest.mark.parametrize("key", [None, b"venue-command-key"])
def test_commands_pass_the_tables_guard(tmp_path: Path, key: bytes | None) -> None:
    with plain_broker() as b:
        payload, (response, refused, tiles) = asyncio.run(_command(tmp_path, b.port, key))
    cmd = CommandGuard(key=key).check(payload)  # the table's own checks
    assert isinstance(cmd, AckAlert) and cmd.alert_id == "a1" and cmd.by == "sam"
    assert cmd.meta.issuer == "sam"
    if key is not None:
        with pytest.raises(CommandRefused, match="unauthorised"):
            CommandGuard(key=b"another-key").check(payload)
    assert response == {"request_id": json.loads(payload)["request_id"], "ok": True}
    assert refused == 3 and tiles == []


def test_room_copies_no_field_outside_its_whitelist() -> None:
    room = Room()
    state = {"seq": 0, "bdseq": 1, "ts": 1.0, "hand_no": 3, "street": "flop",
             "board": ["Ah", "Kd", "2c"], "pot": 300, "to_act": 2,
             "seats": [{"seat": 1, "player_id": "p1", "name": "Ann", "stack": 900,
                        "cards_held": 2, "status": "active"}]}  # fmt: skip
    room.apply("railguard/v1/t1/state", state, 5.0)
    tile = room.snapshot()["tiles"][0]
    assert tile["state"]["hand_no"] == 3 and tile["state"]["board_cards"] == 3
    assert "board" not in tile["state"]  # the console shows the state, not the cards
    assert room.apply("railguard/v1/t1/state", {**state, "hole_cards": ["As"]}, 6.0) == []
    assert room.apply("railguard/v1/../state", state, 6.0) == []
    assert room.refused == 1
