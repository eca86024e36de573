"""No import cycle between the project's packages: the graph of which package imports
which, built with ``ast`` from every module's import statements (at the top, inside
functions and under ``TYPE_CHECKING`` alike: each is a dependency of the design), must be
acyclic. A package is a subpackage (or top-level module) of ``controller``
(``controller.rules``, ``controller.daemon``, ``controller.demo``, ``controller.cli``, ...),
``firmware_bridge`` or ``hwsim``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "firmware_bridge", "hwsim")


def node_of(module: str) -> str | None:
    """The package a dotted module name belongs to, or None outside the project."""
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    if parts[0] == "controller" and len(parts) > 1:
        return f"controller.{parts[1]}"
    return parts[0]


def module_name(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    here = module_name(path, root).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                base = package[: len(package) - (n.level - 1)]
                mod = ".".join([*base, n.module] if n.module else base)
            else:
                mod = n.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in n.names)  # ``from pkg import sub``
    return out


def package_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Package -> the packages its modules import (itself left out)."""
    graph: dict[str, set[str]] = {}
    for top in PACKAGES:
        for path in sorted((root / top).rglob("*.py")):
            src = node_of(module_name(path, root))
            assert src is not None
            deps = graph.setdefault(src, set())
            for mod in imports_of(path, root):
                dst = node_of(mod)
                if dst is not None and dst != src and _exists(root, dst):
                    deps.add(dst)
    return graph


def _exists(root: Path, node: str) -> bool:
    """``node`` is a package or module of the tree (``from controller import commands``
    names the module controller.commands; ``from controller.rules import cards`` does not
    make ``controller.rules.cards`` a node: node_of cuts it to controller.rules)."""
    base = root / node.replace(".", "/")
    return base.is_dir() or base.with_suffix(".py").exists()


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its nodes in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*path[path.index(m) :], m]
            if m not in state and (found := visit(m)) is not None:
                return found
        path.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)) is not None:
            return found
    return None


def test_the_checker_finds_a_cycle(tmp_path: Path) -> None:
    """The check can fail: a made-up tree where hwsim and controller.demo import each other."""
    for pkg, body in (("hwsim", "from controller.demo.table import x\n"),
                      ("controller/demo", "import hwsim.board\n"),
                      ("controller/rules", ""), ("firmware_bridge", "")):  # fmt: skip
        (tmp_path / pkg).mkdir(parents=True)
        (tmp_path / pkg / "__init__.py").write_text("")
        (tmp_path / pkg / "m.py").write_text(body)
    (tmp_path / "controller" / "__init__.py").write_text("")
    cycle = find_cycle(package_graph(tmp_path))
    assert cycle is not None and set(cycle) == {"hwsim", "controller.demo"}


def test_the_graph_sees_the_known_edges() -> None:
    graph = package_graph()
    assert "controller.rules" in graph["hwsim"]  # the dealer plans events of the core
    assert "hwsim" in graph["controller.demo"]  # the demo plays on hwsim's table
    assert "controller.daemon" in graph["hwsim"]


def test_no_import_cycle_between_packages() -> None:
    cycle = find_cycle(package_graph())
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle or [])


# ---------------------------------------------------------------- the daemon's parts

#: the daemon's composition root: service.py builds the parts and hands itself to each as
#: the part's Protocol (the package's __init__ re-exports nothing: importing a part must not
#: load the root)
COMPOSITION_ROOT = ("controller.daemon.service", "controller.daemon")
SERVICE = "controller.daemon.service"


def _names_daemon(node: ast.AST | None) -> bool:
    """An annotation that names ``Daemon`` (``Daemon``, ``service.Daemon``, ``"Daemon"``,
    ``Daemon | None``, ``list[Daemon]``...). ``DaemonConfig`` is another name."""
    if node is None:
        return False
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == "Daemon":
            return True
        if isinstance(n, ast.Attribute) and n.attr == "Daemon":
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            try:
                inner = ast.parse(n.value, mode="eval")
            except SyntaxError:
                continue
            if _names_daemon(inner):
                return True
    return False


def part_violations(root: Path = ROOT) -> list[str]:
    """Each module of controller/daemon other than the composition root that imports
    service.py (or Daemon through the package), or that takes or holds a ``Daemon`` (a
    parameter, a constructor's included, or an annotated attribute)."""
    out: list[str] = []
    for path in sorted((root / "controller" / "daemon").glob("*.py")):
        mod = module_name(path, root)
        if mod in COMPOSITION_ROOT:
            continue
        for imp in sorted(imports_of(path, root)):
            if imp == SERVICE or imp.startswith(SERVICE + ".") or imp == "controller.daemon.Daemon":
                out.append(f"{mod} imports {imp}")
        for n in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                a = n.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                    if arg is not None and _names_daemon(arg.annotation):
                        out.append(f"{mod}.{n.name} takes {arg.arg}: Daemon")
            elif isinstance(n, ast.AnnAssign) and _names_daemon(n.annotation):
                out.append(f"{mod} line {n.lineno} holds a Daemon")
    return out


def test_the_part_checker_finds_a_part_that_knows_the_daemon(tmp_path: Path) -> None:
    """The check can fail: made-up parts that import service.py (at the top, under
    TYPE_CHECKING, relatively, through the package) or take a Daemon (a constructor, a
    function, an attribute); a part with a narrow Protocol and DaemonConfig passes."""
    daemon = tmp_path / "controller" / "daemon"
    daemon.mkdir(parents=True)
    (tmp_path / "controller" / "__init__.py").write_text("")
    (daemon / "__init__.py").write_text("from controller.daemon.service import Daemon\n")
    (daemon / "service.py").write_text("from controller.daemon import clean\nclass Daemon: ...\n")
    parts = {
        "top": "from controller.daemon.service import Daemon\n",
        "typing": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    import controller.daemon.service\n",
        "relative": "from . import service\n",
        "package": "from controller.daemon import Daemon\n",
        "ctor": "class Part:\n    def __init__(self, d: 'Daemon') -> None: ...\n",
        "func": "async def task(*, host: service.Daemon | None) -> None: ...\n",
        "attr": "class Part:\n    d: list[Daemon]\n",
        "clean": "from typing import Protocol\nfrom controller.daemon.config import DaemonConfig\n"
        "class Host(Protocol):\n    cfg: DaemonConfig\n"
        "def task(d: Host, cfg: DaemonConfig) -> None: ...\n",
    }
    for name, body in parts.items():
        (daemon / f"{name}.py").write_text(body)
    found = part_violations(tmp_path)
    culprits = {v.split()[0].split(".")[2] for v in found}
    assert culprits == set(parts) - {"clean"}, found


def test_no_part_of_the_daemon_imports_the_service_or_takes_the_daemon() -> None:
    """Issue 15: the daemon as small parts, each given what it needs (its Protocol)."""
    assert part_violations() == []
