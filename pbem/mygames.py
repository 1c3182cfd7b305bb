"""My games: the seats a browser has opened, listed at ``/games``.

A browser remembers each seat whose play page it opened (through any secret link: an
email's, a join, the page of a game it created) in its session cookie, which Flask signs
(so nobody can add a seat to it) and which is HttpOnly and SameSite=Lax: a list of
(game id, seat), never the secret links themselves, at most ``MAX_REMEMBERED`` of them
(the oldest are dropped), so the cookie stays small. The list opens each game with a fresh
secret link, as the emailed list of ``/home`` does on other devices. "Forget this browser"
empties it, and the server forgets the list too (its random id, in the cookie, is kept in
``forgotten_lists``), so that a copy of the cookie lists and opens nothing either.

A browser signed in as a player (``players.current``) is shown the player's seats instead,
gathered on the server (``players.seats_of``): the same list on any device, each seat opened
with the player's own link to it.

The links a browser is shown once (a new game's, new join links, a feed link: only their
hashes are stored) are kept in its session too, sealed, for the page that the form's answer
redirects to (``keep_links``).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from flask import (Blueprint, abort, current_app, flash, redirect, render_template, request,
                   session, url_for)
from flask_babel import gettext

from . import clocks, limits, links, matches, players
from .store.db import get_db, write
from .store import utc
from .matches import Match

bp = Blueprint("mygames", __name__)

MAX_REMEMBERED = 40


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


# -- links shown once ----------------------------------------------------------------------
# A form that makes secret links (a new game, new join links, a feed link) answers with a
# redirect to a page that shows them (Post/Redirect/Get: reloading it starts no second
# game), and since only their hashes are stored, the links are kept for that page in the
# browser's session: sealed with AES-GCM under a key derived from the server's secret key
# (the cookie is signed, not hidden), for SHOWN_FOR, the latest MAX_SHOWN pages' only. No
# other browser can read them, and no URL, log line or Referer holds them.

SHOWN_FOR = timedelta(days=1)
MAX_SHOWN = 3


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


@dataclass(frozen=True)
class Entry:
    match: Match
    seat: int
    clock: clocks.SeatClock | None  # the seat's clock, if the game has one

    @property
    def your_turn(self) -> bool:
        return self.match.waits_for(self.seat)


def open_seat(game_id: str, seat: int):
    """Open a seat's game page with a fresh secret link (lists of games show none)."""
    db = get_db()
    with write(db):
        token = links.mint(db, game_id, seat)
    return redirect(url_for("play.page", role="play", token=token), 303)


def player_entries(db, player: players.Player) -> list[Entry]:
    """A signed-in player's seats, in every game of theirs (``players.seats_of``)."""
    return _entries(db, players.seats_of(db, player))


def _entries(db, seats: list[tuple[str, int]]) -> list[Entry]:
    entries = []
    for game_id, seat in seats:
        match = matches.find(db, game_id)
        if match is not None:
            seat_clocks = clocks.of_match(match)
            entries.append(Entry(match, seat, seat_clocks[seat] if seat_clocks else None))
    return entries


@bp.get("/games")
def my_games():
    """The browser's list, or, signed in, the player's dashboard: every seat of theirs."""
    db = get_db()
    player = players.current(db)
    entries = player_entries(db, player) if player else _entries(db, remembered())
    your_turn = [e for e in entries if e.your_turn]
    # the least time left first; games without a clock keep their order after those
    your_turn.sort(key=lambda e: e.clock.remaining if e.clock and e.clock.running
                   else float("inf"))
    return render_template(
        "my_games.html", your_turn=your_turn, player=player,
        key=players.key(player) if player else None,
        waiting=[e for e in entries if not e.your_turn and not e.match.finished],
        finished=[e for e in entries if e.match.finished])


@bp.post("/games/<game_id>/<int:seat>")
@limits.acting  # each makes a new secret link
def open_game(game_id: str, seat: int):
    db = get_db()
    player = players.current(db)
    if player is not None and players.owns(db, player, game_id, seat):
        token = players.seat_link(db, player, game_id, seat)  # the same link each time
        return redirect(url_for("play.page", role="play", token=token), 303)
    if (game_id, seat) not in remembered():
        abort(404, gettext("This browser has not opened that game."))
    return open_seat(game_id, seat)


@bp.post("/games/forget")
def forget():
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To forget this browser's games, tick the box that confirms it."))
    session.pop("seats", None)
    session.pop("shown", None)
    forgotten = session.pop("list", None)
    if forgotten is not None:
        db = get_db()
        # a cookie expires PERMANENT_SESSION_LIFETIME after it was last written, which is
        # after its list was made: older rows forget lists that no valid cookie can hold
        expired = utc.now() - current_app.permanent_session_lifetime
        with write(db):
            db.execute("DELETE FROM forgotten_lists WHERE forgotten_at < ?",
                       [utc.iso(expired)])
            db.execute("INSERT INTO forgotten_lists (list_id, forgotten_at) VALUES (?, ?) "
                       "ON CONFLICT (list_id) DO NOTHING", [forgotten, utc.iso(utc.now())])
    flash(gettext("This browser no longer remembers your games. Their links still work."))
    return redirect(url_for(".my_games"), 303)
