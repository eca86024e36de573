"""Running a bench/ script as the developers do, for the smoke tests of tests/bench: a fresh
interpreter of this venv, from the checkout, its last stdout line parsed as the script's JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def bench_json(script: str, *args: str, timeout: float = 140) -> dict[str, Any]:
    """Run ``bench/<script> <args>``; it must exit 0 and print one JSON object last."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert isinstance(out, dict), out
    return out
