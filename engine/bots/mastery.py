"""What the Mastery bot knows: material (Masters above all), captures tried first, and a
quick look at whether the opponent can take a last Master or a last Officer or Pawn."""
from __future__ import annotations

import random
from typing import Hashable

from .. import mastery as rules
from ..mastery import EMPTY, Move, MasteryState, generate, owner, piece_of
from .search import Heuristics, squash

WORTH = {"M": 5.0, "O": 2.5, "P": 1.0}
RESURRECTION_SQUARES = 4  # the squares nearest the capture that a resurrection may use


def _distance(origin: int, target: int) -> int:
    return max(abs(origin % 8 - target % 8), abs(origin // 8 - target // 8))


class MasteryHeuristics(Heuristics):
    rollout_plies = 4
    cost = 1.0

    def moves(self, state: MasteryState, seat: int) -> list[str]:
        """Captures first (the most valuable victim first), then the other moves; of the many
        resurrections after a capture, only those on the squares nearest the capture."""
        board = state.board
        moves = list(generate(board, seat, state.before_last))
        choices: dict[tuple[int, int, str], list[Move]] = {}
        for move in moves:
            if move.resurrect:
                choices.setdefault(move[:2] + (move.resurrect,), []).append(move)
        nearest = {m for options in choices.values() for m in sorted(
            options, key=lambda m: _distance(m.target, m.resurrect_at))[:RESURRECTION_SQUARES]}

        def promise(move: Move) -> float:
            taken = board[move.target]
            if not move.capture or owner(taken) == seat:
                return 0.0 if move.capture else 0.5  # devouring, before plain moves
            return -WORTH[taken.upper()] - (0.1 if move.resurrect else 0.0)

        return [str(m) for m in sorted(moves, key=promise)
                if not m.resurrect or m in nearest]

    def key(self, state: MasteryState, seat: int) -> Hashable:
        return state.board, state.before_last, seat

    def rollout_step(self, state: MasteryState, seat: int, rng: random.Random) -> MasteryState:
        moves = list(generate(state.board, seat, state.before_last))
        return self.game.carry_out(state, seat, rng.choice(moves))

    def evaluate(self, state: MasteryState, seat: int) -> float:
        board = state.board
        score = 0.0
        for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
            masters = board.count(piece_of("M", side))
            soldiers = board.count(piece_of("O", side)) + board.count(piece_of("P", side))
            score += sign * (WORTH["M"] * masters + WORTH["O"] * board.count(piece_of("O", side))
                             + WORTH["P"] * board.count(piece_of("P", side)))
            # One more loss of the kind would lose the game.
            score -= sign * (3.0 * (masters == 1) + 2.0 * (soldiers == 1))
        return squash(score, 4.0)

    def threat(self, state: MasteryState, seat: int) -> bool:
        """Whether ``seat`` can capture the opponent's last Master, or its last Officer or
        Pawn (the only ways a move wins, but for leaving the opponent without a move)."""
        board, enemy = state.board, 1 - seat
        masters = board.count(piece_of("M", enemy))
        soldiers = board.count(piece_of("O", enemy)) + board.count(piece_of("P", enemy))
        if masters > 1 and soldiers > 1:
            return False
        for move in generate(board, seat, state.before_last):
            if move.capture and not move.resurrect:
                taken = board[move.target]
                if taken != EMPTY and owner(taken) == enemy and (
                        (taken.upper() == "M" and masters == 1)
                        or (taken.upper() != "M" and soldiers == 1)):
                    return True
        return False


HEURISTICS = MasteryHeuristics(rules.GAME)
