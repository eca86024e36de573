"""Clause coverage by execution (tests/coverage_plugin.py): the inventory's rows, the clause
marker, and the end-of-run check, which only executed, passed, marked tests satisfy.

The check itself runs at the end of a whole-suite run (``pytest`` or ``pytest tests``); here
it runs on small projects of its own (pytester) to show what counts and what does not.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import coverage_plugin as cp
import pytest

pytest_plugins = ["pytester"]


def test_inventory_is_there() -> None:
    """The shared inventory is found relative to the checkout; its absence fails here (and
    fails the whole-suite check), it is not skipped."""
    assert cp.INVENTORY.is_file(), f"{cp.INVENTORY} is missing"


def test_inventory_parses_to_the_summary_counts() -> None:
    """The parser finds every row: the inventory's summary says 198 rows, 142 E, 36 A, 20 V
    and 65 flagged $."""
    rows = cp.inventory_rows(cp.INVENTORY.read_text(encoding="utf-8"))
    classes = [r.cls for r in rows.values()]
    assert len(rows) == 198
    assert sum(c[0] == "E" for c in classes) == 142
    assert sum(c[0] == "A" for c in classes) == 36
    assert sum(c[0] == "V" for c in classes) == 20
    assert sum(c.endswith("$") for c in classes) == 65


def test_a_missing_inventory_fails_the_check(tmp_path: Path) -> None:
    problems = cp.check({"000-S3-bet-4": {"t"}}, inventory=tmp_path / "none.md")
    assert problems and "is missing" in problems[0]


def test_not_enforced_table_names_only_inventory_rows() -> None:
    rows = cp.inventory_rows(cp.INVENTORY.read_text(encoding="utf-8"))
    listed = cp.not_enforced(cp.DOC.read_text(encoding="utf-8"))
    assert listed, "docs/rules.md has an empty not-enforced table"
    assert not sorted(set(listed) - set(rows))
    assert all(len(why) >= 10 for why in listed.values())


INVENTORY = """\
| id | section | rule | trigger | ruling | vs |
| --- | --- | --- | --- | --- | --- |
| 001-X-1 | s | r | `E` sensors | a | |
| 001-X-2 | s | r | `E` sensors | a | |
| 001-X-3 | s | r | `A` input | a | |
| 001-X-4 | s | r | `E$` chips | a | |
| 001-X-5 | s | r | `E` sensors | a | |
| 001-X-6 | s | r | `V` venue | a | |
| 001-X-7 | s | r | `E` sensors | a | |
"""
RULES = """\
# rules

## Clause-inventory rows not enforced

| clauses | reason |
| --- | --- |
| 001-X-6 | venue data: the core never sees it |
"""
TESTS = '''\
import pytest

@pytest.mark.clause("001-X-1", profiles=("tda-2024",))
def test_asserts_and_passes():
    assert sorted([2, 1]) == [1, 2]

@pytest.mark.skip(reason="a mention only")
@pytest.mark.clause("001-X-2", profiles=("tda-2024",))
def test_skipped():
    "001-X-2"

def test_001_X_3_named_but_unmarked():
    """001-X-3: named in the name and the docstring, no marker."""

@pytest.mark.clause("001-X-4", profiles=("tda-2024",))
def test_fails():
    assert sorted([2, 1]) == [2, 1]

@pytest.mark.parametrize("profile", ["club-003"])
@pytest.mark.clause("001-X-7")
def test_parametrized(profile):
    assert profile == "club-003"
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A small checkout: tests/, an inventory, docs/rules.md and a text file naming 001-X-5."""
    root = pytester.path
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text('pytest_plugins = ["coverage_plugin"]\n')
    (root / "tests" / "test_rows.py").write_text(TESTS)
    (root / "notes.txt").write_text("001-X-5 is covered, honest\n")
    (root / "inventory.md").write_text(INVENTORY)
    (root / "docs").mkdir()
    (root / "docs" / "rules.md").write_text(RULES)
    pytester.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    clause: see coverage_plugin\n")
    monkeypatch.setattr(cp, "ROOT", root)
    monkeypatch.setattr(cp, "TESTS", root / "tests")
    monkeypatch.setattr(cp, "INVENTORY", root / "inventory.md")
    monkeypatch.setattr(cp, "DOC", root / "docs" / "rules.md")
    return pytester


def test_only_passed_marked_tests_count(project: pytest.Pytester) -> None:
    """A skipped test whose body is the id, a test that names the id without a marker, a
    marked test that fails and a text file naming the id count for nothing: the whole run
    fails and lists exactly those rows; the passed marked tests (one through its profile
    parameter) and the listed V row are not in the list."""
    res = project.runpytest_inprocess("tests")
    res.assert_outcomes(passed=3, failed=1, skipped=1)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    out = res.stdout.str()
    assert "clause coverage by execution: FAILED" in out
    listed = sorted(line.split()[0] for line in res.stdout.lines if line.startswith("  001-X-"))
    assert listed == ["001-X-2", "001-X-3", "001-X-4", "001-X-5"], out


def test_the_check_passes_and_fails_the_run_alone(project: pytest.Pytester) -> None:
    """With the unasserted rows listed as not enforced and the failing test fixed, the same
    run passes; the check alone (every test passing) still fails the run when a row is
    unaccounted for."""
    (project.path / "tests" / "test_rows.py").write_text(TESTS.replace("== [2, 1]", "== [1, 2]"))
    rules = RULES + "| 001-X-2 001-X-3 001-X-5 | not decided by the core: a test of the doc |\n"
    (project.path / "docs" / "rules.md").write_text(rules)
    res = project.runpytest_inprocess("tests")
    res.assert_outcomes(passed=4, skipped=1)
    assert res.ret == pytest.ExitCode.OK, res.stdout.str()
    assert "clause coverage: 3 clauses asserted by passed tests" in res.stdout.str()
    (project.path / "docs" / "rules.md").write_text(RULES)
    for args in (["tests"], []):  # [] as the README's command: the testpaths
        res = project.runpytest_inprocess(*args)
        res.assert_outcomes(passed=4, skipped=1)
        assert res.ret == pytest.ExitCode.TESTS_FAILED, args
        assert "clause coverage by execution: FAILED" in res.stdout.str()


def test_a_missing_inventory_fails_the_run(project: pytest.Pytester) -> None:
    (project.path / "inventory.md").unlink()
    res = project.runpytest_inprocess("tests")
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    assert "inventory.md is missing" in res.stdout.str()


def test_a_narrowed_run_does_not_check(project: pytest.Pytester) -> None:
    """-k, -m, a single test or only collecting: not a whole-suite run, so no verdict."""
    for args in (["tests", "-k", "asserts"], ["tests", "-m", "not clause"],
                 ["tests/test_rows.py::test_asserts_and_passes"],
                 ["tests", "--collect-only"]):  # fmt: skip
        res = project.runpytest_inprocess(*args)
        assert res.ret == pytest.ExitCode.OK, (args, res.stdout.str())
        assert "clause coverage" not in res.stdout.str()


def test_a_marker_without_profiles_is_an_error(project: pytest.Pytester) -> None:
    (project.path / "tests" / "test_bad.py").write_text(
        textwrap.dedent("""\
        import pytest
        @pytest.mark.clause("001-X-1")
        def test_no_profile():
            pass
        """)
    )
    res = project.runpytest_inprocess("tests/test_bad.py")
    assert "needs clause ids and profiles" in res.stdout.str() + res.stderr.str()


def test_a_marker_naming_an_unknown_profile_is_an_error(project: pytest.Pytester) -> None:
    (project.path / "tests" / "test_bad.py").write_text(
        textwrap.dedent("""\
        import pytest
        @pytest.mark.clause("001-X-1", profiles=("tda-2042",))
        def test_typo():
            pass
        """)
    )
    res = project.runpytest_inprocess("tests/test_bad.py")
    assert "unknown profiles ['tda-2042']" in res.stdout.str() + res.stderr.str()


# ------------------------------------------------------------------ under pytest-xdist
# scripts/test.sh runs the suite on worker processes (-n): the workers run the tests, the
# controller must see every claim and give the same verdict as a run in one process.

ADDED = '''\
import pytest

def test_adds_its_marker_while_running(request):
    """As a scenario does (tests/scenario/test_library.py): the marker comes at run time."""
    request.node.add_marker(pytest.mark.clause("001-X-2", profiles=("tda-2024",)))
'''


@pytest.fixture
def xdist_project(project: pytest.Pytester) -> pytest.Pytester:
    """The small checkout, its workers able to import the plugin: they are new processes
    (xdist gives them the controller's sys.path as it was at start-up, before any conftest
    ran), so the project's conftest puts the plugin's folder on the path as ours does. The
    controller's monkeypatched paths do not reach the workers, nor need to: only the
    controller checks."""
    checkout = Path(cp.__file__).resolve().parents[1]
    (project.path / "tests" / "conftest.py").write_text(
        f"import sys\nsys.path[:0] = [{str(checkout / 'tests')!r}, {str(checkout)!r}]\n"
        'pytest_plugins = ["coverage_plugin"]\n'
    )
    return project


def test_under_xdist_the_same_rows_are_missing(xdist_project: pytest.Pytester) -> None:
    res = xdist_project.runpytest_inprocess("tests", "-n", "2", "--dist", "load")
    res.assert_outcomes(passed=3, failed=1, skipped=1)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    out = res.stdout.str()
    assert "2 workers" in out, out  # it did run on workers
    assert "clause coverage by execution: FAILED" in out
    listed = sorted(line.split()[0] for line in res.stdout.lines if line.startswith("  001-X-"))
    assert listed == ["001-X-2", "001-X-3", "001-X-4", "001-X-5"], out
    assert out.count("clause coverage") == 1, out  # the controller's verdict only


def test_under_xdist_a_marker_added_at_run_time_counts(xdist_project: pytest.Pytester) -> None:
    """Every row accounted for: one by a marker the test added on a worker while it ran,
    the other unasserted ones listed; the run passes. Without the added marker's test it
    fails naming that row."""
    root = xdist_project.path
    (root / "tests" / "test_rows.py").write_text(TESTS.replace("== [2, 1]", "== [1, 2]"))
    (root / "tests" / "test_added.py").write_text(ADDED)
    rules = RULES + "| 001-X-3 001-X-5 | not decided by the core: a test of the doc |\n"
    (root / "docs" / "rules.md").write_text(rules)
    res = xdist_project.runpytest_inprocess("tests", "-n", "2", "--dist", "loadfile")
    res.assert_outcomes(passed=5, skipped=1)
    assert res.ret == pytest.ExitCode.OK, res.stdout.str()
    assert "clause coverage: 4 clauses asserted by passed tests" in res.stdout.str()
    (root / "tests" / "test_added.py").write_text(ADDED.replace("add_marker", "iter_markers"))
    res = xdist_project.runpytest_inprocess("tests", "-n", "2", "--dist", "loadfile")
    res.assert_outcomes(passed=5, skipped=1)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    listed = [line.split()[0] for line in res.stdout.lines if line.startswith("  001-X-")]
    assert listed == ["001-X-2"], res.stdout.str()


def test_under_xdist_a_stopped_run_does_not_check(xdist_project: pytest.Pytester) -> None:
    """-x stops the workers at the first failure (the rows the tests not run assert would be
    missing): no verdict."""
    res = xdist_project.runpytest_inprocess("tests", "-n", "2", "-x")
    assert res.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)
    assert "clause coverage" not in res.stdout.str(), res.stdout.str()
