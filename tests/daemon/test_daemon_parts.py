"""The daemon's parts get what they need through a narrow interface (a Protocol each:
``inputs.InputHost``, ``reader.ReaderHost``, ``storage.StorageHost``), not the whole
``service.Daemon``: none of them imports ``controller.daemon.service`` (not even for type
checking), so service.py and its parts form no import cycle. mypy --strict checks that
``Daemon`` satisfies each Protocol where service.py hands itself to a part."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DAEMON = Path(__file__).resolve().parents[2] / "controller" / "daemon"
PARTS = ["inputs", "reader", "storage", "recovery", "translate", "live", "lights", "house_profiles"]


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module:
            out.add(n.module)
            out |= {f"{n.module}.{a.name}" for a in n.names}
    return out


@pytest.mark.parametrize("part", PARTS)
def test_a_part_of_the_daemon_does_not_import_the_service(part: str) -> None:
    found = _imports(DAEMON / f"{part}.py")
    assert "controller.daemon.service" not in found, found
    assert "controller.daemon.service.Daemon" not in found
