"""The kinds of event a game's log holds, in one registry (``KINDS``).

Each kind is a small record: the type of its payload (what it carries besides its seat and
time: a move, days of vacation, a chat message...), its check (may this seat record it
now?), how it folds into the game (``Match.with_events`` dispatches here), who may know of
it before the game is over, whether it is talk about the game, a server action or the team's
own business, and its words in every way in: the game page's form, the JSON API's request,
an email reply's words. A way in turns its words into a ``Command``; ``commands.submit``
records it. Adding a kind is adding an entry here (tests/test_events.py checks that every
kind has its words).

This module sits below ``matches`` (which imports it), so a check takes the match as
``matches.Match`` duck-typed, as ``clocks`` does.
"""
from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Literal

import engine
from flask_babel import lazy_gettext as _

from . import clocks, positions

MAX_CHAT = 2000  # characters of one chat message


# -- what a request may be refused with ----------------------------------------------------

class ActionError(Exception):
    """A request the server refuses; ``status`` is the HTTP status it maps to, ``headers``
    what its answer carries besides (a Retry-After). Its ``message`` is an ``engine.Text``
    of ``message`` and ``fields``: English as a str, and in the reader's language where a
    page, an email or the API shows it (``languages.translated``)."""

    status = 400

    def __init__(self, message: str, /, headers: dict[str, str] | None = None, **fields: Any):
        self.message = engine.Text(message, **fields)
        super().__init__(self.message)
        self.headers = headers or {}


class InvalidRequest(ActionError):
    status = 400


class StalePosition(ActionError):
    status = 409


class Refused(ActionError):
    """Illegal moves, moves out of turn, and actions the game's situation does not allow."""

    status = 422


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


Payload = Move | Days | Message | Rematch | None


@dataclass(frozen=True)
class Event:
    """One entry of a game's log."""
    seq: int
    seat: int   # whose it is (the server records a timeout for the seat whose time ran out)
    kind: str   # a key of KINDS
    payload: Payload
    created_at: str

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
    def stored(cls, seq: int, seat: int, kind: str, move: str | None,
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
    clock: dict[str, Any] | None
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

    def team(self, seat: int) -> tuple[int, ...]:
        return self.game.team_of(self.players, seat)

    def position(self) -> engine.State:
        """The position after the events so far."""
        if self.played:
            first = len(self.states)
            self.states, self.played = self.states.played(self.played), []
            self.turns.update((seq, (ply, self.states.to_move(ply)))
                              for ply, seq in enumerate(self.played_seqs, start=first))
            self.played_seqs = []
            self.current = self.states.last or self.current  # (None: short of a snapshot)
        return self.current

    def conclude(self, outcome: engine.Outcome) -> None:
        self.current = self.game.conclude(self.position(), outcome)


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
    fold.conclude(fold.game.resignation(fold.position(), event.seat))
    fold.resign_offers = ()


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
    fold.conclude(engine.Outcome((), True, engine.Text("draw agreed")))
    fold.draw_offer = None


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


def _fold_timeout(fold: Fold, event: Event) -> None:
    fold.conclude(clocks.timeout_outcome(fold.game, fold.position(), event.seat, fold.clock))


def _fold_join(fold: Fold, event: Event) -> None:
    fold.last_join = event  # its player is in ``Match.seats`` (``load`` reads them)


WITHDRAWN = engine.Outcome((), False, engine.Text("withdrawn before it started"))


def _fold_withdraw(fold: Fold, event: Event) -> None:
    fold.conclude(WITHDRAWN)


def _changes_nothing(fold: Fold, event: Event) -> None:
    """Vacations pause a clock (``clocks``), talk is about the game: no state changes."""


# -- the checks: whether a seat may record an event now, and its payload as kept -------------

Match = Any  # matches.Match, which imports this module


def _check_move(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not isinstance(payload, Move) or not isinstance(payload.move, str) \
            or not payload.move.strip():
        raise Refused("Write a move in the game's notation.")
    try:
        return Move(match.game.canonical(match.current, seat, payload.move))
    except engine.IllegalMove as error:
        raise Refused(error.text) from None


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


def _check_withdraw(match: Match, seat: int, payload: Payload, now: datetime) -> Payload:
    if not match.hosts(seat):
        raise Refused("Only its creator may withdraw a game, and only while it waits for "
                      "players.")
    return None


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


@dataclass(frozen=True)
class Kind:
    """One kind of event: what it carries, when a seat may record it, what it does to the
    game, who may know of it, and what each way in calls it."""
    name: str
    words: Words
    fold: Callable[[Fold, Event], None]
    check: Callable[[Match, int, Payload, datetime], Payload] = _may
    payload: type[Move] | type[Days] | type[Message] | type[Rematch] | None = None
    # who may know of it before the game is over (after, everyone): the players (the chat),
    # the author's team (its talk of resigning), or everyone
    known_to: Audience = "everyone"
    talk: bool = False    # about the game, not in it: allowed whatever the position and clocks
    server: bool = False  # recorded by the server only (a timeout), never by a player
    before_start: bool = False  # only while the game waits for players (a withdrawal)
    # whether the seat's words mean this kind (of several sharing them) in this game now
    applies: Callable[[Match, int], bool] = lambda match, seat: True
    # whether the request is one already recorded (then answered as a success)
    recorded: Callable[[Match, int, Payload, int | None], bool] = _never


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    Kind("move", Words(
        ("move", None), ("moves", None), (), done=_("Your move {move} was recorded."),
        news=_("{name} played {move}")),
        _fold_move, _check_move, Move, recorded=_move_played),
    # draw answers before a team's: a bare "accept" answers a draw offer first
    Kind("draw_offer", Words(
        ("draw", "offer"), ("draw", "offer"), ("draw", "offer draw", "offer a draw"),
        done=_("Your draw offer was recorded; {opponents} will be told."),
        news=_("{name} offered a draw")),
        _fold_draw_offer, _check_draw_offer),
    Kind("draw_accept", Words(
        ("draw", "accept"), ("draw", "accept"), ("accept draw", "accept the draw", "accept"),
        done=_("You accepted the draw."), news=_("{name} accepted the draw")),
        _fold_draw_accept, _check_draw_answer,
        applies=lambda match, seat: match.draw_offer_open_to(seat)),
    Kind("draw_decline", Words(
        ("draw", "decline"), ("draw", "decline"),
        ("decline draw", "decline the draw", "decline"),
        done=_("You declined the draw offer."), news=_("{name} declined the draw")),
        _fold_draw_decline, _check_draw_answer,
        applies=lambda match, seat: match.draw_offer_open_to(seat)),
    # "resign" means resigning in a two-player game; in a team game the proposal that the
    # team resign, or, once a partner has proposed it, the confirmation that ends the game
    Kind("resign", Words(
        ("resign", None), ("resign", None), ("resign",),
        done=_("Your resignation was recorded."), news=_("{name} resigned")),
        _fold_resign, applies=lambda match, seat: not match.partners(seat)),
    Kind("resign_accept", Words(
        ("resign", None), ("resign", None), ("resign", "accept"),
        done=_("You confirmed {partners}'s proposal: your team resigned.")),
        _fold_resign, _check_resign_answer,
        applies=lambda match, seat: match.resign_offer_open_to(seat)),
    Kind("resign_offer", Words(
        ("resign", None), ("resign", None), ("resign",),
        done=_("Your proposal to resign was recorded; {partners} will be asked to confirm "
             "it.")),
        _fold_resign_offer, _check_resign_offer, known_to="team"),
    Kind("resign_decline", Words(
        ("resign", "decline"), ("resign", "decline"), ("play on", "decline"),
        done=_("You declined {partners}'s proposal to resign: your team plays on.")),
        _fold_resign_decline, _check_resign_answer, known_to="team"),
    # after the draw's and the team's: a bare "accept" answers those first
    Kind("takeback_offer", Words(
        ("takeback", None), ("takeback", None),
        ("takeback", "take back", "ask takeback", "ask for a takeback"),
        done=_("You asked to take back your last move; {opponents} will be asked."),
        news=_("{name} asks to take back their last move")),
        _fold_takeback_offer, _check_takeback_offer),
    Kind("takeback_accept", Words(
        ("takeback", "accept"), ("takeback", "accept"), ("accept takeback", "accept"),
        done=_("You accepted the takeback: the position went back."),
        news=_("{name} accepted the takeback: the position went back")),
        _fold_takeback_accept, _check_takeback_answer,
        applies=lambda match, seat: match.takeback_offer_open_to(seat)),
    Kind("takeback_decline", Words(
        ("takeback", "decline"), ("takeback", "decline"), ("decline takeback", "decline"),
        done=_("You declined the takeback."), news=_("{name} declined the takeback")),
        _fold_takeback_decline, _check_takeback_answer,
        applies=lambda match, seat: match.takeback_offer_open_to(seat)),
    Kind("vacation", Words(
        ("vacation", None), ("vacation", None), (),
        done=_("Your vacation of {days} days was recorded."),
        news=_("{name} took {days} days of vacation")),
        _changes_nothing, _check_vacation, Days),
    Kind("timeout", Words(
        None, None, (), done=_("Your clock ran out."), news=_("{name} ran out of time")),
        _fold_timeout, _check_timeout, server=True),
    Kind("withdraw", Words(
        ("withdraw", None), ("withdraw", None), (),
        done=_("You withdrew the game: it will not be played.")),
        _fold_withdraw, _check_withdraw, before_start=True),
    Kind("join", Words(
        None, None, (), done=_("You took the seat.")),  # the join page's (``matches.join``)
        _fold_join),
    # the server's: the seat's player deleted their identity, and its name and address went
    # (``matches.anonymise``; every process's copy of the game reads its seats again)
    Kind("anonymise", Words(None, None, (), done=_("Your name was removed from the game.")),
         _changes_nothing, server=True),
    Kind("chat", Words(
        ("chat", None), ("chat", None), ("say",),
        done=_("Your message was posted to the game's chat.")),
        _changes_nothing, _check_chat, Message, known_to="players", talk=True,
        recorded=_chat_posted),
    Kind("rematch", Words(
        ("rematch", None), ("rematch", None), ("rematch",),
        done=_("Your rematch request was recorded; the new game starts once the other "
             "players ask for it too.")),
        _changes_nothing, _check_rematch, Rematch, talk=True, recorded=_rematch_asked),
)}
# each kind but a move and a chat message as a game record names it (record.txt)
LOGGED = {"draw_offer": _("draw offer"), "draw_accept": _("draw accept"),
          "draw_decline": _("draw decline"), "resign": _("resign"),
          "resign_accept": _("resign accept"), "resign_offer": _("resign offer"),
          "resign_decline": _("resign decline"), "takeback_offer": _("takeback offer"),
          "takeback_accept": _("takeback accept"), "takeback_decline": _("takeback decline"),
          "vacation": _("vacation"), "timeout": _("timeout"), "withdraw": _("withdraw"),
          "join": _("join"), "anonymise": _("name removed"), "rematch": _("rematch")}

TRANSPORTS = ("page", "api", "email")


def kinds_named(transport: str, words: Any) -> tuple[str, ...]:
    """The kinds that ``words`` name in ``transport`` (page, api: a ``Request``; email: a
    reply's word), in the order a command tries them; () for none."""
    return tuple(name for name, kind in KINDS.items()
                 if words in (kind.words.email if transport == "email"
                              else (getattr(kind.words, transport),)))


@dataclass(frozen=True)
class Command:
    """A seat's request as a way in read it: the kinds its words may mean (the first that
    applies to the seat is recorded) and its payload."""
    kinds: tuple[str, ...]
    payload: Payload = None

    @classmethod
    def of(cls, kind: str, payload: Payload = None) -> Command:
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
    if kind.talk:
        return kind.check(match, seat, payload, now)
    if match.finished:
        raise Refused("The game is over: %(reason)s.", reason=match.reason)
    if server or kind.before_start:
        return kind.check(match, seat, payload, now)
    if match.waiting:
        raise Refused("The game is waiting for players: it starts when every seat is taken "
                      "(still open: %(seats)s).",
                      seats=tuple(match.seat_name(s) for s in match.open_seats))
    late = clocks.ran_out(match, now)
    if late is not None:
        # Decided on time: the scheduler's clock job records it at its next run.
        raise Refused("%(name)s has run out of time (%(deadline)s); the game ends on time.",
                      name=match.seats[late.seat].name, deadline=late.deadline_text)
    return kind.check(match, seat, payload, now)
