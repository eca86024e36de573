"""The rules core: one table, one event at a time, no I/O.

``TableCore.handle(event)`` returns a :class:`Step` with the decisions the event caused.
The table's full state is read with :meth:`TableCore.snapshot` (frozen values). A rejected
event raises nothing: the step carries a :class:`TableError` and the state is unchanged.

Phases, the events each accepts, their handlers and the phases each may lead to are listed
once, in the transition table (:mod:`controller.rules.transitions`); the only place the
phase changes is :meth:`TableCore.enter`, which refuses a change the table does not list.
The hand's sub-states (the floor's hold, the clock, the misdeal call, the burn debt) are
rows of the same table; their owners change them through :meth:`TableCore.shift`, which
refuses the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeVar

from controller.rules import board, handlers, posting, profile_switch, records
from controller.rules.betting import clock_tick
from controller.rules.cards import Card
from controller.rules.decisions import (
    Alert,
    AlertCode,
    Decision,
    HandRecord,
    Instruction,
    PotAwarded,
    SeatEliminated,
    Severity,
)
from controller.rules.errors import LocalError, TableError
from controller.rules.events import (
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    Event,
    Sweep,
    ZoneKind,
)
from controller.rules.hand import Draw, Hand, Level
from controller.rules.phases import BurnDebt, ClockState, FloorHold, MisdealCall, Phase
from controller.rules.profile import Profile
from controller.rules.seating import Positions, Seat, SeatStatus, next_positions
from controller.rules.state import TableState, snapshot_of
from controller.rules.tabledata import TableData, export_table, restore_table
from controller.rules.transitions import CLOCK_ROWS, NO_EVENT, PHASES, ROWS, SUBSTATES, Transition

# a stored sub-state of the hand (TableCore.shift)
S = TypeVar("S", FloorHold, ClockState, MisdealCall, BurnDebt)
# (a module constant: an Enum class's attribute is a Python-level lookup in 3.11)
_CLOCK_OFF: Final = ClockState.OFF

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_IDLE: Final = Phase.IDLE
_BUSTED: Final = SeatStatus.BUSTED


@dataclass(init=False, unsafe_hash=True, slots=True)
class Step:
    """The result of one event (read-only; an explicit ``__init__``: see decisions.py)."""

    phase: Final[Phase]
    hand_no: Final[int]
    decisions: Final[tuple[Decision, ...]]
    rejected: Final[TableError | None]

    def __init__(
        self,
        phase: Phase,
        hand_no: int,
        decisions: tuple[Decision, ...] = (),
        rejected: TableError | None = None,
    ) -> None:
        self.phase = phase
        self.hand_no = hand_no
        self.decisions = decisions
        self.rejected = rejected

    @property
    def alerts(self) -> tuple[Alert, ...]:
        return tuple(d for d in self.decisions if isinstance(d, Alert))


class TableCore:
    """One table's rules engine. Construct with a profile; feed events to :meth:`handle`."""

    def __init__(self, profile: Profile, table: str = "table", *, hand_no: int = 0) -> None:
        # the house-rule profile (the daemon may switch it between hands: switch_profile); an
        # attribute, not a property: read on most events (a property is a Python-level call)
        self.profile = profile
        self.max_seats = profile.max_seats  # read on every action: kept with the profile
        # the venue's profile for the next hand, set during a hand (profile_switch.py)
        self.pending_profile: Profile | None = None
        self.table = table
        self.seats: dict[int, Seat] = {}
        self.level = Level(0, 0, 0)
        self.pending_level: Level | None = None
        # G11: the pending level came after the coming hand's blinds: it waits one more hand
        self.level_waits = False
        self.positions: Positions | None = None  # the current (or next) hand's positions
        self.button_set = False  # a button was placed and no hand played since
        self.hand_no = hand_no  # the last hand started
        self.deal_no = 0
        # G1: a misdeal or void was cleared; the next deal re-deals the same hand number
        self.redeal_pending = False
        # the alerts of deals cleared by a misdeal or a void: the re-deal's record carries
        # them (the same hand, G1), so a misdeal's cause is in the stored hand
        self.misdealt_alerts: tuple[Alert, ...] = ()
        self.hand: Hand | None = None
        # hand-for-hand: the round this table is held for until the venue's release (0:
        # not held; handforhand.py)
        self.deal_hold = 0
        self.phase = _IDLE
        self._row = ROWS[0]  # the transition table's row of the current phase (IDLE)
        # the table's cell of the event being handled (its kind, where it may lead)
        self._tr: Transition = NO_EVENT
        # the Step of an event that decided nothing, reused while phase and hand stay the same
        self._quiet = Step(_IDLE, hand_no)
        self.where: dict[str, tuple[ZoneKind, int]] = {}
        self.card_of: dict[str, Card | None] = {}
        self.posted: dict[int, int] = {}  # chips in betting zones before the deal
        # the coming hand's dealt-in seats and forced bets while only chips move between
        # hands (posting.chips_posted keeps it; handle forgets it after any other event)
        self.coming: tuple[set[int], dict[int, list[tuple[str, int]]]] | None = None
        self.presence_posts: set[int] = set()  # of those, seats sensed by presence only (L3)
        self.draw: Draw | None = None
        self.dealer = ""
        self.t = 0.0
        self.out: list[Decision] = []
        self.last_record: HandRecord | None = None
        # counts the changes of this table: every accepted event, every event met by a
        # running clock (accepted or not), every restore and profile switch. A rejected
        # event leaves the state and this number as they were
        # (tests/rules/test_core_properties.py), so a reader may keep what it derived from
        # the state (an export) while the number stays the same
        self.revision = 0

    # ------------------------------------------------------------------ public API

    def switch_profile(self, profile: Profile) -> None:
        """Judge by ``profile`` from now on: the core's own (``profile_switch.py`` between
        hands, :meth:`restore`); from outside, a :class:`~.events.SetProfile` event."""
        self.profile = profile
        self.max_seats = profile.max_seats
        posting.forget_coming(self)
        self.revision += 1

    def export(self) -> TableData:
        """The whole state as frozen values (:mod:`controller.rules.tabledata`)."""
        return export_table(self)

    def restore(self, data: TableData) -> None:
        """Become ``data`` (from :meth:`export`, possibly changed with
        :func:`dataclasses.replace`, or decoded by :mod:`controller.rules.handlog`)."""
        restore_table(self, data)
        posting.forget_coming(self)
        self.revision += 1

    def handle(self, event: Event) -> Step:
        """Apply one event. Never raises for anything the table can produce."""
        if self.out:  # the decisions of the last event (copied into its Step)
            self.out.clear()  # (most events decide nothing: no call then)
        kind = type(event)
        tr = self._row.get(kind)  # keyed by class: no Enum hashing per event
        if tr is None:
            return self._reject(
                TableError("not_now", f"{kind.__name__} is not accepted while {self.phase.value}")
            )
        if event.t < self.t:
            return self._reject(
                TableError("time_backwards", f"event time {event.t} is before {self.t}")
            )
        clock: tuple[Decision, ...] = ()
        h = self.hand
        if h is not None and h.clock_state is not _CLOCK_OFF:
            self._tr = CLOCK_ROWS[PHASES.index(self.phase)]
            self.revision += 1  # what the clock rules stands even if the event is refused
            try:
                clock_tick(self, event.t)
            except TableError as err:
                return self._reject(err)
            clock = tuple(self.out)
            tr = self._row.get(kind)  # the clock may have changed the phase
            if tr is None:
                late = f"{kind.__name__} is not accepted while {self.phase.value}"
                return Step(self.phase, self.hand_no, clock, TableError("not_now", late))
        saved_t = self.t
        self._tr = tr
        try:
            self.t = event.t
            # the row's handler (transitions.HANDLERS: one per kind, in every phase); the
            # most frequent kinds called directly, a native call in the compiled core (the
            # table's callable costs a Python-level call and its argument parsing)
            if isinstance(event, CardPlaced):
                handlers.card_placed(self, event)
            elif isinstance(event, ChipsIn):
                handlers.chips_in(self, event)
            elif isinstance(event, CardRemoved):
                handlers.card_removed(self, event)
            elif isinstance(event, Sweep):
                handlers.sweep(self, event)
            else:
                tr.handler(self, event)
        except TableError as err:
            self.t = saved_t
            if clock:
                # 002-Clock-1 / G8: the time that passed ran the clock out (countdown, dead
                # hand) before this event; that ruling stands and is reported even though the
                # event itself is rejected (it changed nothing)
                return Step(self.phase, self.hand_no, clock, err)
            return self._reject(err)
        finally:
            self._tr = NO_EVENT
            if self.coming is not None and kind is not ChipsIn and kind is not ChipsOut:
                posting.forget_coming(self)  # the table may have changed
        self.revision += 1
        if self.out:
            return Step(self.phase, self.hand_no, tuple(self.out))
        quiet = self._quiet
        if quiet.phase is not self.phase or quiet.hand_no != self.hand_no:
            quiet = self._quiet = Step(self.phase, self.hand_no)
        return quiet

    def can(self, event: Event) -> bool:
        """Would :meth:`handle` accept this event now? The same checks as handling (as
        pokerkit's verify/can/do): beyond the transition table's row, the event is handled
        on a copy of the table (``export``/``restore``) that is then dropped, so every check
        a handler makes counts and nothing of this table changes."""
        if type(event) not in self._row or event.t < self.t:
            return False  # the table's row refuses it: no copy needed
        trial = TableCore(self.profile, self.table)
        restore_table(trial, export_table(self))
        return trial.handle(event).rejected is None

    def snapshot(self) -> TableState:
        return snapshot_of(self)

    # ------------------------------------------------------------------ helpers for rule modules

    def enter(self, phase: Phase) -> None:
        """Change the phase, if the transition table lets the event being handled do so."""
        if phase is not self.phase:
            for allowed in self._tr.targets:
                if allowed is phase:
                    break
            else:
                raise LocalError(
                    f"the transition table has no change {self.phase.value} -> {phase.value}"
                    " for this event"
                )
        self.set_phase(phase)

    def shift(self, old: S, new: S) -> S:
        """A hand's sub-state changes from ``old`` to ``new`` (the owner module writes what
        this returns), if the transition table's sub-state rows (``transitions.SUBSTATES``)
        let the event being handled (or the clock run before it) do so."""
        if new is not old:
            targets = SUBSTATES[old].get(self._tr.kind, ())
            for allowed in targets:
                if allowed is new:
                    break
            else:
                kind = self._tr.kind
                why = kind if isinstance(kind, str) else kind.__name__
                raise LocalError(
                    f"the transition table has no change {old.value} -> {new.value} for "
                    f"{why or 'no event'} ({type(old).__name__})"
                )
        return new

    def set_phase(self, phase: Phase) -> None:
        """Set the phase without the table's check (:meth:`restore` only)."""
        self.phase = phase
        # not TRANSITIONS[phase]: hashing an Enum member is a Python-level call; and a loop
        # by identity, not PHASES.index(phase): a method call on a tuple in the compiled core
        i = 0
        for p in PHASES:
            if p is phase:
                break
            i += 1
        self._row = ROWS[i]

    def carry_alerts(self, h: Hand, redeal: bool) -> None:
        """A new deal's hand (``dealing.start_hand``) starts with the alerts of the deals
        cleared before it when it is a redeal; the hand's alerts are written here only."""
        if redeal:
            h.alerts.extend(self.misdealt_alerts)
        self.misdealt_alerts = ()

    # The board's part of what happens in the betting round. ``betting.py`` and ``rounds.py``
    # lie below ``board.py`` (it imports them), so they cannot call its named functions; the
    # table they are given does (the board's state is written in board.py only:
    # tests/rules/test_state_owners.py).

    def round_closed(self, h: Hand) -> None:
        """The betting round closed (``betting.after_change``): ``board.round_closed``."""
        board.round_closed(h)

    def board_stands(self, h: Hand) -> None:
        """An action on a board card dealt without a burn (``rounds.record``):
        ``board.stands``."""
        board.stands(self, h)

    def alert(
        self,
        code: AlertCode,
        severity: Severity,
        clause: str,
        remedy: str,
        seat: int = 0,
        tag: str = "",
    ) -> Alert:
        a = Alert(
            code, severity, clause, remedy, seat, self.card_of.get(tag) if tag else None, self.t
        )
        self.out.append(a)
        if self.hand is not None:
            self.hand.alerts.append(a)
        return a

    def instruct(self, text: str, seat: int = 0, tag: str = "") -> None:
        self.out.append(Instruction(text, seat, self.card_of.get(tag) if tag else None, self.t))

    def card_name(self, tag: str) -> str:
        card = self.card_of.get(tag)
        return str(card) if card is not None else f"tag {tag}"

    def live_seated(self) -> frozenset[int]:
        return frozenset(self.live_list())

    def live_list(self) -> list[int]:
        """The seats of :meth:`live_seated`, in the seats' order: a list, for ``len`` and
        ``in`` (a frozenset costs its hashing and table, set at every SetButton)."""
        live = []  # (a loop, not a comprehension: no function object made per call)
        for s, seat in self.seats.items():
            if seat.stack > 0 and seat.status is not _BUSTED:
                live.append(s)
        return live

    def tags_in(self, zone: ZoneKind, seat: int = 0) -> list[str]:
        return [
            t
            for t, (z, s) in self.where.items()
            if z is zone and (zone is not ZoneKind.HOLE or s == seat)
        ]

    def table_clear(self) -> bool:
        return not any(z is not ZoneKind.MUCK for z, _ in self.where.values())

    # ------------------------------------------------------------------ rejection

    def _reject(self, err: TableError) -> Step:
        return Step(self.phase, self.hand_no, (), err)

    # ------------------------------------------------------------------ hand lifecycle

    def finish_hand(self) -> None:
        """The hand is decided: build the record, update stacks and the next positions."""
        h = self.hand
        assert h is not None
        # (the showdown, if any, prompted the show order: showdown.begin)
        rec = records.build(self, h)
        self.last_record = rec
        records.eliminations(self, rec)  # 000-S1-elim-2, 004-TG-27: the finishing order
        out = self.out
        for pot in rec.pots:
            out.append(PotAwarded(pot, self.t))  # the facts (decisions.py)
        for p in h.players.values():
            seat = self.seats.get(p.seat)
            if seat is not None:
                seat.stack = p.stack
                if seat.stack == 0:
                    seat.status = _BUSTED
                    out.append(SeatEliminated(p.seat, seat.player, self.t))
        out.append(records.complete(rec))
        self.enter(Phase.COMPLETE)
        self._advance_positions()
        profile_switch.apply_due(self)  # a profile set during the hand: from the next one

    def _advance_positions(self) -> None:
        # the busted seats leave; the rest with chips are the live seats (live_seated, built
        # in the same pass; a list, not a frozenset: next_positions only asks ``in`` and
        # ``len`` of it, and a frozenset costs its hashing at every hand's end)
        busted = 0
        live: list[int] = []
        seats = self.seats
        for s, seat in seats.items():
            if seat.status is _BUSTED:
                busted += 1
            elif seat.stack > 0:
                live.append(s)
        if busted:
            for s in [s for s, seat in seats.items() if seat.status is _BUSTED]:
                del seats[s]
        if self.positions is not None and len(live) >= 2:
            self.positions = next_positions(self.positions, live, self.profile)
        self.button_set = False

    def void_or_misdeal_cleared(self) -> None:
        """Every dealt card is off the table after a misdeal or a void: ready to re-deal."""
        if self.hand is not None:
            self.misdealt_alerts = tuple(self.hand.alerts)  # they include earlier deals'
        self.hand = None
        self.redeal_pending = True  # G1: same hand number, new deal number
        self.enter(Phase.IDLE)
        self.instruct("Table clear: shuffle and deal again; button and blinds stay")
