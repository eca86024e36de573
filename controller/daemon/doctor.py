"""``railguard doctor``: check what the daemon needs, print a pass/fail table with what to do.

Checks: the config file, the reader board (port opens, HELLO with the antenna count), the
GPIO pin factory, pcscd and the badge reader (when enabled), the broker (TLS, credentials).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

from controller.core_build import core_build
from controller.daemon.config import DaemonConfig, load
from controller.rules.errors import RailguardError


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


async def _reader(cfg: DaemonConfig, timeout: float) -> Check:
    from firmware_bridge.serial_link import LinkStatus, SerialReaderLink

    link = SerialReaderLink(list(cfg.reader_ports), lambda _s: None, config=cfg.link)
    await link.start()
    try:
        await link.wait_status(LinkStatus.ONLINE, timeout=timeout)
        info, port = link.board_info, link.port
    except TimeoutError:
        status = link.status
        if status is LinkStatus.OFFLINE:
            fix = ("check the cable and reader.ports; the udev rule makes /dev/railguard-reader;"
                   " the service user needs the dialout group")  # fmt: skip
        elif status is LinkStatus.VERSION_MISMATCH:
            fix = "update the reader-board firmware or railguard so the protocol versions match"
        else:
            fix = "the port opens but the board does not answer: power-cycle the reader board"
        return Check("reader", False, f"{status.value} on {', '.join(cfg.reader_ports)}", fix)
    finally:
        await link.stop()
    n = info.antenna_count if info else 0
    missing = [a for a in cfg.zones.antennas if a >= n]
    if missing:
        return Check("reader", False, f"HELLO on {port}: {n} antennas",
                     f"[zones] uses antennas {missing} the board does not have")  # fmt: skip
    fw = f"{info.firmware}" if info else "?"
    return Check("reader", True, f"HELLO on {port}: {n} antennas, firmware {fw}")


def _gpio(cfg: DaemonConfig) -> Check:
    try:
        from gpiozero import Device

        if cfg.pin_factory == "mock":
            from gpiozero.pins.mock import MockFactory

            factory = MockFactory()
        else:
            factory = Device._default_pin_factory()
        name = type(factory).__name__
        factory.close()
    except Exception as exc:
        return Check("gpio", False, f"{type(exc).__name__}: {exc}",
                     "on a Pi install lgpio (pip install 'railguard[pi]'); the service user"
                     " needs the gpio group; elsewhere set gpio.pin_factory = 'mock'")  # fmt: skip
    return Check("gpio", True, f"pin factory {name}")


async def _pcsc(cfg: DaemonConfig, timeout: float) -> Check:
    if not cfg.pcsc_enabled:
        return Check("pcsc", True, "disabled (pcsc.enabled = false)")
    try:
        from firmware_bridge.pcsc import PcscReader, ReaderStatus
    except ImportError as exc:  # pragma: no cover - pcsc.py imports pyscard lazily
        return Check("pcsc", False, str(exc), "pip install 'railguard[pcsc]'")
    reader = PcscReader(cfg.badges, reader_filter=cfg.pcsc_filter)
    reader.start()
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while reader.status is not ReaderStatus.READY:
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.1)
        state = reader.state
    finally:
        await asyncio.to_thread(reader.close)
    if state.status is ReaderStatus.READY:
        return Check("pcsc", True, f"reader {', '.join(state.readers)}")
    if state.status is ReaderStatus.NO_SERVICE:
        return Check("pcsc", False, f"pcscd not reachable ({state.detail})",
                     "apt install pcscd; systemctl enable --now pcscd.socket")  # fmt: skip
    return Check("pcsc", False, f"no reader ({state.detail})",
                 "plug in the badge reader or fix pcsc.reader_filter")  # fmt: skip


async def _broker(cfg: DaemonConfig, timeout: float) -> Check:
    import aiomqtt

    b = cfg.broker
    where = f"{b.host}:{b.effective_port} ({'TLS' if b.tls else 'plain TCP'})"
    try:
        client = b.make_client(f"railguard-doctor-{cfg.table}")
        async with asyncio.timeout(timeout), client:
            pass
    except RailguardError as exc:
        return Check("broker", False, f"{where}: {exc}", "fix the [mqtt] TLS file paths")
    except (aiomqtt.MqttError, TimeoutError, OSError) as exc:
        text = str(exc) or type(exc).__name__
        low = text.lower()
        if "not authorised" in low or "bad user" in low or "code:5" in low or "code:4" in low:
            fix = "check mqtt.username/password (or the client certificate) and the broker ACL"
        elif "certificate" in low or "ssl" in low:
            fix = "check mqtt.ca_file and that the broker's certificate names mqtt.host"
        else:
            fix = "is the broker running and reachable? check mqtt.host/port and the firewall"
        return Check("broker", False, f"{where}: {text}", fix)
    return Check("broker", True, f"{where} connected")


async def run_checks(path: str | Path, timeout: float = 5.0) -> list[Check]:
    try:
        cfg = load(path)
    except RailguardError as exc:
        return [Check("config", False, str(exc), "fix the key named above")]
    checks = [Check("config", True, f"{path}: table {cfg.venue}/{cfg.table}, "
                    f"profile {cfg.profile.name}")]  # fmt: skip
    checks.append(Check("core", True, f"rules core: {core_build()}"))  # information only
    checks.append(await _reader(cfg, timeout))
    checks.append(_gpio(cfg))
    checks.append(await _pcsc(cfg, timeout))
    checks.append(await _broker(cfg, timeout))
    return checks


def table(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{'PASS' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.detail}")
        if not c.ok and c.fix:
            lines.append(f"      {'':<{width}}  -> {c.fix}")
    return "\n".join(lines)


def main(path: str, timeout: float = 5.0) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        checks = asyncio.run(run_checks(path, timeout))
        print(table(checks))
        return 0 if all(c.ok for c in checks) else 1
    return 130
