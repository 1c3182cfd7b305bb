"""The lobby's pages and API, and the join links' (``pbem/lobby.py`` finds and seats).

``/join/<token>`` shows a form for a name and an optional email address, and a POST takes
the seat, as a form (then on to the new player's game page) or as JSON (the API: ``201``
and the seat's ``url`` and ``api``). The lobby (``/lobby``, ``GET /api/challenges``) lists
the public challenges' open seats, each with a join address of its own,
``/lobby/<game id>/<seat>``, that needs no secret.
"""
from __future__ import annotations

from typing import Any

import engine
import sqlite_utils
from flask import (Blueprint, abort, flash, jsonify, redirect, render_template, request,
                   url_for)
from flask_babel import gettext

from .. import (blocks, clocks, fairplay, languages, links, lobby, matches, players, ratings,
               tournaments)
from ..events import Joiner
from ..matches import Match
from ..store import utc
from . import browser, limits
from .database import get_db
from .urls import external_url

bp = Blueprint("lobby", __name__)


def challenge_json(match: Match, seat: int) -> dict[str, Any]:
    return {
        "id": match.id, "game": match.game.id, "title": match.game.title, "seat": seat,
        "side": match.open_seat_name(seat),
        "join": external_url("lobby.join_challenge", game_id=match.id, seat=seat),
        "options": match.options,
        "players": _players(match),  # who is waiting
        "created_at": match.created_at,
        "expires_at": utc.iso(match.expires_at),
        "time_control": match.clock.to_json() if match.clock else None,
        "rated": match.rated,
        **({"rating_range": dict(zip(("min", "max"), lobby.rating_range(get_db(), match.id)))}
           if match.rated else {}),
    }


@bp.get("/api/challenges")
def challenges_api():
    """The lobby's challenges; with a player key in ``key`` (or signed in), as that player's
    lobby shows them (those of players they block, or who block them, left out)."""
    db = get_db()
    key = request.args.get("key")
    viewer = players.by_key(db, key) if key else browser.current_player(db)
    return jsonify(challenges=[challenge_json(match, seat) for match, seat
                               in lobby.challenges(db, lobby.Filters.of(request.args), viewer)])


@bp.get("/lobby", endpoint="lobby")  # (the core module is ``lobby``)
def lobby_page():
    """The challenges; for a signed-in player, their own first (not to be joined), and
    each rated seat they may not take saying why."""
    db = get_db()
    now = utc.now()
    filters = lobby.Filters.of(request.args)
    player = browser.current_player(db)
    mine = _own_challenges(db, player) if player else {}
    shown = [(match, seat) for match, seat in lobby.challenges(db, filters, player)
             if match.id not in mine]
    records = _records(db, [match for match, _seat in shown])
    entries = [{**_facts(match, seat), "match": match,
                "since": clocks.time_text(utc.parse(match.created_at)),
                "waited": clocks.duration_text(
                    max((now - utc.parse(match.created_at)).total_seconds(), 1)),
                "join": url_for(".join_challenge", game_id=match.id, seat=seat),
                "refusal": player and match.rated and lobby.rated_seat_refusal(db, match,
                                                                               player),
                "records": records[match.id]}
               for match, seat in shown]
    return render_template("lobby.html", entries=entries, filters=filters,
                           mine=list(mine.values()), games=engine.GAMES.values(), player=player,
                           tournaments=tournaments.listed(db, ("open",), most=10))


def _records(db: sqlite_utils.Database, shown: list[Match]
             ) -> dict[str, list[tuple[str, fairplay.Record]]]:
    """Each challenge's waiting players' records (fair play), of those who have an account,
    by game id: every challenger's looked up at once."""
    seated = {match.id: {seat: player for seat, player in ratings.seat_players(
                  db, match.id).items() if not match.seats[seat].bot} for match in shown}
    found = fairplay.records(db, [player for seats in seated.values()
                                  for player in seats.values()])
    return {match.id: [(match.seats[seat].name or "", found[player])
                       for seat, player in seated[match.id].items() if player in found]
            for match in shown}


def _own_challenges(db: sqlite_utils.Database, player: players.Player) -> dict[str, Any]:
    """The games of ``player`` that wait for players and can still be joined, by id: what
    the lobby shows of each, and the link to the player's seat."""
    now = utc.now()
    mine = {}
    for game_id, seat in players.seats_of(db, player):
        match = matches.find(db, game_id)
        if match is None or not match.waiting or now >= match.expires_at or game_id in mine:
            continue
        link = players.seat_link(db, player, game_id, seat)
        mine[game_id] = {**_facts(match, match.open_seats[0]), "match": match,
                         "open": [match.open_seat_name(s) for s in match.open_seats],
                         "expires": clocks.time_text(match.expires_at),
                         "url": url_for("play.page", role="play", token=link)}
    return mine


def _facts(match: Match, seat: int) -> dict[str, Any]:
    """What the lobby and a join page say about an open seat."""
    return {"side": match.open_seat_name(seat), "options": lobby.options_text(match, seat),
            "time_control": clocks.describe(match.clock),
            "waiting": [label for s, label in zip(match.seats,
                                                  ratings.seat_labels(get_db(), match))
                        if not s.open],
            "rating_range": match.rated and ratings.range_text(
                *lobby.rating_range(get_db(), match.id))}


def _players(match: Match) -> list[str]:
    """The names of the players who took their seats, waiting for the others."""
    return [s.name for s in match.seats if s.name is not None]  # (an open seat's is None)


@bp.route("/join/<token>", methods=["GET", "POST"])
@limits.joining
def join(token: str):
    """An open seat's join link: a form to take the seat, or the API's ``POST <join>``."""
    access = links.resolve(get_db(), token, table=links.INVITATIONS)
    if access is None or access.seat is None:  # (a join link opens a seat)
        abort(404, gettext("This join link does not open any game. Check that you copied "
                           "all of it."))
    return _take_seat(access.game_id, access.seat, url_for(".join", token=token))


@bp.route("/lobby/<game_id>/<int:seat>", methods=["GET", "POST"])
@limits.joining
def join_challenge(game_id: str, seat: int):
    """A seat of a public challenge: the same as its join link, for anyone."""
    rows = list(get_db().query("SELECT 1 FROM games WHERE id = ? AND public = 1", [game_id]))
    match = matches.find(get_db(), game_id) if rows else None
    if match is None or not 0 <= seat < match.players:
        abort(404, gettext("There is no such challenge in the lobby."))
    return _take_seat(game_id, seat, url_for(".join_challenge", game_id=game_id, seat=seat))


def _take_seat(game_id: str, seat: int, here: str):
    db = get_db()
    if request.method == "GET":
        return _join_page(matches.load(db, game_id), seat, here)
    wants_json = request.is_json
    form = request.get_json(silent=True) if wants_json else request.form
    player = browser.current_player(db)  # a seat taken signed in is the player's
    try:
        if not isinstance(form, dict):
            raise matches.InvalidRequest("The request body must be a JSON object with "
                                         "'name' and, if you like, 'email' (or 'key').")
        name: Any = form.get("name")  # as sent: the join's check refuses all but a name
        joiner = Joiner(name, form.get("email"))
        # the seat's emails, its start email first, in the language of the page it was
        # taken from, or of the player whose key took it
        spoken = languages.current()
        if wants_json and "key" in form:  # the seat is the key's player's, by handle
            player = players.by_key(db, form["key"]) if isinstance(form["key"], str) else None
            if player is None:
                raise matches.InvalidRequest("'key' is not a player key.")
            joiner, spoken = Joiner(player.handle, player.email), player.language
        after, token = lobby.take_seat(db, game_id, seat, player, joiner, spoken)
    except matches.ActionError as error:
        if wants_json:
            raise  # answered as JSON, as every refusal of the API (``site.refused``)
        return _join_page(matches.load(db, game_id), seat, here, form=form,
                          error=error.message, status=error.status)
    if wants_json:
        return jsonify(seat=seat, url=external_url("play.page", role="play", token=token),
                       api=external_url("api.game", role="play", token=token)), 201
    flash(gettext("You have joined the game: it starts now.") if not after.waiting else
          gettext("You have joined the game. It starts when every seat is taken."))
    return redirect(url_for("play.page", role="play", token=token), 303)


def _join_page(match: Match, seat: int, here: str, *, form: Any = None,
               error: str | None = None, status: int = 200):
    """The page of a join link: the game's facts and, while the seat is open and the
    player signed in is not blocked by a player of the game, the form."""
    player = browser.current_player(get_db())  # signed in: the seat will be theirs
    taken = match.seat_refusal(seat)
    blocked = None if taken else blocks.refusal(get_db(), match.id, player)
    refusal = taken or blocked
    return render_template(
        "join.html", match=match, here=here, error=error or refusal, player=player,
        form=form or {}, taken=refusal is not None,
        **_facts(match, seat)), status if error or not refusal else 409 if taken else 422
