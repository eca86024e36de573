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


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("RAILGUARD_CORE_CACHE", str(root))
    return root


def _built_earlier(cache: Path, key: str, content: bytes) -> Path:
    """A wheel as a build put it in the cache under ``key``."""
    (cache / key).mkdir(parents=True)
    wheel = cache / key / "railguard-0.1.0-cp311-cp311-linux_x86_64.whl"
    wheel.write_bytes(content)
    return wheel


def test_a_cached_build_is_reused(tree: Path, cache: Path) -> None:
    wheel = _built_earlier(cache, sources_hash(tree), b"a wheel built earlier")
    assert cached_wheel(tree) == (wheel, False)  # no build: the tree here could not build


def test_a_profile_guided_build_has_its_own_entry_keyed_by_its_training_too(
    tree: Path, cache: Path
) -> None:
    plain = _built_earlier(cache, sources_hash(tree), b"plain")
    key = "pgo-" + sources_hash(tree, CORE_INPUTS + PGO_INPUTS)
    wheel = _built_earlier(cache, key, b"profile-guided")
    assert cached_wheel(tree, pgo=True) == (wheel, False)
    assert cached_wheel(tree) == (plain, False)
    training = tree / "controller" / "core_pgo.py"
    training.write_text(training.read_text() + "\n# an edit of the training\n")
    assert "pgo-" + sources_hash(tree, CORE_INPUTS + PGO_INPUTS) != key
    assert sources_hash(tree) == plain.parent.name  # the plain build's key does not follow it
