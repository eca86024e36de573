"""Fixtures shared across test folders.

The private pcscd (real pcscd + the vpcd virtual reader) is one session fixture for the
whole run: libpcsclite fixes its socket path once per process, so two session pcscds in one
pytest process (one per test module) would leave the second unreachable.

The private PostgreSQL server (tests/pg.py) is one session fixture too, ``pg_server``; each
test that asks for ``pg_url`` gets a fresh database on it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "firmware_bridge"))
if str(Path(__file__).resolve().parents[1]) not in sys.path:  # for `from tests.pg import`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pcsc_fixtures

from tests.pg import PgServer, postgres_server

pcscd_session = pcsc_fixtures.pcscd_session
pcscd = pcsc_fixtures.pcscd


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A private PostgreSQL server for the whole run (tests/pg.py); fails if the server
    package is missing."""
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh, empty database on the private server."""
    return pg_server.create_database()


# ---------------------------------------------------------------- clause coverage (issue 16)
# The clause marker's bookkeeping and the end-of-run check (tests/coverage_plugin.py).
sys.path.insert(0, str(Path(__file__).parent))
pytest_plugins = ["coverage_plugin"]


_LEFT_SIGINT_IGNORED: list[str] = []


@pytest.fixture(autouse=True)
def _signals_as_a_terminal_gives_them(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test starts with SIGINT and SIGTERM handled as a terminal's process has them:
    not ignored, not blocked. A shell starts a background job (``.ci/run &``, nohup) with
    SIGINT ignored; a process inherits that (Python keeps an ignored SIGINT), so every
    command a test starts was deaf to the Ctrl-C the test sends it (``railguard sim``,
    ``demo``, ``replay``, ``venue-log`` timed out in a clean-clone run started in the
    background and passed in the foreground). The same holds for a test that leaves SIGINT
    ignored in its worker: it is named in ``_LEFT_SIGINT_IGNORED``."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        _LEFT_SIGINT_IGNORED.append(request.node.nodeid)
