"""Replay recorded hands (PHH) through the whole system: the virtual dealer places card and
chip tags on the simulated reader board (pty), moves the button puck and presses console
buttons (MockFactory GPIO); the daemon runs in-process; hand records come back over a real
MQTT broker (a private mosquitto, or ``--broker``) with a venue logger online; each record's
finishing stacks are compared with the file's.

One daemon, one broker and one table for the whole run: hands are dealt back to back, the
players re-seated and the puck moved between hands. Time is compressed: the board's scan
period, the tag debounce, the GPIO settle times and the dealer's pace all scale with
``speed`` (0: as fast as the pipeline keeps up - the dealer waits on conditions, never on
fixed delays)."""

from __future__ import annotations

import asyncio
import logging
import queue
import re
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from controller.replay import ReplayResult, load_hand
from controller.rules.errors import BadInput
from controller.rules.profile import AnteStyle, get_profile
from hwsim.dealer import plan_hand
from hwsim.inject import Injection, parse_kind
from hwsim.phh import HandHistory, iter_phh_paths

log = logging.getLogger(__name__)

REAL_SCAN_MS = 50.0  # the board's scan period at real speed (the daemon's default)
MIN_SCAN_MS = 10  # the fastest scan the daemon configures


@dataclass(frozen=True, slots=True)
class Pace:
    """Compressed time: the board's scan, the debounce and the dealer's pace, scaled."""

    scan_ms: int
    debounce_cycles: int
    removal_cycles: int
    sensor_settle_s: float
    button_debounce_s: float
    pitch_s: float  # the dealer's pause between two physical actions

    @classmethod
    def of(cls, speed: float) -> Pace:
        """``speed`` times real dealing; 0 or less: as fast as the pipeline keeps up."""
        if speed <= 0:
            return cls(MIN_SCAN_MS, 1, 1, 0.02, 0.01, 0.0)
        ideal = REAL_SCAN_MS / speed
        scan = max(MIN_SCAN_MS, round(ideal))
        factor = min(1.0, ideal / scan)  # below the fastest scan, fewer cycles instead
        return cls(
            scan,
            max(1, round(2 * factor)),
            max(1, round(3 * factor)),
            max(0.02, 0.15 / speed),
            max(0.01, 0.03 / speed),
            0.3 / speed,
        )


@dataclass
class _Pending:
    """A hand dealt whose record has not come back over MQTT yet."""

    name: str
    hh: HandHistory | None  # None: a file with no hand (result known at once)
    seats: tuple[int, ...]
    hand_no: int
    inj: Injection | None
    result: ReplayResult | None = None  # set when the record arrived (or the hand failed)


def system_replay(
    paths: Iterable[str],
    profile: str,
    *,
    inject: str | None = None,
    speed: float = 0.0,
    broker: str | None = None,
    timeout: float = 10.0,
) -> Iterator[ReplayResult]:
    """Results in file order, as the hands complete (the system runs in a worker thread)."""
    get_profile(profile)  # a bad profile is refused before anything starts
    if inject is not None:
        parse_kind(inject)
    out: queue.Queue[ReplayResult | BaseException | None] = queue.Queue()
    stop = threading.Event()

    def worker() -> None:
        try:
            asyncio.run(_run(list(paths), profile, inject, Pace.of(speed), broker, timeout,
                             out, stop))  # fmt: skip
        except BaseException as exc:  # handed to the caller's thread
            out.put(exc)
        out.put(None)  # (again: _run said it is done before the loop's own shutdown)

    th = threading.Thread(target=worker, name="railguard-replay", daemon=True)
    th.start()
    try:
        while True:
            try:
                item = out.get(timeout=1.0)
            except queue.Empty:
                if not th.is_alive():
                    raise RuntimeError("the replay stopped without a word") from None
                continue
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        th.join(timeout=30)  # the worker stops the daemon, the board and its broker


async def _run(
    paths: list[str],
    profile: str,
    inject: str | None,
    pace: Pace,
    broker: str | None,
    timeout: float,
    out: queue.Queue[ReplayResult | BaseException | None],
    stop: threading.Event,
) -> None:
    from controller.demo import broker_for
    from controller.replay_system.table import ReplayTable

    prof = get_profile(profile)
    shm = Path("/dev/shm")
    tmp_root = str(shm) if shm.is_dir() else None  # the daemon's stores: fsync costs nothing
    workdir = tempfile.TemporaryDirectory(prefix="railguard-replay-", dir=tmp_root)
    with broker_for(broker, nodelay=True) as (host, port, table_id), workdir as tmp:
        tables = 0
        table: ReplayTable | None = None

        async def fresh(style: AnteStyle) -> ReplayTable:
            """A new table (daemon, board, GPIO, subscribers) whose profile antes ``style``."""
            nonlocal tables
            tables += 1
            where = Path(tmp) / f"table-{tables}"
            where.mkdir()
            name = profile if style is prof.ante_style else _variant(profile, style, where)
            tid = table_id if tables == 1 else f"{table_id}-{tables}"
            t = ReplayTable(host, port, tid, name, pace, where, timeout)
            t.ante_style = style
            await t.start()
            return t

        try:
            for path in iter_phh_paths(paths):
                if stop.is_set():
                    return
                hh, early = load_hand(path)
                name = str(path)
                plan = None
                if hh is not None:
                    try:
                        plan = plan_hand(hh, prof)
                    except BadInput as exc:
                        early = _failed(name, hh, str(exc))
                if plan is None or hh is None:
                    assert early is not None
                    if table is None:
                        out.put(early)
                    else:
                        await table.emit(early, out)
                    continue
                style = plan.profile.ante_style
                if table is not None and (table.broken or table.ante_style is not style):
                    await table.drain(out)  # one table's records before the next table's
                    await table.stop()
                    table = None
                if table is None:
                    table = await fresh(style)
                inj = None
                if inject is not None:
                    kind, n = parse_kind(inject)
                    inj = Injection(plan, kind, n)
                await table.play(name, hh, plan, inj, out)
            if table is not None:
                await table.drain(out)
        finally:
            if table is not None:
                await table.stop()
    out.put(None)  # every result is out; the worker's loop may still be shutting down


def _variant(profile: str, style: AnteStyle, where: Path) -> str:
    """A TOML copy of ``profile`` whose antes follow ``style`` (a hand recorded with them)."""
    if profile.endswith(".toml") or "/" in profile:
        text = Path(profile).read_text(encoding="utf-8")
    else:
        res = resources.files("controller.rules") / "profiles" / f"{profile}.toml"
        text = res.read_text(encoding="utf-8")
    line = f'ante_style = "{style.value}"'
    text, n = re.subn(r"(?m)^ante_style\s*=.*$", line, text)
    if not n:
        text = text.replace("[profile]", f"[profile]\n{line}", 1)
    path = where / f"profile-antes-{style.value}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _failed(name: str, hh: HandHistory, error: str, inj: Injection | None = None) -> ReplayResult:
    hand = str(hh.hand) if hh.hand is not None else Path(name).stem
    extra: dict[str, Any] = {}
    if inj is not None:
        extra = {"inject": inj.label, "injected": inj.applied, "remedy": inj.remedy}
    return ReplayResult(name, hand, False, None, None, error=error, **extra)
