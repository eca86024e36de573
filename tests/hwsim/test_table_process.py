"""The simulated table with its daemon as a child ``railguard run --config`` process
(``SimTable.open(..., process=True)``): it answers venue commands over MQTT, a SIGKILL and a
new start keep its state, a clean close stops it with SIGTERM (exit code 0) and reaps it, its
log is kept; a daemon that cannot start fails the table with the end of its log; what only
an in-process daemon has (its pins, its ``Daemon`` object) is refused by name."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from hwsim.layout import SIX, TableFailure
from hwsim.table import SimTable
from tests.brokers import plain_broker


def _gone(pid: int) -> bool:
    """``pid`` is no child of this process any more (exited and reaped)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


async def _lifecycle(tmp: Path, port: int) -> None:
    table = await SimTable.open("127.0.0.1", port, profile="tda-2024", workdir=tmp, seats=SIX,
                                transport="pty", process=True)  # fmt: skip
    child = table.child
    assert child is not None
    first = child.pid
    try:
        assert table.running and table.births == 1
        assert (tmp / "railguard.toml").read_text().startswith("# the simulated table's config")
        with pytest.raises(TableFailure, match="its own process"):
            table.gpio.set_puck(1, True)
        with pytest.raises(TableFailure, match="its own process"):
            table.observe()
        # a command answered by the process (the deck was enrolled by open already)
        await table.venue.do("seat", seat=2, player_id="p2", name="Bea", stack=500)
        assert await table.kill_daemon() == -signal.SIGKILL
        assert not table.running and _gone(first)
        await table.start_daemon()
        assert table.births == 2 and child.pid != first
        # the seat is in the state the new process restored
        with pytest.raises(TableFailure, match="already sits in seat 2"):
            await table.venue.do("seat", seat=3, player_id="p2", name="Bea", stack=500)
    finally:
        second = child.pid if child.alive() else None
        await table.close()
    assert child.returncode == 0, child.log()[-3000:]  # SIGTERM: the daemon's clean stop
    assert second is not None and _gone(second) and not table.running
    log = child.log()
    assert "start 1:" in log and "start 2:" in log and "exit code -9" in log
    assert log.rstrip().endswith("exit code 0")


@pytest.mark.timeout(120)
def test_daemon_process_commands_kill_restart_and_clean_stop(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_lifecycle(tmp_path, broker.port), 100))


async def _cannot_start(tmp: Path, port: int) -> None:
    storage = tmp / "not-a-folder"
    storage.write_text("a file where the daemon's state folder should be\n")
    with pytest.raises(TableFailure) as info:
        await SimTable.open("127.0.0.1", port, profile="tda-2024", workdir=tmp, seats=SIX,
                            transport="pty", process=True, storage=storage)  # fmt: skip
    text = str(info.value)
    assert "exited with code" in text and str(tmp / "daemon.log") in text, text
    assert "not-a-folder" in text, text  # the daemon's own words, from its log


@pytest.mark.timeout(60)
def test_daemon_process_that_cannot_start_fails_with_its_log(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_cannot_start(tmp_path, broker.port), 50))


def test_process_options_are_refused_where_they_cannot_work(tmp_path: Path) -> None:
    for kw in ({"process": True}, {"process": True, "transport": "pty", "clock": object()},
               {"transport": "pty", "env": {"X": "1"}}):  # fmt: skip
        with pytest.raises(ValueError):
            asyncio.run(SimTable.open("127.0.0.1", 1, profile="tda-2024", workdir=tmp_path,
                                      **kw))  # type: ignore[arg-type]  # fmt: skip
