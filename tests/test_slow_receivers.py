"""Nobody's slow receiver holds up anyone's email: the outbox's webhook posts and push
messages go in a lane of their own beside the emails, to many destinations at once, each
within a deadline in all; real HTTP servers on loopback that never answer or answer a byte
at a time, beside a real SMTP server (aiosmtpd)."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

from pbem.jobs import scheduler
from pbem.mail import outbox, webhooks
from pbem.store import utc

from helpers import SlowReceiver
from test_webhooks import Receiver

DEADLINE = 2.0  # the posts' deadline in these tests, in seconds (10 on a server)


@pytest.fixture
def slow(app, monkeypatch):
    """Makes slow receivers, closed after the test; posts may go to loopback, and take
    ``DEADLINE`` seconds."""
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    monkeypatch.setattr(webhooks, "DEADLINE", DEADLINE)
    made: list[SlowReceiver] = []

    def receiver(dribble: float | None = None) -> SlowReceiver:
        made.append(SlowReceiver(dribble))
        return made[-1]

    yield receiver
    for each in made:
        each.close()


def post_to(db, url: str) -> None:
    outbox.queue(db, recipient=url, subject="", body=webhooks.payload("g1", "turn", "Hello"),
                 channel="webhook")


def rows(db, channel: str) -> list[dict]:
    return [dict(row) for row in db.execute(
        "SELECT * FROM outbox WHERE channel = ? ORDER BY id", [channel]).fetchall()]


def test_an_email_queued_after_posts_to_slow_receivers_goes_out_at_once(app, db, smtp, slow):
    """3 receivers that answer a byte at a time and 12 that never answer, queued before a
    sign-in email and a post to a receiver that answers: the email is delivered at once,
    the good post within the round, and the round lasts about one deadline, not one per
    receiver, nor one per byte."""
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    slow_ones = [slow(dribble=0.5) for _ in range(3)] + [slow() for _ in range(12)]
    for receiver in slow_ones:
        post_to(db, receiver.url)
    good = Receiver()
    try:
        post_to(db, good.url)
        outbox.queue(db, recipient="ann@example.org", subject="Your sign-in link", body="Hi")
        started = time.monotonic()
        delivering = threading.Thread(target=scheduler.deliver_mail, args=(app,))
        delivering.start()
        while not smtp.received and time.monotonic() - started < 3 * DEADLINE:
            time.sleep(0.01)
        emailed = time.monotonic() - started
        delivering.join()
        finished = time.monotonic() - started
        assert len(good.posts) == 1
    finally:
        good.server.shutdown()
    assert [message["Subject"] for message in smtp.messages] == ["Your sign-in link"]
    assert emailed < DEADLINE / 2, emailed  # not behind any post
    assert DEADLINE <= finished < 2.5 * DEADLINE, finished  # the posts side by side
    assert all(len(receiver.connections) == 1 for receiver in slow_ones)
    posts = rows(db, "webhook")
    assert [row["status"] for row in posts] == ["pending"] * 15 + ["sent"]
    for row in posts[:15]:
        assert row["attempts"] == 1 and row["last_error"].startswith("TimeoutError")
        # backed off as any failure is: a second round leaves them alone
        delay = utc.parse(row["next_attempt_at"]) - utc.now()
        assert timedelta(seconds=100) <= delay <= timedelta(seconds=120)
    started = time.monotonic()
    assert scheduler.deliver_mail(app) == (0, 0)
    assert time.monotonic() - started < DEADLINE / 2


def test_a_destination_that_does_not_answer_gets_two_posts_a_round(app, db, slow):
    """Posts to one destination (host and port) go two at a time at most, each receiver's
    in order; once one gets no answer, the round's other posts to it are not made, and
    wait with it."""
    silent = slow()
    for path in ("a", "b", "c", "d"):
        post_to(db, f"{silent.url}/{path}")
    post_to(db, f"{silent.url}/a")
    started = time.monotonic()
    assert scheduler.send_posts(app) == (0, 5)
    assert time.monotonic() - started < 1.5 * DEADLINE
    assert len(silent.connections) == outbox.PER_DESTINATION
    errors = [row["last_error"].split(":")[0] for row in rows(db, "webhook")]
    assert sorted(errors) == ["TimeoutError"] * 2 + ["Unanswered"] * 3
    assert {row["attempts"] for row in rows(db, "webhook")} == {1}


def test_two_deliverers_at_once_make_each_post_once(app, db, slow):
    """Job processes on several machines: each post is claimed by one of them."""
    receiver = Receiver()
    try:
        for number in range(12):
            post_to(db, f"{receiver.url}&n={number}")
        lanes = [threading.Thread(target=scheduler.send_posts, args=(app,)) for _ in range(2)]
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()
    finally:
        receiver.server.shutdown()
    assert sorted(path for path, _, _ in receiver.posts) == sorted(
        f"/hooks/abc?wait=true&n={number}" for number in range(12))
    assert {row["status"] for row in rows(db, "webhook")} == {"sent"}
