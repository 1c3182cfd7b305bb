"""What the server tells players by email, queued in the outbox in the caller's transaction.

Every email is made by ``compose`` (the board as the seat may know it, a fresh link, the
thread, the HTML part and the settings footer); each subject says first what happened
("Your move — Mastery: Ann vs Bob [id]"), so an inbox tells a turn from the end of the game.
The game's start, turns and end are told here; what else an event tells, and whom, its kind
says (``events.Kind.tells``).

Each email first asks the seat's choice of emails (``preferences``), which may hold it
back. The scheduler's jobs that email (reminders, digests, deadline warnings) are in
``reminders``; they send through ``send`` here.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

import sqlite_utils
from flask import current_app, render_template
from flask_babel import gettext, lazy_gettext, pgettext

from .. import blocks, clocks, events, invites, languages, links, matches, players, signals
from . import channels, compose, outbox, preferences, push, sentences, webhooks
from ..boards import board_for
from ..events import Event
from ..creation import Created
from ..matches import Match
from ..store import utc
from ..store.db import write

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


def send(db: sqlite_utils.Database, match: Match, seat: int, template: str,
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
    choice, held_back = preferences.email_choice(db, match.id, seat)
    if kind in preferences.HELD_BACK[choice]:
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
        send(db, match, seat, "started", also=also, watch=watch, joined=joined.get(seat))


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
                    send(db, after, seat, "joined", joiner=joiner,
                          side=after.seat_name(event.seat))
        return
    tells = event.meaning.tells
    if after.finished and not before.finished:
        for seat in range(after.players):
            send(db, after, seat, "finished")
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
            send(db, after, seat, tells.template or tells.email, kind=tells.email, **fields)


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
    send(db, match, seat, "your_turn", unique_key=f"turn:{match.id}:{seat}:{began.seq}",
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


def home_link(db: sqlite_utils.Database, email: str, token: str) -> None:
    """The "Your games" email, unless the address opted out of those."""
    if preferences.home_opted_out(db, email):
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
