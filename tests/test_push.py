"""Web Push (``pbem/mail/push.py``): subscriptions per seat, and messages delivered through
the outbox to a real push service on loopback that checks each message as a push service
and a browser would: the VAPID signature (RFC 8292) and the RFC 8291 decryption, written
here with ``cryptography`` alone, with the private key of a subscription made here as a
browser makes it."""
from __future__ import annotations

import base64
import json
import os
import stat
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import flask
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem import create_app, players
from pbem.jobs import scheduler
from pbem.mail import channels, push
from pbem.web import browser
from pbem.web.database import get_db

from helpers import api_move, normalised, path_of
from test_clocks import outbox
from test_magnet_pages import BLUE, BLUE_A, BLUE_B, RED, RED_SETUP, VALUES_SCRIPT
from test_magnetic_field_pages import BLUE_FIRST, _seed_pair

DAY, HOUR = timedelta(days=1), timedelta(hours=1)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Device:
    """A browser's push subscription: its key pair and authentication secret (RFC 8291)."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)
        self.subscription = {"endpoint": endpoint,
                             "keys": {"p256dh": b64(self.public), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 section 3 and RFC 8188, one record: what a browser does."""
        salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender = body[21:21 + id_length]
        assert id_length == 65 and record_size >= len(body) - 21 - id_length
        secret = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), sender))
        ikm = HKDF(hashes.SHA256(), 32, salt=self.auth,
                   info=b"WebPush: info\0" + self.public + sender).derive(secret)

        def derive(info: bytes, length: int) -> bytes:
            return HKDF(hashes.SHA256(), length, salt=salt, info=info).derive(ikm)

        plain = AESGCM(derive(b"Content-Encoding: aes128gcm\0", 16)).decrypt(
            derive(b"Content-Encoding: nonce\0", 12), body[21 + id_length:], None)
        plain = plain.rstrip(b"\0")
        assert plain.endswith(b"\x02")  # the last record's delimiter
        return plain[:-1]


class PushService:
    """A push service on loopback: it keeps each message to a device it knows, after
    checking its VAPID token against ``public_key`` and decrypting it; answers ``status``
    (a 404 or 410: the subscription has ended)."""

    def __init__(self, public_key: str):
        self.public_key = public_key
        self.devices: dict[str, Device] = {}
        self.received: list[dict] = []  # {"path", "headers", "payload"}
        self.status = 201
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                try:
                    service.check_vapid(self.headers["Authorization"])
                    device = service.devices[self.path]
                    assert self.headers["Content-Encoding"] == "aes128gcm"
                    payload = json.loads(device.decrypt(body))
                except Exception as error:  # noqa: BLE001 - the test sees what failed
                    service.received.append({"path": self.path, "error": repr(error)})
                    self.send_response(400)
                else:
                    service.received.append({"path": self.path, "headers": dict(self.headers),
                                             "payload": payload, "size": len(body)})
                    self.send_response(service.status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, args=(0.01,), daemon=True).start()

    def device(self, name: str) -> Device:
        device = Device(f"{self.origin}/push/{name}")
        self.devices[f"/push/{name}"] = device
        return device

    def check_vapid(self, authorization: str) -> None:
        """RFC 8292: ``vapid t=<JWT>, k=<key>``, the JWT signed (ES256) by that key, for
        this service's origin, expiring within 24 hours."""
        scheme, _, params = authorization.partition(" ")
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        assert scheme == "vapid" and fields["k"] == self.public_key
        header, claims, signature = fields["t"].split(".")
        assert json.loads(unb64(header)) == {"typ": "JWT", "alg": "ES256"}
        raw = unb64(signature)
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(fields["k"]))
        key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                        int.from_bytes(raw[32:], "big")),
                   f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        claims = json.loads(unb64(claims))
        assert claims["aud"] == self.origin
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600
        assert claims["sub"].startswith("mailto:")

    def payloads(self, name: str) -> list[dict]:
        return [m["payload"] for m in self.received if m["path"] == f"/push/{name}"]


@pytest.fixture
def service(app, client):
    app.config["PUSH_ALLOW_PRIVATE"] = True  # the service is on loopback, over http
    running = PushService(client.get("/api/push").json["public_key"])
    yield running
    running.server.shutdown()


def deliver(app) -> tuple[int, int]:
    return scheduler.deliver_mail(app)


def subscribe(client, api: str, device: Device) -> None:
    answer = client.put(f"{api}/push", json=device.subscription)
    assert answer.status_code == 201, answer.json


# -- the key and the subscriptions -------------------------------------------------------

def test_the_vapid_key_is_made_once_into_the_instance_readable_by_its_owner_alone(app, client):
    key = client.get("/api/push").json["public_key"]
    point = unb64(key)
    assert len(point) == 65 and point[0] == 4  # an uncompressed P-256 point
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    path = Path(app.instance_path) / "vapid_private_key.pem"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = create_app({"DATABASE": app.config["DATABASE"], "SECRET_KEY": "x"})
    assert again.test_client().get("/api/push").json["public_key"] == key


def test_a_seat_subscribes_a_device_once_and_unsubscribes_it(app, client, new_game, db):
    game = new_game()
    device = Device("https://push.example.net/send/abc")
    app.config["PUSH_ALLOW_PRIVATE"] = True  # push.example.net is not looked up in the DNS
    for _ in range(2):  # one subscription per device
        subscribe(client, game.apis[1], device)
    assert [tuple(r) for r in db.execute("SELECT game_id, seat, endpoint FROM "
                                         "push_subscriptions").fetchall()] == \
        [(game.id, 1, device.endpoint)]
    spectator = game.watch.replace("/watch/", "/api/watch/")
    assert client.put(f"{spectator}/push", json=device.subscription).status_code in (404, 405)
    for _ in range(2):  # the second time: not subscribed, as asked
        assert client.delete(f"{game.apis[1]}/push",
                             json={"endpoint": device.endpoint}).status_code == 200
    assert db.execute("SELECT count(*) FROM push_subscriptions").fetchone()[0] == 0


def test_a_seat_and_a_player_each_tell_ten_devices_at_most(app, client, new_game, db):
    """One chat message makes a post to each device: a seat (300 devices were taken on one)
    and a player tell at most MOST_DEVICES; the next is refused until one is switched off."""
    app.config["PUSH_ALLOW_PRIVATE"] = True  # push.example.net is not looked up in the DNS
    _player, key = a_player(app)
    for owner in (new_game().apis[1], key):
        devices = [Device(f"https://push.example.net/send/{n}")
                   for n in range(push.MOST_DEVICES + 1)]
        for device in devices[:-1]:
            subscribe(client, owner, device)
        refused = client.put(f"{owner}/push", json=devices[-1].subscription)
        assert refused.status_code == 409, refused.json
        assert refused.json["error"] == ("Notifications already go to 10 devices, the most "
                                         "there can be: switch them off on one of those first.")
        russian = client.put(f"{owner}/push", json=devices[-1].subscription,
                             headers={"Accept-Language": "ru"})
        assert russian.status_code == 409 and "устройств (10)" in russian.json["error"]
        subscribe(client, owner, devices[0])  # a device already told, again: its new keys
        assert client.delete(f"{owner}/push",
                             json={"endpoint": devices[1].endpoint}).status_code == 200
        subscribe(client, owner, devices[-1])
    assert db.execute("SELECT count(*) FROM push_subscriptions").fetchone()[0] == \
        2 * push.MOST_DEVICES


@pytest.mark.one_database  # a subscription refused before it is stored
@pytest.mark.parametrize("subscription, why", [
    ({"endpoint": "http://push.example.net/x"}, "keys"),
    ({"endpoint": "http://93.184.216.34/x", "keys": {}}, "keys"),
    ({"endpoint": "http://93.184.216.34/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
     "https"),
    ({"endpoint": "https://127.0.0.1/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
     "public"),
    ({"endpoint": "https://10.1.2.3/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}, "public"),
    ({"endpoint": "https://93.184.216.34/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
     "P-256"),
])
def test_endpoints_must_be_public_https_urls_and_keys_well_formed(client, new_game,
                                                                  subscription, why):
    answer = client.put(f"{new_game().apis[0]}/push", json=subscription)
    assert answer.status_code == 400 and why in answer.json["error"]


# -- the messages --------------------------------------------------------------------------

def test_turn_offer_and_end_are_pushed_signed_and_encrypted(app, client, new_game, service):
    game = new_game("mastery")
    subscribe(client, game.apis[1], service.device("light"))
    move = client.get(game.apis[0]).json["legal_moves"][0]
    api_move(client, game.apis[0], move)
    assert deliver(app)[1] == 0
    [turn] = service.received
    assert turn["headers"]["Urgency"] == "normal" and int(turn["headers"]["TTL"]) > 0
    assert len(turn["headers"]["Topic"]) <= 32
    assert turn["payload"]["title"] == "Your move — Mastery"
    assert turn["payload"]["body"] == f"Player 1 vs Player 2 [{game.id}]. Player 1 played {move}."
    assert turn["payload"]["tag"] == f"pbem-{game.id}-1"
    # the link is the seat's own, a fresh one (only its hash is stored)
    url = turn["payload"]["url"]
    assert url.startswith("http://localhost/play/") and path_of(url) != game.urls[1]
    assert client.get("/api" + path_of(url)).json["seat"] == 1
    # the stored copy loses the secret once delivered
    [row] = outbox(app, "WHERE channel = 'push'")
    assert row["status"] == "sent" and path_of(url)[6:] not in row["body"]

    move = client.get(game.apis[1]).json["legal_moves"][0]
    api_move(client, game.apis[1], move)  # Dark's turn: Dark has no device
    assert client.post(f"{game.apis[0]}/draw", json={"answer": "offer"}).status_code == 200
    deliver(app)  # (before the game ends, which would take back the offer's message unsent)
    assert client.post(f"{game.apis[0]}/resign", json={}).status_code == 200
    deliver(app)
    assert [p["title"] for p in service.payloads("light")] == [
        "Your move — Mastery", "Draw offered — Mastery", "Game over — Mastery"]
    assert service.payloads("light")[1]["body"].endswith("Player 1 offers a draw.")
    assert "resign" in service.payloads("light")[2]["body"]
    assert all(m["payload"]["tag"] == f"pbem-{game.id}-1" for m in service.received)
    # every one of them went to push and by email: both is the default
    emails = outbox(app, "WHERE channel = 'email' AND seat = 1 AND kind != 'start'")
    assert [e["kind"] for e in emails] == ["turn", "draw_offer", "end"]


def test_a_turn_is_pushed_at_once_while_its_email_waits_for_the_player_to_leave(
        app, client, new_game, service):
    app.config["AWAY_MINUTES"] = 5
    game = new_game("mastery")
    subscribe(client, game.apis[1], service.device("light"))
    client.post(f"{game.apis[1]}/chat", json={"text": "Ready"})  # Light is there
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    deliver(app)
    assert [p["title"] for p in service.payloads("light")] == ["Your move — Mastery"]
    assert outbox(app, "WHERE kind = 'turn' AND channel = 'email'") == []
    later = datetime.now(timezone.utc) + timedelta(minutes=6)
    assert scheduler.send_turn_emails(app, later) == 1
    deliver(app)
    assert len(outbox(app, "WHERE kind = 'turn' AND channel = 'email'")) == 1
    assert len(service.payloads("light")) == 1  # not pushed again


@pytest.mark.parametrize("status", [404, 410])
def test_a_push_service_that_ended_the_subscription_gets_no_more(app, client, new_game,
                                                                 service, db, status):
    game = new_game("mastery")
    subscribe(client, game.apis[1], service.device("gone"))
    subscribe(client, game.apis[0], service.device("gone"))  # the same device, both seats
    deliver(app)  # the start emails
    service.status = status
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    assert deliver(app) == (1, 1)  # the turn's email, and its push
    [row] = outbox(app, "WHERE channel = 'push'")
    assert row["status"] == "failed" and str(status) in row["last_error"]  # not retried
    assert db.execute("SELECT count(*) FROM push_subscriptions").fetchone()[0] == 0
    api_move(client, game.apis[1], client.get(game.apis[1]).json["legal_moves"][0])
    assert deliver(app) == (1, 0)  # Dark's turn email alone
    assert len(service.received) == 1


@pytest.mark.one_database  # what a push says
def test_a_payload_is_3000_bytes_at_most(app, client, new_game, service):
    game = new_game("mastery", names=["Ann" * 20, "Bob"])
    subscribe(client, game.apis[1], service.device("bob"))
    text = "Zug ♞ 棋 " * 250  # 2,000 characters, many of them of 3 bytes in UTF-8
    assert client.post(f"{game.apis[0]}/chat", json={"text": text[:2000]}).status_code == 201
    deliver(app)
    [message] = service.received
    assert len(json.dumps(message["payload"], ensure_ascii=False).encode()) <= 3000
    assert message["payload"]["body"].endswith("…") and "Zug ♞ 棋" in message["payload"]["body"]
    assert message["payload"]["title"] == "New message — Mastery"


def test_each_topic_goes_by_the_channel_the_seat_chose(app, client, new_game, service):
    game = new_game("mastery")
    subscribe(client, game.apis[1], service.device("light"))
    settings = game.urls[1] + "/email"
    answer = client.post(settings, data={"notify-" + game.id + "-1": "each",
                                         "channel-turn": "push", "channel-chat": "email",
                                         "channel-end": "none"})
    assert answer.status_code == 303
    page = client.get(settings).get_data(as_text=True)
    assert '<option value="push" selected>' in page and '<option value="none" selected>' in page
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    client.post(f"{game.apis[0]}/chat", json={"text": "Hello"})
    client.post(f"{game.apis[0]}/resign", json={})
    deliver(app)
    assert [p["title"] for p in service.payloads("light")] == ["Your move — Mastery"]
    emails = outbox(app, "WHERE channel = 'email' AND seat = 1 AND kind != 'start'")
    assert [e["kind"] for e in emails] == ["chat"]


def test_a_deadline_warning_goes_to_push_first_and_by_email_hours_later(app, client, service):
    created = client.post("/api/games", json={
        "game": "mastery", "clock": {"mode": "per_move", "days": 3},
        "players": [{"name": "Ann", "email": "ann@example.org"},
                    {"name": "Bob", "email": "bob@example.org"}]}).json
    dark, light = (path_of(s["api"]) for s in created["seats"])
    subscribe(client, dark, service.device("ann"))
    start = datetime.now(timezone.utc)
    warnings = "WHERE kind = 'deadline' AND channel = ?"
    assert scheduler.check_clocks(app, start + 2 * DAY + 6 * HOUR) == (0, 1)
    assert len(outbox(app, warnings, ["push"])) == 1 and outbox(app, warnings, ["email"]) == []
    assert scheduler.check_clocks(app, start + 2 * DAY + 8 * HOUR) == (0, 0)
    assert outbox(app, warnings, ["email"]) == []  # not yet
    client.post(f"{light}/chat", json={"text": "Still there?"})  # rewrites the game's rows
    assert scheduler.check_clocks(app, start + 2 * DAY + 8 * HOUR) == (0, 0)
    assert outbox(app, warnings, ["email"]) == []
    assert scheduler.check_clocks(app, start + 2 * DAY + 10 * HOUR) == (0, 0)
    [email] = outbox(app, warnings, ["email"])
    assert email["recipient"] == "ann@example.org" and "is running out" in email["body"]
    assert scheduler.check_clocks(app, start + 2 * DAY + 12 * HOUR) == (0, 0)
    assert len(outbox(app, "WHERE kind = 'deadline'")) == 2  # once each way
    deliver(app)
    [pushed] = [m for m in service.received if m["payload"]["title"].startswith("Time")]
    assert pushed["headers"]["Urgency"] == "high"
    assert "left to move" in pushed["payload"]["body"]


def test_a_deadline_warnings_email_waits_for_no_one_who_has_moved(app, client, service):
    created = client.post("/api/games", json={
        "game": "mastery", "clock": {"mode": "per_move", "days": 3},
        "players": [{"name": "Ann", "email": "ann@example.org"},
                    {"name": "Bob", "email": "bob@example.org"}]}).json
    dark = path_of(created["seats"][0]["api"])
    subscribe(client, dark, service.device("ann"))
    start = datetime.now(timezone.utc)
    assert scheduler.check_clocks(app, start + 2 * DAY + 6 * HOUR) == (0, 1)
    api_move(client, dark, client.get(dark).json["legal_moves"][0])
    scheduler.check_clocks(app, start + 2 * DAY + 10 * HOUR)
    assert outbox(app, "WHERE kind = 'deadline' AND channel = 'email' AND recipient = ?",
                  ["ann@example.org"]) == []


# -- hidden information ------------------------------------------------------------------
# What is compared is what a device receives (rendering, not storage): one engine. Both
# seats choose notifications only, so that no game email (whose board picture costs more
# than the rest) is built for nothing: what is pushed is the same either way.

def notifications_only(client, game) -> None:
    for url in game.urls:
        answer = client.post(f"{url}/email", data={f"channel-{topic}": "push"
                                                   for topic in channels.TOPICS})
        assert answer.status_code == 303


def pushed_to(app, service: PushService, name: str, game) -> list[str]:
    """The payloads and headers a device received in ``game``, normalised."""
    deliver(app)
    return [normalised(json.dumps([m["payload"], m["headers"]["Urgency"],
                                   m["headers"]["TTL"]], ensure_ascii=False), game)
            for m in service.received if m["path"] == f"/push/{name}"]


@pytest.mark.one_database
def test_magnet_blue_cannot_tell_reds_values_from_its_notifications(app, client, seeded_game,
                                                                    service):
    """Two Magnet games differ only in Red's hidden values (the script of
    test_magnet_pages): what Blue's device receives is the same in both."""
    games = seeded_game("magnet", "values"), seeded_game("magnet", "values")
    for game, name in zip(games, ("a", "b")):
        subscribe(client, game.apis[BLUE], service.device(name))
        notifications_only(client, game)
    for seat, moves in VALUES_SCRIPT:
        for game, move in zip(games, moves):
            api_move(client, game.apis[seat], move)
    pushed = [pushed_to(app, service, name, game) for game, name in zip(games, ("a", "b"))]
    assert len(pushed[0]) >= 8 and pushed[0] == pushed[1]
    assert "three times" in pushed[0][-1]  # the end, public to all, says why


@pytest.mark.one_database
def test_magnet_red_cannot_tell_blues_arrangement_from_its_notifications(
        app, client, seeded_game, service):
    """Two Magnet games differ only in Blue's secret arrangement: Red's device is told of
    Blue's setup, and of Blue's messages, alike in both."""
    games = seeded_game("magnet", "talk"), seeded_game("magnet", "talk")
    for game, name, setup in zip(games, ("a", "b"), (BLUE_A, BLUE_B)):
        subscribe(client, game.apis[RED], service.device(name))
        notifications_only(client, game)
        api_move(client, game.apis[BLUE], setup)
        client.post(f"{game.apis[BLUE]}/chat", json={"text": "Ready when you are."})
        api_move(client, game.apis[RED], RED_SETUP)
        client.post(f"{game.apis[BLUE]}/chat", json={"text": "Not telling."})
    pushed = [pushed_to(app, service, name, game) for game, name in zip(games, ("a", "b"))]
    assert len(pushed[0]) == 3 and pushed[0] == pushed[1]  # two messages, a turn
    assert "Ready when" in pushed[0][0] and "Your move" in pushed[0][1]


@pytest.mark.one_database
def test_magnetic_field_blue_cannot_tell_reds_draws_from_its_notifications(
        app, client, seeded_game, service):
    games = [seeded_game("magnetic-field", seed, BLUE_FIRST) for seed in _seed_pair()]
    for game, name in zip(games, ("a", "b")):
        subscribe(client, game.apis[0], service.device(name))
        notifications_only(client, game)
        for ply, move in enumerate(("pick K", "pick K", "pick D", "pick D", "K@e5 +e4:n",
                                    "K@e6 +e7:s", "D@f5 +f3:w", "D@f6 +h3:e")):
            api_move(client, game.apis[ply % 2], move)
        client.post(f"{game.apis[1]}/chat", json={"text": "Nice draw for me."})
    pushed = [pushed_to(app, service, name, game) for game, name in zip(games, ("a", "b"))]
    assert len(pushed[0]) == 5 and pushed[0] == pushed[1]  # 4 turns and a message
    assert client.get(games[0].apis[1]).json["view"]["hands"][1]["tiles"] != \
        client.get(games[1].apis[1]).json["view"]["hands"][1]["tiles"]


# -- a player's devices (players across games) -----------------------------------------------

def a_player(app, email: str = "p2@example.org"):
    """A player with a proven ``email`` (the second seat's of ``new_game``'s games), and
    their key's path."""
    with app.test_request_context():
        player = players.create(get_db(), "Bobby", email)
        return player, f"/api/player/{players.key(player)}"


def test_a_players_device_is_told_of_all_their_seats_until_they_sign_out_everywhere(
        app, client, new_game, service, db):
    player, key = a_player(app)
    device = service.device("phone")
    games = new_game("mastery"), new_game("mastery")
    assert client.put(f"{key}/push", json=device.subscription).status_code == 201
    assert client.put(f"{key[:-4]}AAAA/push", json=device.subscription).status_code == 404
    subscribe(client, games[0].apis[1], device)  # the same device, for one seat too: once
    for game in games:
        api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    deliver(app)
    assert sorted(p["tag"] for p in service.payloads("phone")) == sorted(
        f"pbem-{game.id}-1" for game in games)
    # signing out everywhere ends the key's subscriptions (the seat's own one goes on)
    with app.test_request_context():
        players.sign_out_everywhere(get_db(), player)
    for game in games:
        api_move(client, game.apis[1], client.get(game.apis[1]).json["legal_moves"][0])
        api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    deliver(app)
    assert [p["tag"] for p in service.payloads("phone")][2:] == [f"pbem-{games[0].id}-1"]
    # deleting the identity deletes its devices' subscriptions
    with app.test_request_context():
        players.delete(get_db(), players.find(get_db(), player.id))
    assert db.execute("SELECT count(*) FROM push_subscriptions WHERE player_id IS NOT NULL"
                      ).fetchone()[0] == 0


def test_a_players_channels_are_the_default_of_their_seats(app, client, new_game, service):
    player, key = a_player(app)
    assert client.put(f"{key}/push", json=service.device("phone").subscription).status_code \
        == 201
    with app.test_request_context():  # signed in: the session browser.sign_in makes
        browser.sign_in(get_db(), player)
        signed = flask.session["player"]
    with client.session_transaction() as session:
        session["player"] = signed
    dashboard = client.get("/games").get_data(as_text=True)
    assert "Notify me on this device" in dashboard and f"{key}/push" in dashboard
    assert client.post("/me/notifications", data={"channel-turn": "push"}).status_code == 303
    chosen, other = new_game("mastery"), new_game("mastery")
    # a seat that saved its own choice keeps it
    assert client.post(chosen.urls[1] + "/email", data={"channel-turn": "email"}) \
        .status_code == 303
    for game in (chosen, other):
        api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    deliver(app)
    assert [p["tag"] for p in service.payloads("phone")] == [f"pbem-{other.id}-1"]
    turns = outbox(app, "WHERE channel = 'email' AND kind = 'turn'")
    assert [row["game_id"] for row in turns] == [chosen.id]
    with client.session_transaction() as session:
        session.clear()
    assert client.get("/me/notifications").status_code == 403
