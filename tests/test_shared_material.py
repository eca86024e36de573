"""The tests find ``../shared`` relative to the checkout (tests/shared.py) and fail, never
skip, when what they need is missing (issue 11, defect 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.shared import CHECKOUT, INVENTORY, PHH, SHARED, SharedMissing, need, requires


def test_defect_3_shared_is_beside_the_checkout_not_at_an_absolute_path() -> None:
    assert CHECKOUT.parent / "shared" == SHARED
    # every test and bench reads ../shared through tests/shared.py, never a path of its own
    own = re.compile(r"/work/shared|[\"']shared[\"']\s*/|/\s*[\"']shared[\"']")
    offenders = [
        f"{p.relative_to(CHECKOUT)}:{n}"
        for folder in ("tests", "bench")
        for p in sorted((CHECKOUT / folder).rglob("*.py"))
        if p.name not in ("shared.py", "test_shared_material.py")
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if own.search(line)
    ]
    assert offenders == []
    assert need(INVENTORY).is_file() and need(PHH).is_dir()


def test_defect_3_missing_shared_material_fails_naming_it(tmp_path: Path) -> None:
    missing = SHARED / "reference" / "no-such-inventory.md"
    with pytest.raises(SharedMissing, match=r"no-such-inventory\.md.*beside the checkout"):
        need(missing)

    @requires(PHH, missing)
    def reads_it(x: int) -> int:
        return x

    with pytest.raises(SharedMissing, match="no-such-inventory"):
        reads_it(1)
    assert requires(PHH)(reads_it.__wrapped__)(2) == 2  # type: ignore[attr-defined]
