"""Broker connection settings shared by the table link and the venue logger.

Production uses TLS with a username/password or a client certificate. Plain TCP is refused
unless the configuration says ``allow_plaintext = true`` explicitly (a lab or loopback broker).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import aiomqtt

from controller.link.errors import ConfigError
from controller.link.mqtt_client import Client

# Nagle + delayed ACK stalls small QoS 0 publishes by ~40 ms on loopback (mqtt-notes.md).
NODELAY: list[tuple[int, int, int]] = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
_TYPES: dict[str, type | tuple[type, ...]] = {
    "tls": bool,
    "allow_plaintext": bool,
    "keepalive": int,
    "port": int,
    "connect_timeout": (int, float),
}


@dataclass(frozen=True)
class BrokerConfig:
    host: str = "localhost"
    port: int | None = None
    tls: bool = True
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    allow_plaintext: bool = False
    keepalive: int = 15
    connect_timeout: float = 10.0
    ssl_context: ssl.SSLContext | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.tls and not self.allow_plaintext:
            raise ConfigError(
                "mqtt.tls = false needs mqtt.allow_plaintext = true (plain TCP is refused by"
                " default: use TLS in production)"
            )
        if (self.cert_file is None) != (self.key_file is None):
            raise ConfigError("mqtt.cert_file and mqtt.key_file go together")
        if self.port is not None and not 0 < self.port < 65536:
            raise ConfigError(f"mqtt.port {self.port}: out of range")
        if self.keepalive < 2:
            raise ConfigError("mqtt.keepalive: at least 2 seconds")

    @property
    def effective_port(self) -> int:
        if self.port is not None:
            return self.port
        return 8883 if self.tls else 1883

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> BrokerConfig:
        """Build from a TOML ``[mqtt]`` table; unknown keys and wrong types are ConfigError."""
        known = {f.name: f for f in fields(cls) if f.name != "ssl_context"}
        kwargs: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in known:
                raise ConfigError(f"mqtt.{key}: unknown key (known: {', '.join(sorted(known))})")
            want: type | tuple[type, ...] = _TYPES.get(key, str)
            if isinstance(value, bool) and want is not bool:
                raise ConfigError(f"mqtt.{key}: expected {want}, got a boolean")
            if not isinstance(value, want):
                raise ConfigError(f"mqtt.{key}: expected {want}, got {type(value).__name__}")
            kwargs[key] = value
        return cls(**kwargs)

    def make_ssl_context(self) -> ssl.SSLContext | None:
        if not self.tls:
            return None
        if self.ssl_context is not None:
            return self.ssl_context
        try:
            ctx = ssl.create_default_context(cafile=self.ca_file)
            if self.cert_file is not None:
                ctx.load_cert_chain(self.cert_file, self.key_file)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"mqtt TLS files: {exc}") from exc
        return ctx

    def make_client(
        self,
        identifier: str,
        will: aiomqtt.Will | None = None,
        queue_type: type[asyncio.Queue[aiomqtt.Message]] | None = None,
    ) -> aiomqtt.Client:
        """One aiomqtt client (reusable across reconnects) with TCP_NODELAY set;
        ``queue_type``: its incoming messages' queue (aiomqtt's default: first in, first out)."""
        return Client(
            self.host,
            self.effective_port,
            identifier=identifier,
            username=self.username,
            password=self.password,
            will=will,
            clean_session=True,
            keepalive=self.keepalive,
            timeout=self.connect_timeout,
            tls_context=self.make_ssl_context(),
            socket_options=NODELAY,
            queue_type=queue_type,
        )


def set_will(client: aiomqtt.Client, will: aiomqtt.Will) -> None:
    """Change the will of a (disconnected) client before its next connect.

    aiomqtt 2.x fixes the will at construction; the Sparkplug-style bdseq changes on every
    connection, so it is set on the underlying paho client, which reads it at connect.
    """
    client._client.will_set(will.topic, will.payload, will.qos, will.retain)
