"""The rules core does no I/O: no module of controller/rules imports an I/O, clock or
randomness library, and none calls an I/O builtin."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "controller" / "rules"
FORBIDDEN = {
    "asyncio",
    "serial",
    "gpiozero",
    "smartcard",
    "aiomqtt",
    "paho",
    "sqlite3",
    "socket",
    "time",
    "random",
}
IO_BUILTINS = {"open", "input", "print", "exec", "eval", "breakpoint", "__import__"}
MODULES = sorted(RULES.glob("*.py"))


def forbidden_imports(tree: ast.AST) -> list[str]:
    bad = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        bad += [n for n in names if n.split(".")[0] in FORBIDDEN]
    return bad


def io_calls(tree: ast.AST) -> list[str]:
    return [
        f"{node.func.id}( at line {node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in IO_BUILTINS
    ]


def test_the_package_has_modules() -> None:
    assert len(MODULES) >= 15
    assert RULES.joinpath("engine.py") in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_rules_module_imports_no_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert forbidden_imports(tree) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_rules_module_calls_no_io_builtin(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert io_calls(tree) == []


def test_the_checks_catch_what_they_look_for() -> None:
    """The checkers themselves: an import of time, `from socket import x`, and open()."""
    src = "import time\nfrom socket import create_connection\nimport os.path\nopen('x')\n"
    tree = ast.parse(src)
    assert forbidden_imports(tree) == ["time", "socket"]
    assert io_calls(tree) == ["open( at line 4"]
