"""Blocks: a player who blocks another takes them out of their games to come and out of
their reading. The blocked player cannot take the blocker's open seats or challenges
(``refusal``), the blocker's lobby leaves the blocked player's challenges out (and theirs
out of the blocked player's, who could not take them), and in the games they share the
blocker reads none of the blocked player's chat: not on the page, in the API, by email, in
the game's record nor in their data's export (``hidden_seats``, ``unread_seats``). A seat
of any player, one without an account too, may also mute another seat of its game
(``mute_seat``): the same for that game's chat alone.

A seat's players are whoever took it and the player of its address (``players.owners``),
so a block holds in the games of a proven address from before it was proven too."""
from __future__ import annotations

import engine
import sqlite_utils

from .matches import Match
from .players import Player
from .store import utc
from .store.db import write

# The players of a seat ``s`` (whoever took it, the player of its address): ``p``.
_SEAT_PLAYER = "(p.id = s.player_id OR p.email = lower(s.email))"


def block(db: sqlite_utils.Database, player: Player, blocked: Player) -> bool:
    """``player`` blocks ``blocked``; False if they had already."""
    if player.id == blocked.id:
        raise ValueError("a player cannot block themselves")
    with write(db):
        return db.execute("INSERT INTO blocks (player_id, blocked_id, created_at) "
                          "VALUES (?, ?, ?) ON CONFLICT (player_id, blocked_id) DO NOTHING "
                          "RETURNING player_id",
                          [player.id, blocked.id, utc.iso(utc.now())]).fetchone() is not None


def unblock(db: sqlite_utils.Database, player: Player, blocked: Player) -> bool:
    """Undo a block; False if there was none."""
    with write(db):
        return db.execute("DELETE FROM blocks WHERE player_id = ? AND blocked_id = ? "
                          "RETURNING player_id", [player.id, blocked.id]).fetchone() is not None


def blocked_by(db: sqlite_utils.Database, player: Player) -> list[str]:
    """The handles ``player`` blocks, the most recent block first."""
    return [row[0] for row in db.execute(
        "SELECT p.handle FROM blocks b JOIN players p ON p.id = b.blocked_id "
        "WHERE b.player_id = ? ORDER BY b.created_at DESC, p.handle", [player.id])]


def blocks(db: sqlite_utils.Database, player: Player, other: Player) -> bool:
    return db.execute("SELECT 1 FROM blocks WHERE player_id = ? AND blocked_id = ?",
                      [player.id, other.id]).fetchone() is not None


def hidden_seats(db: sqlite_utils.Database, game_id: str, viewer: int | None
                 ) -> frozenset[int]:
    """The seats of the game whose chat ``viewer`` does not read: those it muted, and those
    of players whom a player of ``viewer``'s seat blocks (none for a spectator)."""
    if viewer is None:
        return frozenset()
    rows = db.execute(
        f"SELECT s.seat FROM seats s JOIN players p ON {_SEAT_PLAYER} "
        f"JOIN blocks b ON b.blocked_id = p.id "
        f"JOIN players me ON me.id = b.player_id "
        f"JOIN seats v ON v.game_id = s.game_id AND v.seat = ? "
        f"AND (me.id = v.player_id OR me.email = lower(v.email)) "
        f"WHERE s.game_id = ? AND s.seat <> ? "
        f"UNION SELECT muted_seat FROM seat_mutes WHERE game_id = ? AND seat = ?",
        [viewer, game_id, viewer, game_id, viewer])
    return frozenset(row[0] for row in rows)


def unread_seats(db: sqlite_utils.Database, match: Match, viewer: int | None
                 ) -> frozenset[int]:
    """``hidden_seats`` for whatever shows ``viewer`` the game's chat (its page, the API,
    its record, the player's export), looked up only when there is chat to read: a move's
    answer asks nothing more of the database."""
    return hidden_seats(db, match.id, viewer) if match.chat_seen_by(viewer) else frozenset()


def muted_seats(db: sqlite_utils.Database, game_id: str, seat: int) -> frozenset[int]:
    """The seats that ``seat`` muted in its game."""
    return frozenset(row[0] for row in db.execute(
        "SELECT muted_seat FROM seat_mutes WHERE game_id = ? AND seat = ?", [game_id, seat]))


def mute_seat(db: sqlite_utils.Database, game_id: str, seat: int, muted: int, on: bool) -> None:
    """``seat`` stops (``on``) or starts again reading ``muted``'s chat in the game."""
    with write(db):
        if on:
            db.execute("INSERT INTO seat_mutes (game_id, seat, muted_seat, created_at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat, muted_seat) DO NOTHING",
                       [game_id, seat, muted, utc.iso(utc.now())])
        else:
            db.execute("DELETE FROM seat_mutes WHERE game_id = ? AND seat = ? AND "
                       "muted_seat = ?", [game_id, seat, muted])


BLOCKED = engine.Text("A player of this game has blocked you: you cannot take its seats.")


def refusal(db: sqlite_utils.Database, game_id: str, player: Player | None
            ) -> engine.Text | None:
    """Why ``player`` may not take a seat of the game: a player of a seat taken blocks
    them (None: nothing stands in the way, nobody signed in included)."""
    if player is None:
        return None
    found = db.execute(
        f"SELECT 1 FROM seats s JOIN players p ON {_SEAT_PLAYER} "
        f"JOIN blocks b ON b.player_id = p.id AND b.blocked_id = ? "
        f"WHERE s.game_id = ? AND s.name IS NOT NULL",
        [player.id, game_id]).fetchone()
    return BLOCKED if found else None


def estranged(db: sqlite_utils.Database, game_id: str, player: Player) -> bool:
    """Whether a player of a seat taken in the game blocks ``player`` or is blocked by
    them: the game's challenge leaves ``player``'s lobby."""
    return db.execute(
        f"SELECT 1 FROM seats s JOIN players p ON {_SEAT_PLAYER} JOIN blocks b ON "
        f"(b.player_id = p.id AND b.blocked_id = ?) OR (b.blocked_id = p.id AND "
        f"b.player_id = ?) WHERE s.game_id = ? AND s.name IS NOT NULL",
        [player.id, player.id, game_id]).fetchone() is not None
