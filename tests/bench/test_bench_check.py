"""scripts/bench_check.py's verdict: a ratio more than the tolerance below its baseline fails,
one within it passes (the figures are made up; no timing is measured here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_check", ROOT / "scripts" / "bench_check.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BASE = {"core_vs_pokerkit": 4.0, "compiled_vs_pokerkit": 20.0}


def test_within_ten_percent_passes() -> None:
    ok, lines = _load().compare(
        {"core_vs_pokerkit": 3.61, "compiled_vs_pokerkit": 18.1}, BASE, 0.10
    )
    assert ok and len(lines) == 2 and all(x.startswith("ok") for x in lines)


def test_more_than_ten_percent_below_fails_naming_the_ratio() -> None:
    ok, lines = _load().compare({"core_vs_pokerkit": 4.4, "compiled_vs_pokerkit": 17.9}, BASE, 0.10)
    assert not ok
    assert [x.split()[1] for x in lines if x.startswith("FAIL")] == ["compiled_vs_pokerkit"]


def test_a_ratio_not_measured_is_not_judged() -> None:
    ok, lines = _load().compare({"core_vs_pokerkit": 4.0}, BASE, 0.10)
    assert ok and len(lines) == 1


def test_the_stored_baseline_has_both_ratios() -> None:
    import json

    base = json.loads((ROOT / "bench" / "baseline.json").read_text())
    assert base["core_vs_pokerkit"] > 0 and base["compiled_vs_pokerkit"] > 0


def test_each_ratio_is_the_median_of_the_runs_not_the_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run whose pokerkit side was slowed (a high ratio) or whose core side was (a low
    one) moves neither the stored baseline nor the verdict."""
    import json

    module = _load()
    runs = iter([
        {"core_vs_pokerkit": 4.0, "compiled_vs_pokerkit": 22.0},
        {"core_vs_pokerkit": 4.9, "compiled_vs_pokerkit": 27.3},
        {"core_vs_pokerkit": 3.9, "compiled_vs_pokerkit": 14.8},
    ])  # fmt: skip
    monkeypatch.setattr(module, "bench", lambda hands, repeat, compiled: next(runs))
    baseline = tmp_path / "baseline.json"
    assert module.main(["--runs", "3", "--update", "--baseline", str(baseline)]) == 0
    stored = json.loads(baseline.read_text())
    assert (stored["core_vs_pokerkit"], stored["compiled_vs_pokerkit"], stored["runs"]) == (
        4.0, 22.0, 3)  # fmt: skip
