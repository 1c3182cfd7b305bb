"""Bounces (``pbem/mail/bounces.py``): each email's envelope sender names its mailbox, the
delivery reports sent back to it reach the listener or ``receive-mail``, and a mailbox
that bounces gets no more email until its owner tries again or signs in. The reports are
this file's own samples (``tests/bounces/``), in the shapes of Postfix, Exim (a report,
and an old plain one), Gmail and Outlook, a delay (a temporary failure) and an
out-of-office reply."""
from __future__ import annotations

import re
import smtplib
from pathlib import Path

import pytest
from email import policy
from email.parser import BytesParser

from pbem import links, players, roles
from pbem.jobs import scheduler
from pbem.mail import bounces, listener, webhooks
from pbem.store.db import connect

from helpers import api_move, everything_in, free_port, sign_up
from test_cli import flask
from test_limits import limited  # noqa: F401 - a fixture

SAMPLES = Path(__file__).parent / "bounces"
RETURN_PATH = re.compile(r"bounce\+([A-Za-z0-9_-]{32})@pbem\.localhost")
ANN = "p1@example.org"  # the first seat of new_game


def sample(name: str, to: str, message_id: str = "<1.2@pbem.localhost>",
           recipient: str = ANN) -> bytes:
    """The report ``name`` of tests/bounces, sent back to ``to`` about ``message_id``."""
    text = (SAMPLES / f"{name}.eml").read_text()
    return text.format(to=to, recipient=recipient, message_id=message_id) \
        .replace("\n", "\r\n").encode()


@pytest.mark.one_database  # how a report is read, before anything is stored
@pytest.mark.parametrize("name, permanent", [
    ("postfix", True), ("exim", True), ("exim_plain", True), ("gmail", True),
    ("outlook", True), ("delayed", False), ("out_of_office", None)])
def test_each_shape_of_report_reads_as_its_failure(name, permanent):
    message = BytesParser(policy=policy.default).parsebytes(
        sample(name, "bounce+x@pbem.localhost"))
    found = bounces.report(message)
    if permanent is None:
        assert found is None  # an automatic reply never counts
        return
    assert found is not None and found.permanent is permanent
    if name != "exim_plain":  # the others return the email's headers, and its status
        assert found.message_id == "<1.2@pbem.localhost>"
        assert re.match(r"[45]\.\d+\.\d+", found.reason)


def delivered(app, smtp) -> list[tuple[str, list[str], object]]:
    """What the job process sends now, to the SMTP server ``smtp`` (new since the last)."""
    before = len(smtp.received)
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    scheduler.send_emails(app)
    return smtp.received[before:]


def return_path_of(app, smtp, new_game) -> tuple[object, str]:
    """A new game, its start emails sent: (the game, the envelope sender of Ann's)."""
    game = new_game()
    sent = {to[0]: sender for sender, to, _message in delivered(app, smtp)}
    assert RETURN_PATH.fullmatch(sent[ANN]) and sent[ANN] != sent["p2@example.org"]
    return game, sent[ANN]


def test_a_report_through_the_listener_stops_the_email_and_signing_in_starts_it(
        app, client, db, new_game, smtp):
    game, verp = return_path_of(app, smtp, new_game)
    secret = RETURN_PATH.fullmatch(verp).group(1)
    assert secret not in everything_in(db)  # only its hash is kept
    assert client.get(game.apis[0]).json["email_status"] == "ok"
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    with app.test_request_context():
        webhooks.set_url(db, game.id, 0, "http://127.0.0.1:9/ann")
    server = listener.MailListener(app, port=free_port())
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", server.port) as sending:
            # an address the server never sent from is refused at once
            sending.ehlo()
            code, _ = sending.docmd("MAIL FROM:<>")
            assert code == 250
            code, _ = sending.docmd(f"RCPT TO:<bounce+{'A' * 32}@pbem.localhost>")
            assert code == 550
            sending.rset()
            refused = sending.sendmail("", [verp], sample("postfix", verp))
            assert refused == {}
    finally:
        server.stop()
    assert client.get(game.apis[0]).json["email_status"] == "bouncing"
    assert client.get(game.apis[1]).json["email_status"] == "ok"  # the other seat's
    # no more email to Ann (her turn comes again), Bob's goes on; her sign-in link goes
    both_move(client, game)
    assert [to for _sender, to, _m in delivered(app, smtp)] == [["p2@example.org"]]
    assert db.execute("SELECT status FROM outbox WHERE channel = 'webhook' AND seat = 0 "
                      "AND kind = 'turn'").fetchone()[0] == "pending"  # posted as before
    held = db.execute("SELECT body FROM outbox WHERE recipient = ? AND status = 'held'",
                      [ANN]).fetchall()
    assert len(held) == 1 and not links.TOKEN_IN_URL.search(held[0][0])  # kept, no secret
    assert client.post("/api/sign-in", json={"email": ANN}).status_code == 202
    (_sender, to, sign_in), = delivered(app, smtp)
    assert to == [ANN]
    link = re.search(r"(/sign-in/\S+)", sign_in.get_body(("plain",)).get_content()).group(1)
    assert client.post(link, json={"handle": "Ann"}).status_code == 201
    assert client.get(game.apis[0]).json["email_status"] == "ok"  # proven again
    both_move(client, game)
    assert sorted(to[0] for _s, to, _m in delivered(app, smtp)) == [ANN, "p2@example.org"]


def both_move(client, game) -> None:
    """Ann moves, then Bob: a turn email to each."""
    for api in game.apis:
        api_move(client, api, client.get(api).json["legal_moves"][0])


def test_temporary_failures_of_three_emails_in_a_row_bounce_and_vacation_replies_never(
        app, client, db, new_game, smtp):
    game, verp = return_path_of(app, smtp, new_game)

    def received(name: str, message_id: str) -> str:
        result = flask(app, "receive-mail", "--recipient", verp, "--sender", "",
                       input=sample(name, verp, message_id))
        assert result.exit_code == 0, result.output
        return result.output.strip()

    for number in range(5):  # "out of office", however often
        assert received("out_of_office", f"<{number}@pbem.localhost>") == "ignored"
    assert received("delayed", "<1@pbem.localhost>") == "counted"
    assert received("delayed", "<1@pbem.localhost>") == "counted"  # the same email's: once
    assert client.get(game.apis[0]).json["email_status"] == "ok"
    assert received("delayed", "<2@pbem.localhost>") == "counted"
    assert received("delayed", "<3@pbem.localhost>") == "bouncing"
    assert client.get(game.apis[0]).json["email_status"] == "bouncing"
    # the seat's settings page says so, and its button (a POST, then a redirect) tries again
    settings = game.urls[0] + "/email"
    page = client.get(settings).get_data(as_text=True)
    assert f"Emails to {ANN} bounce." in page and "452 4.2.2 Mailbox full" in page
    tried = client.post(settings, data={"retry": "settings"})
    assert tried.status_code == 303 and tried.location.endswith(settings)
    assert client.get(game.apis[0]).json["email_status"] == "ok"
    assert "bounce." not in client.get(settings).get_data(as_text=True)
    assert received("delayed", "<4@pbem.localhost>") == "counted"  # counted from nought
    assert bounces.status(db, ANN) is None


def test_a_report_without_its_envelope_is_found_by_its_headers(app, db, new_game, smtp):
    game, verp = return_path_of(app, smtp, new_game)
    result = flask(app, "receive-mail", input=sample("gmail", verp))
    assert result.exit_code == 0 and result.output.strip() == "bouncing"
    result = flask(app, "receive-mail", input=sample("gmail", verp.replace(
        RETURN_PATH.fullmatch(verp).group(1), "B" * 32)))
    assert result.exit_code == 67  # nobody's envelope sender: the MTA bounces it


def test_trying_again_is_rate_limited(limited, smtp):
    limited.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    client = limited.test_client()
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Ann", "email": ANN}, {"name": "Bob", "email": "p2@example.org"}]})
    scheduler.send_emails(limited)
    verp = next(sender for sender, to, _m in smtp.received if to == [ANN])
    settings = "/play/" + created.json["seats"][0]["url"].rsplit("/", 1)[1] + "/email"
    for _ in range(3):
        assert flask(limited, "receive-mail", "--recipient", verp,
                     input=sample("outlook", verp)).output.strip() == "bouncing"
        assert client.post(settings, data={"retry": "game"}).status_code == 303
    refused = client.post(settings, data={"retry": "game"})
    assert refused.status_code == 429 and "Too many tries to send email again" in refused.text
    assert client.post(settings, data={}).status_code == 303  # saving settings is not limited


def test_operators_see_the_addresses_that_bounce(app, client, db, new_game, smtp):
    sign_up(client, db, "Olga")
    roles.grant(db, players.by_handle(db, "Olga"), "operator")
    assert "No address bounces." in client.get("/console").get_data(as_text=True)
    game, verp = return_path_of(app, smtp, new_game)
    flask(app, "receive-mail", "--recipient", verp, input=sample("exim", verp))
    page = client.get("/console").get_data(as_text=True)
    assert 'id="bouncing"' in page and ANN in page and "5.0.0" in page


def test_a_changed_secret_key_makes_new_envelope_senders(app, db, new_game, smtp):
    game, verp = return_path_of(app, smtp, new_game)
    app.config["SECRET_KEY"] = "another"
    new_game()
    sent = {to[0]: sender for sender, to, _m in delivered(app, smtp)}
    assert sent[ANN] != verp
    other = connect(app.config["DATABASE"])
    try:
        assert bounces.addressed(other, [verp]) is None
        assert bounces.addressed(other, [sent[ANN]]) == ANN
    finally:
        other.close()
