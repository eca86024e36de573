"""docs/rules.md is generated from the profile TOML data and must be up to date."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_rules_doc.py"
    spec = importlib.util.spec_from_file_location("gen_rules_doc", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_rules_doc"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_docs_rules_md_is_up_to_date() -> None:
    gen = _generator()
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == gen.render(), "run: .venv/bin/python scripts/gen_rules_doc.py"


def test_every_profile_and_setting_is_documented() -> None:
    from controller.rules.profile import Profile, builtin_profile_names

    gen = _generator()
    text = gen.render()
    assert set(gen.ORDER) == set(builtin_profile_names())
    for name in builtin_profile_names():
        assert f"(`{name}`)" in text
    for key in Profile.__dataclass_fields__:
        if key not in ("name", "title", "rulebook"):
            assert f"| `{key}` |" in text
    assert "| `raise_limit` | `3` | 3 raises per round" in text  # 004 AR-9
    assert "| `four_card_flop` | `fourth-is-burn` |" in text


def test_the_scenario_counts_are_the_librarys() -> None:
    """docs/rules.md's scenario table counts the files of scenarios/<profile>/ (listed here
    with os.listdir, not the generator's glob)."""
    import os

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    total = 0
    for name in sorted(os.listdir(ROOT / "scenarios")):
        folder = ROOT / "scenarios" / name
        if not folder.is_dir():
            continue
        n = sum(1 for f in os.listdir(folder) if f.endswith(".scn"))
        total += n
        assert f"| `{name}` | {n} |" in text, name
    assert f"| all | {total} |" in text
