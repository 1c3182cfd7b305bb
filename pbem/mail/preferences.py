"""Each seat's choice of emails (``seats.notify``, see ``PREFERENCES``) and of reminders
before its deadline, the "Your games" emails an address opted out of, and the one-click
unsubscribe links that change them. ``HELD_BACK`` says which kinds of email each choice
stops; ``notify`` asks ``email_choice`` before each email.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

import sqlite_utils
from flask_babel import lazy_gettext

from .. import clocks, due, events, invites, matches
from ..store import utc


PREFERENCES = {"each": lazy_gettext("an email at every turn and for every chat message"),
               "digest": lazy_gettext("one email a day listing the games that wait for you"),
               "once": lazy_gettext("one such email, then none until your next visit to the "
                                    "game's page"),
               "none": lazy_gettext("no turn emails (only the start and the result of the "
                                    "game)")}
# The emails the players' own events send (``events.Kind.tells``: offers, their answers, chat
# and rematches); the start, turns, reminders, deadlines and the end are the game's own.
TOLD = frozenset(kind.tells.email for kind in events.KINDS.values() if kind.tells)
# The kinds of email each choice holds back; every other kind (start, end, answers to a
# player's own emailed moves, ...) is always sent.
HELD_BACK = {"each": frozenset(),
             "digest": frozenset({"turn", "reminder"}) | TOLD,
             "once": frozenset({"turn", "reminder"}) | TOLD,
             "none": frozenset({"turn", "reminder", "deadline", "digest"}) | TOLD}


def preference(db: sqlite_utils.Database, game_id: str, seat: int) -> str:
    return email_choice(db, game_id, seat)[0]


def email_choice(db: sqlite_utils.Database, game_id: str, seat: int) -> tuple[str, bool]:
    """The seat's choice of emails, and whether its address's invitation was held back
    (``invites``: then it gets no email of the game), in the one query every email makes."""
    row = db.execute(
        "SELECT notify, EXISTS (SELECT 1 FROM invites WHERE invites.game_id = seats.game_id "
        "AND invites.seat = seats.seat AND invites.sent = 0 AND invites.answered = 0) "
        "AS held_back FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]).fetchone()
    if row is None:
        return "each", False
    return (row["notify"] if row["notify"] in PREFERENCES else "each"), bool(row["held_back"])


def set_preference(db: sqlite_utils.Database, game_id: str, seat: int, choice: str) -> None:
    if choice not in PREFERENCES:
        raise ValueError(f"unknown email choice {choice!r}")
    before = preference(db, game_id, seat)
    db.execute("UPDATE seats SET notify = ? WHERE game_id = ? AND seat = ?",
               [choice, game_id, seat])
    if "reminder" in HELD_BACK[before] and "reminder" not in HELD_BACK[choice]:
        # the reminder job dropped this turn's reminder while the choice held it back
        due.schedule(db, matches.load(db, game_id))


def home_opted_out(db: sqlite_utils.Database, email: str) -> bool:
    """Whether the mailbox of ``email`` wants no "Your games" emails, however it is spelt
    (``invites.address_key``)."""
    return db.execute("SELECT 1 FROM home_optouts WHERE address = ?",
                      [invites.address_key(email)]).fetchone() is not None


def set_home_opt_out(db: sqlite_utils.Database, email: str, out: bool) -> None:
    if out:
        db.execute("INSERT INTO home_optouts (address, created_at) VALUES (?, ?) "
                   "ON CONFLICT DO NOTHING", [invites.address_key(email), utc.iso(utc.now())])
    else:
        db.execute("DELETE FROM home_optouts WHERE address = ?", [invites.address_key(email)])


def unsubscribe(db: sqlite_utils.Database, link: dict[str, Any]) -> None:
    """What the one-click unsubscribe of an email's link does: a seat's link stops that
    seat's turn emails (choice none); a digest's stops every digest of the address (its
    seats that chose digest get none); a "Your games" email's stops those emails."""
    if link["purpose"] == "seat":
        set_preference(db, link["game_id"], link["seat"], "none")
    elif link["purpose"] == "digest":
        db.execute("UPDATE seats SET notify = 'none' WHERE lower(email) = lower(?) "
                   "AND notify IN ('digest', 'once')", [link["email"]])
    elif link["purpose"] == "home":
        set_home_opt_out(db, link["email"], True)


def unsubscribed(db: sqlite_utils.Database, link: dict[str, Any]) -> bool:
    """Whether what ``unsubscribe`` does for ``link`` holds already."""
    if link["purpose"] == "seat":
        return preference(db, link["game_id"], link["seat"]) == "none"
    if link["purpose"] == "digest":
        return not db.execute("SELECT 1 FROM seats WHERE lower(email) = lower(?) "
                              "AND notify IN ('digest', 'once')", [link["email"]]).fetchall()
    return home_opted_out(db, link["email"])


def deadline_reminders(db: sqlite_utils.Database, game_id: str,
                       seat: int) -> tuple[int, ...] | None:
    """The hours before its deadline at which ``seat`` chose to be reminded (of
    ``clocks.DEADLINE_REMINDERS``), the most first; None: the one warning
    (``clocks.warning_at``)."""
    row = db.execute("SELECT deadline_reminders FROM seats WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    if row is None or row[0] is None:
        return None
    chosen = json.loads(row[0])
    return tuple(sorted((h for h in chosen if h in clocks.DEADLINE_REMINDERS), reverse=True))


def set_deadline_reminders(db: sqlite_utils.Database, game_id: str, seat: int,
                           hours: Sequence[int] | None) -> None:
    """Remind ``seat`` at ``hours`` before its deadline (of ``clocks.DEADLINE_REMINDERS``;
    none: never), or with the one warning (None). Its game's ``due`` rows are written
    again, so that the clock job looks at the turn under way from the first of them."""
    if hours is not None and not set(hours) <= set(clocks.DEADLINE_REMINDERS):
        raise ValueError(f"unknown reminder hours {hours!r}")
    db.execute("UPDATE seats SET deadline_reminders = ? WHERE game_id = ? AND seat = ?",
               [None if hours is None else json.dumps(sorted(set(hours), reverse=True)),
                game_id, seat])
    due.schedule(db, matches.load(db, game_id))
