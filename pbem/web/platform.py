"""The ways in for programs beside the seat API: a player's stream of events
(``pbem/player_events.py``) and bot accounts (``pbem/botaccounts.py``), their JSON API and
the "Bots" page.

The stream, ``GET /api/player/<key>/events``, is Server-Sent Events. A connection lasts
``EVENTS_STREAM_SECONDS`` at most, then ends, and the client reconnects after ``retry``
with ``Last-Event-ID`` (browsers' EventSource does it by itself): a worker thread is held
that long, never for good, and a reconnect may reach any worker or machine, since the
events are rows of the database. Without ``Last-Event-ID`` the stream begins with the
events still current (the seats to move now, the challenges still open), and so does one
resumed after an event whose successors were pruned (``player_events.missed``): it could
not give every event since. A comment every
``EVENTS_HEARTBEAT_SECONDS`` keeps proxies from closing a quiet connection. The streams
wait, and the process's one ``player_events.Watcher`` wakes those whose player has new
events. Each process
holds at most ``EVENTS_LISTENERS`` of them (and of the long polls) at once, so that the
threads left answer moves; over that, 503 with Retry-After. ``?after=<n>`` instead
answers JSON, the events after number n, waiting up to ``wait`` seconds for the first:
a long poll, for clients without SSE (after pruned events: the current ones, as a stream
begins).
"""
from __future__ import annotations

import json
import collections
import re
import threading
import time
from typing import Any, Iterator

import engine
from flask import (Blueprint, Response, abort, current_app, flash, jsonify, redirect,
                   render_template, request, stream_with_context, url_for)
from flask_babel import gettext
from werkzeug.datastructures import MultiDict

from .. import botaccounts, clocks, matches, player_events, players
from . import browser, limits, locale
from ..player_events import Told
from ..players import Player
from .database import get_db
from .api import json_body
from .urls import external_url

bp = Blueprint("platform", __name__)

NO_KEY = "This key opens no player. Sign in again for the current one."
RETRY_MILLISECONDS = 1000  # how soon a client reconnects after a stream ends
EVENT_NUMBER = re.compile(r"[0-9]{1,15}")  # a player's event's number (any an integer column holds)
SECONDS = re.compile(r"[0-9]{1,5}(\.[0-9]{1,3})?")


class _Listeners:
    """The streams and long polls this process holds open, at most ``EVENTS_LISTENERS``,
    and of them at most ``EVENTS_LISTENERS_PER_PLAYER`` of one player's: one key opening
    stream after stream must not take every other player's place."""

    def __init__(self) -> None:
        self.count = 0
        self.of_player: collections.Counter[int] = collections.Counter()
        self._lock = threading.Lock()

    def enter(self, player_id: int, most: int, most_each: int) -> str | None:
        """None once the listener is counted; else why not: "full" or "player"."""
        with self._lock:
            if self.of_player[player_id] >= most_each:
                return "player"
            if self.count >= most:
                return "full"
            self.count += 1
            self.of_player[player_id] += 1
            return None

    def leave(self, player_id: int) -> None:
        with self._lock:
            self.count -= 1
            self.of_player[player_id] -= 1
            if not self.of_player[player_id]:
                del self.of_player[player_id]


LISTENERS = _Listeners()


def _player(token: str) -> Player:
    player = players.by_key(get_db(), token)
    if player is None:
        abort(404, NO_KEY)
    return player


def _refusal(status: int, message: Any, **headers: str) -> Response:
    response, _ = locale.refusal(status, message)
    response.status_code = status
    response.headers.update(headers)
    return response


def _event(told: Told, player: Player) -> str:
    data = json.dumps(told.data(get_db(), player, external_url), separators=(",", ":"))
    return f"id: {told.seq}\nevent: {told.kind}\ndata: {data}\n\n"


@bp.get("/api/player/<token>/events")
def events(token: str):
    player = _player(token)
    config = current_app.config
    after = request.args.get("after")
    if after is not None and not EVENT_NUMBER.fullmatch(after):
        return _refusal(400, engine.Text(
            "'after' must be the number of the last event you saw (0: from the first)."))
    resumed = request.headers.get("Last-Event-ID", "").strip()
    if resumed and not EVENT_NUMBER.fullmatch(resumed):
        return _refusal(400, engine.Text(
            "Last-Event-ID must be the number of the last event you saw."))
    refused = LISTENERS.enter(player.id, int(config["EVENTS_LISTENERS"]),
                              int(config["EVENTS_LISTENERS_PER_PLAYER"]))
    if refused == "player":
        return _refusal(429, engine.Text(
            "This key already has as many listeners open as one player may: close one "
            "first."), **{"Retry-After": "5"})
    if refused == "full":
        return _refusal(503, engine.Text(
            "This server has as many listeners as it can hold: try again in a few "
            "seconds."), **{"Retry-After": "5"})
    if after is not None:
        return _long_poll(player, int(after))
    response = Response(stream_with_context(_stream(player, int(resumed) if resumed else None)),
                        mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    # the server closes the answer however it ends (a client gone before its first byte too)
    response.call_on_close(lambda: LISTENERS.leave(player.id))
    return response


def _long_poll(player: Player, seen: int) -> Response:
    """The events after ``seen``, waiting up to ``wait`` seconds (at most a stream's) for
    the first."""
    watched = _watcher()
    woken = watched.listen(player.id)
    try:
        if player_events.missed(get_db(), player, seen):
            told, seen = _current(player)
            return _polled(player, told, seen)
        wait = request.args.get("wait", "25")
        most = float(current_app.config["EVENTS_STREAM_SECONDS"])
        waiting = min(float(wait), most) if SECONDS.fullmatch(wait) else most
        deadline = time.monotonic() + waiting
        while True:
            woken.clear()
            told = player_events.after(get_db(), player, seen)
            if told or time.monotonic() >= deadline:
                break
            woken.wait(deadline - time.monotonic())
        return _polled(player, told, told[-1].seq if told else seen)
    finally:
        watched.leave(player.id, woken)
        LISTENERS.leave(player.id)


def _polled(player: Player, told: list[Told], last: int) -> Response:
    return jsonify(events=[{"id": t.seq, "event": t.kind,
                            "data": t.data(get_db(), player, external_url)}
                           for t in told], last=last)


def _current(player: Player) -> tuple[list[Told], int]:
    """The player's events still current, and the latest number: where a client that saw
    nothing, or whose next events were pruned, begins."""
    db = get_db()
    seen = player_events.last(db, player)
    return player_events.current(db, player, seen), seen


def _watcher() -> player_events.Watcher:
    config = current_app.config
    return player_events.watcher(config["DATABASE"], float(config["EVENTS_POLL_SECONDS"]))


def _stream(player: Player, seen: int | None) -> Iterator[str]:
    """The stream's text: events after ``seen`` (None, or some of them pruned: those still
    current, then the new ones), a heartbeat while nothing happens, until the connection's
    time is up."""
    config = current_app.config
    beat = float(config["EVENTS_HEARTBEAT_SECONDS"])
    start = time.monotonic()
    deadline, next_beat = start + float(config["EVENTS_STREAM_SECONDS"]), start + beat
    yield f"retry: {RETRY_MILLISECONDS}\n: {player.handle}'s events\n\n"
    watched = _watcher()
    woken = watched.listen(player.id)  # (the server closing the stream ends the wait)
    try:
        if seen is None or player_events.missed(get_db(), player, seen):
            current, seen = _current(player)
            for told in current:
                yield _event(told, player)
            yield f"id: {seen}\n\n"  # where a reconnect resumes
        while True:
            woken.clear()
            told_now = player_events.after(get_db(), player, seen)
            for told in told_now:
                yield _event(told, player)
                seen = told.seq
            if len(told_now) == player_events.BATCH:
                continue  # more waiting
            now = time.monotonic()
            if now >= deadline:
                return
            if now >= next_beat:
                yield ": heartbeat\n\n"
                next_beat = now + beat
            # woken by the watcher; at the heartbeat at the latest, it looks itself
            woken.wait(min(next_beat, deadline) - now)
    finally:
        watched.leave(player.id, woken)


# -- bot accounts -----------------------------------------------------------------------------

def _bot_json(bot: botaccounts.Bot) -> dict[str, Any]:
    return {**bot.to_json(), "profile": external_url("players.profile",
                                                     handle=bot.player.handle)}


@bp.post("/api/player/<token>/bot")
@limits.registering
def declare_bot(token: str):
    """``{"games", "rated", "clocks"?}`` marks the key's player a bot run by a program (or
    changes what it accepts) → 200; with ``"handle"``, registers a new bot account owned by
    the key's player instead → 201, with the new bot's ``key`` (a bot of theirs already:
    changes what it accepts → 200)."""
    owner = _player(token)
    db = get_db()
    try:
        body = json_body()
        if "handle" in body:
            known = players.by_handle(db, body["handle"]) \
                if isinstance(body["handle"], str) else None
            bot = botaccounts.register(db, owner, body["handle"], body.get("games"),
                                       body.get("clocks"), body.get("rated", False))
            return jsonify({**_bot_json(bot), "key": external_url(
                "players.player_api", token=players.key(bot.player))}), \
                200 if known is not None else 201
        bot = botaccounts.declare(db, owner, body.get("games"), body.get("clocks"),
                                  body.get("rated"))
    except matches.ActionError as error:
        return locale.refusal(error.status, error.message)
    return jsonify(_bot_json(bot))


@bp.get("/api/bots")
def bots_api():
    return jsonify(bots=[_bot_json(bot) for bot in botaccounts.listed(get_db())])


@bp.route("/bots", methods=["GET", "POST"])
@limits.registering
def bots_page():
    """Every bot; for a signed-in person, their own (with each one's key) and the form that
    registers another."""
    db = get_db()
    owner = browser.current_player(db)
    error, status = None, 200
    if request.method == "POST":
        if owner is None:
            abort(403, gettext("Sign in to register a bot."))
        form = request.form
        try:
            bot = botaccounts.register(db, owner, form.get("handle", "").strip(),
                                       form.getlist("games"), form.getlist("clocks"),
                                       form.get("rated") == "yes")
        except matches.ActionError as refused:
            error, status = refused.message, refused.status
        else:
            flash(gettext("Your bot %(handle)s is registered. Its program signs in with the "
                          "key shown below.", handle=bot.player.handle))
            return redirect(url_for(".bots_page") + "#your-bots", 303)
    own = botaccounts.listed(db, owner) if owner else []
    return render_template(
        "bots.html", bots=botaccounts.listed(db), own=own, owner=owner,
        is_bot=owner is not None and botaccounts.of(db, owner) is not None,
        keys={bot.player.id: external_url("players.player_api",
                                          token=players.key(bot.player)) for bot in own},
        games=engine.GAMES, clock_modes=clocks.MODES, error=error, rule=players.HANDLE_RULE,
        form=request.form if error else MultiDict()), status
