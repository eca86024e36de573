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


# A hand that runs to the end: seat 4 (100 behind) is all in, seat 3 calls and wins with
# aces; seats 1 and 2 fold. By hand: one pot of 50 + 100 + 100 = 250 that seats 3 and 4 can
# win (000-S3 side pots: a pot is contested by the seats that put in its every layer), and
# seat 4 finishes with no chips: eliminated.
HAND = """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 3 1000
seat 4 100
move 1 2
expect refused seat 2 is taken
button 1
zone 2 50
bet 3 60
zone 3 100
hole 2 2c
hole 3 As
hole 4 7d
hole 1 5c
hole 2 6c
hole 3 Ad
hole 4 8h
hole 1 9c
expect no-alert above info
expect pot 150
bet 4 100
fold 1
fold 2
press ack
sweep
"""


@pytest.mark.timeout(120)
def test_new_checks_on_the_real_table(tmp_path: Path, broker: Broker) -> None:
    """Each new check holding where the rulebook says it must: a refused venue command, the
    zone total, pots and eliminations of the hand record, the card a missing burn names
    (scrubbed from the venue's copy), an alert due within steps."""
    f = tmp_path / "checks.scn"
    f.write_text(
        HAND
        + """\
board Kh            # no burn: 000-S3-irreg-12a, the dealer moves it to the burn
expect alert MISSING_BURN card Kh
expect remedy move a card to the burn
burn Kh
board Qs 3d Tc
burn Jc
expect alert MISSING_BURN within 4 steps
board 4s
burn Jd
board 2h
expect phase complete
expect pots 250:3,4
expect eliminated 4
expect winners 3
expect instruction eliminated
"""
    )
    (r,) = run([f], broker)
    assert r.ok, r.report()


@pytest.mark.timeout(120)
def test_every_failed_expectation_is_reported(tmp_path: Path, broker: Broker) -> None:
    """Wrong expectations at several lines: the scenario goes on and names each of them; the
    right ones among them (the burn alert is a warning, not above one) do not appear."""
    f = tmp_path / "wrong.scn"
    f.write_text(
        HAND
        + """\
board Kh
expect alert MISSING_BURN card Qs
expect no-alert above warning
expect no-alert above info
burn Kh
board Qs 3d Tc
expect alert MISSING_BURN
expect alert MISSING_BURN within 2 steps
burn Jc
board 4s
burn Jd
board 2h
expect pots 250:3
expect eliminated none
expect no-instruction
"""
    )
    (r,) = run([f], broker)
    base = HAND.count("\n")
    lines = [n for n, _ in r.failures]
    assert not r.ok
    assert lines == [base + n for n in (2, 4, 7, 8, 13, 14, 15)], r.report()
    reasons = dict(r.failures)
    assert "MISSING_BURN(card Kh)" in reasons[base + 2]
    assert "MISSING_BURN(warning" in reasons[base + 4]
    assert "in the last 2 steps" in reasons[base + 8]
    assert "250:3,4" in reasons[base + 13] and "eliminated [4]" in reasons[base + 14]
    assert "liminated" in reasons[base + 15]
    assert r.report().count("\n     also ") == 6


@pytest.mark.timeout(120)
def test_a_refusal_stops_unless_expected(tmp_path: Path, broker: Broker) -> None:
    unexpected = tmp_path / "a-unexpected.scn"
    unexpected.write_text("profile tda-2024\nseat 1 1000\nseat 2 1000\nmove 1 2\n"
                          "expect hand 0\n")  # fmt: skip
    accepted = tmp_path / "b-accepted.scn"
    accepted.write_text("profile tda-2024\nseat 1 1000\nmove 1 2\nexpect refused\n")
    wrong_words = tmp_path / "c-words.scn"
    wrong_words.write_text("profile tda-2024\nseat 1 1000\nmove 3 2\nexpect refused taken\n")
    by_name = {Path(r.path).name: r for r in run([tmp_path], broker)}
    r = by_name["a-unexpected.scn"]
    assert (r.line, len(r.failures)) == (4, 1) and "Seat 2 is taken" in r.reason, r.report()
    r = by_name["b-accepted.scn"]
    assert r.line == 4 and "the command was accepted" in r.reason, r.report()
    r = by_name["c-words.scn"]
    assert r.line == 4 and "Seat 3 is empty" in r.reason, r.report()


VERBS = {
    # venue commands: a move between hands, the button draw, a profile change
    "a-move-draw.scn": """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 4 900
move 4 3
expect stack 3 900
draw
expect instruction button draw
set-profile club-003
expect no-alert
""",
    # zone N TOTAL sets the total: 100 taken down to 40 is a big blind short of 100, so it
    # is not posted when the deal starts (000-S2-blinds-1); 100 then 40 then 100 is posted
    "b-zone.scn": """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 3 1000
button 1
zone 2 50
zone 3 100
zone 3 40
hole 2 2c
expect alert BLINDS_NOT_POSTED seat 3
""",
    "c-zone-back-up.scn": """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 3 1000
button 1
zone 2 50
zone 3 100
zone 3 40
zone 3 100
hole 2 2c
expect no-alert
""",
    # a director's ruling: the misdeal button after the window is refused; the supervisor's
    # badge authorises it (controller/rules/misdeal.py, the disputed misdeal)
    "d-ruling.scn": """\
profile tda-2024
level 50 100
seat 1 1000
seat 2 1000
seat 3 1000
seat 4 1000
button 1
bet 2 50
bet 3 100
hole 2 2c
hole 3 3c
hole 4 4c
hole 1 5c
hole 2 6c
hole 3 7c
hole 4 8c
hole 1 9c
bet 4 100
bet 1 100
press misdeal
expect alert MISDEAL_REFUSED
expect phase betting
ruling td-1
expect phase misdeal
""",
}


@pytest.mark.timeout(120)
def test_the_new_verbs_drive_the_table(tmp_path: Path, broker: Broker) -> None:
    for name, text in VERBS.items():
        (tmp_path / name).write_text(text)
    results = run([tmp_path], broker)
    assert [Path(r.path).name for r in results] == sorted(VERBS)
    for r in results:
        assert r.ok, r.report()
