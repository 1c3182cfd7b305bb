"""The linter and the type checker, configured in pyproject.toml, find nothing: run as tests
so that ``./dev test``, CI and a plain ``pytest`` all fail on what they report."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing():
    checked = run("ruff", "check", "--no-cache", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_mypy_finds_nothing():
    checked = run("mypy")  # the files and options of [tool.mypy]
    assert checked.returncode == 0, checked.stdout + checked.stderr
