"""The rules core's layer table in docs/architecture.md ("Layers") is the code's.

Every module of ``controller/rules`` has one row, in one layer; the layers are listed from
the bottom up, and a module imports at run time (tests/test_module_cycles.py's reading: at
module level or inside a function, not under ``TYPE_CHECKING``) only modules of its own
layer or of a layer below. A module missing from the table, listed twice, listed but not in
the code, or sitting below a module it imports fails.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_module_cycles import module_graph

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = "controller.rules"

_ROW = re.compile(r"^\| *(\d+) ([^|]+?) *\| *`(\w+\.py)`[^|]*\|")


def layer_rows(doc: str) -> list[tuple[int, str, str]]:
    """(layer number, layer name, module file) of each row of the table under the heading
    that starts with "### Layers", up to the next heading."""
    start = doc.index("\n### Layers")
    end = doc.find("\n#", start + 1)
    section = doc[start : end if end >= 0 else len(doc)]
    return [
        (int(m[1]), m[2], m[3]) for m in (_ROW.match(line) for line in section.splitlines()) if m
    ]


def rules_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module file -> the module files of the package it imports at run time (the
    package's ``__init__`` is ``__init__.py``)."""

    def file_of(module: str) -> str:
        return "__init__.py" if module == PACKAGE else module[len(PACKAGE) + 1 :] + ".py"

    def ours(module: str) -> bool:
        return module == PACKAGE or module.startswith(PACKAGE + ".")

    return {
        file_of(m): {file_of(x) for x in deps if ours(x)} for m, deps in graph.items() if ours(m)
    }


def layer_problems(doc: str, graph: dict[str, set[str]]) -> list[str]:
    rows = layer_rows(doc)
    out: list[str] = []
    layer: dict[str, int] = {}
    names: dict[int, str] = {}
    last = 0
    for number, name, module in rows:
        if number < last:
            out.append(f"layer {number} {name} comes after layer {last}: list them bottom up")
        last = max(last, number)
        if names.setdefault(number, name) != name:
            out.append(f"layer {number} is named both {names[number]!r} and {name!r}")
        if module in layer:
            out.append(f"{module} is listed twice")
        layer[module] = number
    for module in sorted(graph.keys() - layer.keys()):
        out.append(f"{module} is not in the layer table")
    for module in sorted(layer.keys() - graph.keys()):
        out.append(f"{module} is in the layer table but not in controller/rules")
    for module, deps in sorted(graph.items()):
        for dep in sorted(deps):
            if module in layer and dep in layer and layer[dep] > layer[module]:
                out.append(
                    f"{module} (layer {layer[module]} {names[layer[module]]}) imports {dep} "
                    f"(layer {layer[dep]} {names[layer[dep]]}), a layer above it"
                )
    return out


def test_the_layer_table_is_the_code() -> None:
    graph = rules_graph(module_graph())
    assert graph, "no modules of controller/rules found"
    assert layer_problems(DOC.read_text(encoding="utf-8"), graph) == []


def test_the_layer_check_can_fail() -> None:
    """A made-up table and graph: a module left out, one listed twice, one that does not
    exist, one importing upward, and the layers out of order are each reported; a module
    importing its own layer or below is not."""
    doc = "\n" + "\n".join(
        [
            "### Layers",
            "| layer | module | what |",
            "| --- | --- | --- |",
            "| 1 values | `cards.py` | cards |",
            "| 1 values | `events.py` | events |",
            "| 2 state | `hand.py` | the hand |",
            "| 2 state | `hand.py` | again |",
            "| 3 engine | `engine.py` | the table |",
            "| 2 state | `ghost.py` | gone |",
            "",
            "## Next",
            "| 9 not | `seating.py` | outside the section |",
        ]
    )
    graph = {
        "cards.py": set(),
        "events.py": {"cards.py"},  # its own layer: fine
        "hand.py": {"events.py", "engine.py"},  # upward
        "engine.py": {"hand.py", "cards.py"},
        "seating.py": set(),  # left out
    }
    found = layer_problems(doc, graph)
    assert found == [
        "hand.py is listed twice",
        "layer 2 state comes after layer 3: list them bottom up",
        "seating.py is not in the layer table",
        "ghost.py is in the layer table but not in controller/rules",
        "hand.py (layer 2 state) imports engine.py (layer 3 engine), a layer above it",
    ], found
