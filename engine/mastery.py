"""Mastery (S. John Ross): Masters, Officers and Pawns that capture, devour, resurrect, and
move the enemy's own pieces by control. Rules: shared/rules/mastery.md.

The board is a 64-character string (index = 8 * (rank - 1) + file), "." for an empty square,
upper case for Dark (seat 0) and lower case for Light (seat 1): cheap to copy, hash and
compare, which repetition and the KO rule need on every move.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, NamedTuple

from .core import Game, IllegalMove, Option, Outcome, State, Text

FILES = "abcdefgh"
EMPTY = "."
KIND_NAMES = {"M": Text("Master"), "O": Text("Officer"), "P": Text("Pawn")}
START_COUNT = {"M": 3, "O": 4, "P": 6}
REACH = {"M": 3, "O": 2, "P": 1}
TAKES = {"M": "MOP", "O": "OP", "P": "P"}  # the enemy kinds each kind may capture
DEVOURABLE = "OP"  # the own kinds a Master may take
RESURRECTS = {"M": "OP", "O": "P"}  # capturing this enemy kind brings back one of these

SETUPS = {
    "imperial": ({"M": "d1 e1 f1", "O": "d2 e2 f2 e3", "P": "c3 d3 f3 g3 d4 f4"},
                 {"M": "c8 d8 e8", "O": "c7 d7 e7 d6", "P": "b6 c6 e6 f6 c5 e5"}),
    "crown": ({"M": "c1 e1 g1", "O": "d1 f1 e2 e3", "P": "c2 d2 f2 g2 b3 h3"},
              {"M": "b8 d8 f8", "O": "c8 e8 d7 d6", "P": "b7 c7 e7 f7 a6 g6"}),
}

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
ALL_DIRECTIONS = ORTHOGONAL + ((1, 1), (1, -1), (-1, 1), (-1, -1))


def square_name(index: int) -> str:
    return FILES[index % 8] + str(index // 8 + 1)


def square_index(name: str) -> int:
    return FILES.index(name[0]) + 8 * (int(name[1:]) - 1)


def _ray(index: int, step: tuple[int, int]) -> tuple[int, ...]:
    file, rank = index % 8, index // 8
    squares: list[int] = []
    while True:
        file, rank = file + step[0], rank + step[1]
        if not (0 <= file < 8 and 0 <= rank < 8):
            return tuple(squares)
        squares.append(8 * rank + file)


def _offsets(index: int, offsets: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    file, rank = index % 8, index // 8
    return tuple(8 * (rank + dr) + file + df for df, dr in offsets
                 if 0 <= file + df < 8 and 0 <= rank + dr < 8)


ORTHOGONAL_RAYS = [tuple(_ray(i, d) for d in ORTHOGONAL) for i in range(64)]
ALL_RAYS = [tuple(_ray(i, d) for d in ALL_DIRECTIONS) for i in range(64)]
# A Master's zone: the 8 squares at orthogonal walking distance exactly 2.
MASTER_ZONE = [_offsets(i, ((2, 0), (-2, 0), (0, 2), (0, -2), (1, 1), (1, -1), (-1, 1), (-1, -1)))
               for i in range(64)]
# An Officer's zone: the 8 neighbouring squares.
OFFICER_ZONE = [_offsets(i, ALL_DIRECTIONS) for i in range(64)]


def owner(piece: str) -> int:
    return 0 if piece.isupper() else 1


def piece_of(kind: str, seat: int) -> str:
    return kind if seat == 0 else kind.lower()


class Move(NamedTuple):
    origin: int
    target: int
    capture: bool = False
    control: bool = False
    resurrect: str | None = None  # "O" or "P"
    resurrect_at: int | None = None

    def __str__(self) -> str:
        if self.control:
            return f"~{square_name(self.origin)}-{square_name(self.target)}"
        text = square_name(self.origin) + ("x" if self.capture else "-") + square_name(self.target)
        if self.resurrect_at is not None:
            text += f"={self.resurrect}@{square_name(self.resurrect_at)}"
        return text


@dataclass(frozen=True, kw_only=True)
class MasteryState(State):
    board: str
    before_last: str | None = None  # the board before the last move: what KO forbids recreating
    seen: Mapping[tuple[str, int], int]  # (board, seat to move) -> times it has occurred


def can_control(board: str, seat: int) -> bool:
    """Ruling: control needs at least one own Officer and one own Pawn on the board."""
    return piece_of("O", seat) in board and piece_of("P", seat) in board


def controlled_squares(board: str, seat: int) -> list[int]:
    """The squares of enemy pieces that ``seat``'s pieces hold in their zones of control."""
    master, officer = piece_of("M", seat), piece_of("O", seat)
    officers_and_pawns = piece_of("O", 1 - seat) + piece_of("P", 1 - seat)
    pawn = piece_of("P", 1 - seat)
    found: set[int] = set()
    for index, piece in enumerate(board):
        if piece == master:
            found.update(z for z in MASTER_ZONE[index] if board[z] in officers_and_pawns)
        elif piece == officer:
            found.update(z for z in OFFICER_ZONE[index] if board[z] == pawn)
    return sorted(found)


def _moved(board: str, origin: int, target: int) -> str:
    squares = list(board)
    squares[target], squares[origin] = squares[origin], EMPTY
    return "".join(squares)


class _Mover(NamedTuple):
    """How the pieces of one letter move: along which rays, how far, and the letters of the
    pieces they may take (the enemy's) and devour (their own)."""
    rays: list[tuple[tuple[int, ...], ...]]
    reach: int
    takes: str
    devours: str


MOVERS = {piece_of(kind, seat): _Mover(
    ALL_RAYS if kind == "P" else ORTHOGONAL_RAYS, REACH[kind],
    "".join(piece_of(k, 1 - seat) for k in TAKES[kind]),
    "".join(piece_of(k, seat) for k in DEVOURABLE) if kind == "M" else "")
    for seat in (0, 1) for kind in "MOP"}


def generate(board: str, seat: int, before_last: str | None) -> Iterator[Move]:
    """Every legal move of ``seat``, lazily (so "is there any move?" stops at the first)."""
    return moves_from(board, seat, before_last, None)


def moves_from(board: str, seat: int, before_last: str | None,
               origins: tuple[int, ...] | None, resurrections: bool = True) -> Iterator[Move]:
    """The legal moves of ``seat`` that move the pieces on ``origins`` (None: all); without
    the resurrections after a capture unless ``resurrections`` (the computer chooses its own
    few of those)."""
    own = piece_of("MOP", seat)
    squares = enumerate(board) if origins is None else ((o, board[o]) for o in origins)
    for origin, piece in squares:
        if piece not in own:
            continue
        mover = MOVERS[piece]
        for ray in mover.rays[origin]:
            for target in ray[:mover.reach]:
                occupant = board[target]
                if occupant == EMPTY:
                    yield Move(origin, target)
                    continue
                if occupant in mover.takes:
                    yield Move(origin, target, capture=True)
                    if resurrections:
                        yield from _resurrections(board, seat, origin, target, occupant.upper())
                elif occupant in mover.devours:
                    yield Move(origin, target, capture=True)
                break  # nothing passes through an occupied square
    if can_control(board, seat):
        controlled = controlled_squares(board, seat)
        if origins is not None:
            controlled = [o for o in controlled if o in origins]
        for origin in controlled:
            kind = board[origin].upper()
            rays, reach = (ORTHOGONAL_RAYS[origin], 2) if kind == "O" else (ALL_RAYS[origin], 3)
            for ray in rays:
                for target in ray[:reach]:
                    if board[target] != EMPTY:
                        break  # a controlled piece never captures
                    if before_last is None or _moved(board, origin, target) != before_last:
                        yield Move(origin, target, control=True)


def board_after(board: str, seat: int, move: Move) -> str:
    """The board after ``seat`` plays ``move`` (a legal move) on ``board``."""
    after = _moved(board, move.origin, move.target)
    if move.resurrect and move.resurrect_at is not None:
        after = after[:move.resurrect_at] + piece_of(move.resurrect, seat) \
            + after[move.resurrect_at + 1:]
    return after


def _resurrections(board: str, seat: int, origin: int, target: int,
                   taken: str) -> Iterator[Move]:
    if taken not in RESURRECTS:
        return
    after = _moved(board, origin, target)
    empty = [i for i, p in enumerate(after) if p == EMPTY]
    for kind in RESURRECTS[taken]:
        # Ruling: every own Officer or Pawn off the board may return, however it left.
        if board.count(piece_of(kind, seat)) < START_COUNT[kind]:
            for square in empty:
                yield Move(origin, target, capture=True, resurrect=kind, resurrect_at=square)


def _defeat(board: str, seat: int, side: str) -> Text | None:
    """Why ``seat`` (``side``) has lost on material, if it has."""
    if piece_of("M", seat) not in board:
        return Text("%(side)s has no Masters left", side=side)
    if piece_of("O", seat) not in board and piece_of("P", seat) not in board:
        return Text("%(side)s has no Officers and no Pawns left", side=side)
    return None


_MOVE_TEXT = re.compile(
    r"(?P<control>~\s*)?(?P<origin>[a-h][1-8])\s*[-x:]\s*(?P<target>[a-h][1-8])"
    r"(?:\s*=\s*(?P<kind>[op])\s*@?\s*(?P<at>[a-h][1-8]))?", re.IGNORECASE)


def _setup_board(placements: tuple[dict[str, str], dict[str, str]]) -> str:
    squares = [EMPTY] * 64
    for seat, placement in enumerate(placements):
        for kind, names in placement.items():
            for name in names.split():
                squares[square_index(name)] = piece_of(kind, seat)
    return "".join(squares)


# each setup's board, made once (a round robin of 100 starts 4,950 games)
START_BOARDS = {name: _setup_board(placements) for name, placements in SETUPS.items()}


class Mastery(Game[MasteryState]):
    id = "mastery"
    title = Text("Mastery")
    state_type = MasteryState
    player_counts = (2,)
    seat_names = {2: (Text("Dark"), Text("Light"))}
    options = (
        Option("setup", "imperial", ("imperial", "crown"), Text("Starting position"),
               Text("Imperial or Crown, the two setups of the original rules."),
               {"imperial": "Imperial", "crown": "Crown"}),
        Option("repetition_draw", True, (True, False), Text("Draw by threefold repetition"),
               Text("The same position with the same player to move a third time is a "
                    "draw.")),
    )

    def initial_state(self, players: int, options: dict[str, Any], seed: str) -> MasteryState:
        board = START_BOARDS[options["setup"]]
        return MasteryState(players=players, options=options, to_move=(0,), board=board,
                            seen={(board, 0): 1})

    def generate_moves(self, state: MasteryState, seat: int) -> list[str]:
        return [str(move) for move in generate(state.board, seat, state.before_last)]

    def play(self, state: MasteryState, seat: int, text: str) -> MasteryState:
        return self.carry_out(state, seat, self.parse(state, seat, text))

    def carry_out(self, state: MasteryState, seat: int, move: Move) -> MasteryState:
        """Play ``move``, already checked to be legal for ``seat``."""
        after = board_after(state.board, seat, move)
        following = 1 - seat
        key = (after, following)
        seen = {**state.seen, key: state.seen.get(key, 0) + 1}
        outcome = self._judge(after, following, state.board, seen[key], state.options)
        return dataclasses.replace(
            state, board=after, before_last=state.board, seen=seen, ply=state.ply + 1,
            to_move=() if outcome else (following,), outcome=outcome)

    def parse(self, state: MasteryState, seat: int, text: str) -> Move:
        """The legal move that ``text`` names; ``-`` and ``x`` are interchangeable on input."""
        match = _MOVE_TEXT.fullmatch(text)
        if not match:
            raise IllegalMove(
                "'%(text)s' is not a Mastery move. Write a move as d2-d4, a capture as d1xd3, "
                "a control move as ~c6-c4, and a resurrection after a capture as d1xd5=O@b4.",
                text=text)
        origin = square_index(match["origin"].lower())
        target = square_index(match["target"].lower())
        kind = match["kind"].upper() if match["kind"] else None
        at = square_index(match["at"].lower()) if match["at"] else None
        control = bool(match["control"])
        moves = list(moves_from(state.board, seat, state.before_last, (origin,)))
        for move in moves:
            if (move.origin, move.target, move.control, move.resurrect, move.resurrect_at) \
                    == (origin, target, control, kind, at):
                return move
        raise IllegalMove(self._explain(state, seat, text, moves, origin, target, control, kind))

    def _explain(self, state: MasteryState, seat: int, text: str, moves: list[Move],
                 origin: int, target: int, control: bool, kind: str | None) -> Text:
        """Why ``text`` is not legal, in words a player can act on."""
        board, name = state.board, square_name(origin)
        piece = board[origin]
        if piece == EMPTY:
            return Text("%(text)s: there is no piece on %(square)s.", text=text, square=name)
        described = Text("%(piece)s on %(square)s", piece=KIND_NAMES[piece.upper()], square=name)
        if not control and owner(piece) != seat:
            if can_control(board, seat) and origin in controlled_squares(board, seat):
                return Text("%(text)s: the %(piece)s is your opponent's. To move it by control, "
                            "write %(move)s.", text=text, piece=described,
                            move="~" + name + "-" + square_name(target))
            return Text("%(text)s: the %(piece)s is your opponent's.", text=text, piece=described)
        if control and owner(piece) == seat:
            return Text("%(text)s: '~' moves an enemy piece by control, but the %(piece)s is "
                        "yours.", text=text, piece=described)
        if control and not can_control(board, seat):
            return Text("%(text)s: you cannot control while you have no Officer or no Pawn on "
                        "the board.", text=text)
        if control and origin not in controlled_squares(board, seat):
            return Text("%(text)s: the %(piece)s is not in the zone of control of any of your "
                        "pieces.", text=text, piece=described)
        if control and _moved(board, origin, target) == state.before_last:
            return Text("%(text)s: this control move would recreate the position before your "
                        "opponent's last move (KO).", text=text)
        same_path = [m for m in moves
                     if (m.origin, m.target, m.control) == (origin, target, control)]
        if same_path and kind:
            choices = sorted({m.resurrect for m in same_path if m.resurrect})
            if not choices:
                return Text("%(text)s: this capture gives no resurrection.", text=text)
            return Text("%(text)s: after this capture you may resurrect only these, on an "
                        "empty square: %(pieces)s.", text=text,
                        pieces=tuple(KIND_NAMES[c] for c in choices))
        options = tuple(str(m) for m in moves
                        if m.origin == origin and m.control == control and not m.resurrect)
        if options:
            return Text("%(text)s: the %(piece)s cannot go to %(square)s. It can go: "
                        "%(moves)s.", text=text, piece=described, square=square_name(target),
                        moves=options)
        return Text("%(text)s: the %(piece)s cannot go to %(square)s. It cannot move now.",
                    text=text, piece=described, square=square_name(target))

    def _judge(self, board: str, following: int, before_last: str, occurrences: int,
               options: Mapping[str, Any]) -> Outcome | None:
        """The outcome after a move, if the game ends; ``following`` is the seat to move next."""
        for seat in (0, 1):
            # A move changes one side's material only (captures take enemies, devouring
            # takes own pieces), so at most one side can lose here.
            reason = _defeat(board, seat, self.seat_names[2][seat])
            if reason:
                return Outcome((1 - seat,), False, reason)
        if options["repetition_draw"] and occurrences >= 3:
            return Outcome((), True, Text("the same position occurred three times"))
        if next(generate(board, following, before_last), None) is None:
            return Outcome((1 - following,), False, Text(
                "%(side)s has no legal move", side=self.seat_names[2][following]))
        return None

    def observe(self, state: MasteryState, seat: int | None) -> dict[str, Any]:
        # Mastery has no hidden information: every seat and spectator sees the same.
        board = state.board
        return {
            "board": {square_name(i): {"owner": owner(p), "piece": p.upper()}
                      for i, p in enumerate(board) if p != EMPTY},
            "off_board": [{kind: START_COUNT[kind] - board.count(piece_of(kind, s))
                           for kind in "MOP"} for s in (0, 1)],
            "can_control": [can_control(board, s) for s in (0, 1)],
            "to_move": list(state.to_move),
        }


GAME = Mastery()
