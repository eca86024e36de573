"""Build hook for the optional mypyc-compiled rules core; the metadata stays in pyproject.toml.

By default this adds nothing: the package is pure Python, and ``pip install -e .`` (what
scripts/setup.sh and the tests use) leaves no extension module that could shadow an edited
source. With ``RAILGUARD_COMPILE_CORE=1`` the modules of ``controller/rules`` found at build
time, less ``EXCLUDED``, are compiled with mypyc (about five times the pure core's speed,
docs/performance.md).
The wheel still carries every ``.py`` file and the profiles' TOML files beside the ``.so``.

A compiled build needs mypy (which provides mypyc), a C compiler and the Python headers in
the environment that builds, so it runs without build isolation::

    .venv/bin/pip install mypy 'setuptools>=77'
    RAILGUARD_COMPILE_CORE=1 .venv/bin/pip install --no-build-isolation .    # or: pip wheel ...

Never combine it with ``-e``: the ``.so`` files would then sit beside the sources and run
instead of any later edit. ``railguard doctor`` (controller/core_build.py) says which runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from setuptools import setup  # type: ignore[import-untyped, unused-ignore]

ROOT = Path(__file__).resolve().parent
CORE = ROOT / "controller" / "rules"
# Left in Python: errors.py (its exceptions also inherit ValueError/RuntimeError, which a
# native class cannot) and the package's __init__.py. profile.py is compiled: the rule
# modules read a Profile's fields and compare them with its enums' members on the hot path,
# which from compiled code costs a generic getattr on a Python object and a dict lookup
# plus getattr for the member when profile.py stays Python (a field read and a C static
# once it is compiled; docs/performance.md).
EXCLUDED = frozenset({"__init__.py", "errors.py"})


def core_modules() -> list[str]:
    """Paths, relative to the project root, of the modules to compile: every ``.py`` file
    of controller/rules at build time except ``EXCLUDED``."""
    return sorted(
        p.relative_to(ROOT).as_posix() for p in CORE.glob("*.py") if p.name not in EXCLUDED
    )


def ext_modules() -> list[Any]:
    flag = os.environ.get("RAILGUARD_COMPILE_CORE", "").strip()
    if flag in ("", "0"):
        return []
    if flag != "1":
        raise SystemExit(f"RAILGUARD_COMPILE_CORE must be 1 or 0, not {flag!r}")
    pgo = pgo_flags()  # a bad RAILGUARD_CORE_PGO stops the build before mypyc's minutes
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        raise SystemExit(
            "RAILGUARD_COMPILE_CORE=1 needs mypy (mypyc) in the build environment: "
            "pip install mypy, then build with --no-build-isolation"
        ) from exc
    os.chdir(ROOT)  # mypycify takes the paths relative to the project root
    # one shared library, railguard_core__mypyc.*.so at the top of site-packages, plus a small
    # shim .so per module beside its .py
    exts = list(mypycify(core_modules(), opt_level="3", group_name="railguard_core"))
    for ext in exts:
        # The core's functions call each other inside that one library. With -fPIC and the
        # default visibility, gcc must assume any of them (and the runtime's helpers) could be
        # interposed by another library at load time: no inlining across functions, and every
        # static read through the GOT. Nothing outside the library links to them (the shims
        # reach the modules through a capsule; PyInit_* keeps its default visibility through
        # PyMODINIT_FUNC), so they are hidden: 5 % fewer instructions an event
        # (docs/performance.md). gcc and clang take these flags, on aarch64 as on x86_64.
        # (new lists: mypycify's extensions share theirs, and += would add the flags once
        # per extension to all of them)
        ext.extra_compile_args = [*ext.extra_compile_args, "-fvisibility=hidden",
                                  "-fno-semantic-interposition", *pgo]  # fmt: skip
        ext.extra_link_args = [*ext.extra_link_args, *pgo]
    return exts


def pgo_flags() -> list[str]:
    """gcc's flags for a profile-guided build's phase, from ``RAILGUARD_CORE_PGO``: unset for
    none; ``generate`` for the instrumented build (its ``.gcda`` counts go next to its object
    files in ``build/``); ``use`` for the build from those counts, in the same tree.
    controller/core_build.py runs both phases and the training between them."""
    phase = os.environ.get("RAILGUARD_CORE_PGO", "").strip()
    if phase == "":
        return []
    if phase == "generate":
        return ["-fprofile-generate"]
    if phase == "use":
        # functions the training never ran are compiled as without a profile, not for size,
        # and so are the shims of modules it never imported (no counts file: no error);
        # counts that do not match their function's code still fail the build (-Werror)
        return ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile"]
    raise SystemExit(f"RAILGUARD_CORE_PGO must be generate, use or unset, not {phase!r}")


setup(ext_modules=ext_modules())
