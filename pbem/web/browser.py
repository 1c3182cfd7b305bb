"""What a browser's session cookie holds: the player it is signed in as, the seats it
opened, and the links a form's answer shows it once.

Flask signs the cookie (nobody can add to it); it is HttpOnly and SameSite=Lax.

*Signed in*: the secret of a session (``players.open_session``), whose hash is a row of
``player_sessions``; signing out deletes the row, so that a copy of the cookie signs nobody
in.

*The seats opened* (``remember``): each seat whose play page the browser opened (through
any secret link: an email's, a join, the page of a game it created), as (game id, seat),
never the secret links themselves, at most ``MAX_REMEMBERED`` of them (the oldest are
dropped), so the cookie stays small. "Forget this browser" empties the list, and the
server forgets it too (its random id, in the cookie, is kept in ``forgotten_lists``), so
that a copy of the cookie lists and opens nothing either.

*Links shown once* (``keep_links``): a form that makes secret links (a new game, new join
links, a feed link) answers with a redirect to a page that shows them (Post/Redirect/Get:
reloading it starts no second game), and since only their hashes are stored, the links are
kept for that page in the browser's session: sealed with AES-GCM under a key derived from
the server's secret key (the cookie is signed, not hidden), for SHOWN_FOR, the latest
MAX_SHOWN pages' only. No other browser can read them, and no URL, log line or Referer
holds them.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from datetime import datetime, timedelta
from typing import Any

import sqlite_utils
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from flask import current_app, g, session

from .. import links, players
from ..players import Player
from ..store import utc
from ..store.db import write
from .database import get_db

MAX_REMEMBERED = 40
SHOWN_FOR = timedelta(days=1)
MAX_SHOWN = 3


# -- signed in --------------------------------------------------------------------------------

def _oldest_session() -> datetime:
    """When the oldest session still valid began: a cookie lasts as long (and no longer
    without being written again)."""
    return utc.now() - current_app.permanent_session_lifetime


def current_player(db: sqlite_utils.Database) -> Player | None:
    """The player the browser is signed in as (``players.by_session``)."""
    return players.by_session(db, session.get("player"), _oldest_session())


def signed_in() -> Player | None:
    """``current_player``, looked up once per request: the header of every page names the
    player (``base.html``)."""
    if "signed_in" not in g:
        g.signed_in = current_player(get_db())
    return g.signed_in


def sign_in(db: sqlite_utils.Database, player: Player) -> None:
    """Sign this browser in as ``player``: a new session, its secret in the signed cookie."""
    session["player"] = players.open_session(db, player, _oldest_session())
    session.permanent = True
    g.pop("signed_in", None)


def sign_out(db: sqlite_utils.Database) -> None:
    """Sign this browser out: its session ends on the server too."""
    players.end_session(db, session.pop("player", None))
    g.pop("signed_in", None)


# -- the seats opened -------------------------------------------------------------------------

def remember(game_id: str, seat: int) -> None:
    """Add a seat to the browser's list (or move it to the end: the most recent)."""
    seats = session.get("seats", [])
    if seats and seats[-1] == [game_id, seat] and "list" in session:
        return  # already the latest: leave the cookie as it is
    session.setdefault("list", links.new_token())  # what "Forget this browser" forgets
    session["seats"] = [s for s in seats if s != [game_id, seat]][-(MAX_REMEMBERED - 1):] + [
        [game_id, seat]]
    session.permanent = True


def remembered() -> list[tuple[str, int]]:
    """The browser's seats, the most recently opened first; none, and a new list from now
    on, if its list was forgotten (a copy of a cookie that a browser forgot)."""
    rows = get_db().execute("SELECT 1 FROM forgotten_lists WHERE list_id = ?",
                            [session.get("list")]).fetchall()
    if rows:
        session.pop("list")
        session.pop("seats", None)
    return [(game_id, seat) for game_id, seat in reversed(session.get("seats", []))]


def forget_seats(db: sqlite_utils.Database) -> None:
    """Empty the browser's list, and have the server forget it too."""
    session.pop("seats", None)
    session.pop("shown", None)
    forgotten = session.pop("list", None)
    if forgotten is None:
        return
    # a cookie expires PERMANENT_SESSION_LIFETIME after it was last written, which is after
    # its list was made: older rows forget lists that no valid cookie can hold
    with write(db):
        db.execute("DELETE FROM forgotten_lists WHERE forgotten_at < ?",
                   [utc.iso(_oldest_session())])
        db.execute("INSERT INTO forgotten_lists (list_id, forgotten_at) VALUES (?, ?) "
                   "ON CONFLICT (list_id) DO NOTHING", [forgotten, utc.iso(utc.now())])


# -- links shown once -------------------------------------------------------------------------

def _sealer() -> AESGCM:
    return AESGCM(hmac.new(str(current_app.config["SECRET_KEY"]).encode(), b"links shown once",
                           hashlib.sha256).digest())


def keep_links(page: str, shown: dict[str, Any]) -> None:
    """Keep ``shown`` (JSON: the tokens of the links a page shows) for ``kept_links`` of
    the same ``page`` (a game's id, for its links page)."""
    nonce = os.urandom(12)
    plain = json.dumps({**shown, "at": utc.iso(utc.now())}).encode()
    sealed = base64.urlsafe_b64encode(nonce + _sealer().encrypt(nonce, plain, page.encode()))
    kept = [(p, s) for p, s in session.get("shown", {}).items() if p != page]
    session["shown"] = dict(kept[-(MAX_SHOWN - 1):] + [(page, sealed.decode())])


def kept_links(page: str) -> dict[str, Any] | None:
    """What ``keep_links`` kept for ``page`` in this browser, unless it is older than
    SHOWN_FOR."""
    sealed = session.get("shown", {}).get(page)
    if not isinstance(sealed, str):
        return None
    raw = base64.urlsafe_b64decode(sealed)
    try:
        shown = json.loads(_sealer().decrypt(raw[:12], raw[12:], page.encode()))
    except InvalidTag:  # sealed under another secret key
        return None
    return shown if utc.parse(shown["at"]) > utc.now() - SHOWN_FOR else None
