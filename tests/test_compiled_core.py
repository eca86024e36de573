"""The optional mypyc-compiled rules core (setup.py, controller/core_build.py).

Fast: the checkout the tests run is pure Python (no ``.so`` shadows an edited source), and a
default wheel is pure Python with the sources and the profiles' TOML files; the
profile-guided build's training is clean play and its parts name bad input. Slow: a compiled
(profile-guided) wheel of the current sources, unpacked and put first on PYTHONPATH, replays
the whole PHH corpus with ``railguard replay --core-only`` and passes the rules tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from controller import core_build as core_build_module
from controller.core_build import (
    COMPILED,
    PURE,
    _keep_only_counts,
    build_wheel,
    compiled_modules,
    core_build,
    is_extension,
    unpack_wheel,
)
from controller.core_pgo import SEATS, train, training_hands
from controller.rules.profile import builtin_profile_names
from tests.shared import PHH, requires

ROOT = Path(__file__).resolve().parents[1]
PROFILES = sorted(p.name for p in (ROOT / "controller" / "rules" / "profiles").glob("*.toml"))
# Compiled: every module of controller/rules but these (setup.py's EXCLUDED).
NOT_COMPILED = {"__init__", "errors"}


def test_is_extension() -> None:
    assert is_extension("controller/rules/engine" + EXTENSION_SUFFIXES[0])
    assert is_extension("/x/engine.so")
    assert not is_extension("/x/engine.py")
    assert not is_extension(None)


def test_the_checkout_runs_the_pure_core() -> None:
    # the editable install of the tests: a stray in-place build would run instead of the sources
    assert core_build() == PURE
    assert compiled_modules() == []


@pytest.mark.timeout(120)
def test_default_wheel_is_pure_python_with_sources_and_profiles(tmp_path: Path) -> None:
    wheel = build_wheel(ROOT, tmp_path, compiled=False)
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if is_extension(n)]
    assert "controller/rules/engine.py" in names and "controller/core_build.py" in names
    for profile in PROFILES:
        assert f"controller/rules/profiles/{profile}" in names


# ------------------------------------------------------------------ profile-guided build


def test_the_profile_training_is_clean_play_at_every_size_under_every_profile() -> None:
    # heads-up included: the generator once acted and posted as if p1 were the small blind
    # there (PHH reverses the blinds heads-up), and about half its hands were out of turn
    hands = training_hands(4)
    assert {h.plan.profile.name for h in hands} == set(builtin_profile_names())
    assert {len(h.plan.seats) for h in hands} == set(SEATS)
    # train() raises on a rejected event or an alert above info: the profile is clean play's
    assert train(4) == 3 * sum(len(h.plan.events) for h in hands)


def test_between_the_two_phases_only_the_counts_and_the_c_stay(tmp_path: Path) -> None:
    build = tmp_path / "build"
    with pytest.raises(RuntimeError, match="no profile counts"):
        _keep_only_counts(build)
    objs = build / "temp.linux-x86_64-cpython-311" / "build"
    objs.mkdir(parents=True)
    for name in ("core.o", "core.gcda"):
        (objs / name).write_bytes(b"x")
    (build / "core.c").write_text("int x;")
    (build / "lib.linux-x86_64-cpython-311" / "controller").mkdir(parents=True)
    (build / "lib.linux-x86_64-cpython-311" / "controller" / "engine.so").write_bytes(b"x")
    _keep_only_counts(build)
    left = sorted(p.relative_to(build).as_posix() for p in build.rglob("*") if p.is_file())
    assert left == ["core.c", "temp.linux-x86_64-cpython-311/build/core.gcda"]


def test_a_bad_pgo_phase_is_named_before_anything_is_built(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pgo needs compiled"):
        build_wheel(ROOT, tmp_path, compiled=False, pgo=True)
    env = {**os.environ, "RAILGUARD_COMPILE_CORE": "1", "RAILGUARD_CORE_PGO": "sometimes"}
    proc = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert proc.returncode != 0
    assert "RAILGUARD_CORE_PGO must be generate, use or unset, not 'sometimes'" in proc.stderr


def test_the_install_scripts_build_command_names_a_bad_source_and_passes_its_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m controller.core_build SOURCE OUT [--no-pgo]`` (scripts/install-pi.sh)."""
    proc = subprocess.run(
        [sys.executable, "-m", "controller.core_build", str(tmp_path), str(tmp_path / "w")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "not a railguard source tree" in proc.stderr
    calls: list[tuple[Path, Path, bool]] = []

    def fake(source: Path, out: Path, *, pgo: bool = False) -> Path:
        calls.append((source, out, pgo))
        return out / "railguard-0.1.0-cp311-cp311-linux_x86_64.whl"

    monkeypatch.setattr(core_build_module, "build_wheel", fake)
    assert core_build_module.main([str(ROOT), str(tmp_path)]) == 0
    assert core_build_module.main([str(ROOT), str(tmp_path), "--no-pgo"]) == 0
    assert [c[2] for c in calls] == [True, False] and calls[0][0] == ROOT
    assert (
        capsys.readouterr().out.splitlines() == [str(calls[0][1] / fake(ROOT, tmp_path).name)] * 2
    )


# ------------------------------------------------------------------ compiled (slow)


@pytest.fixture(scope="module")
def compiled_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    pytest.importorskip("mypyc.build", reason="mypy (mypyc) not installed")
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not (shutil.which("gcc") or shutil.which("cc")) or not include.exists():
        pytest.skip("no C compiler or Python headers")
    tmp = tmp_path_factory.mktemp("compiled-core")
    # the profile-guided build, as a Pi installs it (scripts/install-pi.sh): trained, then
    # built again; it must compute what the sources do
    wheel = build_wheel(ROOT, tmp / "wheel", pgo=True)
    names = zipfile.ZipFile(wheel).namelist()
    for module in (ROOT / "controller" / "rules").glob("*.py"):
        assert f"controller/rules/{module.name}" in names  # the sources ship beside the .so
        so = [n for n in names if n.startswith(f"controller/rules/{module.stem}.")]
        assert any(is_extension(n) for n in so) == (module.stem not in NOT_COMPILED), so
    for profile in PROFILES:
        assert f"controller/rules/profiles/{profile}" in names
    yield unpack_wheel(wheel, tmp / "site")


def _run_compiled(site: Path, code: str, cwd: Path, timeout: float) -> str:
    """Run ``code`` with the unpacked compiled wheel first on the path (``-P``: not the cwd,
    so nothing from the checkout shadows it) after checking the engine is the compiled one."""
    check = (
        "from controller.core_build import COMPILED, compiled_modules, core_build\n"
        f"assert core_build() == {COMPILED!r}, core_build()\n"
        "print('compiled:', ' '.join(compiled_modules()), flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-P", "-c", check + code], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=timeout, check=False,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    compiled = set(out.splitlines()[0].removeprefix("compiled:").split())
    expected = {f"controller.rules.{p.stem}" for p in (ROOT / "controller" / "rules").glob("*.py")}
    assert compiled == expected - {f"controller.rules.{m}" for m in NOT_COMPILED}, compiled
    return out


@pytest.mark.slow
@pytest.mark.timeout(1500)
@requires(PHH)
def test_compiled_core_replays_the_phh_corpus(compiled_site: Path, tmp_path: Path) -> None:
    code = (
        "import sys\nfrom controller.cli import main\n"
        f"sys.exit(main(['replay', '--core-only', '--quiet', {str(PHH)!r}]))\n"
    )
    out = _run_compiled(compiled_site, code, tmp_path, timeout=1200)
    summary = re.search(r"^(\d+) passed, (\d+) failed", out, re.MULTILINE)
    assert summary, out[-2000:]
    passed, failed = int(summary[1]), int(summary[2])
    print(summary[0])  # shown with -rP
    assert failed == 0 and passed > 8000, summary[0]


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_rules_tests_pass_on_the_compiled_core(compiled_site: Path) -> None:
    # test_module_is_pure reads evaluate.py's source through __file__, the .so when compiled
    code = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['tests/rules', '-q', '-p', 'no:cacheprovider',"
        " '--import-mode=append', '--deselect',"
        " 'tests/rules/test_evaluate.py::test_module_is_pure']))\n"
    )
    out = _run_compiled(compiled_site, code, ROOT, timeout=1200)
    assert re.search(r"\d+ passed", out) and " failed" not in out, out[-3000:]
