"""Single-observer information-set Monte-Carlo tree search (SO-ISMCTS: Cowling, Powley and
Whitehouse, 2012), the same code for every game.

The tree belongs to the bot's seat and is keyed by moves, which in these games are public.
Each iteration draws a world with ``game.resample`` (what the seat cannot see, dealt anew;
a game without hidden information hands back its state), walks down the tree choosing among
the moves legal in that world by UCB (counting, for each child, the iterations in which it
was available), adds one node, plays a few quick moves and scores the result with the
game's evaluation. Where nothing is hidden this is plain UCT.
"""
from __future__ import annotations

import math
import random
from typing import Any, Generic, Hashable

from ..core import Game, State, StateT
from .alphabeta import Tree

EXPLORATION = 0.3  # UCB's constant, for rewards between 0 and 1
WIDENING = 2.0  # a node visited n times considers its first 2 sqrt(n + 1) moves
# A draw is worth a little less than an even game to the bot (and more to its opponent, as
# the bot sees it), so that it plays on rather than settle for a draw in an even position,
# and takes one where its evaluation says it is behind (as pbem/computer.py accepts offers).
DRAW = 0.4


def result(state: State, seat: int) -> float:
    """1 if ``seat``'s side won the finished game of ``state``, 0 if it lost, ``DRAW``."""
    assert state.outcome is not None  # the game is over
    if state.outcome.draw:
        return DRAW
    return 1.0 if seat in state.outcome.winners else 0.0


def won(state: State, seat: int) -> bool:
    """Whether the game of ``state`` is over and ``seat``'s side won it."""
    return state.outcome is not None and seat in state.outcome.winners


def lost(state: State, seat: int) -> bool:
    """Whether the game of ``state`` is over and ``seat``'s side lost it."""
    return (state.outcome is not None and not state.outcome.draw
            and seat not in state.outcome.winners)


class Heuristics(Generic[StateT]):
    """What a bot knows of one game beyond its rules. The defaults suit any game; each game's
    module overrides what makes its bot faster or stronger."""

    rollout_plies = 4  # quick moves played from a new node before it is evaluated
    width: int | None = None  # the most moves of a position the tree considers, best first
    cost = 1.0  # work of one simulation, relative to the other games (see bots.LEVELS)
    # A game without hidden information may be searched by alpha-beta instead (its levels
    # count nodes: bots.NODES); then only ``evaluate`` and ``threat`` of these are used.
    tree: Tree[Any, Any] | None = None

    def __init__(self, game: Game[StateT]):
        self.game = game

    def moves(self, state: StateT, seat: int) -> list[str]:
        """The moves the tree considers, best first where the game can guess which are
        good, else in a fixed order: by default every legal move. They need not be in the
        game's notation, only understood by ``apply``."""
        return self.game.legal_moves(state, seat)

    def root_moves(self, state: StateT, seat: int) -> list[str]:
        """The legal moves the bot chooses among, best first: by default ``moves``."""
        return self.moves(state, seat)

    def key(self, state: StateT, seat: int) -> Hashable:
        """What ``moves`` depends on, to keep them for positions met again; None: compute
        them each time."""
        return None

    def apply(self, state: StateT, seat: int, move: str) -> StateT:
        return self.game.apply(state, seat, move)

    def rollout_step(self, state: StateT, seat: int, rng: random.Random) -> StateT:
        """A quick move of ``seat``, played during rollouts: by default a random legal one."""
        return self.game.apply(state, seat, rng.choice(self.game.legal_moves(state, seat)))

    def evaluate(self, state: StateT, seat: int) -> float:
        """How good ``state`` (a game still running) looks for ``seat``'s side, between 0 and
        1 (the chance of winning, roughly)."""
        return 0.5

    def threat(self, state: StateT, seat: int) -> bool:
        """Whether ``seat``, to move in ``state``, can win at once."""
        return any(won(self.game.apply(state, seat, move), seat)
                   for move in self.game.legal_moves(state, seat))

    def draw_threat(self, state: StateT, seat: int) -> bool:
        """Whether ``seat``, to move in ``state``, can draw the game at once: what only a game
        with draws that a move can bring about needs (the default: it cannot)."""
        return False

    def risky(self, before: StateT, after: StateT, seat: int) -> bool:
        """Whether the move of ``seat`` from ``before`` to ``after`` (a world drawn by
        ``resample``, where it did not lose) may lose at once in another world: what only a
        game with hidden information needs."""
        return False

    def opening(self, state: StateT, seat: int, rng: random.Random) -> str | None:
        """A move to play without searching (a secret setup), or None. Reads only what
        ``seat`` may know of ``state``."""
        return None


def squash(score: float, scale: float) -> float:
    """A score difference mapped into (0, 1): 0.5 at 0, the logistic curve of ``scale``."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, score / scale))))


class Node:
    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self) -> None:
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.reward = 0.0  # summed over visits, for the side that made the move into it
        self.available = 0  # iterations in which its move was legal at its parent


class Search:
    """One search for ``seat`` of ``state``: ``run`` adds iterations, ``best`` answers."""

    def __init__(self, heuristics: Heuristics, state: State, seat: int, rng: random.Random,
                 candidates: list[str]):
        self.heuristics, self.game = heuristics, heuristics.game
        self.state, self.seat, self.rng = state, seat, rng
        self.team = self.game.team_of(state.players, seat)
        self.root = Node()
        self.candidates = candidates
        self.cache: dict[Any, list[str]] = {}

    def moves(self, state: State, seat: int) -> list[str]:
        key = self.heuristics.key(state, seat)
        if key is None:
            found = self.heuristics.moves(state, seat)
        else:
            if key in self.cache:
                found = self.cache[key]
            else:
                found = self.cache[key] = self.heuristics.moves(state, seat)
        width = self.heuristics.width
        return found[:width] if width else found

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iterate()

    def iterate(self) -> None:
        heuristics, rng = self.heuristics, self.rng
        state = self.game.resample(self.state, self.seat, rng)
        node, path = self.root, []
        while state.outcome is None:
            mover = state.to_move[0]
            moves = self.candidates if node is self.root else self.moves(state, mover)
            # Progressive widening: the more a node is visited, the more of its moves
            # (best first) it considers.
            moves = moves[:math.ceil(WIDENING * math.sqrt(node.visits + 1))]
            children = node.children
            untried = None
            for move in moves:
                child = children.get(move)
                if child is None:
                    if untried is None:
                        untried = move
                else:
                    child.available += 1
            if untried is not None:
                child = children[untried] = Node()
                child.available = 1
                state = heuristics.apply(state, mover, untried)
                path.append((child, mover))
                break
            move = self.select(children, moves)
            state = heuristics.apply(state, mover, move)
            node = children[move]
            path.append((node, mover))
        for _ in range(heuristics.rollout_plies):
            if state.outcome is not None:
                break
            state = heuristics.rollout_step(state, state.to_move[0], rng)
        if state.outcome is not None:
            value = result(state, self.seat)
        else:
            value = heuristics.evaluate(state, self.seat)
        self.root.visits += 1
        for child, mover in path:
            child.visits += 1
            child.reward += value if mover in self.team else 1.0 - value

    @staticmethod
    def select(children: dict[str, Node], moves: list[str]) -> str:
        best, best_score = moves[0], -1.0
        for move in moves:
            child = children[move]
            score = child.reward / child.visits + EXPLORATION * math.sqrt(
                math.log(child.available) / child.visits)
            if score > best_score:
                best, best_score = move, score
        return best

    def value(self, move: str) -> float:
        """The average result, for the seat, of the searches through ``move``."""
        child = self.root.children[move]
        return child.reward / child.visits

    def best(self) -> str:
        """The most visited candidate (ties: the better average, then the earlier)."""
        children = self.root.children
        return max(self.candidates, key=lambda m: (
            children[m].visits, children[m].reward / children[m].visits)
            if m in children else (0, 0.0))
