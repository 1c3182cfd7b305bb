"""What a moderator's action does to a player (``pbem/moderation.py`` takes the actions):
``muted``, their chat refused; ``suspended``, no rated games, tournament entries or public
challenges (their running games go on); ``closed``, sign-in refused, their profile closed
and off every leaderboard. Each is a time on the player's row, since when (null: not so),
so that it holds for any player row: one signed in, a computer's, any other kind.

Low in the core (the game's own modules ask it), it reads the rows and refuses; it writes
nothing."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import sqlite_utils

from .events import Refused


@dataclass(frozen=True)
class Sanctions:
    muted: bool = False
    suspended: bool = False
    closed: bool = False

    @property
    def any(self) -> bool:
        return self.muted or self.suspended or self.closed


def of(db: sqlite_utils.Database, player_id: int) -> Sanctions:
    row = db.execute("SELECT muted_at, suspended_at, closed_at FROM players WHERE id = ?",
                     [player_id]).fetchone()
    return Sanctions(*(value is not None for value in row)) if row else Sanctions()


def suspended_among(db: sqlite_utils.Database, player_ids: Iterable[int]) -> list[str]:
    """The handles of those of ``player_ids`` who are suspended or closed."""
    wanted = sorted(set(player_ids))
    if not wanted:
        return []
    marks = ", ".join("?" * len(wanted))
    return [row[0] for row in db.execute(
        f"SELECT handle FROM players WHERE id IN ({marks}) AND (suspended_at IS NOT NULL "
        f"OR closed_at IS NOT NULL) ORDER BY handle", wanted)]


def refuse_suspended(db: sqlite_utils.Database, player_ids: Iterable[int]) -> None:
    """Refuse (422) a rated game, a tournament entry or a public challenge of these
    players if one of them is suspended."""
    for handle in suspended_among(db, player_ids):
        raise Refused("%(handle)s is suspended by the site's moderators: no rated games, "
                      "tournaments or public challenges for now (games already running go "
                      "on).", handle=handle)


def seat_muted(db: sqlite_utils.Database, game_id: str, seat: int) -> bool:
    """Whether the player of ``seat`` (whoever took it, or the player of its address) is
    muted, or closed: their chat is refused."""
    return db.execute(
        "SELECT 1 FROM players p JOIN seats s ON s.game_id = ? AND s.seat = ? "
        "WHERE (p.id = s.player_id OR p.email = lower(s.email)) "
        "AND (p.muted_at IS NOT NULL OR p.closed_at IS NOT NULL)",
        [game_id, seat]).fetchone() is not None


def refuse_muted(db: sqlite_utils.Database, game_id: str, seat: int) -> None:
    """Refuse (422) a chat message of ``seat`` if its player is muted (``seat_muted``)."""
    if seat_muted(db, game_id, seat):
        raise Refused("The site's moderators have muted you: your chat messages are refused "
                      "for now.")
