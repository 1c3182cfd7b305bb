"""Tournaments on the web (``pbem/tournaments.py``): the JSON API under a player key
(docs/api.md, "Tournaments") and the public one, the pages (the list, each tournament's page
with sign-up, the organiser's tools, standings and the cross-table) and each tournament's
Atom feed."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

import sqlite_utils
from feedgen.feed import FeedGenerator
from flask import (Blueprint, Response, abort, current_app, flash, jsonify, redirect,
                   render_template, request, url_for)
from flask_babel import gettext

import engine
from .. import clocks, computer, languages, matches, players, tournaments
from . import browser, limits
from ..events import InvalidRequest
from ..store import utc
from .database import get_db
from ..tournaments import Tournament
from .api import json_body
from .urls import external_url

bp = Blueprint("tournaments", __name__)

RESULTS = {1: "1-0", 0.5: "½-½", 0: "0-1"}  # by the first player's points


def _tournament(tournament_id: str) -> Tournament:
    tournament = tournaments.find(get_db(), tournament_id)
    if tournament is None:
        abort(404, gettext("There is no such tournament."))
    return tournament


def _answer(tournament: Tournament) -> dict[str, str]:
    return {"id": tournament.id,
            "url": external_url(".page", tournament_id=tournament.id),
            "api": external_url(".api", tournament_id=tournament.id)}


# -- requests and answers ------------------------------------------------------------------

def _whole(body: dict[str, Any], name: str, low: int, high: int,
           default: int | None) -> int | None:
    value = body.get(name, default)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdecimal():  # int() reads every such text
        value = int(value)  # from a form
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidRequest("'%(name)s' must be a whole number from %(low)s to %(high)s.",
                             name=name, low=low, high=high)
    return value


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise InvalidRequest("'%(name)s' must be true or false.", name=name)
    return value


def checked(body: dict[str, Any]) -> tournaments.NewTournament:
    """A request for a new tournament, the API's body or the form's, read and checked:
    ``{"name", "game", "options", "clock", "format", "rounds" (swiss; 2 for a double round
    robin), "division_size", "promote" (a league), "min_players", "max_players", "rated",
    "public", "starts_at" (ISO time), "round_days", "adjudication"}``."""
    name = matches.checked_name(body.get("name"), engine.Text("The tournament"))
    try:
        game = engine.get(str(body.get("game")))
    except (engine.UnknownGame, TypeError):
        raise InvalidRequest("'game' must be one of: %(games)s.",
                             games=tuple(engine.GAMES)) from None
    if 2 not in game.player_counts:
        raise InvalidRequest("%(game)s is not a game for two: tournaments pair two players.",
                             game=game.title)
    if not game.tournaments:
        raise InvalidRequest("%(game)s is not played in tournaments.", game=game.title)
    options = body.get("options") or {}
    try:
        options = game.start(2, options, "check").options
        clock = clocks.settings(body.get("clock"))
    except ValueError as error:
        raise InvalidRequest(error.args[0]) from None
    format_ = body.get("format")
    if format_ not in tournaments.FORMATS:
        raise InvalidRequest("'format' must be one of: %(formats)s.",
                             formats=tuple(tournaments.FORMATS))
    if format_ == "swiss":
        rounds = _whole(body, "rounds", 1, tournaments.MOST_ROUNDS, 5)
    elif format_ in ("round-robin", "league"):
        rounds = _whole(body, "rounds", 1, 2, 1)
    else:
        rounds = None
    division_size = promote = None
    if format_ == "league":
        division_size = _whole(body, "division_size", 3, 50, 6) or 6
        promote = _whole(body, "promote", 1, (division_size - 1) // 2, 1)
    largest = tournaments.most_players(format_, division_size)
    least = _whole(body, "min_players", 2, largest, 2) or 2
    most = _whole(body, "max_players", 2, largest, largest) or largest
    if most < least:
        raise InvalidRequest("'max_players' must be at least 'min_players'.")
    starts_at = body.get("starts_at")
    if starts_at is not None:
        try:
            starts_at = utc.iso(utc.parse(starts_at))
        except (TypeError, ValueError):
            raise InvalidRequest("'starts_at' must be a time such as "
                                 "2026-12-01T18:00:00+00:00.") from None
    adjudication = body.get("adjudication", "draw")
    if adjudication not in tournaments.ADJUDICATIONS:
        raise InvalidRequest("'adjudication' must be one of: %(ways)s.",
                             ways=tuple(tournaments.ADJUDICATIONS))
    rated = _flag(body, "rated", False)
    return tournaments.NewTournament(
        name=name, game=game, options=options, clock=clock, format=format_, rounds=rounds,
        division_size=division_size, promote=promote, min_players=least, max_players=most,
        rated=rated, public=_flag(body, "public", True), starts_at=starts_at,
        round_days=_whole(body, "round_days", 1, 365, None), adjudication=adjudication)


def to_json(db: sqlite_utils.Database, tournament: Tournament) -> dict[str, Any]:
    """The public answer of a tournament's ``GET <api>`` (docs/api.md): byes are points
    without a game, so ``rounds`` leaves them out and ``byes`` names them."""
    shown = tournaments.table(db, tournament)
    rounds: list[list[dict[str, Any]]] = [[] for _ in range(tournament.round)]
    byes: list[list[str]] = [[] for _ in range(tournament.round)]
    for game in shown.games:
        if game.game_id is None:
            byes[game.round - 1].append(shown.handle(game.first_id) or "")
        else:
            rounds[game.round - 1].append({
                "game": game.game_id, "outcome": game.outcome,
                "seats": [shown.handle(game.first_id), shown.handle(game.second_id)]})
    return {
        "id": tournament.id, "name": tournament.name, "game": tournament.game.id,
        "format": tournament.format, "status": tournament.status,
        "organiser": tournament.organiser, "rated": tournament.rated,
        "options": tournament.options, "clock": tournament.clock,
        "rounds_planned": tournament.rounds, "min_players": tournament.min_players,
        "max_players": tournament.max_players, "starts_at": tournament.starts_at,
        "round_days": tournament.round_days, "adjudication": tournament.adjudication,
        "round_deadline": tournament.round_deadline,
        "games_due_at": tournament.games_due_at,  # being made by the job process since
        "players": [e.handle for e in shown.entrants],
        "withdrawn": [e.handle for e in shown.entrants if e.withdrawn],
        "rounds": rounds, "byes": byes,
        **({"season": tournament.season, "previous": tournament.previous_id,
            "next": tournaments.next_of(db, tournament),
            "divisions": [[shown.handle(p) for p in division]
                          for division in tournaments.divisions(shown.entrants)]}
           if tournament.format == "league" else {}),
        "standings": [{"handle": shown.handle(s.player), "points": s.points,
                       "tiebreak": s.tiebreak, "played": s.played} for s in shown.standings],
        "winner": shown.winner.handle if shown.winner else None,
    }


# -- the JSON API -------------------------------------------------------------------------

def _keyed(token: str) -> players.Player:
    player = players.by_key(get_db(), token)
    if player is None:
        abort(404, gettext("This key opens no player. Sign in again for the current one."))
    return player


def _json(action: Callable[[], Any], status: int = 200):
    """The answer of an action: its JSON (``{}`` for None), or its error's."""
    answer = action()  # a refusal is answered as JSON (``site.refused``)
    return jsonify(answer if answer is not None else {}), status


@bp.post("/api/player/<token>/tournaments")
@limits.creating
def create_api(token: str):
    organiser = _keyed(token)
    return _json(lambda: _answer(tournaments.create(get_db(), organiser,
                                                    checked(json_body()))), 201)


@bp.route("/api/player/<token>/tournaments/<tournament_id>/entry", methods=["POST", "DELETE"])
@limits.acting
def entry_api(token: str, tournament_id: str):
    """``POST`` enters the key's player (the organiser: ``{"bot": level}`` enters the
    computer); ``DELETE`` withdraws them (the organiser: ``{"handle"}`` removes that
    player)."""
    player = _keyed(token)
    db = get_db()
    entering = request.method == "POST"

    def act() -> None:
        body = json_body()
        if entering and "bot" in body:
            tournaments.enter_computer(db, tournament_id, player, body["bot"])
        elif entering:
            tournaments.enter(db, tournament_id, player)
        elif "handle" in body:
            tournaments.remove(db, tournament_id, player, body["handle"])
        else:
            tournaments.withdraw(db, tournament_id, player.id)
    return _json(act, 201 if entering else 200)


@bp.post("/api/player/<token>/tournaments/<tournament_id>/<action>")
@limits.acting
def organise_api(token: str, tournament_id: str, action: str):
    """The organiser's ``start`` and ``cancel``; a league player's ``opt-out`` of the next
    season."""
    tools = {"start": tournaments.start, "cancel": tournaments.cancel,
             "opt-out": tournaments.opt_out}
    if action not in tools:
        abort(404, gettext("Tournaments take entry, start, cancel and opt-out."))
    player = _keyed(token)
    return _json(lambda: tools[action](get_db(), tournament_id, player))


@bp.get("/api/tournaments/<tournament_id>")
def api(tournament_id: str):
    return jsonify(to_json(get_db(), _tournament(tournament_id)))


@bp.get("/api/tournaments")
def api_list():
    return jsonify(tournaments=[{**_answer(t), "name": t.name, "game": t.game.id,
                                 "format": t.format, "status": t.status}
                                for t in tournaments.listed(get_db())])


# -- pages --------------------------------------------------------------------------------

@bp.get("/tournaments")
def index():
    db = get_db()
    listed = tournaments.listed(db)
    return render_template(
        "tournaments.html", player=browser.current_player(db), games=engine.GAMES,
        formats=tournaments.FORMAT_NAMES, levels=computer.LEVEL_NAMES,
        most_open=tournaments.MOST_OPEN,
        **{status: [t for t in listed if t.status == status]
           for status in ("open", "running", "finished")})


def _signed_in() -> players.Player:
    player = browser.current_player(get_db())
    if player is None:
        abort(403, gettext("Sign in first: tournaments are between players known across games."))
    return player


def _form() -> dict[str, Any]:
    """The new tournament's form as the API's body: empty fields left out."""
    form: dict[str, Any] = {name: value for name, value in request.form.items()
                            if value.strip()}
    form["rated"] = "rated" in form
    clock_days = form.pop("days", None)
    if clock_days:
        form["clock"] = {"mode": "per_move", "days": clock_days,
                         "vacation_days": form.pop("vacation_days", "0")}
    form.pop("vacation_days", None)
    return form


@bp.post("/tournaments")
@limits.creating
def create():
    organiser = _signed_in()
    tournament = tournaments.create(get_db(), organiser, checked(_form()))
    return redirect(url_for(".page", tournament_id=tournament.id), 303)


@bp.get("/tournaments/<tournament_id>")
def page(tournament_id: str):
    db = get_db()
    shown = tournaments.table(db, _tournament(tournament_id))
    t = shown.tournament
    player = browser.current_player(db)
    # (player, opponent) -> [(the game, the player's points or None)]
    games: dict[tuple[int | None, int | None], list[tuple[tournaments.Pairing, float | None]]] = {}
    for game in shown.games:
        if game.game_id is None:
            continue
        for me, other, points in ((game.first_id, game.second_id, game.points),
                                  (game.second_id, game.first_id,
                                   None if game.points is None else 1 - game.points)):
            games.setdefault((me, other), []).append((game, points))
    watched = [game.game_id for game in shown.games if game.game_id]  # each cell's link
    own = _own_games(db, player, shown) if player else []
    return render_template(
        "tournament.html", shown=shown, t=t, player=player, cells=games,
        me=next((e for e in shown.entrants if player and e.player_id == player.id), None),
        organiser=player is not None and player.id == t.organiser_id,
        levels=computer.LEVEL_NAMES, feed=url_for(".feed", tournament_id=tournament_id),
        watch=dict(zip(watched, tournaments.watch_tokens(watched))),
        own_games=own, own_links={o["game"].game_id: o["url"] for o in own},
        next_season=tournaments.next_of(db, t),
        last_season=tournaments.last_season(shown),
        standing_groups=_standing_groups(shown))


def _standing_groups(shown: tournaments.Table) -> list[tuple[int | None, list]]:
    """The standings as the page groups them: a league's division by division (the top
    one first), the others' in one group (its division None)."""
    if shown.tournament.format != "league":
        return [(None, shown.standings)]
    division_of = {e.player_id: e.division or 1 for e in shown.entrants}
    groups: dict[int, list] = {}
    for standing in shown.standings:
        groups.setdefault(division_of.get(standing.player, 1), []).append(standing)
    return sorted(groups.items())


def _own_games(db: Any, player: players.Player,
               shown: tournaments.Table) -> list[dict[str, Any]]:
    """The player's games of the tournament, each with their own link to it (as their
    games page opens it): those being played first, those waiting for them first of all."""
    own = []
    for game in shown.games:
        if game.game_id is None or player.id not in (game.first_id, game.second_id):
            continue
        seat = 0 if game.first_id == player.id else 1
        link = players.seat_link(db, player, game.game_id, seat)
        own.append({
            "game": game, "seat": seat, "url": url_for("play.page", role="play", token=link),
            "opponent": shown.handle(game.second_id if seat == 0 else game.first_id),
            "points": game.points if game.points is None or seat == 0 else 1 - game.points,
            "your_turn": game.points is None
            and matches.load(db, game.game_id).waits_for(seat)})
    return sorted(own, key=lambda o: (o["points"] is not None, not o["your_turn"]))


def _confirmed(why: str) -> None:
    """An action that cannot be undone is sent with its box ticked (``confirm.html``)."""
    if request.form.get("confirm") != "yes":
        abort(400, why)


def _page_action(tournament_id: str, action: Callable[[], None], done: str):
    try:
        action()
    except matches.ActionError as error:
        flash(languages.translated(error.message))
    else:
        flash(done)
    return redirect(url_for(".page", tournament_id=tournament_id), 303)


@bp.post("/tournaments/<tournament_id>/entry")
@limits.acting
def enter(tournament_id: str):
    player = _signed_in()
    return _page_action(tournament_id,
                        lambda: tournaments.enter(get_db(), tournament_id, player),
                        gettext("You are entered."))


@bp.post("/tournaments/<tournament_id>/withdraw")
@limits.acting
def withdraw(tournament_id: str):
    player = _signed_in()
    if _tournament(tournament_id).status == "running":  # before the start, one may re-enter
        _confirmed(gettext("To withdraw, tick the box that confirms it: your unfinished "
                           "games are lost."))
    return _page_action(tournament_id, lambda: tournaments.withdraw(
        get_db(), tournament_id, player.id), gettext("You have withdrawn."))


@bp.post("/tournaments/<tournament_id>/opt-out")
@limits.acting
def opt_out(tournament_id: str):
    player = _signed_in()
    _confirmed(gettext("To leave the league, tick the box that confirms it."))
    return _page_action(tournament_id, lambda: tournaments.opt_out(
        get_db(), tournament_id, player),
        gettext("You leave the league at the end of this season."))


@bp.post("/tournaments/<tournament_id>/organise")
@limits.acting
def organise(tournament_id: str):
    """The organiser's tools: start, cancel, remove a player, enter the computer."""
    player = _signed_in()
    db = get_db()
    tools = {
        "start": (lambda: tournaments.start(db, tournament_id, player), gettext("Started.")),
        "cancel": (lambda: tournaments.cancel(db, tournament_id, player), gettext("Cancelled.")),
        "remove": (lambda: tournaments.remove(db, tournament_id, player,
                                              request.form.get("handle", "")), gettext("Removed.")),
        "computer": (lambda: tournaments.enter_computer(db, tournament_id, player,
                                                        request.form.get("level")),
                     gettext("The computer is entered.")),
    }
    tool = tools.get(request.form.get("tool", ""))
    if tool is None:
        abort(400, gettext("Unknown tool."))
    if request.form["tool"] != "computer":  # the others cannot be undone
        _confirmed(gettext("Tick the box that confirms it: this cannot be undone."))
    return _page_action(tournament_id, *tool)


# -- the Atom feed ------------------------------------------------------------------------

@bp.get("/tournaments/<tournament_id>/feed")
def feed(tournament_id: str):
    """The tournament's news: each round's start, each result, the end."""
    shown = tournaments.table(get_db(), _tournament(tournament_id))
    t = shown.tournament
    domain = current_app.config["MAIL_DOMAIN"]
    generator = FeedGenerator()
    generator.id(f"tag:{domain},2026:tournament/{t.id}")
    generator.title(gettext("%(tournament)s (%(game)s %(format)s)", tournament=t.name,
                             game=languages.translated(t.game.title),
                             format=languages.translated(t.format_name)))
    generator.author({"name": t.organiser})
    generator.link(href=external_url(".feed", tournament_id=t.id), rel="self")
    generator.link(href=external_url(".page", tournament_id=t.id), rel="alternate")
    generator.updated(datetime.fromisoformat(t.updated_at))
    starts: dict[int, str] = {}  # each round's first game's creation
    for game in shown.games:
        if game.created_at:
            starts[game.round] = min(starts.get(game.round, game.created_at), game.created_at)
    news = [(when, f"round/{number}", gettext("Round %(number)s started", number=number))
            for number, when in starts.items()]  # (when, id, title)
    news += [(game.ended_at or t.updated_at, f"game/{game.game_id}",
              gettext("Round %(number)s: %(first)s vs %(second)s %(result)s",
                      number=game.round, first=shown.handle(game.first_id),
                      second=shown.handle(game.second_id), result=RESULTS[game.points]))
             for game in shown.games if game.game_id and game.points is not None]
    if t.status in ("finished", "cancelled"):
        news.append((t.updated_at, "end",
                     gettext("Winner: %(handle)s", handle=shown.winner.handle) if shown.winner
                     else gettext("The tournament was cancelled")))
    for when, key, title in sorted(news):
        entry = generator.add_entry(order="prepend")  # newest first
        entry.id(f"tag:{domain},2026:tournament/{t.id}/{key}")
        entry.title(title)
        entry.updated(datetime.fromisoformat(when))
        entry.content(title)
    return Response(generator.atom_str(pretty=True), mimetype="application/atom+xml")

