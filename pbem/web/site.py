"""The public pages: the front page, starting a game, rules, a player's list of games, the
local mail page of the embedded default, and error pages."""
from __future__ import annotations

import email
import email.policy
import functools
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import engine
from flask import (Blueprint, Response, abort, current_app, flash, make_response, redirect,
                   render_template, request, url_for)
from flask_babel import gettext, lazy_gettext
from jinja2 import TemplateNotFound
from werkzeug.exceptions import (HTTPException, SecurityError, ServiceUnavailable,
                                 default_exceptions)

from .. import (botaccounts, clocks, computer, creation, fairplay, invites, languages, links,
               matches, players, ratings)
from . import browser, diagrams, limits, locale, mygames
from ..errors import ActionError
from ..mail import notify
from ..store.db import hold_name, write
from .database import get_db
from ..store import utc
from .urls import external_url

bp = Blueprint("site", __name__)

HOME_LINK_INTERVAL = timedelta(minutes=5)


@bp.get("/")
def index():
    return render_template("index.html", games=engine.GAMES.values())


@bp.get("/new")
def choose_game():
    return render_template("choose.html", games=engine.GAMES.values())


def _game_or_404(game_id: str) -> engine.Game:
    try:
        return engine.get(game_id)
    except engine.UnknownGame as error:
        abort(404, error.args[0])


BOT_ACCOUNT = "bot:"  # "Played by" a bot account: this, then its handle


def _bots_playing(game: engine.Game) -> list[str]:
    """The handles of the bots that play ``game``, for the form's "Played by"."""
    return [bot.player.handle for bot in botaccounts.listed(get_db()) if game.id in bot.games]


@bp.route("/new/<game_id>", methods=["GET", "POST"])
@limits.creating
def new_game(game_id: str):
    game = _game_or_404(game_id)
    form = request.form if request.method == "POST" else request.args
    try:
        count = int(form.get("players", game.player_counts[0]))
    except ValueError:
        count = game.player_counts[0]
    if count not in game.player_counts:
        count = game.player_counts[0]
    player = browser.current_player(get_db())
    if request.method == "GET":  # signed in, the first player is already known
        known = {"name0": player.handle, "email0": player.email or "",
                 "language0": player.language} if player else {}
        return render_template("new.html", game=game, count=count, form=known, error=None,
                               levels=computer.LEVEL_NAMES, bots=_bots_playing(game),
                               player=player)
    # The first player is the one filling in the form; each other seat may be the
    # computer's ("Played by": a level), or left open ("I'll send the link myself"), to be
    # taken with its join link.
    entries: list[dict[str, Any]] = [
        {"handle": form[f"by{i}"].removeprefix(BOT_ACCOUNT)}
        if i and form.get(f"by{i}", "").startswith(BOT_ACCOUNT) else
        {"bot": form[f"by{i}"]} if i and form.get(f"by{i}", "person") != "person" else
        {"open": True} if i and form.get(f"open{i}") == "yes" else
        {"name": form.get(f"name{i}", ""), "email": form.get(f"email{i}", ""),
         "language": languages.known(form.get(f"language{i}")) or languages.current()}
        for i in range(count)]
    options = {option.name: form[f"option-{option.name}"] for option in game.options
               if f"option-{option.name}" in form}
    # A rated game: the signed-in player plays the first seat, by handle.
    rated, public = form.get("rated") == "yes", form.get("public") == "yes"
    claimed = {}
    if rated and player is not None:
        entries[0], claimed = {**entries[0], "name": player.handle,
                                "email": player.email}, {0: player.id}
    elif public and player is not None:  # a public challenge of theirs (fair play counts it)
        claimed = {0: player.id}
    rating_range = {end: int(form[f"rating-{end}"]) for end in ("min", "max")
                    if form.get(f"rating-{end}", "").strip().isdecimal()}
    db = get_db()
    try:
        with write(db):
            if player is not None:
                fairplay.refuse_over_room(db, [player.id])
            entries, offered = botaccounts.offers(db, entries, game.id, clocks.from_form(form),
                                                  rated)
            created = creation.create(db, game.id, entries, options,
                                     clock=clocks.from_form(form),
                                     public=public, rated=rated,
                                     rating_range=rating_range or None, claimed=claimed,
                                     offered=offered)
    except matches.ActionError as error:
        return render_template("new.html", game=game, count=count, form=form,
                               error=error.message, levels=computer.LEVEL_NAMES,
                               bots=_bots_playing(game), player=player), error.status
    match = created.match
    browser.remember(match.id, 0)
    if player is not None:  # the form's first player
        players.claim(get_db(), player, match.id, 0)
    browser.keep_links(match.id, {
        "seats": dict(enumerate(created.tokens)), "joins": dict(enumerate(created.joins)),
        "watch": created.spectator_token, "public": form.get("public") == "yes"})
    return redirect(url_for(".shown_links", game_id=match.id), 303)


@bp.get("/games/<game_id>/links")
def shown_links(game_id: str):
    """The links a form just made, in the browser that sent it (``browser.keep_links``):
    a new game's, or new join links for its open seats (``play.invite``)."""
    kept = browser.kept_links(game_id)
    match = matches.find(get_db(), game_id)
    if kept is None or match is None:
        abort(404, gettext("These links were shown once, for a day, in the browser that "
                           "made them. Your game is under My games; its page makes new "
                           "join links for its open seats."))
    seat_links = [(s, external_url("play.page", role="play", token=seat)
                   if (seat := kept["seats"].get(str(s.seat))) else None,
                   external_url("lobby.join", token=join)
                   if (join := kept["joins"].get(str(s.seat))) else None)
                  for s in match.seats]
    watch = kept.get("watch") and external_url("play.page", role="watch",
                                               token=kept["watch"])
    offered = {s.seat: bot.handle for s in match.seats if s.offered_to is not None
               and (bot := players.find(get_db(), s.offered_to)) is not None}
    return render_template("created.html", match=match, seat_links=seat_links, watch=watch,
                           offered=offered,
                           public=kept.get("public"),
                           held_back=invites.held_back(get_db(), match.id),
                           held_back_text=invites.HELD_BACK)


@bp.get("/ratings/<game_id>")
def leaderboard(game_id: str):
    """A game's leaderboard: its established players, highest rating first."""
    game = _game_or_404(game_id)
    return render_template("leaderboard.html", game=game, games=engine.GAMES.values(),
                           standings=ratings.leaderboard(get_db(), game.id),
                           computer_ratings=ratings.COMPUTER_RATINGS.get(game.id),
                           levels=computer.LEVEL_NAMES)


@bp.get("/favicon.ico")
def favicon():
    """The site's icon by its old name: pages link the SVG itself, but browsers still ask
    here where nothing names an icon (a JSON answer, a downloaded record)."""
    return current_app.send_static_file("favicon.svg")


@bp.get("/rules")
def rules_index():
    return render_template("rules_index.html", games=engine.GAMES.values())


@bp.get("/rules/<game_id>")
def rules(game_id: str):
    """A game's rules: ``rules/<game>.html`` (English), or in the page's language the page
    ``rules/<game>.ru.html`` when there is one. ``lang`` is the language of the page shown;
    ``diagram(name)`` draws one of the game's diagrams (``pbem/web/diagrams.py``). A game
    without a page here (a plugin's) has ``rules/_game.html``: its own text of the rules,
    if it brings one, and what the server knows of it."""
    game = _game_or_404(game_id)
    lang = languages.current()
    names = [f"rules/{game.id}.html"]
    if lang != languages.DEFAULT:
        names.insert(0, f"rules/{game.id}.{lang}.html")
    try:
        template = current_app.jinja_env.select_template(names)
    except TemplateNotFound:
        written = game.rules_text(lang)
        paragraphs = [" ".join(paragraph.split()) for paragraph
                      in re.split(r"\n\s*\n", written[1].strip())] if written else []
        return render_template("rules/_game.html", game=game, paragraphs=paragraphs,
                               written_in=written[0] if written else None)
    return render_template(template, game=game,
                           lang=lang if template.name == names[0] and len(names) > 1 else "en",
                           diagram=functools.partial(diagrams.drawn, game.id))


# -- a player's games, by email ---------------------------------------------------------

@bp.route("/home", methods=["GET", "POST"])
@limits.asking_home
def home_request():
    if request.method == "GET":
        return render_template("home_request.html", error=None)
    address = request.form.get("email", "").strip()
    if not matches.valid_email(address):
        return render_template("home_request.html",
                               error=gettext("Please enter a valid email address.")), 400
    db = get_db()
    mailbox = invites.address_key(address)
    with write(db):
        # One email per mailbox per HOME_LINK_INTERVAL, however its address is spelt
        # (counted as invitations are), so the form cannot flood a mailbox.
        hold_name(db, f"home:{mailbox}")  # two requests at once count each other
        since = utc.iso(utc.now() - HOME_LINK_INTERVAL)
        recent = db.execute("SELECT 1 FROM home_links WHERE address = ? AND created_at > ?",
                            [mailbox, since]).fetchone()
        if recent is None:
            token = links.new_token()
            db["home_links"].insert({"token_hash": links.token_hash(token), "email": address,
                                     "address": mailbox, "created_at": utc.iso(utc.now())})
            notify.home_link(db, address, token)
    # The same answer whether or not the address has games, or was just sent a link.
    flash(gettext("We have sent a link to the list of games of %(email)s. Check that mailbox.",
                  email=address))
    return redirect(url_for(".home_request"), 303)


def _home_email(token: str) -> str:
    rows = list(get_db().query("SELECT email FROM home_links WHERE token_hash = ?",
                               [links.token_hash(token)]))
    if not rows:
        abort(404, gettext("This link does not open a list of games. Ask for a new one."))
    return rows[0]["email"]


@bp.get("/home/<token>")
def home(token: str):
    address = _home_email(token)
    rows = get_db().query(
        "SELECT g.*, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE lower(s.email) = lower(?) ORDER BY g.status, g.updated_at DESC", [address])
    entries = []
    for row in rows:
        match = matches.load(get_db(), row["id"])
        entries.append({"match": match, "seat": row["seat"],
                        "your_turn": row["seat"] in match.to_move})
    return render_template("home.html", email=address, entries=entries, token=token)


@bp.post("/home/<token>/open/<game_id>/<int:seat>")
@limits.acting  # each makes a new secret link
def home_open(token: str, game_id: str, seat: int):
    """Open one of the listed games with a fresh secret link for that seat."""
    address = _home_email(token)
    db = get_db()
    owned = list(db.query("SELECT 1 FROM seats WHERE game_id = ? AND seat = ? "
                          "AND lower(email) = lower(?)", [game_id, seat, address]))
    if not owned:
        abort(404, gettext("That game is not one of yours."))
    invites.answered(db, game_id, seat)  # the address's own email led here, and a click
    return mygames.open_seat(game_id, seat)


# -- the local mail page ----------------------------------------------------------------

def _local_mail_folder() -> Path:
    """Only the embedded default (``serve`` without SMTP) has a mail page, and only a person
    on this machine may read it: the messages hold secret links. Never behind a proxy."""
    forwarded = any(h in request.headers for h in ("Forwarded", "X-Forwarded-For", "X-Real-IP"))
    local = request.remote_addr in ("127.0.0.1", "::1") and not forwarded
    if not current_app.config["LOCAL_MAILBOX"] or current_app.config.get("SMTP_HOST") \
            or current_app.config["PROXIES"] or not local:
        abort(404)
    return Path(current_app.config["MAIL_FOLDER"])


@bp.get("/mail")
def mailbox():
    folder = _local_mail_folder()
    files = sorted(folder.glob("*.eml"), key=lambda f: f.stat().st_mtime, reverse=True) \
        if folder.exists() else []
    messages = [(f.stem, _read_message(f)) for f in files]
    return render_template("mail.html", messages=messages, folder=folder)


@bp.get("/mail/<name>")
def mail_message(name: str):
    path = _local_mail_folder() / f"{name}.eml"
    if "/" in name or not path.is_file():
        abort(404, gettext("There is no such message."))
    return render_template("mail_message.html", message=_read_message(path), name=name)


def _read_message(path: Path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


# -- errors -----------------------------------------------------------------------------

# The statuses pages answer with, by name; and what werkzeug says when a view gave no reason
STATUS_NAMES = {400: lazy_gettext("Bad Request"), 403: lazy_gettext("Forbidden"),
                404: lazy_gettext("Not Found"), 405: lazy_gettext("Method Not Allowed"),
                409: lazy_gettext("Conflict"), 413: lazy_gettext("Request Entity Too Large"),
                422: lazy_gettext("Unprocessable Entity"), 429: lazy_gettext("Too Many Requests"),
                500: lazy_gettext("Internal Server Error"),
                503: lazy_gettext("Service Unavailable")}
# What a page says when the view gave no reason of its own (werkzeug's English one)
REASONS = {
    400: lazy_gettext("The server could not understand this request."),
    403: lazy_gettext("This page is not open to you."),
    404: lazy_gettext("There is nothing at this address. Check that you copied all of it."),
    405: lazy_gettext("This address does not answer this kind of request."),
    409: lazy_gettext("The request clashed with another change. Please try again."),
    413: lazy_gettext("What was sent is too large for this server."),
    422: lazy_gettext("The request could not be carried out."),
    429: lazy_gettext("Too many requests from your address. Please wait a while and try "
                      "again."),
    500: lazy_gettext("Something went wrong on the server. Please try again later."),
    503: lazy_gettext("The server cannot answer this now. Please try again later.")}

def described(error: HTTPException) -> Any:
    """What an error says: the view's own reason, else ours in the reader's language for
    werkzeug's English one."""
    if error.description == type(error).description:
        return REASONS.get(error.code or 0, error.description)
    return error.description


@bp.app_errorhandler(engine.UnknownGame)
def game_unknown(error: engine.UnknownGame):
    """A stored game of a game the server does not have now: a plugin's that was removed,
    or failed to load (logged when the engine started)."""
    return http_error(ServiceUnavailable(gettext(
        "%(error)s This server cannot play it now: the plugin that brings it is not "
        "installed, or failed to load.", error=languages.translated(error.args[0]))))


@bp.app_errorhandler(ActionError)
def refused(error: ActionError):
    """A refusal a view lets out, as Datasette's ``handle_exception`` answers: JSON for the
    API (and a request that sent JSON), else the error page, with the refusal's status,
    its headers (a Retry-After) and its message in the reader's language. A blueprint of
    forms whose refusals show on the form's own page answers them itself (``play``)."""
    response = make_response(http_error(
        default_exceptions[error.status](languages.translated(error.message))))
    response.headers.update(error.headers)
    return response


# the links' addresses that answer JSON, outside /api/: their refusals are JSON too
JSON_PAGES = {"play.version", "play.record_json"}


@bp.app_errorhandler(HTTPException)
def http_error(error: HTTPException):
    if isinstance(error, SecurityError):  # an untrusted Host: no page can build its links
        return Response(f"{error.code} {error.name}: this server does not answer to that "
                        "host name.\n", error.code, mimetype="text/plain")
    # e.g. the API's POST <join>, and the addresses whose answer is JSON to any client
    if request.path.startswith("/api/") or request.is_json or request.endpoint in JSON_PAGES:
        return locale.refusal(error.code, described(error))
    return render_template("error.html", error=error, description=described(error),
                           name=STATUS_NAMES.get(error.code or 0, error.name)), error.code
