"""The ``railguard`` command line: one entry point, a sub-command per job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from controller import commands

Handler = Callable[[argparse.Namespace], int]


def _build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    parser = argparse.ArgumentParser(prog="railguard", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    handlers: dict[str, Handler] = {}
    for name, (register, handler) in commands.REGISTRY.items():
        register(sub.add_parser(name, help=handler.__doc__))
        handlers[name] = handler
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    parser, handlers = _build_parser()
    args = parser.parse_args(argv)
    return handlers[args.command](args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
