"""PC/SC reader at the dealer's station (pyscard): staff badges and deck enrolment.

One monitor thread per :class:`PcscReader` watches readers come and go and cards arrive and
leave (``SCardListReaders`` + ``SCardGetStatusChange`` with a short timeout), reads each new
card's UID with the PC/SC pseudo-APDU ``FF CA 00 00 00``, and hands everything to the
asyncio loop with ``call_soon_threadsafe``. On the loop thread:

- every tap goes to ``on_tag`` as :class:`TagTap` / :class:`TagRemoved` (deck enrolment
  reads whatever card is tapped);
- a UID in the :class:`BadgeTable` becomes ``BadgeTap(t, staff_id, supervisor)``; a dealer
  badge also logs that dealer in (``SetDealer(t, staff_id)``), or out if the same dealer is
  logged in (``SetDealer(t, "")``);
- the reader's health goes to ``on_status`` as :class:`PcscState`: ``NO_SERVICE`` (pcscd not
  running or pyscard missing), ``NO_READER`` (pcscd up, no matching reader) or ``READY``.
  The thread never dies on PC/SC errors: it retries every ``retry_s``.

pyscard's ``CardMonitor``/``ReaderMonitor`` are not used: they are process-wide singletons,
the card monitor's thread stops for good on ``SCARD_E_NO_SERVICE`` (pcscd restarted), and
stopping it waits out a 60 s ``CardRequest``. This module uses pyscard's ``smartcard.scard``
layer directly, with ``SCardCancel`` for a prompt stop.

libpcsclite reads ``PCSCLITE_CSOCK_NAME`` (the pcscd socket, default
``/run/pcscd/pcscd.comm``) once per process; tests point it at their private pcscd.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from controller.rules.errors import ConfigError, LocalError
from controller.rules.events import BadgeTap, SetDealer

log = logging.getLogger(__name__)

GET_UID_APDU = (0xFF, 0xCA, 0x00, 0x00, 0x00)
Clock = Callable[[], float]


class ReaderStatus(StrEnum):
    NO_SERVICE = "no_service"  # pcscd not reachable (or pyscard not installed)
    NO_READER = "no_reader"  # pcscd up, no (matching) reader plugged in
    READY = "ready"


class StaffRole(StrEnum):
    DEALER = "dealer"
    SUPERVISOR = "supervisor"


@dataclass(frozen=True, slots=True)
class StaffBadge:
    staff_id: str
    role: StaffRole


@dataclass(frozen=True, slots=True)
class TagTap:
    """A card came onto the reader and its UID was read."""

    t: float
    uid: bytes
    reader: str

    @property
    def uid_hex(self) -> str:
        return self.uid.hex().upper()


@dataclass(frozen=True, slots=True)
class TagRemoved:
    """The card left the reader (or the reader/pcscd went away with a card on it)."""

    t: float
    reader: str


@dataclass(frozen=True, slots=True)
class PcscState:
    t: float
    status: ReaderStatus
    readers: tuple[str, ...] = ()
    detail: str = ""


TagEvent = TagTap | TagRemoved
RulesEvent = BadgeTap | SetDealer


def normalise_uid(uid: bytes | str) -> str:
    """Upper-case hex without separators: ``04:a1:b2:c3`` → ``04A1B2C3``."""
    if isinstance(uid, bytes):
        return uid.hex().upper()
    text = uid.replace(":", "").replace(" ", "").replace("-", "").upper()
    bytes.fromhex(text)  # ValueError on anything but hex pairs
    return text


@dataclass(frozen=True)
class BadgeTable:
    """Staff badges: UID (hex) → staff id and role."""

    badges: Mapping[str, StaffBadge] = field(default_factory=dict)

    def lookup(self, uid: bytes | str) -> StaffBadge | None:
        return self.badges.get(normalise_uid(uid))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], prefix: str = "badges") -> BadgeTable:
        """``{"04A1B2C3": {"staff": "D-017", "role": "dealer"}, ...}``; errors name the key."""
        table: dict[str, StaffBadge] = {}
        staff_roles: dict[str, tuple[StaffRole, str]] = {}
        for raw_uid, entry in data.items():
            key = f"{prefix}.{raw_uid}"
            try:
                uid = normalise_uid(str(raw_uid))
            except ValueError:
                raise ConfigError(f"{key}: UID must be hex bytes") from None
            if not 4 <= len(uid) // 2 <= 10:
                raise ConfigError(f"{key}: UID must be 4 to 10 bytes")
            if uid in table:
                raise ConfigError(f"{key}: UID {uid} is listed twice")
            if not isinstance(entry, Mapping):
                raise ConfigError(f"{key}: expected a table with staff and role")
            for name in entry:
                if name not in ("staff", "role"):
                    raise ConfigError(f"{key}.{name}: unknown key")
            staff = entry.get("staff")
            if not isinstance(staff, str) or not staff.strip():
                raise ConfigError(f"{key}.staff: expected a staff id")
            try:
                role = StaffRole(str(entry.get("role", "")).lower())
            except ValueError:
                raise ConfigError(f"{key}.role: expected dealer or supervisor") from None
            previous = staff_roles.get(staff)
            if previous is not None and previous[0] != role:
                raise ConfigError(
                    f"{key}.role: staff {staff} is a {previous[0].value} at {previous[1]}"
                )
            staff_roles[staff] = (role, key)
            table[uid] = StaffBadge(staff.strip(), role)
        return cls(table)


def _scard() -> Any:
    from smartcard import scard

    return scard


class BadgeSource(Protocol):
    """A running badge reader: started on the loop thread, closed to stop."""

    def start(self) -> None: ...

    def close(self) -> None: ...


class BadgeFactory(Protocol):
    """Makes the daemon's badge reader, given the badge table and where its events and
    status go. The default is :class:`PcscReader` (pcscd, any PC/SC reader); a simulator or
    another kind of reader passes its own (as gpiozero takes a pin factory and the daemon a
    board factory)."""

    def __call__(
        self,
        badges: BadgeTable,
        *,
        on_event: Callable[[RulesEvent], None] | None = None,
        on_status: Callable[[PcscState], None] | None = None,
        reader_filter: str | None = None,
        dealer: str = "",
    ) -> BadgeSource: ...


class PcscReader:
    """Badge and enrolment reader. ``start()`` on the loop thread; ``close()`` to stop.

    ``reader_filter`` picks readers whose name contains it (None: every reader; the first
    one with a card wins). ``dealer``: the dealer already logged in (a restarted daemon's):
    their next tap logs them out. Callbacks run on the loop thread.
    """

    def __init__(
        self,
        badges: BadgeTable,
        *,
        on_event: Callable[[RulesEvent], None] | None = None,
        on_tag: Callable[[TagEvent], None] | None = None,
        on_status: Callable[[PcscState], None] | None = None,
        reader_filter: str | None = None,
        clock: Clock = time.monotonic,
        loop: asyncio.AbstractEventLoop | None = None,
        retry_s: float = 2.0,
        poll_s: float = 0.25,
        dealer: str = "",
    ) -> None:
        self.badges = badges
        self.reader_filter = reader_filter
        self.retry_s = retry_s
        self.poll_s = poll_s
        self._on_event = on_event
        self._on_tag = on_tag
        self._on_status = on_status
        self._clock = clock
        self._loop = loop
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ctx: Any = None
        self._ctx_lock = threading.Lock()
        self._state = PcscState(clock(), ReaderStatus.NO_SERVICE, (), "not started")
        self._present: dict[str, tuple[bool, int]] = {}  # reader → (card present, counter)
        self._rstate: dict[str, int] = {}  # reader → last SCardGetStatusChange state
        self._dealer = dealer  # logged in (a restarted daemon's, from its table store)
        self._announced = False  # the first state is always reported

    # ------------------------------------------------------------------ public

    @property
    def state(self) -> PcscState:
        return self._state

    @property
    def status(self) -> ReaderStatus:
        return self._state.status

    @property
    def dealer(self) -> str:
        """The dealer logged in by badge ("" if none). Loop thread."""
        return self._dealer

    def start(self) -> None:
        if self._thread is not None:
            raise LocalError("PcscReader.start() called twice")
        self._loop = self._loop or asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="pcsc-monitor", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the monitor thread (cancels a blocking wait at once). Idempotent."""
        self._stop.set()
        with self._ctx_lock:
            if self._ctx is not None:
                with contextlib.suppress(Exception):
                    _scard().SCardCancel(self._ctx)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.error("pcsc monitor thread did not stop within %.1f s", timeout)

    # ------------------------------------------------------------------ loop side

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or self._stop.is_set():
            return
        with contextlib.suppress(RuntimeError):  # loop closed during shutdown
            loop.call_soon_threadsafe(fn, *args)

    def _deliver_status(self, state: PcscState) -> None:
        _call(self._on_status, state)

    def _deliver_removed(self, ev: TagRemoved) -> None:
        _call(self._on_tag, ev)

    def _deliver_tap(self, tap: TagTap) -> None:
        _call(self._on_tag, tap)
        badge = self.badges.lookup(tap.uid)
        if badge is None:
            log.info("pcsc: card %s is not a staff badge", tap.uid_hex)
            return
        supervisor = badge.role is StaffRole.SUPERVISOR
        _call(self._on_event, BadgeTap(tap.t, badge.staff_id, supervisor=supervisor))
        if badge.role is StaffRole.DEALER:
            self._dealer = "" if self._dealer == badge.staff_id else badge.staff_id
            _call(self._on_event, SetDealer(tap.t, self._dealer))

    # ------------------------------------------------------------------ monitor thread

    def _set_state(self, status: ReaderStatus, readers: tuple[str, ...], detail: str) -> None:
        old = self._state
        if self._announced and (old.status, old.readers) == (status, readers):
            return
        self._announced = True
        self._state = PcscState(self._clock(), status, readers, detail)
        log.info("pcsc: %s %s %s", status.value, ", ".join(readers), detail)
        self._post(self._deliver_status, self._state)

    def _run(self) -> None:
        try:
            sc = _scard()
        except ImportError as exc:
            self._set_state(ReaderStatus.NO_SERVICE, (), f"pyscard not installed: {exc}")
            return
        gone = {
            _code(getattr(sc, name))
            for name in (
                "SCARD_E_NO_SERVICE", "SCARD_E_SERVICE_STOPPED", "SCARD_E_INVALID_HANDLE",
                "SCARD_F_COMM_ERROR", "SCARD_E_NO_MEMORY", "SCARD_F_INTERNAL_ERROR",
            )
            if hasattr(sc, name)
        }  # fmt: skip
        while not self._stop.is_set():
            rv, ctx = sc.SCardEstablishContext(sc.SCARD_SCOPE_USER)
            if _code(rv) != 0:
                self._set_state(ReaderStatus.NO_SERVICE, (), _message(sc, rv))
                self._stop.wait(self.retry_s)
                continue
            with self._ctx_lock:
                self._ctx = ctx
            try:
                while not self._stop.is_set():
                    if not self._cycle(sc, ctx, gone):
                        break  # service lost: back to establishing a context
            except Exception:  # never let the monitor die; report and retry
                log.exception("pcsc monitor")
            finally:
                with self._ctx_lock:
                    self._ctx = None
                with contextlib.suppress(Exception):
                    sc.SCardReleaseContext(ctx)
                self._forget_all()
            if not self._stop.is_set():
                self._set_state(ReaderStatus.NO_SERVICE, (), "pcscd connection lost")
                self._stop.wait(self.retry_s)

    def _forget_all(self) -> None:
        for name in list(self._present):
            self._forget(name)

    def _forget(self, name: str) -> None:
        present, _ = self._present.pop(name, (False, 0))
        self._rstate.pop(name, None)
        if present:
            self._post(self._deliver_removed, TagRemoved(self._clock(), name))

    def _cycle(self, sc: Any, ctx: Any, gone: set[int]) -> bool:
        """One wait for reader/card changes. False when the pcscd connection is gone."""
        rv, names = sc.SCardListReaders(ctx, [])
        code = _code(rv)
        if code in gone:
            return False
        if code != 0:
            names = []  # SCARD_E_NO_READERS_AVAILABLE, or a transient error
        if self.reader_filter is not None:
            names = [n for n in names if self.reader_filter in n]
        readers = tuple(names)
        for name in [n for n in self._present if n not in readers]:
            self._forget(name)
        if not readers:
            detail = (
                "" if self.reader_filter is None else f"no reader matches {self.reader_filter!r}"
            )
            self._set_state(ReaderStatus.NO_READER, (), detail)
            self._stop.wait(self.poll_s)
            return True
        self._set_state(ReaderStatus.READY, readers, "")
        query = [(n, self._rstate.get(n, sc.SCARD_STATE_UNAWARE)) for n in readers]
        rv, states = sc.SCardGetStatusChange(ctx, int(self.poll_s * 1000), query)
        code = _code(rv)
        if code in gone:
            return False
        if code != 0:  # timeout, cancelled, or a reader vanished mid-wait: re-list
            return True
        for name, state, _atr in states:
            self._reader_changed(sc, ctx, name, int(state))
        return True

    def _reader_changed(self, sc: Any, ctx: Any, name: str, state: int) -> None:
        self._rstate[name] = state & ~sc.SCARD_STATE_CHANGED
        counter = (state >> 16) & 0xFFFF  # pcsc-lite counts card events per reader
        bad = sc.SCARD_STATE_MUTE | sc.SCARD_STATE_UNAVAILABLE | sc.SCARD_STATE_UNKNOWN
        present = bool(state & sc.SCARD_STATE_PRESENT) and not state & bad
        was_present, was_counter = self._present.get(name, (False, -1))
        if present and was_present and counter == was_counter:
            return  # same card (our own connect toggles INUSE)
        if was_present:
            self._post(self._deliver_removed, TagRemoved(self._clock(), name))
        self._present[name] = (present, counter)
        if not present:
            return
        uid = self._read_uid(sc, ctx, name)
        if uid is not None:
            self._post(self._deliver_tap, TagTap(self._clock(), uid, name))

    def _read_uid(self, sc: Any, ctx: Any, reader: str) -> bytes | None:
        protocols = sc.SCARD_PROTOCOL_T0 | sc.SCARD_PROTOCOL_T1
        rv, hcard, proto = sc.SCardConnect(ctx, reader, sc.SCARD_SHARE_SHARED, protocols)
        if _code(rv) != 0:
            log.warning("pcsc: connect to card on %s: %s", reader, _message(sc, rv))
            return None
        try:
            pci = sc.SCARD_PCI_T1 if proto == sc.SCARD_PROTOCOL_T1 else sc.SCARD_PCI_T0
            rv, resp = sc.SCardTransmit(hcard, pci, list(GET_UID_APDU))
            if _code(rv) != 0:
                log.warning("pcsc: UID read on %s: %s", reader, _message(sc, rv))
                return None
            if len(resp) < 3 or resp[-2:] != [0x90, 0x00]:
                log.warning("pcsc: UID read on %s answered %s", reader, bytes(resp).hex())
                return None
            return bytes(resp[:-2])
        finally:
            with contextlib.suppress(Exception):
                sc.SCardDisconnect(hcard, sc.SCARD_LEAVE_CARD)


def _code(rv: int) -> int:
    return int(rv) & 0xFFFFFFFF


def _message(sc: Any, rv: int) -> str:
    try:
        return f"{sc.SCardGetErrorMessage(rv)} ({_code(rv):#010x})"
    except Exception:
        return f"{_code(rv):#010x}"


def _call(fn: Callable[[Any], None] | None, arg: object) -> None:
    if fn is None:
        return
    try:
        fn(arg)
    except Exception:  # a faulty consumer must not stop the reader
        log.exception("pcsc callback failed on %r", arg)
