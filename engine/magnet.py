"""Magnet (Matt Calkins, 2008): a magnet drags the nearest friendly piece along each of its six
lines; pieces capture what they run over, traps destroy their captors, and a king that holds
the centre for a whole round wins. Rules: shared/rules/magnet.md.

Hidden information. Every piece has a public rank and a private value. The real board lives in
the state; whatever a seat may be told is computed from ``knowledge(state, seat)``, which
erases the kinds of the opponent's pieces (only owner and rank remain) and adds what is public
about them (the values already captured). Move generation, move checking and every error
message use that knowledge only; the real board is used only to carry out a move already
found legal. So ``legal_moves`` and the messages of ``IllegalMove`` are functions of what the
seat may know.

The board is a tuple of 91 ints, one per vertex in sort order (by file, then rank), 0 for an
empty vertex, else ``owner << 6 | kind << 3 | rank``.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from .core import Game, IllegalMove, Option, Outcome, State, Text, chance

# -- the board -----------------------------------------------------------------------------

FILES = "abcdefghijk"
SIZE = 5  # vertices from the centre to a side
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, -1), (-1, 1))


def _name(q: int, r: int) -> str:
    return FILES[q + SIZE] + str(r - max(-SIZE, -SIZE - q) + 1)


# Every vertex as axial (q, r), in sort order: by file (q), then rank (r).
COORDS: tuple[tuple[int, int], ...] = tuple(
    (q, r) for q in range(-SIZE, SIZE + 1) for r in range(-SIZE, SIZE + 1)
    if -SIZE <= q + r <= SIZE)
NAMES: tuple[str, ...] = tuple(_name(q, r) for q, r in COORDS)
INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
_AT: dict[tuple[int, int], int] = {c: i for i, c in enumerate(COORDS)}
CENTRE = INDEX["f6"]


def _ray(i: int, step: tuple[int, int]) -> tuple[int, ...]:
    (q, r), out = COORDS[i], []
    while (q := q + step[0], r := r + step[1]) in _AT:
        out.append(_AT[q, r])
    return tuple(out)


# RAYS[v][d]: the vertices from v outward in direction d, nearest first.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(i, d) for d in DIRECTIONS) for i in range(len(COORDS)))
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[0] for ray in rays if ray) for rays in RAYS)
# TOWARD[m][d][k]: the walk of a piece standing on RAYS[m][d][k] to the magnet on m, m last.
TOWARD: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(tuple(reversed(ray[:k])) + (m,) for k in range(len(ray))) for ray in rays)
    for m, rays in enumerate(RAYS))

START_NAMES = ("a2 a3 a4 a5 b7 c8 d9 e10 g10 h9 i8 j7",
               "b1 c1 d1 e1 g1 h1 i1 j1 k2 k3 k4 k5")
START: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX[n] for n in names.split()) for names in START_NAMES)


def coords(name: str) -> tuple[int, int]:
    """The axial coordinates (q, r) of a vertex name; the centre f6 is (0, 0)."""
    try:
        return COORDS[INDEX[name.strip().lower()]]
    except (KeyError, AttributeError):
        raise ValueError(f"{name!r} is not a vertex of the Magnet board.") from None


def vertex_name(q: int, r: int) -> str:
    """The name of the vertex at axial (q, r)."""
    if (q, r) not in _AT:
        raise ValueError(f"({q}, {r}) is not a vertex of the Magnet board.")
    return NAMES[_AT[q, r]]


def pixel(name: str, spacing: float = 1.0) -> tuple[float, float]:
    """Where to draw a vertex: x to the right, y downward, the centre at (0, 0), neighbours
    ``spacing`` apart, file a on the left and rank 1 at the bottom of each file."""
    q, r = coords(name)
    return (spacing * q * 0.8660254037844386, -spacing * (r + q / 2))


def geometry() -> dict[str, Any]:
    """The board for a renderer, JSON-ready: every vertex's axial coordinates in sort order,
    the lines between neighbours, the centre and both sides' start vertices."""
    return {
        "vertices": {name: list(COORDS[i]) for i, name in enumerate(NAMES)},
        "edges": [[NAMES[a], NAMES[b]] for a in range(len(NAMES)) for b in NEIGHBOURS[a] if a < b],
        "centre": NAMES[CENTRE],
        "start": [names.split() for names in START_NAMES],
    }


# -- pieces --------------------------------------------------------------------------------

KING, T2, T3, P2, P3, P4 = range(6)
UNKNOWN = 7  # a piece whose kind the viewer does not know
CODES = ("K", "T2", "T3", "2", "3", "4", "", "?")
VALUE = (1, 2, 3, 2, 3, 4, 0, 4)
KIND_NAMES = ("king", "trap T2", "trap T3", "piece of value 2", "piece of value 3",
              "piece of value 4")
SET = (KING, T2, T3, P2, P2, P2, P3, P3, P3, P4, P4, P4)  # the table's order
_CODE_KIND = {"k": KING, "t2": T2, "t3": T3, "2": P2, "3": P3, "4": P4}


def _piece(owner: int, kind: int, rank: int = 1) -> int:
    return owner << 6 | kind << 3 | rank


def _is_trap(kind: int) -> bool:
    return kind in (T2, T3)


def public_board(board: tuple[int, ...]) -> tuple[int, ...]:
    """The board as both players see it: every piece's owner and rank, its kind erased."""
    return tuple(x & ~(7 << 3) for x in board)


# -- what a seat knows ---------------------------------------------------------------------

MAY_KING, MAY_TRAP, MAY_PLAIN = 1, 2, 4


class Knowledge(NamedTuple):
    """What ``seat`` knows: the board with the opponent's kinds erased (UNKNOWN), and for an
    opponent's piece of each rank what it may be (MAY_* bits) given the public facts: the
    king's rank is always 1, a rank never exceeds the value, and captured values are known."""
    seat: int
    board: tuple[int, ...]
    possible: tuple[int, ...]  # indexed by rank
    opening: bool
    own: int  # pieces of the seat on the board
    enemy: int  # pieces of the opponent on the board


def knowledge(state: MagnetState, seat: int) -> Knowledge:
    enemy = 1 - seat
    mask = ~(7 << 3)
    board = tuple(x if not x or x >> 6 == seat else (x & mask) | UNKNOWN << 3
                  for x in state.board)
    pool = Counter(SET)
    pool.subtract(kind for owner, kind, _, _ in state.captured if owner == enemy)
    possible = [0] * 8
    for rank in range(1, 5):
        bits = MAY_KING if rank == 1 else 0
        for kind, left in pool.items():
            if left > 0 and kind != KING and VALUE[kind] >= rank:
                bits |= MAY_TRAP if _is_trap(kind) else MAY_PLAIN
        possible[rank] = bits
    own = sum(1 for x in board if x and x >> 6 == seat)
    return Knowledge(seat, board, tuple(possible), state.turn == 0,
                     own, sum(1 for x in board if x) - own)


class Piece(NamedTuple):
    """A piece affected by a magnet, as its owner sees it before the turn."""
    origin: int
    path: tuple[int, ...]  # the vertices it enters if it moves first (magnet last if reached)
    kind: int
    rank: int
    reach: bool  # it enters the magnet's vertex if nothing is there before it
    captures: tuple[int, ...]  # the opponent's pieces on ``path``

    @property
    def promotable(self) -> bool:
        return self.kind != KING and self.rank < VALUE[self.kind]


def _affected(kn: Knowledge, magnet: int) -> list[Piece]:
    """The pieces of ``kn.seat`` a magnet on ``magnet`` affects, in sort order."""
    board, seat = kn.board, kn.seat
    here = board[magnet]
    own_here = bool(here) and here >> 6 == seat
    found = []
    for d, ray in enumerate(RAYS[magnet]):
        for k, v in enumerate(ray):
            x = board[v]
            if x and x >> 6 == seat:  # the nearest friendly piece; enemies never block
                rank = x & 7
                path = TOWARD[magnet][d][k][:rank]
                reach = len(path) == k + 1 and not own_here
                if own_here and len(path) == k + 1:
                    path = path[:-1]
                found.append(Piece(v, path, (x >> 3) & 7, rank, reach,
                                   tuple(w for w in path if board[w])))
                break
    found.sort()
    return found


def affected_everywhere(kn: Knowledge) -> list[list[Piece]]:
    """``_affected`` for every magnet vertex at once, indexed by vertex. Walking out from each
    piece of the seat finds the vertices from which it is the nearest friendly piece on a
    line: far fewer steps than walking in from all 91 vertices."""
    board, seat = kn.board, kn.seat
    found: list[list[Piece]] = [[] for _ in board]
    for v, x in enumerate(board):
        if not x or x >> 6 != seat:
            continue
        kind, rank = (x >> 3) & 7, x & 7
        for ray in RAYS[v]:
            for k, magnet in enumerate(ray):  # ``ray[:k + 1]``: the walk to the magnet
                y = board[magnet]
                own_here = bool(y) and y >> 6 == seat
                if rank <= k:
                    path, reach = ray[:rank], False
                else:
                    path, reach = (ray[:k], False) if own_here else (ray[:k + 1], True)
                found[magnet].append(Piece(v, path, kind, rank, reach,
                                           tuple(w for w in path if board[w])))
                if own_here:
                    break  # beyond it, that piece is the nearest
    for pieces in found:
        if len(pieces) > 1:
            pieces.sort(key=_origin)
    return found


def _origin(piece: Piece) -> int:
    return piece.origin


def has_legal_turn(board: tuple[int, ...], seat: int) -> bool:
    """A magnet on a vertex next to a piece moves that piece unless the vertex is friendly, so
    a seat has a turn exactly when some piece of its has a neighbour it does not hold."""
    for i, x in enumerate(board):
        if x and x >> 6 == seat:
            for n in NEIGHBOURS[i]:
                y = board[n]
                if not y or y >> 6 != seat:
                    return True
    return False


# -- carrying out a turn -------------------------------------------------------------------

class Step(NamedTuple):
    """What one piece did: where its move ended, whether a trap then destroyed it, whether it
    promoted, the pieces it captured as (piece, vertex), and the piece as it ended."""
    origin: int
    end: int
    destroyed: bool
    promoted: bool
    captured: tuple[tuple[int, int], ...]
    piece: int


def _run(board: list[int], seat: int, moves: Iterable[tuple[int, tuple[int, ...], bool]],
         own: int, enemy: int, steps: list[Step] | None = None
         ) -> tuple[int | None, str, list[int]]:
    """Move the pieces of ``moves`` (origin, path, promote) one after another on ``board``.

    Returns (winner, how, moved): ``winner`` is the seat that won during the turn (None if the
    game goes on), ``how`` says why, ``moved`` lists the origins of the pieces that changed
    position and survived. The same code plays real turns and, on boards where the unknown
    enemy kinds are filled in by a hypothesis, the turns that move generation compares.
    """
    moved = []
    for origin, path, promote in moves:
        x = board[origin]
        board[origin] = 0
        pos, took_king, took_trap, taken = origin, False, False, []
        for v in path:
            y = board[v]
            if y:
                if y >> 6 == seat:
                    break  # stop before a friendly piece
                kind = (y >> 3) & 7
                if kind == KING:
                    took_king = True
                elif _is_trap(kind):
                    took_trap = True
                enemy -= 1
                board[v] = 0
                taken.append((y, v))
            pos = v
        kind = (x >> 3) & 7
        promoted = False
        if took_trap:
            own -= 1
        else:
            if promote and pos != origin and kind != KING and x & 7 < VALUE[kind]:
                x += 1
                promoted = True
            board[pos] = x
            if pos != origin:
                moved.append(origin)
        if steps is not None:
            steps.append(Step(origin, pos, took_trap, promoted, tuple(taken), x))
        if took_king:  # Ruling: this wins even if the mover's own king died on a trap here
            return seat, "king", moved
        if took_trap and kind == KING:
            return 1 - seat, "trap", moved
        if own == 1 and enemy == 1 and board[CENTRE]:
            # Only the two kings remain (a side's last piece is its king), one on f6.
            y = board[CENTRE]
            if (y >> 3) & 7 in (KING, UNKNOWN):
                return y >> 6, "race", moved
    return None, "", moved


# -- one legal move per distinct result ----------------------------------------------------
#
# Which orders of the affected pieces give the same result is decided from the mover's
# knowledge only. A hypothesis gives every opponent's piece the mover might capture a label,
# king, trap or plain, among those its public facts allow (Knowledge.possible), each piece on
# its own except that at most one is the king. The result of an order under a hypothesis is
# the winner if the game ends during the turn, else the board after it (every piece with its
# vertex, kind and rank). Two orders (with their promotions) are the same move when they give
# the same result under every hypothesis; the legal list holds, for each magnet vertex, one
# move per class: the one whose piece list is smallest in vertex sort order. A promotion mark
# is legal on a piece when, in that order, some hypothesis lets the piece end the turn moved,
# alive and with the game still running (otherwise the mark could change nothing).
#
# Pieces interact only on the magnet's vertex (they walk on different lines), so only the
# order of the "essential" pieces matters: the reachers when two or more may enter the magnet's
# vertex, and, when the mover's king may die on a trap, that king and the pieces that may
# capture the enemy king (which of them comes first decides who wins). The others are placed
# in the order that gives the smallest list.
# Hypotheses label only the pieces the essential ones may capture: the others' labels change
# the result of every order alike. Near the end (when only the two kings might remain after
# this turn) every piece is essential, as the race rule counts all pieces.

class _Analysis(NamedTuple):
    magnet: int
    pieces: dict[int, Piece]
    essential: tuple[int, ...]  # origins, sorted
    free: tuple[int, ...]  # origins, sorted
    free_promotable: frozenset[int]  # free pieces that can end the turn moved and alive
    hypotheses: tuple[tuple[int, ...], ...]  # boards with the relevant unknown kinds filled in
    kn: Knowledge


_LABEL_KIND = {MAY_KING: KING, MAY_TRAP: T2, MAY_PLAIN: P4}


def _labelings(kn: Knowledge, vertices: list[int]) -> list[tuple[int, ...]]:
    """One labeling per distinct (any trap?, kings) of the group, at most one king."""
    options = []
    for v in vertices:
        bits = kn.possible[kn.board[v] & 7] or MAY_PLAIN
        options.append([b for b in (MAY_KING, MAY_TRAP, MAY_PLAIN) if bits & b])
    found: dict[tuple[bool, int], tuple[int, ...]] = {}
    for labels in itertools.product(*options):
        kings = labels.count(MAY_KING)
        if kings <= 1:
            found.setdefault((MAY_TRAP in labels, kings), labels)
    return list(found.values())


def _bits(possible: tuple[int, ...], board: tuple[int, ...], vertices: Iterable[int]) -> int:
    bits = 0
    for v in vertices:
        bits |= possible[board[v] & 7]
    return bits


def _analyse(kn: Knowledge, magnet: int, pieces: list[Piece]) -> _Analysis:
    possible, board = kn.possible, kn.board
    by_origin = {p.origin: p for p in pieces}
    may = {p.origin: _bits(possible, board, p.captures) for p in pieces}
    may_die = sum(1 for bits in may.values() if bits & MAY_TRAP)
    essential: set[int] = set()
    if kn.own - may_die <= 1 and \
            kn.enemy - len({v for p in pieces for v in p.captures}) <= 1:
        essential.update(by_origin)  # the two-kings race may come into play
    else:
        reachers = [p.origin for p in pieces if p.reach]
        if len(reachers) > 1:
            essential.update(reachers)
        # A piece that may take the king ends the game with the same winner in every order,
        # unless the mover's own king may die on a trap first: then their order matters.
        if may_die and any(p.kind == KING and may[p.origin] & MAY_TRAP for p in pieces):
            essential.update(o for o in may if may[o] & MAY_KING)
            essential.update(p.origin for p in pieces if p.kind == KING)
    free = tuple(sorted(set(by_origin) - essential))
    free_ok = frozenset(
        o for o in free if by_origin[o].path and by_origin[o].promotable
        and all(possible[board[v] & 7] & MAY_PLAIN for v in by_origin[o].captures))
    hypotheses: tuple[tuple[int, ...], ...] = ()
    if essential:
        groups = []
        for o in sorted(essential):
            segment = [v for v in by_origin[o].captures if v != magnet]
            if segment:
                groups.append(segment)
        if board[magnet] and board[magnet] >> 6 != kn.seat and \
                any(by_origin[o].reach for o in essential):
            groups.append([magnet])
        found = []
        for choice in itertools.product(*(_labelings(kn, g) for g in groups)):
            if sum(labels.count(MAY_KING) for labels in choice) > 1:
                continue
            filled = list(board)
            for group, labels in zip(groups, choice):
                for v, label in zip(group, labels):
                    filled[v] = _piece(1 - kn.seat, _LABEL_KIND[label], board[v] & 7)
            found.append(tuple(filled))
        hypotheses = tuple(found) or (board,)
    return _Analysis(magnet, by_origin, tuple(sorted(essential)), free, free_ok, hypotheses, kn)


def _evaluate(an: _Analysis, order: Iterable[int]) -> tuple[tuple[Any, ...], frozenset[int]]:
    """The results of the essential pieces moving in ``order`` under every hypothesis, and
    the pieces that may carry a promotion mark in an order with this essential order."""
    kn, pieces = an.kn, an.pieces
    moves = [(o, pieces[o].path, False) for o in order if o in an.essential]
    results: list[Any] = []  # per hypothesis: the winner, or the board if none won
    may_promote, running = set(), False
    for filled in an.hypotheses:
        board = list(filled)
        winner, _, moved = _run(board, kn.seat, moves, kn.own, kn.enemy)
        if winner is None:
            running = True
            may_promote.update(moved)
            results.append(tuple(board))
        else:
            results.append(winner)
    allowed = {o for o in may_promote if pieces[o].promotable}
    if running or not an.essential:
        allowed |= an.free_promotable
    return tuple(results), frozenset(allowed)


def _merge(fixed: tuple[int, ...], free: tuple[int, ...]) -> tuple[int, ...]:
    """The smallest list that keeps ``fixed`` in its order and places ``free`` anywhere."""
    out, i, j = [], 0, 0
    while i < len(fixed) and j < len(free):
        if fixed[i] < free[j]:
            out.append(fixed[i])
            i += 1
        else:
            out.append(free[j])
            j += 1
    return tuple(out) + fixed[i:] + free[j:]


def _classes(an: _Analysis) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """One (order, promotable pieces) per distinct result, each with its smallest order."""
    if not an.essential:
        return [(an.free, an.free_promotable)]
    classes: dict[Any, tuple[tuple[int, ...], frozenset[int]]] = {}
    # permutations of a sorted list come in lexicographic order, and _merge keeps that order,
    # so the first order met in each class is its smallest.
    for perm in itertools.permutations(an.essential):
        results, allowed = _evaluate(an, perm)
        classes.setdefault((results, allowed), (_merge(perm, an.free), allowed))
    return list(classes.values())


def _placements(kn: Knowledge, magnet: int,
                affected: list[Piece] | None = None) -> list[list[Piece]]:
    """The sets of pieces that may move for a magnet on ``magnet`` (``affected``: the pieces
    it affects, if known): all the affected pieces, or on the opening move each one that can
    move, alone."""
    pieces = _affected(kn, magnet) if affected is None else affected
    if kn.opening:
        return [[p] for p in pieces if p.path]
    return [pieces] if any(p.path for p in pieces) else []


# Each vertex's name as a turn writes it, without and with a promotion mark.
_MARKED = tuple((name, name + "+") for name in NAMES)


def _texts(magnet: int, order: tuple[int, ...], allowed: frozenset[int]) -> Iterator[str]:
    head = NAMES[magnet] + ":"
    if not allowed:
        yield head + ",".join([NAMES[o] for o in order])
        return
    for names in itertools.product(*(_MARKED[o] if o in allowed else (NAMES[o],)
                                     for o in order)):
        yield head + ",".join(names)


def turns(kn: Knowledge) -> list[str]:
    """Every legal turn of ``kn.seat`` in canonical notation, by magnet vertex."""
    out: list[str] = []
    for magnet, affected in enumerate(affected_everywhere(kn)):
        if affected:
            for pieces in _placements(kn, magnet, affected):
                for order, allowed in _classes(_analyse(kn, magnet, pieces)):
                    out.extend(_texts(magnet, order, allowed))
    return out


# -- notation ------------------------------------------------------------------------------

_VERTEX = r"[a-z]\d{1,3}"
_TURN = re.compile(rf"\s*({_VERTEX})\s*(?::\s*|\s+)(.*)", re.IGNORECASE | re.DOTALL)
_TURN_PIECE = re.compile(rf"({_VERTEX})(\+?)", re.IGNORECASE)
_TURN_CHARS = re.compile(r"[a-k0-9:+,;\s]*", re.IGNORECASE)
_SETUP_PAIR = re.compile(r"([a-z]+\d+)\s*[=:]\s*(t\s*[23]|[k234])", re.IGNORECASE)


def _vertex(text: str, move: str) -> int:
    name = text.lower()
    if name not in INDEX:
        raise IllegalMove("'%(move)s': %(vertex)s is not a vertex of the board (files a to k; "
                          "files a and k have ranks 1 to 6, file f ranks 1 to 11).", move=move,
                          vertex=text)
    return INDEX[name]


def _count_words(kinds: Iterable[int]) -> tuple[str, ...]:
    counts = Counter(kinds)
    return tuple(f"{counts[k]} × {CODES[k]}" for k in sorted(counts))


class Setup(NamedTuple):
    seat: int
    kinds: tuple[int, ...]  # the kinds on START[seat], in that order

    def __str__(self) -> str:
        return "setup " + " ".join(f"{NAMES[v]}={CODES[k]}"
                                   for v, k in zip(START[self.seat], self.kinds))


class Turn(NamedTuple):
    magnet: int
    pieces: tuple[tuple[int, bool], ...]  # (origin, promote) in the order they move

    def __str__(self) -> str:
        return NAMES[self.magnet] + ":" + ",".join(
            NAMES[o] + ("+" if plus else "") for o, plus in self.pieces)


# -- the state and the game ----------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class MagnetState(State):
    board: tuple[int, ...]
    arrangements: tuple[tuple[int, ...] | None, ...] = (None, None)  # kinds on START[seat]
    turn: int = 0  # turns played since the setup
    captured: tuple[tuple[int, int, int, int], ...] = ()  # (owner, kind, vertex, turn): public
    destroyed: tuple[tuple[int, int, int, int, int], ...] = ()  # (owner, kind, rank, vertex, turn)
    last: tuple[int, int, tuple[Step, ...]] | None = None  # (seat, magnet, steps) of the last turn
    # (public_board, seat to move) -> occurrences since the last capture, promotion or loss
    # to a trap (nothing earlier can recur: pieces never come back and ranks never fall)
    seen: Mapping[tuple[tuple[int, ...], int], int] = field(default_factory=dict)
    # Public, for working out what a seat may know (``resample``): the start vertex of the
    # piece on each vertex (-1 where empty; empty for a position built by hand, where each
    # piece counts as starting where it stands), and the start vertices of the pieces known
    # not to be kings (each stood on f6 at the start of its owner's turn and did not win).
    homes: tuple[int, ...] = ()
    cleared: frozenset[int] = frozenset()

    @property
    def setting_up(self) -> bool:
        return None in self.arrangements


def _homes(state: MagnetState) -> tuple[int, ...]:
    """The start vertex of the piece on each vertex (``MagnetState.homes``)."""
    return state.homes or tuple(v if x else -1 for v, x in enumerate(state.board))


def _pair(pair: tuple, seat: int, value: Any) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _allowed(slot: tuple[int, bool]) -> tuple[int, ...]:
    """The kinds a piece may be: value at least its rank, the king only if it may be one."""
    rank, may_be_king = slot
    return tuple(k for k in range(6) if VALUE[k] >= rank and (may_be_king or k != KING))


@functools.lru_cache(maxsize=4096)
def _assignments(slots: tuple[tuple[int, bool], ...], pool: tuple[int, ...]) -> int:
    """How many ways there are to give each slot a kind from ``pool`` (counts by kind) that
    it allows. Kinds left over are allowed only in positions built by hand."""
    if not slots:
        return 1
    total = 0
    for kind in _allowed(slots[0]):
        if pool[kind]:
            total += _assignments(slots[1:], _minus(pool, kind))
    return total


def _minus(pool: tuple[int, ...], kind: int) -> tuple[int, ...]:
    return pool[:kind] + (pool[kind] - 1,) + pool[kind + 1:]


def _draw_kinds(slots: list[tuple[int, bool]], pool: tuple[int, ...],
                rng: random.Random) -> list[int]:
    """A kind for each slot, drawn uniformly among all the assignments (``_assignments``):
    slot by slot, each kind weighted by the number of ways to complete the rest."""
    # The most constrained slots first, so that the counts of the rest repeat and cache well.
    order = sorted(range(len(slots)), key=lambda i: (-slots[i][0], slots[i][1]))
    todo = tuple(slots[i] for i in order)
    kinds = [0] * len(slots)
    for n, i in enumerate(order):
        choices = [(kind, _assignments(todo[n + 1:], _minus(pool, kind)))
                   for kind in _allowed(todo[n]) if pool[kind]]
        pick = rng.randrange(sum(count for _, count in choices))
        for kind, count in choices:  # noqa: B007 - the kind the pick falls on is kept below
            if pick < count:
                break
            pick -= count
        kinds[i] = kind
        pool = _minus(pool, kind)
    return kinds


class Magnet(Game[MagnetState]):
    id = "magnet"
    hidden_information = True  # piece values and the setup
    title = Text("Magnet")
    state_type = MagnetState
    player_counts = (2,)
    seat_names = {2: (Text("Red"), Text("Blue"))}
    options = (
        Option("random_setup", False, (False, True), Text("Random setup"),
               Text("The server arranges both sides' pieces at random and play starts at "
                    "once.")),
    )

    def initial_state(self, players: int, options: dict[str, Any], seed: str) -> MagnetState:
        state = MagnetState(players=players, options=options, board=(0,) * len(NAMES),
                            to_move=(0, 1))
        if options["random_setup"]:
            for seat in (0, 1):
                kinds = list(SET)
                chance(seed, "setup", seat).shuffle(kinds)
                state = self._set_up(state, seat, tuple(kinds), count=False)
        return state

    # -- setup ---------------------------------------------------------------------------

    def _set_up(self, state: MagnetState, seat: int, kinds: tuple[int, ...],
                count: bool = True) -> MagnetState:
        board, homes = list(state.board), list(_homes(state))
        for v, kind in zip(START[seat], kinds):
            board[v] = _piece(seat, kind)
            homes[v] = v
        arrangements = tuple(kinds if s == seat else a for s, a in enumerate(state.arrangements))
        waiting = tuple(s for s in (0, 1) if arrangements[s] is None)
        board_t = tuple(board)
        state = dataclasses.replace(state, board=board_t, arrangements=arrangements,
                                    homes=tuple(homes), ply=state.ply + count,
                                    to_move=waiting or (0,))
        if not waiting:
            state = dataclasses.replace(state, seen={(public_board(board_t), 0): 1})
        return state

    def setup_text(self, seat: int, kinds: Iterable[int]) -> str:
        return str(Setup(seat, tuple(kinds)))

    def parse_setup(self, seat: int, text: str) -> tuple[int, ...]:
        """The kinds on START[seat] that a setup text names (pairs in any order, any case)."""
        body = re.sub(r"^\s*setup\b\s*:?", "", text, flags=re.IGNORECASE)
        mine = START_NAMES[seat]
        example = self.setup_text(seat, SET)
        pairs = list(_SETUP_PAIR.finditer(body))
        leftover = _SETUP_PAIR.sub(" ", body)
        if re.sub(r"[\s,;]+", "", leftover) or not pairs:
            raise IllegalMove("'%(text)s' is not a setup. Write 'setup' and then one "
                              "vertex=piece pair for each of your start vertices (%(mine)s), the "
                              "pieces being K, T2, T3, 2, 3 or 4, e.g. %(example)s", text=text,
                              mine=mine, example=example)
        placed: dict[int, int] = {}
        for match in pairs:
            name = match[1].lower()
            if name not in INDEX or INDEX[name] not in START[seat]:
                raise IllegalMove("%(vertex)s is not one of your start vertices: %(mine)s.",
                                  vertex=match[1], mine=mine)
            v = INDEX[name]
            if v in placed:
                raise IllegalMove("%(vertex)s is given more than once.", vertex=NAMES[v])
            placed[v] = _CODE_KIND[re.sub(r"\s", "", match[2].lower())]
        missing = [NAMES[v] for v in START[seat] if v not in placed]
        if len(missing) == 1:
            raise IllegalMove("Every start vertex needs a piece: %(vertex)s has none.",
                              vertex=missing[0])
        if missing:
            raise IllegalMove("Every start vertex needs a piece: %(vertices)s have none.",
                              vertices=" ".join(missing))
        kinds = tuple(placed[v] for v in START[seat])
        if Counter(kinds) != Counter(SET):
            raise IllegalMove("Your pieces are %(pieces)s; this setup has %(setup)s.",
                              pieces=_count_words(SET), setup=_count_words(kinds))
        return kinds

    # -- the contract --------------------------------------------------------------------

    def generate_moves(self, state: MagnetState, seat: int) -> list[str]:
        if state.arrangements[seat] is None:
            return [self.setup_text(seat, SET)]
        return turns(knowledge(state, seat))

    def play(self, state: MagnetState, seat: int, text: str) -> MagnetState:
        move = self.parse(state, seat, text)
        if isinstance(move, Setup):
            return self._set_up(state, seat, move.kinds)
        return self._carry_out(state, seat, knowledge(state, seat), move)

    def notation(self, state: MagnetState, seat: int, text: str, after: MagnetState) -> str:
        """Ruling: the record marks only the promotions that happened. A ``+`` asked for a
        piece that a trap destroyed (or that the turn left where it stood) would tell the
        opponent that the piece's value is above its rank."""
        move = self.parse(state, seat, text)
        if isinstance(move, Turn):
            assert after.last is not None  # the turn just played
            promoted = {step.origin for step in after.last[2] if step.promoted}
            move = move._replace(pieces=tuple((origin, plus and origin in promoted)
                                              for origin, plus in move.pieces))
        return str(move)

    def parse(self, state: MagnetState, seat: int, text: str) -> Setup | Turn:
        """The legal setup or turn that ``text`` names, checked against what ``seat`` knows."""
        is_setup = bool(re.match(r"\s*setup\b", text, re.IGNORECASE)) or "=" in text
        if state.arrangements[seat] is None:
            if not is_setup:
                raise IllegalMove("First set up your pieces, e.g. %(example)s",
                                  example=self.setup_text(seat, SET))
            return Setup(seat, self.parse_setup(seat, text))
        if is_setup:
            if state.options["random_setup"]:
                raise IllegalMove("In this game the pieces were set up at random.")
            raise IllegalMove("Your pieces are already set up.")
        return self.parse_turn(knowledge(state, seat), text)

    def parse_turn(self, kn: Knowledge, text: str) -> Turn:
        """The legal turn that ``text`` names, checked against ``kn`` only. Pieces may be
        listed in any order (they move in the order given), separated by commas or spaces."""
        match = _TURN.fullmatch(text)
        pieces_text = match[2].strip() if match else ""
        if pieces_text:
            pieces_text = re.sub(r"\s*\+", "+", pieces_text)
            tokens = [t for t in re.split(r"[\s,;]+", pieces_text) if t]
        else:
            tokens = []
        if not match or not tokens or not all(_TURN_PIECE.fullmatch(t) for t in tokens):
            raise IllegalMove(
                "'%(text)s' is not a Magnet turn. Write the magnet's vertex, a colon, then your "
                "affected pieces by vertex in the order they move, each with + to promote it, "
                "e.g. f6:f3+,d4.", text=text)
        magnet = _vertex(match[1], text)
        listed: list[tuple[int, bool]] = []
        for token in tokens:
            m = _TURN_PIECE.fullmatch(token)
            assert m is not None  # every token matched above
            listed.append((_vertex(m[1], text), bool(m[2])))
        where = NAMES[magnet]
        affected = {p.origin: p for p in _affected(kn, magnet)}
        names = " ".join(NAMES[o] for o in sorted(affected))
        if not affected:
            raise IllegalMove("'%(text)s': none of your pieces lies on a line through "
                              "%(magnet)s, so a magnet on %(magnet)s would move nothing.",
                              text=text, magnet=where)
        movable = [o for o in sorted(affected) if affected[o].path]
        if not movable:
            raise IllegalMove("'%(text)s': a magnet on %(magnet)s affects %(pieces)s, but your "
                              "piece on %(magnet)s blocks them all, so nothing would move.",
                              text=text, magnet=where, pieces=names)
        origins = [o for o, _ in listed]
        for o in origins:
            if o not in affected:
                kn_piece = kn.board[o]
                why = (Text("there is no piece there") if not kn_piece else
                       Text("that piece is your opponent's") if kn_piece >> 6 != kn.seat else
                       Text("that piece is not the nearest of yours on a line through the "
                            "magnet") if o != magnet
                       else Text("a piece on the magnet's vertex is not affected"))
                raise IllegalMove("'%(text)s': a magnet on %(magnet)s does not move %(vertex)s "
                                  "(%(why)s); it affects %(pieces)s.", text=text, magnet=where,
                                  vertex=NAMES[o], why=why, pieces=names)
            if origins.count(o) > 1:
                raise IllegalMove("'%(text)s': %(vertex)s is listed more than once.", text=text,
                                  vertex=NAMES[o])
        if kn.opening:
            if len(origins) != 1:
                raise IllegalMove("'%(text)s': on the opening move exactly one piece moves; "
                                  "choose one of %(pieces)s, e.g. %(example)s.", text=text,
                                  pieces=" ".join(NAMES[o] for o in movable),
                                  example=NAMES[magnet] + ":" + NAMES[movable[0]])
            if not affected[origins[0]].path:
                raise IllegalMove("'%(text)s': the piece on %(vertex)s cannot move (your piece "
                                  "on %(magnet)s blocks it); choose one of %(pieces)s.",
                                  text=text, vertex=NAMES[origins[0]], magnet=where,
                                  pieces=" ".join(NAMES[o] for o in movable))
        else:
            missing = sorted(set(affected) - set(origins))
            if missing:
                raise IllegalMove("'%(text)s': a magnet on %(magnet)s moves all of %(pieces)s; "
                                  "list them all in the order they move (missing: %(missing)s).",
                                  text=text, magnet=where, pieces=names,
                                  missing=" ".join(NAMES[o] for o in missing))
        an = _analyse(kn, magnet, [affected[o] for o in origins])
        _, allowed = _evaluate(an, origins)
        for o, plus in listed:
            if plus and o not in allowed:
                p = affected[o]
                if p.kind == KING:
                    why = Text("a king never promotes")
                elif p.rank >= VALUE[p.kind]:
                    why = Text("its rank is already %(rank)s, its value", rank=p.rank)
                elif not p.path:
                    why = Text("it cannot move (your piece on %(magnet)s blocks it)",
                               magnet=where)
                else:
                    why = Text("moving in this order it cannot end the turn having changed "
                               "position and survived")
                raise IllegalMove("'%(text)s': the piece on %(vertex)s cannot be promoted: "
                                  "%(why)s.", text=text, vertex=NAMES[o], why=why)
        return Turn(magnet, tuple(listed))

    def _carry_out(self, state: MagnetState, seat: int, kn: Knowledge, turn: Turn) -> MagnetState:
        affected = {p.origin: p for p in _affected(kn, turn.magnet)}
        board = list(state.board)
        steps: list[Step] = []
        winner, how, _ = _run(board, seat, ((o, affected[o].path, plus) for o, plus in turn.pieces),
                              kn.own, kn.enemy, steps)
        after = tuple(board)
        number = state.turn
        captured = state.captured + tuple(
            (y >> 6, (y >> 3) & 7, v, number) for step in steps for y, v in step.captured)
        destroyed = state.destroyed + tuple(
            (seat, (s.piece >> 3) & 7, s.piece & 7, s.end, number) for s in steps if s.destroyed)
        following = 1 - seat
        key = (public_board(after), following)  # Ruling: the position both players see
        if len(captured) > len(state.captured) or any(s.promoted or s.destroyed for s in steps):
            seen: dict = {key: 1}
        else:
            seen = {**state.seen, key: state.seen.get(key, 0) + 1}
        names = self.seat_names[2]
        outcome = None
        if winner is not None:
            loser = 1 - winner
            reason = {"king": Text("%(winner)s captured %(loser)s's king", winner=names[winner],
                                   loser=names[loser]),
                      "trap": Text("%(loser)s's king was destroyed by a trap",
                                   loser=names[loser]),
                      "race": Text("only the kings were left and %(winner)s's king reached the "
                                   "centre f6", winner=names[winner])}[how]
            outcome = Outcome((winner,), False, reason)
        elif (after[CENTRE] and after[CENTRE] >> 6 == following
              and (after[CENTRE] >> 3) & 7 == KING):
            outcome = Outcome((following,), False, Text(
                "%(side)s's king held the centre f6 at the start of %(side)s's turn",
                side=names[following]))
        elif seen[key] >= 3:
            outcome = Outcome((), True, Text("the same position occurred three times"))
        elif not has_legal_turn(after, following):
            outcome = Outcome((seat,), False, Text("%(side)s has no legal turn",
                                                   side=names[following]))
        homes = list(_homes(state))
        for step in steps:  # every piece carries its start vertex along
            home, homes[step.origin] = homes[step.origin], -1
            for _, v in step.captured:
                homes[v] = -1
            if not step.destroyed:
                homes[step.end] = home
        cleared = state.cleared
        if outcome is None and after[CENTRE] and after[CENTRE] >> 6 == following:
            cleared = cleared | {homes[CENTRE]}  # on f6 at the start of its turn: no king
        return dataclasses.replace(
            state, board=after, turn=number + 1, captured=captured, destroyed=destroyed,
            last=(seat, turn.magnet, tuple(steps)), seen=seen, homes=tuple(homes),
            cleared=cleared, ply=state.ply + 1, to_move=() if outcome else (following,),
            outcome=outcome)

    # -- what a seat may know --------------------------------------------------------------

    def sample_hidden(self, state: MagnetState, seat: int,
                      rng: random.Random) -> MagnetState:
        """``state`` with the values of the opponent's pieces that ``seat`` has not seen
        drawn from ``rng``, uniformly among the assignments that agree with what ``seat``
        knows: the piece mix less the captured values, each piece's rank (a value is never
        below it; kings stay at rank 1), and which pieces are known not to be kings (those
        a trap destroyed, and those ``cleared``). Before the opponent's setup is played,
        nothing is hidden; once the game is over, nothing is.

        Built from public fields and ``seat``'s own pieces only: every field that holds
        the opponent's values (the board, ``arrangements``, ``destroyed``, ``last``) is
        rewritten from the draw."""
        enemy = 1 - seat
        if state.outcome is not None or state.arrangements[enemy] is None:
            return state
        if state.setting_up:  # the opponent's arrangement, unseen: any of them
            kinds = list(SET)
            rng.shuffle(kinds)
            board = list(state.board)
            for v, kind in zip(START[enemy], kinds):
                board[v] = _piece(enemy, kind)
            return dataclasses.replace(state, board=tuple(board), arrangements=_pair(
                state.arrangements, enemy, tuple(kinds)))
        homes = _homes(state)
        on_board = [v for v, x in enumerate(state.board) if x and x >> 6 == enemy]
        lost = [i for i, entry in enumerate(state.destroyed) if entry[0] == enemy]
        # Each unknown piece as (lowest value it may have, may it be the king?).
        slots = [(state.board[v] & 7, homes[v] not in state.cleared) for v in on_board]
        slots += [(state.destroyed[i][2], False) for i in lost]  # a king there ends the game
        pool = Counter(SET)
        pool.subtract(kind for owner, kind, _, _ in state.captured if owner == enemy)
        kinds = _draw_kinds(slots, tuple(max(0, pool[k]) for k in range(6)), rng)
        board = list(state.board)
        for v, kind in zip(on_board, kinds):
            board[v] = (board[v] & ~(7 << 3)) | kind << 3
        destroyed = list(state.destroyed)
        for i, kind in zip(lost, kinds[len(on_board):]):
            destroyed[i] = (enemy, kind, *destroyed[i][2:])
        last = state.last
        if last and last[0] == enemy:  # its steps hold the moved pieces, values and all
            gone = iter(kinds[len(on_board) + len(lost) - sum(s.destroyed for s in last[2]):])
            last = (enemy, last[1], tuple(
                s._replace(piece=(s.piece & ~(7 << 3)) | next(gone) << 3) if s.destroyed
                else s._replace(piece=board[s.end]) for s in last[2]))
        # The arrangement: each piece's value at its start vertex; the values of the pieces
        # no longer on the board fill the remaining start vertices in order (which of them
        # went where is not kept, and no view shows it before the game ends).
        placed = {homes[v]: kind for v, kind in zip(on_board, kinds)}
        at_start = [placed.get(v) for v in START[enemy]]
        rest = iter(sorted((Counter(SET) - Counter(k for k in at_start if k is not None))
                           .elements()))
        arrangement = tuple(next(rest) if k is None else k for k in at_start)
        return dataclasses.replace(
            state, board=tuple(board), destroyed=tuple(destroyed), last=last,
            arrangements=_pair(state.arrangements, enemy, arrangement))

    # -- what each seat may see ------------------------------------------------------------

    def observe(self, state: MagnetState, seat: int | None, *,
                reveal: bool = False) -> dict[str, Any]:
        """``pieces``: vertex -> owner and rank, and ``piece`` (its code: K, T2, T3, 2, 3, 4)
        only for the viewer's own pieces, or for all once the game is over; ``captured``
        (public, with values), ``destroyed`` (pieces a trap removed: the value only for their
        owner), ``arrangements`` (the setups the viewer may see), ``last_turn`` (what each
        piece of the last turn did: all public), and the phase, turn and seats to move.
        ``reveal``: show every value, as in a game that is over (``review_view``)."""
        over = state.outcome is not None

        def shows(owner: int) -> bool:
            return over or reveal or owner == seat

        pieces = {}
        for v, x in enumerate(state.board):
            if x:
                owner = x >> 6
                entry: dict[str, Any] = {"owner": owner, "rank": x & 7}
                if shows(owner):
                    entry["piece"] = CODES[(x >> 3) & 7]
                pieces[NAMES[v]] = entry
        last = None
        if state.last:
            mover, magnet, steps = state.last
            last = {"seat": mover, "magnet": NAMES[magnet], "moves": [
                {"from": NAMES[s.origin], "to": NAMES[s.end], "destroyed": s.destroyed,
                 "promoted": s.promoted, "captured": [NAMES[v] for _, v in s.captured]}
                for s in steps]}
        return {
            "phase": "over" if over else "setup" if state.setting_up else "play",
            "seat": seat,
            "to_move": list(state.to_move),
            "turn": state.turn,
            "opening": not state.setting_up and state.turn == 0 and not over,
            "set_up": [a is not None for a in state.arrangements],
            "centre": NAMES[CENTRE],
            "pieces": pieces,
            "arrangements": {str(s): {NAMES[v]: CODES[k] for v, k in zip(START[s], a)}
                             for s, a in enumerate(state.arrangements)
                             if a is not None and shows(s)},
            "captured": [{"owner": o, "piece": CODES[k], "vertex": NAMES[v], "turn": t}
                         for o, k, v, t in state.captured],
            "destroyed": [{"owner": o, "rank": r, "vertex": NAMES[v], "turn": t,
                           **({"piece": CODES[k]} if shows(o) else {})}
                          for o, k, r, v, t in state.destroyed],
            "last_turn": last,
        }

    def review_view(self, state: MagnetState, seat: int | None,
                    final: State) -> dict[str, Any]:
        # Everything is public once the game is over, in its history too.
        self.check_seat(state, seat, spectator=True)
        return self.observe(state, seat, reveal=final.outcome is not None)

    def public_move(self, seat: int, move: str, viewer: int | None, state_after: State) -> str:
        # A setup is secret until the game ends; a turn names only vertices, which are public.
        if state_after.outcome is not None or viewer == seat or _TURN_CHARS.fullmatch(move):
            return move
        return "setup"


GAME = Magnet()


def carry_out(state: MagnetState, seat: int, turn: Turn) -> MagnetState:
    """Play ``turn`` for ``seat`` without checking it, for computer players' simulations:
    ``turn`` must name a magnet that moves a piece and every affected piece, in any order;
    a promotion mark on a piece that cannot promote does nothing."""
    # Carrying out a turn needs of the knowledge only where the pieces are and their ranks:
    # the board itself serves.
    board = state.board
    own = sum(1 for x in board if x and x >> 6 == seat)
    everyone = sum(1 for x in board if x)
    kn = Knowledge(seat, board, (), state.turn == 0, own, everyone - own)
    return GAME._carry_out(state, seat, kn, turn)


# -- helpers for a turn builder (the mover's knowledge only) --------------------------------

def _mover_knowledge(state: MagnetState, seat: int) -> Knowledge:
    GAME.check_seat(state, seat)
    return knowledge(state, seat)


def _index(vertex: str) -> int:
    coords(vertex)  # raises ValueError for a bad name
    return INDEX[vertex.strip().lower()]


def affected_pieces(state: MagnetState, seat: int, vertex: str) -> list[str]:
    """The vertices of ``seat``'s pieces that a magnet on ``vertex`` affects, in sort order."""
    return [NAMES[p.origin] for p in _affected(_mover_knowledge(state, seat),
                                               _index(vertex))]


def path_preview(state: MagnetState, seat: int, vertex: str) -> dict[str, dict[str, Any]]:
    """For each piece a magnet on ``vertex`` affects: ``path``, the vertices it enters if it
    moves first (the magnet's vertex last if it gets there); ``reaches`` (it would enter the
    magnet's vertex, so the pieces that move after it stop one short); ``captures``, the
    opponent's pieces on that path; ``can_move`` and ``can_promote`` (rank below value, not a
    king)."""
    kn = _mover_knowledge(state, seat)
    magnet = _index(vertex)
    return {NAMES[p.origin]: {"path": [NAMES[v] for v in p.path], "reaches": p.reach,
                              "captures": [NAMES[v] for v in p.captures],
                              "can_move": bool(p.path), "can_promote": p.promotable}
            for p in _affected(kn, magnet)}


def order_pieces(state: MagnetState, seat: int, vertex: str) -> list[str]:
    """The affected pieces whose order may change the result of a magnet on ``vertex``, in
    sort order; empty when every order gives the same result (and on the opening turn, when
    one piece moves). The others may move in any order: a builder need not ask for it."""
    kn = _mover_knowledge(state, seat)
    magnet = _index(vertex)
    placements = _placements(kn, magnet)
    if kn.opening or not placements:
        return []
    an = _analyse(kn, magnet, placements[0])
    return [NAMES[o] for o in an.essential] if len(_classes(an)) > 1 else []


def legal_turns(state: MagnetState, seat: int, vertex: str) -> list[str]:
    """The legal moves of ``seat`` with the magnet on ``vertex`` (a slice of legal_moves)."""
    kn = _mover_knowledge(state, seat)
    if state.outcome is not None or seat not in state.to_move or state.setting_up:
        return []
    magnet = _index(vertex)
    return [text for pieces in _placements(kn, magnet)
            for order, allowed in _classes(_analyse(kn, magnet, pieces))
            for text in _texts(magnet, order, allowed)]
