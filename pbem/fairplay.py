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

from . import matches, server
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


# The seats ``s`` of the player ``p``: those they took, and their proven address's that they
# answered (what a public profile lists: ``players.public_seats``), in the games ``g``.
_THEIR_SEATS = ("LEFT JOIN seats s ON s.player_id = p.id "
                "OR (lower(s.email) = p.email AND s.answered = 1) "
                "LEFT JOIN games g ON g.id = s.game_id ")


def records(db: sqlite_utils.Database, player_ids: Iterable[int]) -> dict[int, Record]:
    """The records of the players of ``player_ids`` that exist, by id, of the games a
    profile lists (the lobby's challengers: one query for them all)."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    return {row[0]: Record(row[1], row[2]) for row in db.execute(
        "SELECT p.id, count(DISTINCT g.id), count(DISTINCT CASE WHEN EXISTS (SELECT 1 "
        "FROM events e WHERE e.game_id = g.id AND e.kind = 'timeout' AND e.seat = s.seat) "
        "THEN g.id END) FROM players p "
        + _THEIR_SEATS + "AND g.status = 'finished' "
        f"WHERE p.id IN ({', '.join('?' * len(ids))}) GROUP BY p.id", ids).fetchall()}


def record(db: sqlite_utils.Database, player_id: int) -> Record:
    """The player's record, of the games a profile lists."""
    return records(db, [player_id]).get(player_id, Record(0, 0))


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
    grown = int(server.setting("RUNNING_GAMES_FIRST")) + finished // max(
        1, int(server.setting("RUNNING_GAMES_PER_FINISHED")))
    return min(grown, int(server.setting("RUNNING_GAMES_MOST")))


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
        most = room(record(db, player_id).finished)
        if running(db, player_id) >= most:
            raise Refused("%(handle)s has %(most)s games running, the most they may have "
                          "until they finish more (each %(per)s games finished allow one more).",
                          handle=row[0], most=most,
                          per=server.setting("RUNNING_GAMES_PER_FINISHED"))
