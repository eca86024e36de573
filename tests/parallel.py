"""The suite on several worker processes (pytest-xdist; scripts/test.sh runs ``-n 3``), a
pytest plugin loaded by ``tests/conftest.py``.

Most tests wait (on a table's scan timing, a broker, a subprocess), so three workers on two
cores take about half the wall time of one process. Under ``--dist loadgroup`` (pyproject's
addopts) the tests of one ``xdist_group`` run on one worker, one after the other; every
other test goes to whichever worker is free. This plugin puts into one group:

- the tests of a module that share a module- or class-scoped fixture defined by the module
  (a broker, a run whose results several tests read): spread over workers, each worker
  would set the fixture up again, and a fixture that plays a whole run would play it twice;
- a group a module asks for itself with ``pytest.mark.xdist_group`` (the scenario library
  groups its scenarios in chunks, tests/scenario/test_library.py) is left as it is.

Session fixtures (the private pcscd, PostgreSQL) are per worker: each worker is its own
process with its own ports and temporary directories (``tmp_path`` is under a per-worker
base directory). What may not run beside anything else on the machine belongs behind
``-m slow``, not here. The clause-coverage check is made by the controller process from
every worker's reports (tests/coverage_plugin.py).
"""

from __future__ import annotations

import pytest

SHARED_SCOPES = ("module", "class")


def shared_fixture_group(item: pytest.Item) -> str | None:
    """The item's module's node id if the item uses a module- or class-scoped fixture
    defined in its own module (not a conftest's: those are shared by many modules, and are
    cheap enough to set up once per worker)."""
    info = getattr(item, "_fixtureinfo", None)
    module = getattr(item, "module", None)
    if info is None or module is None:
        return None
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            func = getattr(fixturedef, "func", None)
            if fixturedef.scope in SHARED_SCOPES and getattr(func, "__module__", None) == (
                module.__name__
            ):
                return item.nodeid.split("::", 1)[0]
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the group markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        group = shared_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
