"""The conditional moves' page (``/play/<token>/conditional``): a line clicked through
an analysis of the position, stored as the player's answer to the opponent's next moves.
A route of the game's pages (``play``)."""
from __future__ import annotations

import re

import engine
from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import conditional, matches
from ..boards import board_for, builder
from ..matches import Match
from ..store.db import write
from .database import get_db
from .shown import open_link


def conditional_moves(token: str):
    """Conditional moves by clicking through an analysis of the position: the board after
    the line so far (its moves are the ``m`` parameters) and a move builder for whoever is
    to move there. POST stores the line (or removes the stored line ``remove``)."""
    match, seat = open_link(token, "play")
    if not conditional.supported(match.game, match.players):
        abort(404, gettext("%(game)s with %(players)s players has no conditional moves: they "
                           "need two players and nothing hidden.", game=match.game.title,
                           players=match.players))
    if request.method == "GET":
        line = request.args.getlist("m") + [m for m in [request.args.get("add")] if m]
        return _conditional_page(match, seat, token, line)
    db = get_db()
    try:
        with write(db):
            current = matches.load(db, match.id)
            lines = conditional.lines_of(db, match.id, seat)
            removed = request.form.get("remove", "")
            if re.fullmatch(r"[0-9]{1,3}", removed) and int(removed) < len(lines):
                del lines[int(removed)]
            else:
                lines.append(request.form.getlist("m"))
            conditional.store(db, match.id, seat,
                              conditional.checked(current.game, current.current, seat, lines))
    except conditional.BadLines as bad:
        return _conditional_page(matches.load(db, match.id), seat, token,
                                 request.form.getlist("m"), error=bad.text, status=422)
    flash(gettext("Your conditional moves are saved.") if not removed
          else gettext("The line is removed."))
    return redirect(url_for(".conditional_moves", token=token), 303)


def _conditional_page(match: Match, seat: int, token: str, line: list[str], *,
                      error: str | None = None, status: int = 200):
    game, board = match.game, board_for(match.game.id)
    state, played = match.current, []
    for move in line[:conditional.MAX_LENGTH]:
        try:
            moving = state.to_move[0]
            spelled = game.canonical(state, moving, move)
            state = game.apply(state, moving, spelled)
        except (engine.IllegalMove, IndexError):
            error = error or f"{move} is not a legal move there: the line stops before it."
            break
        played.append(spelled)
    mover = state.to_move[0] if state.outcome is None and state.to_move else None
    legal = game.legal_moves(state, mover) if mover is not None else []
    build = builder.build(legal, board.click_path, board.is_cell,
                          builder.parse_path(request.args.get("path")))

    def with_line(moves: list[str], path: str | None = None) -> str:
        return url_for(".conditional_moves", token=token, path=path, m=moves)

    svg, choices = builder.drawn(board, game.view(state, seat), seat, build,
                                 lambda t: with_line(played, build.extend(t)),
                                 board.move_cells(played[-1]) if played else set())
    waiting = not match.finished and seat not in match.current.to_move
    return render_template(
        "conditional.html", match=match, seat=seat, token=token, svg=svg, played=played,
        mover=mover, legal=legal, build=build, error=error, waiting=waiting,
        lines=conditional.lines_of(get_db(), match.id, seat), with_line=with_line,
        choices=choices), status
