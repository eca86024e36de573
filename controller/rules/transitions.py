"""The transition table: every phase, the events it accepts, the handler of each and the
phases that event may lead to (in the manner of h11's ``_state.py``).

:meth:`TableCore.handle <controller.rules.engine.TableCore.handle>` looks the event's class
up in the current phase's row: an event the row does not name is rejected (``not_now``) with
the state unchanged; otherwise its handler runs, and :meth:`TableCore.enter` refuses
(:class:`~controller.rules.errors.LocalError`) a phase change that the row does not list
for that event. Before any event, the time that passed may run a player's clock out
(:data:`CLOCK`). ``docs/architecture.md`` shows the same table as a diagram
(``tests/rules/test_transitions.py`` checks that it is the one :func:`mermaid` draws).

The targets were read off the rule modules' calls to ``enter`` (a static call graph, kept
generous: a change the table lists need not happen, a change it lacks must never be
needed) and checked against every change seen in the rules, scenario and property tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from controller.rules import handlers as h
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
from controller.rules.phases import Phase

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
    tuple, compared with ``is``: hashing an Enum member is a Python-level call)."""

    handler: Handler
    targets: tuple[Phase, ...]


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

# Before any event: a player on the clock whose time ran out is folded (002 Clock), which
# may close the round or the hand. Only a betting round runs a clock.
CLOCK: Final[dict[Phase, tuple[Phase, ...]]] = dict.fromkeys(Phase, ()) | {
    BETTING: (BOARD, SHOWDOWN, COMPLETE)
}


def _row(phase: Phase) -> dict[type, Transition]:
    return {kind: Transition(HANDLERS[kind], to) for kind, to in TARGETS[phase].items()}


TRANSITIONS: Final[dict[Phase, dict[type, Transition]]] = {p: _row(p) for p in Phase}

# For TableCore: the rows as a tuple in Phase order, found by identity (not by hashing).
PHASES: Final[tuple[Phase, ...]] = tuple(Phase)
ROWS: Final[tuple[dict[type, Transition], ...]] = tuple(TRANSITIONS[p] for p in PHASES)
CLOCK_ROWS: Final[tuple[tuple[Phase, ...], ...]] = tuple(CLOCK[p] for p in PHASES)


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
