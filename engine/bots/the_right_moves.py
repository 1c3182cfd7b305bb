"""What The Right Moves bot knows: pieces count most (three or fewer lose), then the inner
circle (all four win), promoted pieces and progress inward; jumps are tried first, and
rollouts mostly take the longest jump at hand."""
from __future__ import annotations

import random
from typing import Hashable

from .. import the_right_moves as rules
from ..the_right_moves import (INNER_CIRCLE, PIECES, RING, TheRightMovesState,
                               colour_of_seat, generate_texts)
from .search import Heuristics, squash

GREEDY = 0.9  # how often a rollout takes the longest jump at hand


class TheRightMovesHeuristics(Heuristics[TheRightMovesState]):
    rollout_plies = 4
    cost = 1.0

    def moves(self, state: TheRightMovesState, seat: int) -> list[str]:
        """Long jump chains first, then moves ending nearer the centre."""
        texts = generate_texts(state.board, colour_of_seat(seat))
        return sorted(texts, key=_promise)

    def key(self, state: TheRightMovesState, seat: int) -> Hashable:
        return state.board, colour_of_seat(seat)

    def rollout_step(self, state: TheRightMovesState, seat: int,
                     rng: random.Random) -> TheRightMovesState:
        """Mostly the longest jump at hand, if there is one (captures decide the game), else
        a random move."""
        texts = generate_texts(state.board, colour_of_seat(seat))
        jumps = [text for text in texts if "x" in text]
        if jumps and rng.random() < GREEDY:
            longest = max(text.count("x") for text in jumps)
            texts = [text for text in jumps if text.count("x") == longest]
        return self.game.apply(state, seat, rng.choice(texts))

    def evaluate(self, state: TheRightMovesState, seat: int) -> float:
        board = state.board
        colour = colour_of_seat(seat)
        score = 0.0
        for side, sign in ((colour, 1.0), (1 - colour, -1.0)):
            plain, promoted = PIECES[side], PIECES[side].upper()
            pieces = board.count(plain) + board.count(promoted)
            inner = sum(1 for i in INNER_CIRCLE if board[i] in (plain, promoted))
            progress = sum(5 - RING[i] for i, cell in enumerate(board) if cell == plain)
            score += sign * (1.0 * pieces + 0.6 * board.count(promoted) + 0.8 * inner ** 1.5
                             + 0.05 * progress - 2.0 * max(0, 6 - pieces))
        return squash(score, 3.0)


def _promise(text: str) -> tuple[int, int]:
    """Sort key: more jumps first, then the lower ring reached."""
    parts = text.replace("x", "-").split("-")
    return -text.count("x"), int(parts[-1][:-1])


HEURISTICS = TheRightMovesHeuristics(rules.GAME)
