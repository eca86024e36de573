"""Each record of the core's state has one writer (issue 21): the package is parsed and a
write to a record's field outside the module that owns it fails the test. A write is an
assignment (plain, augmented, annotated, tuple), a ``del``, an item assignment, or a call of
a mutating method (``clear``, ``add``, ``pop``...) on the field, reached through ``core``.

Records owned so far (the rest of the table and the working hand are still written from
several modules: docs/architecture.md, "Who writes which state"):

- the posts before the deal, ``TableCore.posted`` and ``presence_posts``: ``posting.py``
  (chips in and out between hands, taken at the first card: ``take_forced``, given back on
  a misdeal: ``set_posts``).

``engine.py`` creates every field (``self.x = ...`` in ``TableCore.__init__``) and
``tabledata.py`` restores them from a ``TableData`` (``TableCore.restore``): those are not
writes through ``core`` and are allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "controller" / "rules"

#: (the attribute of the core, the module that alone writes it)
OWNERS: dict[str, str] = {
    "posted": "posting",
    "presence_posts": "posting",
}
RESTORER = "tabledata"
MUTATORS = frozenset(
    {"clear", "add", "discard", "remove", "pop", "popitem", "update", "setdefault", "append",
     "extend", "insert", "sort", "__setitem__", "__delitem__", "difference_update",
     "intersection_update", "symmetric_difference_update"}
)  # fmt: skip


def _field(node: ast.expr) -> str | None:
    """``core.f`` (also ``core.f[k]``) -> ``f``; else None."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "core"
    ):
        return node.attr
    return None


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for t in node.targets:
            out.extend(t.elts if isinstance(t, ast.Tuple | ast.List) else [t])
        return out
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MUTATORS
    ):
        return [node.func.value]
    return []


def writes(source: str) -> list[tuple[int, str]]:
    """(line, field) of every write to a core field in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        for t in _targets(node):
            f = _field(t)
            if f is not None:
                out.append((node.lineno, f))  # type: ignore[attr-defined]
    return out


def violations(root: Path = RULES) -> list[str]:
    found = []
    for path in sorted(root.glob("*.py")):
        mod = path.stem
        if mod == RESTORER:
            continue
        for line, f in writes(path.read_text()):
            owner = OWNERS.get(f)
            if owner is not None and owner != mod:
                found.append(f"{mod}.py:{line} writes core.{f} (owned by {owner}.py)")
    return found


def test_the_checker_sees_every_kind_of_write(tmp_path: Path) -> None:
    """The check can fail: each kind of write from a module that is not the owner."""
    (tmp_path / "posting.py").write_text("def f(core):\n    core.posted = {}\n")
    (tmp_path / "other.py").write_text(
        "def f(core):\n"
        "    core.posted = {}\n"
        "    core.posted[3] = 1\n"
        "    core.posted.clear()\n"
        "    del core.posted[3]\n"
        "    x, core.presence_posts = 1, set()\n"
        "    core.presence_posts.add(2)\n"
        "    core.posted |= {}\n"
        "    y = core.posted.get(3)\n"  # a read
    )
    found = violations(tmp_path)
    assert sorted(int(v.split(":")[1].split()[0]) for v in found) == [2, 3, 4, 5, 6, 7, 8]
    assert all(v.startswith("other.py") for v in found)


def test_each_owned_record_is_written_by_its_owner_only() -> None:
    assert violations() == []
