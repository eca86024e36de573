"""``railguard doctor``: check what the daemon needs, print a pass/fail table with what to do.

Checks: the config file, the reader board (port opens, HELLO with the antenna count), the
GPIO pin factory, pcscd and the badge reader (when enabled), the broker (TLS, credentials).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
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
    from firmware_bridge.ports import port_problem
    from firmware_bridge.serial_link import LinkStatus, SerialReaderLink

    problem = port_problem(cfg.reader_ports)
    if problem is not None:  # at once: waiting on a path that is not there tells nothing
        return Check("reader", False, problem.split("; fix ")[0],
                     "fix reader.ports (the udev rule makes /dev/railguard-reader); check the"
                     " cable and that the board is powered")  # fmt: skip
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
        # paho reports a refusal as "[code:135] Not authorized" (MQTT 5 reason codes 134/135;
        # 3.1.1 return codes 4/5, "not authorised")
        refused = ("not authori", "bad user", "code:4]", "code:5]", "code:134]", "code:135]")
        if any(word in low for word in refused):
            fix = "check mqtt.username/password (or the client certificate) and the broker ACL"
        elif "certificate" in low or "ssl" in low:
            fix = "check mqtt.ca_file and that the broker's certificate names mqtt.host"
        else:
            fix = "is the broker running and reachable? check mqtt.host/port and the firewall"
        return Check("broker", False, f"{where}: {text}", fix)
    return Check("broker", True, f"{where} connected")


#: the checks in the order they run, each with what it waits on (printed as it starts)
CHECKS = ("config", "core", "reader", "gpio", "pcsc", "broker")
_WIDTH = max(len(n) for n in CHECKS)

Started = Callable[[str, str], None]  # (check name, what it is doing)
Done = Callable[[Check], None]


async def run_checks(
    path: str | Path,
    timeout: float = 5.0,
    *,
    started: Started | None = None,
    done: Done | None = None,
) -> list[Check]:
    """Every check, in order; ``started`` hears each check begin, ``done`` each result as it
    comes (``railguard doctor`` prints them so: a slow check is never silence)."""
    checks: list[Check] = []

    def add(check: Check) -> None:
        checks.append(check)
        if done is not None:
            done(check)

    def begin(name: str, what: str) -> None:
        if started is not None:
            started(name, what)

    try:
        cfg = load(path)
    except RailguardError as exc:
        add(Check("config", False, str(exc), "fix the key named above"))
        return checks
    add(Check("config", True, f"{path}: table {cfg.venue}/{cfg.table}, "
              f"profile {cfg.profile.name}"))  # fmt: skip
    add(Check("core", True, f"rules core: {core_build()}"))  # information only
    begin("reader", f"opening {', '.join(cfg.reader_ports)}, waiting up to {timeout:g} s"
          " for the board's HELLO")  # fmt: skip
    add(await _reader(cfg, timeout))
    begin("gpio", f"pin factory {cfg.pin_factory or 'default'}")
    add(_gpio(cfg))
    if cfg.pcsc_enabled:
        begin("pcsc", f"pcscd and the badge reader, up to {timeout:g} s")
    add(await _pcsc(cfg, timeout))
    b = cfg.broker
    begin("broker", f"connecting to {b.host}:{b.effective_port}, up to {timeout:g} s")
    add(await _broker(cfg, timeout))
    return checks


def line(c: Check, width: int = _WIDTH) -> str:
    """One check's result: PASS/FAIL, its name and detail, then ``-> the fix`` on a failure."""
    text = f"{'PASS' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.detail}"
    if not c.ok and c.fix:
        text += f"\n      {'':<{width}}  -> {c.fix}"
    return text


def table(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    return "\n".join(line(c, width) for c in checks)


def main(path: str, timeout: float = 5.0) -> int:
    """Print each check as it starts (``....``) and as it ends; exit 0 when all pass."""

    def started(name: str, what: str) -> None:
        print(f"....  {name:<{_WIDTH}}  {what}", flush=True)

    def done(check: Check) -> None:
        print(line(check), flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        checks = asyncio.run(run_checks(path, timeout, started=started, done=done))
        failed = [c.name for c in checks if not c.ok]
        if failed:
            print(f"doctor: {len(failed)} of {len(checks)} checks failed ({', '.join(failed)})")
        else:
            print(f"doctor: all {len(checks)} checks passed")
        return 1 if failed else 0
    print("doctor: interrupted", flush=True)
    return 130
