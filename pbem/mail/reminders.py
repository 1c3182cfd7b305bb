"""The scheduler's jobs that email players: reminders of a turn that waits, the "Your
move" email held back while its player was there, warnings and the seat's own reminders
before a deadline, daily digests, and the notices of games nobody joined in time.

Each takes the time as a parameter and derives everything from the database: which games
to look at from their ``due`` rows, when a turn began from the event log, what was already
sent from the outbox (``unique_key``), ``clock_warnings`` and ``digest_days``.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

import sqlite_utils
from flask import current_app, render_template
from flask_babel import gettext, ngettext

from .. import clocks, due, languages, links, matches
from . import channels, compose, notify, preferences, push, sentences
from ..matches import Match
from ..store import utc
from ..store.db import write


def deadline_warning(db: sqlite_utils.Database, match: Match, seat: int, clock,
                     now: datetime, *, by_push: bool = True) -> datetime | None:
    """Tell a player to move that their time runs out soon (``clock``: their
    ``clocks.SeatClock``; the clock job sends this once per turn). A seat that wants it
    both ways and has a device is told by push first: then the email waits, and this
    returns when it is due (``DEADLINE_EMAIL_HOURS`` later, or sooner for a short turn).
    ``by_push`` False: the email alone, which that time has come for."""
    with languages.in_language(matches.language_of(db, match.id, seat)):
        context = _deadline_context(match, seat, clock)
        wanted = channels.wanted(db, match.id, seat, "deadline")
        if by_push and wanted.push and wanted.email and push.queue(
                db, match, seat, "deadline", notify.SUBJECTS["deadline"], context):
            return push.deadline_email_at(now, clock.deadline,
                                          float(current_app.config["DEADLINE_EMAIL_HOURS"]))
        notify.send(db, match, seat, "deadline", by_push=by_push, **context)
    return None


def _deadline_context(match: Match, seat: int, clock: clocks.SeatClock) -> dict[str, Any]:
    """What the "time running out" email and push message say, in the language in force."""
    return dict(deadline=clock.deadline_text, left=clock.left_text,
                on_timeout=match.clock.on_timeout if match.clock else None,
                team=len(match.game.team_of(match.players, seat)) > 1,
                vacation_left=clock.vacation_days_left, clock=clock)


def _remind_before(db: sqlite_utils.Database, match: Match, seat: int,
                   clock: clocks.SeatClock, now: datetime, hours: Sequence[int]) -> bool:
    """The reminder of the seat's own choice that is due now, once per turn and
    threshold: of the thresholds passed in this turn, the nearest the deadline (a job that
    did not run for a while sends one reminder, not each it missed). Then the ``warning``
    row waits for the next threshold, or is done. Returns whether one was sent."""
    assert clock.deadline is not None and clock.turn_start is not None
    moments = {h: clock.deadline - timedelta(hours=h) for h in hours
               if clock.deadline - timedelta(hours=h) > clock.turn_start}
    passed = [h for h, at in moments.items() if at <= now]
    sent = bool(passed) and bool(db.execute(
        "INSERT INTO deadline_reminders_sent (game_id, seat, turn_seq, hours, created_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [match.id, seat, clock.turn_seq, min(passed), utc.iso(utc.now())]).rowcount)
    if sent:
        with languages.in_language(matches.language_of(db, match.id, seat)):
            notify.send(db, match, seat, "deadline", **_deadline_context(match, seat, clock))
    later = [at for at in moments.values() if at > now]
    if later:
        due.hold(db, match.id, seat, "warning", min(later))
    else:
        due.done(db, match.id, seat, "warning")
    return sent


def send_deadline_warnings(db: sqlite_utils.Database, now: datetime) -> int:
    """Warn each seat to move whose deadline is near, once per turn (the clock job's
    second half), found by their ``due`` rows: at the thresholds the seat chose
    (``_remind_before``), else once; ``clock_warnings`` remembers what was sent,
    and when the email of a warning pushed first follows (the row waits for it, and a
    move, which writes the game's rows anew, drops it). Returns how many."""
    warnings = 0
    for game_id, seat in due.found(db, "warning", now):
        with write(db):
            match = matches.load(db, game_id)
            clock = (clocks.of_match(match, now) or [None] * match.players)[seat]
            if clock is None or not clock.running or clock.expired:
                due.done(db, game_id, seat, "warning")  # too late: the timeout ends it
                continue
            chosen = preferences.deadline_reminders(db, game_id, seat)
            if chosen is not None:
                warnings += _remind_before(db, match, seat, clock, now, chosen)
                continue
            if not clocks.warning_due(clock, now):  # the row is there for the earliest
                due.hold(db, game_id, seat, "warning", clocks.warning_at(clock))
                continue
            inserted = db.execute(
                "INSERT INTO clock_warnings (game_id, seat, turn_seq, deadline, "
                "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [game_id, seat, clock.turn_seq, utc.iso(clock.deadline),
                 utc.iso(utc.now())]).rowcount
            if inserted:
                email_at = deadline_warning(db, match, seat, clock, now)
                warnings += 1
            else:
                assert clock.turn_seq is not None  # a running clock's turn
                email_at = _deadline_email_at(db, game_id, seat, clock.turn_seq)
                if email_at is not None and email_at <= now:
                    deadline_warning(db, match, seat, clock, now, by_push=False)
                    email_at = None
            db.execute("UPDATE clock_warnings SET email_at = ? WHERE game_id = ? AND seat = ? "
                       "AND turn_seq = ?", [email_at and utc.iso(email_at), game_id, seat,
                                            clock.turn_seq])
            if email_at is not None:
                due.hold(db, game_id, seat, "warning", email_at)
                continue
            due.done(db, game_id, seat, "warning")
    return warnings


def _deadline_email_at(db: sqlite_utils.Database, game_id: str, seat: int,
                       turn_seq: int) -> datetime | None:
    row = db.execute("SELECT email_at FROM clock_warnings WHERE game_id = ? AND seat = ? "
                     "AND turn_seq = ?", [game_id, seat, turn_seq]).fetchone()
    return utc.parse(row[0]) if row and row[0] else None


def send_expiry_notices(db: sqlite_utils.Database, now: datetime) -> int:
    """Tell each player of a game that waited for players until its open seats expired
    (its ``expiry`` rows) that it will not start, once. Returns how many were told."""
    told = 0
    for game_id, seat in due.found(db, "expiry", now):
        with write(db):
            match = matches.load(db, game_id)
            if match.waiting and now >= match.expires_at:
                notify.send(db, match, seat, "expired", unique_key=f"expired:{game_id}:{seat}",
                      lobby=links.email_url("lobby.lobby"))
                told += 1
            due.done(db, game_id, seat, "expiry")
    return told


def send_reminders(db: sqlite_utils.Database, now: datetime, hours: float) -> int:
    """Queue one reminder to each seat (that chose an email at every turn) whose turn began
    more than ``hours`` before ``now`` and that has not been reminded of this turn (a
    player on vacation, see clocks.py, is reminded once it is over). The seats are found by
    their ``due`` rows (``at``: when the turn began); "reminded" is the outbox row whose
    unique_key names the game, the seat and the event that began the turn. Returns how
    many."""
    if not hours or float(hours) <= 0:
        return 0
    cutoff = now - timedelta(hours=float(hours))
    queued = 0
    for game_id, seat in due.found(db, "reminder", cutoff, now):
        with write(db):
            queued += _remind(db, matches.load(db, game_id), seat, now, cutoff)
    return queued


def _remind(db: sqlite_utils.Database, match: Match, seat: int, now: datetime,
            cutoff: datetime) -> bool:
    """Queue the reminder a ``due`` row asks for, if the log says it is due: ``seat`` to
    move since before ``cutoff``, not on vacation (then the row waits for its end), not yet
    reminded of this turn. The row is dropped once the turn needs none, also when the
    seat's choice holds reminders back (``preferences.set_preference`` writes it again)."""
    seat_clocks = clocks.of_match(match, now)
    back = seat_clocks[seat].vacation_until if seat_clocks else None
    if back is not None:
        due.hold(db, match.id, seat, "reminder", back)
        return False
    queued = False
    if seat in match.to_move:
        began = match.turn_began(seat)
        turn_began = began.created_at if began else match.started_at
        assert turn_began is not None  # a seat to move: the game has started
        since = utc.parse(turn_began)
        if since > cutoff:
            return False  # the row only says where to look: the log decides
        key = f"reminder:{match.id}:{seat}:{began.seq if began else 0}"
        with languages.in_language(matches.language_of(db, match.id, seat)):
            queued = not _queued(db, key) and notify.send(
                db, match, seat, "reminder", unique_key=key,
                since=languages.moment(since), waited=_duration(now - since),
                mover=match.seats[began.seat].name if began else None,
                last_move=match.game.public_move(began.seat, began.move, seat, match.current)
                if began else None) is not None
    due.done(db, match.id, seat, "reminder")
    return queued


def send_turn_emails(db: sqlite_utils.Database, now: datetime) -> int:
    """Queue the "Your move" email that a turn's start held back while its player was
    there, once they have been away ``AWAY_MINUTES``: to each seat still to move whose
    ``turn`` row (``at``: when the turn began) is that old and that was not yet told of
    this turn. Returns how many."""
    away = timedelta(minutes=float(current_app.config["AWAY_MINUTES"]))
    queued = 0
    for game_id, seat in due.found(db, "turn", now - away, now):
        with write(db):
            match = matches.load(db, game_id)
            if seat in match.to_move:
                last = notify.present(db, match, seat, now)
                if last is not None:  # still there: look again once they may have left
                    due.hold(db, game_id, seat, "turn", last + away)
                    continue
                began = match.turn_began(seat)
                assert began is not None  # a ``turn`` row is a turn a move began (``due``)
                key = f"turn:{game_id}:{seat}:{began.seq}"
                if not _queued(db, key):
                    notify.your_turn(db, match, seat, now, by_push=False)  # pushed when it began
                    queued += 1
            due.done(db, game_id, seat, "turn")
    return queued


def _queued(db: sqlite_utils.Database, unique_key: str) -> bool:
    return db.execute("SELECT 1 FROM outbox WHERE unique_key = ?",
                      [unique_key]).fetchone() is not None


def _duration(delta: timedelta) -> str:
    hours = int(delta.total_seconds() // 3600)
    if hours < 72:
        return ngettext("%(num)d hour", "%(num)d hours", hours)
    return ngettext("%(num)d day", "%(num)d days", hours // 24)


def send_digests(db: sqlite_utils.Database, now: datetime, hour: int) -> int:
    """From ``hour`` (UTC) on, once per day: queue to each address with seats that chose the
    digest one email listing its games that wait for it, each with a fresh link. The day
    counts as done once its row is in ``digest_days``, written in the same transaction as
    the emails, so neither a second run nor a restart sends the day's digests again.
    Returns how many were queued (0 before the hour and once the day is done)."""
    now = now.astimezone(timezone.utc)
    if now.hour < int(hour):
        return 0
    day = now.date().isoformat()
    with write(db):
        # a second job runner at the same time finds the day taken and does nothing
        if not db.execute("INSERT INTO digest_days (day, created_at) VALUES (?, ?) "
                          "ON CONFLICT DO NOTHING", [day, utc.iso(utc.now())]).rowcount:
            return 0
        rows = due.waiting_for_digests(db)
        by_address: dict[str, list[tuple[Match, int]]] = {}
        for row in rows:
            match = matches.load(db, row["game_id"])
            if not match.waits_for(row["seat"]):
                continue
            by_address.setdefault(row["email"].lower(), []).append((match, row["seat"]))
        db.conn.executemany(  # what "once until the next visit" counts from
            "UPDATE seats SET digested_at = ? WHERE game_id = ? AND seat = ?",
            [(utc.iso(now), match.id, seat) for seats in by_address.values()
             for match, seat in seats])
        for address, seats in by_address.items():
            recipient = next(r["email"] for r in rows if r["email"].lower() == address)
            first, first_seat = seats[0]  # the digest speaks the language of its first game
            with languages.in_language(matches.language_of(db, first.id, first_seat)):
                entries = [_digest_entry(db, match, seat) for match, seat in seats]
                shown_day = languages.day(now.date())
                compose.to_address(
                    db, recipient, ngettext("Your games: %(num)d waiting for you (%(day)s)",
                                            "Your games: %(num)d waiting for you (%(day)s)",
                                            len(entries), day=shown_day),
                    render_template("email/digest.txt", entries=entries, day=shown_day),
                    kind="digest",
                    buttons={e["link"]: gettext("Open %(game)s: %(players)s",
                                                game=languages.translated(e["match"].game.title),
                                                players=e["players"]) for e in entries},
                    unique_key=f"digest:{address}:{day}")
    return len(by_address)


def _digest_entry(db: sqlite_utils.Database, match: Match, seat: int) -> dict[str, Any]:
    last = match.moves[-1] if match.moves else None
    return {
        "match": match, "seat": seat, "side": match.seat_name(seat),
        "players": match.sides,
        "your_turn": seat in match.current.to_move,
        "notices": sentences.notices(match, seat),
        "last_move": None if last is None else (
            gettext("%(name)s played %(move)s", name=match.seats[last.seat].name,
                    move=match.game.public_move(last.seat, last.move, seat, match.current))),
        "link": compose.play_link(db, match.id, seat)[1],
    }
