"""What the system replay's run (``controller.replay_system``) and its table processes
(``table``, ``worker``) share: the compressed pace, a hand in flight, the result of a hand
that failed, and a profile's copy with the antes a recorded hand used. Below both: it
imports neither."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from controller.replay import ReplayResult
from controller.rules.profile import AnteStyle
from hwsim.inject import Injection
from hwsim.phh import HandHistory

REAL_SCAN_MS = 50.0  # the board's scan period at real speed (the daemon's default)
MIN_SCAN_MS = 10  # the fastest scan the daemon configures


@dataclass(frozen=True, slots=True)
class Pace:
    """Compressed time: the board's scan, the debounce and the dealer's pace, scaled."""

    scan_ms: int
    debounce_cycles: int
    removal_cycles: int
    sensor_settle_s: float
    button_debounce_s: float
    pitch_s: float  # the dealer's pause between two physical actions

    @classmethod
    def of(cls, speed: float) -> Pace:
        """``speed`` times real dealing; 0 or less: as fast as the pipeline keeps up."""
        if speed <= 0:
            return cls(MIN_SCAN_MS, 1, 1, 0.02, 0.01, 0.0)
        ideal = REAL_SCAN_MS / speed
        scan = max(MIN_SCAN_MS, round(ideal))
        factor = min(1.0, ideal / scan)  # below the fastest scan, fewer cycles instead
        return cls(
            scan,
            max(1, round(2 * factor)),
            max(1, round(3 * factor)),
            max(0.02, 0.15 / speed),
            max(0.01, 0.03 / speed),
            0.3 / speed,
        )


@dataclass
class Pending:
    """A hand dealt whose record has not come back over MQTT yet."""

    index: int  # in the run: results are printed in this order
    name: str
    hh: HandHistory | None  # None: a file with no hand (result known at once)
    seats: tuple[int, ...]
    hand_no: int
    inj: Injection | None
    result: ReplayResult | None = None  # set when the record arrived (or the hand failed)


def profile_variant(profile: str, style: AnteStyle, where: Path) -> str:
    """A TOML copy of ``profile`` whose antes follow ``style`` (a hand recorded with them)
    and are not capped (``max_ante_big_blinds``: a recorded structure's ante is what it was,
    e.g. WSOP 2023 #43's big blind ante of 1.5 big blinds)."""
    if profile.endswith(".toml") or "/" in profile:
        text = Path(profile).read_text(encoding="utf-8")
    else:
        res = resources.files("controller.rules") / "profiles" / f"{profile}.toml"
        text = res.read_text(encoding="utf-8")
    line = f'ante_style = "{style.value}"'
    text, n = re.subn(r"(?m)^ante_style\s*=.*$", line, text)
    if not n:
        text = text.replace("[profile]", f"[profile]\n{line}", 1)
    cap = "max_ante_big_blinds = 1000.0"
    text, n = re.subn(r"(?m)^max_ante_big_blinds\s*=.*$", cap, text)
    if not n:
        text = text.replace("[profile]", f"[profile]\n{cap}", 1)
    path = where / f"profile-antes-{style.value}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def failed_result(
    name: str, hh: HandHistory, error: str, inj: Injection | None = None
) -> ReplayResult:
    hand = str(hh.hand) if hh.hand is not None else Path(name).stem
    extra: dict[str, Any] = {}
    if inj is not None:
        extra = {"inject": inj.label, "injected": inj.applied, "remedy": inj.remedy}
    return ReplayResult(name, hand, False, None, None, error=error, **extra)
