"""A sweep as the reader senses it (every betting zone emptied in one cycle) reaches the rules
core as the sweep, not as players taking chips back (issue 24: ``railguard sim`` under
vistancia-002 raised CHIPS_TAKEN_BACK for every limper of a limped pot).

002 [L125]: "Chips placed in the pot in turn must stay in the pot." The dealer sweeping them
into the pot is not a player taking them back; and in a limped pot the big blind's check is
not sensed (L2), so the round is still open when the dealer sweeps. The tracker's events of
that cycle go through the daemon's translation (``ReaderInput.batch``) into a real core."""

from __future__ import annotations

from controller.daemon.translate import ReaderInput
from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ChipsIn, ChipsOut, Event, Sweep
from controller.rules.phases import Phase
from tests.rules.table_builder import Table


def limped(reader: ReaderInput) -> Table:
    """Four players under 002, blinds 50/100 (seats 2 and 3), everyone calls: the big
    blind's option is open. Every chip placement also goes through the translation, so the
    reader knows what each zone holds."""
    t = Table("vistancia-002", 4)
    for seat, amount in ((2, 50), (3, 100)):
        reader.batch([ChipsIn(t.now(), seat, amount)])
    t.post_blinds().deal()
    for seat, amount in ((4, 100), (1, 100), (2, 50)):
        reader.batch([ChipsIn(t.now(), seat, amount)])
        t.chips(seat, amount)
    assert t.snap.to_act == 3 and t.phase is Phase.BETTING
    return t.mark()


def test_a_sweep_of_a_limped_pot_raises_nothing_under_002() -> None:
    reader = ReaderInput()
    t = limped(reader)
    now = t.now()
    events: list[Event] = reader.batch([ChipsOut(now, s, 100) for s in (1, 2, 3, 4)])
    assert isinstance(events[0], Sweep)  # the sweep first, then the zones it emptied
    assert [e.seat for e in events[1:] if isinstance(e, ChipsOut)] == [1, 2, 3, 4]
    for e in events:
        t.send(e)
    above_info = [a for a in t.alerts if a.severity > Severity.INFO]
    assert above_info == [], above_info
    assert t.phase is Phase.BOARD  # the sweep was the big blind's check: the round closed


def test_chips_taken_back_of_one_zone_still_raise_it_under_002() -> None:
    """A limper taking his call back (the other zones still full) is no sweep: 002 [L125]
    still applies."""
    reader = ReaderInput()
    t = limped(reader)
    events = reader.batch([ChipsOut(t.now(), 4, 100)])
    assert not any(isinstance(e, Sweep) for e in events)
    for e in events:
        t.send(e)
    assert AlertCode.CHIPS_TAKEN_BACK in t.codes
