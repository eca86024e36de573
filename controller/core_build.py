"""Which build of the rules core is running, and how to build the mypyc-compiled one.

The rules core (``controller/rules``) ships as pure Python; ``RAILGUARD_COMPILE_CORE=1`` at
install time compiles most of its modules with mypyc (setup.py, docs/performance.md), and the
Pi install does so by default (scripts/install-pi.sh). :func:`core_build` tells the two apart
at run time from where ``controller.rules.engine`` was loaded; ``railguard doctor`` prints it.

:func:`build_wheel` builds a (by default compiled) wheel of a source tree, for
bench/bench_core.py and the tests; a compiled build needs mypy and setuptools >= 77 in
this interpreter's environment, a C compiler and the Python headers.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

COMPILED = "compiled (mypyc)"
PURE = "pure Python"
# What a build of the wheel reads from the source tree (pyproject.toml names the README).
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "controller", "firmware_bridge", "hwsim")


def is_extension(path: str | None) -> bool:
    """True for the file of a compiled extension module (``.so``, ``.pyd``)."""
    return path is not None and any(path.endswith(s) for s in EXTENSION_SUFFIXES)


def core_build() -> str:
    """``"compiled (mypyc)"`` when the rules engine was loaded from an extension module,
    else ``"pure Python"``."""
    from controller.rules import engine

    return COMPILED if is_extension(getattr(engine, "__file__", None)) else PURE


def compiled_modules() -> list[str]:
    """Names of the ``controller.rules`` modules loaded from extension modules (it imports
    each module of the package)."""
    from controller import rules

    names = []
    for info in pkgutil.iter_modules(rules.__path__, "controller.rules."):
        module = importlib.import_module(info.name)
        if is_extension(getattr(module, "__file__", None)):
            names.append(info.name)
    return sorted(names)


def build_wheel(
    source: Path, out_dir: Path, *, compiled: bool = True, python: str = sys.executable
) -> Path:
    """Build a wheel of ``source`` into ``out_dir``, by default with the compiled core;
    return its path.

    The sources are copied to a scratch directory first (setuptools and mypyc write their
    ``build/`` and caches next to the sources, so a checkout stays clean and two builds can
    run at once), then ``RAILGUARD_COMPILE_CORE=1 pip wheel --no-build-isolation --no-deps``
    runs there (``=0`` with ``compiled=False``). Raises ``RuntimeError`` with pip's output
    tail if the build fails.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="railguard-core-build-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.pyc", "build")
        for name in BUILD_INPUTS:
            path = source / name
            if path.is_dir():
                shutil.copytree(path, src / name, ignore=ignore)
            else:
                shutil.copy2(path, src / name)
        flag = "1" if compiled else "0"
        env = {**os.environ, "RAILGUARD_COMPILE_CORE": flag, "PIP_NO_INPUT": "1"}
        proc = subprocess.run(
            [python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
             "--disable-pip-version-check", "-w", str(out_dir), str(src)],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            needs = "mypy and setuptools>=77 in the environment, gcc and the Python headers"
            raise RuntimeError(
                f"build failed (a compiled build needs {needs}):\n"
                f"{(proc.stdout + proc.stderr)[-4000:]}"
            )
    wheels = sorted(out_dir.glob("railguard-*.whl"), key=lambda p: p.stat().st_mtime)
    if not wheels:
        raise RuntimeError(f"pip built no railguard wheel in {out_dir}")
    with zipfile.ZipFile(wheels[-1]) as zf:
        if compiled and not any(n.startswith("controller/rules/engine.") and is_extension(n)
                   for n in zf.namelist()):  # fmt: skip
            raise RuntimeError(f"{wheels[-1].name} has no compiled controller/rules/engine")
    return wheels[-1]


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    """Unpack ``wheel`` into ``dest`` (a directory to put on PYTHONPATH); return ``dest``.
    Extension modules get their executable bit back (zipfile does not keep it)."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(dest)
        for name in zf.namelist():
            if is_extension(name):
                (dest / name).chmod(0o755)
    return dest
