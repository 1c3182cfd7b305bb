"""The database: one connection per thread of a worker, the schema, write transactions,
and the locks that let several machines share the work.

``DATABASE`` is an SQLite file (the embedded default, through sqlite-utils) or a
``postgresql://`` URL (``pbem/postgres.py``, which the app uses through the same interface).
The SQL and the schema are written once, for both; the few things that differ are here.

A game's history is the ``events`` table: an append-only log ordered by a per-game sequence
number, which triggers protect from UPDATE and DELETE. Everything else about a game is
either fixed at creation (``games``, ``seats``) or a summary rebuilt from the log.

Writers: SQLite has one at a time (``BEGIN IMMEDIATE`` takes the whole database). On
PostgreSQL, writers of different games go on side by side, and those of one game take turns
(``hold_game``: a write transaction that reads a game holds its row until the commit), so a
move is still checked against the position it is recorded in.
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

import click
import sqlite_utils
from flask import current_app, g
from flask.cli import with_appcontext


def is_url(database: str) -> bool:
    """Whether the DATABASE setting names a PostgreSQL server rather than an SQLite file."""
    return str(database).startswith(("postgresql://", "postgres://"))


def shown(database: str) -> str:
    """The DATABASE setting as it may be printed: a URL without its password."""
    without = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", str(database))
    return re.sub(r"(password=)[^&\s]*", r"\1***", without)


def connect(path: str) -> sqlite_utils.Database:
    """A new connection to the database ``path``: an SQLite file, or a PostgreSQL URL."""
    if is_url(path):
        from .postgres import PostgresDatabase  # psycopg is loaded only where it is used
        return PostgresDatabase(path)  # type: ignore[return-value]  # the same methods
    private_file(Path(path))  # the database holds every game: nobody else may read it
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    _write_ahead_log(conn)
    # A commit does not wait for the disk inside SQLite's write lock (FULL would): ``write``
    # syncs the log after the lock is released, so the next writer goes on meanwhile and
    # writers that commit together share one sync. Checkpoints sync as they did.
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("SELECT count(*) FROM sqlite_master")  # opens the log, making it if need be
    _sync(Path(path).parent)  # ... and the log's name reaches the disk too
    database = sqlite_utils.Database(conn)
    database.log_path = f"{os.path.abspath(path)}-wal"  # type: ignore[attr-defined]  # ours
    return database


def _write_ahead_log(conn: sqlite3.Connection, timeout: float = 30) -> None:
    """Put the file in WAL mode (readers never wait for the writer). A new file's first
    switch needs the file to itself, and SQLite does not wait for that as it waits for
    locks: processes starting together on a new file (gunicorn and the job process) try
    again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _sync(path: str | Path) -> None:
    """Wait until the file (or folder) ``path`` is on the disk."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(handle)
    finally:
        os.close(handle)


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
    if getattr(_thread, "key", None) != key or not usable(_thread.db):
        if getattr(_thread, "key", (None,))[0] == os.getpid():
            # another database (tests): one connection per thread; or a PostgreSQL
            # connection the server dropped (a restart): the next request connects again
            _thread.db.close()
        _thread.db, _thread.key = connect(path), key
    return _thread.db


def close_db(_error: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None and usable(db) and db.conn.in_transaction:
        db.conn.execute("ROLLBACK")  # the thread's next request starts afresh


def dialect(db: sqlite_utils.Database) -> str:
    """"sqlite" or "postgresql"."""
    return getattr(db, "dialect", "sqlite")


def usable(db: sqlite_utils.Database) -> bool:
    """False once a PostgreSQL server has dropped the connection (an SQLite file's stays)."""
    return getattr(db.conn, "usable", True)


# How a write transaction begins. SQLite: with the write lock (IMMEDIATE), so two requests
# for the same game serialise instead of failing to upgrade a read lock. PostgreSQL: each
# statement sees what was committed before it (READ COMMITTED), and a game's writers take
# turns on its row (``hold_game``).
BEGIN = {"sqlite": "BEGIN IMMEDIATE", "postgresql": "BEGIN"}


@contextlib.contextmanager
def write(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """A write transaction (``BEGIN``), committed and on the disk when the block ends, so
    that an acknowledged move survives a power cut. Inside another write transaction it is
    a savepoint of that one: the outer commit decides for both."""
    if db.conn.in_transaction:
        savepoint = f"nested_{secrets.token_hex(8)}"
        db.execute(f"SAVEPOINT {savepoint}")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:  # an error may have ended the whole transaction
                db.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                db.execute(f"RELEASE SAVEPOINT {savepoint}")
            raise
        db.execute(f"RELEASE SAVEPOINT {savepoint}")
        return
    db.conn.execute(BEGIN[dialect(db)])
    try:
        yield db
    except BaseException:
        if usable(db):
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")
    # SQLite's log, with everything committed so far by any process (it stays while a
    # connection is open, as this one is); PostgreSQL's COMMIT has waited for its disk
    if dialect(db) == "sqlite":
        _sync(db.log_path)  # type: ignore[attr-defined]  # set by connect


def hold_game(db: sqlite_utils.Database, game_id: str) -> None:
    """Inside a write transaction: keep the game's other writers waiting until this one
    commits, so that what it read of the game stays true. SQLite's write transaction holds
    the whole database already; on PostgreSQL this locks the game's row (NO KEY UPDATE:
    rows that only refer to the game, such as new links, are not held up)."""
    if dialect(db) == "postgresql":
        db.execute("SELECT 1 FROM games WHERE id = ? FOR NO KEY UPDATE", [game_id])


def claiming(db: sqlite_utils.Database) -> str:
    """What a SELECT of rows to work on (due emails) ends with, so that two job runners
    never take the same rows: on PostgreSQL, rows another transaction has claimed are
    skipped. SQLite has one writer at a time, which is claim enough."""
    return " FOR UPDATE SKIP LOCKED" if dialect(db) == "postgresql" else ""


# The number of a PostgreSQL advisory lock named by the parameter, within this
# installation (its schema: several may share a database).
LOCK_KEY = "hashtextextended(current_schema() || ':' || ?, 0)"


def try_lock(db: sqlite_utils.Database, name: str) -> bool:
    """Take the PostgreSQL advisory lock ``name`` for the connection's session, if no other
    session holds it: a job only one process may do at a time. Release it with ``unlock``
    (or by closing the connection)."""
    return db.execute(f"SELECT pg_try_advisory_lock({LOCK_KEY})", [name]).fetchone()[0]


def unlock(db: sqlite_utils.Database, name: str) -> None:
    db.execute(f"SELECT pg_advisory_unlock({LOCK_KEY})", [name])


def hold_name(db: sqlite_utils.Database, name: str) -> None:
    """Inside a write transaction: keep the other writers that hold ``name`` waiting until
    this one commits. SQLite's write transaction holds the whole database already; on
    PostgreSQL this takes the transaction's advisory lock ``name``."""
    if dialect(db) == "postgresql":
        db.execute(f"SELECT pg_advisory_xact_lock({LOCK_KEY})", [name])


@contextlib.contextmanager
def claimed(db: sqlite_utils.Database, name: str) -> Iterator[bool]:
    """Whether this process has the job ``name`` to itself for the block: on PostgreSQL,
    whether no other session held its advisory lock (which this one then holds until the
    block ends); on SQLite, always (one machine's job process, ``pbem/scheduler.py``)."""
    if dialect(db) != "postgresql":
        yield True
        return
    mine = try_lock(db, name)
    try:
        yield mine
    finally:
        if mine and usable(db):
            unlock(db, name)


def utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


APPEND_ONLY = "the event log is append-only"
# The triggers that refuse to change or delete events (PostgreSQL: to empty the table too).
APPEND_ONLY_TRIGGERS = {
    "sqlite": [
        f"CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
        f"CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events "
        f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY}'); END",
    ],
    "postgresql": [
        f"CREATE OR REPLACE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN RAISE EXCEPTION '{APPEND_ONLY}'; END $$",
        "CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events "
        "FOR EACH ROW EXECUTE FUNCTION append_only()",
        "CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events "
        "FOR EACH STATEMENT EXECUTE FUNCTION append_only()",
    ],
}


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
    # a game between computers: who started it (pbem/computer.py, client_key); else null
    ("games", "client", str, None),
    ("links", "emailed", int, 0),       # 1: minted for an email to the seat (pbem/invites.py)
    ("seats", "seen_at", str, None),    # when the seat's game page was last open (notify.seen)
    # an email's HTML part, and the SVG of the board it shows as pictures (pbem/pictures.py)
    ("outbox", "html", str, None),
    ("outbox", "board", str, None),
)


def init_db(db: sqlite_utils.Database) -> set[str]:
    """Create whatever of the schema is missing; returns the tables it created. Safe to run
    on every start, in several processes at once: one write transaction from the first
    statement, so each process waits for the one before it instead of failing to upgrade a
    read to a write (on PostgreSQL, an advisory lock makes them take turns)."""
    with write(db):
        hold_name(db, "init-db")
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
                              # vacation (move: its days), timeout (the server's; seat:
                              # who ran out),
                              # chat (text: the message), rematch (a seat asks for one),
                              # join (seat: the open seat taken), withdraw (before the start)
        "move": str,          # the move in notation, for kind = move
        "created_at": str,
    }, pk=("game_id", "seq"), foreign_keys=[("game_id", "games", "id")],
        not_null={"kind", "created_at"}, if_not_exists=True)
    for statement in APPEND_ONLY_TRIGGERS[dialect(db)]:
        db.execute(statement)
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
    db["forgotten_lists"].create({  # "Forget this browser": a copy of its cookie lists nothing
        "list_id": str, "forgotten_at": str,
    }, pk="list_id", if_not_exists=True)
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
    # addresses are compared without case (as people type them), in SQL both engines know
    db.execute("CREATE INDEX IF NOT EXISTS seats_email_lower ON seats (lower(email))")
    db.execute("DROP INDEX IF EXISTS idx_seats_email")  # the same, with case: never used
    db["links"].create_index(["game_id", "seat"], if_not_exists=True)
    db["outbox"].create_index(["status", "next_attempt_at"], if_not_exists=True)
    for table, column, type_, default in ADDED_COLUMNS:  # upgrade older databases in place
        if column not in db[table].columns_dict:
            db[table].add_column(column, type_, not_null_default=default)
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS outbox_unique_key ON outbox(unique_key) "
               "WHERE unique_key IS NOT NULL")
    db["outbox"].create_index(["game_id", "seat", "kind"], if_not_exists=True)
    db.execute("CREATE INDEX IF NOT EXISTS games_client ON games(client, status) "
               "WHERE client IS NOT NULL")  # the few games between computers
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
        "kind": str,          # timeout, warning, reminder, turn, waiting or computer
        "at": str,            # when it falls due (a reminder, a turn: when the turn began)
        "not_before": str,    # a reminder held back by a vacation: its end; a turn's
                              # email held back while its player was there: when they may
                              # have left
    }, pk=("game_id", "seat", "kind"), not_null={"at"}, if_not_exists=True)
    db["due"].create_index(["kind", "at"], if_not_exists=True)
    # the digest starts from the seats that chose it: few among many, so a partial index
    db.execute("CREATE INDEX IF NOT EXISTS seats_digest ON seats(game_id, seat) "
               "WHERE notify = 'digest'")
    db["invites"].create({  # each start email, sent or held back (pbem/invites.py)
        "game_id": str, "seat": int,
        "address": str,       # the seat's address, normalised (``invites.address_key``)
        "sent": int,          # 1: emailed; 0: held back (the address had too many)
        "answered": int,      # 1: the address acted through a link emailed to it
        "created_at": str,
    }, pk=("game_id", "seat"), not_null={"address", "sent", "answered", "created_at"},
        if_not_exists=True)
    db["invites"].create_index(["address", "created_at"], if_not_exists=True)
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
    click.echo(f"Initialised {shown(current_app.config['DATABASE'])}")


def copy(source: sqlite_utils.Database, target: sqlite_utils.Database) -> dict[str, int]:
    """Copy every row of ``source`` into ``target``, which gets the schema here and must
    hold no game yet: an installation moving to another database (SQLite to PostgreSQL).
    The rows are read from one snapshot of ``source`` and written in one transaction, so
    the copy is whole or nothing. Returns how many rows each table received."""
    init_db(target)
    wanted = set(target.table_names())
    tables = [table for table in source.table_names() if table in wanted]
    # every other table refers to games alone: its rows go first
    tables.sort(key=lambda table: table != "games")
    copied = {}
    source.conn.execute(SNAPSHOT[dialect(source)])
    try:
        with write(target):
            if target.execute("SELECT count(*) FROM games").fetchone()[0]:
                raise click.ClickException("The database copied to already holds games: "
                                           "copy only into a new, empty one.")
            for table in tables:
                copied[table] = _copy_table(source, target, table)
    finally:
        source.conn.execute("ROLLBACK")
    return copied


# A read transaction that sees one moment of the database, even while others write.
SNAPSHOT = {"sqlite": "BEGIN", "postgresql": "BEGIN ISOLATION LEVEL REPEATABLE READ"}


def _copy_table(source: sqlite_utils.Database, target: sqlite_utils.Database,
                table: str) -> int:
    types = source[table].columns_dict
    columns = list(types)
    keys = source[table].pks
    numbered = len(keys) == 1 and types[keys[0]] is int
    # in the order they were written (the lobby lists games that way where times tie)
    rows = source.execute(f"SELECT {', '.join(columns)} FROM {table} "
                          f"ORDER BY {keys[0] if numbered else 'rowid'}")
    count = 0
    while batch := rows.fetchmany(1000):
        target.conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) "
                                f"VALUES ({', '.join('?' * len(columns))})",
                                [tuple(row) for row in batch])
        count += len(batch)
    if numbered and dialect(target) == "postgresql":  # go on numbering after the copies
        target.execute(f"SELECT setval(pg_get_serial_sequence(?, ?), "
                       f"COALESCE(MAX({keys[0]}), 0) + 1, false) FROM {table}",
                       [table, keys[0]])
    return count


@click.command("copy-db")
@with_appcontext
@click.option("--to", "to", required=True, metavar="DATABASE",
              help="Where to: a postgresql:// URL (or an SQLite file), with no games yet.")
def copy_db_command(to: str) -> None:
    """Copy this installation's database (DATABASE), every game, event, link, seat, email and
    setting, to another: e.g. from SQLite to PostgreSQL. Stop the server and its jobs
    first, then set DATABASE to the new one."""
    try:
        target = connect(to)
    except Exception as error:  # noqa: BLE001 - sqlite3's or psycopg's: said in one line
        raise click.ClickException(f"Cannot open {shown(to)}: {error}") from None
    try:
        copied = copy(get_db(), target)
    finally:
        target.close()
    for table, rows in copied.items():
        click.echo(f"{table}: {rows} rows")
    click.echo(f"Copied {shown(current_app.config['DATABASE'])} to {shown(to)}.")
