"""Web Push: a seat's news shown as notifications on the devices that asked for them.

A browser subscribes with the push service of its maker and hands the server the
subscription (``PUT <api>/push``): an endpoint URL and the keys to encrypt for it. A
message to the device is a POST to that endpoint, encrypted so that the push service reads
none of it (RFC 8291, ``aes128gcm``) and signed by this server's VAPID key (RFC 8292), a
P-256 key pair made once into the instance folder, whose public half the pages give the
browser (``GET /api/push``) so that the push service takes messages from this server alone.

Messages go through the outbox like emails and webhook posts (channel "push"): queued in the
transaction of their cause, posted by the job process beside the webhook posts, in a lane
apart from the emails (``outbox.post_due``), with retries, backoff and a lease, never in a
request. A seat, or a player, tells at most ``MOST_DEVICES`` devices, so that one chat
message makes a few posts at most. The payload, JSON ``{"title", "body", "url", "tag"}`` of at most
``MAX_PAYLOAD`` bytes, says what happened in which game from what the seat may know, with
a fresh link to the seat (its only copy, like an email's, is inside the encrypted message;
the outbox keeps it redacted once sent). Its ``Topic`` and ``tag`` are the seat's, so a
newer message replaces an older one, both at the push service and on the screen.

Endpoints are checked like webhooks (``webhooks``): https, public addresses only, unless
``PUSH_ALLOW_PRIVATE`` (tests, closed networks). A push service answering 404 or 410 has
ended the subscription: it is deleted, for every seat of that device.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Mapping
from urllib.parse import urlsplit

import engine
import http_ece
import sqlite_utils
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from flask_babel import lazy_gettext

from .. import clocks, events, languages, links, matches, players
from . import outbox, webhooks
from ..store.db import hold_name, write
from ..matches import Match
from ..store import utc

MAX_PAYLOAD = 3000  # bytes of JSON: well inside the 4,096 every push service takes
MAX_ENDPOINT = 500
MOST_DEVICES = 10  # devices a seat's or a player's news goes to: a person's phones and computers
TTL = timedelta(days=4)  # how long a push service keeps a message for a device that is off
VAPID_LIFETIME = timedelta(hours=12)  # a signature's "exp"; RFC 8292 allows 24 hours
# What each kind of message says after its title, from the context ``notify`` gives it.
# what a message says after its title; the players' own events' say it as their kinds do
# (``events.Tells.detail``)
DETAILS = {"turn": lazy_gettext("{mover} played {last_move}."),
           "reminder": lazy_gettext("It has been your move for {waited}."),
           "deadline": lazy_gettext("{left} left to move, until {deadline}."),
           **{kind.tells.email: kind.tells.detail for kind in events.KINDS.values()
              if kind.tells and kind.tells.detail}}


class BadSubscription(engine.TextError):
    """A subscription the server will not push to; the message says why."""


class TooManyDevices(engine.TextError):
    """A seat or player already told ``MOST_DEVICES`` devices."""


class SubscriptionGone(outbox.Undeliverable):
    """The push service ended the subscription (404 or 410): never retried."""


# -- the VAPID key ----------------------------------------------------------------------------

def new_key() -> str:
    """A new VAPID private key, as PEM."""
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()


@functools.lru_cache(maxsize=4)
def _private_key(pem: str) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(pem.encode(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


def public_key(pem: str) -> str:
    """The application server key browsers subscribe with: the uncompressed P-256 point."""
    return _b64(_private_key(pem).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))


def vapid_authorization(pem: str, endpoint: str, contact: str, now: float) -> str:
    """The ``Authorization`` header of a message to ``endpoint`` (RFC 8292): an ES256 JWT
    for the endpoint's origin, and the public key that checks it."""
    parts = urlsplit(endpoint)
    claims = {"aud": f"{parts.scheme}://{parts.netloc}",
              "exp": int(now + VAPID_LIFETIME.total_seconds()), "sub": contact}
    signed = ".".join(_b64(json.dumps(part, separators=(",", ":")).encode())
                      for part in ({"typ": "JWT", "alg": "ES256"}, claims))
    r, s = decode_dss_signature(_private_key(pem).sign(signed.encode(),
                                                       ec.ECDSA(hashes.SHA256())))
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return f"vapid t={signed}.{_b64(signature)}, k={public_key(pem)}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- subscriptions ----------------------------------------------------------------------------

def checked(subscription: Any, allow_private: bool = False) -> tuple[str, str, str]:
    """(endpoint, p256dh, auth) of a browser's PushSubscription JSON, or ``BadSubscription``."""
    keys = subscription.get("keys") if isinstance(subscription, dict) else None
    if not isinstance(keys, dict) or not all(isinstance(text, str) for text in (
            subscription.get("endpoint"), keys.get("p256dh"), keys.get("auth"))):
        raise BadSubscription('A push subscription is {"endpoint", "keys": {"p256dh", '
                              '"auth"}}, as the browser gives it.')
    endpoint, p256dh, auth_secret = subscription["endpoint"].strip(), keys["p256dh"], \
        keys["auth"]
    if not (endpoint.startswith("https://") or allow_private) or len(endpoint) > MAX_ENDPOINT:
        raise BadSubscription("A push endpoint is an https:// URL of at most %(most)s "
                              "characters.", most=MAX_ENDPOINT)
    try:
        webhooks.checked_url(endpoint, allow_private)
    except webhooks.BadWebhook:
        raise BadSubscription("A push endpoint must be a public https:// URL.") from None
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(p256dh))
        well_formed = len(_unb64(auth_secret)) == 16
    except ValueError:
        well_formed = False
    if not well_formed:
        raise BadSubscription("The subscription's keys are not a P-256 public key and a "
                              "16-byte secret in base64url.")
    return endpoint, p256dh, auth_secret


@dataclass(frozen=True)
class Owner:
    """Whose news a device is told: a seat's, or a player's (every seat of theirs, for as
    long as the player's generation is the one it subscribed in: signing out everywhere
    ends it)."""

    game_id: str | None = None
    seat: int | None = None
    player_id: int | None = None
    generation: int | None = None

    def where(self) -> tuple[str, list[Any]]:
        if self.player_id is not None:
            return "player_id = ?", [self.player_id]
        return "game_id = ? AND seat = ?", [self.game_id, self.seat]


def subscribe(db: sqlite_utils.Database, owner: Owner,
              subscription: tuple[str, str, str]) -> None:
    """Keep the device's ``checked`` subscription for ``owner``: one row per device (its
    keys, if new, replace the old ones for everyone the device follows); ``TooManyDevices``
    if ``owner`` has ``MOST_DEVICES`` others. Inside a write transaction."""
    endpoint, p256dh, auth = subscription
    where, params = owner.where()
    hold_name(db, f"push {params}")  # two devices subscribing at once count each other
    others = db.execute(f"SELECT count(*) FROM push_subscriptions WHERE {where} "
                        "AND endpoint <> ?", [*params, endpoint]).fetchone()[0]
    if others >= MOST_DEVICES:
        raise TooManyDevices("Notifications already go to %(most)s devices, the most there "
                             "can be: switch them off on one of those first.",
                             most=MOST_DEVICES)
    db.execute("UPDATE push_subscriptions SET p256dh = ?, auth = ? WHERE endpoint = ?",
               [p256dh, auth, endpoint])
    db.execute(f"DELETE FROM push_subscriptions WHERE {where} AND endpoint = ?",
               [*params, endpoint])
    db.execute("INSERT INTO push_subscriptions (endpoint, p256dh, auth, game_id, seat, "
               "player_id, generation, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               [endpoint, p256dh, auth, owner.game_id, owner.seat, owner.player_id,
                owner.generation, utc.iso(utc.now())])


def unsubscribe(db: sqlite_utils.Database, owner: Owner, endpoint: str) -> None:
    if "\x00" in endpoint:  # no endpoint holds one (``checked``), nor can PostgreSQL's text
        return
    where, params = owner.where()
    db.execute(f"DELETE FROM push_subscriptions WHERE {where} AND endpoint = ?",
               [*params, endpoint])


def endpoints(db: sqlite_utils.Database, game_id: str, seat: int) -> list[str]:
    """The devices told of the seat's news: its own, and those of the players it is of."""
    mine = ["game_id = ? AND seat = ?"]
    params: list[Any] = [game_id, seat]
    for player in players.owners(db, game_id, seat):
        mine.append("player_id = ? AND generation = ?")
        params += [player.id, player.generation]
    return [row[0] for row in db.execute(
        f"SELECT DISTINCT endpoint FROM push_subscriptions WHERE ({') OR ('.join(mine)}) "
        "ORDER BY endpoint", params).fetchall()]


# -- messages ---------------------------------------------------------------------------------

def tag(game_id: str, seat: int) -> str:
    """The seat's notifications' tag: a newer one replaces the older on the screen."""
    return f"pbem-{game_id}-{seat}"


def queue(db: sqlite_utils.Database, match: Match, seat: int, kind: str, what: str,
          context: Mapping[str, Any], unique_key: str | None = None) -> bool:
    """Queue a message of ``kind`` to each device of ``seat``: ``what`` happened in which
    game, and its ``DETAILS`` from ``context``. Returns whether the seat had a device."""
    devices = endpoints(db, match.id, seat)
    if not devices:
        return False
    with languages.in_language(matches.language_of(db, match.id, seat)):
        if kind == "end":
            detail = languages.translated(match.reason) if match.finished else ""
        else:
            detail = DETAILS.get(kind, "").format_map(context)
        title = f"{what} — {match.game.title}"
        sides = languages.translated(match.sides)
    link = links.email_url("play.page", role="play", token=links.mint(db, match.id, seat))
    body = payload(title, f"{sides} [{match.id}]. {detail}".strip(), link, tag(match.id, seat))
    now = utc.parse(utc.iso(utc.now()))
    clock = context.get("clock")
    near = kind == "deadline" or (clock is not None and clocks.warning_due(clock, now))
    ttl = TTL
    if near and clock is not None and clock.deadline is not None:
        ttl = max(clock.deadline - now, timedelta(minutes=1))  # no use after the deadline
    headers = {"TTL": str(int(ttl.total_seconds())), "Urgency": "high" if near else "normal",
               # the seat's messages replace each other while waiting for the device
               "Topic": _digest(tag(match.id, seat))}
    for endpoint in devices:
        outbox.queue(db, recipient=endpoint, subject=title, body=body, game_id=match.id,
                     headers=headers, kind=kind, seat=seat, channel="push",
                     unique_key=unique_key and f"{unique_key}:push:{_digest(endpoint)}")
    return True


def _digest(text: str) -> str:
    """32 characters of base64url that stand for ``text`` (a Topic's most)."""
    return _b64(hashlib.sha256(text.encode()).digest())[:32]


def payload(title: str, body: str, url: str, tag: str) -> str:
    """The message's JSON, its ``body`` shortened until the whole is ``MAX_PAYLOAD`` bytes
    at most."""
    while True:
        text = json.dumps({"title": title, "body": body, "url": url, "tag": tag},
                          ensure_ascii=False)
        excess = len(text.encode()) - MAX_PAYLOAD
        if excess <= 0:
            return text
        body = body[:max(len(body) - excess - 1, 0)] + "…"


@dataclass(frozen=True)
class Sender:
    """Makes the outbox's push messages (``outbox.post_due``)."""

    key: str            # the VAPID private key, PEM
    contact: str        # RFC 8292's "sub": how a push service's operator reaches ours
    allow_private: bool = False

    def prepare(self, db: sqlite_utils.Database, endpoint: str, text: str,
                headers: Mapping[str, str]) -> webhooks.Post:
        """The message ``text`` to the device of ``endpoint``, encrypted for it and signed."""
        row = db.execute("SELECT p256dh, auth FROM push_subscriptions WHERE endpoint = ? "
                         "LIMIT 1", [endpoint]).fetchone()
        if row is None:
            raise SubscriptionGone("the device's subscription was deleted")
        if not (endpoint.startswith("https://") or self.allow_private):
            raise webhooks.BadWebhook("A push endpoint must be an https:// URL.")
        encrypted = http_ece.encrypt(
            text.encode(), private_key=ec.generate_private_key(ec.SECP256R1()),
            dh=_unb64(row["p256dh"]), auth_secret=_unb64(row["auth"]), version="aes128gcm")
        return webhooks.Post(endpoint, encrypted, {
            "Authorization": vapid_authorization(self.key, endpoint, self.contact,
                                                 time.time()),
            "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream",
            **headers}, self.allow_private)

    def answered(self, db: sqlite_utils.Database, post: webhooks.Post, status: int) -> None:
        """Raises unless the push service took the message; one that has ended the
        subscription (404, 410) gets no more, for any seat of that device."""
        if status in (404, 410):
            with write(db):
                db.execute("DELETE FROM push_subscriptions WHERE endpoint = ?", [post.url])
            raise SubscriptionGone(f"the push service answered {status}")
        if not 200 <= status < 300:
            raise webhooks.WebhookRefused(status)


def deadline_email_at(now: datetime, deadline: datetime, hours: float) -> datetime:
    """When a deadline warning's email follows its push: ``hours`` later, or halfway to
    the deadline if that is sooner."""
    return min(now + timedelta(hours=hours), now + (deadline - now) / 2)
