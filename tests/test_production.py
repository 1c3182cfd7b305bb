"""The production setup the project ships: gunicorn with ``gunicorn.conf.py``, as real
processes on loopback, on empty instances; and commits that survive a power cut."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pbem import create_app
from pbem.store.db import connect

from helpers import free_port
from test_security import secret_paths

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")
METRICS_TOKEN = "scraper-secret"


def start(instance: Path, port: int, workers: int = 4, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(GUNICORN), "--workers", str(workers)], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PBEM_INSTANCE": str(instance), "PBEM_BIND": f"127.0.0.1:{port}",
             "PYTHONUNBUFFERED": "1", **env})


def stop(process: subprocess.Popen) -> str:
    if process.poll() is None:
        process.terminate()
    return process.communicate(timeout=30)[0]


def get(url: str, data: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, answer.read()


def wait_up(process: subprocess.Popen, base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        assert process.poll() is None, stop(process)
        try:
            get(base + "/")
            return
        except OSError:
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.1)


class Served:
    """gunicorn with four workers on an empty instance, as ``start`` runs it, its output
    read as it comes (the tests read it while it serves)."""

    def __init__(self, instance: Path) -> None:
        self.instance, port = instance, free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.process = start(instance, port, PBEM_PUBLIC_URL="https://games.example.org",
                             PBEM_METRICS_TOKEN=METRICS_TOKEN)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def output(self, since: int = 0, until=lambda output: True) -> str:
        """What it printed from line ``since`` on, once ``until`` holds of it (access log
        lines come just after their answers) or 10 seconds have passed."""
        deadline = time.monotonic() + 10
        while not until(output := "".join(self.lines[since:])) and time.monotonic() < deadline:
            time.sleep(0.05)
        return output

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.reader.join(timeout=30)
        return self.output()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The module's gunicorn: the tests only ask it for pages and read what it logs."""
    server = Served(tmp_path_factory.mktemp("served") / "instance")
    try:
        wait_up(server.process, server.base)
        yield server
    finally:
        output = server.stop()
    assert "Traceback" not in output and "locked" not in output, output
    assert not (server.instance / "gunicorn.ctl").exists()


def new_game(base: str) -> list[str]:
    """A game created through the API: its seats' play page URLs."""
    body = json.dumps({"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org"}]}).encode()
    status, answer = get(base + "/api/games", body)
    assert status == 201
    return [seat["url"] for seat in json.loads(answer)["seats"]]


def test_gunicorn_starts_four_workers_on_an_empty_instance_and_logs_no_secret(served):
    # (The workers find the schema whole: gunicorn's master applies the migrations before
    # it starts them, production.prepare.)
    urls = new_game(served.base)
    assert all(url.startswith("https://games.example.org/play/") for url in urls)
    tokens = [url.rsplit("/", 1)[1] for url in urls]
    since = len(served.lines)
    for _ in range(8):  # reach every worker
        assert get(f"{served.base}/play/{tokens[0]}")[0] == 200
        assert get(f"{served.base}/api/play/{tokens[1]}")[0] == 200
    logged = served.output(since, until=lambda output: "GET /api/play/[secret]" in output)
    assert "GET /play/[secret]" in logged and "GET /api/play/[secret]" in logged
    output = served.output(until=lambda output: output.count("Booting worker") >= 4)
    assert output.count("Booting worker") == 4, output
    assert "Traceback" not in output and "locked" not in output, output
    assert not any(token in output for token in tokens)
    for name in ("pbem.sqlite", "secret_key"):
        assert (served.instance / name).stat().st_mode & 0o077 == 0, name


def scraped(base: str) -> dict[tuple[str, tuple], float]:
    request = urllib.request.Request(f"{base}/metrics",
                                     headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text = answer.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_metrics_count_every_workers_requests_and_the_job_processs_runs(served):
    """Four workers, each counting its own requests: whichever answers /metrics counts them
    all (prometheus-client's multiprocess mode); the job process's runs reach every worker
    through the database."""
    missing = ("pbem_http_requests_total", (("status", "404"),))
    before = scraped(served.base).get(missing, 0)
    for _ in range(12):  # spread over the workers
        with pytest.raises(urllib.error.HTTPError):
            get(f"{served.base}/nowhere")
    counts = {scraped(served.base)[missing] - before for _ in range(8)}
    assert counts == {12}, counts  # the same total, whichever worker was asked
    status, health = get(f"{served.base}/healthz")
    assert status == 200 and json.loads(health)["jobs"] == {"last_run": None, "late": True}

    jobs = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "pbem", "run-scheduler"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PBEM_INSTANCE": str(served.instance),
             "PBEM_PUBLIC_URL": "https://games.example.org"})
    bots = ("pbem_job_run_seconds_count", (("job", "play-bots"),))
    try:
        deadline = time.monotonic() + 30
        while bots not in scraped(served.base):  # its first run of the computer's moves
            assert jobs.poll() is None and time.monotonic() < deadline, stop(jobs)
            time.sleep(0.2)
    finally:
        output = stop(jobs)
    assert "Traceback" not in output, output
    assert json.loads(get(f"{served.base}/healthz")[1])["jobs"]["last_run"]
    assert min(scraped(served.base).get(bots, 0) for _ in range(4)) >= 1  # every worker


def test_gunicorns_access_log_holds_no_secret_whatever_its_shape(served, tmp_path):
    token = new_game(served.base)[0].rsplit("/", 1)[1]
    since = len(served.lines)
    url_map = create_app({"DATABASE": str(tmp_path / "map.sqlite")}).url_map
    paths = secret_paths(url_map, token)
    for path in paths:
        try:
            get(served.base + path)
        except urllib.error.HTTPError:
            pass  # a 404 is logged too
    encoded = "".join(f"%{byte:02X}" for byte in token.encode())
    assert get(f"{served.base}/play/{encoded}")[0] == 200
    output = served.output(since, until=lambda output: output.count("\n") > len(paths))
    assert output.count("[secret]") >= len(paths), output
    assert token not in output and encoded not in output and token[:16] not in output


def test_each_installation_has_its_own_control_socket(served, tmp_path):
    """gunicornc's socket: two instances on one machine each answer on their own, and one
    stopping leaves the other's (the module's server removes its own as it stops)."""
    port = free_port()
    other = start(tmp_path / "other", port, workers=1, PBEM_PUBLIC_URL="https://games.example.org")
    try:
        wait_up(other, f"http://127.0.0.1:{port}")
        for instance, process in ((served.instance, served.process), (tmp_path / "other", other)):
            asked = subprocess.run([str(GUNICORN.with_name("gunicornc")), "-s",
                                    str(instance / "gunicorn.ctl"), "-c", "show stats", "-j"],
                                   capture_output=True, text=True, timeout=30)
            assert json.loads(asked.stdout)["pid"] == process.pid, asked
    finally:
        output = stop(other)
    assert not (tmp_path / "other" / "gunicorn.ctl").exists()
    assert (served.instance / "gunicorn.ctl").exists()
    assert "Failed to start control socket" not in output + served.output()


def test_gunicorn_refuses_to_start_without_public_url(tmp_path):
    process = start(tmp_path / "instance", free_port())
    output = stop(process) if process.wait(timeout=30) is not None else ""
    assert process.returncode != 0
    lines = [line for line in output.splitlines() if "PUBLIC_URL" in line]
    assert lines == ["Not starting: PUBLIC_URL is not set: set it to the address players "
                     "reach this server at (e.g. PBEM_PUBLIC_URL=https://games.example.org), "
                     "which every link in an email begins with."], output


def test_run_scheduler_refuses_to_start_without_public_url(tmp_path):
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "pbem", "run-scheduler"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PBEM_INSTANCE": str(tmp_path / "instance")})
    assert done.returncode != 0
    assert done.stderr.strip() == "Error: Not starting: PUBLIC_URL is not set: set it to the " \
        "address players reach this server at (e.g. PBEM_PUBLIC_URL=https://games.example.org)" \
        ", which every link in an email begins with."


def test_every_commit_reaches_the_disk_before_it_is_acknowledged(app, client, new_game,
                                                                   monkeypatch):
    """SQLite: a commit does not wait for the disk inside the write lock (WAL with
    synchronous=NORMAL, which alone could lose the last commits on a power cut); the
    server syncs the log after the commit and before it answers, so an acknowledged move
    survives an OS crash. PostgreSQL: the test cluster is set not to wait for the disk
    (synchronous_commit=off), and the app's connections wait all the same."""
    from pbem.store.db import dialect
    from pbem.web.database import get_db

    with app.test_request_context():
        db = get_db()
    if dialect(db) == "postgresql":
        for connection in (db, connect(app.config["DATABASE"])):
            assert connection.execute("SHOW synchronous_commit").fetchone()[0] != "off"
        return
    game = new_game()
    looker = connect(app.config["DATABASE"])
    real, synced = os.fdatasync, []

    def fdatasync(handle: int) -> None:
        moves = looker.execute("SELECT count(*) FROM events WHERE kind = 'move'").fetchone()[0]
        synced.append((os.readlink(f"/proc/self/fd/{handle}"), moves))
        real(handle)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    answer = client.post(f"{game.apis[0]}/moves", json={"move": "d4xc5", "ply": 0})
    assert answer.status_code == 200
    log = str(Path(app.config["DATABASE"]).resolve()) + "-wal"
    assert (log, 1) in synced  # the log, synced once the move was committed
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
