"""No two modules of the product import each other in a circle at run time.

The graph is of modules, not packages (tests/test_import_graph.py checks the packages): an
edge for every ``import`` at module level or inside a function (both run), none for imports
under ``TYPE_CHECKING``. ``from pkg import x`` is an edge to the package ``pkg`` (its
``__init__`` runs) and to ``pkg.x`` when that is a module. The same reading as the
project's before-stop check. One case per package: a circle is reported where it lies.

With the ``TYPE_CHECKING`` imports counted too, the only edges allowed back up are the rule
modules' annotations of ``TableCore`` (``test_no_circle_through_type_only_imports``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("controller", "firmware_bridge", "hwsim", "reader_firmware")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for top in TOPS:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def run_time_imports(path: Path) -> set[str]:
    """The absolute modules ``path`` imports outside ``if TYPE_CHECKING:`` blocks."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.If) and "TYPE_CHECKING" in ast.unparse(ch.test):
                continue
            if isinstance(ch, ast.ImportFrom) and ch.module and not ch.level:
                out.add(ch.module)
                out.update(f"{ch.module}.{a.name}" for a in ch.names)
            elif isinstance(ch, ast.Import):
                out.update(a.name for a in ch.names)
            visit(ch)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return out


def module_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    return {m: (run_time_imports(p) & files.keys()) - {m} for m, p in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "controller" and len(parts) > 1 else parts[0]


PACKAGES = sorted({package_of(m) for m in module_files()})


@pytest.mark.parametrize("package", PACKAGES)
def test_no_run_time_import_circle(package: str) -> None:
    mine = [c for c in circles(module_graph()) if package_of(c[0]) == package]
    assert not mine, f"modules that import each other at run time in {package}: {mine}"


def test_the_checker_finds_circles(tmp_path: Path) -> None:
    """It can fail: a package whose __init__ imports a module that imports the package
    (``from pkg import x``), a pair through a function-level import; a TYPE_CHECKING import
    and a one-way chain are no circle."""
    files = {
        "controller/__init__.py": "",
        "controller/a/__init__.py": "from controller.a.m import f\n",
        "controller/a/m.py": "from controller.a import n\ndef f() -> None: ...\n",
        "controller/a/n.py": "",
        "controller/b/__init__.py": "",
        "controller/b/p.py": "def g() -> None:\n    import controller.b.q\n",
        "controller/b/q.py": "import controller.b.p\n",
        "controller/c/__init__.py": "",
        "controller/c/s.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from controller.c import t\n",
        "controller/c/t.py": "from controller.c import s\n",
        "firmware_bridge/__init__.py": "",
        "hwsim/__init__.py": "import controller.c.t\n",
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    found = circles(module_graph(tmp_path))
    assert sorted(found) == [
        ["controller.a", "controller.a.m"],
        ["controller.b.p", "controller.b.q"],
    ]


def all_imports(path: Path) -> set[str]:
    """The absolute modules ``path`` imports anywhere, ``if TYPE_CHECKING:`` blocks included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


#: the one kind of type-only import allowed to point back up: a rule module's annotation
#: of the ``TableCore`` it is given (docs/architecture.md, "Layers")
TYPE_ONLY_UP = ("controller.rules.", "controller.rules.engine")


def type_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = module_files(root)
    prefix, engine = TYPE_ONLY_UP
    graph: dict[str, set[str]] = {}
    for m, p in files.items():
        deps = (all_imports(p) & files.keys()) - {m}
        if m.startswith(prefix):
            deps.discard(engine)
        graph[m] = deps
    return graph


def test_no_circle_through_type_only_imports() -> None:
    """A ``TYPE_CHECKING`` import is a dependency of the design too: with them counted, the
    only edges back up are the rule modules' ``TableCore`` annotations (TYPE_ONLY_UP)."""
    found = circles(type_graph())
    assert not found, f"modules that import each other, type-only imports counted: {found}"


def test_the_type_only_reading_finds_a_type_only_circle(tmp_path: Path) -> None:
    files = {
        "controller/__init__.py": "",
        "controller/c/__init__.py": "",
        "controller/c/s.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from controller.c import t\n",
        "controller/c/t.py": "from controller.c import s\n",
        "controller/rules/__init__.py": "",
        "controller/rules/engine.py": "from controller.rules import dealing\n",
        "controller/rules/dealing.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from controller.rules.engine import TableCore\n",
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    assert circles(type_graph(tmp_path)) == [["controller.c.s", "controller.c.t"]]
