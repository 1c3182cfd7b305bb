"""The outbox: every email (and every webhook post, ``pbem/mail/webhooks.py``, and push message,
``pbem/mail/push.py``) is queued in the database, in the transaction of the event that
causes it, and delivered later in one of two lanes, which the job process runs side by
side: the emails by ``deliver_due``, to the site's own mail server, and the posts by
``post_due``, to strangers' servers over HTTP, each within a deadline and to many
destinations at once, so that nobody's slow receiver holds up anyone's email.

Delivery is at-least-once: a message is marked sent only after the transport took it, so a
crash in between resends it, with the Message-ID fixed at queueing time so mail clients see
one message. Without SMTP settings, messages are written as .eml files under the instance
folder (the embedded default, readable on the local mail page).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import smtplib
import ssl
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import timedelta
from email.utils import format_datetime, make_msgid, parseaddr
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence
from urllib.parse import urlsplit

import sqlite_utils
from markupsafe import escape

from . import bounces, pictures, signing, webhooks
from ..store import utc
from ..store.db import claiming, write
from ..links import PUBLIC_URL_MARK, redact
from .message import HeaderInjection, compose

LOG = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
LEASE = timedelta(minutes=5)  # a claimed message is retried after this if its sender died


def queue(db: sqlite_utils.Database, *, recipient: str, subject: str, body: str,
          game_id: str | None = None, headers: Mapping[str, str] | None = None,
          domain: str = "pbem.localhost", kind: str = "other", seat: int | None = None,
          unique_key: str | None = None, channel: str = "email", html: str | None = None,
          board: str | None = None) -> str:
    """Add a message to the outbox (call inside the transaction of its cause). ``kind``
    (start, turn, reminder, digest, end, ...) and ``seat`` say what it is about, for the jobs
    that look back at what was sent; a ``unique_key`` can be queued only once, ever.
    ``channel`` "webhook": ``recipient`` is a webhook URL and ``body`` the JSON to post;
    "push": ``recipient`` is a push endpoint, ``body`` the message and ``headers`` its
    HTTP headers (``push.queue``).
    ``html``: an HTML part beside the text, showing the ``board`` (the SVG of the seat's
    page, drawn as PNG pictures when the message is built) by ``pictures.numbered``."""
    message_id = make_msgid(domain=domain)
    now = utc.iso(utc.now())
    db.execute(
        "INSERT INTO outbox (message_id, game_id, recipient, subject, body, headers, "
        "created_at, status, attempts, next_attempt_at, kind, seat, unique_key, channel, "
        "html, board) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?, ?, ?)",
        [message_id, game_id, recipient, subject, body, json.dumps(dict(headers or {})),
         now, now, kind, seat, unique_key, channel, html, board])
    return message_id


def withdraw(db: sqlite_utils.Database, game_id: str, kind: str,
             seats: Sequence[int] | None = None) -> None:
    """Never send the messages of ``kind`` about a game (to ``seats``, or to anyone) that
    are not sent yet: an offer answered before its emails went out, which would tell of
    what is no longer so. They stay, as "withdrawn", without their secrets."""
    marks = "" if seats is None else f" AND seat IN ({', '.join('?' * len(seats))})"
    rows = db.execute(f"SELECT id, body, headers, html FROM outbox WHERE game_id = ? AND "
                      f"kind = ? AND status = 'pending'{marks}",
                      [game_id, kind, *(seats or ())]).fetchall()
    _set_aside(db, rows, "withdrawn")


def _set_aside(db: sqlite_utils.Database, rows: Sequence[Mapping[str, Any]],
               status: str) -> None:
    """Never send ``rows``: they stay, with ``status``, without their secrets."""
    db.conn.executemany(
        "UPDATE outbox SET status = ?, body = ?, headers = ?, html = ?, board = NULL "
        "WHERE id = ?", [(status, redact(row["body"]), redact(row["headers"]),
                          row["html"] and redact(row["html"]), row["id"]) for row in rows])


class Undeliverable(RuntimeError):
    """A message that never will be delivered (a push subscription that has ended): it is
    given up at once, not retried."""


class PublicURLMissing(RuntimeError):
    """Mail with links cannot go out before PUBLIC_URL says where the server is."""

    def __init__(self) -> None:
        super().__init__(f"No mail is sent: {PUBLIC_URL_MISSING}")


PUBLIC_URL_MISSING = ("PUBLIC_URL is not set: set it to the address players reach this "
                      "server at (e.g. PBEM_PUBLIC_URL=https://games.example.org), which "
                      "every link in an email begins with.")


@dataclass(frozen=True)
class Outgoing:
    """A message ready to go: its envelope and its bytes."""

    sender: str      # the envelope's addresses
    recipient: str
    message_id: str
    data: bytes


def build(row: Mapping[str, Any], sender: str, public_url: str,
          envelope: str | None = None) -> Outgoing:
    """The message of an outbox row from ``sender`` (MAIL_FROM), its links beginning with
    the configured ``public_url``, sent with the envelope sender ``envelope`` (else
    ``sender``'s address). Raises ``HeaderInjection`` for headers that would not stay as
    written."""
    headers = {"From": sender, "To": row["recipient"], "Subject": row["subject"],
               "Message-ID": row["message_id"],
               "Date": format_datetime(utc.parse(row["created_at"])),
               # RFC 3834: no vacation responder answers it (an answer to a player's own
               # email says auto-replied instead)
               "Auto-Submitted": "auto-generated"}
    for name, value in json.loads(row["headers"]).items():
        headers[name] = value.replace(PUBLIC_URL_MARK, public_url)
    html, board = row["html"], row["board"] or ""
    try:
        drawn = [(cid, pictures.png(drawing)) for cid, drawing in pictures.numbered(board)]
    except Exception as error:  # noqa: BLE001 - a picture must not hold back the words
        # The HTML shows the pictures it names: without them the plain text goes alone.
        LOG.warning("outbox %s: the board's picture could not be drawn (%s); sent as plain "
                    "text", row["id"], type(error).__name__)
        html, drawn = None, []
    return Outgoing(envelope or _address(sender), row["recipient"], row["message_id"],
                    compose(headers, row["body"].replace(PUBLIC_URL_MARK, public_url),
                            html and html.replace(PUBLIC_URL_MARK, escape(public_url)),
                            list(drawn)))


@functools.lru_cache(maxsize=8)
def _address(sender: str) -> str:
    return parseaddr(sender)[1]


class Transport(Protocol):
    def send(self, message: Outgoing) -> None: ...

    def close(self) -> None:
        """End the batch: let go of any connection ``send`` kept open."""


# Refusals of one message after which an SMTP session goes on (smtplib resets it).
REFUSALS = (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused, smtplib.SMTPDataError)


@dataclass
class SMTPTransport:
    """Sends over one SMTP connection, opened by the first message and kept for the next
    ones until ``close``; a broken one is replaced by the next message."""

    host: str
    port: int = 25
    security: str = "none"  # none, starttls or ssl
    username: str | None = None
    password: str | None = None
    timeout: float = 30
    _smtp: smtplib.SMTP | None = field(default=None, init=False, repr=False)

    def send(self, message: Outgoing) -> None:
        if self._smtp is None:
            self._smtp = self._connect()
        try:
            self._smtp.sendmail(message.sender, [message.recipient], message.data)
        except Exception as error:
            if not isinstance(error, REFUSALS) or getattr(error, "smtp_code", 0) == 421:
                self.close()  # 421: the server is closing the session
            raise

    def _connect(self) -> smtplib.SMTP:
        if self.security == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                    context=ssl.create_default_context())
        else:
            smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            if self.security == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if self.username:
                smtp.login(self.username, self.password or "")
        except BaseException:
            smtp.close()
            raise
        return smtp

    def close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            try:
                smtp.quit()
            except (smtplib.SMTPException, OSError):
                smtp.close()


@dataclass
class FileTransport:
    """Writes each message as ``<folder>/<message id>.eml``; a resend overwrites its file."""

    folder: Path

    def send(self, message: Outgoing) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = message.message_id.strip("<>").replace("/", "_")
        partial = self.folder / f".{name}.tmp"
        # the messages hold secret links: readable by the server's user alone
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(message.data)
        partial.replace(self.folder / f"{name}.eml")  # atomic: never half a message

    def close(self) -> None:
        pass


@dataclass
class Signed:
    """Signs each message (DKIM) before ``transport`` sends it."""

    transport: Transport
    signer: signing.Signer

    def send(self, message: Outgoing) -> None:
        self.transport.send(dataclasses.replace(message, data=self.signer.sign(message.data)))

    def close(self) -> None:
        self.transport.close()


def transport_from_config(config: Mapping[str, Any]) -> Transport:
    """SMTP if ``SMTP_HOST`` is set, else .eml files; signed where DKIM is set up (raises
    ``signing.BadSettings`` where it is set up wrong)."""
    transport: Transport = FileTransport(Path(config["MAIL_FOLDER"]))
    if config.get("SMTP_HOST"):
        # environment settings may arrive as numbers (PBEM_SMTP_PASSWORD=123456)
        username, password = config.get("SMTP_USERNAME"), config.get("SMTP_PASSWORD")
        transport = SMTPTransport(str(config["SMTP_HOST"]), int(config.get("SMTP_PORT", 25)),
                                  str(config.get("SMTP_SECURITY", "none")),
                                  None if username is None else str(username),
                                  None if password is None else str(password))
    signer = signing.signer_from_config(config)
    return transport if signer is None else Signed(transport, signer)


def _later(seconds: float) -> str:
    return utc.iso(utc.now() + timedelta(seconds=seconds))


CHUNK = 50  # messages claimed at a time
EMAIL, POSTED = ("email",), ("webhook", "push")  # the two lanes' channels
POSTS_AT_ONCE = 16  # webhook posts and push messages in flight at once, to any destinations
PER_DESTINATION = 2  # ... and to any one destination (host and port)


class Poster(Protocol):
    """Makes the posts of one channel: ``webhooks.Poster``, ``push.Sender``."""

    def prepare(self, db: sqlite_utils.Database, recipient: str, body: str,
                headers: Mapping[str, str]) -> webhooks.Post: ...

    def answered(self, db: sqlite_utils.Database, post: webhooks.Post, status: int) -> None:
        """Raises unless the answer's ``status`` says the post was taken."""


def deliver_due(db: sqlite_utils.Database, transport: Transport, sender: str,
                public_url: str | None, chunk: int = CHUNK,
                return_paths: bounces.ReturnPaths | None = None) -> tuple[int, int]:
    """Send the emails that are due, their links given ``public_url``, ``chunk`` at a time
    until none is due, over one connection of ``transport``; returns (sent, failed this
    round). Raises ``PublicURLMissing`` without a ``public_url``. The webhook posts and
    push messages go by ``post_due``, so that no receiver of those can hold up an email.
    With ``return_paths``, each email's envelope sender names its recipient, and no email
    goes to a mailbox that bounces (``bounces``: it is "held", not sent); else every
    email's is ``sender``'s address."""
    if not public_url:
        raise PublicURLMissing()
    sent = failed = 0
    try:
        while rows := _claim(db, chunk, EMAIL, return_paths):
            outcomes = _deliver(db, rows, transport, sender, public_url)
            sent += sum(error is None for _row, error in outcomes)
            failed += sum(error is not None for _row, error in outcomes)
    finally:
        transport.close()
    return sent, failed


def _claim(db: sqlite_utils.Database, chunk: int, channels: tuple[str, ...],
           return_paths: bounces.ReturnPaths | None = None) -> list[dict[str, Any]]:
    """Claim up to ``chunk`` due messages of ``channels`` by pushing their next attempt past
    a lease, so a second deliverer running at the same time leaves them alone. With
    ``return_paths`` (emails), each row gets its ``envelope`` sender, and the rows to a
    mailbox that bounces are held instead (none of them is returned, unless all are: the
    caller goes on while any row is)."""
    while True:
        with write(db):
            rows = [dict(row) for row in db.execute(
                "SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? "
                f"AND channel IN ({', '.join('?' * len(channels))}) "
                f"ORDER BY id LIMIT ?{claiming(db)}",
                [utc.iso(utc.now()), *channels, chunk]).fetchall()]
            if return_paths is None or not rows:
                _lease(db, rows)
                return rows
            senders = bounces.envelopes(db, return_paths, rows)
            held = [row for row in rows if senders[row["id"]] is None]
            rows = [{**row, "envelope": senders[row["id"]]} for row in rows
                    if senders[row["id"]] is not None]
            _set_aside(db, held, "held")  # to a mailbox that bounces
            _lease(db, rows)
        if rows:
            return rows


def _lease(db: sqlite_utils.Database, rows: list[dict[str, Any]]) -> None:
    db.conn.executemany("UPDATE outbox SET next_attempt_at = ? WHERE id = ?",
                        [(_later(LEASE.total_seconds()), row["id"]) for row in rows])


def _deliver(db: sqlite_utils.Database, rows: list[dict[str, Any]], transport: Transport,
             sender: str, public_url: str) -> list[tuple[dict[str, Any], Exception | None]]:
    """Send each of the claimed emails ``rows`` and record how it went: (row, the error
    or None) for each."""
    outcomes: list[tuple[dict[str, Any], Exception | None]] = []
    recorded, leased = 0, time.monotonic()
    for index, row in enumerate(rows):
        if time.monotonic() - leased > LEASE.total_seconds() / 2:
            # a slow round: record what is done and renew the lease of the rest, so that
            # no other deliverer takes them meanwhile
            with write(db):
                _record(db, outcomes[recorded:])
                _lease(db, rows[index:])
            recorded, leased = len(outcomes), time.monotonic()
        try:
            transport.send(build(row, sender, public_url, row.get("envelope")))
        except Exception as error:  # noqa: BLE001 - one bad message must not stop the rest
            outcomes.append((row, error))
        else:
            outcomes.append((row, None))
    with write(db):
        _record(db, outcomes[recorded:])
    return outcomes


def post_due(db: sqlite_utils.Database, posters: Mapping[str, Poster],
             public_url: str | None, chunk: int = CHUNK) -> tuple[int, int]:
    """Post the webhook posts and push messages that are due (``posters``: the channel's
    maker of each), ``chunk`` claimed at a time until none is due: side by side, up to
    ``POSTS_AT_ONCE`` at once and ``PER_DESTINATION`` to any one destination, each within
    ``webhooks.DEADLINE`` seconds in all. Returns (sent, failed this round); raises
    ``PublicURLMissing`` without a ``public_url`` (push messages hold links)."""
    if not public_url:
        raise PublicURLMissing()
    sent = failed = 0
    with ThreadPoolExecutor(POSTS_AT_ONCE, thread_name_prefix="outbox-post") as pool:
        while rows := _claim(db, chunk, POSTED):
            outcomes = _post(db, rows, posters, public_url, pool)
            sent += sum(error is None for _row, error in outcomes)
            failed += sum(error is not None for _row, error in outcomes)
    return sent, failed


class Unanswered(RuntimeError):
    """A post not made, since its destination did not answer another one just before: it
    is retried with that one, later."""


Posted = tuple[dict[str, Any], webhooks.Post]  # an outbox row and its post


@dataclass
class _Destination:
    """One destination's posts of a round: each receiver's (its URL's: a webhook, a
    device) in the order they were queued, by one thread, and the receivers taken in turn
    by up to ``PER_DESTINATION`` threads. The first post that gets no answer (a timeout, a
    refused or broken connection) ends the round for the rest."""

    receivers: deque[list[Posted]]
    silent: Exception | None = None  # why the destination did not answer
    results: list[tuple[dict[str, Any], webhooks.Post, int | Exception]] = \
        field(default_factory=list)
    untried: list[dict[str, Any]] = field(default_factory=list)

    def post(self, ends: float) -> None:
        while self.receivers:
            try:
                posts = self.receivers.popleft()
            except IndexError:  # another thread took the last
                return
            for index, (row, post) in enumerate(posts):
                if self.silent is not None or time.monotonic() >= ends:
                    self.untried += [row for row, _post in posts[index:]]
                    break
                try:
                    self.results.append((row, post, webhooks.send(post)))
                except OSError as error:  # timeouts, connections refused or reset
                    self.silent = error
                    self.results.append((row, post, error))
                except Exception as error:  # noqa: BLE001 - an answer that is no HTTP
                    self.results.append((row, post, error))


def _post(db: sqlite_utils.Database, rows: list[dict[str, Any]],
          posters: Mapping[str, Poster], public_url: str,
          pool: ThreadPoolExecutor) -> list[tuple[dict[str, Any], Exception | None]]:
    """Post the claimed ``rows``, each destination's in turn and the destinations side by
    side, and record how it went: (row, the error or None) for each. Only the posting runs
    in the pool's threads; this connection prepares the posts and reads their answers.
    The round ends before half the lease: posts not begun by then go back, untried."""
    outcomes: list[tuple[dict[str, Any], Exception | None]] = []
    queued: dict[str, dict[str, list[Posted]]] = {}  # destination -> URL -> posts
    for row in rows:
        try:
            post = posters[row["channel"]].prepare(
                db, row["recipient"], row["body"].replace(PUBLIC_URL_MARK, public_url),
                json.loads(row["headers"]))
        except Exception as error:  # noqa: BLE001 - one bad message must not stop the rest
            outcomes.append((row, error))
            continue
        queued.setdefault(post.destination, {}).setdefault(post.url, []).append((row, post))
    destinations = {name: _Destination(deque(receivers.values()))
                    for name, receivers in queued.items()}
    ends = time.monotonic() + LEASE.total_seconds() / 2 - webhooks.DEADLINE
    wait([pool.submit(destination.post, ends) for destination in destinations.values()
          for _ in range(min(PER_DESTINATION, len(destination.receivers)))])
    for name, destination in destinations.items():
        for row, post, answer in destination.results:
            if isinstance(answer, Exception):
                outcomes.append((row, answer))
                continue
            try:
                posters[row["channel"]].answered(db, post, answer)
            except Exception as error:  # noqa: BLE001 - a refusal, a subscription ended
                outcomes.append((row, error))
            else:
                outcomes.append((row, None))
        if destination.silent is not None:
            outcomes += [(row, Unanswered(
                f"not posted: {name} did not answer the post before "
                f"({type(destination.silent).__name__}: {destination.silent})"))
                for row in destination.untried]
    untried = [row for destination in destinations.values() if destination.silent is None
               for row in destination.untried]  # the round's time ran out
    with write(db):
        _record(db, outcomes)
        db.conn.executemany("UPDATE outbox SET next_attempt_at = ? WHERE id = ?",
                            [(utc.iso(utc.now()), row["id"]) for row in untried])
    return outcomes


def _record(db: sqlite_utils.Database,
            outcomes: list[tuple[dict[str, Any], Exception | None]]) -> None:
    now = utc.iso(utc.now())
    for row, error in outcomes:
        attempts = row["attempts"] + 1
        if error is None:
            # The stored copy loses its secret links once the player has them.
            db.execute("UPDATE outbox SET status = 'sent', sent_at = ?, attempts = ?, "
                       "body = ?, headers = ?, html = ?, board = NULL WHERE id = ?",
                       [now, attempts, redact(row["body"]), redact(row["headers"]),
                        row["html"] and redact(row["html"]), row["id"]])
            continue
        # a message that cannot be built safely, a webhook that has become a private
        # address or a push subscription that has ended never will be: no retries
        gave_up = attempts >= MAX_ATTEMPTS or isinstance(
            error, (HeaderInjection, webhooks.BadWebhook, Undeliverable))
        db.execute("UPDATE outbox SET attempts = ?, status = ?, next_attempt_at = ?, "
                   "last_error = ?, body = ?, headers = ?, html = ? WHERE id = ?",
                   [attempts, "failed" if gave_up else "pending",
                    _later(min(60 * 2 ** attempts, 6 * 3600)),
                    f"{type(error).__name__}: {error}"[:500],
                    redact(row["body"]) if gave_up else row["body"],
                    redact(row["headers"]) if gave_up else row["headers"],
                    row["html"] and redact(row["html"]) if gave_up else row["html"],
                    row["id"]])


# -- what an operator watches (pbem/web/console.py) -------------------------------------------

LANES = {"emails": EMAIL, "posts": POSTED}


@dataclass(frozen=True)
class Backlog:
    """A lane's messages that are due and not yet sent, and how long the one that has
    waited longest has been due (0 with none)."""
    due: int
    oldest_due_seconds: float


def backlog(db: sqlite_utils.Database) -> dict[str, Backlog]:
    """Each lane's ``Backlog`` now (the lanes' index answers it: no message is read)."""
    now = utc.now()
    found = {}
    for lane, channels in LANES.items():
        due, oldest = db.execute(
            f"SELECT count(*), min(next_attempt_at) FROM outbox "
            f"WHERE channel IN ({', '.join('?' * len(channels))}) AND status = 'pending' "
            f"AND next_attempt_at <= ?", [*channels, utc.iso(now)]).fetchone()
        found[lane] = Backlog(due, (now - utc.parse(oldest)).total_seconds() if oldest else 0.0)
    return found


@dataclass(frozen=True)
class Failure:
    """A message whose last attempt failed: tried again at ``next_attempt_at``, or given up
    (``status`` failed)."""
    id: int
    channel: str
    kind: str
    recipient: str   # an email address; a webhook's or device's host alone
    created_at: str
    attempts: int
    status: str
    next_attempt_at: str
    error: str


def recent_failures(db: sqlite_utils.Database, limit: int = 20) -> list[Failure]:
    """The latest messages whose last attempt failed, the most recently queued first. A
    webhook's URL or a device's push endpoint is a secret of its owner: only its host is
    shown."""
    channels = (*EMAIL, *POSTED)
    rows = db.execute(
        f"SELECT id, channel, kind, recipient, created_at, attempts, status, next_attempt_at, "
        f"last_error FROM outbox WHERE channel IN ({', '.join('?' * len(channels))}) "
        f"AND status IN ('pending', 'failed') AND last_error IS NOT NULL "
        f"ORDER BY id DESC LIMIT ?", [*channels, limit])
    return [Failure(row["id"], row["channel"], row["kind"],
                    row["recipient"] if row["channel"] == "email"
                    else urlsplit(row["recipient"]).hostname or "", row["created_at"],
                    row["attempts"], row["status"], row["next_attempt_at"],
                    redact(row["last_error"]))
            for row in rows]
