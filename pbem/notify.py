"""What the server tells players by email, queued in the outbox in the caller's transaction.

Only hashes of secret links are stored, so an email cannot repeat a player's first link;
each email that needs one carries a freshly minted link to the same seat instead.
All emails of one game share a subject and a thread root (References), so mail clients
keep them in one thread.
"""
from __future__ import annotations

import sqlite_utils
from flask import current_app, render_template

from . import links, mail
from .matches import Event, Match


def thread_root(match: Match) -> str:
    return f"<game-{match.id}@{current_app.config['MAIL_DOMAIN']}>"


def subject(match: Match) -> str:
    names = " vs ".join(seat.name for seat in match.seats)
    return f"{match.game.title}: {names} [{match.id}]"


def _send(db: sqlite_utils.Database, match: Match, seat: int, template: str,
          **context: object) -> None:
    token = links.mint(db, match.id, seat)
    body = render_template(
        f"email/{template}.txt", match=match, seat=seat, name=match.seats[seat].name,
        link=links.external_url("play.page", role="play", token=token),
        rules=links.external_url("site.rules", game_id=match.game.id), **context)
    mail.queue(db, recipient=match.seats[seat].email, subject=subject(match), body=body,
               game_id=match.id, domain=current_app.config["MAIL_DOMAIN"],
               headers={"References": thread_root(match), "In-Reply-To": thread_root(match)})


def game_started(db: sqlite_utils.Database, match: Match, tokens: tuple[str, ...],
                 spectator_token: str) -> None:
    watch = links.external_url("play.page", role="watch", token=spectator_token)
    for seat in range(match.players):
        _send(db, match, seat, "started", watch=watch)


def event_recorded(db: sqlite_utils.Database, before: Match, after: Match,
                   event: Event) -> None:
    if after.finished:
        for seat in range(after.players):
            _send(db, after, seat, "finished")
    elif event.kind == "move":
        for seat in after.current.to_move:
            # Tell a player when their turn begins, not again while it goes on (Magnet's
            # setup lets both move; the second setter was already told).
            if seat not in before.current.to_move or seat == event.seat:
                shown = after.game.public_move(event.seat, event.move, seat, after.current)
                _send(db, after, seat, "your_turn", mover=after.seat_name(event.seat),
                      last_move=shown)
    elif event.kind == "draw_offer":
        for seat in range(after.players):
            if after.draw_offer_open_to(seat):
                _send(db, after, seat, "draw_offer", offerer=after.seat_name(event.seat))


def home_link(db: sqlite_utils.Database, email: str, token: str) -> None:
    body = render_template("email/home.txt", link=links.external_url("site.home", token=token))
    mail.queue(db, recipient=email, subject="Your games", body=body,
               domain=current_app.config["MAIL_DOMAIN"])
