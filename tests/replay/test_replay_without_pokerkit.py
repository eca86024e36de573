"""A PHH file without ``finishing_stacks`` needs pokerkit (the dev extra) to know its outcome.
In a production venv without pokerkit, ``railguard replay`` skips such a file with a reason
rather than counting it as failed (it found no mismatch: it had nothing to compare)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.replay import replay_file
from controller.rules.profile import builtin_profile

ROOT = Path(__file__).resolve().parents[2]

WITHOUT = """\
variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
actions = ['d dh p1 AsKs', 'd dh p2 7c2d', 'd dh p3 QhQd', 'p3 cbr 300', 'p1 f', 'p2 f']
"""

# pokerkit made unimportable for this interpreter only: a None entry in sys.modules is how
# Python itself says "import fails" (the code under test takes its ImportError path)
NO_POKERKIT = """\
import sys
sys.modules["pokerkit"] = None
from controller.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "no-outcome.phh"
    p.write_text(text)
    return p


def test_with_pokerkit_the_outcome_is_computed(tmp_path: Path) -> None:
    res = replay_file(_write(tmp_path, WITHOUT), builtin_profile("tda-2024"))
    assert res.match is True, res.line()
    assert res.expected == [950, 900, 1150]


def test_without_pokerkit_the_file_is_skipped_with_a_reason(tmp_path: Path) -> None:
    with_stacks = _write(tmp_path, WITHOUT + "finishing_stacks = [950, 900, 1150]\n")
    with_stacks = with_stacks.rename(tmp_path / "with-outcome.phh")
    path = _write(tmp_path, WITHOUT)
    out = subprocess.run(
        [sys.executable, "-c", NO_POKERKIT, "replay", "--core-only", str(path), str(with_stacks)],
        check=False, capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    by_file = {Path(d["file"]).name: d for d in lines}
    skipped = by_file["no-outcome.phh"]
    assert skipped["match"] is None
    assert "no finishing_stacks" in skipped["error"] and "pokerkit" in skipped["error"]
    assert by_file["with-outcome.phh"]["match"] is True
    assert out.stdout.strip().splitlines()[-1] == "1 passed, 0 failed, 1 skipped"
