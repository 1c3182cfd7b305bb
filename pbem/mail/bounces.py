"""Bounces: whether email reaches each mailbox, from the delivery reports sent back.

Every email goes out with an envelope sender (SMTP's MAIL FROM, where mail servers send
their reports) that names its recipient: ``bounce+<secret>@<reply domain>`` (VERP). The
secret is derived from the server's secret key and the recipient's mailbox
(``invites.address_key``), so the outbox makes it again for every email without keeping
it; only its SHA-256 is stored, in ``mailboxes``, as for links. A report (RFC 3464's
``multipart/report; report-type=delivery-status``, or the shapes of older mail servers that
``flufl.bounce`` knows) reaches ``receive`` through the listener or ``receive-mail``: the
address it was sent to names the mailbox, whatever the report says of recipients (a
forward may have failed under another name).

A permanent failure (``Action: failed``, a ``5.x.x`` status), or temporary ones
(``4.x.x``, a delay) of three emails in a row, mark the mailbox bouncing: no email goes to
it any more but sign-in links (``ALWAYS_SENT``), which prove it again when one is used;
push messages and webhook posts go on. Its owner sees it on the seat's page and settings,
with a button to try again (``enable``); operators on the console (``bouncing``). A report
of the same email counts once (a delay, then its failure), and one that comes
``STALE_AFTER`` the last begins the row again. An automatic reply (RFC 3834: "out of
office") never counts: only a report of the mail system does.
"""
from __future__ import annotations

import hmac
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import parseaddr
from typing import Any, Iterable, Mapping, Sequence

import flufl.bounce
import sqlite_utils

from .. import invites, links
from ..store import utc
from ..store.db import write

log = logging.getLogger(__name__)

TEMPORARY_IN_A_ROW = 3      # temporary failures of emails in a row that mark a mailbox
STALE_AFTER = timedelta(days=14)  # a failure reported longer after the last one begins anew
ALWAYS_SENT = frozenset({"sign_in"})  # kinds of email sent to a bouncing mailbox too
MAX_REASON = 300            # characters of a report's status and diagnostic kept

# The envelope sender's secret: bounce+<secret>@domain, found from the fixed "+" on (linear
# time on any input).
RETURN_SECRET = re.compile(r"bounce\+([A-Za-z0-9_-]{32})@", re.IGNORECASE)
MESSAGE_ID = re.compile(r"<[^<>\s\"]{1,200}@[^<>\s\"]{1,200}>")
ROBOTS = ("mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon")


# -- the envelope sender ---------------------------------------------------------------------

@dataclass(frozen=True)
class ReturnPaths:
    """The envelope senders of a server's emails: keyed by its secret ``key``, at its reply
    ``domain``."""

    key: bytes
    domain: str

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> ReturnPaths:
        """Those of the app's settings: its SECRET_KEY, its replies' domain (REPLY_ADDRESS's,
        else MAIL_DOMAIN)."""
        reply = str(config.get("REPLY_ADDRESS") or "")
        domain = reply.rpartition("@")[2].strip() if "@" in reply else ""
        return cls(str(config["SECRET_KEY"]).encode(),
                   domain or str(config["MAIL_DOMAIN"]))

    def secret(self, mailbox: str) -> str:
        """The secret of ``mailbox``'s envelope sender (a link's size: 192 bits)."""
        return links.token_text(hmac.digest(self.key, f"bounce {mailbox}".encode(),
                                            "sha256")[:links.TOKEN_BYTES])

    def sender(self, mailbox: str) -> str:
        return f"bounce+{self.secret(mailbox)}@{self.domain}"


def envelopes(db: sqlite_utils.Database, paths: ReturnPaths,
              rows: Sequence[Mapping[str, Any]]) -> dict[int, str | None]:
    """The envelope sender of each claimed email ``rows`` (by id), None for those not to be
    sent since their mailbox bounces; notes each mailbox's secret (its hash) so that its
    reports are known. Inside the claim's transaction: one statement each way."""
    mailboxes = {row["id"]: invites.address_key(row["recipient"]) for row in rows}
    senders = {mailbox: paths.sender(mailbox) for mailbox in set(mailboxes.values())}
    now = utc.iso(utc.now())
    db.conn.executemany(
        "INSERT INTO mailboxes (address, return_hash, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT (address) DO UPDATE SET return_hash = excluded.return_hash "
        "WHERE mailboxes.return_hash <> excluded.return_hash",  # the secret key changed
        [(mailbox, links.token_hash(paths.secret(mailbox)), now) for mailbox in senders])
    bouncing = _bouncing_of(db, senders)
    return {row["id"]: None if mailboxes[row["id"]] in bouncing
            and row["kind"] not in ALWAYS_SENT else senders[mailboxes[row["id"]]]
            for row in rows}


def _bouncing_of(db: sqlite_utils.Database, mailboxes: Iterable[str]) -> set[str]:
    listed = list(mailboxes)
    if not listed:
        return set()
    return {row[0] for row in db.execute(
        f"SELECT address FROM mailboxes WHERE address IN ({', '.join('?' * len(listed))}) "
        "AND bouncing_since IS NOT NULL", listed)}


# -- what a mailbox's owner and the operators see -------------------------------------------

@dataclass(frozen=True)
class Bouncing:
    """A mailbox no email goes to: since when, and the last report's words."""
    address: str
    since: str
    reason: str


def status(db: sqlite_utils.Database, email: str | None) -> Bouncing | None:
    """Whether email to ``email`` bounces (then what was reported), however it is spelt."""
    if not email:
        return None
    row = db.execute("SELECT address, bouncing_since, reason FROM mailboxes WHERE address = ? "
                     "AND bouncing_since IS NOT NULL", [invites.address_key(email)]).fetchone()
    return Bouncing(row[0], row[1], row[2] or "") if row else None


def bouncing(db: sqlite_utils.Database, limit: int = 50) -> list[Bouncing]:
    """The mailboxes that bounce, the latest first (for the operators' console)."""
    return [Bouncing(row[0], row[1], row[2] or "") for row in db.execute(
        "SELECT address, bouncing_since, reason FROM mailboxes WHERE bouncing_since IS NOT "
        "NULL ORDER BY bouncing_since DESC, address LIMIT ?", [limit])]


def enable(db: sqlite_utils.Database, email: str) -> bool:
    """Send email to ``email``'s mailbox again, its failures forgotten: its owner asked to
    try again, or proved it by signing in. Returns whether it was bouncing."""
    with write(db):
        return bool(db.execute(
            "UPDATE mailboxes SET bouncing_since = NULL, temporary_failures = 0, "
            "reported_message = NULL WHERE address = ? AND (bouncing_since IS NOT NULL OR "
            "temporary_failures > 0)", [invites.address_key(email)]).rowcount)


# -- reading a report ------------------------------------------------------------------------

@dataclass(frozen=True)
class Report:
    """What a delivery report says of the email it returns: a permanent failure or a
    temporary one, in words (``reason``), and the Message-ID of that email if it shows it."""
    permanent: bool
    reason: str
    message_id: str | None


def report(message: EmailMessage) -> Report | None:
    """The failure ``message`` reports, or None: a report of a delivery (``delivered``,
    ``relayed``, ``expanded``), an automatic reply (RFC 3834), anything else."""
    found = _delivery_status(message)
    if found is not None:
        return found
    # Not RFC 3464's shape: only a mail system's report may count (an out-of-office reply
    # comes from its person, and may well say "could not be delivered" in its words).
    sender = parseaddr(str(message.get("From", "")))[1].partition("@")[0].lower()
    if sender not in ROBOTS:
        return None
    temporary, permanent = flufl.bounce.all_failures(message)
    if not temporary and not permanent:
        return None
    subject = " ".join(str(message.get("Subject", "")).split())
    return Report(bool(permanent), subject[:MAX_REASON], _returned_id(message))


def _delivery_status(message: EmailMessage) -> Report | None:
    """RFC 3464: the worst of the recipients' fields of its ``message/delivery-status`` parts
    (a failure with a 5.x.x status is permanent; with a 4.x.x, or a delay, temporary);
    None where it has none or reports no failure."""
    worst: tuple[bool, str] | None = None
    parts = [part for part in message.walk()
             if part.get_content_type() == "message/delivery-status"]
    if not parts:
        return None
    for part in parts:
        blocks = part.get_payload()
        for block in blocks[1:] if isinstance(blocks, list) else ():  # [0]: the message's
            if not isinstance(block, Message):
                continue
            action = str(block.get("Action", "")).strip().lower()
            code = str(block.get("Status", "")).strip().split(" ")[0]
            if not action.startswith(("failed", "delayed")):
                continue
            permanent = action.startswith("failed") and not code.startswith("4")
            words = " ".join(f"{code} {block.get('Diagnostic-Code', '')}".split())
            if worst is None or permanent and not worst[0]:
                worst = (permanent, words[:MAX_REASON])
    if worst is None:
        return None
    return Report(worst[0], worst[1], _returned_id(message))


def _returned_id(message: Message) -> str | None:
    """The Message-ID of the email a report returns (its headers, or all of it)."""
    for part in message.walk():
        kind = part.get_content_type()
        head: Message | str
        if kind == "text/rfc822-headers":
            payload = part.get_payload(decode=True)
            head = BytesParser(policy=policy.default).parsebytes(
                payload if isinstance(payload, bytes) else b"", headersonly=True)
        elif kind == "message/rfc822" and part.is_multipart():
            head = part.get_payload(0)
        else:
            continue
        if not isinstance(head, Message):
            continue
        found = MESSAGE_ID.search(str(head.get("Message-ID", "")))
        if found:
            return found.group(0)
    return None


# -- receiving a report ----------------------------------------------------------------------

def addressed(db: sqlite_utils.Database, addresses: Iterable[str]) -> str | None:
    """The mailbox whose envelope sender is the first of ``addresses`` the server made."""
    for address in list(addresses)[:10]:
        found = RETURN_SECRET.search(address[:1000])
        if found is None:
            continue
        row = db.execute("SELECT address FROM mailboxes WHERE return_hash = ?",
                         [links.token_hash(found.group(1))]).fetchone()
        if row is not None:
            return str(row[0])
    return None


def header_recipients(raw: bytes, head_size: int) -> list[str]:
    """The envelope senders named in a message's header section (To, Delivered-To...), for
    ``receive-mail`` without its envelope."""
    head = raw[:head_size].split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return [found.group(0) for found in RETURN_SECRET.finditer(head.decode("latin-1"))]


def record(db: sqlite_utils.Database, mailbox: str, found: Report, now: datetime) -> bool:
    """Count ``found`` against ``mailbox``; returns whether it bounces now."""
    with write(db):
        row = db.execute("SELECT bouncing_since, temporary_failures, reported_message, "
                         "reported_at FROM mailboxes WHERE address = ?", [mailbox]).fetchone()
        if row is None:
            return False
        if row["bouncing_since"] is not None:
            return True
        again = found.message_id is not None and found.message_id == row["reported_message"]
        stale = row["reported_at"] is None or now - utc.parse(row["reported_at"]) > STALE_AFTER
        failures = (0 if stale else row["temporary_failures"]) + (0 if again else 1)
        bounces = found.permanent or failures >= TEMPORARY_IN_A_ROW
        db.execute("UPDATE mailboxes SET temporary_failures = ?, reported_message = ?, "
                   "reported_at = ?, reason = ?, bouncing_since = ? WHERE address = ?",
                   [failures, found.message_id, utc.iso(now), found.reason,
                    utc.iso(now) if bounces else None, mailbox])
    return bounces


def receive(db: sqlite_utils.Database, mailbox: str, message: EmailMessage) -> str:
    """Take a message sent to ``mailbox``'s envelope sender: "bouncing" (it bounces now),
    "counted" (a temporary failure counted) or "ignored" (no failure: an automatic reply,
    a report of a delivery)."""
    found = report(message)
    if found is None:
        log.info("mail to an envelope sender: no failure reported; ignored")
        return "ignored"
    bounces = record(db, mailbox, found, utc.now())
    log.info("mail to an envelope sender: a %s failure (%s)%s",
             "permanent" if found.permanent else "temporary", found.reason,
             "; the mailbox bounces" if bounces else "")
    return "bouncing" if bounces else "counted"
