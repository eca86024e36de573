"""The ``railguard`` command line: one entry point, a sub-command per job.

``railguard COMMAND --help`` explains each command; docs/cli.md has them all with examples.
Exit codes: 0 done (every check passed), 1 something failed (the output says what),
2 the command line or a file named on it is wrong, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from controller import commands

Handler = Callable[[argparse.Namespace], int]

EXIT_INTERRUPTED = 130  # as a shell reports a command ended by SIGINT

_EPILOG = """\
exit codes: 0 done, 1 failed (the output says what), 2 bad command line or file,
130 interrupted (Ctrl-C).  Start with `railguard demo`; the command line is described
in docs/cli.md."""


def version() -> str:
    """The installed package's version (importlib.metadata), or why there is none."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("railguard")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed: run scripts/setup.sh)"


class _VersionAction(argparse.Action):
    """``--version``: looked up only when asked, so ``--help`` stays fast."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"railguard {version()}")
        parser.exit()


#: the order ``railguard --help`` lists the commands in: the simulator first, then the table's
#: daemon and its set-up, the rules as examples, the venue's side
ORDER = ("demo", "run", "doctor", "calibrate", "enroll", "deck", "scenario", "replay",
         "venue-log")  # fmt: skip


def _order(item: tuple[str, object]) -> tuple[int, str]:
    name = item[0]
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def _chosen(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names: its first argument that is not an option (the
    top-level parser has only ``--help`` and ``--version``, which take no value)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def _build_parser(
    argv: Sequence[str] | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser and each command's handler. Only the command ``argv`` names gets its
    arguments registered (a register function imports its command's modules: the floor
    console's aiohttp app, the scenario runner, the logger; ``railguard run`` must not carry
    them); the others are listed with their summary for ``--help``. ``argv`` None: all."""
    chosen = _chosen(argv) if argv is not None else None
    parser = argparse.ArgumentParser(
        prog="railguard",
        description="The controller in the rail of a poker table, and its tools.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    handlers: dict[str, Handler] = {}
    for name, (register, handler) in sorted(commands.REGISTRY.items(), key=_order):
        doc = (handler.__doc__ or "").strip()
        summary = doc.split("\n\n")[0]
        command = sub.add_parser(name, help=summary, description=doc)
        if argv is None or name == chosen:
            register(command)
        handlers[name] = handler
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser, handlers = _build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        # the handler's with/finally blocks have stopped what it started (brokers, tables)
        print(f"railguard {args.command}: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
