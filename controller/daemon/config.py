"""The daemon's TOML configuration: every setting has a default, everything is validated at
start, and every error names its key (``reader.scan_period_ms: ...``).

:data:`SETTINGS` lists every scalar setting with its default and meaning; the tables
``[zones]``, ``[gpio]``, ``[pcsc.badges]`` and ``[chips]`` are validated by their owners
(:class:`~firmware_bridge.zones.ZoneMap`, :class:`~firmware_bridge.gpio.GpioConfig`,
:class:`~firmware_bridge.pcsc.BadgeTable`). ``docs/configuration.md`` is checked against
:data:`SETTINGS` by a test.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.link.config import BrokerConfig
from controller.link.topics import check_id
from controller.rules.errors import ConfigError, RailguardError
from controller.rules.profile import Profile, get_profile
from firmware_bridge.decks import parse_tag
from firmware_bridge.gpio.config import GpioConfig
from firmware_bridge.pcsc import BadgeTable
from firmware_bridge.protocol import SetConfig
from firmware_bridge.serial_link import LinkConfig
from firmware_bridge.zones import ZoneMap


@dataclass(frozen=True, slots=True)
class Setting:
    key: str  # "section.name"
    default: Any
    doc: str


# The longest hold of the reader after an alert: under half the shortest scan period (10 ms),
# so that a scan cycle's timers (controller/daemon/reader.py) never fall inside a hold.
MAX_ALERT_HOLD_MS = 2.0

# Scalar settings: key, default, meaning. Types are those of the defaults (int accepts
# no bool; float accepts int; list means a list of strings).
SETTINGS: tuple[Setting, ...] = (
    Setting("table.id", "t1", "table id: 1-32 letters, digits or '-' (MQTT topic level)"),
    Setting("table.venue", "venue", "venue id, same form as table.id"),
    Setting("table.profile", "tda-2024", "house-rule profile: a packaged name or a TOML path"),
    Setting(
        "table.size",
        0,
        "seats at the table for hand records; 0: the zone map's highest seat"
        " (else the profile's max_seats)",
    ),
    Setting(
        "reader.ports",
        ["/dev/railguard-reader"],
        "serial ports tried in order: paths, globs or socket://host:port URLs",
    ),
    Setting("reader.baudrate", 115200, "UART speed"),
    Setting("reader.scan_period_ms", 50, "board scan period sent with SET_CONFIG (10..1000)"),
    Setting("reader.heartbeat_ms", 1000, "board heartbeat interval (100..10000)"),
    Setting(
        "reader.changes_only",
        True,
        "board reports an antenna only when its tags changed (plus full refreshes)",
    ),
    Setting(
        "reader.full_refresh_cycles",
        20,
        "with changes_only: every antenna is reported every this many scans (1..255)",
    ),
    Setting("reader.stall_intervals", 3, "missed heartbeats before the board counts as stalled"),
    Setting("reader.hello_timeout_s", 0.5, "no HELLO this long after opening: send RESET"),
    Setting("reader.backoff_max_s", 5.0, "longest wait between reconnect attempts"),
    Setting(
        "reader.alert_hold_ms",
        1.0,
        "after writing an alert to the broker, read the board this much later (0..2; 0: at once)",
    ),
    Setting("reader.debounce_cycles", 2, "consecutive reads before a tag counts as placed"),
    Setting("reader.removal_cycles", 3, "consecutive misses before a tag counts as removed"),
    Setting(
        "reader.ready_timeout_s",
        30.0,
        "READY=1 is sent without the reader (or a reconciled table) after this long",
    ),
    Setting(
        "gpio.pin_factory",
        "default",
        "gpiozero pin factory: 'default' (lgpio on a Pi) or 'mock' (hwsim, tests)",
    ),
    Setting("pcsc.enabled", False, "read staff badges with a PC/SC reader (pcscd)"),
    Setting("pcsc.reader_filter", "", "use readers whose name contains this ('' = any)"),
    Setting("mqtt.host", "localhost", "broker host"),
    Setting("mqtt.port", 0, "broker port; 0: 8883 with TLS, 1883 without"),
    Setting("mqtt.tls", True, "TLS to the broker"),
    Setting("mqtt.ca_file", "", "CA bundle for the broker's certificate ('' = system CAs)"),
    Setting("mqtt.cert_file", "", "client certificate (with mqtt.key_file)"),
    Setting("mqtt.key_file", "", "client key"),
    Setting("mqtt.username", "", "broker user name"),
    Setting("mqtt.password", "", "broker password"),
    Setting("mqtt.allow_plaintext", False, "needed for mqtt.tls = false (lab brokers only)"),
    Setting("mqtt.keepalive", 15, "MQTT keepalive in seconds"),
    Setting("mqtt.connect_timeout", 10.0, "broker connect timeout in seconds"),
    Setting("mqtt.command_key", "", "HMAC key venue commands must be signed with ('' = none)"),
    Setting(
        "storage.path",
        "/var/lib/railguard",
        "directory of table.db (seating, stacks, counters, decks) and outbox.db",
    ),
    Setting("log.level", "INFO", "DEBUG, INFO, WARNING or ERROR"),
)
_BY_KEY = {s.key: s for s in SETTINGS}
# Tables validated by their owners (documented in docs/configuration.md by hand).
TABLES = ("zones", "gpio.buttons", "gpio.*", "pcsc.badges", "chips")
SECTIONS = ("table", "reader", "zones", "gpio", "pcsc", "mqtt", "storage", "chips", "log")

DEFAULT_ZONES: dict[str, Any] = {
    "seats": 9,
    "hole": {str(s): s - 1 for s in range(1, 10)},
    "board": 9,
    "burn": 10,
    "muck": 11,
    "bet": {str(s): 11 + s for s in range(1, 10)},
}


@dataclass(frozen=True)
class DaemonConfig:
    table: str
    venue: str
    profile: Profile
    table_size: int
    reader_ports: tuple[str, ...]
    link: LinkConfig
    debounce_cycles: int
    removal_cycles: int
    ready_timeout: float
    zones: ZoneMap
    gpio: GpioConfig
    pin_factory: str
    pcsc_enabled: bool
    pcsc_filter: str | None
    badges: BadgeTable
    broker: BrokerConfig
    command_key: bytes | None
    storage: Path
    chips: dict[bytes, int]
    log_level: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    changes_only: bool = False  # reader.changes_only: the daemon's board reports changes only
    alert_hold: float = 0.001  # reader.alert_hold_ms, in seconds (Daemon.alert_written)

    # ``link`` has the board report every antenna every scan: the tools (enroll, calibrate,
    # doctor) count reads per frame. The daemon, whose tracker holds unreported antennas as
    # unchanged, uses ``daemon_link`` (reader.changes_only).
    @property
    def daemon_link(self) -> LinkConfig:
        board = self.link.board_config
        if board is None or board.changes_only == self.changes_only:
            return self.link
        return replace(self.link, board_config=replace(board, changes_only=self.changes_only))

    @property
    def table_db(self) -> Path:
        return self.storage / "table.db"

    @property
    def outbox_db(self) -> Path:
        return self.storage / "outbox.db"


def _typed(key: str, value: Any) -> Any:
    default = _BY_KEY[key].default
    if isinstance(default, bool):
        ok = isinstance(value, bool)
        want = "true or false"
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
        want = "an integer"
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        want = "a number"
        value = float(value) if ok else value
    elif isinstance(default, list):
        if isinstance(value, str):
            value = [value]
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value) and bool(value)
        want = "a string or a non-empty list of strings"
    else:
        ok = isinstance(value, str)
        want = "a string"
    if not ok:
        raise ConfigError(f"{key}: expected {want}, got {value!r}")
    return value


def _scalars(raw: Mapping[str, Any], section: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    table = raw.get(section, {})
    if not isinstance(table, Mapping):
        raise ConfigError(f"{section}: expected a table")
    out = {s.key.split(".", 1)[1]: s.default for s in SETTINGS if s.key.startswith(section + ".")}
    for name, value in table.items():
        key = f"{section}.{name}"
        if name in skip:
            continue
        if key not in _BY_KEY:
            known = ", ".join(sorted(out))
            raise ConfigError(f"{key}: unknown key (known: {known})")
        out[name] = _typed(key, value)
    return out


def _wrap(key: str, exc: Exception) -> ConfigError:
    msg = str(exc)
    return ConfigError(msg if msg.startswith(key) else f"{key}: {msg}")


def from_mapping(raw: Mapping[str, Any]) -> DaemonConfig:
    """Validate a parsed TOML document; ConfigError names the first bad key."""
    for section in raw:
        if section not in SECTIONS:
            raise ConfigError(f"{section}: unknown section (known: {', '.join(SECTIONS)})")
    t = _scalars(raw, "table")
    try:
        check_id("table.id", t["id"])
        check_id("table.venue", t["venue"])
    except ConfigError as exc:
        raise _wrap("table", exc) from None
    try:
        profile = get_profile(t["profile"])
    except (RailguardError, OSError) as exc:
        raise _wrap("table.profile", exc) from None
    size_set = t["size"]

    r = _scalars(raw, "reader")
    try:
        board = SetConfig(
            scan_period_ms=r["scan_period_ms"],
            heartbeat_interval_ms=r["heartbeat_ms"],
            changes_only=False,
            full_refresh_cycles=r["full_refresh_cycles"],
        )  # every scan for the tools; the daemon's own is DaemonConfig.daemon_link
        if problems := board.problems():
            raise ConfigError("; ".join(problems))
        link = LinkConfig(
            baudrate=r["baudrate"],
            hello_timeout=r["hello_timeout_s"],
            heartbeat_interval=r["heartbeat_ms"] / 1000,
            stall_intervals=r["stall_intervals"],
            backoff_max=r["backoff_max_s"],
            board_config=board,
        )
    except ConfigError as exc:
        raise _wrap("reader", exc) from None
    for k in ("debounce_cycles", "removal_cycles"):
        if r[k] < 1:
            raise ConfigError(f"reader.{k}: must be at least 1")
    if r["ready_timeout_s"] <= 0:
        raise ConfigError("reader.ready_timeout_s: must be > 0")
    if not 0 <= r["alert_hold_ms"] <= MAX_ALERT_HOLD_MS:
        raise ConfigError(
            f"reader.alert_hold_ms: {r['alert_hold_ms']} is not 0..{MAX_ALERT_HOLD_MS:g}"
        )

    zones_raw = raw.get("zones", DEFAULT_ZONES)
    zones = ZoneMap.from_dict(zones_raw, key="zones")
    # hand records' seat count: the table's own seats (its zone map), not the profile's limit
    size = size_set or (max(zones.seats) if "zones" in raw and zones.seats else profile.max_seats)
    if not 2 <= size <= 10:
        raise ConfigError(f"table.size: {size} is not 2..10")

    g_raw = raw.get("gpio", {})
    if not isinstance(g_raw, Mapping):
        raise ConfigError("gpio: expected a table")
    g = _scalars({"gpio": {k: v for k, v in g_raw.items() if k == "pin_factory"}}, "gpio")
    if g["pin_factory"] not in ("default", "mock"):
        raise ConfigError(
            f"gpio.pin_factory: expected 'default' or 'mock', got {g['pin_factory']!r}"
        )
    gpio = GpioConfig.from_mapping({k: v for k, v in g_raw.items() if k != "pin_factory"})

    p = _scalars(raw, "pcsc", skip=("badges",))
    badges_raw = raw.get("pcsc", {}).get("badges", {})
    if not isinstance(badges_raw, Mapping):
        raise ConfigError("pcsc.badges: expected a table")
    badges = BadgeTable.from_mapping(badges_raw, prefix="pcsc.badges")

    m = _scalars(raw, "mqtt")
    broker_raw: dict[str, Any] = {k: v for k, v in m.items() if k != "command_key"}
    for k in ("ca_file", "cert_file", "key_file", "username", "password", "port"):
        if broker_raw[k] in ("", 0):
            del broker_raw[k]
    try:
        broker = BrokerConfig.from_mapping(broker_raw)
    except ConfigError as exc:
        raise _wrap("mqtt", exc) from None

    s = _scalars(raw, "storage")
    lg = _scalars(raw, "log")
    if lg["level"].upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"log.level: {lg['level']!r} is not DEBUG, INFO, WARNING or ERROR")

    chips_raw = raw.get("chips", {})
    if not isinstance(chips_raw, Mapping):
        raise ConfigError("chips: expected a table of tag = denomination")
    chips: dict[bytes, int] = {}
    for tag, value in chips_raw.items():
        try:
            uid = parse_tag(str(tag))
        except RailguardError as exc:
            raise _wrap(f"chips.{tag}", exc) from None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ConfigError(f"chips.{tag}: denomination must be a positive integer")
        chips[uid] = value

    return DaemonConfig(
        table=t["id"],
        venue=t["venue"],
        profile=profile,
        table_size=size,
        reader_ports=tuple(r["ports"]),
        link=link,
        debounce_cycles=r["debounce_cycles"],
        removal_cycles=r["removal_cycles"],
        ready_timeout=r["ready_timeout_s"],
        zones=zones,
        gpio=gpio,
        pin_factory=g["pin_factory"],
        pcsc_enabled=p["enabled"],
        pcsc_filter=p["reader_filter"] or None,
        badges=badges,
        broker=broker,
        command_key=m["command_key"].encode() if m["command_key"] else None,
        storage=Path(s["path"]),
        chips=chips,
        log_level=lg["level"].upper(),
        raw=dict(raw),
        changes_only=r["changes_only"],
        alert_hold=r["alert_hold_ms"] / 1000,
    )


def loads(text: str) -> DaemonConfig:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config: not valid TOML ({exc})") from None
    return from_mapping(raw)


def load(path: str | Path) -> DaemonConfig:
    """Read and validate a config file; ConfigError names the file and the key."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read ({exc.strerror or exc})") from None
    try:
        return loads(text)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"no TOML for {type(v).__name__}")


def _toml_key(k: str) -> str:
    bare = k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k)
    return k if bare else _toml_value(k)


def dumps(data: Mapping[str, Any], prefix: str = "") -> str:
    """A config mapping (as :func:`from_mapping` takes it: tables, scalars, lists of
    scalars) as the TOML text of a config file, which :func:`loads` reads back. The one
    writer of config files: ``railguard sim``, the bench's daemons, the tests' daemons."""
    out = f"\n[{prefix}]\n" if prefix else ""
    out += "".join(f"{_toml_key(str(k))} = {_toml_value(v)}\n" for k, v in data.items()
                   if not isinstance(v, Mapping))  # fmt: skip
    for k, v in data.items():
        if isinstance(v, Mapping):
            key = _toml_key(str(k))
            out += dumps(v, f"{prefix}.{key}" if prefix else key)
    return out
