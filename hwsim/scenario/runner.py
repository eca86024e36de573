"""Play scenarios on the simulated table and check what the controller concludes.

    results = asyncio.run(run_paths(["scenarios/"], host, port))

Each scenario gets a fresh daemon, board and GPIO (one broker serves them all). Actions are
done physically (tags on antennas, pins on the MockFactory, venue commands over MQTT); after
each one the runner waits until the daemon has handled what was sensed and the venue has
received every alert, hand record and the current state, then checks the expectations
written after the action: alerts, state and hand records as the venue received them over
MQTT, positions and phase from the daemon's core snapshot; instructions, the card an alert
names and the pots of a completed hand (with their eligible seats) from the daemon's public
observer list (``Daemon.watchers``). Every failed expectation is recorded and the scenario
goes on; an action that cannot be done ends it.

With ``core_only`` a scenario plays on :class:`hwsim.scenario.core_rig.CoreRig` instead:
the rules core behind the daemon's own translations, no broker, no board, no waiting, in a
few milliseconds; a scenario that needs the hardware path (:func:`hardware_only`: board
faults, a bouncing button, the reader's status) is skipped there, with the reason.

The verbs are done by :mod:`hwsim.scenario.verbs`, the expectations checked by
:mod:`hwsim.scenario.checks`; this module plays a scenario's steps and runs the files.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hwsim.layout import TableFailure
from hwsim.scenario.checks import Seen, Watch, check, records_add_up
from hwsim.scenario.core_rig import open_core_rig
from hwsim.scenario.model import Expect, Scenario, ScenarioError
from hwsim.scenario.parse import parse_file, scenario_files
from hwsim.scenario.rig import DemoFailure, ScenarioTable, open_rig, transport_for
from hwsim.scenario.verbs import do_action

__all__ = [
    "Result",
    "do_action",
    "hardware_only",
    "hardware_path",
    "play",
    "play_file",
    "run_paths",
]

SCENARIO_TIMEOUT = 90.0


class StepFailed(TableFailure):
    """A scenario's action could not be done (the table failed at it, or its venue command
    was refused unexpectedly): ends the scenario, reported at ``line``. A
    :class:`TableFailure` (``DemoFailure``) located at a line of the scenario."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line, self.reason = line, reason


@dataclass
class Result:
    """One scenario's outcome: ``failures`` holds every failed expectation (line, why), in
    order; an action that could not be done ends the scenario and is the last one."""

    path: str
    ok: bool
    line: int = 0
    reason: str = ""
    xfails: list[str] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0
    profile: str = ""
    clauses: list[str] = field(default_factory=list)
    failures: list[tuple[int, str]] = field(default_factory=list)
    skipped: str = ""  # not played (core only: what of the hardware path it needs)

    def fail(self, line: int, reason: str) -> None:
        if not self.failures:
            self.line, self.reason = line, reason
        self.failures.append((line, reason))
        self.ok = False

    def report(self) -> str:
        if self.skipped:
            return f"SKIP {self.path}: {self.skipped}"
        if self.ok:
            extra = f", {len(self.xfails)} xfail" if self.xfails else ""
            return f"PASS {self.path} ({self.steps} steps{extra}, {self.seconds:.1f}s)"
        more = "".join(f"\n     also {self.path}:{n}: {why}" for n, why in self.failures[1:])
        return f"FAIL {self.path}:{self.line}: {self.reason}{more}"


async def _expectations(rig: ScenarioTable, expects: list[Expect], history: list[Seen],
                        watch: Watch, res: Result) -> None:  # fmt: skip
    """Check every expectation of the step; each failure is recorded, none stops the run."""
    for e in expects:
        problem = await check(rig, e, history, watch)
        if e.xfail:
            if not problem:
                res.fail(e.line, f"{e.describe()}: passed, but it is marked xfail "
                         f"({e.xfail}); remove the xfail")  # fmt: skip
            else:
                res.xfails.append(f"line {e.line}: {e.describe()}: {problem} (xfail: {e.xfail})")
        elif problem:
            res.fail(e.line, f"{e.describe()}: {problem}")


# ---------------------------------------------------------------- scenarios


def hardware_only(sc: Scenario) -> str:
    """What of the hardware path the scenario needs that the core-only table has not ('' if
    nothing): board faults and a bouncing button (the ``fault`` verb), the reader's status."""
    needs = []
    if any(s.action.verb == "fault" and s.action.text != "bounce" for s in sc.steps):
        needs.append("board faults")
    if any(s.action.verb == "fault" and s.action.text == "bounce" for s in sc.steps):
        needs.append("a bouncing button")
    expects = [*sc.setup, *(e for s in sc.steps for e in s.expects)]
    if any(e.what == "reader" for e in expects):
        needs.append("the reader's status")
    return ", ".join(needs)


def hardware_path(sc: Scenario) -> list[str]:
    """What the scenario exercises of the hardware path, beyond what the core-only table
    translates the same way (empty: the core-only run covers it): besides
    :func:`hardware_only`, the clock jumping ahead for the whole daemon (``wait``), badge taps
    (``badge``, ``ruling``), the console's DECLARE key and its window (``declare``), a long
    press, and cards laid in one scan cycle of the board (``together``). The test suite plays
    these on the whole system too (tests/scenario/test_library.py)."""
    verbs = {s.action.verb for s in sc.steps}
    needs = [hardware_only(sc)] if hardware_only(sc) else []
    if "wait" in verbs:
        needs.append("the clock jumping ahead")
    if verbs & {"badge", "ruling"}:
        needs.append("badges")
    if "declare" in verbs:
        needs.append("the DECLARE key")
    if any(s.action.long and s.action.verb in ("press", "ruling") for s in sc.steps):
        needs.append("a long press")
    if any(s.action.together for s in sc.steps):
        needs.append("cards laid in one scan cycle")
    return needs


async def play(sc: Scenario, host: str, port: int, workdir: Path, *,
               core_only: bool = False) -> Result:  # fmt: skip
    started = time.monotonic()
    res = Result(sc.path, ok=False, steps=len(sc.steps), profile=sc.profile,
                 clauses=list(sc.clauses))  # fmt: skip
    if core_only and (needs := hardware_only(sc)):
        res.ok, res.skipped = True, f"needs the hardware path ({needs})"
        return res
    decks = {"B" for c in sc.cards_used() if c.deck == "B"}
    if any(c.card == "Jk" for c in sc.cards_used()):
        decks.add("JK")
    table_id = f"scn-{uuid.uuid4().hex[:8]}"
    rig: ScenarioTable
    try:
        if core_only:
            rig = await open_core_rig(sc.profile, workdir, table_id, decks=decks)
        else:
            rig = await open_rig(host, port, sc.profile, workdir, table_id, decks=decks,
                                 transport=transport_for(sc))  # fmt: skip
    except Exception as exc:
        res.fail(1, f"the simulated table did not start: {exc}")
        return res
    watch = Watch()
    rig.watchers.append(watch)
    _line = 1
    try:
        history = [Seen([], [])]
        await _expectations(rig, sc.setup, history, watch, res)
        for step in sc.steps:
            _line = step.action.line
            n_alerts, n_core = len(rig.venue.on("alerts")), len(watch.alerts)
            n_instr = len(watch.instructions)
            try:
                refused = await do_action(rig, step.action)
            except DemoFailure as exc:
                raise StepFailed(step.action.line, f"{step.action.verb}: {exc}") from None
            if refused and not any(e.what == "refused" for e in step.expects):
                raise StepFailed(step.action.line, f"{step.action.verb}: the venue command "
                                 f"was refused: {refused} (expect refused, if meant)")  # fmt: skip
            history.append(Seen(rig.venue.on("alerts")[n_alerts:], watch.instructions[n_instr:],
                                watch.alerts[n_core:], refused))  # fmt: skip
            await _expectations(rig, step.expects, history, watch, res)
        if problem := records_add_up(rig, watch):
            res.fail(_line, problem)
        res.ok = not res.failures
    except StepFailed as exc:  # before DemoFailure: a StepFailed is one too
        res.fail(exc.line, exc.reason)
    except DemoFailure as exc:  # settling after setup
        res.fail(1, str(exc))
    except Exception as exc:  # a bug of the runner or the table: report it, go on
        res.fail(_line, f"internal error: {type(exc).__name__}: {exc}")
    finally:
        await rig.close()
        res.seconds = time.monotonic() - started
    return res


async def play_file(path: Path, host: str, port: int, workdir: Path, *,
                    core_only: bool = False) -> Result:  # fmt: skip
    try:
        sc = parse_file(path)
    except ScenarioError as exc:
        res = Result(str(path), ok=False, profile=path.parent.name)
        res.fail(exc.line, exc.problem)
        return res
    try:
        return await asyncio.wait_for(play(sc, host, port, workdir, core_only=core_only),
                                      SCENARIO_TIMEOUT)  # fmt: skip
    except TimeoutError:
        res = Result(str(path), ok=False, profile=sc.profile)
        res.fail(1, f"did not finish within {SCENARIO_TIMEOUT:g} s")
        return res


async def run_paths(paths: list[str], host: str, port: int,
                    on_result: Callable[[Result], None] | None = None, *,
                    stop: asyncio.Event | None = None, jobs: int = 1,
                    core_only: bool = False) -> list[Result]:  # fmt: skip
    """Every scenario under ``paths``, each on a fresh table, up to ``jobs`` tables at once
    (a scenario mostly waits on the table's scan timing, not on the CPU), then those with
    board faults one at a time (their board is on a pty and their timing is the point);
    results in the order of ``paths``, ``on_result`` as each finishes. Once ``stop`` is set,
    no further scenario starts (those being played finish). ``core_only``: on the core-only
    table, one at a time (``host`` and ``port`` unused)."""
    files = list(_files(paths))
    results: list[Result | None] = [None] * len(files)
    if core_only:
        jobs = 1
    alone = [i for i, f in enumerate(files) if jobs > 1 and _on_the_wire(f)]
    gate = asyncio.Semaphore(max(1, jobs))
    with tempfile.TemporaryDirectory(prefix="railguard-scn-") as tmp:

        async def one(i: int) -> None:
            if stop is not None and stop.is_set():
                return
            r = await play_file(files[i], host, port, Path(tmp) / str(i), core_only=core_only)
            results[i] = r
            if on_result is not None:
                on_result(r)

        async def gated(i: int) -> None:
            async with gate:
                await one(i)

        async with asyncio.TaskGroup() as tg:
            for i in range(len(files)):
                if i not in alone:
                    tg.create_task(gated(i), name=f"scenario {files[i].name}")
        for i in alone:
            await one(i)
    return [r for r in results if r is not None]


def _on_the_wire(path: Path) -> bool:
    """Whether the scenario's board goes on a pty (board faults); unreadable files are not."""
    try:
        return transport_for(parse_file(path)) == "pty"
    except ScenarioError:
        return False


def _files(paths: list[str]) -> Iterator[Path]:
    yield from scenario_files(paths)
