"""Mastery's 8×8 board as SVG, and how its moves are clicked."""
from __future__ import annotations

import re
from typing import Any, Mapping

from flask import render_template
from markupsafe import Markup

from engine.mastery import FILES, KIND_NAMES

SQUARE = 56
MARGIN = 22
_MOVE = re.compile(r"~?([a-h][1-8])[-x]([a-h][1-8])(?:=([OP])@([a-h][1-8]))?")
_CHOICES = {"O": "Bring back an Officer", "P": "Bring back a Pawn"}


def is_cell(token: str) -> bool:
    return len(token) == 2 and token[0] in FILES and token[1] in "12345678"


def click_path(move: str) -> tuple[str, ...]:
    """``d2-d4`` → (d2, d4); ``~c6-c4`` → (c6, c4); ``d1xd5=O@b4`` → (d1, d5, O, b4)."""
    return tuple(token for token in _MOVE.fullmatch(move).groups() if token)


def choice_label(token: str) -> str:
    return _CHOICES[token]


def move_cells(move: str) -> set[str]:
    return set(re.findall(r"[a-h][1-8]", move))


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None, last: set[str] = frozenset()) -> Markup:
    """The board from ``seat``'s side (Light sees rank 8 at the bottom)."""
    targets = targets or {}
    flip = seat == 1
    squares = []
    for rank in range(1, 9):
        for file_index, file in enumerate(FILES):
            name = f"{file}{rank}"
            column = 7 - file_index if flip else file_index
            row = rank - 1 if flip else 8 - rank
            piece = view["board"].get(name)
            squares.append({
                "name": name, "x": MARGIN + column * SQUARE, "y": MARGIN + row * SQUARE,
                "dark": (file_index + rank) % 2 == 1, "piece": piece,
                "label": f"{('Dark', 'Light')[piece['owner']]} {KIND_NAMES[piece['piece']]}"
                         if piece else "",
                "href": targets.get(name), "selected": name in selected, "last": name in last})
    files = [(MARGIN + (7 - i if flip else i) * SQUARE + SQUARE / 2, f) for i, f in enumerate(FILES)]
    ranks = [(MARGIN + ((r - 1) if flip else (8 - r)) * SQUARE + SQUARE / 2, r) for r in range(1, 9)]
    return Markup(render_template("boards/mastery.svg", squares=squares, files=files,
                                  ranks=ranks, size=SQUARE, margin=MARGIN,
                                  width=2 * MARGIN + 8 * SQUARE))


def text(view: Mapping[str, Any], seat: int | None) -> str:
    """The board as plain text for emails, from ``seat``'s side like ``render`` (Light sees
    rank 8 at the bottom): Dark's pieces in capitals (M O P), Light's in small letters."""
    flip = seat == 1
    files = FILES[::-1] if flip else FILES
    ranks = range(1, 9) if flip else range(8, 0, -1)
    edge = "    " + " ".join(files)
    lines = [edge]
    for rank in ranks:
        row = []
        for file in files:
            piece = view["board"].get(f"{file}{rank}")
            row.append("." if piece is None else
                       piece["piece"] if piece["owner"] == 0 else piece["piece"].lower())
        lines.append(f" {rank}  {' '.join(row)}  {rank}")
    lines += [edge, "",
              "Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn."]
    off = []
    for side, counts in zip(("Dark", "Light"), view.get("off_board", ())):
        taken = [f"{n} {KIND_NAMES[kind]}{'s' if n > 1 else ''}"
                 for kind, n in counts.items() if n]
        off.append(f"{side} {', '.join(taken) if taken else 'none'}")
    if any(any(counts.values()) for counts in view.get("off_board", ())):
        lines.append("Off the board: " + "; ".join(off) + ".")
    return "\n".join(lines)
