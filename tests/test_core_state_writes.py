"""Nothing outside the rules core writes the core's state (issue 15).

Every module outside ``controller/rules`` (the product, tests, bench, hwsim, scripts) is
parsed and each assignment, augmented assignment, ``del`` and ``setattr`` is checked: its
target must not be an attribute (or an item of an attribute) of the core or of its working
hand. Code outside the core changes it through ``TableCore.handle`` and
``TableCore.restore`` (with a frozen ``TableData`` from ``export``) only.

What counts as the core: a name or attribute called ``core`` (``core.x``, ``d.core.x``,
``self.core.hand.y``), anything reached through an attribute ``hand`` of it, and names bound
to ``TableCore(...)`` or to an expression ending in ``.core``/``.hand`` of a core in the
same module (``c = rig.daemon.core``; ``c.t = 0``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("controller", "firmware_bridge", "hwsim", "tests", "bench", "scripts")


def _chain(node: ast.expr) -> list[str]:
    """``a.b[i].c`` -> ["a", "b", "c"] (subscripts skipped); [] if not rooted in a name."""
    names: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return []
    names.append(node.id)
    return names[::-1]


def _core_aliases(tree: ast.Module) -> set[str]:
    """Names bound to a core (or its hand) anywhere in the module."""
    aliases = {"core"}
    for _ in range(2):  # an alias of an alias
        for n in ast.walk(tree):
            if not isinstance(n, ast.Assign | ast.AnnAssign) or n.value is None:
                continue
            v = n.value
            made = (
                isinstance(v, ast.Call)
                and isinstance(v.func, ast.Name | ast.Attribute)
                and (_chain(v.func) or [""])[-1] == "TableCore"
            )
            c = _chain(v)
            reached = len(c) > 1 and (
                c[-1] == "core" or (c[-1] == "hand" and _is_core(c[:-1], aliases))
            )
            if made or reached or (len(c) == 1 and c[0] in aliases):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                aliases |= {t.id for t in targets if isinstance(t, ast.Name)}
    return aliases


def _is_core(chain: list[str], aliases: set[str]) -> bool:
    return bool(chain) and (chain[0] in aliases or "core" in chain[1:])


def _writes(tree: ast.Module) -> list[tuple[int, str]]:
    aliases = _core_aliases(tree)
    found: list[tuple[int, str]] = []

    def check(line: int, target: ast.expr) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for t in target.elts:
                check(line, t)
            return
        if isinstance(target, ast.Starred):
            check(line, target.value)
            return
        if not isinstance(target, ast.Attribute | ast.Subscript):
            return
        c = _chain(target)
        owner = c[:-1] if isinstance(target, ast.Attribute) else c
        if _is_core(owner, aliases):
            found.append((line, ast.unparse(target)))

    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                check(n.lineno, t)
        elif isinstance(n, ast.AugAssign | ast.AnnAssign):
            check(n.lineno, n.target)
        elif isinstance(n, ast.Delete):
            for t in n.targets:
                check(n.lineno, t)
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("setattr", "delattr")
            and n.args
            and _is_core(_chain(n.args[0]), aliases)
        ):
            found.append((n.lineno, ast.unparse(n)))
    return found


def test_the_scan_finds_writes_of_the_core_state() -> None:
    """The scan itself: each of these writes is found, and the reads are not."""
    bad = """
core.hand_no = 4
d.core.positions = None
self.core.hand.unswept = True
rig.daemon.core.seats[3] = seat
core.t += 1.0
del core.where[tag]
setattr(d.core, "phase", p)
c = TableCore(profile)
c.level = lvl
h = d.core.hand
h.pointer = 2
x, core.dealer = 1, "d"
"""
    ok = """
n = core.hand_no
core.handle(ev)
core.restore(dataclasses.replace(core.export(), hand_no=4))
hand = load_phh(p)
hand.variant = "NT"
self.score = core.t
"""
    assert len(_writes(ast.parse(bad))) == 10, _writes(ast.parse(bad))
    assert _writes(ast.parse(ok)) == []


def test_no_module_outside_the_core_writes_its_state() -> None:
    offenders: list[str] = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("controller", "rules"):
                continue
            for line, what in _writes(ast.parse(path.read_text(), str(rel))):
                offenders.append(f"{rel}:{line}: {what}")
    assert offenders == [], "the core's state written from outside it:\n" + "\n".join(offenders)
