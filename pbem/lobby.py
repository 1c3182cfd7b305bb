"""Finding opponents: the join links of open seats and the lobby of public challenges.

A game may be created with seats left open (``matches.create``). Each open seat has a join
link, a secret like the play links (only its hash is stored, in ``invitations``):
``/join/<token>`` shows a form for a name and an optional email address, and a POST takes
the seat, as a form (then on to the new player's game page) or as JSON (the API: ``201``
and the seat's ``url`` and ``api``). A game made public lists its open seats in the lobby
(``/lobby``, ``GET /api/challenges``), where each has a join address of its own,
``/lobby/<game id>/<seat>``, that needs no secret: anyone may take a public seat.

Nothing here shows more of a game than its options: a seat is named as on the form that
creates a game (``Match.open_seat_name``), since Magnetic Field deals its colours by chance,
from the secret seed.
"""
from __future__ import annotations

from typing import Any

from flask import (Blueprint, abort, flash, jsonify, redirect, render_template, request,
                   url_for)
from flask_babel import gettext

from . import clocks, limits, links, matches
from .store.db import get_db
from .matches import Match

bp = Blueprint("lobby", __name__)


def options_text(match: Match, reader: int) -> list[str]:
    """The game's options in words as the player of seat ``reader`` reads them, the form's
    own words (e.g. ["Starting position: Crown"])."""
    return [f"{option.label}: "
            f"{option.choice_label(match.options.get(option.name, option.default), reader)}"
            for option in match.game.options]


def challenges() -> list[tuple[Match, int]]:
    """Every open seat of the public games that wait for players, oldest first."""
    db = get_db()
    rows = db.query("SELECT id FROM games WHERE public = 1 AND status = 'waiting' "
                    "ORDER BY created_at, rowid")
    return [(match, seat) for match in (matches.load(db, row["id"]) for row in rows)
            for seat in match.open_seats]


def challenge_json(match: Match, seat: int) -> dict[str, Any]:
    return {
        "id": match.id, "game": match.game.id, "title": match.game.title, "seat": seat,
        "side": match.open_seat_name(seat),
        "join": links.external_url("lobby.join_challenge", game_id=match.id, seat=seat),
        "options": match.options,
        "players": _players(match),  # who is waiting
        "created_at": match.created_at,
        "time_control": match.clock,
    }


@bp.get("/api/challenges")
def challenges_api():
    return jsonify(challenges=[challenge_json(match, seat) for match, seat in challenges()])


@bp.get("/lobby")
def lobby():
    now = clocks.utc_now()
    entries = [{**_facts(match, seat), "match": match,
                "since": clocks.time_text(clocks.parse(match.created_at)),
                "waited": clocks.duration_text(
                    max((now - clocks.parse(match.created_at)).total_seconds(), 1)),
                "join": url_for(".join_challenge", game_id=match.id, seat=seat)}
               for match, seat in challenges()]
    return render_template("lobby.html", entries=entries)


def _facts(match: Match, seat: int) -> dict[str, Any]:
    """What the lobby and a join page say about an open seat."""
    return {"side": match.open_seat_name(seat), "options": options_text(match, seat),
            "time_control": clocks.describe(match.clock),
            "waiting": _players(match)}


def _players(match: Match) -> list[str]:
    """The names of the players who took their seats, waiting for the others."""
    return [s.name for s in match.seats if not s.open]


@bp.route("/join/<token>", methods=["GET", "POST"])
@limits.joining
def join(token: str):
    """An open seat's join link: a form to take the seat, or the API's ``POST <join>``."""
    access = links.resolve(get_db(), token, table=links.INVITATIONS)
    if access is None:
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
    try:
        if not isinstance(form, dict):
            raise matches.InvalidRequest("The request body must be a JSON object with "
                                         "'name' and, if you like, 'email'.")
        after, token = matches.join(db, game_id, seat, form.get("name"), form.get("email"))
    except matches.ActionError as error:
        if wants_json:
            return jsonify(error=error.message), error.status
        return _join_page(matches.load(db, game_id), seat, here, form=form,
                          error=error.message, status=error.status)
    play = links.external_url("play.page", role="play", token=token)
    if wants_json:
        return jsonify(seat=seat, url=play,
                       api=links.external_url("api.game", role="play", token=token)), 201
    flash(gettext("You have joined the game: it starts now.") if not after.waiting else
          gettext("You have joined the game. It starts when every seat is taken."))
    return redirect(url_for("play.page", role="play", token=token), 303)


def _join_page(match: Match, seat: int, here: str, *, form: Any = None,
               error: str | None = None, status: int = 200):
    """The page of a join link: the game's facts and, while the seat is open, the form."""
    refusal = matches.seat_refusal(match, seat)
    return render_template(
        "join.html", match=match, here=here, form=form or {}, error=error or refusal,
        taken=refusal is not None, **_facts(match, seat)), status if error or not refusal else 409
