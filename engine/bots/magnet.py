"""What the Magnet bot knows: a secret setup dealt at random; in the tree, one turn per magnet
vertex and per piece that may reach the magnet first, every piece promoted where it can be
(the other orders and marks rarely matter); material and ranks, the kings' distances to f6,
and whose king the side to move could capture."""
from __future__ import annotations

import functools
import random
from typing import Hashable

from .. import magnet as rules
from ..magnet import (CENTRE, COORDS, INDEX, KING, NAMES, RAYS, SET, VALUE, MagnetState, Turn,
                      _affected, _homes, affected_everywhere, carry_out, knowledge, public_board)
from .search import Heuristics, result, squash


def _distance(vertex: int) -> int:
    """Steps from ``vertex`` to the centre f6."""
    q, r = COORDS[vertex]
    return max(abs(q), abs(r), abs(q + r))


DISTANCE = tuple(_distance(v) for v in range(len(NAMES)))


@functools.lru_cache(maxsize=65536)
def _turn(text: str) -> Turn:
    """The turn a move text of the legal list or of ``turn_options`` names."""
    magnet, _, pieces = text.partition(":")
    return Turn(INDEX[magnet], tuple((INDEX[p.rstrip("+")], p.endswith("+"))
                                     for p in pieces.split(",")))


def turn_options(state: MagnetState, seat: int) -> list[str]:
    """The turns the tree considers, from what both players see (owners and ranks): for
    each magnet vertex that moves a piece, the affected pieces in vertex order, and, when
    several may reach the magnet, one order for each of them going first; every piece
    marked to promote (a mark that cannot apply does nothing). The turns that may capture
    most come first, then those whose magnet is nearest the centre (the kings' goal)."""
    kn = knowledge(state, seat)
    options = []
    for magnet, pieces in enumerate(affected_everywhere(kn)):
        movable = [p for p in pieces if p.path]
        if not movable:
            continue
        head = NAMES[magnet] + ":"
        promise = (-sum(len(p.captures) for p in pieces), DISTANCE[magnet])
        if kn.opening:
            options += [(promise, head + NAMES[p.origin] + "+") for p in movable]
            continue
        names = [NAMES[p.origin] + "+" for p in pieces]
        reachers = [i for i, p in enumerate(pieces) if p.reach]
        if len(reachers) < 2:
            options.append((promise, head + ",".join(names)))
        else:
            options += [(promise, head + ",".join([names[i]] + names[:i] + names[i + 1:]))
                        for i in reachers]
    options.sort(key=lambda option: option[0])
    return [text for _, text in options]


def king_in_reach(state: MagnetState, seat: int) -> bool:
    """Whether ``seat`` has a turn that captures the opponent's king: a piece of ``seat``
    the king stands within its rank of, with no piece of ``seat`` between (the magnet on the
    king's vertex, that piece moving first)."""
    board = state.board
    king = next((v for v, x in enumerate(board)
                 if x and x >> 6 != seat and (x >> 3) & 7 == KING), None)
    if king is None:
        return False
    for ray in RAYS[king]:
        for distance, v in enumerate(ray, start=1):
            x = board[v]
            if x and x >> 6 == seat:
                if x & 7 >= distance:
                    return True
                break  # the nearest piece of seat on this line blocks the others
    return False


class MagnetHeuristics(Heuristics[MagnetState]):
    rollout_plies = 2
    cost = 2.0

    def opening(self, state: MagnetState, seat: int, rng: random.Random) -> str | None:
        if state.arrangements[seat] is not None:
            return None
        kinds = list(SET)
        rng.shuffle(kinds)
        return rules.GAME.setup_text(seat, kinds)

    def root_moves(self, state: MagnetState, seat: int) -> list[str]:
        """The legal moves, each with as many promotions as it may carry, the best looking
        first (the search looks at the first ones most)."""
        most: dict[str, str] = {}
        for move in self.game.legal_moves(state, seat):
            most[move.replace("+", "")] = move  # the legal list marks more later
        return sorted(most.values(), key=lambda move: -self._worth(state, seat, move))

    def _worth(self, state: MagnetState, seat: int, move: str) -> float:
        after = self.apply(state, seat, move)
        return self.evaluate(after, seat) if after.outcome is None else result(after, seat)

    def risky(self, before: MagnetState, after: MagnetState, seat: int) -> bool:
        """Whether an opponent's piece that may be its king is left on f6, where it wins at
        the start of its owner's turn (in the world drawn, it was not the king)."""
        x = after.board[CENTRE]
        return (bool(x) and x >> 6 != seat and x & 7 == 1
                and _homes(after)[CENTRE] not in before.cleared)

    def moves(self, state: MagnetState, seat: int) -> list[str]:
        return turn_options(state, seat)

    def key(self, state: MagnetState, seat: int) -> Hashable:
        return public_board(state.board), seat, state.turn == 0

    def apply(self, state: MagnetState, seat: int, move: str) -> MagnetState:
        return carry_out(state, seat, _turn(move))

    def rollout_step(self, state: MagnetState, seat: int, rng: random.Random) -> MagnetState:
        """A random turn: a magnet on a vertex toward which a random piece of ``seat`` can
        take a step, with every piece it affects in a random order, all promoted."""
        board = state.board
        mine = [v for v, x in enumerate(board) if x and x >> 6 == seat]
        while True:
            piece = rng.choice(mine)
            ray = rng.choice(RAYS[piece])
            reach = next((k for k, v in enumerate(ray) if board[v] and board[v] >> 6 == seat),
                         len(ray))  # up to the next piece of seat on the line
            if reach:
                magnet = ray[rng.randrange(reach)]
                break
        if state.turn == 0:  # the opening turn moves one piece
            pieces = [piece]
        else:
            pieces = [p.origin for p in _affected(knowledge(state, seat), magnet)]
            rng.shuffle(pieces)
        return carry_out(state, seat, Turn(magnet, tuple((o, True) for o in pieces)))

    def evaluate(self, state: MagnetState, seat: int) -> float:
        score = 0.0
        for v, x in enumerate(state.board):
            if not x:
                continue
            sign = 1.0 if x >> 6 == seat else -1.0
            kind = (x >> 3) & 7
            if kind == KING:
                score -= sign * 0.6 * DISTANCE[v]
            else:
                score += sign * (1.0 + 0.5 * VALUE[kind] + 0.5 * (x & 7))
        mover = state.to_move[0]
        if king_in_reach(state, mover):
            score += 6.0 if mover == seat else -6.0
        return squash(score, 4.0)

    def threat(self, state: MagnetState, seat: int) -> bool:
        return king_in_reach(state, seat)


HEURISTICS = MagnetHeuristics(rules.GAME)
