"""The outbox and its delivery, with real parts: a real SMTP server on loopback (aiosmtpd),
the app's real SQLite file, real .eml files.

Time is never faked: "later" is simulated by moving a message's ``next_attempt_at`` into
the past in the database, which is what the passing of time does to it.
"""
from __future__ import annotations

import email
import email.policy
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aiosmtpd.controller import Controller

from pbem.mail import outbox
from pbem.jobs import scheduler
from pbem.store.db import connect

from helpers import Recorder, allow_inserts, database_errors, free_port, refuse_inserts

PAST = "2000-01-01T00:00:00+00:00"
# A secret link in an email body, as a path the test client can open.
LINK = re.compile(r"http://localhost(/(?:play|watch|home)/([A-Za-z0-9_-]{32}))")
PLAY_LINK = re.compile(r"http://localhost(/play/([A-Za-z0-9_-]{32}))")
SECRET = re.compile(r"/[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")




def outbox_rows(db, where: str = "", params=()) -> list[dict]:
    return [dict(row) for row in db.query(f"SELECT * FROM outbox {where} ORDER BY id", params)]


def make_due(db) -> None:
    """Let time pass: every pending message's next attempt is now due."""
    db.execute("UPDATE outbox SET next_attempt_at = ? WHERE status = 'pending'", [PAST])


def deliver(app, db, transport=None) -> tuple[int, int]:
    return outbox.deliver_due(db, transport or outbox.transport_from_config(app.config),
                              app.config["MAIL_FROM"], app.config["PUBLIC_URL"])


def smtp_transport(port: int) -> outbox.SMTPTransport:
    return outbox.SMTPTransport("127.0.0.1", port, timeout=5)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def now() -> datetime:
    return datetime.now(timezone.utc)


def text_of(message) -> str:
    """A received message's body, with SMTP's CRLF line ends read back as newlines."""
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def play_link(body: str) -> str:
    found = PLAY_LINK.findall(body)
    assert len(found) == 1, body
    return found[0][0]


def seat_opened(client, path: str) -> int:
    """The seat a /play/<token> link opens, checked on the page and through the API."""
    page = client.get(path)
    assert page.status_code == 200, page.data[:500]
    answer = client.get("/api" + path)
    assert answer.status_code == 200
    return answer.json["seat"]


def play_a_legal_move(client, api: str) -> str:
    state = client.get(api).json
    move = state["legal_moves"][0]
    response = client.post(f"{api}/moves", json={"move": move, "ply": state["ply"]})
    assert response.status_code == 200, response.json
    return move


# -- queueing ----------------------------------------------------------------------------

def test_creating_a_game_queues_one_pending_start_email_per_player(client, new_game, db):
    game = new_game()
    rows = outbox_rows(db)
    assert [row["recipient"] for row in rows] == ["p1@example.org", "p2@example.org"]
    for seat, row in enumerate(rows):
        assert row["status"] == "pending"
        assert row["attempts"] == 0
        assert row["game_id"] == game.id
        assert row["sent_at"] is None and row["last_error"] is None
        assert at(row["next_attempt_at"]) <= now()  # due at once
        assert row["subject"] == f"Game started — Mastery: Player 1 vs Player 2 [{game.id}]"
        assert f"Hello Player {seat + 1}," in row["body"]
        # The link is freshly minted for the email (only hashes are stored, so it cannot
        # repeat the creator's link) and opens this player's seat.
        link = play_link(row["body"])
        assert link != game.urls[seat]
        assert seat_opened(client, link) == seat
    assert "It is your turn." in rows[0]["body"]
    assert "You will get an email when it is your turn." in rows[1]["body"]
    assert len({row["message_id"] for row in rows}) == 2


def test_start_emails_are_queued_in_the_transaction_that_creates_the_game(client, db):
    """If the outbox cannot take the emails, the game is not created either."""
    refuse_inserts(db, "outbox", "outbox unavailable")
    body = {"game": "mastery", "players": [{"name": "A", "email": "a@example.org"},
                                           {"name": "B", "email": "b@example.org"}]}
    with pytest.raises(database_errors(), match="outbox unavailable"):
        client.post("/api/games", json=body)
    for table in ("games", "seats", "links", "outbox"):
        assert db[table].count == 0, table

    allow_inserts(db, "outbox")
    assert client.post("/api/games", json=body).status_code == 201
    assert db["games"].count == 1 and db["outbox"].count == 2


def test_a_move_whose_email_cannot_be_queued_is_not_recorded(client, new_game, db):
    game = new_game()
    refuse_inserts(db, "outbox", "outbox unavailable")
    state = client.get(game.apis[0]).json
    with pytest.raises(database_errors(), match="outbox unavailable"):
        client.post(f"{game.apis[0]}/moves", json={"move": state["legal_moves"][0], "ply": 0})
    allow_inserts(db, "outbox")
    assert db["events"].count == 0
    assert client.get(game.apis[0]).json["ply"] == 0
    assert len(outbox_rows(db)) == 2  # the start emails only


def test_a_move_emails_the_next_player_only(client, new_game, db):
    game = new_game()
    started = len(outbox_rows(db))

    move = play_a_legal_move(client, game.apis[0])
    new = outbox_rows(db, "WHERE id > ?", [started])
    assert [row["recipient"] for row in new] == ["p2@example.org"]
    body = new[0]["body"]
    assert "It is your turn in Mastery (ply 1)." in body
    assert f"Player 1 played: {move}" in body
    assert seat_opened(client, play_link(body)) == 1
    assert new[0]["subject"] == f"Your move — Mastery: Player 1 vs Player 2 [{game.id}]"
    assert json.loads(new[0]["headers"])["References"] == \
        json.loads(outbox_rows(db)[0]["headers"])["References"]  # one thread per game

    seen = new[0]["id"]
    play_a_legal_move(client, game.apis[1])
    new = outbox_rows(db, "WHERE id > ?", [seen])
    assert [row["recipient"] for row in new] == ["p1@example.org"]
    assert "(ply 2)" in new[0]["body"]
    assert seat_opened(client, play_link(new[0]["body"])) == 0


def test_a_refused_move_queues_nothing(client, new_game, db):
    game = new_game()
    response = client.post(f"{game.apis[1]}/moves", json={"move": "d8-d7", "ply": 0})
    assert response.status_code == 422  # not Light's turn
    assert len(outbox_rows(db)) == 2


def test_the_end_of_a_game_emails_every_player(client, new_game, db):
    game = new_game()
    started = len(outbox_rows(db))
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200

    new = outbox_rows(db, "WHERE id > ?", [started])
    assert sorted(row["recipient"] for row in new) == ["p1@example.org", "p2@example.org"]
    for row in new:
        assert "Game over in Mastery (Player 1 vs Player 2). Player 2 won: Player 1 " \
               "resigned." in row["body"]
        assert row["subject"] == f"Game over — Mastery: Player 1 vs Player 2 [{game.id}]"
        seat = 0 if row["recipient"] == "p1@example.org" else 1
        assert ("Congratulations!" in row["body"]) == (seat == 1)
        assert seat_opened(client, play_link(row["body"])) == seat
    # A finished game refuses further actions, and they cause no email.
    assert client.post(f"{game.apis[1]}/resign", json={}).status_code == 422
    assert len(outbox_rows(db)) == started + 2


def test_draw_offers_email_the_opponent_and_an_agreed_draw_everyone(app, client, new_game, db):
    game = new_game()
    mark = len(outbox_rows(db))
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    new = outbox_rows(db, "WHERE id > ?", [mark])
    assert [row["recipient"] for row in new] == ["p2@example.org"]
    assert "Player 1 offers a draw in Mastery (Player 1 vs Player 2)." in new[0]["body"]
    assert new[0]["subject"] == f"Draw offered — Mastery: Player 1 vs Player 2 [{game.id}]"
    assert seat_opened(client, play_link(new[0]["body"])) == 1

    mark = new[-1]["id"]
    assert client.post(f"{game.apis[1]}/draw", json={"answer": "decline"}).status_code == 200
    (declined,) = outbox_rows(db, "WHERE id > ?", [mark])  # the offerer is told
    assert declined["recipient"] == "p1@example.org"
    assert declined["subject"] == f"Draw declined — Mastery: Player 1 vs Player 2 [{game.id}]"
    assert "Player 2 declined your draw offer." in declined["body"]
    assert seat_opened(client, play_link(declined["body"])) == 0

    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    mark = outbox_rows(db)[-1]["id"]
    assert client.post(f"{game.apis[1]}/draw", json={"answer": "accept"}).status_code == 200
    new = outbox_rows(db, "WHERE id > ?", [mark])
    assert sorted(row["recipient"] for row in new) == ["p1@example.org", "p2@example.org"]
    assert all("Draw: draw agreed." in row["body"] for row in new)

    # Every kind of email loses its secrets once sent; the offers, answered before the mail
    # went out, are never sent (and lost theirs when they were answered).
    assert scheduler.deliver_mail(app) == (len(outbox_rows(db)) - 2, 0)
    for row in outbox_rows(db):
        assert row["status"] == ("withdrawn" if row["kind"] == "draw_offer" else "sent")
        assert not SECRET.search(row["body"]), row["body"]


def test_the_start_email_names_the_opponent_or_opponents(client, new_game, db):
    new_game(names=["Ann", "Bob"])
    two = outbox_rows(db)
    assert "You play Dark; your opponent: Bob." in two[0]["body"]
    assert "You play Light; your opponent: Ann." in two[1]["body"]
    game = new_game("the-right-moves", players=4, names=["Ann", "Bob", "Cid", "Dee"])
    four = outbox_rows(db, "WHERE game_id = ?", [game.id])
    assert "You play Red (1) with Cid (team Red); your opponents: Bob and Dee." in \
        four[0]["body"]
    assert "You play Blue (2) with Bob (team Blue); your opponents: Ann and Cid." in \
        four[3]["body"]
    assert four[0]["subject"] == \
        f"Game started — The Right Moves: Ann & Cid vs Bob & Dee [{game.id}]"


# -- delivery over real SMTP ---------------------------------------------------------------

def test_a_team_resignation_asks_the_partner_and_answers_the_proposer(app, client, new_game,
                                                                      db, smtp):
    game = new_game("the-right-moves", players=4, names=["Ann", "Bob", "Cid", "Dee"])
    assert deliver(app, db, smtp_transport(smtp.port)) == (4, 0)  # the start emails
    # (each step's mail goes before the next step: a proposal answered before its email
    # went out is never sent)
    for (seat, step), emails in zip(((0, {}), (2, {"answer": "decline"}), (2, {}), (0, {})),
                                    (1, 1, 1, 4)):
        assert client.post(f"{game.apis[seat]}/resign", json=step).status_code == 200
        assert deliver(app, db, smtp_transport(smtp.port)) == (emails, 0)

    game_line = f"The Right Moves: Ann & Cid vs Bob & Dee [{game.id}]"
    sent = [(m["To"], m["Subject"]) for m in smtp.messages[4:]]
    assert sent == [("p3@example.org", f"Resignation proposed — {game_line}"),
                    ("p1@example.org", f"Resignation declined — {game_line}"),
                    ("p1@example.org", f"Resignation proposed — {game_line}"),
                    *[(f"p{i}@example.org", f"Game over — {game_line}") for i in range(1, 5)]]
    proposed, declined, proposed_back, *over = smtp.messages[4:]
    assert "Ann, your partner in The Right Moves (Ann & Cid vs Bob & Dee), proposes that " \
           "your\nteam resign." in text_of(proposed)
    assert "reply to this email with one word: resign" in text_of(proposed)
    assert seat_opened(client, play_link(text_of(proposed))) == 2
    assert "Cid declined your proposal to resign: your team plays on." in text_of(declined)
    assert "Cid, your partner" in text_of(proposed_back)
    for message in over:
        assert "Bob and Dee won (team Blue): team Red resigned." in text_of(message)
    thread = f"<game-{game.id}@pbem.localhost>"
    assert all(m["References"] == thread for m in smtp.messages)  # one thread



def test_smtp_delivery_of_a_whole_game_threads_links_and_redaction(app, client, new_game, db,
                                                                    smtp):
    game = new_game()
    play_a_legal_move(client, game.apis[0])
    assert client.post(f"{game.apis[1]}/resign", json={}).status_code == 200
    queued = outbox_rows(db)
    assert len(queued) == 5  # 2 started, 1 your turn, 2 finished

    assert deliver(app, db, smtp_transport(smtp.port)) == (5, 0)

    assert len(smtp.received) == 5
    thread = f"<game-{game.id}@pbem.localhost>"
    tokens = []
    said = ["Game started", "Game started", "Your move", "Game over", "Game over"]
    for row, (mail_from, rcpt_tos, message), what in zip(queued, smtp.received, said):
        assert mail_from == "games@localhost"
        assert rcpt_tos == [row["recipient"]]
        assert message["From"] == app.config["MAIL_FROM"]
        assert message["To"] == row["recipient"]
        # what happened first; the thread is kept by References and In-Reply-To
        assert message["Subject"] == f"{what} — Mastery: Player 1 vs Player 2 [{game.id}]"
        assert message["Message-ID"] == row["message_id"]
        assert message["Message-ID"].endswith("@pbem.localhost>")
        assert message["References"] == thread
        assert message["In-Reply-To"] == thread
        assert message["Date"] is not None
        body = text_of(message)
        assert body.strip() == row["body"].strip()
        link = play_link(body)
        seat = int(row["recipient"][1]) - 1
        assert seat_opened(client, link) == seat  # the link really opens that seat
        tokens += [token for _, token in LINK.findall(body)]
    assert len({m["Message-ID"] for m in smtp.messages}) == 5
    play_tokens = [PLAY_LINK.search(text_of(m)).group(2) for m in smtp.messages]
    assert len(set(play_tokens)) == 5  # a freshly minted link in every email
    assert len(set(tokens) - set(play_tokens)) == 1  # and the spectators' link at the start

    sent = outbox_rows(db)
    for row in sent:
        assert row["status"] == "sent"
        assert row["attempts"] == 1
        assert row["sent_at"] is not None and row["last_error"] is None
        assert "[secret]" in row["body"]
        assert not SECRET.search(row["body"]), row["body"]
    stored = json.dumps(sent)
    assert not any(token in stored for token in tokens)
    # Redacting the stored copy does not revoke the link the player received.
    assert seat_opened(client, play_link(text_of(smtp.messages[0]))) == 0

    assert deliver(app, db, smtp_transport(smtp.port)) == (0, 0)  # nothing is sent twice
    assert len(smtp.received) == 5


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_login_is_used_when_configured(app, new_game, db):
    from aiosmtpd.smtp import AuthResult

    logins = []

    def authenticator(server, session, envelope, mechanism, data):
        logins.append((mechanism, data.login, data.password))
        return AuthResult(success=data.login == b"pbem" and data.password == b"s3cret",
                          handled=False)

    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(),
                            server_hostname="smtp.test", authenticator=authenticator,
                            auth_required=True, auth_require_tls=False)
    controller.start()
    try:
        new_game()
        wrong = outbox.SMTPTransport("127.0.0.1", controller.port, username="pbem",
                                     password="wrong", timeout=5)
        assert deliver(app, db, wrong) == (0, 2)
        assert all("SMTPAuthenticationError" in row["last_error"] for row in outbox_rows(db))
        make_due(db)
        right = outbox.SMTPTransport("127.0.0.1", controller.port, username="pbem",
                                     password="s3cret", timeout=5)
        assert deliver(app, db, right) == (2, 0)
    finally:
        controller.stop()
    assert len(handler.received) == 2
    assert logins[-1][1:] == (b"pbem", b"s3cret")


@pytest.mark.parametrize("failure", ["rcpt 550", "data 451", "closed port"])
def test_a_refusing_server_leaves_mail_pending_with_backoff_then_sends_same_message_id(
        app, client, new_game, db, smtp, failure):
    new_game()
    queued = outbox_rows(db)
    if failure == "rcpt 550":
        smtp.refuse_rcpt = "550 5.1.1 No such user here"
        transport = smtp_transport(smtp.port)
        error = "SMTPRecipientsRefused"
    elif failure == "data 451":
        smtp.refuse_data = "451 4.3.0 Try again later"
        transport = smtp_transport(smtp.port)
        error = "SMTPDataError"
    else:
        transport = smtp_transport(free_port())
        error = "ConnectionRefusedError"

    before = now()
    assert deliver(app, db, transport) == (0, 2)
    assert smtp.received == []
    for row in outbox_rows(db):
        assert row["status"] == "pending"
        assert row["attempts"] == 1
        assert row["sent_at"] is None
        assert row["last_error"].startswith(error), row["last_error"]
        assert not SECRET.search(row["last_error"])
        delay = at(row["next_attempt_at"]) - before
        assert timedelta(seconds=115) <= delay <= timedelta(seconds=125)  # 60 * 2**1
    # Not due yet: a second round right away leaves them alone.
    assert deliver(app, db, transport) == (0, 0)
    assert all(row["attempts"] == 1 for row in outbox_rows(db))

    # The server works again; once the backoff has passed the messages go out, with the
    # Message-IDs they were given when queued.
    smtp.refuse_rcpt = smtp.refuse_data = None
    make_due(db)
    assert deliver(app, db, smtp_transport(smtp.port)) == (2, 0)
    assert [m["Message-ID"] for m in smtp.messages] == [row["message_id"] for row in queued]
    for row in outbox_rows(db):
        assert row["status"] == "sent" and row["attempts"] == 2
    assert seat_opened(client, play_link(text_of(smtp.messages[1]))) == 1


def test_max_attempts_then_failed_with_growing_backoff(app, db):
    outbox.queue(db, recipient="someone@example.org", subject="Hello", body="Hi")
    closed = smtp_transport(free_port())
    delays = []
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        make_due(db)
        before = now()
        assert deliver(app, db, closed) == (0, 1)
        (row,) = outbox_rows(db)
        assert row["attempts"] == attempt
        delays.append((at(row["next_attempt_at"]) - before).total_seconds())
        expected = "failed" if attempt == outbox.MAX_ATTEMPTS else "pending"
        assert row["status"] == expected
    for attempt, delay in enumerate(delays[:-1], start=1):
        assert abs(delay - min(60 * 2 ** attempt, 6 * 3600)) <= 5, delays
    # A failed message is never tried again, however long one waits.
    db.execute("UPDATE outbox SET next_attempt_at = ?", [PAST])
    assert deliver(app, db, closed) == (0, 0)
    assert outbox_rows(db)[0]["attempts"] == outbox.MAX_ATTEMPTS


def test_an_unsendable_address_does_not_stall_the_outbox_rows(app, client, new_game, db, smtp):
    # Anyone can queue an email to any accepted address through the "my games" form.
    client.post("/home", data={"email": "x@[192.0.2.1"})
    new_game()
    sent, _failed = deliver(app, db, smtp_transport(smtp.port))
    assert sent == 2
    assert sorted(m["To"] for m in smtp.messages) == ["p1@example.org", "p2@example.org"]


def test_a_batch_goes_out_over_one_connection_however_many_are_due(app, db, smtp):
    count = 2 * outbox.CHUNK + 30  # more than one claim, and more than a run once sent
    for number in range(count):
        outbox.queue(db, recipient=f"player{number}@example.org", subject=f"Message {number}",
                     body="Hello")
    assert deliver(app, db, smtp_transport(smtp.port)) == (count, 0)
    assert [m["Subject"] for m in smtp.messages] == [f"Message {n}" for n in range(count)]
    assert len(smtp.sessions) == 1
    assert {row["status"] for row in outbox_rows(db)} == {"sent"}
    # a refused message leaves the connection to the others; the next batch has its own
    outbox.queue(db, recipient="x@[192.0.2.1", subject="Refused", body="Hello")
    for number in range(3):
        outbox.queue(db, recipient="someone@example.org", subject=f"Later {number}", body="Hi")
    assert deliver(app, db, smtp_transport(smtp.port)) == (3, 1)
    assert len(smtp.sessions) == 2


# -- the lease of a claimed message ------------------------------------------------------

class DiesAfterSending:
    """A transport that hands the message on and then the process "dies" (an exception the
    deliverer does not handle), before the message can be marked sent."""

    def __init__(self, inner):
        self.inner = inner

    def send(self, message):
        self.inner.send(message)
        raise SystemExit("killed")

    def close(self):
        self.inner.close()


def test_a_deliverer_that_dies_leaves_claimed_mail_leased_then_resends_same_id(app, db, smtp,
                                                                               new_game):
    new_game()
    queued = outbox_rows(db)
    started = now()
    with pytest.raises(SystemExit):
        deliver(app, db, DiesAfterSending(smtp_transport(smtp.port)))
    assert len(smtp.received) == 1
    for row in outbox_rows(db):
        assert row["status"] == "pending" and row["attempts"] == 0
        # Both were claimed: the lease keeps other deliverers away for a while.
        lease = at(row["next_attempt_at"]) - started
        assert outbox.LEASE - timedelta(seconds=5) <= lease <= outbox.LEASE + timedelta(seconds=5)
    assert deliver(app, db, smtp_transport(smtp.port)) == (0, 0)

    make_due(db)  # the lease ran out
    assert deliver(app, db, smtp_transport(smtp.port)) == (2, 0)
    ids = [m["Message-ID"] for m in smtp.messages]
    # At least once: the first message arrives twice, with the same Message-ID, which mail
    # clients show as one message.
    assert ids == [queued[0]["message_id"], queued[0]["message_id"], queued[1]["message_id"]]


class SecondDeliverer:
    """While the first deliverer sends, a second one (another process's connection) runs."""

    def __init__(self, app, inner):
        self.app, self.inner, self.rounds = app, inner, []

    def send(self, message):
        other = connect(self.app.config["DATABASE"])
        try:
            self.rounds.append(deliver(self.app, other, self.inner))
        finally:
            other.close()
        self.inner.send(message)

    def close(self):
        self.inner.close()


def test_two_deliverers_at_once_send_each_message_once(app, db, smtp, new_game):
    new_game()
    second = SecondDeliverer(app, smtp_transport(smtp.port))
    assert deliver(app, db, second) == (2, 0)
    assert second.rounds == [(0, 0), (0, 0)]
    assert len(smtp.received) == 2
    assert len({m["Message-ID"] for m in smtp.messages}) == 2


# -- the file transport and the local mail page -------------------------------------------

def eml_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.eml"))


def test_file_transport_writes_one_eml_per_message_and_a_resend_overwrites_it(app, db,
                                                                             new_game):
    new_game()
    queued = outbox_rows(db)
    transport = outbox.transport_from_config(app.config)
    assert isinstance(transport, outbox.FileTransport)
    folder = Path(app.config["MAIL_FOLDER"])
    assert transport.folder == folder

    # The deliverer dies after the first file is written, before marking it sent.
    with pytest.raises(SystemExit):
        deliver(app, db, DiesAfterSending(transport))
    (first,) = eml_files(folder)
    assert first.name == queued[0]["message_id"].strip("<>") + ".eml"
    written = first.read_bytes()

    make_due(db)
    assert deliver(app, db, transport) == (2, 0)
    files = eml_files(folder)
    assert [f.name for f in files] == sorted(row["message_id"].strip("<>") + ".eml"
                                             for row in queued)
    assert first.read_bytes() == written  # the same message again, not a second copy
    assert sorted(p.name for p in folder.iterdir()) == [f.name for f in files]  # no partials
    for row in queued:
        path = folder / (row["message_id"].strip("<>") + ".eml")
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert message["Message-ID"] == row["message_id"]
        assert message["To"] == row["recipient"]
        assert text_of(message).strip() == row["body"].strip()
    assert all(row["status"] == "sent" and "[secret]" in row["body"] for row in outbox_rows(db))


def test_scheduler_job_delivers_with_the_configured_transport(app, client, new_game):
    new_game()
    assert scheduler.deliver_mail(app) == (2, 0)
    assert scheduler.deliver_mail(app) == (0, 0)
    files = eml_files(Path(app.config["MAIL_FOLDER"]))
    assert len(files) == 2


@pytest.fixture
def local_mailbox(app):
    """The app as ``serve`` runs it without SMTP: with the local mail page."""
    app.config["LOCAL_MAILBOX"] = True
    return app


def test_local_mail_page_lists_and_shows_messages_to_a_loopback_client(local_mailbox, client,
                                                                       new_game):
    app = local_mailbox
    assert client.get("/mail").status_code == 200
    assert b"No mail yet." in client.get("/mail").data
    game = new_game()
    scheduler.deliver_mail(app)

    page = client.get("/mail")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "p1@example.org" in text and "p2@example.org" in text
    assert text.count(f"[{game.id}]") == 2
    names = re.findall(r'href="/mail/([^"]+)"', text)
    assert sorted(names) == sorted(f.stem for f in eml_files(Path(app.config["MAIL_FOLDER"])))

    shown = client.get(f"/mail/{names[0]}")
    assert shown.status_code == 200
    body = shown.get_data(as_text=True)
    assert "Your secret link to the game" in body
    link = re.search(r"http://localhost(/play/[A-Za-z0-9_-]{32})", body).group(1)
    assert seat_opened(client, link) in (0, 1)

    assert client.get("/mail", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    assert client.get("/mail/no-such-message").status_code == 404
    assert client.get("/mail/..%2Fpbem").status_code == 404


@pytest.mark.parametrize("request_kwargs", [
    {"environ_base": {"REMOTE_ADDR": "10.0.0.5"}},
    {"environ_base": {"REMOTE_ADDR": "192.168.1.20"}},
    {"headers": {"X-Forwarded-For": "203.0.113.7"}},
    {"headers": {"X-Forwarded-For": "127.0.0.1"}},
    {"headers": {"Forwarded": "for=203.0.113.7;proto=https"}},
], ids=["lan", "private", "proxied", "proxied-loopback", "proxied-rfc7239"])
def test_local_mail_page_is_hidden_from_other_machines(local_mailbox, client, new_game,
                                                       request_kwargs):
    app = local_mailbox
    new_game()
    scheduler.deliver_mail(app)
    (name, *_) = [f.stem for f in eml_files(Path(app.config["MAIL_FOLDER"]))]
    assert client.get(f"/mail/{name}").status_code == 200  # it exists, for a local client
    for path in ("/mail", f"/mail/{name}"):
        response = client.get(path, **request_kwargs)
        assert response.status_code == 404
        assert b"secret" not in response.data


def test_local_mail_page_is_absent_when_smtp_is_configured(app, client, new_game):
    new_game()
    scheduler.deliver_mail(app)
    (name, *_) = [f.stem for f in eml_files(Path(app.config["MAIL_FOLDER"]))]
    app.config["SMTP_HOST"] = "127.0.0.1"
    assert client.get("/mail").status_code == 404
    assert client.get(f"/mail/{name}").status_code == 404
