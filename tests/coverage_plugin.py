"""Clause coverage by execution: a pytest plugin (loaded by ``tests/conftest.py``).

A test asserting a ruling of the clause inventory (``<checkout>/../shared/reference/
clause-inventory.md``) carries ``@pytest.mark.clause("ID", ..., profiles=("tda-2024",))``;
without ``profiles`` the test's own ``profile`` parameter is used (tests parametrized over
the profiles). A scenario's ``clause ID ...`` line does the same: the test that plays it
adds the marker before it runs. Only tests that **ran and passed** are credited: a skipped
test, a failed one, a text file naming an id or a docstring count for nothing.

At the end of a run that collected the whole ``tests/`` tree without narrowing (no ``-k``,
no ``-m`` beyond the default ``not slow``, no ``--deselect``, ``--lf``), every row of class
E or A or flagged ``$`` must have such a passed test, unless docs/rules.md lists it as not
enforced with a reason; V rows must be covered or listed too. A missing inventory is a
failure. The problems are printed and the run fails (exit status 1).

Under pytest-xdist (``-n``, as scripts/test.sh runs the suite) the tests run in worker
processes, where a scenario's marker is added too: each call-phase report carries its
test's claims (``clause_claims``, serialized with the report to the controller), and only
the controller, which sees every worker's reports, credits them and checks the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from controller.rules.profile import builtin_profile_names
from tests import shared

PROFILES = set(builtin_profile_names())
ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
INVENTORY = shared.INVENTORY  # ../shared beside the checkout (tests/shared.py)
DOC = ROOT / "docs" / "rules.md"
NOT_ENFORCED_HEADING = "## Clause-inventory rows not enforced"
DEFAULT_MARKEXPR = "not slow"  # pyproject.toml addopts

_ID = r"\d{3}-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*"
_ROW = re.compile(rf"^\|\s*({_ID})\s*\|")
_CLASS = re.compile(r"`([EAV]\$?)`")


@dataclass(frozen=True)
class Row:
    id: str
    cls: str  # the class letters of the trigger cell, e.g. "E$"

    @property
    def must_cover(self) -> bool:
        """E, A and $ rows: tested, or listed with a reason why the core cannot decide them."""
        return "E" in self.cls or "A" in self.cls or "$" in self.cls


def inventory_rows(text: str) -> dict[str, Row]:
    """Clause rows of the inventory's tables (conflict and gap tables have no such ids)."""
    rows: dict[str, Row] = {}
    for line in text.splitlines():
        m = _ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5:
            continue
        cls = _CLASS.match(cells[3])
        if cls is None:
            raise ValueError(f"inventory row {m.group(1)}: no class letters in {cells[3]!r}")
        rows[m.group(1)] = Row(m.group(1), cls.group(1))
    return rows


def not_enforced(doc: str) -> dict[str, str]:
    """id -> reason, from the not-enforced table of docs/rules.md."""
    if NOT_ENFORCED_HEADING not in doc:
        raise ValueError(f"docs/rules.md has no {NOT_ENFORCED_HEADING!r} section")
    section = doc.split(NOT_ENFORCED_HEADING, 1)[1].split("\n## ", 1)[0]
    out: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| ---", "| clauses")):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) < 2:
            continue
        for i in re.findall(_ID, cells[0]):
            out[i] = cells[-1]
    return out


def marker_clauses(item: pytest.Item) -> list[tuple[str, str]]:
    """(clause id, profile) pairs the item's ``clause`` markers claim."""
    out: list[tuple[str, str]] = []
    for m in item.iter_markers("clause"):
        profiles = m.kwargs.get("profiles")
        if profiles is None:
            params = getattr(getattr(item, "callspec", None), "params", {})
            profiles = (params["profile"],) if "profile" in params else ()
        if isinstance(profiles, str):
            profiles = (profiles,)
        if not m.args or not profiles:
            raise pytest.UsageError(
                f"{item.nodeid}: @pytest.mark.clause needs clause ids and profiles=(...) "
                "(or a 'profile' parameter)"
            )
        unknown = sorted(set(map(str, profiles)) - PROFILES)
        if unknown:
            raise pytest.UsageError(
                f"{item.nodeid}: @pytest.mark.clause names unknown profiles {unknown} "
                f"(one of {', '.join(sorted(PROFILES))})"
            )
        out += [(str(i), str(p)) for i in m.args for p in profiles]
    return out


def problems(
    rows: dict[str, Row], executed: dict[str, set[str]], listed: dict[str, str]
) -> list[str]:
    """What is wrong with the coverage: ``executed`` maps an id to the passed tests that
    asserted it (node ids), ``listed`` the not-enforced table (id -> reason)."""
    ids = set(rows)
    out: list[str] = []
    unknown = sorted(set(executed) - ids)
    if unknown:
        out.append(
            "clause markers name ids the inventory does not have:\n"
            + "\n".join(f"  {i}: {', '.join(sorted(executed[i]))}" for i in unknown)
        )
    unknown = sorted(set(listed) - ids)
    if unknown:
        out.append(f"docs/rules.md lists ids the inventory does not have: {unknown}")
    empty = sorted(i for i, why in listed.items() if len(why) < 10)
    if empty:
        out.append(f"docs/rules.md lists ids without a reason: {empty}")
    both = sorted(set(listed) & set(executed))
    if both:
        out.append(
            "tested yet listed as not enforced (drop them from scripts/rules_text.py "
            "NOT_ENFORCED):\n"
            + "\n".join(f"  {i}: tested by {', '.join(sorted(executed[i]))}" for i in both)
        )
    missing = sorted(
        (r for r in rows.values() if r.id not in executed and r.id not in listed),
        key=lambda r: (not r.must_cover, r.id),
    )
    if missing:
        out.append(
            f"{len(missing)} clause(s) with no passed test asserting them and not listed as "
            "not enforced:\n"
            + "\n".join(
                f"  {r.id:<28} class {r.cls}{'' if r.must_cover else ' (venue data)'}"
                for r in missing
            )
            + "\nmark a test that asserts the ruling with @pytest.mark.clause(ID, profiles=...)"
            " (or name it on a scenario's clause line), or add the id with a reason to "
            "NOT_ENFORCED in scripts/rules_text.py and regenerate docs/rules.md"
        )
    return out


def check(
    executed: dict[str, set[str]], inventory: Path | None = None, doc: Path | None = None
) -> list[str]:
    """The coverage problems of a run (empty: every row accounted for)."""
    inventory = inventory or INVENTORY
    doc = doc or DOC
    if not inventory.is_file():
        return [f"the clause inventory {inventory} is missing: clause coverage cannot be checked"]
    try:
        rows = inventory_rows(inventory.read_text(encoding="utf-8"))
        listed = not_enforced(doc.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [str(exc)]
    return problems(rows, executed, listed)


CLAIMS = "clause_claims"  # the call report's attribute: [[id, profile], ...]


@dataclass(eq=False)  # hashable: registered as a plugin
class Recorder:
    """The passed tests' clause claims of this run: id -> {"nodeid [profile]"}."""

    executed: dict[str, set[str]] = field(default_factory=dict)
    claims: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # nodeid: pairs
    whole: bool = False
    report: list[str] = field(default_factory=list)

    def passed(self, nodeid: str) -> None:
        for cid, prof in self.claims.get(nodeid, []):
            self.executed.setdefault(cid, set()).add(f"{nodeid} [{prof}]")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Every report: in the process that ran the test and, under xdist, in the
        controller, which gets each worker's reports (with their ``clause_claims``)."""
        claims = getattr(report, CLAIMS, None)
        if report.when != "call" or claims is None:
            return
        self.claims[report.nodeid] = [(str(c), str(p)) for c, p in claims]
        if report.passed:
            self.passed(report.nodeid)


def whole_suite(config: pytest.Config) -> bool:
    """The run collected all of tests/ with only the default narrowing."""
    opt = config.option
    if getattr(opt, "keyword", "") or getattr(opt, "deselect", None):
        return False
    if getattr(opt, "collectonly", False):
        return False
    if (getattr(opt, "markexpr", "") or "").strip() not in ("", DEFAULT_MARKEXPR):
        return False
    if getattr(opt, "lf", False) or getattr(opt, "stepwise", False):
        return False
    testpaths = config.args_source is pytest.Config.ArgsSource.TESTPATHS
    base = config.rootpath if testpaths else config.invocation_params.dir
    args = [(base / str(a).split("::", 1)[0]).resolve() for a in config.args]
    return any(a in (TESTS, ROOT) for a in args) and not config.getoption("exitfirst", False)


def is_worker(config: pytest.Config) -> bool:
    """An xdist worker: it runs tests but sees only its share; the controller checks."""
    return hasattr(config, "workerinput")


_KEY = pytest.StashKey[Recorder]()


def pytest_configure(config: pytest.Config) -> None:
    rec = config.stash[_KEY] = Recorder()
    config.pluginmanager.register(rec, f"clause-coverage-{id(config)}")  # its logreport hook


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.when == "call":
        # read after the test ran: a scenario adds its own marker; lists survive xdist's
        # serialization of the report (execnet), tuples come back as lists anyway
        setattr(report, CLAIMS, [[c, p] for c, p in marker_clauses(item)])
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    rec = session.config.stash[_KEY]
    rec.whole = (
        not is_worker(session.config)
        and whole_suite(session.config)
        and not session.shouldstop
        and exitstatus
        in (
            pytest.ExitCode.OK,
            pytest.ExitCode.TESTS_FAILED,
        )
    )
    if not rec.whole:
        return
    rec.report = check(rec.executed)
    if rec.report:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    rec = config.stash[_KEY]
    if not rec.whole:
        return
    tr = terminalreporter
    if rec.report:
        tr.section("clause coverage by execution: FAILED", red=True)
        for p in rec.report:
            tr.write_line(p)
    else:
        tr.write_line(f"clause coverage: {len(rec.executed)} clauses asserted by passed tests")
