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

import contextlib
import hashlib
import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import zipfile
from importlib import metadata
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

COMPILED = "compiled (mypyc)"
PURE = "pure Python"
# What a build of the wheel reads from the source tree (pyproject.toml names the README).
BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "controller", "firmware_bridge", "hwsim")
# What the compiled part of such a wheel is made of: the rules core imports nothing outside
# controller/rules, and setup.py and pyproject.toml ([tool.mypy]) steer mypyc.
CORE_INPUTS = ("pyproject.toml", "setup.py", "controller/rules")
# And what a profile-guided build's profile comes from: the training run and its hands.
PGO_INPUTS = (
    "controller/core_pgo.py",
    "controller/demo/hands.py",
    "hwsim/dealer.py",
    "hwsim/phh.py",
)


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
    source: Path,
    out_dir: Path,
    *,
    compiled: bool = True,
    pgo: bool = False,
    python: str = sys.executable,
) -> Path:
    """Build a wheel of ``source`` into ``out_dir``, by default with the compiled core;
    return its path.

    The sources are copied to a scratch directory first (setuptools and mypyc write their
    ``build/`` and caches next to the sources, so a checkout stays clean and two builds can
    run at once), then ``RAILGUARD_COMPILE_CORE=1 pip wheel --no-build-isolation --no-deps``
    runs there (``=0`` with ``compiled=False``). Raises ``RuntimeError`` with pip's output
    tail if the build fails.

    ``pgo`` (compiled only) makes it a profile-guided build with gcc: an instrumented build
    first (``RAILGUARD_CORE_PGO=generate``, setup.py), its wheel unpacked and trained on
    (:mod:`controller.core_pgo`, in a fresh interpreter), then the wheel built again in the
    same tree from the counts the training left there (``RAILGUARD_CORE_PGO=use``). About
    twice a plain build's time; what it computes is the same.
    """
    if pgo and not compiled:
        raise ValueError("a profile-guided build is a compiled build: pgo needs compiled")
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
        if pgo:
            first = _pip_wheel(python, src, Path(tmp) / "instrumented", "1", "generate")
            _train(python, unpack_wheel(first, Path(tmp) / "site"), Path(tmp))
            _keep_only_counts(src / "build")
        wheel = _pip_wheel(python, src, out_dir, "1" if compiled else "0", "use" if pgo else "")
    if compiled and not any(n.startswith("controller/rules/engine.") and is_extension(n)
                            for n in zipfile.ZipFile(wheel).namelist()):  # fmt: skip
        raise RuntimeError(f"{wheel.name} has no compiled controller/rules/engine")
    return wheel


def _pip_wheel(python: str, src: Path, out_dir: Path, compile_core: str, pgo: str) -> Path:
    """``pip wheel`` of ``src`` into ``out_dir`` with setup.py's two switches; the wheel."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "RAILGUARD_COMPILE_CORE": compile_core, "RAILGUARD_CORE_PGO": pgo,
           "PIP_NO_INPUT": "1"}  # fmt: skip
    if pgo:
        # mypyc's C depends on set and dict orders, which follow the string hashes: the two
        # phases must generate the same C, or gcc finds the counts out of date
        env["PYTHONHASHSEED"] = "0"
    proc = subprocess.run(
        [python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
         "--disable-pip-version-check", "-w", str(out_dir), str(src)],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        needs = "mypy and setuptools>=77 in the environment, gcc and the Python headers"
        raise RuntimeError(
            f"build failed (a compiled build needs {needs}):\n{(proc.stdout + proc.stderr)[-4000:]}"
        )
    wheels = sorted(out_dir.glob("railguard-*.whl"), key=lambda p: p.stat().st_mtime)
    if not wheels:
        raise RuntimeError(f"pip built no railguard wheel in {out_dir}")
    return wheels[-1]


def _train(python: str, site: Path, cwd: Path) -> None:
    """Run the profile's training (controller/core_pgo.py) on the instrumented build unpacked
    at ``site``; its counts are written next to the build's objects when it exits."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [python, "-P", "-m", "controller.core_pgo"],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(
            f"the profile's training run failed:\n{(proc.stdout + proc.stderr)[-4000:]}"
        )


def _keep_only_counts(build: Path) -> None:
    """Between the two phases: drop the instrumented build's objects and libraries (so every
    object is compiled again, reading its counts) and keep its ``.gcda`` counts and the C
    that mypyc generated. Raises ``RuntimeError`` if the training left no counts."""
    counts = list(build.rglob("*.gcda"))
    if not counts:
        raise RuntimeError(f"the training run left no profile counts (.gcda) under {build}")
    for path in build.rglob("*"):
        if path.is_file() and path.suffix in (".o", ".so"):
            path.unlink()
    for lib in build.glob("lib.*"):
        shutil.rmtree(lib)


_IGNORED_SUFFIXES = (".pyc", ".so", ".pyd")


def sources_hash(
    source: Path, inputs: tuple[str, ...] = CORE_INPUTS, python: str = sys.executable
) -> str:
    """A hex digest of the files of ``inputs`` under ``source`` (less caches and build
    output), the interpreter and the mypy that compiles them: the key of
    :func:`cached_wheel`'s cache."""
    h = hashlib.sha256()
    with contextlib.suppress(metadata.PackageNotFoundError):
        h.update(metadata.version("mypy").encode())
    h.update(f"{python}\0{sys.version}\0{sys.platform}\0".encode())
    for name in inputs:
        path = source / name
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            rel = f.relative_to(source).as_posix()
            if (
                not f.is_file()
                or "__pycache__" in f.parts
                or "build" in f.relative_to(source).parts
                or f.name.endswith(_IGNORED_SUFFIXES)
            ):
                continue
            h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def cache_dir() -> Path:
    """Where :func:`cached_wheel` keeps compiled wheels: ``$RAILGUARD_CORE_CACHE``, else
    ``$XDG_CACHE_HOME/railguard/core-wheels`` (``~/.cache/...``)."""
    env = os.environ.get("RAILGUARD_CORE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "railguard" / "core-wheels"


def cached_wheel(source: Path, *, pgo: bool = False, keep: int = 3) -> tuple[Path, bool]:
    """A compiled wheel of ``source``: the cached one whose compiled core was built from
    the same sources (:func:`sources_hash` of ``CORE_INPUTS``, and ``PGO_INPUTS`` for a
    profile-guided build, ``pgo``) if there is one, else a fresh build put in the cache (the
    ``keep`` newest builds are kept). Returns the wheel and whether it was built now.

    The key covers the compiled core only: the rest of a cached wheel (the daemon,
    ``hwsim``) is as of its build. That is what the benchmark's worker needs (the compiled
    core and ``hwsim``'s hand planner, which is consistent with it); install a fresh
    :func:`build_wheel` for anything else."""
    root = cache_dir()
    key = "pgo-" + sources_hash(source, CORE_INPUTS + PGO_INPUTS) if pgo else sources_hash(source)
    entry = root / key
    found = sorted(entry.glob("railguard-*.whl")) if entry.is_dir() else []
    if found:
        return found[0], False
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    try:
        build_wheel(source, scratch, pgo=pgo)
        try:
            scratch.rename(entry)  # atomic; a build that finished first wins
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    old = sorted(
        (d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")),
        key=lambda d: d.stat().st_mtime,
        reverse=True,
    )
    for d in old[keep:]:
        shutil.rmtree(d, ignore_errors=True)
    return sorted(entry.glob("railguard-*.whl"))[0], True


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    """Unpack ``wheel`` into ``dest`` (a directory to put on PYTHONPATH); return ``dest``.
    Extension modules get their executable bit back (zipfile does not keep it)."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(dest)
        for name in zf.namelist():
            if is_extension(name):
                (dest / name).chmod(0o755)
    return dest


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.core_build SOURCE OUT [--no-pgo]``: build the compiled wheel
    of the source tree SOURCE into OUT (profile-guided unless ``--no-pgo``) and print its
    path, for scripts/install-pi.sh. Exit 2 naming a source that is no railguard tree, 1
    with the build's output tail if the build fails."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m controller.core_build",
                                 description=(main.__doc__ or "").split(":", 1)[0])  # fmt: skip
    ap.add_argument("source", type=Path, help="the source tree (a checkout or its copy)")
    ap.add_argument("out", type=Path, help="the directory the wheel is written to")
    ap.add_argument("--no-pgo", action="store_true", help="a plain build, without the training")
    args = ap.parse_args(argv)
    if not (args.source / "setup.py").is_file() or not (args.source / "controller").is_dir():
        ap.error(f"{args.source}: not a railguard source tree (no setup.py and controller/)")
    try:
        wheel = build_wheel(args.source.resolve(), args.out.resolve(), pgo=not args.no_pgo)
    except RuntimeError as exc:
        print(f"railguard core build: {exc}", file=sys.stderr)
        return 1
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
