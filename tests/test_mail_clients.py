"""Moves by reply as real mail clients write them, in English and Russian (pbem/mail/inbound.py):
each reply below is shaped as its client writes one (attribution, signature, quote or the
original sent along unquoted, charset and transfer encoding), sent to the real listener
over SMTP; its move must be played, what the player wrote under it must reach the chat, and
nothing of the original may."""
from __future__ import annotations

import html
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, localtime, make_msgid
from typing import Callable

import pytest

from test_inbound import P1, events, listener, only, post, send  # noqa: F401 - fixtures

# What varies here is how a client writes its reply; the reply's path into storage is
# test_inbound's, on both engines.
pytestmark = pytest.mark.one_database

GMAIL_EN = "On Thu, Nov 26, 2026 at 10:00 AM Correspondence games <\ngames@localhost> wrote:"
GMAIL_RU = "чт, 26 нояб. 2026 г. в 10:00, Correspondence games <games@localhost>:"
GMAIL_RU_WRAPPED = "чт, 26 нояб. 2026 г. в 10:00, Correspondence games <\ngames@localhost>:"
OUTLOOK_EN = ("From: Correspondence games <games@localhost>\n"
              "Sent: Thursday, November 26, 2026 10:00:00 AM\n"
              "To: p1@example.org <p1@example.org>\nSubject: Your move\n")
OUTLOOK_RU = ("От: Correspondence games <games@localhost>\n"
              "Отправлено: 26 ноября 2026 г. 10:00\n"
              "Кому: Player 1 <p1@example.org>\nТема: Ваш ход\n")


def quoted(original: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in original.splitlines())


def as_html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>\n")


def gmail_html(reply: str, attribution: str, original: str) -> str:
    lines = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in reply.splitlines())
    return (f'<div dir="ltr">{lines}</div><br><div class="gmail_quote"><div dir="ltr" '
            f'class="gmail_attr">{as_html(attribution)}<br></div><blockquote '
            'class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
            f'rgb(204,204,204);padding-left:1ex">{as_html(original)}</blockquote></div>')


def outlook_html(reply: str, headers: str, original: str) -> str:
    lines = "".join(f'<div style="font-family: Aptos, sans-serif;">{html.escape(line) or "<br>"}'
                    "</div>" for line in reply.splitlines())
    block = "<br>".join(f"<b>{html.escape(name)}:</b>{html.escape(value)}" for name, value in
                        (line.split(":", 1) for line in headers.splitlines()))
    return (f"<html><head><style>p {{margin:0}}</style></head><body>{lines}"
            '<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" '
            f'dir="ltr"><font face="Calibri, sans-serif">{block}</font><div>&nbsp;</div></div>'
            f"<div>{as_html(original)}</div></body></html>")


@dataclass(frozen=True)
class Client:
    """How a client writes a reply: its text (a template of the player's ``reply``, the
    ``original`` email's text, ``quoted`` (it with "> ") and its ``subject``), its HTML
    (from the reply and the original), the charset and the transfer encoding."""

    text: str | None
    html: Callable[[str, str], str] | None = None
    charset: str = "utf-8"
    encoding: str = "base64"


CLIENTS = {
    "gmail": Client(f"{{reply}}\n\n{GMAIL_EN}\n\n{{quoted}}\n",
                    lambda r, o: gmail_html(r, GMAIL_EN, o), encoding="quoted-printable"),
    "gmail html only": Client(None, lambda r, o: gmail_html(r, GMAIL_EN, o)),
    "gmail base64": Client(f"{{reply}}\n\n{GMAIL_EN}\n\n{{quoted}}\n"),
    "apple mail iphone": Client(
        "{reply}\n\nSent from my iPhone\n\n> On 26 Nov 2026, at 10:00, Correspondence games "
        "<games@localhost> wrote:\n> \n{quoted}\n", encoding="quoted-printable"),
    "thunderbird": Client("On 26/11/2026 10:00, Correspondence games wrote:\n{quoted}\n\n"
                          "{reply}\n", encoding="8bit"),
    "outlook plain": Client(f"{{reply}}\n\n________________________________\n{OUTLOOK_EN}\n"
                            "{original}\n", encoding="quoted-printable"),
    "outlook html": Client(None, lambda r, o: outlook_html(r, OUTLOOK_EN, o),
                           encoding="quoted-printable"),
    "outlook for android": Client(
        f"{{reply}}\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n\n{OUTLOOK_EN}\n"
        "{original}\n", encoding="quoted-printable"),
    "outlook for android, signature deleted": Client(f"{{reply}}\n\n{OUTLOOK_EN}\n{{original}}\n"),
    # Russian
    "gmail ru": Client(f"{{reply}}\n\n{GMAIL_RU}\n\n{{quoted}}\n",
                       lambda r, o: gmail_html(r, GMAIL_RU, o)),
    "gmail ru wrapped": Client(f"{{reply}}\n\n{GMAIL_RU_WRAPPED}\n\n{{quoted}}\n"),
    "gmail ru forward": Client(
        "{reply}\n\n---------- Пересылаемое сообщение ---------\nОт: Correspondence games "
        "<games@localhost>\nDate: чт, 26 нояб. 2026 г. в 10:00\nSubject: {subject}\n\n"
        "{original}\n"),
    "apple mail iphone ru": Client(
        "{reply}\n\nОтправлено с iPhone\n\n> 26 нояб. 2026 г., в 10:00, Correspondence games "
        "<games@localhost> написал(а):\n> \n{quoted}\n", encoding="quoted-printable"),
    "thunderbird ru windows-1251": Client(
        "26.11.2026 10:00, Correspondence games пишет:\n{quoted}\n\n{reply}\n",
        charset="windows-1251", encoding="quoted-printable"),
    "thunderbird ru forward": Client(
        "{reply}\n\n-------- Пересланное сообщение --------\nТема: \t{subject}\nДата: \t"
        "Thu, 26 Nov 2026 10:00:00 +0000\nОт: \tCorrespondence games <games@localhost>\n\n"
        "{original}\n"),
    "outlook ru": Client(f"{{reply}}\n\n________________________________\n{OUTLOOK_RU}\n"
                         "{original}\n", charset="windows-1251"),
    "outlook ru, original message": Client(
        f"{{reply}}\n\n-----Исходное сообщение-----\n{OUTLOOK_RU}\n{{original}}\n",
        charset="windows-1251", encoding="quoted-printable"),
    "outlook for android ru": Client(
        f"{{reply}}\n\nПолучить Outlook для Android<https://aka.ms/AAb9ysg>\n\n{OUTLOOK_RU}\n"
        "{original}\n"),
    "yandex": Client('{reply}\n\n26.11.2026, 10:00, "Correspondence games" <games@localhost>:\n'
                     "{quoted}\n"),
    "mail.ru": Client("{reply}\n\n\nЧетверг, 26 ноября 2026, 10:00 +03:00 от Correspondence "
                      "games <games@localhost>:\n\n{quoted}\n"),
}


def reply_of(name: str, original: EmailMessage, written: str) -> EmailMessage:
    """A reply by the client ``name`` to ``original``, in which the player wrote ``written``."""
    client = CLIENTS[name]
    text = original.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")
    reply = EmailMessage()
    reply["From"] = original["To"]
    reply["To"] = original["Reply-To"]
    reply["Subject"] = "Re: " + original["Subject"]
    reply["Date"] = format_datetime(localtime())
    reply["Message-ID"] = make_msgid(domain="example.org")
    reply["In-Reply-To"] = original["Message-ID"]
    parts = []
    if client.text is not None:
        parts.append((client.text.format(reply=written, original=text, quoted=quoted(text),
                                         subject=original["Subject"]), "plain"))
    if client.html is not None:
        parts.append((client.html(written, text), "html"))
    reply.set_content(parts[0][0], subtype=parts[0][1], charset=client.charset,
                      cte=client.encoding)
    for content, subtype in parts[1:]:
        reply.add_alternative(content, subtype=subtype, charset=client.charset,
                              cte=client.encoding)
    return reply


def chat(db) -> list[tuple]:
    return [(r["seat"], r["text"]) for r in
            db.query("SELECT seat, text FROM events WHERE kind = 'chat' ORDER BY seq")]


@pytest.mark.parametrize("message", ["", "Good luck!", "Удачи!\n\nХорошей игры."])
@pytest.mark.parametrize("client_name", list(CLIENTS))
def test_a_reply_from_each_client_plays_its_move_and_leaks_no_quote(
        client, new_game, db, post, listener, client_name, message):
    game = new_game()
    move = client.get(game.apis[0]).json["legal_moves"][0]
    send(listener.port, reply_of(client_name, only(post(), P1),
                                 "\n".join(filter(None, [move, message]))))
    assert events(db) == [(0, "move", move)] + ([(0, "chat", None)] if message else [])
    assert chat(db) == ([(0, message)] if message else [])


@pytest.mark.parametrize("written", ["{move}.", "{Move}", "{Move}.", "{move} !"])
@pytest.mark.parametrize("client_name", ["apple mail iphone", "apple mail iphone ru"])
def test_a_move_written_as_a_sentence_is_played(client, new_game, db, post, listener,
                                                client_name, written):
    """Phones capitalise the first letter, and people end sentences with a full stop."""
    game = new_game()
    move = client.get(game.apis[0]).json["legal_moves"][0]
    text = written.format(move=move, Move=move[0].upper() + move[1:])
    send(listener.port, reply_of(client_name, only(post(), P1), text))
    assert events(db) == [(0, "move", move)]
