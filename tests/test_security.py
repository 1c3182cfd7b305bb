"""Secret links: enough randomness, stored only as hashes, never cached, never referred,
never logged; and pages that escape what players type."""
from __future__ import annotations

import logging
import re
import urllib.request
from pathlib import Path

from pbem import links
from pbem.db import connect
from pbem.mail import FileTransport, deliver_due


def tokens_in(text: str) -> set[str]:
    return set(re.findall(r"/(?:play|watch|home)/([A-Za-z0-9_-]{32})", text))


def test_a_link_carries_at_least_128_random_bits():
    token = links.new_token()
    assert len(token) * 6 >= 128 and re.fullmatch(r"[A-Za-z0-9_-]+", token)
    assert len({links.new_token() for _ in range(1000)}) == 1000


def test_only_hashes_of_links_are_stored(app, client, new_game):
    game = new_game()
    client.post("/home", data={"email": "p1@example.org"})
    db = connect(app.config["DATABASE"])
    deliver_due(db, FileTransport(Path(app.config["MAIL_FOLDER"])), "games@localhost")
    secrets = {u.rsplit("/", 1)[1] for u in game.urls + [game.watch]}
    for path in Path(app.config["MAIL_FOLDER"]).glob("*.eml"):
        secrets |= tokens_in(path.read_text())
    assert len(secrets) >= 3 + 2 + 1  # API links, emailed links, the home link
    dump = "\n".join(connect(app.config["DATABASE"]).conn.iterdump())
    assert not any(secret in dump for secret in secrets)
    assert all(links.token_hash(s) in dump for s in secrets)


def test_secret_pages_send_no_referrer_and_are_not_cached(client, new_game):
    game = new_game()
    for path in [game.urls[0], f"{game.urls[0]}/history/0", f"{game.urls[0]}/record.json",
                 f"{game.urls[0]}/record.txt", game.watch, game.apis[0], "/", "/rules/mastery",
                 "/play/" + "Q" * 32]:
        response = client.get(path)
        assert response.headers["Referrer-Policy"] == "no-referrer", path
        assert response.headers["Cache-Control"] == "no-store", path
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    page = client.get(game.urls[0]).get_data(as_text=True)
    assert '<meta name="referrer" content="no-referrer">' in page


def test_no_secret_reaches_a_log_line(app, live_server, new_game, caplog):
    game = new_game()
    token = game.urls[0].rsplit("/", 1)[1]
    caplog.set_level(logging.INFO)
    with urllib.request.urlopen(f"{live_server}{game.urls[0]}?path=e3") as response:
        assert response.status == 200
    app.logger.error("Exception on %s [GET]", game.urls[0])  # how Flask reports errors
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/play/[secret]" in logged
    assert token not in logged


def test_what_players_type_is_escaped(client):
    body = {"game": "mastery", "players": [
        {"name": "<script>alert(1)</script>", "email": "a@example.org"},
        {"name": "Bob & \"Co\"", "email": "b@example.org"}]}
    url = client.post("/api/games", json=body).json["seats"][0]["url"]
    html = client.get(url.replace("http://localhost", "")).get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    error = client.post(url.replace("http://localhost", "") + "/move",
                        data={"move": "<img src=x onerror=alert(1)>", "ply": 0})
    assert "<img src=x" not in error.get_data(as_text=True)
