"""``railguard replay`` run as a command, for the tests that judge its output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RAILGUARD = Path(sys.executable).parent / "railguard"


def run_replay(*args: str, timeout: float = 150) -> tuple[int, list[str]]:
    """(exit code, the result lines on stdout, or the stderr lines when there are none:
    progress and errors go to stderr). A run past ``timeout`` is killed with its process
    group (the replay and its private mosquitto) and fails the test."""
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    proc = subprocess.Popen(
        [*cmd, "replay", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"railguard replay timed out:\n{out}{err}")
    return proc.returncode, out.strip().splitlines() or err.strip().splitlines()
