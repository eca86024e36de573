"""``railguard run`` imports nothing the table never uses: a fresh interpreter follows the run
command's path (the CLI's parser built for ``run``, the daemon's modules, the demo table's
config loaded; bench/startup_rss.py) and its ``sys.modules`` holds no module of the floor
console, its web server (aiohttp), the venue logger, the scenario runner or the demo, nor
the pure-Python schema validator, nor jsonschema-rs (#23: its code kept 3 to 9 MB resident).
The CLI once registered every command's arguments, which imported all of them into the table
daemon (58 MB resident instead of 45)."""

from __future__ import annotations

from bench import startup_rss


def test_run_path_imports_nothing_the_table_never_uses() -> None:
    result = startup_rss.measure(hands=20)
    assert result["not_for_the_table"] == []
    stages = [name for name, _, _ in result["stages"]]
    assert stages[0] == "interpreter" and stages[-1] == "first hands"
    loaded = stages.index("config loaded")
    # the child did import the daemon (the check above is not vacuous)
    assert result["stages"][loaded][2] > result["stages"][2][2]
    # and the hands went through the core: the evaluator memoised their showdowns
    assert result["memo_entries"] > 0


def test_the_check_sees_a_stray_import() -> None:
    # the same child's detection, fed a module of the list: it must be reported
    prefixes = startup_rss.NOT_FOR_THE_TABLE
    assert any(p == "aiohttp" for p in prefixes) and "controller.floor" in prefixes
    assert startup_rss.strays(["aiohttp.web", "controller.floor.app", "asyncio"]) == [
        "aiohttp.web",
        "controller.floor.app",
    ]
