"""Atom feeds: each seat may make a feed link (its own secret, like an email's settings
link: only its hash is kept, and it opens the feed and nothing else), which a feed reader
polls for the game's events as that seat may know them: the game record's events
(``gamerecord.record``), so a feed shows exactly what the seat's download shows."""
from __future__ import annotations

from datetime import datetime

from feedgen.feed import FeedGenerator
from flask import Blueprint, Response, abort, current_app
from flask_babel import gettext

from .. import events, languages, matches
from ..mail import compose
from ..store import utc
from .database import get_db
from .gamerecord import record
from .urls import external_url

bp = Blueprint("feeds", __name__)

PURPOSE = "feed"  # its email_links rows


def mint(db, game_id: str, seat: int) -> str:
    """A new feed link's secret for ``seat`` (in the caller's write transaction)."""
    return compose.mint_email_link(db, PURPOSE, game_id=game_id, seat=seat)


def url(token: str) -> str:
    """A feed link's address: PUBLIC_URL's (a feed reader keeps it), never the Host or
    scheme of the request that made it."""
    return external_url("feeds.feed", token=token)


@bp.get("/feed/<token>")
def feed(token: str):
    link = compose.resolve_email_link(get_db(), token)
    if link is None or link["purpose"] != PURPOSE:
        abort(404, gettext("This link does not open any feed. Check that you copied all of it."))
    match = matches.load(get_db(), link["game_id"])
    # the seat's feed is in the seat's language, as its emails are (a feed reader sends none)
    with languages.in_language(matches.language_of(get_db(), match.id, link["seat"])):
        return _atom(match, link["seat"], token)


def _atom(match: matches.Match, seat: int, token: str) -> Response:
    game = record(get_db(), match, seat)
    names = {p["seat"]: gettext("%(name)s (%(side)s)", name=p["name"],
                                side=languages.translated(p["side"])) for p in game["players"]}
    generator = FeedGenerator()
    generator.id(f"tag:{current_app.config['MAIL_DOMAIN']},2026:game/{match.id}/seat/{seat}")
    generator.title(compose.game_title(match))
    generator.author({"name": current_app.config["MAIL_FROM"].partition(" <")[0]})
    generator.link(href=url(token), rel="self")
    generator.updated(_when(game["events"][-1]["at"] if game["events"] else match.created_at))
    for event in game["events"]:
        template = events.KINDS[event["action"]].words.news
        if template is None:
            continue  # kinds a feed does not announce
        entry = generator.add_entry(order="prepend")  # newest first
        entry.id(f"tag:{current_app.config['MAIL_DOMAIN']},2026:game/{match.id}/event/"
                 f"{event['seq']}")
        title = template.format(name=names.get(event["seat"], gettext("The server")), **event)
        entry.title(title)
        entry.updated(_when(event["at"]))
        entry.content(title)
    if match.finished:
        entry = generator.add_entry(order="prepend")
        entry.id(f"tag:{current_app.config['MAIL_DOMAIN']},2026:game/{match.id}/result")
        over = gettext("Game over: %(result)s", result=languages.translated(match.result))
        entry.title(over)
        entry.updated(_when(game["events"][-1]["at"]))
        entry.content(over)
    return Response(generator.atom_str(pretty=True), mimetype="application/atom+xml")


def _when(text: str) -> datetime:
    return utc.parse(text)
