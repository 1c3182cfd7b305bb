"""The operator commands, against real SQLite files and a real SMTP server on loopback;
``run-scheduler`` and ``serve`` run as real processes, configured by ``PBEM_*`` variables."""
from __future__ import annotations

import email
import email.policy
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from flask.cli import FlaskGroup

from pbem import create_app
from pbem.jobs import scheduler
from pbem.store.db import connect
from pbem.matches import CACHE

from helpers import free_port

ROOT = Path(__file__).resolve().parent.parent




def make_app(tmp_path, monkeypatch, **config):
    """An app with its own instance folder (the scheduler's lock lives there)."""
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "instance"))
    CACHE.clear()
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "pbem.sqlite"),
                       "MAIL_FOLDER": str(tmp_path / "mail"), "SECRET_KEY": "test",
                       "MAIL_FROM": "Games <games@test.example>",
                       "PUBLIC_URL": "http://localhost", **config})


@pytest.fixture
def smtp_app(tmp_path, monkeypatch, smtp):
    yield make_app(tmp_path, monkeypatch, SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    CACHE.clear()


def create(client, names=("Ann", "Bob"), emails=("ann@example.org", "bob@example.org")):
    players = [{"name": n, "email": e} for n, e in zip(names, emails)]
    response = client.post("/api/games", json={"game": "mastery", "players": players})
    assert response.status_code == 201, response.json
    return response.json


def flask(app, *args: str, input: bytes | None = None):
    """Run a command as the ``flask --app pbem`` executable does: through a FlaskGroup,
    which pushes the app context around every command (``input``: its standard input).
    (``runner.invoke(args=...)`` alone does not: see test_commands_run_from_the_test_runner.)"""
    group = FlaskGroup(create_app=lambda: app, load_dotenv=False)
    # FlaskGroup.main sets FLASK_RUN_FROM_CLI in os.environ; the runner restores it.
    return app.test_cli_runner().invoke(group, list(args), input=input,
                                        env={"FLASK_RUN_FROM_CLI": None})


def wait_for(predicate, timeout: float = 10.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# -- send-mail -------------------------------------------------------------------------

def test_send_mail_delivers_through_the_configured_smtp_server(smtp_app, smtp):
    game = create(smtp_app.test_client())
    result = flask(smtp_app, "send-mail")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "2 sent, 0 failed"
    assert sorted(m["To"] for m in smtp.messages) == ["ann@example.org", "bob@example.org"]
    for message in smtp.messages:
        assert message["From"] == "Games <games@test.example>"
        assert message["Subject"] == f"Game started — Mastery: Ann vs Bob [{game['id']}]"
        assert message["References"] == f"<game-{game['id']}@pbem.localhost>"
        assert "/play/" in message.get_body(("plain",)).get_content()
    assert not Path(smtp_app.config["MAIL_FOLDER"]).exists()  # SMTP, not files

    assert flask(smtp_app, "send-mail").output.strip() == "0 sent, 0 failed"
    assert len(smtp.messages) == 2


def test_send_mail_reports_failures_and_keeps_the_mail(tmp_path, monkeypatch):
    app = make_app(tmp_path, monkeypatch, SMTP_HOST="127.0.0.1", SMTP_PORT=free_port())
    create(app.test_client())
    result = flask(app, "send-mail")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "0 sent, 2 failed"
    db = connect(app.config["DATABASE"])
    try:
        rows = list(db.query("SELECT status, attempts, last_error FROM outbox"))
    finally:
        db.close()
    assert [(r["status"], r["attempts"]) for r in rows] == [("pending", 1)] * 2
    assert all(r["last_error"].startswith("ConnectionRefusedError") for r in rows)


def test_send_mail_without_smtp_writes_eml_files(app, client):
    create(client)
    result = flask(app, "send-mail")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "2 sent, 0 failed"
    files = sorted(Path(app.config["MAIL_FOLDER"]).glob("*.eml"))
    assert len(files) == 2
    recipients = sorted(email.message_from_bytes(f.read_bytes(), policy=email.policy.default)["To"]
                        for f in files)
    assert recipients == ["ann@example.org", "bob@example.org"]


def test_commands_run_from_the_test_runner(app, client, runner):
    create(client)
    for args in (["init-db"], ["list-games"], ["send-mail"]):
        result = runner.invoke(args=args)
        assert result.exit_code == 0, (args, result.output, result.exception)


# -- list-games and init-db ------------------------------------------------------------

def test_list_games_shows_status_turn_and_players(app, client):
    first = create(client, names=("Ann", "Bob"))
    second = create(client, names=("Cy", "Di"), emails=("cy@example.org", "di@example.org"))
    api = re.sub(r"^http://localhost", "", second["seats"][1]["api"])
    assert client.post(f"{api}/resign", json={}).status_code == 200

    result = flask(app, "list-games")
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(first["id"] + " ")
    assert re.search(r"\bmastery\s+active\s+ply 0\s+to move \[0\]\s+Ann, Bob$", lines[0])
    assert lines[1].startswith(second["id"] + " ")
    assert re.search(r"\bmastery\s+finished\s+ply 0\s+.*Cy, Di$", lines[1])

    finished = flask(app, "list-games", "--status", "finished")
    assert finished.exit_code == 0
    assert [line.split()[0] for line in finished.output.strip().splitlines()] == [second["id"]]
    active = flask(app, "list-games", "--status", "active")
    assert [line.split()[0] for line in active.output.strip().splitlines()] == [first["id"]]
    assert flask(app, "list-games", "--status", "lost").exit_code == 2


def test_list_games_of_an_empty_database(app):
    result = flask(app, "list-games")
    assert result.exit_code == 0 and result.output == ""


def test_init_db_on_an_existing_database_keeps_its_data(app, client):
    game = create(client)
    for _ in range(2):
        result = flask(app, "init-db")
        assert result.exit_code == 0, result.output
        assert result.output.strip() == f"Initialised {app.config['DATABASE']}"
    listed = flask(app, "list-games").output
    assert listed.startswith(game["id"])
    path = re.sub(r"^http://localhost", "", game["seats"][0]["url"])
    assert client.get(path).status_code == 200  # its links still open it


def test_init_db_creates_a_new_database(tmp_path, monkeypatch):
    app = make_app(tmp_path, monkeypatch)
    Path(app.config["DATABASE"]).unlink()
    result = flask(app, "init-db")
    assert result.exit_code == 0, result.output
    db = connect(app.config["DATABASE"])
    try:
        assert {"games", "seats", "events", "links", "home_links", "outbox"} <= set(
            db.table_names())
    finally:
        db.close()


# -- the scheduler -----------------------------------------------------------------------

def test_background_scheduler_delivers_and_only_one_runs(smtp_app, smtp):
    create(smtp_app.test_client())
    jobs = scheduler.start_background(smtp_app)
    assert jobs is not None
    try:
        wait_for(lambda: len(smtp.messages) == 2, what="the scheduler to send the mail")
        # A second scheduler for the same instance (another worker process) stands aside.
        assert scheduler.start_background(smtp_app) is None
        result = flask(smtp_app, "run-scheduler")
        assert result.exit_code != 0
        assert isinstance(result.exception, RuntimeError)
        assert "already running" in str(result.exception)
    finally:
        jobs.shutdown(wait=True)
        jobs.lock_handle.close()
    assert len(smtp.messages) == 2


def flask_command(tmp_path, smtp_port: int, *args: str,
                  public_url: str | None = "http://games.test") -> subprocess.Popen:
    env = {**os.environ, "PBEM_INSTANCE": str(tmp_path / "instance"),
           "PBEM_DATABASE": str(tmp_path / "pbem.sqlite"),
           "PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(smtp_port),
           "PBEM_MAIL_INTERVAL_SECONDS": "1", "PYTHONUNBUFFERED": "1"}
    if public_url:
        env["PBEM_PUBLIC_URL"] = public_url
    return subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def stop(process: subprocess.Popen) -> str:
    if process.poll() is None:
        process.terminate()
    output, _ = process.communicate(timeout=10)
    return output


def answers(process: subprocess.Popen, url: str) -> bool:
    """Whether the server ``process`` (which must still be running) answers ``url``."""
    assert process.poll() is None, stop(process)
    try:
        return urllib.request.urlopen(url, timeout=2).status == 200
    except OSError:
        return False


def test_run_scheduler_process_delivers_queued_mail(tmp_path, monkeypatch, smtp):
    app = make_app(tmp_path, monkeypatch)
    create(app.test_client())
    process = flask_command(tmp_path, smtp.port, "run-scheduler")
    try:
        wait_for(lambda: len(smtp.messages) == 2 or process.poll() is not None,
                 what="run-scheduler to send the mail")
        assert process.poll() is None
        # A second one for the same instance refuses to start.
        second = flask_command(tmp_path, smtp.port, "run-scheduler")
        assert second.wait(timeout=20) != 0
        assert "Another process is already running the scheduler." in stop(second)
    finally:
        output = stop(process)
    assert "Scheduler running" in output
    assert sorted(m["To"] for m in smtp.messages) == ["ann@example.org", "bob@example.org"]


def test_the_readme_quick_start_serves_on_another_port(tmp_path):
    """The quick start shows ``./dev serve --port 8080``: run it as written (on a free port
    rather than 8080), through the project's own ``dev`` script."""
    quick_start = (ROOT / "README.md").read_text().split("\n## ")[0]
    shown = re.search(r"`(\./dev serve --port 8080)`", quick_start)
    assert shown, "the README's quick start does not show how to pick the port"
    port = free_port()
    env = {**os.environ, "PBEM_INSTANCE": str(tmp_path / "instance"),
           "PBEM_DATABASE": str(tmp_path / "pbem.sqlite"), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(shown.group(1).replace("8080", str(port)).split(), cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    try:  # it may set up .venv first
        wait_for(lambda: answers(process, f"http://127.0.0.1:{port}/"), timeout=120,
                 what="./dev serve to start")
    finally:
        output = stop(process)
    assert f"Running on http://127.0.0.1:{port}" in output


def test_serve_runs_the_site_and_delivers_mail_with_working_links(tmp_path, smtp):
    port = free_port()
    process = flask_command(tmp_path, smtp.port, "serve", "--port", str(port), public_url=None)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: answers(process, f"{base}/"), timeout=20, what="the server to start")
        body = json.dumps({"game": "mastery", "players": [
            {"name": "Ann", "email": "ann@example.org"},
            {"name": "Bob", "email": "bob@example.org"}]}).encode()
        request = urllib.request.Request(f"{base}/api/games", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert answer.status == 201
        wait_for(lambda: len(smtp.messages) == 2, what="the served scheduler to send the mail")
        tokens = []
        for message in smtp.messages:
            link = re.search(rf"{re.escape(base)}/play/([A-Za-z0-9_-]{{32}})",
                             message.get_body(("plain",)).get_content())
            assert link, message.get_body(("plain",)).get_content()
            tokens.append(link.group(1))
            with urllib.request.urlopen(link.group(0), timeout=5) as page:
                assert page.status == 200
        # With SMTP configured there is no local mail page.
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/mail", timeout=5)
        assert refused.value.code == 404
    finally:
        output = stop(process)
    assert "Scheduler: running." in output
    assert "GET /play/[secret]" in output  # request log lines keep secrets out
    assert not any(token in output for token in tokens)
