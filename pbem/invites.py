"""How many invitations one address receives from games it has not answered.

The rate limits of ``web/limits.py`` count per client; this counts per recipient, so that
clients together cannot flood one mailbox either. A game's start email is its invitation.
An address that has had ``RATE_LIMIT_INVITATIONS`` invitations (Flask-Limiter's notation:
"5 per day") from games it has not answered gets no more: the game still starts, its
creator is shown every link and told why that address got no email, and no email of that
game goes to that address until it answers the game. An address answers a game by acting
(a move, a message, a reply by email, opening it from its "Your games" email) through a
link that was emailed to it: the creator holds every seat's first link, so what is done
with those proves nothing; and mail scanners open links, so opening one proves nothing
either.

Addresses count as one however they are written (``address_key``), an address on several
seats of a game gets one start email for all of them, and the counts are rows of the
database (``invites``), shared by every process and machine.
"""
from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Callable

import sqlite_utils
from limits import parse_many

from . import server
from .store import utc
from .store.db import hold_name, write
from .matches import Match

# Domains whose mailboxes ignore dots in the local part.
DOTLESS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def address_key(email: str) -> str:
    """The mailbox an address reaches, as far as the server can tell: without case or
    compatibility characters, without a "+tag" (which most providers deliver to the
    untagged address), and without Gmail's dots."""
    text = unicodedata.normalize("NFKC", email).strip().casefold()
    local, _, domain = text.rpartition("@")
    local, domain = local.partition("+")[0], domain.rstrip(".")
    if domain in DOTLESS:
        local, domain = local.replace(".", ""), DOTLESS[domain]
    return f"{local}@{domain}"


# What the creator is told of a seat whose address got no email.
HELD_BACK = ("No email was sent to this player: their address has had the most invitations "
             "the server sends to one address from games it has not answered. Send them "
             "their link yourself; this game emails nothing to that address.")


def invite(db: sqlite_utils.Database, match: Match) -> list[list[int]]:
    """The seats of a starting game grouped by start email: an address's seats in one
    group (its lowest seat first), each seat without an address alone. Notes whether each
    address is invited or held back. Inside the caller's write transaction."""
    addressed: dict[str, list[int]] = {}
    for seat in match.seats:
        if seat.email:
            addressed.setdefault(address_key(seat.email), []).append(seat.seat)
    now = utc.now()
    for address in sorted(addressed):  # one order of holding addresses: no deadlock
        sent = not _over_limit(db, address, now)
        db["invites"].insert_all({"game_id": match.id, "seat": seat, "address": address,
                                  "sent": int(sent), "answered": 0,
                                  "created_at": utc.iso(now)}
                                 for seat in addressed[address])
    return sorted([*addressed.values(),
                   *([seat.seat] for seat in match.seats if not seat.email)])


def _over_limit(db: sqlite_utils.Database, address: str, now: datetime) -> bool:
    """Whether ``address`` has had the most invitations the setting allows in any of its
    windows, counting games it has not answered. Holds the address until the commit, so
    that two processes inviting it at once count each other."""
    hold_name(db, f"invites:{address}")
    return over_recipient_limit("RATE_LIMIT_INVITATIONS", now, lambda since: (
        db.execute("SELECT COUNT(DISTINCT game_id) FROM invites WHERE address = ? "
                   "AND sent = 1 AND answered = 0 AND created_at >= ?",
                   [address, since]).fetchone()[0]))


def held_back(db: sqlite_utils.Database, game_id: str) -> set[int]:
    """The seats of a game whose address got no start email, and so gets no email of it
    until it answers."""
    return {row[0] for row in db.execute(
        "SELECT seat FROM invites WHERE game_id = ? AND sent = 0 AND answered = 0",
        [game_id])}


def answered(db: sqlite_utils.Database, game_id: str, seat: int) -> None:
    """Note that the address of ``seat`` acted through a link emailed to it (a game email,
    or its own "Your games" email), or opened it with its player's own link: the game no
    longer counts against it, and emails it if it was held back; and the seat is one its
    player took part in knowingly (``players.public_seats``)."""
    row = db.execute("SELECT s.answered, i.address FROM seats s LEFT JOIN invites i ON "
                     "i.game_id = s.game_id AND i.seat = s.seat AND i.answered = 0 "
                     "WHERE s.game_id = ? AND s.seat = ?", [game_id, seat]).fetchone()
    if row is None or (row[0] and row[1] is None):
        return  # a write only the first time
    with write(db):
        db.execute("UPDATE seats SET answered = 1 WHERE game_id = ? AND seat = ?",
                   [game_id, seat])
        if row[1] is not None:
            db.execute("UPDATE invites SET answered = 1 WHERE game_id = ? AND address = ?",
                       [game_id, row[1]])


def over_recipient_limit(setting: str, now: datetime, count: Callable[[str], int]) -> bool:
    """Whether one recipient has had the most emails ``setting`` allows in any of its
    windows: ``count(since)`` counts its rows (in the database, shared by every process
    and machine) since that time. The caller holds the recipient until its commit."""
    if not server.setting("RATELIMIT_ENABLED"):
        return False
    return any(count((now - timedelta(seconds=limit.get_expiry())).isoformat(
                   timespec="seconds")) >= limit.amount
               for limit in parse_many(server.setting(setting)))
