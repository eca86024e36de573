"""The alert catalogue (controller/rules/catalogue.py) is the one list of alert codes.

Read from the product's source, not from the catalogue: every ``AlertCode.X`` the product
names, every severity a construction site raises it at, and every ad hoc ``"code": "X"``
payload must be in the catalogue; the schema's enum, the generated docs tables, dealer
quality's codes and the simulator's injectable errors must agree with it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from controller.floor.quality import DEALER_CODES
from controller.rules.catalogue import BY_WIRE, CATALOGUE, AlertCode, Category, Severity
from hwsim.inject import KINDS

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "firmware_bridge", "hwsim")


def _sources() -> list[tuple[Path, ast.Module]]:
    return [
        (p, ast.parse(p.read_text(encoding="utf-8"), str(p)))
        for top in PRODUCT
        for p in sorted((ROOT / top).rglob("*.py"))
    ]


def _member(node: ast.AST, enum: str) -> str | None:
    """``X`` of an ``enum.X`` attribute node (``Severity`` also under an alias ending so)."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and (node.value.id == enum or node.value.id.endswith(enum))
    ):
        return node.attr
    return None


def test_every_code_named_in_the_product_is_catalogued() -> None:
    named: dict[str, str] = {}
    for path, tree in _sources():
        for n in ast.walk(tree):
            name = _member(n, "AlertCode")
            if name is not None:
                named.setdefault(name, f"{path.relative_to(ROOT)}:{n.lineno}")
    assert len(named) > 40  # the walk found the core's codes
    missing = {
        name: where
        for name, where in named.items()
        if name not in AlertCode.__members__ or AlertCode[name] not in CATALOGUE
    }
    assert not missing, f"alert codes named but not catalogued: {missing}"
    assert set(CATALOGUE) == set(AlertCode)


def test_every_severity_a_site_raises_is_catalogued() -> None:
    """A call naming ``AlertCode.X`` (directly or in a conditional) and ``Severity.Y`` raises
    X at Y: Y must be one of X's catalogued severities."""
    sites = 0
    wrong: list[str] = []
    for path, tree in _sources():
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            codes: set[str] = set()
            sevs: set[str] = set()
            for arg in n.args:
                for sub in ast.walk(arg):
                    if isinstance(sub, ast.Call) and sub is not arg:
                        break  # a nested call is its own site
                    code = _member(sub, "AlertCode")
                    if code is not None:
                        codes.add(code)
                sev = _member(arg, "Severity")
                if sev is not None:
                    sevs.add(sev)
            if not codes or not sevs:
                continue
            sites += 1
            for code in codes:
                allowed = CATALOGUE[AlertCode[code]].severities
                for sev in sevs:
                    if Severity[sev] not in allowed:
                        wrong.append(f"{path.relative_to(ROOT)}:{n.lineno} {code} at {sev}")
    assert sites > 50, sites
    assert not wrong, wrong


def test_ad_hoc_alert_payloads_use_catalogued_codes() -> None:
    """A dict literal with a ``"remedy"`` and a ``"code"`` given as a string or a module
    constant is an alert built outside the catalogue: there must be none (the daemon's own
    go through ``translate.system_alert``)."""
    found = []
    for path, tree in _sources():
        for n in ast.walk(tree):
            if not isinstance(n, ast.Dict):
                continue
            keys = [k.value if isinstance(k, ast.Constant) else None for k in n.keys]
            if "code" not in keys or "remedy" not in keys:
                continue
            value = n.values[keys.index("code")]
            # a literal or a module constant: a code of its own (an entry's ``wire`` or an
            # ``AlertCode``'s value are the catalogue's)
            if isinstance(value, ast.Constant | ast.Name):
                found.append(f"{path.relative_to(ROOT)}:{n.lineno}")
    assert not found, f"alert payloads built by hand: {found}"


def test_every_entry_says_what_it_means_and_what_it_cites() -> None:
    for code, e in CATALOGUE.items():
        assert e.code is code
        assert e.text and len(e.text) <= 100 and "\n" not in e.text, code
        assert e.clauses and all(c.strip() == c and c for c in e.clauses), code
        assert e.severities == tuple(sorted(set(e.severities))), code
        assert e.wire == code.value.upper() and BY_WIRE[e.wire] is e
    system = {e.wire for e in CATALOGUE.values() if e.category is Category.SYSTEM}
    assert {"HAND_INTERRUPTED", "STORAGE_FAULT", "HAND_RECORD_LOST"} <= system


def test_schema_enum_is_the_catalogue() -> None:
    schema = json.loads((ROOT / "controller/link/schemas/alert.json").read_text())
    assert schema["properties"]["code"]["enum"] == sorted(BY_WIRE)


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_alert_docs.py"
    spec = importlib.util.spec_from_file_location("gen_alert_docs", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_alert_docs"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_generated_tables_and_schema_are_current() -> None:
    gen = _generator()
    for path, render in gen.OUTPUTS:
        text = path.read_text(encoding="utf-8")
        assert render(text) == text, f"{path}: run .venv/bin/python scripts/gen_alert_docs.py"
    mqtt = (ROOT / "docs" / "mqtt.md").read_text(encoding="utf-8")
    floor = (ROOT / "docs" / "floor.md").read_text(encoding="utf-8")
    for e in CATALOGUE.values():
        assert f"| `{e.wire}` |" in mqtt, e.wire
        assert (f"| `{e.wire}` |" in floor) == (e.category is Category.DEALER), e.wire


def test_consumers_read_the_catalogue() -> None:
    # dealer quality counts the catalogue's dealer errors (docs/floor.md, quality.py)
    assert {e.wire for e in CATALOGUE.values() if e.category is Category.DEALER} == DEALER_CODES
    assert "MISDEAL" not in DEALER_CODES and "EXPOSED_CARD" in DEALER_CODES
    # each injectable error names a catalogued code the rules core raises
    for kind, (code, _) in KINDS.items():
        assert code in CATALOGUE and CATALOGUE[code].category is not Category.SYSTEM, kind
