"""Magnet's hexagonal board as SVG, and the game's own builders: the secret setup and the
turn (magnet, order, promotions).

Everything drawn comes from ``view`` (what the viewer may know) and from the builder's
overlay, which is itself computed from the mover's knowledge only (``legal_moves``,
``path_preview``, ``parse``). A piece shows its owner by colour *and* shape (Red round, Blue
hexagonal), its rank as a number in a small badge (public), and its value in the middle: the
value's code (K, T2, T3, 2, 3, 4) where the view includes it (the viewer's own pieces, every
piece once the game is over), a "?" on a pale dashed face where it does not. The king wears a
gold ring, the traps a jagged ring. Captured pieces, whose values are public, are listed
under the board with them. The last turn's magnet (a horseshoe on a gold ring) and the
pieces' paths (arrows) are marked, as are the turn being built and its preview. Each player
sees the board turned so that their own start vertices are at the bottom, on the page and in
the emails' text drawing alike (``TURNED_FOR``: it depends on the seat alone).

Setup (a secret arrangement of the 12 pieces on the 12 start vertices). The click path holds
piece types and start vertices: a type (``K``, ``T2``, ``T3``, ``2``, ``3``, ``4``) then a
vertex places it; a vertex alone picks a placed piece up again (click another vertex to put
it there); ``random`` deals a fresh random arrangement, ``fill`` fills the empty vertices at
random. With JavaScript (``static/app.js``) pieces can be dragged onto the vertices too.

Turn. The click path is the magnet's vertex, then, when the order of the pieces matters (the
vertex has several legal turns with different piece lists), the pieces whose order matters
(``order_pieces``: those that may both reach the magnet, or whose order may decide the game)
in the order they should move, or on the opening turn the one piece that moves; then ``d4+``
/ ``d4-`` to tick or untick a promotion (only those the rules allow in that order). The
other pieces go where the legal list puts them. The preview before the confirm button says
where each affected piece goes and what it would capture, never whether a captured piece is
a trap (the mover cannot know it).
"""
from __future__ import annotations

import functools
import math
import random
import re
import textwrap
from collections import Counter
from typing import AbstractSet, Any, Mapping, NamedTuple, Sequence

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from engine.core import IllegalMove, Text
from engine.magnet import (CODES, FILES, GAME, INDEX, NAMES, RAYS, SET, START_NAMES,
                           order_pieces, path_preview, pixel)

from .builder import Build

SPACING = 46  # between neighbouring vertices
# The side margins leave just room for the rings round the pieces of files a and k (their
# ranks are written on their inner side): on a 390 px phone, where the board fills the
# screen's width, neighbouring vertices are then 40 px apart (390 px across 10 files of
# 39.8 and two margins), and so is each vertex's tap target.
MARGIN_X = 24
MARGIN_Y = 42  # above and below: the outline's corners and the file letters
PIECE = 16
LOST_PIECE = 11  # the pieces listed under the board
R3 = math.sqrt(3) / 2
CX = round(MARGIN_X + 5 * R3 * SPACING, 1)
CY = MARGIN_Y + 5 * SPACING
WIDTH = round(2 * CX, 1)
BOARD_HEIGHT = 2 * CY
LINE = 19  # height of a line of text under the board
WRAP = 62  # characters per line of text under the board

SIDES = GAME.seat_names[2]          # ("Red", "Blue"), engine.Text
COLOURS = ("red", "blue")
PIECE_CODES = ("K", "T2", "T3", "2", "3", "4")  # the table's order
COUNTS = Counter(CODES[k] for k in SET)
START = tuple(tuple(names.split()) for names in START_NAMES)
START_OF = {v: s for s, names in enumerate(START) for v in names}
RANDOM, FILL = "random", "fill"
CODE_WORDS = {"K": Text("king"), "T2": Text("trap T2"), "T3": Text("trap T3"),
              "2": Text("piece of value 2"), "3": Text("piece of value 3"),
              "4": Text("piece of value 4")}
_CHOICES = {"K": Text("King (K)"), "T2": Text("Trap T2"), "T3": Text("Trap T3"),
            "2": Text("Piece of value 2"), "3": Text("Piece of value 3"),
            "4": Text("Piece of value 4"), RANDOM: Text("Random arrangement"),
            FILL: Text("Fill the rest at random")}
_TURN = re.compile(r"([a-k]\d{1,2}):(.+)")


def _sort_key(name: str) -> int:
    return INDEX[name]


# -- the board-module interface ----------------------------------------------------------------

def is_cell(token: str) -> bool:
    return token in INDEX


def click_path(move: str) -> tuple[str, ...]:
    """``f6:f3+,d4`` → (f6, f3, d4, f3+); ``setup a2=K a3=T2 …`` → (K, a2, T2, a3, …)."""
    if move.startswith("setup"):
        return tuple(token for pair in move.split()[1:] for token in reversed(pair.split("=")))
    match = _TURN.fullmatch(move)
    if not match:
        raise ValueError(f"not a move of Magnet: {move!r}")
    pieces = match[2].split(",")
    return (match[1], *(p.rstrip("+") for p in pieces), *(p for p in pieces if p.endswith("+")))


def choice_label(token: str) -> str:
    if token in _CHOICES:
        return gettext(_CHOICES[token])
    if token.endswith("+"):
        return gettext("☐ Promote %(vertex)s", vertex=token[:-1])
    if token.endswith("-"):
        return gettext("☑ Promote %(vertex)s (click to untick)", vertex=token[:-1])
    return token


def move_cells(move: str) -> set[str]:
    """The vertices a turn names (a setup marks nothing: the last turn is drawn from the view)."""
    if move.startswith("setup"):
        return set()
    return {name for name in re.findall(r"[a-k]\d{1,2}", move) if name in INDEX}


# -- the builders ------------------------------------------------------------------------------

def build(game: Any, state: Any, seat: int, path: tuple[str, ...],
          legal: Sequence[str] | None = None) -> Build:
    """What ``seat`` (who is to move) may click after ``path``; an unknown path starts over.
    Reads the state only through ``view``, ``legal_moves`` (``legal``, if the caller has
    them), ``path_preview``, ``order_pieces`` and ``parse``, which give the mover nothing
    they do not know."""
    view = game.view(state, seat)
    if view["phase"] == "setup":
        return _build_setup(seat, path)
    legal = game.legal_moves(state, seat) if legal is None else legal
    return _build_turn(game, state, seat, view, legal, path)


# -- setup

def _left(placed: Mapping[str, str]) -> dict[str, int]:
    used = Counter(placed.values())
    return {code: COUNTS[code] - used[code] for code in PIECE_CODES}


def _deal(placed: dict[str, str], start: tuple[str, ...], rng: random.Random) -> None:
    """Fill the empty vertices of ``start`` with the pieces not yet placed, at random."""
    pool = [code for code, n in _left(placed).items() for _ in range(n)]
    rng.shuffle(pool)
    for vertex in start:
        if vertex not in placed:
            placed[vertex] = pool.pop()


def _walk_setup(seat: int, path: tuple[str, ...]) -> tuple[dict[str, str], str | None] | None:
    start = START[seat]
    placed: dict[str, str] = {}
    holding: str | None = None
    rng = random.SystemRandom()
    for token in path:
        if token == RANDOM:
            placed, holding = {}, None
            _deal(placed, start, rng)
        elif token == FILL:
            holding = None
            _deal(placed, start, rng)
        elif token in CODE_WORDS:
            if _left(placed)[token] <= 0:
                return None
            holding = token
        elif token in start:
            if holding:
                placed[token], holding = holding, None  # a piece already there goes back
            elif token in placed:
                holding = placed.pop(token)  # picked up: click a vertex to put it down
            else:
                return None
        else:
            return None
    return placed, holding


def _build_setup(seat: int, path: tuple[str, ...]) -> Build:
    walked = _walk_setup(seat, path)
    if walked is None:
        walked = {}, None
    placed, holding = walked
    start = START[seat]
    left = _left(placed)
    canonical = tuple(token for v in start if v in placed for token in (placed[v], v)) + (
        (holding,) if holding else ())
    overlay = {"mg_setup": {"placed": dict(placed), "holding": holding, "left": left,
                         "start": start, "seat": seat}}
    codes = tuple(code for code in PIECE_CODES if left[code] > 0)
    choices = codes + (RANDOM,) + ((FILL,) if 0 < len(placed) < len(start) else ())
    remaining = ", ".join(f"{code} ×{n}" for code, n in left.items() if n)
    if holding:
        return Build(path=canonical, cells=start, choices=choices, overlay=overlay,
                     summary=gettext("%(placed)s of 12 placed; holding your %(piece)s "
                                     "(%(code)s)", placed=len(placed),
                                     piece=gettext(CODE_WORDS[holding]), code=holding),
                     hint=gettext("Click one of your start vertices (tinted) for your "
                                  "%(piece)s (%(code)s); a piece already there goes back to "
                                  "the tray. Or choose another piece.",
                                  piece=gettext(CODE_WORDS[holding]), code=holding),
                     lists_moves=False)
    complete = None
    if len(placed) == len(start):
        complete = GAME.setup_text(seat, [_code_kind(placed[v]) for v in start])
        hint = gettext("Check your arrangement and confirm it: your opponent will not see it. "
                       "To change it, click a placed piece and then another start vertex (or "
                       "drag it), or take another random arrangement.")
        summary = gettext("all 12 pieces placed")
    else:
        hint = gettext("Arrange your 12 pieces on your start vertices (tinted), in secret: "
                       "click a piece type below the board (or a button), then a start "
                       "vertex; with a mouse you can also drag the pieces. Click a placed "
                       "piece to move it. Or take a random arrangement.")
        summary = gettext("%(placed)s of 12 placed; left: %(pieces)s", placed=len(placed),
                          pieces=remaining) if placed else None
    return Build(path=canonical, cells=tuple(v for v in start if v in placed), choices=choices,
                 complete=complete, overlay=overlay, summary=summary, hint=hint,
                 lists_moves=False)


def _code_kind(code: str) -> int:
    return CODES.index(code)


# -- turn

class _Turn:
    """Where a turn's click path has got to."""

    def __init__(self, magnet: str, orders: dict[tuple[str, ...], frozenset[str]],
                 preview: dict[str, dict[str, Any]], opening: bool, essential: list[str]):
        self.magnet = magnet
        self.orders = orders          # the legal piece lists (no promotion marks) -> promotable
        self.preview = preview        # path_preview for the magnet
        self.opening = opening
        self.essential = essential    # the pieces whose order matters (order_pieces)
        self.clicked: list[str] = []  # pieces clicked in order
        self.order: tuple[str, ...] | None = next(iter(orders)) if len(orders) == 1 else None
        self.allowed: frozenset[str] = next(iter(orders.values())) if len(orders) == 1 \
            else frozenset()
        self.promote: set[str] = set()

    def candidates(self) -> tuple[str, ...]:
        """The pieces that may be clicked next while the order is open."""
        if self.order is not None:
            return ()
        if self.opening:
            return tuple(sorted({order[0] for order in self.orders}, key=_sort_key))
        return tuple(v for v in self.essential if v not in self.clicked)


def _turn_orders(turns: list[str]) -> dict[tuple[str, ...], frozenset[str]]:
    orders: dict[tuple[str, ...], set[str]] = {}
    for text in turns:
        pieces = text.split(":")[1].split(",")
        plain = tuple(p.rstrip("+") for p in pieces)
        orders.setdefault(plain, set()).update(p[:-1] for p in pieces if p.endswith("+"))
    return {order: frozenset(allowed) for order, allowed in orders.items()}


def _promotable(game: Any, state: Any, seat: int, turn: _Turn, order: tuple[str, ...]
                ) -> frozenset[str]:
    """The pieces that may carry a promotion mark in ``order`` (which may be any order, not
    only the one the legal list names), asked of the rules one piece at a time."""
    if order in turn.orders:
        return turn.orders[order]
    allowed = set()
    for piece in order:
        if not (turn.preview[piece]["can_promote"] and turn.preview[piece]["can_move"]):
            continue
        text = turn.magnet + ":" + ",".join(p + ("+" if p == piece else "") for p in order)
        try:
            game.parse(state, seat, text)
        except IllegalMove:
            continue
        allowed.add(piece)
    return frozenset(allowed)


def _merge(fixed: list[str], free: list[str]) -> tuple[str, ...]:
    """The smallest list (in vertex order) that keeps ``fixed`` in its order and places the
    ``free`` pieces anywhere: how the legal list writes a turn."""
    out, i, j = [], 0, 0
    while i < len(fixed) and j < len(free):
        if _sort_key(fixed[i]) < _sort_key(free[j]):
            out.append(fixed[i])
            i += 1
        else:
            out.append(free[j])
            j += 1
    return tuple(out + fixed[i:] + free[j:])


def _settle(game: Any, state: Any, seat: int, turn: _Turn) -> None:
    """Fix the order once the clicks decide it: the last piece whose order matters goes last
    by itself, and the others go where the legal list puts them (their place changes
    nothing)."""
    if turn.opening:
        turn.order = (turn.clicked[0],)
    else:
        rest = [v for v in turn.essential if v not in turn.clicked]
        if len(rest) > 1:
            return
        free = [v for v in turn.preview if v not in turn.essential]
        turn.order = _merge(turn.clicked + rest, free)
    turn.allowed = _promotable(game, state, seat, turn, turn.order)


def _build_turn(game: Any, state: Any, seat: int, view: Mapping[str, Any],
                legal: Sequence[str], path: tuple[str, ...]) -> Build:
    magnets = tuple(sorted({m.split(":")[0] for m in legal}, key=_sort_key))
    first = Build(path=(), cells=magnets, overlay={"mg_turn": {"faint": magnets}},
                  hint=gettext("Click a vertex to place the magnet there (any vertex where it "
                               "moves one of your pieces). You will see which pieces it pulls "
                               "and where they would go before you confirm."))
    if not path or path[0] not in magnets:
        return first
    magnet = path[0]
    turns = [m for m in legal if m.split(":")[0] == magnet]  # = legal_turns(state, seat, magnet)
    orders = _turn_orders(turns)
    turn = _Turn(magnet, orders, path_preview(state, seat, magnet), bool(view["opening"]),
                 order_pieces(state, seat, magnet) if len(orders) > 1 else [])
    for i, token in enumerate(path[1:], start=1):
        if is_cell(token):
            if token in turn.candidates():
                turn.clicked.append(token)
                _settle(game, state, seat, turn)
            elif token in magnets and turn.order is not None:
                return _build_turn(game, state, seat, view, legal, (token,) + path[i + 1:])
            else:
                return _build_turn(game, state, seat, view, legal, (magnet,))
        elif token[-1:] in "+-" and turn.order is not None and token[:-1] in turn.allowed:
            (turn.promote.add if token[-1] == "+" else turn.promote.discard)(token[:-1])
        else:
            return _build_turn(game, state, seat, view, legal, (magnet,))
    return _turn_build(view, seat, turn, magnets)


# The hint while the order of the pieces is open, by whether the pieces race for the magnet
# (else their order may decide the game) and whether some are clicked already
_ORDER_HINTS = {
    (True, False): Text("The order of %(pieces)s matters here (the first to reach %(magnet)s "
                        "takes it, the others stop one vertex short): click them in the order "
                        "they should move. Your other pieces move too."),
    (True, True): Text("The order of %(pieces)s matters here (the first to reach %(magnet)s "
                       "takes it, the others stop one vertex short): click them in the order "
                       "they should move (%(clicked)s so far). Your other pieces move too."),
    (False, False): Text("The order of %(pieces)s matters here (which of them moves first may "
                         "decide the game): click them in the order they should move. Your "
                         "other pieces move too."),
    (False, True): Text("The order of %(pieces)s matters here (which of them moves first may "
                        "decide the game): click them in the order they should move "
                        "(%(clicked)s so far). Your other pieces move too.")}
# The turn built, by whether several pieces move in an order and whether any is promoted
_TURN_SUMMARIES = {
    (True, False): Text("magnet on %(vertex)s; order %(pieces)s"),
    (True, True): Text("magnet on %(vertex)s; order %(pieces)s; promote %(promoted)s"),
    (False, False): Text("magnet on %(vertex)s; moves %(pieces)s"),
    (False, True): Text("magnet on %(vertex)s; moves %(pieces)s; promote %(promoted)s")}


def _turn_build(view: Mapping[str, Any], seat: int, turn: _Turn,
                magnets: tuple[str, ...]) -> Build:
    magnet = turn.magnet
    shown_order = list(turn.order or turn.clicked)
    canonical = (magnet, *turn.clicked, *(p + "+" for p in (turn.order or ())
                                          if p in turn.promote))
    overlay = {"mg_turn": {"magnet": magnet, "preview": turn.preview, "order": shown_order,
                        "promote": sorted(turn.promote),
                        "faint": tuple(m for m in magnets if m != magnet)
                        if turn.order is not None else ()}}
    note = _preview_note(view, seat, turn)
    if turn.order is None:
        if turn.opening:
            hint = gettext("On the opening turn exactly one piece moves: click the piece that "
                           "should move (the arrows show where each would go).")
        else:
            race = all(turn.preview[v]["reaches"] for v in turn.essential)
            hint = gettext(_ORDER_HINTS[race, bool(turn.clicked)], magnet=magnet,
                           pieces=", ".join(turn.essential), clicked=", ".join(turn.clicked))
        summary = gettext("magnet on %(vertex)s; order %(pieces)s, …", vertex=magnet,
                          pieces=", ".join(turn.clicked)) if turn.clicked else \
            gettext("magnet on %(vertex)s", vertex=magnet)
        return Build(path=canonical, cells=turn.candidates(), overlay=overlay, note=note,
                     summary=summary, hint=hint)
    move = magnet + ":" + ",".join(p + ("+" if p in turn.promote else "") for p in turn.order)
    choices = tuple(p + ("-" if p in turn.promote else "+") for p in turn.order
                    if p in turn.allowed)
    hint = gettext("Check where your pieces go, then confirm.")
    if choices:
        hint += gettext(" Tick the promotions you want (a piece that moves and survives may "
                        "raise its rank by one, up to its value).")
    hint += gettext(" Click another vertex to move the magnet.")
    summary = gettext(_TURN_SUMMARIES[len(turn.order) > 1, bool(turn.promote)], vertex=magnet,
                      pieces=", ".join(turn.order),
                      promoted=", ".join(sorted(turn.promote, key=_sort_key)))
    return Build(path=canonical, cells=tuple(m for m in magnets if m != magnet),
                 choices=choices, complete=move, overlay=overlay, note=note, hint=hint,
                 summary=summary)


# A piece in the turn's preview, by whose it is (the mover's, or Red's or Blue's) and what
# the view says of its value: the king, another value, or none (unknown to the mover; the
# mover's own pieces show theirs)
_PREVIEW_PIECES = {
    ("yours", "K"): Text("your king, rank %(rank)s"),
    ("yours", "piece"): Text("your %(piece)s, rank %(rank)s"),
    (0, "K"): Text("Red's king, rank %(rank)s"),
    (0, "piece"): Text("Red's %(piece)s, rank %(rank)s"),
    (0, None): Text("Red's piece of rank %(rank)s, value unknown"),
    (1, "K"): Text("Blue's king, rank %(rank)s"),
    (1, "piece"): Text("Blue's %(piece)s, rank %(rank)s"),
    (1, None): Text("Blue's piece of rank %(rank)s, value unknown")}


def _value_kind(code: str | None) -> str | None:
    """How a piece's words name its value: "K", "piece" (its code's words) or None."""
    return code if code in (None, "K") else "piece"


def _piece_words(view: Mapping[str, Any], vertex: str, seat: int | None) -> str:
    piece = view["pieces"].get(vertex)
    if not piece:
        return gettext("an empty vertex")
    code = piece.get("piece")
    whose = "yours" if piece["owner"] == seat else piece["owner"]
    return gettext(_PREVIEW_PIECES[whose, _value_kind(code)], rank=piece["rank"],
                   piece=gettext(CODE_WORDS[code]) if code else "")


def _preview_note(view: Mapping[str, Any], seat: int, turn: _Turn) -> Markup:
    """Where each affected piece would go, in the order chosen (or by vertex)."""
    order = list(turn.order or turn.clicked)
    order += [v for v in turn.preview if v not in order]
    items = []
    reached_before = False
    for vertex in order:
        p = turn.preview[vertex]
        # what the piece does, in clauses each whole in itself
        clauses: list[str] = []
        if not p["can_move"]:
            clauses.append(gettext("cannot move (your piece on %(vertex)s blocks it)",
                                   vertex=turn.magnet))
        elif turn.opening and turn.order is not None and vertex not in turn.order:
            clauses.append(gettext("stays (on the opening turn only one piece moves)"))
        else:
            path = " → ".join([vertex] + p["path"])
            clauses.append(gettext("%(path)s, capturing %(pieces)s", path=path, pieces="; ".join(
                f"{v} ({_piece_words(view, v, seat)})" for v in p["captures"]))
                if p["captures"] else path)
            if p["reaches"] and turn.order is not None and reached_before:
                clauses.append(gettext("stops one vertex short of %(vertex)s if a piece of "
                                       "yours is there by then", vertex=turn.magnet))
            elif p["reaches"]:
                clauses.append(gettext("reaches the magnet"))
            if vertex in turn.promote:
                clauses.append(Markup(gettext("<em>promoted</em> if it survives")))
            reached_before = reached_before or p["reaches"]
        items.append(Markup("<li><strong>%s</strong> (%s): %s</li>") % (
            vertex, _piece_words(view, vertex, seat), Markup("; ").join(clauses)))
    parts = [Markup('<section class="mg-preview" aria-label="%s">')
             % gettext("Where your pieces go"),
             Markup("<h3>%s</h3>") % ngettext(
                 "A magnet on %(vertex)s pulls one of your pieces",
                 "A magnet on %(vertex)s pulls %(num)d of your pieces", len(turn.preview),
                 vertex=turn.magnet),
             Markup('<ol class="mg-moves">') + Markup("").join(items) + Markup("</ol>")]
    if any(p["captures"] for p in turn.preview.values()):
        parts.append(Markup('<p class="help">%s</p>') % gettext(
            "A captured piece may be a trap: if it is, your piece is removed after its move. "
            "You will only know after the turn."))
    parts.append(Markup("</section>"))
    return Markup("\n").join(parts)


# -- the drawing -------------------------------------------------------------------------------
# The SVG is built as strings: what depends only on the geometry and on which way up the board
# is drawn is made once (``_spots``, ``_coordinates``, ``_shape``), each drawing adds what
# varies. Every value from the view, the builder's overlay or the links is escaped where it
# goes into the markup.

# The seat whose start vertices are drawn on the upper sides (Red) sees the board turned
# round, so that each player's pieces start at the bottom; spectators see it as drawn.
TURNED_FOR = min((0, 1), key=lambda s: sum(pixel(v)[1] for v in START[s]))


def xy(name: str, turned: bool = False) -> tuple[float, float]:
    x, y = pixel(name, SPACING)
    if turned:
        x, y = -x, -y
    return round(CX + x, 1), round(CY + y, 1)


def polar(degrees: float, distance: float) -> tuple[float, float]:
    """An offset on screen (y downward), ``degrees`` anticlockwise from the right."""
    angle = math.radians(degrees)
    return round(distance * math.cos(angle), 2), round(-distance * math.sin(angle), 2)


def hexagon(r: float, first: float = 90) -> str:
    """A hexagon of radius ``r`` centred on (0, 0), its first corner at ``first`` degrees:
    with a point up (90), Blue's pieces; with points left and right (0), a vertex's cell."""
    return " ".join("{},{}".format(*polar(first + 60 * k, r)) for k in range(6))


# A vertex's tap target: the points nearer to it than to any other vertex.
CELL = hexagon(SPACING / 2 / R3, 0)
# Where the marks round a piece go (offsets from its vertex), each into a gap between the
# lattice's lines, clear of the path arrows. The rank badge (up-right) and the order number
# (down-left) sit in the two gaps that no neighbour's badge or number reaches: of the three
# vertices round each small triangle, only one has it up-right of it, only one down-left.
# The promotion mark sits closer in, up-left. A piece on the magnet's vertex (this turn's or
# the last) or where a piece was captured last turn has neither an order number nor a
# promotion (only the mover's moving pieces have them), so a small horseshoe takes the
# promotion's place and the capture's cross the order number's.
RANK_MARK, ORDER_MARK, PROMOTE_MARK = polar(60, 20), polar(240, 20), polar(120, 16)


def star(r_out: float, r_in: float, points: int) -> str:
    coords = []
    for k in range(2 * points):
        r = r_out if k % 2 == 0 else r_in
        angle = math.pi * k / points - math.pi / 2
        coords.append(f"{round(r * math.cos(angle), 2)},{round(r * math.sin(angle), 2)}")
    return " ".join(coords)


SPIKES = star(PIECE * 0.78, PIECE * 0.58, 10)  # a trap's jagged ring


def _lattice() -> list[tuple[float, float, float, float]]:
    """The straight lines of the lattice: 11 in each of 3 directions."""
    lines = []
    for i, name in enumerate(NAMES):
        for forward, backward in ((0, 1), (2, 3), (4, 5)):
            if RAYS[i][forward] and not RAYS[i][backward]:
                x1, y1 = xy(name)
                x2, y2 = xy(NAMES[RAYS[i][forward][-1]])
                lines.append((x1, y1, x2, y2))
    return lines


LATTICE = _lattice()


def _labels() -> list[tuple[str, float, float, str]]:
    """The coordinates round the board, as (vertex, dx, dy, text) for the board drawn the
    default way up, along the files: each file's letter under its rank 1 and its last rank
    above it; and beside files a and k, on their inner side (clear of their pieces and of
    the marks round their neighbours', in the gap between the lattice's lines), their
    ranks: on the outer side, at the drawing's edge, a phone's screen clipped them."""
    labels: list[tuple[str, float, float, str]] = []
    for name in NAMES:
        file, rank = name[0], int(name[1:])
        if rank == 1:
            labels.append((name, 0, 26, file))
        if file in "ak":
            labels.append((name, *((20.5, 4) if file == "a" else (-20.5, -4)), str(rank)))
        elif rank == 11 - abs(5 - FILES.index(file)):  # the top of its file
            labels.append((name, 0, -30, str(rank)))
    return labels


LABELS = _labels()


def _outline(upright: float = MARGIN_X, slanted: float = 34) -> str:
    """The board's hexagon: its upright sides ``upright`` beyond files a and k (on the
    drawing's edges), its slanted sides ``slanted`` beyond the outer vertices (room for the
    coordinates). The same both ways up."""
    corners = [xy(name) for name in ("a1", "a6", "f11", "k6", "k1", "f1")]
    sides = []  # (outward normal, its distance) of each side, from corner k to corner k + 1
    for k, (x1, y1) in enumerate(corners):
        x2, y2 = corners[(k + 1) % 6]
        length = math.hypot(x2 - x1, y2 - y1)
        sides.append(((y2 - y1) / length, (x1 - x2) / length, upright if x1 == x2 else slanted))
    points = []
    for k, (x, y) in enumerate(corners):
        (a1, b1, d1), (a2, b2, d2) = sides[k - 1], sides[k]
        det = a1 * b2 - a2 * b1
        dx, dy = (d1 * b2 - d2 * b1) / det, (a1 * d2 - a2 * d1) / det
        points.append(f"{round(x + dx, 1)},{round(y + dy, 1)}")
    return " ".join(points)


OUTLINE = _outline()

# What follows the drawing's height and label in its opening tag: the arrow heads, the
# board's outline, the lattice's lines.
BACKGROUND = (
    '">\n<defs>\n'
    '  <marker id="mg-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" '
    'markerHeight="4" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" '
    'class="arrow-head"/></marker>\n'
    '  <marker id="mg-arrow-preview" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" '
    'markerHeight="4" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" '
    'class="arrow-head preview"/></marker>\n</defs>\n'
    f'<polygon class="board-bg" points="{OUTLINE}"/>\n<path class="lattice" d="'
    + "".join(f"M{x1} {y1}L{x2} {y2}" for x1, y1, x2, y2 in LATTICE) + '"/>\n')
CENTRE_STAR = star(17, 7, 12)
ARROW_HEADS = {"trail": "mg-arrow", "preview": "mg-arrow-preview"}  # by the arrow's class
HORSESHOE = ('<path class="shoe" d="M-6 -7V1A6 6 0 0 0 6 1V-7"/>'
             '<path class="tips" d="M-6 -7V-3M6 -7V-3"/></g>')
BADGE = (f'<g class="rank"><circle cx="{RANK_MARK[0]}" cy="{RANK_MARK[1]}" r="7.5"/>'
         f'<text x="{RANK_MARK[0]}" y="{RANK_MARK[1]}" dy="0.35em">')
TRAY_X = tuple(round(20 + (WIDTH - 40) / len(PIECE_CODES) * (k + 0.5), 1)
               for k in range(len(PIECE_CODES)))


class _Spot(NamedTuple):
    """A vertex as drawn one way up."""
    x: float
    y: float
    ground: str  # its tap target, its start tint (if a start vertex) and its dot
    plain: str   # the whole vertex when nothing stands on it, marks it or clicks it


@functools.cache
def _spots(turned: bool) -> dict[str, _Spot]:
    spots = {}
    for name in NAMES:
        x, y = xy(name, turned)
        start = START_OF.get(name)
        ground = (f'\n  <polygon class="hit" points="{CELL}" transform="translate({x} {y})"/>'
                  + (f'<circle class="start start{start}" cx="{x}" cy="{y}" r="10"/>'
                     if start is not None else "")
                  + f'\n  <circle class="dot" cx="{x}" cy="{y}" r="3"/>')
        spots[name] = _Spot(x, y, ground, f'\n  <g class="cell" data-cell="{name}">'
                                          f'<title>{name}</title>{ground}</g>')
    return spots


@functools.cache
def _coordinates(turned: bool) -> str:
    """The files' letters and the ranks round the board (turned round with it)."""
    away = -1 if turned else 1  # a label's offset from its vertex turns round with the board
    return "".join(f'\n  <text class="coord" x="{x + away * dx}" y="{y + away * dy}" '
                   f'dy="0.35em">{label}</text>'
                   for name, dx, dy, label in LABELS for x, y in [xy(name, turned)])


def _kind(code: str | None) -> str:
    return ("unknown" if code is None else "king" if code == "K" else
            "trap" if code.startswith("T") else "plain")


@functools.cache
def _shape(round_body: bool, kind: str, size: float) -> str:
    """A piece's body (Red's round, Blue's hexagonal) and the ring its kind wears."""
    body = (f'<circle class="body" r="{size}"/>' if round_body else
            f'<polygon class="body" points="{hexagon(size + 1.5)}"/>')
    ring = {"king": f'<circle class="ring" r="{size * 0.74}"/>',
            "trap": f'<polygon class="spikes" points="{SPIKES}" '
                    f'transform="scale({size / PIECE})"/>',
            "unknown": f'<circle class="ring" r="{size * 0.7}"/>'}.get(kind, "")
    return body + ring


def _piece(owner: int, rank: Any, code: str | None, x: float, y: float, size: float = PIECE,
           *, badge: bool = True, pending: bool = False) -> str:
    """A piece centred on (x, y): its value in the middle ("?" on a dashed face when
    unknown), its rank in the badge; the king with a gold ring, the traps with a jagged
    ring."""
    kind = _kind(code)
    label = code or "?"
    value, rank_text = escape(label), escape(rank)
    return (f'<g class="piece {COLOURS[owner]} {kind}{" pending" if pending else ""}" '
            f'transform="translate({x} {y})" data-owner="{escape(owner)}" '
            f'data-rank="{rank_text}" data-value="{value}">{_shape(owner == 0, kind, size)}'
            f'\n  <text class="value{" long" if len(label) > 1 else ""}'
            f'{" small" if size < PIECE else ""}" dy="0.36em">{value}</text>'
            + (f"{BADGE}{rank_text}</text></g>" if badge else "") + "\n</g>")


# A piece's title on its vertex, by whether it is the reader's (or one they are placing,
# not yet confirmed) and what the view says of its value (the reader's own pieces show it)
_PIECE_TITLES = {
    ("theirs", None): Text("%(side)s piece, rank %(rank)s, value unknown"),
    ("theirs", "K"): Text("%(side)s king"),
    ("theirs", "piece"): Text("%(side)s %(piece)s, rank %(rank)s"),
    ("yours", "K"): Text("%(side)s (yours) king"),
    ("yours", "piece"): Text("%(side)s (yours) %(piece)s, rank %(rank)s"),
    ("placed", "K"): Text("%(side)s (yours) king (placed, not yet confirmed)"),
    ("placed", "piece"): Text("%(side)s (yours) %(piece)s, rank %(rank)s (placed, not yet "
                              "confirmed)")}


def _piece_title(owner: int, rank: Any, code: str | None, seat: int | None,
                 placed: bool = False) -> str:
    whose = "theirs" if code is None or owner != seat else "placed" if placed else "yours"
    return gettext(_PIECE_TITLES[whose, _value_kind(code)], side=gettext(SIDES[owner]),
                   rank=rank, piece=gettext(CODE_WORDS[code]) if code else "")


def _horseshoe(x: float, y: float, cls: str, scale: float) -> str:
    return (f'<g class="horseshoe {cls}" transform="translate({x} {y}) scale({scale})">'
            + HORSESHOE)


class _Marks:
    """What the view's overlays and the last turn mark on the vertices."""

    def __init__(self, view: Mapping[str, Any]):
        setup = view.get("mg_setup")
        turn = view.get("mg_turn") or {}
        last_turn = view.get("last_turn")
        moves = (last_turn or {}).get("moves", ())
        self.placed: Mapping[str, str] = setup["placed"] if setup else {}
        self.holding = setup["holding"] if setup else None
        self.drop = set(setup["start"]) if setup else set()
        self.preview: Mapping[str, Any] = turn.get("preview") or {}
        self.order = list(turn.get("order") or ())
        self.promote = set(turn.get("promote") or ())
        self.captures = {v for p in self.preview.values() for v in p["captures"]}
        self.faint = set(turn.get("faint") or ())
        self.magnet = turn.get("magnet")
        self.last_magnet = last_turn["magnet"] if last_turn else None
        self.took = {v for m in moves for v in m["captured"]}
        self.destroyed = {m["to"] for m in moves if m["destroyed"]}

    def vertices(self) -> set[str]:
        """The vertices marked."""
        return {*self.placed, *self.drop, *self.preview, *self.order, *self.promote,
                *self.captures, *self.took, *self.destroyed, self.magnet, self.last_magnet}


def _vertex(name: str, spot: _Spot, view: Mapping[str, Any], seat: int | None,
            marks: _Marks, href: str | None) -> str:
    """A vertex that something stands on, marks or clicks: a link if ``href``."""
    x, y = spot.x, spot.y
    words = [name]
    piece: tuple[int, Any, str | None] | None = None
    if name in marks.placed:
        assert seat is not None  # the pieces being placed are their setter's
        piece = (seat, 1, marks.placed[name])
        words.append(_piece_title(*piece, seat, placed=True))
    elif name in view["pieces"]:
        p = view["pieces"][name]
        piece = (p["owner"], p["rank"], p.get("piece"))
        words.append(_piece_title(*piece, seat))
    if name == view["centre"]:
        words.append(gettext("the centre"))
    if name in START_OF and view["phase"] == "setup":
        words.append(gettext("%(side)s start vertex", side=gettext(SIDES[START_OF[name]])))
    if name in marks.preview:
        p = marks.preview[name]
        words.append(gettext("pulled by the magnet: %(path)s", path=" → ".join(p["path"])
                             if p["can_move"] else gettext("blocked")))
    if name in marks.captures:
        words.append(gettext("would be captured"))
    if name == marks.last_magnet:
        words.append(gettext("the last turn's magnet"))
    title = ": ".join(words[:2]) + ("; " + "; ".join(words[2:]) if len(words) > 2 else "")

    body = [spot.ground]
    if name == marks.last_magnet:
        body.append(f'<circle class="magnet-ring last" cx="{x}" cy="{y}" r="20"/>')
    if name == marks.magnet:
        body.append(f'<circle class="magnet-ring pending" cx="{x}" cy="{y}" r="20"/>')
    if name in marks.preview:
        body.append(f'<circle class="affected" cx="{x}" cy="{y}" r="21"/>')
    if name in marks.captures:
        body.append(f'<circle class="capture" cx="{x}" cy="{y}" r="20.5"/>')
    if href:
        faint = " faint" if name in marks.faint and name not in marks.preview else ""
        body.append(f'<circle class="target{faint}" cx="{x}" cy="{y}" '
                    f'r="{20 if piece else 9}"/>')
    if piece:
        body.append("\n  " + _piece(*piece, x, y, pending=name in marks.placed))
    if name in marks.took:
        tx, ty = ORDER_MARK if piece else (0, 0)
        body.append(f'<path class="took" d="M{x + tx - 4} {y + ty - 4}l8 8m0 -8l-8 8"/>')
    if name in marks.destroyed:
        destroyed = escape(gettext("destroyed by a trap"))
        body.append(f'<path class="destroyed" d="M{x - 11} {y - 11}l22 22m0 -22l-22 22">'
                    f"<title>{destroyed}</title></path>")
    if name in marks.order and len(marks.order) > 1:
        ox, oy = x + ORDER_MARK[0], y + ORDER_MARK[1]
        body.append(f'<g class="order"><circle cx="{ox}" cy="{oy}" r="7.5"/><text x="{ox}" '
                    f'y="{oy}" dy="0.35em">{marks.order.index(name) + 1}</text></g>')
    if name in marks.promote:
        px, py = x + PROMOTE_MARK[0], y + PROMOTE_MARK[1]
        body.append(f'<g class="promote"><circle cx="{px}" cy="{py}" r="6"/><text x="{px}" '
                    f'y="{py}" dy="0.35em">+</text></g>')
    # one horseshoe: this turn's magnet if it is here, else the last turn's
    if name == marks.magnet or name == marks.last_magnet:
        mx, my = PROMOTE_MARK if piece else (0, 1)
        body.append(_horseshoe(x + mx, y + my, "pending" if name == marks.magnet else "last",
                               0.8 if piece else 1.45))

    described = title != name  # says more than its name: an image with a label
    title = escape(title)
    drop = ' data-drop="1"' if name in marks.drop else ""
    if href:
        drag = ' data-drag="1"' if name in marks.placed and not marks.holding else ""
        return (f'\n  <a href="{escape(href)}" class="cell" data-cell="{name}"{drop}{drag}>'
                f'<title>{title}</title>{"".join(body)}</a>')
    label = f' role="img" aria-label="{title}"' if described else ""
    return (f'\n  <g class="cell" data-cell="{name}"{drop}{label}><title>{title}</title>'
            f'{"".join(body)}</g>')


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None,
           last: AbstractSet[str] = frozenset()) -> Markup:
    """The board (for spectators with Red's start vertices on the upper three sides and
    Blue's on the lower three; each player sees their own at the bottom) and, under it, the
    state of the game in words, the captured pieces and, while setting up, the tray of
    pieces; ``targets`` maps the vertices and the builder's choices (piece types of the
    tray) that may be clicked to their links."""
    targets = targets or {}
    turned = seat == TURNED_FOR
    spots = _spots(turned)
    marks = _Marks(view)
    centre = view["centre"]
    # the vertices drawn one by one (the others as ``_Spot.plain``): the centre's title
    # says it is, and while the players set up, each start vertex's title says whose it is
    marked = marks.vertices() | view["pieces"].keys() | targets.keys() | {centre}
    if view["phase"] == "setup":
        marked |= START_OF.keys()
    centre_x, centre_y = xy(centre, turned)
    parts = [f'<polygon class="centre-star" points="{CENTRE_STAR}" '
             f'transform="translate({centre_x} {centre_y})"/>']

    for move in (view.get("last_turn") or {}).get("moves", ()):
        if move["from"] != move["to"]:
            parts.append(_arrow(move["from"], move["to"], turned, "trail",
                                gettext("last turn: %(from)s → %(to)s", **{
                                    "from": move["from"], "to": move["to"]})))
    for name, spot in spots.items():
        parts.append(_vertex(name, spot, view, seat, marks, targets.get(name))
                     if name in marked else spot.plain)
    opening_order = view.get("opening") and marks.order  # only the piece chosen moves
    for origin, p in marks.preview.items():
        if p["can_move"] and not (opening_order and origin not in marks.order):
            parts.append(_arrow(origin, p["path"][-1], turned, "preview",
                                f"{origin} → {' → '.join(p['path'])}", start=PIECE - 4,
                                stop=6 if p["path"][-1] in view["pieces"] else 0))
    parts.append(_coordinates(turned))

    parts.append('\n<g class="panel">')
    top: float = BOARD_HEIGHT + 6
    lines = _panel_lines(view, seat)
    parts += [f'\n  <text class="words {cls}" x="16" y="{top + LINE * (k + 1)}">'
              f'{escape(words)}</text>' for k, (words, cls) in enumerate(lines)]
    top += LINE * len(lines) + 8
    losses, top = _losses(view, top)
    parts.append(losses)
    if view.get("mg_setup"):
        tray, top = _tray(view["mg_setup"], targets, top)
        parts.append(tray)
    parts.append("\n</g>\n</svg>")
    label = escape(gettext("Magnet board"))
    return Markup(f'<svg xmlns="http://www.w3.org/2000/svg" class="board magnet" '
                  f'viewBox="0 0 {WIDTH} {top + 8}" role="group" '
                  f'aria-label="{label}{BACKGROUND}' + "".join(parts))


def _arrow(origin: str, end: str, turned: bool, cls: str, title: str, start: float = 0,
           stop: float = PIECE + 3) -> str:
    """A line from ``origin`` to ``end``, ``start`` after the one and ``stop`` before the
    other (the edge of a piece standing there)."""
    x1, y1 = xy(origin, turned)
    x2, y2 = xy(end, turned)
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1
    return (f'\n<line class="path {cls}" x1="{round(x1 + dx * start / length, 1)}" '
            f'y1="{round(y1 + dy * start / length, 1)}" '
            f'x2="{round(x2 - dx * stop / length, 1)}" y2="{round(y2 - dy * stop / length, 1)}" '
            f'marker-end="url(#{ARROW_HEADS[cls]})"><title>{escape(title)}</title></line>')


def _move_words(move: Mapping[str, Any]) -> str:
    """One piece's part of a turn, a whole clause for each thing it may have done (a piece
    that stays took nothing and was not promoted; a trap destroyed only a piece that took
    it, and nothing it destroyed was promoted)."""
    fields = {"from": move["from"], "to": move["to"], "pieces": ", ".join(move["captured"])}
    taken = len(move["captured"])
    if move["from"] == move["to"]:
        return gettext("%(vertex)s stays", vertex=move["from"])
    if move["destroyed"]:
        return ngettext("%(from)s → %(to)s took %(pieces)s and was destroyed by a trap",
                        "%(from)s → %(to)s took %(pieces)s and was destroyed by a trap",
                        taken, **fields)
    if taken and move["promoted"]:
        return ngettext("%(from)s → %(to)s took %(pieces)s (promoted)",
                        "%(from)s → %(to)s took %(pieces)s (promoted)", taken, **fields)
    if taken:
        return ngettext("%(from)s → %(to)s took %(pieces)s",
                        "%(from)s → %(to)s took %(pieces)s", taken, **fields)
    if move["promoted"]:
        return gettext("%(from)s → %(to)s (promoted)", **fields)
    return f"{move['from']} → {move['to']}"


def _last_turn_words(last: Mapping[str, Any]) -> str:
    return gettext("Last turn, %(side)s: magnet on %(vertex)s; %(moves)s",
                   side=gettext(SIDES[last["seat"]]), vertex=last["magnet"],
                   moves="; ".join(map(_move_words, last["moves"])))


# What the players' setups have got to, by whether Red and Blue have set up (public; once
# both have, the game is under way)
_SETUP_STATES = {
    (False, False): Text("Setup (secret) — %(red)s: arranging · %(blue)s: arranging"),
    (True, False): Text("Setup (secret) — %(red)s: set up · %(blue)s: arranging"),
    (False, True): Text("Setup (secret) — %(red)s: arranging · %(blue)s: set up")}


def _status_words(view: Mapping[str, Any], seat: int | None) -> list[tuple[str, str]]:
    phase = view["phase"]
    if phase == "setup":
        ready = view["set_up"]
        lines = [(gettext(_SETUP_STATES[bool(ready[0]), bool(ready[1])],
                          red=gettext(SIDES[0]), blue=gettext(SIDES[1])), "status")]
        if seat is not None and ready[seat] and not ready[1 - seat]:
            lines.append((gettext("Waiting for the opponent's setup."), "waiting"))
        elif seat is not None and not ready[seat] and ready[1 - seat]:
            lines.append((gettext("%(side)s has set up; now arrange your pieces.",
                                  side=gettext(SIDES[1 - seat])), "status"))
        return lines
    if phase == "over":
        return [(gettext("The game is over: every value is shown."), "status")]
    mover = ", ".join(gettext(SIDES[s]) for s in view["to_move"])
    if view["opening"]:
        return [(gettext("Turn %(turn)s: %(side)s to move (the opening turn: one piece moves)",
                         turn=view["turn"] + 1, side=mover), "status")]
    return [(gettext("Turn %(turn)s: %(side)s to move", turn=view["turn"] + 1, side=mover),
             "status")]


def _panel_lines(view: Mapping[str, Any], seat: int | None) -> list[tuple[str, str]]:
    lines = _status_words(view, seat)
    if view.get("last_turn"):
        for k, line in enumerate(textwrap.wrap(_last_turn_words(view["last_turn"]), WRAP)):
            lines.append((line if k == 0 else "   " + line, "last-turn"))
    lines.append((gettext("Middle: value (? unknown to you) · badge: rank · Red ○, Blue ⬡"),
                  "legend"))
    return lines


def _losses(view: Mapping[str, Any], top: float) -> tuple[str, float]:
    """Each side's pieces off the board: captured ones with their (public) values, and
    those a trap destroyed, with their value only where the view includes it; and the
    height drawn down to."""
    rows = []
    for owner in (0, 1):
        # (rank, code, title, destroyed) of each
        side = gettext(SIDES[owner])
        icons = [(1, c["piece"], gettext(
                     "%(side)s %(piece)s, captured on %(vertex)s (turn %(turn)s)", side=side,
                     piece=gettext(CODE_WORDS[c["piece"]]), vertex=c["vertex"],
                     turn=c["turn"] + 1), False)
                 for c in view["captured"] if c["owner"] == owner]
        icons += [(d["rank"], d.get("piece"), _destroyed_words(side, d), True)
                  for d in view["destroyed"] if d["owner"] == owner]
        if not icons:
            continue
        y = top + 14
        lost = escape(gettext("%(side)s lost:", side=side))
        rows.append(f'\n  <text class="words" x="16" y="{y}" dy="0.35em">{lost}</text>')
        for k, (rank, code, title, destroyed) in enumerate(icons):
            title = escape(title)
            rows.append(f'\n  <g class="lost{" destroyed" if destroyed else ""}" role="img" '
                        f'aria-label="{title}"><title>{title}</title>'
                        f'{_piece(owner, rank, code, 120 + k * 27, y, LOST_PIECE, badge=False)}'
                        "</g>")
        top += 30
    return "".join(rows), top


def _destroyed_words(side: str, destroyed: Mapping[str, Any]) -> str:
    """A piece a trap destroyed, its value said only where the view includes it."""
    fields = {"side": side, "rank": destroyed["rank"], "vertex": destroyed["vertex"],
              "turn": destroyed["turn"] + 1}
    if destroyed.get("piece"):
        return gettext("%(side)s piece of rank %(rank)s (%(piece)s), destroyed by a trap on "
                       "%(vertex)s (turn %(turn)s)", piece=gettext(CODE_WORDS[destroyed["piece"]]),
                       **fields)
    return gettext("%(side)s piece of rank %(rank)s, destroyed by a trap on %(vertex)s "
                   "(turn %(turn)s)", **fields)


def _tray(setup: Mapping[str, Any], targets: Mapping[str, str], top: float) -> tuple[str, float]:
    """The pieces still to place, each a link that picks it up; and the height drawn down
    to."""
    seat = setup["seat"]
    y = top + 40
    words = escape(gettext("Your pieces to place (click one, then a tinted start vertex):"))
    items = [f'\n  <g class="tray">\n  <text class="words" x="16" y="{top + 14}">{words}</text>']
    for code, x in zip(PIECE_CODES, TRAY_X):
        left = setup["left"][code]
        body = [f'\n    <circle class="hit" cx="{x}" cy="{y}" r="24"/>']
        if code == setup["holding"]:
            body.append(f'<circle class="selected" cx="{x}" cy="{y}" r="22"/>')
        body.append(_piece(seat, 1, code, x, y, badge=False) if left else
                    f'<circle class="empty-slot" cx="{x}" cy="{y}" r="{PIECE}"/>')
        body.append(f'\n    <text class="count" x="{x}" y="{y + 33}">{code} ×{escape(left)}'
                    "</text>")
        href = targets.get(code) if left else None
        if href:
            body.append(f'<circle class="target" cx="{x}" cy="{y}" r="21"/>')
        title = escape(gettext("%(piece)s (%(code)s): %(left)s left to place",
                               piece=gettext(CODE_WORDS[code]), code=code, left=left))
        if href:
            items.append(f'\n    <a href="{escape(href)}" class="choice tray-piece" '
                         f'data-choice="{code}" data-drag="1"><title>{title}</title>'
                         f'{"".join(body)}</a>')
        else:
            items.append(f'\n    <g class="choice tray-piece" data-choice="{code}">'
                         f'<title>{title}</title>{"".join(body)}</g>')
    items.append("\n  </g>")
    return "".join(items), top + 84


# -- the position as plain text (emails) --------------------------------------------------------

TEXT_CELL = 4  # characters between neighbouring files in the text drawing
TEXT_LEFT = 6  # characters left of file a (or k): room for the ranks beside it


def text(view: Mapping[str, Any], seat: int | None) -> str:
    """The board as plain text for emails, the same way up as on the reader's page (their
    own start vertices at the bottom), from ``view`` only: each piece as its side (R or B),
    its value (? when unknown to the reader) and its rank in brackets, e.g. ``B?(2)``; while
    the players set up, the start vertices still empty as r and b; the ranks at the edges
    and the files' letters above and below, as on the page."""
    turned = seat == TURNED_FOR
    away = -1 if turned else 1
    setup = view["phase"] == "setup"
    rows: dict[int, list[tuple[int, str]]] = {}  # row -> (first character, text)
    at: dict[str, tuple[int, int]] = {}          # vertex -> (row, centre character)
    for name in NAMES:
        x, y = pixel(name)
        row, centre = round(2 * y * away), TEXT_LEFT + round((x * away / R3 + 5) * TEXT_CELL)
        at[name] = row, centre
        piece = view["pieces"].get(name)
        if piece:
            mark = "RB"[piece["owner"]] + piece.get("piece", "?") + f"({piece['rank']})"
        elif setup and name in START_OF:
            mark = "rb"[START_OF[name]]
        else:
            mark = "*" if name == view["centre"] else "."
        rows.setdefault(row, []).append((centre - (len(mark) - 1) // 2, mark))
    files: list[tuple[int, str]] = []
    for name, _, _, label in LABELS:
        row, centre = at[name]
        if label.isalpha():
            files.append((centre, label))
        elif (FILES.index(name[0]) <= 5) != turned:  # a space from the widest mark, RT2(1)
            rows[row].append((centre - 3 - len(label), label))
        else:
            rows[row].append((centre + 5, label))

    def line_of(pieces: list[tuple[int, str]]) -> str:
        line = [" "] * (TEXT_LEFT * 2 + 10 * TEXT_CELL + 4)
        for first, mark in pieces:
            line[first:first + len(mark)] = mark
        return "".join(line).rstrip()

    letters = line_of(files)
    lines = [letters] + [line_of(rows[row]) for row in sorted(rows)] + [letters]
    if seat is None:
        words = [gettext("%(top)s starts at the top, %(bottom)s at the bottom.",
                         top=gettext(SIDES[TURNED_FOR]), bottom=gettext(SIDES[1 - TURNED_FOR]))]
    else:
        words = [gettext("Your pieces start at the bottom, as on your game page.")]
    words += [gettext("Files k to a from left to right; ranks count up from 1 at the top of "
                      "each file (the numbers at the edges); * is the centre f6.") if turned
              else gettext("Files a to k from left to right; ranks count up from 1 at the "
                           "bottom of each file (the numbers at the edges); * is the centre "
                           "f6."),
              gettext("R Red, B Blue, then the value (K king, T2 T3 traps, 2 3 4; ? not known "
                      "to you) and the rank in brackets: B?(2) is a Blue piece of rank 2.")]
    if setup:
        words.append(gettext("r and b: Red's and Blue's start vertices, for the pieces not yet "
                             "set up."))
    for owner in (0, 1):
        lost = [c["piece"] for c in view["captured"] if c["owner"] == owner]
        lost += [gettext("%(piece)s (trap victim)", piece=d.get("piece", "?"))
                 for d in view["destroyed"] if d["owner"] == owner]
        if lost:
            words.append(gettext("%(side)s lost: %(pieces)s.", side=gettext(SIDES[owner]),
                                 pieces=", ".join(lost)))
    if view.get("last_turn"):
        words.append(_last_turn_words(view["last_turn"]) + ".")
    lines.append("")
    for paragraph in words:
        lines += textwrap.wrap(paragraph, 76, break_long_words=False)
    return "\n".join(lines)
