"""The arguments of the table commands (argparse only: ``railguard --help`` stays fast)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from urllib.parse import urlsplit

from controller.rules.errors import RailguardError


def _config(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, metavar="FILE",
                   help="the daemon's TOML config file (its [reader] ports)")  # fmt: skip
    p.add_argument("--reader-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="how long to wait for the board (or desk reader) to answer"
                        " (default %(default)g)")  # fmt: skip


def calibrate(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--seats", type=int, default=None, metavar="N",
                   help="seats to calibrate, 1..N (default: table.size of the config)")  # fmt: skip
    p.add_argument("--board-antennas", type=int, default=1, metavar="N",
                   help="antennas under the board, one step each (default 1)")  # fmt: skip
    p.add_argument("--no-bets", action="store_true", help="no betting-zone antennas")
    p.add_argument("--confirm-cycles", type=int, default=10, metavar="N",
                   help="scan cycles a card must be read before its antenna is taken"
                        " (default %(default)s)")  # fmt: skip
    p.add_argument("--write", action="store_true",
                   help="write [zones] into the config file (the rest is kept)")  # fmt: skip


def enroll(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--deck", required=True, metavar="NAME",
                   help="the deck's name (replaces a deck of that name)")  # fmt: skip
    p.add_argument("--source", default="pcsc", metavar="SOURCE",
                   help="'pcsc' (the desk reader, default) or 'antenna:N' (antenna N)")  # fmt: skip
    p.add_argument("--back", default="", metavar="TEXT",
                   help="the back design or colour, for the dealer")  # fmt: skip


def deck_check(p: argparse.ArgumentParser) -> None:
    _config(p)
    p.add_argument("--deck", required=True, metavar="NAME", help="the enrolled deck to check")
    p.add_argument(
        "--cycles",
        type=int,
        default=5,
        metavar="N",
        help="scan cycles to read: a card missed in one is read in another (default 5)",
    )


# ---------------------------------------------------------------- the broker address, everywhere

#: the forms every ``--broker`` accepts (the help texts and docs/cli.md quote this)
BROKER_FORMS = "mqtt://HOST[:PORT] or HOST[:PORT] (plain TCP), or mqtts://HOST[:PORT] (TLS)"

_SCHEMES = {"mqtt": False, "tcp": False, "mqtts": True, "ssl": True}


class BrokerAddressError(RailguardError, ValueError):
    """A ``--broker`` value that names no broker; the message says what is expected."""


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where a broker listens. ``tls`` is None when the text named no scheme (``HOST:PORT``):
    the command's own default decides; ``port`` is None when none was given."""

    host: str
    port: int | None
    tls: bool | None

    def port_or_default(self, tls: bool = False) -> int:
        return self.port if self.port is not None else (8883 if (self.tls or tls) else 1883)

    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port is None else f":{self.port}"
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}{port}"


def parse_broker(text: str) -> BrokerAddress:
    """``HOST``, ``HOST:PORT``, ``[IPv6]:PORT``, ``mqtt://HOST[:PORT]`` (or ``tcp://``, plain)
    and ``mqtts://HOST[:PORT]`` (or ``ssl://``, TLS). BrokerAddressError names what is wrong."""
    raw = text.strip()
    expected = f"expected {BROKER_FORMS}"
    if not raw:
        raise BrokerAddressError(f"--broker {text!r}: empty; {expected}")
    scheme, sep, _ = raw.partition("://")
    if sep and scheme.lower() not in _SCHEMES:
        raise BrokerAddressError(f"--broker {text!r}: unknown scheme {scheme!r}; {expected}")
    u = urlsplit(raw if sep else f"mqtt://{raw}")
    try:
        port = u.port
    except ValueError:
        raise BrokerAddressError(
            f"--broker {text!r}: the port must be a number 1..65535; expected {BROKER_FORMS}"
        ) from None
    if not u.hostname or u.path not in ("", "/") or u.query or u.fragment or u.username:
        raise BrokerAddressError(f"--broker {text!r}: not a broker address; {expected}")
    if port == 0:
        raise BrokerAddressError(f"--broker {text!r}: port 0; {expected}")
    return BrokerAddress(u.hostname, port, _SCHEMES[scheme.lower()] if sep else None)


def plain_broker_type(text: str) -> BrokerAddress:
    """argparse ``type=`` for the simulator's commands: plain TCP only (a lab broker)."""
    try:
        addr = parse_broker(text)
    except BrokerAddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if addr.tls:
        raise argparse.ArgumentTypeError(
            f"--broker {text!r}: this command talks plain TCP to a lab broker, not TLS;"
            " give mqtt://HOST:PORT or HOST:PORT"
        )
    return addr


def add_broker(p: argparse.ArgumentParser, what: str) -> None:
    """The simulator commands' ``--broker`` (plain TCP; default: a private mosquitto)."""
    p.add_argument("--broker", type=plain_broker_type, default=None, metavar="URL",
                   help=f"{what}: an existing broker, mqtt://HOST[:PORT] or HOST[:PORT]"
                        " (plain TCP, default port 1883; default: a private mosquitto on"
                        " 127.0.0.1)")  # fmt: skip


def add_logger_group(p: argparse.ArgumentParser) -> None:
    """``--logger-group``: the share group of the run's own venue logger."""
    p.add_argument("--logger-group", default=None, metavar="NAME",
                   help="with --broker: the MQTT share group of this run's own venue logger"
                        " (default: a fresh group of its own, so a venue logger on that broker"
                        " keeps every hand; give 'venuelog' only to share the real logger's"
                        " load)")  # fmt: skip
