"""The Right Moves' round board as SVG, and how its moves are clicked.

The drawing follows the printed board: five rings of spaces around an empty centre, bands
bounded by dark circles, white paths joining the spaces (arcs along the rings, straight
spokes, and the two paths that cross the centre). Red pieces are round and Blue pieces
square, so the sides differ by shape as well as colour; a promoted piece has a double
outline and a crown.
"""
from __future__ import annotations

import math
import re
from typing import AbstractSet, Any, Mapping

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from engine import Text
from engine.the_right_moves import GAME, INDEX, JUMPED, LETTERS, PATHS, SPACES

from .cells import cell

# Radius of each ring (index 0 unused), and of the board's rim. Ring 3 has 16 spaces, so
# its radius sets how big a piece may be.
RADII = (0, 52, 104, 158, 212, 266)
RIM = 300
PIECE = 19      # a piece's radius (half the side of a Blue square)
SPACE = 9       # the printed space a piece rests on
HIT = 26        # the clickable disc around a space (the nearest two spaces are 52 apart)

# A skip to a space that is also the first landing of a jump from the same start would click
# the same two cells (both are "start, destination"), and the builder could not tell the
# skip from the jump, nor offer further landings of the chain only for the jump. So a
# step or skip whose destination lies where a jump could land (two spaces along a straight
# line, which is never a neighbouring space) ends with the choice token SKIP: after
# clicking the two cells the player either plays the jump (or clicks on to chain it) or
# clicks the "Skip there" button. Only promoted pieces skip, so ordinary steps and every
# jump are clicked without any button; the geometry alone decides, since ``click_path``
# sees only the move's text.
SKIP = "-"
_MOVE = re.compile(r"[1-5][a-p](?:-[1-5][a-p]|(?:x[1-5][a-p])+)")
_CHOICES = {SKIP: Text("Skip there (no jump)")}
# A piece's name by its colour and whether it is promoted: a whole phrase, as Russian
# adjectives agree with it
PIECE_NAMES = {("red", False): Text("Red piece"), ("blue", False): Text("Blue piece"),
               ("red", True): Text("promoted Red piece"),
               ("blue", True): Text("promoted Blue piece")}


def is_cell(token: str) -> bool:
    return token in INDEX


def click_path(move: str) -> tuple[str, ...]:
    """``4b-3b`` → (4b, 3b); ``3ex3gx3i`` → (3e, 3g, 3i); a skip ``3a-3c`` that a jump
    ``3ax3c`` could shadow → (3a, 3c, "-")."""
    if not _MOVE.fullmatch(move):
        raise ValueError(f"not a move of The Right Moves: {move!r}")
    cells = tuple(re.split(r"[-x]", move))
    if "-" in move and INDEX[cells[1]] in JUMPED[INDEX[cells[0]]]:
        return cells + (SKIP,)
    return cells


def choice_label(token: str) -> str:
    return gettext(_CHOICES[token])


def move_cells(move: str) -> set[str]:
    """The start, every landing, and for a jump every jumped space."""
    cells = re.findall(r"[1-5][a-p]", move)
    touched = set(cells)
    if "x" in move:
        for a, b in zip(cells, cells[1:]):
            over = JUMPED[INDEX[a]].get(INDEX[b])
            if over is not None:
                touched.add(SPACES[over].name)
    return touched


def _polar(radius: float, angle: float) -> tuple[float, float]:
    """The point ``radius`` from the centre, ``angle`` degrees counter-clockwise from east."""
    t = math.radians(angle)
    return round(radius * math.cos(t), 2), round(-radius * math.sin(t), 2)


def _path_d(a: str, b: str) -> str:
    """An arc for two neighbours on one ring (the short way round), else a straight line."""
    sa, sb = SPACES[INDEX[a]], SPACES[INDEX[b]]
    (x1, y1), (x2, y2) = _polar(RADII[sa.ring], sa.angle), _polar(RADII[sb.ring], sb.angle)
    if sa.ring == sb.ring and sa.ring > 1:
        r = RADII[sa.ring]
        # counter-clockwise on the page (y down) is sweep 0
        turn = (sb.angle - sa.angle) % 360
        sweep = 0 if turn < 180 else 1
        return f"M{x1} {y1} A{r} {r} 0 0 {sweep} {x2} {y2}"
    return f"M{x1} {y1} L{x2} {y2}"


MARGIN = 30     # around the rim, for the letters
# A crown drawn with lines (no font needed), centred on (0, 0), for promoted pieces.
CROWN = "M-9 5 L-10 -6 L-5 -1 L0 -9 L5 -1 L10 -6 L9 5 Z"


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None,
           last: AbstractSet[str] = frozenset()) -> Markup:
    """The board as printed (east at the right, Red starting upper left and lower right).
    Every seat sees it the same way round: the notation's letters are compass angles."""
    targets = targets or {}
    pieces = view["pieces"]
    spaces = "".join(
        _space(name, place, pieces.get(name), targets.get(name), name in selected, name in last)
        for name, place in _PLACES.items())
    label = escape(gettext("The Right Moves board"))
    return Markup(f'{_OPENING}aria-label="{label}">{_UNDER}{spaces}{_OVER}')


def _under() -> str:
    """What is drawn under the spaces (after ``_OPENING`` and its label): the rim, the
    bands between the rings (dark circles, the outer first), the centre and the paths."""
    bands = "".join(
        f'\n  <circle class="band band{ring}" r="{(RADII[ring] + RADII[ring + 1]) / 2}"/>'
        for ring in range(4, 0, -1))
    paths = "".join(f'\n    <path class="path" data-path="{a} {b}" d="{_path_d(a, b)}"/>'
                    for a, b in PATHS)
    return (f'\n  <circle class="rim" r="{RIM}"/>{bands}'
            f'\n  <circle class="centre" r="{RADII[1] * 0.35}"/>'
            f'\n  <g class="paths">{paths}\n  </g>')


def _over() -> str:
    """What is drawn over the spaces: the letters just outside the rim, and the ring
    numbers along the radius half a step below "a" (east)."""
    letters = "".join(_coordinate("coord", letter, RIM + 15, 22.5 * k)
                      for k, letter in enumerate(LETTERS))
    numbers = "".join(_coordinate("coord ring-number", ring, RADII[ring] + 26, -11.25)
                      for ring in range(1, 6))
    return f"{letters}{numbers}\n</svg>"


def _coordinate(kind: str, text: Any, radius: float, angle: float) -> str:
    x, y = _polar(radius, angle)
    return f'\n  <text class="{kind}" x="{x}" y="{y}" dy="0.35em" aria-hidden="true">{text}</text>'


def _places() -> dict[str, str]:
    """Each space's place: the transform of its drawing, which is centred on (0, 0)."""
    places = {}
    for space in SPACES:
        x, y = _polar(RADII[space.ring], space.angle)
        places[space.name] = f' transform="translate({x} {y})"'
    return places


_OPENING = (f'<svg xmlns="http://www.w3.org/2000/svg" class="board the-right-moves" '
            f'viewBox="{-RIM - MARGIN} {-RIM - MARGIN} {2 * (RIM + MARGIN)} '
            f'{2 * (RIM + MARGIN)}" role="group" ')
_UNDER, _OVER, _PLACES = _under(), _over(), _places()
_INNER = {space.name for space in SPACES if space.ring == 1}
# A piece's shapes, by whether it is round (Red; Blue's are square) and promoted (a double
# outline and a crown).
_SHAPES = {
    (True, False): f'\n      <circle class="body" r="{PIECE}"/>',
    (True, True): f'\n      <circle class="body" r="{PIECE}"/>'
                  f'<circle class="inner-outline" r="{PIECE - 5}"/>'
                  f'<path class="crown" d="{CROWN}"/>',
    (False, False): f'\n      <rect class="body" x="{-PIECE + 1}" y="{-PIECE + 1}" '
                    f'width="{2 * PIECE - 2}" height="{2 * PIECE - 2}" rx="3"/>',
    (False, True): f'\n      <rect class="body" x="{-PIECE + 1}" y="{-PIECE + 1}" '
                   f'width="{2 * PIECE - 2}" height="{2 * PIECE - 2}" rx="3"/>'
                   f'<rect class="inner-outline" x="{-PIECE + 6}" y="{-PIECE + 6}" '
                   f'width="{2 * PIECE - 12}" height="{2 * PIECE - 12}" rx="2"/>'
                   f'<path class="crown" d="{CROWN}"/>',
}


def _space(name: str, place: str, piece: Mapping[str, Any] | None, href: str | None,
           selected: bool, last: bool) -> str:
    """A space with its marks, piece and click target, named for screen readers by its
    name and piece ("3c: promoted Red piece")."""
    marks = f'{" last" if last else ""}{" selected" if selected else ""}'
    body = (f'\n    <circle class="hit" r="{HIT}" fill="transparent"/>'
            f'\n    <circle class="space{" inner" if name in _INNER else ""}{marks}" r="{SPACE}"/>')
    if marks:
        body += f'<circle class="mark{marks}" r="{PIECE + 4}"/>'
    title = name
    if piece:
        colour, promoted = piece["colour"], bool(piece["promoted"])
        title = f"{name}: {gettext(PIECE_NAMES[colour, promoted])}"
        if selected:
            title = gettext("%(square)s (selected)", square=title)
        body += (f'\n    <g class="piece {escape(colour)}{" promoted" if promoted else ""}">'
                 f'{_SHAPES[colour == "red", promoted]}\n    </g>')
    if href:
        body += f'<circle class="target" r="{PIECE + 2}"/>'
    return "\n  " + cell(name, title, body, href=href, labelled=bool(piece), attributes=place)


SIDES = dict(zip(("red", "blue"), GAME.seat_names[2]))  # the view's colours, as Text


def text(view: Mapping[str, Any], seat: int | None) -> str:
    """The board as plain text for emails: one row per ring (5 outside, 1 inside), one
    column per letter (a = east, counter-clockwise), then every piece listed by colour.
    ``r``/``b`` are Red and Blue pieces, ``R``/``B`` promoted ones (also starred in the list)."""
    pieces = view["pieces"]
    rings = {ring: gettext("ring %(ring)s", ring=ring) for ring in range(5, 0, -1)}
    width = max(map(len, rings.values())) + 2  # the letters over their columns
    header = " " * width + "  ".join(LETTERS)
    lines = [header]
    for ring, label in rings.items():
        row = []
        for letter in LETTERS:
            name = f"{ring}{letter}"
            piece = pieces.get(name)
            if name not in INDEX:
                row.append(" ")
            elif piece is None:
                row.append(".")
            else:
                mark = piece["colour"][0]
                row.append(mark.upper() if piece["promoted"] else mark)
        lines.append(f"{label:<{width}}" + "  ".join(row).rstrip())
    lines += ["", gettext("r = Red, b = Blue, R / B = promoted; . = empty space.")]
    for colour in ("red", "blue"):
        names = [f"{name}{'*' if piece['promoted'] else ''}"
                 for name, piece in sorted(pieces.items(), key=lambda item: INDEX[item[0]])
                 if piece["colour"] == colour]
        side = gettext(SIDES[colour])
        if view.get("colour") == colour:
            side = gettext("%(side)s (you)", side=side)
        lines.append(ngettext("%(side)s, %(num)d piece: %(pieces)s",
                              "%(side)s, %(num)d pieces: %(pieces)s", len(names), side=side,
                              pieces=" ".join(names) or gettext("none")))
    if any(piece["promoted"] for piece in pieces.values()):
        lines.append(gettext("* promoted"))
    return "\n".join(lines)
