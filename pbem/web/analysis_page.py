"""The analysis board (``/<role>/<token>/analysis``): the position at a ply of the game
after a line of moves, a move builder for whoever is to move there, and in a finished game
the computer's view; nothing is recorded. A route of the game's pages (``play``)."""
from __future__ import annotations

from typing import Any

import engine
from flask import abort, render_template, request, url_for

from .. import analysis, conditional
from ..boards import board_for, builder
from ..matches import Match
from .shown import RENDERS, move_texts, open_link


def analysis_board(role: str, token: str):
    """The analysis board: the position at history ``ply`` (default: the game now) after
    the line of moves ``m`` (the first ``at`` of them shown, default all), a move builder
    for whoever is to move there, and steps back and forth; nothing is recorded. Playing
    another move where the line goes on starts a branch. A POST (the same query) asks the
    computer's view too, in a finished game: seconds of work, so rate-limited and kept."""
    match, seat = open_link(token, role)
    try:
        start = request.args.get("ply", match.ply, type=int)
        line = analysis.explore(match, seat, start, request.args.getlist("m")[:analysis.MAX_LINE])
    except analysis.AnalysisRefused as refused:
        abort(422, refused.text)
    shown = min(max(request.args.get("at", len(line.played), type=int), 0), len(line.played))
    position = line if shown == len(line.played) else analysis.explore(
        match, seat, start, line.played[:shown])
    game, drawing = match.game, board_for(match.game.id)
    mover = position.mover
    build = builder.for_board(drawing, game, position.state, mover, position.legal_moves(),
                              builder.parse_path(request.args.get("path")))

    def link(moves: list[str], at: int | None = None, path: str | None = None,
             **more: Any) -> str:
        return url_for(".analysis_board", role=role, token=token, ply=start, m=moves,
                       at=None if at is None or at == len(moves) else at, path=path, **more)

    played = line.played[:shown]

    def then(move: str) -> str:
        """The line after ``move`` where it is shown: a step along it, or a new branch."""
        if line.played[shown:shown + 1] == [move]:
            return link(line.played, shown + 1)
        return link(played + [move])

    svg, choices = builder.drawn(drawing, position.view(), seat, build,
                                 lambda t: link(played, path=build.extend(t)),
                                 drawing.move_cells(played[-1]) if played else set())
    assessed = _assessed(match, start, tuple(played), position.state) \
        if request.method == "POST" else None
    waiting = seat is not None and not match.finished and seat not in match.current.to_move
    return render_template(
        "analysis.html", match=match, seat=seat, role=role, token=token, svg=svg,
        start=start, line=line.played, shown=shown, state=position.state, mover=mover,
        legal=position.legal_moves(), build=build, error=line.error, link=link, then=then,
        choices=choices,
        assessed=assessed, texts=move_texts(match, seat),
        # a line from the position now, opponent's move first, becomes conditional moves
        as_conditional=waiting and start == match.ply and played and len(played) % 2 == 0
        and conditional.supported(match.game, match.players))


def _assessed(match: Match, start: int, played: tuple[str, ...],
              state: engine.State) -> analysis.Assessment | None:
    key = ("assessed", match.id, start, played)
    assessed = RENDERS.get(key)
    if assessed is None:
        assessed = analysis.assess(match, state)
        RENDERS.put(key, assessed, 200 + sum(map(len, played)))
    return assessed
