"""Games as the server keeps them: an append-only event log replayed through the engine.

``load`` returns a ``Match``: the game's fixed facts, its events, and the engine state after
every ply. Matches are immutable and cached per process; a request only replays the events
appended since the cached copy was made, so serving a position costs the same at ply 400 as
at ply 10. Every change goes through ``act``, inside one write transaction that also queues
the emails the change causes.
"""
from __future__ import annotations

import json
import re
from email.errors import HeaderParseError
from email.headerregistry import Address
import secrets
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Sequence

import engine
import sqlite_utils

from . import clocks, links
from .db import utcnow, write

MAX_NAME = 60


def valid_email(text: str) -> bool:
    """Whether ``text`` is a plain address (local@domain) that an email header can carry."""
    if not isinstance(text, str) or len(text) > 254 or not text.isascii() \
            or not re.fullmatch(r"[!-~]+@[!-~]+", text) or text.count("@") != 1:
        return False
    try:
        return Address(addr_spec=text).addr_spec == text
    except (HeaderParseError, ValueError, IndexError, TypeError, AttributeError):
        return False


def checked_name(name: Any, who: str) -> str:
    """A player's name as typed, white space folded; refused unless it is 1 to MAX_NAME
    characters of printable text (no control characters: names go into email subjects)."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
        raise InvalidRequest(f"{who} needs a name of 1 to {MAX_NAME} characters.")
    spaced = "".join(" " if unicodedata.category(c) == "Zs" else c for c in name.strip())
    if not spaced.isprintable():
        raise InvalidRequest(f"{who}'s name may hold only printable characters (no line "
                             f"breaks or control characters).")
    return " ".join(spaced.split())


class ActionError(Exception):
    """A request the server refuses; ``status`` is the HTTP status it maps to."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InvalidRequest(ActionError):
    status = 400


class StalePosition(ActionError):
    status = 409


class Refused(ActionError):
    """Illegal moves, moves out of turn, and actions the game's situation does not allow."""

    status = 422


@dataclass(frozen=True)
class Event:
    seq: int
    seat: int | None
    kind: str  # move, resign, draw_offer, draw_accept, draw_decline
    move: str | None
    created_at: str


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    email: str


@dataclass(frozen=True)
class Match:
    id: str
    game: engine.Game
    players: int
    options: dict[str, Any]
    seed: str
    created_at: str
    seats: tuple[Seat, ...]
    events: tuple[Event, ...] = ()
    moves: tuple[Event, ...] = ()          # the move events; moves[p - 1] made ply p
    states: tuple[engine.State, ...] = ()  # states[p]: the position after p moves
    current: engine.State | None = None    # after every event (a resignation ends the game)
    draw_offer: int | None = None          # the seat whose draw offer stands
    clock: dict[str, Any] | None = None    # the time control (pbem/clocks.py); None: none

    @property
    def ply(self) -> int:
        return len(self.states) - 1

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else 0


    @property
    def finished(self) -> bool:
        return self.current.outcome is not None

    @property
    def result(self) -> str:
        """The outcome in words: "Dark won (Light resigned)", "Draw (draw agreed)"."""
        outcome = self.current.outcome
        if outcome is None:
            return "in progress"
        if outcome.draw:
            return f"Draw ({outcome.reason})"
        winners = " and ".join(self.seat_name(seat) for seat in outcome.winners)
        return f"{winners} won ({outcome.reason})"

    def seat_name(self, seat: int | None) -> str:
        return "Spectator" if seat is None else self.game.side_name(self.states[0], seat)

    def moved_on(self, seat: int, seen: int, ply: int | None = None) -> bool:
        """Whether a move that ``seat`` makes from the position at ply ``seen`` is stale at
        ``ply`` (default: now): whether something that seat can see has changed since.

        The rule, the same for every game: the move still stands only if every ply played
        since ``seen`` was another seat's move that
        - was made while ``seat`` was to move, both before and after it (so ``seat``'s turn
          went on: the two moved at the same time);
        - left ``seat``'s legal moves as they were; and
        - ``seat`` cannot tell from any other listed move its player might have made there:
          ``seat``'s view after it is the same whichever was played.
        Such a move tells ``seat`` nothing but that it was made, so there was nothing to
        react to: in Magnet's secret setup the second setter sees only "Red has set up" and
        may answer from the ply it saw. Anything else makes the position seen out of date: a
        move ``seat`` can see, a turn that passed to another seat and back, ``seat``'s own
        move (sent again from an old page), and any ply outside 0 to ``ply``.
        """
        ply = self.ply if ply is None else ply
        if not 0 <= seen <= ply <= self.ply:
            return True
        game = self.game
        for before, after, event in zip(self.states[seen:ply], self.states[seen + 1:ply + 1],
                                        self.moves[seen:ply]):
            mover = event.seat
            if mover == seat or seat not in before.to_move or seat not in after.to_move:
                return True
            if game.legal_moves(after, seat) != game.legal_moves(before, seat):
                return True
            seen_after = game.view(after, seat)
            if any(game.view(game.apply(before, mover, other), seat) != seen_after
                   for other in game.legal_moves(before, mover)):
                return True
        return False

    def already_played(self, seat: int, seen: int, move: str | None) -> bool:
        """Whether a stale move is the one ``seat`` did play from the position it saw at ply
        ``seen`` (its first move since, made before anything it could see changed): a double
        submit, the back button, an email delivered twice, or a move made on the page and
        then sent by email. Such a resubmission is answered as a success."""
        played = next((ply for ply in range(max(seen, 0), self.ply)
                       if self.moves[ply].seat == seat), None)
        if played is None or self.moved_on(seat, seen, played):
            return False
        try:
            return self.game.canonical(self.states[played], seat, move) == \
                self.moves[played].move
        except ValueError:
            return False

    def draw_offer_open_to(self, seat: int) -> bool:
        """Whether ``seat`` may answer a standing draw offer (one made by another team)."""
        return (self.draw_offer is not None and not self.finished
                and seat not in self.game.team_of(self.players, self.draw_offer))

    def with_events(self, events: Sequence[Event]) -> Match:
        """This match with ``events`` (the next ones in the log) applied."""
        states, current, offer = list(self.states), self.current, self.draw_offer
        game = self.game
        for event in events:
            if event.kind == "move":
                current = game.apply(current, event.seat, event.move)
                states.append(current)
                if offer is not None and event.seat not in game.team_of(self.players, offer):
                    offer = None  # moving on declines the opponent's offer
            elif event.kind == "resign":
                current = game.conclude(current, game.resignation(current, event.seat))
            elif event.kind == "draw_offer":
                offer = event.seat
            elif event.kind == "draw_accept":
                current = game.conclude(current, engine.Outcome((), True, "draw agreed"))
                offer = None
            elif event.kind == "draw_decline":
                offer = None
            elif event.kind == "timeout":  # recorded by the server (clocks.enforce)
                current = game.conclude(current, clocks.timeout_outcome(
                    game, current, event.seat, self.clock))
            # a "vacation" pauses its player's clock (clocks.py) and changes no state
        return replace(self, events=self.events + tuple(events), states=tuple(states),
                       moves=self.moves + tuple(e for e in events if e.kind == "move"),
                       current=current, draw_offer=offer)


# -- the per-process cache of replayed matches ---------------------------------------------

class MatchCache:
    def __init__(self, size: int = 256):
        self.size = size
        self._matches: OrderedDict[str, Match] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Match | None:
        with self._lock:
            match = self._matches.get(game_id)
            if match is not None:
                self._matches.move_to_end(game_id)
            return match

    def put(self, match: Match) -> None:
        with self._lock:
            known = self._matches.get(match.id)
            if known is None or known.last_seq <= match.last_seq:
                self._matches[match.id] = match
                self._matches.move_to_end(match.id)
            while len(self._matches) > self.size:
                self._matches.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._matches.clear()


CACHE = MatchCache()


def load(db: sqlite_utils.Database, game_id: str) -> Match | None:
    """The game as its log makes it now: the cached copy brought up to date."""
    match = CACHE.get(game_id)
    if match is None:
        match = _load_fresh(db, game_id)
        if match is None:
            return None
    rows = db.query("SELECT seq, seat, kind, move, created_at FROM events "
                    "WHERE game_id = ? AND seq > ? ORDER BY seq", [game_id, match.last_seq])
    events = [Event(**row) for row in rows]
    if events:
        match = match.with_events(events)
    CACHE.put(match)
    return match


def event_count(db: sqlite_utils.Database, game_id: str) -> int:
    """How many events the game's log holds (its last ``seq``), without loading it."""
    return db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?",
                      [game_id]).fetchone()[0]


def _load_fresh(db: sqlite_utils.Database, game_id: str) -> Match | None:
    rows = list(db.query("SELECT * FROM games WHERE id = ?", [game_id]))
    if not rows:
        return None
    row = rows[0]
    game = engine.get(row["game"])
    options = json.loads(row["options"])
    seats = tuple(Seat(r["seat"], r["name"], r["email"]) for r in db.query(
        "SELECT seat, name, email FROM seats WHERE game_id = ? ORDER BY seat", [game_id]))
    start = game.start(row["players"], options, row["seed"])
    return Match(id=game_id, game=game, players=row["players"], options=options,
                 seed=row["seed"], created_at=row["created_at"], seats=seats,
                 states=(start,), current=start, clock=clocks.stored(row["clock"]))


# -- creating a game -----------------------------------------------------------------------

@dataclass(frozen=True)
class Created:
    match: Match
    tokens: tuple[str, ...]  # one secret link token per seat
    spectator_token: str


def create(db: sqlite_utils.Database, game_id: Any, players: Any, options: Any,
           seed: str | None = None, clock: Any = None) -> Created:
    """Validate a request for a new game, store it and queue its start emails. The seed
    (which decides every chance event) is fresh and secret unless one is given; ``clock``
    is the time control (``clocks.settings``), None for none."""
    try:
        game = engine.get(game_id)
    except engine.UnknownGame as error:
        raise InvalidRequest(f"{error} Games: {', '.join(engine.GAMES)}.") from None
    seats = _checked_players(players)
    seed = secrets.token_hex(16) if seed is None else seed
    try:
        start = game.start(len(seats), options if options is not None else {}, seed)
    except ValueError as error:
        raise InvalidRequest(str(error)) from None
    try:
        clock = clocks.settings(clock)
    except ValueError as error:
        raise InvalidRequest(str(error)) from None
    new_id = secrets.token_urlsafe(6)
    now = utcnow()
    with write(db):
        db["games"].insert({
            "id": new_id, "game": game.id, "players": len(seats),
            "options": json.dumps(start.options), "seed": seed, "created_at": now,
            **_summary(start), "updated_at": now, "clock": json.dumps(clock)})
        db["seats"].insert_all({"game_id": new_id, "seat": s.seat, "name": s.name,
                                "email": s.email} for s in seats)
        tokens = tuple(links.mint(db, new_id, s.seat) for s in seats)
        spectator = links.mint(db, new_id, None)
        match = load(db, new_id)
        from . import notify  # notify builds on matches; import here to avoid a cycle
        notify.game_started(db, match, spectator)
    return Created(match, tokens, spectator)


def _checked_players(players: Any) -> list[Seat]:
    if not isinstance(players, list) or not players:
        raise InvalidRequest("'players' must be a list of {name, email} entries.")
    seats = []
    for number, entry in enumerate(players):
        if not isinstance(entry, dict):
            raise InvalidRequest(f"Player {number + 1} must have a name and an email address.")
        name, email = entry.get("name"), entry.get("email")
        name = checked_name(name, f"Player {number + 1}")
        if not isinstance(email, str) or not valid_email(email.strip()):
            raise InvalidRequest(f"Player {number + 1} needs a valid email address.")
        seats.append(Seat(number, name, email.strip()))
    return seats


def _summary(state: engine.State) -> dict[str, Any]:
    return {"status": "finished" if state.outcome else "active", "ply": state.ply,
            "to_move": json.dumps(list(state.to_move)),
            "outcome": json.dumps(state.outcome.to_json()) if state.outcome else None}


# -- acting on a game ----------------------------------------------------------------------

SERVER_KINDS = ("timeout",)  # events only the server records (``server=True``), never a player


def act(db: sqlite_utils.Database, game_id: str, seat: int, kind: str, move: str | None = None,
        seen_ply: int | None = None, *, server: bool = False,
        now: datetime | None = None) -> Match:
    """Record one event by ``seat`` after checking it against the current position.

    ``seen_ply`` is the ply the player was looking at; if the game has moved on since for
    that player (``Match.moved_on``), the request is stale and refused. A refused request
    writes nothing. Inside a caller's write transaction, the event commits with it (an
    emailed move and its answer). ``server`` is for the server's own events (a timeout, for
    ``seat``); ``now`` (default: now) is the event's time.
    """
    now = now or clocks.utc_now()
    outermost = not db.conn.in_transaction
    with write(db):
        before = load(db, game_id)
        if seen_ply is not None and before.moved_on(seat, seen_ply):
            raise StalePosition(
                f"The game has moved on since you loaded it (you saw ply {seen_ply}, it is now "
                f"at ply {before.ply}). Look at the current position and try again.")
        _check(before, seat, kind, move, server, now)
        try:
            if kind == "move":
                move = before.game.canonical(before.current, seat, move)
            event = Event(before.last_seq + 1, seat, kind, move, clocks.iso(now))
            after = before.with_events([event])
        except engine.IllegalMove as error:
            raise Refused(str(error)) from None
        db["events"].insert({"game_id": game_id, "seq": event.seq, "seat": seat,
                             "kind": kind, "move": event.move, "created_at": event.created_at})
        db["games"].update(game_id, {**_summary(after.current), "updated_at": event.created_at})
        from . import notify
        notify.event_recorded(db, before, after, event)
    if outermost:  # an enclosing transaction may still roll back: let load() catch up then
        CACHE.put(after)
    return after


def _check(match: Match, seat: int, kind: str, move: str | None, server: bool = False,
           now: datetime | None = None) -> None:
    if match.finished:
        raise Refused(f"The game is over: {match.current.outcome.reason}.")
    late = clocks.ran_out(match, now or clocks.utc_now())
    if kind in SERVER_KINDS or server:
        if not server or kind not in SERVER_KINDS:
            raise InvalidRequest(f"Unknown action '{kind}'.")
        if late is None or late.seat != seat:
            raise Refused("No clock has run out.")
        return
    if late is not None:
        # Decided on time: the scheduler's clock job records it at its next run.
        raise Refused(f"{match.seat_name(late.seat)} has run out of time "
                      f"({late.deadline_text}); the game ends on time.")
    if kind == "move":
        if not isinstance(move, str) or not move.strip():
            raise Refused("Write a move in the game's notation.")
    elif kind == "draw_offer":
        if match.draw_offer_open_to(seat):
            raise Refused("Your opponent has offered a draw: accept or decline it.")
        if match.draw_offer is not None:
            raise Refused("Your side has already offered a draw.")
    elif kind in ("draw_accept", "draw_decline"):
        if not match.draw_offer_open_to(seat):
            raise Refused("There is no draw offer to answer.")
    elif kind == "vacation":
        try:
            clocks.check_vacation(match, seat, move, now or clocks.utc_now())
        except ValueError as error:
            raise Refused(str(error)) from None
    elif kind != "resign":
        raise InvalidRequest(f"Unknown action '{kind}'.")

