"""Moves by email, end to end through real SMTP: game emails are delivered to a real SMTP
server on loopback (aiosmtpd, the ``smtp`` fixture); the test writes a real reply to one
(quoted, with an attribution line, Re: subject, In-Reply-To) and sends it with smtplib to
the app's own mail listener, or pipes it into ``flask receive-mail``; the answer is
delivered to the same SMTP server."""
from __future__ import annotations

import email
import json
import logging
import os
import re
import smtplib
import socket
import subprocess
import sys
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

import engine
from pbem import create_app, matches
from pbem.mail import compose, inbound, outbox
from pbem.store.db import connect
from pbem.mail.inbound import receive
from pbem.mail.listener import MailListener

from helpers import allow_inserts, database_errors, free_port, refuse_inserts
from test_cli import flask

ROOT = Path(__file__).resolve().parent.parent
REPLY_TO = re.compile(r"move\+v(\d+)\.([A-Za-z0-9_-]{32})@pbem\.localhost")  # the version
P1, P2 = "p1@example.org", "p2@example.org"


@pytest.fixture
def listener(app):
    server = MailListener(app, "127.0.0.1", free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def post(app, db, smtp):
    """``post()``: deliver every due email to the SMTP server; returns the new ones."""

    def deliver() -> list[EmailMessage]:
        before = len(smtp.messages)
        transport = outbox.SMTPTransport("127.0.0.1", smtp.port, timeout=5)
        sent, failed = outbox.deliver_due(db, transport, app.config["MAIL_FROM"], app.config["PUBLIC_URL"])
        assert failed == 0
        return smtp.messages[before:]

    return deliver


def only(messages, recipient: str) -> EmailMessage:
    found = [m for m in messages if m["To"] == recipient]
    assert len(found) == 1, [(m["To"], m["Subject"]) for m in messages]
    return found[0]


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def write_reply(original: EmailMessage, line: str, *, sender: str | None = None,
                html: bool = False, to: str | None = None, **headers: str) -> EmailMessage:
    """A reply as a mail client writes it: the answer on top, the original quoted below."""
    reply = EmailMessage()
    reply["From"] = sender or original["To"]
    reply["To"] = to or original["Reply-To"]
    reply["Subject"] = "Re: " + original["Subject"]
    reply["Date"] = format_datetime(email.utils.localtime())
    reply["Message-ID"] = make_msgid(domain="example.org")
    reply["In-Reply-To"] = original["Message-ID"]
    reply["References"] = f"{original['References']} {original['Message-ID']}"
    for name, value in headers.items():
        reply[name.replace("_", "-")] = value
    attribution = f"On {original['Date']}, {original['From']} wrote:"
    quoted = text_of(original).splitlines()
    if html:
        reply.set_content(
            f'<div dir="ltr">{line}</div><br><div class="gmail_quote"><div dir="ltr" '
            f'class="gmail_attr">{attribution}<br></div><blockquote class="gmail_quote">'
            + "<br>".join(quoted) + "</blockquote></div>", subtype="html")
    else:
        reply.set_content(f"{line}\n\n{attribution}\n" + "\n".join(f"> {q}" for q in quoted))
    return reply


def send(port: int, message: EmailMessage, lmtp: bool = False) -> None:
    client = smtplib.LMTP("127.0.0.1", port, timeout=10) if lmtp \
        else smtplib.SMTP("127.0.0.1", port, timeout=10)
    with client:
        client.send_message(message)


def events(db) -> list[tuple]:
    return [(r["seat"], r["kind"], r["move"]) for r in
            db.query("SELECT seat, kind, move FROM events ORDER BY seq")]


def answer_to(messages, reply: EmailMessage, recipient: str) -> EmailMessage:
    """The one answer to ``reply``: to the seat's ``recipient``, under the reply."""
    answers = [m for m in messages if m["In-Reply-To"] == reply["Message-ID"]]
    assert [m["To"] for m in answers] == [recipient], [(m["To"], m["Subject"]) for m in messages]
    answer = answers[0]
    assert reply["Message-ID"] in answer["References"]
    assert answer["Auto-Submitted"] == "auto-replied"
    return answer


def legal(client, api: str) -> list[str]:
    return client.get(api).json["legal_moves"]


# -- the whole loop ------------------------------------------------------------------------

def test_a_reply_plays_the_move_and_is_answered_in_the_thread(client, new_game, db, post,
                                                               listener):
    game = new_game()
    started = post()
    to_p1 = only(started, P1)
    ply, token = REPLY_TO.fullmatch(to_p1["Reply-To"]).groups()
    assert ply == "0" and token not in str(to_p1["References"])
    thread = to_p1["References"]

    move = legal(client, game.apis[0])[3]
    reply = write_reply(to_p1, move)
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]

    delivered = post()
    assert sorted(m["To"] for m in delivered) == [P1, P2]
    answer = answer_to(delivered, reply, P1)
    assert thread in answer["References"]
    assert to_p1["Subject"] == f"Game started — Mastery: Player 1 vs Player 2 [{game.id}]"
    assert answer["Subject"] == f"Recorded — Mastery: Player 1 vs Player 2 [{game.id}]"
    body = text_of(answer)
    assert f"Your move {move} was recorded." in body
    assert "Light (Player 2) is to move (ply 1)." in body
    assert "/play/" in body
    # The answer can be replied to as well: a new secret, at the new version.
    assert REPLY_TO.fullmatch(answer["Reply-To"]).group(1) == "1"
    assert REPLY_TO.fullmatch(answer["Reply-To"]).group(2) != token

    # The opponent replies to their "your turn" email in the same way.
    your_turn = only(delivered, P2)
    assert REPLY_TO.fullmatch(your_turn["Reply-To"]).group(1) == "1"
    second = legal(client, game.apis[1])[0]
    reply2 = write_reply(your_turn, second)
    send(listener.port, reply2)
    assert events(db) == [(0, "move", move), (1, "move", second)]
    answer2 = answer_to(post(), reply2, P2)
    assert f"Your move {second} was recorded." in text_of(answer2)


@pytest.mark.one_database  # what an answer says
def test_a_russian_seat_is_answered_in_russian(client, db, post, listener):
    """The answer to a reply follows its seat's language, whoever else is in the game."""
    created = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": "Аня", "email": P1, "language": "ru"}, {"name": "Bob", "email": P2}]}).json
    started = post()
    move = legal(client, created["seats"][0]["api"])[0]
    reply = write_reply(only(started, P1), move)
    send(listener.port, reply)
    delivered = post()
    answer = answer_to(delivered, reply, P1)
    assert answer["Subject"] == f"Принято — Mastery: Аня — Bob [{created['id']}]"
    body = text_of(answer)
    assert body.startswith("Здравствуйте, Аня!")
    assert re.search(r"^Ход: Bob \(Светлые\), полуход 1\.$", body, re.M)
    assert "Партия: http" in body and "Ответьте на это письмо, написав первой строкой" in body
    assert "Hello" not in body and "Reply to this email" not in body
    # a refused reply: the refusal, the legal moves and the turn in Russian too
    reply = write_reply(only(delivered, P2), "z9xz8")  # Bob's turn email, for Bob: English
    send(listener.port, reply)
    assert 'Your reply "z9xz8" could not be played:' in text_of(answer_to(post(), reply, P2))
    empty = write_reply(answer, "")
    send(listener.port, empty)
    refused = answer_to(post(), empty, P1)
    assert refused["Subject"].startswith("Не сыграно — Mastery")
    body = text_of(refused)
    assert "В вашем ответе нет хода: напишите его первой строкой, над цитатой письма." in body
    assert "Ход: Bob (Светлые)" in body and "Ваши возможные ходы:" not in body  # not Аня's turn
    wrong = write_reply(answer, "z9xz8")
    send(listener.port, wrong)
    assert 'Ваш ответ «z9xz8» не удалось сыграть:' in text_of(answer_to(post(), wrong, P1))


@pytest.mark.one_database  # what an answer says
def test_an_illegal_move_is_answered_with_the_error_and_the_legal_moves(client, new_game, db,
                                                                         post, listener):
    game = new_game()
    reply = write_reply(only(post(), P1), "z9xz8")
    send(listener.port, reply)
    assert events(db) == []
    body = text_of(answer_to(post(), reply, P1))
    assert 'Your reply "z9xz8" could not be played:' in body
    moves = legal(client, game.apis[0])
    listed = body.split("Your legal moves: ")[1].split("\n\n")[0]
    assert " ".join(listed.split()) == ", ".join(moves)
    assert "It is your turn (ply 0)." in body


@pytest.mark.one_database  # what an answer says
def test_a_reply_without_a_move_is_answered(new_game, db, post, listener):
    new_game()
    reply = write_reply(only(post(), P1), "")
    send(listener.port, reply)
    assert events(db) == []
    assert "Your reply has no move" in text_of(answer_to(post(), reply, P1))


@pytest.mark.one_database  # how a reply is read
def test_a_move_in_the_subject_of_an_empty_reply_is_played(client, new_game, db, post,
                                                           listener):
    game = new_game()
    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(post(), P1), "")
    reply.replace_header("Subject", f"Re: {move}")
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]


def test_a_reply_to_an_old_email_is_not_played_and_tells_what_happened(client, new_game, db,
                                                                       post, listener):
    game = new_game()
    old = only(post(), P1)  # written at ply 0
    first = legal(client, game.apis[0])[0]
    client.post(f"{game.apis[0]}/moves", json={"move": first, "ply": 0})
    second = legal(client, game.apis[1])[0]
    client.post(f"{game.apis[1]}/moves", json={"move": second, "ply": 1})
    post()
    now_legal = legal(client, game.apis[0])[0]  # a move that would be legal now

    reply = write_reply(old, now_legal)
    send(listener.port, reply)
    assert events(db) == [(0, "move", first), (1, "move", second)]
    body = text_of(answer_to(post(), reply, P1))
    assert "The game has moved on since the email you answered" in body
    assert f"1. Dark: {first}" in body and f"2. Light: {second}" in body
    assert "It is your turn (ply 2)." in body and "Your legal moves:" in body

    # The same move delivered twice (or already made on the page) is no error.
    reply = write_reply(old, first)
    send(listener.port, reply)
    assert len(events(db)) == 2
    assert "had already been recorded" in text_of(answer_to(post(), reply, P1))


def test_the_second_magnet_setup_may_answer_the_start_email(client, new_game, db, post,
                                                            listener):
    # Red sets up on the page; Blue answers the start email (its Reply-To says version 0): Red's
    # setup changed nothing Blue can see but that Red has set up, so it is not stale.
    setup = {seat: engine.get("magnet").setup_text(seat, engine.magnet.SET) for seat in (0, 1)}
    game = new_game("magnet")
    started = only(post(), P2)
    assert REPLY_TO.fullmatch(started["Reply-To"]).group(1) == "0"
    client.post(f"{game.apis[0]}/moves", json={"move": setup[0], "ply": 0})
    post()
    reply = write_reply(started, setup[1])
    send(listener.port, reply)
    assert events(db) == [(0, "move", setup[0]), (1, "move", setup[1])]
    delivered = post()
    assert f"Your move {setup[1]} was recorded." in text_of(answer_to(delivered, reply, P2))
    red = text_of(only(delivered, P1))  # Red's turn has come; Blue's setup stays secret
    assert "Player 2 played: setup\n" in red and setup[1] not in red
    # The same reply again is a duplicate; a turn answered from that old email is stale.
    again = write_reply(started, setup[1])
    send(listener.port, again)
    assert "had already been recorded" in text_of(answer_to(post(), again, P2))
    client.post(f"{game.apis[0]}/moves", json={"move": "b3:a3", "ply": 2})
    post()
    late = write_reply(started, "k1:k2")
    send(listener.port, late)
    assert len(events(db)) == 3
    assert "The game has moved on" in text_of(answer_to(post(), late, P2))


# -- who may play -----------------------------------------------------------------------

@pytest.mark.one_database  # how a reply is read
def test_an_address_without_a_valid_secret_is_refused_at_rcpt(new_game, db, post, listener):
    new_game()
    genuine = only(post(), P1)
    ply, token = REPLY_TO.fullmatch(genuine["Reply-To"]).groups()
    forged = "A" * 32 if token != "A" * 32 else "B" * 32
    for address in (f"move+0.{forged}@pbem.localhost", "move@pbem.localhost",
                    f"move+0.{token[:-1]}@pbem.localhost", "games@localhost"):
        reply = write_reply(genuine, "d4xc5", to=address, sender=P1)
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send(listener.port, reply)
        assert refused.value.recipients[address][0] == 550
    assert events(db) == [] and post() == []


def test_the_secret_not_the_sender_authenticates_and_answers_go_to_the_seat(
        client, new_game, db, post, listener, smtp):
    game = new_game()
    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(post(), P1), move, sender="Mallory <mallory@evil.example>")
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]
    delivered = post()
    assert sorted(m["To"] for m in delivered) == [P1, P2]
    assert all("evil.example" not in " ".join(rcpts) for _, rcpts, _ in smtp.received)


def test_the_opponents_secret_acts_for_the_opponent_only(client, new_game, db, post,
                                                         listener):
    game = new_game()
    started = post()
    to_p2 = only(started, P2)
    # Player 1 replies to Player 2's email: it is Player 2's seat that tries to move.
    move = legal(client, game.apis[0])[0]
    reply = write_reply(to_p2, move, sender=P1)
    send(listener.port, reply)
    assert events(db) == []
    body = text_of(answer_to(post(), reply, P2))  # to Player 2, never to the sender
    assert "It is not your turn." in body and "Dark (Player 1) is to move" in body

    client.post(f"{game.apis[0]}/moves", json={"move": move, "ply": 0})
    your_turn = only(post(), P2)
    answer = legal(client, game.apis[1])[0]
    send(listener.port, write_reply(your_turn, answer, sender=P1))
    assert events(db) == [(0, "move", move), (1, "move", answer)]


@pytest.mark.one_database  # how a reply is read
@pytest.mark.parametrize("headers, sender", [
    ({"Auto_Submitted": "auto-replied"}, None),
    ({"Precedence": "bulk"}, None),
    ({}, "MAILER-DAEMON@example.org"),
    ({}, ""),  # the null envelope sender: a delivery report
])
def test_automatic_mail_is_ignored(client, new_game, db, post, listener, headers, sender):
    game = new_game()
    reply = write_reply(only(post(), P1), legal(client, game.apis[0])[0], **headers,
                        sender=sender or None)
    with smtplib.SMTP("127.0.0.1", listener.port, timeout=10) as smtp_client:
        smtp_client.send_message(reply, from_addr=sender if sender is not None else P1)
    assert events(db) == [] and post() == []


# -- words and formats -----------------------------------------------------------------

@pytest.mark.one_database  # how a reply is read
def test_resign_and_draw_words(new_game, db, post, listener):
    new_game()
    started = post()
    reply = write_reply(only(started, P1), "Offer draw")
    send(listener.port, reply)
    assert events(db) == [(0, "draw_offer", None)]
    delivered = post()
    assert "Your draw offer was recorded; Player 2 will be told." in \
        text_of(answer_to(delivered, reply, P1))
    offer = only(delivered, P2)
    decline = write_reply(offer, "decline")
    send(listener.port, decline)
    assert events(db)[-1] == (1, "draw_decline", None)
    assert "You declined the draw offer." in text_of(answer_to(post(), decline, P2))

    send(listener.port, write_reply(only(started, P1), "draw"))
    offer = only(post(), P2)
    accept = write_reply(offer, "Accept draw.")
    send(listener.port, accept)
    assert events(db)[-1] == (1, "draw_accept", None)
    answer = answer_to(post(), accept, P2)
    assert "Game over — Draw: draw agreed." in text_of(answer)

    after = write_reply(answer, "resign")
    send(listener.port, after)
    assert events(db)[-1] == (1, "draw_accept", None)
    assert "could not be played: The game is over" in text_of(answer_to(post(), after, P2))


@pytest.mark.one_database  # how a reply is read
def test_resign_by_email(new_game, db, post, listener):
    new_game()
    reply = write_reply(only(post(), P2), "RESIGN")
    send(listener.port, reply)
    assert events(db) == [(1, "resign", None)]
    body = text_of(answer_to(post(), reply, P2))
    assert "Your resignation was recorded." in body
    assert "Game over — Player 1 won: Player 2 resigned." in body


def test_a_team_resigns_by_email_only_when_the_partner_answers_resign(new_game, db, post,
                                                                     listener):
    game = new_game("the-right-moves", players=4, names=["Ann", "Bob", "Cid", "Dee"])
    ann, cid = "p1@example.org", "p3@example.org"
    started = post()
    proposal = write_reply(only(started, ann), "resign")
    send(listener.port, proposal)
    assert events(db) == [(0, "resign_offer", None)]
    delivered = post()
    answer = answer_to(delivered, proposal, ann)
    assert "Your proposal to resign was recorded; Cid will be asked to confirm it." in \
        text_of(answer)
    assert answer["Subject"] == \
        f"Recorded — The Right Moves: Ann & Cid vs Bob & Dee [{game.id}]"
    asked = only(delivered, cid)
    decline = write_reply(asked, "decline")  # no draw offer stands: it answers Ann
    send(listener.port, decline)
    assert events(db)[-1] == (2, "resign_decline", None)
    delivered = post()
    assert "You declined Ann's proposal to resign: your team plays on." in \
        text_of(answer_to(delivered, decline, cid))
    assert "Cid declined your proposal to resign" in text_of(only(delivered, ann))

    send(listener.port, write_reply(only(started, ann), "Resign"))
    agree = write_reply(only(post(), cid), "resign")
    send(listener.port, agree)
    assert events(db)[-2:] == [(0, "resign_offer", None), (2, "resign_accept", None)]
    body = text_of(answer_to(post(), agree, cid))
    assert "You confirmed Ann's proposal: your team resigned." in body
    assert "Game over — Bob and Dee won (team Blue): team Red resigned." in body


@pytest.mark.one_database  # how a reply is read
def test_an_html_only_reply_is_read_without_its_quote(client, new_game, db, post, listener):
    game = new_game()
    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(post(), P1), move, html=True)
    assert reply.get_content_type() == "text/html"
    send(listener.port, reply)
    assert events(db) == [(0, "move", move)]


@pytest.mark.parametrize("text, line", [
    ("d4xc5\n\nOn Mon, 1 Jan 2024, Games <g@localhost> wrote:\n> It is your turn", "d4xc5"),
    ("On Mon, 1 Jan 2024 at 10:00, Correspondence games <\ngames@localhost> wrote:\n"
     "> It is your turn\n\n  d4xc5  \n", "d4xc5"),   # bottom-posted, wrapped attribution
    ("\u200b\xa0\n> quoted\n-- \nAnn\nd4xc5", ""),  # nothing above the signature
    ("Sent from my phone\n\n> quoted", ""),
    ("-----Original Message-----\nd4xc5", ""),
    ("pick   X\r\n", "pick X"),
])
def test_the_first_line_the_player_wrote(text, line):
    assert inbound.written(text)[0] == line


@pytest.mark.parametrize("text, message", [
    ("d4xc5\nGood luck!\n\n  Indented, second paragraph  \n\nOn Mon, 1 Jan 2024, Games "
     "<g@localhost> wrote:\n> It is your turn", "Good luck!\n\n  Indented, second paragraph"),
    ("d4xc5\r\nNice one\r\n> quoted\r\nafter the quote", "Nice one"),
    ("On Mon, 1 Jan 2024, Games <g@localhost> wrote:\n> It is your turn\n\nd4xc5\nHi\n",
     "Hi"),   # bottom-posted: the message ends with the reply
    ("say Hello\nthere\n-- \nAnn, my signature", "there"),
    ("d4xc5\n\nSent from my phone", ""),
    ("d4xc5", ""),
])
def test_the_message_below_the_first_line(text, message):
    assert inbound.written(text)[1] == message


def chat(db) -> list[tuple]:
    return [(r["seat"], r["text"]) for r in
            db.query("SELECT seat, text FROM events WHERE kind = 'chat' ORDER BY seq")]


@pytest.mark.one_database  # how a reply is read
def test_what_a_reply_says_below_its_move_is_posted_to_the_chat(client, new_game, db, post,
                                                               listener):
    game = new_game()
    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(post(), P1), f"{move}\nGood luck!\n\nMay the best one win.")
    send(listener.port, reply)
    assert events(db) == [(0, "move", move), (0, "chat", None)]
    assert chat(db) == [(0, "Good luck!\n\nMay the best one win.")]
    assert client.get(game.apis[1]).json["chat"][0]["text"] == "Good luck!\n\nMay the best one win."
    delivered = post()
    body = text_of(answer_to(delivered, reply, P1))
    assert f"Your move {move} was recorded. Your message was posted to the game's chat." in body
    told = [m for m in delivered if m["To"] == P2]
    assert len(told) == 2  # the turn, and the message
    assert any("    Good luck!\n\n    May the best one win.\n" in text_of(m) for m in told)


@pytest.mark.one_database  # how a reply is read
def test_a_reply_that_starts_with_say_posts_only_a_message(client, new_game, db, post,
                                                          listener):
    game = new_game()
    started = only(post(), P2)  # Light is not to move: a message needs no turn
    reply = write_reply(started, "Say: Hello from Light!\nHave fun.")
    for _ in range(2):  # delivered twice: posted once
        send(listener.port, reply)
    assert events(db) == [(1, "chat", None)]
    assert chat(db) == [(1, "Hello from Light!\nHave fun.")]
    delivered = post()
    answers = [m for m in delivered if m["In-Reply-To"] == reply["Message-ID"]]
    assert len(answers) == 2
    assert "Your message was posted to the game's chat." in text_of(answers[0])
    message = only(delivered, P1)
    assert "Light (Player 2) writes in your game of Mastery" in text_of(message)

    # The other player answers the chat email with "say" too; "say" alone posts nothing.
    answer = write_reply(message, "say   Hi Light")
    send(listener.port, answer)
    assert chat(db)[-1] == (0, "Hi Light")
    empty = write_reply(message, "say")
    send(listener.port, empty)
    assert len(chat(db)) == 2
    assert "A chat message must be 1 to 2000 characters" in text_of(answer_to(post(), empty, P1))
    assert [e[1] for e in events(db)] == ["chat", "chat"]
    assert legal(client, game.apis[0])  # no move was made


def test_a_refused_move_posts_no_message_and_a_refused_message_plays_no_move(
        app, client, new_game, db, post, listener):
    game = new_game()
    started = only(post(), P1)
    reply = write_reply(started, "z9xz8\nThis should not be posted")
    send(listener.port, reply)
    assert events(db) == []
    body = text_of(answer_to(post(), reply, P1))
    assert "could not be played" in body
    assert "The message under your first line was not posted to the chat either." in body

    app.config["CHAT_PER_HOUR"] = 0
    move = legal(client, game.apis[0])[0]
    reply = write_reply(started, f"{move}\nThis neither")
    send(listener.port, reply)
    assert events(db) == []  # both or neither
    assert client.get(game.apis[0]).json["ply"] == 0  # nor does any cache hold the move
    assert "chat messages in the last hour" in text_of(answer_to(post(), reply, P1))


def test_rematch_by_email_reply(client, new_game, db, post, listener):
    game = new_game()
    started = {m["To"]: m for m in post()}
    early = write_reply(started[P1], "rematch")
    send(listener.port, early)
    assert events(db) == []
    assert "A rematch can be asked for once the game is over." in \
        text_of(answer_to(post(), early, P1))

    client.post(f"{game.apis[0]}/resign", json={})
    finished = {m["To"]: m for m in post()}
    ask = write_reply(finished[P2], "Rematch!")
    send(listener.port, ask)
    delivered = post()
    assert "the new game starts once the other players ask for it too" in \
        text_of(answer_to(delivered, ask, P2))
    invitation = only([m for m in delivered if m["In-Reply-To"] != ask["Message-ID"]], P1)
    assert "Light (Player 2) asks for a rematch" in text_of(invitation)
    accept = write_reply(invitation, "rematch\nRevenge time.")
    send(listener.port, accept)
    assert [e[1] for e in events(db)] == ["resign", "rematch", "rematch", "chat"]
    rematch_id = client.get(game.apis[0]).json["rematch"]["id"]
    delivered = post()
    assert "Every player asked for a rematch: the new game has started" in \
        text_of(answer_to(delivered, accept, P1))
    starts = [m for m in delivered if f"[{rematch_id}]" in m["Subject"]]
    assert sorted(m["To"] for m in starts) == [P1, P2]
    assert all("A game of Mastery has started" in text_of(m) for m in starts)
    link = re.search(r"http://localhost(/play/[\w-]{32})\n", text_of(only(starts, P1)))
    assert client.get("/api" + link.group(1)).json["seat"] == 1  # Dark then, Light now


@pytest.mark.one_database  # what an answer says
def test_a_long_list_of_legal_moves_is_cut_with_a_link(app, client, new_game, db, post,
                                                         listener):
    game = new_game("magnetic-field")
    for _ in range(4):  # the draft, then the first placement: thousands of moves
        state = client.get(game.apis[0]).json
        seat = state["to_move"][0]
        move = legal(client, game.apis[seat])[0]
        client.post(f"{game.apis[seat]}/moves", json={"move": move, "ply": state["ply"]})
    state = client.get(game.apis[0]).json
    seat = state["to_move"][0]
    moves = legal(client, game.apis[seat])
    assert len(moves) > inbound.MAX_LEGAL_LISTED
    recipient = (P1, P2)[seat]
    latest = [m for m in post() if m["To"] == recipient][-1]
    assert REPLY_TO.fullmatch(latest["Reply-To"]).group(1) == str(state["version"])
    reply = write_reply(latest, "nonsense")
    send(listener.port, reply)
    body = " ".join(text_of(answer_to(post(), reply, recipient)).split())
    listed = body.split("Your legal moves: ")[1].split(" … and ")[0]
    assert listed == ", ".join(moves[:inbound.MAX_LEGAL_LISTED])  # only this seat's moves
    assert f"and {len(moves) - inbound.MAX_LEGAL_LISTED} more: see them all" in body
    # Hidden hands: the answer shows the position as this seat may know it, not as the
    # opponent does.
    with app.app_context():
        match = matches.load(db, game.id)
        mine, theirs = (" ".join(compose.board_text(match, s).split()) for s in (seat, 1 - seat))
    assert mine and mine != theirs
    assert mine in body and theirs not in body


@pytest.mark.one_database  # how mail arrives
def test_lmtp_listener(client, app, new_game, db, post):
    game = new_game()
    server = MailListener(app, "127.0.0.1", free_port(), lmtp=True)
    server.start()
    try:
        move = legal(client, game.apis[0])[0]
        send(server.port, write_reply(only(post(), P1), move), lmtp=True)
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            send(server.port, write_reply(only(post(), P2), move, to="move@pbem.localhost"),
                 lmtp=True)
    finally:
        server.stop()
    assert events(db) == [(0, "move", move)]


def test_the_loop_guard_counts_the_answers_of_the_last_hour(app, client, new_game, db, post,
                                                             monkeypatch):
    """Past MAX_ANSWERS_PER_HOUR answers to an address in the last hour, a reply is still
    played but not answered; the other emails to the address do not count."""
    monkeypatch.setattr(inbound, "MAX_ANSWERS_PER_HOUR", 2)
    game = new_game()
    to_p1 = only(post(), P1)
    for text in ("Hi", "Still there?", "Your move"):  # emails to P1, none an answer
        assert client.post(f"{game.apis[1]}/chat", json={"text": text}).status_code == 201
    replies = [bytes(write_reply(to_p1, f"say Message {n}")) for n in range(4)]
    with app.app_context():
        results = [receive(db, raw) for raw in replies[:3]]
        assert [r.status for r in results] == ["recorded"] * 3
        assert [r.answer is not None for r in results] == [True, True, False]
        db.execute("UPDATE outbox SET created_at = ? WHERE kind = 'answer'",
                   ["2020-01-01T00:00:00+00:00"])  # answered long ago: they count no more
        assert receive(db, replies[3]).answer is not None
    assert [event[:2] for event in events(db)] == [(1, "chat")] * 3 + [(0, "chat")] * 4


def test_secrets_stay_out_of_logs_and_of_the_stored_outbox(client, new_game, db, post,
                                                           listener, caplog):
    caplog.set_level(logging.DEBUG)
    game = new_game()
    to_p1 = only(post(), P1)
    tokens = {REPLY_TO.fullmatch(to_p1["Reply-To"]).group(2)}
    reply = write_reply(to_p1, legal(client, game.apis[0])[0])
    send(listener.port, reply)
    send(listener.port, write_reply(to_p1, "nonsense"))
    delivered = post()
    tokens |= {REPLY_TO.fullmatch(m["Reply-To"]).group(2) for m in delivered}
    assert len(tokens) == 4
    logged = caplog.text + "".join(r.getMessage() for r in caplog.records)
    assert "recip: move+v0.[secret]@pbem.localhost" in logged  # aiosmtpd's own log line
    assert "inbound mail for game" in logged
    assert "DATA readline" not in logged  # message contents (with play links) never
    assert not any(token in logged for token in tokens)
    stored = " ".join(str(dict(row)) for row in db.query("SELECT * FROM outbox"))
    assert not any(token in stored for token in tokens)


@pytest.mark.parametrize("setting, expected", [
    ("play@games.example.org", r"play\+v0\.[A-Za-z0-9_-]{32}@games\.example\.org"),
    ("", None),  # moves by email switched off: no Reply-To
])
def test_the_reply_address_setting(tmp_path, setting, expected):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"),
                      "SECRET_KEY": "test", "REPLY_ADDRESS": setting})
    players = [{"name": "A", "email": P1}, {"name": "B", "email": P2}]
    assert app.test_client().post("/api/games", json={"game": "mastery", "players": players}
                                  ).status_code == 201
    database = connect(app.config["DATABASE"])
    for row in database.query("SELECT headers FROM outbox"):
        reply_to = json.loads(row["headers"]).get("Reply-To")
        assert re.fullmatch(expected, reply_to) if expected else reply_to is None
    database.close()


# -- the commands, as real processes -----------------------------------------------------

def flask_env(app, tmp_path) -> dict[str, str]:
    return {**os.environ, "PBEM_INSTANCE": str(tmp_path / "instance"),
            "PBEM_DATABASE": app.config["DATABASE"], "PYTHONUNBUFFERED": "1"}


@pytest.mark.one_database  # how mail arrives
def test_receive_mail_command_reads_standard_input(app, client, new_game, db, post, tmp_path):
    game = new_game()
    started = post()
    env = flask_env(app, tmp_path)

    def pipe(message: EmailMessage) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "flask", "--app", "pbem", "receive-mail"],
                              input=bytes(message), cwd=ROOT, env=env, capture_output=True,
                              timeout=60)

    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(started, P1), move)
    done = pipe(reply)
    assert done.returncode == 0, done.stderr
    assert b"recorded" in done.stdout
    assert events(db) == [(0, "move", move)]
    answered = post()
    assert f"Your move {move} was recorded." in text_of(answer_to(answered, reply, P1))

    # A refused move is handled (exit 0): its answer says why. (The command run in this
    # process: the same code without starting Python again.)
    wrong = write_reply(only(answered, P2), "nonsense")  # P2's "your turn" email
    done = flask(app, "receive-mail", f"--recipient={wrong['To']}", "--sender=p2@example.org",
                 input=bytes(wrong))
    assert done.exit_code == 0, done.output
    assert "could not be played" in text_of(answer_to(post(), wrong, P2))

    # No valid secret: EX_NOUSER, so the MTA bounces it; nothing recorded or answered.
    forged = write_reply(only(started, P1), "nonsense", to="move+1." + "x" * 32 + "@pbem.localhost")
    done = pipe(forged)
    assert done.returncode == 67 and b"No such mailbox" in done.stderr
    assert len(events(db)) == 1 and post() == []
    secrets = {REPLY_TO.fullmatch(m["Reply-To"]).group(2) for m in started}
    assert not any(s.encode() in out for s in secrets
                   for out in (done.stdout, done.stderr))


@pytest.mark.one_database  # how mail arrives
def test_mail_listener_command_runs_a_real_smtp_server(app, client, new_game, db, post,
                                                        tmp_path):
    game = new_game()
    to_p1 = only(post(), P1)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "pbem", "mail-listener", "--port", str(port)],
        cwd=ROOT, env=flask_env(app, tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.communicate()[0]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the listener did not start"
                time.sleep(0.1)
        move = legal(client, game.apis[0])[0]
        reply = write_reply(to_p1, move)
        send(port, reply)
        assert events(db) == [(0, "move", move)]
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            send(port, write_reply(to_p1, move, to="move+0." + "y" * 32 + "@pbem.localhost"))
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert "SMTP listener on 127.0.0.1" in output and "Mail listener stopped." in output
    assert process.returncode == 0
    assert f"Your move {move} was recorded." in text_of(answer_to(post(), reply, P1))


def test_an_emailed_move_and_its_answer_are_one_transaction(app, client, new_game, db, post):
    """If the answer cannot be queued, the move is not recorded either (and the sender's MTA
    is told to try again), so no move is ever left unanswered."""
    game = new_game()
    to_p1 = only(post(), P1)
    reply = write_reply(to_p1, legal(client, game.apis[0])[0])
    refuse_inserts(db, "outbox", "outbox unavailable", when="NEW.kind = 'answer'")
    with app.app_context(), pytest.raises(database_errors(), match="outbox unavailable"):
        receive(db, bytes(reply))
    assert events(db) == []
    allow_inserts(db, "outbox")
    with app.app_context():
        assert receive(db, bytes(reply)).status == "recorded"
    assert len(events(db)) == 1


@pytest.mark.one_database  # what an answer says
def test_answers_carry_the_unsubscribe_link_like_every_email(client, new_game, post, listener):
    game = new_game()
    reply = write_reply(only(post(), P1), legal(client, game.apis[0])[0])
    send(listener.port, reply)
    answer = answer_to(post(), reply, P1)
    assert str(answer["List-Unsubscribe"]).strip().startswith("<http")
    assert answer["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "unsubscribe" in text_of(answer).lower()


# -- hostile mail --------------------------------------------------------------------------

def nested_mime(depth: int) -> bytes:
    """A message whose multipart parts nest ``depth`` deep (Python's parser recurses)."""
    head, tail = [], []
    for level in range(depth):
        head.append(f'Content-Type: multipart/mixed; boundary="b{level}"\n\n--b{level}\n')
        tail.insert(0, f"\n--b{level}--\n")
    return ("".join(head) + "Content-Type: text/plain\n\nd2-d4\n" + "".join(tail)).encode()


def hostile(to: str, headers: str = "", body: bytes = b"Content-Type: text/plain\n\nx\n",
            sender: str = "p1@example.org") -> bytes:
    return (f"From: {sender}\nTo: {to}\nSubject: Re: game\n{headers}"
            "MIME-Version: 1.0\n").encode() + body


def test_hostile_mail_is_refused_for_good_at_once(app, client, new_game, db, post, listener):
    new_game()
    address = only(post(), P1)["Reply-To"]
    forged = "move+0." + "z" * 32 + "@pbem.localhost"
    cases = {
        "nested 1,200 deep": (hostile(address, body=nested_mime(1200)), 67),
        "a From with 5,000 (": (hostile(address, sender="(" * 5000 + "x@example.org"), 67),
        "a Cc of 2 MB, valid secret": (hostile(address, "Cc: " + "a@b.c, " * 300_000 + "\n"), 67),
        "a Cc of 2 MB, no secret": (hostile(forged, "Cc: " + "a@b.c, " * 300_000 + "\n"), 67),
        "a To with 5,000 ( around the address": (hostile("(" * 5000 + address), 0),
    }
    for what, (raw, code) in cases.items():
        # the command as the MTA runs it, in this process: the CPU it takes, which a busy
        # machine does not inflate, is a message's (a quadratic parse would take minutes)
        start = time.thread_time()
        done = flask(app, "receive-mail", input=raw)
        assert done.exit_code == code, (what, done.output[-500:])
        assert time.thread_time() - start < 3, what
        assert not isinstance(done.exception, Exception), (what, done.exception)
    assert [kind for _, kind, _ in events(db)] == []  # "x" is no move: refused and answered

    # The listener: the same messages get a permanent 5xx, never 451 (retry for days).
    for raw in (hostile(address, body=nested_mime(1200)),
                hostile(address, sender="(" * 5000 + "x@example.org")):
        with smtplib.SMTP("127.0.0.1", listener.port, timeout=10) as smtp:
            smtp.ehlo()
            smtp.mail("p1@example.org")
            assert smtp.rcpt(address)[0] == 250
            code, text = smtp.data(raw)
            assert code // 100 == 5, (code, text)
    assert events(db) == []


@pytest.mark.one_database  # how a reply is read
def test_the_secret_is_checked_before_a_message_is_read(app, db):
    """An unknown address is refused without parsing the message at all."""
    raw = hostile("move+0." + "q" * 32 + "@pbem.localhost", body=nested_mime(5000))
    with app.app_context():
        start = time.monotonic()
        assert inbound.receive(db, raw).status == "unknown"
        assert inbound.receive(db, raw, ["move+0." + "q" * 32 + "@x"]).status == "unknown"
        assert time.monotonic() - start < 1



def test_a_reply_with_a_move_and_a_message_loads_the_game_once(app, client, new_game, db, post,
                                                              monkeypatch):
    """The move and the message under it are one command: the game is loaded once."""
    game = new_game()
    move = legal(client, game.apis[0])[0]
    reply = write_reply(only(post(), P1), f"{move}\nGood luck!")
    loads, find = [], matches.find

    def counted_find(db, game_id):
        loads.append(game_id)
        return find(db, game_id)

    monkeypatch.setattr(matches, "find", counted_find)
    with app.app_context():
        assert receive(db, bytes(reply)).status == "recorded"
    assert loads == [game.id]
    assert events(db) == [(0, "move", move), (0, "chat", None)]
