"""Secret links: each player's (and the spectators') capability to open a game.

A link carries 192 random bits. Only its SHA-256 is stored, so a copy of the database
does not let anyone play; the secret exists only in the URL handed to its owner.
"""
from __future__ import annotations

import hashlib
import logging
import re
import secrets
from dataclasses import dataclass

import sqlite_utils
from flask import current_app, request, url_for

from .db import utcnow

TOKEN_BYTES = 24
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")
# A token inside a URL: what log lines must not show.
TOKEN_IN_URL = re.compile(r"(?<=/)[A-Za-z0-9_-]{32}(?=[/?#\s\"]|$)")
# A token in a reply address (move+<ply>.<token>@domain, see inbound.py).
TOKEN_IN_ADDRESS = re.compile(r"(?<=[+.])[A-Za-z0-9_-]{32}(?=@)")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Access:
    """What a link opens: a game, as a seat or (seat None) as a spectator."""

    game_id: str
    seat: int | None


def mint(db: sqlite_utils.Database, game_id: str, seat: int | None) -> str:
    """A new secret link for ``seat`` of a game (None: spectator). Returns the token."""
    token = new_token()
    db["links"].insert({"token_hash": token_hash(token), "game_id": game_id, "seat": seat,
                        "created_at": utcnow()})
    return token


def resolve(db: sqlite_utils.Database, token: str) -> Access | None:
    if not TOKEN_SHAPE.fullmatch(token):
        return None
    rows = list(db.query("SELECT game_id, seat FROM links WHERE token_hash = ?",
                         [token_hash(token)]))
    return Access(rows[0]["game_id"], rows[0]["seat"]) if rows else None


def redact(text: str) -> str:
    """``text`` with anything shaped like a secret token replaced, for log lines."""
    return TOKEN_IN_ADDRESS.sub("[secret]", TOKEN_IN_URL.sub("[secret]", text))


def external_url(endpoint: str, **values: object) -> str:
    """An absolute URL for emails and API answers: PUBLIC_URL when configured (the address
    players reach the server at), else the address of the current request."""
    public = current_app.config.get("PUBLIC_URL")
    base = public or request.host_url  # jobs outside requests run in a made-up request
    return base.rstrip("/") + url_for(endpoint, **values)


class RedactSecrets(logging.Filter):
    """Keeps tokens (in URLs and reply addresses) out of log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), ()
        return True


def redact_logger(logger: logging.Logger, kind: type[RedactSecrets] = RedactSecrets) -> None:
    """Give ``logger`` a ``kind`` filter, once however often it is asked."""
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())
