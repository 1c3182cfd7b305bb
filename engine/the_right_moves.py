"""The Right Moves (Diversified Ventures, 1988): race for the four spaces of the inner circle
on a board of five rings, stepping around or inward, jumping enemy pieces in chains, and
skipping freely once promoted. Rules: shared/rules/the-right-moves.md.

The board is a 60-character string indexed like ``SPACES`` (ring 1 to 5, then angle):
"." for an empty space, "r"/"b" for an unpromoted Red/Blue piece and "R"/"B" for a
promoted one. Cheap to copy, hash and compare, which repetition needs on every move.

Geometry for renderers: ``SPACES`` (name, ring, letter, angle in degrees, counter-clockwise
from east), ``PATHS`` (pairs of names), ``LINES`` (the straight lines jumps follow),
``space_polar(name)`` and ``geometry()`` (all of it as JSON-ready data). Ring 1 lies
innermost around an empty centre; in SVG, x = r cos(angle) and y = -r sin(angle).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, NamedTuple

from .core import Game, IllegalMove, Option, Outcome, State, Text

# -- the board ---------------------------------------------------------------------------

LETTERS = "abcdefghijklmnop"  # a = east, then counter-clockwise in steps of 22.5 degrees
RING_LETTERS = {1: "aeim", 2: "acegikmo", 3: LETTERS, 4: LETTERS, 5: LETTERS}
OPPOSITE = {"a": "i", "e": "m", "i": "a", "m": "e"}


class Space(NamedTuple):
    name: str
    ring: int
    letter: str
    angle: float  # degrees, counter-clockwise from east


class Line(NamedTuple):
    spaces: tuple[str, ...]
    closed: bool  # a ring loop: its last space joins its first


SPACES: tuple[Space, ...] = tuple(
    Space(f"{ring}{letter}", ring, letter, LETTERS.index(letter) * 22.5)
    for ring in range(1, 6) for letter in RING_LETTERS[ring])
NAMES: tuple[str, ...] = tuple(space.name for space in SPACES)
INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
RING: tuple[int, ...] = tuple(space.ring for space in SPACES)
INNER_CIRCLE: tuple[int, ...] = tuple(INDEX[f"1{x}"] for x in RING_LETTERS[1])


def _paths() -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for ring in range(2, 6):  # around: rings 2-5 are closed loops; ring 1 has none
        letters = RING_LETTERS[ring]
        found += [(f"{ring}{x}", f"{ring}{letters[(k + 1) % len(letters)]}")
                  for k, x in enumerate(letters)]
    found += [("1a", "1i"), ("1e", "1m")]  # across the empty centre
    found += [(f"5{x}", f"4{x}") for x in "aeim"]  # spokes
    found += [(f"4{x}", f"3{x}") for x in LETTERS]
    found += [(f"3{x}", f"2{x}") for x in RING_LETTERS[2]]
    found += [(f"2{x}", f"1{x}") for x in RING_LETTERS[1]]
    return tuple(found)


def _lines() -> tuple[Line, ...]:
    found = [Line(tuple(f"{ring}{x}" for x in RING_LETTERS[ring]), True) for ring in range(2, 6)]
    for x in "ae":  # the two diameters through the centre, each in one piece
        y = OPPOSITE[x]
        found.append(Line(tuple(f"{r}{x}" for r in range(5, 0, -1))
                          + tuple(f"{r}{y}" for r in range(1, 6)), False))
    found += [Line((f"4{x}", f"3{x}", f"2{x}"), False) for x in "cgko"]
    found += [Line((f"4{x}", f"3{x}"), False) for x in LETTERS if x not in "acegikmo"]
    return tuple(found)


PATHS: tuple[tuple[str, str], ...] = _paths()
LINES: tuple[Line, ...] = _lines()


def space_polar(name: str) -> tuple[int, float]:
    """(ring, angle in degrees counter-clockwise from east) of the space called ``name``."""
    space = SPACES[INDEX[name]]
    return space.ring, space.angle


def direction(origin: str | int, target: str | int) -> str:
    """"around", "inward" or "outward": how a step or a jump from ``origin`` to ``target``
    goes. Same ring is around, except across the centre (ring 1 to ring 1), which is inward."""
    a = RING[INDEX[origin]] if isinstance(origin, str) else RING[origin]
    b = RING[INDEX[target]] if isinstance(target, str) else RING[target]
    if b < a or a == b == 1:
        return "inward"
    return "outward" if b > a else "around"


def geometry() -> dict[str, Any]:
    """The board as JSON-ready data for a renderer (polar coordinates: ring and degrees)."""
    return {
        "rings": 5,
        "spaces": [{"name": s.name, "ring": s.ring, "angle": s.angle} for s in SPACES],
        "paths": [list(path) for path in PATHS],
        "lines": [{"spaces": list(line.spaces), "closed": line.closed} for line in LINES],
        "inner_circle": [NAMES[i] for i in INNER_CIRCLE],
    }


def _tables():
    neighbours: list[list[int]] = [[] for _ in NAMES]
    for one, other in PATHS:
        neighbours[INDEX[one]].append(INDEX[other])
        neighbours[INDEX[other]].append(INDEX[one])
    jumps: list[list[tuple[int, int]]] = [[] for _ in NAMES]  # (over, landing)
    for line in LINES:
        cells = [INDEX[n] for n in line.spaces]
        if line.closed:
            cells += cells[:2]
        for a, over, b in zip(cells, cells[1:], cells[2:]):
            assert over in neighbours[a] and b in neighbours[over]
            jumps[a].append((over, b))
            jumps[b].append((over, a))
    for i in range(len(NAMES)):
        neighbours[i].sort()
        jumps[i].sort(key=lambda pair: pair[1])
        # (start, landing) names the jumped space: the notation relies on it.
        assert len({b for _, b in jumps[i]}) == len(jumps[i])
    forward_steps = [tuple(t for t in neighbours[i] if direction(i, t) != "outward")
                     for i in range(len(NAMES))]
    forward_jumps = [tuple(j for j in jumps[i] if direction(i, j[1]) != "outward")
                     for i in range(len(NAMES))]
    return (tuple(map(tuple, neighbours)), forward_steps, tuple(map(tuple, jumps)),
            forward_jumps)


# NEIGHBOURS/JUMPS: every direction (promoted pieces, and pieces that begin on ring 2);
# FORWARD_*: around and inward only (the other unpromoted pieces).
NEIGHBOURS, FORWARD_STEPS, JUMPS, FORWARD_JUMPS = _tables()
JUMPED = [{landing: over for over, landing in JUMPS[i]} for i in range(len(NAMES))]
STEP_TEXT = [[f"{a}-{b}" for b in NAMES] for a in NAMES]

# -- pieces and sides --------------------------------------------------------------------

EMPTY = "."
COLOURS = ("red", "blue")  # colour index 0 = Red = seat 0 (and 2); 1 = Blue = seat 1 (and 3)
SIDES = (Text("Red"), Text("Blue"))  # the colours as players read them (a team's name too)
PIECES = ("r", "b")  # unpromoted; upper case = promoted
START = {"r": "fgh nop", "b": "bcd jkl"}


def colour_of_seat(seat: int) -> int:
    return seat % 2


def colour_of(piece: str) -> int:
    return 0 if piece in "rR" else 1


class Move(NamedTuple):
    start: int
    path: tuple[int, ...]  # the destination of a step or skip; every landing of a jump chain
    captured: tuple[int, ...] = ()  # the jumped spaces, in order (empty for steps and skips)

    @property
    def jump(self) -> bool:
        return bool(self.captured)

    def __str__(self) -> str:
        separator = "x" if self.captured else "-"
        return separator.join(NAMES[i] for i in (self.start, *self.path))


@dataclass(frozen=True, kw_only=True)
class TheRightMovesState(State):
    board: str
    # (board, seat to move) -> times it has occurred since the last capture or promotion
    # (no earlier position can recur: pieces only leave the board and never lose promotion).
    seen: Mapping[tuple[str, int], int]
    last_move: str | None = None


def _chains(cells: list[str], start: int, pos: int, table, enemies: str,
            path: list[int], captured: list[int], out: list[Move]) -> None:
    """Every jump chain continuing from ``pos``; each prefix is a move of its own."""
    for over, landing in table[pos]:
        if cells[landing] == EMPTY and cells[over] in enemies and over not in captured:
            path.append(landing)
            captured.append(over)
            out.append(Move(start, tuple(path), tuple(captured)))
            _chains(cells, start, landing, table, enemies, path, captured, out)
            path.pop()
            captured.pop()


def empty_regions(board: str) -> list[list[int] | None]:
    """For each space, the sorted list of empty spaces joined to it through empty spaces
    (shared by all the spaces of one region); None for an occupied space."""
    regions: list[list[int] | None] = [None] * len(board)
    for origin, cell in enumerate(board):
        if cell != EMPTY or regions[origin] is not None:
            continue
        region = [origin]
        regions[origin] = region
        for pos in region:  # grows while it is walked: a breadth-first search
            for t in NEIGHBOURS[pos]:
                if regions[t] is None and board[t] == EMPTY:
                    regions[t] = region
                    region.append(t)
        region.sort()
    return regions


def destinations(board: str, start: int,
                 regions: list[list[int] | None] | None = None) -> list[int]:
    """Where the piece on ``start`` may step, or step and skip if it is promoted."""
    if board[start].isupper():
        # Every empty space reachable through empty spaces: the regions around it.
        if regions is None:
            reached = {start}
            frontier = [start]
            while frontier:
                for t in NEIGHBOURS[frontier.pop()]:
                    if t not in reached and board[t] == EMPTY:
                        reached.add(t)
                        frontier.append(t)
            reached.discard(start)
            return sorted(reached)
        found: list[list[int]] = []
        for t in NEIGHBOURS[start]:
            region = regions[t]
            if region is not None:
                for r in found:
                    if r is region:
                        break
                else:
                    found.append(region)
        if len(found) == 1:
            return found[0]
        return sorted(t for r in found for t in r)
    steps = NEIGHBOURS[start] if RING[start] == 2 else FORWARD_STEPS[start]
    return [t for t in steps if board[t] == EMPTY]


def jump_chains(board: str, start: int) -> list[Move]:
    """Every jump chain of the piece on ``start``, each prefix a move of its own."""
    piece = board[start]
    free = piece.isupper() or RING[start] == 2  # any direction (Ruling: beginning on ring 2)
    table = JUMPS if free else FORWARD_JUMPS
    enemies = "bB" if colour_of(piece) == 0 else "rR"
    moves: list[Move] = []
    for over, landing in table[start]:
        if board[landing] == EMPTY and board[over] in enemies:
            cells = list(board)
            cells[start] = EMPTY  # the moving piece has left its space
            _chains(cells, start, start, table, enemies, [], [], moves)
            break
    return moves


def piece_moves(board: str, start: int) -> list[Move]:
    """Every legal move of the piece on ``start``: steps and skips, then jump chains."""
    return [Move(start, (t,)) for t in destinations(board, start)] + jump_chains(board, start)


def generate(board: str, colour: int) -> Iterator[Move]:
    own = PIECES[colour]
    for start, piece in enumerate(board):
        if piece.lower() == own:
            yield from piece_moves(board, start)


def generate_texts(board: str, colour: int) -> list[str]:
    """The notation of every legal move of ``colour`` (the same as ``generate``, faster)."""
    own, promoted = PIECES[colour], PIECES[colour].upper()
    texts: list[str] = []
    regions = empty_regions(board) if promoted in board else None
    for start, piece in enumerate(board):
        if piece in (own, promoted):
            row = STEP_TEXT[start]
            texts += [row[t] for t in destinations(board, start, regions)]
            texts += [str(m) for m in jump_chains(board, start)]
    return texts


def can_move(board: str, colour: int) -> bool:
    """Whether ``colour`` has any legal move (any skip starts with a step, so steps suffice)."""
    own = PIECES[colour]
    enemies = "bB" if colour == 0 else "rR"
    for start, piece in enumerate(board):
        if piece.lower() != own:
            continue
        free = piece.isupper() or RING[start] == 2
        for t in (NEIGHBOURS if free else FORWARD_STEPS)[start]:
            if board[t] == EMPTY:
                return True
        for over, landing in (JUMPS if free else FORWARD_JUMPS)[start]:
            if board[landing] == EMPTY and board[over] in enemies:
                return True
    return False


def apply_move(board: str, move: Move) -> str:
    cells = list(board)
    piece = cells[move.start]
    cells[move.start] = EMPTY
    for over in move.captured:
        cells[over] = EMPTY
    if piece.islower() and any(RING[p] == 1 for p in move.path):
        piece = piece.upper()  # promotion, when the move ends
    cells[move.path[-1]] = piece
    return "".join(cells)


def start_board() -> str:
    cells = [EMPTY] * len(NAMES)
    for piece, letters in START.items():
        for ring in (3, 4, 5):
            for x in letters.replace(" ", ""):
                cells[INDEX[f"{ring}{x}"]] = piece
    return "".join(cells)


# -- reading moves ------------------------------------------------------------------------

_SPACE_TEXT = re.compile(r"(\d+)\s*([a-z])")
_SEPARATOR = re.compile(r"\s*([-\u2013\u2014x:*\u00d7])\s*|\s+")
_JUMP_MARKS = "x:*\u00d7"
_HOW_TO_WRITE = Text("Write a step or a skip as its start and destination, like 4b-3b or "
                     "1i-3k, and a jump as its start and every landing space, like 4ex2e or "
                     "3ex3gx3i.")


def _space_name_error(text: str, ring: str, letter: str) -> IllegalMove:
    if ring not in "12345" or len(ring) != 1:
        return IllegalMove("%(text)s: '%(space)s' is not a space: rings are numbered 1 "
                           "(innermost) to 5.", text=text, space=ring + letter)
    return IllegalMove("%(text)s: '%(space)s' is not a space: ring %(ring)s has only the "
                       "letters %(letters)s.", text=text, space=ring + letter, ring=ring,
                       letters=tuple(RING_LETTERS[int(ring)]))


def read_move(text: str) -> tuple[list[int], bool | None]:
    """The spaces named by ``text`` and whether it is written as a jump (None: not said)."""
    lowered = text.strip().lower()
    spaces: list[int] = []
    separators: list[str] = []
    pos = 0
    while True:
        match = _SPACE_TEXT.match(lowered, pos)
        if not match:
            raise IllegalMove("'%(text)s' is not a move of The Right Moves. %(how)s",
                              text=text, how=_HOW_TO_WRITE)
        name = match[1] + match[2]
        if name not in INDEX:
            raise _space_name_error(text, match[1], match[2])
        spaces.append(INDEX[name])
        pos = match.end()
        if pos == len(lowered):
            break
        separator = _SEPARATOR.match(lowered, pos)
        if not separator or separator.end() == pos:
            raise IllegalMove("'%(text)s' is not a move of The Right Moves. %(how)s",
                              text=text, how=_HOW_TO_WRITE)
        separators.append((separator[1] or " ").replace("\u2013", "-").replace("\u2014", "-"))
        pos = separator.end()
    if len(spaces) < 2:
        raise IllegalMove("'%(text)s' names only one space. %(how)s", text=text,
                          how=_HOW_TO_WRITE)
    kinds = {"x" if s in _JUMP_MARKS else s for s in separators if s != " "}
    if len(kinds) > 1:
        raise IllegalMove("%(text)s: a move is either a step or skip (with -) or a jump chain "
                          "(with x), not both. %(how)s", text=text, how=_HOW_TO_WRITE)
    jump = None if not kinds else kinds == {"x"}
    if jump is False and len(spaces) > 2:
        raise IllegalMove("%(text)s: a step or a skip is written with its start and destination "
                          "only, like 1i-3k; a chain of jumps is written with x, like 3ex3gx3i.",
                          text=text)
    return spaces, jump


# -- the game ----------------------------------------------------------------------------

class TheRightMoves(Game[TheRightMovesState]):
    id = "the-right-moves"
    title = Text("The Right Moves")
    state_type = TheRightMovesState
    player_counts = (2, 4)
    seat_names = {2: (Text("Red"), Text("Blue")),
                  4: (Text("Red (1)"), Text("Blue (1)"), Text("Red (2)"), Text("Blue (2)"))}
    options = (
        Option("repetition_draw", True, (True, False), Text("Draw by threefold repetition"),
               Text("The same position with the same player to move a third time is a "
                    "draw.")),
    )

    def teams(self, players: int) -> tuple[tuple[int, ...], ...]:
        return ((0, 2), (1, 3)) if players == 4 else ((0,), (1,))

    def team_name(self, players: int, seat: int) -> str | None:
        return SIDES[colour_of_seat(seat)] if players == 4 else None

    def initial_state(self, players: int, options: dict[str, Any],
                      seed: str) -> TheRightMovesState:
        board = start_board()
        return TheRightMovesState(players=players, options=options, to_move=(0,), board=board,
                                  seen={(board, 0): 1})

    def generate_moves(self, state: TheRightMovesState, seat: int) -> list[str]:
        return generate_texts(state.board, colour_of_seat(seat))

    def play(self, state: TheRightMovesState, seat: int, text: str) -> TheRightMovesState:
        move = self.parse(state, seat, text)
        before = state.board
        after = apply_move(before, move)
        following = (seat + 1) % state.players
        key = (after, following)
        if move.captured or after[move.path[-1]] != before[move.start]:
            seen: Mapping[tuple[str, int], int] = {key: 1}  # a capture or a promotion
        else:
            seen = {**state.seen, key: state.seen.get(key, 0) + 1}
        outcome = self._judge(state, seat, after, following, seen[key])
        return dataclasses.replace(
            state, board=after, seen=seen, ply=state.ply + 1, last_move=str(move),
            to_move=() if outcome else (following,), outcome=outcome)

    def parse(self, state: TheRightMovesState, seat: int, text: str) -> Move:
        """The legal move that ``text`` names (any case, spaces allowed, ``:`` or ``*`` for x)."""
        spaces, jump = read_move(text)
        start, path = spaces[0], tuple(spaces[1:])
        board, colour = state.board, colour_of_seat(seat)
        piece = board[start]
        if piece == EMPTY:
            raise IllegalMove("%(text)s: there is no piece on %(space)s.", text=text,
                              space=NAMES[start])
        if colour_of(piece) != colour:
            raise IllegalMove("%(text)s: the piece on %(space)s is %(theirs)s's; you play "
                              "%(yours)s.", text=text, space=NAMES[start],
                              theirs=SIDES[1 - colour],
                              yours=SIDES[colour])
        found = []
        if jump is not True and len(path) == 1 and path[0] in destinations(board, start):
            found.append(Move(start, path))
        if jump is not False:
            found += [m for m in jump_chains(board, start) if m.path == path]
        if len(found) == 1:
            return found[0]
        if found:
            step = next(m for m in found if not m.jump)
            raise IllegalMove("%(text)s: write %(skip)s for the skip or %(jump)s for the jump.",
                              text=text, skip=str(step), jump=NAMES[start] + "x" + NAMES[path[0]])
        raise IllegalMove(self._explain(board, text, start, path, jump,
                                        piece_moves(board, start)))

    def _explain(self, board: str, text: str, start: int, path: tuple[int, ...],
                 jump: bool | None, moves: list[Move]) -> Text:
        """Why ``text`` is not legal, in words a player can act on."""
        piece = board[start]
        promoted = piece.isupper()
        free = promoted or RING[start] == 2
        name = NAMES[start]
        options = tuple(str(m) for m in moves[:30]) + (("...",) if len(moves) > 30 else ())
        reach = Text("It can play: %(moves)s.", moves=options) if moves \
            else Text("It cannot move now.")
        why = None
        if jump is None:
            jump = any(JUMPED[a].get(b) is not None
                       for a, b in zip((start, *path), path))
        if not jump:
            target = path[0]
            if any(m.jump and m.path == path for m in moves):
                why = Text("a jump is written with x: %(jump)s.",
                           jump=NAMES[start] + "x" + NAMES[target])
            elif board[target] != EMPTY:
                why = Text("%(space)s is occupied.", space=NAMES[target])
            elif target == start:
                why = Text("a move must leave its space.")
            elif not promoted and target not in NEIGHBOURS[start]:
                why = Text("there is no path from %(start)s to %(target)s; an unpromoted piece "
                           "steps to a neighbouring space only (promoted pieces may skip).",
                           start=name, target=NAMES[target])
            elif not free and direction(start, target) == "outward":
                why = Text("%(start)s to %(target)s goes outward; an unpromoted piece moves "
                           "only around its ring or inward, unless it begins its turn on ring 2.",
                           start=name, target=NAMES[target])
            elif promoted:
                why = Text("every route from %(start)s to %(target)s is blocked.", start=name,
                           target=NAMES[target])
        else:
            enemies = "bB" if colour_of(piece) == 0 else "rR"
            pos, captured = start, []
            cells = list(board)
            cells[start] = EMPTY
            for landing in path:
                over = JUMPED[pos].get(landing)
                hop = f"{NAMES[pos]}x{NAMES[landing]}"
                if over is None:
                    why = Text("%(hop)s is not a jump: a jump goes over a neighbouring space to "
                               "the space directly beyond it on the same straight line.", hop=hop)
                elif cells[over] == EMPTY:
                    why = Text("%(hop)s jumps over %(space)s, which is empty.", hop=hop,
                               space=NAMES[over])
                elif cells[over] not in enemies:
                    why = Text("%(hop)s would jump your own piece on %(space)s.", hop=hop,
                               space=NAMES[over])
                elif over in captured:
                    why = Text("%(hop)s jumps the piece on %(space)s a second time; a piece can "
                               "be jumped only once in a move.", hop=hop, space=NAMES[over])
                elif cells[landing] != EMPTY:
                    why = Text("%(hop)s lands on %(space)s, which is occupied.", hop=hop,
                               space=NAMES[landing])
                elif not free and direction(pos, landing) == "outward":
                    why = Text("%(hop)s goes outward; an unpromoted piece jumps only around its "
                               "ring or inward, unless it begins its turn on ring 2.", hop=hop)
                if why:
                    break
                captured.append(over)
                pos = landing
        if why is None:
            why = Text("the promoted piece on %(space)s cannot move so.", space=name) \
                if promoted else Text("the unpromoted piece on %(space)s cannot move so.",
                                      space=name)
        return Text("%(text)s: %(why)s %(reach)s", text=text, why=why, reach=reach)

    def _judge(self, state: TheRightMovesState, seat: int, board: str, following: int,
               occurrences: int) -> Outcome | None:
        """The outcome after ``seat``'s move, if the game ends."""
        players = state.players
        colour = colour_of_seat(seat)
        side = SIDES[colour]
        winners = self.team_of(players, seat)
        if all(colour_of(board[i]) == colour and board[i] != EMPTY for i in INNER_CIRCLE):
            return Outcome(winners, False, Text("%(side)s filled the inner circle", side=side))
        enemy = PIECES[1 - colour]
        left = board.count(enemy) + board.count(enemy.upper())
        if left <= 3:
            loser = SIDES[1 - colour]
            return Outcome(winners, False, Text("%(side)s has only 1 piece left", side=loser)
                           if left == 1 else Text("%(side)s has only %(count)s pieces left",
                                                  side=loser, count=left))
        if state.options["repetition_draw"] and occurrences >= 3:
            return Outcome((), True, Text("the same position occurred three times"))
        if not can_move(board, colour_of_seat(following)):
            return Outcome(winners, False, Text("%(side)s has no legal move",
                                                side=self.seat_name(players, following)))
        return None

    def observe(self, state: TheRightMovesState, seat: int | None) -> dict[str, Any]:
        # No hidden information: every seat and spectator sees the same, plus its own colour.
        board, players = state.board, state.players
        turn = state.to_move[0] if state.to_move else None
        return {
            "pieces": {NAMES[i]: {"colour": COLOURS[colour_of(p)], "promoted": p.isupper()}
                       for i, p in enumerate(board) if p != EMPTY},
            "pieces_left": {COLOURS[c]: sum(board.count(p) for p in (PIECES[c],
                                                                      PIECES[c].upper()))
                            for c in (0, 1)},
            "to_move": list(state.to_move),
            "turn": None if turn is None else {
                "seat": turn, "name": self.seat_name(players, turn),
                "colour": COLOURS[colour_of_seat(turn)]},
            "seat": seat,
            "colour": None if seat is None else COLOURS[colour_of_seat(seat)],
            "seats": [{"seat": s, "name": self.seat_name(players, s),
                       "colour": COLOURS[colour_of_seat(s)]} for s in range(players)],
            "teams": [{"colour": COLOURS[c], "seats": [s for s in range(players)
                                                       if colour_of_seat(s) == c]}
                      for c in (0, 1)],
            "last_move": state.last_move,
        }


GAME = TheRightMoves()
