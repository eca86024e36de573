"""The systemd units verify with ``systemd-analyze verify`` (ExecStart pointed at an existing
binary in a temporary copy, since the venv path exists only on an installed Pi)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNITS = Path(__file__).resolve().parents[2] / "systemd"
SERVICES = ["railguard.service", "railguard-venue-log.service"]
ANALYZE = shutil.which("systemd-analyze")


@pytest.mark.timeout(60)
def test_units_verify(tmp_path: Path) -> None:
    # scripts/setup.sh installs systemd (systemd-analyze); a missing tool fails, never skips
    assert ANALYZE is not None, "systemd-analyze is not installed (Debian package systemd)"
    true = shutil.which("true") or "/bin/true"
    for name in SERVICES:
        text = (UNITS / name).read_text()
        text = re.sub(r"^ExecStart=\S+", f"ExecStart={true}", text, flags=re.M)
        (tmp_path / name).write_text(text)
    r = subprocess.run(
        [ANALYZE, "verify", "--man=no", *(str(tmp_path / n) for n in SERVICES)],
        check=False, capture_output=True, text=True, timeout=45,
        env={"SYSTEMD_LOG_LEVEL": "notice", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr + r.stdout
    assert "railguard.service" not in r.stderr, r.stderr


def test_main_unit_settings() -> None:
    text = (UNITS / "railguard.service").read_text()
    for line in (
        "Type=notify", "Restart=on-failure", "User=railguard",
        "SupplementaryGroups=dialout gpio", "RuntimeDirectory=railguard",
        "StateDirectory=railguard", "WorkingDirectory=%t/railguard", "DevicePolicy=closed",
        "DeviceAllow=/dev/railguard-reader rw",
    ):  # fmt: skip
        assert re.search(f"^{re.escape(line)}$", text, re.M), line
    assert re.search(r"^WatchdogSec=\d+s?$", text, re.M)
    assert not re.search(r"^PrivateDevices=", text, re.M)
    assert "BindsTo" not in text.split("[Service]")[0].replace("Not BindsTo=", "")


def test_udev_rule() -> None:
    text = (UNITS / "99-railguard-reader.rules").read_text()
    assert 'SYMLINK+="railguard-reader"' in text
    assert 'SUBSYSTEM=="tty"' in text
