"""The daemon's parts get what they need through a narrow interface (a Protocol each:
``inputs.InputHost``, ``reader.ReaderHost``, ``storage.StorageHost``, ``core_loop.CoreHost``,
``venue_commands.CommandHost``, ``startup.StartupHost``, ``watchdog.WatchdogHost``,
``observe.ObserveHost``), not the whole
``service.Daemon``: none of them imports ``controller.daemon.service`` (not even for type
checking), so service.py and its parts form no import cycle. mypy --strict checks that
``Daemon`` satisfies each Protocol where service.py hands itself to a part."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DAEMON = Path(__file__).resolve().parents[2] / "controller" / "daemon"
#: every module of controller/daemon but the composition root (service.py, __init__.py)
PARTS = sorted(p.stem for p in DAEMON.glob("*.py") if p.stem not in ("service", "__init__"))


def test_the_parts_are_found() -> None:
    named = {"inputs", "reader", "storage", "recovery", "translate", "live", "lights"}
    assert named | {
        "core_loop",
        "venue_commands",
        "startup",
        "watchdog",
        "observe",
        "house_profiles",
    } <= set(PARTS)


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
