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

Standard library only, so a test can run this file under every Python on the machine.
"""
from __future__ import annotations

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
SMTP_LINE = policy.SMTP.max_line_length or 78  # where the SMTP policy folds a header
# Values set raw are written as they are; header objects (the others) still fold themselves.
WRITTEN = policy.SMTP.clone(refold_source="none")


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
    message.set_content(body)
    if html is not None:
        message.add_alternative(html, subtype="html")
        related = list(message.iter_parts())[1]
        for content_id, picture in pictures:
            related.add_related(picture, "image", "png", cid=f"<{content_id}>",
                                disposition="inline", filename=f"{content_id.split('@')[0]}.png")
        # The same message every time it is built (a resend after a crash is the same
        # file): boundaries from the Message-ID, not random ones.
        for number, part in enumerate(p for p in message.walk() if p.is_multipart()):
            seed = f"{headers.get('Message-ID', '')} {number}".encode()
            part.set_boundary(f"=_{hashlib.sha256(seed).hexdigest()[:40]}")
    data = bytes(message)
    written = BytesParser(policy=policy.default).parsebytes(data, headersonly=True)
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
        if " ".join(str(written[name]).split()) != text:
            raise HeaderInjection(f"the {name} header would not read as it was written")
    return data
