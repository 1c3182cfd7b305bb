"""Moves by reply as real mail clients write them, in English and Russian (pbem/inbound.py):
each reply below is shaped as its client writes one (attribution, signature, quote or the
original sent along unquoted, charset and transfer encoding), sent to the real listener
over SMTP; its move must be played, what the player wrote under it must reach the chat, and
nothing of the original may."""
from __future__ import annotations

import html
from email.message import EmailMessage
from email.utils import format_datetime, localtime, make_msgid

import pytest

from test_inbound import P1, events, listener, only, post, send  # noqa: F401 - fixtures

GMAIL_EN = "On Thu, Nov 26, 2026 at 10:00 AM Correspondence games <\ngames@localhost> wrote:"
GMAIL_RU = "чт, 26 нояб. 2026 г. в 10:00, Correspondence games <games@localhost>:"
GMAIL_RU_WRAPPED = "чт, 26 нояб. 2026 г. в 10:00, Correspondence games <\ngames@localhost>:"
OUTLOOK_EN = ("From: Correspondence games <games@localhost>\n"
              "Sent: Thursday, November 26, 2026 10:00:00 AM\n"
              "To: p1@example.org <p1@example.org>\nSubject: {subject}\n")
OUTLOOK_RU = ("От: Correspondence games <games@localhost>\n"
              "Отправлено: 26 ноября 2026 г. 10:00\n"
              "Кому: Player 1 <p1@example.org>\nТема: {subject}\n")


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


# Each client: (plain text, HTML, charset, transfer encoding) of a reply, from the player's
# text (the move, then any message), the original email's text and its subject.
CLIENTS = {
    "gmail": lambda r, o, s: (f"{r}\n\n{GMAIL_EN}\n\n{quoted(o)}\n",
                              gmail_html(r, GMAIL_EN, o), "utf-8", "quoted-printable"),
    "gmail html only": lambda r, o, s: (None, gmail_html(r, GMAIL_EN, o), "utf-8", "base64"),
    "gmail base64": lambda r, o, s: (f"{r}\n\n{GMAIL_EN}\n\n{quoted(o)}\n", None, "utf-8",
                                     "base64"),
    "apple mail iphone": lambda r, o, s: (
        f"{r}\n\nSent from my iPhone\n\n> On 26 Nov 2026, at 10:00, Correspondence games "
        f"<games@localhost> wrote:\n> \n{quoted(o)}\n", None, "utf-8", "quoted-printable"),
    "thunderbird": lambda r, o, s: (
        f"On 26/11/2026 10:00, Correspondence games wrote:\n{quoted(o)}\n\n{r}\n", None,
        "utf-8", "8bit"),
    "outlook plain": lambda r, o, s: (
        f"{r}\n\n________________________________\n{OUTLOOK_EN.format(subject=s)}\n{o}\n",
        None, "utf-8", "quoted-printable"),
    "outlook html": lambda r, o, s: (None, outlook_html(r, OUTLOOK_EN.format(subject=s), o),
                                     "utf-8", "quoted-printable"),
    "outlook for android": lambda r, o, s: (
        f"{r}\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n\n"
        f"{OUTLOOK_EN.format(subject=s)}\n{o}\n", None, "utf-8", "quoted-printable"),
    "outlook for android, signature deleted": lambda r, o, s: (
        f"{r}\n\n{OUTLOOK_EN.format(subject=s)}\n{o}\n", None, "utf-8", "base64"),
    # Russian
    "gmail ru": lambda r, o, s: (f"{r}\n\n{GMAIL_RU}\n\n{quoted(o)}\n",
                                 gmail_html(r, GMAIL_RU, o), "utf-8", "base64"),
    "gmail ru wrapped": lambda r, o, s: (f"{r}\n\n{GMAIL_RU_WRAPPED}\n\n{quoted(o)}\n", None,
                                         "utf-8", "base64"),
    "gmail ru forward": lambda r, o, s: (
        f"{r}\n\n---------- Пересылаемое сообщение ---------\nОт: Correspondence games "
        f"<games@localhost>\nDate: чт, 26 нояб. 2026 г. в 10:00\nSubject: {s}\n\n{o}\n",
        None, "utf-8", "base64"),
    "apple mail iphone ru": lambda r, o, s: (
        f"{r}\n\nОтправлено с iPhone\n\n> 26 нояб. 2026 г., в 10:00, Correspondence games "
        f"<games@localhost> написал(а):\n> \n{quoted(o)}\n", None, "utf-8", "quoted-printable"),
    "thunderbird ru windows-1251": lambda r, o, s: (
        f"26.11.2026 10:00, Correspondence games пишет:\n{quoted(o)}\n\n{r}\n", None,
        "windows-1251", "quoted-printable"),
    "thunderbird ru forward": lambda r, o, s: (
        f"{r}\n\n-------- Пересланное сообщение --------\nТема: \t{s}\nДата: \t"
        f"Thu, 26 Nov 2026 10:00:00 +0000\nОт: \tCorrespondence games <games@localhost>\n\n{o}\n",
        None, "utf-8", "base64"),
    "outlook ru": lambda r, o, s: (
        f"{r}\n\n________________________________\n{OUTLOOK_RU.format(subject=s)}\n{o}\n",
        None, "windows-1251", "base64"),
    "outlook ru, original message": lambda r, o, s: (
        f"{r}\n\n-----Исходное сообщение-----\n{OUTLOOK_RU.format(subject=s)}\n{o}\n", None,
        "windows-1251", "quoted-printable"),
    "outlook for android ru": lambda r, o, s: (
        f"{r}\n\nПолучить Outlook для Android<https://aka.ms/AAb9ysg>\n\n"
        f"{OUTLOOK_RU.format(subject=s)}\n{o}\n", None, "utf-8", "base64"),
    "yandex": lambda r, o, s: (
        f'{r}\n\n26.11.2026, 10:00, "Correspondence games" <games@localhost>:\n{quoted(o)}\n',
        None, "utf-8", "base64"),
    "mail.ru": lambda r, o, s: (
        f"{r}\n\n\nЧетверг, 26 ноября 2026, 10:00 +03:00 от Correspondence games "
        f"<games@localhost>:\n\n{quoted(o)}\n", None, "utf-8", "base64"),
}


def reply_of(client: str, original: EmailMessage, written: str) -> EmailMessage:
    text = original.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")
    plain, markup, charset, encoding = CLIENTS[client](written, text, original["Subject"])
    reply = EmailMessage()
    reply["From"] = original["To"]
    reply["To"] = original["Reply-To"]
    reply["Subject"] = "Re: " + original["Subject"]
    reply["Date"] = format_datetime(localtime())
    reply["Message-ID"] = make_msgid(domain="example.org")
    reply["In-Reply-To"] = original["Message-ID"]
    if plain is not None:
        reply.set_content(plain, charset=charset, cte=encoding)
    if markup is not None and plain is not None:
        reply.add_alternative(markup, subtype="html", charset=charset, cte=encoding)
    elif markup is not None:
        reply.set_content(markup, subtype="html", charset=charset, cte=encoding)
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
