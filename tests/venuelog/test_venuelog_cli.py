"""``railguard venue-log run --instance``: the default names the logger after its host, so
loggers on different hosts never share an MQTT client id (the broker would keep only the
newer of two connections with one id, and they would take turns kicking each other off)."""

from __future__ import annotations

import socket

import pytest

from controller.link.topics import check_id
from controller.venuelog.cli import default_instance
from controller.venuelog.logger import VenueLogger


@pytest.mark.parametrize(
    ("hostname", "instance"),
    [
        ("venue-srv1", "venue-srv1"),
        ("logger2.casino.example", "logger2"),  # the first label of a fully qualified name
        ("pit_boss box", "pit-boss-box"),  # characters a topic level id may not hold
        ("x" * 40, "x" * 32),  # at most 32
        ("---", "main"),  # nothing usable left
        ("", "main"),
    ],
)
def test_default_instance_from_host_name(hostname: str, instance: str) -> None:
    assert default_instance(hostname) == instance
    assert check_id("logger instance", default_instance(hostname)) == instance


def test_default_instance_is_this_host() -> None:
    name = default_instance()
    assert check_id("logger instance", name) == name
    assert name == default_instance(socket.gethostname())


def test_loggers_on_two_hosts_get_two_client_ids(tmp_path: object) -> None:
    from controller.link.config import BrokerConfig
    from controller.venuelog.store import open_store

    broker = BrokerConfig(host="127.0.0.1", port=1, tls=False, allow_plaintext=True)
    a = VenueLogger(broker, open_store(":memory:"), instance=default_instance("pi-a.venue"))
    b = VenueLogger(broker, open_store(":memory:"), instance=default_instance("pi-b.venue"))
    assert a.client_id != b.client_id
    assert a.status_topic != b.status_topic
