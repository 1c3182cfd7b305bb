"""Atom feeds: a seat's own feed link (its own secret), the game's events as that seat may
know them, valid Atom that a feed reader can parse."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from helpers import api_move, path_of, session_of

# What is checked is what a feed says; the feed links' storage is the links' (test_security).
pytestmark = pytest.mark.one_database

ATOM = "{http://www.w3.org/2005/Atom}"


def test_a_feed_lists_the_games_events_newest_first(client, new_game):
    game = new_game("mastery")
    made = client.post(f"{game.apis[0]}/feed")
    assert made.status_code == 201
    feed = path_of(made.json["feed"])
    assert feed.startswith("/feed/")
    move = client.get(game.apis[0]).json["legal_moves"][0]
    api_move(client, game.apis[0], move)
    client.post(f"{game.apis[1]}/draw", json={"answer": "offer"})
    client.post(f"{game.apis[0]}/resign", json={})
    answer = client.get(feed)
    assert answer.status_code == 200 and answer.mimetype == "application/atom+xml"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert answer.headers["Cache-Control"] == "no-store"
    root = ET.fromstring(answer.data)
    titles = [e.findtext(f"{ATOM}title") for e in root.iter(f"{ATOM}entry")]
    assert titles[0].startswith("Game over: ")
    assert titles[1:] == ["Player 1 (Dark) resigned", "Player 2 (Light) offered a draw",
                          f"Player 1 (Dark) played {move}"]
    assert game.id in root.findtext(f"{ATOM}title")
    assert len({e.findtext(f"{ATOM}id") for e in root.iter(f"{ATOM}entry")}) == 4


def test_a_feed_link_opens_the_feed_and_nothing_else(client, new_game):
    game = new_game("mastery")
    feed = path_of(client.post(f"{game.apis[0]}/feed").json["feed"])
    token = feed.rsplit("/", 1)[1]
    assert client.get(f"/email/{token}").status_code == 404
    assert client.get(f"/play/{token}").status_code == 404
    assert client.get(f"/api/play/{token}").status_code == 404
    assert client.get("/feed/" + "A" * 32).status_code == 404
    assert client.post(f"{game.watch.replace('/watch/', '/api/watch/')}/feed").status_code in (404, 405)


def test_the_settings_page_makes_a_feed_link_shown_to_its_browser_alone(app, client, new_game):
    game = new_game("mastery")
    made = client.post(f"{game.urls[1]}/email", data={"feed": "new"})
    assert made.status_code == 303 and made.location.endswith("/email#feed")
    # the page the answer leads to shows it, and so does a reload (only its hash is stored:
    # the browser keeps it, sealed in its session)
    [url] = [line for line in client.get(made.location).text.split('"') if "/feed/" in line]
    assert url in client.get(f"{game.urls[1]}/email").text
    assert client.get(path_of(url)).status_code == 200
    assert url.rsplit("/", 1)[1] not in json.dumps(session_of(client))
    assert "/feed/" not in app.test_client().get(f"{game.urls[1]}/email").text


def test_feed_links_begin_with_public_url_whatever_the_request_came_by(app, client, new_game):
    """A feed reader keeps the link for good: like every link the server hands out it begins
    with PUBLIC_URL, not with the scheme and Host of the request (http behind a TLS proxy
    that does not say so, or another name the server answers to)."""
    app.config.update(PUBLIC_URL="https://games.example.org",
                      TRUSTED_HOSTS=["localhost", "evil.example"])
    game = new_game("mastery")
    forged = {"Host": "evil.example"}
    made = [client.post(f"{game.apis[0]}/feed", headers=forged).json["feed"]]
    page = client.post(f"{game.urls[1]}/email", data={"feed": "new"}, headers=forged,
                       follow_redirects=True).get_data(as_text=True)
    made += [line for line in page.split('"') if "/feed/" in line]
    assert len(made) == 2
    for url in made:
        assert url.startswith("https://games.example.org/feed/"), url
        root = ET.fromstring(client.get(path_of(url), headers=forged).data)
        assert root.find(f"{ATOM}link").get("href") == url


def test_an_emails_settings_link_makes_no_feed(app, client, new_game, db):
    """The settings link of an email (the List-Unsubscribe URL that mail providers read)
    opens the settings and never the game: not even as a feed, which would show the game as
    its seat knows it (in Magnet, the seat's own secret setup)."""
    game = new_game("magnet")
    body = db.execute("SELECT body FROM outbox WHERE recipient = 'p2@example.org'").fetchone()[0]
    settings = f"/email/{re.search(r'/email/([A-Za-z0-9_-]{32})', body).group(1)}"
    assert "Atom feed" not in client.get(settings).get_data(as_text=True)
    refused = client.post(settings, data={"feed": "new"})
    assert refused.status_code == 403 and "/feed/" not in refused.get_data(as_text=True)
    assert db.execute("SELECT COUNT(*) FROM email_links WHERE purpose = 'feed'").fetchone()[0] == 0
    # the settings themselves still work from it
    field = f"notify-{game.id}-1"
    assert client.post(settings, data={field: "digest"}).status_code == 303
