"""Is the reader board's port there at all? Said at once, before any wait for the board.

A path that does not exist (a typo, the board unplugged, the udev rule missing) would
otherwise cost the whole online timeout and end in "no reader board answers". The serial
ports the machine does have are named as candidates.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

#: where serial ports appear: USB CDC and USB-serial adapters, the Pi's UART, the udev link
CANDIDATE_GLOBS = (
    "/dev/railguard-reader*",
    "/dev/serial/by-id/*",
    "/dev/ttyACM*",
    "/dev/ttyUSB*",
    "/dev/ttyAMA*",
)


def candidates(globs: Sequence[str] = CANDIDATE_GLOBS) -> list[str]:
    """The serial ports present now, in the order of ``globs``."""
    found: list[str] = []
    for pattern in globs:
        found.extend(sorted(glob.glob(pattern)))
    return list(dict.fromkeys(found))


def port_problem(patterns: Sequence[str], globs: Sequence[str] = CANDIDATE_GLOBS) -> str | None:
    """None when one of ``patterns`` (reader.ports: paths, globs, socket:// URLs) may be a
    port; else what is wrong, naming each path and the candidates found."""
    if not patterns:
        return "reader.ports is empty"
    missing: list[str] = []
    for pattern in patterns:
        if "://" in pattern:  # socket://host:port and the like: only connecting tells
            return None
        if any(c in pattern for c in "*?["):
            if glob.glob(pattern):
                return None
            missing.append(f"{pattern} (matches nothing)")
        elif os.path.exists(pattern):
            return None
        else:
            missing.append(f"{pattern} (no such file)")
    found = candidates(globs)
    there = (f"serial ports found: {', '.join(found)}" if found
             else "no serial port found (/dev/ttyACM*, /dev/ttyUSB*, ...): is the board"
                  " plugged in and powered?")  # fmt: skip
    return f"reader port {'; '.join(missing)}; {there}; fix reader.ports in the config"
