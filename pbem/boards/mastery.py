"""Mastery's 8×8 board as SVG, with each side's pieces off the board, and how its moves are
clicked."""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import AbstractSet, Any, Mapping, Sequence

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from engine import Text
from engine.mastery import FILES, GAME

from . import builder
from .cells import cell

SQUARE = 56
MARGIN = 22
TRAY = 30  # the strip above and below the board: that side's pieces off the board
TOP = TRAY + MARGIN // 2  # of the top rank (the coordinates are left and below)
BOTTOM = TOP + 8 * SQUARE + MARGIN  # of the bottom coordinates
SIDES = GAME.seat_names[2]  # ("Dark", "Light"), engine.Text
# A piece's name by its owner and kind: a whole phrase, as Russian adjectives agree with it
PIECE_NAMES = {(0, "M"): Text("Dark Master"), (0, "O"): Text("Dark Officer"),
               (0, "P"): Text("Dark Pawn"), (1, "M"): Text("Light Master"),
               (1, "O"): Text("Light Officer"), (1, "P"): Text("Light Pawn")}
_MOVE = re.compile(r"~?([a-h][1-8])[-x]([a-h][1-8])(?:=([OP])@([a-h][1-8]))?")
# A capture that allows a resurrection ends with a choice: a kind to bring back (then its
# square), or NO_RESURRECTION. Neither is a default the confirm button would silently take.
NO_RESURRECTION = "none"
_CHOICES = {"O": Text("Bring back an Officer"), "P": Text("Bring back a Pawn"),
            NO_RESURRECTION: Text("No resurrection")}
_CHOSEN = {"O": Text("bring back an Officer"), "P": Text("bring back a Pawn"),
           NO_RESURRECTION: Text("no resurrection")}
_COMES_BACK = {"O": Text("Click the empty square where your Officer comes back."),
               "P": Text("Click the empty square where your Pawn comes back.")}


def is_cell(token: str) -> bool:
    return len(token) == 2 and token[0] in FILES and token[1] in "12345678"


def click_path(move: str) -> tuple[str, ...]:
    """``d2-d4`` → (d2, d4); ``~c6-c4`` → (c6, c4); ``d1xd5=O@b4`` → (d1, d5, O, b4)."""
    found = _MOVE.fullmatch(move)
    assert found is not None, move  # a legal move's text
    return tuple(token for token in found.groups() if token)


def choice_label(token: str) -> str:
    return gettext(_CHOICES[token])


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
        hint = gettext("This capture lets you bring back one of your pieces off the board: "
                       "choose which, or no resurrection.")
    elif built.path and built.path[-1] in ("O", "P"):
        hint = gettext(_COMES_BACK[built.path[-1]])
    summary = " → ".join(gettext(_CHOSEN[token]) if token in _CHOSEN else token
                         for token in built.path)
    return dataclasses.replace(built, choices=choices, hint=hint, summary=summary or None)


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None,
           last: AbstractSet[str] = frozenset()) -> Markup:
    """The board from ``seat``'s side (Light sees rank 8 at the bottom), with each side's
    pieces off the board in a strip on that side's edge."""
    targets = targets or {}
    board = view["board"]
    flip = seat == 1
    squares = "".join(
        _square(place, board.get(place.name), targets.get(place.name),
                place.name in selected, place.name in last) for place in _squares(flip))
    return Markup(f"{_opening()}{squares}{_coordinates(flip)}"
                  f"{_tray(view, 0 if flip else 1, TRAY / 2)}"
                  f"{_tray(view, 1 if flip else 0, BOTTOM + TRAY / 2)}\n</svg>")


def _opening() -> str:
    label = escape(gettext("Mastery board"))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="board mastery" '
            f'viewBox="0 0 {2 * MARGIN + 8 * SQUARE} {BOTTOM + TRAY}" role="group" '
            f'aria-label="{label}">')


@dataclasses.dataclass(frozen=True)
class _Place:
    """A square's drawing as far as it depends only on where the square is."""
    name: str
    square: str  # the square, up to the end of its class's colour
    disc: str    # a piece's disc, up to its letter
    target: str  # the mark of a square that may be clicked


@functools.cache
def _squares(flip: bool) -> tuple[_Place, ...]:
    """Every square in drawing order (a1, b1, ... h8), placed for one side's view."""
    places = []
    for rank in range(1, 9):
        for file_index, file in enumerate(FILES):
            x, y = _left(file_index, flip), _top(rank, flip)
            centre_x, centre_y = x + SQUARE / 2, y + SQUARE / 2
            places.append(_Place(
                name=f"{file}{rank}",
                square=f'<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" '
                       f'class="square {"dark" if (file_index + rank) % 2 == 1 else "light"}',
                disc=f'<circle cx="{centre_x}" cy="{centre_y}" r="{SQUARE * 0.38}"/>'
                     f'<text x="{centre_x}" y="{centre_y}" dy="0.35em">',
                target=f'<rect x="{x + 3}" y="{y + 3}" width="{SQUARE - 6}" '
                       f'height="{SQUARE - 6}" class="target"/>'))
    return tuple(places)


def _left(file_index: int, flip: bool) -> int:
    """The left edge of a file's squares."""
    return MARGIN + (7 - file_index if flip else file_index) * SQUARE


def _top(rank: int, flip: bool) -> int:
    """The top edge of a rank's squares."""
    return TOP + (rank - 1 if flip else 8 - rank) * SQUARE


def _square(place: _Place, piece: Mapping[str, Any] | None, href: str | None,
            selected: bool, last: bool) -> str:
    """A square, named for screen readers like the pieces' tooltips (see ``cell``): a
    square holding a piece is an image of its own ("c6: Light Pawn"), so no piece is read as
    a bare letter; the letters and coordinates are hidden."""
    body = f'\n  {place.square}{" last" if last else ""}{" selected" if selected else ""}"/>'
    label = place.name
    if piece:
        owner, kind = piece["owner"], piece["piece"]
        label = f"{label}: {gettext(PIECE_NAMES[owner, kind])}"
        body += (f'\n  <g class="piece owner{escape(owner)}" aria-hidden="true">'
                 f'{place.disc}{escape(kind)}</text></g>')
    if selected:
        label = gettext("%(square)s (selected)", square=label)
    if href:
        body += place.target
    return "\n  " + cell(place.name, label, body, href=href, labelled=bool(piece or selected))


@functools.cache
def _coordinates(flip: bool) -> str:
    """The files' letters below the board and the ranks' numbers on its left."""
    files = "".join(
        f'\n  <text class="coord" x="{_left(i, flip) + SQUARE / 2}" y="{BOTTOM - 6}" '
        f'aria-hidden="true">{file}</text>' for i, file in enumerate(FILES))
    ranks = "".join(
        f'\n  <text class="coord" x="{MARGIN / 2}" y="{_top(rank, flip) + SQUARE / 2}" '
        f'dy="0.35em" aria-hidden="true">{rank}</text>' for rank in range(1, 9))
    return files + ranks


def _tray(view: Mapping[str, Any], owner: int, y: float) -> str:
    """``owner``'s pieces off the board, one icon per kind with its count, centred on ``y``."""
    counts = view["off_board"][owner]
    start = x = MARGIN + 165  # after the label
    icons = []
    for kind in "MOP":
        if counts[kind]:
            icons.append(
                f'\n    <g class="piece owner{owner}" data-piece="{kind}"><circle cx="{x}" '
                f'cy="{y}" r="12"/><text x="{x}" y="{y}" dy="0.35em">{kind}</text></g>'
                f'\n    <text class="count" x="{x + 16}" y="{y}" dy="0.35em">'
                f'×{escape(counts[kind])}</text>')
            x += 56
    if not icons:
        none = escape(gettext("none"))
        icons.append(f'\n    <text class="count" x="{start}" y="{y}" dy="0.35em">{none}</text>')
    side = gettext(SIDES[owner])
    words = escape(gettext("%(side)s, off the board: %(pieces)s", side=side,
                           pieces=_counted(counts)))
    label = escape(gettext("%(side)s, off the board:", side=side))
    return (f'\n  <g class="off-board" data-owner="{owner}" role="img" aria-label="{words}">'
            f'<title>{words}</title>\n    <text class="tray-label" x="{MARGIN}" y="{y}" '
            f'dy="0.35em">{label}</text>{"".join(icons)}\n  </g>')


def _counted(counts: Mapping[str, int]) -> str:
    """``{"M": 0, "O": 1, "P": 2}`` → "1 Officer, 2 Pawns"; "none" when all are 0."""
    taken = [_COUNTED[kind](n) for kind, n in counts.items() if n]
    return ", ".join(taken) or gettext("none")


_COUNTED = {"M": lambda n: ngettext("%(num)d Master", "%(num)d Masters", n),
            "O": lambda n: ngettext("%(num)d Officer", "%(num)d Officers", n),
            "P": lambda n: ngettext("%(num)d Pawn", "%(num)d Pawns", n)}


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
              gettext("Dark: M O P (capitals), Light: m o p; M Master, O Officer, P Pawn.")]
    off = [gettext("%(side)s %(pieces)s", side=gettext(side), pieces=_counted(counts))
           for side, counts in zip(SIDES, view.get("off_board", ()))]
    if any(any(counts.values()) for counts in view.get("off_board", ())):
        lines.append(gettext("Off the board: %(pieces)s.", pieces="; ".join(off)))
    return "\n".join(lines)
