"""Mastery's 8×8 board as SVG, with each side's pieces off the board, and how its moves are
clicked."""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Mapping, Sequence

from flask import render_template
from markupsafe import Markup

from engine.mastery import FILES, KIND_NAMES

from .. import builder

SQUARE = 56
MARGIN = 22
TRAY = 30  # the strip above and below the board: that side's pieces off the board
SIDES = ("Dark", "Light")
_MOVE = re.compile(r"~?([a-h][1-8])[-x]([a-h][1-8])(?:=([OP])@([a-h][1-8]))?")
# A capture that allows a resurrection ends with a choice: a kind to bring back (then its
# square), or NO_RESURRECTION. Neither is a default the confirm button would silently take.
NO_RESURRECTION = "none"
_CHOICES = {"O": "Bring back an Officer", "P": "Bring back a Pawn",
            NO_RESURRECTION: "No resurrection"}
_CHOSEN = {"O": "bring back an Officer", "P": "bring back a Pawn",
           NO_RESURRECTION: "no resurrection"}


def is_cell(token: str) -> bool:
    return len(token) == 2 and token[0] in FILES and token[1] in "12345678"


def click_path(move: str) -> tuple[str, ...]:
    """``d2-d4`` → (d2, d4); ``~c6-c4`` → (c6, c4); ``d1xd5=O@b4`` → (d1, d5, O, b4)."""
    return tuple(token for token in _MOVE.fullmatch(move).groups() if token)


def choice_label(token: str) -> str:
    return _CHOICES[token]


def move_cells(move: str) -> set[str]:
    return set(re.findall(r"[a-h][1-8]", move))


def build(game: Any, state: Any, seat: int | None, path: tuple[str, ...],
          legal: Sequence[str] | None = None) -> builder.Build:
    """The generic builder over the legal moves (``legal``, if the caller has them), except
    that a capture which allows a resurrection is clicked with a choice at its end:
    ``d1, d5, none`` plays ``d1xd5``."""
    moves = game.legal_moves(state, seat) if legal is None else legal
    resurrecting = {move.partition("=")[0] for move in moves if "=" in move}

    def clicks(move: str) -> tuple[str, ...]:
        return click_path(move) + ((NO_RESURRECTION,) if move in resurrecting else ())

    built = builder.build(moves, clicks, is_cell, path)
    choices = tuple(sorted(built.choices, key=list(_CHOICES).index))  # "none" last
    hint = None
    if NO_RESURRECTION in built.choices:
        hint = ("This capture lets you bring back one of your pieces off the board: "
                "choose which, or no resurrection.")
    elif built.path and built.path[-1] in ("O", "P"):
        hint = f"Click the empty square where your {KIND_NAMES[built.path[-1]]} comes back."
    summary = " → ".join(_CHOSEN.get(token, token) for token in built.path)
    return dataclasses.replace(built, choices=choices, hint=hint, summary=summary or None)


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None, last: set[str] = frozenset()) -> Markup:
    """The board from ``seat``'s side (Light sees rank 8 at the bottom), with each side's
    pieces off the board in a strip on that side's edge."""
    targets = targets or {}
    flip = seat == 1
    top = TRAY + MARGIN // 2  # of the top rank (the coordinates are left and below)
    squares = []
    for rank in range(1, 9):
        for file_index, file in enumerate(FILES):
            name = f"{file}{rank}"
            column = 7 - file_index if flip else file_index
            row = rank - 1 if flip else 8 - rank
            piece = view["board"].get(name)
            words = [name]
            if piece:
                words.append(f"{SIDES[piece['owner']]} {KIND_NAMES[piece['piece']]}")
            squares.append({
                "name": name, "x": MARGIN + column * SQUARE, "y": top + row * SQUARE,
                "dark": (file_index + rank) % 2 == 1, "piece": piece,
                "label": ": ".join(words) + (" (selected)" if name in selected else ""),
                "href": targets.get(name), "selected": name in selected, "last": name in last})
    files = [(MARGIN + (7 - i if flip else i) * SQUARE + SQUARE / 2, f) for i, f in enumerate(FILES)]
    ranks = [(top + ((r - 1) if flip else (8 - r)) * SQUARE + SQUARE / 2, r) for r in range(1, 9)]
    bottom = top + 8 * SQUARE + MARGIN
    trays = [_tray(view, 0 if flip else 1, TRAY / 2),
             _tray(view, 1 if flip else 0, bottom + TRAY / 2)]
    return Markup(render_template("boards/mastery.svg", squares=squares, files=files,
                                  ranks=ranks, trays=trays, size=SQUARE, margin=MARGIN,
                                  width=2 * MARGIN + 8 * SQUARE, height=bottom + TRAY,
                                  files_y=bottom - 6))


def _tray(view: Mapping[str, Any], owner: int, y: float) -> dict[str, Any]:
    """``owner``'s pieces off the board, one icon per kind with its count, centred on ``y``."""
    counts = view["off_board"][owner]
    start = x = MARGIN + 165  # after the label
    pieces = []
    for kind in "MOP":
        if counts[kind]:
            pieces.append({"kind": kind, "count": counts[kind], "x": x})
            x += 56
    return {"owner": owner, "y": y, "start": start, "pieces": pieces,
            "label": f"{SIDES[owner]}, off the board:",
            "words": f"{SIDES[owner]}, off the board: {_counted(counts)}"}


def _counted(counts: Mapping[str, int]) -> str:
    """``{"M": 0, "O": 1, "P": 2}`` → "1 Officer, 2 Pawns"; "none" when all are 0."""
    taken = [f"{n} {KIND_NAMES[kind]}{'s' if n > 1 else ''}" for kind, n in counts.items() if n]
    return ", ".join(taken) or "none"


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
    off = [f"{side} {_counted(counts)}" for side, counts in zip(SIDES, view.get("off_board", ()))]
    if any(any(counts.values()) for counts in view.get("off_board", ())):
        lines.append("Off the board: " + "; ".join(off) + ".")
    return "\n".join(lines)
