"""Incoming mail: ``flask receive-mail`` (one message on standard input, for an MTA's pipe
transport) and ``flask mail-listener`` (a small SMTP or LMTP server, aiosmtpd, for an MTA
to relay to). Both hand each message to ``receive``: a reply to a game email to
``inbound.receive``, a delivery report sent back to an email's envelope sender to
``bounces.receive``.

The listener takes only recipients whose address holds a valid player token or is the
envelope sender of the server's emails, refusing the others at RCPT time (550), so it never
relays and never accepts mail it cannot use; the MTA then bounces them to their sender. A
message it cannot process for a passing reason (a locked database) gets a 451, and the MTA
tries again later.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from typing import Any, Sequence

import click
import sqlite_utils
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP
from flask import Flask, current_app
from flask.cli import with_appcontext

from . import bounces, inbound
from .. import links
from ..store.db import connect

log = logging.getLogger(__name__)

EX_NOUSER, EX_TEMPFAIL = 67, 75  # sysexits.h: MTAs bounce the first, retry the second


def receive(db: sqlite_utils.Database, raw: bytes, recipients: Sequence[str] | None = None,
            sender: str | None = None) -> inbound.Result:
    """Take one message: a delivery report to an email's envelope sender counts against its
    mailbox (``bounces``: status bouncing, counted or ignored), anything else is read as a
    reply (``inbound.receive``). The envelope's ``recipients``, when known; else its
    headers tell."""
    mailbox = bounces.addressed(
        db, list(recipients or []) or bounces.header_recipients(raw, inbound.MAX_HEADERS))
    if mailbox is None:
        return inbound.receive(db, raw, recipients, sender)
    try:
        message = inbound.parse(raw)
        return inbound.Result(bounces.receive(db, mailbox, message))
    except inbound.Unreadable as unreadable:
        return inbound.Result("unreadable", error=str(unreadable))
    except (LookupError, ValueError, TypeError, AttributeError, RecursionError) as broken:
        # headers or parts too malformed to read: it never will be
        return inbound.Result("unreadable", error=f"the message cannot be read "
                                                  f"({type(broken).__name__})")


class Handler:
    """aiosmtpd hooks: check recipients against the links table, process each message."""

    def __init__(self, app: Flask, lmtp: bool = False):
        self.app = app
        self.lmtp = lmtp

    def _known(self, address: str) -> bool:
        db = connect(self.app.config["DATABASE"])
        try:
            return inbound.addressed_seat(db, [address]) is not None \
                or inbound.appeal_token(db, [address]) is not None \
                or bounces.addressed(db, [address]) is not None
        finally:
            db.close()

    async def handle_RCPT(self, server: SMTP, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        loop = asyncio.get_running_loop()
        try:
            known = await loop.run_in_executor(None, self._known, address)
        except Exception:  # the database may be busy: let the MTA retry
            log.exception("mail listener: could not check a recipient")
            return "451 4.3.0 Temporary failure, try again later"
        if not known:
            return "550 5.1.1 No such mailbox: reply to a game email to play"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    def _deliver(self, raw: bytes, recipient: str, sender: str | None) -> str:
        with self.app.app_context():
            db = connect(self.app.config["DATABASE"])
            try:
                result = receive(db, raw, [recipient], sender)
            except Exception:  # never lose a reply: the MTA retries
                log.exception("mail listener: could not process a message")
                return "451 4.3.0 Temporary failure, try again later"
            finally:
                db.close()
        if result.status == "unknown":  # the link vanished between RCPT and DATA
            return "550 5.1.1 No such mailbox"
        if result.status == "unreadable":  # it never will be: no retries
            return f"554 5.6.0 Message refused: {result.error}"
        return "250 2.0.0 OK"

    async def handle_DATA(self, server: SMTP, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        loop = asyncio.get_running_loop()
        statuses: list[str] = []
        done: dict[str, str] = {}  # one message to one seat is played once
        for recipient in envelope.rcpt_tos:
            parsed = inbound.parse_address(recipient)
            key = parsed[1] if parsed else recipient
            if key not in done:
                done[key] = await loop.run_in_executor(
                    None, self._deliver, raw, recipient, envelope.mail_from)
            statuses.append(done[key])
        if self.lmtp:  # LMTP answers DATA once per recipient
            return "\r\n".join(statuses)
        # SMTP has one answer: a temporary failure of any recipient retries the message
        # (its accepted recipients then see a duplicate, which is answered as such).
        return next((s for s in statuses if s.startswith("4")), statuses[0])


class _SMTPLogFilter(links.RedactSecrets):
    """aiosmtpd's debug log has every line of every message, play links in quotes
    included (maybe split by line wrapping, so not redacted): drop those lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        return str(record.msg).startswith("DATA readline") is False and super().filter(record)


class MailListener(Controller):
    """The SMTP (or LMTP) listener in a background thread: ``start()``, ``stop()``."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 2525,
                 lmtp: bool = False):
        self.lmtp = lmtp
        super().__init__(Handler(app, lmtp), hostname=host, port=port,
                         server_hostname=app.config["MAIL_DOMAIN"],
                         data_size_limit=inbound.MAX_MESSAGE, ident="pbem mail listener")
        # aiosmtpd logs every command line, RCPT TO:<...token...> included.
        links.redact_logger(logging.getLogger("mail.log"), _SMTPLogFilter)

    def factory(self) -> SMTP:
        return (LMTP if self.lmtp else SMTP)(self.handler, **self.SMTP_kwargs)


@click.command("receive-mail")
@with_appcontext
@click.option("--recipient", multiple=True,
              help="The envelope recipient (Postfix: ${recipient}); else the headers tell.")
@click.option("--sender", default=None,
              help="The envelope sender (Postfix: ${sender}); empty for a bounce.")
def receive_mail_command(recipient: tuple[str, ...], sender: str | None) -> None:
    """Play a reply read from standard input (for an MTA's pipe transport)."""
    raw = sys.stdin.buffer.read(inbound.MAX_MESSAGE + 1)  # more is refused, unread
    try:
        with contextlib.closing(connect(current_app.config["DATABASE"])) as db:
            result = receive(db, raw, list(recipient), sender)
    except Exception:  # a passing failure: the MTA keeps the mail and retries
        log.exception("receive-mail: could not process the message")
        click.echo("4.3.0 Temporary failure, try again later", err=True)
        sys.exit(EX_TEMPFAIL)
    if result.status == "unknown":
        click.echo("5.1.1 No such mailbox: reply to a game email to play", err=True)
        sys.exit(EX_NOUSER)
    if result.status == "unreadable":  # refused for good, so the MTA bounces it at once
        click.echo(f"5.6.0 Message refused: {result.error}", err=True)
        sys.exit(EX_NOUSER)
    click.echo(str(result))


@click.command("mail-listener")
@with_appcontext
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=2525, show_default=True)
@click.option("--lmtp", is_flag=True, help="Speak LMTP instead of SMTP.")
def mail_listener_command(host: str, port: int, lmtp: bool) -> None:
    """Receive replies over SMTP (or LMTP) until stopped."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy
    listener = MailListener(app, host, port, lmtp)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    listener.start()
    click.echo(f"{'LMTP' if lmtp else 'SMTP'} listener on {host}:{port}; stop it with Ctrl-C.")
    try:
        while not stopped.wait(3600):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        listener.stop()
        click.echo("Mail listener stopped.")
