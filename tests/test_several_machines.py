"""Several machines on one database: web servers (gunicorn with the project's
``gunicorn.conf.py``, each its own process with its own cache and instance folder) and job
runners at once. Every test runs on both storage engines (SQLite: processes of one
machine sharing its file; PostgreSQL: what several machines share)."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import create_app
from pbem.store import utc
from pbem.mail import outbox
from pbem.jobs import scheduler
from pbem.store.db import connect, dialect, is_url, write

from helpers import free_port, path_of
from test_migrations import waiting_for_lock
from test_production import GUNICORN, stop, wait_up

ROOT = Path(__file__).resolve().parent.parent
ANN, BOB = {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}


def machine_env(tmp_path, database: str, name: str, **settings: str) -> dict[str, str]:
    """The environment of a process on machine ``name``: its own instance folder, the
    shared database, and the settings every machine must share (the secret key)."""
    return {**os.environ, "PBEM_INSTANCE": str(tmp_path / name), "PBEM_DATABASE": database,
            "PBEM_SECRET_KEY": "shared by every machine", "PBEM_MAIL_FOLDER": str(tmp_path / "mail"),
            "PBEM_PUBLIC_URL": "https://games.example.org", "PYTHONUNBUFFERED": "1", **settings}


@contextlib.contextmanager
def serving(tmp_path, database: str, machines=("web1", "web2"), **settings: str):
    """Web machines serving one database, each gunicorn with one worker: their base URLs."""
    processes, bases = [], []
    try:
        for name in machines:
            port = free_port()
            env = machine_env(tmp_path, database, name, PBEM_BIND=f"127.0.0.1:{port}",
                              PBEM_WORKERS="1", **settings)
            processes.append(subprocess.Popen(
                [str(GUNICORN)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True))
            bases.append(f"http://127.0.0.1:{port}")
        for process, base in zip(processes, bases):
            wait_up(process, base)
        yield bases
    finally:
        outputs = [stop(process) for process in processes]
    assert not any("Traceback" in output for output in outputs), outputs


@pytest.fixture
def web_machines(tmp_path, database):
    with serving(tmp_path, database) as bases:
        yield bases


def call(url: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_two_web_machines_see_each_others_moves_and_record_a_move_once(web_machines):
    one, two = web_machines
    status, created = call(f"{one}/api/games", {"game": "mastery", "players": [ANN, BOB]})
    assert status == 201
    apis = [path_of(seat["api"]) for seat in created["seats"]]
    assert call(one + apis[1])[1]["ply"] == 0  # the first machine has the game cached
    poll = one + apis[1].replace("/api/play/", "/play/") + "/version"  # an open page's
    etag = urllib.request.urlopen(poll, timeout=10).headers["ETag"]
    with pytest.raises(urllib.error.HTTPError, match="304"):
        urllib.request.urlopen(urllib.request.Request(poll, headers={"If-None-Match": etag}))
    status, moved = call(f"{two}{apis[0]}/moves", {"move": "d4xc5", "ply": 0})
    assert status == 200 and moved["ply"] == 1
    # the page open on the first machine learns of it at its next poll
    changed = urllib.request.urlopen(urllib.request.Request(poll, headers={"If-None-Match": etag}))
    assert changed.status == 200 and changed.headers["ETag"] != etag
    # the first machine's cache notices the move the second recorded
    seen = call(one + apis[1])[1]
    assert seen["ply"] == 1 and seen["to_move"] == [1]
    assert call(f"{one}{apis[0]}/record.json".replace("/api/play/", "/play/"))[1]["events"][0][
        "move"] == "d4xc5"

    # the same move sent to both machines at once: one records it, and the others are
    # refused as stale (the API's contract), with nothing recorded twice
    move = seen["legal_moves"][0]
    barrier, statuses = threading.Barrier(4), []

    def submit(base: str) -> None:
        barrier.wait()
        statuses.append(call(f"{base}{apis[1]}/moves", {"move": move, "ply": 1})[0])

    threads = [threading.Thread(target=submit, args=(base,)) for base in (one, two, one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409, 409, 409]
    for base in (one, two):
        assert call(base + apis[0])[1]["ply"] == 2


def flask_command(tmp_path, database: str, machine: str, *args: str, **settings: str):
    return subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", *args], cwd=ROOT,
                            env=machine_env(tmp_path, database, machine, **settings),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def both(*processes: subprocess.Popen) -> list[str]:
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    return outputs


def racing(database: str, start, sessions_each: int = 1) -> list[str]:
    """The outputs of the two job runners ``start()`` starts, once both have run to the end:
    they are started while every writer is held (SQLite: the write lock; PostgreSQL: the
    games' and the outbox's rows) and let go together once both wait for it, so that they
    race over the same work however the machine's load staggers their starts. Each waits in
    ``sessions_each`` connections (``send-mail``: its emails' lane and its posts')."""
    holder = connect(database)
    try:
        with write(holder):
            if dialect(holder) == "postgresql":
                holder.execute("LOCK TABLE games, outbox IN EXCLUSIVE MODE")
            processes = start()
            waiting_for_lock(holder, processes, database, sessions_each)
        return both(*processes)
    finally:
        holder.close()


def test_two_job_runners_send_every_email_once(app, db, tmp_path, smtp):
    database = app.config["DATABASE"]
    with write(db):  # several claims of 50
        for number in range(120):
            outbox.queue(db, recipient=f"player{number}@example.org", subject="Your move",
                         body="It is your move.")
    smtp_settings = {"PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(smtp.port)}
    outputs = racing(database, lambda: [
        flask_command(tmp_path, database, machine, "send-mail", **smtp_settings)
        for machine in ("jobs1", "jobs2")], sessions_each=2)
    sent = [int(output.split()[0]) for output in outputs]
    assert sum(sent) == 120, outputs
    ids = [message["Message-ID"] for message in smtp.messages]
    assert len(ids) == len(set(ids)) == 120
    assert db.execute("SELECT count(*) FROM outbox WHERE status = 'sent'").fetchone()[0] == 120


def test_two_deliverers_at_once_claim_different_emails(app, client, monkeypatch):
    database = app.config["DATABASE"]
    for _ in range(3):  # 6 start emails
        client.post("/api/games", json={"game": "mastery", "players": [ANN, BOB]})
    first_claimed, second_claimed = threading.Event(), threading.Event()
    lease = outbox._lease

    def lease_later(db, rows):  # the first claim commits only once the second has read
        if not first_claimed.is_set():
            first_claimed.set()
            second_claimed.wait(2)  # (SQLite: the second waits for this one to commit)
        else:
            second_claimed.set()
        lease(db, rows)

    monkeypatch.setattr(outbox, "_lease", lease_later)
    claims = []

    def claim() -> None:
        db = connect(database)
        try:
            claims.append([row["id"] for row in outbox._claim(db, 4, outbox.EMAIL)])
        finally:
            db.close()

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for thread in threads:
        thread.start()
        first_claimed.wait(5)
    for thread in threads:
        thread.join()
    assert sorted(len(ids) for ids in claims) == [2, 4]
    assert len(set(claims[0] + claims[1])) == 6


def test_two_job_runners_play_every_computer_move_once(app, client, tmp_path):
    database = app.config["DATABASE"]
    games = [client.post("/api/games", json={"game": "mastery", "players": [
        {"bot": "easy"}, ANN]}).json["id"] for _ in range(6)]
    outputs = racing(database, lambda: [flask_command(tmp_path, database, machine, "play-bots")
                                        for machine in ("jobs1", "jobs2")])
    played = [int(output.split()[0]) for output in outputs]
    assert sum(played) == 6, outputs
    db = connect(database)
    for game_id in games:
        assert [(row["seq"], row["seat"]) for row in db.query(
            "SELECT seq, seat FROM events WHERE game_id = ?", [game_id])] == [(1, 0)]


def test_two_job_runners_end_a_game_on_time_once(app, client, tmp_path, database):
    clock = {"mode": "per_move", "days": 1}
    games = [client.post("/api/games", json={"game": "mastery", "players": [ANN, BOB],
                                             "clock": clock}).json["id"] for _ in range(5)]
    runners = [create_app({"DATABASE": database, "SECRET_KEY": "test", "TESTING": True,
                           "MAIL_FOLDER": str(tmp_path / "mail"),
                           "PUBLIC_URL": "http://localhost"}) for _ in range(2)]
    later = utc.now() + timedelta(days=3)
    ended = []
    threads = [threading.Thread(target=lambda r=runner: ended.append(
        scheduler.check_clocks(r, later)[0])) for runner in runners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(ended) == 5
    db = connect(database)
    for game_id in games:
        assert [row["kind"] for row in db.query(
            "SELECT kind FROM events WHERE game_id = ?", [game_id])] == ["timeout"]
        assert db.execute("SELECT count(*) FROM outbox WHERE game_id = ? AND kind = 'end'",
                          [game_id]).fetchone()[0] == 2


def test_one_scheduler_runs_for_all_machines(app, tmp_path):
    database = app.config["DATABASE"]
    first = flask_command(tmp_path, database, "jobs1", "run-scheduler")
    try:
        line = first.stdout.readline()
        assert "Scheduler running" in line, line + stop(first)
        second = flask_command(tmp_path, database, "jobs2" if is_url(database) else "jobs1",
                               "run-scheduler")
        assert second.wait(timeout=60) != 0
        assert "Another process is already running the scheduler." in stop(second)
    finally:
        stop(first)
    # once it has stopped, another machine's may start
    third = flask_command(tmp_path, database, "jobs2" if is_url(database) else "jobs1",
                          "run-scheduler")
    try:
        line = third.stdout.readline()
        assert "Scheduler running" in line, line + stop(third)
    finally:
        stop(third)


def test_every_machine_counts_against_one_rate_limit(tmp_path, database):
    """With PostgreSQL, a client's allowance is counted in the database, whichever machine
    answers; with SQLite, by the machine's processes together (one instance folder)."""
    machines = ("web1", "web2") if is_url(database) else ("web", "web")
    with serving(tmp_path, database, machines, PBEM_RATELIMIT_ENABLED="true",
                 PBEM_RATE_LIMIT_CREATE="3 per hour") as (one, two):
        body = {"game": "mastery", "players": [ANN, BOB]}
        statuses = [call(f"{base}/api/games", body)[0] for base in (one, two, one, two)]
    assert statuses == [201, 201, 201, 429]
