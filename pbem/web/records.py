"""Game records other sites read: Abstract Play's game record (its JSON schema
``gamerecord/1-0-0``), made from a game as one seat may know it, and read back to review an
uploaded record of one of this server's games.

The record's ``moves`` are rounds, one entry per seat in seating order: a new round begins
when a seat moves whose entry in the round is taken, or that sits before the last mover, so
read back round by round, seat by seat, the moves come out in the order they were played.
The schema allows extra properties in the header only: each move's time is in
``moveTimes`` (one per ply), the options in ``game.variants`` as ``name=JSON value``, and,
once the game is over, the seed that decided its chance events in ``startingPosition``.
"""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlite_utils
from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext

import engine

from .. import languages, positions
from . import limits
from ..boards import board_for
from ..errors import BadRecord
from ..matches import Match
from ..store.db import hold_name, insert_rows, write
from .database import get_db
from .play import RENDERS, move_texts
from ..store import utc

bp = Blueprint("records", __name__)

UPLOAD_BYTES = 2 * 2**20  # a long Magnetic Field game's record is some 100 KB
# A long game has a few hundred plies (random moves rarely make 1,300); the replay kept of
# the longest record stays near the size of its upload (Mastery's positions grow with it).
MOST_PLIES = 2000
LISTED = 200  # the moves a review page lists, those around its position


def ap_record(match: Match, viewer: int | None, public_url: str | None) -> dict[str, Any]:
    """The game as ``viewer`` may know it, as Abstract Play's game record."""
    outcome = match.current.outcome
    texts = move_texts(match, viewer)
    rounds: list[list[str | None]] = []
    last = match.players
    for event, text in zip(match.moves, texts):
        if event.seat <= last or rounds[-1][event.seat] is not None:
            rounds.append([None] * match.players)
        rounds[-1][event.seat] = text
        last = event.seat
    ended = match.events[-1].created_at if outcome is not None else None
    header: dict[str, Any] = {
        "game": {"name": match.game.title,
                 "variants": [f"{name}={json.dumps(value)}"
                              for name, value in match.options.items()]},
        "site": {"name": site_name(public_url), "gameid": match.id},
        "date-start": match.started_at or match.created_at,
        "date-end": ended or (match.events[-1].created_at if match.events
                              else match.created_at),
        "date-generated": utc.iso(utc.now()),
        "players": [{"name": s.name or match.open_seat_name(s.seat),
                     "result": result(outcome, s.seat), **({"is_ai": True} if s.bot else {})}
                    for s in match.seats],
        "moveTimes": [event.created_at for event in match.moves],
    }
    if outcome is not None:  # the seed decides every chance event: public once it is over
        header["startingPosition"] = match.seed
    return {"header": header, "moves": rounds}


def site_name(public_url: str | None) -> str:
    """The site as records name it: the host of the public address."""
    return urlsplit(public_url).hostname or "localhost" if public_url else "localhost"


def result(outcome: engine.Outcome | None, seat: int) -> int:
    """Abstract Play's result: 1 a winner, 0 a loser; a draw (or a game still running)
    gives every player the same."""
    if outcome is None or outcome.draw:
        return 0 if outcome is None else 1
    return int(seat in outcome.winners)


@dataclass(frozen=True)
class Replayed:
    game: engine.Game
    names: tuple[str, ...]
    moves: tuple[tuple[int, str], ...]  # (seat, move), in the order played
    kept: dict[int, engine.State]  # ply p: the position after p moves, every EVERY-th and the last

    @property
    def final(self) -> engine.State:
        return self.kept[len(self.moves)]


def replay(data: Any) -> Replayed:
    """An uploaded Abstract Play record of one of this server's games, replayed through the
    engine move by move; ``BadRecord`` names the first thing that does not fit."""
    if not isinstance(data, dict) or not isinstance(data.get("header"), dict) \
            or not isinstance(data.get("moves"), list):
        raise BadRecord("This is not an Abstract Play game record: it needs a header and "
                        "moves.")
    header = data["header"]
    name = (header.get("game") or {}).get("name") if isinstance(header.get("game"), dict) \
        else None
    game = next((g for g in engine.GAMES.values() if g.title == name), None)
    if game is None:
        raise BadRecord("The record is of %(name)s; this server plays %(games)s.",
                        name=repr(name), games=tuple(g.title for g in engine.GAMES.values()))
    players = header.get("players")
    if not isinstance(players, list) or not players:
        raise BadRecord("The record names no players.")
    names = tuple(str(p.get("name", "?")) if isinstance(p, dict) else "?" for p in players)
    variants = header["game"].get("variants") or []
    options: dict[str, Any] = {}
    for variant in variants if isinstance(variants, list) else []:
        key, _, value = str(variant).partition("=")
        try:
            options[key] = json.loads(value)
        except ValueError:
            options[key] = value
    seed = header.get("startingPosition")
    try:
        state = game.start(len(names), options, str(seed or ""))
    except engine.InvalidGameSetup as error:
        raise BadRecord("The record's players or variants do not make a game: %(error)s",
                        error=error.args[0]) from None
    played: list[tuple[int, int, str]] = []  # (round, seat, move)
    for number, round_ in enumerate(data["moves"], start=1):
        if not isinstance(round_, list):
            raise BadRecord("Round %(number)s is not a list of moves.", number=number)
        for seat, entry in enumerate(round_):
            text = entry.get("move") if isinstance(entry, dict) else entry
            if text is not None:
                played.append((number, seat, str(text)))
    if len(played) > MOST_PLIES:
        raise BadRecord("The record has more than %(most)s moves, the most this server "
                        "reviews.", most=MOST_PLIES)
    kept = {0: state}
    for ply, (number, seat, text) in enumerate(played, start=1):
        try:
            state = game.apply(state, seat, text)
        except engine.IllegalMove as illegal:
            where: dict[str, Any] = dict(number=number, move=text, illegal=illegal.text,
                                         side=game.seat_name(len(names), seat))
            if seed:
                raise BadRecord("Round %(number)s, %(side)s: %(move)s is not legal there: "
                                "%(illegal)s", **where) from None
            raise BadRecord("Round %(number)s, %(side)s: %(move)s is not legal there: "
                            "%(illegal)s (a game dealt by chance needs its seed as "
                            "startingPosition: this server writes it once a game is over)",
                            **where) from None
        if ply % positions.EVERY == 0:
            kept[ply] = state
    kept[len(played)] = state
    return Replayed(game, names, tuple((seat, text) for _, seat, text in played), kept)


# -- review of an uploaded record ----------------------------------------------------------
#
# A record is replayed once, at upload, and its replay kept beside it (the moves, the names,
# the positions ``Replayed.kept``), so that a review page unpacks a kept position and plays
# at most EVERY - 1 moves from it, as a game's history page does.

def _keep(db: sqlite_utils.Database, record_id: str, replayed: Replayed) -> None:
    """Store the replay of the record ``record_id`` (inside a write transaction)."""
    db.execute("UPDATE uploaded_records SET engine = ?, names = ?, moves = ? WHERE id = ?",
               [positions.ENGINE, json.dumps(replayed.names), json.dumps(replayed.moves),
                record_id])
    db.execute("DELETE FROM record_positions WHERE record_id = ?", [record_id])
    if replayed.game.stored_positions:  # else replayed for each review (``_positions``)
        insert_rows(db, "record_positions", [
            {"record_id": record_id, "ply": ply, "state": positions.packed(state)}
            for ply, state in replayed.kept.items()])


@bp.get("/records")
def upload_form():
    return render_template("record_upload.html", games=engine.GAMES.values())


@bp.post("/records")
@limits.creating
def upload():
    """Keep an uploaded record (a file, or JSON pasted) that replays, with its replay, and
    show its review; one that does not replay is shown the form again with the reason, and
    kept nowhere."""
    request.max_content_length = UPLOAD_BYTES
    file = request.files.get("record")
    text = file.read().decode("utf-8", "replace") if file and file.filename \
        else request.form.get("pasted", "")
    try:
        replayed = replay(json.loads(text))
    except (BadRecord, ValueError) as error:  # JSON that does not parse, a ValueError
        message = error.text if isinstance(error, BadRecord) else \
            gettext("This is not JSON: upload the game record file as Abstract Play writes it.")
        return render_template("record_upload.html", games=engine.GAMES.values(),
                               error=message), 422
    record_id = secrets.token_urlsafe(9)
    with write(get_db()) as db:
        db.execute("INSERT INTO uploaded_records (id, game, record, created_at) "
                   "VALUES (?, ?, ?, ?)", [record_id, replayed.game.id, text, utc.iso(utc.now())])
        _keep(db, record_id, replayed)
    return redirect(url_for(".review", record_id=record_id, ply=len(replayed.moves)), 303)


@bp.get("/records/<record_id>/<int:ply>")
@limits.viewing
def review(record_id: str, ply: int):
    """The position after ``ply`` moves of an uploaded record: rendered once per language,
    then kept (a record never changes)."""
    key = ("record", record_id, ply, languages.current())
    html = RENDERS.get(key)
    if html is None:
        html = _review_page(get_db(), record_id, ply)
        RENDERS.put(key, html, len(html))
    return html


def _review_page(db: sqlite_utils.Database, record_id: str, ply: int) -> str:
    row = _replay_of(db, record_id)
    game, names = engine.get(row["game"]), json.loads(row["names"])
    moves = [tuple(move) for move in json.loads(row["moves"])]
    if not 0 <= ply <= len(moves):
        abort(404, gettext("This record has %(count)s plies; there is no ply %(ply)s.",
                           count=len(moves), ply=ply))
    base = ply - ply % positions.EVERY
    kept = _kept(db, record_id, game, base, len(moves))
    final = state = kept[len(moves)]
    if ply < len(moves):
        state = kept[base]
        for seat, move in moves[base:ply]:
            state = game.apply(state, seat, move)
    if final.outcome is None:  # a game ended off the board (a resignation): over all the same
        final = game.conclude(final, engine.Outcome((), False, engine.Text("the record ends")))
    drawing = board_for(game.id)
    last = moves[ply - 1][1] if ply else None
    svg = drawing.render(game.review_view(state, None, final), seat=None,
                         last=drawing.move_cells(last) if last else set())
    first = max(1, min(ply - LISTED // 2, len(moves) - LISTED + 1))  # the moves listed
    return render_template("record_review.html", game=game, names=names, ply=ply,
                           plies=len(moves), svg=svg, record_id=record_id, state=state,
                           first=first, listed=moves[first - 1:first - 1 + LISTED])


def _kept(db: sqlite_utils.Database, record_id: str, game: engine.Game, base: int,
          last: int) -> dict[int, engine.State]:
    """The positions kept at ply ``base`` (a multiple of ``positions.EVERY``) and ``last``
    of a record's replay; for a game whose states are not kept pickled (a plugin's), the
    record replayed again."""
    if not game.stored_positions:
        row = db.execute("SELECT record FROM uploaded_records WHERE id = ?",
                         [record_id]).fetchone()
        return replay(json.loads(row["record"])).kept
    return {row["ply"]: positions.unpacked(row["state"]) for row in db.execute(
        "SELECT ply, state FROM record_positions WHERE record_id = ? AND ply IN (?, ?)",
        [record_id, base, last]).fetchall()}


def _replay_of(db: sqlite_utils.Database, record_id: str) -> Any:
    """The record's row with its replay: replayed again, once, if it was kept by other
    rules than this engine's, or before replays were kept."""
    select = "SELECT game, engine, names, moves FROM uploaded_records WHERE id = ?"
    row = db.execute(select, [record_id]).fetchone()
    if row is None:
        abort(404, gettext("There is no uploaded record at this address."))
    if row["engine"] == positions.ENGINE:
        return row
    with write(db):
        hold_name(db, f"record:{record_id}")  # one process replays it
        again = db.execute("SELECT engine, record FROM uploaded_records WHERE id = ?",
                           [record_id]).fetchone()
        if again["engine"] != positions.ENGINE:
            try:
                _keep(db, record_id, replay(json.loads(again["record"])))
            except BadRecord as bad:
                abort(410, languages.translated(bad.text))
    return db.execute(select, [record_id]).fetchone()
