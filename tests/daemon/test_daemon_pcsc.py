"""Staff badges through the daemon (real pcscd + vpcd, hwsim.vpicc): the cases in
pcsc_daemon_cases.py, run in their own pytest process. libpcsclite fixes the pcscd socket
path once per process, and tests/firmware_bridge/test_pcsc.py starts its own session
pcscd in this one: sharing the process would leave one of the two unreachable."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).with_name("pcsc_daemon_cases.py")


@pytest.mark.timeout(200)
def test_badges_through_the_daemon(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-o", "addopts=",
         f"--basetemp={tmp_path / 'inner'}", str(CASES)],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    if proc.returncode == 0 and "passed" not in summary and "skipped" in summary:
        reason = re.search(r"SKIPPED \[\d+\] [^:]+:\d+: (.*)", out)
        pytest.skip(reason.group(1) if reason else summary)
    assert proc.returncode == 0, out[-6000:]
    assert re.search(r"\b2 passed\b", summary), out[-3000:]
