"""Magnetic Field's 10×10 field as SVG, with the hands, the deck and the scores under it, the
game's own turn builder, and the examples of its emails' move hint.

Everything drawn comes from ``view`` (what the viewer may know): the field, each player's
score and figure counts, the viewer's own tiles by code, the opponent's drafted (public) tiles
and only the *number* of their other tiles, and the deck's size.

Tiles differ by letter and by pattern as well as colour (Control: rings, Capture: cross-hatch,
Knockout: stripes, Domination: dots). A figure is a bar magnet drawn along its axis: the N
half solid in its owner's colour and lettered N, the S half pale and lettered S; Blue magnets
have square ends and Red ones round ends, so the sides differ by shape too. North is always up
(rank 10 at the top), for both players, because the notation's directions are absolute.

Turns. The list of legal moves leaves out turns that place several tiles, so the generic
builder cannot make them; ``build`` walks the clicks itself with ``GAME.turn_options`` (which
reads only the mover's own hand and the public field). A click path is: any number of
(tile code, cell) pairs, then at most one figure action, one of

- an empty cell then a direction (enter facing that way), or ``+n``/``+e``/... then a cell;
- one of the mover's figures then a direction (rotate) or a cell in line (move);

or ``pass`` alone; in the draft, ``pick-K`` and the like. Once a figure action is chosen,
the field itself shows the turn's result up to the draw (``GAME.preview``: the reaction, the
new counts and scores), and the words before the confirm button say what happened.
"""
from __future__ import annotations

import re
from typing import AbstractSet, Any, Mapping, NamedTuple, Sequence

from flask_babel import gettext, ngettext
from markupsafe import Markup, escape

from engine.core import IllegalMove, Text
from engine.magnetic_field import (CELL_INDEX, CENTRE, COLOURS, DIRECTIONS, FILES, PASS_LIMIT,
                                   SIZE, TILE_NAMES, TILE_ORDER)

from .builder import Build
from .words import translated

FRAMED = True  # the field alone pans in its .board-frame on a phone, not the panel below it

CELL = 48
MARGIN = 26
FIELD = SIZE * CELL
WIDTH = 2 * MARGIN + FIELD
MAGNET_HALF_LENGTH = 21
MAGNET_HALF_WIDTH = 10
POLE_FONT = 14
# The drawing under the field is narrower than the field, so that on a phone (where the
# field pans) it still fits the screen with tiles big enough to tap.
PANEL_WIDTH = 400
HAND_X = 16
HAND_TILE = 36
HAND_HIT = 48  # the clickable square around a tile
HAND_STEP = 52
POOL_STEP = 96

_CELL = re.compile(r"[a-j](?:10|[1-9])")
VECTORS = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}
ANGLES = {"n": 0, "e": 90, "s": 180, "w": 270}
ARROWS = {"n": "↑", "e": "→", "s": "↓", "w": "←"}
DIRECTION_WORDS = {"n": Text("north"), "e": Text("east"), "s": Text("south"), "w": Text("west")}
COLOUR_NAMES = {colour.lower(): colour for colour in COLOURS}  # the view's colours, as Text
# A figure's name by its colour: a whole phrase, as Russian adjectives agree with it
FIGURE_NAMES = {"blue": Text("Blue figure"), "red": Text("Red figure")}
PASS = "pass"
PICK = "pick-"
ENTER = "+"
CENTRE_NAMES = frozenset(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in CENTRE)


# -- the board-module interface ----------------------------------------------------------------

def is_cell(token: str) -> bool:
    return bool(_CELL.fullmatch(token))


def click_path(move: str) -> tuple[str, ...]:
    """The clicks that make ``move``: ``pick K`` → (pick-K); ``pass`` → (pass);
    ``K@e5 D@e6 +e4:n`` → (K, e5, D, e6, e4, n); ``e4:w`` → (e4, w); ``e4-e7`` → (e4, e7)."""
    words = move.split()
    if len(words) == 2 and words[0] == "pick":
        return (PICK + words[1],)
    if words == [PASS]:
        return (PASS,)
    path: list[str] = []
    for word in words:
        if match := re.fullmatch(r"([CXKD])@([a-j]\d+)", word):
            path += [match[1], match[2]]
        elif match := re.fullmatch(r"\+([a-j]\d+):([nesw])", word):
            path += [match[1], match[2]]
        elif match := re.fullmatch(r"([a-j]\d+)[:-]([a-j]\d+|[nesw])", word):
            path += [match[1], match[2]]
        else:
            raise ValueError(f"not a move of Magnetic Field: {move!r}")
    return tuple(path)


def choice_label(token: str) -> str:
    if token == PASS:
        return gettext("Pass (no tile, no figure action)")
    if token.startswith(PICK):
        return _pick_words(token[len(PICK):])
    if token in TILE_NAMES:
        return _place_words(token)
    if token.startswith(ENTER):
        d = token[1:]
        return gettext("Enter a figure, N pole %(arrow)s %(direction)s", arrow=ARROWS[d],
                       direction=gettext(DIRECTION_WORDS[d]))
    return gettext("N pole %(arrow)s %(direction)s", arrow=ARROWS[token],
                   direction=gettext(DIRECTION_WORDS[token]))


def _pick_words(code: str) -> str:
    return gettext("Pick %(tile)s (%(code)s)", tile=gettext(TILE_NAMES[code]), code=code)


def _place_words(code: str) -> str:
    return gettext("Place a %(tile)s tile (%(code)s)", tile=gettext(TILE_NAMES[code]),
                   code=code)


def move_cells(move: str) -> set[str]:
    return set(_CELL.findall(move))


# -- the turn builder ------------------------------------------------------------------------

def build(game: Any, state: Any, seat: int, path: tuple[str, ...],
          legal: Sequence[str] | None = None) -> Build:
    """What ``seat`` (who is to move) may click after ``path``; an unknown path starts over.
    Reads the state only through ``view``, ``turn_options`` and ``preview``, which give the
    mover nothing they do not know (not ``legal``: the list leaves out turns of several
    tiles)."""
    view = game.view(state, seat)
    if view["phase"] == "draft":
        picks = tuple(PICK + code for code in view["draft_pool"])
        if len(path) == 1 and path[0] in picks:
            code = path[0][len(PICK):]
            return Build(path=path, complete=f"pick {code}",
                         summary=gettext("pick %(code)s", code=code),
                         hint=gettext("Confirm your pick, or start again."))
        return Build(path=(), choices=picks,
                     hint=gettext("Pick one face-up tile: click it under the field or use a "
                                  "button."))
    walked = _walk(game, state, seat, path)
    return _build_from(game, state, seat, view,
                       _started(game, state, seat) if walked is None else walked)


class _Walk:
    """Where a click path has got to."""

    def __init__(self, path: tuple[str, ...], placed: list[str], options: dict[str, Any]):
        self.path = path
        self.placed = placed      # "K@e5", in order
        self.options = options    # turn_options after the placements
        self.stage = "tiles"      # tiles | tile | facing | cell | figure | done
        self.code = ""            # stage tile: the tile chosen
        self.cell = ""            # stage cell / figure: the cell clicked
        self.facing = ""          # stage facing: the direction chosen before the cell
        self.action = ""          # stage done: the figure action ("" for tiles only / pass)


def _started(game: Any, state: Any, seat: int) -> _Walk:
    """The walk of a turn not begun, where an unknown path starts over."""
    walk = _walk(game, state, seat, ())
    assert walk is not None  # nothing clicked yet: nothing to refuse
    return walk


def _walk(game: Any, state: Any, seat: int, path: tuple[str, ...]) -> _Walk | None:
    placed: list[str] = []
    try:
        options = game.turn_options(state, seat)
    except IllegalMove:
        return None
    walk = _Walk(path, placed, options)
    i = 0
    while i < len(path):
        token, rest = path[i], path[i + 1:]
        if token == PASS:
            if path != (PASS,):
                return None
            walk.stage, walk.action = "done", PASS
            return walk
        if token in options["tiles_in_hand"] and options["tile_cells"]:
            if not rest:
                walk.stage, walk.code = "tile", token
                return walk
            if rest[0] not in options["tile_cells"]:
                return None
            placed.append(f"{token}@{rest[0]}")
            try:
                options = walk.options = game.turn_options(state, seat, " ".join(placed))
            except IllegalMove:
                return None
            i += 2
            continue
        enter_cells = options["enter_cells"]
        if token.startswith(ENTER) and token[1:] in DIRECTIONS and enter_cells:
            if not rest:
                walk.stage, walk.facing = "facing", token[1:]
                return walk
            if len(rest) != 1 or rest[0] not in enter_cells:
                return None
            walk.stage, walk.action = "done", f"+{rest[0]}:{token[1:]}"
            return walk
        if token in enter_cells:
            if not rest:
                walk.stage, walk.cell = "cell", token
                return walk
            if len(rest) != 1 or rest[0] not in DIRECTIONS:
                return None
            walk.stage, walk.action = "done", f"+{token}:{rest[0]}"
            return walk
        if token in options["rotate"]:
            if not rest:
                walk.stage, walk.cell = "figure", token
                return walk
            if len(rest) != 1:
                return None
            if rest[0] in options["rotate"][token]:
                walk.action = f"{token}:{rest[0]}"
            elif rest[0] in options["move"].get(token, ()):
                walk.action = f"{token}-{rest[0]}"
            else:
                return None
            walk.stage = "done"
            return walk
        return None
    return walk


def _by_index(cells) -> tuple[str, ...]:
    return tuple(sorted(set(cells), key=CELL_INDEX.__getitem__))


def _build_from(game: Any, state: Any, seat: int, view: Mapping[str, Any], walk: _Walk) -> Build:
    options, placed = walk.options, walk.placed
    pending = {cell: code for code, cell in (p.split("@") for p in placed)}
    overlay: dict[str, Any] = {"pending": pending, "choosing": walk.code}
    so_far = [_placement_words(p) for p in placed]
    if walk.stage == "done":
        move = " ".join(placed + ([walk.action] if walk.action else []))
        try:
            preview = game.preview(state, seat, move)
        except IllegalMove:
            return _build_from(game, state, seat, view, _started(game, state, seat))
        words = gettext("pass") if walk.action == PASS else "; ".join(
            so_far + ([_action_words(walk.action)] if walk.action else []))
        if walk.action and walk.action != PASS:  # the field shows the turn's result
            overlay.update(after=preview, action=walk.action)
        return Build(path=walk.path, complete=move, summary=words, overlay=overlay,
                     note=preview_note(view, seat, preview),
                     hint=gettext("The field shows the result of your turn (not played yet): "
                                  "check it, then confirm it."))
    if walk.stage == "tile":
        return Build(path=walk.path, cells=_by_index(options["tile_cells"]), overlay=overlay,
                     summary="; ".join(so_far + [gettext("%(code)s: choose its cell",
                                                         code=walk.code)]),
                     hint=gettext("Click the cell for your %(tile)s tile (%(code)s); it must "
                                  "touch a tile already on the field.",
                                  tile=gettext(TILE_NAMES[walk.code]), code=walk.code))
    if walk.stage == "facing":
        return Build(path=walk.path, cells=_by_index(options["enter_cells"]), overlay=overlay,
                     summary="; ".join(so_far + [gettext(
                         "enter facing %(direction)s: choose its cell",
                         direction=gettext(DIRECTION_WORDS[walk.facing]))]),
                     hint=gettext("Click the cell where the figure enters (any cell with no "
                                  "figure)."))
    if walk.stage == "cell":
        return Build(path=walk.path, choices=tuple(DIRECTIONS), overlay=overlay,
                     summary="; ".join(so_far + [gettext("enter on %(cell)s: choose its direction",
                                                         cell=walk.cell)]),
                     hint=gettext("Choose where the new figure's N pole points."))
    if walk.stage == "figure":
        cell = walk.cell
        return Build(path=walk.path, cells=_by_index(options["move"].get(cell, ())),
                     choices=tuple(options["rotate"][cell]), overlay=overlay,
                     summary="; ".join(so_far + [gettext("your figure on %(cell)s", cell=cell)]),
                     hint=gettext("Click where the figure slides (1 to 3 cells in a line), or "
                                  "choose a new direction for its N pole."))
    # stage tiles: nothing pending; more tiles, a figure action, or (if nothing yet) pass
    codes = tuple(c for c in TILE_ORDER if c in options["tiles_in_hand"]) \
        if options["tile_cells"] else ()
    entering = tuple(ENTER + d for d in DIRECTIONS) if options["enter_cells"] else ()
    cells = _by_index([*options["enter_cells"], *options["rotate"]])
    parts = []
    if codes:
        parts.append(gettext("choose a tile from your hand to place it") if not placed
                     else gettext("place another tile"))
    if options["enter_cells"]:
        parts.append(gettext("click an empty cell to enter a figure (or choose its direction "
                             "first)"))
    if options["rotate"]:
        parts.append(gettext("click one of your figures to rotate or move it"))
    hint = "; ".join(parts)
    hint = hint[:1].upper() + hint[1:] + "." if hint else ""
    if not placed:
        hint += gettext(" Or pass.")
    if view["entered"][seat] and not view["figures_on_field"][seat]:
        hint = gettext("You have no figure on the field: enter one this turn, or you lose at "
                       "its end.") + " " + hint
    complete, note = None, None
    if placed:
        complete = " ".join(placed)
        try:
            note = preview_note(view, seat, game.preview(state, seat, complete))
        except IllegalMove:
            complete = None
        hint += gettext(" Or end your turn with the tiles alone.")
    # Every empty cell may take a figure: draw those targets faintly, the figures boldly.
    overlay["faint"] = tuple(options["enter_cells"])
    return Build(path=walk.path, cells=cells,
                 choices=codes + entering + (() if placed else (PASS,)),
                 complete=complete, note=note, overlay=overlay,
                 summary="; ".join(so_far) or None, hint=hint.strip())


def _placement_words(placement: str) -> str:
    code, cell = placement.split("@")
    return gettext("%(code)s on %(cell)s", code=code, cell=cell)


def _action_words(action: str) -> str:
    if action.startswith(ENTER):
        cell, d = action[1:].split(":")
        return gettext("enter on %(cell)s facing %(direction)s", cell=cell,
                       direction=gettext(DIRECTION_WORDS[d]))
    if ":" in action:
        cell, d = action.split(":")
        return gettext("turn %(cell)s to face %(direction)s", cell=cell,
                       direction=gettext(DIRECTION_WORDS[d]))
    origin, target = action.split("-")
    return gettext("move %(origin)s to %(target)s", origin=origin, target=target)


# -- a hint for emails --------------------------------------------------------------------------

def move_hint(game: Any, state: Any, seat: int, moves: list[str]) -> str:
    """Past the draft a player has thousands of turns: name one of each kind (a tile, each
    figure action, a tile with an action, a pass), near the centre where there is a choice,
    and say how to write the rest. Reads only ``turn_options``, the mover's own knowledge."""
    options = game.turn_options(state, seat)
    examples = []
    tile = ""
    if options["tile_cells"]:
        code = next(c for c in TILE_ORDER if c in options["tiles_in_hand"])
        tile = f"{code}@{_near_centre(options['tile_cells'])}"
        examples.append((tile, gettext("place a %(tile)s tile, nothing else",
                                       tile=gettext(TILE_NAMES[code]))))
    actions = []
    if options["enter_cells"]:
        actions.append(f"+{_near_centre(options['enter_cells'])}:n")
    if options["rotate"]:
        figure = _near_centre(options["rotate"])
        actions.append(f"{figure}:{options['rotate'][figure][0]}")
    if options["move"]:
        figure = _near_centre(options["move"])
        actions.append(f"{figure}-{_near_centre(options['move'][figure])}")
    examples += [(action, _action_words(action)) for action in actions]
    if tile and actions:
        examples.append((f"{tile} {actions[0]}", gettext("a tile, then a figure action")))
    examples.append((PASS, gettext("no tile, no figure action")))
    width = max(len(move) for move, _ in examples)
    return "\n".join([  # one message, its lines as a translation breaks them
        gettext("You have %(count)s or more legal moves. A turn places tiles from your hand\n"
                "(any number, each as CODE@cell, next to a tile on the field), then makes at "
                "most\none figure action, d being n, e, s or w (north is rank 10):\n"
                "  +cell:d    enter a figure with its N pole pointing d\n"
                "  cell:d     turn one of your figures to point d\n"
                "  cell-cell  slide one of your figures 1 to 3 cells in a line\n"
                "or it is: pass. For example:", count=len(moves)),
        *(f"  {move:<{width}}  {words}" for move, words in examples
          if move == PASS or move in moves)])


def _near_centre(cells) -> str:
    """The cell nearest the field's centre (the first in index order among equals)."""
    def distance(name: str) -> tuple[float, int]:
        index = CELL_INDEX[name]
        return abs(index % SIZE - 4.5) + abs(index // SIZE - 4.5), index
    return min(cells, key=distance)


# -- words for what a turn did -------------------------------------------------------------------

# Whole phrases, not "+%(points)s %(reason)s": a knockout's points are not a knockout
# tournament's
POINT_WORDS = {"knockout": Text("+%(points)s knockout (%(cell)s)"),
               "knockout tile": Text("+%(points)s knocked out from a Knockout tile (%(cell)s)"),
               "capture": Text("+%(points)s capture (%(cell)s)"),
               "control": Text("+%(points)s Control tile held (%(cell)s)"),
               "domination": Text("+%(points)s Domination tile held (%(cell)s)")}


def event_words(event: Mapping[str, Any], colours: list[str]) -> str:
    whose = gettext("%(figure)s on %(cell)s", figure=gettext(FIGURE_NAMES[colours[event["owner"]]]),
                    cell=event["from"])
    pole = event["pole"]
    if event["kind"] == "repel":
        return gettext("%(figure)s pushed to %(cell)s (%(pole)s repels %(pole)s)", figure=whose,
                       cell=event["to"], pole=pole)
    if event["kind"] == "blocked":
        return gettext("%(figure)s repelled but blocked by the figure on %(cell)s",
                       figure=whose, cell=event["to"])
    if event["kind"] == "knockout":
        return gettext("%(figure)s knocked off the field", figure=whose)
    return gettext("%(figure)s pulled to %(cell)s (%(pole)s attracts %(other)s): it sticks to "
                   "the figure on %(actor)s and both go back to hand", figure=whose,
                   cell=event["to"], pole=pole, other="S" if pole == "N" else "N",
                   actor=event["actor"])


def points_words(points: Mapping[str, Any]) -> str:
    return gettext(POINT_WORDS[points["reason"]], points=points["points"], cell=points["cell"])


def ring_out_warning(them: str, in_hand: int) -> str:
    """What leaving the opponent (``them``, a colour of the view) without a figure on the
    field means: ring-out is judged at the end of their own turn."""
    if in_hand:
        return gettext("%(side)s has no figure on the field: %(side)s loses at the end of its "
                       "turn unless it brings one back.", side=gettext(COLOUR_NAMES[them]))
    return gettext("%(side)s has no figure on the field and none in hand to bring back: "
                   "%(side)s loses at the end of its turn.", side=gettext(COLOUR_NAMES[them]))


VERDICTS = {"win": Text("This turn wins the game:"),
            "draw": Text("This turn ends the game in a draw:"),
            "loss": Text("This turn loses the game:")}


def outcome_warning(view: Mapping[str, Any], seat: int, preview: Mapping[str, Any]) -> Markup:
    """What a turn that ends the game means to the player building it: won, drawn or lost,
    and why; a ring-out lost because the opponent has never entered a figure says that the
    scores do not count then. From the view and the preview alone (the mover's knowledge)."""
    outcome = preview["outcome"]
    kind = "draw" if outcome["draw"] else "win" if seat in outcome["winners"] else "loss"
    words = Markup('<p class="mf-outcome %s"><strong>%s</strong> %s.') % (
        kind, gettext(VERDICTS[kind]), translated(outcome["reason"]))
    if (kind == "loss" and not preview["figures_on_field"][seat]
            and not view["entered"][1 - seat]):
        words += Markup(" %s") % gettext(
            "The scores settle an empty field only once both players have entered a figure: "
            "until then, emptying your own field loses.")
    return words + Markup("</p>")


def preview_note(view: Mapping[str, Any], seat: int, preview: Mapping[str, Any]) -> Markup:
    """The result of the turn being built, up to the draw, in words (the main field draws
    it: see ``render``)."""
    colours = view["colours"]
    items = [event_words(e, colours) for e in preview["events"]] or (
        [gettext("No magnetic reaction.")] if preview["move"] != PASS and any(
            c in preview["move"] for c in "+:-") else [])
    points = [points_words(p) for p in preview["points"]]
    mine, theirs = preview["scores"][seat], preview["scores"][1 - seat]
    gained = preview["gained"]
    lines = [Markup('<section class="mf-preview" aria-label="%s">')
             % gettext("Result of this turn"),
             Markup("<h3>%s</h3>") % gettext("After this turn")]
    if items:
        lines.append(Markup("<ul class=\"mf-events\">")
                     + Markup("").join(Markup("<li>%s</li>") % i for i in items)
                     + Markup("</ul>"))
    lines.append(Markup('<p class="mf-score">%s</p>') % Markup(gettext(
        "You score <strong>+%(gained)s</strong>%(points)s. Score: %(mine)s – %(theirs)s.",
        gained=escape(gained), points=escape((": " + ", ".join(points)) if points else ""),
        mine=escape(f"{gettext(COLOUR_NAMES[colours[seat]])} {mine}"),
        theirs=escape(f"{gettext(COLOUR_NAMES[colours[1 - seat]])} {theirs}"))))
    if not preview["outcome"]:
        if view["entered"][1 - seat] and not preview["figures_on_field"][1 - seat]:
            lines.append(Markup('<p class="mf-outcome">%s</p>') % ring_out_warning(
                colours[1 - seat], preview["figures_in_hand"][1 - seat]))
        if view["deck_size"]:
            lines.append(Markup('<p class="help">%s</p>')
                         % gettext("Then you draw a tile from the deck."))
    lines.append(Markup("</section>"))
    if preview["outcome"]:  # beside the box, so that a phone can show it above the button
        lines.append(outcome_warning(view, seat, preview))
    return Markup("\n").join(lines)


# -- the drawing -------------------------------------------------------------------------------
#
# The SVG is built as strings: a page drawn afresh spent half its time in a template. Every
# value from ``view``, the builder or a player goes through ``escape``; the numbers are written
# with ``str`` (``28.0`` stays ``28.0``).

def _patterns(p: str) -> str:
    """The tiles' fill patterns and the arrow heads, their ids prefixed with ``p`` (each of
    the two drawings has its own)."""
    return f"""<defs>
  <pattern id="{p}-C" width="12" height="12" patternUnits="userSpaceOnUse"><rect width="12" height="12" fill="#cfe6c3"/><circle cx="6" cy="6" r="3.2" fill="none" stroke="#4f8a3c" stroke-width="1.3"/></pattern>
  <pattern id="{p}-X" width="9" height="9" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="9" height="9" fill="#ddcdec"/><path d="M0 0V9M0 0H9" stroke="#7d5a9c" stroke-width="1.6"/></pattern>
  <pattern id="{p}-K" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#f6cfac"/><path d="M0 0V8" stroke="#c0703a" stroke-width="3"/></pattern>
  <pattern id="{p}-D" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#f2e5a6"/><circle cx="4" cy="4" r="1.6" fill="#a88a18"/></pattern>
  <pattern id="{p}-back" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#5b6570"/><path d="M0 0V6" stroke="#434b54" stroke-width="2"/></pattern>
  <marker id="{p}-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker>
  <marker id="{p}-arrow-pending" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head pending"/></marker>
</defs>"""  # noqa: E501 - an SVG element a line


RANK_NUMBERS = "".join(f'\n  <text class="coord" x="{MARGIN / 2}" '
                       f'y="{MARGIN + (SIZE - r) * CELL + CELL / 2}" dy="0.35em">{r}</text>'
                       for r in range(1, SIZE + 1))


# The rank numbers again, alone, for a phone (style.css): the field pans there (from its
# left edge, data-pan), and this column stays at the frame's left edge over it, so the ranks
# are always in view.
RANKS = (f'<svg xmlns="http://www.w3.org/2000/svg" class="magnetic-field mf-ranks" '
         f'aria-hidden="true" viewBox="0 0 {MARGIN} {WIDTH}">{RANK_NUMBERS}\n</svg>\n')


def _field_open(after: bool) -> tuple[str, str]:
    """The field's drawing up to its first cell (``after``: it shows a turn being built),
    in two parts: before and after its label."""
    return (f'<div class="board-frame mf-frame" data-pan="start">\n{RANKS}'
            '<svg xmlns="http://www.w3.org/2000/svg" '
            f'class="board magnetic-field field{" after" if after else ""}" '
            f'viewBox="0 0 {WIDTH} {WIDTH}" role="group" aria-label="',
            f'">\n{_patterns("mf")}\n<rect class="field-bg" x="{MARGIN - 3}" y="{MARGIN - 3}" '
            f'width="{FIELD + 6}" height="{FIELD + 6}"/>')


FIELD_OPEN = {after: _field_open(after) for after in (False, True)}
# The file letters under the field and the rank numbers left of it, and the field's end.
FIELD_CLOSE = "".join(
    [f'\n  <text class="coord" x="{MARGIN + i * CELL + CELL / 2}" y="{MARGIN + FIELD + 17}">'
     f'{f}</text>' for i, f in enumerate(FILES)]
    + [RANK_NUMBERS]) + "\n</svg>\n</div>\n"
PANEL_PATTERNS = _patterns("mfh")


def render(view: Mapping[str, Any], *, seat: int | None, selected: tuple[str, ...] = (),
           targets: Mapping[str, str] | None = None,
           last: AbstractSet[str] = frozenset()) -> Markup:
    """Two drawings: the field (rank 10 at the top for everyone), in a frame a phone pans
    so that every cell stays big enough for a finger, and under it both players' scores,
    figures and tiles, the deck and the draft pool. ``targets`` maps the cells and the
    choices (tile codes of the hand, draft picks) that may be clicked to their links.

    While a turn is being built, the view may carry the builder's overlay: ``pending``
    (tiles placed so far), ``choosing`` (the hand tile picked up) and, once a figure action
    is chosen, ``after`` (``GAME.preview``: the field and counts after the turn) and
    ``action``; then the field shows the turn's result, marking the figure that acts,
    outlining the figures that leave and drawing the reaction's arrows, and the counts
    under it are those after the turn."""
    targets = targets or {}
    colours = view["colours"]
    after: Mapping[str, Any] | None = view.get("after")
    acting, slide = _action_cells(view.get("action") or "") if after else ("", None)
    head, tail = FIELD_OPEN[after is not None]
    label = gettext("Magnetic Field board: the result of your turn, not played yet") \
        if after is not None else gettext("Magnetic Field board")
    parts = [head, escape(label), tail]
    parts += _cells(view, after, acting, selected, targets, last)
    events = after["events"] if after else (view.get("last_move") or {}).get("events", ())
    arrows = [_arrow(e["from"], e.get("to"), e["actor"], e["kind"], event_words(e, colours),
                     after is not None) for e in events]
    if slide:
        arrows.insert(0, _arrow(*slide, slide[0], "slide",
                                gettext("Your figure slides from %(origin)s to %(target)s",
                                        origin=slide[0], target=slide[1]), True))
    parts += arrows
    parts.append(FIELD_CLOSE)
    counts = {**view, **{key: after[key] for key in AFTER_COUNTS}} if after else view
    order = [seat, 1 - seat] if seat is not None else [colours.index("blue"),
                                                        colours.index("red")]
    panel, top = [], 0
    for s in order:
        block, top = _player(counts, s, seat, top, targets)
        panel.append(block)
    footer, height = _footer(view, top, targets)
    label = escape(gettext("Players, hands and deck after your turn") if after
                   else gettext("Players, hands and deck"))
    parts += [f'<svg xmlns="http://www.w3.org/2000/svg" class="board magnetic-field panel" '
              f'viewBox="0 0 {PANEL_WIDTH} {height}" role="group" aria-label="{label}">\n'
              f'{PANEL_PATTERNS}',
              *panel, footer, "\n</svg>"]
    return Markup("".join(parts))


AFTER_COUNTS = ("scores", "figures_in_hand", "figures_on_field", "knocked_out")


def _cells(view: Mapping[str, Any], after: Mapping[str, Any] | None, acting: str,
           selected: tuple[str, ...], targets: Mapping[str, str],
           last: AbstractSet[str]) -> list[str]:
    """Each cell of the field, rank 10 first: a link if it may be clicked, its tile, marks and
    figures (``acting``: the cell of the figure the turn being built moves), and its contents
    in words (its title)."""
    tiles, before = view["tiles"], view["figures"]
    pending: Mapping[str, str] = view.get("pending") or {}
    figures = after["figures"] if after else before
    faint = frozenset(view.get("faint") or ())
    drawn = []
    for square in SQUARES:
        name = square.name
        tile = tiles.get(name) or pending.get(name)
        figure = figures.get(name)
        gone = before.get(name) if after and name not in figures else None
        href = targets.get(name)
        if not (tile or figure or gone or href or name in last or name in selected):
            drawn.append(square.plain)
            continue
        body = [square.square]
        words = []
        if tile:
            tile_code = escape(tile)
            body.append(f'\n  <g class="tile-on-field{" pending" if name in pending else ""}" '
                        f'data-tile="{tile_code}">'
                        f'{_tile_face("mf", tile_code, square.x + 1, square.y + 1, CELL - 2, 13)}'
                        f'</g>')
            words.append(gettext("%(tile)s tile (placed this turn)", tile=gettext(TILE_NAMES[tile]))
                         if name in pending else
                         gettext("%(tile)s tile", tile=gettext(TILE_NAMES[tile])))
        if name in last:
            body.append(square.last)
        if name in selected and name not in pending:
            body.append(square.selected)
        if gone:
            body.append("\n  " + _magnet(*square.centre, gone, extra=" gone"))
        if figure:
            body.append("\n  " + _magnet(*square.centre, figure,
                                         extra=" pending" if name == acting else ""))
            words.append(gettext("%(figure)s (this turn)", figure=_figure_words(figure))
                         if name == acting else _figure_words(figure))
        if gone:
            words.append(gettext("%(figure)s before this turn", figure=_figure_words(gone)))
        title = escape(name + (": " + ", ".join(words) if words else ""))
        if href:
            body.append(square.faint if name in faint else square.target)
            drawn.append(f'\n  <a href="{escape(href)}" class="cell" data-cell="{name}">'
                         f'<title>{title}</title>{"".join(body)}</a>')
        else:
            label = f' role="img" aria-label="{title}"' if words else ""
            drawn.append(f'\n  <g class="cell" data-cell="{name}"{label}><title>{title}</title>'
                         f'{"".join(body)}</g>')
    return drawn


def _figure_words(figure: Mapping[str, Any]) -> str:
    return gettext("%(figure)s, N pole %(direction)s",
                   figure=gettext(FIGURE_NAMES[figure["colour"]]),
                   direction=gettext(DIRECTION_WORDS[figure["facing"]]))


def _action_cells(action: str) -> tuple[str, tuple[str, str] | None]:
    """The cell of the figure a figure action moves, enters or turns, and for a slide its
    origin and target."""
    if action.startswith(ENTER) or ":" in action:
        return action.lstrip(ENTER).split(":")[0], None
    origin, target = action.split("-")
    return target, (origin, target)


def _cell_xy(name: str) -> tuple[int, int]:
    index = CELL_INDEX[name]
    return MARGIN + (index % SIZE) * CELL, MARGIN + (SIZE - 1 - index // SIZE) * CELL


class _Square(NamedTuple):
    """A cell's place on the field and the parts of its drawing that depend on nothing else."""
    name: str
    x: int
    y: int
    centre: tuple[float, float]
    square: str      # the cell's own square, first in its drawing
    plain: str       # the whole drawing of a cell with nothing on it and no link
    last: str        # the marks of the last move and of a selected cell
    selected: str
    target: str      # the outline of a cell that may be clicked
    faint: str


def _square(name: str) -> _Square:
    x, y = _cell_xy(name)
    square = (f'\n  <rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
              f'class="square{" centre" if name in CENTRE_NAMES else ""}"/>')
    mark = f'<rect x="{x + 2}" y="{y + 2}" width="{CELL - 4}" height="{CELL - 4}" class="mark'
    target = f'<rect x="{x + 4}" y="{y + 4}" width="{CELL - 8}" height="{CELL - 8}" class="target'
    return _Square(name, x, y, (x + CELL / 2, y + CELL / 2), square,
                   f'\n  <g class="cell" data-cell="{name}"><title>{name}</title>{square}</g>',
                   mark + ' last"/>', mark + ' selected"/>', target + '"/>', target + ' faint"/>')


SQUARES = tuple(_square(f"{file}{rank}") for rank in range(SIZE, 0, -1) for file in FILES)


def _tile_face(p: str, code: str, x: float, y: float, s: float, letter_size: int) -> str:
    """A tile (``code`` escaped already) with its pattern of the drawing ``p`` and its
    letter."""
    return (f'<rect x="{x}" y="{y}" width="{s}" height="{s}" class="tile tile-{code}" '
            f'fill="url(#{p}-{code})"/>\n<text class="tile-letter" x="{x + 3}" '
            f'y="{y + letter_size}" font-size="{letter_size}">{code}</text>')


def _tile_link(href: str, choice: str, title: str, code: str, x: float, y: float) -> str:
    """A tile under the field that may be clicked (a hand tile to place, a draft pick)."""
    code = escape(code)
    margin = (HAND_HIT - HAND_TILE) / 2
    kind = "pool-tile" if choice.startswith(PICK) else "hand-tile"
    return (f'<a href="{escape(href)}" class="choice {kind}" data-choice="{escape(choice)}">'
            f'<title>{escape(title)}</title><rect class="hit" x="{x - margin}" '
            f'y="{y - margin}" width="{HAND_HIT}" height="{HAND_HIT}"/>'
            f'{_tile_face("mfh", code, x, y, HAND_TILE, 16)}<rect x="{x - 3}" y="{y - 3}" '
            f'width="{HAND_TILE + 6}" height="{HAND_TILE + 6}" class="target"/></a>')


def _magnet(cx: float, cy: float, figure: Mapping[str, Any], scale: float = 1.0,
            extra: str = "") -> str:
    """A figure as a bar magnet centred on (cx, cy), its N pole where it faces; ``extra``:
    more classes."""
    length, width = MAGNET_HALF_LENGTH * scale, MAGNET_HALF_WIDTH * scale
    colour = figure["colour"]
    dx, dy = VECTORS[figure["facing"]]
    rx = width if colour == "red" else 1.5 * scale
    x, y, bar_width = cx - width, cy - length, 2 * width
    font = round(POLE_FONT * scale, 1)
    return (f'<g class="magnet {escape(colour)}{extra}">\n'
            f'  <g transform="rotate({ANGLES[figure["facing"]]} {cx} {cy})">\n'
            f'    <rect class="s-half" x="{x}" y="{y}" width="{bar_width}" height="{2 * length}" '
            f'rx="{rx}"/>\n'
            f'    <rect class="n-half" x="{x}" y="{y}" width="{bar_width}" height="{length}" '
            f'rx="{rx}"/>\n'
            f'    <rect class="n-half" x="{x}" y="{cy - length / 2}" width="{bar_width}" '
            f'height="{length / 2}"/>\n'
            f'    <rect class="outline" x="{x}" y="{y}" width="{bar_width}" height="{2 * length}" '
            f'rx="{rx}"/>\n'
            f'  </g>\n'
            f'  <text class="pole n" x="{cx + dx * length / 2}" y="{cy + dy * length / 2}" '
            f'dy="0.36em" font-size="{font}">N</text>\n'
            f'  <text class="pole s" x="{cx - dx * length / 2}" y="{cy - dy * length / 2}" '
            f'dy="0.36em" font-size="{font}">S</text>\n</g>')


def _arrow(origin: str, target: str | None, actor: str, kind: str, title: str,
           pending: bool) -> str:
    """An arrow from ``origin`` towards ``target``, stopping short of the figure there; with
    no target (knocked off the field), one cell on, away from ``actor``; a figure pulled
    without moving (it already touched the actor) points at the actor. ``pending``: part of
    the turn being built."""
    if target == origin:
        target = actor
    x1, y1 = (c + CELL / 2 for c in _cell_xy(origin))
    if target:
        x2, y2 = (c + CELL / 2 for c in _cell_xy(target))
    else:
        ax, ay = (c + CELL / 2 for c in _cell_xy(actor))
        x2 = x1 + ((x1 > ax) - (x1 < ax)) * CELL * 1.2
        y2 = y1 + ((y1 > ay) - (y1 < ay)) * CELL * 1.2
    length = max(abs(x2 - x1), abs(y2 - y1))
    keep = (length - CELL * 0.4) / length
    suffix = "-pending" if pending else ""
    return (f'\n  <line class="reaction {escape(kind)}{" pending" if pending else ""}" '
            f'x1="{x1}" y1="{y1}" x2="{x1 + (x2 - x1) * keep}" y2="{y1 + (y2 - y1) * keep}" '
            f'marker-end="url(#mf-arrow{suffix})"><title>{escape(title)}</title></line>')


def _tiles(n: int) -> str:
    return ngettext("%(num)d tile", "%(num)d tiles", n) if n else gettext("no tiles")


def _player(view: Mapping[str, Any], s: int, seat: int | None, top: int,
            targets: Mapping[str, str]) -> tuple[str, int]:
    """Seat ``s``'s block under the field, from ``top``: its magnet, name, score, figures and
    tiles (the viewer's own by code, the opponent's drafted ones by code and the others face
    down); and where the next block starts."""
    hand = view["hands"][s]
    colour = view["colours"][s]
    tiles = []
    if "tiles" in hand:  # the viewer's own hand: every tile by code
        shown = list(hand["tiles"])
        for code in (view.get("pending") or {}).values():  # placed this turn already
            if code in shown:
                shown.remove(code)
        choosing = view.get("choosing") or ""
        tiles += [(code, targets.get(code), code == choosing) for code in shown]
        tile_words = gettext("%(tiles)s in hand", tiles=_tiles(len(shown)))
    else:  # the opponent's: the drafted tiles by code, the others face down, each drawn
        tiles += [(code, None, False) for code in hand["public"]]
        tiles += [(None, None, False)] * hand["hidden"]
        tile_words = gettext("%(tiles)s in hand", tiles=_tiles(hand["size"]))
        if hand["public"] and hand["hidden"]:
            tile_words = gettext("%(tiles)s: %(known)s known, %(hidden)s face down",
                                 tiles=tile_words, known=len(hand["public"]),
                                 hidden=hand["hidden"])
        elif hand["hidden"]:
            tile_words = gettext("%(tiles)s, face down", tiles=tile_words)
    tile_words = escape(tile_words)
    per_row = (PANEL_WIDTH - 2 * HAND_X) // HAND_STEP
    drawn = [_hand_tile(code, href, chosen, HAND_X + (k % per_row) * HAND_STEP,
                        top + 74 + (k // per_row) * HAND_STEP)
             for k, (code, href, chosen) in enumerate(tiles)]
    bottom = top + 76 + -(-len(tiles) // per_row) * HAND_STEP
    to_move = s in view["to_move"]
    knocked = view["knocked_out"][s]
    figures = gettext("figures: %(in_hand)s in hand · %(on_field)s on the field · "
                      "%(knocked)s out", knocked=knocked, in_hand=view["figures_in_hand"][s],
                      on_field=view["figures_on_field"][s]) if knocked else gettext(
        "figures: %(in_hand)s in hand · %(on_field)s on the field",
        in_hand=view["figures_in_hand"][s], on_field=view["figures_on_field"][s])
    name = gettext(COLOUR_NAMES[colour])
    if s == seat:
        name = gettext("%(side)s — you", side=name)
    icon = _magnet(22, top + 20, {"facing": "e", "colour": colour}, scale=0.7)
    return (f'\n  <g class="player {escape(colour)}{" to-move" if to_move else ""}" '
            f'data-seat="{escape(s)}">\n'
            f'    <rect class="player-bg" x="2" y="{top}" width="{PANEL_WIDTH - 4}" '
            f'height="{bottom - top - 6}" rx="4"/>\n'
            f'    {icon}\n'
            f'    <text class="player-name" x="40" y="{top + 24}">{"▶ " if to_move else ""}'
            f'{escape(name)}</text>\n'
            f'    <text class="player-score" x="{PANEL_WIDTH - 12}" y="{top + 25}">'
            f'<tspan class="score-value">{escape(view["scores"][s])}</tspan> / '
            f'{escape(view["target"])}</text>\n'
            f'    <text class="player-figures" x="40" y="{top + 44}">{escape(figures)}</text>\n'
            f'    <g class="hand" aria-label="{tile_words}"><title>{tile_words}</title>\n'
            f'    <text class="hand-count" x="40" y="{top + 63}">{tile_words}</text>'
            f'{"".join(drawn)}\n    </g>\n  </g>'), bottom


def _hand_tile(code: str | None, href: str | None, chosen: bool, x: int, y: int) -> str:
    """A tile of a hand: face down (None), a link to place it, or drawn (``chosen``: picked
    up to be placed)."""
    if code is None:
        return (f'\n      <g class="hand-tile hidden"><rect x="{x}" y="{y}" width="{HAND_TILE}" '
                f'height="{HAND_TILE}" class="tile back" fill="url(#mfh-back)"/>'
                f'<text class="tile-letter back" x="{x + HAND_TILE / 2}" '
                f'y="{y + HAND_TILE / 2}" dy="0.36em" font-size="18">?</text></g>')
    if href:
        return "\n      " + _tile_link(href, code, _place_words(code), code, x, y)
    return "\n      " + _tile_drawn("hand-tile", code, x, y, chosen)


def _tile_drawn(kind: str, code: str, x: int, y: int, chosen: bool = False) -> str:
    """A tile under the field that may not be clicked, named in its title."""
    escaped = escape(code)
    mark = (f'<rect x="{x - 3}" y="{y - 3}" width="{HAND_TILE + 6}" height="{HAND_TILE + 6}" '
            f'class="mark selected"/>' if chosen else "")
    return (f'<g class="{kind}{" selected" if chosen else ""}" data-tile="{escaped}">'
            f'<title>{escape(f"{gettext(TILE_NAMES[code])} ({code})")}</title>'
            f'{_tile_face("mfh", escaped, x, y, HAND_TILE, 16)}{mark}</g>')


def _footer(view: Mapping[str, Any], top: int, targets: Mapping[str, str]) -> tuple[str, int]:
    """The deck, the passes in a row, the draft pool and the last turn in words, from
    ``top``; and the drawing's height."""
    words = [gettext("Deck: %(tiles)s tiles face down", tiles=view["deck_size"])]
    if view["passes_in_a_row"]:
        words.append(gettext("passes in a row: %(passes)s of %(limit)s",
                             passes=view["passes_in_a_row"], limit=PASS_LIMIT))
    y = top + 20
    drawn = [f'\n  <g class="footer">\n    <text class="deck" x="16" y="{y}">'
             f'{escape(" · ".join(words))}</text>']
    if view["phase"] == "draft" and view["draft_pool"]:
        pool_y = y + 36
        pick = escape(gettext("Face-up tiles to pick:"))
        drawn.append(f'\n    <text class="deck" x="16" y="{y + 26}">{pick}</text>')
        for k, (code, count) in enumerate(view["draft_pool"].items()):
            x = HAND_X + k * POOL_STEP
            href = targets.get(PICK + code)
            tile = (_tile_link(href, PICK + code, _pick_words(code), code, x, pool_y)
                    if href else _tile_drawn("pool-tile", code, x, pool_y))
            drawn.append(f'\n      {tile}\n      <text class="deck" x="{x + HAND_TILE + 8}" '
                         f'y="{pool_y + HAND_TILE / 2 + 5}">×{escape(count)}</text>')
        y += 90
    last = view.get("last_move")
    if last and view["phase"] != "draft" and not last["move"].startswith("pick"):
        side = gettext(COLOUR_NAMES[view["colours"][last["seat"]]])
        # a pass is a word, said in the reader's language; another turn is notation
        last_words = escape(gettext("Last turn, %(side)s: pass", side=side)
                            if last["move"] == PASS else
                            gettext("Last turn, %(side)s: %(move)s", move=last["move"],
                                    side=side))
        drawn.append(f'\n    <text class="last-turn" x="16" y="{y + 20}">{last_words}</text>')
        y += 20
        effects = []
        if last["events"]:
            effects.append(ngettext("%(num)d reaction", "%(num)d reactions",
                                    len(last["events"])))
        if last["gained"]:
            effects.append("+" + ngettext("%(num)d point", "%(num)d points", last["gained"]))
        if effects:
            drawn.append(f'<text class="last-turn" x="16" y="{y + 18}">'
                         f'{escape(" · ".join(effects))}</text>')
            y += 18
    drawn.append("\n  </g>")
    return "".join(drawn), y + 12


# -- the position as plain text (emails) --------------------------------------------------------

TEXT_ARROWS = {"n": "^", "e": ">", "s": "v", "w": "<"}


def _field_text(view: Mapping[str, Any]) -> list[str]:
    """The field's lines of ``text``, rank 10 at the top, and their legend."""
    header = "     " + "   ".join(FILES)
    lines = [header]
    for rank in range(SIZE, 0, -1):
        cells = []
        for file in FILES:
            name = f"{file}{rank}"
            tile = view["tiles"].get(name) or (":" if name in CENTRE_NAMES else ".")
            figure = view["figures"].get(name)
            cells.append(tile + (figure["colour"][0].upper() + TEXT_ARROWS[figure["facing"]]
                                 if figure else "  "))
        lines.append(f"{rank:>3}  {' '.join(cells)}{rank:>3}".rstrip())
    return lines + [header, "",
                    gettext("Tiles: C Control, X Capture, K Knockout, D Domination; : marks "
                            "the centre."),
                    gettext("Figures: B Blue, R Red, then ^ > v < for where the N pole points "
                            "(north is up).")]


def text(view: Mapping[str, Any], seat: int | None) -> str:
    """The field as plain text for emails (rank 10 at the top, as on the page), then the
    scores, figures, hands, deck and draft pool, all from ``view``: the viewer's own tiles by
    code, the opponent's only as far as they are public (drafted tiles), the rest counted.

    Each cell is three characters: its tile (C X K D) or ``.`` (``:`` in the centre), then a
    figure if any: B or R for its colour and ^ > v < for where its N pole points. An empty
    field (the draft) is said in words, not drawn: a grid of dots is all a screen reader
    would read of it."""
    colours = view["colours"]
    lines = _field_text(view) if view["tiles"] or view["figures"] \
        else [gettext("The field is empty.")]
    order = [seat, 1 - seat] if seat is not None else [colours.index("blue"),
                                                        colours.index("red")]
    scores = ", ".join(f"{gettext(COLOUR_NAMES[colours[s]])} {view['scores'][s]}" for s in order)
    lines.append(gettext("Score: %(scores)s (first to %(target)s wins).", scores=scores,
                         target=view["target"]))
    for s in order:
        hand = view["hands"][s]
        if "tiles" in hand:
            tiles = " ".join(hand["tiles"]) or gettext("none")
        else:
            known = " ".join(hand["public"])  # drafted, so everyone knows them
            hidden = gettext("%(hidden)s face down", hidden=hand["hidden"]) \
                if hand["hidden"] else ""
            tiles = gettext(" and ").join(part for part in (known, hidden) if part) \
                or gettext("none")
        knocked = view["knocked_out"][s]
        side = gettext(COLOUR_NAMES[colours[s]])
        if s == seat:
            side = gettext("%(side)s (you)", side=side)
        figures = {"side": side, "in_hand": view["figures_in_hand"][s],
                   "on_field": view["figures_on_field"][s], "tiles": tiles}
        lines.append(gettext("%(side)s: figures %(in_hand)s in hand, %(on_field)s on the "
                             "field, %(knocked)s out; tiles: %(tiles)s.", knocked=knocked,
                             **figures) if knocked else
                     gettext("%(side)s: figures %(in_hand)s in hand, %(on_field)s on the "
                             "field; tiles: %(tiles)s.", **figures))
    lines.append(gettext("Deck: %(tiles)s tiles face down.", tiles=view["deck_size"]))
    if view["phase"] == "draft" and view["draft_pool"]:
        pool = ", ".join(f"{gettext(TILE_NAMES[code])} ({code}) x{count}"
                         for code, count in view["draft_pool"].items())
        lines.append(gettext("Draft pool: %(tiles)s.", tiles=pool))
    if view["passes_in_a_row"]:
        lines.append(gettext("Passes in a row: %(passes)s of %(limit)s.",
                             passes=view["passes_in_a_row"], limit=PASS_LIMIT))
    last = view.get("last_move")
    if last and last["events"]:
        lines.append(gettext("Last turn's reaction: %(events)s.", events="; ".join(
            event_words(e, colours) for e in last["events"])))
    return "\n".join(lines)
