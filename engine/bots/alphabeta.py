"""Alpha-beta search for the games without hidden information (Mastery, The Right Moves):
negamax with iterative deepening inside a budget of nodes, a transposition table, captures
searched to quiet positions (quiescence), moves ordered by the table's best move, then the
game's own guess (captures, most valuable victim first), killer moves and history.

A game describes itself to the search by a ``Tree``: a compact position (a board string and
the seat to move, not the game's state, whose copies of the positions seen would cost more
than the search itself), its moves, the position after one, how it ends and how good it
looks, in points, for the side to move. Two sides alternate (The Right Moves with four
players too: its seats alternate colours, and a colour is a side). Results count as
``WIN`` less the plies to reach them, so a won game is won by the shortest way and a lost
one lasts; a draw by repetition is worth ``-contempt`` to the searching side (and as much
more to its opponent), so that it plays on where it is not behind.

The budget counts nodes, not seconds, so the same arguments always give the same move;
``deadline`` (a ``time.monotonic`` moment) is a safeguard for a machine far slower than
the budgets were set for, and is checked only every few hundred nodes.
"""
from __future__ import annotations

import random
import time
from typing import Any, Generic, Hashable, Mapping, TypeVar

P = TypeVar("P")  # a game's compact position
M = TypeVar("M")  # a game's move

WIN = 10_000.0
QUIESCENCE_PLIES = 4  # captures followed at most this far past the nominal depth
CHECK_EVERY = 256  # nodes between looks at the clock


class Tree(Generic[P, M]):
    """What the search needs of one game. Positions are ``P``, moves ``M``."""

    scale = 4.0  # the points of evaluation that make a win about 73% likely (``squash``)

    def root(self, state: Any) -> P:
        """The position of the game's ``state``."""
        raise NotImplementedError

    def side(self, position: P) -> int:
        """The side to move (0 or 1)."""
        raise NotImplementedError

    def key(self, position: P) -> Hashable:
        """What identifies the position, as the game's record of positions seen (``seen``)
        keys it: for repetitions and the transposition table."""
        raise NotImplementedError

    def moves(self, position: P) -> list[M]:
        """The moves of the side to move, best first as far as the game can guess cheaply;
        none: it has no legal move, and has lost."""
        raise NotImplementedError

    def captures(self, position: P) -> list[M]:
        """The noisy moves of ``moves`` (what quiescence search follows), best first; a
        game may find them faster than by listing every move."""
        return [move for move in self.moves(position) if self.noisy(position, move)]

    def noisy(self, position: P, move: M) -> bool:
        """Whether ``move`` changes the material (what quiescence search follows)."""
        raise NotImplementedError

    def play(self, position: P, move: M) -> P:
        raise NotImplementedError

    def lost(self, position: P) -> bool:
        """Whether the side to move has lost on the board (the move into ``position`` won);
        having no move is found by ``moves``."""
        raise NotImplementedError

    def evaluate(self, position: P) -> float:
        """How good ``position`` (not over) looks for the side to move, in points."""
        raise NotImplementedError

    def text(self, position: P, move: M) -> str:
        """``move``'s notation, as the game's ``apply`` reads it."""
        raise NotImplementedError


class OutOfBudget(Exception):
    """The search spent its nodes or its time: the iteration under way is cut short."""


class AlphaBeta(Generic[P, M]):
    """One search from the game's ``state`` for the side to move: ``run`` answers."""

    def __init__(self, tree: Tree[P, M], state: Any, *, nodes: int, contempt: float,
                 noise: float, rng: random.Random, repetition: bool,
                 deadline: float | None = None):
        self.tree, self.nodes_left, self.contempt = tree, nodes, contempt
        self.deadline = deadline
        self.position = tree.root(state)
        self.me = tree.side(self.position)
        seen: Mapping[Hashable, int] = state.seen
        self.repetition = repetition
        # occurrences of each position: the game's so far, and those along the current line
        self.occurrences: dict[Hashable, int] = dict(seen) if repetition else {}
        self.table: dict[Hashable, tuple[int, float, int, M | None]] = {}
        self.killers: dict[int, list[M]] = {}
        self.history: dict[Any, int] = {}
        self.moves = tree.moves(self.position)
        # A level's noise: each root move's value is raised by a fixed random amount up to
        # ``noise`` points, drawn from the seed, so that equal levels play varied games and
        # a weaker level errs by about as much.
        self.bonus = [rng.random() * noise for _ in self.moves]
        self.depth = 0  # the last depth searched to the end
        self.best = 0  # the index of the best move found so far
        self.value = 0.0  # its value for the side to move (its noise included)

    def run(self, most_depth: int = 64) -> M:
        """The move chosen: the best of the deepest iteration, the one cut short included
        once it has searched its first move (the previous iteration's best), since another
        move replaces that one only by doing better."""
        assert self.moves, "the side to move has a move"
        # A move that draws by repetition is searched first: its value is exact at once,
        # and a side behind wants it (the others' values at the root are only bounds).
        order = sorted(range(len(self.moves)), key=lambda i: not self._repeats(i))
        self.best = 0
        try:
            for depth in range(1, most_depth + 1):
                order = self._root(depth, order)
                self.depth = depth
                if abs(self.value) > WIN / 2:
                    break  # a forced result found: deeper looks change nothing
        except OutOfBudget:
            pass
        return self.moves[self.best]

    def _root(self, depth: int, order: list[int]) -> list[int]:
        """Search every root move to ``depth``; the moves in the order the next iteration
        tries them (this one's best first)."""
        tree, moves = self.tree, self.moves
        alpha = -2 * WIN
        improved: list[int] = []  # the moves that were the best so far, in turn
        for index in order:
            bonus = self.bonus[index]
            child = tree.play(self.position, moves[index])
            # the child's value for its side to move; below ``limit``, this move is the best
            limit = bonus - alpha
            value = self._child(child, depth - 1, -2 * WIN, limit, 1)
            if value < limit:
                alpha = bonus - value
                self.best, self.value = index, alpha
                improved.append(index)
        return self._next_order(order, improved)

    def _next_order(self, order: list[int], improved: list[int]) -> list[int]:
        """The order of the next iteration: the moves that repeat (their value is known at
        once), then those that were the best so far, the last first, then the others in
        this iteration's order (their values are bounds, which say nothing of it)."""
        first = [i for i in order if self._repeats(i)]
        first += [i for i in improved[::-1] if i not in first]
        return first + [i for i in order if i not in first]

    def _repeats(self, index: int) -> bool:
        """Whether the root move ``index`` makes a position occur the third time."""
        key = self.tree.key(self.tree.play(self.position, self.moves[index]))
        return self.repetition and self.occurrences.get(key, 0) >= 2

    def _child(self, position: P, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of ``position`` for its side to move, after a move of the other side."""
        self._spend()
        if self.tree.lost(position):
            return -(WIN - ply)
        key = self.tree.key(position)
        if self.repetition:
            count = self.occurrences.get(key, 0) + 1
            if count >= 3:
                return self._draw(position)
            self.occurrences[key] = count
            try:
                return self._node(position, key, depth, alpha, beta, ply)
            finally:
                self.occurrences[key] = count - 1
        return self._node(position, key, depth, alpha, beta, ply)

    def _draw(self, position: P) -> float:
        return -self.contempt if self.tree.side(position) == self.me else self.contempt

    def _node(self, position: P, key: Hashable, depth: int, alpha: float, beta: float,
              ply: int) -> float:
        tree = self.tree
        if depth <= 0:
            return self._quiet(position, alpha, beta, ply, QUIESCENCE_PLIES)
        entry = self.table.get(key)
        hinted = None
        if entry is not None:
            stored_depth, stored, bound, hinted = entry
            if stored_depth >= depth and (bound == 0 or (bound > 0 and stored >= beta)
                                          or (bound < 0 and stored <= alpha)):
                return stored
        moves = tree.moves(position)
        if not moves:
            return -(WIN - ply)  # no legal move: the side to move has lost
        moves = self._ordered(position, moves, hinted, ply)
        start_alpha, best_value, best_move = alpha, -2 * WIN, moves[0]
        for move in moves:
            value = -self._child(tree.play(position, move), depth - 1, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if not tree.noisy(position, move):
                            killers = self.killers.setdefault(ply, [])
                            if move not in killers:
                                killers.insert(0, move)
                                del killers[2:]
                            history_key = (tree.side(position), move)
                            self.history[history_key] = \
                                self.history.get(history_key, 0) + depth * depth
                        break
        bound = 1 if best_value >= beta else -1 if best_value <= start_alpha else 0
        self.table[key] = (depth, best_value, bound, best_move)
        return best_value

    def _ordered(self, position: P, moves: list[M], hinted: M | None, ply: int) -> list[M]:
        """The table's move first, then the noisy moves in the game's order, the killers,
        and the quiet moves by history (the game's order among equals)."""
        tree, side = self.tree, self.tree.side(position)
        killers = self.killers.get(ply, ())
        history = self.history
        noisy = [m for m in moves if m != hinted and tree.noisy(position, m)]
        quiet = [m for m in moves if m != hinted and not tree.noisy(position, m)]
        first = [m for m in killers if m in quiet]
        rest = sorted((m for m in quiet if m not in first),
                      key=lambda m: -history.get((side, m), 0))
        return ([hinted] if hinted in moves else []) + noisy + first + rest

    def _quiet(self, position: P, alpha: float, beta: float, ply: int, left: int) -> float:
        """Captures followed until the position is quiet (or ``left`` runs out), the side to
        move free to stop capturing (its evaluation as it stands). A side without a move
        here is judged by its evaluation: finding that it has none would cost every move."""
        tree = self.tree
        standing = tree.evaluate(position)
        if standing >= beta or left == 0:
            return standing
        alpha = max(alpha, standing)
        for move in tree.captures(position):
            self._spend()
            child = tree.play(position, move)
            if tree.lost(child):
                return WIN - ply - 1
            value = -self._quiet(child, -beta, -alpha, ply + 1, left - 1)
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
        return alpha

    def _spend(self) -> None:
        self.nodes_left -= 1
        if self.nodes_left < 0:
            raise OutOfBudget
        if self.deadline is not None and self.nodes_left % CHECK_EVERY == 0 \
                and time.monotonic() > self.deadline:
            raise OutOfBudget
