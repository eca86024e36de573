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
from dataclasses import dataclass, field
from typing import Any

from controller.rules import misdeal
from controller.rules.cards import Card
from controller.rules.decisions import Decision
from controller.rules.engine import Level, TableCore
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Event,
    Sweep,
    Tick,
    ZoneKind,
)
from controller.rules.hand import Phase
from controller.rules.profile import Profile, builtin_profile, builtin_profile_names
from controller.rules.seating import Positions, Seat, SeatStatus

log = logging.getLogger("railguard.daemon")

START = "_start"
MISDEAL_MARK = "_misdeal"
LIVE = (Phase.DEALING, Phase.BETTING, Phase.BOARD, Phase.MISDEAL, Phase.VOID)
PLAYING = (Phase.DEALING, Phase.BETTING, Phase.BOARD)
_DECODE: dict[str, type[Any]] = {
    c.__name__: c for c in (CardPlaced, CardRemoved, ChipsIn, ChipsOut, Sweep, ButtonPress,
                            BadgeTap, Tick)
}  # fmt: skip


# ---------------------------------------------------------------------------- button


def positions_data(core: TableCore) -> dict[str, Any] | None:
    p = core.positions
    if p is None:
        return None
    return {"button": p.button, "sb": p.sb, "bb": p.bb, "heads_up": p.heads_up,
            "button_set": core.button_set}  # fmt: skip


def apply_positions(core: TableCore, data: Any) -> None:
    if not isinstance(data, dict):
        return
    core.positions = Positions(int(data["button"]), int(data["sb"]), int(data["bb"]),
                               bool(data.get("heads_up", False)))  # fmt: skip
    core.button_set = bool(data.get("button_set", False))


# ---------------------------------------------------------------------------- level state


def _lvl(level: Level | None) -> list[int] | None:
    return None if level is None else [level.small_blind, level.big_blind, level.ante]


def levels_data(core: TableCore) -> dict[str, Any]:
    """The level in force, the pending one and G11's wait (``levels`` between hands)."""
    return {"level": _lvl(core.level), "pending": _lvl(core.pending_level),
            "waits": core.level_waits}  # fmt: skip


def apply_levels(core: TableCore, data: Any, last_set: tuple[int, int, int] | None) -> bool:
    """Restore :func:`levels_data`; only if it already has the last commanded level
    (``last_set``, from the table store), otherwise that newer command is not in it and the
    caller applies the command. False if nothing was restored."""
    if not isinstance(data, dict):
        return False
    try:
        level = Level(*(int(x) for x in data["level"]))
        pend = data.get("pending")
        pending = None if pend is None else Level(*(int(x) for x in pend))
        waits = bool(data.get("waits", False))
    except (KeyError, TypeError, ValueError) as exc:
        log.error("restore: stored level state unreadable (%s); using the last level set", exc)
        return False
    newest = pending or level
    if last_set is not None and (newest.small_blind, newest.big_blind, newest.ante) != last_set:
        return False
    core.level, core.pending_level, core.level_waits = level, pending, waits and bool(pending)
    return True


# ---------------------------------------------------------------------------- the _start record


def capture(core: TableCore, started_at: str) -> dict[str, Any]:
    """The core's table state before a hand's first event (see the module docstring)."""
    lvl, pend = core.level, core.pending_level
    return {
        "type": START,
        "t": core.t,
        "started_at": started_at,
        "profile": core.profile.name,
        "hand_no": core.hand_no,
        "deal_no": core.deal_no,
        "redeal_pending": core.redeal_pending,
        "seats": {str(s): [x.player, x.stack, x.present, x.status.value]
                  for s, x in core.seats.items()},
        "level": [lvl.small_blind, lvl.big_blind, lvl.ante],
        "pending_level": None if pend is None else [pend.small_blind, pend.big_blind, pend.ante],
        "level_waits": core.level_waits,
        "positions": positions_data(core),
        "posted": {str(s): a for s, a in core.posted.items()},
        "presence_posts": sorted(core.presence_posts),
        "dealer": core.dealer,
        "where": {t: [z.value, s] for t, (z, s) in core.where.items()},
        "cards": {t: None if c is None else str(c) for t, c in core.card_of.items()},
    }  # fmt: skip


def restore_start(core: TableCore, d: dict[str, Any], offset: float) -> None:
    core.t = float(d["t"]) + offset
    core.hand_no = int(d["hand_no"])
    core.deal_no = int(d["deal_no"])
    core.redeal_pending = bool(d["redeal_pending"])
    core.seats = {int(s): Seat(str(v[0]), int(v[1]), bool(v[2]), SeatStatus(v[3]))
                  for s, v in d["seats"].items()}  # fmt: skip
    core.level = Level(*(int(x) for x in d["level"]))
    pend = d.get("pending_level")
    core.pending_level = None if pend is None else Level(*(int(x) for x in pend))
    core.level_waits = bool(d.get("level_waits", False)) and core.pending_level is not None
    core.positions = None
    apply_positions(core, d.get("positions"))
    core.posted = {int(s): int(a) for s, a in d["posted"].items()}
    core.presence_posts = {int(s) for s in d.get("presence_posts", ()) if int(s) in core.posted}
    core.dealer = str(d.get("dealer", ""))
    core.where = {t: (ZoneKind(z), int(s)) for t, (z, s) in d.get("where", {}).items()}
    core.card_of = {t: None if c is None else Card.parse(c) for t, c in d.get("cards", {}).items()}
    core.hand = None
    core.enter(Phase.IDLE)


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


# ---------------------------------------------------------------------------- events


def decode_event(d: dict[str, Any], offset: float = 0.0) -> Event:
    """The inverse of :func:`controller.daemon.translate.encode_event` (physical events)."""
    cls = _DECODE.get(str(d.get("type")))
    if cls is None:
        raise ValueError(f"hand log: unknown event type {d.get('type')!r}")
    kw = {k: v for k, v in d.items() if k != "type"}
    kw["t"] = float(kw["t"]) + offset
    if "zone" in kw:
        kw["zone"] = ZoneKind(kw["zone"])
    if "card" in kw:
        kw["card"] = None if kw["card"] is None else Card.parse(kw["card"])
    if "button" in kw:
        kw["button"] = ConsoleButton(kw["button"])
    if "chips" in kw:
        kw["chips"] = tuple(kw["chips"])
    ev: Event = cls(**kw)
    return ev


def rule_misdeal(core: TableCore) -> bool:
    """A hand cut by a restart is a misdeal (profile ``interrupted_hand = "misdeal"``):
    stacks as before the hand, blinds stay posted, cards to be gathered, then the same hand
    number is dealt again. False if no hand was being played."""
    if core.hand is None or core.phase not in PLAYING:
        return False
    saved = list(core.out)
    misdeal.force_misdeal(core)
    core.out = saved  # the daemon raises its own HAND_INTERRUPTED alert
    if core.table_clear():
        core.void_or_misdeal_cleared()
    return True


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
        except (ValueError, TypeError, KeyError) as exc:
            log.error("hand=%s replay: entry skipped: %s", hand_id or core.hand_no, exc)
            out.rejected += 1
            continue
        if ev.t < core.t:
            ev = _at(ev, core.t)
        step = core.handle(ev)
        out.events += 1
        if step.rejected is not None:
            out.rejected += 1
            log.warning("hand=%s replay: %s rejected: %s", hand_id or core.hand_no,
                        type(ev).__name__,
                        step.rejected)  # fmt: skip
        out.decisions.extend(step.decisions)
    return out


def _at(ev: Event, t: float) -> Event:
    from dataclasses import replace

    return replace(ev, t=t)


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
