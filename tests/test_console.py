"""Operating the site (``pbem/web/console.py``): /healthz, /metrics in Prometheus's
format, the operators' console and its command, and the job process's runs they read."""
from __future__ import annotations

from datetime import timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families

from pbem.jobs import scheduler
from pbem.store import utc
from pbem.store.db import connect

from helpers import api_move, free_port, sign_up
from test_cli import flask

TOKEN = "metrics-secret"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def scraped(client) -> dict[tuple[str, tuple], float]:
    """/metrics as (sample name, its labels) -> value."""
    answer = client.get("/metrics", headers=BEARER)
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.get_data(as_text=True))
            for sample in family.samples}


def run_every_job(app) -> None:
    """Each job once, as the job process runs it (and notes it)."""
    for job, every in ((scheduler.send_emails, 20), (scheduler.send_posts, 20),
                       (scheduler.check_clocks, 60), (scheduler.play_bots, 3)):
        scheduler.recorded(job, app, job.__name__.replace("_", "-"), every)


def test_healthz_tells_the_database_the_jobs_and_the_outbox(app, client, new_game,
                                                           monkeypatch):
    fresh = client.get("/healthz")
    assert fresh.status_code == 200
    assert fresh.json == {"status": "ok", "database": "ok",
                          "jobs": {"last_run": None, "late": True},  # never ran
                          "outbox": {"due": 0, "oldest_due_seconds": 0}}
    new_game()  # two start emails, due at once
    now = utc.now()
    monkeypatch.setattr(utc, "now", lambda: now + timedelta(seconds=90))
    waiting = client.get("/healthz").json["outbox"]
    assert waiting["due"] == 2 and 90 <= waiting["oldest_due_seconds"] < 95
    run_every_job(app)  # the emails sent (to files), each job's run noted
    body = client.get("/healthz")
    assert body.json["outbox"] == {"due": 0, "oldest_due_seconds": 0}
    assert not body.json["jobs"]["late"]
    ran = utc.parse(body.json["jobs"]["last_run"]) - (now + timedelta(seconds=90))
    assert timedelta(seconds=-1) <= ran < timedelta(seconds=5)  # written to the second
    assert "@" not in body.get_data(as_text=True)  # no address, no secret
    # the job process stopped: once a job has missed two of its runs and five minutes
    monkeypatch.setattr(utc, "now", lambda: now + timedelta(seconds=90 + 2 * 3 + 301))
    assert client.get("/healthz").json["jobs"]["late"]


def test_healthz_fails_when_the_database_cannot_be_reached(app, client, database):
    app.config["DATABASE"] = (f"postgresql://nobody@127.0.0.1:{free_port()}/nothing"
                              if database.startswith("postgresql") else "/nonexistent/pbem.sqlite")
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json == {"status": "failing", "database": "unreachable"}


@pytest.mark.one_database  # who is answered, before anything is read
def test_metrics_answer_only_the_configured_token(app, client):
    assert client.get("/metrics").status_code == 404  # no METRICS_TOKEN: no such page
    app.config["METRICS_TOKEN"] = TOKEN
    for sent in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        assert client.get("/metrics", headers=sent).status_code == 404
    assert client.get("/metrics", headers=BEARER).status_code == 200


def test_metrics_count_games_moves_deliveries_requests_and_jobs(app, client, db, new_game,
                                                                smtp):
    app.config.update(METRICS_TOKEN=TOKEN, SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    before = scraped(client)
    game = new_game()
    seat = client.get(game.apis[0]).json["to_move"][0]
    api_move(client, game.apis[seat], client.get(game.apis[seat]).json["legal_moves"][0])
    assert client.get("/nowhere").status_code == 404
    smtp.refuse_rcpt = "550 5.1.1 No such user"  # every email of this round bounces
    run_every_job(app)
    after = scraped(client)
    assert after[("pbem_games_active", ())] == 1 and after[("pbem_moves_total", ())] == 1
    assert after[("pbem_deliveries_total", (("channel", "email"), ("outcome", "deferred")))] == 3
    assert after[("pbem_outbox_due", ())] == 0  # tried again later: not due yet
    created = ("pbem_http_requests_total", (("status", "201"),))
    missing = ("pbem_http_requests_total", (("status", "404"),))
    assert after[created] - before.get(created, 0) == 1  # the new game
    assert after[missing] - before.get(missing, 0) == 1
    runs = ("pbem_job_run_seconds_count", (("job", "send-emails"),))
    assert after[runs] == 1 and after[("pbem_jobs_late", ())] == 0
    assert after[("pbem_job_failures_total", (("job", "play-bots"),))] == 0

    smtp.refuse_rcpt = None
    db.execute("UPDATE outbox SET next_attempt_at = created_at")  # their retry comes due
    run_every_job(app)
    sent = scraped(client)[("pbem_deliveries_total", (("channel", "email"), ("outcome", "sent")))]
    assert sent == 3 and len(smtp.messages) == 3


def test_a_failing_job_is_counted_and_its_error_kept(app, client, monkeypatch):
    app.config["METRICS_TOKEN"] = TOKEN

    def broken(app):
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError):
        scheduler.recorded(broken, app, "play-bots", 3)
    assert scraped(client)[("pbem_job_failures_total", (("job", "play-bots"),))] == 1
    assert flask(app, "operators", "add", sign_up_handle(app, client)).exit_code == 0
    assert "RuntimeError: the disk is full" in client.get("/console").get_data(as_text=True)


def sign_up_handle(app, client, handle: str = "Olga") -> str:
    """A new player, ``client`` signed in as them; their handle."""
    db = connect(app.config["DATABASE"])
    try:
        sign_up(client, db, handle)
    finally:
        db.close()
    return handle


def test_the_console_is_for_operators_named_by_the_command(app, client, smtp):
    assert client.get("/console").status_code == 403  # nobody signed in
    handle = sign_up_handle(app, client)
    assert client.get("/console").status_code == 403  # a player, not an operator
    assert flask(app, "operators", "add", "Nobody").exit_code != 0
    added = flask(app, "operators", "add", handle)
    assert added.exit_code == 0 and "is now one of the operators" in added.output
    assert flask(app, "operators", "list").output.split() == [handle]

    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port, WEBHOOK_ALLOW_PRIVATE=True)
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]})
    ann, bob = (seat["api"].replace("http://localhost", "") for seat in created.json["seats"])
    hook = f"http://127.0.0.1:{free_port()}/hooks/secret-path"  # nobody answers there
    assert client.put(f"{bob}/webhook", json={"url": hook}).status_code == 200
    assert client.post(f"{ann}/chat", json={"text": "Hello"}).status_code == 201
    smtp.refuse_rcpt = "550 5.1.1 No such user"
    run_every_job(app)
    page = client.get("/console").get_data(as_text=True)
    assert "Health" in page and "send-emails" in page and "Failed deliveries" in page
    assert "ann@example.org" in page and "550" in page  # what bounced, and why
    assert "127.0.0.1" in page and "secret-path" not in page  # a webhook: its host alone
    assert flask(app, "operators", "remove", handle).exit_code == 0
    assert client.get("/console").status_code == 403
