import subprocess
import sys


def test_help_lists_the_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0
    assert "railguard" in out.stdout
