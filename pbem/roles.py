"""What some players may do beyond playing, granted and taken back by the operator's
commands (``flask --app pbem operators add <handle>``, ``remove``, ``list``): an
``operator`` opens the console (``/console``: the site's health, its figures, the failed
deliveries); a ``moderator`` (``flask --app pbem moderators add <handle>``) handles the
players' reports (``pbem/moderation.py``: the moderation page and API, the console's queue
of reports). Another role is one more name in ``ROLES`` and its own command group
(``cli.role_commands``)."""
from __future__ import annotations

import sqlite_utils

from . import players
from .players import Player
from .store import utc
from .store.db import write

ROLES = ("operator", "moderator")


def grant(db: sqlite_utils.Database, player: Player, role: str) -> bool:
    """Give ``player`` the ``role``; False if they had it already."""
    with write(db):
        return db.execute("INSERT INTO player_roles (player_id, role, granted_at) "
                          "VALUES (?, ?, ?) ON CONFLICT (player_id, role) DO NOTHING "
                          "RETURNING player_id",
                          [player.id, role, utc.iso(utc.now())]).fetchone() is not None


def revoke(db: sqlite_utils.Database, player: Player, role: str) -> bool:
    """Take the ``role`` from ``player``; False if they did not have it."""
    with write(db):
        return db.execute("DELETE FROM player_roles WHERE player_id = ? AND role = ? "
                          "RETURNING player_id", [player.id, role]).fetchone() is not None


def holders(db: sqlite_utils.Database, role: str) -> list[Player]:
    """The players who have ``role``, by handle."""
    found = [players.find(db, player_id) for (player_id,) in db.execute(
        "SELECT player_id FROM player_roles WHERE role = ?", [role])]
    return sorted(filter(None, found), key=lambda player: player.handle.lower())


def of(db: sqlite_utils.Database, player: Player | None) -> set[str]:
    """The roles of ``player`` (none for nobody signed in)."""
    if player is None:
        return set()
    return {row[0] for row in db.execute("SELECT role FROM player_roles WHERE player_id = ?",
                                         [player.id])}
