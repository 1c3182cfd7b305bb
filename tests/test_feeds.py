"""Atom feeds: a seat's own feed link (its own secret), the game's events as that seat may
know them, valid Atom that a feed reader can parse."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from conftest import api_move, path_of

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


def test_the_settings_page_makes_a_feed_link_shown_once(client, new_game):
    game = new_game("mastery")
    page = client.post(f"{game.urls[1]}/email", data={"feed": "new"}).get_data(as_text=True)
    [url] = [line for line in page.split('"') if "/feed/" in line]
    assert client.get(path_of(url)).status_code == 200
    assert "/feed/" not in client.get(f"{game.urls[1]}/email").get_data(as_text=True)
