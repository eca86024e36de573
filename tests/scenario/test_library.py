"""The scenario library: every ``.scn`` file under ``scenarios/`` is played through the rules
core alone behind the daemon's translations (``railguard scenario --core-only``: one test
each, seconds for the whole library), and on the simulated table with the real daemon and
mosquitto for a smoke set plus every scenario that exercises the hardware path
(:func:`hwsim.scenario.runner.hardware_path`: board faults, the reader, badges, the DECLARE
key, the clock jumping ahead, cards in one scan cycle). A scenario that passes is credited
with the rulings of its ``clause`` line under its profile (the clause marker,
tests/coverage_plugin.py). ``railguard scenario`` is tried as a technician would: progress,
the per-profile summary, a malformed file, an empty selection, ``--core-only``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwsim.broker import Broker, plain_broker
from hwsim.scenario.parse import parse_file
from hwsim.scenario.runner import Result, hardware_only, hardware_path, run_paths

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "scenarios"
FILES = sorted(LIBRARY.rglob("*.scn"))

#: played on the whole system whatever they exercise: each profile, a hand played out, the
#: button draw, a player unseated, a side pot, the showdown
SMOKE = [
    LIBRARY / name
    for name in (
        "tda-2024/000-S3-misdeal-1h-wrong-first-seat.scn",
        "tda-2024/000-S3-bet-4-short-all-in-does-not-reopen.scn",
        "tda-2024/000-S1-button-5-high-card-draw.scn",
        "vistancia-002/002-NonStdFolds-1-fold-out-of-turn.scn",
        "club-003/003-hand-played-out-control.scn",
        "a2c-000/000-S2-hand-played-out-control.scn",
        "a2c-000/000-S1-shortblind-6-short-big-blind-all-in.scn",
        "shaved-dog-004/004-TG-22-sb-eliminated-button-stays-with-player.scn",
        "roberts-rules/000-S5-blinds-5-new-player-waits.scn",
    )
]
FULL = sorted(set(SMOKE) | {f for f in FILES if hardware_path(parse_file(f))})


def _id(f: Path) -> str:
    return str(f.relative_to(LIBRARY))


def railguard(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from controller.cli import main; raise SystemExit(main())"]
    return subprocess.run([*cmd, "scenario", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with plain_broker() as b:
        yield b


def test_library_names_each_scenario_after_its_clause() -> None:
    assert len(FILES) >= 40
    for f in FILES:
        text = f.read_text()
        assert parse_file(f).profile == f.parent.name, f
        assert "Rulebook:" in text or "no rulebook" in text.lower(), f"{f}: cite the rulebook"
    assert all(f.exists() for f in SMOKE), [f for f in SMOKE if not f.exists()]


def _wanted(request: pytest.FixtureRequest, name: str) -> list[Path]:
    return [item.callspec.params["path"] for item in request.session.items
            if item.originalname == name and hasattr(item, "callspec")]  # fmt: skip


@pytest.fixture(scope="module")
def core_played(request: pytest.FixtureRequest) -> dict[str, Result]:
    """Every scenario this run selected, played once on the core-only table."""
    wanted = _wanted(request, "test_scenario_core_only")
    play = run_paths([str(p) for p in wanted], "", 0, core_only=True)
    results = asyncio.run(asyncio.wait_for(play, 60 + 2 * len(wanted)))
    return {r.path: r for r in results}


JOBS = 4  # tables at once: a scenario mostly waits on the table's scan timing


@pytest.fixture(scope="module")
def played(broker: Broker, request: pytest.FixtureRequest) -> dict[str, Result]:
    """Every whole-system scenario this run selected, played once, ``JOBS`` tables at a time
    (board-fault scenarios alone afterwards), as ``railguard scenario --jobs`` plays them.
    Under xdist (scripts/test.sh) ``--dist loadfile`` sends this whole module to one worker,
    which plays them all, as one process does: spread over three workers, each played the
    whole library (its own ``session.items`` lists them all), and a dozen timed out."""
    wanted = _wanted(request, "test_scenario")
    budget = 60 + 8 * len(wanted)
    play = run_paths([str(p) for p in wanted], "127.0.0.1", broker.port, jobs=JOBS)
    results = asyncio.run(asyncio.wait_for(play, budget))
    return {r.path: r for r in results}


def _credit(request: pytest.FixtureRequest, path: Path, r: Result) -> None:
    # credited only if the scenario passes (the plugin reads the marker afterwards), and not
    # while one of its expectations is a known failure (xfail)
    sc = parse_file(path)
    if sc.clauses and not r.xfails and not r.skipped:
        request.node.add_marker(pytest.mark.clause(*sc.clauses, profiles=(sc.profile,)))


@pytest.mark.timeout(600)  # the first one plays the whole selection (the fixture)
@pytest.mark.parametrize("path", FILES, ids=[_id(f) for f in FILES])
def test_scenario_core_only(path: Path, core_played: dict[str, Result],
                            request: pytest.FixtureRequest) -> None:  # fmt: skip
    """Every scenario through the rules core alone; one that needs the hardware path is
    skipped there, and is on the whole system's list (``FULL``)."""
    r = core_played[str(path)]
    if r.skipped:
        assert hardware_only(parse_file(path)) and path in FULL, r.report()
        pytest.skip(r.skipped)
    _credit(request, path, r)
    assert r.ok, r.report()


@pytest.mark.timeout(1800)  # the first one plays the whole selection (the fixture)
@pytest.mark.parametrize("path", FULL, ids=[_id(f) for f in FULL])
def test_scenario(path: Path, played: dict[str, Result], request: pytest.FixtureRequest) -> None:
    """The smoke set and every scenario of the hardware path on the whole system."""
    r = played[str(path)]
    _credit(request, path, r)
    assert r.ok, r.report()


@pytest.mark.timeout(120)
def test_cli_core_only_plays_the_library_and_skips_the_hardware_path(tmp_path: Path) -> None:
    """``railguard scenario --core-only``: no broker, a FAIL for a wrong expectation (the
    core-only table can fail), a SKIP naming what of the hardware path a scenario needs."""
    bad = tmp_path / "tda-2024" / "bad-wrong-alert.scn"
    bad.parent.mkdir()
    good = LIBRARY / "tda-2024" / "000-S3-misdeal-1h-wrong-first-seat.scn"
    # the good scenario's deal with an alert it does not raise: must fail
    bad.write_text(good.read_text().replace("expect phase misdeal", "expect phase betting"))
    fault = LIBRARY / "tda-2024" / "FAULT-reader-noise-during-the-deal.scn"
    out = railguard("--core-only", str(good), str(bad), str(fault), timeout=100)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith(f"[1/3] PASS {good} ("), lines
    assert lines[1].startswith(f"[2/3] FAIL {bad}:"), lines
    assert lines[2] == (f"[3/3] SKIP {fault}: needs the hardware path (board faults, a "
                        "bouncing button, the reader's status)")  # fmt: skip
    assert lines[-1] == "1 passed, 1 failed, 1 skipped", lines


@pytest.mark.timeout(90)
def test_cli_progress_summary_and_a_malformed_file(tmp_path: Path) -> None:
    bad = tmp_path / "tda-2024" / "bad.scn"
    bad.parent.mkdir()
    bad.write_text("profile tda-2024\nseat 1 1000\nexpect alert NOPE\n")
    good = LIBRARY / "tda-2024" / "000-S3-misdeal-1h-wrong-first-seat.scn"
    other = LIBRARY / "vistancia-002" / "002-FourCardFlop-b-unknown-order-floor-draw.scn"
    out = railguard("--jobs", "1", str(bad), str(good), str(other), timeout=80)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == f"[1/3] FAIL {bad}:3: expect alert NOPE: unknown alert code"
    assert lines[1].startswith(f"[2/3] PASS {good} (")
    assert lines[2].startswith(f"[3/3] PASS {other} (")
    assert lines[3].startswith("  tda-2024: 1 passed, 1 failed, ")
    assert lines[4].startswith("  vistancia-002: 1 passed, 0 failed, ")
    assert lines[5] == "2 passed, 1 failed"


@pytest.mark.timeout(60)
def test_cli_an_empty_selection_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a scenario\n")
    out = railguard(str(tmp_path / "empty"), timeout=50)
    assert out.returncode == 2
    assert "no .scn files in this folder" in out.stderr and out.stdout == ""
    out = railguard(str(tmp_path / "nowhere"), timeout=50)
    assert out.returncode == 2
    assert f"{tmp_path / 'nowhere'}: no such file or folder" in out.stderr


CTRL_C_FILES = [
    str(LIBRARY / "tda-2024" / "000-S3-misdeal-1h-wrong-first-seat.scn"),
    str(LIBRARY / "tda-2024" / "000-S3-bet-4-short-all-in-does-not-reopen.scn"),
    str(LIBRARY / "vistancia-002" / "002-NonStdFolds-1-fold-out-of-turn.scn"),
]


def ctrl_c(presses: int) -> tuple[int, str, str]:
    """``railguard scenario`` on three files, SIGINT ``presses`` times once the first has
    reported; (exit status, stdout, stderr)."""
    import signal

    # SIGINT as a terminal delivers it (a shell's background job starts with it ignored)
    main = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from controller.cli import main; raise SystemExit(main())")  # fmt: skip
    cmd = [
        sys.executable,
        "-X",
        "faulthandler",
        "-c",
        main,
        "scenario",
        "--jobs",
        "1",
        *CTRL_C_FILES,
    ]
    with subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        assert first.startswith("[1/3] PASS "), first
        proc.send_signal(signal.SIGINT)
        if presses > 1:
            assert proc.stderr.readline().startswith("Ctrl-C: stopping after the scenario")
            proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # faulthandler: every thread's stack
            out, err = proc.communicate(timeout=20)
            pytest.fail(f"still running 40 s after SIGINT:\n{err}")
    return proc.returncode, first + out, err


@pytest.mark.timeout(90)
def test_cli_ctrl_c_finishes_the_scenario_being_played() -> None:
    """The first Ctrl-C: the scenario being played finishes (its table closed as usual),
    the next is not started; the summary of what ran, exit 130, no traceback."""
    rc, out, err = ctrl_c(1)
    assert rc == 130, out + err
    lines = out.strip().splitlines()
    assert lines[1].startswith("[2/3] PASS ") and lines[-1] == "2 passed, 0 failed", out
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "Ctrl-C: stopping after the scenarios being played (Ctrl-C again: at once)",
        "interrupted after 2 of 3 scenarios",
    ]


@pytest.mark.timeout(90)
def test_cli_a_second_ctrl_c_stops_at_once() -> None:
    rc, out, err = ctrl_c(2)
    assert rc == 130, out + err
    assert "Traceback" not in err
    assert err.strip() == "interrupted after 1 of 3 scenarios"
