"""The positions of a game, kept in little memory and restored without replaying it all.

A ``matches.Match`` needs the position after every ply (history pages, stale moves, clocks),
but holding them all costs memory that grows with the square of a game's length in some
games (Mastery's state counts the positions seen so far). ``Positions`` keeps only every
``EVERY``-th one and the last, and replays the others from the nearest kept one when asked;
who was to move after each ply, which clocks and reminders need for every ply, is kept for
all of them.

The last kept position of each game is also stored in the ``snapshots`` table, in the
transaction of the move that reached it, so that a process that has not cached the game
(a new worker, or one that dropped it for memory) replays fewer than ``EVERY`` moves instead
of the whole game. A snapshot is only a cache of the log: it is used only while the engine's
code is the one that made it (``ENGINE``), and it is unpickled with nothing but the engine's
own classes.
"""
from __future__ import annotations

import hashlib
import io
import json
import pickle
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import engine
import sqlite_utils

EVERY = 16  # plies between the positions kept in memory (and stored)
# The engine's code: a snapshot made by other rules is replayed from the log instead.
ENGINE = hashlib.sha256(b"".join(
    path.read_bytes() for path in sorted(Path(engine.__file__).parent.glob("*.py")))).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    ply: int
    state: engine.State
    to_move: tuple[tuple[int, ...], ...]  # who was to move after each ply, 0 to ``ply``
    size: int                             # bytes of the pickled state


class Positions(Sequence):
    """``positions[p]``: the position after ``p`` moves; ``to_move(p)``: who was to move
    then. Immutable like a tuple (``played`` returns a new one); the kept positions are
    shared between the versions of one game."""

    def __init__(self, game: engine.Game, moves: tuple[tuple[int, str], ...],
                 to_move: tuple[tuple[int, ...], ...], last: engine.State | None,
                 kept: dict[int, tuple[engine.State, int]], restored: Snapshot | None = None,
                 rewound: bool = False):
        self._game, self._moves, self._to_move, self.last = game, moves, to_move, last
        self._kept = kept          # ply -> (position, its pickled size)
        self._restored = restored  # a stored snapshot the moves have not yet reached
        # moves were taken back: a ply no longer names one position of the game's log, so
        # no snapshot is stored (a replay of the log would restore one on the wrong line)
        self.rewound = rewound

    @classmethod
    def starting(cls, game: engine.Game, start: engine.State,
                 restored: Snapshot | None = None) -> Positions:
        """A game's positions before its first move; ``restored``: a snapshot of a later
        ply, which saves replaying the moves up to it."""
        return cls(game, (), (tuple(start.to_move),), start,
                   {0: (start, _size(start))}, restored)

    def played(self, moves: Sequence[tuple[int, str]],
               after: engine.State | None = None) -> Positions:
        """These positions and those after ``moves`` ((seat, move) each, in order); raises
        ``engine.IllegalMove`` as ``game.apply`` does. ``after``: the position after the
        last of them, where the caller has played it already."""
        final = len(self._moves) + len(moves)
        restored, kept, last = self._restored, self._kept, self.last
        to_move: list[tuple[int, ...]] = []
        for ply, (seat, move) in enumerate(moves, start=len(self._moves) + 1):
            if restored is not None and ply <= restored.ply:
                last = restored.state if ply == restored.ply else None  # not replayed
                to_move.append(restored.to_move[ply])
                if ply == restored.ply:
                    kept = {**kept, ply: (restored.state, restored.size)}
                continue
            last = after if after is not None and ply == final \
                else self._game.apply(last, seat, move)
            to_move.append(tuple(last.to_move))
            if ply % EVERY == 0:
                kept = {**kept, ply: (last, _size(last))}
        length = len(self._moves) + len(moves)
        return Positions(self._game, self._moves + tuple(moves),
                         self._to_move + tuple(to_move), last, kept,
                         restored if restored is not None and length < restored.ply else None,
                         self.rewound)

    def taken_back(self, plies: int) -> Positions:
        """These positions without the last ``plies`` moves (a takeback). The kept
        positions of the shorter line are copied, never shared: the plies after it will
        hold other positions."""
        length = len(self._moves) - plies
        last = self[length]
        return Positions(self._game, self._moves[:length], self._to_move[:length + 1], last,
                         {ply: kept for ply, kept in list(self._kept.items()) if ply <= length},
                         rewound=True)

    @property
    def game(self) -> engine.Game:
        return self._game

    def to_move(self, ply: int) -> tuple[int, ...]:
        return self._to_move[ply]

    @property
    def nbytes(self) -> int:
        """An estimate of the memory the positions hold: the pickled sizes of the kept
        ones, and the last as large as the largest of those."""
        sizes = [size for _state, size in list(self._kept.values())]  # others may add
        return sum(sizes) + max(sizes)

    def __len__(self) -> int:
        return len(self._moves) + 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            plies = range(*index.indices(len(self)))
            if plies.step != 1 or not plies:
                return [self[ply] for ply in plies]
            return list(self._replay(plies.start, plies.stop - 1))
        ply = index + len(self) if index < 0 else index
        if not 0 <= ply < len(self):
            raise IndexError("no such ply")
        *_, state = self._replay(ply, ply)
        return state

    def __iter__(self) -> Iterator[engine.State]:
        return self._replay(0, len(self) - 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Positions) and len(self) == len(other) \
            and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # like a list of states: compared by value

    def _replay(self, first: int, last: int) -> Iterator[engine.State]:
        """The positions after ``first`` to ``last`` moves, replayed from the nearest kept
        one at or before ``first`` (each ``EVERY``-th one met on the way is kept)."""
        latest = self.last
        assert latest is not None  # (None only while the moves to a snapshot are read)
        if first == last == len(self._moves):
            yield latest
            return
        base = max(ply for ply in list(self._kept) if ply <= first)  # others may add
        state = self._kept[base][0]
        if base == first:
            yield state
        for ply in range(base + 1, last + 1):
            if ply == len(self._moves):
                state = latest
            else:
                state = self._kept[ply][0] if ply in self._kept \
                    else self._game.apply(state, *self._moves[ply - 1])
                if ply % EVERY == 0 and ply not in self._kept:
                    # the same ply of every version of this game: safe to share
                    self._kept[ply] = (state, _size(state))
            if ply >= first:
                yield state


def _pickled(state: engine.State) -> bytes:
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


UNPICKLED_SIZE = 4096  # bytes guessed for a state that pickle cannot write (a plugin's)


def _size(state: engine.State) -> int:
    """The memory ``state`` holds, roughly: the length of its pickle."""
    try:
        return len(_pickled(state))
    except (pickle.PicklingError, TypeError, AttributeError):
        return UNPICKLED_SIZE


class _StateUnpickler(pickle.Unpickler):
    """Rebuilds the engine's own classes and nothing else, so a snapshot can never make
    the server run anything."""

    def find_class(self, module: str, name: str) -> Any:
        if (module == "engine" or module.startswith("engine.")) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a game's state")


def packed(state: engine.State) -> bytes:
    """A position as kept apart from any game (an uploaded record's, ``web/records``):
    pickled and compressed, since Mastery's repeats every board seen so far."""
    return zlib.compress(_pickled(state), 1)


def unpacked(data: bytes) -> engine.State:
    """The position ``packed`` kept, rebuilt from the engine's own classes alone."""
    return _StateUnpickler(io.BytesIO(zlib.decompress(data))).load()


def store(db: sqlite_utils.Database, game_id: str, positions: Positions) -> None:
    """Keep the game's last position as its snapshot (call at a multiple of ``EVERY``);
    never once moves were taken back (``Positions.rewound``), nor for a game whose states
    are not kept pickled (``Game.stored_positions``: a plugin's)."""
    if positions.rewound or not positions.game.stored_positions:
        return
    ply = len(positions) - 1
    db.execute("INSERT INTO snapshots (game_id, ply, engine, state, to_move) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET ply = excluded.ply, "
               "engine = excluded.engine, state = excluded.state, to_move = excluded.to_move",
               [game_id, ply, ENGINE, _pickled(positions[ply]),
                json.dumps([positions.to_move(p) for p in range(ply + 1)])])


def restore(db: sqlite_utils.Database, game_id: str) -> Snapshot | None:
    """The game's snapshot, if one made by this engine is stored."""
    row = db.execute("SELECT ply, state, to_move FROM snapshots WHERE game_id = ? "
                     "AND engine = ?", [game_id, ENGINE]).fetchone()
    if row is None:
        return None
    return Snapshot(row["ply"], _StateUnpickler(io.BytesIO(row["state"])).load(),
                    tuple(tuple(seats) for seats in json.loads(row["to_move"])),
                    len(row["state"]))
