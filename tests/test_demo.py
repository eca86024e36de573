"""``railguard demo`` end to end as a user runs it: a subprocess with its own broker, daemon,
simulated board and GPIO plays three seeded hands and exits 0 with the summary line."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RAILGUARD = Path(sys.executable).parent / "railguard"


def _run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    cmd = [str(RAILGUARD)] if RAILGUARD.exists() else [sys.executable, "-m", "controller.cli"]
    proc = subprocess.Popen(
        [*cmd, "demo", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the demo and its private mosquitto
        out, _ = proc.communicate()
        pytest.fail(f"railguard demo timed out:\n{out}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


needs_mosquitto = pytest.mark.skipif(
    not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").exists()),
    reason="mosquitto not installed",
)


@needs_mosquitto
@pytest.mark.timeout(150)
@pytest.mark.parametrize("source", ["auto", "generated"])
def test_demo_plays_three_seeded_hands(source: str) -> None:
    r = _run("--hands", "3", "--seed", "1", "--source", source, "--error-rate", "0.5")
    assert r.returncode == 0, r.stdout
    assert re.search(r"^demo: 3 hands played, 0 records missing, 0 mismatches, seed 1: OK$",
                     r.stdout, re.M), r.stdout  # fmt: skip
    assert "hand records: daemon 3, over MQTT 3, stored by the venue logger 3" in r.stdout
    assert "\x1b[" not in r.stdout  # not a terminal: no colour codes


@needs_mosquitto
@pytest.mark.timeout(150)
def test_demo_is_reproducible_with_a_seed() -> None:
    a = _run("--hands", "2", "--seed", "7", "--source", "generated")
    b = _run("--hands", "2", "--seed", "7", "--source", "generated")
    assert a.returncode == b.returncode == 0, a.stdout + b.stdout

    def hands(out: str) -> list[str]:
        keep = ("    seat ", "    finishing stacks")
        return [ln for ln in out.splitlines() if ln.startswith(keep)]

    assert hands(a.stdout) and hands(a.stdout) == hands(b.stdout)


def test_demo_rejects_a_bad_broker_url() -> None:
    r = _run("--hands", "1", "--broker", "http://example.invalid", "--source", "generated",
             timeout=60)  # fmt: skip
    assert r.returncode != 0
    assert "mqtt://" in r.stdout


@needs_mosquitto
def test_demo_dealer_makes_errors_of_several_kinds_and_each_raises_its_alert() -> None:
    # every hand with a dealer error (error rate 1): hwsim.inject's kinds and their remedies
    # through the whole table; the remedies keep every hand's result
    res = _run("--hands", "8", "--seed", "5", "--error-rate", "1.0", "--source", "generated",
               timeout=240)  # fmt: skip
    assert res.returncode == 0, res.stdout
    errors = re.findall(r"dealer error: (.+)", res.stdout)
    assert len(errors) >= 5 and len(set(errors)) >= 3, errors
    assert "remedy: " in res.stdout
    summary = re.search(r"dealer errors injected: (\d+); alerts: (.*)", res.stdout)
    assert summary is not None and int(summary.group(1)) == len(errors)
    fired = dict(kv.split("=") for kv in summary.group(2).split(", "))
    assert len(fired) >= 3, fired
    assert re.search(r"demo: 8 hands played, 0 records missing, 0 mismatches", res.stdout)
