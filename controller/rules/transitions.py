"""The transition table: every phase, the events it accepts, the handler of each and the
phases that event may lead to (in the manner of h11's ``_state.py``).

:meth:`TableCore.handle <controller.rules.engine.TableCore.handle>` looks the event's class
up in the current phase's row: an event the row does not name is rejected (``not_now``) with
the state unchanged; otherwise its handler runs, and :meth:`TableCore.enter` refuses
(:class:`~controller.rules.errors.LocalError`) a phase change that the row does not list
for that event. Before any event, the time that passed may run a player's clock out
(:data:`CLOCK`). ``docs/architecture.md`` shows the same table as a diagram
(``tests/rules/test_transitions.py`` checks that it is the one :func:`mermaid` draws).

A hand being played has sub-states beside its phase (``phases.py``: the floor's hold, the
player's clock, the dealer's misdeal call, the burn debt; the big blind's option, derived).
They are rows of the same table (:data:`SUBSTATES`, as h11 keeps its state-triggered
transitions in its table): per sub-state, what may change it (an event kind, or
:data:`TIME`: the clock run before any event) and to which sub-states;
:meth:`TableCore.shift <controller.rules.engine.TableCore.shift>`, through which the owner
modules write them, refuses (``LocalError``) a change the row does not list for the event
handled. :data:`DIVERTS` lists, per sub-state, the events it takes before (or instead of)
the phase's handling, and the function that does.

The targets were read off the rule modules' calls to ``enter`` (a static call graph, kept
generous: a change the table lists need not happen, a change it lacks must never be
needed) and checked against every change seen in the rules, scenario and property tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from controller.rules import bb_option, board, floor, misdeal, retrieve
from controller.rules import handlers as h
from controller.rules.betting import clock_tick
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    Declare,
    HoldDeal,
    Interrupted,
    MovePlayer,
    ReleaseDeal,
    SeatPlayer,
    SetButton,
    SetDealer,
    SetLevel,
    SetPresence,
    SetProfile,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
)
from controller.rules.phases import (
    BigBlindOption,
    BurnDebt,
    ClockState,
    FloorHold,
    MisdealCall,
    MisdealWindowState,
    Phase,
    SubState,
)

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

Handler = Callable[["TableCore", Any], None]

IDLE, DRAW, DEALING, BETTING, BOARD, SHOWDOWN, COMPLETE, MISDEAL, VOID = (
    Phase.IDLE, Phase.DRAW, Phase.DEALING, Phase.BETTING, Phase.BOARD, Phase.SHOWDOWN,
    Phase.COMPLETE, Phase.MISDEAL, Phase.VOID,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Transition:
    """One cell: the handler of an event in a phase, and the phases it may lead to (a
    tuple, compared with ``is``: hashing an Enum member is a Python-level call); ``kind``:
    the event's class (``CLOCK``'s cells: the fact :data:`TIME`), for the sub-state rows."""

    handler: Handler
    targets: tuple[Phase, ...]
    kind: type | str = ""


# The handler of each event kind (the same in every phase that accepts it).
HANDLERS: Final[dict[type, Handler]] = {
    CardPlaced: h.card_placed,
    CardRemoved: h.card_removed,
    ChipsIn: h.chips_in,
    ChipsOut: h.chips_out,
    Sweep: h.sweep,
    ButtonPress: h.button,
    BadgeTap: h.badge,
    Tick: h.tick,
    SeatPlayer: h.seat_player,
    MovePlayer: h.move_player,
    UnseatPlayer: h.unseat_player,
    SetPresence: h.set_presence,
    SetLevel: h.set_level,
    SetProfile: h.set_profile,
    SetDealer: h.set_dealer,
    SetButton: h.set_button,
    StartButtonDraw: h.start_draw,
    Interrupted: h.interrupted,
    Declare: h.declare,
    HoldDeal: h.hold_deal,
    ReleaseDeal: h.release_deal,
}

# Table management: accepted in every phase, never changes it (a seat in the hand is
# refused by the handler).
_TABLE: Final[dict[type, tuple[Phase, ...]]] = {
    SeatPlayer: (), MovePlayer: (), UnseatPlayer: (), SetPresence: (), SetLevel: (),
    SetDealer: (), Tick: (), HoldDeal: (), ReleaseDeal: (),  # hand-for-hand (handforhand.py)
    SetProfile: (),  # applied between hands, else held for the next (profile_switch.py)
}  # fmt: skip
# A hand being played (dealing, betting, board): what each physical event may lead to.
_PLAYING: Final[dict[type, tuple[Phase, ...]]] = {
    # the deal completes (betting opens; all-in or one player left: board or complete), a
    # misdeal or a void, re-dealt at once when no card is left on the table
    # (the last round closed with hands left to show: the showdown)
    CardPlaced: (BETTING, BOARD, SHOWDOWN, COMPLETE, MISDEAL, VOID, IDLE),
    # a card dealt without a burn is taken back before any action on it (board.py): its
    # street is dealt again from the burn; the director holds aside the drawn burn of a
    # four-card flop (002 b): the flop is dealt
    CardRemoved: (BETTING, BOARD, SHOWDOWN, COMPLETE),
    # a bet closes the round or the hand; during the deal it may open the betting, or be
    # the action that a misdeal (cleared at once) comes after
    ChipsIn: (BETTING, BOARD, SHOWDOWN, COMPLETE, MISDEAL, IDLE),
    ChipsOut: (),
    Sweep: (BOARD, SHOWDOWN, COMPLETE),  # the round, or the hand, closes on the sweep
    # exposed/boxed cards and the misdeal button (misdeal, or refused and the deal plays
    # on), ACK confirms a check
    ButtonPress: (BETTING, BOARD, SHOWDOWN, COMPLETE, MISDEAL, IDLE),
    BadgeTap: (MISDEAL,),  # a supervisor authorises a disputed misdeal
    Interrupted: (MISDEAL, IDLE),  # a restart cut the hand (interrupted_hand = "misdeal")
    # a verbal declaration (wagers.py): a fold or check may close the round or the hand;
    # during the deal it opens the betting (or finds the deal short, as chips do)
    Declare: (BETTING, BOARD, SHOWDOWN, COMPLETE, MISDEAL, IDLE),
}
# The showdown (showdown.py): ACK tables the prompted seat's hand, hole cards on the muck
# muck it; once every hand is tabled or mucked (and, where the profile says, every losing
# hand killed) the pot is awarded.
_SHOWDOWN: Final[dict[type, tuple[Phase, ...]]] = {
    CardPlaced: (COMPLETE,),
    CardRemoved: (),
    ChipsIn: (), ChipsOut: (), Sweep: (),
    ButtonPress: (COMPLETE,),
    BadgeTap: (),
    Declare: (),  # 004 AR-6: "I play the board", before the cards are thrown away
    Interrupted: (MISDEAL, IDLE),
}  # fmt: skip
# A hand over, misdealt or void: its cards are being cleared; the next hole card deals.
_CLEARING: Final[dict[type, tuple[Phase, ...]]] = {
    CardPlaced: (DEALING, MISDEAL, VOID, IDLE),  # a new deal (or the last card mucked)
    CardRemoved: (IDLE,),  # the table is clear
    ChipsIn: (), ChipsOut: (), Sweep: (), ButtonPress: (), BadgeTap: (),  # posts for the next
}  # fmt: skip

TARGETS: Final[dict[Phase, dict[type, tuple[Phase, ...]]]] = {
    IDLE: {
        **_TABLE,
        CardPlaced: (DEALING, MISDEAL, VOID),  # a hole card starts the hand
        CardRemoved: (),
        ChipsIn: (),
        ChipsOut: (),
        Sweep: (),
        ButtonPress: (),
        BadgeTap: (),
        SetButton: (),
        StartButtonDraw: (DRAW,),
    },
    DRAW: {
        **_TABLE,
        CardPlaced: (IDLE,),  # the button is drawn (and the table clear)
        CardRemoved: (IDLE,),  # the draw's cards are collected
        ButtonPress: (),
        BadgeTap: (),
    },
    DEALING: {**_TABLE, **_PLAYING},
    BETTING: {**_TABLE, **_PLAYING},
    BOARD: {**_TABLE, **_PLAYING},
    SHOWDOWN: {**_TABLE, **_SHOWDOWN},
    COMPLETE: {**_TABLE, **_CLEARING, SetButton: ()},
    MISDEAL: {**_TABLE, **_CLEARING},
    VOID: {**_TABLE, **_CLEARING},
}

# The fact that triggers the clock's transitions: the time passed, run before any event.
TIME: Final = "time"

# Before any event: a player on the clock whose time ran out is folded (002 Clock), which
# may close the round or the hand. Only a betting round runs a clock.
CLOCK: Final[dict[Phase, tuple[Phase, ...]]] = dict.fromkeys(Phase, ()) | {
    BETTING: (BOARD, SHOWDOWN, COMPLETE)
}


# ---------------------------------------------------------------------------- sub-states
# Each stored sub-state: trigger (an event kind, or TIME) -> the sub-states it may lead to
# (read off the owners' ``shift`` calls, as the phases' targets are off ``enter``, and kept
# generous the same way; tests/rules/test_transitions.py compares). A new hand starts every
# machine in its first state (``Hand.__init__``): that is no transition.
NO_HOLD, HELD, RULING, OOT_RULING = (
    FloorHold.NONE, FloorHold.HELD, FloorHold.RULING, FloorHold.OOT_RULING,
)  # fmt: skip
OFF, RUNNING, COUNTDOWN = ClockState.OFF, ClockState.RUNNING, ClockState.COUNTDOWN

Trigger = type | str
SubRow = dict[Trigger, tuple[SubState, ...]]

# a betting round's action or its close (the kinds that reach ``clock.stop`` and the
# board standing after an action on it, ``rounds.record``)
_ACTING: Final[tuple[Trigger, ...]] = (
    CardPlaced, CardRemoved, ChipsIn, Sweep, ButtonPress, Declare, TIME,
)  # fmt: skip


def _each(triggers: tuple[Trigger, ...], targets: tuple[SubState, ...]) -> SubRow:
    return dict.fromkeys(triggers, targets)


SUBSTATES: Final[dict[SubState, SubRow]] = {
    # the floor's hold (floor.py, retrieve.py): called by the deal's errors (floor.call:
    # CardPlaced; a deal ended by chips or a declaration), FLOOR after a fold or a hand killed
    # with its bet uncalled (retrieve.py); a supervisor's badge; the ruling (MISDEAL, ACK,
    # FLOOR) releases it. The badge tapped for an action out of turn (floor.oot_badge) is
    # taken by its ruling (floor.oot_ruled: ACK, or a check declared) or by a new hold.
    NO_HOLD: {CardPlaced: (HELD,), ChipsIn: (HELD,), ButtonPress: (HELD,), Declare: (HELD,),
              BadgeTap: (OOT_RULING,)},
    HELD: {BadgeTap: (RULING,), ButtonPress: (NO_HOLD,)},
    RULING: _each(_ACTING, (HELD,)) | {ButtonPress: (NO_HOLD, HELD)},
    OOT_RULING: _each(_ACTING, (NO_HOLD, HELD)),
    # the clock (clock.py): started by CLOCK; the deadline, then the countdown run out (TIME,
    # before any event); stopped when the seat acts, its hand is dead or the round closes
    OFF: {ButtonPress: (RUNNING,)},
    RUNNING: _each(_ACTING, (OFF,)) | {TIME: (COUNTDOWN, OFF)},
    COUNTDOWN: _each(_ACTING, (OFF,)) | {ButtonPress: (RUNNING, OFF)},
    # the dealer's MISDEAL (misdeal.py): a misdeal if the window is open, else disputed until
    # the hand ends (a supervisor's badge may rule it: DIVERTS)
    MisdealCall.NONE: {ButtonPress: (MisdealCall.CALLED,)},
    MisdealCall.CALLED: {},
    # the misdeal window (misdeal.window, the profile's misdeal_window): derived, not stored
    # (tests/rules/test_transitions.py checks the changes seen in real hands). Open from the
    # deal's first card; closed by the actions it counts (chips, cards on the muck, a check
    # by ACK or declared, checks inferred by a sweep or a burn), the flop, the hand's end
    # (a misdeal, a void, the last fold, an interrupted hand); opened again when actions it
    # counted are struck (a retrieved fold: ACK; "not a check": a declaration)
    MisdealWindowState.CLOSED: _each((CardPlaced, ButtonPress, Declare),
                                     (MisdealWindowState.OPEN,)),
    MisdealWindowState.OPEN: _each((*_ACTING, Interrupted, BadgeTap),
                                   (MisdealWindowState.CLOSED,)),
    # the burn debt (board.py; rounds.record): a card dealt without a burn stood (000
    # irreg-12b), by the next street's burn or by an action on it; paid when the street is
    # dealt (a board card, or a card taken back that completes it)
    BurnDebt.NONE: _each(_ACTING, (BurnDebt.OWED,)),
    BurnDebt.OWED: {CardPlaced: (BurnDebt.NONE,), CardRemoved: (BurnDebt.NONE,)},
    # the big blind's option (bb_option.py, bb_option_ack): derived, not stored (nothing
    # shifts it; tests/rules/test_transitions.py checks the changes seen in real hands):
    # open when the pre-flop round opens with nobody raising (the deal's end) or the action
    # comes back to him unraised; closed by his action (chips, ACK, a declaration), a raise,
    # the round's close or the hand's end
    BigBlindOption.CLOSED: _each((CardPlaced, ChipsIn, ButtonPress, Declare),
                                 (BigBlindOption.OPEN,)),
    BigBlindOption.OPEN: _each((*_ACTING, Interrupted), (BigBlindOption.CLOSED,)),
}  # fmt: skip
# the machines, each with its first state and the type of its states
MACHINES: Final[tuple[tuple[str, SubState], ...]] = (
    ("floor hold", FloorHold.NONE),
    ("clock", ClockState.OFF),
    ("misdeal call", MisdealCall.NONE),
    ("misdeal window", MisdealWindowState.CLOSED),
    ("burn debt", BurnDebt.NONE),
    ("big blind's option", BigBlindOption.CLOSED),
)

# Per sub-state: the events it takes before (or instead of) the phase's handling, and the
# functions of its owner that do (the kind's handler calls them: checked in the tests). A
# player on the clock: every event runs the clock first (betting.clock_tick, TIME). No
# sub-state refuses an event kind the phase accepts (the hold makes MISDEAL and ACK wait for
# the badge, with an instruction, and flags chips; it rejects neither).
_Divert = tuple[Callable[..., object], ...]
DIVERTS: Final[dict[SubState, dict[type, _Divert]]] = {
    # MISDEAL and ACK (a hold for a folded hand: ACK retrieves it, FLOOR the fold stands,
    # retrieve.py) wait for the badge, then rule; chips are flagged FLOOR_PENDING and taken
    HELD: {ButtonPress: (floor.button, retrieve.button), BadgeTap: (floor.badge, retrieve.badge),
           ChipsIn: (floor.chips_held,)},
    RULING: {ButtonPress: (floor.button, retrieve.button), BadgeTap: (floor.badge, retrieve.badge),
             ChipsIn: (floor.chips_held,)},  # (a badge tapped again replaces the first)
    OOT_RULING: {ButtonPress: (floor.oot_ruled,)},  # ACK: the action out of turn stands
    # a supervisor's badge authorises the disputed misdeal
    MisdealCall.CALLED: {BadgeTap: (misdeal.force_misdeal,)},
    # the dealer's MISDEAL, and a misdeal's cause in the deal, are a misdeal (closed: refused,
    # MISDEAL_REFUSED, and the hand plays on)
    MisdealWindowState.OPEN: {ButtonPress: (misdeal.misdeal_pressed,),
                              CardPlaced: (misdeal.misdeal_condition,)},
    # the coming street's burns: 1 + the debt (a second burn is not a double burn)
    BurnDebt.OWED: {CardPlaced: (board.on_burn,)},
    # the sweep keeps the pre-flop round open; a burn is ACTION_PENDING, a flop PREMATURE_FLOP
    BigBlindOption.OPEN: {Sweep: (bb_option.sweep_held,), CardPlaced: (board.on_burn,)},
}  # fmt: skip


def _row(phase: Phase) -> dict[type, Transition]:
    return {kind: Transition(HANDLERS[kind], to, kind) for kind, to in TARGETS[phase].items()}


TRANSITIONS: Final[dict[Phase, dict[type, Transition]]] = {p: _row(p) for p in Phase}

# For TableCore: the rows as a tuple in Phase order, found by identity (not by hashing).
PHASES: Final[tuple[Phase, ...]] = tuple(Phase)
ROWS: Final[tuple[dict[type, Transition], ...]] = tuple(TRANSITIONS[p] for p in PHASES)
CLOCK_ROWS: Final[tuple[Transition, ...]] = tuple(
    Transition(clock_tick, CLOCK[p], TIME) for p in PHASES
)
# outside any event (TableCore._tr): no phase or sub-state may change
NO_EVENT: Final = Transition(h.tick, (), "")


def edges() -> dict[tuple[Phase, Phase], list[str]]:
    """(from, to) -> the event kinds (and ``clock``) that may change the phase so."""
    out: dict[tuple[Phase, Phase], list[str]] = {}
    for p in PHASES:
        for kind, tr in TRANSITIONS[p].items():
            for to in tr.targets:
                if to is not p:
                    out.setdefault((p, to), []).append(kind.__name__)
        for to in CLOCK[p]:
            out.setdefault((p, to), []).append("clock")
    return out


def mermaid() -> str:
    """The phase diagram (mermaid ``stateDiagram-v2``), as in docs/architecture.md."""
    lines = ["stateDiagram-v2", "    [*] --> idle"]
    for (a, b), kinds in edges().items():
        lines.append(f"    {a.value} --> {b.value}: {', '.join(kinds)}")
    return "\n".join(lines)


def _qual(f: Callable[..., object]) -> str:
    return f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}"


def _name(trigger: Trigger) -> str:
    return trigger if isinstance(trigger, str) else trigger.__name__


def sub_edges(first: SubState) -> dict[tuple[SubState, SubState], list[str]]:
    """(from, to) -> the triggers that may change ``first``'s machine so."""
    out: dict[tuple[SubState, SubState], list[str]] = {}
    for state in type(first):
        for trigger, targets in SUBSTATES[state].items():
            for to in targets:
                if to is not state:
                    out.setdefault((state, to), []).append(_name(trigger))
    return out


def sub_mermaid(first: SubState) -> str:
    """The diagram of one sub-state machine (``first``: its first state), as in
    docs/architecture.md."""

    def v(s: SubState) -> str:
        return s.name.lower()

    lines = ["stateDiagram-v2", f"    [*] --> {v(first)}"]
    for (a, b), triggers in sub_edges(first).items():
        lines.append(f"    {v(a)} --> {v(b)}: {', '.join(triggers)}")
    for state in type(first):
        diverted = DIVERTS.get(state, {})
        if diverted:
            taken = "; ".join(f"{k.__name__} ({', '.join(_qual(f) for f in fs)})"
                              for k, fs in diverted.items())  # fmt: skip
            lines.append(f"    note right of {v(state)}: takes {taken}")
    return "\n".join(lines)
