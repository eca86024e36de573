"""The console's authentication without a browser: scrypt hashes (RFC 7914's own test
vector), signed sessions, and the refusals of the web application (no session, no or a
wrong CSRF token, a viewer) through aiohttp's test client on a real loopback socket."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from controller.floor.app import Console, make_app
from controller.floor.auth import (
    Sessions,
    csrf_ok,
    hash_password,
    load_users,
    parse_users,
    verify_password,
)
from controller.floor.link import FloorLink
from controller.floor.room import Room
from controller.link.config import BrokerConfig
from controller.rules.errors import ConfigError

# RFC 7914 section 12, the third vector: scrypt(P="pleaseletmein", S="SodiumChloride",
# N=16384, r=8, p=1, dkLen=64)
RFC_DK = (
    "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
    "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"
)
RFC_STORED = f"scrypt$16384$8$1${b'SodiumChloride'.hex()}${RFC_DK}"


def test_verify_accepts_the_rfc_vector_and_refuses_another_password() -> None:
    assert verify_password("pleaseletmein", RFC_STORED)
    assert not verify_password("pleaseletmeln", RFC_STORED)


def test_hash_is_salted_and_verifies() -> None:
    a, b = hash_password("hunter22"), hash_password("hunter22")
    assert a != b  # a fresh salt each time
    assert verify_password("hunter22", a) and verify_password("hunter22", b)
    assert not verify_password("hunter23", a)
    with pytest.raises(ConfigError, match="empty"):
        hash_password("")


@pytest.mark.parametrize(
    ("stored", "why"),
    [("plain-text-password", "not a scrypt hash"), ("scrypt$1000$8$1$00$00", "out of range"),
     ("scrypt$16384$8$1$zz$00", "malformed")],
)  # fmt: skip
def test_users_file_refuses_what_is_not_a_hash(stored: str, why: str) -> None:
    raw = {"users": {"sam": {"role": "supervisor", "password": stored}}}
    with pytest.raises(ConfigError, match=f"users.sam.password: .*{why}"):
        parse_users(raw)


def test_users_file_names_a_bad_role_and_unknown_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"users\.sam\.role: one of viewer, supervisor"):
        parse_users({"users": {"sam": {"role": "boss", "password": RFC_STORED}}})
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['pin'\]"):
        parse_users({"users": {"sam": {"role": "viewer", "password": RFC_STORED, "pin": 1}}})
    p = tmp_path / "users.toml"
    p.write_text(f'[users.vic]\nrole = "viewer"\npassword = "{RFC_STORED}"\n')
    assert load_users(p)["vic"].role.value == "viewer"
    p.write_text("[users\n")
    with pytest.raises(ConfigError, match=f"users file {p}"):
        load_users(p)


def test_session_cookie_is_signed_and_expires() -> None:
    s = Sessions(secrets.token_bytes(32), max_age=100)
    cookie, sess = s.issue("sam", 1000.0)
    assert s.read(cookie, 1050.0) == sess
    assert s.read(cookie, 1101.0) is None  # expired
    assert Sessions(secrets.token_bytes(32)).read(cookie, 1050.0) is None  # another key
    payload, mac = cookie.split(".")
    forged = Sessions(secrets.token_bytes(32)).issue("admin", 1000.0)[0].split(".")[0]
    assert s.read(f"{forged}.{mac}", 1050.0) is None
    assert s.read(f"{payload}.{mac[:-2]}AA", 1050.0) is None
    assert s.read("garbage", 1050.0) is None and s.read(None, 1050.0) is None
    assert csrf_ok(sess, sess.csrf) and not csrf_ok(sess, None) and not csrf_ok(sess, "x")


async def _refusals(users_file: Path) -> dict[str, Any]:
    room = Room()
    link = FloorLink(BrokerConfig(tls=False, allow_plaintext=True), room)  # never started
    console = Console(load_users(users_file), Sessions(secrets.token_bytes(32)), room, link, None)
    out: dict[str, Any] = {}
    async with TestClient(TestServer(make_app(console), host="127.0.0.1")) as c:
        ack = {"venue": "v1", "table": "t1", "alert_id": "a1"}
        out["anonymous"] = (await c.post("/api/ack", json=ack)).status
        out["anonymous_room"] = (await c.get("/api/room")).status
        out["bad_login"] = (
            await c.post("/api/login", json={"user": "sam", "password": "nope"})
        ).status
        unknown = {"user": "nobody", "password": "pleaseletmein"}
        out["unknown_user"] = (await c.post("/api/login", json=unknown)).status
        out["no_password"] = (await c.post("/api/login", json={"user": "sam"})).status
        r = await c.post("/api/login", json={"user": "sam", "password": "pleaseletmein"})
        csrf = (await r.json())["csrf"]
        out["no_token"] = (await c.post("/api/ack", json=ack)).status
        out["wrong_token"] = (
            await c.post("/api/ack", json=ack, headers={"X-CSRF-Token": "x" + csrf})
        ).status
        r = await c.post("/api/ack", json=ack, headers={"X-CSRF-Token": csrf})
        out["supervisor"] = (r.status, await r.json())
        r = await c.post("/api/login", json={"user": "vic", "password": "pleaseletmein"})
        vcsrf = (await r.json())["csrf"]
        r = await c.post("/api/ack", json=ack, headers={"X-CSRF-Token": vcsrf})
        out["viewer"] = (r.status, await r.text())
        r = await c.post(
            "/api/seat",
            json={**ack, "seat": 1, "player_id": "p", "name": "n", "stack": 100},
            headers={"X-CSRF-Token": vcsrf},
        )
        out["viewer_seat"] = r.status
        out["viewer_room"] = (await c.get("/api/room")).status
        out["not_json"] = (await c.post("/api/login", data=b"{")).status
    return out


def test_the_app_refuses_without_session_token_or_role(tmp_path: Path) -> None:
    users = tmp_path / "users.toml"
    users.write_text(f'[users.sam]\nrole = "supervisor"\npassword = "{RFC_STORED}"\n'
                     f'[users.vic]\nrole = "viewer"\npassword = "{RFC_STORED}"\n')  # fmt: skip
    out = asyncio.run(_refusals(users))
    assert out["anonymous"] == 401 and out["anonymous_room"] == 401
    assert out["bad_login"] == 401 and out["unknown_user"] == 401 and out["no_password"] == 401
    assert out["no_token"] == 403 and out["wrong_token"] == 403
    # the supervisor passes every check; the (unconnected) link answers for the table
    assert out["supervisor"][0] == 200
    assert out["supervisor"][1] == {
        "ok": False,
        "reason": "the console is not connected to the broker",
    }
    assert out["viewer"][0] == 403 and "viewers change nothing" in out["viewer"][1]
    assert out["viewer_seat"] == 403
    assert out["viewer_room"] == 200  # a viewer sees the room
    assert out["not_json"] == 400
