"""A plain install of the project (``pip install .``, not editable, as a package index or a
deployment would make it): every package, and the templates and static files it serves."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run by the installed copy, from a folder that holds no source of the project.
CHECK = """
import sys
from urllib.parse import urlsplit
import engine.bots, pbem.boards
from pbem import create_app
assert pbem.boards.__file__.startswith(sys.prefix), pbem.boards.__file__
app = create_app({"DATABASE": "game.sqlite"})
client = app.test_client()
game = client.post("/api/games", json={"game": "mastery", "players": [
    {"name": "Ann", "email": "ann@example.org"}, {"bot": "easy"}]}).json
for path in (urlsplit(game["seats"][0]["url"]).path, "/rules/mastery", "/static/style.css"):
    assert client.get(path).status_code == 200, path
print("served")
"""


def test_a_plain_install_has_every_package_and_serves_pages(tmp_path):
    source = tmp_path / "source"  # pip builds in the source folder: a copy keeps ours clean
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".*", "instance", "build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--quiet", "--disable-pip-version-check", str(source)],
        capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    # its dependencies: those of the tests' environment, after the venv's own packages
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    run = subprocess.run([python, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={"PBEM_INSTANCE": str(tmp_path / "instance"),
                                           "PATH": "/usr/bin:/bin"})
    assert run.stdout.strip() == "served", run.stderr
