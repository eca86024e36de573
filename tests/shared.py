"""Where the tests find the project's shared material: ``../shared`` beside the checkout
(the venues' rulebooks, the clause inventory, reference notes and the PHH hands).

Found relative to this checkout, never at an absolute path. Missing material fails the test
that needs it with :class:`SharedMissing`, naming what is missing and where it was looked
for; it never skips (CI must not go green without the material).

    from tests.shared import PHH, need
    hand = need(PHH / "famous" / "dwan-ivey-2009.phh")
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

CHECKOUT = Path(__file__).resolve().parents[1]
SHARED = CHECKOUT.parent / "shared"
PHH = SHARED / "data" / "phh"
INVENTORY = SHARED / "reference" / "clause-inventory.md"
RULEBOOKS = SHARED / "rulebooks"

__all__ = [
    "CHECKOUT",
    "INVENTORY",
    "PHH",
    "RULEBOOKS",
    "SHARED",
    "SharedMissing",
    "need",
    "requires",
]

F = TypeVar("F", bound=Callable[..., Any])


class SharedMissing(FileNotFoundError):
    """A file or folder of ``../shared`` that a test needs is not there."""


def need(path: Path) -> Path:
    """``path`` (under :data:`SHARED`) if it exists, else :class:`SharedMissing`."""
    if path.exists():
        return path
    where = "the shared folder itself" if path == SHARED else f"{path}"
    raise SharedMissing(
        f"shared test material missing: {where}. The tests expect the project's shared folder"
        f" (rulebooks/, reference/clause-inventory.md, data/phh/) beside the checkout, at"
        f" {SHARED}" + ("" if SHARED.is_dir() else " (that folder does not exist)")
    )


def requires(*paths: Path) -> Callable[[F], F]:
    """Decorate a test that reads ``paths``: it fails with :class:`SharedMissing` (never
    skips) when one of them is missing."""

    def deco(test: F) -> F:
        @functools.wraps(test)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for p in paths:
                need(p)
            return test(*args, **kwargs)

        return cast(F, wrapper)

    return deco
