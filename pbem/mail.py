"""The outbox: every email (and every webhook post, ``pbem/webhooks.py``) is queued in the
database, in the transaction of the event that causes it, and delivered later by
``deliver_due``.

Delivery is at-least-once: a message is marked sent only after the transport took it, so a
crash in between resends it, with the Message-ID fixed at queueing time so mail clients see
one message. Without SMTP settings, messages are written as .eml files under the instance
folder (the embedded default, readable on the local mail page).
"""
from __future__ import annotations

import json
import os
import smtplib
import ssl
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol

import sqlite_utils

from . import webhooks
from .db import utcnow, write
from .links import PUBLIC_URL_MARK, redact
from .mailmessage import HeaderInjection, compose

MAX_ATTEMPTS = 8
LEASE = timedelta(minutes=5)  # a claimed message is retried after this if its sender died


def queue(db: sqlite_utils.Database, *, recipient: str, subject: str, body: str,
          game_id: str | None = None, headers: Mapping[str, str] | None = None,
          domain: str = "pbem.localhost", kind: str = "other", seat: int | None = None,
          unique_key: str | None = None, channel: str = "email") -> str:
    """Add a message to the outbox (call inside the transaction of its cause). ``kind``
    (start, turn, reminder, digest, end, ...) and ``seat`` say what it is about, for the jobs
    that look back at what was sent; a ``unique_key`` can be queued only once, ever.
    ``channel`` "webhook": ``recipient`` is a webhook URL and ``body`` the JSON to post."""
    message_id = make_msgid(domain=domain)
    now = utcnow()
    db["outbox"].insert({
        "message_id": message_id, "game_id": game_id, "recipient": recipient,
        "subject": subject, "body": body, "headers": json.dumps(dict(headers or {})),
        "created_at": now, "status": "pending", "attempts": 0, "next_attempt_at": now,
        "sent_at": None, "last_error": None, "kind": kind, "seat": seat,
        "unique_key": unique_key, "channel": channel})
    return message_id


class PublicURLMissing(RuntimeError):
    """Mail with links cannot go out before PUBLIC_URL says where the server is."""

    def __init__(self) -> None:
        super().__init__(f"No mail is sent: {PUBLIC_URL_MISSING}")


PUBLIC_URL_MISSING = ("PUBLIC_URL is not set: set it to the address players reach this "
                      "server at (e.g. PBEM_PUBLIC_URL=https://games.example.org), which "
                      "every link in an email begins with.")


def build(row: Mapping[str, Any], sender: str, public_url: str) -> EmailMessage:
    """The message of an outbox row, its links beginning with the configured
    ``public_url``. Raises ``HeaderInjection`` for headers that would not stay as written."""
    headers = {"From": sender, "To": row["recipient"], "Subject": row["subject"],
               "Message-ID": row["message_id"],
               "Date": format_datetime(datetime.fromisoformat(row["created_at"]))}
    for name, value in json.loads(row["headers"]).items():
        headers[name] = value.replace(PUBLIC_URL_MARK, public_url)
    return compose(headers, row["body"].replace(PUBLIC_URL_MARK, public_url))


class Transport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


@dataclass
class SMTPTransport:
    host: str
    port: int = 25
    security: str = "none"  # none, starttls or ssl
    username: str | None = None
    password: str | None = None
    timeout: float = 30

    def send(self, message: EmailMessage) -> None:
        if self.security == "ssl":
            smtp = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                    context=ssl.create_default_context())
        else:
            smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        with smtp:
            if self.security == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if self.username:
                smtp.login(self.username, self.password or "")
            smtp.send_message(message)


@dataclass
class FileTransport:
    """Writes each message as ``<folder>/<message id>.eml``; a resend overwrites its file."""

    folder: Path

    def send(self, message: EmailMessage) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        name = message["Message-ID"].strip("<>").replace("/", "_")
        partial = self.folder / f".{name}.tmp"
        # the messages hold secret links: readable by the server's user alone
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(bytes(message))
        partial.replace(self.folder / f"{name}.eml")  # atomic: never half a message


def transport_from_config(config: Mapping[str, Any]) -> Transport:
    if config.get("SMTP_HOST"):
        # environment settings may arrive as numbers (PBEM_SMTP_PASSWORD=123456)
        username, password = config.get("SMTP_USERNAME"), config.get("SMTP_PASSWORD")
        return SMTPTransport(str(config["SMTP_HOST"]), int(config.get("SMTP_PORT", 25)),
                             str(config.get("SMTP_SECURITY", "none")),
                             None if username is None else str(username),
                             None if password is None else str(password))
    return FileTransport(Path(config["MAIL_FOLDER"]))


def _later(seconds: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).isoformat(timespec="seconds")


def deliver_due(db: sqlite_utils.Database, transport: Transport, sender: str,
                public_url: str | None, limit: int = 100,
                post_webhook: Callable[[str, str], None] = webhooks.post) -> tuple[int, int]:
    """Send the messages that are due, their links given ``public_url``, and post the due
    webhooks; returns (sent, failed this round). Raises ``PublicURLMissing`` without a
    ``public_url``."""
    if not public_url:
        raise PublicURLMissing()
    with write(db):
        # Claim the due messages by pushing their next attempt past a lease, so a second
        # deliverer running at the same time leaves them alone.
        rows = list(db.query(
            "SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? "
            "ORDER BY id LIMIT ?", [utcnow(), limit]))
        for row in rows:
            db["outbox"].update(row["id"], {"next_attempt_at": _later(LEASE.total_seconds())})
    sent = failed = 0
    for row in rows:
        with write(db):  # renew the lease: a slow round must not let another deliverer in
            db["outbox"].update(row["id"], {"next_attempt_at": _later(LEASE.total_seconds())})
        try:
            if row["channel"] == "webhook":
                post_webhook(row["recipient"], row["body"])
            else:
                transport.send(build(row, sender, public_url))
        except Exception as error:  # noqa: BLE001 - one bad message must not stop the rest
            failed += 1
            attempts = row["attempts"] + 1
            # a message that cannot be built safely, or a webhook that has become a
            # private address, never will be: no retries
            gave_up = attempts >= MAX_ATTEMPTS or isinstance(
                error, (HeaderInjection, webhooks.BadWebhook))
            with write(db):
                db["outbox"].update(row["id"], {
                    "attempts": attempts, "status": "failed" if gave_up else "pending",
                    "next_attempt_at": _later(min(60 * 2 ** attempts, 6 * 3600)),
                    "last_error": f"{type(error).__name__}: {error}"[:500],
                    **({"body": redact(row["body"]), "headers": redact(row["headers"])}
                       if gave_up else {})})
            continue
        sent += 1
        with write(db):
            # The stored copy loses its secret links once the player has them.
            db["outbox"].update(row["id"], {"status": "sent", "sent_at": utcnow(),
                                            "attempts": row["attempts"] + 1,
                                            "body": redact(row["body"]),
                                            "headers": redact(row["headers"])})
    return sent, failed
