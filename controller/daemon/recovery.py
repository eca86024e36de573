"""Restart recovery: what the daemon writes so that a ``kill -9`` or a power cut mid-hand
loses nothing, and how it rebuilds the table from it.

- Between hands the button position (``positions``) and the core's level state
  (``levels``: the level in force, a pending one and whether it waits one more hand, G11)
  are table-store values next to the seating, stacks, last commanded level, hand counter and
  decks. Chips already in the betting zones (``posted``) are read again from the board.
- When a hand starts, a ``_start`` record (the core's table state just before the first
  card: seats with their status, level state, positions, posted blinds and which of them
  were sensed by presence only, deal numbers, dealer, profile, wall-clock start) is the
  first entry of the hand's event log; every physical event of the hand follows
  (``TableStore.append_hand_event``, ``synchronous=FULL``).
- On start, :func:`replay_hand` rebuilds that hand in a fresh core (times shifted to the
  new monotonic clock). The profile's ``interrupted_hand`` decides what follows: ``resume``
  plays on; ``misdeal`` rules a misdeal (a ``_misdeal`` marker is appended so that a
  second restart replays the same ruling), the cards are gathered and the same hand
  number is dealt again (G1).
- :class:`Reconciler` sits between the reader and the core for the first scan cycles
  after a start, counted from the first complete snapshot (every mapped antenna reported;
  a ``changes_only`` board is asked for one with GET_SNAPSHOT): the board reports every
  tag on the table as newly placed; tags the core
  already has where they are dropped, chips already counted are dropped, cards of a
  finished hand are ignored until they move, and tags the core has that the board no
  longer sees become removals.

Hole cards are in the event log: it stays on the table's own disk (``table.db``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from controller.rules import handlog
from controller.rules.decisions import Decision
from controller.rules.engine import TableCore
from controller.rules.events import (
    CardPlaced,
    CardRemoved,
    ChipsIn,
    Event,
    Interrupted,
    Sweep,
    ZoneKind,
)
from controller.rules.handlog import MISDEAL_MARK, START, HandLogError, decode_event
from controller.rules.phases import Phase
from controller.rules.profile import Profile, builtin_profile, builtin_profile_names

log = logging.getLogger("railguard.daemon")

__all__ = ["MISDEAL_MARK", "START", "decode_event"]

LIVE = (Phase.DEALING, Phase.BETTING, Phase.BOARD, Phase.MISDEAL, Phase.VOID)
PLAYING = (Phase.DEALING, Phase.BETTING, Phase.BOARD)


# ---------------------------------------------------------------------------- between hands
# (the codec is the core's, controller/rules/handlog.py; the core changes only through
# TableCore.handle and TableCore.restore)


def positions_data(core: TableCore) -> dict[str, Any] | None:
    return handlog.encode_positions(core.positions, core.button_set)


def apply_positions(core: TableCore, data: Any) -> None:
    try:
        core.restore(handlog.with_positions(core.export(), data))
    except HandLogError as exc:
        log.error("restore: %s; the button is placed again", exc)


def seating_data(core: TableCore) -> tuple[tuple[int, str, str, int], ...]:
    """The seats as the core holds them: (seat, player, name, stack), in seat order (the
    table store's ``seats``; a stack is the one behind the player between hands, the one
    the hand in play started with during it)."""
    return tuple(sorted((n, s.player, s.name, s.stack) for n, s in core.seats.items()))


def levels_data(core: TableCore) -> dict[str, Any]:
    """The level in force, the pending one and G11's wait (``levels`` between hands)."""
    return handlog.encode_levels(core.level, core.pending_level, core.level_waits)


def apply_levels(core: TableCore, data: Any) -> bool:
    """Restore :func:`levels_data` (written after every accepted event that changed it, so
    it holds the last level set). False if nothing was restored."""
    try:
        restored = handlog.with_levels(core.export(), data)
    except HandLogError as exc:
        log.error("restore: %s; the level is set again by the venue", exc)
        return False
    if restored is None:
        return False
    core.restore(restored)
    return True


# ---------------------------------------------------------------------------- the _start record


def capture(core: TableCore, started_at: str) -> dict[str, Any]:
    """The core's table state before a hand's first event (see the module docstring)."""
    return handlog.encode_start(core.export(), started_at)


def restore_start(core: TableCore, d: dict[str, Any], offset: float) -> None:
    core.restore(handlog.decode_start(core.export(), d, offset))


def profile_named(name: str, fallback: Profile) -> Profile:
    if name == fallback.name or name not in builtin_profile_names():
        return fallback
    return builtin_profile(name)


def interrupted_remedy(hand_no: int, outcome: str) -> str:
    """What the HAND_INTERRUPTED alert tells the dealer to do."""
    if outcome == "misdeal":
        return (f"Hand {hand_no} was in progress when the table controller restarted:"
                " misdeal (house rule). Gather every card; stacks are as before the"
                " hand, the blinds stay; deal the hand again")  # fmt: skip
    if outcome == "resume":
        return (f"Hand {hand_no} was in progress when the table controller restarted:"
                " it plays on (house rule) from where it was; check the table"
                " against the live state")  # fmt: skip
    return (f"Hand {hand_no} was being cleared ({outcome}) when the table"
            " controller restarted: gather every card, then deal again")  # fmt: skip


# ---------------------------------------------------------------------------- replay


def rule_misdeal(core: TableCore) -> bool:
    """A hand cut by a restart is a misdeal (profile ``interrupted_hand = "misdeal"``),
    ruled by the core (:class:`~controller.rules.events.Interrupted`); its decisions are
    dropped: the daemon raises its own HAND_INTERRUPTED alert. False if no hand was being
    played."""
    return core.handle(Interrupted(core.t)).rejected is None


@dataclass
class Replayed:
    events: int = 0
    rejected: int = 0
    decisions: list[Decision] = field(default_factory=list)
    started_at: str = ""
    had_start: bool = False


def replay_hand(
    core: TableCore, log_entries: list[dict[str, Any]], now: float, hand_id: str = ""
) -> Replayed:
    """Feed a stored hand log into ``core`` with times shifted to end at ``now``
    (``hand_id`` names the hand in log lines)."""
    out = Replayed()
    times = [float(d["t"]) for d in log_entries if "t" in d]
    offset = now - max(times) if times else 0.0
    for d in log_entries:
        kind = d.get("type")
        if kind == START:
            restore_start(core, d, offset)
            out.started_at = str(d.get("started_at", ""))
            out.had_start = True
            continue
        if kind == MISDEAL_MARK:
            rule_misdeal(core)
            continue
        try:
            ev = decode_event(d, offset)
        except HandLogError as exc:
            log.error("hand=%s replay: entry skipped: %s", hand_id or core.hand_no, exc)
            out.rejected += 1
            continue
        if ev.t < core.t:
            ev = replace(ev, t=core.t)
        step = core.handle(ev)
        out.events += 1
        if step.rejected is not None:
            out.rejected += 1
            log.warning("hand=%s replay: %s rejected: %s", hand_id or core.hand_no,
                        type(ev).__name__,
                        step.rejected)  # fmt: skip
        out.decisions.extend(step.decisions)
    return out


# ---------------------------------------------------------------------------- reconciliation


class Reconciler:
    """Filters reader events during the first cycles after a start (module docstring).

    The window opens once every mapped antenna has reported since the start (a complete
    snapshot: with ``changes_only`` the daemon asks for one with GET_SNAPSHOT when the board
    comes online), or ``patience`` seconds after the first frame if some antenna never
    reports (a dead antenna: its tags count as gone). From there it runs ``debounce + 1``
    scan cycles in which re-read tags are matched against the core, then ``removal`` more
    before the tags the board no longer sees become removals. With ``hold`` (a
    ``changes_only`` board: an antenna without a frame is unchanged) the cycles after the
    matching part also count by elapsed scan periods, since a quiet board sends no frames.
    """

    def __init__(
        self, core: TableCore, *, hand_restored: bool, debounce: int, removal: int,
        antennas: Iterable[int] = (), period: float = 0.05, hold: bool = False,
        patience: float = 1.0,
    ) -> None:  # fmt: skip
        self.known: dict[str, tuple[ZoneKind, int]] = dict(core.where)
        self.hand_restored = hand_restored
        self.initial_cycles = debounce + 1  # the board's first report of what lies there
        self.cycles = debounce + removal + 1
        self.period = period
        self.hold = hold
        self.patience = patience
        self.initial = True
        self.waiting: set[int] = set(antennas)  # mapped antennas not reported since the start
        self.first_frame: float | None = None
        self.start: tuple[int, float] | None = None  # tracker cycles and time of completeness
        self.seen: set[str] = set()
        self.stale: set[str] = set()
        self.active = True
        self.dropped = 0

    @property
    def pending(self) -> bool:
        """Frames have come and the window is not closed yet: the caller must keep calling
        :meth:`cycle` even while the board is quiet."""
        return self.active and self.first_frame is not None

    def board_antennas(self, count: int) -> None:
        """The board has ``count`` antennas: mapped ones beyond it will never report."""
        self.waiting = {a for a in self.waiting if a < count}

    def reported(self, antenna: int, cycles: int, t: float) -> None:
        """A frame for ``antenna`` was fed to the tracker (``cycles`` processed so far)."""
        if not self.active or self.start is not None:
            return
        if self.first_frame is None:
            self.first_frame = t
        self.waiting.discard(antenna)
        if not self.waiting:
            self.start = (cycles, t)

    def filter(self, events: list[Event]) -> list[Event]:
        out: list[Event] = []
        for e in events:
            if isinstance(e, CardPlaced):
                where = (e.zone, e.seat if e.zone is ZoneKind.HOLE else 0)
                if self.initial and self.known.get(e.tag) == where:
                    self.seen.add(e.tag)
                    self.dropped += 1
                    continue
                if self.initial and not self.hand_restored and e.tag not in self.known:
                    self.stale.add(e.tag)  # a card of a finished hand: ignored until moved
                    self.dropped += 1
                    continue
                if e.tag in self.stale:
                    self.stale.discard(e.tag)
                    if e.zone is not ZoneKind.HOLE:
                        continue  # gathered into the muck or the stub: still not in play
            elif isinstance(e, CardRemoved) and e.tag in self.stale:
                self.stale.discard(e.tag)
                continue
            elif isinstance(e, ChipsIn | Sweep) and self.initial and self.hand_restored:
                self.dropped += 1
                continue  # chips already counted by the replay
            out.append(e)
        return out

    def cycle(self, cycles: int, t: float) -> list[Event]:
        """Called after each scan cycle and, while :attr:`pending`, every scan period; at the
        end of the window, the removals of tags the board no longer sees (cards moved or
        taken while the controller was down)."""
        if not self.active or self.first_frame is None:
            return []
        if self.start is None:
            if t - self.first_frame < self.patience:
                return []
            log.warning("restart reconciliation: antennas %s never reported; their tags "
                        "count as gone", sorted(self.waiting))  # fmt: skip
            self.start = (cycles, t)
        first, t0 = self.start
        n = cycles - first
        if n >= self.initial_cycles:
            self.initial = False
            if self.hold:  # every re-read tag is confirmed; quiet periods are unchanged cycles
                n = max(n, int((t - t0) / self.period))
        if n < self.cycles:
            return []
        self.active = False
        gone = [CardRemoved(t, z, tag, s) for tag, (z, s) in sorted(self.known.items())
                if tag not in self.seen]  # fmt: skip
        log.info("restart reconciliation: %d re-read tags dropped, %d cards gone, %d stale",
                 self.dropped, len(gone), len(self.stale))  # fmt: skip
        return list(gone)
