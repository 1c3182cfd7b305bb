"""What the pages a secret link opens share: the game and seat a link opens
(``open_seat``, ``open_link``), the moves as a viewer may see them and when each was
played, and the render cache (``RENDERS``) that keeps what those pages draw."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, overload

from flask import abort, request
from flask_babel import gettext

from .. import invites, links, matches
from ..events import Event
from ..matches import Match
from .database import get_db
from ..store.lru import BytesLRU

RENDERS = BytesLRU(32 * 2**20)  # create_app sets its size: RENDER_CACHE_MB
ROLES = "<any(play, watch):role>"  # the routes of both a player's and a spectator's link


@overload
def open_seat(token: str, role: Literal["play"]) -> links.PlayerAccess: ...
@overload
def open_seat(token: str, role: str) -> links.Access: ...


def open_seat(token: str, role: str) -> links.Access:
    """``open_link`` without loading the game, for actions (which load it in their write
    transaction: once is enough). A player's link (``role`` play) opens a seat."""
    access = links.resolve(get_db(), token)
    if access is None or (access.seat is None) != (role == "watch"):
        abort(404, gettext("This link does not open any game. Check that you copied all of it."))
    player = access.of_player()
    acted = access.emailed and request.method not in ("GET", "HEAD")  # a person read it
    if player is not None and (acted or access.player_id is not None):
        # or its player opened it with their own link
        invites.answered(get_db(), access.game_id, player.seat)
    return player or access


@overload
def open_link(token: str, role: Literal["play"]) -> tuple[Match, int]: ...
@overload
def open_link(token: str, role: str) -> tuple[Match, int | None]: ...


def open_link(token: str, role: str) -> tuple[Match, int | None]:
    """The game (replayed) and seat a link opens (a player's: a seat); 404 as
    ``open_seat``."""
    access = open_seat(token, role)
    return matches.load(get_db(), access.game_id), access.seat


def move_texts(match: Match, viewer: int | None) -> list[str]:
    """Each move as ``viewer`` may see it; index p - 1 holds ply p."""
    final = match.current
    return [match.game.public_move(event.seat, event.move, viewer, final)
            for event in match.moves]


def move_times(match: Match, moves: Sequence[Event] | None = None
               ) -> list[tuple[datetime, int]]:
    """When each of ``moves`` (default: the game's line, index p - 1 holding ply p) was
    played and the seconds it took (since the move before it, or the game's start). Public:
    every seat sees when others moved."""
    times, previous = [], datetime.fromisoformat(match.started_at or match.created_at)
    for event in match.moves if moves is None else moves:
        at = datetime.fromisoformat(event.created_at)
        times.append((at, max(0, int((at - previous).total_seconds()))))
        previous = at
    return times
