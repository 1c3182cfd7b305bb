"""The SQLite database: one connection per request, the schema, and write transactions.

A game's history is the ``events`` table: an append-only log ordered by a per-game sequence
number, which triggers protect from UPDATE and DELETE. Everything else about a game is
either fixed at creation (``games``, ``seats``) or a summary rebuilt from the log.
"""
from __future__ import annotations

import contextlib
import sqlite3
from datetime import datetime, timezone
from typing import Iterator

import click
import sqlite_utils
from flask import current_app, g
from flask.cli import with_appcontext


def connect(path: str) -> sqlite_utils.Database:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL")  # readers never wait for the writer
    conn.execute("PRAGMA synchronous = NORMAL")
    return sqlite_utils.Database(conn)


def get_db() -> sqlite_utils.Database:
    """The request's database connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


@contextlib.contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """A write transaction that takes the write lock at once (BEGIN IMMEDIATE), so two
    requests for the same game serialise instead of failing to upgrade a read lock."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


def utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


APPEND_ONLY = "SELECT RAISE(ABORT, 'the event log is append-only')"


def init_db(db: sqlite_utils.Database) -> None:
    """Create whatever of the schema is missing. Safe to run on every start."""
    db["games"].create({
        "id": str,            # public game id (not a secret: it grants nothing)
        "game": str,          # engine game id
        "players": int,
        "options": str,       # JSON of the resolved options
        "seed": str,          # secret: chance events derive from it
        "created_at": str,
        # A summary of the log, rewritten with every event for listings and the
        # scheduler; the log stays the source of truth.
        "status": str,        # "active" or "finished"
        "ply": int,
        "to_move": str,       # JSON list of seats
        "outcome": str,       # JSON or null
        "updated_at": str,
    }, pk="id", not_null={"game", "players", "options", "seed", "created_at"},
        if_not_exists=True)
    db["seats"].create({
        "game_id": str, "seat": int, "name": str, "email": str,
    }, pk=("game_id", "seat"), foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["events"].create({
        "game_id": str,
        "seq": int,           # 1, 2, 3, ... per game; the primary key makes it unique
        "seat": int,          # who acted (null for the server itself, e.g. a timeout)
        "kind": str,          # move, resign, draw_offer, draw_accept, draw_decline
        "move": str,          # the move in notation, for kind = move
        "created_at": str,
    }, pk=("game_id", "seq"), foreign_keys=[("game_id", "games", "id")],
        not_null={"kind", "created_at"}, if_not_exists=True)
    db.execute(f"CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events "
               f"BEGIN {APPEND_ONLY}; END")
    db.execute(f"CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events "
               f"BEGIN {APPEND_ONLY}; END")
    db["links"].create({
        "token_hash": str,    # sha256 of the secret; the secret itself is never stored
        "game_id": str,
        "seat": int,          # null: a spectator's link
        "created_at": str,
    }, pk="token_hash", foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["home_links"].create({
        "token_hash": str, "email": str, "created_at": str,
    }, pk="token_hash", if_not_exists=True)
    db["outbox"].create({
        "id": int,
        "message_id": str,    # fixed when queued, so a resend after a crash keeps it
        "game_id": str,
        "recipient": str,
        "subject": str,
        "body": str,
        "headers": str,       # JSON of extra headers
        "created_at": str,
        "status": str,        # pending, sent, failed
        "attempts": int,
        "next_attempt_at": str,
        "sent_at": str,
        "last_error": str,
    }, pk="id", if_not_exists=True)
    db["seats"].create_index(["email"], if_not_exists=True)
    db["links"].create_index(["game_id", "seat"], if_not_exists=True)
    db["outbox"].create_index(["status", "next_attempt_at"], if_not_exists=True)


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database tables (the server also does this on start)."""
    init_db(get_db())
    click.echo(f"Initialised {current_app.config['DATABASE']}")
