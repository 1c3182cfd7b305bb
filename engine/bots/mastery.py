"""What the Mastery bot knows: an alpha-beta search (``alphabeta.py``) over a compact
position, with an evaluation of material (Masters above all, and the danger of being down
to a last Master or a last Officer or Pawn), the Masters' safety, control, what each side
attacks and how freely it moves, and a lead's worth growing as material comes off (trading
down is how the side ahead wins)."""
from __future__ import annotations

from typing import Hashable, NamedTuple

from .. import mastery as rules
from ..mastery import (EMPTY, MOVERS, RESURRECTS, START_BOARDS, START_COUNT, Move, MasteryState,
                       board_after, can_control, controlled_squares, generate, moves_from, owner,
                       piece_of)
from .alphabeta import Tree
from .search import Heuristics, squash

WORTH = {"M": 5.0, "O": 2.5, "P": 1.0}
WORTH_OF = {piece_of(kind, seat): worth for kind, worth in WORTH.items() for seat in (0, 1)}
START_MATERIAL = sum(WORTH_OF.get(p, 0.0) for p in START_BOARDS["imperial"]) / 2
RESURRECTION_SQUARES = 2  # the squares nearest the capture that the search resurrects on
SCALE = 4.0  # points of evaluation for which the chance of winning is about 73%


class Position(NamedTuple):
    board: str
    before_last: str | None  # what KO forbids recreating
    seat: int  # to move


def _distance(origin: int, target: int) -> int:
    return max(abs(origin % 8 - target % 8), abs(origin // 8 - target // 8))


def ordered_moves(board: str, seat: int, before_last: str | None) -> list[Move]:
    """The moves worth searching, best first: captures (the most valuable victim first, a
    resurrection of an Officer before one of a Pawn, before none), then devouring, then the
    other moves. Of the many resurrections after a capture, only those on the empty squares
    nearest the capture; and the devouring of one's own last Officer or Pawn, which loses at
    once, only if there is no other move."""
    soldiers = board.count(piece_of("O", seat)) + board.count(piece_of("P", seat))
    taking: list[tuple[float, Move]] = []
    devours: list[Move] = []
    plain: list[Move] = []
    losing: list[Move] = []
    for move in moves_from(board, seat, before_last, None, resurrections=False):
        if not move.capture:
            plain.append(move)
            continue
        taken = board[move.target]
        if owner(taken) == seat:
            (devours if soldiers > 1 else losing).append(move)
            continue
        taking += _with_resurrections(board, seat, move)
    taking.sort(key=lambda pair: pair[0])
    # (a move that loses at once only where there is nothing else: then it must be played)
    return [move for _, move in taking] + devours + plain or losing


def captures(board: str, seat: int) -> list[Move]:
    """The captures of enemy pieces among ``ordered_moves``, in the same order (a controlled
    piece never captures, so only ``seat``'s own pieces are looked at)."""
    own = piece_of("MOP", seat)
    found: list[tuple[float, Move]] = []
    for origin, piece in enumerate(board):
        if piece not in own:
            continue
        mover = MOVERS[piece]
        for ray in mover.rays[origin]:
            for target in ray[:mover.reach]:
                taken = board[target]
                if taken == EMPTY:
                    continue
                if taken in mover.takes:
                    found += _with_resurrections(board, seat, Move(origin, target, capture=True))
                break
    found.sort(key=lambda pair: pair[0])
    return [move for _, move in found]


def _with_resurrections(board: str, seat: int, capture: Move) -> list[tuple[float, Move]]:
    """A capture of an enemy piece and its resurrections that the search tries, each with
    its place in the order (lower first)."""
    taken = board[capture.target]
    found = [(-WORTH_OF[taken], capture)]
    for kind in RESURRECTS.get(taken.upper(), ""):
        if board.count(piece_of(kind, seat)) < START_COUNT[kind]:
            found += [(-WORTH_OF[taken] - WORTH[kind] / 10,
                       capture._replace(resurrect=kind, resurrect_at=square))
                      for square in _nearest_empty(board, capture)]
    return found


def _nearest_empty(board: str, capture: Move) -> list[int]:
    """The empty squares (after ``capture``) nearest its target, where the search tries a
    resurrection."""
    after = board_after(board, owner(board[capture.origin]), capture)
    return sorted((i for i, p in enumerate(after) if p == EMPTY),
                  key=lambda i: (_distance(capture.target, i), i))[:RESURRECTION_SQUARES]


def defeated(board: str, seat: int) -> bool:
    """Whether ``seat`` has lost on material: no Master, or no Officer and no Pawn."""
    return piece_of("M", seat) not in board or (
        piece_of("O", seat) not in board and piece_of("P", seat) not in board)


def score(board: str, seat: int, mover: int) -> float:
    """How good ``board`` looks for ``seat`` in points, ``mover`` to move."""
    total = 0.0
    materials = []
    for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
        masters = board.count(piece_of("M", side))
        officers = board.count(piece_of("O", side))
        pawns = board.count(piece_of("P", side))
        material = WORTH["M"] * masters + WORTH["O"] * officers + WORTH["P"] * pawns
        materials.append(material)
        total += sign * (material - 3.0 * (masters == 1) - 2.0 * (officers + pawns == 1))
        mobility, attacked, masters_attacked = _reach(board, side)
        total += sign * (0.02 * mobility + 0.12 * attacked)
        # A Master the other side attacks, when that side is to move, may be lost.
        total -= sign * (0.6 if side != mover else 0.2) * masters_attacked
        if can_control(board, side):
            total += sign * 0.1 * len(controlled_squares(board, side))
    lead = materials[0] - materials[1]
    # The same lead weighs more with less on the board: the side ahead trades down.
    total += 0.5 * lead * (1.0 - (materials[0] + materials[1]) / (2 * START_MATERIAL))
    return total


def _reach(board: str, side: int) -> tuple[int, float, int]:
    """``side``'s plain moves (mobility), the worth of the enemy pieces it attacks, and how
    many of those are Masters."""
    own = piece_of("MOP", side)
    enemy_master = piece_of("M", 1 - side)
    mobility, attacked, masters = 0, 0.0, 0
    for origin, piece in enumerate(board):
        if piece not in own:
            continue
        mover = MOVERS[piece]
        for ray in mover.rays[origin]:
            for target in ray[:mover.reach]:
                occupant = board[target]
                if occupant == EMPTY:
                    mobility += 1
                    continue
                if occupant in mover.takes:
                    attacked += WORTH_OF[occupant]
                    masters += occupant == enemy_master
                break
    return mobility, attacked, masters


class MasteryTree(Tree[Position, Move]):
    scale = SCALE

    def root(self, state: MasteryState) -> Position:
        return Position(state.board, state.before_last, state.to_move[0])

    def side(self, position: Position) -> int:
        return position.seat

    def key(self, position: Position) -> Hashable:
        return position.board, position.seat

    def moves(self, position: Position) -> list[Move]:
        return ordered_moves(position.board, position.seat, position.before_last)

    def captures(self, position: Position) -> list[Move]:
        return captures(position.board, position.seat)

    def noisy(self, position: Position, move: Move) -> bool:
        return move.capture and owner(position.board[move.target]) != position.seat

    def play(self, position: Position, move: Move) -> Position:
        board = position.board
        return Position(board_after(board, position.seat, move), board, 1 - position.seat)

    def lost(self, position: Position) -> bool:
        return defeated(position.board, position.seat)

    def evaluate(self, position: Position) -> float:
        return score(position.board, position.seat, position.seat)

    def text(self, position: Position, move: Move) -> str:
        return str(move)


class MasteryHeuristics(Heuristics[MasteryState]):
    tree = MasteryTree()

    def evaluate(self, state: MasteryState, seat: int) -> float:
        return squash(score(state.board, seat, state.to_move[0]), SCALE)

    def threat(self, state: MasteryState, seat: int) -> bool:
        """Whether ``seat`` can capture the opponent's last Master, or its last Officer or
        Pawn (the only ways a move wins, but for leaving the opponent without a move)."""
        board = state.board
        return any(defeated(board_after(board, seat, move), 1 - seat)
                   for move in generate(board, seat, state.before_last)
                   if move.capture and not move.resurrect)


HEURISTICS = MasteryHeuristics(rules.GAME)
