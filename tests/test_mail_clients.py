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

from pbem.mail import inbound

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


# -- every client's shape, read ----------------------------------------------------------
#
# How each client writes a reply, top-posted or bottom-posted, in its text or its HTML
# part (each the message's only part, so that each is read), in English and Russian: the
# attribution or header block above the original, its quote marks or none, the
# signatures and "Sent from" lines, a forward sent along. Read by ``inbound.read`` alone:
# the path of a reply into the game is the tests' above.

ANNA = "Anna Petrova <anna@example.org>"
ORIGINAL = ("Hello Ann,\n\nBob played d2-d4. It is your move in Mastery: Ann vs Bob [g1].\n"
            "Reply with your move as the first line, for example:\nd7-d5\n\n"
            "Open the game: http://localhost/play/secret\n-- \nEmail settings")
QUOTED = quoted(ORIGINAL)
ORIGINAL_HTML = "".join(f"<div>{html.escape(line) or '<br>'}</div>"
                        for line in ORIGINAL.splitlines())


def divs(reply: str) -> str:
    """The player's lines as most webmail writes them: a <div> each, <br> for an empty one."""
    return "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in reply.splitlines())


def outlook_desktop_html(reply: str, header: str) -> str:
    """Outlook 2007/2010 and Windows Mail: Word's paragraphs, and the original's header
    block in a <div> with a rule above it (no <hr>)."""
    paragraphs = "".join(f'<p class="MsoNormal">{html.escape(line) or "&nbsp;"}</p>'
                         for line in reply.splitlines())
    block = "<br>\n".join(f"<b>{html.escape(name)}:</b> {html.escape(value.strip())}"
                          for name, value in (line.split(":", 1) for line in header.splitlines()))
    return ('<html><body lang="EN-GB"><div class="WordSection1">' + paragraphs
            + '<p class="MsoNormal">&nbsp;</p><div><div style="border:none;border-top:solid '
            '#B5C4DF 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal">' + block
            + "</p></div></div>" + ORIGINAL_HTML + "</div></body></html>")


OUTLOOK_2003 = ("-----Original Message-----\nFrom: Anna Petrova [mailto:anna@example.org] \n"
                "Sent: Wednesday, November 25, 2026 10:00 AM\nTo: Player 1\n"
                "Subject: Your move\n")
OUTLOOK_2010 = ("From: Anna Petrova [mailto:anna@example.org] \nSent: Wednesday, November 25, "
                "2026 10:00 AM\nTo: Player 1\nSubject: Your move")
OUTLOOK_2010_RU = ("От: Anna Petrova [mailto:anna@example.org] \nОтправлено: 25 ноября 2026 г. "
                   "10:00\nКому: Player 1\nТема: Ваш ход")
OUTLOOK_COM = (f"________________________________\nFrom: {ANNA}\nSent: Wednesday, November "
               "25, 2026 10:00 AM\nTo: Player 1 <p1@example.org>\nSubject: Your move\n")
WINDOWS_MAIL = ("Sent from Mail for Windows\n\nFrom: Anna Petrova\nSent: 25 November 2026 "
                "10:00\nTo: p1@example.org\nSubject: Your move\n")
WINDOWS_MAIL_RU = ("Отправлено из приложения Почта для Windows\n\nОт: Anna Petrova\n"
                   "Отправлено: 25 ноября 2026 г. в 10:00\nКому: p1@example.org\n"
                   "Тема: Ваш ход\n")

# name: (subtype, the part's content with {reply} where the player's words go)
SHAPES: dict[str, tuple[str, str]] = {
    # Gmail on the web and the Gmail app for Android
    "gmail text": ("plain", f"{{reply}}\n\nOn Wed, Nov 25, 2026 at 10:00 AM {ANNA} wrote:\n\n"
                            f"{QUOTED}\n"),
    "gmail text ru": ("plain", f"{{reply}}\n\nср, 25 нояб. 2026 г. в 10:00, {ANNA}:\n\n{QUOTED}\n"),
    "gmail text, signature": ("plain", f"{{reply}}\n\n-- \nAnna Petrova\nhttps://anna.example\n"
                                       f"\nOn Wed, Nov 25, 2026 at 10:00 AM {ANNA} wrote:\n\n"
                                       f"{QUOTED}\n"),
    "gmail html, signature": (
        "html", '<div dir="ltr">{reply_html}<br clear="all"><div><br></div><span '
                'class="gmail_signature_prefix">-- </span><br><div dir="ltr" '
                'class="gmail_signature" data-smartmail="gmail_signature">Anna Petrova<br>'
                'https://anna.example</div></div><br><div class="gmail_quote"><div dir="ltr" '
                f'class="gmail_attr">On Wed, Nov 25, 2026 at 10:00 AM {html.escape(ANNA)} '
                'wrote:<br></div><blockquote class="gmail_quote">' + ORIGINAL_HTML
                + "</blockquote></div>"),
    "gmail forward": ("plain", f"{{reply}}\n\n---------- Forwarded message ---------\nFrom: "
                               f"{ANNA}\nDate: Wed, Nov 25, 2026 at 10:00 AM\nSubject: Your "
                               f"move\nTo: <p1@example.org>\n\n\n{ORIGINAL}\n"),
    "gmail android": ("plain", f"{{reply}}\n\nOn Wed, 25 Nov 2026, 10:00 Anna Petrova, "
                               f"<anna@example.org> wrote:\n\n{QUOTED}\n"),
    "gmail android ru": ("plain", f"{{reply}}\n\nср, 25 нояб. 2026 г., 10:00 {ANNA}:\n\n"
                                  f"{QUOTED}\n"),
    "gmail android html ru": (
        "html", '<div dir="auto">{reply_html}</div><br><div class="gmail_quote"><div '
                'dir="ltr" class="gmail_attr">ср, 25 нояб. 2026 г., 10:00 '
                f'{html.escape(ANNA)}:<br></div><blockquote class="gmail_quote" '
                'style="margin:0 0 0 .8ex;border-left:1px #ccc solid;padding-left:1ex">'
                + ORIGINAL_HTML + "</blockquote></div>"),
    # Thunderbird
    "thunderbird bottom-posted": ("plain", f"On 25/11/2026 10:00, Anna Petrova wrote:\n{QUOTED}"
                                           "\n\n{reply}\n\n-- \nAnn\n"),
    "thunderbird ru top-posted": ("plain", f"{{reply}}\n\n25.11.2026 10:00, Anna Petrova пишет:"
                                           f"\n{QUOTED}\n"),
    "thunderbird html": (
        "html", '<html><body><p>{reply_p}</p><div class="moz-cite-prefix">On 25/11/2026 '
                '10:00, Anna Petrova wrote:<br></div><blockquote type="cite" '
                'cite="mid:1@localhost">' + ORIGINAL_HTML + '</blockquote><div '
                'class="moz-signature">-- <br>Ann</div></body></html>'),
    "thunderbird html ru bottom-posted": (
        "html", '<html><body><div class="moz-cite-prefix">25.11.2026 10:00, Anna Petrova '
                'пишет:<br></div><blockquote type="cite">' + ORIGINAL_HTML
                + "</blockquote><p>{reply_p}</p></body></html>"),
    # Yandex
    "yandex": ("plain", f'{{reply}}\n\n25.11.2026, 10:00, "Anna Petrova" <anna@example.org>:\n'
                        f"{QUOTED}\n"),
    "yandex ru words": ("plain", "{reply}\n\n25 нояб. 2026 г., 10:00 пользователь Anna Petrova "
                                 f"<anna@example.org> написал:\n{QUOTED}\n"),
    "yandex mobile": ("plain", "{reply}\n\n-- \nОтправлено из мобильной Яндекс Почты\n\n"
                               f'25.11.2026, 10:00, "Anna Petrova" <anna@example.org>:\n'
                               f"{QUOTED}\n"),
    "yandex html": (
        "html", "<div>{reply_divs}</div><div>&nbsp;</div><div>25.11.2026, 10:00, "
                "&#34;Anna Petrova&#34; &lt;anna@example.org&gt;:</div><blockquote>"
                + ORIGINAL_HTML + "</blockquote>"),
    "yandex forward": ("plain", "{reply}\n\n-------- Пересылаемое сообщение--------\n"
                                f"25.11.2026, 10:00, \"Anna Petrova\" <anna@example.org>:\n\n"
                                f"{ORIGINAL}\n-------- Конец пересылаемого сообщения --------\n"),
    # Apple Mail, on a Mac and on an iPhone
    "apple mail": ("plain", "{reply}\n\n> On 25 Nov 2026, at 10:00, Anna Petrova "
                            f"<anna@example.org> wrote:\n> \n{QUOTED}\n"),
    "apple mail ru": ("plain", "{reply}\n\n> 25 нояб. 2026 г., в 10:00, Anna Petrova "
                               f"<anna@example.org> написал(а):\n> \n{QUOTED}\n"),
    "apple mail html": (
        "html", '<html><body style="overflow-wrap: break-word;">{reply_divs}<div><br>'
                '<blockquote type="cite"><div>On 25 Nov 2026, at 10:00, Anna Petrova '
                '&lt;anna@example.org&gt; wrote:</div><br><div>' + ORIGINAL_HTML
                + "</div></blockquote></div><br></body></html>"),
    "apple mail forward": ("plain", "{reply}\n\nBegin forwarded message:\n\nFrom: " + ANNA
                                    + "\nSubject: Your move\nDate: 25 November 2026 at 10:00\n\n"
                                    + ORIGINAL + "\n"),
    "apple mail forward ru": ("plain", "{reply}\n\nНачало переадресованного сообщения:\n\nОт: "
                                       + ANNA + "\nТема: Ваш ход\nДата: 25 ноября 2026 г. в "
                                       "10:00\n\n" + ORIGINAL + "\n"),
    "iphone": ("plain", "{reply}\n\nSent from my iPhone\n\n> On 25 Nov 2026, at 10:00, Anna "
                        f"Petrova <anna@example.org> wrote:\n>\n{QUOTED}\n"),
    "iphone ru": ("plain", "{reply}\n\nОтправлено с iPhone\n\n> 25 нояб. 2026 г., в 10:00, "
                           f"Anna Petrova <anna@example.org> написал(а):\n>\n{QUOTED}\n"),
    "iphone html": (
        "html", '<html><body dir="auto">{reply_dir_ltr}<div dir="ltr"><br><div dir="ltr">Sent '
                'from my iPhone</div><div dir="ltr"><br><blockquote type="cite">On 25 Nov '
                '2026, at 10:00, Anna Petrova &lt;anna@example.org&gt; wrote:<br><br>'
                + ORIGINAL_HTML + "</blockquote></div></div></body></html>"),
    "iphone html ru": (
        "html", '<html><body dir="auto">{reply_dir_ltr}<div dir="ltr"><br><div dir="ltr">'
                'Отправлено с iPhone</div><blockquote type="cite">25 нояб. 2026 г., в 10:00, '
                "Anna Petrova &lt;anna@example.org&gt; написал(а):<br><br>" + ORIGINAL_HTML
                + "</blockquote></div></body></html>"),
    # AOL: the old original message block, the old attribution, and today's (Yahoo's)
    "aol": ("plain", f"{{reply}}\n\n\n\n{OUTLOOK_2003}\n{ORIGINAL}\n"),
    "aol, in a message dated": ("plain", "{reply}\n\nIn a message dated 11/25/2026 10:00:00 AM "
                                         "Eastern Standard Time, anna@example.org writes:\n\n"
                                         f"{QUOTED}\n"),
    "aol today": ("plain", "{reply}\n\nSent from AOL on Android\n\nOn Wednesday, November 25, "
                           f"2026, 10:00 AM, {ANNA} wrote:\n\n{ORIGINAL}\n"),
    # Yahoo: the attribution indented, the original below it not quoted
    "yahoo": ("plain", "{reply}\n\n    On Wednesday, November 25, 2026, 10:00:00 AM GMT+3, "
                       f"{ANNA} wrote:  \n \n {ORIGINAL}\n"),
    "yahoo ru": ("plain", "{reply}\n\n    среда, 25 ноября 2026 г., 10:00:00 GMT+3, "
                          f"{ANNA} написал(-а):  \n \n {ORIGINAL}\n"),
    "yahoo mobile": ("plain", "{reply}\n\nSent from Yahoo Mail on Android\n \n  On Wed, Nov "
                              f"25, 2026 at 10:00, {ANNA} wrote:   {ORIGINAL}\n"),
    "yahoo html": (
        "html", '<html><body><div class="ydp1a2b3c4dyahoo-style-wrap">{reply_divs}</div><div '
                'id="yahoo_quoted_1234" class="yahoo_quoted"><div style="font-family:Helvetica">'
                '<div>On Wednesday, November 25, 2026, 10:00:00 AM GMT+3, Anna Petrova '
                "&lt;anna@example.org&gt; wrote:</div><div><br></div>" + ORIGINAL_HTML
                + "</div></div></body></html>"),
    # Outlook 2003, 2007 and 2010, Outlook.com, Windows Mail
    "outlook 2003": ("plain", f"{{reply}}\n\n{OUTLOOK_2003}\n{ORIGINAL}\n"),
    "outlook 2003 html": (
        "html", '<html><body><div><font face="Arial" size="2">{reply_br}</font></div><br>'
                '<div class="OutlookMessageHeader" dir="ltr" align="left"><font face="Tahoma" '
                'size="2">-----Original Message-----<br><b>From:</b> Anna Petrova '
                "[mailto:anna@example.org] <br><b>Sent:</b> Wednesday, November 25, 2026 10:00 "
                "AM<br><b>To:</b> Player 1<br><b>Subject:</b> Your move<br><br></font></div>"
                + ORIGINAL_HTML + "</body></html>"),
    "outlook 2007": ("plain", "{reply}\n\n_____________________________________________\n"
                              f"{OUTLOOK_2010}\n\n{ORIGINAL}\n"),
    "outlook 2010": ("plain", f"{{reply}}\n\n{OUTLOOK_2010}\n\n{ORIGINAL}\n"),
    "outlook 2010 ru": ("plain", f"{{reply}}\n\n{OUTLOOK_2010_RU}\n\n{ORIGINAL}\n"),
    "outlook 2010 html": ("html", "{outlook_2010_html}"),
    "outlook 2010 html ru": ("html", "{outlook_2010_html_ru}"),
    "outlook 2010, original message ru": (
        "plain", "{reply}\n\n-----Original Message-----\nFrom: Anna Petrova "
                 f"[mailto:anna@example.org]\n{OUTLOOK_2010_RU.split(chr(10), 1)[1]}\n\n"
                 f"{ORIGINAL}\n"),
    "outlook.com": ("plain", f"{{reply}}\n\n{OUTLOOK_COM}\n{ORIGINAL}\n"),
    "outlook.com html": ("html", "{outlook_com_html}"),
    "outlook for ios": ("plain", f"{{reply}}\n\nGet Outlook for iOS\n{OUTLOOK_COM}\n{ORIGINAL}\n"),
    "windows mail": ("plain", f"{{reply}}\n\n{WINDOWS_MAIL}\n{ORIGINAL}\n"),
    "windows mail ru": ("plain", f"{{reply}}\n\n{WINDOWS_MAIL_RU}\n{ORIGINAL}\n"),
    "windows mail html": ("html", "{windows_mail_html}"),
    "windows live mail": ("plain", "{reply}\n\n----- Original Message ----- \nFrom: Anna Petrova"
                                   " \nTo: p1@example.org \nSent: Wednesday, November 25, 2026 "
                                   f"10:00 AM\nSubject: Your move\n\n{ORIGINAL}\n"),
    # mail.ru
    "mail.ru": ("plain", "{reply}\n\n\nСреда, 25 ноября 2026, 10:00 +03:00 от Anna Petrova "
                         f"<anna@example.org>:\n\n{QUOTED}\n"),
    "mail.ru, quoted attribution": (
        "plain", "{reply}\n\n--\nАнна\n\n>Среда, 25 ноября 2026, 10:00 +03:00 от Anna Petrova "
                 f"<anna@example.org>:\n>\n{QUOTED}\n"),
    "mail.ru mobile": ("plain", "{reply}\n\n\n--\nОтправлено из Mail.ru для Android\n"
                                "среда, 25 ноября 2026г., 10:00 +03:00 от Anna Petrova "
                                f"anna@example.org:\n\n{QUOTED}\n"),
    "mail.ru html": (
        "html", "<html><body><div>{reply_divs}</div><div>&nbsp;</div><div>&nbsp;</div><div "
                'class="mail-quote-collapse">Среда, 25 ноября 2026, 10:00 +03:00 от Anna Petrova '
                '&lt;<a href="mailto:anna@example.org">anna@example.org</a>&gt;:<br>&nbsp;'
                '<blockquote style="border-left:1px solid #0857A6; margin:10px; padding:0 0 0 '
                '10px;"><div id="">' + ORIGINAL_HTML + "</div></blockquote></div></body></html>"),
    "mail.ru forward": ("plain", "{reply}\n\n\n-------- Пересылаемое сообщение --------\nОт кого:"
                                 f" {ANNA}\nКому: p1@example.org\nДата: Среда, 25 ноября 2026, "
                                 f"10:00 +03:00\nТема: Ваш ход\n\n{ORIGINAL}\n"),
    # Sparrow
    "sparrow": ("plain", "{reply}\n\n-- \nAnna Petrova\nSent with Sparrow "
                         "(http://www.sparrowmailapp.com/?sig)\n\nOn Wednesday, 25 November 2026 "
                         f"at 10:00, Anna Petrova wrote:\n\n{QUOTED}\n"),
    "sparrow, no signature": ("plain", "{reply}\n\nSent with Sparrow (http://www.sparrowmailapp"
                                       ".com/?sig)\n\nOn Wednesday, 25 November 2026 at 10:00, "
                                       f"Anna Petrova wrote:\n\n{ORIGINAL}\n"),
    "sparrow html": (
        "html", '<div>{reply_divs}</div><div><div><br></div><div>-- </div><div>Anna Petrova'
                '</div><div>Sent with <a href="http://www.sparrowmailapp.com/?sig">Sparrow</a>'
                '</div><div><br></div></div><p style="color: #A0A0A8;">On Wednesday, 25 November '
                '2026 at 10:00, Anna Petrova wrote:</p><blockquote type="cite"><span>'
                + ORIGINAL_HTML + "</span></blockquote>"),
    # no quote at all, and a signature of one's own
    "plain signature": ("plain", "{reply}\n\n-- \nAnna Petrova, Kazan\n"),
}


def shaped(name: str, reply: str) -> bytes:
    """The bytes of a reply by ``name``'s client in which the player wrote ``reply``."""
    subtype, template = SHAPES[name]
    lines = reply.splitlines()
    content = template.format(
        reply=reply, reply_html=divs(reply), reply_divs=divs(reply),
        reply_p="<br>\n".join(html.escape(line) for line in lines),
        reply_br="<br>".join(html.escape(line) for line in lines),
        reply_dir_ltr="".join(f'<div dir="ltr">{html.escape(line) or "<br>"}</div>'
                              for line in lines),
        outlook_2010_html=outlook_desktop_html(reply, OUTLOOK_2010),
        outlook_2010_html_ru=outlook_desktop_html(reply, OUTLOOK_2010_RU),
        windows_mail_html=outlook_desktop_html(reply, WINDOWS_MAIL.split("\n\n", 1)[1].strip())
        .replace('<p class="MsoNormal">&nbsp;</p><div>',
                 '<p class="MsoNormal">Sent from <a href="https://go.microsoft.com/fwlink/'
                 '?LinkId=550986">Mail</a> for Windows</p><p class="MsoNormal">&nbsp;</p><div>', 1),
        outlook_com_html=outlook_html(reply, OUTLOOK_COM.split("\n", 1)[1], ORIGINAL))
    message = EmailMessage()
    message["From"], message["To"] = "p1@example.org", "move+3.secret@pbem.localhost"
    message["Subject"] = "Re: Your move — Mastery: Ann vs Bob [g1]"
    message["Message-ID"] = "<reply@example.org>"
    message.set_content(content, subtype=subtype, cte="quoted-printable")
    return bytes(message)


WRITTEN = {"a move alone": ("c2-c4", ""),
           "a move and a message": ("c2-c4", "Good game so far!"),
           "a move and lines in Russian": ("c2-c4", "Удачи!\n\nХорошей игры, Bob.")}


@pytest.mark.parametrize("written", list(WRITTEN))
@pytest.mark.parametrize("shape", list(SHAPES))
def test_each_clients_reply_is_read_as_the_player_wrote_it_and_its_quote_never(shape,
                                                                                written):
    move, message = WRITTEN[written]
    reply = inbound.read(shaped(shape, "\n".join(filter(None, [move, "", message]))))
    assert (reply.line, reply.message) == (move, message)
