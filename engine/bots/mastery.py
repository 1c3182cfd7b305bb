"""What the Mastery bot knows: material (Masters above all), what each side attacks and how
freely it moves, captures tried first, and a quick look at whether the opponent can take a
last Master or a last Officer or Pawn."""
from __future__ import annotations

from typing import Hashable

from .. import mastery as rules
from ..mastery import EMPTY, Move, MasteryState, board_after, generate, owner, piece_of
from .search import Heuristics, squash

WORTH = {"M": 5.0, "O": 2.5, "P": 1.0}
RESURRECTION_SQUARES = 4  # the squares nearest the capture that a resurrection may use


def _distance(origin: int, target: int) -> int:
    return max(abs(origin % 8 - target % 8), abs(origin // 8 - target // 8))


class MasteryHeuristics(Heuristics[MasteryState]):
    rollout_plies = 0  # the evaluation looks at the captures at hand instead
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
            options, key=lambda m: _distance(m.target, m.resurrect_at or 0))[:RESURRECTION_SQUARES]}

        def promise(move: Move) -> float:
            taken = board[move.target]
            if not move.capture or owner(taken) == seat:
                return 0.0 if move.capture else 0.5  # devouring, before plain moves
            return -WORTH[taken.upper()] - (0.1 if move.resurrect else 0.0)

        return [str(m) for m in sorted(moves, key=promise)
                if not m.resurrect or m in nearest]

    def root_moves(self, state: MasteryState, seat: int) -> list[str]:
        """The moves that draw by repetition first (the search must weigh a draw, which a
        side behind may want), then ``moves``."""
        draws = repeating_moves(state, seat)
        return draws + [m for m in self.moves(state, seat) if m not in draws]

    def draw_threat(self, state: MasteryState, seat: int) -> bool:
        return bool(repeating_moves(state, seat))

    def key(self, state: MasteryState, seat: int) -> Hashable:
        return state.board, state.before_last, seat

    def evaluate(self, state: MasteryState, seat: int) -> float:
        """Material (and the danger of losing the last Master or the last Officer or Pawn),
        what each side attacks, its mobility, and the capture the side to move can make."""
        board, mover = state.board, state.to_move[0]
        score = 0.0
        for side, sign in ((seat, 1.0), (1 - seat, -1.0)):
            masters = board.count(piece_of("M", side))
            officers = board.count(piece_of("O", side))
            pawns = board.count(piece_of("P", side))
            score += sign * (WORTH["M"] * masters + WORTH["O"] * officers + WORTH["P"] * pawns
                             - 3.0 * (masters == 1) - 2.0 * (officers + pawns == 1))
            mobility, attacked = 0, {}
            for move in generate(board, side, state.before_last if side == mover else None):
                if not move.resurrect:
                    mobility += 1
                    if move.capture and owner(board[move.target]) != side:
                        attacked[move.target] = WORTH[board[move.target].upper()]
            score += sign * (0.15 * sum(attacked.values()) + 0.02 * mobility)
            if side == mover and attacked:
                score += sign * 0.7 * max(attacked.values())  # it may take it now
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


def repeating_moves(state: MasteryState, seat: int) -> list[str]:
    """The moves of ``seat`` after which a position occurs for the third time (a draw)."""
    if not state.options["repetition_draw"]:
        return []
    following = 1 - seat
    twice = {board for (board, mover), count in state.seen.items()
             if count >= 2 and mover == following}
    if not twice:
        return []
    board = state.board
    return [str(m) for m in generate(board, seat, state.before_last)
            if board_after(board, seat, m) in twice]


HEURISTICS = MasteryHeuristics(rules.GAME)
