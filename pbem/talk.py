"""Talking about a game rather than playing it: the chat, each player's private notes, and
rematches.

Chat messages and rematch requests are events of the game's log (kinds ``chat`` and
``rematch``), submitted through ``commands.submit`` like every event (which asks
``check_rate`` and ``start_rematch`` here first), so the emails they cause are queued by the
``signals.event_recorded`` subscribers in the same transaction. Notes are
private and may change, so they live in a table of their own and reach nobody but their
owner: no page, answer, record or email of another seat or a spectator reads them.
"""
from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import engine
import sqlite_utils

from . import creation, events, links, matches, server
from .events import Message
from .store.db import write
from .store import utc
from .matches import Match

MAX_NOTES = 10_000  # characters of one player's notes on a game


class TooManyMessages(matches.ActionError):
    """A seat posted CHAT_PER_HOUR messages in the last hour already."""

    status = 429


def check_rate(match: Match, seat: int, now: datetime) -> None:
    """Refuse a chat message of ``seat`` once it posted CHAT_PER_HOUR in the hour before
    ``now`` (``TooManyMessages``, with the seconds until the next one is taken)."""
    since = now - timedelta(hours=1)
    recent = [utc.parse(event.created_at) for event in match.events
              if event.kind == "chat" and event.seat == seat
              and utc.parse(event.created_at) > since]
    most = int(server.setting("CHAT_PER_HOUR"))
    if len(recent) >= most:
        headers = {}  # the next message is taken once the oldest of the last `most` is an
        if most:      # hour old (none ever, with a limit of 0)
            wait = recent[-most] - since
            headers["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
        raise TooManyMessages(
            "You have posted %(count)s chat messages in the last hour, the most this server "
            "takes (%(most)s). Please wait a while.", headers, count=len(recent), most=most)


def chat_json(match: Match, viewer: int | None, hidden: frozenset[int] = frozenset()
              ) -> list[dict[str, Any]]:
    """The chat as ``viewer`` may read it, for the JSON answers (``seat`` null: the server),
    but the messages of the seats ``hidden`` from it (``blocks.hidden_seats``)."""
    return [{"seat": event.seat, "text": event.payload.text, "at": event.created_at}
            for event in match.chat_seen_by(viewer)
            if isinstance(event.payload, Message) and event.seat not in hidden]


# -- notes -----------------------------------------------------------------------------------

def notes(db: sqlite_utils.Database, game_id: str, seat: int) -> dict[str, Any]:
    """``seat``'s own notes on the game: ``{"text", "updated_at"}`` (null: never saved)."""
    row = db.execute("SELECT text, updated_at FROM notes WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    return dict(row) if row else {"text": "", "updated_at": None}


def save_notes(db: sqlite_utils.Database, game_id: str, seat: int, text: Any) -> dict[str, Any]:
    """Replace ``seat``'s notes on the game with ``text`` (empty clears them)."""
    text = events.checked_text(text, engine.Text("Notes"), MAX_NOTES, may_be_empty=True)
    with write(db):
        db["notes"].upsert({"game_id": game_id, "seat": seat, "text": text,
                            "updated_at": utc.iso(utc.now())}, pk=("game_id", "seat"))
    return notes(db, game_id, seat)


# -- rematches -------------------------------------------------------------------------------

def start_rematch(db: sqlite_utils.Database, match: Match, seat: int) -> str | None:
    """The new game's id if ``seat``'s ask completes the set of rematch asks of the
    finished game (then it starts, and the ask records its id); None while other seats
    have not asked. Computer players are always ready for one: they never ask."""
    ready = set(match.rematch_asked) | {seat} | {s.seat for s in match.seats if s.bot}
    if match.finished and ready == set(range(match.players)):
        return _start_rematch(db, match).match.id
    return None


def rematch_seat(match: Match, seat: int) -> int:
    """The seat that ``seat``'s player has in the rematch: one on (two players: swapped)."""
    return (seat + 1) % match.players


def _start_rematch(db: sqlite_utils.Database, match: Match) -> creation.Created:
    """The same game, options, clock and rating, every player one seat on, each keeping
    their choice of emails (and the computer its level, a player known across games their
    identity). Starting it emails every player their new secret link."""
    moved = sorted(match.seats, key=lambda s: rematch_seat(match, s.seat))
    claimed = {rematch_seat(match, seat): player for seat, player in db.execute(
        "SELECT seat, player_id FROM seats WHERE game_id = ? AND player_id IS NOT NULL",
        [match.id])}
    created = creation.create(db, match.game.id, [
        {"bot": s.bot} if s.bot else
        {"name": s.name, "email": s.email,
         "language": matches.language_of(db, match.id, s.seat)}  # its start email's too
        for s in moved],
                             dict(match.options),
                             clock=match.clock.to_json() if match.clock else None,
                             addressless=True,
                             rated=match.rated, claimed=claimed)
    for old in moved:
        db.execute("UPDATE seats SET notify = (SELECT notify FROM seats WHERE game_id = ? "
                   "AND seat = ?) WHERE game_id = ? AND seat = ?",
                   [match.id, old.seat, created.match.id, rematch_seat(match, old.seat)])
    return created


def rematch_link(db: sqlite_utils.Database, match: Match, seat: int) -> tuple[int, str]:
    """(seat, a new secret link token) of ``seat``'s player in the rematch. Only hashes of
    links are stored, so a player who asked before the others (and then closed the start
    email) opens the new game from the old one with a link made at that moment."""
    new_seat = rematch_seat(match, seat)
    assert match.rematch_id is not None  # the link is asked for once every seat asked
    with write(db):
        return new_seat, links.mint(db, match.rematch_id, new_seat)
