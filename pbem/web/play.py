"""The pages a secret link opens: the game as a player (``/play/<token>``) or a spectator
(``/watch/<token>``), its actions, its history plies and its downloadable record; the
analysis board (``analysis_page``) and the conditional moves' page (``conditional_page``)
are routes of this blueprint, made there, and the record is ``gamerecord``'s.

Everything shown is built from ``game.view(state, seat)`` (``game.review_view`` for a
position of the history, which may show more once the game is over) and
``game.public_move(...)``, never from the state itself, so a page cannot show more than its
viewer may know.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import engine
from flask import (Blueprint, Response, abort, flash, jsonify, redirect, render_template,
                   request, session, url_for)
from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from ..boards import builder, cells
from .. import (analysis, blocks, clocks, commands, commitment, conditional, events, languages,
               links, lobby, matches, players, ratings, talk)
from ..mail import bounces, notify
from ..boards import board_for
from ..store import utc
from ..store.db import write
from .database import get_db
from ..matches import Match
from . import analysis_page, browser, conditional_page, limits
from .gamerecord import record
from .shown import ROLES, RENDERS, move_texts, move_times, open_link, open_seat

bp = Blueprint("play", __name__)
bp.add_url_rule(f"/{ROLES}/<token>/analysis", view_func=limits.assessing(
    analysis_page.analysis_board), methods=["GET", "POST"])
bp.add_url_rule("/play/<token>/conditional", view_func=limits.acting(
    conditional_page.conditional_moves), methods=["GET", "POST"])






def duration(seconds: int) -> str:
    """A move's time as players read it: "40 s", "12 min", "3 h 5 min", "2 d 4 h"."""
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if days:
        return gettext("%(days)s d %(hours)s h", days=days, hours=hours % 24) if hours % 24 \
            else gettext("%(days)s d", days=days)
    if hours:
        return gettext("%(hours)s h %(minutes)s min", hours=hours, minutes=minutes % 60) \
            if minutes % 60 else gettext("%(hours)s h", hours=hours)
    return gettext("%(minutes)s min", minutes=minutes) if minutes \
        else gettext("%(seconds)s s", seconds=seconds)


# -- the game page: a board drawn once per (game, event, viewer, ply, selection), a page
# rendered once per everything its viewer sees, both kept in RENDERS with PLACEHOLDER
# where the viewer's secret token goes (each of a seat's links gets the same page) --------

PLACEHOLDER = secrets.token_hex(16)  # no page can hold it by chance, nor anyone type it
# The code that draws pages, and the plugins' games by their versions: an ETag made by
# other code is a different page.
CODE = hashlib.sha256(b"".join(
    path.read_bytes() for folder in ("pbem", "engine", "templates")
    for path in sorted((Path(__file__).resolve().parents[2] / folder).rglob("*"))
    if path.suffix in (".py", ".html", ".txt", ".po")) + repr(sorted(
        engine.plugins.LOADED.items())).encode()).hexdigest()


QUERY_SAFE = "!$'()*,/:;?@"  # what url_for leaves unquoted in a query (werkzeug)


LISTED_MOST = 1500  # a game with thousands of moves (Magnetic Field) would make pages huge


@dataclass(frozen=True)
class Legal:
    """A seat's legal moves in a position, and the page's lists of them (empty when there
    are more than LISTED_MOST), made once for every page of the position."""
    moves: tuple[str, ...]
    options: Markup  # the <option>s of the typed move's list
    listed: Markup   # "a, b, c"

    @classmethod
    def of(cls, moves: tuple[str, ...]) -> Legal:
        if len(moves) > LISTED_MOST:
            return cls(moves, Markup(), Markup())
        escaped = escape("\n".join(moves)).split("\n")  # one escape: no move holds a "\n"
        return cls(moves, Markup("".join(f'<option value="{move}">' for move in escaped)),
                   Markup(", ".join(escaped)))

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def nbytes(self) -> int:
        """An estimate of the memory it holds (Magnetic Field has thousands of moves)."""
        return 100 + 60 * len(self.moves) + sum(map(len, self.moves)) \
            + len(self.options) + len(self.listed)


NOT_TO_MOVE = Legal((), Markup(), Markup())


@dataclass(frozen=True)
class Board:
    """The board of a game page and its move builder, as ``_board`` draws them."""
    legal: Legal   # the viewer's legal moves (none when it may not move now)
    build: builder.Build
    svg: Markup
    choices: tuple[tuple[str, str], ...]  # (label, link) of the builder's buttons
    described: tuple[str, ...]  # what the board shows, in words ("d1: Dark Master"), with
                                # the move being built on it
    text: str  # the position as the emails' plain text (scores, hands, a legend)

    @property
    def nbytes(self) -> int:
        """An estimate of the memory it holds, for RENDERS."""
        return 2000 + len(self.svg) + self.legal.nbytes + len(self.text) \
            + sum(60 + len(label) + len(link) for label, link in self.choices) \
            + sum(60 + len(words) for words in self.described)


def _board(match: Match, seat: int | None, role: str, ply: int | None,
           path: tuple[str, ...]) -> Board:
    """The board of the page at history ``ply`` (None: the game now) with the clicks
    ``path``, as ``seat`` may see it: drawn once, then reused from RENDERS. The key holds
    the viewer, so no board drawn for one seat (Magnet's values, a Magnetic Field hand) is
    ever shown to another, nor to a spectator (seat None); and the game's last event, so a
    move or an ending (which may reveal more) draws afresh."""
    key = ("board", match.id, match.last_seq, seat, ply, path, languages.current())
    board = RENDERS.get(key)
    if board is None:
        board = _draw(match, seat, role, ply, path)
        RENDERS.put(key, board, board.nbytes)
    return board


def _draw(match: Match, seat: int | None, role: str, ply: int | None,
          path: tuple[str, ...]) -> Board:
    game, drawing = match.game, board_for(match.game.id)
    state = match.states[ply] if ply is not None else match.current
    shown_ply = match.ply if ply is None else ply
    legal = _legal(match, seat) if ply is None and seat is not None and not match.waiting \
        else NOT_TO_MOVE
    build = builder.for_board(drawing, game, state, seat, legal.moves, path)

    clicked = f"{url_for('.page', role=role, token=PLACEHOLDER)}?path="

    def click(token_: str) -> str:  # url_for's link, without building the route each time
        return clicked + quote_plus(build.extend(token_), safe=QUERY_SAFE)

    last = match.moves[shown_ply - 1] if shown_ply else None
    view = game.review_view(state, seat, match.current)
    svg, choices = builder.drawn(
        drawing, view, seat, build, click, drawing.move_cells(game.public_move(
            last.seat, last.move, seat, match.current)) if last else set())
    return Board(legal, build, svg, choices, tuple(cells.described(svg)),
                 drawing.text(view, seat))


def _legal(match: Match, seat: int) -> Legal:
    """``seat``'s legal moves now: generated once per position, then reused by the clicks
    that build a move (each a board of its own; Magnet's moves take milliseconds)."""
    key = ("legal", match.id, match.last_seq, seat)
    legal = RENDERS.get(key)
    if legal is None:
        legal = Legal.of(tuple(match.game.legal_moves(match.current, seat)))
        RENDERS.put(key, legal, legal.nbytes)
    return legal


def _extras(match: Match, seat: int | None) -> dict[str, Any]:
    """What a game page shows besides the game's log: its clocks (which run), the
    viewer's conditional moves and notes, and whether email to the viewer bounces."""
    db = get_db()
    return {
        "clocks": clocks.of_match(match),
        "conditional_lines": conditional.lines_of(db, match.id, seat)
        if seat is not None and not match.finished
        and conditional.supported(match.game, match.players) else None,
        "notes": talk.notes(db, match.id, seat) if seat is not None else None,
        # the seats whose chat the viewer does not read: those they block or muted
        "hidden": blocks.unread_seats(db, match, seat),
        "others": _others(match, seat),
        # email to the seat's address bounces: the page says so, with a button to try again
        "bouncing": bounces.status(db, match.seats[seat].email) if seat is not None else None,
    }


def _others(match: Match, seat: int | None) -> list[tuple[int, str | None, bool]]:
    """The other people of the game as a player's page offers to mute, block or report
    them: (seat, their handle or None for a seat without an account, muted by the viewer)."""
    if seat is None:
        return []
    db = get_db()
    muted = blocks.muted_seats(db, match.id, seat)
    found = []
    for other in match.seats:
        if other.seat == seat or other.open or other.bot:
            continue
        owners = players.owners(db, match.id, other.seat)
        found.append((other.seat, owners[0].handle if owners else None, other.seat in muted))
    return found


def _etag(match: Match, seat: int | None, ply: int | None, path: tuple[str, ...],
          extras: dict[str, Any]) -> str | None:
    """The page's ETag: a digest of everything it shows its viewer (None while a flash
    message waits: shown once, it makes the page new), the player signed in too. From what
    the viewer may know alone (the events it may know of, not the log's length; no ids, no
    secret), so two games that differ only in a secret of another seat have the same
    ETag."""
    if session.get("_flashes"):
        return None
    shown_clocks = [(c.left_text, c.running, c.deadline_text, c.paused, c.vacation_text,
                     c.vacation_days_left) for c in extras["clocks"] or ()]
    lines = extras["conditional_lines"]
    notes = extras["notes"]
    # the notes' time as the page shows it, to the minute
    saved = notes and (notes["text"], (notes["updated_at"] or "")[:16])
    signed_in = browser.signed_in()  # the header names them
    parts = (CODE, languages.current(), signed_in and signed_in.handle, seat, ply, path,
             match.known_events(seat), match.expired, shown_clocks,
             None if lines is None else len(lines), saved, sorted(extras["hidden"]),
             extras["others"], extras["bouncing"])
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:24]  # no token's shape


def _viewed(match: Match, seat: int | None, token: str, role: str, ply: int | None = None):
    """A game page as its link opens it: 304 Not Modified when the viewer's copy (its ETag
    in If-None-Match) is the page as it is now, else the page from RENDERS or rendered."""
    path = builder.parse_path(request.args.get("path"))
    extras = _extras(match, seat)
    etag = _etag(match, seat, ply, path, extras)
    if etag is not None and etag in request.if_none_match:
        response = Response(status=304)
        response.set_etag(etag)
        return response
    key = ("page", match.id, match.last_seq, etag)
    html = RENDERS.get(key) if etag is not None else None
    if html is None:
        html = _render(match, seat, role, ply, path, extras)
        if etag is not None:
            RENDERS.put(key, html, len(html))
    response = Response(html.replace(PLACEHOLDER, token))
    if etag is not None:
        response.set_etag(etag)
    return response


def _game_page(match: Match, seat: int | None, token: str, role: str, *,
               status: int = 200, **shown: Any):
    """The game page as the answer to a form that was refused: never cached."""
    html = _render(match, seat, role, None, builder.parse_path(request.args.get("path")),
                   _extras(match, seat), **shown)
    return html.replace(PLACEHOLDER, token), status


def _render(match: Match, seat: int | None, role: str, ply: int | None,
            path: tuple[str, ...], extras: dict[str, Any], *, error: str | None = None,
            typed: str = "", error_in: str | None = None, draft: str = "") -> str:
    """The game page's HTML, with PLACEHOLDER for the viewer's token; ``error_in`` names
    the section whose form the error is about (chat, notes, rematch; None: the move forms
    at the top), ``draft`` what was typed into it."""
    board = _board(match, seat, role, ply, path)
    reviewing = ply is not None
    history_prefix = url_for(".history", role=role, token=PLACEHOLDER, ply=0)[:-1]
    return render_template(
        "play.html", match=match, seat=seat, role=role, token=PLACEHOLDER,
        here=url_for(".page", role=role, token=PLACEHOLDER),
        state=match.states[ply] if reviewing else match.current,
        shown_ply=match.ply if ply is None else ply, reviewing=reviewing, svg=board.svg,
        described=board.described, position_text=board.text, said=_said(match, seat, ply),
        move_list=_move_list(match, move_texts(match, seat), history_prefix, ply),
        legal=board.legal, build=board.build, error=error, typed=typed,
        choices=board.choices, history_prefix=history_prefix,
        framed=getattr(board_for(match.game.id), "FRAMED", False),
        time_control=clocks.describe(match.clock), error_in=error_in, draft=draft,
        chat=[event for event in match.chat_seen_by(seat)
              if event.seat not in extras["hidden"]],
        labels=ratings.seat_labels(get_db(), match), rating_counted=ratings.counted(match),
        version=match.known_events(seat),  # what the forms send back (commands.submit)
        analysable=analysis.allowed(match),
        takebacks=events.takebacks_allowed(match), committed=commitment.published(match),
        **extras)


def _said(match: Match, seat: int | None, ply: int | None) -> str:
    """The last move as the viewer may know it, in words: what a screen reader announces
    when the live page redraws after it (static/app.js)."""
    shown = match.ply if ply is None else ply
    if not shown:
        return ""
    mover = match.moves[shown - 1].seat
    assert mover is not None  # a move's event has its seat
    return gettext("%(name)s played %(move)s", name=match.seats[mover].name,
                   move=move_texts(match, seat)[shown - 1])


def _move_list(match: Match, texts: list[str], history_prefix: str,
               current: int | None) -> Markup:
    """The move list's items, each linking its ply. Built here rather than in the template
    because it is the one part of a page that grows with the game: one escape per move
    keeps a page at ply 400 nearly as cheap as at ply 10."""
    sides = [escape(languages.translated(match.seat_name(seat))) for seat in range(match.players)]
    prefix = escape(history_prefix)
    months, took_words = languages.short_months(), escape(gettext("took %(time)s", time="{}"))
    return Markup("".join(
        f'<li><a href="{prefix}{ply}"{" aria-current=step" if ply == current else ""}>'
        f'<span class="side">{sides[event.seat]}</span> {escape(text)}</a>'
        f' <small><time datetime="{at.isoformat()}">{at:%d} {months[at.month]} {at:%H:%M}'
        f'</time>, {took_words.format(duration(took))}</small></li>'
        for ply, (event, text, (at, took)) in enumerate(
            zip(match.moves, texts, move_times(match)), start=1)))


@bp.get(f"/{ROLES}/<token>")
@limits.viewing
def page(role: str, token: str):
    match, seat = open_link(token, role)
    if seat is not None:
        browser.remember(match.id, seat)
        notify.seen(get_db(), match.id, seat, utc.now())
    return _viewed(match, seat, token, role)


@bp.get(f"/{ROLES}/<token>/version")
def version(role: str, token: str):
    """What an open game page polls (``static/app.js``) to learn that the game moved on: the
    number of events of its log that the viewer may know of (``Match.known_events``), also
    as the ETag, so that a poll sent with the page's own count is answered 304 Not Modified
    with no rendering (the cached match catches up with one indexed query). Counting only
    what the viewer may know keeps a team's talk of resigning, or the players' chat before
    the end, from showing to others as a change."""
    match, seat = open_link(token, role)
    if seat is not None:
        notify.seen(get_db(), match.id, seat, utc.now())
    events = match.known_events(seat)
    response = jsonify(events=events)
    response.set_etag(str(events))
    return response.make_conditional(request)


@bp.get(f"/{ROLES}/<token>/history/<int:ply>")
@limits.viewing
def history(role: str, token: str, ply: int):
    match, seat = open_link(token, role)
    if ply > match.ply:
        abort(404, ngettext("This game has %(num)s ply so far; there is no ply %(ply)s.",
                            "This game has %(num)s plies so far; there is no ply %(ply)s.",
                            match.ply, ply=ply))
    return _viewed(match, seat, token, role, ply)




def _seen() -> tuple[int | None, int | None]:
    """(ply, version): what the form's page showed, the game's version
    (``Match.known_events``), or the ply, which a page from before versions sends."""
    try:
        if "version" in request.form:
            return None, int(request.form["version"])
        return int(request.form["ply"]), None
    except (KeyError, ValueError):
        abort(400, gettext("This form is incomplete (it lacks the ply you saw). Reload the "
                           "game page."))


def _command(route: str, answer: str | None = None,
             payload: events.Payload = None) -> events.Command:
    """The command a form of the game page asks for (``events.Words.page``)."""
    return events.Command(events.kinds_named("page", (route, answer)), payload)


# the forms of the game page's sections other than the move forms at its top, whose
# refusals show in their section, beside the text typed there
SECTIONS = {"play.chat": "chat", "play.notes": "notes", "play.rematch": "rematch"}


@bp.errorhandler(matches.ActionError)
def _refused(error: matches.ActionError):
    """A refusal of one of the game page's forms: the game page, as the refusal found the
    game (``ActionError.match``, else as it is now), the refusal shown at the form with
    what was typed there, with its status and headers."""
    token = (request.view_args or {})["token"]
    access = open_seat(token, "play")
    current = error.match or matches.load(get_db(), access.game_id)
    section = SECTIONS.get(request.endpoint or "")
    if section is None:
        shown = _game_page(current, access.seat, token, "play", error=error.message,
                           typed=request.form.get("move", ""), status=error.status)
    else:
        shown = _game_page(current, access.seat, token, "play", error=error.message,
                           status=error.status, error_in=section,
                           draft=request.form.get("text", ""))
    return *shown, error.headers


def _act(token: str, command: events.Command):
    access = open_seat(token, "play")
    ply, version = _seen()
    submitted = commands.submit(get_db(), access.game_id, access.seat, command, ply,
                                seen_version=version)
    seat = access.seat
    if submitted.already_recorded:
        flash(gettext("Your move was already recorded."))
    elif submitted.kind == "move":
        flash(_played(submitted.match, seat))
    elif submitted.kind == "withdraw":
        flash(gettext("You withdrew the game: it will not be played."))
    return redirect(url_for(".page", role="play", token=token), 303)


def _played(match: Match, seat: int) -> str:
    """What a move's page tells its mover: their own move, and the opponent's conditional
    replies it set off (recorded after it, in the same transaction)."""
    own = max(ply for ply, event in enumerate(match.moves) if event.seat == seat)
    said = gettext("You played %(move)s.", move=match.moves[own].move)
    replies = [event.move for event in match.moves[own + 1:]]
    if replies:
        said += " " + ngettext("Your opponent's conditional move %(moves)s followed.",
                               "Your opponent's conditional moves %(moves)s followed.",
                               len(replies), moves=", ".join(replies))
    return said


@bp.post("/play/<token>/move")
@limits.acting
def move(token: str):
    return _act(token, _command("move", payload=events.Move(request.form.get("move", ""))))


@bp.post("/play/<token>/resign")
@limits.acting
def resign(token: str):
    """Resign (in a team game: propose it, or confirm a partner's proposal), or with
    ``answer=decline`` decline a partner's proposal."""
    if request.form.get("answer") == "decline":
        return _act(token, _command("resign", "decline"))
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To resign, tick the box that confirms it."))
    return _act(token, _command("resign"))


@bp.post("/play/<token>/withdraw")
def withdraw(token: str):
    if request.form.get("confirm") != "yes":
        abort(400, gettext("To withdraw the game, tick the box that confirms it."))
    return _act(token, _command("withdraw"))


@bp.post("/play/<token>/invite")
@limits.creating
def invite(token: str):
    """A new join link for each open seat, for a creator who lost the first ones (only
    their hashes are stored: they are shown on the page of links this browser keeps,
    ``browser.keep_links``, with the creator's own link back to the game)."""
    match, seat = open_link(token, "play")
    if not match.hosts(seat):
        abort(422, gettext("Only the player who created a game makes join links for it, "
                           "and only while it waits for players."))
    if match.expired:
        abort(422, languages.translated(matches.expiry(match)))
    db = get_db()
    with write(db):
        joins = links.mint_all(db, [(match.id, s) for s in match.open_seats],
                               table=links.INVITATIONS)
    browser.keep_links(match.id, {"seats": {seat: token},
                                  "joins": dict(zip(match.open_seats, joins))})
    return redirect(url_for("site.shown_links", game_id=match.id), 303)


@bp.post("/play/<token>/draw")
@limits.acting
def draw(token: str):
    answer = request.form.get("answer")
    if not events.kinds_named("page", ("draw", answer)):
        abort(400, gettext("A draw can be offered, accepted or declined."))
    return _act(token, _command("draw", answer))


@bp.post("/play/<token>/takeback")
@limits.acting
def takeback(token: str):
    """Ask to take back one's last move (``answer`` offer), or answer the opponent's
    request (accept, decline)."""
    answer = request.form.get("answer")
    if answer not in ("offer", "accept", "decline"):
        abort(400, gettext("A takeback can be asked for, accepted or declined."))
    return _act(token, _command("takeback", None if answer == "offer" else answer))


@bp.post("/play/<token>/vacation")
@limits.acting
def vacation(token: str):
    """Pause the player's clock for the form's ``days`` (the year's allowance permitting)."""
    access = open_seat(token, "play")
    seat, days = access.seat, request.form.get("days", "").strip()
    if not re.fullmatch(r"[0-9]{1,3}", days):
        raise matches.InvalidRequest("Enter a whole number of days.")
    after = commands.submit(get_db(), access.game_id, seat,
                            _command("vacation", payload=events.Days(int(days)))).match
    seat_clocks = clocks.of_match(after)
    assert seat_clocks is not None  # a vacation is recorded only on a clock
    until = seat_clocks[seat].vacation_text
    flash(gettext("You are on vacation until %(date)s: your clock does not run meanwhile.",
                  date=until))
    return redirect(url_for(".page", role="play", token=token), 303)


def _back_to(token: str, section: str):
    return redirect(url_for(".page", role="play", token=token, _anchor=section), 303)


def _post_text(token: str, section: str, save):
    """The chat's and the notes' forms: ``save(db, game_id, seat, text)`` the form's text,
    then back to the page's ``section``."""
    match, seat = open_link(token, "play")
    save(get_db(), match.id, seat, request.form.get("text", ""))
    return _back_to(token, section)


def _post_chat(db: Any, game_id: str, seat: int, text: str) -> None:
    commands.submit(db, game_id, seat, _command("chat", payload=events.Message(text)))


@bp.post("/play/<token>/chat")
@limits.acting
def chat(token: str):
    return _post_text(token, "chat", _post_chat)


@bp.post("/play/<token>/notes")
def notes(token: str):
    return _post_text(token, "notes", talk.save_notes)


@bp.post("/play/<token>/rematch")
@limits.creating
def rematch(token: str):
    """Ask for a rematch; once every player has, open the new game (with a new link for
    this player's seat in it, however often they come back for it)."""
    match, seat = open_link(token, "play")
    after = commands.submit(get_db(), match.id, seat, _command("rematch")).match
    if after.rematch_id is None:
        return _back_to(token, "rematch")
    _, new_token = talk.rematch_link(get_db(), after, seat)
    return redirect(url_for(".page", role="play", token=new_token), 303)




@bp.get(f"/{ROLES}/<token>/record.json")
def record_json(role: str, token: str):
    match, seat = open_link(token, role)
    return Response(json.dumps(record(get_db(), match, seat), indent=2),
                    mimetype="application/json",
                    headers={"Content-Disposition":
                             f'attachment; filename="{match.game.id}-{match.id}.json"'})


@bp.get(f"/{ROLES}/<token>/record.txt")
def record_text(role: str, token: str):
    match, seat = open_link(token, role)
    text = render_template("record.txt", record=record(get_db(), match, seat), match=match,
                           options=lobby.options_text(match, seat), kinds=events.KINDS)
    return Response(text, mimetype="text/plain",
                    headers={"Content-Disposition":
                             f'attachment; filename="{match.game.id}-{match.id}.txt"'})
