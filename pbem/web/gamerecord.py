"""A game's record as a viewer may know it, which its downloads (``record.json``,
``record.txt``), the JSON API and the seat's feed give."""
from __future__ import annotations

from typing import Any

import sqlite_utils

from .. import blocks, events, languages
from ..matches import Match
from .shown import move_times


def record(db: sqlite_utils.Database, match: Match, viewer: int | None) -> dict[str, Any]:
    """The whole game as ``viewer`` may know it, for download (with the chat as the
    viewer may read it on the game's page: none of the seats it muted or whose players it
    blocks, ``blocks.unread_seats``); each move a takeback undid says so (``taken_back``)."""
    hidden = blocks.unread_seats(db, match, viewer)
    final = match.current
    moved = [event for event in match.events if event.kind == "move"]
    times = iter(move_times(match, moved))
    logged = []
    line: list[dict[str, Any]] = []  # the entries of the moves of the line as it stands
    for event in match.events:
        if not match.known_to(event, viewer) or event.kind == "chat" and event.seat in hidden:
            continue
        entry = {"seq": event.seq, "seat": event.seat, "action": event.kind,
                 "at": event.created_at}
        if event.kind == "move":
            ply = match.turns[event.seq][0]
            entry.update(ply=ply, took=next(times)[1], move=match.game.public_move(
                event.seat, event.move, viewer, final))
            line.append(entry)
        elif event.seq in match.turns:  # a takeback: back to this ply
            entry["ply"] = back = match.turns[event.seq][0]
            for undone in line[back:]:
                undone["taken_back"] = True
            del line[back:]
        elif isinstance(event.payload, events.Days):
            entry["days"] = event.payload.days
        elif isinstance(event.payload, events.Message):
            entry["text"] = event.payload.text
        elif isinstance(event.payload, events.Verdict):
            entry["draw"] = event.payload.draw
        logged.append(entry)
    return {
        "id": match.id, "game": match.game.id, "title": match.game.title,
        "options": match.options, "created_at": match.created_at,
        "players": [{"seat": s.seat, "side": match.seat_name(s.seat), "name": s.name}
                    for s in match.seats],
        "events": logged, "ply": match.ply,
        "outcome": match.outcome_json(), "result": languages.translated(match.result),
        # the seed decides every chance event: public only once nothing is left to hide
        **({"seed": match.seed} if match.finished else {}),
    }
