"""Email settings pages: a seat's choice of emails (every turn, a daily digest, or none),
an address's "Your games" emails, and the one-click unsubscribe of every email (RFC 8058).

The pages open with the secret of an email's settings link (``/email/<token>``, see
``compose.mint_email_link``), which opens nothing else and sets emails alone, or from the
play page with the seat's own play link (``/play/<token>/email``), which also sets the
seat's webhook (``webhooks``), makes feed links (``feeds``) and, in a game with vacation
days, lets the computer play the seat's moves during a vacation (``computer``), and
chooses which channel (push notifications, email, both, neither) tells it of what
(``channels``). Where email to the address bounces (``bounces``), both pages say so, with
a button to send it email again. A GET
never changes anything (mail scanners fetch links); a POST to an unsubscribe URL
unsubscribes with no further step, which is what mail providers do with the
``List-Unsubscribe-Post`` header.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from flask_babel import gettext

from .. import clocks, computer, languages, links, matches, players
from . import browser, feeds, limits
from ..mail import bounces, channels, compose, preferences, webhooks
from ..store.db import write
from .database import get_db

bp = Blueprint("preferences", __name__)

CHOICES = tuple(preferences.PREFERENCES.items())
# the form's fields that only a play link sets
SEAT_FIELDS = {"webhook", "feed", "stand-in"} | {f"channel-{topic}" for topic in channels.TOPICS}


def _email_link(token: str) -> dict[str, Any]:
    link = compose.resolve_email_link(get_db(), token)
    if link is None or link["purpose"] == feeds.PURPOSE:  # a feed link opens its feed alone
        abort(404, gettext("This link does not open any email settings. Check that you copied "
                           "all of it."))
    return link


def _entries(link: dict[str, Any]) -> list[dict[str, Any]]:
    """The seats a link's settings cover: its seat, or the address's seats in active games."""
    db = get_db()
    if link["purpose"] == "seat":
        rows = [{"game_id": link["game_id"], "seat": link["seat"]}]
    else:
        rows = list(db.query(
            "SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id "
            "WHERE lower(s.email) = lower(?) AND g.status = 'active' "
            "ORDER BY g.created_at, s.seat", [link["email"]]))
    entries = []
    for row in rows:
        match = matches.find(db, row["game_id"])
        if match is None:
            continue
        entries.append({"match": match, "seat": row["seat"],
                        "field": f"notify-{match.id}-{row['seat']}",
                        "choice": preferences.preference(db, match.id, row["seat"]),
                        # None: the one warning; a game without a clock has no deadline
                        "reminders": preferences.deadline_reminders(db, match.id, row["seat"]),
                        "clock": bool(match.clock) and not match.finished,
                        "language": matches.language_of(db, match.id, row["seat"]),
                        "players": match.sides})
    return entries


def _settings_page(link: dict[str, Any], here: str, game_page: str | None = None):
    entries = _entries(link)
    address = link["email"] if link["purpose"] != "seat" else None
    # What else a seat sets (its webhook, a credential; feed links; the computer standing
    # in) takes its play link: an email's settings link, which mail providers see in the
    # List-Unsubscribe header, sets emails alone.
    seat = (link["game_id"], link["seat"]) if game_page is not None else None
    if request.method == "POST" and seat is None and SEAT_FIELDS & request.form.keys():
        abort(403, gettext("An email's settings link sets your emails alone: the webhook, "
                           "feed links and the computer standing in are set on the "
                           "notification settings of the game's own page."))
    error = None
    email = address or (entries[0]["match"].seats[entries[0]["seat"]].email if entries else "")
    if request.method == "POST" and request.form.get("retry") in ("game", "settings"):
        # email to a mailbox that bounces: its owner asks to try again (limits.retrying)
        if email and bounces.enable(get_db(), email):
            flash(gettext("Emails go to %(email)s again. If they bounce again, this page "
                          "will say so.", email=email))
        back = game_page if request.form["retry"] == "game" and game_page else here
        return redirect(back, 303)
    feed_page = f"feed {seat[0]} {seat[1]}" if seat else ""  # its kept link's
    if request.method == "POST" and seat and request.form.get("feed") == "new":
        db = get_db()
        with write(db):  # only its hash is stored: this browser keeps it for the page
            browser.keep_links(feed_page, {"feed": feeds.mint(db, *seat)})
        return redirect(f"{here}#feed", 303)
    if request.method == "POST":
        db = get_db()
        try:
            with write(db):  # all or nothing: a bad webhook saves no other choice either
                if seat and "webhook" in request.form:
                    webhooks.set_url(db, *seat, request.form["webhook"])
                if seat:  # the channel of each topic: push, email, both or neither
                    channels.set_seat(db, *seat, _channels_chosen())
                if seat and "stand-in" in request.form:  # a hidden "off", then the box
                    computer.set_stand_in(db, *seat, "on" in request.form.getlist("stand-in"))
                for entry in entries:
                    choice = request.form.get(entry["field"])
                    if choice in preferences.PREFERENCES:
                        preferences.set_preference(db, entry["match"].id, entry["seat"], choice)
                    reminders = request.form.get(f"reminders-{entry['field']}")
                    if entry["clock"] and reminders in ("warning", "chosen"):
                        preferences.set_deadline_reminders(
                            db, entry["match"].id, entry["seat"], None if reminders == "warning"
                            else _hours(request.form.getlist(f"hours-{entry['field']}")))
                    language = languages.known(request.form.get(f"language-{entry['field']}"))
                    if language:
                        matches.set_language(db, entry["match"].id, entry["seat"], language)
                if address is not None and request.form.get("home") in ("on", "off"):
                    preferences.set_home_opt_out(db, address, request.form["home"] == "off")
        except webhooks.BadWebhook as bad:
            error = bad.text
        else:
            flash(gettext("Your settings are saved."))
            return redirect(here, 303)
    kept = browser.kept_links(feed_page) if seat else None
    feed = feeds.url(kept["feed"]) if kept else None
    # the computer may stand in for the seat only in a game with vacations (None: no choice)
    clock = entries[0]["match"].clock if seat and entries else None
    stand_in = computer.stands_in(get_db(), *seat) \
        if seat and clock and clock.vacation_days else None
    return render_template(
        "email_settings.html", entries=entries, choices=CHOICES, address=address, email=email,
        here=here, game_page=game_page, feed=feed, error=error, stand_in=stand_in,
        stand_in_level=computer.LEVEL_NAMES[computer.STAND_IN_LEVEL],
        webhook=webhooks.url_of(get_db(), *seat) if seat else None,
        topics=channels.TOPICS, channel_choices=channels.CHOICES,
        channels=channels.of_seat(get_db(), *seat) if seat else None,
        home_on=address is not None and not preferences.home_opted_out(get_db(), address),
        bouncing=bounces.status(get_db(), email), reminder_hours=clocks.DEADLINE_REMINDERS
    ), 400 if error else 200


@bp.route("/email/<token>", methods=["GET", "POST"])
@limits.acting
@limits.retrying
def settings(token: str):
    return _settings_page(_email_link(token), url_for(".settings", token=token))


@bp.route("/play/<token>/email", methods=["GET", "POST"])
@limits.acting  # a webhook is looked up in the DNS, a feed link made
@limits.retrying
def play_settings(token: str):
    """The same settings for the seat a play link opens, linked from the play page."""
    access = links.resolve(get_db(), token)
    if access is None or access.seat is None:
        abort(404, gettext("This link does not open any game. Check that you copied all of it."))
    link = {"purpose": "seat", "game_id": access.game_id, "seat": access.seat, "email": None}
    return _settings_page(link, url_for(".play_settings", token=token),
                          game_page=url_for("play.page", role="play", token=token))


def _hours(ticked: list[str]) -> list[int]:
    """The reminders' hours a form ticked, of those offered (others are left out)."""
    return [hours for hours in clocks.DEADLINE_REMINDERS if str(hours) in ticked]


def _channels_chosen() -> dict[str, str]:
    """The form's choice of channel for each topic it has."""
    return {topic: request.form[f"channel-{topic}"] for topic in channels.TOPICS
            if request.form.get(f"channel-{topic}") in channels.CHOICES}


@bp.route("/me/notifications", methods=["GET", "POST"])
def player_notifications():
    """A signed-in player's channels for every seat of theirs that did not choose its own,
    and the language of the emails to the player (not to a seat: sign-in links, "Your
    games", tournaments)."""
    db = get_db()
    player = browser.current_player(db)
    if player is None:
        abort(403, gettext("You are not signed in (or you signed out everywhere since)."))
    if request.method == "POST":
        with write(db):
            channels.set_player(db, player.id, _channels_chosen())
            if languages.known(request.form.get("language")):
                players.set_language(db, player, request.form["language"])
        flash(gettext("Your settings are saved."))
        return redirect(url_for(".player_notifications"), 303)
    return render_template("player_notifications.html", player=player,
                           topics=channels.TOPICS, channel_choices=channels.CHOICES,
                           channels=channels.of_player(db, player.id))


@bp.route("/email/<token>/unsubscribe", methods=["GET", "POST"])
def unsubscribe(token: str):
    """GET: what unsubscribing stops, and a button (or that it is stopped); POST (a mail
    provider's one-click ``List-Unsubscribe=One-Click``, answered 200 as providers expect,
    or the page's button, answered with the page again): unsubscribe at once."""
    link = _email_link(token)
    db = get_db()
    if request.method == "POST":
        with write(db):
            preferences.unsubscribe(db, link)
        if request.form.get("from") == "page":
            return redirect(url_for(".unsubscribe", token=token), 303)
    entries = _entries(link) if link["purpose"] == "seat" else []
    return render_template("unsubscribe.html", link=link, done=preferences.unsubscribed(db, link),
                           match=entries[0]["match"] if entries else None,
                           settings=url_for(".settings", token=token))
