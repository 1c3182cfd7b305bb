"""The kinds of event a game's log holds, in one registry (``KINDS``).

Each kind is a small record of everything it means: the type of its payload (what it
carries besides its seat and time: a move, days of vacation, a chat message...), its check
(may this seat record it now?), how it folds into the game (``Match.with_events``
dispatches here) and whether it ends it, what a clock does with it, who may know of it
before the game is over, whether it is talk about the game, a server action or the team's
own business, whom it tells and with which email, how a game record logs it, and its words
in every way in: the game page's form, the JSON API's request, an email reply's words. A
way in turns its words into a ``Command``; ``commands.submit`` records it. Adding a kind is
adding its name to ``KindName`` and its entry here (tests/test_events.py checks that every
kind has its words); what reacts to events (``clocks``, ``mail.notify``, the records)
reads these facts, never a list of kind names of its own.

This module sits below ``matches`` (which imports it), so a check takes the match as a
``Match``: the protocol of what the kinds read of a game, which ``matches.Match`` is.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from email.errors import HeaderParseError
from email.headerregistry import Address
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Literal, Protocol, Sequence

import engine
from flask_babel import lazy_gettext as _

from . import clocks, positions
from .errors import ActionError as ActionError  # where the game log's users find them
from .errors import InvalidRequest, Refused, SeatTaken
from .errors import StalePosition as StalePosition

MAX_CHAT = 2000  # characters of one chat message
MAX_NAME = 60  # characters of a player's name


class Named(Protocol):
    """A seat of a game as the kinds read it (``matches.Seat``)."""

    @property
    def name(self) -> str | None: ...


class Match(Protocol):
    """What the kinds' checks and the emails they tell of read of a game:
    ``matches.Match``, which imports this module, is one."""

    @property
    def game(self) -> engine.Game: ...
    @property
    def players(self) -> int: ...
    @property
    def current(self) -> engine.State: ...
    @property
    def events(self) -> tuple[Event, ...]: ...
    @property
    def moves(self) -> tuple[Event, ...]: ...
    @property
    def seats(self) -> Sequence[Named]: ...
    @property
    def clock(self) -> clocks.Clock | None: ...
    @property
    def draw_offer(self) -> int | None: ...
    @property
    def takeback_offer(self) -> int | None: ...
    @property
    def rated(self) -> bool: ...
    @property
    def tournament(self) -> str | None: ...
    @property
    def finished(self) -> bool: ...
    @property
    def waiting(self) -> bool: ...
    @property
    def open_seats(self) -> tuple[int, ...]: ...
    @property
    def reason(self) -> engine.Text: ...
    @property
    def rematch_asked(self) -> tuple[int, ...]: ...
    @property
    def rematch_id(self) -> str | None: ...
    def draw_offer_open_to(self, seat: int) -> bool: ...
    def takeback_offer_open_to(self, seat: int | None) -> bool: ...
    def resign_offer_open_to(self, seat: int | None) -> bool: ...
    def resign_offer_of(self, seat: int) -> int | None: ...
    def partners(self, seat: int) -> tuple[int, ...]: ...
    def opponents(self, seat: int) -> tuple[int, ...]: ...
    def people(self, seats: Sequence[int]) -> str: ...
    def seat_name(self, seat: int | None) -> str: ...
    def seat_refusal(self, seat: int) -> engine.Text | None: ...
    def hosts(self, seat: int | None) -> bool: ...
    def already_played(self, seat: int, seen: int, move: str | None) -> bool: ...


# -- payloads: what an event carries, and how it is stored (the log's move and text columns) -

@dataclass(frozen=True)
class Move:
    move: str  # in the game's notation (once recorded: as the engine spells it)

    def columns(self) -> tuple[str | None, str | None]:
        return self.move, None

    @classmethod
    def stored(cls, move: str | None, text: str | None) -> Move:
        return cls(move or "")


@dataclass(frozen=True)
class PlayedMove(Move):
    """A move as its check leaves it: spelled as the engine writes it, with the position
    it leads to (so that folding it in does not play it again). The log keeps the ``Move``
    (``matches.record``)."""
    after: engine.State = field(compare=False, repr=False)


@dataclass(frozen=True)
class Days:
    days: int  # of a vacation

    def columns(self) -> tuple[str | None, str | None]:
        return str(self.days), None

    @classmethod
    def stored(cls, move: str | None, text: str | None) -> Days:
        return cls(int(move or 0))


@dataclass(frozen=True)
class Message:
    text: str  # shown on pages and in plain-text emails, never in a header

    def columns(self) -> tuple[str | None, str | None]:
        return None, self.text

    @classmethod
    def stored(cls, move: str | None, text: str | None) -> Message:
        return cls(text or "")


@dataclass(frozen=True)
class Rematch:
    game_id: str | None = None  # the new game's, on the ask that completes the rematch

    def columns(self) -> tuple[str | None, str | None]:
        return None, self.game_id

    @classmethod
    def stored(cls, move: str | None, text: str | None) -> Rematch:
        return cls(text)


@dataclass(frozen=True)
class Verdict:
    """An adjudication's: a draw, or a loss for the event's seat (a draw's seat is the
    first: every event of the log has one)."""
    draw: bool

    def columns(self) -> tuple[str | None, str | None]:
        return "draw" if self.draw else "loss", None

    @classmethod
    def stored(cls, move: str | None, text: str | None) -> Verdict:
        return cls(move == "draw")


@dataclass(frozen=True)
class Joiner:
    """Who takes an open seat (a ``join`` command's): kept in the seat's row, not in the
    log, whose join event carries nothing (``matches.record``)."""
    name: str
    email: str | None = None  # None: the seat gets no emails

    def columns(self) -> tuple[str | None, str | None]:
        return None, None


Payload = Move | Days | Message | Rematch | Verdict | Joiner | None


@dataclass(frozen=True)
class Event:
    """One entry of a game's log."""
    seq: int
    # whose it is; of the server's own events, whom it concerns (a timeout: the seat whose
    # time ran out)
    seat: int
    kind: KindName
    payload: Payload
    created_at: str

    @property
    def meaning(self) -> Kind:
        """Everything its kind means: its entry in ``KINDS``."""
        return KINDS[self.kind]

    @property
    def move(self) -> str:
        """A move event's move."""
        if not isinstance(self.payload, Move):
            raise TypeError(f"a {self.kind} event has no move")
        return self.payload.move

    def columns(self) -> tuple[str | None, str | None]:
        """The payload as the log's move and text columns store it."""
        return self.payload.columns() if self.payload is not None else (None, None)

    @classmethod
    def stored(cls, seq: int, seat: int, kind: KindName, move: str | None,
               created_at: str, text: str | None) -> Event:
        """The event of a row of the log (its columns in this order)."""
        payload_type = KINDS[kind].payload
        return cls(seq, seat, kind,
                   payload_type.stored(move, text) if payload_type else None, created_at)


# -- the fold: the parts of a game that events change ----------------------------------------

@dataclass(frozen=True)
class Declined:
    """An offer (of a draw, of a team's resignation, to take back a move) that ``by``
    declined: shown to the players until the offerer moves or an offer is made again."""
    offerer: int
    by: int
    played_on: bool = False  # declined by moving rather than by answering (draw offers)


@dataclass
class Fold:
    """What ``Match.with_events`` changes while it applies events, each through its kind's
    ``fold``. Moves are replayed together, when a position is needed (a long log replays
    faster)."""
    game: engine.Game
    players: int
    clock: clocks.Clock | None
    states: positions.Positions
    current: engine.State
    draw_offer: int | None
    resign_offers: tuple[int, ...]
    draw_declined: Declined | None
    resign_declined: tuple[Declined, ...]
    last_join: Event | None
    moves: list[Event]  # the move events of the line as it stands (takebacks undo some)
    # after each move and takeback, by its seq: the ply and who is to move
    turns: dict[int, tuple[int, tuple[int, ...]]]
    takeback_offer: int | None
    takeback_declined: Declined | None
    played: list[tuple[int, str]] = field(default_factory=list)  # moves not yet replayed
    played_seqs: list[int] = field(default_factory=list)  # their events'
    # the seq of a move already played (by its check), and the position it led to
    ahead: tuple[int, engine.State] | None = None

    def team(self, seat: int) -> tuple[int, ...]:
        return self.game.team_of(self.players, seat)

    def position(self) -> engine.State:
        """The position after the events so far."""
        if self.played:
            first = len(self.states)
            known = self.ahead[1] if self.ahead and self.ahead[0] == self.played_seqs[-1] \
                else None
            self.states, self.played = self.states.played(self.played, known), []
            self.turns.update((seq, (ply, self.states.to_move(ply)))
                              for ply, seq in enumerate(self.played_seqs, start=first))
            self.played_seqs = []
            self.current = self.states.last or self.current  # (None: short of a snapshot)
        return self.current

    def apply(self, event: Event) -> None:
        """Fold ``event`` in through its kind: what it changes, then the end it makes."""
        kind = event.meaning
        kind.fold(self, event)
        if kind.ends is not None:
            self.current = self.game.conclude(self.position(), kind.ends(self, event))


def _fold_move(fold: Fold, event: Event) -> None:
    seat = event.seat
    fold.played.append((seat, event.move))
    fold.played_seqs.append(event.seq)
    fold.moves.append(event)
    fold.takeback_offer = None  # a new move cancels a request to take one back
    if fold.draw_offer is not None and seat not in fold.team(fold.draw_offer):
        # moving on declines the opponent's offer
        fold.draw_declined = Declined(fold.draw_offer, seat, played_on=True)
        fold.draw_offer = None
    # the offerer has moved since: the news of the decline is old
    if fold.draw_declined is not None and seat == fold.draw_declined.offerer:
        fold.draw_declined = None
    if fold.takeback_declined is not None and seat == fold.takeback_declined.offerer:
        fold.takeback_declined = None
    if fold.resign_declined:  # (most games have none)
        fold.resign_declined = tuple(d for d in fold.resign_declined if d.offerer != seat)


def _fold_resign(fold: Fold, event: Event) -> None:
    fold.resign_offers = ()


def _resignation(fold: Fold, event: Event) -> engine.Outcome:
    return fold.game.resignation(fold.position(), event.seat)


def _fold_resign_offer(fold: Fold, event: Event) -> None:
    fold.resign_offers += (event.seat,)
    fold.resign_declined = tuple(d for d in fold.resign_declined
                                 if d.offerer not in fold.team(event.seat))


def _fold_resign_decline(fold: Fold, event: Event) -> None:
    proposer = next(p for p in fold.resign_offers if p in fold.team(event.seat))
    fold.resign_offers = tuple(p for p in fold.resign_offers if p != proposer)
    fold.resign_declined += (Declined(proposer, event.seat),)


def _fold_draw_offer(fold: Fold, event: Event) -> None:
    fold.draw_offer, fold.draw_declined = event.seat, None


def _fold_draw_accept(fold: Fold, event: Event) -> None:
    fold.draw_offer = None


def _draw_agreed(fold: Fold, event: Event) -> engine.Outcome:
    return engine.Outcome((), True, engine.Text("draw agreed"))


def _fold_draw_decline(fold: Fold, event: Event) -> None:
    if fold.draw_offer is not None:  # (the check lets no one decline no offer)
        fold.draw_declined = Declined(fold.draw_offer, event.seat)
    fold.draw_offer = None


def _fold_takeback_offer(fold: Fold, event: Event) -> None:
    fold.takeback_offer, fold.takeback_declined = event.seat, None


def _fold_takeback_accept(fold: Fold, event: Event) -> None:
    """Back to before the asker's last move (and the reply that followed it, if any)."""
    asker = fold.takeback_offer
    last_own = max(ply for ply, move in enumerate(fold.moves) if move.seat == asker)
    fold.position()
    fold.states = fold.states.taken_back(len(fold.moves) - last_own)
    fold.current = fold.states.last or fold.current
    del fold.moves[last_own:]
    fold.turns[event.seq] = (len(fold.moves), tuple(fold.current.to_move))
    fold.takeback_offer = None


def _fold_takeback_decline(fold: Fold, event: Event) -> None:
    if fold.takeback_offer is not None:  # (the check lets no one decline no request)
        fold.takeback_declined = Declined(fold.takeback_offer, event.seat)
    fold.takeback_offer = None


def _ran_out(fold: Fold, event: Event) -> engine.Outcome:
    return clocks.timeout_outcome(fold.game, fold.position(), event.seat, fold.clock)


def _loss(fold: Fold, seat: int, reason: engine.Text) -> engine.Outcome:
    """A loss for ``seat``'s team."""
    team = fold.team(seat)
    return engine.Outcome(tuple(s for s in range(fold.players) if s not in team), False,
                          reason)


def _adjudication(fold: Fold, event: Event) -> engine.Outcome:
    """The end a tournament's round deadline gave an unfinished game: a draw, or a loss
    for the one with less time left (``tournaments.adjudicate_due``)."""
    if isinstance(event.payload, Verdict) and event.payload.draw:
        return engine.Outcome((), True, engine.Text("adjudicated at the round's deadline"))
    return _loss(fold, event.seat, engine.Text(
        "adjudicated at the round's deadline: %(side)s had less time left",
        side=fold.game.side_name(fold.position(), event.seat)))


def _forfeit(fold: Fold, event: Event) -> engine.Outcome:
    """The end of a game whose player withdrew from its tournament."""
    return _loss(fold, event.seat, engine.Text(
        "%(side)s withdrew from the tournament",
        side=fold.game.side_name(fold.position(), event.seat)))


def _fold_join(fold: Fold, event: Event) -> None:
    fold.last_join = event  # its player is in ``Match.seats`` (``load`` reads them)


WITHDRAWN = engine.Outcome((), False, engine.Text("withdrawn before it started"))


def _withdrawn(fold: Fold, event: Event) -> engine.Outcome:
    return WITHDRAWN


def _changes_nothing(fold: Fold, event: Event) -> None:
    """Vacations pause a clock (``clocks``), talk is about the game, and some events only
    end it (``Kind.ends``): no other state changes."""


# -- the checks: whether a seat may record an event now, and its payload as kept -------------


def _check_move(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not isinstance(payload, Move) or not isinstance(payload.move, str) \
            or not payload.move.strip():
        raise Refused("Write a move in the game's notation.")
    try:
        spelled, after = match.game.played(match.current, seat, payload.move)
    except engine.IllegalMove as error:
        raise Refused(error.text) from None
    # a move sent as the engine spells it (as the legal moves list it) led to ``after``;
    # one spelled otherwise is played again as the log spells it, as a replay would
    return PlayedMove(spelled, after) if spelled == payload.move else Move(spelled)


def _check_draw_offer(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if match.draw_offer_open_to(seat):
        raise Refused("Your opponent has offered a draw: accept or decline it.")
    if match.draw_offer is not None:
        raise Refused("Your side has already offered a draw.")
    return None


def _check_draw_answer(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not match.draw_offer_open_to(seat):
        raise Refused("There is no draw offer to answer.")
    return None


def _check_resign_offer(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not match.partners(seat):
        raise InvalidRequest("Only a team proposes to resign; resign instead.")
    proposer = match.resign_offer_of(seat)
    if proposer is not None:
        raise Refused("Your team's proposal to resign already waits for %(partners)s.",
                      partners=match.people(match.partners(proposer)))
    return None


def _check_resign_answer(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not match.resign_offer_open_to(seat):
        raise Refused("There is no proposal to resign to answer.")
    return None


def _check_vacation(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    try:
        return Days(clocks.check_vacation(
            match, seat, payload.days if isinstance(payload, Days) else None, now))
    except ValueError as error:
        raise Refused(error.args[0]) from None


def takebacks_allowed(match: Match) -> bool:
    """Takebacks are for two players with nothing hidden, outside rated games and
    tournaments (where a result is more than the two players' business)."""
    return match.players == 2 and not match.game.hidden_information and not match.rated \
        and match.tournament is None


def _check_takeback_offer(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not takebacks_allowed(match):
        raise Refused("Takebacks are for two-player games without hidden information, "
                      "outside rated games and tournaments.")
    if match.takeback_offer_open_to(seat):
        raise Refused("Your opponent asks to take back a move: accept or decline it.")
    if match.takeback_offer is not None:
        raise Refused("You have already asked to take back your last move.")
    if not any(move.seat == seat for move in match.moves):
        raise Refused("You have no move to take back.")
    return None


def _check_takeback_answer(match: Match, seat: int, payload: Payload,
                           now: datetime) -> Payload:
    if not match.takeback_offer_open_to(seat):
        raise Refused("There is no request to take back a move to answer.")
    return None


def _check_timeout(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    late = clocks.ran_out(match, now)
    if late is None or late.seat != seat:
        raise Refused("No clock has run out.")
    return None


def _check_verdict(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not isinstance(payload, Verdict):
        raise InvalidRequest("An adjudication needs its verdict.")
    _check_ended_by_tournament(match, seat, payload, now)
    return Verdict(payload.draw)


def _check_ended_by_tournament(match: Match, seat: int, payload: Payload,
                               now: datetime) -> Payload:
    """A tournament ends its own games (at a round's deadline, or as a player withdraws),
    but not one decided on time already: the clock job records that."""
    if match.tournament is None:
        raise Refused("Only a tournament's games are adjudicated or forfeited.")
    _in_time(match, now)
    return None


def _in_time(match: Match, now: datetime) -> None:
    late = clocks.ran_out(match, now)
    if late is not None:
        # Decided on time: the scheduler's clock job records it at its next run.
        raise Refused("%(name)s has run out of time (%(deadline)s); the game ends on time.",
                      name=match.seats[late.seat].name, deadline=late.deadline_text)


def _over(match: Match) -> Refused:
    return Refused("The game is over: %(reason)s.", reason=match.reason)


def _check_withdraw(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if match.finished:
        raise _over(match)
    if not match.hosts(seat):
        raise Refused("Only its creator may withdraw a game, and only while it waits for "
                      "players.")
    return None


def _check_join(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    """Who may take an open seat: a player named as a form takes names, with an address or
    none (then nothing is ever emailed to the seat), while the seat is open."""
    name = payload.name if isinstance(payload, Joiner) else None
    email = payload.email if isinstance(payload, Joiner) else None
    name = checked_name(name, engine.Text("A player"))
    if email is not None and not isinstance(email, str):
        raise InvalidRequest("'email' must be an email address, or left out.")
    email = (email or "").strip() or None
    if email is not None and not valid_email(email):
        raise InvalidRequest("That email address is not valid (leave it empty to get no "
                             "emails).")
    refusal = match.seat_refusal(seat)
    if refusal:
        raise SeatTaken(refusal)
    return Joiner(name, email)


def _check_chat(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    text = payload.text if isinstance(payload, Message) else None
    return Message(checked_text(text, engine.Text("A chat message"), MAX_CHAT))


def _check_rematch(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not match.finished:
        raise Refused("A rematch can be asked for once the game is over.")
    return payload if isinstance(payload, Rematch) else Rematch()


def _may(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    return payload


@functools.lru_cache(maxsize=4096)  # a tournament's games check each player's name often
def plain_spaces(text: str) -> str:
    """``text`` with every kind of space (no-break, thin, ...) made a plain one."""
    return "".join(" " if unicodedata.category(c) == "Zs" else c for c in text)


def kept_text(text: str) -> str:
    """Typed text as it is kept: line breaks and spaces made plain, trimmed."""
    return plain_spaces(text.replace("\r\n", "\n").replace("\r", "\n")).strip()


# The top-level names that no public mailbox is under: the special-use domains (RFC 2606,
# 6761, 6762, 7686, 9476; .arpa, with home.arpa, is the DNS's own) and ICANN's .internal
RESERVED_TLDS = frozenset({"test", "example", "invalid", "localhost", "local", "onion", "alt",
                           "arpa", "internal"})
DOMAIN_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
TOP_LEVEL = re.compile(r"[a-z]{2,63}|xn--[a-z0-9-]{1,59}")  # letters, or an IDN's punycode


def valid_email(text: str) -> bool:
    """Whether ``text`` is a plain address (local@domain) that an email header can carry,
    at a public domain name: dotted host name labels under a top-level name that can be
    delegated (no IP address, no ``localhost``, no reserved name such as ``.test``)."""
    if not isinstance(text, str) or len(text) > 254 or not text.isascii() \
            or not re.fullmatch(r"[!-~]+@[!-~]+", text) or text.count("@") != 1:
        return False
    return public_domain(text.partition("@")[2]) and _parses_as_address(text)


def public_domain(domain: str) -> bool:
    *names, top = domain.lower().split(".")
    return bool(names) and all(DOMAIN_LABEL.fullmatch(name) for name in names) \
        and TOP_LEVEL.fullmatch(top) is not None and top not in RESERVED_TLDS


@functools.lru_cache(maxsize=4096)  # a tournament's games check each player's address often
def _parses_as_address(text: str) -> bool:
    try:
        return Address(addr_spec=text).addr_spec == text
    except (HeaderParseError, ValueError, IndexError, TypeError, AttributeError):
        return False


def checked_name(name: Any, who: str) -> str:
    """A player's name as typed, white space folded; refused unless it is 1 to MAX_NAME
    characters of printable text (no control characters: names go into email subjects)."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
        raise InvalidRequest("%(who)s needs a name of 1 to %(most)s characters.", who=who,
                             most=MAX_NAME)
    spaced = plain_spaces(name.strip())
    if not spaced.isprintable():
        raise InvalidRequest("%(who)s's name may hold only printable characters (no line "
                             "breaks or control characters).", who=who)
    return " ".join(spaced.split())


def checked_text(text: Any, what: str, most: int, *, may_be_empty: bool = False) -> str:
    """Text a player typed (a chat message, notes) as it is kept: line breaks made plain and
    the text trimmed; refused unless it is at most ``most`` characters (and not empty,
    unless ``may_be_empty``) with no control characters but line breaks and tabs. ``what``
    names it in the error ("A chat message")."""
    if not isinstance(text, str):
        raise InvalidRequest("%(what)s must be given as 'text', a string.", what=what)
    text = kept_text(text)
    if len(text) > most or not (text or may_be_empty):
        raise InvalidRequest("%(what)s must be %(least)s to %(most)s characters long (this "
                             "one has %(length)s).", what=what, least=0 if may_be_empty else 1,
                             most=most, length=len(text))
    # zero-width joiners are part of emoji sequences; other format characters are not text
    if not all(c.isprintable() or c in "\n\t\u200c\u200d" for c in text):
        raise InvalidRequest("%(what)s may hold only printable characters, line breaks and "
                             "tabs.", what=what)
    return text


# -- resubmissions: the same request again is answered as a success ------------------------

def _move_played(match: Match, seat: int, payload: Payload, seen: int | None) -> bool:
    return seen is not None and isinstance(payload, Move) \
        and match.already_played(seat, seen, payload.move)


def _chat_posted(match: Match, seat: int, payload: Payload, seen: int | None) -> bool:
    """The same message again as the game's latest event (an email delivered twice)."""
    last = match.events[-1] if match.events else None
    return last is not None and last.kind == "chat" and last.seat == seat \
        and isinstance(payload, Message) and isinstance(payload.text, str) \
        and last.payload == Message(kept_text(payload.text))


def _rematch_asked(match: Match, seat: int, payload: Payload, seen: int | None) -> bool:
    return seat in match.rematch_asked


def _never(match: Match, seat: int, payload: Payload, seen: int | None) -> bool:
    return False


# -- the words of each way in ----------------------------------------------------------------

Request = tuple[str, str | None]  # (route under /play/<token>/, its "answer" field or None)


@dataclass(frozen=True)
class Words:
    """How each way in names a kind, and what players are told of it.

    ``page`` and ``api``: the route of the game page's form and of the JSON API under
    ``/play/<token>/``, with the ``answer`` it carries (None: none); ``email``: the words of
    an email reply (a move is written as itself, in the game's notation). None or ():
    not offered there. Several kinds may share words (a bare "accept"): the command takes
    the first of them that applies to the seat (``Kind.applies``). ``done`` tells its
    author what was recorded (``{move}``, ``{partners}``, ``{opponents}``); ``news`` tells
    the others (``{name}``, ``{move}``, ``{days}``), None: not announced."""
    page: Request | None
    api: Request | None
    email: tuple[str, ...]
    done: str
    news: str | None = None


Audience = Literal["everyone", "players", "team"]
KindName = Literal[
    "move", "draw_offer", "draw_accept", "draw_decline", "resign", "resign_accept",
    "resign_offer", "resign_decline", "takeback_offer", "takeback_accept", "takeback_decline",
    "vacation", "timeout", "adjudicated", "forfeited", "withdraw", "join", "anonymise", "chat",
    "rematch"]


@dataclass(frozen=True)
class Tells:
    """The email an event tells players of (with its push message and webhook post, as
    each seat's choices say: ``mail.notify``), and whom.

    ``to``: the seats told, from the game before the event, after it, and the event;
    ``email``: the kind of message, which the outbox keeps and a seat's choice of a
    digest or no turn emails holds back (two kinds of event may send one); ``subject``:
    what its subject says first; ``template``: ``templates/email/<template>.txt`` (None:
    the email's name); ``topic``: the choice of channels that covers it
    (``mail.channels.TOPICS``; None: it goes by email alone); ``detail``: what its push
    message says after the subject (fields: ``{author}``, the event's player, ``{who}``,
    their side and name, ``{message}``, a chat message's text), None: nothing more."""
    to: Callable[[Match, Match, Event], Iterable[int]]
    email: str
    subject: str
    template: str | None = None
    topic: Literal["offers", "chat"] | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Kind:
    """One kind of event: what it carries, when a seat may record it, what it does to the
    game and to its clocks, who may know of it and whom it tells, how a record logs it,
    and what each way in calls it."""
    name: KindName
    words: Words
    fold: Callable[[Fold, Event], None] = _changes_nothing
    check: Callable[[Match, int, Payload, datetime], Payload] = _may
    payload: type[Move] | type[Days] | type[Message] | type[Rematch] | type[Verdict] \
        | None = None
    # the outcome it ends the game with (after its fold); None: the game goes on
    ends: Callable[[Fold, Event], engine.Outcome] | None = None
    clock: clocks.Effect | None = None  # what it does to its seat's clock (``clocks.compute``)
    # who may know of it before the game is over (after, everyone): the players (the chat),
    # the author's team (its talk of resigning), or everyone
    known_to: Audience = "everyone"
    talk: bool = False    # about the game, not in it: allowed whatever the position and clocks
    server: bool = False  # recorded by the server only (a timeout, a forfeit), never a player
    before_start: bool = False  # only while the game waits for players (a withdrawal)
    # whether the seat's words mean this kind (of several sharing them) in this game now
    applies: Callable[[Match, int], bool] = lambda match, seat: True
    # whether the request is one already recorded (then answered as a success)
    recorded: Callable[[Match, int, Payload, int | None], bool] = _never
    tells: Tells | None = None  # the email it sends; None: none of its own
    # how a game record (record.txt) logs it after its seat's name and side; None: a move or
    # a chat message, which it writes in full
    logged: str | None = None


def _seat(seat: int | None) -> tuple[int, ...]:
    """The offerer an answer tells (the offer it answers stood: it has one)."""
    return () if seat is None else (seat,)


def _others(match: Match, event: Event) -> list[int]:
    return [seat for seat in range(match.players) if seat != event.seat]


TAKEBACK_ANSWERED = _("Takeback answered")

KINDS: dict[KindName, Kind] = {kind.name: kind for kind in (
    Kind("move", Words(
        ("move", None), ("moves", None), (), done=_("Your move {move} was recorded."),
        news=_("{name} played {move}")),
        _fold_move, _check_move, Move, clock="turn_ends", recorded=_move_played),
    # draw answers before a team's: a bare "accept" answers a draw offer first
    Kind("draw_offer", Words(
        ("draw", "offer"), ("draw", "offer"), ("draw", "offer draw", "offer a draw"),
        done=_("Your draw offer was recorded; {opponents} will be told."),
        news=_("{name} offered a draw")),
        _fold_draw_offer, _check_draw_offer, logged=_("draw offer"), tells=Tells(
            lambda before, after, event: [seat for seat in range(after.players)
                                          if after.draw_offer_open_to(seat)],
            "draw_offer", _("Draw offered"), topic="offers",
            detail=_("{author} offers a draw."))),
    Kind("draw_accept", Words(
        ("draw", "accept"), ("draw", "accept"), ("accept draw", "accept the draw", "accept"),
        done=_("You accepted the draw."), news=_("{name} accepted the draw")),
        _fold_draw_accept, _check_draw_answer, ends=_draw_agreed, logged=_("draw accept"),
        applies=lambda match, seat: match.draw_offer_open_to(seat)),
    Kind("draw_decline", Words(
        ("draw", "decline"), ("draw", "decline"),
        ("decline draw", "decline the draw", "decline"),
        done=_("You declined the draw offer."), news=_("{name} declined the draw")),
        _fold_draw_decline, _check_draw_answer, logged=_("draw decline"),
        applies=lambda match, seat: match.draw_offer_open_to(seat), tells=Tells(
            lambda before, after, event: _seat(before.draw_offer),
            "draw_declined", _("Draw declined"), "declined", topic="offers")),
    # "resign" means resigning in a two-player game; in a team game the proposal that the
    # team resign, or, once a partner has proposed it, the confirmation that ends the game
    Kind("resign", Words(
        ("resign", None), ("resign", None), ("resign",),
        done=_("Your resignation was recorded."), news=_("{name} resigned")),
        _fold_resign, ends=_resignation, logged=_("resign"),
        applies=lambda match, seat: not match.partners(seat)),
    Kind("resign_accept", Words(
        ("resign", None), ("resign", None), ("resign", "accept"),
        done=_("You confirmed {partners}'s proposal: your team resigned.")),
        _fold_resign, _check_resign_answer, ends=_resignation, logged=_("resign accept"),
        applies=lambda match, seat: match.resign_offer_open_to(seat)),
    Kind("resign_offer", Words(
        ("resign", None), ("resign", None), ("resign",),
        done=_("Your proposal to resign was recorded; {partners} will be asked to confirm "
             "it.")),
        _fold_resign_offer, _check_resign_offer, known_to="team", logged=_("resign offer"),
        tells=Tells(lambda before, after, event: after.partners(event.seat),
                    "resign_offer", _("Resignation proposed"), topic="offers",
                    detail=_("{author} proposes that your side resigns."))),
    Kind("resign_decline", Words(
        ("resign", "decline"), ("resign", "decline"), ("play on", "decline"),
        done=_("You declined {partners}'s proposal to resign: your team plays on.")),
        _fold_resign_decline, _check_resign_answer, known_to="team",
        logged=_("resign decline"), tells=Tells(
            lambda before, after, event: _seat(before.resign_offer_of(event.seat)),
            "resign_declined", _("Resignation declined"), "declined", topic="offers")),
    # after the draw's and the team's: a bare "accept" answers those first
    Kind("takeback_offer", Words(
        ("takeback", None), ("takeback", None),
        ("takeback", "take back", "ask takeback", "ask for a takeback"),
        done=_("You asked to take back your last move; {opponents} will be asked."),
        news=_("{name} asks to take back their last move")),
        _fold_takeback_offer, _check_takeback_offer, logged=_("takeback offer"),
        tells=Tells(lambda before, after, event: after.opponents(event.seat),
                    "takeback_offer", _("Takeback asked"))),
    Kind("takeback_accept", Words(
        ("takeback", "accept"), ("takeback", "accept"), ("accept takeback", "accept"),
        done=_("You accepted the takeback: the position went back."),
        news=_("{name} accepted the takeback: the position went back")),
        _fold_takeback_accept, _check_takeback_answer, logged=_("takeback accept"),
        applies=lambda match, seat: match.takeback_offer_open_to(seat), tells=Tells(
            lambda before, after, event: _seat(before.takeback_offer),
            "takeback_answer", TAKEBACK_ANSWERED, "takeback_accepted")),
    Kind("takeback_decline", Words(
        ("takeback", "decline"), ("takeback", "decline"), ("decline takeback", "decline"),
        done=_("You declined the takeback."), news=_("{name} declined the takeback")),
        _fold_takeback_decline, _check_takeback_answer, logged=_("takeback decline"),
        applies=lambda match, seat: match.takeback_offer_open_to(seat), tells=Tells(
            lambda before, after, event: _seat(before.takeback_offer),
            "takeback_answer", TAKEBACK_ANSWERED, "takeback_declined")),
    Kind("vacation", Words(
        ("vacation", None), ("vacation", None), (),
        done=_("Your vacation of {days} days was recorded."),
        news=_("{name} took {days} days of vacation")),
        check=_check_vacation, payload=Days, clock="pauses", logged=_("vacation")),
    Kind("timeout", Words(
        None, None, (), done=_("Your clock ran out."), news=_("{name} ran out of time")),
        check=_check_timeout, ends=_ran_out, clock="runs_out", server=True,
        logged=_("timeout")),
    # a tournament's own ends of its games, as lila's Finisher has Timeout and NoStart
    Kind("adjudicated", Words(
        None, None, (), done=_("Your game was adjudicated at the round's deadline."),
        news=_("The game was adjudicated at the round's deadline")),
        check=_check_verdict, payload=Verdict, ends=_adjudication, server=True,
        logged=_("adjudicated at the round's deadline")),
    Kind("forfeited", Words(
        None, None, (), done=_("You withdrew from the tournament: the game is lost."),
        news=_("{name} withdrew from the tournament")),
        check=_check_ended_by_tournament, ends=_forfeit, server=True,
        logged=_("withdrew from the tournament")),
    Kind("withdraw", Words(
        ("withdraw", None), ("withdraw", None), (),
        done=_("You withdrew the game: it will not be played.")),
        check=_check_withdraw, ends=_withdrawn, before_start=True, logged=_("withdraw")),
    # its command carries the player (a ``Joiner``), kept in the seat's row, not the log
    Kind("join", Words(
        None, None, (), done=_("You took the seat.")),  # the join link's page (``lobby``)
        _fold_join, _check_join, before_start=True, logged=_("join")),
    # the server's: the seat's player deleted their identity, and its name and address went
    # (``matches.anonymise``; every process's copy of the game reads its seats again)
    Kind("anonymise", Words(None, None, (), done=_("Your name was removed from the game.")),
         server=True, logged=_("name removed")),
    Kind("chat", Words(
        ("chat", None), ("chat", None), ("say",),
        done=_("Your message was posted to the game's chat.")),
        check=_check_chat, payload=Message, known_to="players", talk=True,
        recorded=_chat_posted, tells=Tells(
            lambda before, after, event: _others(after, event), "chat", _("New message"),
            topic="chat", detail="{who}: {message}")),
    Kind("rematch", Words(
        ("rematch", None), ("rematch", None), ("rematch",),
        done=_("Your rematch request was recorded; the new game starts once the other "
             "players ask for it too.")),
        check=_check_rematch, payload=Rematch, talk=True, recorded=_rematch_asked,
        logged=_("rematch"), tells=Tells(
            # the ask that completes a rematch starts the game: its start emails tell all
            lambda before, after, event: () if after.rematch_id else
            [seat for seat in range(after.players) if seat not in after.rematch_asked],
            "rematch", _("Rematch asked"), topic="offers",
            detail=_("{who} asks for a rematch."))),
)}

TRANSPORTS = ("page", "api", "email")


def kinds_named(transport: str, words: Any) -> tuple[KindName, ...]:
    """The kinds that ``words`` name in ``transport`` (page, api: a ``Request``; email: a
    reply's word), in the order a command tries them; () for none."""
    return tuple(name for name, kind in KINDS.items()
                 if words in (kind.words.email if transport == "email"
                              else (getattr(kind.words, transport),)))


@dataclass(frozen=True)
class Command:
    """A seat's request as a way in read it: the kinds its words may mean (the first that
    applies to the seat is recorded) and its payload."""
    kinds: tuple[KindName, ...]
    payload: Payload = None

    @classmethod
    def of(cls, kind: KindName, payload: Payload = None) -> Command:
        return cls((kind,), payload)

    def kind_for(self, match: Match, seat: int) -> Kind:
        """The kind this command records for ``seat`` in the game as it stands: the first
        that applies, else the first (whose check then says why it cannot be)."""
        kinds = [KINDS[name] for name in self.kinds]
        return next((kind for kind in kinds if kind.applies(match, seat)), kinds[0])


def check(match: Match, seat: int, kind: Kind, payload: Payload, *, server: bool,
          now: datetime) -> Payload:
    """Whether ``seat`` may record ``kind`` now (raises ``ActionError`` if not); returns the
    payload as it is kept (a move as the engine spells it, a message trimmed)."""
    if kind.server != server:
        raise InvalidRequest("Unknown action '%(kind)s'.", kind=kind.name)
    if kind.talk or kind.before_start:  # their checks say when they may be
        return kind.check(match, seat, payload, now)
    if match.finished:
        raise _over(match)
    if server:
        return kind.check(match, seat, payload, now)
    if match.waiting:
        raise Refused("The game is waiting for players: it starts when every seat is taken "
                      "(still open: %(seats)s).",
                      seats=tuple(match.seat_name(s) for s in match.open_seats))
    _in_time(match, now)
    return kind.check(match, seat, payload, now)
