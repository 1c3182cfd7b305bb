"""The one way into a game: ``submit`` records a seat's command, whichever way it came in
(the game page, the JSON API, an email reply, the computer, the server's clock job).

Each way in reads its request into an ``events.Command`` (the kinds its words may mean and a
typed payload) and hands it here; what happens next is the same for all of them, in one write
transaction that loads the game once: the command becomes the kind that applies to the seat
(a bare "accept" answers whichever offer waits for it), a request already recorded is
answered as a success (a move sent twice, an email delivered twice), a position the player
saw that is out of date is refused, the event is checked, folded and recorded with what it
causes (``matches.record``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlite_utils

from . import clocks, due, events, matches, sanctions, talk
from .events import Command, Kind, KindName, Payload
from .matches import Match
from .store.db import write
from .store import utc


@dataclass(frozen=True)
class Submitted:
    match: Match    # the game after the command (and the conditional replies it set off)
    kind: KindName  # the kind recorded, or found recorded
    already_recorded: bool = False  # the same request was recorded before: nothing new


def submit(db: sqlite_utils.Database, game_id: str, seat: int, command: Command,
           seen_ply: int | None = None, *, seen_version: int | None = None,
           message: str | None = None, now: datetime | None = None, server: bool = False,
           strict: bool = False) -> Submitted:
    """Record ``command`` of ``seat``, and ``message`` (if any) to the game's chat with it:
    both or neither. ``seen_ply`` is the ply the player was looking at, or ``seen_version``
    the game's version their page or email showed (``Match.known_events``; the ply it
    showed then, ``Match.ply_at``): if the game has moved on since for that seat
    (``Match.moved_on``), or gone back (a takeback), the command is refused as stale,
    unless it is the one the seat did make then (``Kind.recorded``: then nothing is
    recorded and the answer says so). ``strict``, the JSON API's contract: that too is
    refused as stale, and so is any version but the current one. A refused command raises
    ``ActionError`` and writes nothing. Inside a caller's write transaction, it commits
    with it (an emailed move and its answer). ``server``: the server's own event (a
    timeout, a tournament's adjudication or forfeit); ``now``: its time."""
    now = now or utc.now()
    outermost = not db.conn.in_transaction
    with write(db):
        before = matches.load(db, game_id)
        try:
            after, kind = _submitted(db, before, seat, command, seen_ply, seen_version,
                                     message, now, server, strict)
        except events.ActionError as refused:
            refused.match = before  # as it stands: the refusal rolls back what it wrote
            raise
    if after is None:
        return Submitted(before, kind.name, already_recorded=True)
    if outermost:  # an enclosing transaction may still roll back: let load() catch up then
        matches.CACHE.put(after)
    return Submitted(after, kind.name)


def _submitted(db: sqlite_utils.Database, before: Match, seat: int, command: Command,
               seen_ply: int | None, seen_version: int | None, message: str | None,
               now: datetime, server: bool, strict: bool) -> tuple[Match | None, Kind]:
    """``submit``'s work in its transaction: the game after the command (None: it was
    recorded before), and the kind it recorded."""
    kind = command.kind_for(before, seat)
    if seen_version is not None:
        shown = _shown(before, seat, seen_version, strict)
        seen_ply = shown if seen_ply is None else seen_ply
    resent = kind.recorded(before, seat, command.payload, seen_ply)
    if resent and not strict:
        return None, kind
    if resent or seen_ply is not None and before.moved_on(seat, seen_ply):
        raise events.StalePosition(
            "The game has moved on since you loaded it (you saw ply %(seen)s, it is now at "
            "ply %(ply)s). Look at the current position and try again.", seen=seen_ply,
            ply=before.ply)
    after = _record(db, before, seat, kind, command.payload, now, server)
    if message:
        after = _record(db, after, seat, events.KINDS["chat"], events.Message(message), now)
    return after, kind


def _shown(match: Match, seat: int, version: int, strict: bool) -> int:
    """The ply a page or email showed ``seat`` at ``version``; raises ``StalePosition`` if
    the game went back since, or (``strict``) if that is not the version now."""
    shown = match.ply_at(seat, version)
    current = match.known_events(seat)
    if shown is None and 0 <= version <= current:
        raise events.StalePosition("A move was taken back since you loaded the game: look at "
                                   "the current position and try again.")
    if shown is None or strict and version != current:
        raise events.StalePosition(
            "The game has changed since you loaded it (you saw version %(seen)s, it is now at "
            "version %(version)s). Look at the current position and try again.",
            seen=version, version=current)
    return shown


def _record(db: sqlite_utils.Database, before: Match, seat: int, kind: Kind,
            payload: Payload, now: datetime, server: bool = False) -> Match:
    """Record one event; talk first meets its own rules (``pbem/talk.py``), and a muted
    player's chat is refused (``pbem/sanctions.py``)."""
    if kind.name == "chat":
        sanctions.refuse_muted(db, before.id, seat)
        talk.check_rate(before, seat, now)
    elif kind.name == "rematch":
        payload = events.Rematch(talk.start_rematch(db, before, seat))
    return matches.record(db, before, seat, kind, payload, now=now, server=server)


def record_timeouts(db: sqlite_utils.Database, now: datetime) -> int:
    """Record a timeout for every running game whose to-move seat's deadline has passed
    (the clock job), found by their ``due`` rows. Everything is read from the database, so
    the job may run anywhere, any number of times. Returns how many games ended."""
    timeouts = 0
    for game_id in dict.fromkeys(game_id for game_id, _seat in due.found(db, "timeout", now)):
        late = clocks.ran_out(matches.load(db, game_id), now)
        if late is None:
            continue  # the row's time is rounded down to the second: the next run ends it
        try:
            submit(db, game_id, late.seat, Command.of("timeout"), server=True, now=now)
        except matches.ActionError:
            continue  # a move got in first: the next run looks again
        timeouts += 1
    return timeouts
