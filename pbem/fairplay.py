"""Fair play in numbers: each player's record (games finished, of them lost on time, and
the share completed), and how many games they may have running at once.

A player known across games may take a seat (create a game, join one) while they have
fewer than ``room`` games running (waiting for players or under way), counting the seats
they took; ``room`` grows with the games they finished, as Board Game Arena's cap on open
games does: ``RUNNING_GAMES_FIRST`` to begin with, one more for each
``RUNNING_GAMES_PER_FINISHED`` games finished, at most ``RUNNING_GAMES_MOST``. A newcomer
cannot open a hundred games and leave them, and a regular is not held back. A tournament's
games are the tournament's, not counted against the cap when it starts them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import sqlite_utils
from flask import current_app

from . import matches
from .events import Refused
from .store import utc
from .store.db import hold_name


@dataclass(frozen=True)
class Record:
    """A player's finished games, and of them those they lost on time."""
    finished: int
    timeouts: int

    @property
    def completion(self) -> int | None:
        """The share of finished games the player played out (not lost on time), in whole
        percent; None before any game is finished."""
        if not self.finished:
            return None
        return round(100 * (self.finished - self.timeouts) / self.finished)

    def to_json(self) -> dict[str, int | None]:
        return {"finished": self.finished, "timeouts": self.timeouts,
                "completion": self.completion}


# A seat ``s`` of the player ``?``: one they took, or their proven address's that they
# answered (what a public profile lists: ``players.public_seats``).
_THEIR_SEATS = ("FROM seats s JOIN games g ON g.id = s.game_id "
                "WHERE (s.player_id = ? OR (lower(s.email) = ? AND s.answered = 1)) ")


def record(db: sqlite_utils.Database, player_id: int, email: str | None) -> Record:
    """The player's record, of the games a profile lists."""
    row = db.execute(
        "SELECT count(DISTINCT g.id), count(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM events e "
        "WHERE e.game_id = g.id AND e.kind = 'timeout' AND e.seat = s.seat) THEN g.id END) "
        + _THEIR_SEATS + "AND g.status = 'finished'", [player_id, email or ""]).fetchone()
    return Record(row[0], row[1])


def records(db: sqlite_utils.Database, player_ids: Iterable[int]) -> dict[int, Record]:
    """The records of several players, by id (the lobby's challengers)."""
    found = {}
    for player_id in sorted(set(player_ids)):
        email = db.execute("SELECT email FROM players WHERE id = ?", [player_id]).fetchone()
        if email is not None:
            found[player_id] = record(db, player_id, email[0])
    return found


def running(db: sqlite_utils.Database, player_id: int) -> int:
    """The games the player took a seat of that are under way or still wait for players
    (a challenge not yet expired), tournaments' left out."""
    since = utc.iso(utc.now() - matches.CHALLENGE_LIFETIME)
    return db.execute(
        "SELECT count(DISTINCT g.id) FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? AND (g.status = 'active' OR (g.status = 'waiting' AND "
        "g.created_at > ?)) AND NOT EXISTS (SELECT 1 FROM tournament_games t "
        "WHERE t.game_id = g.id)", [player_id, since]).fetchone()[0]


def room(finished: int) -> int:
    """How many games a player who finished ``finished`` may have running at once."""
    config = current_app.config
    grown = int(config["RUNNING_GAMES_FIRST"]) + finished // max(
        1, int(config["RUNNING_GAMES_PER_FINISHED"]))
    return min(grown, int(config["RUNNING_GAMES_MOST"]))


def refuse_over_room(db: sqlite_utils.Database, player_ids: Iterable[int]) -> None:
    """Refuse (422) one more game for a player who has as many running as they may. Inside
    the write transaction that then stores the game or the seat: each player's count is
    held (in one order, by id) until it commits, so that two at once count each other."""
    for player_id in sorted(set(player_ids)):
        hold_name(db, f"running-games:{player_id}")
        row = db.execute("SELECT handle, email FROM players WHERE id = ?",
                         [player_id]).fetchone()
        if row is None or row[1] is None:  # the computer's levels play any number
            continue
        most = room(record(db, player_id, row[1]).finished)
        if running(db, player_id) >= most:
            raise Refused("%(handle)s has %(most)s games running, the most they may have "
                          "until they finish more (each %(per)s games finished allow one more).",
                          handle=row[0], most=most,
                          per=current_app.config["RUNNING_GAMES_PER_FINISHED"])
