"""Check that every runtime dependency pinned in pyproject.toml installs on a Raspberry Pi
(Raspberry Pi OS / Debian 12 bookworm, aarch64, CPython 3.11, glibc 2.36).

For each requirement of ``[project] dependencies`` and of the runtime extras (``pi``,
``pcsc``, ``postgres``; not ``dev``), pip is asked for a binary it would install on the Pi::

    pip download --only-binary=:all: --platform manylinux2014_aarch64 \\
        --platform manylinux_2_36_aarch64 ... --platform manylinux_2_17_aarch64 \\
        --python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \\
        --no-deps -d TMP 'REQ'

(every manylinux aarch64 tag up to glibc 2.36, Debian 12's, is named: pip does not expand
``manylinux_2_36`` to the tags below it; ``py3-none-any`` and ``cp3x-abi3`` wheels count
too). A musllinux wheel does not: Raspberry Pi OS is glibc. A requirement with no such
wheel passes only if it is in :data:`DEBIAN_BUILD` (it builds from source on the Pi with
the Debian packages named there), ``scripts/install-pi.sh`` installs those packages, and
pip can fetch its source distribution. ``--deps`` then resolves the whole runtime set with
its transitive dependencies the same way (binaries only, except the DEBIAN_BUILD ones).

    .venv/bin/python scripts/check_pi_wheels.py [--deps] [--extras pi,pcsc,postgres]

Needs the package index (pip's own configuration). Exit 0 when every requirement passes,
1 otherwise; one line per requirement says which file pip chose or why it failed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
INSTALL_PI = ROOT / "scripts" / "install-pi.sh"
RUNTIME_EXTRAS = ("pi", "pcsc", "postgres")
#: glibc 2.36 (bookworm) runs every manylinux tag up to 2_36. pip expands ``manylinux2014``
#: to the older tags but not ``manylinux_2_36`` to the tags between, so all are named:
#: lgpio ships ``manylinux_2_34_aarch64`` (and jsonschema-rs, a dependency until #23,
#: ``manylinux_2_28_aarch64``), which ``--platform manylinux2014_aarch64`` alone would miss.
PLATFORMS = ("manylinux2014_aarch64", *(f"manylinux_2_{v}_aarch64" for v in range(36, 16, -1)))
PI_TARGET = [
    *(arg for p in PLATFORMS for arg in ("--platform", p)),
    "--python-version", "3.11", "--implementation", "cp",
    "--abi", "cp311", "--abi", "abi3", "--abi", "none",
]  # fmt: skip

#: requirements with no aarch64 wheel that build from source on the Pi, and the Debian
#: packages (Raspberry Pi OS) their build needs; install-pi.sh must install each
DEBIAN_BUILD: dict[str, tuple[str, ...]] = {
    # PyPI has pyscard wheels for Windows and macOS only; it builds with SWIG against PC/SC lite
    "pyscard": ("swig", "libpcsclite-dev", "gcc", "python3-dev"),
}


def requirements(extras: tuple[str, ...]) -> list[str]:
    """The runtime requirements of pyproject.toml: dependencies and the given extras'."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs.extend(project["optional-dependencies"][extra])
    return reqs


def name_of(req: str) -> str:
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", req)
    if m is None:
        raise ValueError(f"not a requirement: {req!r}")
    return m.group(0).lower().replace("_", "-")


def marker_on_pi(req: str) -> bool:
    """Whether ``req``'s environment marker (if any) holds on the Pi (aarch64, Linux)."""
    if ";" not in req:
        return True
    marker = req.split(";", 1)[1]
    env = {"platform_machine": "aarch64", "sys_platform": "linux", "python_version": "3.11"}
    for key, value in re.findall(r"(\w+)\s*==\s*['\"]([^'\"]+)['\"]", marker):
        if key in env and env[key] != value:
            return False
    return True


def pip(args: list[str], dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "download", "--disable-pip-version-check",
         "--no-input", "-d", str(dest), *args],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


def last_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [x for x in (proc.stderr + proc.stdout).splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("ERROR")]
    return (errors or lines or ["(no output)"])[0][:200]


def debian_packages_installed_by_install_pi() -> set[str]:
    text = INSTALL_PI.read_text()
    found: set[str] = set()
    for line in text.splitlines():
        if "apt-get install" in line:
            found.update(w for w in line.split() if not w.startswith("-"))
    return found


def check_one(req: str, tmp: Path) -> tuple[bool, str]:
    name = name_of(req.split(";", 1)[0])
    dest = tmp / name
    proc = pip(["--only-binary=:all:", *PI_TARGET, "--no-deps", req.split(";", 1)[0]], dest)
    files = sorted(p.name for p in dest.glob("*.whl")) if dest.exists() else []
    if proc.returncode == 0 and files:
        return True, f"wheel {files[0]}"
    if name not in DEBIAN_BUILD:
        return False, f"no aarch64 cp311 wheel and no Debian build known: {last_error(proc)}"
    needs = DEBIAN_BUILD[name]
    missing = [p for p in needs if p not in debian_packages_installed_by_install_pi()]
    if missing:
        return False, f"builds from source but install-pi.sh lacks {', '.join(missing)}"
    src = pip(["--no-binary=:all:", "--no-deps", "--no-build-isolation",
               req.split(";", 1)[0]], tmp / f"{name}-sdist")  # fmt: skip
    sdists = (
        sorted(p.name for p in (tmp / f"{name}-sdist").glob("*")) if src.returncode == 0 else []
    )
    if not sdists:
        return False, f"no wheel, and its source distribution failed: {last_error(src)}"
    return True, f"no aarch64 wheel; builds from {sdists[0]} with {' '.join(needs)} (install-pi.sh)"


def check_deps(reqs: list[str], tmp: Path) -> tuple[bool, str]:
    """The whole set with its transitive dependencies, binaries only but for DEBIAN_BUILD."""
    plain = [r.split(";", 1)[0] for r in reqs]
    source_ok = ",".join(DEBIAN_BUILD) or ":none:"
    proc = pip(["--only-binary=:all:", f"--no-binary={source_ok}", *PI_TARGET, *plain], tmp)
    if proc.returncode != 0:
        # pip refuses --platform with a source distribution: retry without the DEBIAN_BUILD
        # requirements (checked one by one above)
        rest = [r for r in plain if name_of(r) not in DEBIAN_BUILD]
        proc = pip(["--only-binary=:all:", *PI_TARGET, *rest], tmp)
    files = sorted(p.name for p in tmp.glob("*.whl"))
    if proc.returncode != 0:
        return False, last_error(proc)
    bad = [f for f in files if not (f.endswith("-none-any.whl") or "aarch64" in f)]
    if bad:
        return False, f"wheels not for the Pi: {', '.join(bad)}"
    return True, f"{len(files)} wheels, all aarch64 or pure Python: {', '.join(files)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--extras", default=",".join(RUNTIME_EXTRAS),
                    help="runtime extras to include (default %(default)s)")  # fmt: skip
    ap.add_argument("--deps", action="store_true",
                    help="also resolve the transitive dependencies (binaries only)")  # fmt: skip
    args = ap.parse_args(argv)
    extras = tuple(e for e in args.extras.split(",") if e)
    reqs = [r for r in requirements(extras) if marker_on_pi(r)]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="railguard-pi-wheels-") as tmp:
        for req in reqs:
            ok, what = check_one(req, Path(tmp))
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {req.split(';', 1)[0]:36s} {what}", flush=True)
        if args.deps:
            ok, what = check_deps(reqs, Path(tmp) / "all")
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {'(with transitive dependencies)':36s} {what}")
    print(f"{len(reqs) - failed} of {len(reqs)} requirements install on the Pi (aarch64, cp311)"
          + ("" if not args.deps else "; transitive set checked"))  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
