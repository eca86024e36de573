"""A private broker whose chosen port is taken before mosquitto binds it (a parallel test
worker's listener) comes up on another port instead of answering on the other's."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import hwsim.broker as hb


@pytest.fixture
def first_port_taken(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[socket.socket]]:
    taken: list[socket.socket] = []
    real = hb.free_port

    def free_port() -> int:
        port = real()
        if not taken:  # someone else listens there before mosquitto starts
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", port))
            s.listen()
            taken.append(s)
        return port

    monkeypatch.setattr(hb, "free_port", free_port)
    yield taken
    for s in taken:
        s.close()


def test_a_taken_port_is_not_mistaken_for_the_broker(first_port_taken: list[socket.socket]) -> None:
    with hb.plain_broker() as b:
        assert first_port_taken, "the first port was not taken"
        assert b.port != first_port_taken[0].getsockname()[1]
        assert b.proc is not None and b.proc.poll() is None
        with socket.create_connection(("127.0.0.1", b.port), timeout=2) as c:
            # an MQTT 3.1.1 CONNECT; mosquitto answers CONNACK (0x20), the other listener nothing
            c.sendall(bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 10, 0, 0]))
            c.settimeout(2)
            assert c.recv(4)[:1] == b"\x20"


def test_a_tls_broker_also_moves_off_a_taken_port(first_port_taken: list[socket.socket]) -> None:
    """The TLS brokers of the link, console and bridge tests start the same way."""
    import ssl

    import trustme

    from tests.brokers import secure_broker

    ca = trustme.CA()
    with secure_broker(users={"v1/t1": "pw"}, acl="user v1/t1\ntopic readwrite #\n", ca=ca,
                       plaintext_listener=True) as b:  # fmt: skip
        assert first_port_taken, "the first port was not taken"
        assert first_port_taken[0].getsockname()[1] not in b.ports
        assert b.info["tls_port"] == b.ports[0] and b.info["plain_port"] == b.ports[1]
        ctx = ssl.create_default_context(cafile=b.info["cafile"])
        raw = socket.create_connection(("127.0.0.1", b.info["tls_port"]), timeout=2)
        with ctx.wrap_socket(raw, server_hostname="localhost") as c:  # the broker's TLS
            c.sendall(bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 10, 0, 0]))
            c.settimeout(2)
            assert c.recv(4)[:1] == b"\x20"  # CONNACK (refused: no password, still MQTT)
