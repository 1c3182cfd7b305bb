"""Players across games on the web (``pbem/players.py``): signing in by email, signing out,
the player's API (its key) and public profiles. The signed-in player's dashboard is the
``/games`` page (``pbem/web/mygames.py``)."""
from __future__ import annotations

from typing import Any

import engine
from flask import (Blueprint, abort, current_app, flash, jsonify, redirect, render_template,
                   request, url_for)
from flask_babel import gettext, lazy_gettext

from .. import (blocks, botaccounts, fairplay, languages, links, matches, moderation, players,
               ratings, sanctions, talk)
from . import browser, limits, locale, mygames, records
from ..mail import bounces, notify
from ..matches import Match
from ..store.db import write
from .database import get_db
from ..players import Player
from .urls import external_url

bp = Blueprint("players", __name__)
# every page's header names the player the browser is signed in as (base.html)
bp.add_app_template_global(browser.signed_in, "signed_in")

NO_LINK = lazy_gettext("This sign-in link is used, expired or unknown. Ask for a new one.")


# -- signing in -------------------------------------------------------------------------------

def _send_sign_in(address: Any) -> bool:
    """Email a sign-in link to ``address`` unless it is not an address; the same whether or
    not it has a player, or had too many links lately (then nothing is sent)."""
    if not isinstance(address, str) or not matches.valid_email(address.strip()):
        return False
    db = get_db()
    with write(db):
        token = players.mint_sign_in(db, address)
        if token is not None:
            notify.sign_in_link(db, address.strip(), token)
    return True


@bp.route("/sign-in", methods=["GET", "POST"])
@limits.asking_sign_in
def sign_in_request():
    if request.method == "GET" and browser.current_player(get_db()) is not None:
        return redirect(url_for("mygames.my_games"))
    if request.method == "GET":
        return render_template("sign_in.html", error=None)
    if not _send_sign_in(request.form.get("email", "")):
        return render_template("sign_in.html",
                               error=gettext("Please enter a valid email address.")), 400
    flash(gettext("If that address can sign in, a link is on its way to it. Open the email "
                  "and press the button on the page its link opens."))
    return redirect(url_for(".sign_in_request"), 303)


@bp.post("/api/sign-in")
@limits.asking_sign_in
def sign_in_api():
    body = request.get_json(silent=True)
    if not _send_sign_in(body.get("email") if isinstance(body, dict) else None):
        return locale.refusal(400, gettext("'email' must be a valid email address."))
    return jsonify({}), 202


@bp.get("/sign-in/<token>")
def sign_in_page(token: str):
    """The emailed link's page: a button (and a handle field the first time). Opening it
    uses nothing up: mail scanners open links."""
    db = get_db()
    email = players.sign_in_email(db, token)
    if email is None:
        abort(404, NO_LINK)
    return _sign_in_page(token, players.by_email(db, email))


def _sign_in_page(token: str, player: Player | None, *, handle: str = "",
                  error: str | None = None, status: int = 200):
    return render_template("sign_in_link.html", token=token, player=player, handle=handle,
                           error=error, rule=players.HANDLE_RULE), status


@bp.post("/sign-in/<token>")
def sign_in(token: str):
    """Use the link: sign this browser in. As JSON (the API) ``{"handle"}`` → 201 and
    ``{"handle", "profile", "key"}``; as a form, on to the player's games."""
    wants_json = request.is_json
    if wants_json:
        body = request.get_json(silent=True)
        handle = body.get("handle") if isinstance(body, dict) else None
    else:  # the form's field is left empty, or out, by a player who has a handle
        handle = request.form.get("handle") or None
    db = get_db()
    try:
        player = players.sign_in(db, token, handle, languages.current())
    except matches.ActionError as error:
        if wants_json:
            return locale.refusal(error.status, error.message)
        email = players.sign_in_email(db, token)  # unused, unless another request used it
        if email is None:
            abort(404, NO_LINK)
        return _sign_in_page(token, players.by_email(db, email), handle=handle or "",
                             error=error.message, status=error.status)
    if player is None:
        abort(404, NO_LINK)
    browser.sign_in(db, player)
    if player.email:  # the link reached that mailbox: email goes to it again
        bounces.enable(db, player.email)
    if wants_json:
        return jsonify(handle=player.handle,
                       profile=external_url(".profile", handle=player.handle),
                       key=external_url(".player_api", token=players.key(player))), 201
    flash(gettext("You are signed in as %(handle)s.", handle=player.handle))
    return redirect(url_for("mygames.my_games"), 303)


def _signed_in() -> Player:
    player = browser.current_player(get_db())
    if player is None:
        abort(403, gettext("You are not signed in (or you signed out everywhere since)."))
    return player


@bp.post("/sign-out")
def sign_out():
    browser.sign_out(get_db())
    flash(gettext("You are signed out in this browser."))
    return redirect(url_for("mygames.my_games"), 303)


@bp.post("/sign-out/everywhere")
def sign_out_everywhere():
    signed_in = _signed_in()
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To sign out everywhere, tick the box that confirms it."))
    db = get_db()
    player = players.sign_out_everywhere(db, signed_in)
    browser.sign_in(db, player)  # this browser alone stays signed in
    flash(gettext("Every other browser is signed out, and your player key and your games' "
                  "links from this page are replaced (the links emailed to you still work)."))
    return redirect(url_for("mygames.my_games"), 303)


@bp.post("/me/delete")
def delete_identity():
    player = _signed_in()
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To delete your identity, tick the box that confirms it."))
    players.delete(get_db(), player)
    browser.sign_out(get_db())
    flash(gettext("Your identity is deleted. Your games go on: their links still play them."))
    return redirect(url_for("mygames.my_games"), 303)


# -- the player key: the same list for scripts ------------------------------------------------

@bp.get("/api/player/<token>")
def player_api(token: str):
    db = get_db()
    player = players.by_key(db, token)
    if player is None:
        abort(404, gettext("This key opens no player. Sign in again for the current one."))
    games = []
    entries = mygames.player_entries(db, player)
    for entry in sorted(entries, key=lambda entry: not entry.your_turn):  # your turn first
        link = players.seat_link(db, player, entry.match.id, entry.seat)
        games.append({
            "id": entry.match.id, "game": entry.match.game.id, "seat": entry.seat,
            "url": external_url("play.page", role="play", token=link),
            "api": external_url("api.game", role="play", token=link),
            "your_turn": entry.your_turn, "outcome": entry.match.outcome_json(),
            "rated": entry.match.rated, "tournament": entry.match.tournament})
    return jsonify(handle=player.handle, email=player.email, games=games,
                   ratings=_ratings_json(db, player), language=player.language,
                   blocks=blocks.blocked_by(db, player))


# -- everything the site keeps about a player --------------------------------------------------

@bp.get("/api/player/<token>/export")
def export_api(token: str):
    player = players.by_key(get_db(), token)
    if player is None:
        abort(404, gettext("This key opens no player. Sign in again for the current one."))
    return jsonify(_export(player))


@bp.get("/me/export")
def export_download():
    """The same, for the signed-in player, as a file to keep."""
    player = _signed_in()
    response = jsonify(_export(player))
    response.headers["Content-Disposition"] = f'attachment; filename="{player.handle}.json"'
    return response


def _export(player: Player) -> dict[str, Any]:
    """Everything the site keeps about ``player``: their address and settings; each game of
    theirs, its record as their seat may know it, the chat as their game's page shows it
    (none of the players they block or seats they muted) with its authors' names, and
    their private notes; their ratings and what each rated game did to them; their
    tournaments; the players they block; the reports they made; the events kept for their
    programs, their bot account if they are one, and the bots they own."""
    db, public_url = get_db(), current_app.config["PUBLIC_URL"]
    games = []
    for game_id, seat in players.seats_of(db, player):
        match = matches.load(db, game_id)
        games.append({
            "id": game_id, "game": match.game.id, "seat": seat,
            "record": records.ap_record(match, seat, public_url),
            "chat": [{**said, "name": None if said["seat"] is None
                      else match.seats[said["seat"]].name}
                     for said in talk.chat_json(match, seat,
                                                blocks.unread_seats(db, match, seat))],
            "notes": talk.notes(db, game_id, seat)})
    ratings_of = {game: {**standing.to_json(), "history": []}
                  for game, standing in ratings.of_player(db, player.id).items()}
    for row in db.execute(
            "SELECT g.game, c.game_id, c.rating_before, c.rating_after, c.created_at "
            "FROM rating_changes c JOIN games g ON g.id = c.game_id WHERE c.player_id = ? "
            "ORDER BY c.created_at, c.game_id", [player.id]):
        ratings_of.setdefault(row["game"], {"history": []})["history"].append(
            {"game_id": row["game_id"], "before": row["rating_before"],
             "after": row["rating_after"], "at": row["created_at"]})
    joined = db.execute("SELECT created_at FROM players WHERE id = ?", [player.id]).fetchone()
    return {
        "handle": player.handle, "email": player.email, "language": player.language,
        "created_at": joined[0], "games": games, "ratings": ratings_of,
        "tournaments": [dict(row) for row in db.execute(
            "SELECT t.id, t.name, t.game, e.withdrawn_at FROM tournament_players e "
            "JOIN tournaments t ON t.id = e.tournament_id WHERE e.player_id = ? "
            "ORDER BY t.created_at", [player.id])],
        "blocks": blocks.blocked_by(db, player),
        "reports": moderation.made_by(db, player),
        # the stream of events kept for their programs, and the bot account they are
        "events": [{"id": row[0], "event": row[1], "game_id": row[2], "seat": row[3],
                    "version": row[4], "at": row[5]} for row in db.execute(
            "SELECT seq, kind, game_id, seat, version, created_at FROM player_events "
            "WHERE player_id = ? ORDER BY seq", [player.id])],
        "bot": bot.to_json() if (bot := botaccounts.of(db, player)) else None,
        "bots": [bot.player.handle for bot in botaccounts.listed(db, player)
                 if bot.player.id != player.id],
    }


# -- profiles: public facts only --------------------------------------------------------------

def _profile_games(player: Player) -> list[Match]:
    db = get_db()
    return [matches.load(db, game_id) for game_id in
            dict.fromkeys(game_id for game_id, _ in players.public_seats(db, player))]


def _by_handle(handle: str) -> Player:
    player = players.by_handle(get_db(), handle)
    if player is None:
        abort(404, gettext("There is no player %(handle)s.", handle=handle))
    return player


@bp.get("/players/<handle>")
def profile(handle: str):
    """A player's public page: their ratings, their record (fair play) and their games; a
    closed account's says so and nothing more. The player signed in may block or report
    them from it."""
    player = _by_handle(handle)
    db = get_db()
    viewer = browser.signed_in()
    closed = sanctions.of(db, player.id).closed
    games = [] if closed else _profile_games(player)
    record = fairplay.record(db, player.id)
    return render_template("profile.html", player=player, closed=closed,
                           ratings={} if closed else ratings.of_player(db, player.id),
                           games=engine.GAMES, record=record,
                           room=fairplay.room(record.finished) if player.email else None,
                           bot=botaccounts.of(db, player),
                           running=[m for m in games if not m.finished],
                           finished=[m for m in games if m.finished],
                           viewer=viewer if viewer and viewer.id != player.id else None,
                           blocking=viewer is not None and blocks.blocks(db, viewer, player))


@bp.get("/api/players/<handle>")
def profile_api(handle: str):
    """The public facts of a player: ratings, record, games (``closed``: none but that)."""
    player = _by_handle(handle)
    db = get_db()
    record = fairplay.record(db, player.id).to_json()
    bot = botaccounts.of(db, player)
    facts = {"handle": player.handle, "record": record,
             # a bot account: run by a program, registered by its owner (a handle)
             "bot": bot is not None, "owner": bot.owner if bot else None,
             **({"accepts": {"games": list(bot.games), "clocks": list(bot.clocks),
                             "rated": bot.rated}} if bot else {})}
    if sanctions.of(db, player.id).closed:
        return jsonify(**facts, closed=True, ratings={}, games=[])
    return jsonify(**facts, closed=False, ratings=_ratings_json(db, player), games=[
        {"id": m.id, "game": m.game.id, "players": [s.name for s in m.seats],
         "outcome": m.outcome_json(), "rated": m.rated} for m in _profile_games(player)])


def _ratings_json(db, player: Player) -> dict[str, dict]:
    return {game: standing.to_json() for game, standing in ratings.of_player(db, player.id).items()}


@bp.post("/players/<handle>/games/<game_id>/watch")
@limits.acting  # each makes a new secret link
def watch(handle: str, game_id: str):
    """Watch one of the player's games that has started, with a fresh spectator link."""
    if game_id not in {m.id for m in _profile_games(_by_handle(handle)) if not m.waiting}:
        abort(404, gettext("That game is not one of this player's."))
    db = get_db()
    with write(db):
        token = links.mint(db, game_id, None)
    return redirect(url_for("play.page", role="watch", token=token), 303)
