"""systemd notifications without a dependency: ``sd_notify`` over the ``NOTIFY_SOCKET``
datagram socket (READY=1, WATCHDOG=1, STATUS=..., STOPPING=1).

Outside systemd (no ``NOTIFY_SOCKET``) every call is a no-op returning False.
"""

from __future__ import annotations

import os
import socket


def notify(message: str, env: dict[str, str] | None = None) -> bool:
    """Send one notification; True if it was sent. Never raises."""
    environ = os.environ if env is None else env
    path = environ.get("NOTIFY_SOCKET", "")
    if not path:
        return False
    if path[0] == "@":  # abstract namespace
        path = "\0" + path[1:]
    elif path[0] != "/":
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
            s.connect(path)
            s.sendall(message.encode())
    except OSError:
        return False
    return True


def watchdog_interval(env: dict[str, str] | None = None) -> float | None:
    """Seconds between WATCHDOG=1 pings (half of WATCHDOG_USEC), or None if not asked for."""
    environ = os.environ if env is None else env
    usec = environ.get("WATCHDOG_USEC", "")
    pid = environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0:
        return None
    if pid and (not pid.isdigit() or int(pid) != os.getpid()):
        return None
    return int(usec) / 2 / 1_000_000
