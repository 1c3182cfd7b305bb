"""Secret links: each player's (and the spectators') capability to open a game.

A link carries 192 random bits. Only its SHA-256 is stored, so a copy of the database
does not let anyone play; the secret exists only in the URL handed to its owner.
"""
from __future__ import annotations

import base64
import hashlib
import logging
import re
import secrets
from dataclasses import dataclass
from typing import Sequence
from urllib.parse import unquote, urlsplit

import sqlite_utils
from . import server
from .store import utc
from .store.db import insert_rows

TOKEN_BYTES = 24
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")
# A token inside a URL: what log lines must not show.
TOKEN_IN_URL = re.compile(r"(?<=/)[A-Za-z0-9_-]{32}(?=[/?#\s\"]|$)")
# A token in a reply address (move+v<version>.<token>@domain, see inbound.py).
TOKEN_IN_ADDRESS = re.compile(r"(?<=[+.])[A-Za-z0-9_-]{32}(?=@)")
# The routes whose next path segment is a secret (every <token> of the URL map; the API's
# too, under /api/). A log line loses that segment whatever its shape, since a server also
# answers a token percent-encoded (/play/%59...), or after "//" or "%2F".
SECRET_ROUTES = frozenset({"play", "watch", "email", "home", "join", "feed", "sign-in",
                           "player", "appeal"})
URL_PATH = re.compile(r"/[^\s?#]*")
PATH_SEPARATOR = re.compile(r"(/|%2f)", re.IGNORECASE)  # kept by split: a capture group
CLOSING = re.compile(r"[\"'>)\]]*$")  # what ends a quoted URL (a log's Referer), no token


def new_token() -> str:
    return new_tokens(1)[0]


def new_tokens(count: int, size: int = TOKEN_BYTES) -> list[str]:
    """``count`` new tokens of ``size`` random bytes (a link's by default) in URL-safe
    text, cut from one draw (a round robin makes 4,950 games and emails 9,900 links, and
    each draw is a system call)."""
    drawn = secrets.token_bytes(size * count)
    return [token_text(drawn[at:at + size]) for at in range(0, len(drawn), size)]


def token_text(secret: bytes) -> str:
    """``secret``'s bytes as a token is written: URL-safe base64, unpadded."""
    return base64.urlsafe_b64encode(secret).decode().rstrip("=")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Access:
    """What a link opens: a game, as a seat or (seat None) as a spectator."""

    game_id: str
    seat: int | None
    emailed: bool = False  # the link was minted for an email to the seat's address
    player_id: int | None = None  # the link was made for that player (players.seat_link)

    def of_player(self) -> PlayerAccess | None:
        """This access as a player's, whose seat is known; None: a spectator's."""
        if self.seat is None:
            return None
        return PlayerAccess(self.game_id, self.seat, self.emailed, self.player_id)


@dataclass(frozen=True)
class PlayerAccess(Access):
    """A player's access: a seat of the game."""

    seat: int


INVITATIONS = "invitations"  # the table of join links (an open seat's ``table``)


def mint(db: sqlite_utils.Database, game_id: str, seat: int | None, *,
         table: str = "links", emailed: bool = False) -> str:
    """A new secret link for ``seat`` of a game (None: spectator). Returns the token.
    ``table`` INVITATIONS: the join link of an open seat instead. ``emailed``: the link
    goes in an email to the seat's address (so using it shows the address answered)."""
    return mint_all(db, [(game_id, seat)], table=table, emailed=emailed)[0]


def mint_all(db: sqlite_utils.Database, seats: Sequence[tuple[str, int | None]], *,
             table: str = "links", emailed: bool = False) -> list[str]:
    """``mint`` for each (game id, seat) of ``seats``, in one statement; their tokens."""
    tokens = new_tokens(len(seats))
    now = utc.iso(utc.now())
    insert_rows(db, table, [{"token_hash": token_hash(token), "game_id": game_id, "seat": seat,
                             "created_at": now, **({"emailed": 1} if emailed else {})}
                            for token, (game_id, seat) in zip(tokens, seats)])
    return tokens


def resolve(db: sqlite_utils.Database, token: str, *, table: str = "links") -> Access | None:
    if not TOKEN_SHAPE.fullmatch(token):
        return None
    # join links are never emailed, nor a player's own
    known = "emailed, player_id" if table == "links" else "0 AS emailed, NULL AS player_id"
    row = db.execute(f"SELECT game_id, seat, {known} FROM {table} WHERE token_hash = ?",
                     [token_hash(token)]).fetchone()
    return Access(row["game_id"], row["seat"], bool(row["emailed"]), row["player_id"]) \
        if row else None


def redact(text: str) -> str:
    """``text`` with the secret of every URL path and anything shaped like a secret token
    replaced, for log lines."""
    text = URL_PATH.sub(_redact_path, text)
    return TOKEN_IN_ADDRESS.sub("[secret]", TOKEN_IN_URL.sub("[secret]", text))


def _redact_path(path: re.Match) -> str:
    """The path with each segment that follows a secret route replaced, decoded to compare
    as the server routes it."""
    pieces = PATH_SEPARATOR.split(path.group())  # segments, each separator between two
    secret_next = False
    for at in range(0, len(pieces), 2):
        if not pieces[at]:
            continue  # "//": empty segments are merged
        if secret_next:
            closing = CLOSING.search(pieces[at])
            assert closing is not None  # it matches at the end, if only nothing
            pieces[at], secret_next = "[secret]" + closing.group(), False
        else:
            secret_next = unquote(pieces[at]).lower() in SECRET_ROUTES
    return "".join(pieces)


# Where an email's links begin while PUBLIC_URL is not set. Such emails are queued with
# this mark, which ``mail.build`` replaces with PUBLIC_URL once it is set, and not sent
# before: no link in an email ever comes from a request's Host header.
PUBLIC_URL_MARK = "@PUBLIC_URL@"


def email_url(endpoint: str, **values: object) -> str:
    """An absolute URL for an email: PUBLIC_URL's, or the mark that stands for it."""
    return (server.setting("PUBLIC_URL") or PUBLIC_URL_MARK) + server.path(endpoint, **values)


def email_urls(endpoint: str, tokens: Sequence[str], **values: object) -> list[str]:
    """``email_url`` of ``endpoint`` for each of ``tokens`` (its ``token``): one URL built,
    the others copied from it, as a token is URL-safe (a round robin's emails hold 9,900)."""
    mark = new_token()  # found nowhere else in the URL
    before, after = email_url(endpoint, token=mark, **values).split(mark)
    return [before + token + after for token in tokens]


def public_url(value: object) -> str | None:
    """The checked PUBLIC_URL setting: an absolute http(s) URL without a trailing slash,
    or None when unset. Raises ValueError, naming the setting, for anything else."""
    if value in (None, ""):
        return None
    parts = urlsplit(str(value).strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment:
        raise ValueError(f"PUBLIC_URL must be the absolute http(s) address players reach "
                         f"the server at, such as https://games.example.org (not {value!r}).")
    return str(value).strip().rstrip("/")


def origin(url: str) -> str:
    """The origin of an absolute URL as browsers write it in an Origin header: the host in
    lower case, the scheme's own port left out."""
    parts = urlsplit(url)
    default_port = {"http": ":80", "https": ":443"}.get(parts.scheme, "")
    return f"{parts.scheme}://{parts.netloc.lower().removesuffix(default_port)}"


LOOPBACK_HOSTS = ("localhost", "127.0.0.1")


def trusted_hosts(public: str | None) -> list[str]:
    """The Host headers a request may carry (Flask's TRUSTED_HOSTS): PUBLIC_URL's host and
    the loopback names (for a person on the machine and for health checks)."""
    hosts = [host for host in [urlsplit(public).hostname] if host] if public else []
    return hosts + [host for host in LOOPBACK_HOSTS if host not in hosts]


class RedactSecrets(logging.Filter):
    """Keeps tokens (in URLs and reply addresses) out of log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        return True


def redact_logger(logger: logging.Logger, kind: type[RedactSecrets] = RedactSecrets) -> None:
    """Give ``logger`` a ``kind`` filter, once however often it is asked."""
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())


# -- reply addresses: a reply to a seat's email plays for that seat (pbem/mail/inbound.py) --------

def _reply_base() -> tuple[str, str] | None:
    """The configured reply address as (local part, domain); None when moves by email are
    switched off (REPLY_ADDRESS set to an empty string)."""
    configured = server.setting("REPLY_ADDRESS")
    if configured is None:
        configured = f"move@{server.setting('MAIL_DOMAIN')}"
    local, _, domain = str(configured).strip().rpartition("@")
    if not local or not domain:
        return None
    return local, domain


def reply_address(token: str, version: int) -> str | None:
    """The address a reply to a seat's email goes to, written at the game's ``version``
    for that seat (``Match.known_events``)."""
    base = _reply_base()
    return None if base is None else f"{base[0]}+v{version}.{token}@{base[1]}"


def appeal_address(token: str) -> str | None:
    """The address a reply to a moderator's email goes to: the player's appeal, by the
    secret of its appeal link (``moderation.appealed``)."""
    base = _reply_base()
    return None if base is None else f"{base[0]}+appeal.{token}@{base[1]}"


def reply_to_header(token: str, version: int) -> dict[str, str]:
    """``{"Reply-To": address}`` for an email to the seat ``token`` opens, or ``{}``."""
    address = reply_address(token, version)
    return {"Reply-To": address} if address else {}
