"""The runner through the simulated hardware and the real daemon: a passing scenario, a
deliberately failing one (the report names the line and why), a malformed file among good
ones, and reader-board faults."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwsim.broker import Broker, plain_broker
from hwsim.scenario.runner import Result, run_paths

LIBRARY = Path(__file__).resolve().parents[2] / "scenarios"

DEAL = """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 3 1000
button 1
bet 2 50
bet 3 100
hole 2 2c
hole 3 3c
hole 1 4c
hole 2 5c
hole 3 6c
hole 1 7c
expect phase betting
"""


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with plain_broker() as b:
        yield b


def run(paths: list[Path], broker: Broker) -> list[Result]:
    return asyncio.run(asyncio.wait_for(
        run_paths([str(p) for p in paths], "127.0.0.1", broker.port), 120))  # fmt: skip


@pytest.mark.timeout(120)
def test_pass_fail_and_malformed(tmp_path: Path, broker: Broker) -> None:
    good = tmp_path / "a-good.scn"
    good.write_text(DEAL + "expect to-act 1\nexpect pot 150\nexpect no-alert\n")
    bad = tmp_path / "b-bad.scn"  # the deal is right, so no misdeal: this must fail
    bad.write_text(DEAL + "expect to-act 1\nexpect alert MISDEAL\n")
    broken = tmp_path / "c-broken.scn"
    broken.write_text("profile tda-2024\nseat 1 1000\nhole 1 Qx\n")
    xpass = tmp_path / "d-xpass.scn"
    xpass.write_text(DEAL + "xfail believed broken\nexpect to-act 1\n")
    results = run([tmp_path], broker)
    by_name = {Path(r.path).name: r for r in results}
    assert by_name["a-good.scn"].ok, by_name["a-good.scn"].report()
    r = by_name["b-bad.scn"]
    assert not r.ok and r.line == 17 and "got no alert" in r.reason
    assert r.report().startswith(f"FAIL {bad}:17: expect alert MISDEAL")
    r = by_name["c-broken.scn"]
    assert not r.ok and r.line == 3 and "Qx" in r.reason
    r = by_name["d-xpass.scn"]
    assert not r.ok and "remove the xfail" in r.reason


@pytest.mark.timeout(90)
def test_fault_injection_scenario(broker: Broker) -> None:
    (r,) = run([LIBRARY / "tda-2024" / "FAULT-reader-noise-during-the-deal.scn"], broker)
    assert r.ok, r.report()
