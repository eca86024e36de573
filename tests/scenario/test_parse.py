"""The .scn parser: every construct, and malformed input named by file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwsim.scenario.model import CardRef, ScenarioError
from hwsim.scenario.parse import parse_file, parse_text

GOOD = """\
# a comment
profile tda-2024
title every construct
expect button 0            # before any action
level 50 100 10
seat 1 1000 Alice
seat 2 1000
unseat 2
seat 2 500
button 1
draw
next-hand
hole 2 As 10h together
board Ah Kh Qh Jh together
burn 2c
muck As
take Kh
take tag:DEADBEEF B:Qs Jk
fold 2
bet 2 1000
bet 3 chips 500 500
takeback 3 500
takeback 2
sweep
press exposed
press ack long
badge dealer d-1
badge supervisor s-9
wait 61.5
fault garbage 16
fault bitflip
fault reboot
fault unplug
fault replug
fault stall
fault heartbeat-stall
fault resume
fault bounce ack
expect alert misdeal severity critical seat 2
expect no-alert
expect no-alert joker
expect instruction "shuffle and deal again"
expect remedy move a card
expect sb 2
expect bb 3
expect to-act none
expect pot 150
expect stack 2 950
expect phase betting
expect street flop
xfail the core is wrong here
expect winners 3 1
expect hand 2
expect reader online
"""


def test_every_construct() -> None:
    sc = parse_text(GOOD, "good.scn")
    assert sc.profile == "tda-2024" and sc.title == "every construct"
    assert [e.what for e in sc.setup] == ["button"]
    verbs = [s.action.verb for s in sc.steps]
    assert verbs[:6] == ["level", "seat", "seat", "unseat", "seat", "button"]
    by_line = {s.action.line: s.action for s in sc.steps}
    assert by_line[5].numbers == (50, 100, 10)
    assert by_line[6].text == "Alice" and by_line[6].amount == 1000
    hole = by_line[13]
    assert hole.seat == 2 and hole.together and [str(c) for c in hole.cards] == ["As", "Th"]
    take = by_line[18]
    assert take.cards == (CardRef(tag="DEADBEEF"), CardRef("Qs", "B"), CardRef("Jk"))
    assert by_line[20].amount == 1000 and by_line[20].numbers == ()
    assert by_line[21].numbers == (500, 500) and by_line[21].amount == 1000
    assert by_line[22].amount == 500 and by_line[23].amount == 0
    assert by_line[26].long and by_line[26].button is not None
    assert by_line[27].text == "d-1" and not by_line[27].long and by_line[28].long
    assert by_line[29].seconds == 61.5
    assert by_line[30].text == "garbage" and by_line[30].amount == 16
    assert by_line[31].amount == 1
    assert by_line[38].button is not None and by_line[38].button.value == "ack"
    expects = sc.steps[-1].expects
    assert [e.what for e in expects] == [
        "alert", "no-alert", "no-alert", "instruction", "remedy", "sb", "bb", "to-act", "pot",
        "stack", "phase", "street", "winners", "hand", "reader",
    ]  # fmt: skip
    alert = expects[0]
    assert (alert.code, alert.severity, alert.seat) == ("MISDEAL", "critical", 2)
    assert expects[2].code == "JOKER"
    assert expects[3].text == "shuffle and deal again"
    assert expects[7].value == 0
    assert (expects[9].seat, expects[9].value) == (2, 950)
    assert expects[12].values == (1, 3) and expects[12].xfail == "the core is wrong here"
    assert not expects[13].xfail


LANGUAGE = """\
profile club-003
clause 000-S3-bet-4 003-SidePots-sweep
seat 10 1000
move 10 9
expect refused
expect refused seat 9 is taken
level 50 100
draw
expect refused draw
set-profile tda-2024
zone 9 300
zone 9 0
ruling s-1
ruling s-1 misdeal long
expect no-alert above info
expect no-alert above warning
expect no-instruction
expect alert misdeal within 3 steps
expect alert exposed_card card As severity warning seat 9 within 2
expect pots 300:1,2,3 120:1,2
expect eliminated 3 10
expect eliminated none
"""


def test_hand_for_hand_verbs() -> None:
    """hold-deal ROUND and release-deal: the venue's hold_deal and release_deal commands
    (issue 25), whose steps may expect refused."""
    sc = parse_text("profile tda-2024\nhold-deal 3\nexpect refused\nrelease-deal\n"
                    "expect refused\n", "h4h.scn")  # fmt: skip
    hold, release = (s.action for s in sc.steps)
    assert (hold.verb, hold.amount) == ("hold-deal", 3) and release.verb == "release-deal"
    assert [s.expects[0].what for s in sc.steps] == ["refused", "refused"]


def test_issue_16_constructs() -> None:
    sc = parse_text(LANGUAGE, "lang.scn")
    assert sc.clauses == ["000-S3-bet-4", "003-SidePots-sweep"]
    by_line = {s.action.line: s for s in sc.steps}
    assert by_line[3].action.seat == 10
    move = by_line[4]
    assert (move.action.seat, move.action.numbers) == (10, (9,))
    assert [(e.what, e.text) for e in move.expects] == [
        ("refused", ""), ("refused", "seat 9 is taken")]  # fmt: skip
    assert by_line[10].action.text == "tda-2024"
    assert (by_line[11].action.verb, by_line[11].action.amount) == ("zone", 300)
    assert by_line[12].action.amount == 0
    assert by_line[13].action.text == "s-1" and by_line[13].action.button is None
    r = by_line[14].action
    assert r.button is not None and r.button.value == "misdeal" and r.long
    ex = by_line[14].expects
    assert [(e.what, e.severity) for e in ex[:2]] == [("no-alert", "info"), ("no-alert", "warning")]
    assert ex[2].what == "no-instruction"
    assert (ex[3].code, ex[3].within) == ("MISDEAL", 3)
    assert (ex[4].code, ex[4].card, ex[4].severity, ex[4].seat, ex[4].within) == (
        "EXPOSED_CARD", "As", "warning", 9, 2)  # fmt: skip
    assert ex[5].pots == ((300, (1, 2, 3)), (120, (1, 2)))
    assert ex[5].describe() == "expect pots 300:1,2,3 120:1,2"
    assert ex[6].values == (3, 10) and ex[7].values == ()
    assert ex[4].describe() == (
        "expect alert EXPOSED_CARD severity warning seat 9 card As within 2 steps"
    )


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("seat 1 100\n", 1, "profile line must come first"),
        ("profile nope\nseat 1 1\n", 1, "profile nope"),
        ("profile tda-2024\nprofile tda-2024\n", 2, "profile given twice"),
        ("profile tda-2024\n", 1, "no actions"),
        ("# only\n", 1, "no profile"),
        ("profile tda-2024\nseat 11 100\n", 2, "seats 1..10"),
        ("profile tda-2024\nseat 1 lots\n", 2, "whole number"),
        ("profile tda-2024\nseat 1\n", 2, "seat N STACK"),
        ("profile tda-2024\nlevel 200 100\n", 2, "SB <= BB"),
        ("profile tda-2024\nhole 1 Zz\n", 2, "unknown rank"),
        ("profile tda-2024\nhole 1\n", 2, "hole N CARD"),
        ("profile tda-2024\nboard C:As\n", 2, "deck 'C'"),
        ("profile tda-2024\nburn tag:XYZ\n", 2, "4, 7, 8 or 10 bytes"),
        ("profile tda-2024\nburn tag:DEADBE\n", 2, "4, 7, 8 or 10 bytes"),
        ("profile tda-2024\nbet 1 chips\n", 2, "at least one chip"),
        ("profile tda-2024\nbet 1 0\n", 2, "below 1"),
        ("profile tda-2024\npress launch\n", 2, "unknown button"),
        ("profile tda-2024\npress ack twice\n", 2, "only 'long'"),
        ("profile tda-2024\nbadge boss x\n", 2, "dealer or supervisor"),
        ("profile tda-2024\nwait soon\n", 2, "expected seconds"),
        ("profile tda-2024\nfault meteor\n", 2, "fault: expected one of"),
        ("profile tda-2024\nfault bounce\n", 2, "fault bounce BUTTON"),
        ("profile tda-2024\ndance\n", 2, "unknown instruction 'dance'"),
        ("profile tda-2024\nsweep\nexpect alert NOPE\n", 3, "unknown alert code"),
        ("profile tda-2024\nsweep\nexpect alert JOKER colour red\n", 3, "unknown qualifier"),
        ("profile tda-2024\nsweep\nexpect alert JOKER severity loud\n", 3, "severity loud"),
        ("profile tda-2024\nsweep\nexpect phase dancing\n", 3, "expect phase"),
        ("profile tda-2024\nsweep\nexpect stack 1\n", 3, "expect stack SEAT AMOUNT"),
        ("profile tda-2024\nsweep\nexpect weather\n", 3, "unknown expectation"),
        ("profile tda-2024\nsweep\nxfail\n", 3, "give the reason"),
        ("profile tda-2024\nsweep\nxfail a\nsweep\n", 3, "followed by an expect"),
        ("profile tda-2024\nsweep\nxfail a\n", 3, "followed by an expect"),
        ("profile tda-2024\nsweep\nxfail a\nxfail b\n", 4, "one per expect"),
        # the language of issue 16: one case per kind of malformed line
        ("profile tda-2024\nmove 1\n", 2, "move FROM TO"),
        ("profile tda-2024\nset-profile nope\n", 2, "set-profile nope"),
        ("profile tda-2024\nhold-deal\n", 2, "hold-deal ROUND"),
        ("profile tda-2024\nhold-deal 0\n", 2, "hold-deal round: 0 is below 1"),
        ("profile tda-2024\nhold-deal two\n", 2, "expected a whole number"),
        ("profile tda-2024\nrelease-deal 1\n", 2, "release-deal (no arguments)"),
        ("profile tda-2024\nzone 1\n", 2, "zone N TOTAL"),
        ("profile tda-2024\nzone 1 -5\n", 2, "below 0"),
        ("profile tda-2024\nruling\n", 2, "ruling BADGE"),
        ("profile tda-2024\nruling s-1 launch\n", 2, "ruling launch: unknown button"),
        ("profile tda-2024\nruling s-1 misdeal soon\n", 2, "only 'long'"),
        ("profile tda-2024\nsweep\nexpect no-alert above critical\n", 3, "above info|warning"),
        ("profile tda-2024\nsweep\nexpect no-alert above\n", 3, "above info|warning"),
        ("profile tda-2024\nsweep\nexpect no-alert JOKER MISDEAL\n", 3, "no-alert [CODE]"),
        ("profile tda-2024\nsweep\nexpect no-instruction now\n", 3, "no arguments"),
        ("profile tda-2024\nsweep\nexpect alert JOKER within\n", 3, "'within' needs a value"),
        ("profile tda-2024\nsweep\nexpect alert JOKER within 0 steps\n", 3, "below 1"),
        ("profile tda-2024\nsweep\nexpect alert JOKER within 2 steps\n", 3, "1 step(s) so far"),
        ("profile tda-2024\nsweep\nexpect alert JOKER card Zz\n", 3, "unknown rank"),
        ("profile tda-2024\nsweep\nexpect alert JOKER card tag:DEADBEEF\n", 3, "names no card"),
        ("profile tda-2024\nsweep\nexpect refused\n", 3, "follows a venue command"),
        ("profile tda-2024\nexpect refused\nsweep\n", 2, "follows a venue command"),
        ("profile tda-2024\nsweep\nexpect pots\n", 3, "AMOUNT:SEAT,SEAT"),
        ("profile tda-2024\nsweep\nexpect pots 300\n", 3, "expected AMOUNT:SEAT,SEAT"),
        ("profile tda-2024\nsweep\nexpect pots 300:\n", 3, "expected AMOUNT:SEAT,SEAT"),
        ("profile tda-2024\nsweep\nexpect pots lots:1,2\n", 3, "pot amount"),
        ("profile tda-2024\nsweep\nexpect pots 300:1,12\n", 3, "seats 1..10"),
        ("profile tda-2024\nsweep\nexpect pots 300:1,1\n", 3, "a seat named twice"),
        ("profile tda-2024\nsweep\nexpect eliminated\n", 3, "seat(s) out, or none"),
        ("profile tda-2024\nsweep\nexpect eliminated x\n", 3, "whole number"),
        ("profile tda-2024\nclause 000-S3-bet-4\nsweep\n", 1, "must assert"),
        ("profile tda-2024\nclause 000-S3-bet-4 000-S3-bet-4\nsweep\n", 2, "given twice"),
        ("profile tda-2024\nclause bad_id!\nsweep\n", 2, "not a clause-inventory id"),
        ("profile tda-2024\nsweep\nclause 000-S3-bet-4\n", 3, "before the first action"),
    ],
)
def test_malformed_names_file_and_line(text: str, line: int, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_text(text, "bad.scn")
    assert err.value.line == line
    assert str(err.value).startswith(f"bad.scn:{line}: ")
    assert words in err.value.problem


def test_parse_file_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"nothing\.scn:0: cannot read"):
        parse_file(tmp_path / "nothing.scn")


def test_show_and_expect_pot_winners() -> None:
    """Issue 12: ``show N`` at the showdown, ``expect pot-winners AMOUNT SEATS ...`` per pot."""
    sc = parse_text("profile tda-2024\nshow 3\nexpect pot-winners 600 2 125 2,3\n", "s.scn")
    (step,) = sc.steps
    assert (step.action.verb, step.action.seat) == ("show", 3)
    assert step.expects[0].what == "pot-winners" and step.expects[0].text == "600:2 125:2,3"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("profile tda-2024\nshow\n", "show N"),
        ("profile tda-2024\nshow 11\n", "seats 1..10"),
        ("profile tda-2024\nsweep\nexpect pot-winners 300\n", "AMOUNT SEAT"),
        ("profile tda-2024\nsweep\nexpect pot-winners 0 2\n", "below 1"),
        ("profile tda-2024\nsweep\nexpect pot-winners 300 2,x\n", "whole number"),
    ],
)
def test_show_and_expect_pots_malformed(text: str, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_text(text, "bad.scn")
    assert words in err.value.problem
