"""Sub-commands of ``railguard``: each is a (register-arguments, handler) pair.

Handlers import their heavy modules lazily so that ``railguard --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

Register = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]

REGISTRY: dict[str, tuple[Register, Handler]] = {}


def command(name: str, register: Register) -> Callable[[Handler], Handler]:
    def wrap(handler: Handler) -> Handler:
        REGISTRY[name] = (register, handler)
        return handler

    return wrap
