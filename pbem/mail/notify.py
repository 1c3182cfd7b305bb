"""What the server tells players by email, queued in the outbox in the caller's transaction.

Every email is made by ``compose`` (the board as the seat may know it, a fresh link, the
thread, the HTML part and the settings footer); each subject says first what happened
("Your move — Mastery: Ann vs Bob [id]"), so an inbox tells a turn from the end of the game.
The game's start, turns and end are told here; what else an event tells, and whom, its kind
says (``events.Kind.tells``).

Each seat chooses (``seats.notify``, see ``PREFERENCES``) an email at every turn, a daily
digest of the games waiting for its address (or one, then none until the player's next
visit to the game's page), or none; ``HELD_BACK`` says which kinds of
email each choice stops. The scheduler's jobs (``send_reminders``, ``send_digests``) take
the time as a parameter and derive everything from the database: when a turn began from the
event log, what was already sent from the outbox (``unique_key``) and ``digest_days``.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

import sqlite_utils
from flask import current_app, render_template
from flask_babel import gettext, lazy_gettext, ngettext, pgettext

from .. import blocks, clocks, due, events, invites, languages, links, matches, players, signals
from . import channels, compose, outbox, push, sentences, webhooks
from ..boards import board_for
from ..events import Event
from ..creation import Created
from ..matches import Match
from ..store import utc
from ..store.db import write

PREFERENCES = {"each": lazy_gettext("an email at every turn and for every chat message"),
               "digest": lazy_gettext("one email a day listing the games that wait for you"),
               "once": lazy_gettext("one such email, then none until your next visit to the "
                                    "game's page"),
               "none": lazy_gettext("no turn emails (only the start and the result of the "
                                    "game)")}
# The emails the players' own events send (``events.Kind.tells``: offers, their answers, chat
# and rematches); the start, turns, reminders, deadlines and the end are the game's own.
TOLD = frozenset(kind.tells.email for kind in events.KINDS.values() if kind.tells)
# The kinds of email each choice holds back; every other kind (start, end, answers to a
# player's own emailed moves, ...) is always sent.
HELD_BACK = {"each": frozenset(),
             "digest": frozenset({"turn", "reminder"}) | TOLD,
             "once": frozenset({"turn", "reminder"}) | TOLD,
             "none": frozenset({"turn", "reminder", "deadline", "digest"}) | TOLD}
KINDS = {"started": "start", "your_turn": "turn", "finished": "end"}  # others: the template
# What each kind of email says first in its subject.
SUBJECTS = {"start": lazy_gettext("Game started"), "turn": lazy_gettext("Your move"),
            "reminder": lazy_gettext("Reminder: your move"),
            "deadline": lazy_gettext("Time running out"), "end": lazy_gettext("Game over"),
            "joined": lazy_gettext("A player joined"),
            "expired": lazy_gettext("Nobody joined"),
            **{kind.tells.email: kind.tells.subject for kind in events.KINDS.values()
               if kind.tells}}
HINT_MOVES = 8  # legal moves named in an email


def _send(db: sqlite_utils.Database, match: Match, seat: int, template: str,
          **options: Any) -> str | None:
    """``_compose`` in the seat's language."""
    with languages.in_language(matches.language_of(db, match.id, seat)):
        return _compose(db, match, seat, template, **options)


def _compose(db: sqlite_utils.Database, match: Match, seat: int, template: str, *,
             kind: str | None = None, unique_key: str | None = None, also: Sequence[int] = (),
             by_email: bool = True, by_push: bool = True, **context: object) -> str | None:
    """Queue ``email/<template>.txt`` to ``seat`` with a fresh link, the board as the seat
    may see it, a hint of its legal moves and the settings footer, and its one-line summary
    to the seat's webhook; unless the seat's choice holds this kind of email back (then
    None; a seat with no address gets no email, nor one whose invitation was held back:
    see ``invites``). ``also``: other seats of the same address, whose links the email
    carries too. The seat's devices are told too (``by_push``), if its choice of channels
    (``channels``) says so, which may also stop the email; ``by_email`` False: only they
    are, now (the email and webhook post follow later). Returns the Message-ID."""
    kind = kind or KINDS.get(template, template)
    wanted = channels.wanted(db, match.id, seat, kind)
    if by_push and wanted.push:
        push.queue(db, match, seat, kind, SUBJECTS[kind], context, unique_key)
    if not by_email:
        return None
    choice, held_back = _email_choice(db, match.id, seat)
    if kind in HELD_BACK[choice]:
        return None
    summary = compose.subject(match, SUBJECTS[kind])
    _post(db, match, seat, kind, summary, unique_key)
    if not match.seats[seat].email or held_back or not wanted.email:
        return None
    to = compose.seat(db, match, seat)
    rules = links.email_url("site.rules", game_id=match.game.id)
    also_links = [(other, compose.play_link(db, match.id, other)[1]) for other in also]
    body = render_template(
        f"email/{template}.txt", match=match, seat=seat, name=match.seats[seat].name,
        link=to.link, rules=rules, board=to.board, hint=legal_hint(match, seat),
        also=also_links, **context)
    buttons = {rules: gettext("The rules")}
    for other, other_link in also_links:
        buttons[other_link] = gettext("Open %(side)s",
                                      side=languages.translated(match.seat_name(other)))
    if "watch" in context:
        buttons[str(context["watch"])] = gettext("Watch the game")
    return compose.to_seat(db, to, SUBJECTS[kind], body, kind=kind, buttons=buttons,
                           unique_key=unique_key)


def _post(db: sqlite_utils.Database, match: Match, seat: int, kind: str, summary: str,
          unique_key: str | None) -> None:
    """Queue the webhook post of an email to ``seat`` (``summary``: its subject), if the
    seat has a webhook."""
    url = webhooks.url_of(db, match.id, seat)
    if url:
        outbox.queue(db, recipient=url, subject=summary,
                   body=webhooks.payload(match.id, kind, summary), game_id=match.id,
                   kind=kind, seat=seat, channel="webhook",
                   unique_key=unique_key and f"{unique_key}:webhook")


# -- what an email shows ---------------------------------------------------------------------

def legal_hint(match: Match, seat: int) -> str:
    """Words naming some of ``seat``'s legal moves ("" when it has none): all of them when
    few, else the board's own ``move_hint`` if it has one (examples chosen by kind), else
    their number and a sample spread over the list."""
    moves = match.game.legal_moves(match.current, seat)
    if not moves:
        return ""
    if len(moves) <= HINT_MOVES:
        return gettext("Your legal moves: %(moves)s.", moves=", ".join(moves))
    own = getattr(board_for(match.game.id), "move_hint", None)
    if own is not None:
        return own(match.game, match.current, seat, moves)
    sample = [moves[i * len(moves) // HINT_MOVES] for i in range(HINT_MOVES)]
    if match.game.lists_every_move:
        return gettext("You have %(count)s legal moves, for example: %(moves)s.",
                       count=len(moves), moves=", ".join(sample))
    return gettext("You have %(count)s or more legal moves, for example: %(moves)s.",
                   count=len(moves), moves=", ".join(sample))


@signals.games_created.connect
def games_created(db: sqlite_utils.Database, *, games: Sequence[Created], announce: bool) -> None:
    for game in games if announce else ():
        if not game.match.open_seats:  # else it starts when the last open seat is taken
            assert game.spectator_token is not None  # an announced game has its links
            game_started(db, game.match, game.spectator_token)


def game_started(db: sqlite_utils.Database, match: Match, spectator_token: str,
                 joined: Mapping[int, str] = {}) -> None:
    """The start emails; ``joined``: the seats to tell who took the last open seat (its
    creator's), with that player's name."""
    watch = links.email_url("play.page", role="watch", token=spectator_token)
    for seat, *also in invites.invite(db, match):  # one email to each address
        _send(db, match, seat, "started", also=also, watch=watch, joined=joined.get(seat))


def _withdraw_answered_offers(db: sqlite_utils.Database, before: Match, after: Match) -> None:
    """An offer answered (accepted, declined, moved past, or ended with the game) before
    its emails and notifications went out is not told any more."""
    if before.finished:
        return
    ended = after.finished
    if before.draw_offer is not None and (ended or after.draw_offer is None):
        outbox.withdraw(db, after.id, "draw_offer")
    if before.takeback_offer is not None and (ended or after.takeback_offer is None):
        outbox.withdraw(db, after.id, "takeback_offer")
    for proposer in before.resign_offers:
        if ended or proposer not in after.resign_offers:
            outbox.withdraw(db, after.id, "resign_offer", after.partners(proposer))


@signals.event_recorded.connect
def event_recorded(db: sqlite_utils.Database, *, before: Match, after: Match,
                   event: Event, latest: Match) -> None:
    _withdraw_answered_offers(db, before, after)
    if before.waiting:  # before the game starts, only its creator hears of each join
        if event.kind == "join":
            joiner = after.seats[event.seat].name
            assert joiner is not None  # the seat was just taken
            creators = [s.seat for s in before.seats if not s.open and before.hosts(s.seat)]
            if not after.open_seats:
                game_started(db, after, links.mint(db, after.id, None),
                             joined={seat: joiner for seat in creators})
            else:
                for seat in creators:
                    _send(db, after, seat, "joined", joiner=joiner,
                          side=after.seat_name(event.seat))
        return
    tells = event.meaning.tells
    if after.finished and not before.finished:
        for seat in range(after.players):
            _send(db, after, seat, "finished")
    elif event.kind == "move":
        now = utc.parse(event.created_at)
        for seat in after.current.to_move:
            # Tell a player when their turn begins, not again while it goes on (Magnet's
            # setup lets both move; the second setter was already told), nor when a
            # conditional reply of theirs ended it at once; their devices at once, but
            # by email not while they are there (the turn job emails them once they have
            # left: send_turn_emails).
            if (seat not in before.current.to_move or seat == event.seat) \
                    and latest.ply == after.ply:
                your_turn(db, after, seat, now, by_email=not present(db, after, seat, now))
    elif tells is not None:
        for seat in tells.to(before, after, event):
            if event.kind == "chat" and event.seat in blocks.hidden_seats(db, after.id, seat):
                continue  # they block its author, or muted them
            with languages.in_language(matches.language_of(db, after.id, seat)):
                fields = told(after, event, seat)  # its news in the seat's words
            _send(db, after, seat, tells.template or tells.email, kind=tells.email, **fields)


def told(match: Match, event: Event, seat: int) -> dict[str, Any]:
    """The fields of the email that tells ``seat`` of ``event`` (``events.Tells``): who
    made it, by name (``author``) and by side and name (``who``), a chat message's text,
    and what stands between the players now, as the seat reads it (``news``)."""
    return {"author": match.seats[event.seat].name, "who": compose.who(match, event.seat),
            "message": event.payload.text if isinstance(event.payload, events.Message)
            else None, "news": sentences.notices(match, seat)}


def your_turn(db: sqlite_utils.Database, match: Match, seat: int, now: datetime, *,
              by_email: bool = True, by_push: bool = True) -> None:
    """Queue the "Your move" email and push message of ``seat``'s turn (begun by a move),
    once per turn each."""
    began = match.turn_began(seat)
    assert began is not None  # a turn a move began (the start email tells of the first)
    clock = clocks.of_match(match, now)
    _send(db, match, seat, "your_turn", unique_key=f"turn:{match.id}:{seat}:{began.seq}",
          by_email=by_email, by_push=by_push,
          mover=match.seats[began.seat].name,
          last_move=match.game.public_move(began.seat, began.move, seat, match.current),
          clock=clock[seat] if clock else None)


def present(db: sqlite_utils.Database, match: Match, seat: int, now: datetime) -> datetime | None:
    """When ``seat``'s player was last there, if within ``AWAY_MINUTES`` of ``now``: their
    last own event (a move, a message, ...), or their game page open (``seen``), whichever
    is later; None if longer ago (they have left: a turn's email goes out), or always with
    ``AWAY_MINUTES`` 0."""
    away = timedelta(minutes=float(current_app.config["AWAY_MINUTES"]))
    if not away:
        return None
    acted = next((utc.parse(event.created_at) for event in reversed(match.events)
                  if event.seat == seat and not event.meaning.server), None)
    last = max(filter(None, (_seen_at(db, match.id, seat), acted)), default=None)
    return last if last is not None and last > now - away else None


SEEN_EVERY = timedelta(minutes=1)  # how often an open page's visits are written down


def seen(db: sqlite_utils.Database, game_id: str, seat: int, now: datetime) -> None:
    """Note that ``seat``'s game page is open (its player's page, or that page's live
    poll), for ``present``: written at most once per ``SEEN_EVERY``, since a page polls
    every few seconds."""
    last = _seen_at(db, game_id, seat)
    if last is None or last <= now - SEEN_EVERY:
        with write(db):
            db.execute("UPDATE seats SET seen_at = ? WHERE game_id = ? AND seat = ?",
                       [utc.iso(now), game_id, seat])


def _seen_at(db: sqlite_utils.Database, game_id: str, seat: int) -> datetime | None:
    row = db.execute("SELECT seen_at FROM seats WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    return utc.parse(row[0]) if row and row[0] else None


def deadline_warning(db: sqlite_utils.Database, match: Match, seat: int, clock,
                     now: datetime, *, by_push: bool = True) -> datetime | None:
    """Tell a player to move that their time runs out soon (``clock``: their
    ``clocks.SeatClock``; the clock job sends this once per turn). A seat that wants it
    both ways and has a device is told by push first: then the email waits, and this
    returns when it is due (``DEADLINE_EMAIL_HOURS`` later, or sooner for a short turn).
    ``by_push`` False: the email alone, which that time has come for."""
    with languages.in_language(matches.language_of(db, match.id, seat)):
        context = _deadline_context(match, seat, clock)
        wanted = channels.wanted(db, match.id, seat, "deadline")
        if by_push and wanted.push and wanted.email and push.queue(
                db, match, seat, "deadline", SUBJECTS["deadline"], context):
            return push.deadline_email_at(now, clock.deadline,
                                          float(current_app.config["DEADLINE_EMAIL_HOURS"]))
        _send(db, match, seat, "deadline", by_push=by_push, **context)
    return None


def _deadline_context(match: Match, seat: int, clock: clocks.SeatClock) -> dict[str, Any]:
    """What the "time running out" email and push message say, in the language in force."""
    return dict(deadline=clock.deadline_text, left=clock.left_text,
                on_timeout=match.clock.on_timeout if match.clock else None,
                team=len(match.game.team_of(match.players, seat)) > 1,
                vacation_left=clock.vacation_days_left, clock=clock)


def deadline_reminders(db: sqlite_utils.Database, game_id: str,
                       seat: int) -> tuple[int, ...] | None:
    """The hours before its deadline at which ``seat`` chose to be reminded (of
    ``clocks.DEADLINE_REMINDERS``), the most first; None: the one warning
    (``clocks.warning_at``)."""
    row = db.execute("SELECT deadline_reminders FROM seats WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    if row is None or row[0] is None:
        return None
    chosen = json.loads(row[0])
    return tuple(sorted((h for h in chosen if h in clocks.DEADLINE_REMINDERS), reverse=True))


def set_deadline_reminders(db: sqlite_utils.Database, game_id: str, seat: int,
                           hours: Sequence[int] | None) -> None:
    """Remind ``seat`` at ``hours`` before its deadline (of ``clocks.DEADLINE_REMINDERS``;
    none: never), or with the one warning (None). Its game's ``due`` rows are written
    again, so that the clock job looks at the turn under way from the first of them."""
    if hours is not None and not set(hours) <= set(clocks.DEADLINE_REMINDERS):
        raise ValueError(f"unknown reminder hours {hours!r}")
    db.execute("UPDATE seats SET deadline_reminders = ? WHERE game_id = ? AND seat = ?",
               [None if hours is None else json.dumps(sorted(set(hours), reverse=True)),
                game_id, seat])
    due.schedule(db, matches.load(db, game_id))


def _remind_before(db: sqlite_utils.Database, match: Match, seat: int,
                   clock: clocks.SeatClock, now: datetime, hours: Sequence[int]) -> bool:
    """The reminder of the seat's own choice that is due now, once per turn and
    threshold: of the thresholds passed in this turn, the nearest the deadline (a job that
    did not run for a while sends one reminder, not each it missed). Then the ``warning``
    row waits for the next threshold, or is done. Returns whether one was sent."""
    assert clock.deadline is not None and clock.turn_start is not None
    moments = {h: clock.deadline - timedelta(hours=h) for h in hours
               if clock.deadline - timedelta(hours=h) > clock.turn_start}
    passed = [h for h, at in moments.items() if at <= now]
    sent = bool(passed) and bool(db.execute(
        "INSERT INTO deadline_reminders_sent (game_id, seat, turn_seq, hours, created_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [match.id, seat, clock.turn_seq, min(passed), utc.iso(utc.now())]).rowcount)
    if sent:
        with languages.in_language(matches.language_of(db, match.id, seat)):
            _send(db, match, seat, "deadline", **_deadline_context(match, seat, clock))
    later = [at for at in moments.values() if at > now]
    if later:
        due.hold(db, match.id, seat, "warning", min(later))
    else:
        due.done(db, match.id, seat, "warning")
    return sent


def send_deadline_warnings(db: sqlite_utils.Database, now: datetime) -> int:
    """Warn each seat to move whose deadline is near, once per turn (the clock job's
    second half), found by their ``due`` rows: at the thresholds the seat chose
    (``_remind_before``), else once; ``clock_warnings`` remembers what was sent,
    and when the email of a warning pushed first follows (the row waits for it, and a
    move, which writes the game's rows anew, drops it). Returns how many."""
    warnings = 0
    for game_id, seat in due.found(db, "warning", now):
        with write(db):
            match = matches.load(db, game_id)
            clock = (clocks.of_match(match, now) or [None] * match.players)[seat]
            if clock is None or not clock.running or clock.expired:
                due.done(db, game_id, seat, "warning")  # too late: the timeout ends it
                continue
            chosen = deadline_reminders(db, game_id, seat)
            if chosen is not None:
                warnings += _remind_before(db, match, seat, clock, now, chosen)
                continue
            if not clocks.warning_due(clock, now):  # the row is there for the earliest
                due.hold(db, game_id, seat, "warning", clocks.warning_at(clock))
                continue
            inserted = db.execute(
                "INSERT INTO clock_warnings (game_id, seat, turn_seq, deadline, "
                "created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [game_id, seat, clock.turn_seq, utc.iso(clock.deadline),
                 utc.iso(utc.now())]).rowcount
            if inserted:
                email_at = deadline_warning(db, match, seat, clock, now)
                warnings += 1
            else:
                assert clock.turn_seq is not None  # a running clock's turn
                email_at = _deadline_email_at(db, game_id, seat, clock.turn_seq)
                if email_at is not None and email_at <= now:
                    deadline_warning(db, match, seat, clock, now, by_push=False)
                    email_at = None
            db.execute("UPDATE clock_warnings SET email_at = ? WHERE game_id = ? AND seat = ? "
                       "AND turn_seq = ?", [email_at and utc.iso(email_at), game_id, seat,
                                            clock.turn_seq])
            if email_at is not None:
                due.hold(db, game_id, seat, "warning", email_at)
                continue
            due.done(db, game_id, seat, "warning")
    return warnings


def _deadline_email_at(db: sqlite_utils.Database, game_id: str, seat: int,
                       turn_seq: int) -> datetime | None:
    row = db.execute("SELECT email_at FROM clock_warnings WHERE game_id = ? AND seat = ? "
                     "AND turn_seq = ?", [game_id, seat, turn_seq]).fetchone()
    return utc.parse(row[0]) if row and row[0] else None


def home_link(db: sqlite_utils.Database, email: str, token: str) -> None:
    """The "Your games" email, unless the address opted out of those."""
    if home_opted_out(db, email):
        return
    link = links.email_url("site.home", token=token)
    with languages.in_language(_address_language(db, email)):
        compose.to_address(db, email, gettext("Your games"),
                           render_template("email/home.txt", link=link), kind="home",
                           buttons={link: gettext("Open your games")}, primary=link)


def sign_in_link(db: sqlite_utils.Database, email: str, token: str) -> None:
    """The email that proves an address: its one-time sign-in link (``pbem/players.py``)."""
    with languages.in_language(_address_language(db, email)):
        body = render_template("email/sign_in.txt",
                               link=links.email_url("players.sign_in_page", token=token),
                               hours=players.SIGN_IN_VALID // timedelta(hours=1))
        outbox.queue(db, recipient=email, subject=pgettext("an email's subject", "Sign in"),
                     body=body, domain=current_app.config["MAIL_DOMAIN"], kind="sign_in")


def _address_language(db: sqlite_utils.Database, email: str) -> str:
    """The language of an email to an address, not to a seat: its player's, else the one
    of the page that asked for it."""
    player = players.by_email(db, email)
    return player.language if player is not None else languages.current()


# -- preferences, and the links that change them ---------------------------------------------

def preference(db: sqlite_utils.Database, game_id: str, seat: int) -> str:
    return _email_choice(db, game_id, seat)[0]


def _email_choice(db: sqlite_utils.Database, game_id: str, seat: int) -> tuple[str, bool]:
    """The seat's choice of emails, and whether its address's invitation was held back
    (``invites``: then it gets no email of the game), in the one query every email makes."""
    row = db.execute(
        "SELECT notify, EXISTS (SELECT 1 FROM invites WHERE invites.game_id = seats.game_id "
        "AND invites.seat = seats.seat AND invites.sent = 0 AND invites.answered = 0) "
        "AS held_back FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]).fetchone()
    if row is None:
        return "each", False
    return (row["notify"] if row["notify"] in PREFERENCES else "each"), bool(row["held_back"])


def set_preference(db: sqlite_utils.Database, game_id: str, seat: int, choice: str) -> None:
    if choice not in PREFERENCES:
        raise ValueError(f"unknown email choice {choice!r}")
    before = preference(db, game_id, seat)
    db.execute("UPDATE seats SET notify = ? WHERE game_id = ? AND seat = ?",
               [choice, game_id, seat])
    if "reminder" in HELD_BACK[before] and "reminder" not in HELD_BACK[choice]:
        # the reminder job dropped this turn's reminder while the choice held it back
        due.schedule(db, matches.load(db, game_id))


def home_opted_out(db: sqlite_utils.Database, email: str) -> bool:
    """Whether the mailbox of ``email`` wants no "Your games" emails, however it is spelt
    (``invites.address_key``)."""
    return db.execute("SELECT 1 FROM home_optouts WHERE address = ?",
                      [invites.address_key(email)]).fetchone() is not None


def set_home_opt_out(db: sqlite_utils.Database, email: str, out: bool) -> None:
    if out:
        db.execute("INSERT INTO home_optouts (address, created_at) VALUES (?, ?) "
                   "ON CONFLICT DO NOTHING", [invites.address_key(email), utc.iso(utc.now())])
    else:
        db.execute("DELETE FROM home_optouts WHERE address = ?", [invites.address_key(email)])


def unsubscribe(db: sqlite_utils.Database, link: dict[str, Any]) -> None:
    """What the one-click unsubscribe of an email's link does: a seat's link stops that
    seat's turn emails (choice none); a digest's stops every digest of the address (its
    seats that chose digest get none); a "Your games" email's stops those emails."""
    if link["purpose"] == "seat":
        set_preference(db, link["game_id"], link["seat"], "none")
    elif link["purpose"] == "digest":
        db.execute("UPDATE seats SET notify = 'none' WHERE lower(email) = lower(?) "
                   "AND notify IN ('digest', 'once')", [link["email"]])
    elif link["purpose"] == "home":
        set_home_opt_out(db, link["email"], True)


def unsubscribed(db: sqlite_utils.Database, link: dict[str, Any]) -> bool:
    """Whether what ``unsubscribe`` does for ``link`` holds already."""
    if link["purpose"] == "seat":
        return preference(db, link["game_id"], link["seat"]) == "none"
    if link["purpose"] == "digest":
        return not db.execute("SELECT 1 FROM seats WHERE lower(email) = lower(?) "
                              "AND notify IN ('digest', 'once')", [link["email"]]).fetchall()
    return home_opted_out(db, link["email"])


# -- the scheduler's jobs --------------------------------------------------------------------

def send_expiry_notices(db: sqlite_utils.Database, now: datetime) -> int:
    """Tell each player of a game that waited for players until its open seats expired
    (its ``expiry`` rows) that it will not start, once. Returns how many were told."""
    told = 0
    for game_id, seat in due.found(db, "expiry", now):
        with write(db):
            match = matches.load(db, game_id)
            if match.waiting and now >= match.expires_at:
                _send(db, match, seat, "expired", unique_key=f"expired:{game_id}:{seat}",
                      lobby=links.email_url("lobby.lobby"))
                told += 1
            due.done(db, game_id, seat, "expiry")
    return told


def send_reminders(db: sqlite_utils.Database, now: datetime, hours: float) -> int:
    """Queue one reminder to each seat (that chose an email at every turn) whose turn began
    more than ``hours`` before ``now`` and that has not been reminded of this turn (a
    player on vacation, see clocks.py, is reminded once it is over). The seats are found by
    their ``due`` rows (``at``: when the turn began); "reminded" is the outbox row whose
    unique_key names the game, the seat and the event that began the turn. Returns how
    many."""
    if not hours or float(hours) <= 0:
        return 0
    cutoff = now - timedelta(hours=float(hours))
    queued = 0
    for game_id, seat in due.found(db, "reminder", cutoff, now):
        with write(db):
            queued += _remind(db, matches.load(db, game_id), seat, now, cutoff)
    return queued


def _remind(db: sqlite_utils.Database, match: Match, seat: int, now: datetime,
            cutoff: datetime) -> bool:
    """Queue the reminder a ``due`` row asks for, if the log says it is due: ``seat`` to
    move since before ``cutoff``, not on vacation (then the row waits for its end), not yet
    reminded of this turn. The row is dropped once the turn needs none, also when the
    seat's choice holds reminders back (``set_preference`` writes it again)."""
    seat_clocks = clocks.of_match(match, now)
    back = seat_clocks[seat].vacation_until if seat_clocks else None
    if back is not None:
        due.hold(db, match.id, seat, "reminder", back)
        return False
    queued = False
    if seat in match.to_move:
        began = match.turn_began(seat)
        turn_began = began.created_at if began else match.started_at
        assert turn_began is not None  # a seat to move: the game has started
        since = utc.parse(turn_began)
        if since > cutoff:
            return False  # the row only says where to look: the log decides
        key = f"reminder:{match.id}:{seat}:{began.seq if began else 0}"
        with languages.in_language(matches.language_of(db, match.id, seat)):
            queued = not _queued(db, key) and _send(
                db, match, seat, "reminder", unique_key=key,
                since=languages.moment(since), waited=_duration(now - since),
                mover=match.seats[began.seat].name if began else None,
                last_move=match.game.public_move(began.seat, began.move, seat, match.current)
                if began else None) is not None
    due.done(db, match.id, seat, "reminder")
    return queued


def send_turn_emails(db: sqlite_utils.Database, now: datetime) -> int:
    """Queue the "Your move" email that a turn's start held back while its player was
    there, once they have been away ``AWAY_MINUTES``: to each seat still to move whose
    ``turn`` row (``at``: when the turn began) is that old and that was not yet told of
    this turn. Returns how many."""
    away = timedelta(minutes=float(current_app.config["AWAY_MINUTES"]))
    queued = 0
    for game_id, seat in due.found(db, "turn", now - away, now):
        with write(db):
            match = matches.load(db, game_id)
            if seat in match.to_move:
                last = present(db, match, seat, now)
                if last is not None:  # still there: look again once they may have left
                    due.hold(db, game_id, seat, "turn", last + away)
                    continue
                began = match.turn_began(seat)
                assert began is not None  # a ``turn`` row is a turn a move began (``due``)
                key = f"turn:{game_id}:{seat}:{began.seq}"
                if not _queued(db, key):
                    your_turn(db, match, seat, now, by_push=False)  # pushed when it began
                    queued += 1
            due.done(db, game_id, seat, "turn")
    return queued


def _queued(db: sqlite_utils.Database, unique_key: str) -> bool:
    return db.execute("SELECT 1 FROM outbox WHERE unique_key = ?",
                      [unique_key]).fetchone() is not None


def _duration(delta: timedelta) -> str:
    hours = int(delta.total_seconds() // 3600)
    if hours < 72:
        return ngettext("%(num)d hour", "%(num)d hours", hours)
    return ngettext("%(num)d day", "%(num)d days", hours // 24)


def send_digests(db: sqlite_utils.Database, now: datetime, hour: int) -> int:
    """From ``hour`` (UTC) on, once per day: queue to each address with seats that chose the
    digest one email listing its games that wait for it, each with a fresh link. The day
    counts as done once its row is in ``digest_days``, written in the same transaction as
    the emails, so neither a second run nor a restart sends the day's digests again.
    Returns how many were queued (0 before the hour and once the day is done)."""
    now = now.astimezone(timezone.utc)
    if now.hour < int(hour):
        return 0
    day = now.date().isoformat()
    with write(db):
        # a second job runner at the same time finds the day taken and does nothing
        if not db.execute("INSERT INTO digest_days (day, created_at) VALUES (?, ?) "
                          "ON CONFLICT DO NOTHING", [day, utc.iso(utc.now())]).rowcount:
            return 0
        rows = due.waiting_for_digests(db)
        by_address: dict[str, list[tuple[Match, int]]] = {}
        for row in rows:
            match = matches.load(db, row["game_id"])
            if not match.waits_for(row["seat"]):
                continue
            by_address.setdefault(row["email"].lower(), []).append((match, row["seat"]))
        db.conn.executemany(  # what "once until the next visit" counts from
            "UPDATE seats SET digested_at = ? WHERE game_id = ? AND seat = ?",
            [(utc.iso(now), match.id, seat) for seats in by_address.values()
             for match, seat in seats])
        for address, seats in by_address.items():
            recipient = next(r["email"] for r in rows if r["email"].lower() == address)
            first, first_seat = seats[0]  # the digest speaks the language of its first game
            with languages.in_language(matches.language_of(db, first.id, first_seat)):
                entries = [_digest_entry(db, match, seat) for match, seat in seats]
                shown_day = languages.day(now.date())
                compose.to_address(
                    db, recipient, ngettext("Your games: %(num)d waiting for you (%(day)s)",
                                            "Your games: %(num)d waiting for you (%(day)s)",
                                            len(entries), day=shown_day),
                    render_template("email/digest.txt", entries=entries, day=shown_day),
                    kind="digest",
                    buttons={e["link"]: gettext("Open %(game)s: %(players)s",
                                                game=languages.translated(e["match"].game.title),
                                                players=e["players"]) for e in entries},
                    unique_key=f"digest:{address}:{day}")
    return len(by_address)


def _digest_entry(db: sqlite_utils.Database, match: Match, seat: int) -> dict[str, Any]:
    last = match.moves[-1] if match.moves else None
    return {
        "match": match, "seat": seat, "side": match.seat_name(seat),
        "players": match.sides,
        "your_turn": seat in match.current.to_move,
        "notices": sentences.notices(match, seat),
        "last_move": None if last is None else (
            gettext("%(name)s played %(move)s", name=match.seats[last.seat].name,
                    move=match.game.public_move(last.seat, last.move, seat, match.current))),
        "link": compose.play_link(db, match.id, seat)[1],
    }


# -- moderation ------------------------------------------------------------------------------

def moderation_action(db: sqlite_utils.Database, player: players.Player, action: str,
                      note: str, appeal_token: str | None) -> None:
    """Tell ``player`` what a moderator did about them (``pbem/moderation.py``) and why,
    with the link to appeal it, and a reply address that appeals it too (``inbound``);
    nothing to a player with no address (a computer's)."""
    if not player.email:
        return
    with languages.in_language(player.language):
        body = render_template(
            "email/moderation.txt", action=action, note=note, handle=player.handle,
            appeal=appeal_token and links.email_url("moderation.appeal_page",
                                                    token=appeal_token))
        subject = gettext("A message from the site's moderators")
    reply_to = appeal_token and links.appeal_address(appeal_token)
    outbox.queue(db, recipient=player.email, subject=subject, body=body,
                 domain=current_app.config["MAIL_DOMAIN"], kind="moderation",
                 headers={"Reply-To": reply_to} if reply_to else None)


def report_handled(db: sqlite_utils.Database, recipient: str | None, language: str,
                   handle: str) -> None:
    """Tell whoever reported ``handle`` that the moderators handled their report (not how:
    that is between the moderators and the player)."""
    if not recipient:
        return
    with languages.in_language(language):
        body = render_template("email/report_handled.txt", handle=handle)
        subject = gettext("Your report was handled")
    outbox.queue(db, recipient=recipient, subject=subject, body=body,
                 domain=current_app.config["MAIL_DOMAIN"], kind="report_handled")
