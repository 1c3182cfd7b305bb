"""Games as the server keeps them: an append-only event log replayed through the engine.

``load`` returns a ``Match``: the game's fixed facts, its events, and the engine state after
every ply. Matches are immutable and cached per process; a request only replays the events
appended since the cached copy was made, so serving a position costs the same at ply 400 as
at ply 10. Every event is recorded by ``record`` (which ``commands.submit`` calls), inside
one write transaction that also queues the emails the change causes; ``events.KINDS`` says
how each kind is checked and folded into the game.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

import engine
import sqlite_utils

from . import clocks, conditional, due, events, languages, positions, results, signals
from .events import ActionError, Declined, Event, Payload, Refused
# the refusals and checks that the ways in name from here, as they name ``Refused``
from .events import InvalidRequest as InvalidRequest
from .events import checked_name as checked_name
from .events import valid_email as valid_email
from .store.db import hold_game, write
from .store import utc
from .store.lru import BytesLRU

CHALLENGE_LIFETIME = timedelta(days=7)  # an open seat can be taken this long after creation


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str | None   # None while the seat is open (a join takes it: ``events.Joiner``)
    email: str | None  # None: the player gave no address and gets no emails
    bot: str | None = None  # the level of a computer player (pbem/computer.py plays it)
    # an open seat offered to one player (a bot account, pbem/botaccounts.py): their id;
    # nobody else may take it
    offered_to: int | None = None

    @property
    def open(self) -> bool:
        return self.name is None


# A deleted player's name in the games they played (not a handle: it has a space), stored
# in English and read in each reader's language
FORMER_PLAYER = engine.Text("Former player")


def bot_name(level: str) -> engine.Text:
    """A computer player's name, as pages and emails show it: "Computer (easy)" (stored so;
    each reader sees it in their language, "Компьютер (лёгкий)")."""
    return engine.Text("Computer (%(level)s)", level=engine.Text(level))


@dataclass(frozen=True)
class Match:
    id: str
    game: engine.Game
    players: int
    options: dict[str, Any]
    seed: str
    created_at: str
    seats: tuple[Seat, ...]
    states: positions.Positions            # states[p]: the position after p moves
    current: engine.State                  # after every event (a resignation ends the game)
    events: tuple[Event, ...] = ()
    moves: tuple[Event, ...] = ()          # the move events; moves[p - 1] made ply p
    draw_offer: int | None = None          # the seat whose draw offer stands
    resign_offers: tuple[int, ...] = ()    # the seats whose proposals that their team resign
                                           # stand (a team game's; at most one per team)
    draw_declined: Declined | None = None
    resign_declined: tuple[Declined, ...] = ()
    clock: clocks.Clock | None = None      # the time control; None: none
    last_join: Event | None = None         # the latest seat taken (the last one starts it)
    rated: bool = False                    # its end changes its players' ratings (ratings.py)
    tournament: str | None = None          # the tournament it is a game of (tournaments.py)
    takeback_offer: int | None = None      # the seat whose request to take back stands
    takeback_declined: Declined | None = None
    # after each move and takeback, by the event's seq: the ply and who is to move
    turns: dict[int, tuple[int, tuple[int, ...]]] = field(default_factory=dict)

    @property
    def ply(self) -> int:
        return len(self.states) - 1

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq if self.events else 0

    @property
    def nbytes(self) -> int:
        """An estimate of the memory the match holds, for the cache."""
        return self.states.nbytes + EVENT_BYTES * len(self.events)

    @property
    def finished(self) -> bool:
        return self.current.outcome is not None

    # a match never changes (``with_events`` makes another): what is asked of it again and
    # again (who moves, who waits: every page, every due row) is worked out once
    @functools.cached_property
    def open_seats(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats if s.open)

    @functools.cached_property
    def waiting(self) -> bool:
        """Whether the game waits for players to take its open seats (nobody moves yet)."""
        return bool(self.open_seats) and not self.finished

    @property
    def expires_at(self) -> datetime:
        """When its open seats can no longer be taken (a game that waits that long is
        not going to start)."""
        return utc.parse(self.created_at) + CHALLENGE_LIFETIME

    @property
    def expired(self) -> bool:
        """Whether it waited for players until ``expires_at``: it will never start."""
        return self.waiting and utc.now() >= self.expires_at

    @property
    def started_seq(self) -> int | None:
        """The event that started the game: 0 (its creation) when every seat was taken
        then, else the join that took the last open seat; None while it has not started."""
        if self.open_seats:
            return None
        return self.last_join.seq if self.last_join else 0

    @property
    def started_at(self) -> str | None:
        if self.started_seq is None:
            return None
        return self.last_join.created_at if self.last_join else self.created_at

    @functools.cached_property
    def timing(self) -> clocks.Timing | None:
        """Its clocks as the log leaves them (None: no clock), which ``clocks.of_match``
        reads at a moment; ``with_events`` folds in only the new events."""
        return clocks.timing(self)

    @functools.cached_property
    def to_move(self) -> tuple[int, ...]:
        """The seats that may move now: the engine's, and none before the game starts."""
        return () if self.waiting else self.current.to_move

    def hosts(self, seat: int | None) -> bool:
        """Whether ``seat`` is one of the creator's seats (not taken with a join link) of a
        game that waits for players: it may withdraw the game, or make new join links."""
        return seat is not None and self.waiting and not any(
            event.kind == "join" and event.seat == seat for event in self.events)

    def seat_refusal(self, seat: int) -> engine.Text | None:
        """Why ``seat`` cannot be taken, or None while it is open."""
        if seat not in self.open_seats:
            return engine.Text("Someone has already taken this seat (%(side)s).",
                               side=self.open_seat_name(seat))
        if self.finished:
            return engine.Text("This game was withdrawn before it started: its seats cannot "
                               "be taken any more.")
        if self.expired:
            return expiry(self)
        return None

    @property
    def names(self) -> tuple[str | None, ...]:
        """The players' names, by seat (None: an open seat)."""
        return tuple(s.name for s in self.seats)

    @property
    def result(self) -> engine.Text:
        """The outcome in words, naming the players (``results.result``): "Ann won: Bob
        resigned"."""
        return results.result(self.game, self.players, self.states[0], self.names,
                              self.current.outcome)

    @property
    def reason(self) -> engine.Text:
        """The outcome's reason with the players named (``results.reason``)."""
        outcome = self.current.outcome
        assert outcome is not None  # a finished game's
        return results.reason(self.game, self.players, self.states[0], self.names, outcome)

    def outcome_json(self) -> dict[str, Any] | None:
        """The outcome for the API and the record, its reason naming the players."""
        outcome = self.current.outcome
        return None if outcome is None else {**outcome.to_json(), "reason": self.reason}

    def seat_name(self, seat: int | None) -> str:
        if seat is None:
            return engine.Text("Spectator")
        return self.game.side_name(self.states[0], seat)

    def people(self, seats: Sequence[int]) -> str:
        """The players of ``seats`` by name: "Ann", "Ann and Cid" (``results.people``)."""
        return results.people([self.seats[seat].name or "" for seat in seats])

    @property
    def sides(self) -> str:
        """Who plays whom: "Ann vs Bob" (``results.sides``)."""
        return results.sides([[self.seats[seat].name or engine.Text("(open seat)")
                               for seat in team] for team in self.game.teams(self.players)])

    def partners(self, seat: int) -> tuple[int, ...]:
        """The other seats of ``seat``'s team (none in a two-player game)."""
        return tuple(s for s in self.game.team_of(self.players, seat) if s != seat)

    def opponents(self, seat: int) -> tuple[int, ...]:
        team = self.game.team_of(self.players, seat)
        return tuple(s for s in range(self.players) if s not in team)

    def open_seat_name(self, seat: int) -> str:
        """A seat's name for those who are not playing yet (the lobby, join pages): the
        name the form that creates a game gives it, which no secret decides (Magnetic
        Field deals its colours from the seed)."""
        return self.game.seat_name(self.players, seat)

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
        then sent by email. The pages and emails answer such a resubmission as a success; the
        JSON API, as its contract has a stale ply, with 409."""
        played = next((ply for ply in range(max(seen, 0), self.ply)
                       if self.moves[ply].seat == seat), None)
        if played is None or move is None or self.moved_on(seat, seen, played):
            return False
        try:
            return self.game.canonical(self.states[played], seat, move) == \
                self.moves[played].move
        except ValueError:
            return False

    def chat_seen_by(self, viewer: int | None) -> tuple[Event, ...]:
        """The chat messages ``viewer`` may read, oldest first: every player reads all of
        them (a team game has no private channel), spectators only once the game is over."""
        return tuple(event for event in self.events
                     if event.kind == "chat" and self.known_to(event, viewer))

    @property
    def rematch_asked(self) -> tuple[int, ...]:
        """The seats that asked for a rematch, in the order they asked."""
        return tuple(event.seat for event in self.events if event.kind == "rematch")

    @property
    def rematch_id(self) -> str | None:
        """The rematch's game id, once every seat has asked (the last ask records it)."""
        return next((event.payload.game_id for event in self.events
                     if isinstance(event.payload, events.Rematch) and event.payload.game_id),
                    None)

    def turn_began(self, seat: int) -> Event | None:
        """The move that began ``seat``'s current turn (None: the game's start began it):
        the last move after which the seat was to move and before which it was not, or which
        it made itself (a game may give one seat several moves in a row)."""
        for ply in range(self.ply, 0, -1):
            move = self.moves[ply - 1]
            if seat not in self.states.to_move(ply - 1) or move.seat == seat:
                return move
        return None

    def waits_for(self, seat: int) -> bool:
        """Whether the game waits for ``seat``: its turn, or a draw offer or a partner's
        proposal to resign that it may answer."""
        return not self.finished and (seat in self.to_move
                                      or self.draw_offer_open_to(seat)
                                      or self.resign_offer_open_to(seat))

    def draw_offer_open_to(self, seat: int) -> bool:
        """Whether ``seat`` may answer a standing draw offer (one made by another team)."""
        return (self.draw_offer is not None and not self.finished
                and seat not in self.game.team_of(self.players, self.draw_offer))

    def takeback_offer_open_to(self, seat: int | None) -> bool:
        return self.takeback_offer is not None and seat is not None \
            and seat != self.takeback_offer and not self.finished

    def resign_offer_of(self, seat: int) -> int | None:
        """The seat whose proposal that ``seat``'s team resign stands, if one does."""
        if not self.resign_offers:  # as in nearly every game: no need to find the team
            return None
        team = self.game.team_of(self.players, seat)
        return next((proposer for proposer in self.resign_offers if proposer in team), None)

    def resign_offer_open_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may confirm or decline a partner's proposal to resign."""
        return seat is not None and not self.finished \
            and self.resign_offer_of(seat) not in (None, seat)

    def known_to(self, event: Event, viewer: int | None) -> bool:
        """Whether ``viewer`` may know of ``event``. Until the game is over, the chat is
        the players' (every player's: a team game has no private channel), and a team's
        talk of resigning (a proposal, a partner playing on) is the team's own."""
        if self.finished:
            return True
        audience = event.meaning.known_to
        if audience == "players":
            return viewer is not None
        return audience == "everyone" or viewer is not None \
            and viewer in self.game.team_of(self.players, event.seat)

    def known_events(self, viewer: int | None) -> int:
        """How many events of the log ``viewer`` may know of: the game's version for that
        viewer (the API's ``version``), which every answer carries, a page polls, and the
        forms and reply addresses send back (``ply_at``)."""
        return sum(1 for event in self.events if self.known_to(event, viewer))

    def ply_at(self, viewer: int | None, version: int) -> int | None:
        """The ply of the position that a page or email of ``viewer``'s showed at
        ``version``, if the game has only gone on from there: None if it never had that
        version, or if a takeback has been accepted since (the position went back, and the
        same ply may have come back in a position the viewer never saw)."""
        known = [event for event in self.events if self.known_to(event, viewer)]
        if not 0 <= version <= len(known) or any(
                event.kind == "takeback_accept" for event in known[version:]):
            return None
        return next((self.turns[event.seq][0] for event in reversed(known[:version])
                     if event.seq in self.turns), 0)

    def resign_offers_known_to(self, viewer: int | None) -> list[int]:
        return [seat for seat in self.resign_offers
                if self.known_to(Event(0, seat, "resign_offer", None, ""), viewer)]

    def with_events(self, new: Sequence[Event],
                    ahead: tuple[int, engine.State] | None = None) -> Match:
        """This match with ``new`` events (the next ones in the log) applied, each folded
        in by its kind (``events.KINDS``). ``ahead``: the seq of a move of them already
        played, and the position it led to."""
        fold = events.Fold(self.game, self.players, self.clock, self.states, self.current,
                           self.draw_offer, self.resign_offers, self.draw_declined,
                           self.resign_declined, self.last_join, list(self.moves),
                           dict(self.turns), self.takeback_offer, self.takeback_declined,
                           ahead=ahead)
        for event in new:
            fold.apply(event)
        fold.position()
        after = replace(self, events=self.events + tuple(new), states=fold.states,
                        moves=tuple(fold.moves), current=fold.current,
                        draw_offer=fold.draw_offer, resign_offers=fold.resign_offers,
                        draw_declined=fold.draw_declined, resign_declined=fold.resign_declined,
                        last_join=fold.last_join, turns=fold.turns,
                        takeback_offer=fold.takeback_offer,
                        takeback_declined=fold.takeback_declined)
        # the clocks so far, with the new events' steps: not the whole log again (as
        # ``cached_property`` keeps a value, in the instance's dictionary)
        vars(after)["timing"] = clocks.timing_after(self, after, new)
        return after


# -- the per-process cache of replayed matches ---------------------------------------------

EVENT_BYTES = 400  # an event's memory, roughly


class MatchCache(BytesLRU):
    """The matches this process replayed, by game id, sized by ``Match.nbytes``; a put never
    replaces a copy with an older one."""

    # a match is its own key and size: BytesLRU.put(key, value, size) in one argument
    def put(self, match: Match) -> None:  # type: ignore[override]
        size = match.nbytes
        with self._lock:
            known = self._entries.get(match.id)
            if known is None or known[0].last_seq <= match.last_seq:
                self._store(match.id, match, size)


CACHE = MatchCache(64 * 2**20)  # create_app sets its size: MATCH_CACHE_MB


def load(db: sqlite_utils.Database, game_id: str) -> Match:
    """``find`` for a game that exists."""
    match = find(db, game_id)
    if match is None:
        raise LookupError(f"There is no game {game_id!r}.")
    return match


def find(db: sqlite_utils.Database, game_id: str) -> Match | None:
    """The game as its log makes it now: the cached copy brought up to date. Inside a write
    transaction, the game stays as read until the commit: its other writers wait."""
    if db.conn.in_transaction:
        hold_game(db, game_id)
    match = _caught_up(db, game_id, CACHE.get(game_id))
    if match is not None and not db.conn.in_transaction:  # what it reads may still roll back
        CACHE.put(match)
    return match


# The events after which a game's seats are read again: a new player, or a name removed
RESEATING = ("join", "anonymise")


def _caught_up(db: sqlite_utils.Database, game_id: str, match: Match | None) -> Match | None:
    """``match`` (a copy of the game, or None) with the events appended since it was made.
    A join or a name removed since then re-reads the game: the seats are as they are now."""
    if match is not None:
        events = _events_after(db, game_id, match.last_seq)
        if not any(event.kind in RESEATING for event in events):
            return match.with_events(events) if events else match
    match = _load_fresh(db, game_id)
    if match is None:
        return None
    events = _events_after(db, game_id, 0)
    return match.with_events(events) if events else match


def _events_after(db: sqlite_utils.Database, game_id: str, seq: int) -> list[Event]:
    rows = db.execute("SELECT seq, seat, kind, move, created_at, text FROM events "
                      "WHERE game_id = ? AND seq > ? ORDER BY seq", [game_id, seq])
    return [Event.stored(*row) for row in rows]


def _shown_name(row: Mapping[str, Any]) -> str | None:
    """A seat's stored name as readers see it: the computer's and a deleted player's in
    their language (each ``Text``, its English what is stored)."""
    if row["bot"]:
        return bot_name(row["bot"])
    if row["name"] == FORMER_PLAYER and row["email"] is None:
        return FORMER_PLAYER
    return row["name"]


def _load_fresh(db: sqlite_utils.Database, game_id: str) -> Match | None:
    rows = db.execute("SELECT *, (SELECT tournament_id FROM tournament_games WHERE game_id = "
                      "games.id) AS tournament FROM games WHERE id = ?", [game_id]).fetchall()
    if not rows:
        return None
    row = rows[0]
    game = engine.get(row["game"])
    options = json.loads(row["options"])
    seats = tuple(Seat(r["seat"], _shown_name(r), r["email"], r["bot"], r["offered_to"])
                  for r in db.execute("SELECT seat, name, email, bot, offered_to FROM seats "
                                      "WHERE game_id = ? ORDER BY seat", [game_id]))
    start = game.start(row["players"], options, row["seed"])
    return Match(id=game_id, game=game, players=row["players"], options=options,
                 seed=row["seed"], created_at=row["created_at"], seats=seats,
                 states=positions.Positions.starting(game, start,
                                                     positions.restore(db, game_id)),
                 current=start, clock=clocks.stored(row["clock"]), rated=bool(row["rated"]),
                 tournament=row["tournament"])


def set_language(db: sqlite_utils.Database, game_id: str, seat: int, language: str) -> None:
    """Write ``seat``'s emails in ``language`` from now on (one the site speaks)."""
    db.execute("UPDATE seats SET language = ? WHERE game_id = ? AND seat = ?",
               [languages.known(language) or languages.DEFAULT, game_id, seat])


def language_of(db: sqlite_utils.Database, game_id: str, seat: int) -> str:
    row = db.execute("SELECT language FROM seats WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    return languages.known(row and row[0]) or languages.DEFAULT


def anonymise(db: sqlite_utils.Database, game_id: str, seat: int, name: str) -> None:
    """Give ``seat`` the name ``name`` and no address (its player deleted their identity):
    the game stays, as it was played. The log records it as the server's "anonymise"
    event, after which every process's copy of the game reads its seats again."""
    with write(db):
        before = load(db, game_id)
        db.execute("UPDATE seats SET name = ?, email = NULL WHERE game_id = ? AND seat = ?",
                   [name, game_id, seat])
        _append(db, game_id, Event(before.last_seq + 1, seat, "anonymise", None,
                                   utc.iso(utc.now())))


def expiry(match: Match) -> engine.Text:
    """Why an expired game's seats cannot be taken."""
    return engine.Text("This challenge expired on %(date)s, a week after it was made: its "
                       "seats cannot be taken any more.",
                       date=clocks.time_text(match.expires_at))


def summary(state: engine.State, waiting: bool = False) -> dict[str, Any]:
    status = "finished" if state.outcome else "waiting" if waiting else "active"
    return {"status": status, "ply": state.ply,
            "to_move": json.dumps([] if waiting else list(state.to_move)),
            "outcome": json.dumps(state.outcome.to_json()) if state.outcome else None}


# -- recording an event -------------------------------------------------------------------

def record(db: sqlite_utils.Database, before: Match, seat: int, kind: events.Kind,
           payload: Payload, *, now: datetime, server: bool = False) -> Match:
    """Record one event of ``seat`` after checking it against ``before`` (the game as the
    caller's write transaction loaded it: ``commands.submit``), and the conditional replies
    it sets off (``pbem/conditional.py``); queue what they cause. A refused event raises
    ``ActionError`` and writes nothing. ``server`` is for the server's own events (a
    timeout, for ``seat``); ``now`` is the event's time. Returns the game after them."""
    recorded = [_record(db, before, seat, kind, payload, now, server)]
    while (answer := _conditional_reply(db, *recorded[-1], now)) is not None:
        recorded.append(answer)
    after = recorded[-1][1]
    due.schedule(db, after)
    for earlier, later, event in recorded:
        signals.event_recorded.send(db, before=earlier, after=later, event=event,
                                    latest=after)
    return after


def _record(db: sqlite_utils.Database, before: Match, seat: int, kind: events.Kind,
            payload: Payload, now: datetime, server: bool = False
            ) -> tuple[Match, Match, Event]:
    """Check one event and append it to the log: (the match before, after, the event)."""
    payload = events.check(before, seat, kind, payload, server=server, now=now)
    if isinstance(payload, events.Joiner):
        return _seated(db, before, seat, payload, now)
    ahead = None
    if isinstance(payload, events.PlayedMove):  # the log keeps the move, not its position
        ahead = (before.last_seq + 1, payload.after)
        payload = events.Move(payload.move)
    event = Event(before.last_seq + 1, seat, kind.name, payload, utc.iso(now))
    try:
        after = before.with_events([event], ahead)
    except engine.IllegalMove as error:
        raise Refused(error.text) from None
    _append(db, before.id, event)
    _summarise(db, after, event)
    if kind.name == "move" and after.ply % positions.EVERY == 0:
        positions.store(db, after.id, after.states)
    return before, after, event


def _seated(db: sqlite_utils.Database, before: Match, seat: int, joiner: events.Joiner,
            now: datetime) -> tuple[Match, Match, Event]:
    """Record a join: its player goes into the seat's row (the log's join carries nothing),
    and the game is read again with it. Taking the last open seat starts the game."""
    event = Event(before.last_seq + 1, seat, "join", None, utc.iso(now))
    db.execute("UPDATE seats SET name = ?, email = ? WHERE game_id = ? AND seat = ?",
               [joiner.name, joiner.email, before.id, seat])
    _append(db, before.id, event)
    after = _caught_up(db, before.id, before)
    assert after is not None  # the game is there: its seat was just taken
    _summarise(db, after, event)
    return before, after, event


def _append(db: sqlite_utils.Database, game_id: str, event: Event) -> None:
    """Write ``event`` at the end of the game's log."""
    move, text = event.columns()
    db.execute("INSERT INTO events (game_id, seq, seat, kind, move, created_at, text) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)",
               [game_id, event.seq, event.seat, event.kind, move, event.created_at, text])


def _summarise(db: sqlite_utils.Database, after: Match, event: Event) -> None:
    """Bring the game's row up to ``after``, the game once ``event`` is recorded."""
    # a team's own talk must not show as a change to anyone else (lists of games by it)
    changed = "" if event.meaning.known_to == "team" \
        else ", updated_at = :updated_at"
    db.execute("UPDATE games SET status = :status, ply = :ply, to_move = :to_move, "
               f"outcome = :outcome{changed} WHERE id = :id",
               {**summary(after.current, after.waiting), "updated_at": event.created_at,
                "id": after.id})


def _conditional_reply(db: sqlite_utils.Database, before: Match, after: Match, event: Event,
                       now: datetime) -> tuple[Match, Match, Event] | None:
    """The reply a seat stored to the move just recorded, played at once; None if there is
    none (any lines that no longer match are dropped)."""
    if event.kind != "move" or after.finished \
            or not conditional.supported(after.game, after.players):
        return None
    [seat] = after.current.to_move
    answer = conditional.reply(db, after.id, seat, event.move)
    if answer is None:
        return None
    try:
        return _record(db, after, seat, events.KINDS["move"], events.Move(answer), now)
    except ActionError:  # e.g. the clock ran out meanwhile: the seat decides itself
        conditional.store(db, after.id, seat, [])
        return None
