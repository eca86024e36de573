"""Ctrl-C in ``demo``, ``replay`` and ``scenario``: no traceback, exit 130, and every process
the command started (the private mosquitto, the replay's table processes) is gone.

A terminal's Ctrl-C sends SIGINT to the whole foreground process group: the command runs in
a session of its own and the test signals that group (``os.killpg``), as the terminal would;
one case signals only the command's own process, which must then stop its children itself."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.replay.hands import HAND_WITH_FLOP_BET

ROOT = Path(__file__).resolve().parents[1]
RAILGUARD = Path(sys.executable).parent / "railguard"
SCENARIOS = ROOT / "scenarios"

pytestmark = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)


def _session_members(sid: int) -> list[str]:
    """The live (not zombie) processes of session ``sid``: 'pid name' each."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :]
        fields = rest.split()
        if int(fields[3]) == sid and fields[0] != "Z":
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                cmdline = b""
            out.append(f"{entry} {name}: {cmdline.decode(errors='replace').strip()}")
    return out


def _interrupt(args: list[str], ready: str, *, group: bool = True) -> tuple[int, str]:
    """Start ``railguard ARGS``, wait for a line containing ``ready``, SIGINT it; (exit, output)."""
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*cmd, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            env=env)  # fmt: skip
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if ready in line:
                break
        else:
            pytest.fail(f"railguard {args[0]} ended before {ready!r}:\n{''.join(lines)}")
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # a process that is exiting (its parent gone) takes a moment to become a zombie
    deadline = time.monotonic() + 15
    while (left := _session_members(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"still running after railguard {args[0]} exited: {left}"
    return proc.returncode, "".join(lines) + rest


def _hands(tmp: Path, n: int) -> Path:
    for i in range(n):
        (tmp / f"hand-{i:02}.phh").write_text(HAND_WITH_FLOP_BET)
    return tmp


@pytest.mark.timeout(120)
def test_ctrl_c_in_demo(tmp_path: Path) -> None:
    code, out = _interrupt(["demo", "--hands", "20", "--source", "generated", "--seed", "3"],
                           "== hand 1/")  # fmt: skip
    assert code == 130, out
    assert "Traceback" not in out, out
    assert "railguard demo: interrupted" in out


@pytest.mark.timeout(120)
@pytest.mark.parametrize("group", [True, False], ids=["terminal", "process-only"])
def test_ctrl_c_in_a_full_system_replay(tmp_path: Path, group: bool) -> None:
    folder = _hands(tmp_path, 30)
    code, out = _interrupt(["replay", "--tables", "2", str(folder)], '"match": true',
                           group=group)  # fmt: skip
    assert code == 130, out
    assert "Traceback" not in out, out
    assert "railguard replay: interrupted" in out
    assert "30 passed" not in out


@pytest.mark.timeout(120)
def test_ctrl_c_in_scenario() -> None:
    code, out = _interrupt(["scenario", str(SCENARIOS)], "PASS ")
    assert code == 130, out
    assert "Traceback" not in out, out
    # the first Ctrl-C lets the scenario being played finish (hwsim/scenario/cli.py)
    assert "interrupted after" in out, out
    assert " failed" in out.splitlines()[-2], out  # the per-profile summary is printed
