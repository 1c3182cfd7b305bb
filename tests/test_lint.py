"""The linter and the type checker, configured in pyproject.toml, find nothing: run as tests
so that ``./dev test``, CI and a plain ``pytest`` all fail on what they report."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing():
    checked = run("ruff", "check", "--no-cache", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr


# Code that names event kinds that do not exist, each in one way kinds are named
MISSPELT = """\
from pbem.events import KINDS, Command, Event
Command.of("resing")
KINDS["chta"]
def timed_out(event: Event) -> bool:
    return event.kind == "tiemout"
"""


def test_mypy_finds_nothing_and_would_find_a_misspelt_event_kind(tmp_path):
    # kind names are a Literal (events.KindName), so a misspelt one is a type error. One run
    # over the files of [tool.mypy] and the probe (a second, even on a warm cache, took a
    # second more): its errors are the probe's, and only those.
    probe = tmp_path / "misspelt.py"
    probe.write_text(MISSPELT)
    files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    checked = run("mypy", *files, str(probe))
    # (the file as mypy names it, which its cache may have seen in another folder)
    assert [Path(line.split(": error: ")[0]).name for line in checked.stdout.splitlines()
            if ": error: " in line] == [f"misspelt.py:{line}" for line in (2, 3, 5)], \
        checked.stdout + checked.stderr
    assert checked.returncode == 1, checked.stdout + checked.stderr  # errors, not a crash
