"""Analysis: lines of moves played from any position of a game's history, recorded nowhere.

A line starts at a ply of the game (its position as it was) and plays moves through the
engine, each in the game's notation. In a game with hidden information a line is refused
until the game is over: before that, a position would show what the viewer may not know,
or guess at it. Once it is over the seed and every secret are public, and positions are
shown whole (``review_view`` with the game's final state)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from engine import bots
from flask_babel import gettext

from .errors import AnalysisRefused
from .matches import Match

MAX_LINE = 200  # moves in one line: enough to play a game out, not to keep a worker busy
ASSESSING_LEVEL = "hard"  # the computer's view of a finished game: its strongest level
# ... within this many seconds (a web request waits for it), where its search stops early
ASSESSING_SECONDS = 1.0


@dataclass
class Line:
    """Moves played from ``start`` (a ply of the game) as far as they were legal: ``state``
    is the position after ``played``; ``error`` says why the line stops early, if it did."""

    match: Match
    viewer: int | None
    start: int
    state: engine.State
    played: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def mover(self) -> int | None:
        state = self.state
        return state.to_move[0] if state.outcome is None and state.to_move else None

    def legal_moves(self) -> list[str]:
        mover = self.mover
        return [] if mover is None else self.match.game.legal_moves(self.state, mover)

    def view(self) -> dict[str, Any]:
        game = self.match.game
        return game.review_view(self.state, self.viewer, self.match.current)

    def to_json(self) -> dict[str, Any]:
        state = self.state
        return {"ply": state.ply, "to_move": list(state.to_move) if state.outcome is None
                else [], "legal_moves": self.legal_moves(), "view": self.view(),
                "outcome": state.outcome.to_json() if state.outcome else None}


def allowed(match: Match) -> bool:
    """Whether ``match`` may be analysed now: always without hidden information, else once
    the game is over."""
    return match.finished or not match.game.hidden_information


def explore(match: Match, viewer: int | None, start: int, moves: list[str]) -> Line:
    """The line of ``moves`` from the position at ply ``start``, as far as they are legal
    (the first that is not stops it, and ``error`` names it)."""
    if not allowed(match):
        raise AnalysisRefused("%(game)s hides information: its positions can be analysed once "
                              "the game is over.", game=match.game.title)
    if not 0 <= start <= match.ply:
        raise AnalysisRefused("The game has no ply %(ply)s: it has %(plies)s so far.",
                              ply=start, plies=match.ply)
    game = match.game
    line = Line(match, viewer, start, match.states[start])
    for move in moves:
        state = line.state
        for mover in state.to_move if state.outcome is None else ():
            try:
                spelled = game.canonical(state, mover, move)
                line.state = game.apply(state, mover, spelled)
            except engine.IllegalMove:
                continue
            line.played.append(spelled)
            break
        else:
            line.error = gettext("%(move)s is not a legal move there: the line stops before "
                                 "it.", move=move)
            break
    return line


@dataclass(frozen=True)
class Assessment:
    move: str  # what the strongest level would play
    mover: int
    score: float  # how it rates the position for ``mover``: 0 lost, ½ even, 1 won


def assess(match: Match, state: engine.State) -> Assessment | None:
    """The computer's view of ``state``, a position of ``match``: only once the game is
    over (while it runs this would be help from outside), None where nobody is to move."""
    if not match.finished or state.outcome is not None or not state.to_move:
        return None
    mover = state.to_move[0]
    move, score = bots.assess(match.game, state, mover, level=ASSESSING_LEVEL,
                              seed=match.seed, seconds=ASSESSING_SECONDS)
    return Assessment(move, mover, score)
