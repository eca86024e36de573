"""A private, real pcscd with the vsmartcard vpcd driver, for the PC/SC tests.

Isolation: a system pcscd (socket-activated on most desktops) owns ``/run/pcscd`` and
vpcd's port 35963. Where possible (root, ``unshare`` available) the test pcscd runs in its
own mount namespace with a temporary directory bind-mounted on ``/run/pcscd``; the client
side (libpcsclite, loaded by pyscard) is pointed at that socket with
``PCSCLITE_CSOCK_NAME``. Its reader.conf.d is a temporary directory with one vpcd entry on a
free port pair (vpcd opens one port per slot), so nothing clashes with a system pcscd or a
concurrent test session. Without namespaces the fixture falls back to the default socket,
only when no other pcscd runs. It skips only when pcscd or the vpcd driver is missing (or
when neither mode is possible, saying why).

Clean-up: each pcscd is stopped (SIGTERM, then SIGKILL) when its test ends; it also gets
``PR_SET_PDEATHSIG`` (dies with the test process) and ``--auto-exit``. At session start,
pcscd processes left by an earlier session of these tests whose pytest is gone are killed;
nothing else is touched.

libpcsclite reads ``PCSCLITE_CSOCK_NAME`` once per process, so the socket path is fixed
for the whole session (``pcscd_session``) and each test starts/stops pcscd in it
(``pcscd``).
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

MARK = "railguard-pcscd-"
SYSTEM_SOCKET = Path("/run/pcscd/pcscd.comm")


def find_pcscd() -> str | None:
    return shutil.which("pcscd") or next(
        (p for p in ("/usr/sbin/pcscd", "/sbin/pcscd") if os.access(p, os.X_OK)), None
    )


def find_vpcd_driver() -> str | None:
    hits = sorted(glob.glob("/usr/lib*/pcsc/drivers/serial/libifdvpcd.so*"))
    hits += sorted(glob.glob("/usr/lib/*/pcsc/drivers/serial/libifdvpcd.so*"))
    return hits[0] if hits else None


def _pcscd_pids() -> list[tuple[int, list[str]]]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        argv = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
        if argv and os.path.basename(argv[0]) == "pcscd":
            out.append((int(entry), argv))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_stale_test_pcscd() -> list[int]:
    """Kill pcscd processes started by an earlier session of these tests whose pytest died."""
    killed = []
    for pid, argv in _pcscd_pids():
        conf = next((a for a in argv if MARK in a), None)
        if conf is None:
            continue  # not ours: a system pcscd or someone else's
        owner = conf.split(MARK, 1)[1].split("-", 1)[0]
        if owner.isdigit() and _alive(int(owner)) and int(owner) != os.getpid():
            continue  # a concurrent session: leave it alone
        if owner.isdigit() and int(owner) == os.getpid():
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    for stale in glob.glob(os.path.join(tempfile.gettempdir(), MARK + "*")):
        owner = os.path.basename(stale)[len(MARK) :].split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(stale, ignore_errors=True)
    return killed


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return probe.returncode == 0


def _free_port_pair() -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("0.0.0.0", 0))
            port = int(s.getsockname()[1])
        if port >= 65535:
            continue
        try:
            with socket.socket() as s2:
                s2.bind(("0.0.0.0", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no free TCP port pair for vpcd")


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Pcscd:
    """One session's pcscd: ``start()`` / ``stop()`` as often as a test needs."""

    def __init__(self, base: Path, pcscd: str, driver: str, isolated: bool) -> None:
        self.base = base
        self.pcscd = pcscd
        self.driver = driver
        self.isolated = isolated
        self.run_dir = base / "run"
        self.conf_dir = base / "reader.conf.d"
        self.run_dir.mkdir(exist_ok=True)
        self.conf_dir.mkdir(exist_ok=True)
        self.socket = self.run_dir / "pcscd.comm" if isolated else SYSTEM_SOCKET
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = base / "pcscd.log"

    @property
    def reader_names(self) -> tuple[str, str]:
        return ("Virtual PCD 00 00", "Virtual PCD 00 01")

    @property
    def slot_ports(self) -> tuple[int, int]:
        return (self.port, self.port + 1)

    def start(self, with_reader: bool = True, timeout: float = 10.0) -> None:
        if self.proc is not None:
            raise RuntimeError("pcscd already started")
        for attempt in range(3):
            conf = self.conf_dir / "vpcd"
            if with_reader:
                self.port = _free_port_pair()
                conf.write_text(
                    'FRIENDLYNAME "Virtual PCD"\n'
                    f"DEVICENAME   /dev/null:{self.port}\n"
                    f"LIBPATH      {self.driver}\n"
                    f"CHANNELID    {self.port}\n"
                )
            else:
                conf.unlink(missing_ok=True)
            cmd = [self.pcscd, "--foreground", "--auto-exit", "--config", str(self.conf_dir)]
            if self.isolated:
                script = 'mkdir -p /run/pcscd && mount --bind "$0" /run/pcscd && exec "$@"'
                cmd = ["unshare", "--mount", "--propagation", "private",
                       "sh", "-c", script, str(self.run_dir), *cmd]  # fmt: skip
            with open(self.log, "ab") as log:
                # preexec_fn only calls prctl (async-signal-safe) between fork and exec
                self.proc = subprocess.Popen(
                    cmd,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_die_with_parent,  # noqa: PLW1509
                )
            if self._wait_ready(2 if with_reader else 0, timeout):
                return
            self.stop()
            if attempt == 2:
                raise RuntimeError(f"pcscd did not come up; see {self.log}:\n{self.tail()}")

    def _wait_ready(self, readers: int, timeout: float) -> bool:
        from smartcard import scard

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                return False
            if self.socket.exists():
                rv, ctx = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
                if rv == scard.SCARD_S_SUCCESS:
                    rv, names = scard.SCardListReaders(ctx, [])
                    scard.SCardReleaseContext(ctx)
                    if len(names or []) >= readers:
                        return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if not self.isolated:  # pcscd cleans up after itself; make sure
            with contextlib.suppress(OSError):
                SYSTEM_SOCKET.unlink()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


@pytest.fixture(scope="session")
def pcscd_session() -> Iterator[Pcscd]:
    binary, driver = find_pcscd(), find_vpcd_driver()
    if binary is None or driver is None:
        pytest.skip(
            "PC/SC tests need pcscd and the vpcd driver: apt-get install pcscd vsmartcard-vpcd"
            f" (pcscd: {binary or 'missing'}, libifdvpcd.so: {driver or 'missing'})"
        )
    pytest.importorskip("smartcard.scard", reason="pyscard not installed (extra 'pcsc')")
    kill_stale_test_pcscd()
    isolated = _can_unshare()
    if not isolated:
        others = [pid for pid, _ in _pcscd_pids()]
        if others or SYSTEM_SOCKET.exists():
            pytest.skip(
                f"a pcscd already runs (pids {others}) and this process cannot create a "
                "private mount namespace (needs root and unshare) to run its own beside it"
            )
        if not os.access("/run", os.W_OK):
            pytest.skip("running pcscd on /run/pcscd needs root")
    base = Path(tempfile.mkdtemp(prefix=f"{MARK}{os.getpid()}-"))
    daemon = Pcscd(base, binary, driver, isolated)
    old = os.environ.get("PCSCLITE_CSOCK_NAME")
    if isolated:
        os.environ["PCSCLITE_CSOCK_NAME"] = str(daemon.socket)
    try:
        yield daemon
    finally:
        daemon.stop()
        if old is None:
            os.environ.pop("PCSCLITE_CSOCK_NAME", None)
        else:
            os.environ["PCSCLITE_CSOCK_NAME"] = old
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pcscd(pcscd_session: Pcscd) -> Iterator[Pcscd]:
    """The session's pcscd, started with the vpcd reader, stopped after the test."""
    pcscd_session.start()
    try:
        yield pcscd_session
    finally:
        pcscd_session.stop()
