"""The compiled core's build cache (controller/core_build.py): keyed by the core's sources, so
an edit to the rules core rebuilds and an edit elsewhere does not; a cached build is reused
without building."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.core_build import CORE_INPUTS, PGO_INPUTS, cached_wheel, sources_hash

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for name in (*CORE_INPUTS, *PGO_INPUTS, "controller/cli.py"):
        path = ROOT / name
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, src / name)
    return src


def test_the_key_follows_the_core_sources_only(tree: Path) -> None:
    key = sources_hash(tree)
    assert sources_hash(tree) == key  # stable
    (tree / "controller" / "cli.py").write_text("# an edit outside the core\n")
    (tree / "controller" / "rules" / "__pycache__").mkdir(exist_ok=True)
    (tree / "controller" / "rules" / "__pycache__" / "engine.cpython-311.pyc").write_bytes(b"x")
    assert sources_hash(tree) == key
    engine = tree / "controller" / "rules" / "engine.py"
    engine.write_text(engine.read_text() + "\n# an edit of the core\n")
    assert sources_hash(tree) != key


def test_a_cached_build_is_reused(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("RAILGUARD_CORE_CACHE", str(cache))
    entry = cache / sources_hash(tree)
    entry.mkdir(parents=True)
    wheel = entry / "railguard-0.1.0-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"a wheel built earlier")
    assert cached_wheel(tree) == (wheel, False)  # no build: the tree here could not build


def test_a_profile_guided_build_has_its_own_entry_keyed_by_its_training_too(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("RAILGUARD_CORE_CACHE", str(cache))
    plain = cache / sources_hash(tree)
    plain.mkdir(parents=True)
    (plain / "railguard-0.1.0-cp311-cp311-linux_x86_64.whl").write_bytes(b"plain")
    guided = cache / ("pgo-" + sources_hash(tree, CORE_INPUTS + PGO_INPUTS))
    guided.mkdir()
    wheel = guided / "railguard-0.1.0-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(b"profile-guided")
    assert cached_wheel(tree, pgo=True) == (wheel, False)
    before = sources_hash(tree, CORE_INPUTS + PGO_INPUTS)
    training = tree / "controller" / "core_pgo.py"
    training.write_text(training.read_text() + "\n# an edit of the training\n")
    assert sources_hash(tree, CORE_INPUTS + PGO_INPUTS) != before
    assert sources_hash(tree) == plain.name  # the plain build's key does not follow it
