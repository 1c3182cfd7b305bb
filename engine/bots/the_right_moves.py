"""What The Right Moves bot knows: an alpha-beta search (``alphabeta.py``; four players are
two colours moving in turn, so the same search) with an evaluation of the pieces (three or
fewer lose), the inner circle (all four win), promoted pieces and progress inward, and what
each side could jump; jumps, the longest first, are searched first."""
from __future__ import annotations

from typing import Hashable, NamedTuple

from .. import the_right_moves as rules
from ..the_right_moves import (EMPTY, INNER_CIRCLE, JUMPS, FORWARD_JUMPS, PIECES, RING, Move,
                               TheRightMovesState, apply_move, colour_of_seat, generate)
from .alphabeta import Tree
from .search import Heuristics, squash

LOSING_COUNT = 3  # a side with this many pieces or fewer has lost
SCALE = 3.0  # points of evaluation for which the chance of winning is about 73%


class Position(NamedTuple):
    board: str
    seat: int  # to move
    players: int


def score(board: str, colour: int) -> float:
    """How good ``board`` looks for ``colour`` in points."""
    total = 0.0
    for side, sign in ((colour, 1.0), (1 - colour, -1.0)):
        plain, promoted = PIECES[side], PIECES[side].upper()
        pieces = board.count(plain) + board.count(promoted)
        inner = sum(1 for i in INNER_CIRCLE if board[i] in (plain, promoted))
        progress = sum(5 - RING[i] for i, cell in enumerate(board) if cell == plain)
        total += sign * (1.0 * pieces + 0.6 * board.count(promoted) + 0.8 * inner ** 1.5
                         + 0.05 * progress - 2.0 * max(0, 6 - pieces)
                         + 0.15 * _targets(board, side))
    return total


def _targets(board: str, colour: int) -> int:
    """How many enemy pieces ``colour`` could jump at once (each counted once)."""
    own, enemies = PIECES[colour], "bB" if colour == 0 else "rR"
    found = set()
    for start, piece in enumerate(board):
        if piece.lower() != own:
            continue
        free = piece.isupper() or RING[start] == 2
        for over, landing in (JUMPS if free else FORWARD_JUMPS)[start]:
            if board[landing] == EMPTY and board[over] in enemies:
                found.add(over)
    return len(found)


def _promise(move: Move) -> tuple[int, int]:
    """Sort key: more jumps first, then the lower ring reached."""
    return -len(move.captured), RING[move.path[-1]]


class TheRightMovesTree(Tree[Position, Move]):
    scale = SCALE

    def root(self, state: TheRightMovesState) -> Position:
        return Position(state.board, state.to_move[0], state.players)

    def side(self, position: Position) -> int:
        return colour_of_seat(position.seat)

    def key(self, position: Position) -> Hashable:
        return position.board, position.seat

    def moves(self, position: Position) -> list[Move]:
        return sorted(generate(position.board, colour_of_seat(position.seat)), key=_promise)

    def noisy(self, position: Position, move: Move) -> bool:
        return bool(move.captured)

    def play(self, position: Position, move: Move) -> Position:
        return Position(apply_move(position.board, move),
                        (position.seat + 1) % position.players, position.players)

    def lost(self, position: Position) -> bool:
        board, colour = position.board, colour_of_seat(position.seat)
        own = PIECES[colour]
        if board.count(own) + board.count(own.upper()) <= LOSING_COUNT:
            return True
        enemy = PIECES[1 - colour]
        return all(board[i] in (enemy, enemy.upper()) for i in INNER_CIRCLE)

    def evaluate(self, position: Position) -> float:
        return score(position.board, colour_of_seat(position.seat))

    def text(self, position: Position, move: Move) -> str:
        return str(move)


class TheRightMovesHeuristics(Heuristics[TheRightMovesState]):
    tree = TheRightMovesTree()

    def evaluate(self, state: TheRightMovesState, seat: int) -> float:
        return squash(score(state.board, colour_of_seat(seat)), SCALE)


HEURISTICS = TheRightMovesHeuristics(rules.GAME)
