"""Conditional moves: while waiting for the opponent, a player of a two-player game without
hidden information may store lines "if they play X, I reply Y, then if Z, W ...". When the
opponent plays the first move of a line, ``matches.record`` plays the reply at once, in the
same transaction, and the line goes on with the rest; lines that no longer match are
dropped. A seat's lines are its own (``conditional_lines``, never shown to anyone else),
private, mutable and not part of the game's log: only the moves they cause are.
"""
from __future__ import annotations

import json
from typing import Any

import engine
import sqlite_utils

from .errors import BadLines
from .store import utc

MAX_LINES = 50
MAX_LENGTH = 40  # moves in one line


def supported(game: engine.Game, players: int) -> bool:
    """Whether a game may have conditional moves: two players and nothing hidden (a line
    chosen from a partly known position would answer what its owner cannot see)."""
    return players == 2 and not game.hidden_information


def checked(game: engine.Game, state: engine.State, seat: int, raw: Any) -> list[list[str]]:
    """``raw`` lines as stored: each move in the game's own spelling, each line a legal
    sequence from ``state`` that begins with the opponent's move and ends with ``seat``'s."""
    if not isinstance(raw, list) or len(raw) > MAX_LINES:
        raise BadLines("'lines' must be a list of at most %(most)s lines.", most=MAX_LINES)
    if raw and (state.outcome is not None or seat in state.to_move or not state.to_move):
        raise BadLines("Conditional moves answer your opponent's next move: store them "
                       "while it is their turn.")
    lines = []
    for number, line in enumerate(raw, start=1):
        if not isinstance(line, list) or not 2 <= len(line) <= MAX_LENGTH or len(line) % 2 \
                or not all(isinstance(move, str) for move in line):
            raise BadLines("Line %(number)s must be a list of 2 to %(most)s moves, theirs then "
                           "yours in turn, ending with yours.", number=number, most=MAX_LENGTH)
        position, spelled = state, []
        for ply, move in enumerate(line):
            mover = position.to_move[0] if len(position.to_move) == 1 else None
            expected = seat if ply % 2 else next(s for s in range(state.players) if s != seat)
            if mover != expected and ply % 2:
                raise BadLines("Line %(number)s, move %(ply)s (%(move)s): it is not your move "
                               "there.", number=number, ply=ply + 1, move=move)
            if mover != expected:
                raise BadLines("Line %(number)s, move %(ply)s (%(move)s): it is not their move "
                               "there.", number=number, ply=ply + 1, move=move)
            try:
                spelled.append(game.canonical(position, mover, move))
                position = game.apply(position, mover, move)
            except engine.IllegalMove as error:
                raise BadLines("Line %(number)s, move %(ply)s (%(move)s): %(error)s",
                               number=number, ply=ply + 1, move=move, error=error.text) from None
        lines.append(spelled)
    return lines


def lines_of(db: sqlite_utils.Database, game_id: str, seat: int) -> list[list[str]]:
    row = db.execute("SELECT lines FROM conditional_lines WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    return json.loads(row[0]) if row else []


def store(db: sqlite_utils.Database, game_id: str, seat: int, lines: list[list[str]]) -> None:
    if lines:
        db.execute("INSERT INTO conditional_lines (game_id, seat, lines, updated_at) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET "
                   "lines = excluded.lines, updated_at = excluded.updated_at",
                   [game_id, seat, json.dumps(lines), utc.iso(utc.now())])
    else:
        db.execute("DELETE FROM conditional_lines WHERE game_id = ? AND seat = ?",
                   [game_id, seat])


def reply(db: sqlite_utils.Database, game_id: str, seat: int, played: str) -> str | None:
    """After the opponent played ``played``: ``seat``'s stored reply (the first line that
    begins with it), keeping the rest of every line that agrees with that reply; None, with
    every line dropped, if no line begins with it."""
    lines = lines_of(db, game_id, seat)
    if not lines:
        return None
    matching = [line for line in lines if line[0] == played]
    answer = matching[0][1] if matching else None
    store(db, game_id, seat, [line[2:] for line in matching
                              if line[1] == answer and len(line) > 2])
    return answer
