"""What a player's program is told of their games, on one stream for all of them
(``GET /api/player/<key>/events``, ``web/identity.py``), so that it needs to poll no game.

Three kinds: ``turn`` (a seat of theirs is to move), ``challenge`` (a new game offers them
a seat: a bot's, ``botaccounts``) and ``game_end``. They are rows of ``player_events``,
appended by the subscribers to ``signals`` below inside the transaction that records what
they tell, so they commit or roll back with it. Each player's rows are numbered under
that player's lock (``hold_name``), so their numbers follow the order of the commits: a
reader that saw number n has seen every row before it, and reconnecting after n (the
stream's ``Last-Event-ID``) misses nothing, on whichever worker or machine it lands. A row
keeps the game, the seat and the version; the links an event carries (the seat's API, a
challenge's join link) are derived from the server's secret key as it is sent
(``players.seat_link``, ``players.join_link``), so no secret is stored.

Rows older than ``EVENTS_KEPT_DAYS`` are pruned (``prune``, a job of the scheduler), but for
those a stream still needs: each player's latest (the next number follows it) and each
seat's latest in a game not over (what a stream begins with, ``current``). A client that
resumes after a number whose successors were pruned (``missed``) is answered as one that
saw nothing: with the events still current, then from the latest number on.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Literal, Sequence

import sqlite_utils

from . import matches, players, signals
from .events import Event
from .creation import Created
from .matches import Match
from .players import Player
from .store import utc
from .store.db import connect, hold_name, write

Kind = Literal["turn", "challenge", "game_end"]
BATCH = 100  # events read at once
_SEATS_AT_ONCE = 500  # games whose seats' players (or players whose events) one query finds
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Told:
    """One event of a player's stream."""
    seq: int
    kind: Kind
    game_id: str
    seat: int
    version: int

    def data(self, db: sqlite_utils.Database, player: Player,
             address: Callable[..., str]) -> dict[str, Any]:
        """What the event says (its SSE ``data``): the game (its kind's id, as everywhere in
        the API, and its own ``id``), the seat, and the seat's API or the join link, whose
        absolute URLs ``address(endpoint, **values)`` makes (the answer's)."""
        match = matches.load(db, self.game_id)
        told: dict[str, Any] = {"id": self.game_id, "game": match.game.id, "seat": self.seat}
        if self.kind == "challenge":
            return {**told, "join": address(
                        "lobby.join", token=players.join_link(db, player, self.game_id,
                                                              self.seat)),
                    "options": match.options,
                    "time_control": match.clock.to_json() if match.clock else None,
                    "rated": match.rated, "expires_at": utc.iso(match.expires_at)}
        told["api"] = address(
            "api.game", role="play", token=players.seat_link(db, player, self.game_id,
                                                             self.seat))
        told["version"] = self.version
        if self.kind == "game_end":
            told["outcome"] = match.outcome_json()
        return told


def after(db: sqlite_utils.Database, player: Player, seq: int) -> list[Told]:
    """The player's events after number ``seq``, oldest first, at most ``BATCH``."""
    return [Told(row[0], row[1], row[2], row[3], row[4]) for row in db.execute(
        "SELECT seq, kind, game_id, seat, version FROM player_events WHERE player_id = ? "
        "AND seq > ? ORDER BY seq LIMIT ?", [player.id, seq, BATCH])]


def last(db: sqlite_utils.Database, player: Player) -> int:
    """The number of the player's latest event (0: none yet)."""
    return db.execute("SELECT COALESCE(MAX(seq), 0) FROM player_events WHERE player_id = ?",
                      [player.id]).fetchone()[0]


def missed(db: sqlite_utils.Database, player: Player, seq: int) -> bool:
    """Whether some of the player's events after number ``seq`` were pruned: they are
    numbered one by one, so fewer rows than numbers after it means some are gone."""
    row = db.execute("SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM player_events "
                     "WHERE player_id = ? AND seq > ?", [player.id, seq]).fetchone()
    return row[0] < row[1] - seq


def prune(db: sqlite_utils.Database, before: datetime) -> int:
    """Delete the events made before ``before``, but each player's latest and each seat's
    latest in a game not over; returns how many went."""
    with write(db):
        return db.execute(
            "DELETE FROM player_events WHERE created_at < ? "
            "AND seq < (SELECT MAX(seq) FROM player_events l "
            "WHERE l.player_id = player_events.player_id) "
            "AND (seq < (SELECT MAX(seq) FROM player_events l "
            "WHERE l.player_id = player_events.player_id "
            "AND l.game_id = player_events.game_id AND l.seat = player_events.seat) "
            "OR NOT EXISTS (SELECT 1 FROM games g WHERE g.id = player_events.game_id "
            "AND g.status <> 'finished'))", [utc.iso(before)]).rowcount


def current(db: sqlite_utils.Database, player: Player, upto: int) -> list[Told]:
    """Of the player's events up to number ``upto``, those still true: for each seat, its
    latest event if that is a turn the seat still has or a challenge
    whose seat is still open to the player. What a stream begins with when its client has
    seen nothing yet."""
    rows = db.execute(
        "SELECT e.seq, e.kind, e.game_id, e.seat, e.version FROM player_events e "
        "JOIN games g ON g.id = e.game_id AND g.status <> 'finished' "
        "WHERE e.player_id = ? AND e.seq <= ? AND e.kind IN ('turn', 'challenge') "
        "AND e.seq = (SELECT MAX(seq) FROM player_events l WHERE l.player_id = e.player_id "
        "AND l.game_id = e.game_id AND l.seat = e.seat AND l.seq <= ?) ORDER BY e.seq",
        [player.id, upto, upto])
    still = []
    for told in (Told(row[0], row[1], row[2], row[3], row[4]) for row in rows):
        match = matches.load(db, told.game_id)
        if told.kind == "turn" and told.seat in match.to_move:
            still.append(told)
        elif told.kind == "challenge" and told.seat in match.open_seats and not match.expired:
            still.append(told)
    return still


class Watcher:
    """Of one process and database: a thread that looks every ``poll`` seconds for new
    events of all the players whose streams this process holds, in one query for them all
    (an index lookup each), and wakes those streams; a listener costs a wait, not queries of
    its own. The thread starts with the first listener and ends with the last."""

    def __init__(self, database: str, poll: float) -> None:
        self.database, self.poll = database, poll
        self._lock = threading.Lock()
        self._waiting: dict[int, set[threading.Event]] = {}  # by player id
        self._latest: dict[int, int] = {}  # each player's latest event number, as last seen
        self._thread: threading.Thread | None = None

    def listen(self, player_id: int) -> threading.Event:
        """An event set whenever the player may have new events (now, to begin with)."""
        woken = threading.Event()
        woken.set()
        with self._lock:
            self._waiting.setdefault(player_id, set()).add(woken)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, daemon=True,
                                                name="player-events")
                self._thread.start()
        return woken

    def leave(self, player_id: int, woken: threading.Event) -> None:
        with self._lock:
            waiting = self._waiting.get(player_id, set())
            waiting.discard(woken)
            if not waiting:
                self._waiting.pop(player_id, None)
                self._latest.pop(player_id, None)

    def _watch(self) -> None:
        db = None
        while True:
            with self._lock:
                listened = list(self._waiting)
                if not listened:
                    self._thread = None
                    break
            try:
                db = db or connect(self.database)
                found: dict[int, int] = {}
                for start in range(0, len(listened), _SEATS_AT_ONCE):
                    chunk = listened[start:start + _SEATS_AT_ONCE]
                    found.update((row[0], row[1]) for row in db.execute(
                        f"SELECT player_id, MAX(seq) FROM player_events WHERE player_id IN "
                        f"({', '.join('?' * len(chunk))}) GROUP BY player_id", chunk))
            except Exception:  # the database away: the streams look for themselves meanwhile
                log.exception("Looking for the players' new events failed")
                if db is not None:
                    db.close()
                db, found = None, {}
            with self._lock:
                for player_id in listened:
                    latest = found.get(player_id, 0)
                    if player_id in self._waiting and self._latest.get(player_id) != latest:
                        self._latest[player_id] = latest
                        for woken in self._waiting[player_id]:
                            woken.set()
            time.sleep(self.poll)
        if db is not None:
            db.close()


_WATCHERS: dict[tuple[int, str], Watcher] = {}
_WATCHERS_LOCK = threading.Lock()


def watcher(database: str, poll: float) -> Watcher:
    """This process's watcher of ``database`` (a forked worker makes its own)."""
    with _WATCHERS_LOCK:
        return _WATCHERS.setdefault((os.getpid(), database), Watcher(database, poll))


def append(db: sqlite_utils.Database,
           told: Iterable[tuple[int, Kind, str, int, int]]) -> None:
    """Append events, each (player id, kind, game id, seat, version), inside the caller's
    write transaction. The players are held in one order (by id), so two transactions
    that tell the same players never wait for each other in a circle."""
    by_player: dict[int, list[tuple[Kind, str, int, int]]] = {}
    for player_id, *event in told:
        by_player.setdefault(player_id, []).append(tuple(event))  # type: ignore[arg-type]
    now = utc.iso(utc.now())
    for player_id in sorted(by_player):
        hold_name(db, f"player-events:{player_id}")
    for player_id, events in sorted(by_player.items()):
        first = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM player_events "
                           "WHERE player_id = ?", [player_id]).fetchone()[0]
        db.conn.executemany(
            "INSERT INTO player_events (player_id, seq, kind, game_id, seat, version, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(player_id, seq, kind, game_id, seat, version, now)
             for seq, (kind, game_id, seat, version) in enumerate(events, start=first)])


def _players_of_seats(db: sqlite_utils.Database, game_ids: Sequence[str]
                      ) -> dict[tuple[str, int], list[int]]:
    """The players of each seat of the games (``players.owners``), by (game id, seat)."""
    found: dict[tuple[str, int], list[int]] = {}
    for start in range(0, len(game_ids), _SEATS_AT_ONCE):
        chunk = game_ids[start:start + _SEATS_AT_ONCE]
        for game_id, seat, player_id in db.execute(
                f"SELECT s.game_id, s.seat, p.id FROM seats s JOIN players p "
                f"ON p.id = s.player_id OR p.email = lower(s.email) "
                f"WHERE s.game_id IN ({', '.join('?' * len(chunk))}) ORDER BY p.id", chunk):
            found.setdefault((game_id, seat), []).append(player_id)
    return found


@signals.games_created.connect
def games_created(db: sqlite_utils.Database, *, games: Sequence[Created],
                  announce: bool) -> None:
    """A new game's seats to move (every seat taken at its creation), and its offers."""
    told = [game.match for game in games
            if game.match.to_move or any(s.offered_to for s in game.match.seats)]
    if not told:
        return
    seated = _players_of_seats(db, [match.id for match in told])
    rows: list[tuple[int, Kind, str, int, int]] = []
    for match in told:
        for seat in match.to_move:
            rows.extend((player_id, "turn", match.id, seat, match.known_events(seat))
                        for player_id in seated.get((match.id, seat), ()))
        for s in match.seats:
            if s.offered_to is not None:
                offered = players.find(db, s.offered_to)
                if offered is not None:
                    players.join_link(db, offered, match.id, s.seat)  # its hash stored now
                    rows.append((s.offered_to, "challenge", match.id, s.seat, 0))
    append(db, rows)


@signals.event_recorded.connect
def event_recorded(db: sqlite_utils.Database, *, before: Match, after: Match,
                   event: Event, latest: Match) -> None:
    """A seat's turn, once the whole action is recorded (a conditional reply may have
    answered already: a seat whose turn it is in ``after`` but no longer in ``latest`` is
    not told), and the game's end."""
    turns = [seat for seat in after.to_move if seat in latest.to_move
             and (seat not in before.to_move or before.ply != after.ply)]
    ended = after.finished and not before.finished
    if not turns and not ended:
        return
    seated = _players_of_seats(db, [after.id])
    rows: list[tuple[int, Kind, str, int, int]] = [
        (player_id, "turn", after.id, seat, latest.known_events(seat))
        for seat in turns for player_id in seated.get((after.id, seat), ())]
    if ended:
        rows.extend((player_id, "game_end", after.id, s.seat, latest.known_events(s.seat))
                    for s in after.seats for player_id in seated.get((after.id, s.seat), ()))
    append(db, rows)
