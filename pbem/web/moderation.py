"""A public site's tools on the web: blocks, reports, the moderators' page and API, and
appeals (``pbem/blocks.py``, ``pbem/moderation.py``, ``pbem/sanctions.py``).

A player signed in blocks another from their profile or a game they share, and undoes it
from the list of their blocks (``/me/blocks``); a seat mutes another seat of its game from
the game's page. Reports come from a profile, a game and a chat message; a seat without an
account reports from its game. Moderators (the role ``moderator``) read the queue and act
on the moderation page, or with their key through the API; the player is emailed each
action with its note and a secret link to appeal it (a page that needs no sign-in: a
closed account cannot sign in), and the appeal joins the queue."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext
from werkzeug.exceptions import HTTPException

from .. import blocks, events, fairplay, languages, matches, moderation, players, roles, sanctions
from . import browser, limits, locale
from ..mail import notify
from ..matches import ActionError, Match
from ..players import Player
from ..store.db import write
from .database import get_db
from .play import open_link

bp = Blueprint("moderation", __name__)
# the JSON API's routes: their refusals (404, 403, 405, ...) answer JSON
api = Blueprint("moderation_api", __name__)


@api.errorhandler(HTTPException)
def _json_error(error: HTTPException):
    return locale.refusal(error.code, error.description)

REASON_NAMES = {"abuse": lazy_gettext("Abuse: insults, harassment, threats"),
                "cheating": lazy_gettext("Cheating: help from a program or another person"),
                "spam": lazy_gettext("Spam: advertising, links, the same message again and "
                                     "again"),
                "other": lazy_gettext("Something else")}
ACTION_NAMES = {"warn": lazy_gettext("Warn (an email)"),
                "mute": lazy_gettext("Mute (chat refused)"),
                "suspend": lazy_gettext("Suspend (no rated games, tournaments or public "
                                        "challenges)"),
                "close": lazy_gettext("Close the account"),
                "restore": lazy_gettext("Restore (undo mute, suspension, closing)"),
                "annul": lazy_gettext("Annul a rated game"),
                "dismiss": lazy_gettext("Dismiss the report (nothing done)")}


@bp.app_context_processor
def _reasons() -> dict[str, Any]:
    return {"report_reasons": REASON_NAMES}


def _json() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise matches.InvalidRequest("The request body must be a JSON object.")
    return body


def _keyed(token: str) -> Player:
    player = players.by_key(get_db(), token)
    if player is None:
        abort(404, gettext("This key opens no player. Sign in again for the current one."))
    return player


def _signed_in() -> Player:
    player = browser.current_player(get_db())
    if player is None:
        abort(403, gettext("Sign in first: this page is for a player known across games."))
    return player


def _other(handle: Any) -> Player:
    """The player of ``handle`` (an API body's, a form's): InvalidRequest if none."""
    found = players.by_handle(get_db(), handle) if isinstance(handle, str) else None
    if found is None:
        raise matches.InvalidRequest("'handle' must be the handle of a player.")
    return found


# -- blocks ----------------------------------------------------------------------------------

def _block(player: Player, handle: Any) -> Player:
    blocked = _other(handle)
    if blocked.id == player.id:
        raise matches.InvalidRequest("You cannot block yourself.")
    blocks.block(get_db(), player, blocked)
    return blocked


@api.post("/api/player/<token>/blocks")
@limits.acting
def block_api(token: str):
    player = _keyed(token)
    blocked = _block(player, _json().get("handle"))
    return jsonify(handle=blocked.handle, blocks=blocks.blocked_by(get_db(), player)), 201


@api.delete("/api/player/<token>/blocks/<handle>")
def unblock_api(token: str, handle: str):
    player = _keyed(token)
    other = players.by_handle(get_db(), handle)
    if other is None or not blocks.unblock(get_db(), player, other):
        return locale.refusal(404, gettext("You do not block %(handle)s.", handle=handle))
    return jsonify(blocks=blocks.blocked_by(get_db(), player))


def _back(default: str) -> str:
    """Where a form sends the browser back to: its ``next`` when it is a path of this site."""
    wanted = request.form.get("next", "")
    return wanted if wanted.startswith("/") and not wanted.startswith("//") else default


@bp.post("/players/<handle>/block")
@limits.acting
def block(handle: str):
    player = _signed_in()
    try:
        blocked = _block(player, handle)
    except ActionError as error:
        abort(400, languages.translated(error.message))
    flash(gettext("You block %(handle)s: they cannot join your games, their challenges "
                  "leave your lobby and you no longer see their chat. Undo it under "
                  "Blocked players.", handle=blocked.handle))
    return redirect(_back(url_for("players.profile", handle=blocked.handle)), 303)


@bp.post("/players/<handle>/unblock")
def unblock(handle: str):
    player = _signed_in()
    other = players.by_handle(get_db(), handle)
    if other is not None and blocks.unblock(get_db(), player, other):
        flash(gettext("You no longer block %(handle)s.", handle=other.handle))
    return redirect(_back(url_for(".blocked")), 303)


@bp.get("/me/blocks")
def blocked():
    player = _signed_in()
    return render_template("blocks.html", player=player,
                           handles=blocks.blocked_by(get_db(), player))


@bp.post("/play/<token>/mute")
def mute(token: str):
    """A seat stops (``on`` yes) or starts again reading another seat's chat."""
    match, seat = open_link(token, "play")
    try:
        other = int(request.form.get("seat", ""))
    except ValueError:
        other = -1
    if seat is None or not 0 <= other < match.players or other == seat:
        abort(400, gettext("Choose another seat of this game."))
    muted = request.form.get("on") == "yes"
    blocks.mute_seat(get_db(), match.id, seat, other, muted)
    name = match.seats[other].name or ""
    flash(gettext("You no longer see %(name)s's chat in this game.", name=name) if muted
          else gettext("You see %(name)s's chat in this game again.", name=name))
    return redirect(url_for("play.page", role="play", token=token) + "#chat", 303)


# -- reports ---------------------------------------------------------------------------------

def _reported_seat(match: Match, seat: int, chosen: Any, message: Any) -> tuple[int, int | None]:
    """The seat a report from ``seat``'s game is about, and the chat message (its seq):
    a message's author; else the seat chosen; else, in a game of two, the other one."""
    if message is not None:
        said = next((event for event in match.chat_seen_by(seat) if event.seq == message),
                    None) if isinstance(message, int) and not isinstance(message, bool) else None
        if said is None or said.seat is None or said.seat == seat:
            raise matches.InvalidRequest("'message' must be another player's chat message "
                                         "of this game.")
        return said.seat, said.seq
    if chosen is None and match.players == 2:
        return 1 - seat, None
    if not isinstance(chosen, int) or isinstance(chosen, bool) \
            or not 0 <= chosen < match.players or chosen == seat:
        raise matches.InvalidRequest("'seat' must be another seat of this game.")
    return chosen, None


def _seat_report(match: Match, seat: int, reporter: Player | None, body: Any) -> int:
    db = get_db()
    reported_seat, message = _reported_seat(match, seat, body.get("seat"), body.get("message"))
    owners = players.owners(db, match.id, reported_seat)
    reported = owners[0] if owners else None
    return moderation.report(
        db, reporter=reporter, reporter_name=reporter.handle if reporter
        else match.seats[seat].name or "", reported=reported,
        reported_name=reported.handle if reported else match.seats[reported_seat].name or "",
        reason=body.get("reason"), text=body.get("text"), game_id=match.id,
        reporter_seat=None if reporter else seat, message=message,
        evidence=moderation.game_evidence(match, message))


def _seat_player(match: Match, seat: int) -> Player | None:
    """The signed-in player, if the seat is theirs: their report is a player's."""
    player = browser.current_player(get_db())
    return player if player and players.owns(get_db(), player, match.id, seat) else None


@api.post("/api/play/<token>/report")
@limits.acting
def seat_report_api(token: str):
    """A seat's report from its game: ``{"reason", "text", "seat"?, "message"?}``."""
    match, seat = open_link(token, "play")
    report_id = _seat_report(match, seat, None, _json())
    return jsonify(id=report_id), 201


@api.post("/api/player/<token>/reports")
@limits.acting
def report_api(token: str):
    """A player's report: ``{"handle", "game"?, "message"?, "reason", "text"}``."""
    player = _keyed(token)
    db = get_db()
    body = _json()
    game_id = body.get("game")
    if game_id is not None:
        seat = _own_seat(player, game_id)
        match = matches.load(db, game_id)
        reported = _other(body.get("handle")) if "handle" in body else None
        if reported is not None and body.get("message") is None:
            seats = [s.seat for s in match.seats
                     if reported in players.owners(db, match.id, s.seat)]
            if not seats:
                raise matches.InvalidRequest("%(handle)s does not play in that game.",
                                             handle=reported.handle)
            body = {**body, "seat": seats[0]}
        report_id = _seat_report(match, seat, player, body)
    else:
        report_id = _profile_report(player, _other(body.get("handle")), body)
    return jsonify(id=report_id), 201


def _own_seat(player: Player, game_id: Any) -> int:
    seats = [seat for game, seat in players.seats_of(get_db(), player) if game == game_id]
    if not seats:
        raise matches.InvalidRequest("'game' must be the id of a game of yours.")
    return seats[0]


def _profile_report(player: Player, reported: Player, body: Any) -> int:
    if reported.id == player.id:
        raise matches.InvalidRequest("You cannot report yourself.")
    db = get_db()
    return moderation.report(db, reporter=player, reporter_name=player.handle,
                             reported=reported, reported_name=reported.handle,
                             reason=body.get("reason"), text=body.get("text"),
                             evidence=moderation.shared_chat(db, player, reported))


@bp.route("/players/<handle>/report", methods=["GET", "POST"])
@limits.acting
def report_player(handle: str):
    player = _signed_in()
    reported = players.by_handle(get_db(), handle)
    if reported is None:
        abort(404, gettext("There is no player %(handle)s.", handle=handle))
    here = url_for(".report_player", handle=reported.handle)
    if request.method == "GET":
        return render_template("report.html", about=reported.handle, here=here, form={},
                               error=None, back=url_for("players.profile", handle=handle))
    try:
        _profile_report(player, reported, request.form)
    except ActionError as error:
        return render_template("report.html", about=reported.handle, here=here,
                               form=request.form, error=error.message,
                               back=url_for("players.profile", handle=handle)), error.status
    flash(gettext("Thank you: your report is with the site's moderators. You will be told "
                  "by email when they have handled it."))
    return redirect(url_for("players.profile", handle=reported.handle), 303)


@bp.route("/play/<token>/report", methods=["GET", "POST"])
@limits.acting
def report_seat(token: str):
    """A report from a game: about a seat (``seat``) or one of its chat messages
    (``message``, its seq)."""
    match, seat = open_link(token, "play")
    assert seat is not None  # a play link's
    source = request.args if request.method == "GET" else request.form
    fields: dict[str, Any] = {"reason": source.get("reason"), "text": source.get("text")}
    for name in ("seat", "message"):
        if source.get(name, "").isdecimal():
            fields[name] = int(source[name])
    back = url_for("play.page", role="play", token=token)
    here = url_for(".report_seat", token=token)
    try:
        about_seat, message = _reported_seat(match, seat, fields.get("seat"),
                                             fields.get("message"))
    except ActionError as error:
        abort(400, languages.translated(error.message))
    said = next((e.payload.text for e in match.events if e.seq == message
                 and isinstance(e.payload, events.Message)), None)
    shown = {"about": match.seats[about_seat].name, "here": here, "back": back,
             "message": message, "said": said, "seat": about_seat}
    if request.method == "GET":
        return render_template("report.html", form={}, error=None, **shown)
    try:
        _seat_report(match, seat, _seat_player(match, seat), fields)
    except ActionError as error:
        return render_template("report.html", form=request.form, error=error.message,
                               **shown), error.status
    flash(gettext("Thank you: your report is with the site's moderators. You will be told "
                  "by email when they have handled it."))
    return redirect(back, 303)


# -- moderators ------------------------------------------------------------------------------

def _moderator(player: Player | None) -> Player:
    if player is None or "moderator" not in roles.of(get_db(), player):
        abort(403, gettext("This is for the site's moderators."))
    return player


def _take(moderator: Player, body: Any) -> moderation.Done:
    """A moderator's action from the API or the page, with its emails, in one transaction:
    the player told the action and its note, the reporter that their report is handled."""
    db = get_db()
    report_id = body.get("report")
    handle = body.get("handle")
    with write(db):
        if handle in (None, "") and report_id is not None:  # a seat without an account
            subject = None
        else:
            subject = _other(handle)
        done = moderation.act(db, moderator, subject, body.get("action"), body.get("note"),
                              report_id=report_id, game_id=body.get("game"))
        appeal = done.report is not None and done.report.reason == moderation.APPEAL
        if subject is not None and (done.action.action != "dismiss" or appeal):
            # a dismissed appeal is answered too: the action stands
            notify.moderation_action(db, subject, done.action.action, done.action.note,
                                     done.appeal_token)
        if done.report is not None and not appeal:
            _tell_reporter(done.report)
    return done


def _tell_reporter(report: moderation.Report) -> None:
    db = get_db()
    reporter = players.find(db, report.reporter_id) if report.reporter_id else None
    if reporter is not None:
        notify.report_handled(db, reporter.email, reporter.language, report.handle)
    elif report.reporter_game is not None and report.reporter_seat is not None:
        match = matches.find(db, report.reporter_game)
        if match is not None:
            notify.report_handled(db, match.seats[report.reporter_seat].email,
                                  matches.language_of(db, match.id, report.reporter_seat),
                                  report.handle)


@api.get("/api/player/<token>/moderation/reports")
def reports_api(token: str):
    _moderator(players.by_key(get_db(), token))
    return jsonify(reports=[report.to_json() for report in moderation.reports(get_db())])


@api.post("/api/player/<token>/moderation/actions")
@limits.acting  # each emails the player, and the reporter
def actions_api(token: str):
    moderator = _moderator(players.by_key(get_db(), token))
    body = _json()
    if isinstance(body.get("report"), bool):
        raise matches.InvalidRequest("'report' must be a report's id.")
    done = _take(moderator, body)
    return jsonify(done.action.to_json()), 201


@api.get("/api/player/<token>/moderation/log")
def log_api(token: str):
    _moderator(players.by_key(get_db(), token))
    return jsonify(actions=[action.to_json() for action in moderation.log(get_db())])


def _about(report: moderation.Report) -> dict[str, Any]:
    """What the moderation page shows beside a report: the reported player's record, their
    recent games and chat, what moderators did about them before, their sanctions now."""
    db = get_db()
    player = players.find(db, report.reported_id) if report.reported_id else None
    if player is None:
        return {"player": None}
    games, said = [], []
    for game_id, seat in players.seats_of(db, player)[:10]:
        match = matches.load(db, game_id)
        games.append(match)
        said += [(match, event) for event in match.events if event.kind == "chat"
                 and event.seat == seat and isinstance(event.payload, events.Message)]
    said.sort(key=lambda found: found[1].created_at, reverse=True)
    rated = [match for match in games if match.rated and match.finished]
    return {"player": player, "record": fairplay.record(db, player.id),
            "games": games, "said": said[:10], "rated": rated,
            "sanctions": sanctions.of(db, player.id),
            "history": moderation.log(db, subject=player, most=10)}


@bp.get("/moderation")
def page():
    moderator = _moderator(browser.current_player(get_db()))
    db = get_db()
    queue = moderation.open_reports(db)
    handled = [r for r in moderation.reports(db, most=len(queue) + 20) if r.status != "open"]
    return render_template("moderation.html", moderator=moderator,
                           queue=[(report, _about(report)) for report in queue],
                           handled=handled, actions=ACTION_NAMES)


@bp.post("/moderation/actions")
@limits.acting
def act():
    moderator = _moderator(browser.current_player(get_db()))
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To act, tick the box that confirms it."))
    form = {name: request.form.get(name) or None for name in
            ("handle", "action", "note", "game")}
    report = request.form.get("report", "")
    form["report"] = int(report) if report.isdecimal() else None  # type: ignore[assignment]
    try:
        done = _take(moderator, form)
    except ActionError as error:
        flash(gettext("Not done: %(why)s", why=languages.translated(error.message)))
        return redirect(url_for(".page"), 303)
    flash(gettext("Done: %(action)s, %(handle)s.", action=ACTION_NAMES[done.action.action],
                  handle=done.action.handle or "-"))
    return redirect(url_for(".page"), 303)


@bp.get("/moderation/log")
def log_page():
    moderator = _moderator(browser.current_player(get_db()))
    return render_template("moderation_log.html", moderator=moderator,
                           actions=moderation.log(get_db()), names=ACTION_NAMES)


# -- appeals ---------------------------------------------------------------------------------

def _appealed(token: str) -> moderation.Action:
    found = moderation.appealed(get_db(), token)
    if found is None:
        abort(404, gettext("This appeal link opens nothing. Check that you copied all of it."))
    return found[0]


@bp.route("/appeal/<token>", methods=["GET", "POST"])
@limits.acting
def appeal_page(token: str):
    """The page an action's email links to: the player says why it is a mistake, and the
    moderators find it in their queue."""
    action = _appealed(token)
    if request.method == "GET":
        return render_template("appeal.html", action=action, names=ACTION_NAMES, error=None,
                               text="")
    try:
        moderation.appeal(get_db(), token, request.form.get("text"))
    except ActionError as error:
        return render_template("appeal.html", action=action, names=ACTION_NAMES,
                               error=error.message, text=request.form.get("text", "")), \
            error.status
    flash(gettext("Your appeal is with the site's moderators. They will email you."))
    return redirect(url_for(".appeal_page", token=token), 303)
