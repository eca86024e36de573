"""Daemon config: defaults, errors that name the key, the docs table, sd_notify."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from controller.daemon import config
from controller.daemon.sdnotify import notify, watchdog_interval
from controller.rules.errors import ConfigError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
PLAIN = {"mqtt": {"tls": False, "allow_plaintext": True}}


def test_defaults() -> None:
    cfg = config.from_mapping({})
    assert cfg.table == "t1" and cfg.profile.name
    assert cfg.reader_ports == ("/dev/railguard-reader",)
    assert cfg.broker.tls and cfg.broker.effective_port == 8883
    assert cfg.storage == Path("/var/lib/railguard")
    assert cfg.pin_factory == "default" and not cfg.pcsc_enabled
    assert cfg.zones.seats == tuple(range(1, 10))


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"table": {"id": "bad/id"}}, "table"),
        ({"table": {"profile": "no-such-profile"}}, "table.profile"),
        ({"table": {"colour": "red"}}, "table.colour"),
        ({"table": {"size": 11}}, "table.size"),
        ({"reader": {"scan_period_ms": 5}}, "reader"),
        ({"reader": {"debounce_cycles": 0}}, "reader.debounce_cycles"),
        ({"reader": {"baudrate": "fast"}}, "reader.baudrate"),
        ({"reader": {"ports": []}}, "reader.ports"),
        (
            {"zones": {"seats": 2, "hole": {"1": 0, "2": 0}, "board": 3, "burn": 4, "muck": 5}},
            "zones.hole",
        ),
        ({"zones": {"seats": 2, "hole": {"1": 0, "2": 1}, "board": 3, "burn": 4}}, "zones.muck"),
        ({"gpio": {"pin_factory": "pigpio"}}, "gpio.pin_factory"),
        ({"gpio": {"buzzer": 99}}, "gpio.buzzer"),
        ({"gpio": {"buttons": {"misdeal": 12}}}, "gpio.alert_led"),
        ({"gpio": {"buttons": {"shuffle": 20}}}, "gpio.buttons.shuffle"),
        ({"pcsc": {"enabled": "yes"}}, "pcsc.enabled"),
        ({"pcsc": {"badges": {"zz": {"staff": "a", "role": "dealer"}}}}, "pcsc.badges.zz"),
        ({"mqtt": {"tls": False}}, "mqtt.tls"),
        ({"mqtt": {"port": 70000}}, "mqtt.port"),
        ({"mqtt": {"hots": "x"}}, "mqtt.hots"),
        ({"storage": {"path": 3}}, "storage.path"),
        ({"chips": {"c1000001": 0}}, "chips.c1000001"),
        ({"log": {"level": "LOUD"}}, "log.level"),
        ({"tabel": {}}, "tabel"),
    ],
)
def test_errors_name_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        config.from_mapping(raw)
    assert str(err.value).startswith(key), str(err.value)


def test_load_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "rg.toml"
    p.write_text('[reader]\nremoval_cycles = "x"\n')
    with pytest.raises(ConfigError, match=r"rg\.toml: reader\.removal_cycles"):
        config.load(p)
    p.write_text("[table\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        config.load(p)
    with pytest.raises(ConfigError, match="cannot read"):
        config.load(tmp_path / "missing.toml")


def test_full_file(tmp_path: Path) -> None:
    p = tmp_path / "rg.toml"
    p.write_text(
        '[table]\nid = "t7"\nvenue = "casino-1"\nprofile = "roberts-rules"\n'
        '[reader]\nports = ["/dev/ttyACM*", "socket://127.0.0.1:7000"]\n'
        '[mqtt]\nhost = "broker"\nusername = "v1/t7"\npassword = "pw"\n'
        '[pcsc]\nenabled = true\n[pcsc.badges.04A1B2C3]\nstaff = "D-1"\nrole = "dealer"\n'
        '[chips]\n"c1000001" = 25\n'
    )
    cfg = config.load(p)
    assert cfg.venue == "casino-1" and cfg.table == "t7"
    assert cfg.reader_ports[1].startswith("socket://")
    assert cfg.broker.username == "v1/t7" and cfg.pcsc_enabled
    assert cfg.chips == {bytes.fromhex("c1000001"): 25}


def test_docs_list_every_setting() -> None:
    text = DOCS.read_text()
    for s in config.SETTINGS:
        default = repr(s.default).replace("'", '"')
        if isinstance(s.default, bool):
            default = str(s.default).lower()
        row = f"| `{s.key}` | `{default}` |"
        assert row in text, f"docs/configuration.md lacks the row starting {row}"
    for section in config.SECTIONS:
        assert f"[{section}]" in text, section


def test_sd_notify_over_a_datagram_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as srv:
        srv.bind(path)
        srv.settimeout(2)
        assert notify("READY=1", {"NOTIFY_SOCKET": path})
        assert srv.recv(100) == b"READY=1"
    assert not notify("READY=1", {})
    assert not notify("READY=1", {"NOTIFY_SOCKET": path + "-gone"})
    assert watchdog_interval({"WATCHDOG_USEC": "20000000"}) == 10.0
    pid = str(os.getpid())
    assert watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": pid}) == 2.0
    assert watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({}) is None
