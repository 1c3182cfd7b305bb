"""Computer players for every game, at several levels, that know only what their seat knows.

``choose(game, state, seat, level=..., seed=...)`` answers a move. In a game without hidden
information whose heuristics give a ``tree`` (Mastery, The Right Moves), it searches it by
alpha-beta (``alphabeta.py``) for the nodes its level allows, each root move raised by the
level's noise drawn from the seed. In the others it plays a move that wins
at once in every world the seat can imagine; otherwise it leaves out the moves after which
the opponent could win at once (unless every move does), and, when it is ahead, those
that draw or let the opponent draw at once, and searches the rest with
information-set Monte-Carlo tree search (``search.py``) for the work its level allows. The
hidden parts of ``state`` are read only through ``game.resample``, so two states the seat
cannot tell apart get the same move; the same arguments always give the same move.
"""
from __future__ import annotations

import random
import time

from ..core import Game, InvalidGameSetup, State, chance
from . import magnet, magnetic_field, mastery, the_right_moves
from .alphabeta import WIN, AlphaBeta
from .search import DRAW, Heuristics, Search, lost, result, squash, won

# Simulations per move in the game whose simulations cost the least; each game scales them
# by its ``Heuristics.cost``, so that a level takes about as long in every game.
LEVELS: dict[str, int] = {"easy": 100, "medium": 500, "hard": 2500}
# The alpha-beta levels: nodes per move, and the most points of noise added to a root move's
# value (a weaker level errs more; equal levels vary their games).
NODES: dict[str, int] = {"easy": 300, "medium": 2000, "hard": 20000}
NOISE: dict[str, float] = {"easy": 2.0, "medium": 0.5, "hard": 0.1}
CONTEMPT = 3.0  # points a draw is worth less than an even game to the searching side
# A safeguard only (None: none): the node budgets take well under this on an idle 2-core
# machine, where the move depends on the arguments alone; on a machine so loaded that the
# strongest level's nodes would take longer, the search stops here with the best move found.
MOST_SECONDS: float | None = 4.5

HEURISTICS: dict[str, Heuristics] = {h.game.id: h for h in (
    mastery.HEURISTICS, magnet.HEURISTICS, the_right_moves.HEURISTICS,
    magnetic_field.HEURISTICS)}

WORLDS = 4  # worlds drawn to judge, before searching, whether a move wins at once


def heuristics_of(game: Game) -> Heuristics:
    """What the bots know of ``game``: its module's heuristics, or for a game without one
    (a plugin's) the defaults, which suit any game: a search over its legal moves."""
    return HEURISTICS.get(game.id) or Heuristics(game)


def choose(game: Game, state: State, seat: int, *, level: str, seed: object) -> str:
    """A legal move for ``seat``, who must be to move in ``state``."""
    return _decide(game, state, seat, level, seed, None)[0]


def assess(game: Game, state: State, seat: int, *, level: str, seed: object,
           seconds: float | None = None) -> tuple[str, float]:
    """``choose``'s move and how the level rates the position for ``seat``: its expected
    score from 0 (lost) to 1 (won), ½ a draw. The rating is the searched move's average
    result; where the level plays without searching (a set-up, a single sensible move), the
    evaluation of the position after the move. ``seconds``: at most so long on the clock
    for an alpha-beta search (a web request's), besides ``MOST_SECONDS``."""
    move, value = _decide(game, state, seat, level, seed, seconds)
    if value is not None:
        return move, value
    heuristics = heuristics_of(game)
    rng = chance(str(seed), "bot", game.id, level, state.ply, seat, "assess")
    after = game.apply(game.resample(state, seat, rng), seat, move)  # (a set-up too)
    return move, result(after, seat) if after.outcome is not None \
        else heuristics.evaluate(after, seat)


def _decide(game: Game, state: State, seat: int, level: str, seed: object,
            seconds: float | None) -> tuple[str, float | None]:
    """The move the level plays, and how its search rated it for ``seat`` (None: it played
    without searching)."""
    if level not in LEVELS:
        raise InvalidGameSetup("Unknown level %(level)s: the levels are %(levels)s.",
                               level=repr(level), levels=tuple(LEVELS))
    game.check_mover(state, seat)
    heuristics = heuristics_of(game)
    rng = chance(str(seed), "bot", game.id, level, state.ply, seat)
    move = heuristics.opening(state, seat, rng)
    if move is not None:
        return move, None
    if heuristics.tree is not None:
        return _alpha_beta(heuristics, state, level, rng, seconds)
    candidates = _sensible_moves(heuristics, state, seat, rng)
    if len(candidates) == 1:
        return candidates[0], None
    search = Search(heuristics, state, seat, rng, candidates)
    search.run(max(1, round(LEVELS[level] / heuristics.cost)))
    move = search.best()
    return move, search.value(move)


def _alpha_beta(heuristics: Heuristics, state: State, level: str, rng: random.Random,
                seconds: float | None) -> tuple[str, float]:
    """The move of the alpha-beta search at ``level`` (stopped after ``seconds`` or
    ``MOST_SECONDS`` if it has not spent its nodes by then), and its value for the side
    to move as an expected score (1 won, 0 lost)."""
    tree = heuristics.tree
    assert tree is not None
    limits = [limit for limit in (MOST_SECONDS, seconds) if limit is not None]
    search = AlphaBeta(tree, state, nodes=NODES[level], contempt=CONTEMPT, noise=NOISE[level],
                       rng=rng, repetition=bool(state.options.get("repetition_draw")),
                       deadline=time.monotonic() + min(limits) if limits else None)
    move = search.run()
    value = search.value
    rated = 1.0 if value > WIN / 2 else 0.0 if value < -WIN / 2 else squash(value, tree.scale)
    return tree.text(search.position, move), rated


def _sensible_moves(heuristics: Heuristics, state: State, seat: int,
                    rng: random.Random) -> list[str]:
    """The moves worth searching: a single move that wins at once in every world drawn;
    else those that lose at once in none and after which the next player cannot win at
    once (judged in one world), best first, and of these, if the seat's evaluation says it
    is ahead (better than a draw), those that neither draw nor let the next player draw at
    once (a repetition the tree might not look at); else all of them."""
    game = heuristics.game
    worlds = [game.resample(state, seat, rng) for _ in range(WORLDS)]
    if worlds[0] is state:
        worlds = [state]  # nothing hidden
    moves = heuristics.root_moves(worlds[0], seat)
    ahead = heuristics.evaluate(worlds[0], seat) > DRAW
    undrawn: list[str] = []  # the safe moves
    drawn: list[str] = []
    for move in moves:
        after = [heuristics.apply(world, seat, move) for world in worlds]
        if all(won(state, seat) for state in after):
            return [move]
        if _safe(heuristics, after[0], seat) and not heuristics.risky(
                worlds[0], after[0], seat) and all(
                state.outcome is None or not lost(state, seat) for state in after[1:]):
            (drawn if ahead and _drawn(heuristics, after[0]) else undrawn).append(move)
            if len(undrawn) == heuristics.width:
                break  # enough: the moves come best first, winning ones before all others
    chosen = undrawn or drawn or moves
    width = heuristics.width
    return chosen[:width] if width else chosen


def _safe(heuristics: Heuristics, after: State, seat: int) -> bool:
    """Whether the position ``after`` a move of ``seat`` is neither lost nor one where the
    next player can win at once."""
    if after.outcome is not None:
        return not lost(after, seat)
    return not heuristics.threat(after, after.to_move[0])


def _drawn(heuristics: Heuristics, after: State) -> bool:
    """Whether the game is drawn ``after`` a move, or the next player can draw it at once."""
    if after.outcome is not None:
        return after.outcome.draw
    return heuristics.draw_threat(after, after.to_move[0])


def tactical(game: Game, state: State, seat: int, rng: random.Random) -> str:
    """The baseline the benchmark measures bots against: a move that wins at once if there
    is one, else a random move after which the opponent cannot win at once (in one world
    drawn by ``resample``), else any random move."""
    game.check_mover(state, seat)
    heuristics = heuristics_of(game)
    move = heuristics.opening(state, seat, rng)
    if move is not None:
        return move
    world = game.resample(state, seat, rng)
    moves = heuristics.root_moves(world, seat)
    for move in moves:
        if won(heuristics.apply(world, seat, move), seat):
            return move
    legal = game.legal_moves(state, seat)
    for move in rng.sample(legal, len(legal)):
        if _safe(heuristics, game.apply(world, seat, move), seat):
            return move
    return rng.choice(legal)
