"""Webhooks: a seat may give a URL that is told, by a JSON POST, of everything its emails
tell it (``notify`` queues both). The body has ``content`` (what Discord's incoming
webhooks read) and ``text`` (Slack's), both the one-line summary an email's subject gives
(escaped for each), plus the game id and the kind of event for anything else.

Posts go through the outbox like emails: queued in the transaction of their cause, and
posted by the job process (``outbox.post_due``) in a lane of their own beside the emails,
each within ``DEADLINE`` seconds in all, with retries, backoff and a lease, never in a
request. They carry no secret link: a chat channel may be read by others.

A webhook URL is chosen by whoever holds a play link, so the server must not become a way
into the network it runs in: URLs whose host is (or resolves to) a loopback, private,
link-local or otherwise non-public address are refused when set and again when posting
(``WEBHOOK_ALLOW_PRIVATE`` allows them, for tests and closed networks), and a post connects
to the address that was checked, so a second DNS answer cannot point it elsewhere.
"""
from __future__ import annotations

import html
import http.client
import ipaddress
import json
import math
import re
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlsplit

import sqlite_utils
from flask import current_app

from ..errors import BadWebhook

MAX_URL = 500
DEADLINE = 10  # seconds a post may take in all: connecting, sending and reading the answer


def checked_url(url: Any, allow_private: bool = False) -> str | None:
    """``url`` as it will be stored ("" or None: no webhook), or ``BadWebhook``."""
    if url is None or (isinstance(url, str) and not url.strip()):
        return None
    if not isinstance(url, str) or len(url) > MAX_URL or not url.isascii() \
            or any(c.isspace() or not c.isprintable() for c in url):
        raise BadWebhook("A webhook is an http:// or https:// URL of at most %(most)s "
                         "characters, without spaces.", most=MAX_URL)
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
            or parts.username or parts.password:
        raise BadWebhook("A webhook must be an http:// or https:// URL such as "
                         "https://discord.com/api/webhooks/...")
    try:
        port = parts.port
    except ValueError:
        raise BadWebhook("The webhook URL's port is not a number from 1 to 65535.") from None
    if not allow_private:
        _public_address(parts.hostname, port or 443)
    return url.strip()


def _public_address(host: str, port: int) -> str:
    """The first address ``host`` resolves to, if every one is a public address."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise BadWebhook("The webhook's host %(host)s cannot be found.",
                         host=repr(host)) from None
    addresses = [str(info[4][0]) for info in found]
    if not all(_public(address) for address in addresses):
        raise BadWebhook("Webhooks may only go to public internet addresses.")
    return addresses[0]


NAT64 = ipaddress.ip_network("64:ff9b::/96")        # the IPv4 address in its last 32 bits
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")  # a network's own translator
COMPATIBLE = ipaddress.ip_network("::/96")          # deprecated IPv4-compatible addresses


def _public(address: str) -> bool:
    """Whether ``address`` is a public unicast address. IPv6 addresses that carry an IPv4
    address (mapped, compatible, NAT64, 6to4) are judged by the IPv4 address they lead to,
    which Python's ``is_global`` does not look at: 64:ff9b::7f00:1 reaches 127.0.0.1
    through a NAT64 translator."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.version == 6:
        if ip in LOCAL_NAT64:
            return False
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and (ip in NAT64 or ip in COMPATIBLE):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        ip = embedded or ip
    return ip.is_global and not ip.is_multicast


def set_url(db: sqlite_utils.Database, game_id: str, seat: int, url: Any) -> str | None:
    url = checked_url(url, current_app.config["WEBHOOK_ALLOW_PRIVATE"])
    db.execute("UPDATE seats SET webhook = ? WHERE game_id = ? AND seat = ?",
               [url, game_id, seat])
    return url


def url_of(db: sqlite_utils.Database, game_id: str, seat: int) -> str | None:
    row = db.execute("SELECT webhook FROM seats WHERE game_id = ? AND seat = ?",
                     [game_id, seat]).fetchone()
    return row[0] if row else None


def payload(game_id: str, kind: str, summary: str) -> str:
    """The JSON of a post. A summary names the players as they typed their names, so in a
    chat channel a name must ping nobody and hide no link: Discord is told to parse no
    mentions and reads its markup of links and mentions escaped; Slack's three special
    characters are escaped as Slack asks."""
    return json.dumps({"content": re.sub(r"([\\\[\]()<])", r"\\\1", summary),
                       "text": html.escape(summary, quote=False),
                       "allowed_mentions": {"parse": []},
                       "game": game_id, "kind": kind})


@dataclass(frozen=True)
class Post:
    """An HTTP POST to make: a webhook's, or a push message's (``push.Sender``)."""

    url: str
    body: bytes
    headers: Mapping[str, str]
    allow_private: bool = False  # to loopback and private addresses too

    @property
    def destination(self) -> str:
        """Where the post connects: its host and port, which the outbox lets have only a
        few posts at a time."""
        return urlsplit(self.url).netloc.rpartition("@")[2].lower()


@dataclass(frozen=True)
class Poster:
    """Makes the outbox's webhook posts (``outbox.post_due``)."""

    allow_private: bool = False

    def prepare(self, db: sqlite_utils.Database, url: str, body: str,
                headers: Mapping[str, str]) -> Post:
        return Post(url, body.encode(), {"Content-Type": "application/json",
                                         "User-Agent": "pbem-webhook"}, self.allow_private)

    def answered(self, db: sqlite_utils.Database, post: Post, status: int) -> None:
        """Raises unless the receiver took the post."""
        if not 200 <= status < 300:
            raise WebhookRefused(status)


def send(post: Post) -> int:
    """Make ``post``, connecting to the address that was checked, within ``DEADLINE``
    seconds in all (connecting, sending and reading the answer: a receiver that answers a
    byte at a time is cut off all the same); returns the answer's status."""
    ends = time.monotonic() + DEADLINE
    parts = urlsplit(post.url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    host = parts.hostname
    assert host is not None  # the URL was checked (``checked_url``)
    address = host if post.allow_private else _public_address(host, port)
    connection = _Pinned(host, port, address, ends,
                         _deadline_tls() if https else None)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=post.body, headers={
            "Host": parts.netloc.rpartition("@")[2], **post.headers})
        response = connection.getresponse()
        response.read(64 * 1024)
    finally:
        connection.close()
    return response.status


class WebhookRefused(RuntimeError):
    def __init__(self, status: int):
        super().__init__(f"the receiver answered {status}")
        self.status = status


def _left(ends: float) -> float:
    """The seconds left until ``ends`` (``time.monotonic``), or ``TimeoutError``."""
    left = ends - time.monotonic()
    if left <= 0:
        raise TimeoutError("the receiver took longer than a post may")
    return left


class _InTime:
    """A socket whose every send and receive waits only for the time left until ``ends``:
    a timeout of its own for each would let a receiver that sends a byte at a time hold a
    post as long as it likes."""

    ends = math.inf

    def recv_into(self, *args: Any, **options: Any) -> int:
        self.settimeout(_left(self.ends))  # type: ignore[attr-defined]  # a socket's
        return super().recv_into(*args, **options)  # type: ignore[misc]

    def sendall(self, *args: Any, **options: Any) -> None:
        self.settimeout(_left(self.ends))  # type: ignore[attr-defined]
        return super().sendall(*args, **options)  # type: ignore[misc]


class _TimedSocket(_InTime, socket.socket):
    pass


class _TimedTLSSocket(_InTime, ssl.SSLSocket):
    pass


def _deadline_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.sslsocket_class = _TimedTLSSocket
    return context


class _Pinned(http.client.HTTPConnection):
    """HTTP to the checked ``address`` until ``ends``; over TLS given a ``tls`` context, the
    certificate checked for ``host``."""

    def __init__(self, host: str, port: int, address: str, ends: float,
                 tls: ssl.SSLContext | None):
        super().__init__(host, port)
        self._address, self._ends, self._tls = address, ends, tls

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), _left(self._ends))
        timed: _TimedSocket | _TimedTLSSocket = _TimedSocket(fileno=raw.detach())
        timed.ends = self._ends
        if self._tls is not None:
            timed.settimeout(_left(self._ends))  # the handshake's
            timed = self._tls.wrap_socket(timed, server_hostname=self.host)  # type: ignore[assignment]
            timed.ends = self._ends
        self.sock = timed
