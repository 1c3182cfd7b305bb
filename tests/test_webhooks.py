"""Webhooks: a seat's news posted as JSON (Discord's ``content``, Slack's ``text``) through
the outbox, to a real HTTP server on loopback; and never to the server's own network."""
from __future__ import annotations

import json
import re
import threading
from types import SimpleNamespace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pbem.jobs import scheduler
from pbem.mail import webhooks
from pbem.store.db import connect

from helpers import api_move, path_of


class Receiver:
    """An HTTP server on loopback that keeps every POST, or answers ``status``."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict, dict]] = []
        self.status = 204
        self.location: str | None = None  # sent with the answer (a redirect's target)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append((self.path, dict(self.headers), json.loads(body)))
                self.send_response(receiver.status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/abc?wait=true"
        threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True).start()


@pytest.fixture
def receiver(app):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True  # the test's receiver is on loopback
    running = Receiver()
    yield running
    running.server.shutdown()


def outbox(app, channel: str) -> list[dict]:
    db = connect(app.config["DATABASE"])
    try:
        return [dict(r) for r in db.query("SELECT * FROM outbox WHERE channel = ? ORDER BY id",
                                          [channel])]
    finally:
        db.close()


@pytest.mark.one_database  # what a post says
def test_a_seats_webhook_is_told_what_its_emails_say(app, client, new_game, receiver):
    game = new_game("mastery")
    answer = client.put(f"{game.apis[1]}/webhook", json={"url": receiver.url})
    assert answer.status_code == 200 and answer.json == {"webhook": receiver.url}
    move = client.get(game.apis[0]).json["legal_moves"][0]
    api_move(client, game.apis[0], move)
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200
    assert scheduler.deliver_mail(app)[1] == 0
    kinds = [body["kind"] for _, _, body in receiver.posts]
    assert kinds == ["turn", "end"]  # what seat 1's emails said since it set the webhook
    path, headers, body = receiver.posts[0]
    assert path == "/hooks/abc?wait=true" and headers["Content-Type"] == "application/json"
    assert body["content"] == body["text"].replace("[", "\\[").replace("]", "\\]")
    assert game.id in body["content"] and game.id in body["text"]
    assert body["game"] == game.id
    for _, _, body in receiver.posts:  # no secret link reaches a chat channel
        assert "/play/" not in json.dumps(body) and "/api/" not in json.dumps(body)
    assert all(row["status"] == "sent" for row in outbox(app, "webhook"))
    assert not any(row["recipient"] == receiver.url for row in outbox(app, "email"))


@pytest.mark.one_database  # what a post says
def test_names_ping_nobody_and_hide_no_link_in_a_chat_channel(app, client, receiver):
    """A summary names the players, as they typed their names: in the receiving channel a
    name must not ping everyone (Discord's @everyone, Slack's <!channel>) nor become a link
    that hides where it goes (Discord's [text](url), Slack's <url|text>)."""
    name = "@everyone [Open](https://evil.example) <!channel>"
    game = client.post("/api/games", json={"game": "mastery", "players": [
        {"name": name, "email": "eve@example.org"},
        {"name": "Bob", "email": "bob@example.org"}]}).json
    apis = [path_of(seat["api"]) for seat in game["seats"]]
    client.put(f"{apis[1]}/webhook", json={"url": receiver.url})
    api_move(client, apis[0], client.get(apis[0]).json["legal_moves"][0])
    assert scheduler.deliver_mail(app)[1] == 0
    [(_, _, body)] = receiver.posts
    assert body["allowed_mentions"] == {"parse": []}  # Discord: mentions ping nobody
    assert "[Open](" not in body["content"] and " <" not in body["content"]
    assert "\\[Open\\]\\(https://evil.example\\) \\<!channel>" in body["content"]
    assert "<" not in body["text"] and "&lt;!channel&gt;" in body["text"]  # Slack's escapes


def test_a_failing_receiver_is_retried_through_the_outbox(app, client, new_game, receiver):
    game = new_game("mastery")
    client.put(f"{game.apis[1]}/webhook", json={"url": receiver.url})
    receiver.status = 500
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    scheduler.deliver_mail(app)
    [row] = outbox(app, "webhook")
    assert row["status"] == "pending" and row["attempts"] == 1
    assert "answered 500" in row["last_error"]
    assert len(receiver.posts) == 1


def test_a_redirect_is_a_failure_and_never_followed(app, client, new_game, receiver):
    """A public receiver cannot send the post on into the server's own network."""
    inside = Receiver()
    try:
        game = new_game("mastery")
        client.put(f"{game.apis[1]}/webhook", json={"url": receiver.url})
        receiver.status, receiver.location = 307, inside.url
        api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
        assert scheduler.deliver_mail(app)[1] == 1
        [row] = outbox(app, "webhook")
        assert "answered 307" in row["last_error"]
        assert len(receiver.posts) == 1 and inside.posts == []
    finally:
        inside.server.shutdown()


@pytest.mark.one_database  # an address refused before it is stored
@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/x", "http://[::1]/x",
    "http://169.254.169.254/latest/meta-data", "http://192.168.0.1/", "ftp://example.org/",
    "https://user:pw@example.org/", "javascript:alert(1)", "http://example.org:99999/",
    "https://exa mple.org/", "x" * 600, 42, ["http://example.org"],
    # loopback and private addresses written otherwise: decimal, hexadecimal, short, and
    # inside IPv6 addresses that lead to them (mapped, compatible, NAT64, 6to4)
    "http://2130706433/", "http://0x7f000001/", "http://127.1/", "http://0/",
    "http://[::ffff:127.0.0.1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::7f00:1]/",
    "http://[64:ff9b::a9fe:a9fe]/latest", "http://[64:ff9b:1::a00:1]/",
    "http://[2002:7f00:1::]/", "http://[2002:c0a8:1::1]/", "http://224.0.0.1/",
    "http://[ff02::1]/", "http://[::1", "https://[", "http://a]/"])
def test_urls_into_the_servers_own_network_or_malformed_are_refused(client, new_game, url):
    game = new_game("mastery")
    answer = client.put(f"{game.apis[0]}/webhook", json={"url": url})
    assert answer.status_code == 400 and answer.json["error"]
    assert webhooks.url_of(connect(client.application.config["DATABASE"]), game.id, 0) is None
    assert client.put(f"{game.apis[0]}/webhook", json={"url": None}).json == {"webhook": None}


@pytest.mark.one_database  # how an address is read
@pytest.mark.parametrize("url", ["https://93.184.216.34/hook", "https://[2606:4700::1]/hook",
                                 "https://[64:ff9b::5db8:d822]/hook",  # NAT64 of a public one
                                 "https://[2002:5db8:d822::1]/hook"])
def test_public_addresses_are_taken_however_they_are_written(client, new_game, url):
    game = new_game("mastery")
    answer = client.put(f"{game.apis[0]}/webhook", json={"url": url})
    assert answer.status_code == 200 and answer.json == {"webhook": url}


def test_a_webhook_that_turned_private_is_never_posted_to():
    """The address is checked again when posting (the name may resolve elsewhere now)."""
    with pytest.raises(webhooks.BadWebhook):
        webhooks.send(webhooks.Post("http://localhost:9/x", b"{}", {}))


def test_the_settings_page_sets_it_all_or_nothing(client, new_game, receiver, db):
    game = new_game("mastery")
    settings = f"{game.urls[0]}/email"
    page = client.get(settings).get_data(as_text=True)
    assert 'name="webhook"' in page and "Atom feed" in page
    field = f"notify-{game.id}-0"
    assert client.post(settings, data={"webhook": receiver.url, field: "digest"}).status_code == 303
    assert webhooks.url_of(db, game.id, 0) == receiver.url
    receiver_url = receiver.url
    app = client.application
    app.config["WEBHOOK_ALLOW_PRIVATE"] = False
    refused = client.post(settings, data={"webhook": "http://127.0.0.1/", field: "none"})
    assert refused.status_code == 400
    assert "public internet addresses" in refused.get_data(as_text=True)
    assert webhooks.url_of(db, game.id, 0) == receiver_url
    assert db.execute("SELECT notify FROM seats WHERE game_id = ? AND seat = 0",
                      [game.id]).fetchone()[0] == "digest"  # nothing else changed either


def test_an_emails_settings_link_neither_shows_nor_changes_the_webhook(client, receiver, db):
    """Mail providers see that link (List-Unsubscribe): it sets emails alone."""
    created = client.post("/api/games", json={
        "game": "mastery", "clock": {"mode": "per_move", "days": 3, "vacation_days": 10},
        "players": [{"name": "Ann", "email": "p1@example.org"},
                    {"name": "Bob", "email": "p2@example.org"}]}).json
    game = SimpleNamespace(id=created["id"], urls=[path_of(created["seats"][0]["url"])],
                           apis=[path_of(created["seats"][0]["api"])])
    assert client.put(f"{game.apis[0]}/webhook", json={"url": receiver.url}).status_code == 200
    assert "stand-in" in client.get(f"{game.urls[0]}/email").get_data(as_text=True)
    body = db.execute("SELECT body FROM outbox WHERE recipient = ?",
                      ["p1@example.org"]).fetchone()[0]
    settings = re.search(r"/email/[A-Za-z0-9_-]{32}(?=\s)", body).group()
    page = client.get(settings).get_data(as_text=True)
    assert receiver.url not in page and "webhook" not in page.lower()
    assert "stand-in" not in page and "Atom feed" not in page
    assert "Email settings" in page and f'name="notify-{game.id}-0"' in page
    field = f"notify-{game.id}-0"
    for extra in ({"webhook": ""}, {"webhook": "https://93.184.216.34/hook"},
                  {"stand-in": ["off", "on"]}, {"feed": "new"}):
        refused = client.post(settings, data={field: "digest", **extra})
        assert refused.status_code == 403, extra
        assert "the game&#39;s own page" in refused.get_data(as_text=True)
    assert webhooks.url_of(db, game.id, 0) == receiver.url
    assert db.execute("SELECT notify FROM seats WHERE game_id = ? AND seat = 0",
                      [game.id]).fetchone()[0] == "each"  # nothing changed
    assert client.post(settings, data={field: "digest"}).status_code == 303  # emails it sets
    assert db.execute("SELECT notify FROM seats WHERE game_id = ? AND seat = 0",
                      [game.id]).fetchone()[0] == "digest"
    # the play link's settings (linked from the play page) still show and set it
    here = f"{game.urls[0]}/email"
    assert receiver.url in client.get(here).get_data(as_text=True)
    assert client.post(here, data={"webhook": ""}).status_code == 303
    assert webhooks.url_of(db, game.id, 0) is None
