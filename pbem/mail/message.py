"""Building an email whose headers are exactly the ones the server writes.

Some header values hold text that players typed (their names, in a Subject). Python's
``email`` package reads a header value set as a string the way it would read one from the
wire: it decodes RFC 2047 encoded words, so a name such as
``=?utf-8?q?Eve=0d=0aReply-To:_eve@evil.example?=`` becomes a line break and a header of
its own on some Python versions. ``header_text`` makes any text safe as a header value
(one line, no control characters, no encoded-word opener), and ``compose`` checks the
result on its way out: the message it returns parses back to the same headers.

A value that is one word of ASCII (a URL in ``<>``, as List-Unsubscribe holds) is written as
it is, however long: folding would put it into an RFC 2047 encoded word, which readers of
such headers (mail providers' unsubscribe buttons) do not decode.

With an HTML part, a message is ``multipart/alternative``: the plain text, then
``multipart/related`` holding the HTML and the pictures it shows by ``cid:``. Clients that
prefer plain text never see the pictures as attachments, and Gmail, Outlook and Apple Mail
show the HTML with its pictures in place (the structure of the ``email`` package's own
example).

The parts are written as bytes, in the shapes the ``email`` package writes (its choice of
transfer encoding for text, base64 pictures in 76-character lines), and only the headers
go through its objects: building the parts through them took as long as drawing the
board's picture.

Standard library only, so a test can run this file under every Python on the machine.
"""
from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
import unicodedata
from email import policy
from email.header import Header
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Mapping, Sequence

# Line and paragraph separators, and every control and format character (C0, C1, DEL,
# zero-width and direction marks): none belongs in a one-line header value.
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
ENCODED_WORD_OPENER = re.compile(r"=\s*\?")
ADDRESSES = {"from", "to", "cc", "bcc", "reply-to", "sender"}  # headers readers parse
LINE_LIMIT = 998  # RFC 5322: characters of a line, its end aside
SMTP_LINE = policy.SMTP.max_line_length or 78  # the longest line the SMTP policy writes
# Values set raw are written as they are; header objects (the others) still fold themselves.
WRITTEN = policy.SMTP.clone(refold_source="none")


CRLF = b"\r\n"


def _joined(*sections: bytes) -> bytes:
    return CRLF.join(sections)


def _text(subtype: str, content: str) -> bytes:
    """A ``text/<subtype>`` part in UTF-8: as it is where every line is short (7bit for
    ASCII, else 8bit), else quoted-printable or base64, whichever is shorter (base64 for
    Russian, whose letters quoted-printable writes in six characters each)."""
    data = content.encode("utf-8")
    lines = data.splitlines()
    if max(map(len, lines), default=0) <= SMTP_LINE:
        encoding, payload = ("7bit" if data.isascii() else "8bit"), CRLF.join(lines) + CRLF
    else:
        text = b"\n".join(lines) + b"\n"
        quoted = binascii.b2a_qp(text, istext=True)
        encoded = base64.encodebytes(text)
        encoding, payload = ("quoted-printable", quoted) if len(quoted) <= len(encoded) \
            else ("base64", encoded)
        payload = payload.replace(b"\n", CRLF)
    return _joined(f'Content-Type: text/{subtype}; charset="utf-8"'.encode(),
                   f"Content-Transfer-Encoding: {encoding}".encode(), b"", payload)


def _picture(content_id: str, png: bytes) -> bytes:
    name = content_id.split("@")[0]
    return _joined(b"Content-Type: image/png", b"Content-Transfer-Encoding: base64",
                   f'Content-Disposition: inline; filename="{name}.png"'.encode(),
                   f"Content-ID: <{content_id}>".encode(), b"",
                   base64.encodebytes(png).replace(b"\n", CRLF))


def _multipart(subtype: str, boundary: str, parts: Sequence[bytes]) -> bytes:
    mark = f"--{boundary}".encode()
    return _joined(f"Content-Type: multipart/{subtype};".encode(),
                   f' boundary="{boundary}"'.encode(), b"",
                   *(mark + CRLF + part for part in parts), mark + b"--", b"")


class HeaderInjection(ValueError):
    """A message whose headers would not be the ones its builder set."""


def header_text(text: str) -> str:
    """``text`` as a safe header value: each run of white space and unsafe characters one
    space, and ``=?`` (which would open an RFC 2047 encoded word) written ``= ?``."""
    cleaned = "".join(" " if unicodedata.category(c) in UNSAFE_CATEGORIES or c.isspace()
                      else c for c in text)
    return ENCODED_WORD_OPENER.sub("= ?", " ".join(cleaned.split()))


def compose(headers: Mapping[str, str], body: str, html: str | None = None,
            pictures: Sequence[tuple[str, bytes]] = ()) -> bytes:
    """A message with exactly ``headers`` (in order) and the plain text ``body``, as it goes
    out; with ``html``, the HTML part too, showing ``pictures`` (content id, PNG) by
    ``cid:``. Every value goes through ``header_text``; the message is then parsed back,
    and refused (``HeaderInjection``) unless it holds exactly those headers with those
    values."""
    texts = {name: header_text(value) for name, value in headers.items()}
    message = EmailMessage(policy=WRITTEN)
    for name, text in texts.items():
        line = len(name) + 2 + len(text)
        if text.isascii() and (line <= SMTP_LINE or " " not in text):
            if line > LINE_LIMIT:
                raise HeaderInjection(f"the {name} header is longer than a line may be")
            message.set_raw(name, text)  # one plain line: nothing to encode or fold
        elif name.lower() in ADDRESSES:
            message[name] = text
        else:
            # encoded words folded by email.header: the policy's folding drops the space
            # between two encoded words that meet at a fold ("Mastery: Аня против Bob")
            message.set_raw(name, Header(text, "utf-8", header_name=name).encode(
                linesep=WRITTEN.linesep))
    message.set_raw("MIME-Version", "1.0")
    head = bytes(message).removesuffix(CRLF + CRLF)  # the headers, and then the parts'
    plain = _text("plain", body)
    if html is None:
        data = _joined(head, plain)
    else:
        # The same message every time it is built (a resend after a crash is the same
        # file): boundaries from the Message-ID, not random ones.
        outer, inner = (f"=_{hashlib.sha256(seed.encode()).hexdigest()[:40]}" for seed in
                        (f"{headers.get('Message-ID', '')} {number}" for number in (0, 1)))
        related = _multipart("related", inner, [_text("html", html), *(
            _picture(content_id, picture) for content_id, picture in pictures)])
        data = _joined(head, _multipart("alternative", outer, [plain, related]))
    # the headers alone: a parser reads every line of the parts after them too (a picture's
    # base64 cost more than the check)
    written = BytesParser(policy=policy.default).parsebytes(
        data[:data.index(CRLF + CRLF) + 4], headersonly=True)
    expected = [name.lower() for name in headers]
    found = [name.lower() for name in written.keys()  # noqa: SIM118 - a Message, not a dict
             if name.lower() not in ("content-type", "content-transfer-encoding",
                                     "mime-version")]
    if found != expected:
        raise HeaderInjection(f"the message would carry the headers {found}, not {expected}")
    raw = {name.lower(): value for name, value in written.raw_items()}
    for name, text in texts.items():
        if " ".join(raw[name.lower()].split()) == text and name.lower() not in ADDRESSES:
            continue  # written as it is, with no encoded word for a reader to decode
        # encoded, folded into encoded words, or addresses: as a reader parses them
        if _read(name.lower(), raw[name.lower()]) != text:
            raise HeaderInjection(f"the {name} header would not read as it was written")
    return data


@functools.lru_cache(maxsize=4096)
def _read(name: str, value: str) -> str:
    """A header's value as a reader parses it, white space runs one space: the same each
    time for the same written value, and the sender and a player's address come again and
    again (parsing an address header costs more than writing the message)."""
    return " ".join(str(policy.default.header_fetch_parse(name, value)).split())
