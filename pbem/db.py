"""The SQLite database: one connection per thread of a worker, the schema, and write
transactions.

A game's history is the ``events`` table: an append-only log ordered by a per-game sequence
number, which triggers protect from UPDATE and DELETE. Everything else about a game is
either fixed at creation (``games``, ``seats``) or a summary rebuilt from the log.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import click
import sqlite_utils
from flask import current_app, g
from flask.cli import with_appcontext


def connect(path: str) -> sqlite_utils.Database:
    private_file(Path(path))  # the database holds every game: nobody else may read it
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL")  # readers never wait for the writer
    # Every commit reaches the disk before it is acknowledged (WAL with NORMAL could lose
    # the last acknowledged moves on a power cut).
    conn.execute("PRAGMA synchronous = FULL")
    return sqlite_utils.Database(conn)


def private_file(path: Path) -> None:
    """Create ``path``, if it is missing, readable and writable by its owner alone (SQLite
    gives its -wal and -shm files the database file's permissions)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


_thread = threading.local()


def get_db() -> sqlite_utils.Database:
    """The request's database connection: its thread's, opened by the thread's first
    request and kept for the next ones (a connection per request costs its opening and,
    when the last one closes, a checkpoint of the WAL with its syncs)."""
    if "db" not in g:
        g.db = _thread_connection(current_app.config["DATABASE"])
    return g.db


def _thread_connection(path: str) -> sqlite_utils.Database:
    key = (os.getpid(), path)  # a forked worker opens its own
    if getattr(_thread, "key", None) != key:
        if getattr(_thread, "key", (None,))[0] == os.getpid():
            _thread.db.close()  # another database (tests): one connection per thread
        _thread.db, _thread.key = connect(path), key
    return _thread.db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.execute("ROLLBACK")  # the thread's next request starts afresh


@contextlib.contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """A write transaction that takes the write lock at once (BEGIN IMMEDIATE), so two
    requests for the same game serialise instead of failing to upgrade a read lock.
    Inside another write transaction it is a savepoint of that one: the outer commit
    decides for both."""
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
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


# Columns added after their table's first version: (table, column, type, default).
ADDED_COLUMNS = (
    ("games", "clock", str, None),      # JSON time control (pbem/clocks.py); null: none
    ("seats", "notify", str, "each"),   # emails: each, digest or none (pbem/notify.py)
    # kind: start, turn, reminder, digest, end, draw_offer, home, ... (other: unclassified)
    ("outbox", "kind", str, "other"),
    ("outbox", "seat", int, None),      # the seat an email is about
    # what must never be sent twice: the reminder of one turn, one address's daily digest
    ("outbox", "unique_key", str, None),
    ("outbox", "channel", str, "email"),  # email, or webhook (pbem/webhooks.py)
    ("seats", "webhook", str, None),      # the seat's webhook URL (pbem/webhooks.py)
    # a chat message's text; for the rematch ask that completed a rematch, the new game's id
    ("events", "text", str, None),
    ("games", "public", int, 0),        # 1: its open seats are listed in the lobby
    ("seats", "bot", str, None),        # a computer player's level (pbem/computer.py)
    # 1: the computer plays the seat's moves while its player is on vacation
    ("seats", "stand_in", int, 0),
)


def init_db(db: sqlite_utils.Database) -> set[str]:
    """Create whatever of the schema is missing; returns the tables it created. Safe to run
    on every start, in several processes at once: one write transaction from the first
    statement, so each process waits for the one before it instead of failing to upgrade a
    read to a write."""
    with write(db):
        before = set(db.table_names())
        _create_schema(db)
        return set(db.table_names()) - before


def _create_schema(db: sqlite_utils.Database) -> None:
    db["games"].create({
        "id": str,            # public game id (not a secret: it grants nothing)
        "game": str,          # engine game id
        "players": int,
        "options": str,       # JSON of the resolved options
        "seed": str,          # secret: chance events derive from it
        "created_at": str,
        # A summary of the log, rewritten with every event for listings and the
        # scheduler; the log stays the source of truth.
        "status": str,        # "waiting" (for players), "active" or "finished"
        "ply": int,
        "to_move": str,       # JSON list of seats
        "outcome": str,       # JSON or null
        "updated_at": str,
    }, pk="id", not_null={"game", "players", "options", "seed", "created_at"},
        if_not_exists=True)
    db["seats"].create({
        "game_id": str, "seat": int,
        "name": str, "email": str,  # both null while the seat is open; email null: none given
    }, pk=("game_id", "seat"), foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["events"].create({
        "game_id": str,
        "seq": int,           # 1, 2, 3, ... per game; the primary key makes it unique
        "seat": int,          # who acted (null for the server itself, e.g. a timeout)
        "kind": str,          # move, resign, draw_offer, draw_accept, draw_decline,
                              # vacation (move: its days), timeout (the server's; seat: who ran out),
                              # chat (text: the message), rematch (a seat asks for one),
                              # join (seat: the open seat taken), withdraw (before the start)
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
    db["invitations"].create({  # the join link of each open seat, like links
        "token_hash": str, "game_id": str, "seat": int, "created_at": str,
    }, pk="token_hash", foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["home_links"].create({
        "token_hash": str, "email": str, "created_at": str,
    }, pk="token_hash", if_not_exists=True)
    db["clock_warnings"].create({   # one "your time runs out" email per seat and turn
        "game_id": str, "seat": int,
        "turn_seq": int,      # the event that began the turn (0: the game's start)
        "deadline": str, "created_at": str,
    }, pk=("game_id", "seat", "turn_seq"), foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True)
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
    for table, column, type_, default in ADDED_COLUMNS:  # upgrade older databases in place
        if column not in db[table].columns_dict:
            db[table].add_column(column, type_, not_null_default=default)
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS outbox_unique_key ON outbox(unique_key) "
               "WHERE unique_key IS NOT NULL")
    db["outbox"].create_index(["game_id", "seat", "kind"], if_not_exists=True)
    db["conditional_lines"].create({  # a seat's own conditional moves (pbem/conditional.py)
        "game_id": str, "seat": int,
        "lines": str,         # JSON list of lines, each a list of moves (theirs, mine, ...)
        "updated_at": str,
    }, pk=("game_id", "seat"), not_null={"lines"}, if_not_exists=True)
    db["games"].create_index(["public", "status"], if_not_exists=True)  # the lobby
    db["email_links"].create({  # the secret of every email's settings and unsubscribe links
        "token_hash": str,    # sha256, like links
        "purpose": str,       # seat (one seat's emails), digest or home (an address's)
        "game_id": str, "seat": int,  # purpose seat
        "email": str,         # purpose digest or home
        "created_at": str,
    }, pk="token_hash", if_not_exists=True)
    db["home_optouts"].create({  # addresses that want no more "Your games" emails
        "email": str,         # lower case
        "created_at": str,
    }, pk="email", if_not_exists=True)
    db["digest_days"].create({  # the days whose digests were queued (UTC dates)
        "day": str, "created_at": str,
    }, pk="day", if_not_exists=True)
    db["notes"].create({  # each player's private notes on a game: never shown to anyone else
        "game_id": str, "seat": int, "text": str, "updated_at": str,
    }, pk=("game_id", "seat"), foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["due"].create({  # what the scheduler's jobs look at, and from when (pbem/due.py)
        "game_id": str, "seat": int,
        "kind": str,          # timeout, warning, reminder, waiting or computer
        "at": str,            # when it falls due (a reminder: when the turn began)
        "not_before": str,    # a reminder held back by a vacation: its end
    }, pk=("game_id", "seat", "kind"), not_null={"at"}, if_not_exists=True)
    db["due"].create_index(["kind", "at"], if_not_exists=True)
    # the digest starts from the seats that chose it: few among many, so a partial index
    db.execute("CREATE INDEX IF NOT EXISTS seats_digest ON seats(game_id, seat) "
               "WHERE notify = 'digest'")
    db["snapshots"].create({  # each game's last kept position (pbem/positions.py)
        "game_id": str, "ply": int,
        "engine": str,        # the engine code that made it: another one's is not used
        "state": bytes,       # the position, pickled
        "to_move": str,       # JSON: who was to move after each ply up to it
    }, pk="game_id", not_null={"ply", "engine", "state", "to_move"}, if_not_exists=True)


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database tables (the server also does this on start)."""
    init_db(get_db())
    click.echo(f"Initialised {current_app.config['DATABASE']}")
