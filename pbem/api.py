"""The JSON API (shared/CONTRACT.md part 2), plus the same answers for spectators."""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, jsonify, request
from werkzeug.exceptions import HTTPException

from . import clocks, limits, links, matches
from .db import get_db
from .matches import Match
from .play import open_link

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(HTTPException)
def _json_error(error: HTTPException):
    return jsonify(error=error.description), error.code


def _error(status: int, message: str):
    return jsonify(error=message), status


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise matches.InvalidRequest("The request body must be a JSON object.")
    try:  # JSON may escape lone surrogates, which no text column or page can hold
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        raise matches.InvalidRequest("The request body holds text that is not valid "
                                     "Unicode.") from None
    return body


def game_json(match: Match, seat: int | None) -> dict[str, Any]:
    state = match.current
    outcome = state.outcome
    return {
        "game": match.game.id,
        "seat": seat,
        "ply": match.ply,
        "to_move": list(match.to_move),
        "legal_moves": match.game.legal_moves(state, seat)
        if seat is not None and not match.waiting else [],
        "view": match.game.view(state, seat),
        "outcome": outcome.to_json() if outcome else None,
        "players": [{"seat": s.seat, "side": match.seat_name(s.seat), "name": s.name}
                    for s in match.seats],
        "draw_offer": match.draw_offer,
        "time_control": match.clock,        # null: no clock (see pbem/clocks.py)
        "clocks": clocks.to_json(match),    # each seat's remaining time; null: no clock
        # the seats nobody has taken yet: nobody moves until they are
        **({"open_seats": list(match.open_seats)} if match.waiting else {}),
    }


@bp.post("/games")
@limits.creating
def create_game():
    try:
        body = _body()
        created = matches.create(get_db(), body.get("game"), body.get("players"),
                                 body.get("options"), clock=body.get("clock"),
                                 public=body.get("public", False))
    except matches.ActionError as error:
        return _error(error.status, error.message)
    match = created.match
    seats = [{"seat": s.seat, "name": s.name,
              "url": links.external_url("play.page", role="play", token=token),
              "api": links.external_url("api.game", role="play", token=token)}
             if token else
             {"seat": s.seat, "name": None, "join": links.external_url("lobby.join", token=join)}
             for s, token, join in zip(match.seats, created.tokens, created.joins)]
    return jsonify(id=match.id, seats=seats,
                   spectator=links.external_url("play.page", role="watch",
                                                token=created.spectator_token)), 201


@bp.get("/<any(play, watch):role>/<token>")
def game(role: str, token: str):
    match, seat = open_link(token, role)
    return jsonify(game_json(match, seat))


def _act(token: str, kind: str, move: str | None = None, ply_required: bool = True):
    match, seat = open_link(token, "play")
    try:
        body = _body()
        ply = body.get("ply")
        if ply is None and not ply_required:
            seen = None
        elif isinstance(ply, bool) or not isinstance(ply, int):
            raise matches.InvalidRequest("'ply' must be the ply number you saw (an integer).")
        else:
            seen = ply
        if kind == "move":
            move = body.get("move")
            if not isinstance(move, str):
                raise matches.InvalidRequest("'move' must be a move in the game's notation.")
        after = matches.act(get_db(), match.id, seat, kind, move, seen)
    except matches.ActionError as error:
        return _error(error.status, error.message)
    return jsonify(game_json(after, seat))


@bp.post("/play/<token>/moves")
@limits.acting
def moves(token: str):
    return _act(token, "move")


@bp.post("/play/<token>/resign")
@limits.acting
def resign(token: str):
    return _act(token, "resign", ply_required=False)


@bp.post("/play/<token>/draw")
@limits.acting
def draw(token: str):
    kinds = {"offer": "draw_offer", "accept": "draw_accept", "decline": "draw_decline"}
    body = request.get_json(silent=True)
    answer = body.get("answer") if isinstance(body, dict) else None
    if not isinstance(answer, str) or answer not in kinds:
        return _error(400, "'answer' must be offer, accept or decline.")
    return _act(token, kinds[answer], ply_required=False)


@bp.post("/play/<token>/withdraw")
def withdraw(token: str):
    """End a game that waits for players (its creator only): nobody plays it."""
    return _act(token, "withdraw", ply_required=False)


@bp.post("/play/<token>/vacation")
@limits.acting
def vacation(token: str):
    """Pause the player's clock for ``{"days": N}`` days, from now (or from the end of a
    vacation already running); 422 beyond the year's allowance."""
    match, seat = open_link(token, "play")
    try:
        days = _body().get("days")
        if isinstance(days, bool) or not isinstance(days, int):
            raise matches.InvalidRequest("'days' must be a whole number of days.")
        after = matches.act(get_db(), match.id, seat, "vacation", str(days))
    except matches.ActionError as error:
        return _error(error.status, error.message)
    return jsonify(game_json(after, seat))
