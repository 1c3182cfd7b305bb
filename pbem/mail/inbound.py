"""Moves by email: a player replies to a game email with the move as its first line.

Every game email to a seat says ``Reply-To: <prefix>+v<version>.<token>@<domain>`` (see
``links.reply_address``). The token is the secret link token that email mints anyway, so the
address is a per-seat capability of which the database keeps only the hash, exactly like
the play link in the same email; the sender header authenticates nothing. ``<version>`` is
the game's version for the seat when the email was written (``Match.known_events``): a move
in a reply to an older email is refused as stale (as the web page's 409) if the game moved
on since, or went back (a takeback: the same ply may have come back in another position),
and answered with what happened since, never applied to a position the player did not
see. An email from before versions says ``+<ply>.``, the ply it was written at: its
replies are read as before.

``receive`` takes one raw message (from ``flask receive-mail`` on standard input, or from
the SMTP/LMTP listener in ``listener.py``), finds the token among the recipients, reads the
first line of the reply that is not quoted, plays it through ``commands.submit`` and queues an
answer to the seat's registered address (never to the sender: that would make the server a
relay), in the game's email thread; ``compose`` makes it as every email, with the board as
the seat may know it (words, and the pictures of the seat's page in its HTML part).
Automatic mail (bounces, vacation replies, lists) is ignored without an answer, so two
robots cannot keep mailing each other.

Reply words besides moves (case-insensitive, a trailing ``.`` or ``!`` ignored):
``resign`` (in a team game: propose it, or confirm a partner's proposal); ``draw`` or
``offer draw``; ``accept draw``, ``decline draw``; ``play on`` (decline a partner's proposal
to resign); ``accept`` and ``decline`` answer the offer open to the player (a draw offer,
else a partner's proposal to resign); ``rematch`` (once the game is over). If the reply's
text has no such line, a Subject edited to hold the move ("Re: d4xc5") is read instead;
the game's own subject is not.

What the player wrote below the first line (above the quote) is posted to the game's chat
with the move, in the same transaction: both or neither. A player the moderators muted
(``sanctions``) has the move played and the message left out, which the answer says. A
reply whose first line begins with ``say`` posts only a message: the rest of that line and
what follows it.
"""
from __future__ import annotations

import logging
import re
import textwrap
from dataclasses import asdict, dataclass
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parseaddr
from html.parser import HTMLParser
from typing import Iterable, Sequence

import sqlite_utils
from flask import render_template
from flask_babel import gettext, lazy_gettext, ngettext

from .. import commands, events, invites, languages, links, matches, moderation, sanctions
from ..errors import Unreadable
from ..events import Command, Message, Move
from . import sentences
from . import compose
from ..store import utc
from ..store.db import write

log = logging.getLogger(__name__)

MAX_MESSAGE = 10 * 1024 * 1024   # bytes; the listener refuses bigger messages (552)
MAX_LEGAL_LISTED = 100           # legal moves listed in an answer; more get a link instead
MAX_ANSWERS_PER_HOUR = 30        # per recipient: a loop guard against badly behaved robots
MAX_LINE = 200                   # characters: a longer first line is no move
MAX_ECHO = 80                    # characters of the player's reply quoted in an answer
MAX_ATTRIBUTION = 400            # characters of an "On ... wrote:" line, wrapped or not

# What a reply address holds after its prefix: <prefix>+v<version>.<token>@domain (before
# versions, +<ply>.). The prefix is not checked, so a changed REPLY_ADDRESS keeps the
# addresses of emails already sent working. The search starts at the fixed "+", so it takes
# linear time on any input.
REPLY_SECRET = re.compile(r"\+([vV]?)(\d{1,9})\.([A-Za-z0-9_-]{32})@")
# A reply to a moderator's email: <prefix>+appeal.<token>@domain, the player's appeal by the
# secret of its appeal link (``links.appeal_address``).
APPEAL_SECRET = re.compile(r"\+appeal\.([A-Za-z0-9_-]{32})@")

# Bounds on hostile mail, checked before a message is parsed (and the secret before them).
MAX_ADDRESS = 1000        # characters of an envelope address searched for a secret
MAX_CANDIDATES = 10       # secrets looked up per message
MAX_HEADERS = 128 * 1024  # bytes of a message's header section
MAX_PARTS = 64            # multipart and message/* parts, which nest (and parse by recursion)
MESSAGE_ID = re.compile(r"<[^<>\s\"]{1,200}@[^<>\s\"]{1,200}>")

SAY = re.compile(r"say\b\s*:?\s*(.*)", re.IGNORECASE)  # "say <a chat message>"
# An answer's subject's first words, by status.
ANSWERED = {"recorded": lazy_gettext("Recorded"), "duplicate": lazy_gettext("Already recorded"),
            "stale": lazy_gettext("Not played: the game moved on"),
            "refused": lazy_gettext("Not played")}


# -- reply addresses -----------------------------------------------------------------------

@dataclass(frozen=True)
class Seen:
    """What the email answered showed: the game's version for its seat, or (an email
    from before versions) its ply."""
    ply: int | None = None
    version: int | None = None


def parse_address(address: str) -> tuple[Seen, str] | None:
    """(what its email showed, token) from a reply address (bare or with a display name),
    or None."""
    found = REPLY_SECRET.search(address[:MAX_ADDRESS])
    if not found:
        return None
    number = int(found.group(2))
    return (Seen(version=number) if found.group(1) else Seen(ply=number)), found.group(3)


@dataclass(frozen=True)
class Addressed:
    game_id: str
    seat: int
    seen: Seen      # what the email answered showed


def addressed_seat(db: sqlite_utils.Database, addresses: Iterable[str]) -> Addressed | None:
    """The seat the first address holding a valid player token opens. At most
    ``MAX_CANDIDATES`` secrets are looked up, however many addresses a message names."""
    tried: set[str] = set()
    for address in addresses:
        parsed = parse_address(address)
        if parsed is None or parsed[1] in tried:
            continue
        if len(tried) == MAX_CANDIDATES:
            break
        tried.add(parsed[1])
        access = links.resolve(db, parsed[1])
        if access is not None and access.seat is not None:
            return Addressed(access.game_id, access.seat, parsed[0])
    return None


ADDRESS_FIELDS = ("delivered-to", "x-original-to", "envelope-to", "to", "cc")


def header_recipients(raw: bytes) -> list[str]:
    """The reply addresses named in a message's Delivered-To, X-Original-To, Envelope-To,
    To and Cc fields, found by a search of the raw header text that takes time in
    proportion to its size: no address parsing, which hostile headers can make slow."""
    head = raw[:MAX_HEADERS].split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    fields = re.split(rb"\r?\n(?![ \t])", head)
    found = []
    for field in fields:
        name, colon, value = field.partition(b":")
        if colon and name.strip().lower().decode("latin-1") in ADDRESS_FIELDS:
            text = value.decode("latin-1")
            found += [match.group(0) for secret in (REPLY_SECRET, APPEAL_SECRET)
                      for match in secret.finditer(text)]
    return found


def appeal_token(db: sqlite_utils.Database, addresses: Iterable[str]) -> str | None:
    """The secret of the first appeal address (a reply to a moderator's email) that opens
    an action; at most ``MAX_CANDIDATES`` looked up."""
    for address in list(addresses)[:MAX_CANDIDATES]:
        found = APPEAL_SECRET.search(address[:MAX_ADDRESS])
        if found and moderation.appealed(db, found.group(1)) is not None:
            return found.group(1)
    return None


# -- reading a reply -----------------------------------------------------------------------

# Where a reply ends and the original begins, as mail clients mark it. These rules are
# written here rather than taken from a library of reply parsers (quotequail,
# mail-parser-reply): neither knows the shapes players' clients write in Russian (Gmail's
# attribution without a verb, Outlook's "От: … Отправлено: …", "Отправлено с iPhone"),
# quotequail needs lxml, and only the first line and a short message are read here, in
# time linear in the message, whatever hostile mail holds. Measured on the 171 replies of
# tests/test_mail_clients.py (57 clients' shapes, three ways of writing each): these rules
# read all of them; mail-parser-reply alone 54, and put before them changes none;
# quotequail before them loses 6.
#
# An attribution: "On <date>, <name> wrote:" and its translations; or a line that begins
# with a date and ends "написал(а):", "пишет:" or "<address>:" (Russian clients; Gmail
# writes no verb in some languages: "чт, 26 нояб. 2026 г. в 10:00, Name <address>:").
# Beginning with a date, it is never a move above it taken for part of a wrapped one.
DATED = r"(?:[^\W\d_]+\.?,\s*)?\d{1,2}(?:\.\d{1,2}\.|/\d{1,2}/|\s+[^\W\d_]+\.?,?\s+)\d{2,4}\b"
ATTRIBUTION = re.compile(
    r"^(?:(on|le|am|el|il|op|em|w dniu)\b.*\b(wrote|écrit|schrieb|escribió|scritto|"
    r"geschreven|escreveu|napisał)|in a message dated\b.*\bwrites"
    rf"|{DATED}.*(\bнаписала?(\(-?а\))?|\bпишет|<\s*[^<>\s]+@[^<>\s]+\s*>\s*:))\s*:?$",
    re.IGNORECASE)
# A marker line above the original (Outlook's, forwards), or a client's own signature
# ("Sent from my iPhone", "Sent from Mail for Windows", "Sent with Sparrow": a line that
# names a mail app or a device, not any line a player begins "Sent from").
APPS = ("aol|yahoo|outlook|mail|gmail|sparrow|proton ?mail|iphone|ipad|android|samsung|"
        "galaxy|blackberry|huawei|xiaomi|mobile|phone|smartphone|tablet")
END_OF_REPLY = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|"
    r"исходное сообщение|пересланное сообщение|пересылаемое сообщение)\s*-{2,}"
    r"|_{8,}|begin forwarded message:|начало переадресованного сообщения:"
    rf"|sent from my .*|sent (from|with|via) (\S+ ){{0,2}}({APPS})\b.*|get outlook for .*"
    r"|отправлено (с|из) .*|(получить|скачайте) outlook .*)$",
    re.IGNORECASE)
# The header block that begins an original sent along unquoted (Outlook, and Outlook for
# Android below "Get Outlook for Android"): a From line, then another header line.
FROM_LINE = re.compile(r"^\*?(from|от|von|de)\s*:", re.IGNORECASE)
HEADER_LINE = re.compile(r"^\*?(sent|date|to|cc|subject|отправлено|дата|кому|копия|тема|"
                         r"gesendet|datum|an|betreff|envoyé|à|objet)\s*:", re.IGNORECASE)
WHITE_SPACE = re.compile(r"[ \t\r\n\f]+")  # HTML's (not the no-break space, which shows)
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)


def written(text: str) -> tuple[str, str]:
    """What the player wrote: (the first line, the message below it). The first line is the
    first that is not empty, not quoted (``>``), not an "On ... wrote:" attribution (also
    one wrapped over up to three lines), and not past a signature separator (``-- ``) or a
    client's quoted-original marker; the message is what follows it up to the next of
    those (the chat message a reply may carry under its move)."""
    lines = [line.translate(INVISIBLE).replace("\xa0", " ").rstrip()
             for line in text.splitlines()]
    found: list[str] = []
    size, i = 0, 0
    while i < len(lines) and size <= 2 * events.MAX_CHAT:  # longer is refused anyway
        line = lines[i].strip()
        if lines[i] == "--" or END_OF_REPLY.match(line) or _headers_at(lines, i):
            break
        wrapped = line and _attribution_at(lines, i)
        if line.startswith(">") or wrapped:
            if found:
                break
            i += wrapped or 1
            continue
        if line or found:
            found.append(lines[i])
            size += len(line) + 1
        i += 1
    if not found:
        return "", ""
    return " ".join(found[0].split()), "\n".join(found[1:]).strip()


def _attribution_at(lines: list[str], i: int) -> int | None:
    """How many lines an attribution at line ``i`` takes (clients wrap it over up to
    three), or None. Longer text is none, and is not searched."""
    for n in range(1, 4):
        joined = " ".join(part.strip() for part in lines[i:i + n])
        if len(joined) > MAX_ATTRIBUTION:
            return None
        if ATTRIBUTION.match(joined):
            return n
    return None


def _headers_at(lines: list[str], i: int) -> bool:
    """Whether an unquoted original's header block begins at line ``i``."""
    return bool(FROM_LINE.match(lines[i].strip()) and i + 1 < len(lines)
                and HEADER_LINE.match(lines[i + 1].strip()))


class _HTMLText(HTMLParser):
    """The text of an HTML reply, without what it quotes: <blockquote>, Gmail's and
    Thunderbird's quote blocks, and everything after an <hr> (Outlook's marker)."""

    BLOCKS = {"p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
              "table", "ul", "ol"}
    QUOTE_CLASSES = {"gmail_quote", "moz-cite-prefix", "yahoo_quoted"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: tuple[str, int] | None = None  # (tag, nesting depth)
        self.done = False
        self.preformatted = 0  # <pre> elements open

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if self.skipping:
            if tag == self.skipping[0]:
                self.skipping = (tag, self.skipping[1] + 1)
            return
        classes = set((dict(attrs).get("class") or "").split())
        ident = dict(attrs).get("id") or ""
        if tag == "hr" or ident in ("divRplyFwdMsg", "appendonsend"):
            self.done = True
        elif tag in ("blockquote", "style", "script", "head", "title") \
                or classes & self.QUOTE_CLASSES:
            self.skipping = (tag, 1)
        elif tag == "br":
            self.parts.append("\n")
        elif tag in self.BLOCKS:
            self._new_line()
            if tag == "pre":
                self.preformatted += 1

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and tag == self.skipping[0]:
            depth = self.skipping[1] - 1
            self.skipping = (tag, depth) if depth else None
        elif not self.skipping and tag in self.BLOCKS:
            self._new_line()
            if tag == "pre" and self.preformatted:
                self.preformatted -= 1

    def _new_line(self) -> None:
        # a block starts or ends a line, once: Gmail's empty line is <div><br></div>
        if self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skipping or self.done:
            return
        if not self.preformatted:
            # white space as a browser shows it: a run of it one space, and none beginning
            # a line (Outlook writes "<br>\n" between the lines of its header block)
            data = WHITE_SPACE.sub(" ", data)
            if not self.parts or self.parts[-1].endswith("\n"):
                data = data.lstrip(" ")
        if data:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def reply_text(message: EmailMessage) -> str:
    """The reply's text: its text/plain part, or the text of its HTML part."""
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, AttributeError, TypeError):
        payload = part.get_payload(decode=True)  # the bytes of a part that is not multipart
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if not isinstance(content, str):
        return ""
    return html_text(content) if part.get_content_type() == "text/html" else content


SUBJECT_PREFIX = re.compile(r"^\s*((re|aw|sv|antw|fw|fwd|wg|tr)(\[\d+\])?\s*:\s*)+",
                            re.IGNORECASE)


def command(reply: Reply, game_id: str) -> str:
    """What the player asks for: the first line they wrote, else an edited Subject."""
    if reply.line:
        return reply.line
    subject = SUBJECT_PREFIX.sub("", reply.subject).strip()
    if subject and f"[{game_id}]" not in subject:
        return " ".join(subject.split())
    return ""


def action(text: str) -> Command:
    """The command of a reply's first line: "say" and a chat message, one of the words of
    an email reply (``events.Words.email``), else a move."""
    said = SAY.fullmatch(text)
    if said:
        return Command(events.kinds_named("email", "say"), Message(said.group(1)))
    word = " ".join(text.lower().rstrip(".!").split())
    kinds = events.kinds_named("email", word)
    if kinds:
        return Command(kinds)
    return Command.of("move", Move(text.rstrip(".!?").rstrip()))  # "d3-e4." as a sentence


# -- mail that no person wrote -------------------------------------------------------------

ROBOTS = {"mailer-daemon", "postmaster"}


def automatic(message: EmailMessage, sender: str | None = None) -> bool:
    """Bounces, vacation notices and list mail (RFC 3834): never answered, never played."""
    if sender is not None and sender.strip() in ("", "<>"):
        return True  # the null envelope sender: a delivery report
    auto = str(message.get("Auto-Submitted", "")).strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return True
    if str(message.get("Precedence", "")).strip().lower() in ("bulk", "junk", "list",
                                                             "auto_reply"):
        return True
    if any(message.get(name) for name in ("X-Autoreply", "X-Autorespond", "List-Id")):
        return True
    if message.get_content_type() == "multipart/report":
        return True
    if str(message.get("Return-Path", "")).strip() == "<>":
        return True
    for name in ("From", "Sender", "Return-Path"):
        address = parseaddr(str(message.get(name, "")))[1]
        if address.partition("@")[0].lower() in ROBOTS:
            return True
    return False


# -- receiving -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    """What became of a message. ``status``: recorded, duplicate, stale, refused (the
    answer says why), appealed (a reply to a moderator's email, now in their queue),
    ignored (automatic mail, no answer; or a message to an envelope sender that reports no
    failure), unknown (no valid token: the message should bounce) or unreadable (too big,
    too deep or malformed: it should bounce too, never be retried); of a delivery report
    (``bounces``), bouncing or counted."""

    status: str
    game_id: str | None = None
    seat: int | None = None
    error: str | None = None
    answer: str | None = None  # the Message-ID of the queued answer

    def __str__(self) -> str:
        where = f" (game {self.game_id}, seat {self.seat})" if self.game_id else ""
        return f"{self.status}{where}" + (f": {self.error}" if self.error else "")


@dataclass(frozen=True)
class Reply:
    """What the server reads of a message, all of it taken before anything is played."""

    automatic: bool          # no person wrote it (see ``automatic``)
    line: str                # the first line the player wrote ("" if none)
    message: str             # what they wrote below it, for the chat ("" if nothing)
    subject: str
    message_id: str | None   # to thread the answer under the player's reply


MIME_CONTAINER = re.compile(rb"(?im)^content-type:[ \t]*(?:multipart|message)/")


def parse(raw: bytes) -> EmailMessage:
    """A message parsed within bounds checked before parsing (its size, the size of its
    header section, how many parts it nests). Raises ``Unreadable`` for what breaks them
    or cannot be parsed at all: such a message will never be readable, so it is refused
    at once rather than retried."""
    if len(raw) > MAX_MESSAGE:
        raise Unreadable("the message is too big")
    head_end = min((i for i in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if i >= 0),
                   default=len(raw))
    if head_end > MAX_HEADERS:
        raise Unreadable("the message's header section is too big")
    if len(MIME_CONTAINER.findall(raw)) > MAX_PARTS:
        raise Unreadable("the message nests too many parts")
    try:
        message = BytesParser(policy=policy.default).parsebytes(raw)
    except Exception as error:  # noqa: BLE001 - RecursionError, header and charset errors
        raise Unreadable(f"the message cannot be read ({type(error).__name__})") from None
    assert isinstance(message, EmailMessage)
    return message


def read(raw: bytes, sender: str | None = None) -> Reply:
    """Read a reply (``parse``; ``Unreadable`` where it cannot be)."""
    message = parse(raw)
    try:
        replied = str(message.get("Message-ID", "")).strip()
        try:
            line, said = written(reply_text(message))
        except Exception:  # noqa: BLE001 - an unreadable body still has a subject to read
            line, said = "", ""
        return Reply(automatic=automatic(message, sender), line=line, message=said,
                     subject=str(message.get("Subject", "")),
                     message_id=replied if MESSAGE_ID.fullmatch(replied) else None)
    except Exception as error:  # noqa: BLE001 - RecursionError, header and charset errors
        raise Unreadable(f"the message cannot be read ({type(error).__name__})") from None


def receive(db: sqlite_utils.Database, raw: bytes, recipients: Sequence[str] | None = None,
            sender: str | None = None) -> Result:
    """Play one reply and queue its answer. ``recipients``: the envelope recipients, when
    known (else the To, Delivered-To, ... headers are searched); ``sender``: the envelope
    sender, when known ("" for a delivery report). Needs an app context.

    The secret is checked first, before any work that hostile mail could make expensive;
    then the message is read within bounds (``read``); only then is anything played."""
    addresses = list(recipients or []) or header_recipients(raw)
    addressed = addressed_seat(db, addresses)
    if addressed is None:
        appealed = appeal_token(db, addresses)
        if appealed is not None:
            return _appeal(db, raw, sender, appealed)
        log.info("inbound mail: no valid reply address; not accepted")
        return Result("unknown")
    game_id, seat = addressed.game_id, addressed.seat
    try:
        reply = read(raw, sender)
    except Unreadable as unreadable:
        log.info("inbound mail for game %s seat %s: refused, %s", game_id, seat, unreadable)
        return Result("unreadable", game_id, seat, str(unreadable))
    if reply.automatic:
        log.info("inbound mail for game %s seat %s: automatic mail ignored", game_id, seat)
        return Result("ignored", game_id, seat)
    # The event and its answer are one transaction, like every event and its emails; what
    # the answer says (the refusal's reason too) is in the seat's language.
    with languages.in_language(matches.language_of(db, game_id, seat)), write(db):
        invites.answered(db, game_id, seat)  # a person replied to an email of the game
        text = command(reply, game_id)
        asked = action(text)
        # "say ..." posts its line and what follows; under any other line, what follows
        # is a message posted with it
        line = asked.payload.text if isinstance(asked.payload, Message) else None
        chat = line is not None
        said = "\n".join(filter(None, [line, reply.message]))
        beside = bool(said) and not chat  # a message under an action, posted with it
        # a muted player's move is played without the message under it
        silenced = beside and sanctions.seat_muted(db, game_id, seat)
        posted = beside and not silenced
        status, error, kind = "recorded", None, asked.kinds[0]
        try:
            if not text:
                raise matches.InvalidRequest("Your reply has no move: write it as the first "
                                             "line, above the quoted email.")
            if len(text) > MAX_LINE and not chat:
                raise matches.InvalidRequest("The first line of your reply is too long to be "
                                             "a move: write only the move on it.")
            # Only a move depends on the position seen; resigning and answering a draw
            # offer do not (as in the API).
            seen = addressed.seen if kind == "move" else Seen()
            submitted = commands.submit(
                db, game_id, seat, Command(asked.kinds, Message(said)) if chat else asked,
                seen.ply, seen_version=seen.version, message=said if posted else None)
            match, kind = submitted.match, submitted.kind
            if submitted.already_recorded:
                status = "duplicate"
        except events.StalePosition as stale:
            match = matches.load(db, game_id)
            status, error = "stale", stale.message
        except matches.ActionError as refused:
            match = matches.load(db, game_id)
            status, error = "refused", refused.message
        done = _done(match, seat, kind, posted, silenced) if status == "recorded" else None
        unposted = beside and status != "recorded"
        answer = _answer(db, match, seat, status, done, text, error, addressed.seen,
                         reply.message_id, unposted)
    log.info("inbound mail for game %s seat %s: %s", game_id, seat, status)
    return Result(status, game_id, seat, error, answer)


def _appeal(db: sqlite_utils.Database, raw: bytes, sender: str | None, token: str) -> Result:
    """A reply to a moderator's email: what the player wrote above the quote is their
    appeal, back in the moderators' queue (no answer: the moderators write one)."""
    try:
        reply = read(raw, sender)
    except Unreadable as unreadable:
        log.info("inbound mail: an appeal refused, %s", unreadable)
        return Result("unreadable", error=str(unreadable))
    if reply.automatic:
        log.info("inbound mail: automatic mail to an appeal address ignored")
        return Result("ignored")
    said = "\n".join(filter(None, [reply.line, reply.message]))[:moderation.MAX_TEXT]
    try:
        moderation.appeal(db, token, said)
    except matches.ActionError as refused:  # nothing written above the quote
        log.info("inbound mail: an appeal refused, %s", refused.message)
        return Result("refused", error=str(refused.message))
    log.info("inbound mail: an appeal recorded")
    return Result("appealed")


def _done(match: matches.Match, seat: int, kind: str, with_message: bool,
          silenced: bool) -> str:
    """What a reply of ``seat`` did, for its answer: its own latest event of ``kind``'s
    (an opponent's conditional reply may have followed it), and the message it posted with
    it (or, ``silenced``, left out: the player is muted)."""
    if kind == "rematch" and match.rematch_id:
        done = gettext("Every player asked for a rematch: the new game has started, and its "
                       "first email, with your new link, is on its way.")
    else:
        event = next(e for e in reversed(match.events) if e.seat == seat
                     and (e.kind == "chat") == (kind == "chat"))
        done = events.KINDS[event.kind].words.done.format(
            **(asdict(event.payload) if event.payload else {}),
            partners=languages.translated(match.people(match.partners(seat))),
            opponents=languages.translated(match.people(match.opponents(seat))))
    if with_message:
        return " ".join([done, gettext("Your message was posted to the game's chat.")])
    if silenced:
        return " ".join([done, gettext("Your message was not posted to the game's chat: "
                                       "the site's moderators have muted you.")])
    return done


# -- answering -----------------------------------------------------------------------------

def _answer(db: sqlite_utils.Database, match: matches.Match, seat: int, status: str,
            done: str | None, text: str, error: str | None, seen: Seen,
            replied: str | None, unposted: bool) -> str | None:
    """Queue the answer to the seat's own address, in the game's thread (and under the
    player's reply), with the board as the seat may know it. Returns its Message-ID, or
    None if the loop guard held it back or the seat has no address."""
    recipient = match.seats[seat].email
    if not recipient:
        return None
    since = utc.iso(utc.now() - timedelta(hours=1))
    with write(db):
        recent = db.execute(
            "SELECT COUNT(*) FROM outbox WHERE recipient = ? AND kind = 'answer' "
            "AND created_at >= ?", [recipient, since]).fetchone()[0]
        if recent >= MAX_ANSWERS_PER_HOUR:
            log.warning("inbound mail for game %s seat %s: answer held back (%d answers to "
                        "this player in the last hour)", match.id, seat, recent)
            return None
        to = compose.seat(db, match, seat)
        legal = match.game.legal_moves(match.current, seat)
        body = render_template(
            "inbound/answer.txt", match=match, seat=seat, name=match.seats[seat].name,
            status=status, text=_echo(text), error=error, done=done, unposted=unposted,
            since=_moves_since(match, seat, seen) if status == "stale" else [],
            board=to.board, situation=_situation(match, seat),
            legal=_legal_text(legal, to.link), link=to.link)
        return compose.to_seat(db, to, str(ANSWERED[status]), body, kind="answer",
                               replied=replied, headers={"Auto-Submitted": "auto-replied"})


def _echo(text: str) -> str:
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO - 1] + "…"


def _situation(match: matches.Match, seat: int) -> str:
    if match.finished:
        return gettext("Game over — %(result)s.", result=match.result)
    others = [s for s in match.current.to_move if s != seat]
    names = languages.listing(compose.who(match, s) for s in others)
    if seat not in match.current.to_move:
        turn = ngettext("%(names)s is to move (ply %(ply)s).",
                        "%(names)s are to move (ply %(ply)s).", len(others),
                        names=names, ply=match.ply)
    elif others:
        turn = gettext("It is your turn; %(names)s also to move (ply %(ply)s).",
                       names=names, ply=match.ply)
    else:
        turn = gettext("It is your turn (ply %(ply)s).", ply=match.ply)
    return " ".join([turn, *sentences.notices(match, seat)])


def _moves_since(match: matches.Match, seat: int, seen: Seen) -> list[str]:
    """The moves after the ply the email showed, as ``seat`` may see them (none after a
    takeback: the error says what happened)."""
    ply = seen.ply if seen.version is None else match.ply_at(seat, seen.version)
    if ply is None:
        return []
    return [f"{number}. {languages.translated(match.seat_name(event.seat))}: "
            f"{match.game.public_move(event.seat, event.move, seat, match.current)}"
            for number, event in enumerate(match.moves[ply:], start=ply + 1)]


def _legal_text(legal: list[str], link: str) -> str:
    if not legal:
        return ""
    shown = ", ".join(legal[:MAX_LEGAL_LISTED])
    more = len(legal) - MAX_LEGAL_LISTED
    text = gettext("Your legal moves: %(moves)s", moves=shown) if more <= 0 else gettext(
        "Your legal moves: %(moves)s … and %(more)s more: see them all on the game's page "
        "(%(link)s)", moves=shown, more=more, link=link)
    return textwrap.fill(text, width=76, break_long_words=False, break_on_hyphens=False)


links.redact_logger(log)
