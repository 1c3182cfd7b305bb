"""The JSON API (docs/api.md), plus the same answers for spectators. A refusal a view
lets out (``errors.ActionError``) is answered as JSON, ``{"error"}`` with its status and
headers, by the app's handler of refusals (``site.refused``)."""
from __future__ import annotations

import json
from typing import Any

import engine
from flask import Blueprint, current_app, jsonify, request
from flask_limiter.util import get_remote_address
from werkzeug.exceptions import HTTPException

from .. import (analysis, blocks, botaccounts, clocks, commands, commitment, computer,
               conditional, creation, events, fairplay, invites, matches, players, ratings, talk)
from . import feeds, limits, locale, records
from ..mail import bounces, preferences, push, webhooks
from ..store.db import write
from .database import get_db
from ..matches import Match
from .site import described
from .play import open_link, open_seat, record
from .urls import external_url

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(HTTPException)
def _json_error(error: HTTPException):
    return locale.refusal(error.code, described(error))


def json_body() -> dict[str, Any]:
    """The request's JSON object; an empty body reads as ``{}`` (an action that needs no
    parameters, /resign or /rematch, may send none)."""
    if not request.get_data():
        return {}
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
    return {
        "game": match.game.id,
        "seat": seat,
        "rated": match.rated,
        "ply": match.ply,
        # grows with every event the seat may know of, takebacks too: sent back with a
        # move, it is stale once anything changed (a ply may come back after a takeback)
        "version": match.known_events(seat),
        "to_move": list(match.to_move),
        "legal_moves": match.game.legal_moves(state, seat)
        if seat is not None and not match.waiting else [],
        "view": match.game.view(state, seat),
        "outcome": match.outcome_json(),    # its reason names the players
        "players": [{"seat": s.seat, "side": match.seat_name(s.seat), "name": s.name,
                     "bot": s.bot} for s in match.seats],  # bot: a computer's level, or null
        "draw_offer": match.draw_offer,
        "takeback_offer": match.takeback_offer,
        # team games: proposals to resign, the viewer's own team's alone while it runs
        "resign_offers": match.resign_offers_known_to(seat),
        # null: no clock (see pbem/clocks.py)
        "time_control": match.clock.to_json() if match.clock else None,
        "clocks": clocks.to_json(match),    # each seat's remaining time; null: no clock
        # the caller's own conditional lines, where the game has them
        **({"conditional": conditional.lines_of(get_db(), match.id, seat)}
           if seat is not None and conditional.supported(match.game, match.players) else {}),
        # spectators: only once the game is over; a player: not of those they block or muted
        "chat": talk.chat_json(match, seat, blocks.unread_seats(get_db(), match, seat)),
        "rematch": {"id": match.rematch_id} if match.rematch_id else None,
        "rematch_asked": list(match.rematch_asked),
        # the seats nobody has taken yet: nobody moves until they are
        **({"open_seats": list(match.open_seats)} if match.waiting else {}),
        # a hidden setup's commitment, and its seed once the game is over
        **commitment.published(match),
        "email_status": email_status(match, seat),
    }


def email_status(match: Match, seat: int | None) -> str | None:
    """Whether email reaches the seat's own address: "ok", "bouncing" (``bounces``: none is
    sent to it), "unsubscribed" (the seat chose no turn emails); None: no address (or a
    spectator, who has none)."""
    email = match.seats[seat].email if seat is not None else None
    if seat is None or not email:
        return None
    if bounces.status(get_db(), email) is not None:
        return "bouncing"
    return "unsubscribed" if preferences.preference(get_db(), match.id, seat) == "none" else "ok"


def _between_computers() -> bool:
    """Whether the request asks for a game whose every seat is a computer's."""
    body = request.get_json(silent=True)
    players = body.get("players") if isinstance(body, dict) else None
    return isinstance(players, list) and bool(players) and all(
        isinstance(player, dict) and "bot" in player for player in players)


def _players_by_key(db, entries: Any) -> tuple[Any, dict[int, int]]:
    """The players' entries of a new game with each ``{"key"}`` made that player's (their
    handle, proven address and language, unless the entry names one), and those players'
    ids by seat."""
    if not isinstance(entries, list):
        return entries, {}
    claimed, resolved = {}, []
    for number, entry in enumerate(entries):
        if isinstance(entry, dict) and "key" in entry:
            player = players.by_key(db, entry["key"]) if isinstance(entry["key"], str) else None
            if player is None:
                raise matches.InvalidRequest("Player %(number)s: 'key' is not a player key.",
                                             number=number + 1)
            claimed[number] = player.id
            entry = {"name": player.handle, "email": player.email,
                     "language": entry.get("language", player.language)}
        resolved.append(entry)
    return resolved, claimed


@bp.post("/games")
@limits.creating
@limits.between_computers(_between_computers)
def create_game():
    db = get_db()
    body = json_body()
    with write(db):  # a client's running games counted with its new one
        client = None
        if _between_computers():
            client = computer.client_key(get_remote_address(),
                                         str(current_app.config["SECRET_KEY"]))
            computer.check_running(db, client, current_app.config["COMPUTER_GAMES_RUNNING"])
        entries, claimed = _players_by_key(db, body.get("players"))
        fairplay.refuse_over_room(db, claimed.values())
        if body.get("rated") is True and (
                refusal := botaccounts.rated_refusal(db, claimed.values())):
            raise matches.Refused(refusal)
        entries, offered = botaccounts.offers(db, entries, body.get("game"),
                                              body.get("clock"), body.get("rated", False))
        created = creation.create(db, body.get("game"), entries,
                                 body.get("options"), clock=body.get("clock"),
                                 public=body.get("public", False), client=client,
                                 rated=body.get("rated", False),
                                 rating_range=body.get("rating_range"), claimed=claimed,
                                 offered=offered)
    match = created.match
    held_back = invites.held_back(get_db(), match.id)
    offered_to = {seat: bot.handle for seat, player_id in offered.items()
                  if (bot := players.find(get_db(), player_id)) is not None}
    seats = [{"seat": s.seat, "name": s.name, "bot": s.bot} if s.bot else
             {"seat": s.seat, "name": s.name,
              "url": external_url("play.page", role="play", token=token),
              "api": external_url("api.game", role="play", token=token),
              # why no email went to this player (their address had too many invitations)
              **({"not_emailed": invites.HELD_BACK} if s.seat in held_back else {})}
             if token else
             {"seat": s.seat, "name": None, "join": external_url("lobby.join", token=join),
              # a bot's seat: it is told (a challenge event), and only it may take the seat
              **({"offered_to": offered_to[s.seat]} if s.seat in offered_to else {})}
             for s, token, join in zip(match.seats, created.tokens, created.joins)]
    return jsonify(id=match.id, seats=seats,
                   spectator=external_url("play.page", role="watch",
                                          token=created.spectator_token)), 201


@bp.get("/ratings/<game_id>")
def leaderboard(game_id: str):
    """A game's leaderboard (``site.leaderboard``) for scripts."""
    try:
        game = engine.get(game_id)
    except engine.UnknownGame as error:
        return locale.refusal(404, error.args[0])
    return jsonify(players=[{"handle": standing.handle, **standing.to_json()}
                            for standing in ratings.leaderboard(get_db(), game.id)])


@bp.get("/<any(play, watch):role>/<token>")
def game(role: str, token: str):
    match, seat = open_link(token, role)
    return jsonify(game_json(match, seat))


def _command(route: str, answer: str | None = None,
             payload: events.Payload = None) -> events.Command:
    """The command an API request asks for (``events.Words.api``)."""
    return events.Command(events.kinds_named("api", (route, answer)), payload)


def _seen(body: dict[str, Any], required: bool) -> tuple[int | None, int | None]:
    """The ply and the version the caller saw (its body's ``ply``, ``version``, either or
    both), one of which a move needs."""
    ply, version = body.get("ply"), body.get("version")

    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)
    if (ply is not None or required and version is None) and not whole(ply):
        raise matches.InvalidRequest("'ply' must be the ply number you saw (an integer).")
    if version is not None and not whole(version):
        raise matches.InvalidRequest("'version' must be the game's version you saw (an "
                                     "integer).")
    return ply, version


def _act(token: str, route: str, answer: str | None = None):
    """Submit the request's command; the game answer. The same move sent again from the
    ply it was played at is stale, as any other (409, as a ``ply`` or a ``version`` not the
    current one is: a client learns the game moved on), and changes nothing."""
    access = open_seat(token, "play")
    body = json_body()
    (ply, version), payload = _seen(body, required=route == "moves"), None
    if route == "moves":
        payload = body.get("move")
        if not isinstance(payload, str):
            raise matches.InvalidRequest("'move' must be a move in the game's notation.")
        payload = events.Move(payload)
    submitted = commands.submit(get_db(), access.game_id, access.seat,
                                _command(route, answer, payload), ply,
                                seen_version=version, strict=True)
    return jsonify(game_json(submitted.match, access.seat))


@bp.post("/play/<token>/moves")
@limits.acting
def moves(token: str):
    return _act(token, "moves")


@bp.post("/play/<token>/resign")
@limits.acting
def resign(token: str):
    """Resign; in a team game, propose that the team resign, or confirm a partner's
    proposal. ``{"answer": "decline"}`` declines a partner's proposal."""
    body = request.get_json(silent=True)
    answer = body.get("answer") if isinstance(body, dict) else None
    if answer is not None and answer != "decline":
        return locale.refusal(400, engine.Text(
            "'answer' may only be decline (to decline a partner's proposal to resign); leave "
            "it out to resign."))
    return _act(token, "resign", answer)


@bp.post("/play/<token>/draw")
@limits.acting
def draw(token: str):
    body = request.get_json(silent=True)
    answer = body.get("answer") if isinstance(body, dict) else None
    if not isinstance(answer, str) or not events.kinds_named("api", ("draw", answer)):
        return locale.refusal(400, engine.Text("'answer' must be offer, accept or decline."))
    return _act(token, "draw", answer)


@bp.post("/play/<token>/takeback")
@limits.acting
def takeback(token: str):
    """Ask to take back one's last move (no body, or no ``answer``): 202; the opponent's
    ``{"answer": "accept" | "decline"}``: 200. Both with the game answer."""
    access = open_seat(token, "play")
    answer = json_body().get("answer")
    if answer is not None and answer not in ("accept", "decline"):
        raise matches.InvalidRequest("'answer' must be accept or decline (leave it out to "
                                     "ask to take back your last move).")
    submitted = commands.submit(get_db(), access.game_id, access.seat,
                                _command("takeback", answer), None)
    return jsonify(game_json(submitted.match, access.seat)), 202 if answer is None else 200


@bp.post("/play/<token>/withdraw")
def withdraw(token: str):
    """End a game that waits for players (its creator only): nobody plays it."""
    return _act(token, "withdraw")


@bp.post("/play/<token>/vacation")
@limits.acting
def vacation(token: str):
    """Pause the player's clock for ``{"days": N}`` days, from now (or from the end of a
    vacation already running); 422 beyond the year's allowance."""
    access = open_seat(token, "play")
    days = json_body().get("days")
    if isinstance(days, bool) or not isinstance(days, int):
        raise matches.InvalidRequest("'days' must be a whole number of days.")
    after = commands.submit(get_db(), access.game_id, access.seat,
                            _command("vacation", payload=events.Days(days))).match
    return jsonify(game_json(after, access.seat))


@bp.route("/play/<token>/email", methods=["GET", "PUT"])
@limits.acting
def email_settings(token: str):
    """``{"emails": "each" | "digest" | "once" | "none", "deadline_reminders": [hours, ...]
    | null}``: the seat's choice of emails, and the hours before its deadline at which it
    is reminded (null: the one warning). A PUT sets what it names of them, or nothing."""
    match, seat = open_link(token, "play")
    db = get_db()
    if request.method == "PUT":
        try:
            body = json_body()
            emails = body.get("emails", preferences.preference(db, match.id, seat))
            if emails not in preferences.PREFERENCES:
                raise matches.InvalidRequest("'emails' is one of %(choices)s.",
                                             choices=", ".join(preferences.PREFERENCES))
            hours = body.get("deadline_reminders", ...)
            if hours is not ... and hours is not None and not (
                    isinstance(hours, list) and all(
                        type(h) is int and h in clocks.DEADLINE_REMINDERS for h in hours)):
                raise matches.InvalidRequest(
                    "'deadline_reminders' is null or a list of hours among %(hours)s.",
                    hours=", ".join(map(str, clocks.DEADLINE_REMINDERS)))
            with write(db):
                preferences.set_preference(db, match.id, seat, emails)
                if hours is not ...:
                    preferences.set_deadline_reminders(db, match.id, seat, hours)
        except matches.ActionError as error:
            return locale.refusal(error.status, error.message)
    reminders = preferences.deadline_reminders(db, match.id, seat)
    return jsonify({"emails": preferences.preference(db, match.id, seat),
                    "deadline_reminders": None if reminders is None else list(reminders)})


@bp.put("/play/<token>/webhook")
@limits.acting  # it looks the host up in the DNS
def set_webhook(token: str):
    """``{"url": "https://..."}`` (or null) → ``{"webhook": url}``: where this seat's news
    is posted as well as emailed (``pbem/mail/webhooks.py``)."""
    match, seat = open_link(token, "play")
    body = json_body()
    with write(get_db()):
        url = webhooks.set_url(get_db(), match.id, seat, body.get("url"))
    return jsonify({"webhook": url})


@bp.get("/push")
def push_key():
    """This server's VAPID public key, which browsers subscribe with (``pbem/mail/push.py``)."""
    return jsonify({"public_key": push.public_key(current_app.config["VAPID_PRIVATE_KEY"])})


@bp.route("/play/<token>/push", methods=["PUT", "DELETE"])
@limits.acting  # an endpoint is looked up in the DNS
def seat_push(token: str):
    """PUT a browser's PushSubscription → 201: this device is told of the seat's news;
    DELETE ``{"endpoint"}`` → 200: no longer (also if it was not)."""
    access = open_seat(token, "play")
    return _push_subscription(push.Owner(game_id=access.game_id, seat=access.seat))


@bp.route("/player/<token>/push", methods=["PUT", "DELETE"])
@limits.acting
def player_push(token: str):
    """The same for a player (their key): the device is told of all their seats' news."""
    player = players.by_key(get_db(), token)
    if player is None:
        return locale.refusal(404, engine.Text("This key opens no player. Sign in again for "
                                               "the current one."))
    return _push_subscription(push.Owner(player_id=player.id, generation=player.generation))


def _push_subscription(owner: push.Owner):
    """A device is refused while the most devices there may be are told (409, until one is
    switched off)."""
    body = json_body()
    if request.method == "PUT":
        subscription = push.checked(body, current_app.config["PUSH_ALLOW_PRIVATE"])
        with write(get_db()):
            push.subscribe(get_db(), owner, subscription)
        return jsonify({"endpoint": subscription[0]}), 201
    with write(get_db()):  # a device that was not subscribed is not, as asked
        push.unsubscribe(get_db(), owner, str(body.get("endpoint")))
    return jsonify({})


@bp.post("/play/<token>/feed")
@limits.acting
def new_feed(token: str):
    """A new Atom feed link of this seat's game → 201 ``{"feed": url}`` (``pbem/web/feeds.py``)."""
    match, seat = open_link(token, "play")
    with write(get_db()):
        feed = feeds.mint(get_db(), match.id, seat)
    return jsonify({"feed": feeds.url(feed)}), 201


@bp.put("/play/<token>/conditional")
@limits.acting
def set_conditional(token: str):
    """``{"lines": [[their_move, my_reply, ...], ...]}`` replaces the caller's conditional
    lines (``pbem/conditional.py``) → the game answer; an illegal line → 422, nothing kept."""
    match, seat = open_link(token, "play")
    raw = json_body().get("lines")
    if not conditional.supported(match.game, match.players):
        raise matches.Refused("%(game)s with %(players)s players has no conditional moves "
                              "(they need two players and nothing hidden).",
                              game=match.game.title, players=match.players)
    db = get_db()
    with write(db):
        current = matches.load(db, match.id)
        conditional.store(db, match.id, seat,
                          conditional.checked(current.game, current.current, seat, raw))
    return jsonify(game_json(current, seat))


@bp.post("/<any(play, watch):role>/<token>/analysis")
@limits.acting
def analyse(role: str, token: str):
    """``{"ply", "moves"}``: the position at history ``ply`` (the game now if left out)
    after those moves, as the caller would see it; nothing is recorded. 422 for an illegal
    move, and in a game with hidden information until it is over."""
    match, seat = open_link(token, role)
    body = json_body()
    ply, moves = body.get("ply", match.ply), body.get("moves", [])
    if isinstance(ply, bool) or not isinstance(ply, int):
        raise matches.InvalidRequest("'ply' must be a ply of the game (an integer).")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves) \
            or len(moves) > analysis.MAX_LINE:
        raise matches.InvalidRequest("'moves' must be a list of at most %(most)s moves in "
                                     "the game's notation.", most=analysis.MAX_LINE)
    line = analysis.explore(match, seat, ply, moves)
    if line.error:
        return locale.refusal(422, line.error)
    return jsonify(line.to_json())


@bp.get("/<any(play, watch):role>/<token>/record")
def game_record(role: str, token: str):
    """The game's record as the caller may know it: ``?format=apgamerecord`` Abstract
    Play's game record, ``json`` (the default) this server's own."""
    match, seat = open_link(token, role)
    chosen = request.args.get("format", "json")
    if chosen == "apgamerecord":
        return jsonify(records.ap_record(match, seat, current_app.config["PUBLIC_URL"]))
    if chosen == "json":
        return jsonify(record(get_db(), match, seat))
    return locale.refusal(400, "The record's formats are apgamerecord and json.")


@bp.post("/<any(play, watch):role>/<token>/chat")
@limits.acting
def chat(role: str, token: str):
    """Post ``{"text"}`` to the game's chat: 201 and the game answer, which carries it."""
    match, seat = open_link(token, role)
    if seat is None:
        return locale.refusal(403, "Spectators cannot post in the chat; they read it once "
                              "the game is over.")
    text: Any = json_body().get("text")  # as sent: the chat's check refuses all but text
    after = commands.submit(get_db(), match.id, seat, _command(
        "chat", payload=events.Message(text))).match
    return jsonify(game_json(after, seat)), 201


@bp.route("/play/<token>/notes", methods=["GET", "PUT"])
def notes(token: str):
    """The player's private notes on the game, ``{"text", "updated_at"}``; PUT ``{"text"}``
    replaces them."""
    match, seat = open_link(token, "play")
    if request.method == "GET":
        return jsonify(talk.notes(get_db(), match.id, seat))
    return jsonify(talk.save_notes(get_db(), match.id, seat, json_body().get("text")))


@bp.post("/play/<token>/rematch")
@limits.creating
def rematch(token: str):
    """Ask for a rematch of the finished game: 202 and the game answer while other seats
    have not asked; once all have, 201 and the caller's new game (a new link each time)."""
    match, seat = open_link(token, "play")
    after = commands.submit(get_db(), match.id, seat, _command("rematch")).match
    if after.rematch_id is None:
        return jsonify(game_json(after, seat)), 202
    new_seat, new_token = talk.rematch_link(get_db(), after, seat)
    return jsonify(id=after.rematch_id, seat=new_seat,
                   url=external_url("play.page", role="play", token=new_token),
                   api=external_url("api.game", role="play", token=new_token)), 201
