"""What the scheduler's jobs must look at, and from when: the ``due`` table.

Each job would otherwise have to replay every active game to find the few it has work for.
Instead, every transaction that makes a game or records an event (``creation.create``,
``matches.record``, which ``commands.submit`` calls) also rewrites that game's rows here
from its log, one per seat and kind:

- ``timeout``: a seat to move under a clock; ``at`` its deadline (``commands.record_timeouts``);
- ``warning``: the same seat; ``at`` when its first deadline reminder may fall due, and
  ``not_before`` the next one the seat's choice waits for
  (``reminders.send_deadline_warnings``);
- ``reminder``: a seat with an email address to move; ``at`` when its turn began, since
  ``REMINDER_HOURS`` (a setting) count from there, and ``not_before`` the end of a vacation
  that held the reminder back (``reminders.send_reminders``);
- ``turn``: the same seat, once a move began its turn; ``at`` when it did, and
  ``not_before`` when its player, there at the time, may have left
  (``reminders.send_turn_emails``: the "Your move" email held back while they were there);
- ``waiting``: a seat the game waits for (its move, or an offer to answer); ``at`` the
  game's last event (``reminders.send_digests``, which lists them all once a day);
- ``computer``: a computer player the game waits for, or a person to move while on
  vacation (played only if they let the computer stand in), in a game with a seat a person
  plays (who waits for it); ``at`` the game's last event (``computer.play_due``);
- ``between_computers``: the same in a game whose every seat is a computer's, which nobody
  waits for: played after the others, and paced;
- ``expiry``: a seat with an email address of a game that waits for players; ``at`` when
  its open seats expire (``reminders.send_expiry_notices``: it will not start).

So each job finds its work with an indexed query on time and loads only those games, and
checks each again against the game itself before acting. A job deletes the row of what it
has done (or found nothing to do for) in this turn; the game's next event writes fresh rows.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

import sqlite_utils

from . import clocks
from .store import utc

# the kinds of the rows of the computer's turns: a person waits for it, or nobody does
COMPUTER, BETWEEN_COMPUTERS = "computer", "between_computers"


def plan(match: Any) -> list[tuple[int, str, str]]:
    """(seat, kind, at) of every row a game (a ``matches.Match``) needs now."""
    if match.waiting:
        return [(s.seat, "expiry", utc.iso(match.expires_at)) for s in match.seats if s.email]
    if match.finished:
        return []
    rows = []
    for seat in match.to_move:
        if match.seats[seat].email:
            began = match.turn_began(seat)
            rows.append((seat, "reminder", began.created_at if began else match.started_at))
            if began is not None:  # the start email tells of the first turn
                rows.append((seat, "turn", began.created_at))
    last = match.events[-1].created_at if match.events else match.created_at
    seat_clocks = clocks.of_match(match, utc.parse(last)) if match.clock else None
    for clock in seat_clocks or ():
        if clock.running:
            rows.append((clock.seat, "timeout", utc.iso(clock.deadline)))
            rows.append((clock.seat, "warning", utc.iso(clocks.first_reminder_at(clock))))
    for seat in range(match.players):
        if match.waits_for(seat):
            rows.append((seat, "waiting", last))
            if match.seats[seat].bot or seat_clocks and seat in match.to_move \
                    and seat_clocks[seat].vacation_until is not None:
                rows.append((seat, COMPUTER if any(s.bot is None for s in match.seats)
                             else BETWEEN_COMPUTERS, last))
    return rows


def schedule(db: sqlite_utils.Database, match: Any) -> None:
    """Rewrite the game's rows from ``match`` (inside the transaction that changed it)."""
    db.execute("DELETE FROM due WHERE game_id = ?", [match.id])
    schedule_new(db, [match])


def schedule_new(db: sqlite_utils.Database, new: Sequence[Any]) -> None:
    """Write the rows of games (``matches.Match``) that have none yet, in one statement."""
    db.conn.executemany("INSERT INTO due (game_id, seat, kind, at) VALUES (?, ?, ?, ?)",
                        [(match.id, *row) for match in new for row in plan(match)])


def found(db: sqlite_utils.Database, kind: str, until: datetime,
          now: datetime | None = None) -> list[tuple[str, int]]:
    """(game id, seat) of the rows of ``kind`` due at ``until`` (and not held back past
    ``now``), the earliest first."""
    rows = db.execute(
        "SELECT game_id, seat FROM due WHERE kind = ? AND at <= ? "
        "AND (not_before IS NULL OR not_before <= ?) ORDER BY at, game_id, seat",
        [kind, utc.iso(until), utc.iso(now or until)]).fetchall()
    return [(game_id, seat) for game_id, seat in rows]


def done(db: sqlite_utils.Database, game_id: str, seat: int, kind: str) -> None:
    db.execute("DELETE FROM due WHERE game_id = ? AND seat = ? AND kind = ?",
               [game_id, seat, kind])


def hold(db: sqlite_utils.Database, game_id: str, seat: int, kind: str,
         until: datetime) -> None:
    """Look at a row again only from ``until`` on."""
    db.execute("UPDATE due SET not_before = ? WHERE game_id = ? AND seat = ? AND kind = ?",
               [utc.iso(until), game_id, seat, kind])


def waiting_for_digests(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """The seats with an address that chose the daily digest and that an active game waits
    for, in the order the games were created (from the few seats that chose it); of those
    that chose one digest until their next visit, those not listed since their game's
    page was last open."""
    return [dict(row) for row in db.execute(
        "SELECT d.game_id, d.seat, s.email FROM seats s "
        "JOIN due d ON d.game_id = s.game_id AND d.seat = s.seat AND d.kind = 'waiting' "
        "JOIN games g ON g.id = d.game_id "
        "WHERE (s.notify = 'digest' OR s.notify = 'once' AND (s.digested_at IS NULL "
        "OR s.seen_at > s.digested_at)) AND s.email IS NOT NULL "
        "ORDER BY g.created_at, d.seat").fetchall()]


def computer_turns(db: sqlite_utils.Database, kind: str,
                   until: datetime) -> list[dict[str, Any]]:
    """The rows of ``kind`` (``COMPUTER`` or ``BETWEEN_COMPUTERS``) due at ``until`` of
    seats the server plays: computer players, and people who let it stand in for them
    (``seats.stand_in``), the longest waiting first."""
    return [dict(row) for row in db.execute(
        "SELECT d.game_id, d.seat, s.bot AS level FROM due d "
        "JOIN seats s ON s.game_id = d.game_id AND s.seat = d.seat "
        "WHERE d.kind = ? AND d.at <= ? AND (s.bot IS NOT NULL OR s.stand_in = 1) "
        "ORDER BY d.at, d.game_id, d.seat", [kind, utc.iso(until)]).fetchall()]

