"""My games: the seats a browser has opened, listed at ``/games`` (``browser.remembered``).

The list opens each game with a fresh secret link, as the emailed list of ``/home`` does on
other devices. A browser signed in as a player (``browser.current_player``) is shown the
player's seats instead, gathered on the server (``players.seats_of``): the same list on any
device, each seat opened with the player's own link to it.
"""
from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils
from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import clocks, links, matches, players
from ..matches import Match
from ..store.db import write
from . import browser, limits
from .database import get_db

bp = Blueprint("mygames", __name__)


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


def player_entries(db: sqlite_utils.Database, player: players.Player) -> list[Entry]:
    """A signed-in player's seats, in every game of theirs (``players.seats_of``)."""
    return _entries(db, players.seats_of(db, player))


def _entries(db: sqlite_utils.Database, seats: list[tuple[str, int]]) -> list[Entry]:
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
    player = browser.current_player(db)
    entries = player_entries(db, player) if player else _entries(db, browser.remembered())
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
    player = browser.current_player(db)
    if player is not None and players.owns(db, player, game_id, seat):
        token = players.seat_link(db, player, game_id, seat)  # the same link each time
        return redirect(url_for("play.page", role="play", token=token), 303)
    if (game_id, seat) not in browser.remembered():
        abort(404, gettext("This browser has not opened that game."))
    return open_seat(game_id, seat)


@bp.post("/games/forget")
def forget():
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To forget this browser's games, tick the box that confirms it."))
    browser.forget_seats(get_db())
    flash(gettext("This browser no longer remembers your games. Their links still work."))
    return redirect(url_for(".my_games"), 303)
